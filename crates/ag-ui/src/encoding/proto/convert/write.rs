//! Writing: this crate's events to the generated protobuf messages, as the reference encoder
//! (`@ag-ui/proto` 1.0.0) writes them.

use json_patch::PatchOperation;
use serde_json::Value;

use super::super::generated as pb;
use super::super::json::{JsonObject, JsonValue};
use crate::event::*;
use crate::{
    Content, ContentPart, Interrupt, MediaPart, Message, Metadata, PartSource, ResumeStatus,
    RunAgentInput, RunFinishedOutcome, SubagentFinishedOutcome, TokenUsage, ToolCall,
};

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
