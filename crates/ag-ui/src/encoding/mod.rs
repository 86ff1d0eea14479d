//! Transports' byte formats.
//!
//! [`sse`] is the Server-Sent Events framing every AG-UI client understands; [`proto`] is the
//! binary transport, length-prefixed protobuf frames (`application/vnd.ag-ui.event+proto`).

#[cfg(feature = "proto")]
#[cfg_attr(docsrs, doc(cfg(feature = "proto")))]
pub mod proto;
#[cfg(feature = "sse")]
#[cfg_attr(docsrs, doc(cfg(feature = "sse")))]
pub mod sse;
