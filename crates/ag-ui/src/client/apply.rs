//! The reducer: events in, conversation out — messages, state, pending interrupts, pending tool
//! calls and the run's outcome, rebuilt exactly as the reference client (`defaultApplyEvents` of
//! @ag-ui/client 1.0.0) rebuilds them.
//!
//! A [`Reducer`] takes one expanded event at a time ([`Reducer::apply`]) and reports what the
//! event changed ([`Applied`]), so a UI can redraw only what moved. Work per event is
//! proportional to the event, not to the conversation: messages and tool calls are indexed by id,
//! text and argument deltas are appended in place, and nothing is cloned per token.
//!
//! ```
//! use ag_ui::client::apply::{MessagesChange, Reducer};
//! use ag_ui::{Event, Message, TextMessageRole};
//! use serde_json::json;
//!
//! let mut reducer = Reducer::new();
//! reducer.apply(&Event::run_started("t1", "r1")).unwrap();
//! reducer.apply(&Event::text_message_start("m1", TextMessageRole::Assistant)).unwrap();
//! let applied = reducer.apply(&Event::text_message_content("m1", "Hel")).unwrap();
//! assert_eq!(applied.messages, MessagesChange::Updated(0));
//! reducer.apply(&Event::text_message_content("m1", "lo")).unwrap();
//! reducer.apply(&Event::text_message_end("m1")).unwrap();
//! reducer.apply(&Event::state_snapshot(json!({"count": 1}))).unwrap();
//! reducer.apply(&Event::run_finished("t1", "r1")).unwrap();
//!
//! assert_eq!(reducer.messages(), &[Message::assistant("m1", "Hello")]);
//! assert_eq!(reducer.state(), &json!({"count": 1}));
//! ```
//!
//! The reducer never rejects a protocol violation — that is the verifier's job. It applies what it
//! can and reports the rest as an [`ApplyWarning`] (also logged with `tracing::warn!`), leaving
//! messages and state as they were. It refuses two things with an [`ApplyError`], changing
//! nothing: an unexpanded chunk event ([`ApplyErrorKind::UntransformedChunk`]: run chunks through
//! the `ChunkNormalizer` first), and an event that would take more memory than its [`Limits`]
//! allow ([`ApplyErrorKind::Limit`]) — a patch that copies the state into itself until it no
//! longer fits in memory, a message streamed forever.
//!
//! ```
//! use ag_ui::client::apply::{ApplyErrorKind, LimitKind, Limits, Reducer};
//! use ag_ui::Event;
//! use serde_json::json;
//!
//! let mut reducer = Reducer::new().with_limits(Limits::new().with_max_document_bytes(1000));
//! reducer.apply(&Event::state_snapshot(json!({"a": "x".repeat(300)}))).unwrap();
//! // Each copy of the whole document doubles it.
//! let doubling = Event::from_value(&json!({"type": "STATE_DELTA", "delta": [
//!     {"op": "copy", "from": "", "path": "/b"},
//!     {"op": "copy", "from": "", "path": "/c"},
//! ]})).unwrap();
//! let err = reducer.apply(&doubling).unwrap_err();
//! assert_eq!(err.kind(), ApplyErrorKind::Limit);
//! assert_eq!((err.index, err.limit.unwrap().kind), (1, LimitKind::StateBytes));
//! assert_eq!(reducer.state(), &json!({"a": "x".repeat(300)}));
//! ```
//!
//! Where this differs from the reference, knowingly:
//! * an `ACTIVITY_DELTA` whose patch would turn an activity's content into something other than a
//!   JSON object is refused with a warning (the typed [`ActivityMessage`] content is an object);
//! * [`Reducer::partial_tool_call_args`] gives parsed JSON (the reference hands its hook the
//!   completed text), and a `\uXXXX` escape is read correctly where the reference's completion
//!   routine loses the character after it.

mod index;
mod limits;
mod partial;

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde_json::Value;

pub use limits::{LimitExceeded, LimitKind, Limits};
pub use partial::PartialJson;

use index::Index;
use limits::{json_size, patch_growth};

