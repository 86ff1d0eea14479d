mod index;
mod limits;
mod patch;
mod report;
mod run_end;
mod snapshot;
mod store;
mod text;
mod tools;

use std::collections::{HashMap, HashSet};

use serde_json::Value;

pub use crate::json::partial::PartialJson;
pub use limits::{LimitExceeded, LimitKind, Limits};
pub use report::{Applied, ApplyWarning, ApplyWarningKind, MessagesChange, RunOutcome};
pub use store::{Messages, MessagesIter};

use index::Index;
pub(crate) use limits::Bounds;
pub(crate) use patch::{Document, Patched, check_document, check_object, patch_bounded};
use store::{Key, Store};

use crate::{
    ActivityDeltaEvent, ActivityMessage, ActivitySnapshotEvent, AssistantMessage, Content,
    ContentPart, DeveloperMessage, Event, EventType, Interrupt, Message, MessageId,
    MessagesSnapshotEvent, Metadata, ReasoningEncryptedValueSubtype, ReasoningMessage, Role,
    RunFinishedEvent, RunFinishedOutcome, SystemMessage, TextMessageRole, TextMessageStartEvent,
    ToolCall, ToolCallId, ToolCallResultEvent, ToolCallStartEvent, ToolMessage, UserMessage,
};

/// The metadata scope the reference client reads in `MESSAGES_SNAPSHOT` metadata.
pub(crate) const CLIENT_METADATA_KEY: &str = "@ag-ui/client";

/// The kinds of [`ApplyError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ApplyErrorKind {
    /// A `*_CHUNK` event reached the reducer; expand chunks first.
    UntransformedChunk,
    /// The event would exceed one of the reducer's [`Limits`]; [`ApplyError::limit`] says which.
    Limit,
}

impl ApplyErrorKind {
    /// A stable dotted name, e.g. `apply.untransformed-chunk`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApplyErrorKind::UntransformedChunk => "apply.untransformed-chunk",
            ApplyErrorKind::Limit => "apply.limit",
        }
    }
}

/// An event the reducer refuses; nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("event {index} ({}): {}: {}", event_type.as_str(), kind.as_str(), describe(*.event_type, .limit.as_ref()))]
#[non_exhaustive]
pub struct ApplyError {
    kind: ApplyErrorKind,
    index: u64,
    event_type: EventType,
    limit: Option<LimitExceeded>,
}

fn describe(event_type: EventType, limit: Option<&LimitExceeded>) -> String {
    match limit {
        Some(limit) => format!("{limit}; the event was not applied"),
        None => format!(
            "{} must be expanded before it is applied",
            event_type.as_str()
        ),
    }
}

impl ApplyError {
    /// An event at `index` refused for exceeding `limit`.
    pub(crate) fn over_limit(index: u64, event_type: EventType, limit: LimitExceeded) -> Self {
        Self {
            kind: ApplyErrorKind::Limit,
            index,
            event_type,
            limit: Some(limit),
        }
    }

    /// What was wrong.
    pub fn kind(&self) -> ApplyErrorKind {
        self.kind
    }

    /// The event's index among the events this reducer was given (0-based).
    pub fn index(&self) -> u64 {
        self.index
    }

    /// The event's type.
    pub fn event_type(&self) -> EventType {
        self.event_type
    }

    /// For [`ApplyErrorKind::Limit`]: which limit, and the sizes; `None` for the other kinds.
    pub fn limit(&self) -> Option<&LimitExceeded> {
        self.limit.as_ref()
    }
}

