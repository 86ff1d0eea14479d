//! Reading: the generated protobuf messages to this crate's events, giving what reading the
//! reference decoder's JSON would give, and refusing what it refuses, naming the field.

use json_patch::jsonptr::PointerBuf;
use json_patch::{
    AddOperation, CopyOperation, MoveOperation, PatchOperation, RemoveOperation, ReplaceOperation,
    TestOperation,
};
use serde_json::Value;

use super::super::generated as pb;
use super::super::json::{JsonObject, JsonValue};
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
