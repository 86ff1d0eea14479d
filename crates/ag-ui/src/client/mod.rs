//! The client side of AG-UI: what a frontend does with the events an agent sends.
//!
//! Each stage of the client pipeline is public on its own:
//!
//! - [`chunks`]: expands the `*_CHUNK` shorthand into explicit START / CONTENT / END events.
//! - [`compat`]: reads pre-1.0 `THINKING_*` events as `REASONING_*`, skips unknown event types.
//! - [`apply`]: turns a verified event stream back into a conversation (messages, state,
//!   pending interrupts and tool calls).
//! - `run`: the whole pipeline from SSE bytes, with subscribers (feature `sse`).
//! - `conversation`: a conversation kept across runs over any transport (feature `sse`).
//! - `http`: `HttpAgent`, the HTTP transport (feature `http`).
//! - `resume`: reconnecting to resumable runs without losing or repeating events (feature
//!   `http`).

pub mod apply;
pub mod chunks;
pub mod compat;
#[cfg(feature = "sse")]
#[cfg_attr(docsrs, doc(cfg(feature = "sse")))]
pub mod conversation;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod http;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod resume;
#[cfg(feature = "sse")]
#[cfg_attr(docsrs, doc(cfg(feature = "sse")))]
pub mod run;
