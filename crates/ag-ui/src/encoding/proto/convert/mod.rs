//! This crate's events to and from the generated protobuf messages, field by field.
//!
//! Writing follows the reference encoder (`@ag-ui/proto` 1.0.0); reading gives the event that
//! reading the reference decoder's JSON would give, so that the binary and the SSE transports
//! agree: what the JSON reader drops with a warning (a message of unknown role, a patch
//! operation or an outcome of unknown type) is dropped here too, and what it refuses is refused
//! here, naming the field.

mod read;
mod write;

pub(crate) use read::{Ids, arm_type, from_arm, text_role};
pub(crate) use write::to_message;
