//! The 31 payload structs, one per event type, in catalogue order.

use super::PatchOps;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::read::{ActivityOps, DeltaOps, Messages, RunOutcome, SubagentOutcome};
use crate::{
    Content, Message, MessageId, Metadata, RunAgentInput, RunFinishedOutcome, RunId,
    SubagentFinishedOutcome, SubagentRunId, TextMessageRole, ThreadId, TokenUsage, ToolCallId,
};

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
            delta: PatchOps as DeltaOps,
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
            messages: Vec<Message> as Messages,
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
            patch: PatchOps as ActivityOps,
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
            with_outcome outcome: RunFinishedOutcome as RunOutcome,
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
            with_outcome outcome: SubagentFinishedOutcome as SubagentOutcome,
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
