//! The state machine behind [`Verifier`](super::Verifier).
//!
//! Everything here is per run and cleared by a `RUN_STARTED` that follows a finished or failed
//! run (R5). Open entities and owners of one kind share one table, keyed by id: an entry's
//! owner outlives the entity's close (owners persist for the run), and its `open` field is the
//! sequence number of the opener while the entity is open, so the `RUN_FINISHED` report can
//! list open ids in the order they were opened without keeping a second structure.

use std::borrow::Cow;

use crate::{
    Event, EventType, Message, ReasoningEncryptedValueSubtype, Role, SubagentRunId,
    TextMessageRole, ToolCallId,
};

mod emission;
mod entities;

use emission::Emission;

use super::OpenEntities;
use super::violation::{Violation, ViolationKind};
use crate::lanes::{Fields, LaneKind, Map};

/// An owner: `0` is the parent agent, `n > 0` the `n`-th subagent run id seen in this run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct Owner(u32);

impl Owner {
    const PARENT: Owner = Owner(0);
    /// A subagent run id not interned yet: no entity or lane has it as owner.
    const UNSEEN: Owner = Owner(u32::MAX);
}

/// Interned subagent run ids, so owners compare as integers and are stored without a string
/// per entity.
#[derive(Clone, Debug, Default)]
struct Owners {
    names: Vec<Box<str>>,
    index: Map<Box<str>, u32>,
}

impl Owners {
    fn intern(&mut self, tag: Option<&str>) -> Owner {
        let Some(tag) = tag else {
            return Owner::PARENT;
        };
        if let Some(&n) = self.index.get(tag) {
            return Owner(n);
        }
        self.names.push(tag.into());
        let n = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.index.insert(tag.into(), n);
        Owner(n)
    }

    fn find(&self, tag: Option<&str>) -> Option<Owner> {
        match tag {
            None => Some(Owner::PARENT),
            Some(tag) => self.index.get(tag).map(|&n| Owner(n)),
        }
    }

    fn name(&self, owner: Owner) -> Option<&str> {
        match owner.0 {
            0 => None,
            n => self.names.get(n as usize - 1).map(|s| &**s),
        }
    }

    /// Whether an event tagged `tag` disagrees with `owner`. An untagged event never does.
    fn disagrees(&self, tag: Option<&str>, owner: Owner) -> bool {
        tag.is_some() && self.find(tag) != Some(owner)
    }

    fn label(&self, owner: Owner) -> String {
        tag_label(self.name(owner))
    }

    fn clear(&mut self) {
        self.names.clear();
        self.index.clear();
    }
}

fn tag_label(tag: Option<&str>) -> String {
    match tag {
        None => "the parent agent".to_owned(),
        Some(tag) => format!("subagent {}", show(tag)),
    }
}

/// An id as it appears in messages: verbatim (a bounded excerpt of a long one), or `""` when
/// empty.
fn show(id: &str) -> Cow<'_, str> {
    if id.is_empty() {
        Cow::Borrowed("\"\"")
    } else {
        crate::excerpt(id, crate::EXCERPT_BYTES)
    }
}

/// A text message or tool-result message (`message` table) or a tool call (`toolCall` table).
#[derive(Clone, Debug)]
struct Entry {
    owner: Owner,
    open: Option<u64>,
}

