//! This crate's events to and from the generated protobuf messages, field by field.
//!
//! Writing follows the reference encoder (`@ag-ui/proto` 1.0.0); reading gives the event that
//! reading the reference decoder's JSON would give, so that the binary and the SSE transports
//! agree: what the JSON reader drops with a warning (a message of unknown role, a patch
//! operation or an outcome of unknown type) is dropped here too, and what it refuses is refused
//! here, naming the field.

use json_patch::jsonptr::PointerBuf;
use json_patch::{
    AddOperation, CopyOperation, MoveOperation, PatchOperation, RemoveOperation, ReplaceOperation,
    TestOperation,
};
use serde_json::Value;

use super::generated as pb;
use super::json::{JsonObject, JsonValue};
use crate::event::*;
use crate::{
    ActivityMessage, AssistantMessage, Content, ContentPart, Context, DeveloperMessage,
    FunctionCall, Interrupt, MediaPart, Message, MessageId, Metadata, PartSource, ReasoningMessage,
    ResumeEntry, ResumeStatus, RunAgentInput, RunFinishedOutcome, SubagentFinishedOutcome,
    SubagentRunId, SystemMessage, TextMessageRole, TextPart, TokenUsage, Tool, ToolCall,
    ToolCallId, ToolCallType, ToolMessage, UserMessage,
};

/// Largest integer a JSON number may hold on the AG-UI wire (2^53 − 1), as the reference
/// decoder enforces on `int64` fields.
const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

// ------------------------------------------------------------------------------------ writing

fn value(v: &Value) -> Option<JsonValue> {
    Some(JsonValue(Some(v.clone())))
}

fn object(m: &Metadata) -> Option<JsonObject> {
    Some(JsonObject(m.clone()))
}

fn opt_string<T: AsRef<str>>(s: &Option<T>) -> Option<String> {
    s.as_ref().map(|s| s.as_ref().to_owned())
}

fn base(
    ty: pb::EventType,
    timestamp: Option<i64>,
    raw: &Option<Box<Value>>,
    meta: &Option<Box<Metadata>>,
) -> Option<pb::BaseEvent> {
    Some(pb::BaseEvent {
        r#type: ty as i32,
        timestamp,
        raw_event: raw.as_deref().and_then(value),
        metadata: meta.as_deref().and_then(object),
    })
}

macro_rules! base {
    ($ty:ident, $e:expr) => {
        base(
            pb::EventType::$ty,
            $e.timestamp,
            &$e.raw_event,
            &$e.metadata,
        )
    };
}

fn op(o: &PatchOperation) -> pb::JsonPatchOperation {
    use pb::JsonPatchOperationType as T;
    let (ty, path, from, v) = match o {
        PatchOperation::Add(o) => (T::Add, &o.path, None, Some(&o.value)),
        PatchOperation::Remove(o) => (T::Remove, &o.path, None, None),
        PatchOperation::Replace(o) => (T::Replace, &o.path, None, Some(&o.value)),
        PatchOperation::Move(o) => (T::Move, &o.path, Some(&o.from), None),
        PatchOperation::Copy(o) => (T::Copy, &o.path, Some(&o.from), None),
        PatchOperation::Test(o) => (T::Test, &o.path, None, Some(&o.value)),
    };
    pb::JsonPatchOperation {
        op: ty as i32,
        path: path.as_str().to_owned(),
        from: from.map(|f| f.as_str().to_owned()),
        value: v.and_then(value),
    }
}

fn source(s: &PartSource) -> Option<pb::InputContentSource> {
    use pb::input_content_source::Source;
    let source = match s {
        PartSource::Data { value, mime_type } => Source::Data(pb::InputContentDataSource {
            value: value.clone(),
            mime_type: mime_type.clone(),
        }),
        PartSource::Url { value, mime_type } => Source::Url(pb::InputContentUrlSource {
            value: value.clone(),
            mime_type: mime_type.clone(),
        }),
        PartSource::File {
            value,
            provider,
            mime_type,
        } => Source::File(pb::InputContentFileSource {
            value: value.clone(),
            provider: provider.clone(),
            mime_type: mime_type.clone(),
        }),
    };
    Some(pb::InputContentSource {
        source: Some(source),
    })
}

fn part(p: &ContentPart) -> pb::InputContent {
    use pb::input_content::Part;
    let media = |m: &MediaPart| {
        (
            source(&m.source),
            m.metadata.as_ref().and_then(value),
            m.id.clone(),
        )
    };
    let part = match p {
        ContentPart::Text(t) => Part::Text(pb::TextInputPart {
            text: t.text.clone(),
            id: t.id.clone(),
            metadata: t.metadata.as_ref().and_then(value),
        }),
        ContentPart::Image(m) => {
            let (source, metadata, id) = media(m);
            Part::Image(pb::ImageInputPart {
                source,
                metadata,
                id,
            })
        }
        ContentPart::Audio(m) => {
            let (source, metadata, id) = media(m);
            Part::Audio(pb::AudioInputPart {
                source,
                metadata,
                id,
            })
        }
        ContentPart::Video(m) => {
            let (source, metadata, id) = media(m);
            Part::Video(pb::VideoInputPart {
                source,
                metadata,
                id,
            })
        }
        ContentPart::Document(m) => {
            let (source, metadata, id) = media(m);
            Part::Document(pb::DocumentInputPart {
                source,
                metadata,
                id,
            })
        }
    };
    pb::InputContent { part: Some(part) }
}

/// `content` and `content_parts` of a body that is text or parts.
fn content(c: &Content) -> (Option<String>, Vec<pb::InputContent>) {
    match c {
        Content::Text(s) => (Some(s.clone()), Vec::new()),
        Content::Parts(parts) => (None, parts.iter().map(part).collect()),
    }
}

fn tool_call(c: &ToolCall) -> pb::ToolCall {
    pb::ToolCall {
        id: c.id.as_str().to_owned(),
        r#type: "function".to_owned(),
        function: Some(pb::tool_call::Function {
            name: c.function.name.clone(),
            arguments: c.function.arguments.clone(),
        }),
        metadata: c.metadata.as_ref().and_then(object),
        encrypted_value: c.encrypted_value.clone(),
    }
}