use crate::{
    ActivityDeltaEvent, ActivityMessage, ActivitySnapshotEvent, AssistantMessage, Content,
    ContentPart, DeveloperMessage, Event, EventType, Interrupt, Message, MessageId,
    MessagesSnapshotEvent, Metadata, ReasoningEncryptedValueSubtype, ReasoningMessage, Role,
    RunFinishedEvent, RunFinishedOutcome, SystemMessage, TextMessageRole, TextMessageStartEvent,
    ToolCall, ToolCallId, ToolCallResultEvent, ToolCallStartEvent, ToolMessage, UserMessage,
};

/// The metadata scope the reference client reads in `MESSAGES_SNAPSHOT` metadata.
pub const CLIENT_METADATA_KEY: &str = "@ag-ui/client";

/// What one event did to the messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MessagesChange {
    /// Nothing.
    Unchanged,
    /// A message was appended at this index.
    Appended(usize),
    /// A message was inserted at this index; the messages after it moved up by one.
    Inserted(usize),
    /// The message at this index changed in place (text appended, tool call added, metadata
    /// merged, activity replaced or patched, encrypted value set).
    Updated(usize),
    /// The list changed as a whole (a `MESSAGES_SNAPSHOT`, or `RUN_STARTED` input messages).
    Replaced,
}

impl MessagesChange {
    /// Whether the messages changed at all (the reference client emits a messages update).
    pub fn is_changed(self) -> bool {
        self != MessagesChange::Unchanged
    }
}

/// What applying one event changed.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Applied {
    /// How the messages changed.
    pub messages: MessagesChange,
    /// Whether the state changed.
    pub state_changed: bool,
    /// A message that is complete now (`TEXT_MESSAGE_END`, `REASONING_MESSAGE_END`, a tool
    /// result, a newly created activity): its index.
    pub new_message: Option<usize>,
    /// A tool call whose arguments are complete now (`TOOL_CALL_END`).
    pub new_tool_call: Option<ToolCallId>,
    /// Why (part of) the event was not applied.
    pub warning: Option<ApplyWarning>,
}

impl Applied {
    fn none() -> Self {
        Self {
            messages: MessagesChange::Unchanged,
            state_changed: false,
            new_message: None,
            new_tool_call: None,
            warning: None,
        }
    }

    fn messages(change: MessagesChange) -> Self {
        Self {
            messages: change,
            ..Self::none()
        }
    }

    fn updated_if(changed: bool, index: usize) -> Self {
        Self::messages(if changed {
            MessagesChange::Updated(index)
        } else {
            MessagesChange::Unchanged
        })
    }

    /// Whether the messages or the state changed.
    pub fn is_changed(&self) -> bool {
        self.messages.is_changed() || self.state_changed
    }
}

/// The kinds of [`ApplyWarning`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ApplyWarningKind {
    /// A text or reasoning event names a message that does not exist.
    UnknownMessage,
    /// A text or reasoning event names an activity message.
    ActivityMessageId,
    /// A tool call event names a tool call that does not exist.
    UnknownToolCall,
    /// `TOOL_CALL_START.parentMessageId` names a message that is not an assistant message; a new
    /// assistant message with the tool call's id holds the call.
    ParentNotAssistant,
    /// A replayed `TOOL_CALL_START` renamed an existing tool call.
    ToolCallRenamed,
    /// `ACTIVITY_DELTA` names a message that is not an activity.
    NotActivity,
    /// A `STATE_DELTA` patch failed; the state is unchanged.
    StatePatchFailed,
    /// An `ACTIVITY_DELTA` patch failed (or would make the content a non-object); the content is
    /// unchanged.
    ActivityPatchFailed,
}

impl ApplyWarningKind {
    /// A stable dotted name, e.g. `apply.state-patch-failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApplyWarningKind::UnknownMessage => "apply.unknown-message",
            ApplyWarningKind::ActivityMessageId => "apply.activity-message-id",
            ApplyWarningKind::UnknownToolCall => "apply.unknown-tool-call",
            ApplyWarningKind::ParentNotAssistant => "apply.parent-not-assistant",
            ApplyWarningKind::ToolCallRenamed => "apply.tool-call-renamed",
            ApplyWarningKind::NotActivity => "apply.not-activity",
            ApplyWarningKind::StatePatchFailed => "apply.state-patch-failed",
            ApplyWarningKind::ActivityPatchFailed => "apply.activity-patch-failed",
        }
    }
}

