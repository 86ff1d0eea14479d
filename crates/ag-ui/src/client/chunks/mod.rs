//! Chunk normalization: turns `*_CHUNK` events into explicit START / CONTENT / END events.
//!
//! Some producers cannot bracket what they send. A provider adapter usually learns that a
//! message is over only when the upstream API starts the next one, so it cannot emit a
//! `TEXT_MESSAGE_END` at the right moment. Such producers send `TEXT_MESSAGE_CHUNK`,
//! `TOOL_CALL_CHUNK` and `REASONING_MESSAGE_CHUNK` instead. One chunk stands for a start, a piece
//! of content and an end all at once, and only the chunk that begins a stream has to name its id
//! (and, for a tool call, the tool):
//!
//! ```text
//! TEXT_MESSAGE_CHUNK { messageId: "msg-1", delta: "Hel" }
//! TEXT_MESSAGE_CHUNK { delta: "lo" }                        continues msg-1
//! TEXT_MESSAGE_CHUNK { messageId: "msg-2", delta: "Bye" }   msg-1 is over, msg-2 begins
//! ```
//!
//! Everything else in the protocol — the [verifier](crate::verify::Verifier), the reducer, every
//! subscriber — speaks the explicit form. Turning one into the other takes memory: the id of the stream being continued
//! has to be kept, and a stream can only be closed once the next one starts or the run ends. This
//! module keeps that memory.
//!
//! ```
//! use ag_ui::client::chunks::normalize_all;
//! use ag_ui::{Event, EventType, MessageId};
//!
//! let events = normalize_all([
//!     Event::text_message_chunk(Some(MessageId::new("msg-1")), Some("Hel".into())),
//!     Event::text_message_chunk(None, Some("lo".into())),
//! ])?;
//!
//! let types: Vec<EventType> = events.iter().map(Event::event_type).collect();
//! assert_eq!(types, [
//!     EventType::TextMessageStart,
//!     EventType::TextMessageContent,
//!     EventType::TextMessageContent,
//!     EventType::TextMessageEnd,
//! ]);
//! # Ok::<(), ag_ui::client::chunks::ChunkError>(())
//! ```
//!
//! [`normalize_all`] takes a whole run at once; [`ChunkNormalizer`] does the same work one event
//! at a time, for a stream that is still arriving.
//!
//! # Subagents
//!
//! When several subagents stream at the same time, "the chunk before this one" only means
//! something within one sender's output. So chunks are matched up per owner: the parent agent
//! and every `subagentRunId` each have their own *lane*, holding at most one open stream, and a
//! chunk without an id continues the stream in the lane of the subagent it is attributed to.
//!
//! A chunk that names neither an id nor a `subagentRunId` continues the parent's open stream of
//! its kind if there is one, and otherwise the only open stream of its kind. If several
//! subagents each have one open, nothing says which of them the chunk belongs to: it is rejected
//! with [`ChunkErrorKind::Ambiguous`], never assigned by guesswork. A producer that streams
//! concurrently should therefore attribute every chunk, or repeat the id on every chunk.
//!
//! ```
//! use ag_ui::client::chunks::{ChunkErrorKind, ChunkNormalizer};
//! use ag_ui::{Event, EventType, MessageId};
//!
//! let chunk = |id: Option<&str>, delta: &str| {
//!     Event::text_message_chunk(id.map(MessageId::new), Some(delta.into()))
//! };
//! let mut normalizer = ChunkNormalizer::new();
//! // Two subagents stream at once; their chunks are attributed.
//! let opened: Vec<Event> = [
//!     chunk(Some("m1"), "A").with_subagent_run_id("s1"),
//!     chunk(Some("m2"), "B").with_subagent_run_id("s2"),
//! ]
//! .into_iter()
//! .map(|event| normalizer.push(event).map(Iterator::collect::<Vec<_>>))
//! .collect::<Result<Vec<_>, _>>()?
//! .concat();
//! assert_eq!(opened.len(), 4);
//!
//! // An attributed continuation finds its subagent's message.
//! let next: Vec<Event> = normalizer.push(chunk(None, "C").with_subagent_run_id("s1"))?.collect();
//! assert_eq!(next, [Event::text_message_content("m1", "C").with_subagent_run_id("s1")]);
//!
//! // An unattributed one could belong to either subagent: rejected, nothing emitted.
//! let error = normalizer.push(chunk(None, "?")).unwrap_err();
//! assert_eq!(error.kind(), ChunkErrorKind::Ambiguous);
//! assert_eq!(error.index(), 3);
//!
//! // The end of the run closes both messages, in the order their lanes were opened.
//! let closed: Vec<EventType> = normalizer
//!     .push(Event::run_finished("t", "r"))?
//!     .map(|event| event.event_type())
//!     .collect();
//! assert_eq!(closed, [EventType::TextMessageEnd, EventType::TextMessageEnd, EventType::RunFinished]);
//! # Ok::<(), ag_ui::client::chunks::ChunkError>(())
//! ```
//!
//! # The rules
//!
//! These are the rules of the reference client (`transformChunks` of `@ag-ui/client` 1.0.0);
//! [`ChunkNormalizer::push`] produces exactly its output, event for event. The lane model
//! behind them (which events close lanes, which lane a chunk belongs to, what a continuation
//! must repeat, what an opener must name) is one crate-private module that the
//! [verifier](crate::verify)'s emission mode uses too, so the chunks an agent built on this
//! crate may emit are exactly the ones this normalizer expands.
//!
//! **Lanes.** Lanes are kept in the order they were opened. Closing a lane emits one END
//! (`TEXT_MESSAGE_END`, `TOOL_CALL_END` or `REASONING_MESSAGE_END`) for its stream, carrying only
//! the id and the owner's `subagentRunId`, and removes the lane; a stream opened later in the
//! same lane goes to the back of the order.
//!
//! **Which events close lanes.** An event that is not a chunk passes through unchanged, after the
//! ENDs of the lanes it closes:
//!
//! | events | lanes closed first |
//! |---|---|
//! | explicit text, tool call and reasoning events (including `TOOL_CALL_RESULT`, `REASONING_START` / `_END`), `STATE_SNAPSHOT`, `STATE_DELTA`, `CUSTOM`, `STEP_STARTED`, `STEP_FINISHED` | the lane of the event's own attribution (unattributed: the parent's) |
//! | `RUN_STARTED`, `RUN_FINISHED`, `RUN_ERROR`, `MESSAGES_SNAPSHOT` | every lane, in lane order |
//! | `SUBAGENT_FINISHED`, `SUBAGENT_ERROR` | the lane of the subagent they name |
//! | `RAW`, `ACTIVITY_SNAPSHOT`, `ACTIVITY_DELTA`, `REASONING_ENCRYPTED_VALUE`, `SUBAGENT_STARTED` | none |
//!
//! So a parent's explicit message does not end a subagent's chunk stream, and an explicit event
//! for the very message a chunk stream is building ends that stream first. An explicit
//! `TEXT_MESSAGE_END`, `TOOL_CALL_END` or `REASONING_MESSAGE_END` naming an entity that
//! *another* owner's lane is streaming is refused at its own index
//! ([`ChunkErrorKind::ClosedElsewhere`]): passed on, it would close the entity under the lane's
//! feet, and the stream would fail only later, at the END that closes that lane (the
//! reference's behaviour), or nowhere when the input stopped first.
//!
//! **Which lane a chunk belongs to.** A chunk with an id belongs to the lane whose open stream
//! has that kind and id (and is rejected with [`ChunkErrorKind::OwnerMismatch`] if it is
//! attributed to a different owner); if no lane has it open, to the lane of its own attribution.
//! A chunk without an id but with a `subagentRunId` belongs to that subagent's lane. A chunk with
//! neither goes to the parent's lane if that holds a stream of the same kind, else to the one
//! lane that does, is rejected as ambiguous if several do, and otherwise goes to the parent's
//! lane.
//!
//! **Expanding a chunk.** If the lane's stream has the chunk's kind and the chunk names no id or
//! the same id, the chunk continues it; repeating the opener's text `role` or `name`, or the
//! tool's `toolCallName` or `parentMessageId`, with another value is a
//! [`ChunkErrorKind::FieldMismatch`] (an opener without a role counts as `assistant`; one
//! without a name or parent differs from any value). Otherwise the chunk closes the lane and
//! opens a new stream, which needs an id ([`ChunkErrorKind::MissingId`]) and, for a tool call, a
//! tool name ([`ChunkErrorKind::MissingName`]). The START carries the id, the text role (default
//! `assistant`) and name, the tool name and `parentMessageId`, the attribution, and the chunk's
//! `metadata`. A chunk with a `delta` or a `rawEvent` then yields one CONTENT (`TOOL_CALL_ARGS`
//! for tools) with the stream's id, the delta (empty if absent), the attribution, and the
//! chunk's `metadata` and `rawEvent`; a continuation with only `metadata` still yields a CONTENT
//! with an empty delta. `timestamp` is never copied, the START never gets the `rawEvent`, and an
//! END carries nothing from any chunk. Ids are forgotten once their stream closes: a later chunk
//! naming the same id opens it again.
//!
//! **Errors.** A chunk that fails emits nothing at all — not even the END its lane would have
//! received — and leaves the normalizer as it was before the chunk.
//!
//! # Differences from the reference
//!
//! - **End of input.** `transformChunks` emits nothing when its input completes, so a stream
//!   with no closing run-level event is left without its ENDs. [`normalize_all`] closes every
//!   lane still open at the end of its input, as [`ChunkNormalizer::finish`] does; `push` alone
//!   behaves like the reference.
//! - **After an error.** The reference terminates its output stream at the first error.
//!   [`normalize_all`] stops there too; a [`ChunkNormalizer`] is left unchanged by the failed
//!   chunk, and the caller decides whether to go on.
//! - **Nulls and unknown properties.** The reference copies a `subagentRunId: null` and any
//!   property the chunk schema does not describe onto the events it synthesizes, for a later
//!   stage to judge. A typed [`Event`] can hold neither (decoding rejects the null and drops the
//!   unknown property), so neither occurs here.

