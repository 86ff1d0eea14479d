//! Why a command failed, for every command: [`Failure`], its exit code and its one-line
//! report; and [`chain`], an error with its sources, as the reports quote them.

use std::fmt;

use ag_ui::client::chunks::ChunkError;
use ag_ui::verify::Violation;

use crate::input::{InputError, Position};

/// Why a command failed: bad input (exit 2) or a stream that breaks the protocol (exit 1).
#[derive(Debug)]
pub(crate) enum Failure {
    /// The input could not be read as events.
    Input(InputError),
    /// The events break a rule.
    Stream {
        position: Position,
        kind: &'static str,
        ids: Vec<String>,
        message: String,
    },
    /// Writing the output failed.
    Output(std::io::Error),
    /// A command-line value was wrong.
    Usage(String),
    /// The agent could not be reached, answered with an error status, or sent bytes that are
    /// not events.
    Remote(String),
    /// The agent ended the run with `RUN_ERROR`: its message and code.
    RunError {
        message: String,
        code: Option<String>,
    },
    /// The input ended inside a run: what is still open.
    Incomplete(String),
    /// The input held no event of a known type.
    NothingKnown,
    /// An event would take the reducer past one of its limits (a hostile or broken input).
    Limit { position: Position, message: String },
}

impl Failure {
    /// The exit code the command ends with (see the table in `main.rs`).
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            Failure::Stream { .. }
            | Failure::Remote(_)
            | Failure::Incomplete(_)
            | Failure::NothingKnown => 1,
            Failure::Input(_) | Failure::Output(_) | Failure::Usage(_) | Failure::Limit { .. } => 2,
            Failure::RunError { .. } => 3,
        }
    }

    /// A rule the events break, at `position`.
    pub(crate) fn violation(position: Position, v: &Violation) -> Self {
        Failure::Stream {
            position,
            kind: v.kind().as_str(),
            ids: v.ids().to_vec(),
            message: v.message().to_owned(),
        }
    }

    /// A chunk that cannot be normalized, at `position`.
    pub(crate) fn chunk(position: Position, e: &ChunkError) -> Self {
        Failure::Stream {
            position,
            kind: e.kind().as_str(),
            ids: e.id().map(str::to_owned).into_iter().collect(),
            message: e.to_string(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Input(e) => write!(f, "{e}"),
            Failure::Stream {
                position,
                kind,
                ids,
                message,
            } => {
                write!(f, "{position}: {kind}")?;
                if !ids.is_empty() {
                    // The ids are the input's: each, and the list, quoted as bounded excerpts.
                    let shown = ag_ui::excerpt_list(
                        ids.iter()
                            .map(|id| ag_ui::excerpt(id, ag_ui::EXCERPT_BYTES)),
                    );
                    write!(f, " [{shown}]")?;
                }
                write!(f, ": {message}")
            }
            Failure::Output(e) => write!(f, "{e}"),
            Failure::Usage(message) | Failure::Remote(message) => f.write_str(message),
            Failure::RunError { message, code } => {
                write!(f, "the agent's run failed: {message}")?;
                match code {
                    Some(code) => write!(f, " (code {code})"),
                    None => Ok(()),
                }
            }
            Failure::Incomplete(open) => write!(
                f,
                "the input ends inside a run; still open: {open} (--partial accepts a partial recording)"
            ),
            Failure::NothingKnown => f.write_str(
                "no known AG-UI event in the input (events of unknown types are skipped)",
            ),
            Failure::Limit { position, message } => write!(f, "{position}: {message}"),
        }
    }
}

impl From<InputError> for Failure {
    fn from(e: InputError) -> Self {
        Failure::Input(e)
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Output(e)
    }
}

/// An error and its sources, `: `-separated (what failed, then why, down to the OS error).
pub(crate) fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
