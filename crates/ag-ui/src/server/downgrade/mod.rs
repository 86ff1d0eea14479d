//! The version downgrade: a 1.0 event stream rewritten into what a pre-1.0 client can read.
//!
//! A client declares the protocol it speaks in `RunAgentInput.protocolVersion`; a request
//! without one comes from a client written before versioning, i.e. from an `@ag-ui/client`
//! 0.0.x. Those clients validate every event against their own, older schema and fail the whole
//! run at the first event it rejects (the first `REASONING_START`, for 0.0.42: "invalid
//! discriminator value"). [`needs_downgrade`] decides from the declared version, and a
//! [`Downgrade`] rewrites the stream event by event into [`LegacyFrame`]s: the events an old
//! client accepts, and the `THINKING_*` frames that stand for reasoning (they are not 1.0
//! events, so they are written as JSON frames of their own). `ag_ui::axum` applies it on its
//! own to every request that needs it; a 1.0 client's stream is not touched.
//!
//! ```
//! use ag_ui::server::downgrade::{needs_downgrade, Downgrade, LegacyFrame};
//! use ag_ui::Event;
//!
//! assert!(needs_downgrade(None));
//! assert!(needs_downgrade(Some("0.9")));
//! assert!(!needs_downgrade(Some("1.0")));
//!
//! let mut downgrade = Downgrade::new();
//! let mut frames = Vec::new();
//! for event in [
//!     Event::run_started("t", "r"),
//!     Event::reasoning_start("s1"),
//!     Event::reasoning_message_start("m1"),
//!     Event::reasoning_message_content("m1", "hmm"),
//!     Event::reasoning_message_end("m1"),
//!     Event::reasoning_end("s1"),
//!     Event::subagent_started("sub-1", "critic"),
//!     Event::run_finished("t", "r"),
//! ] {
//!     downgrade.push(event, &mut frames);
//! }
//! let names: Vec<&str> = frames.iter().map(LegacyFrame::type_name).collect();
//! assert_eq!(
//!     names,
//!     [
//!         "RUN_STARTED",
//!         "THINKING_START",
//!         "THINKING_TEXT_MESSAGE_START",
//!         "THINKING_TEXT_MESSAGE_CONTENT",
//!         "THINKING_TEXT_MESSAGE_END",
//!         "THINKING_END",
//!         "RUN_FINISHED",
//!     ]
//! );
//! let mut json = Vec::new();
//! frames[3].write_json(&mut json);
//! assert_eq!(json, br#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"hmm"}"#);
//! ```
//!
//! ## Who is downgraded
//!
//! | `protocolVersion` | treated as |
//! |---|---|
//! | absent | a pre-1.0 client: downgraded |
//! | numeric and below 1.0 (`"0.9"`, `"0.0.42"`) | a pre-1.0 client: downgraded |
//! | `"1.0"` or a later numeric version | untouched, byte for byte |
//! | anything else (`"next"`) | untouched: the protocol reads a version outside its grammar as a newer one |
//!
//! **A 1.0 caller must send `protocolVersion`** (`"1.0"`), as the protocol asks: without it the
//! request is taken for a pre-1.0 client's. This crate's `HttpAgent` and `@ag-ui/client` 1.0
//! send it; a caller that omits it — a Python 1.0 client posting its own `RunAgentInput`, for
//! instance — gets `THINKING_*` frames for reasoning, which its own 1.0 models reject.
//!
//! ## Which clients, and what each accepts
//!
//! The pre-1.0 clients in use are `@ag-ui/client` 0.0.x, and none of them sends a version, so
//! the server cannot tell them apart: the one downgraded stream must be accepted by every one
//! of them, while holding as much as the most tolerant can read. The rules below were read
//! from the zod schemas and verifiers of 0.0.42, 0.0.52 and 0.0.59 (0.0.59 is what
//! `@copilotkit/runtime` 1.75 uses) and are checked by running each against the demo agent
//! (`crates/ag-ui-cli/tests/cli/serve.rs`, `interop/client/old_clients.mjs`):
//!
//! | | 0.0.42 | 0.0.52 | 0.0.59 |
//! |---|---|---|---|
//! | `REASONING_*` | rejected (unknown type) | read | read, as reasoning messages |
//! | `THINKING_*` | read (no messages kept) | read (no messages kept) | read (no messages kept) |
//! | `SUBAGENT_*` | rejected | rejected | read |
//! | `subagentRunId` on events and messages | stripped (`z.object`) | kept, ignored (`.passthrough()`) | read: messages keep their attribution |
//! | `RUN_FINISHED.outcome` | stripped: every run reads as a success | kept, ignored: the same | read: `success` and `interrupt` only, each `.strict()` (`pendingToolCallIds` or `cancelled` fail the run) |
//! | `RUN_STARTED.input.resume` | stripped | stripped | read |
//! | role `reasoning` in messages | rejected | read | read |
//! | media content parts in user messages | rejected (text and legacy `binary` only) | read | read |
//! | content parts in tool messages and `TOOL_CALL_RESULT` | rejected (a string) | rejected | rejected |
//! | an empty `TEXT_MESSAGE_CONTENT.delta` | rejected | read | read |
//! | two steps of one name open at once (two subagents') | rejected (steps are global) | rejected | read (per owner) |
//!
//! An unknown event type, role or field shape fails the whole run; an unknown field is only
//! stripped (or passed through), so the downgrade removes what some client rejects and keeps
//! what all of them tolerate.
//!
//! ## What changes, and what is lost
//!
//! | 1.0 | sent to a pre-1.0 client | lossy? |
//! |---|---|---|
//! | `REASONING_START` / `REASONING_END` | `THINKING_START` / `THINKING_END` (span id dropped) | ids are lost; no pre-1.0 client keeps `THINKING_*` as messages, so 0.0.52 and 0.0.59, which could read `REASONING_*`, see the reasoning as events only (0.0.42 rejects `REASONING_*`) |
//! | `REASONING_MESSAGE_START` / `_CONTENT` / `_END` | `THINKING_TEXT_MESSAGE_START` / `_CONTENT` / `_END`; a message outside a span gets a `THINKING_START` … `THINKING_END` of its own | ids are lost |
//! | `REASONING_MESSAGE_CHUNK` | one whole thinking message per chunk | a chunked reasoning message arrives as several thinking messages |
//! | reasoning of two owners at once (a subagent beside its parent) | serialized: the first owner's reasoning streams live, the others' is held and sent when it ends, at most [`DEFAULT_MAX_HELD`] events in all ([`Downgrade::with_max_held`]); beyond that an owner's held reasoning is dropped whole ([`Downgrade::dropped`]) | the order between reasoning and other events; reasoning past the bound |
//! | `REASONING_ENCRYPTED_VALUE` | dropped | yes: 0.0.42 has no such event |
//! | an empty `delta` on `TEXT_MESSAGE_CONTENT` or `THINKING_TEXT_MESSAGE_CONTENT` | the event is dropped (0.0.42 rejects an empty delta) | no: an empty delta adds nothing |
//! | `SUBAGENT_STARTED` / `_FINISHED` / `_ERROR` | dropped (0.0.42 and 0.0.52 reject them) | yes: which subagent ran, its name, result and error |
//! | `subagentRunId` on events, messages and interrupts | **kept** | no for 0.0.59, whose messages keep their attribution; the older two drop it themselves |
//! | `STEP_STARTED` / `STEP_FINISHED` of a subagent | dropped (steps are per owner in 1.0 and global before 0.0.59, so two subagents' steps of one name would collide) | yes: subagents' steps |
//! | `RUN_FINISHED` with an interrupt outcome | **the outcome is kept**, and an assistant message [`interrupt_notice`] (id `{runId}-interrupt`) comes before it | 0.0.59 reads the interrupt (pending interrupts, `resume` on the next run) and shows the notice too; 0.0.42 and 0.0.52 cannot represent an interrupt, and see the pause as that message instead of a plain success |
//! | `RUN_FINISHED.outcome` success with `pendingToolCallIds` | `{"type": "success"}` | the pending tool call ids (0.0.59's strict schema rejects them) |
//! | `RUN_FINISHED.outcome` cancelled | removed | yes: a cancellation reads as success (0.0.59 rejects `cancelled`) |
//! | media parts in user messages (`MESSAGES_SNAPSHOT`, `RUN_STARTED.input`) | the message's content flattened to its text (its text parts joined with newlines, `Content::flatten`) | yes: images, audio, video, documents (0.0.42 rejects them; a legacy `binary` part would carry a URL or data to all three, and is not written yet) |
//! | content parts of tool messages and `TOOL_CALL_RESULT.content` | flattened to their text | yes: media |
//! | `reasoning` messages in `MESSAGES_SNAPSHOT` and `RUN_STARTED.input` | dropped | yes: 0.0.42 rejects the role |
//! | a run cut off with reasoning open | the thinking message and span are closed before the stream ends | no |
//! | `TEXT_MESSAGE_CHUNK` / `TOOL_CALL_CHUNK` | passed as they are (an empty chunk `delta` left out) | not lossy, but a pre-1.0 client ends a chunk stream at the next event of any other kind, where 1.0 keeps one lane per owner: chunk streams interleaved with other events can fail there. This crate's emit handles and bridges send explicit START / CONTENT / END |
//!
//! A run that paused for an interrupt never reads as a plain success: 0.0.59 gets the
//! interrupt, and every client gets the notice, a message it shows.
//!
//! Everything else passes unchanged, in order. The rewrite is linear: one pass, no copy of an
//! event that needs no change, and memory bounded by the held reasoning limit.
//!
//! Over protobuf there is no mapping for `THINKING_*` (the reference has none), so a downgraded
//! protobuf stream carries no reasoning at all; the other rules apply as above.
//!
//! ## Naming the oldest client
//!
//! The rules above serve every pre-1.0 client at once, down to 0.0.42. A deployment that knows
//! its clients are newer says which is the oldest ([`DowngradeConfig::oldest_client`],
//! `AgentEndpoint::with_downgrade`, `ag-ui serve --old-clients 0.0.57`), and the downgrade keeps
//! what that client already reads:
//!
//! | oldest client | reasoning |
//! |---|---|
//! | none named, or below 0.0.52 | `THINKING_*`, as above |
//! | 0.0.52 to 0.0.59 | **`REASONING_*` and `REASONING_ENCRYPTED_VALUE` unchanged, and `reasoning` messages kept in snapshots**: 0.0.52 on read them into reasoning messages, which `@copilotkit/runtime` 1.75 (`@ag-ui/client` 0.0.59) hands to the page as the model's thought |
//! | 1.0.0 or later | no downgrade at all: every client speaks 1.0, and a request without `protocolVersion` is a 1.0 client that left it out |
//!
//! Everything else is rewritten as above. A client older than the one named fails its runs at
//! the first reasoning event (0.0.42: "invalid discriminator value").
//!
//! ```
//! use ag_ui::Event;
//! use ag_ui::server::downgrade::{ClientVersion, Downgrade, LegacyFrame};
//!
//! let mut downgrade = Downgrade::new().with_oldest_client(Some(ClientVersion::new(0, 0, 57)));
//! let mut frames = Vec::new();
//! downgrade.push(Event::reasoning_message_start("m1"), &mut frames);
//! assert_eq!(frames[0].type_name(), "REASONING_MESSAGE_START");
//! ```