use std::borrow::Borrow;
use std::hash::{Hash, Hasher};
use std::iter::FusedIterator;

mod error;

pub use error::{ChunkError, ChunkErrorKind};

use crate::lanes::{self, Closes, Conflict, Fields, Lane, LaneKind as Kind, Resolved};

use crate::{
    Event, MessageId, ReasoningMessageChunkEvent, ReasoningMessageContentEvent,
    ReasoningMessageEndEvent, ReasoningMessageStartEvent, ReasoningRole, SubagentRunId,
    TextMessageChunkEvent, TextMessageContentEvent, TextMessageEndEvent, TextMessageRole,
    TextMessageStartEvent, ToolCallArgsEvent, ToolCallChunkEvent, ToolCallEndEvent, ToolCallId,
    ToolCallStartEvent,
};

/// Normalizes a whole run in one call, closing anything left open at the end.
///
/// Equivalent to pushing every event through a [`ChunkNormalizer`] and then calling
/// [`ChunkNormalizer::finish`]. Unlike the reference `transformChunks`, which leaves streams
/// that are still open at the end of its input without an END, this closes them (in lane order).
///
/// ```
/// use ag_ui::client::chunks::normalize_all;
/// use ag_ui::{Event, ToolCallId};
///
/// let events = normalize_all([
///     Event::tool_call_chunk(Some(ToolCallId::new("c1")), Some("search".into()), Some("{}".into())),
/// ])?;
/// assert_eq!(events, [
///     Event::tool_call_start("c1", "search"),
///     Event::tool_call_args("c1", "{}"),
///     Event::tool_call_end("c1"),
/// ]);
/// # Ok::<(), ag_ui::client::chunks::ChunkError>(())
/// ```
///
/// # Errors
///
/// The first chunk that cannot be expanded, as a [`ChunkError`] naming its index in `events`.
pub fn normalize_all<I>(events: I) -> Result<Vec<Event>, ChunkError>
where
    I: IntoIterator<Item = Event>,
{
    let events = events.into_iter();
    // Expansion adds a START and an END per chunk stream: an eighth more than the input covers
    // streams of eight chunks or more without growing (and copying) the vector at the end.
    let expected = events.size_hint().0;
    let mut out = Vec::with_capacity(expected.saturating_add(expected / 8));
    let mut normalizer = ChunkNormalizer::new();
    for event in events {
        normalizer.push_into(event, &mut out)?;
    }
    normalizer.finish_into(&mut out);
    Ok(out)
}