/// The reducer. See the [`Reducer`] docs.
///
/// The reducer: events in, conversation out — messages, state, pending interrupts, pending tool
/// calls and the run's outcome, rebuilt exactly as the reference client (`defaultApplyEvents` of
/// @ag-ui/client 1.0.0) rebuilds them.
///
/// A [`Reducer`] takes one expanded event at a time ([`Reducer::apply`]) and reports what the
/// event changed ([`Applied`]), so a UI can redraw only what moved. Work per event is
/// proportional to the event, not to the conversation: messages and tool calls are indexed by id,
/// text and argument deltas are appended in place, and nothing is cloned per token.
///
/// ```
/// use ag_ui::client::{MessagesChange, Reducer};
/// use ag_ui::{Event, Message, TextMessageRole};
/// use serde_json::json;
///
/// let mut reducer = Reducer::new();
/// reducer.apply(&Event::run_started("t1", "r1")).unwrap();
/// reducer.apply(&Event::text_message_start("m1", TextMessageRole::Assistant)).unwrap();
/// let applied = reducer.apply(&Event::text_message_content("m1", "Hel")).unwrap();
/// assert_eq!(applied.messages, MessagesChange::Updated(0));
/// reducer.apply(&Event::text_message_content("m1", "lo")).unwrap();
/// reducer.apply(&Event::text_message_end("m1")).unwrap();
/// reducer.apply(&Event::state_snapshot(json!({"count": 1}))).unwrap();
/// reducer.apply(&Event::run_finished("t1", "r1")).unwrap();
///
/// assert_eq!(reducer.messages(), &[Message::assistant("m1", "Hello")]);
/// assert_eq!(reducer.state(), &json!({"count": 1}));
/// ```
///
/// The reducer never rejects a protocol violation — that is the verifier's job. It applies what it
/// can and reports the rest as an [`ApplyWarning`] (also logged with `tracing::warn!`), leaving
/// messages and state as they were. It refuses two things with an [`ApplyError`], changing
/// nothing: an unexpanded chunk event ([`ApplyErrorKind::UntransformedChunk`]: run chunks through
/// the `ChunkNormalizer` first), and an event that would take more memory than its [`Limits`]
/// allow ([`ApplyErrorKind::Limit`]) — a patch that copies the state into itself until it no
/// longer fits in memory, a message streamed forever, a state nested one level per event until
/// the code that clones or drops it runs out of stack, front removes on a long array that
/// shift the whole array each.
///
/// ```
/// use ag_ui::client::{ApplyErrorKind, LimitKind, Limits, Reducer};
/// use ag_ui::Event;
/// use serde_json::json;
///
/// let mut reducer = Reducer::new().with_limits(Limits::new().with_max_document_bytes(1000));
/// reducer.apply(&Event::state_snapshot(json!({"a": "x".repeat(300)}))).unwrap();
/// // Each copy of the whole document doubles it.
/// let doubling = Event::from_value(&json!({"type": "STATE_DELTA", "delta": [
///     {"op": "copy", "from": "", "path": "/b"},
///     {"op": "copy", "from": "", "path": "/c"},
/// ]})).unwrap();
/// let err = reducer.apply(&doubling).unwrap_err();
/// assert_eq!(err.kind(), ApplyErrorKind::Limit);
/// assert_eq!((err.index(), err.limit().unwrap().kind), (1, LimitKind::StateBytes));
/// assert_eq!(reducer.state(), &json!({"a": "x".repeat(300)}));
/// ```
///
/// Where this differs from the reference, knowingly:
/// * an `ACTIVITY_DELTA` whose patch would turn an activity's content into something other than a
///   JSON object is refused with a warning (the typed [`ActivityMessage`] content is an object);
/// * [`Reducer::partial_tool_call_args`] gives parsed JSON (the reference hands its hook the
///   completed text), and a `\uXXXX` escape is read correctly where the reference's completion
///   routine loses the character after it.
#[derive(Clone, Debug, Default)]
pub struct Reducer {
    messages: Store,
    /// Where each message id and tool call id first is.
    ix: Index,
    state: Value,
    pending_interrupts: Vec<Interrupt>,
    run_tool_call_ids: Vec<ToolCallId>,
    run_tool_call_set: HashSet<ToolCallId>,
    answered: HashSet<ToolCallId>,
    outcome: Option<RunOutcome>,
    result: Option<Value>,
    partial_args: HashMap<ToolCallId, PartialJson>,
    index: u64,
    limits: Limits,
    /// Upper bounds of the state's size and depth; `None` until measured.
    state_size: Option<Bounds>,
    /// Array items the state and activity patches of the current run shifted.
    run_shifts: usize,
    /// Upper bounds of activity contents' sizes and depths, by message id; a missing one is
    /// measured.
    activity_sizes: HashMap<MessageId, Bounds>,
}

impl Reducer {
    /// A reducer over an empty conversation; the state is `{}`.
    pub fn new() -> Self {
        Self {
            state: Value::Object(serde_json::Map::new()),
            ..Self::default()
        }
    }

    /// Starts from these messages (the agent's messages before the run).
    #[must_use]
    pub fn with_messages(mut self, messages: Vec<Message>) -> Self {
        self.messages = Store::from_vec(messages);
        self.reindex();
        self
    }

    /// Starts from this state (the run input's state).
    #[must_use]
    pub fn with_state(mut self, state: Value) -> Self {
        self.state = state;
        self.state_size = None;
        self
    }