/// A part of an event that the reducer could not apply. Messages and state stay as they were for
/// that part.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApplyWarning {
    /// What was wrong.
    pub kind: ApplyWarningKind,
    /// The event's index among the events this reducer was given (0-based).
    pub index: u64,
    /// The event's type.
    pub event_type: EventType,
    /// A human-readable explanation.
    pub message: String,
}

impl fmt::Display for ApplyWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "event {} ({}): {}: {}",
            self.index,
            self.event_type.as_str(),
            self.kind.as_str(),
            self.message
        )
    }
}

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
    /// What was wrong.
    pub kind: ApplyErrorKind,
    /// The event's index among the events this reducer was given (0-based).
    pub index: u64,
    /// The event's type.
    pub event_type: EventType,
    /// For [`ApplyErrorKind::Limit`]: which limit, and the sizes.
    pub limit: Option<LimitExceeded>,
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
    /// What was wrong.
    pub fn kind(&self) -> ApplyErrorKind {
        self.kind
    }
}

/// How the last `RUN_FINISHED` ended its run, as the reducer saw it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RunOutcome {
    /// The run succeeded (also when `RUN_FINISHED` names no outcome).
    Success {
        /// The run's result, if it reported one.
        result: Option<Value>,
        /// Tool calls waiting for a result from the client: the outcome's own non-empty list,
        /// else the tool calls started in this run that got no `TOOL_CALL_RESULT` (start order).
        pending_tool_call_ids: Vec<ToolCallId>,
    },
    /// The run paused on interrupts.
    Interrupt {
        /// The open interrupts.
        interrupts: Vec<Interrupt>,
    },
    /// The run was cancelled.
    Cancelled,
}

/// The reducer. See the [module documentation](self).
#[derive(Clone, Debug, Default)]
pub struct Reducer {
    messages: Vec<Message>,
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
    /// An upper bound of the state's size; `None` until measured.
    state_size: Option<usize>,
    /// Upper bounds of activity contents' sizes, by message id; a missing one is measured.
    activity_sizes: HashMap<MessageId, usize>,
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
        self.messages = messages;
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

    /// The messages.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The first message with this id.
    pub fn message(&self, id: &str) -> Option<&Message> {
        self.ix.message(id).map(|i| &self.messages[i])
    }

