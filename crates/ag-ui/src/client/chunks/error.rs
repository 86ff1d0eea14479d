//! [`ChunkError`]: why a chunk could not be expanded, with the rule, the event and the lanes
//! involved.

use std::fmt;

use crate::lanes::LaneKind as Kind;
use crate::{EventType, SubagentRunId};

/// Why a chunk could not be expanded: the `chunk.*` rules of the protocol (R52–R56).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ChunkErrorKind {
    /// `chunk.missing-id` (R52): the chunk would open a new stream but names no
    /// `messageId` / `toolCallId`.
    MissingId,
    /// `chunk.missing-name` (R53): a `TOOL_CALL_CHUNK` would open a new tool call but names no
    /// `toolCallName`.
    MissingName,
    /// `chunk.ambiguous` (R54): the chunk names neither an id nor a `subagentRunId`, the parent
    /// has no stream of its kind open, and several subagents do.
    Ambiguous,
    /// `chunk.owner-mismatch` (R55): the chunk names an id open in another owner's lane.
    OwnerMismatch,
    /// `chunk.field-mismatch` (R56): a continuation repeats an opener field with a different
    /// value.
    FieldMismatch,
    /// `chunk.closed-elsewhere`: an explicit `TEXT_MESSAGE_END`, `TOOL_CALL_END` or
    /// `REASONING_MESSAGE_END` names an entity another owner's lane is streaming as chunks. This
    /// crate's rule, ahead of the reference: the reference passes the END on and fails later,
    /// at the END that closes the chunk stream (or nowhere, when the input stops first); here
    /// the END that is wrong is named, at its own index.
    ClosedElsewhere,
}

impl ChunkErrorKind {
    /// The stable name of the kind (`"chunk.missing-id"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ChunkErrorKind::MissingId => "chunk.missing-id",
            ChunkErrorKind::MissingName => "chunk.missing-name",
            ChunkErrorKind::Ambiguous => "chunk.ambiguous",
            ChunkErrorKind::OwnerMismatch => "chunk.owner-mismatch",
            ChunkErrorKind::FieldMismatch => "chunk.field-mismatch",
            ChunkErrorKind::ClosedElsewhere => "chunk.closed-elsewhere",
        }
    }
}

impl fmt::Display for ChunkErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A chunk that could not be expanded: its kind, its index in the input and what could not be
/// resolved.
///
/// ```
/// use ag_ui::client::chunks::{normalize_all, ChunkErrorKind};
/// use ag_ui::{Event, MessageId};
///
/// let error = normalize_all([
///     Event::run_started("t", "r"),
///     Event::text_message_chunk(None, Some("hi".into())),
/// ])
/// .unwrap_err();
/// assert_eq!(error.kind(), ChunkErrorKind::MissingId);
/// assert_eq!(error.kind().as_str(), "chunk.missing-id");
/// assert_eq!(error.index(), 1);
/// assert_eq!(error.field(), Some("messageId"));
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ChunkError(pub(super) Box<ErrorDetail>);

#[derive(Clone, Debug, PartialEq)]
pub(super) struct ErrorDetail {
    kind: ChunkErrorKind,
    index: usize,
    event_type: EventType,
    /// The kind of chunk stream involved.
    lane: Kind,
    /// The chunk's own attribution.
    subagent_run_id: Option<SubagentRunId>,
    /// The id involved: the chunk's, or for a continuation the open stream's.
    id: Option<String>,
    field: Option<&'static str>,
    /// The chunk's value of `field` (field mismatch).
    found: Option<String>,
    /// The open stream's value of `field` (field mismatch); `None` when it has none.
    expected: Option<String>,
    /// The owners whose lanes are involved: the lane holding the id (owner mismatch, `None` =
    /// parent), or every lane that could claim the chunk (ambiguous).
    pub(super) owners: Vec<Option<SubagentRunId>>,
}

impl ChunkError {
    pub(super) fn new(
        kind: ChunkErrorKind,
        index: usize,
        chunk: Kind,
        tag: Option<&SubagentRunId>,
    ) -> Self {
        ChunkError(Box::new(ErrorDetail {
            kind,
            index,
            event_type: chunk.chunk_type(),
            lane: chunk,
            subagent_run_id: tag.cloned(),
            id: None,
            field: None,
            found: None,
            expected: None,
            owners: Vec::new(),
        }))
    }

    pub(super) fn with_id(mut self, id: &str) -> Self {
        self.0.id = Some(id.to_owned());
        self
    }

    pub(super) fn with_field(mut self, field: &'static str) -> Self {
        self.0.field = Some(field);
        self
    }

    /// A continuation chunk that repeats opener field `field` of stream `id` with a different
    /// value (`found` where the opener had `expected`).
    pub(super) fn field_mismatch(
        index: usize,
        chunk: Kind,
        tag: Option<&SubagentRunId>,
        id: &str,
        field: &'static str,
        found: &str,
        expected: Option<&str>,
    ) -> Self {
        let mut error = ChunkError::new(ChunkErrorKind::FieldMismatch, index, chunk, tag)
            .with_id(id)
            .with_field(field);
        error.0.found = Some(found.to_owned());
        error.0.expected = expected.map(str::to_owned);
        error
    }

