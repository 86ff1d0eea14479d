//! # ag-ui
//!
//! A Rust SDK for the AG-UI protocol 1.0 (Agent–User Interaction): agent backends stream typed
//! JSON events — text, tool calls, reasoning, state snapshots and JSON Patch deltas, activity,
//! steps, subagents, interrupts — to frontends over Server-Sent Events.
//!
//! The crate root is the wire model: [`Event`] and one struct per event type, the id newtypes,
//! [`RunAgentInput`], [`Message`] and its parts, outcomes and interrupts. Everything serializes
//! exactly as AG-UI 1.0 puts it on the wire.
//!
//! ```
//! use ag_ui::{Event, EventType, TextMessageRole};
//!
//! let events = [
//!     Event::run_started("thread-1", "run-1"),
//!     Event::text_message_start("m1", TextMessageRole::Assistant),
//!     Event::text_message_content("m1", "Hello"),
//!     Event::text_message_end("m1"),
//!     Event::run_finished("thread-1", "run-1"),
//! ];
//! let json = events[2].to_json();
//! assert_eq!(json, r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello"}"#);
//! assert_eq!(Event::from_json(&json).unwrap().event_type(), EventType::TextMessageContent);
//! ```
//!
//! ## Fields outside the schema
//!
//! An event is read into its typed struct, so a member the AG-UI 1.0 schema does not describe
//! (`"foo": 1` on a chunk, a vendor key on a message) is dropped when read and never written
//! back: a proxy or a recorder built on this crate re-emits events in their schema shape, and
//! `ag-ui normalize` / `ag-ui convert` do too. This is what the reference client's schema
//! stage does to every event before chunk expansion and verification (it removes unknown
//! properties, with a warning), so the events an application sees are the same either way. To
//! carry data of your own, use the protocol's places for it: `metadata`, `rawEvent`, or a
//! `CUSTOM` event.
//!
//! ```
//! use ag_ui::Event;
//!
//! let event = Event::from_json(r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"x","foo":1}"#).unwrap();
//! assert_eq!(event.to_json(), r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"x"}"#);
//! ```
//!
//! ## Modules
//!
//! | module | what | feature |
//! |---|---|---|
//! | crate root | the wire model | always |
//! | [`verify`] | the ordering verifier | always |
//! | `encoding::sse` | SSE writer and incremental decoder | `sse` |
//! | `client` | chunk normalization, the reducer, the run pipeline | `client` |
//! | `server` | `RunContext`, RAII emit handles, the runner | `server` |

#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "axum")]
pub mod axum;
pub mod capabilities;
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub mod client;
mod decode;
pub mod encoding;
mod event;
mod fast_json;
mod ids;
mod input;
mod message;
mod outcome;
mod serde_util;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod server;
pub mod verify;

pub use capabilities::AgentCapabilities;
pub use decode::{DecodeError, DecodeErrorKind};
pub use event::*;
pub use ids::{InterruptId, MessageId, RunId, SubagentRunId, ThreadId, ToolCallId};
pub use input::{Context, ResumeEntry, ResumeStatus, RunAgentInput, Tool};
pub use message::{
    ActivityMessage, AssistantMessage, Content, ContentPart, DeveloperMessage, FunctionCall,
    MediaPart, Message, PartSource, ReasoningMessage, Role, SystemMessage, TextMessageRole,
    TextPart, ToolCall, ToolCallType, ToolMessage, UserMessage,
};
pub use outcome::{Interrupt, RunFinishedOutcome, SubagentFinishedOutcome, TokenUsage};

/// JSON Patch (RFC 6902), as carried by `STATE_DELTA` and `ACTIVITY_DELTA`: the types of the
/// [`json_patch`] crate, re-exported.
pub use json_patch::{Patch as JsonPatch, PatchOperation as JsonPatchOperation};

/// The `json_patch` crate, re-exported so callers can build and apply patches with the same
/// version this crate uses.
pub use json_patch;

/// Open-by-key extra information: a JSON object whose values may be anything, `null` included.
pub type Metadata = serde_json::Map<String, serde_json::Value>;

/// The protocol version this crate speaks.
pub const PROTOCOL_VERSION: &str = "1.0";

/// The README's quick starts, compiled and run as doctests.
#[cfg(all(doctest, feature = "axum", feature = "http"))]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
