//! `PipelineError`, the error of the run pipeline, and its kinds.

use crate::DecodeError;
use crate::client::apply::ApplyError;
use crate::client::chunks::ChunkError;
use crate::verify::{OpenEntities, Violation};

/// The kinds of [`PipelineError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PipelineErrorKind {
    /// A frame was not a valid event (or too large).
    Decode,
    /// A chunk event could not be expanded.
    Chunk,
    /// The stream broke an ordering rule.
    Verify,
    /// The reducer refused an event.
    Apply,
    /// The response ended in the middle of a run, or before any run started.
    Incomplete,
}

impl PipelineErrorKind {
    /// A stable dotted name, e.g. `run.verify`.
    pub fn as_str(self) -> &'static str {
        match self {
            PipelineErrorKind::Decode => "run.decode",
            PipelineErrorKind::Chunk => "run.chunk",
            PipelineErrorKind::Verify => "run.verify",
            PipelineErrorKind::Apply => "run.apply",
            PipelineErrorKind::Incomplete => "run.incomplete",
        }
    }
}

/// Why the pipeline refused a response: the client's rejection of the stream. The reducer keeps
/// what was applied before it.
///
/// A response that stopped in the middle of a run ([`PipelineErrorKind::Incomplete`]) is one
/// too, so that `?` never reads a cut-off run as a finished one. The agent's own `RUN_ERROR` is
/// not: it is delivered and applied like any event, and
/// [`Pipeline::check_end`](super::Pipeline::check_end) reports it as
/// [`StreamEnd::Failed`](super::StreamEnd::Failed).
///
/// Opaque, with a [`kind`](Self::kind): the error of a stage that failed is the
/// [`source`](std::error::Error::source) (so a report that walks the chain shows it once),
/// and also behind [`decode`](Self::decode), [`chunk`](Self::chunk),
/// [`violation`](Self::violation) and [`apply`](Self::apply); an incomplete run's id and what it
/// left open are behind [`run_id`](Self::run_id) and [`open`](Self::open).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct PipelineError(Stage);

/// What a [`PipelineError`] holds.
#[derive(Debug, thiserror::Error)]
enum Stage {
    /// A frame was not a valid event.
    #[error("decoding the stream failed")]
    Decode(#[from] DecodeError),
    /// A chunk could not be expanded.
    #[error("chunk expansion failed")]
    Chunk(#[from] ChunkError),
    /// The stream broke an ordering rule.
    #[error("the stream is invalid")]
    Verify(#[from] Violation),
    /// The reducer refused an event.
    #[error(transparent)]
    Apply(#[from] ApplyError),
    /// The response ended without `RUN_FINISHED` or `RUN_ERROR` for the last run (or before
    /// any run started).
    #[error("{}", incomplete_message(.run_id.as_deref(), .open))]
    Incomplete {
        /// The run that was still in progress; `None` when no run started at all.
        run_id: Option<String>,
        /// What that run still had open.
        open: Box<OpenEntities>,
    },
}

fn incomplete_message(run_id: Option<&str>, open: &OpenEntities) -> String {
    let run_id = run_id.map(|run| crate::excerpt(run, crate::EXCERPT_BYTES));
    let text = match run_id.as_deref() {
        None => "the response ended before any run started (no RUN_STARTED)".to_owned(),
        Some(run) if open.is_empty() => {
            format!("the response ended in the middle of run {run} (no RUN_FINISHED or RUN_ERROR)")
        }
        Some(run) => format!(
            "the response ended in the middle of run {run} (no RUN_FINISHED or RUN_ERROR); still open: {open}"
        ),
    };
    crate::excerpt::printable(&text).into_owned()
}

impl From<DecodeError> for PipelineError {
    fn from(error: DecodeError) -> Self {
        PipelineError(Stage::Decode(error))
    }
}

impl From<ChunkError> for PipelineError {
    fn from(error: ChunkError) -> Self {
        PipelineError(Stage::Chunk(error))
    }
}

impl From<Violation> for PipelineError {
    fn from(error: Violation) -> Self {
        PipelineError(Stage::Verify(error))
    }
}

impl From<ApplyError> for PipelineError {
    fn from(error: ApplyError) -> Self {
        PipelineError(Stage::Apply(error))
    }
}

impl PipelineError {
    /// The response ended without `RUN_FINISHED` or `RUN_ERROR` for run `run_id` (`None`: no
    /// run started), which still had `open` open.
    pub(crate) fn incomplete(run_id: Option<String>, open: OpenEntities) -> Self {
        PipelineError(Stage::Incomplete {
            run_id,
            open: Box::new(open),
        })
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> PipelineErrorKind {
        match &self.0 {
            Stage::Decode(_) => PipelineErrorKind::Decode,
            Stage::Chunk(_) => PipelineErrorKind::Chunk,
            Stage::Verify(_) => PipelineErrorKind::Verify,
            Stage::Apply(_) => PipelineErrorKind::Apply,
            Stage::Incomplete { .. } => PipelineErrorKind::Incomplete,
        }
    }

    /// The frame that was not a valid event, or too large ([`PipelineErrorKind::Decode`]).
    pub fn decode(&self) -> Option<&DecodeError> {
        match &self.0 {
            Stage::Decode(e) => Some(e),
            _ => None,
        }
    }

    /// The chunk that could not be expanded ([`PipelineErrorKind::Chunk`]).
    pub fn chunk(&self) -> Option<&ChunkError> {
        match &self.0 {
            Stage::Chunk(e) => Some(e),
            _ => None,
        }
    }

    /// The ordering rule the stream broke ([`PipelineErrorKind::Verify`]).
    pub fn violation(&self) -> Option<&Violation> {
        match &self.0 {
            Stage::Verify(e) => Some(e),
            _ => None,
        }
    }

    /// The reducer's refusal of an event ([`PipelineErrorKind::Apply`]).
    pub fn apply(&self) -> Option<&ApplyError> {
        match &self.0 {
            Stage::Apply(e) => Some(e),
            _ => None,
        }
    }

    /// The run that was still in progress when the response ended
    /// ([`PipelineErrorKind::Incomplete`]; `None` too when no run started at all).
    pub fn run_id(&self) -> Option<&str> {
        match &self.0 {
            Stage::Incomplete { run_id, .. } => run_id.as_deref(),
            _ => None,
        }
    }

    /// What the run still had open when the response ended ([`PipelineErrorKind::Incomplete`]).
    pub fn open(&self) -> Option<&OpenEntities> {
        match &self.0 {
            Stage::Incomplete { open, .. } => Some(open),
            _ => None,
        }
    }
}
