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
    /// The agent ended the run with `RUN_ERROR`.
    RunFailed,
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
            PipelineErrorKind::RunFailed => "run.failed",
            PipelineErrorKind::Incomplete => "run.incomplete",
        }
    }
}

/// Why the pipeline refused a response, or why the run it told failed. The reducer keeps what
/// was applied before the failure.
///
/// A run that the agent ended with `RUN_ERROR` ([`PipelineErrorKind::RunFailed`]) and a
/// response that stopped in the middle of a run ([`PipelineErrorKind::Incomplete`]) are errors
/// too, so that `?` never reads a failed run as a successful one.
///
/// Opaque, with a [`kind`](Self::kind): the error of a stage that failed is the
/// [`source`](std::error::Error::source) (so a report that walks the chain shows it once),
/// and also behind [`decode`](Self::decode), [`chunk`](Self::chunk),
/// [`violation`](Self::violation) and [`apply`](Self::apply); a failed run's message and code
/// are behind [`error_message`](Self::error_message) and [`error_code`](Self::error_code), an
/// incomplete run's id and what it left open behind [`run_id`](Self::run_id) and
/// [`open`](Self::open).
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
    /// The agent ended the run with `RUN_ERROR`. `Display` quotes at most 4 KiB of the message
    /// (the fields keep it whole).
    #[error("the run failed: {}", printable(&match code {
        Some(code) => format!(
            "{} (code {})",
            crate::excerpt(message, 4 * crate::EXCERPT_LIST_BYTES),
            crate::excerpt(code, crate::EXCERPT_BYTES)
        ),
        None => crate::excerpt(message, 4 * crate::EXCERPT_LIST_BYTES).into_owned(),
    }))]
    RunFailed {
        /// The `RUN_ERROR` message.
        message: String,
        /// The `RUN_ERROR` code, if any.
        code: Option<String>,
    },
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

/// `text` with control characters (terminal escapes, line breaks) written as `\u{…}`
/// escapes: what a peer sent is shown, never obeyed by a terminal.
fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
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
    printable(&text).into_owned()
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
    /// The agent ended the run with `RUN_ERROR`: its message and code.
    pub(crate) fn run_failed(message: String, code: Option<String>) -> Self {
        PipelineError(Stage::RunFailed { message, code })
    }

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
            Stage::RunFailed { .. } => PipelineErrorKind::RunFailed,
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

    /// The `RUN_ERROR` message, whole ([`PipelineErrorKind::RunFailed`]; `Display` quotes at
    /// most 4 KiB of it).
    pub fn error_message(&self) -> Option<&str> {
        match &self.0 {
            Stage::RunFailed { message, .. } => Some(message),
            _ => None,
        }
    }

    /// The `RUN_ERROR` code, if it had one ([`PipelineErrorKind::RunFailed`]).
    pub fn error_code(&self) -> Option<&str> {
        match &self.0 {
            Stage::RunFailed { code, .. } => code.as_deref(),
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
