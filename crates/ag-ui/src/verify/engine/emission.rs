//! Emission mode: the chunk lanes a client's expander would hold open, checked as the chunks
//! are emitted — a chunk must carry its id, repeat its opener's name and fields unchanged, and
//! not continue an id another owner is streaming.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ChunkKind {
    Text,
    Tool,
    Reasoning,
}

/// Emission mode: the chunk stream the client's expander would hold open in a lane, with the
/// opener's fields that continuation chunks must repeat unchanged.
#[derive(Clone, Debug)]
pub(super) struct Lane {
    pub(super) kind: ChunkKind,
    pub(super) id: Box<str>,
    /// Text: the established role (the opener's, or assistant).
    pub(super) role: TextMessageRole,
    /// Text: the display name; tool: the tool name.
    pub(super) name: Option<Box<str>>,
    /// Tool: the parent message.
    pub(super) parent: Option<Box<str>>,
}

/// The fields of a chunk beyond its id and tag.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ChunkFields<'a> {
    pub(super) role: Option<TextMessageRole>,
    pub(super) name: Option<&'a str>,
    pub(super) parent: Option<&'a str>,
}

/// Emission mode only: what each owner has open, and the chunk stream pending in each lane.
#[derive(Clone, Debug, Default)]
pub(super) struct Emission {
    pub(super) text: HashMap<Owner, Box<str>>,
    pub(super) span: HashMap<Owner, Box<str>>,
    pub(super) reasoning_message: HashMap<Owner, Box<str>>,
    pub(super) lanes: Lanes,
}

impl Emission {
    pub(super) fn clear(&mut self) {
        self.text.clear();
        self.span.clear();
        self.reasoning_message.clear();
        self.lanes.clear();
    }
}

/// Emission mode: the pending chunk stream of each owner, and which owner streams each id (one
/// at most: a chunk for an id streamed elsewhere continues there), so that finding the stream
/// of an id costs no scan of the lanes, however many subagents have one open.
#[derive(Clone, Debug, Default)]
pub(super) struct Lanes {
    pub(super) by_owner: HashMap<Owner, Lane>,
    /// Per kind (text, tool call, reasoning): the owner streaming each id.
    pub(super) by_id: [HashMap<Box<str>, Owner>; 3],
}

pub(super) fn chunk_slot(kind: ChunkKind) -> usize {
    match kind {
        ChunkKind::Text => 0,
        ChunkKind::Tool => 1,
        ChunkKind::Reasoning => 2,
    }
}

impl Lanes {
    pub(super) fn is_empty(&self) -> bool {
        self.by_owner.is_empty()
    }

    pub(super) fn clear(&mut self) {
        self.by_owner.clear();
        self.by_id.iter_mut().for_each(HashMap::clear);
    }

    /// Opens `owner`'s lane, replacing the stream it had pending.
    pub(super) fn insert(&mut self, owner: Owner, lane: Lane) {
        self.remove(&owner);
        self.by_id[chunk_slot(lane.kind)].insert(lane.id.clone(), owner);
        self.by_owner.insert(owner, lane);
    }

    pub(super) fn remove(&mut self, owner: &Owner) {
        if let Some(lane) = self.by_owner.remove(owner) {
            let ids = &mut self.by_id[chunk_slot(lane.kind)];
            if ids.get(&*lane.id) == Some(owner) {
                ids.remove(&*lane.id);
            }
        }
    }

    /// The owner streaming `id` as chunks of `kind`, and its lane.
    pub(super) fn streaming(&self, kind: ChunkKind, id: &str) -> Option<(&Owner, &Lane)> {
        let owner = self.by_id[chunk_slot(kind)].get(id)?;
        self.by_owner.get(owner).map(|lane| (owner, lane))
    }
}

