//! Chunk lanes: the one model of `*_CHUNK` streams, shared by the chunk normalizer
//! (`client::chunks`, which expands chunks into START / CONTENT / END) and the verifier's
//! emission mode (`verify`, which refuses chunks the normalizer would reject or expand into an
//! invalid stream). Both hold a [`Lanes`] table and ask it the same questions, so the two
//! cannot drift apart:
//!
//! * which lanes an event that is not a chunk closes: [`closes`];
//! * which lane a chunk belongs to, or why it belongs to none: [`Lanes::resolve`];
//! * whether it continues the stream held there: [`Lanes::continued`];
//! * what a continuation must repeat unchanged: [`mismatch`];
//! * what a chunk opening a stream must name: [`missing_field`].
//!
//! A lane belongs to one owner (the parent agent or one subagent invocation) and holds at most
//! one open stream. The rules are those of the reference client's `transformChunks`
//! (chunks.md in the protocol notes; the rule kinds are `chunk.*`, R52–R56).

use std::borrow::Borrow;
use std::collections::hash_map::{DefaultHasher, RandomState};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::BuildHasher;
use std::sync::OnceLock;

/// The hasher of the per-run tables (the lanes', the verifier's): SipHash keyed once per
/// process rather than once per table. A `RandomState` is 16 bytes inline in every map, and a
/// run's emission verifier holds fourteen maps (224 bytes of every open run); the keys stay
/// random and secret, so ids a peer chooses still cannot aim at one bucket.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Keys;

impl BuildHasher for Keys {
    type Hasher = DefaultHasher;

    #[inline]
    fn build_hasher(&self) -> DefaultHasher {
        static KEYS: OnceLock<RandomState> = OnceLock::new();
        KEYS.get_or_init(RandomState::new).build_hasher()
    }
}

/// A map on [`Keys`].
pub(crate) type Map<K, V> = HashMap<K, V, Keys>;
use std::hash::Hash;

use crate::{Event, EventType, SubagentRunId, TextMessageRole};

/// The three kinds of chunk stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LaneKind {
    /// `TEXT_MESSAGE_CHUNK`.
    Text,
    /// `TOOL_CALL_CHUNK`.
    Tool,
    /// `REASONING_MESSAGE_CHUNK`.
    Reasoning,
}

impl LaneKind {
    fn slot(self) -> usize {
        match self {
            LaneKind::Text => 0,
            LaneKind::Tool => 1,
            LaneKind::Reasoning => 2,
        }
    }

    /// The chunk event of this kind.
    pub(crate) fn chunk_type(self) -> EventType {
        match self {
            LaneKind::Text => EventType::TextMessageChunk,
            LaneKind::Tool => EventType::ToolCallChunk,
            LaneKind::Reasoning => EventType::ReasoningMessageChunk,
        }
    }

    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    /// What a stream of this kind builds, for messages.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            LaneKind::Text => "text message",
            LaneKind::Tool => "tool call",
            LaneKind::Reasoning => "reasoning message",
        }
    }

    /// The wire name of the chunk's id field.
    pub(crate) fn id_field(self) -> &'static str {
        match self {
            LaneKind::Tool => "toolCallId",
            LaneKind::Text | LaneKind::Reasoning => "messageId",
        }
    }
}