use std::collections::VecDeque;

use serde::Serialize;
use serde_json::Value;

use crate::{
    Content, Event, Interrupt, Message, MessageId, RunFinishedOutcome, SubagentRunId,
    TextMessageRole,
};

mod version;

pub use version::{ClientVersion, ClientVersionError, needs_downgrade};

/// The oldest client that reads `REASONING_*` events and `reasoning` messages (and the oldest
/// checked to, by the interop tests).
const READS_REASONING: ClientVersion = ClientVersion::new(0, 0, 52);

/// How an endpoint treats pre-1.0 clients: whether it downgrades their streams at all, and the
/// oldest client it serves, when the deployment knows it.
///
/// ```
/// use ag_ui::server::downgrade::{ClientVersion, DowngradeConfig};
///
/// let config = DowngradeConfig::default().with_oldest_client(Some(ClientVersion::new(0, 0, 57)));
/// assert!(config.enabled);
/// assert!(config.keeps_reasoning());
/// assert!(!DowngradeConfig::default().keeps_reasoning());
/// assert!(!DowngradeConfig::default().with_enabled(false).applies_to(None));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DowngradeConfig {
    /// Whether a client that declares no `protocolVersion`, or one below 1.0, gets its stream
    /// rewritten (default `true`).
    pub enabled: bool,
    /// The oldest client the deployment serves (default `None`: any, from `@ag-ui/client`
    /// 0.0.42 on). See [Naming the oldest client](self#naming-the-oldest-client).
    pub oldest_client: Option<ClientVersion>,
}