fn message(m: &Message) -> pb::Message {
    let mut w = pb::Message {
        id: m.id().as_str().to_owned(),
        role: m.role().as_str().to_owned(),
        ..Default::default()
    };
    match m {
        Message::Developer(m) => {
            w.content = Some(m.content.clone());
            w.name = m.name.clone();
            w.encrypted_value = m.encrypted_value.clone();
            w.metadata = m.metadata.as_ref().and_then(object);
            w.subagent_run_id = opt_string(&m.subagent_run_id);
        }
        Message::System(m) => {
            w.content = Some(m.content.clone());
            w.name = m.name.clone();
            w.encrypted_value = m.encrypted_value.clone();
            w.metadata = m.metadata.as_ref().and_then(object);
            w.subagent_run_id = opt_string(&m.subagent_run_id);
        }
        Message::Assistant(m) => {
            w.content = m.content.clone();
            w.tool_calls = m.tool_calls.iter().flatten().map(tool_call).collect();
            w.name = m.name.clone();
            w.encrypted_value = m.encrypted_value.clone();
            w.metadata = m.metadata.as_ref().and_then(object);
            w.subagent_run_id = opt_string(&m.subagent_run_id);
        }
        Message::User(m) => {
            (w.content, w.content_parts) = content(&m.content);
            w.name = m.name.clone();
            w.encrypted_value = m.encrypted_value.clone();
            w.metadata = m.metadata.as_ref().and_then(object);
            w.subagent_run_id = opt_string(&m.subagent_run_id);
        }
        Message::Tool(m) => {
            (w.content, w.content_parts) = content(&m.content);
            w.tool_call_id = Some(m.tool_call_id.as_str().to_owned());
            w.error = m.error.clone();
            w.encrypted_value = m.encrypted_value.clone();
            w.metadata = m.metadata.as_ref().and_then(object);
            w.subagent_run_id = opt_string(&m.subagent_run_id);
        }
        Message::Activity(m) => {
            w.activity_type = Some(m.activity_type.clone());
            w.activity_content = object(&m.content);
            w.metadata = m.metadata.as_ref().and_then(object);
            w.subagent_run_id = opt_string(&m.subagent_run_id);
        }
        Message::Reasoning(m) => {
            w.content = Some(m.content.clone());
            w.encrypted_value = m.encrypted_value.clone();
            w.metadata = m.metadata.as_ref().and_then(object);
            w.subagent_run_id = opt_string(&m.subagent_run_id);
        }
    }
    w
}

fn usage(u: &[TokenUsage]) -> Vec<pb::Usage> {
    let n = |v: Option<u64>| v.map(|v| v as i64);
    u.iter()
        .map(|u| pb::Usage {
            provider: u.provider.clone(),
            model: u.model.clone(),
            input_tokens: n(u.input_tokens),
            output_tokens: n(u.output_tokens),
            total_tokens: n(u.total_tokens),
            reasoning_tokens: n(u.reasoning_tokens),
            cached_input_tokens: n(u.cached_input_tokens),
            cache_write_input_tokens: n(u.cache_write_input_tokens),
        })
        .collect()
}

fn interrupt(i: &Interrupt) -> pb::Interrupt {
    let obj = |m: &Option<Metadata>| {
        m.as_ref()
            .map(|m| JsonValue(Some(Value::Object(m.clone()))))
    };
    pb::Interrupt {
        id: i.id.as_str().to_owned(),
        reason: i.reason.clone(),
        message: i.message.clone(),
        tool_call_id: opt_string(&i.tool_call_id),
        response_schema: obj(&i.response_schema),
        expires_at: i.expires_at.clone(),
        metadata: obj(&i.metadata),
        subagent_run_id: opt_string(&i.subagent_run_id),
    }
}

fn input(i: &RunAgentInput) -> pb::RunAgentInput {
    pb::RunAgentInput {
        thread_id: i.thread_id.as_str().to_owned(),
        run_id: i.run_id.as_str().to_owned(),
        parent_run_id: opt_string(&i.parent_run_id),
        state: i.state.as_ref().and_then(value),
        messages: i.messages.iter().map(message).collect(),
        tools: i
            .tools
            .iter()
            .map(|t| pb::Tool {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters: t.parameters.as_ref().and_then(value),
                metadata: t.metadata.as_ref().and_then(object),
            })
            .collect(),
        context: i
            .context
            .iter()
            .map(|c| pb::Context {
                description: c.description.clone(),
                value: c.value.clone(),
            })
            .collect(),
        forwarded_props: i.forwarded_props.as_ref().and_then(value),
        resume: i
            .resume
            .iter()
            .flatten()
            .map(|r| pb::ResumeEntry {
                interrupt_id: r.interrupt_id.as_str().to_owned(),
                status: match r.status {
                    ResumeStatus::Resolved => "resolved",
                    ResumeStatus::Cancelled => "cancelled",
                }
                .to_owned(),
                payload: r.payload.as_ref().and_then(value),
                metadata: r.metadata.as_ref().and_then(object),
            })
            .collect(),
        protocol_version: i.protocol_version.clone(),
    }
}