/// The lanes an event that is not a chunk closes before it takes effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Closes<'a> {
    /// The lane of the event's own attribution (`None`: the parent's).
    Own(Option<&'a SubagentRunId>),
    /// The lane of the subagent the event ends.
    Subagent(&'a SubagentRunId),
    /// Every lane, in the order they were opened.
    All,
    /// None.
    Nothing,
}

/// Which lanes `event` closes (chunks.md §2):
///
/// | events | lanes closed |
/// |---|---|
/// | explicit text, tool call and reasoning events (`TOOL_CALL_RESULT`, `REASONING_START` / `_END` too), `STATE_SNAPSHOT`, `STATE_DELTA`, `CUSTOM`, `STEP_STARTED`, `STEP_FINISHED` | the lane of the event's own attribution |
/// | `RUN_STARTED`, `RUN_FINISHED`, `RUN_ERROR`, `MESSAGES_SNAPSHOT` | every lane |
/// | `SUBAGENT_FINISHED`, `SUBAGENT_ERROR` | the lane of the subagent they name |
/// | `RAW`, `ACTIVITY_SNAPSHOT`, `ACTIVITY_DELTA`, `REASONING_ENCRYPTED_VALUE`, `SUBAGENT_STARTED`, and the chunks themselves | none |
pub(crate) fn closes(event: &Event) -> Closes<'_> {
    use Event::*;
    match event {
        TextMessageStart(_)
        | TextMessageContent(_)
        | TextMessageEnd(_)
        | ToolCallStart(_)
        | ToolCallArgs(_)
        | ToolCallEnd(_)
        | ToolCallResult(_)
        | StateSnapshot(_)
        | StateDelta(_)
        | Custom(_)
        | StepStarted(_)
        | StepFinished(_)
        | ReasoningStart(_)
        | ReasoningMessageStart(_)
        | ReasoningMessageContent(_)
        | ReasoningMessageEnd(_)
        | ReasoningEnd(_) => Closes::Own(event.attribution()),
        RunStarted(_) | RunFinished(_) | RunError(_) | MessagesSnapshot(_) => Closes::All,
        SubagentFinished(e) => Closes::Subagent(&e.subagent_run_id),
        SubagentError(e) => Closes::Subagent(&e.subagent_run_id),
        Raw(_)
        | ActivitySnapshot(_)
        | ActivityDelta(_)
        | ReasoningEncryptedValue(_)
        | SubagentStarted(_)
        | TextMessageChunk(_)
        | ToolCallChunk(_)
        | ReasoningMessageChunk(_) => Closes::Nothing,
    }
}

/// The fields of a chunk (or of the opener of a stream) that a continuation must not change:
/// the text `role` and `name`; the tool's `toolCallName` (here `name`) and `parentMessageId`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Fields<'a> {
    /// Text: the role. In an opener, the established one (absent reads as assistant).
    pub(crate) role: Option<TextMessageRole>,
    /// Text: the display name; tool call: the tool name.
    pub(crate) name: Option<&'a str>,
    /// Tool call: the parent message.
    pub(crate) parent: Option<&'a str>,
}

/// A continuation that repeats an opener field with another value (`chunk.field-mismatch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mismatch<'a> {
    /// The field, by its wire name.
    pub(crate) field: &'static str,
    /// The chunk's value.
    pub(crate) found: &'a str,
    /// The opener's value; `None` when it had none.
    pub(crate) expected: Option<&'a str>,
}

/// The first field a continuation chunk of `kind` repeats with a value other than its
/// `opener`'s: a field the chunk leaves out never differs; one the opener left out differs from
/// any value (except the text role, which an opener always establishes).
pub(crate) fn mismatch<'a>(
    kind: LaneKind,
    opener: Fields<'a>,
    chunk: Fields<'a>,
) -> Option<Mismatch<'a>> {
    let differs = |field, found: Option<&'a str>, expected: Option<&'a str>| {
        let found = found?;
        (expected != Some(found)).then_some(Mismatch {
            field,
            found,
            expected,
        })
    };
    match kind {
        LaneKind::Text => {
            let role = |r: Option<TextMessageRole>| r.map(TextMessageRole::as_str);
            differs("role", role(chunk.role), role(opener.role))
                .or_else(|| differs("name", chunk.name, opener.name))
        }
        LaneKind::Tool => differs("toolCallName", chunk.name, opener.name)
            .or_else(|| differs("parentMessageId", chunk.parent, opener.parent)),
        LaneKind::Reasoning => None,
    }
}

/// The field a chunk of `kind` that opens a new stream lacks, if any: its id (`messageId` /
/// `toolCallId`, `chunk.missing-id`), then for a tool call the tool name (`toolCallName`,
/// `chunk.missing-name`).
pub(crate) fn missing_field(
    kind: LaneKind,
    id: Option<&str>,
    name: Option<&str>,
) -> Option<&'static str> {
    if id.is_none() {
        Some(kind.id_field())
    } else if kind == LaneKind::Tool && name.is_none() {
        Some("toolCallName")
    } else {
        None
    }
}

/// What a lane's stream tells the table about itself.
pub(crate) trait Stream {
    /// How the table's id index holds the stream's id.
    type Key: Borrow<str> + Hash + Eq;

    /// The kind of stream.
    fn kind(&self) -> LaneKind;
    /// The stream's id.
    fn id(&self) -> &str;
    /// The stream's id, for the index.
    fn key(&self) -> Self::Key;
}

/// One owner's lane and the stream open in it.
#[derive(Clone, Debug)]
pub(crate) struct Lane<O, S> {
    /// The owner: the parent agent or a subagent invocation.
    pub(crate) owner: O,
    /// The stream the lane holds.
    pub(crate) stream: S,
}