    /// Sets the limits on what the events may build ([`Limits::new`] by default).
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The limits on what the events may build.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Starts with these interrupts pending (they are replaced by the next `RUN_FINISHED`).
    #[must_use]
    pub fn with_pending_interrupts(mut self, interrupts: Vec<Interrupt>) -> Self {
        self.pending_interrupts = interrupts;
        self
    }

    /// The messages, in conversation order: a view that reads like a slice (see [`Messages`]),
    /// without copying them.
    pub fn messages(&self) -> Messages<'_> {
        self.messages.view()
    }

    /// The first message with this id.
    pub fn message(&self, id: &str) -> Option<&Message> {
        self.ix.message(id).map(|k| self.messages.by_key(k))
    }

    /// The first tool call with this id.
    pub fn tool_call(&self, id: &str) -> Option<&ToolCall> {
        let (m, t) = self.ix.tool_call(id)?;
        match self.messages.by_key(m) {
            Message::Assistant(a) => a.tool_calls.as_ref()?.get(t),
            _ => None,
        }
    }

    /// The arguments of a tool call parsed as JSON, closing whatever is still open while they
    /// stream (`{}` when nothing parses). `None` for an unknown tool call.
    ///
    /// Costs time proportional to the arguments; call it when you need the value, not per event
    /// by habit.
    pub fn partial_tool_call_args(&self, id: &str) -> Option<Value> {
        if let Some(scanner) = self.partial_args.get(id) {
            return Some(scanner.value());
        }
        let call = self.tool_call(id)?;
        Some(PartialJson::from_text(&call.function.arguments).value())
    }

    /// The state.
    pub fn state(&self) -> &Value {
        &self.state
    }

    /// The interrupts the last `RUN_FINISHED` left open (empty after any other outcome).
    pub fn pending_interrupts(&self) -> &[Interrupt] {
        &self.pending_interrupts
    }

    /// How the last `RUN_FINISHED` ended its run; `None` before any.
    pub fn outcome(&self) -> Option<&RunOutcome> {
        self.outcome.as_ref()
    }

    /// The tool calls the last successful `RUN_FINISHED` left waiting for a client result.
    pub fn pending_tool_call_ids(&self) -> &[ToolCallId] {
        match &self.outcome {
            Some(RunOutcome::Success {
                pending_tool_call_ids,
                ..
            }) => pending_tool_call_ids,
            _ => &[],
        }
    }

    /// The result of the last `RUN_FINISHED` with a success outcome (or none) that carried one.
    pub fn result(&self) -> Option<&Value> {
        self.result.as_ref()
    }

    /// How many events this reducer was given.
    pub fn events_applied(&self) -> u64 {
        self.index
    }

    /// Gives up the messages and the state.
    pub fn into_parts(self) -> (Vec<Message>, Value) {
        (self.messages.into_vec(), self.state)
    }

    /// Applies every event in order, stopping at the first error.
    ///
    /// # Errors
    /// The first [`ApplyError`] (an unexpanded chunk event, or an event over a limit); events
    /// before it stay applied.
    pub fn apply_all<'a>(
        &mut self,
        events: impl IntoIterator<Item = &'a Event>,
    ) -> Result<(), ApplyError> {
        for event in events {
            self.apply(event)?;
        }
        Ok(())
    }

    /// Applies one event.
    ///
    /// # Errors
    /// Nothing is changed when the event is refused:
    /// * [`ApplyErrorKind::UntransformedChunk`] for `TEXT_MESSAGE_CHUNK`, `TOOL_CALL_CHUNK` and
    ///   `REASONING_MESSAGE_CHUNK`;
    /// * [`ApplyErrorKind::Limit`] for an event that would exceed the reducer's [`Limits`]: a
    ///   state or activity patch or snapshot too large or adding too much, text, arguments or
    ///   reasoning streamed past their limit, a snapshot or run input holding such a message.
    pub fn apply(&mut self, event: &Event) -> Result<Applied, ApplyError> {
        let index = self.index;
        self.index += 1;
        let refused = |kind, limit| ApplyError {
            kind,
            index,
            event_type: event.event_type(),
            limit,
        };
        match self.apply_event(event) {
            Ok(Some(applied)) => Ok(with_warning_placed(index, event, applied)),
            Ok(None) => Err(refused(ApplyErrorKind::UntransformedChunk, None)),
            Err(limit) => {
                tracing::warn!(
                    index,
                    event_type = event.event_type().as_str(),
                    limit = limit.kind.as_str(),
                    size = limit.size,
                    max = limit.max,
                    "event refused: {limit}"
                );
                Err(refused(ApplyErrorKind::Limit, Some(limit)))
            }
        }
    }

    /// Applies one event; `Ok(None)` for a chunk event.
    fn apply_event(&mut self, event: &Event) -> Result<Option<Applied>, LimitExceeded> {
        let applied = match event {
            Event::TextMessageChunk(_)
            | Event::ToolCallChunk(_)
            | Event::ReasoningMessageChunk(_) => return Ok(None),
            Event::TextMessageStart(e) => self.text_start(e),
            Event::TextMessageContent(e) => {
                self.append_text(&e.message_id, &e.delta, e.metadata.as_deref())?
            }
            Event::TextMessageEnd(e) => self.end_text(&e.message_id, e.metadata.as_deref()),
            Event::ReasoningMessageStart(e) => self.reasoning_start(
                &e.message_id,
                e.subagent_run_id.as_ref(),
                e.metadata.as_deref(),
            ),
            Event::ReasoningMessageContent(e) => {
                self.append_text(&e.message_id, &e.delta, e.metadata.as_deref())?
            }
            Event::ReasoningMessageEnd(e) => self.end_text(&e.message_id, e.metadata.as_deref()),
            Event::ToolCallStart(e) => self.tool_call_start(e),
            Event::ToolCallArgs(e) => self.tool_call_args(&e.tool_call_id, &e.delta, e)?,
            Event::ToolCallEnd(e) => self.tool_call_end(&e.tool_call_id, e.metadata.as_deref()),
            Event::ToolCallResult(e) => {
                LimitExceeded::check(
                    LimitKind::MessageBytes,
                    content_len(&e.content),
                    self.limits.max_message_bytes,
                )?;
                self.tool_call_result(e)
            }
            Event::StateSnapshot(e) => {
                let bounds = check_document(&e.snapshot, &self.limits, Document::State)?;
                self.state = e.snapshot.clone();
                self.state_size = Some(bounds);
                Applied {
                    state_changed: true,
                    ..Applied::none()
                }
            }
            Event::StateDelta(e) => self.state_delta(&e.delta)?,
            Event::MessagesSnapshot(e) => {
                for message in &e.messages {
                    self.check_message(message)?;
                }
                self.messages_snapshot(e)
            }
            Event::ActivitySnapshot(e) => self.activity_snapshot(e)?,
            Event::ActivityDelta(e) => self.activity_delta(e)?,
            Event::RunStarted(e) => {
                if let Some(input) = &e.input {
                    for message in &input.messages {
                        self.check_message(message)?;
                    }
                }
                self.run_shifts = 0;
                self.run_tool_call_ids.clear();
                self.run_tool_call_set.clear();
                self.answered.clear();
                match &e.input {
                    Some(input) => {
                        for message in &input.messages {
                            if self.ix.message(message.id()).is_none() {
                                self.push(message.clone());
                            }
                        }
                        Applied::messages(MessagesChange::Replaced)
                    }
                    None => Applied::none(),
                }
            }
            Event::RunFinished(e) => {
                self.run_finished(e);
                Applied::none()
            }
            Event::ReasoningEncryptedValue(e) => {
                let target = match e.subtype {
                    ReasoningEncryptedValueSubtype::ToolCall => {
                        self.ix.tool_call(e.entity_id.as_str())
                    }
                    ReasoningEncryptedValueSubtype::Message => self
                        .ix
                        .message(e.entity_id.as_str())
                        .map(|m| (m, usize::MAX)),
                };
                match target {
                    Some((m, t))
                        if set_encrypted_value(
                            self.messages.by_key_mut(m),
                            t,
                            &e.encrypted_value,
                        ) =>
                    {
                        Applied::messages(MessagesChange::Updated(self.messages.position(m)))
                    }
                    _ => Applied::none(),
                }
            }
            Event::RunError(_)
            | Event::StepStarted(_)
            | Event::StepFinished(_)
            | Event::ReasoningStart(_)
            | Event::ReasoningEnd(_)
            | Event::Custom(_)
            | Event::Raw(_)
            | Event::SubagentStarted(_)
            | Event::SubagentFinished(_)
            | Event::SubagentError(_) => Applied::none(),
        };
        Ok(Some(applied))
    }

    // ----- limits ---------------------------------------------------------------------------

    /// Whether a message a snapshot or run input brings is within the limits.
    fn check_message(&self, message: &Message) -> Result<(), LimitExceeded> {
        let limits = &self.limits;
        match message {
            Message::Developer(m) => LimitExceeded::check(
                LimitKind::MessageBytes,
                m.content.len(),
                limits.max_message_bytes,
            ),
            Message::System(m) => LimitExceeded::check(
                LimitKind::MessageBytes,
                m.content.len(),
                limits.max_message_bytes,
            ),
            Message::User(m) => LimitExceeded::check(
                LimitKind::MessageBytes,
                content_len(&m.content),
                limits.max_message_bytes,
            ),
            Message::Tool(m) => LimitExceeded::check(
                LimitKind::MessageBytes,
                content_len(&m.content),
                limits.max_message_bytes,
            ),
            Message::Reasoning(m) => LimitExceeded::check(
                LimitKind::ReasoningBytes,
                m.content.len(),
                limits.max_reasoning_bytes,
            ),
            Message::Assistant(m) => {
                LimitExceeded::check(
                    LimitKind::MessageBytes,
                    m.content.as_ref().map_or(0, String::len),
                    limits.max_message_bytes,
                )?;
                for call in m.tool_calls.iter().flatten() {
                    LimitExceeded::check(
                        LimitKind::ToolCallArgsBytes,
                        call.function.arguments.len(),
                        limits.max_tool_call_args_bytes,
                    )?;
                }
                Ok(())
            }
            Message::Activity(m) => {
                check_object(&m.content, limits, Document::Activity).map(|_| ())
            }
        }
    }

    fn state_delta(
        &mut self,
        ops: &[json_patch::PatchOperation],
    ) -> Result<Applied, LimitExceeded> {
        let patched = patch_bounded(
            &mut self.state,
            ops,
            &self.limits,
            self.state_size,
            Document::State,
            &mut self.run_shifts,
        )?;
        Ok(match patched {
            Patched::Applied(bounds) => {
                self.state_size = Some(bounds);
                Applied {
                    state_changed: true,
                    ..Applied::none()
                }
            }
            Patched::Failed(bounds, err) => {
                // The patch was undone as a whole.
                self.state_size = Some(bounds);
                Applied {
                    warning: Some(warn(
                        ApplyWarningKind::StatePatchFailed,
                        format!(
                            "state patch failed, state unchanged: {}",
                            crate::excerpt(&err.to_string(), 4 * crate::EXCERPT_BYTES)
                        ),
                    )),
                    ..Applied::none()
                }
            }
        })
    }

    // ----- indexing -------------------------------------------------------------------------

    fn reindex(&mut self) {
        self.ix.rebuild(&self.messages);
    }

    /// Appends a message; returns its key.
    fn push(&mut self, message: Message) -> Key {
        let key = self.messages.push(message);
        self.ix.pushed(key, self.messages.by_key(key));
        key
    }

    /// Inserts at `position`, moving later messages up (in O(log n): no message moves in
    /// memory).
    fn insert(&mut self, position: usize, message: Message) -> Key {
        if position >= self.messages.len() {
            return self.push(message);
        }
        let key = self.messages.insert(position, message);
        self.ix
            .inserted(key, self.messages.by_key(key), &self.messages);
        key
    }
}