/// The generated message for `event`, as the reference encoder builds it.
pub(crate) fn to_message(event: &Event) -> pb::Event {
    use pb::event::Event as A;
    let arm = match event {
        Event::TextMessageStart(e) => A::TextMessageStart(pb::TextMessageStartEvent {
            base_event: base!(TextMessageStart, e),
            message_id: e.message_id.as_str().to_owned(),
            role: e.role.map(|r| r.as_str().to_owned()),
            name: e.name.clone(),
            subagent_run_id: opt_string(&e.subagent_run_id),
        }),
        Event::TextMessageContent(e) => A::TextMessageContent(pb::TextMessageContentEvent {
            base_event: base!(TextMessageContent, e),
            message_id: e.message_id.as_str().to_owned(),
            delta: e.delta.clone(),
            subagent_run_id: opt_string(&e.subagent_run_id),
        }),
        Event::TextMessageEnd(e) => A::TextMessageEnd(pb::TextMessageEndEvent {
            base_event: base!(TextMessageEnd, e),
            message_id: e.message_id.as_str().to_owned(),
            subagent_run_id: opt_string(&e.subagent_run_id),
        }),
        Event::TextMessageChunk(e) => A::TextMessageChunk(pb::TextMessageChunkEvent {
            base_event: base!(TextMessageChunk, e),
            message_id: opt_string(&e.message_id),
            role: e.role.map(|r| r.as_str().to_owned()),
            delta: e.delta.clone(),
            name: e.name.clone(),
            subagent_run_id: opt_string(&e.subagent_run_id),
        }),
        Event::ToolCallStart(e) => A::ToolCallStart(pb::ToolCallStartEvent {
            base_event: base!(ToolCallStart, e),
            tool_call_id: e.tool_call_id.as_str().to_owned(),
            tool_call_name: e.tool_call_name.clone(),
            parent_message_id: opt_string(&e.parent_message_id),
            subagent_run_id: opt_string(&e.subagent_run_id),
        }),
        Event::ToolCallArgs(e) => A::ToolCallArgs(pb::ToolCallArgsEvent {
            base_event: base!(ToolCallArgs, e),
            tool_call_id: e.tool_call_id.as_str().to_owned(),
            delta: e.delta.clone(),
            subagent_run_id: opt_string(&e.subagent_run_id),
        }),
        Event::ToolCallEnd(e) => A::ToolCallEnd(pb::ToolCallEndEvent {
            base_event: base!(ToolCallEnd, e),
            tool_call_id: e.tool_call_id.as_str().to_owned(),
            subagent_run_id: opt_string(&e.subagent_run_id),
        }),
        Event::ToolCallChunk(e) => A::ToolCallChunk(pb::ToolCallChunkEvent {
            base_event: base!(ToolCallChunk, e),
            tool_call_id: opt_string(&e.tool_call_id),
            tool_call_name: e.tool_call_name.clone(),
            parent_message_id: opt_string(&e.parent_message_id),
            delta: e.delta.clone(),
            subagent_run_id: opt_string(&e.subagent_run_id),
        }),
        Event::ToolCallResult(e) => {
            let (content, content_parts) = content(&e.content);
            A::ToolCallResult(pb::ToolCallResultEvent {
                base_event: base!(ToolCallResult, e),
                subagent_run_id: opt_string(&e.subagent_run_id),
                message_id: e.message_id.as_str().to_owned(),
                tool_call_id: e.tool_call_id.as_str().to_owned(),
                content,
                role: e.role.map(|_| "tool".to_owned()),
                content_parts,
            })
        }
        Event::StateSnapshot(e) => A::StateSnapshot(pb::StateSnapshotEvent {
            base_event: base!(StateSnapshot, e),
            snapshot: value(&e.snapshot),
            subagent_run_id: opt_string(&e.subagent_run_id),
        }),
        Event::StateDelta(e) => A::StateDelta(pb::StateDeltaEvent {
            base_event: base!(StateDelta, e),
            delta: e.delta.iter().map(op).collect(),
            subagent_run_id: opt_string(&e.subagent_run_id),
        }),
        Event::MessagesSnapshot(e) => A::MessagesSnapshot(pb::MessagesSnapshotEvent {
            base_event: base!(MessagesSnapshot, e),
            messages: e.messages.iter().map(message).collect(),
        }),
        Event::ActivitySnapshot(e) => A::ActivitySnapshot(pb::ActivitySnapshotEvent {
            base_event: base!(ActivitySnapshot, e),
            subagent_run_id: opt_string(&e.subagent_run_id),
            message_id: e.message_id.as_str().to_owned(),
            activity_type: e.activity_type.clone(),
            content: object(&e.content),
            replace: e.replace,
        }),
        Event::ActivityDelta(e) => A::ActivityDelta(pb::ActivityDeltaEvent {
            base_event: base!(ActivityDelta, e),
            subagent_run_id: opt_string(&e.subagent_run_id),
            message_id: e.message_id.as_str().to_owned(),
            activity_type: e.activity_type.clone(),
            patch: e.patch.iter().map(op).collect(),
        }),
        Event::Raw(e) => A::Raw(pb::RawEvent {
            base_event: base!(Raw, e),
            event: value(&e.event),
            source: e.source.clone(),
            subagent_run_id: opt_string(&e.subagent_run_id),
        }),
        Event::Custom(e) => A::Custom(pb::CustomEvent {
            base_event: base!(Custom, e),
            name: e.name.clone(),
            value: value(&e.value),
            subagent_run_id: opt_string(&e.subagent_run_id),
        }),
        Event::RunStarted(e) => A::RunStarted(pb::RunStartedEvent {
            base_event: base!(RunStarted, e),
            thread_id: e.thread_id.as_str().to_owned(),
            run_id: e.run_id.as_str().to_owned(),
            parent_run_id: opt_string(&e.parent_run_id),
            input: e.input.as_deref().map(input),
            protocol_version: e.protocol_version.clone(),
        }),
        Event::RunFinished(e) => {
            let (outcome, interrupts, pending) = match &e.outcome {
                None => ("", Vec::new(), Vec::new()),
                Some(RunFinishedOutcome::Success {
                    pending_tool_call_ids,
                }) => (
                    "success",
                    Vec::new(),
                    pending_tool_call_ids
                        .iter()
                        .flatten()
                        .map(|id| id.as_str().to_owned())
                        .collect(),
                ),
                Some(RunFinishedOutcome::Interrupt { interrupts }) => (
                    "interrupt",
                    interrupts.iter().map(interrupt).collect(),
                    Vec::new(),
                ),
                Some(RunFinishedOutcome::Cancelled) => ("cancelled", Vec::new(), Vec::new()),
            };
            A::RunFinished(pb::RunFinishedEvent {
                base_event: base!(RunFinished, e),
                thread_id: e.thread_id.as_str().to_owned(),
                run_id: e.run_id.as_str().to_owned(),
                result: e.result.as_ref().and_then(value),
                outcome: outcome.to_owned(),
                interrupts,
                usage: usage(e.usage.as_deref().unwrap_or_default()),
                pending_tool_call_ids: pending,
            })
        }
        Event::RunError(e) => A::RunError(pb::RunErrorEvent {
            base_event: base!(RunError, e),
            code: e.code.clone(),
            message: e.message.clone(),
            usage: usage(e.usage.as_deref().unwrap_or_default()),
        }),
        Event::StepStarted(e) => A::StepStarted(pb::StepStartedEvent {
            base_event: base!(StepStarted, e),
            step_name: e.step_name.clone(),
            subagent_run_id: opt_string(&e.subagent_run_id),
        }),
        Event::StepFinished(e) => A::StepFinished(pb::StepFinishedEvent {
            base_event: base!(StepFinished, e),
            step_name: e.step_name.clone(),
            subagent_run_id: opt_string(&e.subagent_run_id),
        }),
        Event::ReasoningStart(e) => A::ReasoningStart(pb::ReasoningStartEvent {
            base_event: base!(ReasoningStart, e),
            subagent_run_id: opt_string(&e.subagent_run_id),
            message_id: e.message_id.as_str().to_owned(),
        }),
        Event::ReasoningMessageStart(e) => {
            A::ReasoningMessageStart(pb::ReasoningMessageStartEvent {
                base_event: base!(ReasoningMessageStart, e),
                subagent_run_id: opt_string(&e.subagent_run_id),
                message_id: e.message_id.as_str().to_owned(),
                role: "reasoning".to_owned(),
            })
        }
        Event::ReasoningMessageContent(e) => {
            A::ReasoningMessageContent(pb::ReasoningMessageContentEvent {
                base_event: base!(ReasoningMessageContent, e),
                subagent_run_id: opt_string(&e.subagent_run_id),
                message_id: e.message_id.as_str().to_owned(),
                delta: e.delta.clone(),
            })
        }
        Event::ReasoningMessageEnd(e) => A::ReasoningMessageEnd(pb::ReasoningMessageEndEvent {
            base_event: base!(ReasoningMessageEnd, e),
            subagent_run_id: opt_string(&e.subagent_run_id),
            message_id: e.message_id.as_str().to_owned(),
        }),
        Event::ReasoningMessageChunk(e) => {
            A::ReasoningMessageChunk(pb::ReasoningMessageChunkEvent {
                base_event: base!(ReasoningMessageChunk, e),
                subagent_run_id: opt_string(&e.subagent_run_id),
                message_id: opt_string(&e.message_id),
                delta: e.delta.clone(),
            })
        }
        Event::ReasoningEnd(e) => A::ReasoningEnd(pb::ReasoningEndEvent {
            base_event: base!(ReasoningEnd, e),
            subagent_run_id: opt_string(&e.subagent_run_id),
            message_id: e.message_id.as_str().to_owned(),
        }),
        Event::ReasoningEncryptedValue(e) => {
            A::ReasoningEncryptedValue(pb::ReasoningEncryptedValueEvent {
                base_event: base!(ReasoningEncryptedValue, e),
                subagent_run_id: opt_string(&e.subagent_run_id),
                subtype: match e.subtype {
                    ReasoningEncryptedValueSubtype::ToolCall => "tool-call",
                    ReasoningEncryptedValueSubtype::Message => "message",
                }
                .to_owned(),
                entity_id: e.entity_id.clone(),
                encrypted_value: e.encrypted_value.clone(),
            })
        }
        Event::SubagentStarted(e) => A::SubagentStarted(pb::SubagentStartedEvent {
            base_event: base!(SubagentStarted, e),
            subagent_run_id: e.subagent_run_id.as_str().to_owned(),
            name: e.name.clone(),
            description: e.description.clone(),
            parent_subagent_run_id: opt_string(&e.parent_subagent_run_id),
            parent_tool_call_id: opt_string(&e.parent_tool_call_id),
            parent_message_id: opt_string(&e.parent_message_id),
        }),
        Event::SubagentFinished(e) => {
            let (outcome, ids) = match &e.outcome {
                None => ("", Vec::new()),
                Some(SubagentFinishedOutcome::Success) => ("success", Vec::new()),
                Some(SubagentFinishedOutcome::Suspended { interrupt_ids }) => (
                    "suspended",
                    interrupt_ids
                        .iter()
                        .flatten()
                        .map(|id| id.as_str().to_owned())
                        .collect(),
                ),
            };
            A::SubagentFinished(pb::SubagentFinishedEvent {
                base_event: base!(SubagentFinished, e),
                subagent_run_id: e.subagent_run_id.as_str().to_owned(),
                result: e.result.as_ref().and_then(value),
                outcome: outcome.to_owned(),
                interrupt_ids: ids,
            })
        }
        Event::SubagentError(e) => A::SubagentError(pb::SubagentErrorEvent {
            base_event: base!(SubagentError, e),
            subagent_run_id: e.subagent_run_id.as_str().to_owned(),
            message: e.message.clone(),
            code: e.code.clone(),
        }),
    };
    pb::Event { event: Some(arm) }
}

