//! The client side of AG-UI: turning a received event stream back into a conversation.

pub mod apply;
pub mod compat;
