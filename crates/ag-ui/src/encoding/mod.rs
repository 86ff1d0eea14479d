//! Transports' byte formats.
//!
//! [`sse`] is the Server-Sent Events framing every AG-UI client understands.

#[cfg(feature = "sse")]
#[cfg_attr(docsrs, doc(cfg(feature = "sse")))]
pub mod sse;