/// Expands chunk events into the explicit events the rest of the protocol is written in.
///
/// Feed it the events of a stream in order with [`push`](Self::push); each call yields the
/// events that one expands to. Events that are not chunks come out unchanged, preceded by the
/// ENDs of the chunk streams they close. At the end of the input, [`finish`](Self::finish)
/// closes whatever is still open. One normalizer serves one stream of events (which may hold
/// several runs: every `RUN_STARTED` closes everything).
///
/// ```
/// use ag_ui::client::chunks::ChunkNormalizer;
/// use ag_ui::{Event, MessageId};
///
/// let mut normalizer = ChunkNormalizer::new();
/// let mut out = Vec::new();
/// for event in [
///     Event::run_started("t1", "r1"),
///     Event::reasoning_message_chunk(Some(MessageId::new("r")), Some("Hm".into())),
///     Event::reasoning_message_chunk(None, Some("m.".into())),
///     Event::run_finished("t1", "r1"),
/// ] {
///     out.extend(normalizer.push(event)?);
/// }
/// assert_eq!(out, [
///     Event::run_started("t1", "r1"),
///     Event::reasoning_message_start("r"),
///     Event::reasoning_message_content("r", "Hm"),
///     Event::reasoning_message_content("r", "m."),
///     Event::reasoning_message_end("r"),
///     Event::run_finished("t1", "r1"),
/// ]);
/// assert_eq!(normalizer.finish().count(), 0);
/// # Ok::<(), ag_ui::client::chunks::ChunkError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ChunkNormalizer {
    state: State,
    /// Reused for the output of every [`Self::push`].
    out: Vec<Event>,
}

