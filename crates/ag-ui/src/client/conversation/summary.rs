//! What a run did ([`RunSummary`], [`RunEnd`]), and how the result of a run is concluded from
//! the pipeline that read its response: the end of a turn, apart from any transport.

use std::collections::HashSet;

use crate::client::apply::{Reducer, RunOutcome};
use crate::client::run::AgentError;
use crate::client::warning::{Warning, Warnings};
use crate::{Message, MessageId};

use super::RunError;

/// How a run ended, when the client did not reject it.
///
/// A rejection is not a summary but a [`RunError`] (a broken stream, a response that stopped in
/// the middle of a run, a transport failure), and neither is a run the agent reported as failed
/// ([`RunErrorKind::Agent`](super::RunErrorKind::Agent), with this summary inside), so that `?`
/// never reads a failure as success.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunEnd {
    /// The response's last run ended (with `RUN_FINISHED`, its outcome in
    /// [`RunSummary::outcome`]; inside an agent's [`RunError`], with `RUN_ERROR`).
    Finished,
    /// A subscriber returned [`Flow::Stop`](crate::client::Flow::Stop).
    Stopped,
    /// The run was cancelled through its [`CancelToken`](crate::client::CancelToken).
    Cancelled,
}

/// What a run did. [`Conversation::run`](super::Conversation::run) returns one for a run that
/// finished (`RUN_FINISHED`) or that you stopped or cancelled; the agent's own failure carries
/// one too ([`RunError::summary`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RunSummary {
    /// How it ended.
    pub end: RunEnd,
    /// The run's outcome as the last `RUN_FINISHED` told it (`None` if there was none).
    pub outcome: Option<RunOutcome>,
    /// Ids of the messages this run added, in conversation order.
    pub new_messages: Vec<MessageId>,
    /// How many events were applied.
    pub events: u64,
    /// What the client left out, translated, reshaped for a pinned peer or could not apply
    /// (each was also told to the subscribers as it happened). Empty for a conformant stream.
    pub warnings: Warnings,
    /// The last `RUN_ERROR` the response carried: the agent's report that a run failed. When it
    /// ended the response's last run, the run is a [`RunError`] of kind
    /// [`Agent`](super::RunErrorKind::Agent); when a new run started after it (a `RUN_STARTED`
    /// after a `RUN_ERROR` begins a new run in the same response), it is only reported here.
    pub run_error: Option<AgentError>,
}

impl RunSummary {
    /// The summary of a run cancelled before its response was opened.
    pub(super) fn cancelled_unopened(warnings: Warnings) -> Self {
        RunSummary {
            end: RunEnd::Cancelled,
            outcome: None,
            new_messages: Vec::new(),
            events: 0,
            warnings,
            run_error: None,
        }
    }
}

/// How reading a response ended, before the run's result is concluded.
#[derive(Debug)]
pub(super) enum Ending {
    /// The client stopped, cancelled, or consumed the whole response and its last run finished.
    Run(RunEnd),
    /// The client consumed the whole response and the agent ended its last run with this
    /// `RUN_ERROR`.
    AgentFailed(AgentError),
}

/// A run's result from what the pipeline applied (`reducer`), how reading ended, the warnings
/// (`request` ones first, then the response's) and the last `RUN_ERROR`; `before` is the
/// messages the conversation held when the run started.
pub(super) fn conclude(
    reducer: &Reducer,
    before: &HashSet<MessageId>,
    ending: Result<Ending, RunError>,
    mut warnings: Warnings,
    response_warnings: &Warnings,
    run_error: Option<AgentError>,
) -> Result<RunSummary, RunError> {
    let ending = ending?;
    for warning in response_warnings.iter() {
        warnings.push(warning.clone());
    }
    warnings.count_more(response_warnings.total() - response_warnings.iter().len() as u64);
    let summary = RunSummary {
        end: match &ending {
            Ending::Run(end) => *end,
            Ending::AgentFailed(_) => RunEnd::Finished,
        },
        outcome: reducer.outcome().cloned(),
        new_messages: reducer
            .messages()
            .iter()
            .map(Message::id)
            .filter(|id| !before.contains(*id))
            .cloned()
            .collect(),
        events: reducer.events_applied(),
        warnings,
        run_error,
    };
    match ending {
        Ending::Run(_) => Ok(summary),
        Ending::AgentFailed(error) => Err(RunError::agent(error, summary)),
    }
}

/// The warnings of a run's request: what was reshaped for a pinned peer.
pub(super) fn request_warnings(found: Vec<Warning>) -> Warnings {
    let mut warnings = Warnings::new();
    for warning in found {
        warnings.push(warning);
    }
    warnings
}