impl Default for DowngradeConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            oldest_client: None,
        }
    }
}

impl DowngradeConfig {
    /// Sets [`enabled`](Self::enabled).
    #[must_use]
    pub fn with_enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// Sets [`oldest_client`](Self::oldest_client).
    #[must_use]
    pub fn with_oldest_client(mut self, version: Option<ClientVersion>) -> Self {
        self.oldest_client = version;
        self
    }

    /// Whether a request declaring `protocol_version` gets the downgraded stream: the
    /// downgrade is on, the version is not 1.0 or later ([`needs_downgrade`]), and the oldest
    /// client served is not a 1.0 one.
    pub fn applies_to(&self, protocol_version: Option<&str>) -> bool {
        self.enabled
            && !self
                .oldest_client
                .is_some_and(ClientVersion::is_1_0_or_later)
            && needs_downgrade(protocol_version)
    }

    /// Whether the downgraded stream keeps `REASONING_*`: the oldest client served reads them.
    pub fn keeps_reasoning(&self) -> bool {
        self.oldest_client.is_some_and(|v| v >= READS_REASONING)
    }
}

/// How many reasoning events a [`Downgrade`] holds back, in all, while another owner's
/// reasoning streams.
pub const DEFAULT_MAX_HELD: usize = 4096;

