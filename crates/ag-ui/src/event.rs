//! The 31 events of AG-UI 1.0: one struct per event and the [`Event`] enum that carries them.
//!
//! Every event has the base fields `timestamp`, `rawEvent` and `metadata`; the 24 events that a
//! subagent may produce also carry the optional attribution `subagentRunId`. Optional fields with
//! no value are left out of the JSON, never written as `null`.
//!
//! ```
//! use ag_ui::{Event, EventType, TextMessageRole};
//!
//! let event = Event::text_message_start("m1", TextMessageRole::Assistant)
//!     .with_timestamp(1_700_000_000_000);
//! assert_eq!(event.event_type(), EventType::TextMessageStart);
//! assert_eq!(
//!     serde_json::to_string(&event).unwrap(),
//!     r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","timestamp":1700000000000}"#
//! );
//! let back = Event::from_json(&event.to_json()).unwrap();
//! assert_eq!(back, event);
//! ```

use std::fmt;
use std::str::FromStr;

use json_patch::PatchOperation;
use serde::de::Deserializer;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::messages;
use crate::outcome::{run_outcome, subagent_outcome};
use crate::serde_util::{deserialize_element, lenient_vec, non_null, timestamp};
use crate::{
    Content, Message, MessageId, Metadata, RunAgentInput, RunFinishedOutcome, RunId,
    SubagentFinishedOutcome, SubagentRunId, TextMessageRole, ThreadId, TokenUsage, ToolCallId,
};

/// JSON Patch operation names, used to drop unknown ones when reading.
const PATCH_OPS: &[&str] = &["add", "remove", "replace", "move", "copy", "test"];

fn patch_ops<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<PatchOperation>, D::Error> {
    lenient_vec(d, "op", PATCH_OPS, deserialize_element)
}

/// `REASONING_MESSAGE_START.role`: always `"reasoning"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningRole {
    /// The only value.
    #[default]
    Reasoning,
}

/// `TOOL_CALL_RESULT.role`: only ever `"tool"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolRole {
    /// The only value.
    #[default]
    Tool,
}

/// What a `REASONING_ENCRYPTED_VALUE` is attached to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ReasoningEncryptedValueSubtype {
    /// A tool call; `entityId` is a tool call id.
    #[serde(rename = "tool-call")]
    ToolCall,
    /// A message; `entityId` is a message id.
    #[serde(rename = "message")]
    Message,
}

