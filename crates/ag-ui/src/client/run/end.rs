//! How a response ended, when the pipeline consumed it whole: [`StreamEnd`], and the agent's own
//! report of a failed run, [`AgentError`].
//!
//! A `RUN_ERROR` is not the client refusing the stream: it is an event like any other, delivered
//! to the subscribers and applied, and the stream goes on (a `RUN_STARTED` after it begins a new
//! run). What it says is the agent's: the run failed, with this message and code. So the
//! pipeline's errors ([`PipelineError`](super::PipelineError)) are rejections only, and
//! [`Pipeline::check_end`](super::Pipeline::check_end) tells a stream whose last run finished
//! from one whose last run the agent reported as failed.

use std::borrow::Cow;

use crate::RunId;

/// The agent's report that its run failed: the `RUN_ERROR` that ended it, with the message and
/// code it carried and the run it ended.
///
/// `Display` quotes at most 4 KiB of the message, control characters escaped; the accessors
/// hold it whole.
///
/// ```
/// use ag_ui::client::{Pipeline, Reducer, StreamEnd};
/// use ag_ui::{Event, RunErrorEvent};
///
/// let mut pipeline = Pipeline::new(Reducer::new());
/// pipeline.push_event(Event::run_started("t", "r1"), &mut ())?;
/// pipeline.push_event(RunErrorEvent::new("overloaded").with_code("busy").into(), &mut ())?;
/// pipeline.finish(&mut ())?;
/// let StreamEnd::Failed(error) = pipeline.check_end()? else { panic!("the run failed") };
/// assert_eq!((error.message(), error.code()), ("overloaded", Some("busy")));
/// assert_eq!(error.run_id().map(|r| r.as_str()), Some("r1"));
/// assert_eq!(error.to_string(), "the run failed: overloaded (code busy)");
/// # Ok::<(), ag_ui::client::PipelineError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentError {
    message: String,
    code: Option<String>,
    run_id: Option<RunId>,
}

impl AgentError {
    /// The agent's report, from a `RUN_ERROR` ending `run_id` (`None`: no run had started).
    pub(crate) fn new(message: String, code: Option<String>, run_id: Option<RunId>) -> Self {
        Self {
            message,
            code,
            run_id,
        }
    }

    /// The `RUN_ERROR` message, whole.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The `RUN_ERROR` code, if it had one.
    pub fn code(&self) -> Option<&str> {
        self.code.as_deref()
    }

    /// The run it ended: the last one started before it (`None` when the stream opened with
    /// `RUN_ERROR`, a run that failed before it began).
    pub fn run_id(&self) -> Option<&RunId> {
        self.run_id.as_ref()
    }
}

impl std::fmt::Display for AgentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let message = crate::excerpt(&self.message, 4 * crate::EXCERPT_LIST_BYTES);
        let text = match &self.code {
            Some(code) => Cow::Owned(format!(
                "{message} (code {})",
                crate::excerpt(code, crate::EXCERPT_BYTES)
            )),
            None => message,
        };
        write!(f, "the run failed: {}", crate::excerpt::printable(&text))
    }
}

impl std::error::Error for AgentError {}

/// How a response the pipeline consumed whole ended ([`Pipeline::check_end`](
/// super::Pipeline::check_end)): its last run finished, or the agent reported it failed.
///
/// Must be looked at: a `?` on `check_end` alone would read the agent's failure as success.
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use = "the agent may have reported that its run failed: match on the end"]
#[non_exhaustive]
pub enum StreamEnd {
    /// The last run ended with `RUN_FINISHED`.
    Finished,
    /// The last run ended with `RUN_ERROR` (possibly after a `RUN_FINISHED`: a failure that
    /// surfaced after the run reported success).
    Failed(AgentError),
}

impl StreamEnd {
    /// The agent's report, when the last run failed.
    pub fn agent_error(&self) -> Option<&AgentError> {
        match self {
            StreamEnd::Failed(e) => Some(e),
            StreamEnd::Finished => None,
        }
    }
}
