use std::fmt;

use crate::client::apply::{ApplyWarning, ApplyWarningKind};

/// What a [`Warning`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WarningKind {
    /// An event of a type AG-UI 1.0 does not define was left out.
    UnknownEvent,
    /// A member the schema does not describe was left out of an event.
    UnknownMember,
    /// A `RUN_FINISHED` (or `SUBAGENT_FINISHED`) outcome of an unknown type was left out.
    UnknownOutcome,
    /// A content part of an unknown type (or with a source of an unknown type) was left out.
    UnknownPart,
    /// A message of an unknown role was left out of a message list.
    UnknownMessage,
    /// A JSON Patch operation naming no RFC 6902 operation was left out.
    UnknownPatchOperation,
    /// A pre-1.0 event (`THINKING_*`) was read as its 1.0 successor, or something of it that 1.0
    /// has no place for (a `THINKING_START` title) was left out.
    LegacyEvent,
    /// The producer declared a newer protocol version (`RUN_STARTED.protocolVersion`) than this
    /// client speaks: what it sends may be stripped.
    NewerProtocol,
    /// The producer declared a protocol version that is not `MAJOR.MINOR`.
    UnreadableProtocol,
    /// Something was reshaped or left out for a peer pinned to an older version
    /// ([`PeerVersion`](crate::client::PeerVersion)): content flattened for it, its subagent
    /// events left out.
    PeerDowngrade,
    /// The reducer could not apply (part of) an event ([`ApplyWarningKind`]).
    Apply(ApplyWarningKind),
}

impl WarningKind {
    /// A stable dotted name: `strip.event`, `strip.member`, `strip.outcome`, `strip.part`,
    /// `strip.message`, `strip.patch-operation`, `compat.legacy-event`, `version.newer`,
    /// `version.unreadable`, `peer.downgrade`, or the reducer's own (`apply.…`).
    pub fn as_str(self) -> &'static str {
        match self {
            WarningKind::UnknownEvent => "strip.event",
            WarningKind::UnknownMember => "strip.member",
            WarningKind::UnknownOutcome => "strip.outcome",
            WarningKind::UnknownPart => "strip.part",
            WarningKind::UnknownMessage => "strip.message",
            WarningKind::UnknownPatchOperation => "strip.patch-operation",
            WarningKind::LegacyEvent => "compat.legacy-event",
            WarningKind::NewerProtocol => "version.newer",
            WarningKind::UnreadableProtocol => "version.unreadable",
            WarningKind::PeerDowngrade => "peer.downgrade",
            WarningKind::Apply(kind) => kind.as_str(),
        }
    }

    /// Whether material the peer sent (or that the request held) was left out, rather than
    /// translated or refused by the reducer.
    pub fn is_strip(self) -> bool {
        matches!(
            self,
            WarningKind::UnknownEvent
                | WarningKind::UnknownMember
                | WarningKind::UnknownOutcome
                | WarningKind::UnknownPart
                | WarningKind::UnknownMessage
                | WarningKind::UnknownPatchOperation
        )
    }
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Something the client stripped, translated or could not apply. Opaque, with a
/// [`kind`](Self::kind) and accessors; `Display` quotes what the peer sent as bounded excerpts.
///
/// What the client strips, translates or cannot apply, told to the application: [`Warning`].
///
/// A 1.0 client reads a stream from a newer producer by leaving out what it does not know (an
/// event type, a member, an outcome, a content part, a message role, a patch operation) rather
/// than refusing the stream; a pre-1.0 producer's `THINKING_*` events are translated; a patch
/// that does not apply leaves the state as it was. None of it is silent: the
/// [`Pipeline`](crate::client::Pipeline) tells each [`Warning`] to its subscriber
/// ([`Subscriber::on_warning`](crate::client::Subscriber::on_warning)) as it happens and keeps
/// them for the run's summary ([`RunSummary::warnings`](crate::client::RunSummary::warnings)).
/// A conformant stream of this protocol version produces none.
///
/// ```
/// use ag_ui::client::{Pipeline, Reducer, WarningKind};
///
/// let stream = concat!(
///     "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n",
///     "data: {\"type\":\"FUTURE_EVENT\"}\n\n",
///     "data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\",\"futureProp\":1}\n\n",
/// );
/// let mut pipeline = Pipeline::new(Reducer::new());
/// pipeline.push_bytes(stream.as_bytes(), &mut ())?;
/// pipeline.finish(&mut ())?;
/// let warnings: Vec<_> = pipeline.warnings().iter().collect();
/// assert_eq!(warnings[0].kind(), WarningKind::UnknownEvent);
/// assert_eq!(warnings[0].index(), Some(1));
/// assert_eq!(warnings[1].kind(), WarningKind::UnknownMember);
/// assert_eq!(warnings[1].path(), Some("/futureProp"));
/// assert_eq!(
///     warnings[1].to_string(),
///     "event 2 (RUN_FINISHED): strip.member: dropped member /futureProp, which AG-UI 1.0 does not describe"
/// );
/// # Ok::<(), ag_ui::client::PipelineError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    kind: WarningKind,
    index: Option<u64>,
    event_type: Option<String>,
    path: Option<String>,
    message: String,
}