// ------------------------------------------------------------------------------------ reading

/// A field of a decoded message that no AG-UI event can hold.
#[derive(Debug)]
pub(crate) struct Invalid {
    pub(crate) field: String,
    pub(crate) message: String,
}

fn invalid(field: impl Into<String>, message: impl Into<String>) -> Invalid {
    Invalid {
        field: field.into(),
        message: message.into(),
    }
}

type R<T> = Result<T, Invalid>;

/// The last id of each kind, shared by the events that repeat it (as the SSE decoder does).
#[derive(Debug, Default)]
pub(crate) struct Ids {
    message: Option<MessageId>,
    tool_call: Option<ToolCallId>,
    subagent: Option<SubagentRunId>,
}

fn cached<T: Clone + AsRef<str> + From<String>>(slot: &mut Option<T>, s: String) -> T {
    match slot {
        Some(id) if id.as_ref() == s => id.clone(),
        _ => slot.insert(T::from(s)).clone(),
    }
}

fn cached_str<T: Clone + AsRef<str> + for<'s> From<&'s str>>(slot: &mut Option<T>, s: &str) -> T {
    match slot {
        Some(id) if id.as_ref() == s => id.clone(),
        _ => slot.insert(T::from(s)).clone(),
    }
}

impl Ids {
    /// A message id read from the wire without an owned copy first.
    pub(crate) fn message_str(&mut self, s: &str) -> MessageId {
        cached_str(&mut self.message, s)
    }
    /// A tool call id read from the wire without an owned copy first.
    pub(crate) fn tool_call_str(&mut self, s: &str) -> ToolCallId {
        cached_str(&mut self.tool_call, s)
    }
    /// A subagent run id read from the wire without an owned copy first.
    pub(crate) fn subagent_str(&mut self, s: Option<&str>) -> Option<SubagentRunId> {
        s.map(|s| cached_str(&mut self.subagent, s))
    }
    fn message(&mut self, s: String) -> MessageId {
        cached(&mut self.message, s)
    }
    fn tool_call(&mut self, s: String) -> ToolCallId {
        cached(&mut self.tool_call, s)
    }
    fn subagent(&mut self, s: Option<String>) -> Option<SubagentRunId> {
        s.map(|s| cached(&mut self.subagent, s))
    }
}