impl Engine {
    /// A chunk in emission mode: self-contained, so it must carry its id; it registers the
    /// id's owner like an opener would and must agree with everything the expanded
    /// START / CONTENT would be checked against.
    pub(super) fn chunk(
        &mut self,
        kind: ChunkKind,
        id: Option<&str>,
        tag: Option<&str>,
        fields: ChunkFields<'_>,
    ) -> Check {
        let parent = fields.parent;
        let ty = match kind {
            ChunkKind::Text => EventType::TextMessageChunk,
            ChunkKind::Tool => EventType::ToolCallChunk,
            ChunkKind::Reasoning => EventType::ReasoningMessageChunk,
        };
        let Some(id) = id else {
            let field = if kind == ChunkKind::Tool {
                "toolCallId"
            } else {
                "messageId"
            };
            return Err(Fail::new(
                ViolationKind::EmitChunkMissingId,
                Vec::new(),
                format!(
                    "{ty} without {field}: an emitted chunk is self-contained and must name its {}",
                    if kind == ChunkKind::Tool {
                        "tool call"
                    } else {
                        "message"
                    }
                ),
            ));
        };
        let Some(emission) = &self.emission else {
            return Ok(());
        };
        // The lane the expander would put it in: the one already streaming this id, else the
        // chunk's own.
        let streaming = emission.lanes.streaming(kind, id);
        // The chunk continues that stream: its tag must name the lane's owner (the expander
        // rejects anything else), and the opener's fields must not change.
        if let Some((&lane_owner, lane)) = streaming {
            if self.owners.disagrees(tag, lane_owner) {
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
            let changed = match kind {
                ChunkKind::Text => {
                    if fields.role.is_some_and(|r| r != lane.role) {
                        Some("role")
                    } else if fields.name.is_some() && fields.name != lane.name.as_deref() {
                        Some("name")
                    } else {
                        None
                    }
                }
                ChunkKind::Tool => {
                    if fields.name.is_some() && fields.name != lane.name.as_deref() {
                        Some("toolCallName")
                    } else if parent.is_some() && parent != lane.parent.as_deref() {
                        Some("parentMessageId")
                    } else {
                        None
                    }
                }
                ChunkKind::Reasoning => None,
            };
            if let Some(field) = changed {
                return Err(Fail::new(
                    ViolationKind::EmitChunkFieldMismatch,
                    vec![id.to_owned()],
                    format!(
                        "{ty} continues {} with a different {field} than the chunk that opened it: repeat the opener's value or leave it out",
                        show(id)
                    ),
                ));
            }
        }
        let streaming = streaming.map(|(&owner, _)| owner);
        let continues = streaming.is_some();
        let (open_now, recorded) = match kind {
            ChunkKind::Text => match self.messages.get(id) {
                Some(e) => (e.open.is_some(), Some(e.owner)),
                None => (false, None),
            },
            ChunkKind::Tool => match self.tool_calls.get(id) {
                Some(e) => (e.open.is_some(), Some(e.owner)),
                None => (false, None),
            },
            ChunkKind::Reasoning => match self.reasoning.get(id) {
                Some(e) => (e.message.is_some(), Some(e.owner)),
                None => (false, None),
            },
        };
        if open_now {
            let (kind, what, end) = match kind {
                ChunkKind::Text => (
                    ViolationKind::TextAlreadyOpen,
                    "text message",
                    "TEXT_MESSAGE_END",
                ),
                ChunkKind::Tool => (ViolationKind::ToolAlreadyOpen, "tool call", "TOOL_CALL_END"),
                ChunkKind::Reasoning => (
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
            ChunkKind::Text => "message",
            ChunkKind::Tool => "tool call",
            ChunkKind::Reasoning => "reasoning",
        };
        if let Some(owner) = recorded {
            self.check_owner(ty, what, id, owner, tag)?;
        }
        let mut inherited = None;
        if kind == ChunkKind::Tool && !continues {
            if fields.name.is_none() {
                return Err(Fail::new(
                    ViolationKind::EmitChunkMissingName,
                    vec![id.to_owned()],
                    format!(
                        "TOOL_CALL_CHUNK starts tool call {} without toolCallName",
                        show(id)
                    ),
                ));
            }
            inherited = self.owner_check_for_tool(id, parent, tag, recorded)?;
        }
        let owner = match (recorded, streaming) {
            (Some(owner), _) => owner,
            (None, Some(lane)) => lane,
            (None, None) => match tag {
                Some(_) => self.owners.intern(tag),
                None => inherited.unwrap_or(Owner::PARENT),
            },
        };
        // One open block per owner: a chunk starting a stream while the owner has an explicit
        // one of the same family open.
        if !continues
            && kind != ChunkKind::Tool
            && let Some(emission) = &self.emission
        {
            let (slots, kind, what) = if kind == ChunkKind::Text {
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
        }
        // Register.
        match kind {
            ChunkKind::Text => {
                if recorded.is_none() {
                    self.messages.insert(id.into(), Entry { owner, open: None });
                }
            }
            ChunkKind::Tool => {
                if recorded.is_none() {
                    self.tool_calls
                        .insert(id.into(), Entry { owner, open: None });
                }
            }
            ChunkKind::Reasoning => {
                if recorded.is_none() {
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
        if !continues {
            let lane = self.owners.intern(tag);
            if let Some(emission) = &mut self.emission {
                emission.lanes.insert(
                    lane,
                    Lane {
                        kind,
                        id: id.into(),
                        role: fields.role.unwrap_or_default(),
                        name: fields.name.map(Into::into),
                        parent: parent.map(Into::into),
                    },
                );
            }
        }
        Ok(())
    }

    /// Emission mode: an explicit opener for an id that another lane is still streaming as
    /// chunks (its own lane is closed first, so that one does not count) would be a second
    /// START for an open id on the client.
    pub(super) fn chunk_pending_elsewhere(
        &self,
        kind: ChunkKind,
        ty: EventType,
        id: &str,
        tag: Option<&str>,
    ) -> Check {
        let Some(emission) = &self.emission else {
            return Ok(());
        };
        let own = self.owners.find(tag);
        let Some((&lane_owner, _)) = emission
            .lanes
            .streaming(kind, id)
            .filter(|(o, _)| Some(**o) != own)
        else {
            return Ok(());
        };
        let violation = match kind {
            ChunkKind::Text => ViolationKind::TextAlreadyOpen,
            ChunkKind::Tool => ViolationKind::ToolAlreadyOpen,
            ChunkKind::Reasoning => ViolationKind::ReasoningMessageAlreadyOpen,
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

    /// Emission mode: an explicit event closes the chunk stream pending in its own lane.
    pub(super) fn close_lane(&mut self, tag: Option<&str>) {
        if let Some(emission) = &mut self.emission {
            if emission.lanes.is_empty() {
                return;
            }
            if let Some(owner) = self.owners.find(tag) {
                emission.lanes.remove(&owner);
            }
        }
    }

    pub(super) fn close_all_lanes(&mut self) {
        if let Some(emission) = &mut self.emission {
            emission.lanes.clear();
        }
    }
}