impl ChunkNormalizer {
    /// A normalizer with nothing open.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next event of the stream and returns the events it expands to, in order.
    ///
    /// The events are drained from a buffer the normalizer reuses, so a call allocates no
    /// vector of its own; dropping the iterator early discards the rest of them.
    ///
    /// # Errors
    ///
    /// A [`ChunkError`] when `event` is a chunk that cannot be expanded. Nothing is emitted for
    /// it and the normalizer's state is unchanged; the event still counts for the indices of
    /// later errors.
    #[inline]
    pub fn push(&mut self, event: Event) -> Result<Expanded<'_>, ChunkError> {
        self.out.clear();
        self.state.push(event, &mut self.out)?;
        Ok(Expanded(self.out.drain(..)))
    }

    /// Like [`push`](Self::push), but appends the events to `out`.
    ///
    /// # Errors
    ///
    /// As for [`push`](Self::push); on error nothing is appended to `out`.
    #[inline]
    pub fn push_into(&mut self, event: Event, out: &mut Vec<Event>) -> Result<(), ChunkError> {
        let len = out.len();
        let result = self.state.push(event, out);
        if result.is_err() {
            // Expansion checks before it emits, so this removes nothing; it keeps the promise
            // independent of that.
            out.truncate(len);
        }
        result
    }

    /// Closes every stream still open, in lane order, and returns their ENDs.
    ///
    /// The normalizer can then go on with more events, as if a new run had started.
    pub fn finish(&mut self) -> Expanded<'_> {
        self.out.clear();
        self.state.close_all(&mut self.out);
        Expanded(self.out.drain(..))
    }

    /// Like [`finish`](Self::finish), but appends the ENDs to `out`.
    pub fn finish_into(&mut self, out: &mut Vec<Event>) {
        self.state.close_all(out);
    }

    /// How many chunk streams are open (at most one per owner).
    pub fn open_streams(&self) -> usize {
        self.state.lanes.len()
    }
}

/// The events one call of [`ChunkNormalizer::push`] or [`ChunkNormalizer::finish`] expands to,
/// drained from the normalizer's reused buffer.
#[derive(Debug)]
pub struct Expanded<'a>(std::vec::Drain<'a, Event>);

impl Expanded<'_> {
    /// The events not yet taken.
    pub fn as_slice(&self) -> &[Event] {
        self.0.as_slice()
    }
}

impl Iterator for Expanded<'_> {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        self.0.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Expanded<'_> {
    fn next_back(&mut self) -> Option<Event> {
        self.0.next_back()
    }
}