/// A required `Value` field: present with a kind.
fn req_value(v: Option<JsonValue>, field: &str) -> R<Value> {
    v.and_then(|v| v.0)
        .ok_or_else(|| invalid(field, "missing field (a google.protobuf.Value with a kind)"))
}

fn opt_value(v: Option<JsonValue>) -> Option<Value> {
    v.and_then(|v| v.0)
}

/// A `Value` field that must hold a JSON object, as this crate's model types it.
fn opt_object_value(v: Option<JsonValue>, field: &str) -> R<Option<Metadata>> {
    match opt_value(v) {
        None => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(_) => Err(invalid(field, "expected a JSON object")),
    }
}

fn opt_object(v: Option<JsonObject>) -> Option<Metadata> {
    v.map(|o| o.0)
}

pub(crate) fn text_role(role: Option<String>, field: &str) -> R<Option<TextMessageRole>> {
    role.map(|r| match r.as_str() {
        "developer" => Ok(TextMessageRole::Developer),
        "system" => Ok(TextMessageRole::System),
        "assistant" => Ok(TextMessageRole::Assistant),
        "user" => Ok(TextMessageRole::User),
        other => Err(invalid(
            field,
            format!("unknown text message role {other:?}"),
        )),
    })
    .transpose()
}

fn count(v: Option<i64>, field: &str) -> R<Option<u64>> {
    match v {
        None => Ok(None),
        Some(n) if (0..=MAX_SAFE_INTEGER).contains(&n) => Ok(Some(n as u64)),
        Some(n) => Err(invalid(
            field,
            format!("{n} is not a count between 0 and 2^53 - 1"),
        )),
    }
}

fn read_usage(list: Vec<pb::Usage>, field: &str) -> R<Option<Vec<TokenUsage>>> {
    if list.is_empty() {
        return Ok(None);
    }
    list.into_iter()
        .enumerate()
        .map(|(i, u)| {
            let f = |name: &str| format!("{field}[{i}].{name}");
            Ok(TokenUsage {
                provider: u.provider,
                model: u.model,
                input_tokens: count(u.input_tokens, &f("inputTokens"))?,
                output_tokens: count(u.output_tokens, &f("outputTokens"))?,
                total_tokens: count(u.total_tokens, &f("totalTokens"))?,
                reasoning_tokens: count(u.reasoning_tokens, &f("reasoningTokens"))?,
                cached_input_tokens: count(u.cached_input_tokens, &f("cachedInputTokens"))?,
                cache_write_input_tokens: count(
                    u.cache_write_input_tokens,
                    &f("cacheWriteInputTokens"),
                )?,
            })
        })
        .collect::<R<Vec<_>>>()
        .map(Some)
}

fn pointer(s: String, field: &str) -> R<PointerBuf> {
    PointerBuf::parse(s).map_err(|e| invalid(field, format!("not a JSON Pointer: {e}")))
}

fn read_ops(list: Vec<pb::JsonPatchOperation>, field: &str) -> R<Vec<PatchOperation>> {
    use pb::JsonPatchOperationType as T;
    let mut out = Vec::with_capacity(list.len());
    for (i, o) in list.into_iter().enumerate() {
        let at = |name: &str| format!("{field}[{i}].{name}");
        let Ok(ty) = T::try_from(o.op) else {
            tracing::warn!(op = o.op, "dropping a JSON Patch operation of unknown type");
            continue;
        };
        let path = pointer(o.path, &at("path"))?;
        let from = |from: Option<String>| match from {
            Some(f) => pointer(f, &at("from")),
            None => Err(invalid(at("from"), "missing field")),
        };
        let val = |v: Option<JsonValue>| req_value(v, &at("value"));
        out.push(match ty {
            T::Add => PatchOperation::Add(AddOperation {
                path,
                value: val(o.value)?,
            }),
            T::Remove => PatchOperation::Remove(RemoveOperation { path }),
            T::Replace => PatchOperation::Replace(ReplaceOperation {
                path,
                value: val(o.value)?,
            }),
            T::Move => PatchOperation::Move(MoveOperation {
                from: from(o.from)?,
                path,
            }),
            T::Copy => PatchOperation::Copy(CopyOperation {
                from: from(o.from)?,
                path,
            }),
            T::Test => PatchOperation::Test(TestOperation {
                path,
                value: val(o.value)?,
            }),
        });
    }
    Ok(out)
}

fn read_source(s: Option<pb::InputContentSource>, field: &str) -> R<Option<PartSource>> {
    use pb::input_content_source::Source;
    let Some(s) = s else {
        return Err(invalid(format!("{field}.source"), "missing field"));
    };
    Ok(s.source.map(|s| match s {
        Source::Data(d) => PartSource::Data {
            value: d.value,
            mime_type: d.mime_type,
        },
        Source::Url(u) => PartSource::Url {
            value: u.value,
            mime_type: u.mime_type,
        },
        Source::File(f) => PartSource::File {
            value: f.value,
            provider: f.provider,
            mime_type: f.mime_type,
        },
    }))
}

fn read_parts(list: Vec<pb::InputContent>, field: &str) -> R<Vec<ContentPart>> {
    use pb::input_content::Part;
    let mut out = Vec::with_capacity(list.len());
    for (i, p) in list.into_iter().enumerate() {
        let at = format!("{field}[{i}]");
        let media = |source, metadata, id| -> R<Option<MediaPart>> {
            Ok(read_source(source, &at)?.map(|source| MediaPart {
                source,
                id,
                metadata: opt_value(metadata),
            }))
        };
        let part = match p.part {
            None => None,
            Some(Part::Text(t)) => Some(ContentPart::Text(TextPart {
                text: t.text,
                id: t.id,
                metadata: opt_value(t.metadata),
            })),
            Some(Part::Image(m)) => media(m.source, m.metadata, m.id)?.map(ContentPart::Image),
            Some(Part::Audio(m)) => media(m.source, m.metadata, m.id)?.map(ContentPart::Audio),
            Some(Part::Video(m)) => media(m.source, m.metadata, m.id)?.map(ContentPart::Video),
            Some(Part::Document(m)) => {
                media(m.source, m.metadata, m.id)?.map(ContentPart::Document)
            }
        };
        match part {
            Some(part) => out.push(part),
            None => {
                tracing::warn!(field = %at, "dropping a content part of a kind unknown to AG-UI 1.0")
            }
        }
    }
    Ok(out)
}