/// Fills in the index and type of an applied event's warning, and logs it.
fn with_warning_placed(index: u64, event: &Event, applied: Applied) -> Applied {
    match applied.warning {
        Some(mut warning) => {
            warning.index = index;
            warning.event_type = event.event_type();
            tracing::warn!(
                index,
                event_type = warning.event_type.as_str(),
                kind = warning.kind.as_str(),
                "{}",
                warning.message
            );
            Applied {
                warning: Some(warning),
                ..applied
            }
        }
        None => applied,
    }
}

/// The bytes of a message content: its text, or its parts' text and inline data.
fn content_len(content: &Content) -> usize {
    match content {
        Content::Text(text) => text.len(),
        Content::Parts(parts) => parts
            .iter()
            .map(|part| match part {
                ContentPart::Text(t) => t.text.len(),
                ContentPart::Image(m)
                | ContentPart::Audio(m)
                | ContentPart::Video(m)
                | ContentPart::Document(m) => match &m.source {
                    crate::PartSource::Data { value, .. }
                    | crate::PartSource::Url { value, .. }
                    | crate::PartSource::File { value, .. } => value.len(),
                },
            })
            .sum(),
    }
}

/// Which local activity messages a `MESSAGES_SNAPSHOT` owns.
enum Authority<'a> {
    /// No declaration: local activities survive iff the snapshot has none.
    Legacy,
    /// `null`: the snapshot owns every activity type.
    All,
    /// The snapshot owns these types (an invalid declaration reads as none).
    Types(Vec<&'a str>),
}