macro_rules! event_struct {
    (
        $(#[$doc:meta])*
        $name:ident {
            required { $( $(#[$rattr:meta])* $rfield:ident : $rty:ty ),* $(,)? }
            fixed { $( $(#[$fattr:meta])* $ffield:ident : $fty:ty ),* $(,)? }
            optional { $( $(#[$oattr:meta])* $osetter:ident $ofield:ident : $oty:ty ),* $(,)? }
            lenient { $( $(#[$lattr:meta])* $lsetter:ident $lfield:ident : $lty:ty ),* $(,)? }
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        #[non_exhaustive]
        pub struct $name {
            $( $(#[$rattr])* pub $rfield: $rty, )*
            $( $(#[$fattr])* pub $ffield: $fty, )*
            $(
                $(#[$oattr])*
                #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "non_null")]
                pub $ofield: Option<$oty>,
            )*
            $(
                $(#[$lattr])*
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $lfield: Option<$lty>,
            )*
            /// When the event was created, in milliseconds since the Unix epoch by convention.
            #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "timestamp")]
            pub timestamp: Option<i64>,
            /// The provider-native event this one was derived from. A legacy `null` reads as
            /// absent. Boxed: it is rare, and every event is moved through the pipeline.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub raw_event: Option<Box<Value>>,
            /// Open-by-key extra information; never `null` itself. Boxed, as `raw_event`.
            #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "non_null")]
            pub metadata: Option<Box<Metadata>>,
        }

        impl $name {
            /// The event with its required fields set and every optional field absent.
            #[allow(clippy::new_without_default)]
            pub fn new($( $rfield: impl Into<$rty> ),*) -> Self {
                Self {
                    $( $rfield: $rfield.into(), )*
                    $( $ffield: <$fty>::default(), )*
                    $( $ofield: None, )*
                    $( $lfield: None, )*
                    timestamp: None,
                    raw_event: None,
                    metadata: None,
                }
            }

            $(
                #[doc = concat!("Sets `", stringify!($ofield), "`.")]
                #[must_use]
                pub fn $osetter(mut self, value: impl Into<$oty>) -> Self {
                    self.$ofield = Some(value.into());
                    self
                }
            )*
            $(
                #[doc = concat!("Sets `", stringify!($lfield), "`.")]
                #[must_use]
                pub fn $lsetter(mut self, value: impl Into<$lty>) -> Self {
                    self.$lfield = Some(value.into());
                    self
                }
            )*

            /// Sets the timestamp.
            #[must_use]
            pub fn with_timestamp(mut self, timestamp: i64) -> Self {
                self.timestamp = Some(timestamp);
                self
            }

            /// Sets the provider-native event this one was derived from.
            #[must_use]
            pub fn with_raw_event(mut self, raw_event: Value) -> Self {
                self.raw_event = Some(Box::new(raw_event));
                self
            }

            /// Sets the metadata.
            #[must_use]
            pub fn with_metadata(mut self, metadata: Metadata) -> Self {
                self.metadata = Some(Box::new(metadata));
                self
            }
        }
    };
}

event_struct! {
    /// `TEXT_MESSAGE_START`: opens a streamed text message.
    TextMessageStartEvent {
        required {
            /// The message being built.
            message_id: MessageId,
        }
        fixed {}
        optional {
            /// The author's role; absent means assistant (see [`Self::effective_role`]).
            with_role role: TextMessageRole,
            /// Display name of the author.
            with_name name: String,
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

impl TextMessageStartEvent {
    /// The role, with absent read as [`TextMessageRole::Assistant`] as the protocol says.
    pub fn effective_role(&self) -> TextMessageRole {
        self.role.unwrap_or_default()
    }
}

event_struct! {
    /// `TEXT_MESSAGE_CONTENT`: appends a fragment to an open text message.
    TextMessageContentEvent {
        required {
            /// The open message.
            message_id: MessageId,
            /// The fragment; may be empty.
            delta: String,
        }
        fixed {}
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `TEXT_MESSAGE_END`: closes a text message.
    TextMessageEndEvent {
        required {
            /// The open message.
            message_id: MessageId,
        }
        fixed {}
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `TEXT_MESSAGE_CHUNK`: start, content and end in one self-contained event; see
    /// `client::chunks` for how it expands.
    TextMessageChunkEvent {
        required {}
        fixed {}
        optional {
            /// The message; required on the chunk that opens one.
            with_message_id message_id: MessageId,
            /// Role of the opening chunk; repeats must agree.
            with_role role: TextMessageRole,
            /// The fragment.
            with_delta delta: String,
            /// Display name; repeats must agree.
            with_name name: String,
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `TOOL_CALL_START`: opens a tool call.
    ToolCallStartEvent {
        required {
            /// The call.
            tool_call_id: ToolCallId,
            /// The tool invoked.
            tool_call_name: String,
        }
        fixed {}
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {
            /// The assistant message that holds the call. A legacy `null` reads as absent.
            with_parent_message_id parent_message_id: MessageId,
        }
    }
}

event_struct! {
    /// `TOOL_CALL_ARGS`: appends a fragment of the argument text.
    ToolCallArgsEvent {
        required {
            /// The open call.
            tool_call_id: ToolCallId,
            /// The fragment (conventionally JSON, never parsed).
            delta: String,
        }
        fixed {}
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `TOOL_CALL_END`: the arguments are complete.
    ToolCallEndEvent {
        required {
            /// The open call.
            tool_call_id: ToolCallId,
        }
        fixed {}
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `TOOL_CALL_CHUNK`: start, args and end in one self-contained event.
    ToolCallChunkEvent {
        required {}
        fixed {}
        optional {
            /// The call; required on the opening chunk.
            with_tool_call_id tool_call_id: ToolCallId,
            /// The tool; required on the opening chunk.
            with_tool_call_name tool_call_name: String,
            /// The fragment.
            with_delta delta: String,
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {
            /// The assistant message that holds the call. A legacy `null` reads as absent.
            with_parent_message_id parent_message_id: MessageId,
        }
    }
}

event_struct! {
    /// `TOOL_CALL_RESULT`: what a tool returned; creates a tool message.
    ToolCallResultEvent {
        required {
            /// The tool message created.
            message_id: MessageId,
            /// The call answered.
            tool_call_id: ToolCallId,
            /// Text or content parts.
            content: Content,
        }
        fixed {}
        optional {
            /// Always `"tool"` when present.
            with_role role: ToolRole,
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `STATE_SNAPSHOT`: replaces the state wholesale.
    StateSnapshotEvent {
        required {
            /// The complete new state; any JSON value, `null` included.
            snapshot: Value,
        }
        fixed {}
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `STATE_DELTA`: an RFC 6902 patch against the current state.
    StateDeltaEvent {
        required {
            /// The operations; `[]` is a valid no-op. Unknown operations are dropped when read.
            #[serde(deserialize_with = "patch_ops")]
            delta: Vec<PatchOperation>,
        }
        fixed {}
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `MESSAGES_SNAPSHOT`: the conversation as the producer holds it.
    MessagesSnapshotEvent {
        required {
            /// The messages, in order. Messages of unknown role are dropped when read.
            #[serde(deserialize_with = "messages")]
            messages: Vec<Message>,
        }
        fixed {}
        optional {}
        lenient {}
    }
}

event_struct! {
    /// `ACTIVITY_SNAPSHOT`: the full content of an activity message.
    ActivitySnapshotEvent {
        required {
            /// The activity message.
            message_id: MessageId,
            /// The producer's discriminator (`"PLAN"`, …).
            activity_type: String,
            /// The payload, a JSON object.
            content: Metadata,
        }
        fixed {}
        optional {
            /// Absent means `true`; `false` leaves an existing activity untouched.
            with_replace replace: bool,
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `ACTIVITY_DELTA`: an RFC 6902 patch against an activity's content.
    ActivityDeltaEvent {
        required {
            /// The activity message.
            message_id: MessageId,
            /// The producer's discriminator.
            activity_type: String,
            /// The operations. Unknown operations are dropped when read.
            #[serde(deserialize_with = "patch_ops")]
            patch: Vec<PatchOperation>,
        }
        fixed {}
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `RAW`: a provider-native event passed through.
    RawEvent {
        required {
            /// The provider's event; any JSON value, `null` included.
            event: Value,
        }
        fixed {}
        optional {
            /// The provider or framework it came from.
            with_source source: String,
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `CUSTOM`: an application extension; its meaning is outside the protocol.
    CustomEvent {
        required {
            /// Routing name.
            name: String,
            /// Payload; any JSON value, `null` included.
            value: Value,
        }
        fixed {}
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `RUN_STARTED`: a run begins.
    RunStartedEvent {
        required {
            /// The conversation.
            thread_id: ThreadId,
            /// The run.
            run_id: RunId,
        }
        fixed {}
        optional {
            /// The protocol version the producer speaks.
            with_protocol_version protocol_version: String,
            /// The run that spawned this one.
            with_parent_run_id parent_run_id: RunId,
            /// Echo of the request (boxed: it is large and rare).
            with_input input: Box<RunAgentInput>,
        }
        lenient {}
    }
}

event_struct! {
    /// `RUN_FINISHED`: the run ended without failure.
    RunFinishedEvent {
        required {
            /// The conversation.
            thread_id: ThreadId,
            /// The run.
            run_id: RunId,
        }
        fixed {}
        optional {
            /// Token usage, one entry per (provider, model).
            with_usage usage: Vec<TokenUsage>,
        }
        lenient {
            /// The run's return value. A legacy `null` reads as absent.
            with_result result: Value,
            /// How it ended; absent means success. A legacy `null`, or an unknown outcome
            /// type, reads as absent.
            #[serde(deserialize_with = "run_outcome")]
            with_outcome outcome: RunFinishedOutcome,
        }
    }
}

event_struct! {
    /// `RUN_ERROR`: the run failed.
    RunErrorEvent {
        required {
            /// Human-readable error.
            message: String,
        }
        fixed {}
        optional {
            /// Machine-readable code.
            with_code code: String,
            /// Usage accrued before the failure.
            with_usage usage: Vec<TokenUsage>,
        }
        lenient {}
    }
}

event_struct! {
    /// `STEP_STARTED`: a named step begins.
    StepStartedEvent {
        required {
            /// The step.
            step_name: String,
        }
        fixed {}
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `STEP_FINISHED`: a named step ends.
    StepFinishedEvent {
        required {
            /// The step.
            step_name: String,
        }
        fixed {}
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `REASONING_START`: opens a reasoning span (which creates no message).
    ReasoningStartEvent {
        required {
            /// The span.
            message_id: MessageId,
        }
        fixed {}
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `REASONING_MESSAGE_START`: opens a reasoning message.
    ReasoningMessageStartEvent {
        required {
            /// The message.
            message_id: MessageId,
        }
        fixed {
            /// Always `"reasoning"`.
            role: ReasoningRole,
        }
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `REASONING_MESSAGE_CONTENT`: appends to an open reasoning message.
    ReasoningMessageContentEvent {
        required {
            /// The open message.
            message_id: MessageId,
            /// The fragment; may be empty.
            delta: String,
        }
        fixed {}
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `REASONING_MESSAGE_END`: closes a reasoning message.
    ReasoningMessageEndEvent {
        required {
            /// The open message.
            message_id: MessageId,
        }
        fixed {}
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `REASONING_MESSAGE_CHUNK`: a self-contained reasoning fragment.
    ReasoningMessageChunkEvent {
        required {}
        fixed {}
        optional {
            /// The message; required on the opening chunk.
            with_message_id message_id: MessageId,
            /// The fragment (an empty one does not close the message).
            with_delta delta: String,
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `REASONING_END`: closes a reasoning span.
    ReasoningEndEvent {
        required {
            /// The open span.
            message_id: MessageId,
        }
        fixed {}
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `REASONING_ENCRYPTED_VALUE`: an opaque provider artefact for a tool call or a message.
    ReasoningEncryptedValueEvent {
        required {
            /// What `entity_id` names.
            subtype: ReasoningEncryptedValueSubtype,
            /// A tool call id or a message id, according to `subtype`.
            entity_id: String,
            /// The artefact.
            encrypted_value: String,
        }
        fixed {}
        optional {
            /// The subagent invocation that produced the event.
            with_subagent_run_id subagent_run_id: SubagentRunId,
        }
        lenient {}
    }
}

event_struct! {
    /// `SUBAGENT_STARTED`: a subagent invocation begins (or continues after a suspension).
    SubagentStartedEvent {
        required {
            /// The invocation announced (its identity, not an attribution).
            subagent_run_id: SubagentRunId,
            /// The subagent's name or kind.
            name: String,
        }
        fixed {}
        optional {
            /// What it does.
            with_description description: String,
            /// The enclosing invocation, for nesting.
            with_parent_subagent_run_id parent_subagent_run_id: SubagentRunId,
            /// The tool call that spawned it.
            with_parent_tool_call_id parent_tool_call_id: ToolCallId,
            /// The message that held that tool call.
            with_parent_message_id parent_message_id: MessageId,
        }
        lenient {}
    }
}

event_struct! {
    /// `SUBAGENT_FINISHED`: a subagent invocation ended (or suspended).
    SubagentFinishedEvent {
        required {
            /// The invocation.
            subagent_run_id: SubagentRunId,
        }
        fixed {}
        optional {}
        lenient {
            /// Its return value. A legacy `null` reads as absent.
            with_result result: Value,
            /// How it ended; absent means success. An unknown outcome type reads as absent;
            /// `null` is an error.
            #[serde(deserialize_with = "subagent_outcome")]
            with_outcome outcome: SubagentFinishedOutcome,
        }
    }
}

event_struct! {
    /// `SUBAGENT_ERROR`: a subagent invocation failed; the run may go on.
    SubagentErrorEvent {
        required {
            /// The invocation.
            subagent_run_id: SubagentRunId,
            /// Human-readable error.
            message: String,
        }
        fixed {}
        optional {
            /// Machine-readable code.
            with_code code: String,
        }
        lenient {}
    }
}

/// An event type name that is not one of the 31 of AG-UI 1.0.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown AG-UI event type {0:?}")]
pub struct UnknownEventType(pub String);

/// The payload type of a variant of [`Event`]: the struct, or a box of it.
macro_rules! payload {
    (inline $ty:ident) => { $ty };
    (boxed $ty:ident) => { Box<$ty> };
}

/// Wraps an event struct as the payload of its variant.
macro_rules! wrap {
    (inline $e:expr) => {
        $e
    };
    (boxed $e:expr) => {
        Box::new($e)
    };
}

macro_rules! events {
    ($( $(#[$doc:meta])* $variant:ident($store:ident $ty:ident) = $wire:literal, attributed = $attr:tt; )*) => {
        /// One AG-UI event. Serializes as a JSON object whose `type` names the variant.
        ///
        /// Build events with the constructors ([`Event::text_message_start`], …) or from the
        /// per-event structs (`TextMessageStartEvent::new(..).into()`); read them with
        /// [`Event::from_json`] and friends, which report what was wrong as a
        /// [`DecodeError`](crate::DecodeError).
        ///
        /// The six large, rare events (`RUN_FINISHED`, `ACTIVITY_SNAPSHOT`, `RAW`, `CUSTOM`,
        /// `SUBAGENT_STARTED`, `SUBAGENT_FINISHED`) are boxed, so that an `Event` is 128 bytes
        /// and a stream of content events moves and reads as little memory as possible.
        /// Matching is unchanged (`Event::RunFinished(e) => e.outcome`); build them with
        /// `.into()` or the constructors.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(tag = "type")]
        #[non_exhaustive]
        pub enum Event {
            $( $(#[$doc])* #[serde(rename = $wire)] $variant(payload!($store $ty)), )*
        }

        /// The `type` of an event, without its payload.
        ///
        /// ```
        /// use ag_ui::EventType;
        ///
        /// let t: EventType = "TOOL_CALL_START".parse().unwrap();
        /// assert_eq!(t, EventType::ToolCallStart);
        /// assert_eq!(t.as_str(), "TOOL_CALL_START");
        /// assert!("THINKING_START".parse::<EventType>().is_err());
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum EventType {
            $( $(#[$doc])* $variant, )*
        }

        impl EventType {
            /// All 31 event types, in catalogue order.
            pub const ALL: &'static [EventType] = &[ $( EventType::$variant, )* ];

            /// The wire name (`"TEXT_MESSAGE_START"`, …).
            pub fn as_str(self) -> &'static str {
                match self {
                    $( EventType::$variant => $wire, )*
                }
            }

            /// Whether events of this type may carry the `subagentRunId` attribution.
            pub fn is_attributable(self) -> bool {
                match self {
                    $( EventType::$variant => $attr, )*
                }
            }
        }

        impl FromStr for EventType {
            type Err = UnknownEventType;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $( $wire => Ok(EventType::$variant), )*
                    _ => Err(UnknownEventType(s.to_owned())),
                }
            }
        }

        $(
            impl From<$ty> for Event {
                fn from(event: $ty) -> Self {
                    Event::$variant(wrap!($store event))
                }
            }
        )*

        impl Event {
            /// The event's type.
            pub fn event_type(&self) -> EventType {
                match self {
                    $( Event::$variant(_) => EventType::$variant, )*
                }
            }

            /// Deserializes the payload of an event of type `ty` (the `type` key is ignored).
            #[inline]
            pub(crate) fn deserialize_as<'de, D: Deserializer<'de>>(
                ty: EventType,
                d: D,
            ) -> Result<Event, D::Error> {
                match ty {
                    $( EventType::$variant => <$ty>::deserialize(d).map(Event::from), )*
                }
            }

            /// The event's timestamp, if any.
            pub fn timestamp(&self) -> Option<i64> {
                match self {
                    $( Event::$variant(e) => e.timestamp, )*
                }
            }

            /// The provider-native event this one was derived from, if any.
            pub fn raw_event(&self) -> Option<&Value> {
                match self {
                    $( Event::$variant(e) => e.raw_event.as_deref(), )*
                }
            }

            /// The event's metadata, if any.
            pub fn metadata(&self) -> Option<&Metadata> {
                match self {
                    $( Event::$variant(e) => e.metadata.as_deref(), )*
                }
            }

            /// Mutable access to the timestamp.
            pub fn timestamp_mut(&mut self) -> &mut Option<i64> {
                match self {
                    $( Event::$variant(e) => &mut e.timestamp, )*
                }
            }

            /// Mutable access to the raw event.
            pub fn raw_event_mut(&mut self) -> &mut Option<Box<Value>> {
                match self {
                    $( Event::$variant(e) => &mut e.raw_event, )*
                }
            }

            /// Mutable access to the metadata.
            pub fn metadata_mut(&mut self) -> &mut Option<Box<Metadata>> {
                match self {
                    $( Event::$variant(e) => &mut e.metadata, )*
                }
            }
        }
    };
}

events! {
    /// `TEXT_MESSAGE_START`
    TextMessageStart(inline TextMessageStartEvent) = "TEXT_MESSAGE_START", attributed = true;
    /// `TEXT_MESSAGE_CONTENT`
    TextMessageContent(inline TextMessageContentEvent) = "TEXT_MESSAGE_CONTENT", attributed = true;
    /// `TEXT_MESSAGE_END`
    TextMessageEnd(inline TextMessageEndEvent) = "TEXT_MESSAGE_END", attributed = true;
    /// `TEXT_MESSAGE_CHUNK`
    TextMessageChunk(inline TextMessageChunkEvent) = "TEXT_MESSAGE_CHUNK", attributed = true;
    /// `TOOL_CALL_START`
    ToolCallStart(inline ToolCallStartEvent) = "TOOL_CALL_START", attributed = true;
    /// `TOOL_CALL_ARGS`
    ToolCallArgs(inline ToolCallArgsEvent) = "TOOL_CALL_ARGS", attributed = true;
    /// `TOOL_CALL_END`
    ToolCallEnd(inline ToolCallEndEvent) = "TOOL_CALL_END", attributed = true;
    /// `TOOL_CALL_CHUNK`
    ToolCallChunk(inline ToolCallChunkEvent) = "TOOL_CALL_CHUNK", attributed = true;
    /// `TOOL_CALL_RESULT`
    ToolCallResult(inline ToolCallResultEvent) = "TOOL_CALL_RESULT", attributed = true;
    /// `STATE_SNAPSHOT`
    StateSnapshot(inline StateSnapshotEvent) = "STATE_SNAPSHOT", attributed = true;
    /// `STATE_DELTA`
    StateDelta(inline StateDeltaEvent) = "STATE_DELTA", attributed = true;
    /// `MESSAGES_SNAPSHOT`
    MessagesSnapshot(inline MessagesSnapshotEvent) = "MESSAGES_SNAPSHOT", attributed = false;
    /// `ACTIVITY_SNAPSHOT`
    ActivitySnapshot(boxed ActivitySnapshotEvent) = "ACTIVITY_SNAPSHOT", attributed = true;
    /// `ACTIVITY_DELTA`
    ActivityDelta(inline ActivityDeltaEvent) = "ACTIVITY_DELTA", attributed = true;
    /// `RAW`
    Raw(boxed RawEvent) = "RAW", attributed = true;
    /// `CUSTOM`
    Custom(boxed CustomEvent) = "CUSTOM", attributed = true;
    /// `RUN_STARTED`
    RunStarted(inline RunStartedEvent) = "RUN_STARTED", attributed = false;
    /// `RUN_FINISHED`
    RunFinished(boxed RunFinishedEvent) = "RUN_FINISHED", attributed = false;
    /// `RUN_ERROR`
    RunError(inline RunErrorEvent) = "RUN_ERROR", attributed = false;
    /// `STEP_STARTED`
    StepStarted(inline StepStartedEvent) = "STEP_STARTED", attributed = true;
    /// `STEP_FINISHED`
    StepFinished(inline StepFinishedEvent) = "STEP_FINISHED", attributed = true;
    /// `REASONING_START`
    ReasoningStart(inline ReasoningStartEvent) = "REASONING_START", attributed = true;
    /// `REASONING_MESSAGE_START`
    ReasoningMessageStart(inline ReasoningMessageStartEvent) = "REASONING_MESSAGE_START", attributed = true;
    /// `REASONING_MESSAGE_CONTENT`
    ReasoningMessageContent(inline ReasoningMessageContentEvent) = "REASONING_MESSAGE_CONTENT", attributed = true;
    /// `REASONING_MESSAGE_END`
    ReasoningMessageEnd(inline ReasoningMessageEndEvent) = "REASONING_MESSAGE_END", attributed = true;
    /// `REASONING_MESSAGE_CHUNK`
    ReasoningMessageChunk(inline ReasoningMessageChunkEvent) = "REASONING_MESSAGE_CHUNK", attributed = true;
    /// `REASONING_END`
    ReasoningEnd(inline ReasoningEndEvent) = "REASONING_END", attributed = true;
    /// `REASONING_ENCRYPTED_VALUE`
    ReasoningEncryptedValue(inline ReasoningEncryptedValueEvent) = "REASONING_ENCRYPTED_VALUE", attributed = true;
    /// `SUBAGENT_STARTED`
    SubagentStarted(boxed SubagentStartedEvent) = "SUBAGENT_STARTED", attributed = false;
    /// `SUBAGENT_FINISHED`
    SubagentFinished(boxed SubagentFinishedEvent) = "SUBAGENT_FINISHED", attributed = false;
    /// `SUBAGENT_ERROR`
    SubagentError(inline SubagentErrorEvent) = "SUBAGENT_ERROR", attributed = false;
}

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Event {
    /// The attribution slot (`subagentRunId`) of the 24 attributable events; `None` for the run
    /// lifecycle events, `MESSAGES_SNAPSHOT` and the `SUBAGENT_*` events (whose
    /// `subagentRunId` is an identity, see [`Event::subagent_run_id`]).
    pub fn attribution_mut(&mut self) -> Option<&mut Option<SubagentRunId>> {
        use Event::*;
        Some(match self {
            TextMessageStart(e) => &mut e.subagent_run_id,
            TextMessageContent(e) => &mut e.subagent_run_id,
            TextMessageEnd(e) => &mut e.subagent_run_id,
            TextMessageChunk(e) => &mut e.subagent_run_id,
            ToolCallStart(e) => &mut e.subagent_run_id,
            ToolCallArgs(e) => &mut e.subagent_run_id,
            ToolCallEnd(e) => &mut e.subagent_run_id,
            ToolCallChunk(e) => &mut e.subagent_run_id,
            ToolCallResult(e) => &mut e.subagent_run_id,
            StateSnapshot(e) => &mut e.subagent_run_id,
            StateDelta(e) => &mut e.subagent_run_id,
            ActivitySnapshot(e) => &mut e.subagent_run_id,
            ActivityDelta(e) => &mut e.subagent_run_id,
            Raw(e) => &mut e.subagent_run_id,
            Custom(e) => &mut e.subagent_run_id,
            StepStarted(e) => &mut e.subagent_run_id,
            StepFinished(e) => &mut e.subagent_run_id,
            ReasoningStart(e) => &mut e.subagent_run_id,
            ReasoningMessageStart(e) => &mut e.subagent_run_id,
            ReasoningMessageContent(e) => &mut e.subagent_run_id,
            ReasoningMessageEnd(e) => &mut e.subagent_run_id,
            ReasoningMessageChunk(e) => &mut e.subagent_run_id,
            ReasoningEnd(e) => &mut e.subagent_run_id,
            ReasoningEncryptedValue(e) => &mut e.subagent_run_id,
            MessagesSnapshot(_) | RunStarted(_) | RunFinished(_) | RunError(_)
            | SubagentStarted(_) | SubagentFinished(_) | SubagentError(_) => return None,
        })
    }

    /// The subagent invocation that produced this event (`None` means the parent agent, or an
    /// event that cannot be attributed). Not the identity of a `SUBAGENT_*` event.
    pub fn attribution(&self) -> Option<&SubagentRunId> {
        use Event::*;
        match self {
            TextMessageStart(e) => e.subagent_run_id.as_ref(),
            TextMessageContent(e) => e.subagent_run_id.as_ref(),
            TextMessageEnd(e) => e.subagent_run_id.as_ref(),
            TextMessageChunk(e) => e.subagent_run_id.as_ref(),
            ToolCallStart(e) => e.subagent_run_id.as_ref(),
            ToolCallArgs(e) => e.subagent_run_id.as_ref(),
            ToolCallEnd(e) => e.subagent_run_id.as_ref(),
            ToolCallChunk(e) => e.subagent_run_id.as_ref(),
            ToolCallResult(e) => e.subagent_run_id.as_ref(),
            StateSnapshot(e) => e.subagent_run_id.as_ref(),
            StateDelta(e) => e.subagent_run_id.as_ref(),
            ActivitySnapshot(e) => e.subagent_run_id.as_ref(),
            ActivityDelta(e) => e.subagent_run_id.as_ref(),
            Raw(e) => e.subagent_run_id.as_ref(),
            Custom(e) => e.subagent_run_id.as_ref(),
            StepStarted(e) => e.subagent_run_id.as_ref(),
            StepFinished(e) => e.subagent_run_id.as_ref(),
            ReasoningStart(e) => e.subagent_run_id.as_ref(),
            ReasoningMessageStart(e) => e.subagent_run_id.as_ref(),
            ReasoningMessageContent(e) => e.subagent_run_id.as_ref(),
            ReasoningMessageEnd(e) => e.subagent_run_id.as_ref(),
            ReasoningMessageChunk(e) => e.subagent_run_id.as_ref(),
            ReasoningEnd(e) => e.subagent_run_id.as_ref(),
            ReasoningEncryptedValue(e) => e.subagent_run_id.as_ref(),
            MessagesSnapshot(_) | RunStarted(_) | RunFinished(_) | RunError(_)
            | SubagentStarted(_) | SubagentFinished(_) | SubagentError(_) => None,
        }
    }

    /// The `subagentRunId` field wherever the event has one: the attribution of an
    /// attributable event, or the identity of a `SUBAGENT_*` event.
    pub fn subagent_run_id(&self) -> Option<&SubagentRunId> {
        match self {
            Event::SubagentStarted(e) => Some(&e.subagent_run_id),
            Event::SubagentFinished(e) => Some(&e.subagent_run_id),
            Event::SubagentError(e) => Some(&e.subagent_run_id),
            other => other.attribution(),
        }
    }

    /// Attributes the event to a subagent invocation. Events that cannot carry an attribution
    /// (run lifecycle, `MESSAGES_SNAPSHOT`, `SUBAGENT_*`) are returned unchanged; check
    /// [`EventType::is_attributable`] when that matters.
    #[must_use]
    pub fn with_subagent_run_id(mut self, id: impl Into<SubagentRunId>) -> Self {
        if let Some(slot) = self.attribution_mut() {
            *slot = Some(id.into());
        }
        self
    }

    /// Sets the timestamp.
    #[must_use]
    pub fn with_timestamp(mut self, timestamp: i64) -> Self {
        *self.timestamp_mut() = Some(timestamp);
        self
    }

    /// Sets the raw event.
    #[must_use]
    pub fn with_raw_event(mut self, raw_event: Value) -> Self {
        *self.raw_event_mut() = Some(Box::new(raw_event));
        self
    }

    /// Sets the metadata.
    #[must_use]
    pub fn with_metadata(mut self, metadata: Metadata) -> Self {
        *self.metadata_mut() = Some(Box::new(metadata));
        self
    }

    /// Whether this is one of the three chunk shorthands.
    pub fn is_chunk(&self) -> bool {
        matches!(
            self,
            Event::TextMessageChunk(_) | Event::ToolCallChunk(_) | Event::ReasoningMessageChunk(_)
        )
    }

    // ----- constructors, in catalogue order -----

    /// `TEXT_MESSAGE_START` with an explicit role.
    pub fn text_message_start(message_id: impl Into<MessageId>, role: TextMessageRole) -> Self {
        TextMessageStartEvent::new(message_id)
            .with_role(role)
            .into()
    }

    /// `TEXT_MESSAGE_CONTENT`.
    pub fn text_message_content(
        message_id: impl Into<MessageId>,
        delta: impl Into<String>,
    ) -> Self {
        TextMessageContentEvent::new(message_id, delta).into()
    }

    /// `TEXT_MESSAGE_END`.
    pub fn text_message_end(message_id: impl Into<MessageId>) -> Self {
        TextMessageEndEvent::new(message_id).into()
    }

    /// `TEXT_MESSAGE_CHUNK` with an optional id and an optional delta.
    pub fn text_message_chunk(message_id: Option<MessageId>, delta: Option<String>) -> Self {
        let mut e = TextMessageChunkEvent::new();
        e.message_id = message_id;
        e.delta = delta;
        e.into()
    }

    /// `TOOL_CALL_START`.
    pub fn tool_call_start(
        tool_call_id: impl Into<ToolCallId>,
        tool_call_name: impl Into<String>,
    ) -> Self {
        ToolCallStartEvent::new(tool_call_id, tool_call_name).into()
    }

    /// `TOOL_CALL_ARGS`.
    pub fn tool_call_args(tool_call_id: impl Into<ToolCallId>, delta: impl Into<String>) -> Self {
        ToolCallArgsEvent::new(tool_call_id, delta).into()
    }

    /// `TOOL_CALL_END`.
    pub fn tool_call_end(tool_call_id: impl Into<ToolCallId>) -> Self {
        ToolCallEndEvent::new(tool_call_id).into()
    }

    /// `TOOL_CALL_CHUNK` with an optional id, tool name and delta.
    pub fn tool_call_chunk(
        tool_call_id: Option<ToolCallId>,
        tool_call_name: Option<String>,
        delta: Option<String>,
    ) -> Self {
        let mut e = ToolCallChunkEvent::new();
        e.tool_call_id = tool_call_id;
        e.tool_call_name = tool_call_name;
        e.delta = delta;
        e.into()
    }

    /// `TOOL_CALL_RESULT`: the tool message `message_id` answering `tool_call_id`.
    pub fn tool_call_result(
        message_id: impl Into<MessageId>,
        tool_call_id: impl Into<ToolCallId>,
        content: impl Into<Content>,
    ) -> Self {
        ToolCallResultEvent::new(message_id, tool_call_id, content).into()
    }

    /// `STATE_SNAPSHOT`.
    pub fn state_snapshot(snapshot: Value) -> Self {
        StateSnapshotEvent::new(snapshot).into()
    }

    /// `STATE_DELTA`.
    pub fn state_delta(delta: Vec<PatchOperation>) -> Self {
        StateDeltaEvent::new(delta).into()
    }

    /// `MESSAGES_SNAPSHOT`.
    pub fn messages_snapshot(messages: Vec<Message>) -> Self {
        MessagesSnapshotEvent::new(messages).into()
    }

    /// `ACTIVITY_SNAPSHOT`.
    pub fn activity_snapshot(
        message_id: impl Into<MessageId>,
        activity_type: impl Into<String>,
        content: Metadata,
    ) -> Self {
        ActivitySnapshotEvent::new(message_id, activity_type, content).into()
    }

    /// `ACTIVITY_DELTA`.
    pub fn activity_delta(
        message_id: impl Into<MessageId>,
        activity_type: impl Into<String>,
        patch: Vec<PatchOperation>,
    ) -> Self {
        ActivityDeltaEvent::new(message_id, activity_type, patch).into()
    }

    /// `RAW`.
    pub fn raw(event: Value) -> Self {
        RawEvent::new(event).into()
    }

    /// `CUSTOM`.
    pub fn custom(name: impl Into<String>, value: Value) -> Self {
        CustomEvent::new(name, value).into()
    }

    /// `RUN_STARTED`.
    pub fn run_started(thread_id: impl Into<ThreadId>, run_id: impl Into<RunId>) -> Self {
        RunStartedEvent::new(thread_id, run_id).into()
    }

    /// `RUN_FINISHED` with no outcome (success).
    pub fn run_finished(thread_id: impl Into<ThreadId>, run_id: impl Into<RunId>) -> Self {
        RunFinishedEvent::new(thread_id, run_id).into()
    }

    /// `RUN_ERROR`.
    pub fn run_error(message: impl Into<String>) -> Self {
        RunErrorEvent::new(message).into()
    }

    /// `STEP_STARTED`.
    pub fn step_started(step_name: impl Into<String>) -> Self {
        StepStartedEvent::new(step_name).into()
    }

    /// `STEP_FINISHED`.
    pub fn step_finished(step_name: impl Into<String>) -> Self {
        StepFinishedEvent::new(step_name).into()
    }

    /// `REASONING_START`.
    pub fn reasoning_start(message_id: impl Into<MessageId>) -> Self {
        ReasoningStartEvent::new(message_id).into()
    }

    /// `REASONING_MESSAGE_START` (role `"reasoning"`).
    pub fn reasoning_message_start(message_id: impl Into<MessageId>) -> Self {
        ReasoningMessageStartEvent::new(message_id).into()
    }

    /// `REASONING_MESSAGE_CONTENT`.
    pub fn reasoning_message_content(
        message_id: impl Into<MessageId>,
        delta: impl Into<String>,
    ) -> Self {
        ReasoningMessageContentEvent::new(message_id, delta).into()
    }

    /// `REASONING_MESSAGE_END`.
    pub fn reasoning_message_end(message_id: impl Into<MessageId>) -> Self {
        ReasoningMessageEndEvent::new(message_id).into()
    }

    /// `REASONING_MESSAGE_CHUNK` with an optional id and an optional delta.
    pub fn reasoning_message_chunk(message_id: Option<MessageId>, delta: Option<String>) -> Self {
        let mut e = ReasoningMessageChunkEvent::new();
        e.message_id = message_id;
        e.delta = delta;
        e.into()
    }

    /// `REASONING_END`.
    pub fn reasoning_end(message_id: impl Into<MessageId>) -> Self {
        ReasoningEndEvent::new(message_id).into()
    }

    /// `REASONING_ENCRYPTED_VALUE`.
    pub fn reasoning_encrypted_value(
        subtype: ReasoningEncryptedValueSubtype,
        entity_id: impl Into<String>,
        encrypted_value: impl Into<String>,
    ) -> Self {
        ReasoningEncryptedValueEvent::new(subtype, entity_id, encrypted_value).into()
    }

    /// `SUBAGENT_STARTED`.
    pub fn subagent_started(
        subagent_run_id: impl Into<SubagentRunId>,
        name: impl Into<String>,
    ) -> Self {
        SubagentStartedEvent::new(subagent_run_id, name).into()
    }

    /// `SUBAGENT_FINISHED` with no outcome (success).
    pub fn subagent_finished(subagent_run_id: impl Into<SubagentRunId>) -> Self {
        SubagentFinishedEvent::new(subagent_run_id).into()
    }

    /// `SUBAGENT_ERROR`.
    pub fn subagent_error(
        subagent_run_id: impl Into<SubagentRunId>,
        message: impl Into<String>,
    ) -> Self {
        SubagentErrorEvent::new(subagent_run_id, message).into()
    }
}
