//! `RunError`, the error of [`Conversation::run`](super::Conversation::run), and its kinds.

use crate::client::run::{AgentError, PipelineError, PipelineErrorKind};
use crate::client::transport::{TransportError, TransportErrorKind};

use super::RunSummary;

/// The kinds of [`RunError`]: the layer that failed, and its own kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RunErrorKind {
    /// The agent reported that its run failed (`RUN_ERROR`): the client consumed the stream,
    /// and the run failed. Not a rejection.
    Agent,
    /// The pipeline refused the response: the client rejected the stream (decode, chunk,
    /// ordering, reducer), or it ended in the middle of a run.
    Pipeline(PipelineErrorKind),
    /// The transport could not carry the run.
    Transport(TransportErrorKind),
    /// Every open interrupt must be answered by a `resume` entry before the next run.
    UnansweredInterrupt,
    /// An expired interrupt must be answered with status `cancelled`.
    ExpiredInterrupt,
}

impl RunErrorKind {
    /// A stable dotted name: `agent.run-error` for the agent's own failure, the layer's own
    /// (`run.verify`, `transport.http`, …) for a rejection, or `run.unanswered-interrupt` /
    /// `run.expired-interrupt`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunErrorKind::Agent => "agent.run-error",
            RunErrorKind::Pipeline(kind) => kind.as_str(),
            RunErrorKind::Transport(kind) => kind.as_str(),
            RunErrorKind::UnansweredInterrupt => "run.unanswered-interrupt",
            RunErrorKind::ExpiredInterrupt => "run.expired-interrupt",
        }
    }

    /// Whether the client rejected the response, or could not get it (the pipeline's and the
    /// transport's kinds): in the conformance corpus's terms, `outcome: failed`. The agent's
    /// own failure ([`Agent`](Self::Agent)) is a stream the client consumed; an unanswered or
    /// expired interrupt sent nothing.
    pub fn is_rejection(self) -> bool {
        matches!(self, RunErrorKind::Pipeline(_) | RunErrorKind::Transport(_))
    }
}

/// Why a [`Conversation::run`](super::Conversation::run) did not succeed. Messages and state
/// keep what was applied before it.
///
/// Two different things are errors, so that `?` never reads a failed run as a successful one:
///
/// - **the agent reported that its run failed** ([`RunErrorKind::Agent`]): the response ended
///   with the agent's `RUN_ERROR`. The client consumed the stream and delivered every event,
///   the `RUN_ERROR` included; [`agent_error`](Self::agent_error) has its message and code,
///   and [`summary`](Self::summary) what the run did, as for a run that finished.
/// - **the client rejected the response** or could not get it
///   ([`is_rejection`](RunErrorKind::is_rejection)): a broken stream (an ordering violation, an
///   event that does not decode, a chunk that cannot expand, an event over the reducer's
///   limits), a response that stopped in the middle of a run, or a transport failure (a
///   connection, an HTTP status, a response that is not an event stream, a timeout).
///
/// A `RUN_ERROR` followed by a new `RUN_STARTED` in the same response is a new run, and
/// decides nothing by itself: how the response's last run ended does. A `RUN_ERROR` after a
/// finished run is delivered, not refused, and makes that response's result the agent's
/// failure.
///
/// Like every error of the crate, it is opaque with a [`kind`](Self::kind): the layer that
/// failed is behind [`pipeline`](Self::pipeline) or [`transport`](Self::transport), whose
/// message and cause (its [`source`](std::error::Error::source)) it shows as its own.
///
/// ```
/// use ag_ui::client::{Conversation, Replay, RunErrorKind};
/// use ag_ui::{Event, RunErrorEvent};
///
/// let agent = Replay::new(vec![
///     Event::run_started("t", "r1"),
///     RunErrorEvent::new("overloaded").with_code("busy").into(),
/// ]);
/// let mut conversation = Conversation::new("t");
/// let err = futures::executor::block_on(conversation.run(&agent, &mut ())).unwrap_err();
/// assert_eq!(err.kind(), RunErrorKind::Agent);
/// assert!(!err.kind().is_rejection());
/// let failure = err.agent_error().unwrap();
/// assert_eq!((failure.message(), failure.code()), ("overloaded", Some("busy")));
/// assert_eq!(err.summary().unwrap().events, 2);
/// assert_eq!(err.to_string(), "the run failed: overloaded (code busy)");
/// ```
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct RunError(Failure);