/// One frame of a downgraded stream: an event a pre-1.0 client accepts, or a `THINKING_*`
/// frame standing for reasoning.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum LegacyFrame {
    /// An event, already rewritten for the old schema.
    Event(Event),
    /// A pre-1.0 `THINKING_*` event.
    Thinking(ThinkingEvent),
}

impl LegacyFrame {
    /// The frame's `type` on the wire.
    pub fn type_name(&self) -> &'static str {
        match self {
            LegacyFrame::Event(event) => event.event_type().as_str(),
            LegacyFrame::Thinking(thinking) => thinking.kind.as_str(),
        }
    }

    /// Appends the frame's compact JSON to `out`.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            LegacyFrame::Event(event) => event.write_json(out),
            LegacyFrame::Thinking(thinking) => thinking.write_json(out),
        }
    }
}

/// The five pre-1.0 reasoning events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub(crate) enum ThinkingKind {
    /// `THINKING_START`: a thinking span opens.
    #[serde(rename = "THINKING_START")]
    Start,
    /// `THINKING_TEXT_MESSAGE_START`: a thinking message opens in the span.
    #[serde(rename = "THINKING_TEXT_MESSAGE_START")]
    TextMessageStart,
    /// `THINKING_TEXT_MESSAGE_CONTENT`: text of the open thinking message.
    #[serde(rename = "THINKING_TEXT_MESSAGE_CONTENT")]
    TextMessageContent,
    /// `THINKING_TEXT_MESSAGE_END`: the thinking message closes.
    #[serde(rename = "THINKING_TEXT_MESSAGE_END")]
    TextMessageEnd,
    /// `THINKING_END`: the span closes.
    #[serde(rename = "THINKING_END")]
    End,
}