fn activity_authority(metadata: Option<&Metadata>) -> Authority<'_> {
    let Some(scope) = metadata.and_then(|m| m.get(CLIENT_METADATA_KEY)) else {
        return Authority::Legacy;
    };
    let Value::Object(scope) = scope else {
        return Authority::Types(Vec::new());
    };
    match scope.get("authoritativeActivityTypes") {
        None => Authority::Legacy,
        Some(Value::Null) => Authority::All,
        Some(Value::Array(items)) => {
            let types: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
            Authority::Types(types.unwrap_or_default())
        }
        Some(_) => Authority::Types(Vec::new()),
    }
}

/// Shallow-merges `incoming` into `target` (incoming keys win). Returns whether there was
/// incoming metadata at all — the reference reports a change then, even for an empty object.
fn merge_metadata(target: &mut Option<Metadata>, incoming: Option<&Metadata>) -> bool {
    let Some(incoming) = incoming else {
        return false;
    };
    match target {
        Some(existing) => {
            for (key, value) in incoming {
                existing.insert(key.clone(), value.clone());
            }
        }
        None => *target = Some(incoming.clone()),
    }
    true
}

fn shrink_text(message: &mut Message) {
    match message {
        Message::Developer(m) => m.content.shrink_to_fit(),
        Message::System(m) => m.content.shrink_to_fit(),
        Message::Reasoning(m) => m.content.shrink_to_fit(),
        Message::Assistant(m) => m.content.iter_mut().for_each(String::shrink_to_fit),
        Message::User(UserMessage {
            content: Content::Text(t),
            ..
        })
        | Message::Tool(ToolMessage {
            content: Content::Text(t),
            ..
        }) => t.shrink_to_fit(),
        _ => {}
    }
}