impl ExactSizeIterator for Expanded<'_> {}

impl FusedIterator for Expanded<'_> {}

/// The stream open in a lane, with what its opener established.
#[derive(Clone, Debug)]
enum Stream {
    Text {
        id: MessageId,
        role: TextMessageRole,
        name: Option<String>,
    },
    Tool {
        id: ToolCallId,
        name: String,
        parent: Option<MessageId>,
    },
    Reasoning {
        id: MessageId,
    },
}

impl Stream {
    fn kind(&self) -> Kind {
        match self {
            Stream::Text { .. } => Kind::Text,
            Stream::Tool { .. } => Kind::Tool,
            Stream::Reasoning { .. } => Kind::Reasoning,
        }
    }

    fn id(&self) -> &str {
        match self {
            Stream::Text { id, .. } | Stream::Reasoning { id } => id.as_str(),
            Stream::Tool { id, .. } => id.as_str(),
        }
    }

    /// The END that closes this stream: its id and its owner, nothing else.
    fn end(self, owner: Option<SubagentRunId>) -> Event {
        match self {
            Stream::Text { id, .. } => {
                let mut end = TextMessageEndEvent::new(id);
                end.subagent_run_id = owner;
                end.into()
            }
            Stream::Tool { id, .. } => {
                let mut end = ToolCallEndEvent::new(id);
                end.subagent_run_id = owner;
                end.into()
            }
            Stream::Reasoning { id } => {
                let mut end = ReasoningMessageEndEvent::new(id);
                end.subagent_run_id = owner;
                end.into()
            }
        }
    }
}

/// A stream's id as the lane table indexes it: hashed and compared as the string.
#[derive(Clone, Debug)]
enum StreamKey {
    Message(MessageId),
    Tool(ToolCallId),
}

impl Borrow<str> for StreamKey {
    fn borrow(&self) -> &str {
        match self {
            StreamKey::Message(id) => id.as_str(),
            StreamKey::Tool(id) => id.as_str(),
        }
    }
}

impl PartialEq for StreamKey {
    fn eq(&self, other: &Self) -> bool {
        Borrow::<str>::borrow(self) == Borrow::<str>::borrow(other)
    }
}

impl Eq for StreamKey {}

impl Hash for StreamKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        Borrow::<str>::borrow(self).hash(state);
    }
}

impl lanes::Stream for Stream {
    type Key = StreamKey;

    fn kind(&self) -> Kind {
        Stream::kind(self)
    }

    fn id(&self) -> &str {
        Stream::id(self)
    }

    fn key(&self) -> StreamKey {
        match self {
            Stream::Text { id, .. } | Stream::Reasoning { id } => StreamKey::Message(id.clone()),
            Stream::Tool { id, .. } => StreamKey::Tool(id.clone()),
        }
    }
}

/// The lanes, by owner: the parent agent (`None`) or a subagent invocation.
type Lanes = lanes::Lanes<Option<SubagentRunId>, Stream>;

/// What the normalizer remembers between events.
#[derive(Clone, Debug, Default)]
struct State {
    /// The open lanes.
    lanes: Lanes,
    /// Index of the next event in the input.
    next_index: usize,
}

impl State {
    /// Expands one event into `out`. On error nothing has been emitted and nothing changed.
    ///
    /// Not inlined, so that [`ChunkNormalizer::push`] stays small enough to inline into its
    /// caller, and the `Expanded` it returns lives in registers there instead of going through
    /// memory.
    #[inline(never)]
    fn push(&mut self, event: Event, out: &mut Vec<Event>) -> Result<(), ChunkError> {
        let index = self.next_index;
        self.next_index += 1;
        // Chunks are taken apart by value: the compiler reads their fields where they lie.
        match event {
            Event::TextMessageChunk(chunk) => self.text(index, chunk, out),
            Event::ToolCallChunk(chunk) => self.tool(index, chunk, out),
            Event::ReasoningMessageChunk(chunk) => self.reasoning(index, chunk, out),
            event => self.pass(index, event, out),
        }
    }