/// A reasoning id: the span and the reasoning message share the owner.
#[derive(Clone, Debug)]
struct ReasoningEntry {
    owner: Owner,
    span: Option<u64>,
    message: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Subagent {
    Active(u64),
    Closed,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Phase {
    /// Nothing seen yet.
    #[default]
    Start,
    /// Inside a run.
    Active,
    /// After `RUN_FINISHED`.
    Finished,
    /// After `RUN_ERROR`.
    Errored,
}

/// The most recently continued open entity of one kind and its owner: streams send runs of
/// content events for one id, and a string compare is cheaper than a hash lookup. Valid only
/// while that entity is open with that owner; every event that could change either forgets it.
#[derive(Clone, Debug, Default)]
struct Recent {
    id: String,
    owner: Owner,
    valid: bool,
}

impl Recent {
    fn get(&self, id: &str) -> Option<Owner> {
        // A byte loop the compiler inlines: ids are short, and this runs once per event.
        let same =
            self.id.len() == id.len() && self.id.bytes().zip(id.bytes()).all(|(a, b)| a == b);
        (self.valid && same).then_some(self.owner)
    }

    fn set(&mut self, id: &str, owner: Owner) {
        self.id.clear();
        self.id.push_str(id);
        self.owner = owner;
        self.valid = true;
    }

    fn forget(&mut self, id: &str) {
        if self.id == id {
            self.valid = false;
        }
    }

    fn clear(&mut self) {
        self.valid = false;
    }
}

/// A rule failed; turned into a [`Violation`] with the index and type by the caller.
#[derive(Debug)]
pub(super) struct Fail {
    kind: ViolationKind,
    ids: Vec<String>,
    message: String,
}

impl Fail {
    pub(super) fn new(kind: ViolationKind, ids: Vec<String>, message: String) -> Self {
        Self { kind, ids, message }
    }

    pub(super) fn into_violation(self, index: usize, event_type: EventType) -> Violation {
        Violation::new(self.kind, index, event_type, self.ids, self.message)
    }
}

type Check = Result<(), Fail>;

/// The verifier's state.
#[derive(Clone, Debug, Default)]
pub(super) struct Engine {
    phase: Phase,
    seq: u64,
    owners: Owners,
    messages: Map<Box<str>, Entry>,
    tool_calls: Map<Box<str>, Entry>,
    reasoning: Map<Box<str>, ReasoningEntry>,
    activities: Map<Box<str>, Owner>,
    /// Open steps: name → the owners that have it open (with the opener's sequence number).
    steps: Map<Box<str>, Vec<(Owner, u64)>>,
    subagents: Map<Box<str>, Subagent>,
    open_text: usize,
    open_tools: usize,
    open_spans: usize,
    open_reasoning_messages: usize,
    open_steps: usize,
    active_subagents: usize,
    emission: Option<Emission>,
    recent_text: Recent,
    recent_tool: Recent,
    recent_reasoning: Recent,
    /// The stream's thread: the first `RUN_STARTED`'s (D2; kept across runs).
    thread: Option<Box<str>>,
    /// The run in progress or last ended: its `RUN_STARTED`'s id (D1).
    run: Option<Box<str>>,
}

fn tag_of(tag: &Option<SubagentRunId>) -> Option<&str> {
    tag.as_ref().map(SubagentRunId::as_str)
}

impl Engine {
    pub(super) fn new(emission: bool) -> Self {
        Self {
            emission: emission.then(Emission::default),
            ..Self::default()
        }
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// R5: a new run empties every table.
    fn reset(&mut self) {
        self.owners.clear();
        self.messages.clear();
        self.tool_calls.clear();
        self.reasoning.clear();
        self.activities.clear();
        self.steps.clear();
        self.subagents.clear();
        self.open_text = 0;
        self.open_tools = 0;
        self.open_spans = 0;
        self.open_reasoning_messages = 0;
        self.open_steps = 0;
        self.active_subagents = 0;
        self.forget_recent();
        if let Some(emission) = &mut self.emission {
            emission.clear();
        }
    }

    fn forget_recent(&mut self) {
        self.recent_text.clear();
        self.recent_tool.clear();
        self.recent_reasoning.clear();
    }

    /// Applies `event`. On failure nothing has changed.
    #[inline]
    pub(super) fn step(&mut self, event: &Event) -> Check {
        // Fast path for the bulk of a stream: an untagged content event continuing the most
        // recent open message, tool call or reasoning message. It concludes exactly what the
        // full path below does.
        if self.phase == Phase::Active {
            let hit = match event {
                Event::TextMessageContent(e) if e.subagent_run_id.is_none() => {
                    self.recent_text.get(e.message_id.as_str()).is_some()
                }
                Event::ToolCallArgs(e) if e.subagent_run_id.is_none() => {
                    self.recent_tool.get(e.tool_call_id.as_str()).is_some()
                }
                Event::ReasoningMessageContent(e) if e.subagent_run_id.is_none() => {
                    self.recent_reasoning.get(e.message_id.as_str()).is_some()
                }
                _ => false,
            };
            if hit && self.emission.as_ref().is_none_or(|e| e.lanes.is_empty()) {
                return Ok(());
            }
        }
        self.step_slow(event)
    }

    fn step_slow(&mut self, event: &Event) -> Check {
        self.gate(event)?;
        match event {
            Event::RunStarted(e) => self.run_started(e)?,
            Event::RunError(_) => {
                self.phase = Phase::Errored;
            }
            Event::RunFinished(e) => {
                self.identity(e.thread_id.as_str(), e.run_id.as_str())?;
                if let Some(crate::RunFinishedOutcome::Interrupt { interrupts }) = &e.outcome {
                    unique_interrupts(interrupts)?;
                }
                self.closure()?;
                self.phase = Phase::Finished;
            }
            Event::MessagesSnapshot(e) => {
                self.seed(&e.messages, true);
            }
            Event::TextMessageStart(e) => {
                self.text_start(e.message_id.as_str(), tag_of(&e.subagent_run_id))?
            }
            Event::TextMessageContent(e) => self.text_continue(
                EventType::TextMessageContent,
                e.message_id.as_str(),
                tag_of(&e.subagent_run_id),
                false,
            )?,
            Event::TextMessageEnd(e) => self.text_continue(
                EventType::TextMessageEnd,
                e.message_id.as_str(),
                tag_of(&e.subagent_run_id),
                true,
            )?,
            Event::ToolCallStart(e) => self.tool_start(
                e.tool_call_id.as_str(),
                e.parent_message_id.as_ref().map(|p| p.as_str()),
                tag_of(&e.subagent_run_id),
            )?,
            Event::ToolCallArgs(e) => self.tool_continue(
                EventType::ToolCallArgs,
                e.tool_call_id.as_str(),
                tag_of(&e.subagent_run_id),
                false,
            )?,
            Event::ToolCallEnd(e) => self.tool_continue(
                EventType::ToolCallEnd,
                e.tool_call_id.as_str(),
                tag_of(&e.subagent_run_id),
                true,
            )?,
            Event::ToolCallResult(e) => self.tool_call_result(e)?,
            Event::ReasoningStart(e) => self.reasoning_start(
                EventType::ReasoningStart,
                e.message_id.as_str(),
                tag_of(&e.subagent_run_id),
            )?,
            Event::ReasoningMessageStart(e) => self.reasoning_start(
                EventType::ReasoningMessageStart,
                e.message_id.as_str(),
                tag_of(&e.subagent_run_id),
            )?,
            Event::ReasoningMessageContent(e) => self.reasoning_continue(
                EventType::ReasoningMessageContent,
                e.message_id.as_str(),
                tag_of(&e.subagent_run_id),
            )?,
            Event::ReasoningMessageEnd(e) => self.reasoning_continue(
                EventType::ReasoningMessageEnd,
                e.message_id.as_str(),
                tag_of(&e.subagent_run_id),
            )?,
            Event::ReasoningEnd(e) => self.reasoning_continue(
                EventType::ReasoningEnd,
                e.message_id.as_str(),
                tag_of(&e.subagent_run_id),
            )?,
            Event::ReasoningEncryptedValue(e) => self.encrypted_value(e)?,
            Event::ActivitySnapshot(e) => self.activity_snapshot(e),
            Event::ActivityDelta(e) => self.activity_delta(e)?,
            Event::StepStarted(e) => {
                self.step_started(e.step_name.as_str(), tag_of(&e.subagent_run_id))?
            }
            Event::StepFinished(e) => {
                self.step_finished(e.step_name.as_str(), tag_of(&e.subagent_run_id))?
            }
            Event::SubagentStarted(e) => self.subagent_started(
                e.subagent_run_id.as_str(),
                e.parent_subagent_run_id.as_ref().map(|p| p.as_str()),
            )?,
            Event::SubagentFinished(e) => {
                self.subagent_ended(EventType::SubagentFinished, e.subagent_run_id.as_str())?
            }
            Event::SubagentError(e) => {
                self.subagent_ended(EventType::SubagentError, e.subagent_run_id.as_str())?
            }
            Event::StateSnapshot(_) | Event::StateDelta(_) | Event::Custom(_) | Event::Raw(_) => {}
            Event::TextMessageChunk(e) if self.emission.is_some() => {
                self.chunk(
                    LaneKind::Text,
                    e.message_id.as_ref().map(|m| m.as_str()),
                    tag_of(&e.subagent_run_id),
                    Fields {
                        role: e.role,
                        name: e.name.as_deref(),
                        parent: None,
                    },
                )?;
            }
            Event::ToolCallChunk(e) if self.emission.is_some() => {
                self.chunk(
                    LaneKind::Tool,
                    e.tool_call_id.as_ref().map(ToolCallId::as_str),
                    tag_of(&e.subagent_run_id),
                    Fields {
                        role: None,
                        name: e.tool_call_name.as_deref(),
                        parent: e.parent_message_id.as_ref().map(|p| p.as_str()),
                    },
                )?;
            }
            Event::ReasoningMessageChunk(e) if self.emission.is_some() => {
                self.chunk(
                    LaneKind::Reasoning,
                    e.message_id.as_ref().map(|m| m.as_str()),
                    tag_of(&e.subagent_run_id),
                    Fields::default(),
                )?;
            }
            // `Event` is non-exhaustive within the crate too only by attribute; every 1.0
            // event is handled above.
            #[allow(unreachable_patterns)]
            _ => {}
        }
        // Emission mode: the chunk lanes the accepted event closes, as the normalizer would.
        self.close_lanes(event);
        Ok(())
    }

    /// `RUN_STARTED`: a new run on the same thread; a finished one is forgotten first.
    fn run_started(&mut self, e: &crate::RunStartedEvent) -> Check {
        self.same_thread(e.thread_id.as_str())?;
        if matches!(self.phase, Phase::Finished | Phase::Errored) {
            self.reset();
        }
        self.phase = Phase::Active;
        if self.thread.is_none() {
            self.thread = Some(e.thread_id.as_str().into());
        }
        self.run = Some(e.run_id.as_str().into());
        if let Some(input) = &e.input {
            self.seed(&input.messages, false);
        }
        Ok(())
    }

    /// `TOOL_CALL_RESULT`: never rejected (R24) but in emission mode; records the minted
    /// message's owner (last writer wins).
    fn tool_call_result(&mut self, e: &crate::ToolCallResultEvent) -> Check {
        // R24: never rejected; records the minted message's owner (last writer wins).
        let tag = tag_of(&e.subagent_run_id);
        let owner = self.owners.intern(tag);
        let id = e.message_id.as_str();
        // Emission mode: re-owning a message whose chunk stream is pending in another
        // lane would make the END the client synthesizes for it disagree.
        if let Some(lane_owner) = self
            .streaming_owner(LaneKind::Text, id)
            .filter(|o| *o != owner)
        {
            return Err(Fail::new(
                ViolationKind::OwnerMismatch,
                vec![id.to_owned(), tag.unwrap_or_default().to_owned()],
                format!(
                    "TOOL_CALL_RESULT from {} re-owns message {} while {} is still streaming it as chunks: the TEXT_MESSAGE_END that closes the chunk stream would disagree",
                    tag_label(tag),
                    show(id),
                    self.owners.label(lane_owner)
                ),
            ));
        }
        self.recent_text.forget(id);
        match self.messages.get_mut(id) {
            Some(entry) => entry.owner = owner,
            None => {
                self.messages.insert(id.into(), Entry { owner, open: None });
            }
        }
        Ok(())
    }

    /// `REASONING_ENCRYPTED_VALUE` (R31): an ownership check only; opens and closes nothing.
    fn encrypted_value(&self, e: &crate::ReasoningEncryptedValueEvent) -> Check {
        // R31: an ownership check only; opens and closes nothing.
        let id = e.entity_id.as_str();
        let tag = tag_of(&e.subagent_run_id);
        let (owner, label) = match e.subtype {
            ReasoningEncryptedValueSubtype::ToolCall => {
                (self.tool_calls.get(id).map(|x| x.owner), "tool call")
            }
            ReasoningEncryptedValueSubtype::Message => (
                self.messages
                    .get(id)
                    .map(|x| x.owner)
                    .or_else(|| self.reasoning.get(id).map(|x| x.owner)),
                "message",
            ),
        };
        if let Some(owner) = owner {
            self.check_owner(EventType::ReasoningEncryptedValue, label, id, owner, tag)?;
        }
        Ok(())
    }

    /// `ACTIVITY_SNAPSHOT` (R48): records the owner when new or replacing.
    fn activity_snapshot(&mut self, e: &crate::ActivitySnapshotEvent) {
        // R48: records the owner when new or replacing.
        let id = e.message_id.as_str();
        let owner = self.owners.intern(tag_of(&e.subagent_run_id));
        match self.activities.get_mut(id) {
            Some(recorded) => {
                if e.replace != Some(false) {
                    *recorded = owner;
                }
            }
            None => {
                self.activities.insert(id.into(), owner);
            }
        }
    }

    /// `ACTIVITY_DELTA` (R49): from the activity's owner.
    fn activity_delta(&self, e: &crate::ActivityDeltaEvent) -> Check {
        // R49.
        let id = e.message_id.as_str();
        if let Some(&owner) = self.activities.get(id) {
            self.check_owner(
                EventType::ActivityDelta,
                "activity",
                id,
                owner,
                tag_of(&e.subagent_run_id),
            )?;
        }
        Ok(())
    }

    /// R1–R4, in the reference's order.
    fn gate(&self, event: &Event) -> Check {
        self.gate_type(event.event_type())
    }

    /// The run-level gates (R2, R3, R1, R4), which depend on the event's type alone: the first
    /// checks of every event, before any of its fields.
    pub(super) fn gate_type(&self, ty: EventType) -> Check {
        let is_start = ty == EventType::RunStarted;
        let is_error = ty == EventType::RunError;
        match self.phase {
            Phase::Errored if !is_start => Err(Fail::new(
                ViolationKind::RunAfterError,
                Vec::new(),
                format!(
                    "{ty} after RUN_ERROR: the run has failed, only a new RUN_STARTED may follow"
                ),
            )),
            Phase::Finished if !is_start && !is_error => Err(Fail::new(
                ViolationKind::RunAfterFinished,
                Vec::new(),
                format!(
                    "{ty} after RUN_FINISHED: the run is over, start a new one with RUN_STARTED"
                ),
            )),
            Phase::Start if !is_start && !is_error => Err(Fail::new(
                ViolationKind::RunFirstEvent,
                Vec::new(),
                format!(
                    "the stream starts with {ty}: the first event must be RUN_STARTED (or RUN_ERROR)"
                ),
            )),
            Phase::Active if is_start => Err(Fail::new(
                ViolationKind::RunAlreadyActive,
                Vec::new(),
                "RUN_STARTED while a run is active: finish it with RUN_FINISHED or RUN_ERROR first"
                    .to_owned(),
            )),
            _ => Ok(()),
        }
    }

    /// D2 at a `RUN_STARTED`: the stream's runs are on one thread.
    fn same_thread(&self, thread: &str) -> Check {
        match &self.thread {
            Some(first) if &**first != thread => Err(Fail::new(
                ViolationKind::RunThreadMismatch,
                vec![thread.to_owned(), first.to_string()],
                format!(
                    "RUN_STARTED on thread {}, but this stream belongs to thread {}: every run of one stream is on one thread",
                    show(thread),
                    show(first)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// D1 and D2 at a `RUN_FINISHED`: it names the run it closes and that run's thread.
    fn identity(&self, thread: &str, run: &str) -> Check {
        if let Some(open) = &self.run
            && &**open != run
        {
            return Err(Fail::new(
                ViolationKind::RunIdMismatch,
                vec![run.to_owned(), open.to_string()],
                format!(
                    "RUN_FINISHED names run {} but the run in progress is {}: a run's RUN_STARTED and RUN_FINISHED must agree on their runId",
                    show(run),
                    show(open)
                ),
            ));
        }
        match &self.thread {
            Some(first) if &**first != thread => Err(Fail::new(
                ViolationKind::RunThreadMismatch,
                vec![thread.to_owned(), first.to_string()],
                format!(
                    "RUN_FINISHED names thread {} but its run started on thread {}: a run's boundary events carry the input's threadId",
                    show(thread),
                    show(first)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// R37 (authoritative) and R38 (first writer wins).
    fn seed(&mut self, messages: &[Message], authoritative: bool) {
        self.forget_recent();
        for message in messages {
            let owner = self
                .owners
                .intern(message.subagent_run_id().map(|s| s.as_str()));
            let id = message.id().as_str();
            match message.role() {
                Role::Reasoning => match self.reasoning.get_mut(id) {
                    Some(entry) => {
                        if authoritative {
                            entry.owner = owner;
                        }
                    }
                    None => {
                        self.reasoning.insert(
                            id.into(),
                            ReasoningEntry {
                                owner,
                                span: None,
                                message: None,
                            },
                        );
                    }
                },
                Role::Activity => match self.activities.get_mut(id) {
                    Some(recorded) => {
                        if authoritative {
                            *recorded = owner;
                        }
                    }
                    None => {
                        self.activities.insert(id.into(), owner);
                    }
                },
                _ => seed_entry(&mut self.messages, id, owner, authoritative),
            }
            if let Message::Assistant(assistant) = message {
                for call in assistant.tool_calls.iter().flatten() {
                    seed_entry(&mut self.tool_calls, call.id.as_str(), owner, authoritative);
                }
            }
        }
    }

    /// R7–R12, in that order; the report lists every open id of the first failing category.
    fn closure(&self) -> Check {
        if self.open_steps > 0 {
            let mut open: Vec<(u64, String, String)> = Vec::new();
            for (name, owners) in &self.steps {
                for &(owner, seq) in owners {
                    let label = match self.owners.name(owner) {
                        None => show(name).into_owned(),
                        Some(sub) => format!("{} (subagent {})", show(name), show(sub)),
                    };
                    open.push((seq, name.to_string(), label));
                }
            }
            open.sort_unstable_by_key(|x| x.0);
            let labels = crate::excerpt_list(open.iter().map(|x| &x.2));
            return Err(Fail::new(
                ViolationKind::RunUnclosedSteps,
                open.into_iter().map(|x| x.1).collect(),
                format!("RUN_FINISHED while steps are still open: {labels}"),
            ));
        }
        if self.open_text > 0 {
            return Err(unclosed(
                ViolationKind::RunUnclosedTextMessages,
                "text messages",
                self.messages
                    .iter()
                    .filter_map(|(id, e)| e.open.map(|s| (s, id))),
            ));
        }
        if self.open_reasoning_messages > 0 {
            return Err(unclosed(
                ViolationKind::RunUnclosedReasoningMessages,
                "reasoning messages",
                self.reasoning
                    .iter()
                    .filter_map(|(id, e)| e.message.map(|s| (s, id))),
            ));
        }
        if self.open_spans > 0 {
            return Err(unclosed(
                ViolationKind::RunUnclosedReasoningSpans,
                "reasoning spans",
                self.reasoning
                    .iter()
                    .filter_map(|(id, e)| e.span.map(|s| (s, id))),
            ));
        }
        if self.open_tools > 0 {
            return Err(unclosed(
                ViolationKind::RunUnclosedToolCalls,
                "tool calls",
                self.tool_calls
                    .iter()
                    .filter_map(|(id, e)| e.open.map(|s| (s, id))),
            ));
        }
        if self.active_subagents > 0 {
            return Err(unclosed(
                ViolationKind::RunUnclosedSubagents,
                "subagents",
                self.subagents.iter().filter_map(|(id, s)| match s {
                    Subagent::Active(seq) => Some((*seq, id)),
                    Subagent::Closed => None,
                }),
            ));
        }
        Ok(())
    }

    /// Whether a run is in progress: `RUN_STARTED` seen and not yet ended.
    pub(super) fn in_run(&self) -> bool {
        self.phase == Phase::Active
    }

    /// Whether any event was accepted since the verifier was made.
    pub(super) fn started(&self) -> bool {
        self.phase != Phase::Start
    }

    /// Everything the current run has open, each category in opening order.
    pub(super) fn open(&self) -> OpenEntities {
        fn ordered(open: impl Iterator<Item = (u64, String)>) -> Vec<String> {
            let mut open: Vec<(u64, String)> = open.collect();
            open.sort_unstable_by_key(|x| x.0);
            open.into_iter().map(|x| x.1).collect()
        }
        let mut result = OpenEntities::default();
        if self.phase != Phase::Active {
            return result;
        }
        result.steps = ordered(self.steps.iter().flat_map(|(name, owners)| {
            owners.iter().map(move |&(owner, seq)| {
                let label = match self.owners.name(owner) {
                    None => name.to_string(),
                    Some(sub) => format!("{name} (subagent {sub})"),
                };
                (seq, label)
            })
        }));
        let entries = |table: &Map<Box<str>, Entry>| {
            ordered(
                table
                    .iter()
                    .filter_map(|(id, e)| e.open.map(|s| (s, id.to_string()))),
            )
        };
        result.text_messages = entries(&self.messages);
        result.tool_calls = entries(&self.tool_calls);
        result.reasoning_messages = ordered(
            self.reasoning
                .iter()
                .filter_map(|(id, e)| e.message.map(|s| (s, id.to_string()))),
        );
        result.reasoning_spans = ordered(
            self.reasoning
                .iter()
                .filter_map(|(id, e)| e.span.map(|s| (s, id.to_string()))),
        );
        result.subagents = ordered(self.subagents.iter().filter_map(|(id, s)| match s {
            Subagent::Active(seq) => Some((*seq, id.to_string())),
            Subagent::Closed => None,
        }));
        result
    }
}

/// D3: the interrupts of one outcome carry distinct ids.
fn unique_interrupts(interrupts: &[crate::Interrupt]) -> Check {
    if interrupts.len() < 2 {
        return Ok(());
    }
    let mut ids: Vec<&str> = interrupts.iter().map(|i| i.id.as_str()).collect();
    ids.sort_unstable();
    match ids.windows(2).find(|pair| pair[0] == pair[1]) {
        Some(pair) => Err(Fail::new(
            ViolationKind::InterruptDuplicateId,
            vec![pair[0].to_owned()],
            format!(
                "RUN_FINISHED's interrupt outcome holds two interrupts carrying the id {}: a resume entry answers an interrupt by its id, so one answer would cover both",
                show(pair[0])
            ),
        )),
        None => Ok(()),
    }
}

fn seed_entry(table: &mut Map<Box<str>, Entry>, id: &str, owner: Owner, authoritative: bool) {
    match table.get_mut(id) {
        Some(entry) => {
            if authoritative {
                entry.owner = owner;
            }
        }
        None => {
            table.insert(id.into(), Entry { owner, open: None });
        }
    }
}

fn unclosed<'a>(
    kind: ViolationKind,
    what: &str,
    open: impl Iterator<Item = (u64, &'a Box<str>)>,
) -> Fail {
    let mut open: Vec<(u64, &Box<str>)> = open.collect();
    open.sort_unstable_by_key(|x| x.0);
    let ids: Vec<String> = open.iter().map(|x| x.1.to_string()).collect();
    let shown = crate::excerpt_list(open.iter().map(|x| show(x.1)));
    Fail::new(
        kind,
        ids,
        format!("RUN_FINISHED while {what} are still open: {shown}"),
    )
}

#[cfg(test)]
mod tests;