impl ThinkingKind {
    /// The wire name (`"THINKING_START"`, …).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ThinkingKind::Start => "THINKING_START",
            ThinkingKind::TextMessageStart => "THINKING_TEXT_MESSAGE_START",
            ThinkingKind::TextMessageContent => "THINKING_TEXT_MESSAGE_CONTENT",
            ThinkingKind::TextMessageEnd => "THINKING_TEXT_MESSAGE_END",
            ThinkingKind::End => "THINKING_END",
        }
    }
}

/// A pre-1.0 `THINKING_*` event: no ids (a pre-1.0 client follows one thinking span at a
/// time), the text on `THINKING_TEXT_MESSAGE_CONTENT`, and the base fields an old client knows.
///
/// Opaque: made by [`Downgrade`], written by [`LegacyFrame::write_json`], named by
/// [`LegacyFrame::type_name`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ThinkingEvent {
    /// Which of the five.
    #[serde(rename = "type")]
    pub(crate) kind: ThinkingKind,
    /// The text (`THINKING_TEXT_MESSAGE_CONTENT` only; never empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) delta: Option<String>,
    /// The timestamp of the 1.0 event this one stands for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) timestamp: Option<i64>,
    /// The raw event of the 1.0 event this one stands for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) raw_event: Option<Box<Value>>,
}

impl ThinkingEvent {
    /// Appends the event's compact JSON to `out`.
    pub(crate) fn write_json(&self, out: &mut Vec<u8>) {
        // Serializing a struct of strings and JSON values into a Vec cannot fail.
        if let Err(error) = serde_json::to_writer(out, self) {
            unreachable!("a thinking event always serializes: {error}")
        }
    }
}

/// Who produced a reasoning event: the parent agent (`None`) or a subagent invocation.
type Owner = Option<SubagentRunId>;

/// What of one owner's reasoning is open, as the old client sees it.
#[derive(Clone, Copy, Debug, Default)]
struct Open {
    span: bool,
    /// The span was opened by the downgrade for a message outside any span.
    synthetic: bool,
    message: bool,
}

impl Open {
    fn idle(self) -> bool {
        !self.span && !self.message
    }
}

/// An owner's reasoning held while another owner's streams.
#[derive(Debug)]
struct Held {
    owner: Owner,
    open: Open,
    events: Vec<Event>,
}

/// The stream rewriter for one run sent to a pre-1.0 client; see the [module docs](self) for
/// every rule.
///
/// Feed it each event with [`push`](Self::push) and, when the stream ends without a
/// `RUN_FINISHED` or `RUN_ERROR`, call [`finish`](Self::finish).
#[derive(Debug)]
pub struct Downgrade {
    /// The owner whose reasoning the old client is following, and what of it is open.
    lane: Option<(Owner, Open)>,
    held: VecDeque<Held>,
    /// Owners whose held reasoning was dropped, until what they had open closes.
    ignoring: Vec<(Owner, Open)>,
    held_events: usize,
    max_held: usize,
    dropped: u64,
    /// `REASONING_*` passes unchanged: the oldest client served reads it.
    keep_reasoning: bool,
}

impl Default for Downgrade {
    fn default() -> Self {
        Self::new()
    }
}

impl Downgrade {
    /// A downgrade holding at most [`DEFAULT_MAX_HELD`] reasoning events.
    pub fn new() -> Self {
        Self {
            lane: None,
            held: VecDeque::new(),
            ignoring: Vec::new(),
            held_events: 0,
            max_held: DEFAULT_MAX_HELD,
            dropped: 0,
            keep_reasoning: false,
        }
    }

