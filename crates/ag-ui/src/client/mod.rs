//! The client side of AG-UI: what a frontend does with the events an agent sends.
//!
//! Each stage of the client pipeline is public on its own:
//!
//! - [`chunks`]: expands the `*_CHUNK` shorthand into explicit START / CONTENT / END events.
//! - [`apply`]: turns a verified event stream back into a conversation (messages, state,
//!   pending interrupts and tool calls).

pub mod apply;
pub mod chunks;