    /// The first tool call with this id.
    pub fn tool_call(&self, id: &str) -> Option<&ToolCall> {
        let (m, t) = self.ix.tool_call(id)?;
        match &self.messages[m] {
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
        (self.messages, self.state)
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
                    self.limits.max_message_bytes(),
                )?;
                self.tool_call_result(e)
            }
            Event::StateSnapshot(e) => {
                let max = self.limits.max_document_bytes();
                let size = json_size(&e.snapshot, max);
                LimitExceeded::check(LimitKind::StateBytes, size, max)?;
                self.state = e.snapshot.clone();
                self.state_size = Some(size);
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
                        if set_encrypted_value(&mut self.messages[m], t, &e.encrypted_value) =>
                    {
                        Applied::messages(MessagesChange::Updated(m))
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
                limits.max_message_bytes(),
            ),
            Message::System(m) => LimitExceeded::check(
                LimitKind::MessageBytes,
                m.content.len(),
                limits.max_message_bytes(),
            ),
            Message::User(m) => LimitExceeded::check(
                LimitKind::MessageBytes,
                content_len(&m.content),
                limits.max_message_bytes(),
            ),
            Message::Tool(m) => LimitExceeded::check(
                LimitKind::MessageBytes,
                content_len(&m.content),
                limits.max_message_bytes(),
            ),
            Message::Reasoning(m) => LimitExceeded::check(
                LimitKind::ReasoningBytes,
                m.content.len(),
                limits.max_reasoning_bytes(),
            ),
            Message::Assistant(m) => {
                LimitExceeded::check(
                    LimitKind::MessageBytes,
                    m.content.as_ref().map_or(0, String::len),
                    limits.max_message_bytes(),
                )?;
                for call in m.tool_calls.iter().flatten() {
                    LimitExceeded::check(
                        LimitKind::ToolCallArgsBytes,
                        call.function.arguments.len(),
                        limits.max_tool_call_args_bytes(),
                    )?;
                }
                Ok(())
            }
            Message::Activity(m) => {
                let max = limits.max_document_bytes();
                LimitExceeded::check(LimitKind::ActivityBytes, object_size(&m.content, max), max)
            }
        }
    }

    fn state_delta(
        &mut self,
        ops: &[json_patch::PatchOperation],
    ) -> Result<Applied, LimitExceeded> {
        let (size, bound) = check_patch(
            &self.limits,
            &self.state,
            ops,
            self.state_size,
            LimitKind::StateBytes,
        )?;
        Ok(match json_patch::patch(&mut self.state, ops) {
            Ok(()) => {
                self.state_size = Some(bound);
                Applied {
                    state_changed: true,
                    ..Applied::none()
                }
            }
            Err(err) => {
                // The patch was undone as a whole.
                self.state_size = Some(size);
                Applied {
                    warning: Some(warn(
                        ApplyWarningKind::StatePatchFailed,
                        format!("state patch failed, state unchanged: {err}"),
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

    fn push(&mut self, message: Message) -> usize {
        self.messages.push(message);
        let position = self.messages.len() - 1;
        self.ix.pushed(position, &self.messages[position]);
        position
    }

    /// Inserts at `position`, moving later messages up.
    fn insert(&mut self, position: usize, message: Message) {
        if position == self.messages.len() {
            self.push(message);
            return;
        }
        self.messages.insert(position, message);
        self.ix.inserted(position, &self.messages[position]);
    }

    // ----- text and reasoning ---------------------------------------------------------------

    fn text_start(&mut self, e: &TextMessageStartEvent) -> Applied {
        let (position, created) = match self.ix.message(&e.message_id) {
            Some(p) if self.messages[p].role() == Role::Activity => {
                return activity_id_warning(&e.message_id);
            }
            Some(p) => (p, false),
            None => {
                let role = e.role.unwrap_or(TextMessageRole::Assistant);
                let id = e.message_id.clone();
                let name = e.name.clone();
                let mut message = match role {
                    TextMessageRole::Assistant => {
                        let mut m = AssistantMessage::new(id).with_content("");
                        m.name = name;
                        Message::Assistant(m)
                    }
                    TextMessageRole::User => {
                        let mut m = UserMessage::new(id, "");
                        m.name = name;
                        Message::User(m)
                    }
                    TextMessageRole::System => {
                        let mut m = SystemMessage::new(id, "");
                        m.name = name;
                        Message::System(m)
                    }
                    TextMessageRole::Developer => {
                        let mut m = DeveloperMessage::new(id, "");
                        m.name = name;
                        Message::Developer(m)
                    }
                };
                *message.subagent_run_id_mut() = e.subagent_run_id.clone();
                (self.push(message), true)
            }
        };
        let merged = merge_metadata(
            self.messages[position].metadata_mut(),
            e.metadata.as_deref(),
        );
        if created {
            Applied::messages(MessagesChange::Appended(position))
        } else {
            Applied::updated_if(merged, position)
        }
    }

    fn reasoning_start(
        &mut self,
        id: &MessageId,
        tag: Option<&crate::SubagentRunId>,
        metadata: Option<&Metadata>,
    ) -> Applied {
        let (position, created) = match self.ix.message(id) {
            Some(p) if self.messages[p].role() == Role::Activity => {
                return activity_id_warning(id);
            }
            Some(p) => (p, false),
            None => {
                let mut message = ReasoningMessage::new(id.clone(), "");
                message.subagent_run_id = tag.cloned();
                (self.push(Message::Reasoning(message)), true)
            }
        };
        let merged = merge_metadata(self.messages[position].metadata_mut(), metadata);
        if created {
            Applied::messages(MessagesChange::Appended(position))
        } else {
            Applied::updated_if(merged, position)
        }
    }

    fn text_target(&self, id: &MessageId) -> Result<usize, Applied> {
        match self.ix.message(id) {
            None => Err(Applied {
                warning: Some(warn(
                    ApplyWarningKind::UnknownMessage,
                    format!("no message with id {:?}", id.as_str()),
                )),
                ..Applied::none()
            }),
            Some(p) if self.messages[p].role() == Role::Activity => Err(activity_id_warning(id)),
            Some(p) => Ok(p),
        }
    }

    fn append_text(
        &mut self,
        id: &MessageId,
        delta: &str,
        metadata: Option<&Metadata>,
    ) -> Result<Applied, LimitExceeded> {
        let position = match self.text_target(id) {
            Ok(p) => p,
            Err(applied) => return Ok(applied),
        };
        let message = &mut self.messages[position];
        let (kind, len, max) = match &*message {
            Message::Reasoning(m) => (
                LimitKind::ReasoningBytes,
                m.content.len(),
                self.limits.max_reasoning_bytes(),
            ),
            other => (
                LimitKind::MessageBytes,
                other.text().map_or(0, str::len),
                self.limits.max_message_bytes(),
            ),
        };
        LimitExceeded::check(kind, len.saturating_add(delta.len()), max)?;
        match message {
            Message::Developer(m) => m.content.push_str(delta),
            Message::System(m) => m.content.push_str(delta),
            Message::Reasoning(m) => m.content.push_str(delta),
            Message::Assistant(m) => m.content.get_or_insert_with(String::new).push_str(delta),
            Message::User(m) => append_content(&mut m.content, delta),
            Message::Tool(m) => append_content(&mut m.content, delta),
            Message::Activity(_) => unreachable!("text_target refuses activity messages"),
        }
        merge_metadata(message.metadata_mut(), metadata);
        Ok(Applied::messages(MessagesChange::Updated(position)))
    }

    fn end_text(&mut self, id: &MessageId, metadata: Option<&Metadata>) -> Applied {
        let position = match self.text_target(id) {
            Ok(p) => p,
            Err(applied) => return applied,
        };
        let message = &mut self.messages[position];
        // The text grew by appending; give back the spare capacity now that it is complete.
        shrink_text(message);
        let merged = merge_metadata(message.metadata_mut(), metadata);
        Applied {
            new_message: Some(position),
            ..Applied::updated_if(merged, position)
        }
    }

    // ----- tool calls -----------------------------------------------------------------------

    fn tool_call_mut(&mut self, id: &str) -> Option<(usize, &mut ToolCall)> {
        let (m, t) = self.ix.tool_call(id)?;
        match &mut self.messages[m] {
            Message::Assistant(a) => a.tool_calls.as_mut()?.get_mut(t).map(|c| (m, c)),
            _ => None,
        }
    }

    fn tool_call_start(&mut self, e: &ToolCallStartEvent) -> Applied {
        if self.run_tool_call_set.insert(e.tool_call_id.clone()) {
            self.run_tool_call_ids.push(e.tool_call_id.clone());
        }
        if let Some((m, call)) = self.tool_call_mut(e.tool_call_id.as_str()) {
            // A replay: the call stays where it is, with its arguments.
            let renamed = call.function.name != e.tool_call_name;
            let warning = renamed.then(|| {
                let w = warn(
                    ApplyWarningKind::ToolCallRenamed,
                    format!(
                        "tool call {:?} already exists with name {:?}; renamed to {:?}",
                        e.tool_call_id.as_str(),
                        call.function.name,
                        e.tool_call_name
                    ),
                );
                call.function.name.clone_from(&e.tool_call_name);
                w
            });
            let merged = merge_metadata(&mut call.metadata, e.metadata.as_deref());
            return Applied {
                warning,
                ..Applied::updated_if(renamed || merged, m)
            };
        }
        let mut warning = None;
        let existing = match &e.parent_message_id {
            Some(parent) => match self.ix.message(parent) {
                Some(p) if self.messages[p].role() == Role::Assistant => Some(p),
                Some(p) => {
                    warning = Some(warn(
                        ApplyWarningKind::ParentNotAssistant,
                        format!(
                            "parentMessageId {:?} names a {} message; the tool call gets a new \
                             assistant message {:?}",
                            parent.as_str(),
                            self.messages[p].role().as_str(),
                            e.tool_call_id.as_str()
                        ),
                    ));
                    None
                }
                None => None,
            },
            None => None,
        };
        let (position, change) = match existing {
            Some(p) => (p, MessagesChange::Updated(p)),
            None => {
                let id = match (&e.parent_message_id, &warning) {
                    (Some(parent), None) => parent.clone(),
                    _ => MessageId::new(e.tool_call_id.as_str()),
                };
                let mut message = AssistantMessage::new(id).with_tool_calls(Vec::new());
                message.subagent_run_id = e.subagent_run_id.clone();
                let p = self.push(Message::Assistant(message));
                (p, MessagesChange::Appended(p))
            }
        };
        let Message::Assistant(message) = &mut self.messages[position] else {
            unreachable!("the parent is an assistant message")
        };
        let calls = message.tool_calls.get_or_insert_with(Vec::new);
        let mut call = ToolCall::new(e.tool_call_id.clone(), e.tool_call_name.clone(), "");
        merge_metadata(&mut call.metadata, e.metadata.as_deref());
        calls.push(call);
        self.ix
            .add_tool_call(e.tool_call_id.clone(), position, calls.len() - 1);
        self.partial_args
            .insert(e.tool_call_id.clone(), PartialJson::new());
        Applied {
            warning,
            ..Applied::messages(change)
        }
    }

    fn tool_call_args(
        &mut self,
        id: &ToolCallId,
        delta: &str,
        e: &crate::ToolCallArgsEvent,
    ) -> Result<Applied, LimitExceeded> {
        let max = self.limits.max_tool_call_args_bytes();
        let Some((m, call)) = self.tool_call_mut(id.as_str()) else {
            return Ok(unknown_tool_call(id));
        };
        LimitExceeded::check(
            LimitKind::ToolCallArgsBytes,
            call.function.arguments.len().saturating_add(delta.len()),
            max,
        )?;
        call.function.arguments.push_str(delta);
        merge_metadata(&mut call.metadata, e.metadata.as_deref());
        if let Some(scanner) = self.partial_args.get_mut(id) {
            scanner.push(delta);
        }
        Ok(Applied::messages(MessagesChange::Updated(m)))
    }

    fn tool_call_end(&mut self, id: &ToolCallId, metadata: Option<&Metadata>) -> Applied {
        let Some((m, call)) = self.tool_call_mut(id.as_str()) else {
            return unknown_tool_call(id);
        };
        call.function.arguments.shrink_to_fit();
        let merged = merge_metadata(&mut call.metadata, metadata);
        self.partial_args.remove(id);
        Applied {
            new_tool_call: Some(id.clone()),
            ..Applied::updated_if(merged, m)
        }
    }

    fn tool_call_result(&mut self, e: &ToolCallResultEvent) -> Applied {
        self.answered.insert(e.tool_call_id.clone());
        let mut message = ToolMessage::new(
            e.message_id.clone(),
            e.tool_call_id.clone(),
            e.content.clone(),
        );
        message.subagent_run_id = e.subagent_run_id.clone();
        merge_metadata(&mut message.metadata, e.metadata.as_deref());
        let message = Message::Tool(message);
        match self.ix.tool_call(&e.tool_call_id) {
            Some((call_at, _)) => {
                let mut position = call_at + 1;
                while position < self.messages.len() && self.messages[position].role() == Role::Tool
                {
                    position += 1;
                }
                let appended = position == self.messages.len();
                self.insert(position, message);
                Applied {
                    new_message: Some(position),
                    ..Applied::messages(if appended {
                        MessagesChange::Appended(position)
                    } else {
                        MessagesChange::Inserted(position)
                    })
                }
            }
            None => {
                let position = self.push(message);
                Applied {
                    new_message: Some(position),
                    ..Applied::messages(MessagesChange::Appended(position))
                }
            }
        }
    }

    // ----- snapshots and activities ---------------------------------------------------------

    fn messages_snapshot(&mut self, e: &MessagesSnapshotEvent) -> Applied {
        let snapshot = &e.messages;
        // Last snapshot message per id wins for replacement (as a JS Map built from the list).
        let mut by_id: HashMap<&MessageId, &Message> = HashMap::with_capacity(snapshot.len());
        let mut has_activity = false;
        let mut has_reasoning = false;
        for message in snapshot {
            by_id.insert(message.id(), message);
            has_activity |= message.role() == Role::Activity;
            has_reasoning |= message.role() == Role::Reasoning;
        }
        let authority = activity_authority(e.metadata.as_deref());
        let keep_local = |message: &Message| match message {
            Message::Activity(a) => match &authority {
                Authority::Legacy => !has_activity,
                Authority::All => false,
                Authority::Types(types) => !types.iter().any(|t| *t == a.activity_type),
            },
            Message::Reasoning(_) => !has_reasoning,
            _ => false,
        };
        let old = std::mem::take(&mut self.messages);
        let mut next = Vec::with_capacity(old.len().max(snapshot.len()));
        let mut present: HashSet<MessageId> = HashSet::with_capacity(old.len());
        for message in old {
            if let Some(replacement) = by_id.get(message.id()) {
                present.insert(message.id().clone());
                next.push((*replacement).clone());
            } else if keep_local(&message) {
                present.insert(message.id().clone());
                next.push(message);
            }
        }
        for message in snapshot {
            if !present.contains(message.id()) {
                next.push(message.clone());
            }
        }
        self.messages = next;
        self.reindex();
        self.partial_args.clear();
        self.activity_sizes.clear();
        Applied::messages(MessagesChange::Replaced)
    }

    fn activity_snapshot(&mut self, e: &ActivitySnapshotEvent) -> Result<Applied, LimitExceeded> {
        let max = self.limits.max_document_bytes();
        let size = object_size(&e.content, max);
        LimitExceeded::check(LimitKind::ActivityBytes, size, max)?;
        let replace = e.replace.unwrap_or(true);
        let fresh = || {
            let mut m = ActivityMessage::new(
                e.message_id.clone(),
                e.activity_type.clone(),
                e.content.clone(),
            );
            m.subagent_run_id = e.subagent_run_id.clone();
            m
        };
        let (position, change, created) = match self.ix.message(&e.message_id) {
            None => {
                let p = self.push(Message::Activity(fresh()));
                (Some(p), MessagesChange::Appended(p), true)
            }
            Some(p) => match &mut self.messages[p] {
                Message::Activity(existing) => {
                    if replace {
                        existing.activity_type.clone_from(&e.activity_type);
                        existing.content.clone_from(&e.content);
                        existing.subagent_run_id.clone_from(&e.subagent_run_id);
                    }
                    (Some(p), MessagesChange::Updated(p), false)
                }
                other => {
                    if replace {
                        *other = Message::Activity(fresh());
                        (Some(p), MessagesChange::Updated(p), true)
                    } else {
                        (None, MessagesChange::Updated(p), false)
                    }
                }
            },
        };
        if let Some(p) = position {
            merge_metadata(self.messages[p].metadata_mut(), e.metadata.as_deref());
            if created || replace {
                self.activity_sizes.insert(e.message_id.clone(), size);
            }
        }
        Ok(Applied {
            new_message: position.filter(|_| created),
            ..Applied::messages(change)
        })
    }

    fn activity_delta(&mut self, e: &ActivityDeltaEvent) -> Result<Applied, LimitExceeded> {
        let Some(p) = self.ix.message(&e.message_id) else {
            return Ok(Applied::none());
        };
        let Message::Activity(activity) = &mut self.messages[p] else {
            return Ok(Applied {
                warning: Some(warn(
                    ApplyWarningKind::NotActivity,
                    format!(
                        "message {:?} is not an activity message",
                        e.message_id.as_str()
                    ),
                )),
                ..Applied::none()
            });
        };
        // Patched in place (the patch is undone as a whole if it fails); only a patch that
        // replaces the whole content, and so may make it a non-object, needs the old one kept.
        let mut content = Value::Object(std::mem::take(&mut activity.content));
        let estimate = self.activity_sizes.get(&e.message_id).copied();
        let (size, bound) = match check_patch(
            &self.limits,
            &content,
            &e.patch,
            estimate,
            LimitKind::ActivityBytes,
        ) {
            Ok(sizes) => sizes,
            Err(limit) => {
                if let Value::Object(object) = content {
                    activity.content = object;
                }
                return Err(limit);
            }
        };
        let merged = merge_metadata(&mut activity.metadata, e.metadata.as_deref());
        let kept = e
            .patch
            .iter()
            .any(|op| op.path().as_str().is_empty())
            .then(|| content.clone());
        let failure = match json_patch::patch(&mut content, &e.patch) {
            Ok(()) => match content {
                Value::Object(object) => {
                    activity.content = object;
                    activity.activity_type.clone_from(&e.activity_type);
                    self.activity_sizes.insert(e.message_id.clone(), bound);
                    return Ok(Applied::messages(MessagesChange::Updated(p)));
                }
                other => {
                    if let Some(Value::Object(object)) = kept {
                        activity.content = object;
                    }
                    format!("the patch would make the content {other}, not an object")
                }
            },
            Err(err) => {
                if let Value::Object(object) = content {
                    activity.content = object;
                }
                err.to_string()
            }
        };
        self.activity_sizes.insert(e.message_id.clone(), size);
        Ok(Applied {
            warning: Some(warn(
                ApplyWarningKind::ActivityPatchFailed,
                format!(
                    "activity patch for {:?} failed, content unchanged: {failure}",
                    e.message_id.as_str()
                ),
            )),
            ..Applied::updated_if(merged, p)
        })
    }

    // ----- run end --------------------------------------------------------------------------

    fn run_finished(&mut self, e: &RunFinishedEvent) {
        let outcome = match &e.outcome {
            Some(RunFinishedOutcome::Interrupt { interrupts }) => RunOutcome::Interrupt {
                interrupts: interrupts.clone(),
            },
            Some(RunFinishedOutcome::Cancelled) => RunOutcome::Cancelled,
            other => {
                let listed = match other {
                    Some(RunFinishedOutcome::Success {
                        pending_tool_call_ids: Some(ids),
                    }) if !ids.is_empty() => Some(ids.clone()),
                    _ => None,
                };
                let pending = listed.unwrap_or_else(|| {
                    self.run_tool_call_ids
                        .iter()
                        .filter(|id| !self.answered.contains(*id))
                        .cloned()
                        .collect()
                });
                if e.result.is_some() {
                    self.result.clone_from(&e.result);
                }
                RunOutcome::Success {
                    result: e.result.clone(),
                    pending_tool_call_ids: pending,
                }
            }
        };
        self.pending_interrupts = match &outcome {
            RunOutcome::Interrupt { interrupts } => interrupts.clone(),
            _ => Vec::new(),
        };
        self.outcome = Some(outcome);
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

/// Checks a patch of `doc` against the limits before it is applied. `estimate` is an upper
/// bound of the document's size if one is known; when it is stale enough to refuse, the document
/// is measured before refusing. Returns the size bound used and the bound after the patch.
fn check_patch(
    limits: &Limits,
    doc: &Value,
    ops: &[json_patch::PatchOperation],
    estimate: Option<usize>,
    kind: LimitKind,
) -> Result<(usize, usize), LimitExceeded> {
    let (max_size, max_growth) = (limits.max_document_bytes(), limits.max_growth_bytes());
    let (mut size, mut measured) = match estimate {
        Some(size) => (size, false),
        None => (json_size(doc, max_size), true),
    };
    loop {
        let budget = max_growth.min(max_size.saturating_sub(size));
        let growth = patch_growth(doc, ops, size, budget);
        if growth <= budget {
            return Ok((size, size + growth));
        }
        if !measured {
            // The estimate only grows; what the document really holds may leave room.
            size = json_size(doc, max_size);
            measured = true;
            continue;
        }
        return Err(if growth > max_growth {
            LimitExceeded::new(LimitKind::GrowthBytes, growth, max_growth)
        } else {
            LimitExceeded::new(kind, size.saturating_add(growth), max_size)
        });
    }
}

/// The estimated JSON size of an object (an activity's content).
fn object_size(object: &serde_json::Map<String, Value>, budget: usize) -> usize {
    let mut total = 2usize;
    for (key, value) in object {
        total += key.len() + 4 + json_size(value, budget.saturating_sub(total));
        if total > budget {
            break;
        }
    }
    total
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
