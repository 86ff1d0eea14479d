//! Emission mode: the chunk lanes a client's normalizer would hold open, checked as the chunks
//! are emitted — a chunk must carry its id, repeat its opener's name and fields unchanged, and
//! not continue an id another owner is streaming. The lanes and their rules are the normalizer's
//! own ([`crate::lanes`]): which lane a chunk resolves to, whether it continues the stream there,
//! what it must repeat, what an opener must name, and which events close lanes.

use super::*;
use crate::lanes::{self, Closes, Conflict, Fields, Lane, LaneKind, Resolved};

/// Emission mode: the stream a client's normalizer would hold open in a lane, with the
/// opener's fields that continuation chunks must repeat unchanged.
#[derive(Clone, Debug)]
pub(super) struct EmitStream {
    kind: LaneKind,
    id: Box<str>,
    /// Text: the established role (the opener's, or assistant).
    role: TextMessageRole,
    /// Text: the display name; tool: the tool name.
    name: Option<Box<str>>,
    /// Tool: the parent message.
    parent: Option<Box<str>>,
}

impl EmitStream {
    /// What the opener established.
    fn opener(&self) -> Fields<'_> {
        Fields {
            role: Some(self.role),
            name: self.name.as_deref(),
            parent: self.parent.as_deref(),
        }
    }
}

impl lanes::Stream for EmitStream {
    type Key = Box<str>;

    fn kind(&self) -> LaneKind {
        self.kind
    }

    fn id(&self) -> &str {
        &self.id
    }

    fn key(&self) -> Box<str> {
        self.id.clone()
    }
}

/// The lanes of emission mode: the shared lane model, owners interned.
pub(super) type Lanes = lanes::Lanes<Owner, EmitStream>;

/// Emission mode only: what each owner has open, and the chunk stream pending in each lane.
#[derive(Clone, Debug, Default)]
pub(super) struct Emission {
    pub(super) text: Map<Owner, Box<str>>,
    pub(super) span: Map<Owner, Box<str>>,
    pub(super) reasoning_message: Map<Owner, Box<str>>,
    pub(super) lanes: LazyLanes,
}

/// The lanes, allocated at the first chunk: most runs emit none, and the table is about 230
/// bytes that every open run would otherwise hold. Reads through `Deref` see an empty table
/// until then; `DerefMut` allocates; `clear` gives the memory back.
#[derive(Clone, Debug, Default)]
pub(super) struct LazyLanes(pub(super) Option<Box<Lanes>>);

/// What a run without chunks reads.
static NO_LANES: Lanes = Lanes::new();

impl LazyLanes {
    /// Closes every lane, and frees the table.
    pub(super) fn clear(&mut self) {
        self.0 = None;
    }
}

impl std::ops::Deref for LazyLanes {
    type Target = Lanes;

    fn deref(&self) -> &Lanes {
        self.0.as_deref().unwrap_or(&NO_LANES)
    }
}

impl std::ops::DerefMut for LazyLanes {
    fn deref_mut(&mut self) -> &mut Lanes {
        self.0.get_or_insert_with(Box::default)
    }
}

impl Emission {
    pub(super) fn clear(&mut self) {
        self.text.clear();
        self.span.clear();
        self.reasoning_message.clear();
        self.lanes.clear();
    }
}

impl Engine {
    /// A chunk in emission mode: self-contained, so it must carry its id; it registers the
    /// id's owner like an opener would and must agree with everything the expanded
    /// START / CONTENT would be checked against.
    pub(super) fn chunk(
        &mut self,
        kind: LaneKind,
        id: Option<&str>,
        tag: Option<&str>,
        fields: Fields<'_>,
    ) -> Check {
        let ty = kind.chunk_type();
        let Some(id) = id else {
            return Err(Fail::new(
                ViolationKind::EmitChunkMissingId,
                Vec::new(),
                format!(
                    "{ty} without {}: an emitted chunk is self-contained and must name its {}",
                    kind.id_field(),
                    if kind == LaneKind::Tool {
                        "tool call"
                    } else {
                        "message"
                    }
                ),
            ));
        };
        if self.emission.is_none() {
            return Ok(());
        }
        let streaming = self.chunk_stream(kind, id, tag, fields)?;
        let continues = streaming.is_some();
        let recorded = self.chunk_entity(kind, id, tag)?;
        let mut inherited = None;
        if kind == LaneKind::Tool && !continues {
            // The id is there; what else an opener must name.
            if lanes::missing_field(kind, Some(id), fields.name).is_some() {
                return Err(Fail::new(
                    ViolationKind::EmitChunkMissingName,
                    vec![id.to_owned()],
                    format!(
                        "TOOL_CALL_CHUNK starts tool call {} without toolCallName",
                        show(id)
                    ),
                ));
            }
            inherited = self.owner_check_for_tool(id, fields.parent, tag, recorded)?;
        }
        let owner = match (recorded, streaming) {
            (Some(owner), _) => owner,
            (None, Some(lane)) => lane,
            (None, None) => match tag {
                Some(_) => self.owners.intern(tag),
                None => inherited.unwrap_or(Owner::PARENT),
            },
        };
        if !continues && kind != LaneKind::Tool {
            self.one_block_per_owner(kind, id, owner)?;
        }
        if recorded.is_none() {
            self.register_chunk(kind, id, owner);
        }
        if !continues {
            self.open_chunk_stream(kind, id, tag, fields);
        }
        Ok(())
    }