    /// Sets the oldest client the stream is for (`None`: any): from 0.0.52 on, reasoning
    /// passes as `REASONING_*` (see [Naming the oldest client](self#naming-the-oldest-client)).
    #[must_use]
    pub fn with_oldest_client(mut self, version: Option<ClientVersion>) -> Self {
        self.keep_reasoning = DowngradeConfig::default()
            .with_oldest_client(version)
            .keeps_reasoning();
        self
    }

    /// Sets how many reasoning events may be held, in all, while another owner's reasoning
    /// streams; past it, an owner's held reasoning is dropped whole.
    #[must_use]
    pub fn with_max_held(mut self, events: usize) -> Self {
        self.max_held = events;
        self
    }

    /// How many reasoning events were dropped because the held reasoning reached its bound.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Rewrites one event, appending what the old client gets (nothing, one frame or several)
    /// to `out`.
    pub fn push(&mut self, event: Event, out: &mut Vec<LegacyFrame>) {
        match &event {
            Event::SubagentStarted(_) | Event::SubagentFinished(_) | Event::SubagentError(_) => {
                return;
            }
            Event::StepStarted(_) | Event::StepFinished(_) if event.attribution().is_some() => {
                return;
            }
            Event::ReasoningEncryptedValue(_) if !self.keep_reasoning => return,
            Event::ReasoningStart(_)
            | Event::ReasoningMessageStart(_)
            | Event::ReasoningMessageContent(_)
            | Event::ReasoningMessageEnd(_)
            | Event::ReasoningMessageChunk(_)
            | Event::ReasoningEnd(_)
                if !self.keep_reasoning =>
            {
                self.reasoning(event, out);
                return;
            }
            Event::RunFinished(finished) => {
                self.finish(out);
                if let Some(RunFinishedOutcome::Interrupt { interrupts }) = &finished.outcome {
                    let id = MessageId::new(format!("{}-interrupt", finished.run_id.as_str()));
                    out.push(LegacyFrame::Event(Event::text_message_start(
                        id.clone(),
                        TextMessageRole::Assistant,
                    )));
                    out.push(LegacyFrame::Event(Event::text_message_content(
                        id.clone(),
                        interrupt_notice(interrupts),
                    )));
                    out.push(LegacyFrame::Event(Event::text_message_end(id)));
                }
            }
            Event::RunError(_) => self.finish(out),
            _ => {}
        }
        if let Some(event) = rewrite(event, self.keep_reasoning) {
            out.push(LegacyFrame::Event(event));
        }
    }

    /// Ends the stream: sends what is held and closes what is open, so the old client sees
    /// no thinking span left open. Called by [`push`](Self::push) before `RUN_FINISHED` and
    /// `RUN_ERROR`; call it when the stream ends without either.
    pub fn finish(&mut self, out: &mut Vec<LegacyFrame>) {
        if let Some((_, open)) = self.lane.take() {
            close(open, out);
        }
        while let Some(held) = self.held.pop_front() {
            self.held_events -= held.events.len();
            let mut open = Open::default();
            for event in held.events {
                step(&mut open, event, Some(out));
            }
            close(open, out);
        }
        self.ignoring.clear();
    }

    fn reasoning(&mut self, event: Event, out: &mut Vec<LegacyFrame>) {
        let owner: Owner = event.attribution().cloned();
        if let Some(i) = self.ignoring.iter().position(|(o, _)| *o == owner) {
            step(&mut self.ignoring[i].1, event, None);
            if self.ignoring[i].1.idle() {
                self.ignoring.swap_remove(i);
            }
            self.dropped += 1;
            return;
        }
        match &self.lane {
            None => self.lane = Some((owner, Open::default())),
            Some((lane_owner, _)) if *lane_owner == owner => {}
            Some(_) => {
                self.hold(owner, event);
                return;
            }
        }
        if let Some((_, open)) = &mut self.lane {
            step(open, event, Some(out));
            if open.idle() {
                self.lane = None;
                self.release(out);
            }
        }
    }