fn append_content(content: &mut Content, delta: &str) {
    match content {
        Content::Text(text) => text.push_str(delta),
        Content::Parts(_) => *content = Content::Text(delta.to_owned()),
    }
}

/// Sets an encrypted value on tool call `call` of message `m`, or on the message itself when
/// `call` is `usize::MAX`. Returns whether anything was set.
fn set_encrypted_value(message: &mut Message, call: usize, value: &str) -> bool {
    let value = Some(value.to_owned());
    if call != usize::MAX {
        if let Message::Assistant(a) = message
            && let Some(c) = a.tool_calls.as_mut().and_then(|c| c.get_mut(call))
        {
            c.encrypted_value = value;
            return true;
        }
        return false;
    }
    match message {
        Message::Developer(m) => m.encrypted_value = value,
        Message::System(m) => m.encrypted_value = value,
        Message::Assistant(m) => m.encrypted_value = value,
        Message::User(m) => m.encrypted_value = value,
        Message::Tool(m) => m.encrypted_value = value,
        Message::Reasoning(m) => m.encrypted_value = value,
        Message::Activity(_) => return false,
    }
    true
}

/// A warning whose index and event type `apply` fills in.
fn warn(kind: ApplyWarningKind, message: String) -> ApplyWarning {
    // The ids and names a warning quotes are the peer's: the message stays bounded.
    let message = match crate::excerpt(&message, crate::EXCERPT_LIST_BYTES) {
        std::borrow::Cow::Borrowed(_) => message,
        std::borrow::Cow::Owned(cut) => cut,
    };
    ApplyWarning {
        kind,
        index: 0,
        event_type: EventType::Raw,
        message,
    }
}

fn activity_id_warning(id: &MessageId) -> Applied {
    Applied {
        warning: Some(warn(
            ApplyWarningKind::ActivityMessageId,
            format!(
                "message {:?} is an activity message; message ids must be unique across \
                 activities and text",
                id.as_str()
            ),
        )),
        ..Applied::none()
    }
}

fn unknown_tool_call(id: &ToolCallId) -> Applied {
    Applied {
        warning: Some(warn(
            ApplyWarningKind::UnknownToolCall,
            format!("no message holds a tool call with id {:?}", id.as_str()),
        )),
        ..Applied::none()
    }
}

#[cfg(test)]
mod tests;