/// What a [`RunError`] holds.
#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error("{error}")]
    Agent {
        error: AgentError,
        summary: Box<RunSummary>,
    },
    #[error(transparent)]
    Pipeline(PipelineError),
    #[error(transparent)]
    Transport(TransportError),
    // The texts of the two interrupt errors are what @ag-ui/client 1.0.0 says of the same
    // refusals, so that a page sees one message whichever client (this one on wasm32, or the
    // reference) runs it.
    #[error(
        "Thread has {} pending interrupt(s) not addressed by resume: {}",
        .0.len(),
        crate::excerpt_list(.0)
    )]
    UnansweredInterrupt(Vec<String>),
    #[error(
        "Interrupt {} expired at {} and can no longer be answered. Cancel it to continue the \
         thread.",
        crate::excerpt(.id, crate::EXCERPT_BYTES),
        crate::excerpt(.expires_at, crate::EXCERPT_BYTES)
    )]
    ExpiredInterrupt { id: String, expires_at: String },
}

impl From<PipelineError> for RunError {
    fn from(error: PipelineError) -> Self {
        RunError(Failure::Pipeline(error))
    }
}

impl From<TransportError> for RunError {
    fn from(error: TransportError) -> Self {
        RunError(Failure::Transport(error))
    }
}

impl RunError {
    /// The agent ended the response's last run with `error`; `summary` is what the run did.
    pub(super) fn agent(error: AgentError, summary: RunSummary) -> Self {
        RunError(Failure::Agent {
            error,
            summary: Box::new(summary),
        })
    }

    /// Interrupts left open by the last run have no `resume` entry (nothing was sent); `ids`
    /// is never empty.
    pub(super) fn unanswered(ids: Vec<String>) -> Self {
        RunError(Failure::UnansweredInterrupt(ids))
    }

    /// An interrupt whose `expiresAt` (`expires_at`) has passed was answered with something
    /// else than `cancelled` (nothing was sent).
    pub(super) fn expired(id: String, expires_at: String) -> Self {
        RunError(Failure::ExpiredInterrupt { id, expires_at })
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> RunErrorKind {
        match &self.0 {
            Failure::Agent { .. } => RunErrorKind::Agent,
            Failure::Pipeline(e) => RunErrorKind::Pipeline(e.kind()),
            Failure::Transport(e) => RunErrorKind::Transport(e.kind()),
            Failure::UnansweredInterrupt(_) => RunErrorKind::UnansweredInterrupt,
            Failure::ExpiredInterrupt { .. } => RunErrorKind::ExpiredInterrupt,
        }
    }

    /// The agent's report that its run failed: the `RUN_ERROR`'s message and code
    /// ([`RunErrorKind::Agent`]).
    pub fn agent_error(&self) -> Option<&AgentError> {
        match &self.0 {
            Failure::Agent { error, .. } => Some(error),
            _ => None,
        }
    }

    /// What the run did before the agent reported its failure, as a finished run's summary
    /// says it ([`RunErrorKind::Agent`]): its messages, outcome, events and warnings.
    pub fn summary(&self) -> Option<&RunSummary> {
        match &self.0 {
            Failure::Agent { summary, .. } => Some(summary),
            _ => None,
        }
    }

    /// The pipeline's error, when the pipeline refused the response (decode, chunk, verify,
    /// apply) or it did not end ([`RunErrorKind::Pipeline`]).
    pub fn pipeline(&self) -> Option<&PipelineError> {
        match &self.0 {
            Failure::Pipeline(e) => Some(e),
            _ => None,
        }
    }

    /// The transport's error, when the transport could not carry the run (connection, HTTP
    /// status, not an event stream, timeout, redirect, invalid request;
    /// [`RunErrorKind::Transport`]).
    pub fn transport(&self) -> Option<&TransportError> {
        match &self.0 {
            Failure::Transport(e) => Some(e),
            _ => None,
        }
    }

    /// The interrupt left unanswered (the first of them, in the order the last run left them;
    /// [`RunErrorKind::UnansweredInterrupt`]) or answered otherwise than `cancelled` after it
    /// expired ([`RunErrorKind::ExpiredInterrupt`]).
    pub fn interrupt_id(&self) -> Option<&str> {
        match &self.0 {
            Failure::UnansweredInterrupt(ids) => ids.first().map(String::as_str),
            Failure::ExpiredInterrupt { id, .. } => Some(id),
            _ => None,
        }
    }
}