    /// The chunk stream `id` continues, if it continues one: the owner of its lane. A
    /// continuation must come from the lane's owner and keep the opener's fields.
    fn chunk_stream(
        &self,
        kind: LaneKind,
        id: &str,
        tag: Option<&str>,
        fields: Fields<'_>,
    ) -> Result<Option<Owner>, Fail> {
        let ty = kind.chunk_type();
        let Some(emission) = &self.emission else {
            return Ok(None);
        };
        // The lane the normalizer would put it in: the one already streaming this id, else the
        // chunk's own. A tag naming no owner yet matches no lane.
        let tag_owner = tag.map(|tag| self.owners.find(Some(tag)).unwrap_or(Owner::UNSEEN));
        let resolved = match emission.lanes.resolve(kind, Some(id), tag_owner.as_ref()) {
            Ok(resolved) => resolved,
            // The chunk continues that stream: its tag must name the lane's owner (the
            // normalizer rejects anything else).
            Err(Conflict::OwnerMismatch(lane_owner)) => {
                return Err(Fail::new(
                    ViolationKind::OwnerMismatch,
                    vec![id.to_owned(), tag.unwrap_or_default().to_owned()],
                    format!(
                        "{ty} continues the chunk stream {} of {} but was sent by {}",
                        show(id),
                        self.owners.label(lane_owner),
                        tag_label(tag)
                    ),
                ));
            }
            // Only a chunk without an id can be ambiguous.
            Err(Conflict::Ambiguous(_)) => Resolved::Empty,
        };
        let continued = emission.lanes.continued(resolved, kind, Some(id));
        // A continuation must not change the opener's fields.
        if let Some(seq) = continued
            && let Some(mismatch) =
                lanes::mismatch(kind, emission.lanes.get(seq).stream.opener(), fields)
        {
            return Err(Fail::new(
                ViolationKind::EmitChunkFieldMismatch,
                vec![id.to_owned()],
                format!(
                    "{ty} continues {} with a different {} than the chunk that opened it: repeat the opener's value or leave it out",
                    show(id),
                    mismatch.field
                ),
            ));
        }
        Ok(continued.map(|seq| emission.lanes.get(seq).owner))
    }

    /// What the id already is, as explicit events: its recorded owner, if it has one, which
    /// the chunk's tag must name. A chunk for an entity open as explicit events is refused.
    fn chunk_entity(
        &self,
        kind: LaneKind,
        id: &str,
        tag: Option<&str>,
    ) -> Result<Option<Owner>, Fail> {
        let ty = kind.chunk_type();
        let (open_now, recorded) = match kind {
            LaneKind::Text => match self.messages.get(id) {
                Some(e) => (e.open.is_some(), Some(e.owner)),
                None => (false, None),
            },
            LaneKind::Tool => match self.tool_calls.get(id) {
                Some(e) => (e.open.is_some(), Some(e.owner)),
                None => (false, None),
            },
            LaneKind::Reasoning => match self.reasoning.get(id) {
                Some(e) => (e.message.is_some(), Some(e.owner)),
                None => (false, None),
            },
        };
        if open_now {
            let (kind, what, end) = match kind {
                LaneKind::Text => (
                    ViolationKind::TextAlreadyOpen,
                    "text message",
                    "TEXT_MESSAGE_END",
                ),
                LaneKind::Tool => (ViolationKind::ToolAlreadyOpen, "tool call", "TOOL_CALL_END"),
                LaneKind::Reasoning => (
                    ViolationKind::ReasoningMessageAlreadyOpen,
                    "reasoning message",
                    "REASONING_MESSAGE_END",
                ),
            };
            return Err(Fail::new(
                kind,
                vec![id.to_owned()],
                format!(
                    "{ty} for {what} {} which is open as explicit events: close it with {end} first",
                    show(id)
                ),
            ));
        }
        let what = match kind {
            LaneKind::Text => "message",
            LaneKind::Tool => "tool call",
            LaneKind::Reasoning => "reasoning",
        };
        if let Some(owner) = recorded {
            self.check_owner(ty, what, id, owner, tag)?;
        }
        Ok(recorded)
    }