    /// A non-chunk event: the ENDs of the lanes it closes ([`lanes::closes`]), then the event.
    /// An explicit END for an entity another owner's lane streams is refused here, at its own
    /// index (`chunk.closed-elsewhere`).
    fn pass(&mut self, index: usize, event: Event, out: &mut Vec<Event>) -> Result<(), ChunkError> {
        if !self.lanes.is_empty() {
            let end = match &event {
                Event::TextMessageEnd(e) => Some((Kind::Text, e.message_id.as_str())),
                Event::ToolCallEnd(e) => Some((Kind::Tool, e.tool_call_id.as_str())),
                Event::ReasoningMessageEnd(e) => Some((Kind::Reasoning, e.message_id.as_str())),
                _ => None,
            };
            if let Some((kind, id)) = end
                && let Some(seq) = self.lanes.streaming(kind, id)
                && self.lanes.get(seq).owner.as_ref() != event.attribution()
            {
                return Err(ChunkError::closed_elsewhere(
                    index,
                    event.event_type(),
                    kind,
                    event.attribution(),
                    id,
                    self.lanes.get(seq).owner.clone(),
                ));
            }
            match lanes::closes(&event) {
                Closes::Own(owner) => self.close(owner, out),
                Closes::Subagent(id) => self.close(Some(id), out),
                Closes::All => self.close_all(out),
                Closes::Nothing => {}
            }
        }
        out.push(event);
        Ok(())
    }

    /// Closes the lane of `owner`, if it is open.
    fn close(&mut self, owner: Option<&SubagentRunId>, out: &mut Vec<Event>) {
        if let Some(lane) = self.lanes.close(&owner.cloned()) {
            out.push(lane.stream.end(lane.owner));
        }
    }

    /// Closes every lane, in lane order.
    fn close_all(&mut self, out: &mut Vec<Event>) {
        if !self.lanes.is_empty() {
            out.extend(self.lanes.drain().map(|lane| lane.stream.end(lane.owner)));
        }
    }

    /// Closes the lane a chunk opening a new stream resolved to, if there is one.
    fn close_at(&mut self, resolved: Resolved, out: &mut Vec<Event>) {
        if let Resolved::Lane(seq) = resolved
            && let Some(lane) = self.lanes.remove(seq)
        {
            out.push(lane.stream.end(lane.owner));
        }
    }

    /// Finds the lane a chunk of `kind` belongs to ([`lanes::Lanes::resolve`]).
    fn resolve(
        &self,
        index: usize,
        kind: Kind,
        id: Option<&str>,
        tag: &Option<SubagentRunId>,
    ) -> Result<Resolved, ChunkError> {
        let owner = tag.is_some().then_some(tag);
        self.lanes.resolve(kind, id, owner).map_err(|conflict| {
            let (error, owners) = match conflict {
                Conflict::OwnerMismatch(owner) => (
                    ChunkError::new(ChunkErrorKind::OwnerMismatch, index, kind, tag.as_ref())
                        .with_id(id.unwrap_or_default())
                        .with_field("subagentRunId"),
                    vec![owner],
                ),
                Conflict::Ambiguous(owners) => (
                    ChunkError::new(ChunkErrorKind::Ambiguous, index, kind, tag.as_ref()),
                    owners,
                ),
            };
            let mut error = error;
            error.0.owners = owners;
            error
        })
    }

    /// A chunk that would open a stream but lacks `field` ([`lanes::missing_field`]).
    fn missing(
        index: usize,
        kind: Kind,
        tag: Option<&SubagentRunId>,
        id: Option<&str>,
        field: &'static str,
    ) -> ChunkError {
        match id {
            Some(id) if field == "toolCallName" => {
                ChunkError::new(ChunkErrorKind::MissingName, index, kind, tag)
                    .with_id(id)
                    .with_field(field)
            }
            _ => ChunkError::new(ChunkErrorKind::MissingId, index, kind, tag).with_field(field),
        }
    }

    /// The owner's attribution for a content event: the chunk's own tag, else the lane's owner.
    fn content_tag(&self, position: u64, tag: Option<SubagentRunId>) -> Option<SubagentRunId> {
        tag.or_else(|| self.lanes.get(position).owner.clone())
    }