    /// An explicit END (`event_type`, attributed to `tag`) for `id`, which the lane of `owner`
    /// is streaming as chunks of `lane`.
    pub(super) fn closed_elsewhere(
        index: usize,
        event_type: EventType,
        lane: Kind,
        tag: Option<&SubagentRunId>,
        id: &str,
        owner: Option<SubagentRunId>,
    ) -> Self {
        let mut error = ChunkError::new(ChunkErrorKind::ClosedElsewhere, index, lane, tag)
            .with_id(id)
            .with_field("subagentRunId");
        error.0.event_type = event_type;
        error.0.owners = vec![owner];
        error
    }

    /// The rule that was broken.
    pub fn kind(&self) -> ChunkErrorKind {
        self.0.kind
    }

    /// The chunk's position in the input, counting from 0 (every event pushed counts, chunk or
    /// not).
    pub fn index(&self) -> usize {
        self.0.index
    }

    /// The type of the chunk (`TEXT_MESSAGE_CHUNK`, `TOOL_CALL_CHUNK` or
    /// `REASONING_MESSAGE_CHUNK`), or of the explicit END ([`ChunkErrorKind::ClosedElsewhere`]).
    pub fn event_type(&self) -> EventType {
        self.0.event_type
    }

    /// The chunk's own `subagentRunId`, if it carries one.
    pub fn subagent_run_id(&self) -> Option<&SubagentRunId> {
        self.0.subagent_run_id.as_ref()
    }

    /// The id involved: the one the chunk names, or for a field mismatch on a chunk that names
    /// none, the id of the stream it continues. `None` for a missing id or an ambiguous chunk.
    pub fn id(&self) -> Option<&str> {
        self.0.id.as_deref()
    }

    /// The field at fault, by its wire name: the absent `messageId` / `toolCallId` /
    /// `toolCallName`, the mismatching `role` / `name` / `toolCallName` / `parentMessageId`, or
    /// `subagentRunId` for an owner mismatch. `None` for an ambiguous chunk.
    pub fn field(&self) -> Option<&'static str> {
        self.0.field
    }

    /// For a field mismatch: the value the chunk carries.
    pub fn found(&self) -> Option<&str> {
        self.0.found.as_deref()
    }

    /// For a field mismatch: the value the stream was opened with (`None` if it was opened
    /// without one).
    pub fn expected(&self) -> Option<&str> {
        self.0.expected.as_deref()
    }

    /// The lanes involved, by owner (`None` is the parent agent): for an owner mismatch (or an
    /// END closing elsewhere) the one lane that holds the id; for an ambiguous chunk every
    /// subagent lane that could claim it.
    /// Empty for the other kinds.
    pub fn owners(&self) -> &[Option<SubagentRunId>] {
        &self.0.owners
    }
}

struct Owner<'a>(Option<&'a SubagentRunId>);

/// A peer's id or name as an error quotes it: a bounded excerpt.
fn short(text: &str) -> std::borrow::Cow<'_, str> {
    crate::excerpt(text, crate::EXCERPT_BYTES)
}

impl fmt::Display for Owner<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => f.write_str("the parent agent"),
            Some(id) => write!(f, "subagent {:?}", short(id.as_str())),
        }
    }
}

impl fmt::Display for ErrorDetail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = self.lane;
        write!(
            f,
            "{}: event {} ({}",
            self.kind, self.index, self.event_type
        )?;
        if let Some(tag) = &self.subagent_run_id {
            write!(f, " from subagent {:?}", short(tag.as_str()))?;
        }
        f.write_str(") ")?;
        let id = short(self.id.as_deref().unwrap_or_default());
        let field = self.field.unwrap_or_default();
        match self.kind {
            ChunkErrorKind::MissingId => {
                write!(f, "would open a new {} but has no {field}", kind.noun())
            }
            ChunkErrorKind::MissingName => {
                write!(f, "would open tool call {id:?} but has no toolCallName")
            }
            ChunkErrorKind::Ambiguous => {
                write!(
                    f,
                    "has neither a {} nor a subagentRunId, the parent agent has no {} open, \
                     and {} lanes do:",
                    kind.id_field(),
                    kind.noun(),
                    self.owners.len()
                )?;
                let owners = crate::excerpt_list(
                    self.owners
                        .iter()
                        .map(|owner| Owner(owner.as_ref()).to_string()),
                );
                write!(
                    f,
                    " {owners}; attribute the chunk to the subagent it belongs to"
                )
            }
            ChunkErrorKind::OwnerMismatch => write!(
                f,
                "continues {} {id:?}, which {} has open, but is attributed to {}",
                kind.noun(),
                Owner(self.owners.first().and_then(Option::as_ref)),
                Owner(self.subagent_run_id.as_ref()),
            ),
            ChunkErrorKind::ClosedElsewhere => write!(
                f,
                "closes {} {id:?}, which {} is streaming as chunks: the END that closes that chunk stream would find it closed",
                kind.noun(),
                Owner(self.owners.first().and_then(Option::as_ref)),
            ),
            ChunkErrorKind::FieldMismatch => {
                let found = short(self.found.as_deref().unwrap_or_default());
                write!(
                    f,
                    "continues {} {id:?} with {field} {found:?}, but it was opened with ",
                    kind.noun()
                )?;
                match &self.expected {
                    Some(expected) => write!(f, "{field} {:?}", short(expected)),
                    None => write!(f, "no {field}"),
                }
            }
        }
    }
}