    /// Holds `event` of `owner` while another owner's reasoning streams.
    fn hold(&mut self, owner: Owner, event: Event) {
        let index = match self.held.iter().position(|h| h.owner == owner) {
            Some(index) => index,
            None => {
                self.held.push_back(Held {
                    owner,
                    open: Open::default(),
                    events: Vec::new(),
                });
                self.held.len() - 1
            }
        };
        if self.held_events >= self.max_held {
            // Over the bound: this owner's held reasoning goes, and so does the rest of what
            // it has open.
            if let Some(mut held) = self.held.remove(index) {
                step(&mut held.open, event, None);
                self.held_events -= held.events.len();
                self.dropped += held.events.len() as u64 + 1;
                if !held.open.idle() {
                    self.ignoring.push((held.owner, held.open));
                }
            }
            return;
        }
        let held = &mut self.held[index];
        step(&mut held.open, event.clone(), None);
        held.events.push(event);
        self.held_events += 1;
    }

    /// The lane is free: replays held reasoning, owner by owner, until one is still open.
    fn release(&mut self, out: &mut Vec<LegacyFrame>) {
        while self.lane.is_none() {
            let Some(held) = self.held.pop_front() else {
                break;
            };
            self.held_events -= held.events.len();
            let mut open = Open::default();
            for event in held.events {
                step(&mut open, event, Some(out));
            }
            if !open.idle() {
                self.lane = Some((held.owner, open));
            }
        }
    }
}

/// Closes what `open` has open.
fn close(open: Open, out: &mut Vec<LegacyFrame>) {
    if open.message {
        out.push(thinking(ThinkingKind::TextMessageEnd, None, None, None));
    }
    if open.span {
        out.push(thinking(ThinkingKind::End, None, None, None));
    }
}

fn thinking(
    kind: ThinkingKind,
    delta: Option<String>,
    timestamp: Option<i64>,
    raw_event: Option<Box<Value>>,
) -> LegacyFrame {
    LegacyFrame::Thinking(ThinkingEvent {
        kind,
        delta,
        timestamp,
        raw_event,
    })
}

/// Translates one reasoning event of the owner whose reasoning the client follows, updating
/// what is open; with `out` absent, only tracks what is open.
fn step(open: &mut Open, event: Event, mut out: Option<&mut Vec<LegacyFrame>>) {
    let timestamp = event.timestamp();
    let mut emit = |kind: ThinkingKind, delta: Option<String>| {
        if let Some(out) = out.as_deref_mut() {
            out.push(thinking(kind, delta, timestamp, None));
        }
    };
    let open_message = |open: &mut Open, emit: &mut dyn FnMut(ThinkingKind, Option<String>)| {
        if !open.span {
            emit(ThinkingKind::Start, None);
            open.span = true;
            open.synthetic = true;
        }
        emit(ThinkingKind::TextMessageStart, None);
        open.message = true;
    };
    let close_message = |open: &mut Open, emit: &mut dyn FnMut(ThinkingKind, Option<String>)| {
        emit(ThinkingKind::TextMessageEnd, None);
        open.message = false;
        if open.synthetic {
            emit(ThinkingKind::End, None);
            open.span = false;
            open.synthetic = false;
        }
    };
    match event {
        Event::ReasoningStart(_) if !open.span => {
            emit(ThinkingKind::Start, None);
            open.span = true;
            open.synthetic = false;
        }
        Event::ReasoningMessageStart(_) => {
            if open.message {
                close_message(open, &mut emit);
            }
            open_message(open, &mut emit);
        }
        Event::ReasoningMessageContent(e) if open.message && !e.delta.is_empty() => {
            emit(ThinkingKind::TextMessageContent, Some(e.delta));
        }
        Event::ReasoningMessageEnd(_) if open.message => close_message(open, &mut emit),
        Event::ReasoningMessageChunk(e) => {
            let delta = e.delta.filter(|d| !d.is_empty());
            if open.message {
                if delta.is_some() {
                    emit(ThinkingKind::TextMessageContent, delta);
                }
            } else {
                open_message(open, &mut emit);
                if delta.is_some() {
                    emit(ThinkingKind::TextMessageContent, delta);
                }
                close_message(open, &mut emit);
            }
        }
        Event::ReasoningEnd(_) => {
            if open.message {
                emit(ThinkingKind::TextMessageEnd, None);
                open.message = false;
            }
            if open.span {
                emit(ThinkingKind::End, None);
                open.span = false;
                open.synthetic = false;
            }
        }
        _ => {}
    }
}