    #[inline]
    fn text(
        &mut self,
        index: usize,
        chunk: TextMessageChunkEvent,
        out: &mut Vec<Event>,
    ) -> Result<(), ChunkError> {
        let TextMessageChunkEvent {
            message_id,
            role,
            delta,
            name,
            subagent_run_id: tag,
            timestamp: _,
            raw_event,
            metadata,
        } = chunk;
        let kind = Kind::Text;
        let chunk_id = message_id.as_ref().map(MessageId::as_str);
        let resolved = self.resolve(index, kind, chunk_id, &tag)?;
        if let Some(position) = self.lanes.continued(resolved, kind, chunk_id)
            && let Stream::Text {
                id,
                role: open_role,
                name: open_name,
            } = &self.lanes.get(position).stream
        {
            let opener = Fields {
                role: Some(*open_role),
                name: open_name.as_deref(),
                parent: None,
            };
            let fields = Fields {
                role,
                name: name.as_deref(),
                parent: None,
            };
            if let Some(m) = lanes::mismatch(kind, opener, fields) {
                return Err(ChunkError::field_mismatch(
                    index,
                    kind,
                    tag.as_ref(),
                    id.as_str(),
                    m.field,
                    m.found,
                    m.expected,
                ));
            }
            if delta.is_some() || raw_event.is_some() || metadata.is_some() {
                let message_id = message_id.unwrap_or_else(|| id.clone());
                let subagent_run_id = self.content_tag(position, tag);
                out.push(Event::TextMessageContent(TextMessageContentEvent {
                    message_id,
                    delta: delta.unwrap_or_default(),
                    subagent_run_id,
                    timestamp: None,
                    raw_event,
                    metadata,
                }));
            }
            return Ok(());
        }
        // A new stream in this lane.
        let missing = lanes::missing_field(kind, chunk_id, None);
        let (Some(id), None) = (message_id, missing) else {
            let field = missing.unwrap_or(kind.id_field());
            return Err(Self::missing(index, kind, tag.as_ref(), None, field));
        };
        self.close_at(resolved, out);
        let role = role.unwrap_or_default();
        let content = delta.is_some() || raw_event.is_some();
        let (start_metadata, metadata) = if content {
            (metadata.clone(), metadata)
        } else {
            (metadata, None)
        };
        out.push(Event::TextMessageStart(TextMessageStartEvent {
            message_id: id.clone(),
            role: Some(role),
            name: name.clone(),
            subagent_run_id: tag.clone(),
            timestamp: None,
            raw_event: None,
            metadata: start_metadata,
        }));
        if content {
            out.push(Event::TextMessageContent(TextMessageContentEvent {
                message_id: id.clone(),
                delta: delta.unwrap_or_default(),
                subagent_run_id: tag.clone(),
                timestamp: None,
                raw_event,
                metadata,
            }));
        }
        self.lanes.open(Lane {
            owner: tag,
            stream: Stream::Text { id, role, name },
        });
        Ok(())
    }