impl Warning {
    /// A warning of `kind` about the event at `index` of the response.
    pub(crate) fn new(kind: WarningKind, index: Option<u64>, message: impl Into<String>) -> Self {
        Self {
            kind,
            index,
            event_type: None,
            path: None,
            message: message.into(),
        }
    }

    /// At the event with index `index`.
    #[must_use]
    #[cfg_attr(not(feature = "sse"), allow(dead_code))]
    pub(crate) fn at(mut self, index: u64) -> Self {
        self.index = Some(index);
        self
    }

    /// With the type of the event it concerns (as the peer spelled it).
    #[must_use]
    pub(crate) fn with_event_type(mut self, event_type: impl Into<String>) -> Self {
        self.event_type = Some(event_type.into());
        self
    }

    /// With the JSON Pointer, from the event's root, of what was left out.
    #[must_use]
    pub(crate) fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// What it is about.
    pub fn kind(&self) -> WarningKind {
        self.kind
    }

    /// The index of the event it concerns among the response's events (the frames, for what
    /// decoding left out; the verified events, for the reducer's); `None` for what concerns the
    /// request.
    pub fn index(&self) -> Option<u64> {
        self.index
    }

    /// The type of the event it concerns, as sent.
    pub fn event_type(&self) -> Option<&str> {
        self.event_type.as_deref()
    }

    /// The JSON Pointer of what was left out, from the event's root (`/futureProp`,
    /// `/messages/0/content/1`, `/delta/0`); `None` for a whole event.
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// What happened, in a sentence.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<&ApplyWarning> for Warning {
    fn from(warning: &ApplyWarning) -> Self {
        Warning::new(
            WarningKind::Apply(warning.kind),
            Some(warning.index),
            warning.message.clone(),
        )
        .with_event_type(warning.event_type.as_str())
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::{EXCERPT_BYTES, EXCERPT_LIST_BYTES, excerpt};
        match (self.index, &self.event_type) {
            (Some(index), Some(ty)) => {
                write!(f, "event {index} ({}): ", excerpt(ty, EXCERPT_BYTES))?
            }
            (Some(index), None) => write!(f, "event {index}: ")?,
            (None, Some(ty)) => write!(f, "{}: ", excerpt(ty, EXCERPT_BYTES))?,
            (None, None) => f.write_str("request: ")?,
        }
        let message = excerpt(&self.message, EXCERPT_LIST_BYTES);
        write!(f, "{}: {}", self.kind, crate::excerpt::printable(&message))
    }
}

/// The warnings of one response, as kept for its summary: the first
/// [`MAX_KEPT`](Warnings::MAX_KEPT) in order, and how many there were in all. A peer sending a
/// million unknown events costs a counter, not a million warnings; the subscriber is told each
/// one as it happens.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Warnings {
    kept: Vec<Warning>,
    total: u64,
}

impl Warnings {
    /// How many warnings are kept, at most.
    pub const MAX_KEPT: usize = 64;

    /// None.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts `warning`, keeping it if fewer than [`MAX_KEPT`](Self::MAX_KEPT) are kept.
    #[cfg_attr(not(feature = "sse"), allow(dead_code))]
    pub(crate) fn push(&mut self, warning: Warning) {
        self.total += 1;
        if self.kept.len() < Self::MAX_KEPT {
            self.kept.push(warning);
        }
    }

    /// Counts `n` more warnings that were not kept.
    #[cfg_attr(not(feature = "sse"), allow(dead_code))]
    pub(crate) fn count_more(&mut self, n: u64) {
        self.total += n;
    }

    /// The warnings kept, in the order they happened.
    pub fn iter(&self) -> std::slice::Iter<'_, Warning> {
        self.kept.iter()
    }

    /// How many there were, kept or not.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Whether there were none.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The first warning of each kind among those kept, in the order the kinds first appeared:
    /// one line per kind, as `ag-ui run` prints them.
    pub fn first_of_each_kind(&self) -> Vec<&Warning> {
        let mut seen: Vec<WarningKind> = Vec::new();
        let mut out = Vec::new();
        for warning in &self.kept {
            if !seen.contains(&warning.kind) {
                seen.push(warning.kind);
                out.push(warning);
            }
        }
        out
    }
}

impl<'a> IntoIterator for &'a Warnings {
    type Item = &'a Warning;
    type IntoIter = std::slice::Iter<'a, Warning>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