/// Where a chunk goes ([`Lanes::resolve`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// The lane opened with this number (which may hold a stream of another kind or id).
    Lane(u64),
    /// The chunk's owner has no lane.
    Empty,
}

/// Why a chunk belongs to no lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Conflict<O> {
    /// `chunk.owner-mismatch`: it names an id this other owner's lane is streaming.
    OwnerMismatch(O),
    /// `chunk.ambiguous`: it names neither id nor owner, the parent streams nothing of its kind,
    /// and these owners' lanes all do (in lane order).
    Ambiguous(Vec<O>),
}

/// Up to this many open lanes, finding one is a scan; past it, the indexes answer.
const FEW_LANES: usize = 8;

/// The open lanes, in the order they were opened, found by owner, by stream id or by kind in
/// time that does not grow with their number (a run with 40,000 subagents may have as many).
///
/// `O` is the owner (its `Default` is the parent agent), `S` the stream with what its opener
/// established.
#[derive(Clone, Debug)]
pub(crate) struct Lanes<O, S: Stream> {
    /// The lanes by the number they were opened with: in opening order.
    by_seq: BTreeMap<u64, Lane<O, S>>,
    next_seq: u64,
    /// The lane of each owner.
    owners: Map<O, u64>,
    /// The lane streaming each id, per kind.
    ids: [Map<S::Key, u64>; 3],
    /// The lanes streaming each kind, in opening order.
    kinds: [BTreeSet<u64>; 3],
    /// Tests set this to check that the indexes find what a scan finds.
    #[cfg(test)]
    pub(crate) always_indexed: bool,
}

impl<O, S: Stream> Lanes<O, S> {
    /// No lane open; allocates nothing.
    pub(crate) const fn new() -> Self {
        Lanes {
            by_seq: BTreeMap::new(),
            next_seq: 0,
            owners: Map::with_hasher(Keys),
            ids: [
                Map::with_hasher(Keys),
                Map::with_hasher(Keys),
                Map::with_hasher(Keys),
            ],
            kinds: [BTreeSet::new(), BTreeSet::new(), BTreeSet::new()],
            #[cfg(test)]
            always_indexed: false,
        }
    }
}

impl<O, S: Stream> Default for Lanes<O, S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<O: Clone + Default + Hash + Eq, S: Stream> Lanes<O, S> {
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    /// How many lanes are open.
    pub(crate) fn len(&self) -> usize {
        self.by_seq.len()
    }

    /// Whether no lane is open.
    pub(crate) fn is_empty(&self) -> bool {
        self.by_seq.is_empty()
    }

    fn few(&self) -> bool {
        #[cfg(test)]
        if self.always_indexed {
            return false;
        }
        self.by_seq.len() <= FEW_LANES
    }

    /// The lane opened with `seq`, which is open.
    pub(crate) fn get(&self, seq: u64) -> &Lane<O, S> {
        &self.by_seq[&seq]
    }

