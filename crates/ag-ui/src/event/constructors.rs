//! The `Event::…` shorthand constructors, in catalogue order.

use json_patch::PatchOperation;
use serde_json::Value;

use super::*;
use crate::{
    Content, Message, MessageId, Metadata, RunId, SubagentRunId, TextMessageRole, ThreadId,
    ToolCallId,
};

impl Event {
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