/// A user or tool body: string content, or parts (possibly none), never both.
fn read_content(text: Option<String>, parts: Vec<pb::InputContent>, field: &str) -> R<Content> {
    match text {
        Some(_) if !parts.is_empty() => Err(invalid(
            field,
            "carries both string content and content parts",
        )),
        Some(text) => Ok(Content::Text(text)),
        None => read_parts(parts, field).map(Content::Parts),
    }
}

fn read_tool_call(c: pb::ToolCall, field: &str, ids: &mut Ids) -> R<ToolCall> {
    if c.r#type != "function" {
        return Err(invalid(
            format!("{field}.type"),
            format!("unknown tool call type {:?}", c.r#type),
        ));
    }
    let Some(function) = c.function else {
        return Err(invalid(format!("{field}.function"), "missing field"));
    };
    Ok(ToolCall {
        id: ids.tool_call(c.id),
        call_type: ToolCallType::Function,
        function: FunctionCall {
            name: function.name,
            arguments: function.arguments,
        },
        encrypted_value: c.encrypted_value,
        metadata: opt_object(c.metadata),
    })
}

fn read_messages(list: Vec<pb::Message>, field: &str, ids: &mut Ids) -> R<Vec<Message>> {
    let mut out = Vec::with_capacity(list.len());
    for (i, m) in list.into_iter().enumerate() {
        let at = format!("{field}[{i}]");
        if let Some(m) = read_message(m, &at, ids)? {
            out.push(m);
        }
    }
    Ok(out)
}

/// One message; `None` (with a warning) for a role unknown to AG-UI 1.0.
fn read_message(w: pb::Message, at: &str, ids: &mut Ids) -> R<Option<Message>> {
    let f = |name: &str| format!("{at}.{name}");
    let role = w.role.as_str();
    let known = matches!(
        role,
        "developer" | "system" | "assistant" | "user" | "tool" | "activity" | "reasoning"
    );
    if !known {
        tracing::warn!(role = %w.role, field = %at, "dropping a message of unknown role");
        return Ok(None);
    }
    let parts_role = matches!(role, "user" | "tool");
    if !parts_role && !w.content_parts.is_empty() {
        return Err(invalid(
            f("content"),
            format!("content parts on a {role} message"),
        ));
    }
    if role != "activity" && w.activity_content.is_some() {
        return Err(invalid(
            f("content"),
            format!("activity content on a {role} message"),
        ));
    }
    let required =
        |s: Option<String>, name: &str| s.ok_or_else(|| invalid(f(name), "missing field"));
    let id = ids.message(w.id);
    let metadata = opt_object(w.metadata);
    let subagent_run_id = ids.subagent(w.subagent_run_id);
    let message = match role {
        "developer" => Message::Developer(DeveloperMessage {
            id,
            content: required(w.content, "content")?,
            name: w.name,
            encrypted_value: w.encrypted_value,
            metadata,
            subagent_run_id,
        }),
        "system" => Message::System(SystemMessage {
            id,
            content: required(w.content, "content")?,
            name: w.name,
            encrypted_value: w.encrypted_value,
            metadata,
            subagent_run_id,
        }),
        "assistant" => {
            let calls = w
                .tool_calls
                .into_iter()
                .enumerate()
                .map(|(j, c)| read_tool_call(c, &format!("{at}.toolCalls[{j}]"), ids))
                .collect::<R<Vec<_>>>()?;
            Message::Assistant(AssistantMessage {
                id,
                content: w.content,
                tool_calls: (!calls.is_empty()).then_some(calls),
                name: w.name,
                encrypted_value: w.encrypted_value,
                metadata,
                subagent_run_id,
            })
        }
        "user" => Message::User(UserMessage {
            id,
            content: read_content(w.content, w.content_parts, &f("content"))?,
            name: w.name,
            encrypted_value: w.encrypted_value,
            metadata,
            subagent_run_id,
        }),
        "tool" => Message::Tool(ToolMessage {
            id,
            content: read_content(w.content, w.content_parts, &f("content"))?,
            tool_call_id: ids.tool_call(required(w.tool_call_id, "toolCallId")?),
            error: w.error,
            encrypted_value: w.encrypted_value,
            metadata,
            subagent_run_id,
        }),
        "activity" => {
            if w.content.is_some() {
                return Err(invalid(
                    f("content"),
                    "string content on an activity message",
                ));
            }
            Message::Activity(ActivityMessage {
                id,
                activity_type: required(w.activity_type, "activityType")?,
                content: opt_object(w.activity_content)
                    .ok_or_else(|| invalid(f("content"), "missing field"))?,
                metadata,
                subagent_run_id,
            })
        }
        _ => Message::Reasoning(ReasoningMessage {
            id,
            content: required(w.content, "content")?,
            encrypted_value: w.encrypted_value,
            metadata,
            subagent_run_id,
        }),
    };
    Ok(Some(message))
}

fn read_interrupt(w: pb::Interrupt, at: &str, ids: &mut Ids) -> R<Interrupt> {
    let mut i = Interrupt::new(w.id, w.reason);
    i.message = w.message;
    i.tool_call_id = w.tool_call_id.map(|s| ids.tool_call(s));
    i.response_schema = opt_object_value(w.response_schema, &format!("{at}.responseSchema"))?;
    i.expires_at = w.expires_at;
    i.metadata = opt_object_value(w.metadata, &format!("{at}.metadata"))?;
    i.subagent_run_id = ids.subagent(w.subagent_run_id);
    Ok(i)
}

