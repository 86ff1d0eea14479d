//! Subagents: [`SubagentSpec`] and [`SubagentContext`].

use std::fmt;
use std::future::Future;

use serde::Serialize;
use serde_json::Value;

use super::context::emitting_api;
use super::handles::StepHandle;
use super::scope::{Detached, Emitter, StateSlot};
use super::sink::Cancel;
use super::{Error, Result};
use crate::{
    Event, Interrupt, MessageId, SubagentFinishedEvent, SubagentFinishedOutcome, SubagentRunId,
    SubagentStartedEvent, ToolCallId,
};

/// What to announce in `SUBAGENT_STARTED`: a name, and optionally a description, the tool call
/// (and its message) that spawned the subagent, and an invocation id of your own.
///
/// A plain name converts into a spec, so `ctx.subagent("researcher")` works.
///
/// ```
/// use ag_ui::server::SubagentSpec;
///
/// let spec = SubagentSpec::new("researcher")
///     .with_description("Finds sources")
///     .with_parent_tool_call_id("call-7");
/// assert_eq!(spec.name(), "researcher");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SubagentSpec {
    name: String,
    description: Option<String>,
    parent_tool_call_id: Option<ToolCallId>,
    parent_message_id: Option<MessageId>,
    run_id: Option<SubagentRunId>,
}

impl SubagentSpec {
    /// A subagent called `name` (its kind, shown to the user; not an id).
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: None,
            parent_tool_call_id: None,
            parent_message_id: None,
            run_id: None,
        }
    }

    /// Sets what the subagent does.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the tool call that spawned the subagent (agents as tools).
    #[must_use]
    pub fn with_parent_tool_call_id(mut self, id: impl Into<ToolCallId>) -> Self {
        self.parent_tool_call_id = Some(id.into());
        self
    }

    /// Sets the message that held that tool call.
    #[must_use]
    pub fn with_parent_message_id(mut self, id: impl Into<MessageId>) -> Self {
        self.parent_message_id = Some(id.into());
        self
    }

    /// Uses this invocation id instead of a minted one (`{run id}-sub-{n}`) — for instance to
    /// continue an invocation that was suspended in an earlier run.
    #[must_use]
    pub fn with_run_id(mut self, id: impl Into<SubagentRunId>) -> Self {
        self.run_id = Some(id.into());
        self
    }

    /// The subagent's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl From<&str> for SubagentSpec {
    fn from(name: &str) -> Self {
        SubagentSpec::new(name)
    }
}

impl From<String> for SubagentSpec {
    fn from(name: String) -> Self {
        SubagentSpec::new(name)
    }
}

/// A running subagent invocation: the same text, reasoning, tool call and step API as
/// [`RunContext`](super::RunContext), with every event attributed to this invocation
/// (`subagentRunId`), and the same compile-time guarantee of one open block at a time.
///
/// It owns a handle to the run's shared sink, so it is `Send + 'static`: several subagents
/// can stream concurrently from their own tasks, and the verifier sees their events in the
/// order they were queued. It ends with [`finish`](Self::finish),
/// [`finish_with_result`](Self::finish_with_result), [`suspend`](Self::suspend) or
/// [`fail`](Self::fail); dropped without one of those (an early return, a `?`, a panic) it
/// emits `SUBAGENT_ERROR` with code `"dropped"` (or `"panic"`), never leaving the run with an
/// active subagent.
///
/// ```
/// use ag_ui::{Event, RunAgentInput};
/// use ag_ui::server::RunContext;
///
/// # fn main() -> ag_ui::server::Result<()> {
/// let (ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r"))?;
/// let mut researcher = ctx.subagent("researcher")?;
/// researcher.say("Found three sources.")?;
/// researcher.finish()?;
///
/// let events = events.drain();
/// assert_eq!(events[0], Event::subagent_started("r-sub-1", "researcher"));
/// assert_eq!(
///     events[1],
///     Event::text_message_start("r-sub-1-msg-1", ag_ui::TextMessageRole::Assistant)
///         .with_subagent_run_id("r-sub-1")
/// );
/// assert_eq!(events.last(), Some(&Event::subagent_finished("r-sub-1")));
/// # Ok(())
/// # }
/// ```
pub struct SubagentContext {
    pub(crate) emitter: Emitter,
    pub(crate) state: StateSlot<Detached>,
    id: SubagentRunId,
    open: bool,
}