/// The text of the assistant message that makes a paused run visible to a client that cannot
/// read the interrupt outcome: one line per interrupt, its reason and its message (or its id
/// when it has no message).
///
/// ```
/// use ag_ui::Interrupt;
/// use ag_ui::server::downgrade::interrupt_notice;
///
/// let ask = Interrupt::new("i1", "confirmation").with_message("Shall I save?");
/// assert_eq!(
///     interrupt_notice(&[ask, Interrupt::new("i2", "approval")]),
///     "Paused, waiting for your answer (confirmation): Shall I save?\n\
///      Paused, waiting for your answer (approval): interrupt i2"
/// );
/// ```
pub fn interrupt_notice(interrupts: &[Interrupt]) -> String {
    let mut text = String::new();
    for (i, interrupt) in interrupts.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        text.push_str("Paused, waiting for your answer (");
        text.push_str(&interrupt.reason);
        text.push_str("): ");
        match &interrupt.message {
            Some(message) if !message.is_empty() => text.push_str(message),
            _ => {
                text.push_str("interrupt ");
                text.push_str(interrupt.id.as_str());
            }
        }
    }
    text
}

/// The event as every pre-1.0 schema accepts it (with `reasoning` messages when
/// `keep_reasoning`); `None` when it must not be sent.
fn rewrite(mut event: Event, keep_reasoning: bool) -> Option<Event> {
    match &mut event {
        Event::TextMessageContent(e) if e.delta.is_empty() => return None,
        Event::TextMessageChunk(e) if e.delta.as_deref() == Some("") => e.delta = None,
        Event::ToolCallResult(e) => flatten(&mut e.content),
        Event::MessagesSnapshot(e) => messages(&mut e.messages, keep_reasoning),
        Event::RunStarted(e) => {
            if let Some(input) = &mut e.input {
                messages(&mut input.messages, keep_reasoning);
            }
        }
        Event::RunFinished(e) => match &mut e.outcome {
            // 0.0.59 reads `{type: "success"}` and `{type: "interrupt", interrupts}`, each
            // `.strict()`: the pending tool call ids and a cancellation fail its run.
            Some(RunFinishedOutcome::Success {
                pending_tool_call_ids,
            }) => *pending_tool_call_ids = None,
            Some(RunFinishedOutcome::Cancelled) => e.outcome = None,
            _ => {}
        },
        _ => {}
    }
    Some(event)
}

/// Content parts as text (tool messages and results, a string in every pre-1.0 schema).
fn flatten(content: &mut Content) {
    if let Content::Parts(_) = content {
        *content = Content::Text(content.flatten());
    }
}

fn messages(messages: &mut Vec<Message>, keep_reasoning: bool) {
    if !keep_reasoning {
        messages.retain(|m| !matches!(m, Message::Reasoning(_)));
    }
    for message in messages {
        match message {
            // 0.0.42 reads text parts, not media parts.
            Message::User(m) if m.content.has_media() => flatten(&mut m.content),
            Message::Tool(m) => flatten(&mut m.content),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