fn read_input(w: pb::RunAgentInput, ids: &mut Ids) -> R<RunAgentInput> {
    let mut i = RunAgentInput::new(w.thread_id, w.run_id);
    i.protocol_version = w.protocol_version;
    i.parent_run_id = w.parent_run_id.map(Into::into);
    i.state = opt_value(w.state);
    i.messages = read_messages(w.messages, "input.messages", ids)?;
    i.tools = w
        .tools
        .into_iter()
        .map(|t| {
            let mut tool = Tool::new(t.name, t.description);
            tool.parameters = opt_value(t.parameters);
            tool.metadata = opt_object(t.metadata);
            tool
        })
        .collect();
    i.context = w
        .context
        .into_iter()
        .map(|c| Context::new(c.description, c.value))
        .collect();
    i.forwarded_props = opt_value(w.forwarded_props);
    i.resume = Some(
        w.resume
            .into_iter()
            .enumerate()
            .map(|(j, r)| {
                let status = match r.status.as_str() {
                    "resolved" => ResumeStatus::Resolved,
                    "cancelled" => ResumeStatus::Cancelled,
                    other => {
                        return Err(invalid(
                            format!("input.resume[{j}].status"),
                            format!("unknown resume status {other:?}"),
                        ));
                    }
                };
                Ok(ResumeEntry {
                    interrupt_id: r.interrupt_id.into(),
                    status,
                    payload: opt_value(r.payload),
                    metadata: opt_object(r.metadata),
                })
            })
            .collect::<R<Vec<_>>>()?,
    );
    Ok(i)
}

/// Fills the base fields of `event` from `base`.
fn set_base(event: &mut Event, base: pb::BaseEvent) -> R<()> {
    if let Some(t) = base.timestamp {
        if !(-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&t) {
            return Err(invalid("timestamp", format!("{t} is beyond ±(2^53 - 1)")));
        }
        *event.timestamp_mut() = Some(t);
    }
    *event.raw_event_mut() = opt_value(base.raw_event).map(Box::new);
    *event.metadata_mut() = opt_object(base.metadata).map(Box::new);
    Ok(())
}

/// The event type the arm carries.
pub(crate) fn arm_type(
    arm: &pb::event::Event,
) -> (EventType, pb::EventType, Option<&pb::BaseEvent>) {
    use pb::event::Event as A;
    macro_rules! arms {
        ($($v:ident),* $(,)?) => {
            match arm {
                $( A::$v(e) => (EventType::$v, pb::EventType::$v, e.base_event.as_ref()), )*
            }
        };
    }
    arms!(
        TextMessageStart,
        TextMessageContent,
        TextMessageEnd,
        ToolCallStart,
        ToolCallArgs,
        ToolCallEnd,
        StateSnapshot,
        StateDelta,
        MessagesSnapshot,
        Raw,
        Custom,
        RunStarted,
        RunFinished,
        RunError,
        StepStarted,
        StepFinished,
        TextMessageChunk,
        ToolCallChunk,
        SubagentStarted,
        SubagentFinished,
        SubagentError,
        ToolCallResult,
        ActivitySnapshot,
        ActivityDelta,
        ReasoningStart,
        ReasoningMessageStart,
        ReasoningMessageContent,
        ReasoningMessageEnd,
        ReasoningMessageChunk,
        ReasoningEnd,
        ReasoningEncryptedValue,
    )
}