    #[inline]
    fn tool(
        &mut self,
        index: usize,
        chunk: ToolCallChunkEvent,
        out: &mut Vec<Event>,
    ) -> Result<(), ChunkError> {
        let ToolCallChunkEvent {
            tool_call_id,
            tool_call_name,
            delta,
            subagent_run_id: tag,
            parent_message_id,
            timestamp: _,
            raw_event,
            metadata,
        } = chunk;
        let kind = Kind::Tool;
        let chunk_id = tool_call_id.as_ref().map(ToolCallId::as_str);
        let resolved = self.resolve(index, kind, chunk_id, &tag)?;
        if let Some(position) = self.lanes.continued(resolved, kind, chunk_id)
            && let Stream::Tool { id, name, parent } = &self.lanes.get(position).stream
        {
            let opener = Fields {
                role: None,
                name: Some(name),
                parent: parent.as_ref().map(MessageId::as_str),
            };
            let fields = Fields {
                role: None,
                name: tool_call_name.as_deref(),
                parent: parent_message_id.as_ref().map(MessageId::as_str),
            };
            if let Some(m) = lanes::mismatch(kind, opener, fields) {
                return Err(ChunkError::field_mismatch(
                    index,
                    kind,
                    tag.as_ref(),
                    id.as_str(),
                    m.field,
                    m.found,
                    m.expected,
                ));
            }
            if delta.is_some() || raw_event.is_some() || metadata.is_some() {
                let tool_call_id = tool_call_id.unwrap_or_else(|| id.clone());
                let subagent_run_id = self.content_tag(position, tag);
                out.push(Event::ToolCallArgs(ToolCallArgsEvent {
                    tool_call_id,
                    delta: delta.unwrap_or_default(),
                    subagent_run_id,
                    timestamp: None,
                    raw_event,
                    metadata,
                }));
            }
            return Ok(());
        }
        if let Some(field) = lanes::missing_field(kind, chunk_id, tool_call_name.as_deref()) {
            return Err(Self::missing(index, kind, tag.as_ref(), chunk_id, field));
        }
        let (Some(id), Some(name)) = (tool_call_id, tool_call_name) else {
            return Err(Self::missing(
                index,
                kind,
                tag.as_ref(),
                None,
                kind.id_field(),
            ));
        };
        self.close_at(resolved, out);
        let content = delta.is_some() || raw_event.is_some();
        let (start_metadata, metadata) = if content {
            (metadata.clone(), metadata)
        } else {
            (metadata, None)
        };
        out.push(Event::ToolCallStart(ToolCallStartEvent {
            tool_call_id: id.clone(),
            tool_call_name: name.clone(),
            subagent_run_id: tag.clone(),
            parent_message_id: parent_message_id.clone(),
            timestamp: None,
            raw_event: None,
            metadata: start_metadata,
        }));
        if content {
            out.push(Event::ToolCallArgs(ToolCallArgsEvent {
                tool_call_id: id.clone(),
                delta: delta.unwrap_or_default(),
                subagent_run_id: tag.clone(),
                timestamp: None,
                raw_event,
                metadata,
            }));
        }
        self.lanes.open(Lane {
            owner: tag,
            stream: Stream::Tool {
                id,
                name,
                parent: parent_message_id,
            },
        });
        Ok(())
    }

    #[inline]
    fn reasoning(
        &mut self,
        index: usize,
        chunk: ReasoningMessageChunkEvent,
        out: &mut Vec<Event>,
    ) -> Result<(), ChunkError> {
        let ReasoningMessageChunkEvent {
            message_id,
            delta,
            subagent_run_id: tag,
            timestamp: _,
            raw_event,
            metadata,
        } = chunk;
        let kind = Kind::Reasoning;
        let chunk_id = message_id.as_ref().map(MessageId::as_str);
        let resolved = self.resolve(index, kind, chunk_id, &tag)?;
        if let Some(position) = self.lanes.continued(resolved, kind, chunk_id)
            && let Stream::Reasoning { id } = &self.lanes.get(position).stream
        {
            if delta.is_some() || raw_event.is_some() || metadata.is_some() {
                let message_id = message_id.unwrap_or_else(|| id.clone());
                let subagent_run_id = self.content_tag(position, tag);
                out.push(Event::ReasoningMessageContent(
                    ReasoningMessageContentEvent {
                        message_id,
                        delta: delta.unwrap_or_default(),
                        subagent_run_id,
                        timestamp: None,
                        raw_event,
                        metadata,
                    },
                ));
            }
            return Ok(());
        }
        let missing = lanes::missing_field(kind, chunk_id, None);
        let (Some(id), None) = (message_id, missing) else {
            let field = missing.unwrap_or(kind.id_field());
            return Err(Self::missing(index, kind, tag.as_ref(), None, field));
        };
        self.close_at(resolved, out);
        let content = delta.is_some() || raw_event.is_some();
        let (start_metadata, metadata) = if content {
            (metadata.clone(), metadata)
        } else {
            (metadata, None)
        };
        out.push(Event::ReasoningMessageStart(ReasoningMessageStartEvent {
            message_id: id.clone(),
            role: ReasoningRole::Reasoning,
            subagent_run_id: tag.clone(),
            timestamp: None,
            raw_event: None,
            metadata: start_metadata,
        }));
        if content {
            out.push(Event::ReasoningMessageContent(
                ReasoningMessageContentEvent {
                    message_id: id.clone(),
                    delta: delta.unwrap_or_default(),
                    subagent_run_id: tag.clone(),
                    timestamp: None,
                    raw_event,
                    metadata,
                },
            ));
        }
        self.lanes.open(Lane {
            owner: tag,
            stream: Stream::Reasoning { id },
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests;