    /// One open block per owner: a chunk starting a text or reasoning stream while its owner
    /// has an explicit one of the same family open is refused.
    fn one_block_per_owner(&self, kind: LaneKind, id: &str, owner: Owner) -> Check {
        let ty = kind.chunk_type();
        let Some(emission) = &self.emission else {
            return Ok(());
        };
        let (slots, kind, what) = if kind == LaneKind::Text {
            (
                &emission.text,
                ViolationKind::EmitTextAlreadyOpen,
                "text message",
            )
        } else {
            (
                &emission.reasoning_message,
                ViolationKind::EmitReasoningAlreadyOpen,
                "reasoning message",
            )
        };
        if let Some(open) = slots.get(&owner) {
            return Err(Fail::new(
                kind,
                vec![id.to_owned(), open.to_string()],
                format!(
                    "{ty} for {} while {} still has {what} {} open: close {} first",
                    show(id),
                    self.owners.label(owner),
                    show(open),
                    show(open)
                ),
            ));
        }
        Ok(())
    }

    /// Registers the id a chunk introduces, with its owner, as an opener would.
    fn register_chunk(&mut self, kind: LaneKind, id: &str, owner: Owner) {
        match kind {
            LaneKind::Text => {
                self.messages.insert(id.into(), Entry { owner, open: None });
            }
            LaneKind::Tool => {
                self.tool_calls
                    .insert(id.into(), Entry { owner, open: None });
            }
            LaneKind::Reasoning => {
                self.reasoning.insert(
                    id.into(),
                    ReasoningEntry {
                        owner,
                        span: None,
                        message: None,
                    },
                );
            }
        }
    }

    /// A new chunk stream in the chunk's own lane, closing what that lane held.
    fn open_chunk_stream(
        &mut self,
        kind: LaneKind,
        id: &str,
        tag: Option<&str>,
        fields: Fields<'_>,
    ) {
        let lane = self.owners.intern(tag);
        if let Some(emission) = &mut self.emission {
            emission.lanes.close(&lane);
            emission.lanes.open(Lane {
                owner: lane,
                stream: EmitStream {
                    kind,
                    id: id.into(),
                    role: fields.role.unwrap_or_default(),
                    name: fields.name.map(Into::into),
                    parent: fields.parent.map(Into::into),
                },
            });
        }
    }

    /// Emission mode: the owner of the lane streaming `id` as chunks of `kind`, if one does.
    pub(super) fn streaming_owner(&self, kind: LaneKind, id: &str) -> Option<Owner> {
        let lanes = &self.emission.as_ref()?.lanes;
        lanes.streaming(kind, id).map(|seq| lanes.get(seq).owner)
    }

    /// Emission mode: an explicit opener for an id that another lane is still streaming as
    /// chunks (its own lane is closed first, so that one does not count) would be a second
    /// START for an open id on the client.
    pub(super) fn chunk_pending_elsewhere(
        &self,
        kind: LaneKind,
        ty: EventType,
        id: &str,
        tag: Option<&str>,
    ) -> Check {
        let own = self.owners.find(tag);
        let Some(lane_owner) = self.streaming_owner(kind, id).filter(|o| Some(*o) != own) else {
            return Ok(());
        };
        let violation = match kind {
            LaneKind::Text => ViolationKind::TextAlreadyOpen,
            LaneKind::Tool => ViolationKind::ToolAlreadyOpen,
            LaneKind::Reasoning => ViolationKind::ReasoningMessageAlreadyOpen,
        };
        Err(Fail::new(
            violation,
            vec![id.to_owned()],
            format!(
                "{ty} for {} which {} is still streaming as chunks",
                show(id),
                self.owners.label(lane_owner)
            ),
        ))
    }

    /// Emission mode, after `event` was accepted: the lanes it closes, by the normalizer's
    /// table ([`lanes::closes`]).
    pub(super) fn close_lanes(&mut self, event: &Event) {
        let Some(emission) = &mut self.emission else {
            return;
        };
        if emission.lanes.is_empty() {
            return;
        }
        let owner = match lanes::closes(event) {
            Closes::Nothing => return,
            Closes::All => return emission.lanes.clear(),
            Closes::Own(tag) => self.owners.find(tag.map(SubagentRunId::as_str)),
            Closes::Subagent(id) => self.owners.find(Some(id.as_str())),
        };
        if let Some(owner) = owner {
            emission.lanes.close(&owner);
        }
    }
}