/// The event an arm carries, its base already checked present and agreeing with the arm.
pub(crate) fn from_arm(arm: pb::event::Event, ids: &mut Ids) -> R<Event> {
    use pb::event::Event as A;
    let mut base = pb::BaseEvent::default();
    macro_rules! take_base {
        ($e:ident) => {
            if let Some(b) = $e.base_event.take() {
                base = b;
            }
        };
    }
    let mut event: Event = match arm {
        A::TextMessageStart(mut e) => {
            take_base!(e);
            let mut o = TextMessageStartEvent::new(ids.message(e.message_id));
            o.role = text_role(e.role, "role")?;
            o.name = e.name;
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::TextMessageContent(mut e) => {
            take_base!(e);
            let mut o = TextMessageContentEvent::new(ids.message(e.message_id), e.delta);
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::TextMessageEnd(mut e) => {
            take_base!(e);
            let mut o = TextMessageEndEvent::new(ids.message(e.message_id));
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::TextMessageChunk(mut e) => {
            take_base!(e);
            let mut o = TextMessageChunkEvent::new();
            o.message_id = e.message_id.map(|s| ids.message(s));
            o.role = text_role(e.role, "role")?;
            o.delta = e.delta;
            o.name = e.name;
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::ToolCallStart(mut e) => {
            take_base!(e);
            let mut o = ToolCallStartEvent::new(ids.tool_call(e.tool_call_id), e.tool_call_name);
            o.parent_message_id = e.parent_message_id.map(|s| ids.message(s));
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::ToolCallArgs(mut e) => {
            take_base!(e);
            let mut o = ToolCallArgsEvent::new(ids.tool_call(e.tool_call_id), e.delta);
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::ToolCallEnd(mut e) => {
            take_base!(e);
            let mut o = ToolCallEndEvent::new(ids.tool_call(e.tool_call_id));
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::ToolCallChunk(mut e) => {
            take_base!(e);
            let mut o = ToolCallChunkEvent::new();
            o.tool_call_id = e.tool_call_id.map(|s| ids.tool_call(s));
            o.tool_call_name = e.tool_call_name;
            o.parent_message_id = e.parent_message_id.map(|s| ids.message(s));
            o.delta = e.delta;
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::ToolCallResult(mut e) => {
            take_base!(e);
            let content = read_content(e.content, e.content_parts, "content")?;
            let mut o = ToolCallResultEvent::new(
                ids.message(e.message_id),
                ids.tool_call(e.tool_call_id),
                content,
            );
            o.role = match e.role.as_deref() {
                None => None,
                Some("tool") => Some(ToolRole::Tool),
                Some(other) => {
                    return Err(invalid("role", format!("expected \"tool\", not {other:?}")));
                }
            };
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::StateSnapshot(mut e) => {
            take_base!(e);
            let mut o = StateSnapshotEvent::new(req_value(e.snapshot, "snapshot")?);
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::StateDelta(mut e) => {
            take_base!(e);
            let mut o = StateDeltaEvent::new(read_ops(e.delta, "delta")?);
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::MessagesSnapshot(mut e) => {
            take_base!(e);
            MessagesSnapshotEvent::new(read_messages(e.messages, "messages", ids)?).into()
        }
        A::ActivitySnapshot(mut e) => {
            take_base!(e);
            let content =
                opt_object(e.content).ok_or_else(|| invalid("content", "missing field"))?;
            let mut o =
                ActivitySnapshotEvent::new(ids.message(e.message_id), e.activity_type, content);
            o.replace = e.replace;
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::ActivityDelta(mut e) => {
            take_base!(e);
            let mut o = ActivityDeltaEvent::new(
                ids.message(e.message_id),
                e.activity_type,
                read_ops(e.patch, "patch")?,
            );
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::Raw(mut e) => {
            take_base!(e);
            let mut o = RawEvent::new(req_value(e.event, "event")?);
            o.source = e.source;
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::Custom(mut e) => {
            take_base!(e);
            let mut o = CustomEvent::new(e.name, req_value(e.value, "value")?);
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::RunStarted(mut e) => {
            take_base!(e);
            let mut o = RunStartedEvent::new(e.thread_id, e.run_id);
            o.parent_run_id = e.parent_run_id.map(Into::into);
            o.input = e
                .input
                .map(|i| read_input(i, ids).map(Box::new))
                .transpose()?;
            o.protocol_version = e.protocol_version;
            o.into()
        }
        A::RunFinished(mut e) => {
            take_base!(e);
            let mut o = RunFinishedEvent::new(e.thread_id, e.run_id);
            o.result = opt_value(e.result);
            o.usage = read_usage(e.usage, "usage")?;
            o.outcome = match e.outcome.as_str() {
                "" => None,
                "success" => Some(RunFinishedOutcome::Success {
                    pending_tool_call_ids: (!e.pending_tool_call_ids.is_empty()).then(|| {
                        e.pending_tool_call_ids
                            .into_iter()
                            .map(|s| ids.tool_call(s))
                            .collect()
                    }),
                }),
                "interrupt" => {
                    if e.interrupts.is_empty() {
                        return Err(invalid(
                            "outcome.interrupts",
                            "an interrupt outcome needs at least one interrupt",
                        ));
                    }
                    Some(RunFinishedOutcome::Interrupt {
                        interrupts: e
                            .interrupts
                            .into_iter()
                            .enumerate()
                            .map(|(i, w)| {
                                read_interrupt(w, &format!("outcome.interrupts[{i}]"), ids)
                            })
                            .collect::<R<Vec<_>>>()?,
                    })
                }
                "cancelled" => Some(RunFinishedOutcome::Cancelled),
                other => {
                    tracing::warn!(name = %other, "dropping an outcome of unknown type");
                    None
                }
            };
            o.into()
        }
        A::RunError(mut e) => {
            take_base!(e);
            let mut o = RunErrorEvent::new(e.message);
            o.code = e.code;
            o.usage = read_usage(e.usage, "usage")?;
            o.into()
        }
        A::StepStarted(mut e) => {
            take_base!(e);
            let mut o = StepStartedEvent::new(e.step_name);
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::StepFinished(mut e) => {
            take_base!(e);
            let mut o = StepFinishedEvent::new(e.step_name);
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::ReasoningStart(mut e) => {
            take_base!(e);
            let mut o = ReasoningStartEvent::new(ids.message(e.message_id));
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::ReasoningMessageStart(mut e) => {
            take_base!(e);
            if e.role != "reasoning" {
                return Err(invalid(
                    "role",
                    format!("expected \"reasoning\", not {:?}", e.role),
                ));
            }
            let mut o = ReasoningMessageStartEvent::new(ids.message(e.message_id));
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::ReasoningMessageContent(mut e) => {
            take_base!(e);
            let mut o = ReasoningMessageContentEvent::new(ids.message(e.message_id), e.delta);
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::ReasoningMessageEnd(mut e) => {
            take_base!(e);
            let mut o = ReasoningMessageEndEvent::new(ids.message(e.message_id));
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::ReasoningMessageChunk(mut e) => {
            take_base!(e);
            let mut o = ReasoningMessageChunkEvent::new();
            o.message_id = e.message_id.map(|s| ids.message(s));
            o.delta = e.delta;
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::ReasoningEnd(mut e) => {
            take_base!(e);
            let mut o = ReasoningEndEvent::new(ids.message(e.message_id));
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::ReasoningEncryptedValue(mut e) => {
            take_base!(e);
            let subtype = match e.subtype.as_str() {
                "tool-call" => ReasoningEncryptedValueSubtype::ToolCall,
                "message" => ReasoningEncryptedValueSubtype::Message,
                other => return Err(invalid("subtype", format!("unknown subtype {other:?}"))),
            };
            let mut o = ReasoningEncryptedValueEvent::new(subtype, e.entity_id, e.encrypted_value);
            o.subagent_run_id = ids.subagent(e.subagent_run_id);
            o.into()
        }
        A::SubagentStarted(mut e) => {
            take_base!(e);
            let mut o = SubagentStartedEvent::new(e.subagent_run_id, e.name);
            o.description = e.description;
            o.parent_subagent_run_id = e.parent_subagent_run_id.map(Into::into);
            o.parent_tool_call_id = e.parent_tool_call_id.map(|s| ids.tool_call(s));
            o.parent_message_id = e.parent_message_id.map(|s| ids.message(s));
            o.into()
        }
        A::SubagentFinished(mut e) => {
            take_base!(e);
            let mut o = SubagentFinishedEvent::new(e.subagent_run_id);
            o.result = opt_value(e.result);
            o.outcome = match e.outcome.as_str() {
                "" => None,
                "success" => Some(SubagentFinishedOutcome::Success),
                "suspended" => Some(SubagentFinishedOutcome::Suspended {
                    interrupt_ids: (!e.interrupt_ids.is_empty())
                        .then(|| e.interrupt_ids.into_iter().map(Into::into).collect()),
                }),
                other => {
                    tracing::warn!(name = %other, "dropping an outcome of unknown type");
                    None
                }
            };
            o.into()
        }
        A::SubagentError(mut e) => {
            take_base!(e);
            let mut o = SubagentErrorEvent::new(e.subagent_run_id, e.message);
            o.code = e.code;
            o.into()
        }
    };
    set_base(&mut event, base)?;
    Ok(event)
}