impl fmt::Debug for SubagentContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SubagentContext")
            .field("id", &self.id)
            .field("open", &self.open)
            .finish_non_exhaustive()
    }
}

impl SubagentContext {
    /// Emits `SUBAGENT_STARTED` for `spec`, spawned by the owner of `parent`.
    pub(crate) fn start(parent: &Emitter, spec: SubagentSpec) -> Result<Self> {
        let id = spec.run_id.unwrap_or_else(|| parent.next_subagent_id());
        let mut started = SubagentStartedEvent::new(id.clone(), spec.name);
        started.description = spec.description;
        started.parent_tool_call_id = spec.parent_tool_call_id;
        started.parent_message_id = spec.parent_message_id;
        started.parent_subagent_run_id = parent.attribution.clone();
        parent.sink.send(started.into())?;
        let emitter = Emitter::new(
            parent.sink.clone(),
            Some(id.clone()),
            id.as_str().to_owned(),
        );
        Ok(SubagentContext {
            emitter,
            state: StateSlot {
                value: Detached,
                published: None,
            },
            id,
            open: true,
        })
    }

    /// This invocation's id, the `subagentRunId` on everything it emits.
    pub fn id(&self) -> &SubagentRunId {
        &self.id
    }

    fn close(&mut self, event: Event) -> Result<()> {
        self.open = false;
        self.emitter.sink.send(event)
    }

    /// Ends the invocation successfully (`SUBAGENT_FINISHED`).
    ///
    /// # Errors
    ///
    /// The emission was refused (see [`emit`](Self::emit)).
    pub fn finish(mut self) -> Result<()> {
        let event = Event::subagent_finished(self.id.clone());
        self.close(event)
    }

    /// Ends the invocation successfully with a return value (`SUBAGENT_FINISHED.result`,
    /// serialized as JSON; a `null` result is left out, as the protocol asks).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Serialize`](super::ErrorKind::Serialize) when `result` does not
    /// serialize — the subagent is then finished without it; otherwise as
    /// [`emit`](Self::emit).
    pub fn finish_with_result(mut self, result: &impl Serialize) -> Result<()> {
        let value = serde_json::to_value(result);
        let mut event = SubagentFinishedEvent::new(self.id.clone());
        let error = match value {
            Ok(Value::Null) => None,
            Ok(value) => {
                event.result = Some(value);
                None
            }
            Err(e) => Some(Error::serialize("the subagent result", e)),
        };
        self.close(event.into())?;
        error.map_or(Ok(()), Err)
    }

    /// Suspends the invocation awaiting outside input (`SUBAGENT_FINISHED` with outcome
    /// `suspended` and the ids of `interrupts`). Returns the interrupts attributed to this
    /// invocation, ready for the run's interrupt outcome
    /// ([`Outcome::interrupt`](super::Outcome::interrupt)). `interrupts` may be empty (a
    /// subagent suspended because one of its own subagents interrupted).
    ///
    /// # Errors
    ///
    /// The emission was refused (see [`emit`](Self::emit)).
    pub fn suspend(mut self, interrupts: Vec<Interrupt>) -> Result<Vec<Interrupt>> {
        let interrupts: Vec<Interrupt> = interrupts
            .into_iter()
            .map(|i| i.with_subagent_run_id(self.id.clone()))
            .collect();
        let ids = interrupts.iter().map(|i| i.id.clone()).collect();
        let event = SubagentFinishedEvent::new(self.id.clone()).with_outcome(
            SubagentFinishedOutcome::Suspended {
                interrupt_ids: Some(ids),
            },
        );
        self.close(event.into())?;
        Ok(interrupts)
    }

    /// Ends the invocation with `SUBAGENT_ERROR`, carrying `error`'s message and code. The
    /// run goes on.
    ///
    /// # Errors
    ///
    /// The emission was refused (see [`emit`](Self::emit)).
    pub fn fail(mut self, error: &Error) -> Result<()> {
        let mut event = crate::SubagentErrorEvent::new(self.id.clone(), error.message());
        event.code = error.code().map(str::to_owned);
        self.close(event.into())
    }
}

impl Drop for SubagentContext {
    fn drop(&mut self) {
        if self.open {
            let (message, code) = if std::thread::panicking() {
                ("the subagent panicked", "panic")
            } else {
                ("the subagent ended without finishing", "dropped")
            };
            let event = crate::SubagentErrorEvent::new(self.id.clone(), message).with_code(code);
            let _ = self.close(event.into());
        }
    }
}

emitting_api!(SubagentContext, Detached, []);