    /// Opens a lane at the back of the order. Its owner has no lane open.
    pub(crate) fn open(&mut self, lane: Lane<O, S>) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.owners.insert(lane.owner.clone(), seq);
        let slot = lane.stream.kind().slot();
        self.ids[slot].insert(lane.stream.key(), seq);
        self.kinds[slot].insert(seq);
        self.by_seq.insert(seq, lane);
    }

    /// Removes the lane opened with `seq`, if it is open.
    pub(crate) fn remove(&mut self, seq: u64) -> Option<Lane<O, S>> {
        let lane = self.by_seq.remove(&seq)?;
        self.owners.remove(&lane.owner);
        let slot = lane.stream.kind().slot();
        self.ids[slot].remove(lane.stream.id());
        self.kinds[slot].remove(&seq);
        Some(lane)
    }

    /// Removes the lane of `owner`, if it has one.
    pub(crate) fn close(&mut self, owner: &O) -> Option<Lane<O, S>> {
        if self.is_empty() {
            return None;
        }
        let seq = self.of_owner(owner)?;
        self.remove(seq)
    }

    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    /// Every lane, in opening order, leaving none.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = Lane<O, S>> + use<O, S> {
        self.owners.clear();
        self.ids.iter_mut().for_each(Map::clear);
        self.kinds.iter_mut().for_each(BTreeSet::clear);
        std::mem::take(&mut self.by_seq).into_values()
    }

    /// The lane of `owner`.
    pub(crate) fn of_owner(&self, owner: &O) -> Option<u64> {
        if self.few() {
            return self
                .by_seq
                .iter()
                .find(|(_, l)| l.owner == *owner)
                .map(|(&seq, _)| seq);
        }
        self.owners.get(owner).copied()
    }

    /// The lane streaming `id` as a stream of `kind`.
    pub(crate) fn streaming(&self, kind: LaneKind, id: &str) -> Option<u64> {
        if self.few() {
            return self
                .by_seq
                .iter()
                .find(|(_, l)| l.stream.kind() == kind && l.stream.id() == id)
                .map(|(&seq, _)| seq);
        }
        self.ids[kind.slot()].get(id).copied()
    }

    /// The lanes streaming `kind`, in opening order.
    fn of_kind(&self, kind: LaneKind) -> impl Iterator<Item = u64> + '_ {
        self.kinds[kind.slot()].iter().copied()
    }

    fn lane_of(&self, owner: &O) -> Resolved {
        self.of_owner(owner).map_or(Resolved::Empty, Resolved::Lane)
    }

    /// The lane a chunk of `kind` belongs to (chunks.md §3), given its id and its own
    /// attribution `tag` (`None`: unattributed):
    ///
    /// * with an id, the lane streaming that id, unless the chunk is attributed to another
    ///   owner ([`Conflict::OwnerMismatch`]); if no lane streams it, the lane of its owner;
    /// * with an attribution only, that owner's lane;
    /// * with neither, the parent's lane if it streams this kind, else the one lane that does;
    ///   several are [`Conflict::Ambiguous`]; none, the parent's lane.
    ///
    /// # Errors
    ///
    /// The [`Conflict`] that leaves the chunk without a lane.
    pub(crate) fn resolve(
        &self,
        kind: LaneKind,
        id: Option<&str>,
        tag: Option<&O>,
    ) -> Result<Resolved, Conflict<O>> {
        let parent = O::default();
        if let Some(id) = id {
            if let Some(seq) = self.streaming(kind, id) {
                let owner = &self.get(seq).owner;
                if let Some(tag) = tag
                    && tag != owner
                {
                    return Err(Conflict::OwnerMismatch(owner.clone()));
                }
                return Ok(Resolved::Lane(seq));
            }
            return Ok(self.lane_of(tag.unwrap_or(&parent)));
        }
        if let Some(tag) = tag {
            return Ok(self.lane_of(tag));
        }
        let in_parent = self.of_owner(&parent);
        if let Some(seq) = in_parent
            && self.get(seq).stream.kind() == kind
        {
            return Ok(Resolved::Lane(seq));
        }
        let mut candidates = self.of_kind(kind);
        match (candidates.next(), candidates.next()) {
            (Some(seq), None) => Ok(Resolved::Lane(seq)),
            (Some(_), Some(_)) => Err(Conflict::Ambiguous(
                self.of_kind(kind)
                    .map(|seq| self.get(seq).owner.clone())
                    .collect(),
            )),
            (None, _) => Ok(in_parent.map_or(Resolved::Empty, Resolved::Lane)),
        }
    }

    /// The lane whose stream a chunk of `kind` naming `id` (or no id) continues, given where it
    /// [resolved](Self::resolve) to: that lane, when its stream has the chunk's kind and the
    /// chunk names no id or the stream's. Otherwise the chunk opens a new stream, closing the
    /// lane it resolved to.
    pub(crate) fn continued(
        &self,
        resolved: Resolved,
        kind: LaneKind,
        id: Option<&str>,
    ) -> Option<u64> {
        let Resolved::Lane(seq) = resolved else {
            return None;
        };
        let stream = &self.get(seq).stream;
        (stream.kind() == kind && id.is_none_or(|id| id == stream.id())).then_some(seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug)]
    struct S(LaneKind, Box<str>);

    impl Stream for S {
        type Key = Box<str>;
        fn kind(&self) -> LaneKind {
            self.0
        }
        fn id(&self) -> &str {
            &self.1
        }
        fn key(&self) -> Box<str> {
            self.1.clone()
        }
    }

    fn table(indexed: bool) -> Lanes<u32, S> {
        let mut lanes = Lanes {
            always_indexed: indexed,
            ..Lanes::default()
        };
        lanes.open(Lane {
            owner: 1,
            stream: S(LaneKind::Text, "m1".into()),
        });
        lanes.open(Lane {
            owner: 2,
            stream: S(LaneKind::Text, "m2".into()),
        });
        lanes.open(Lane {
            owner: 3,
            stream: S(LaneKind::Tool, "c3".into()),
        });
        lanes
    }

    #[test]
    fn resolution_follows_the_rules_with_and_without_the_indexes() {
        for indexed in [false, true] {
            let lanes = table(indexed);
            let text = LaneKind::Text;
            // By id, whoever streams it; a tag naming another owner is a mismatch.
            assert_eq!(lanes.resolve(text, Some("m2"), None), Ok(Resolved::Lane(1)));
            assert_eq!(
                lanes.resolve(text, Some("m2"), Some(&2)),
                Ok(Resolved::Lane(1))
            );
            assert_eq!(
                lanes.resolve(text, Some("m2"), Some(&1)),
                Err(Conflict::OwnerMismatch(2))
            );
            // An id streamed as another kind: the chunk's own lane.
            assert_eq!(
                lanes.resolve(text, Some("c3"), Some(&3)),
                Ok(Resolved::Lane(2))
            );
            assert_eq!(lanes.resolve(text, Some("new"), None), Ok(Resolved::Empty));
            // No id: the tag's lane; untagged, the one lane of the kind, or ambiguous.
            assert_eq!(lanes.resolve(text, None, Some(&2)), Ok(Resolved::Lane(1)));
            assert_eq!(
                lanes.resolve(LaneKind::Tool, None, None),
                Ok(Resolved::Lane(2))
            );
            assert_eq!(
                lanes.resolve(text, None, None),
                Err(Conflict::Ambiguous(vec![1, 2]))
            );
            assert_eq!(
                lanes.resolve(LaneKind::Reasoning, None, None),
                Ok(Resolved::Empty)
            );
            // Continuing: same kind, and no id or the same one.
            let at = |id| lanes.resolve(text, id, Some(&1)).unwrap();
            assert_eq!(lanes.continued(at(None), text, None), Some(0));
            assert_eq!(lanes.continued(at(Some("m1")), text, Some("m1")), Some(0));
            assert_eq!(
                lanes.continued(at(Some("other")), text, Some("other")),
                None
            );
        }
    }

    #[test]
    fn the_parent_lane_goes_first_for_unattributed_chunks() {
        for indexed in [false, true] {
            let mut lanes = table(indexed);
            lanes.open(Lane {
                owner: 0,
                stream: S(LaneKind::Text, "p".into()),
            });
            assert_eq!(
                lanes.resolve(LaneKind::Text, None, None),
                Ok(Resolved::Lane(3))
            );
            // Its lane holds a text stream: a tool chunk without id still goes to the tool lane.
            assert_eq!(
                lanes.resolve(LaneKind::Tool, None, None),
                Ok(Resolved::Lane(2))
            );
            let closed = lanes.close(&0).unwrap();
            assert_eq!(closed.stream.id(), "p");
            assert_eq!(lanes.streaming(LaneKind::Text, "p"), None);
            let order: Vec<u32> = lanes.drain().map(|l| l.owner).collect();
            assert_eq!(order, [1, 2, 3]);
            assert!(lanes.is_empty());
        }
    }

    #[test]
    fn mismatches_and_missing_fields() {
        let opener = Fields {
            role: Some(TextMessageRole::Assistant),
            name: None,
            parent: Some("p"),
        };
        let chunk = |role, name, parent| Fields { role, name, parent };
        assert_eq!(
            mismatch(LaneKind::Text, opener, chunk(None, None, None)),
            None
        );
        assert_eq!(
            mismatch(
                LaneKind::Text,
                opener,
                chunk(Some(TextMessageRole::User), Some("n"), None)
            )
            .map(|m| (m.field, m.found, m.expected)),
            Some(("role", "user", Some("assistant")))
        );
        assert_eq!(
            mismatch(LaneKind::Text, opener, chunk(None, Some("n"), None)).map(|m| m.field),
            Some("name")
        );
        assert_eq!(
            mismatch(LaneKind::Tool, opener, chunk(None, None, Some("q")))
                .map(|m| (m.field, m.expected)),
            Some(("parentMessageId", Some("p")))
        );
        assert_eq!(
            mismatch(LaneKind::Reasoning, opener, chunk(None, Some("x"), None)),
            None
        );
        assert_eq!(
            missing_field(LaneKind::Tool, None, None),
            Some("toolCallId")
        );
        assert_eq!(
            missing_field(LaneKind::Tool, Some("c"), None),
            Some("toolCallName")
        );
        assert_eq!(
            missing_field(LaneKind::Reasoning, None, None),
            Some("messageId")
        );
        assert_eq!(missing_field(LaneKind::Text, Some("m"), None), None);
    }
}
