//! The runner: [`Agent`], [`Outcome`], [`Runner`] and [`run`].

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use futures::FutureExt;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::sink::{Backpressure, Cancel, Events, Readiness};
use super::{Error, ErrorKind, Result, RunContext};
use crate::{
    Event, Interrupt, PROTOCOL_VERSION, RunAgentInput, RunErrorEvent, RunFinishedEvent,
    RunFinishedOutcome, RunStartedEvent, TokenUsage, ToolCallId,
};

/// How an agent's run ended, for `RUN_FINISHED`: success (with an optional result and the tool
/// calls left for the client), an interrupt, or cancelled. Failure is not an outcome: the agent
/// returns `Err`, and the run ends with `RUN_ERROR`.
///
/// An interrupt outcome takes its first interrupt up front, so it cannot be empty.
///
/// ```
/// use ag_ui::{Interrupt, RunFinishedOutcome};
/// use ag_ui::server::Outcome;
/// use serde_json::json;
///
/// let done = Outcome::success().with_result(json!({"answer": 42}));
/// assert_eq!(done.result(), Some(&json!({"answer": 42})));
///
/// let paused = Outcome::interrupt(Interrupt::new("i1", "confirmation"))
///     .with_interrupt(Interrupt::new("i2", "input_required"));
/// assert!(matches!(paused.outcome(), RunFinishedOutcome::Interrupt { interrupts } if interrupts.len() == 2));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    kind: RunFinishedOutcome,
    result: Option<Value>,
    usage: Option<Vec<TokenUsage>>,
}

impl Outcome {
    fn of(kind: RunFinishedOutcome) -> Self {
        Self {
            kind,
            result: None,
            usage: None,
        }
    }

    /// The run completed.
    pub fn success() -> Self {
        Self::of(RunFinishedOutcome::success())
    }

    /// The run is paused until the next run's `resume` answers `first` (and any interrupt
    /// added with [`with_interrupt`](Self::with_interrupt)).
    pub fn interrupt(first: Interrupt) -> Self {
        Self::of(RunFinishedOutcome::interrupt(vec![first]))
    }

    /// The run was stopped on request.
    pub fn cancelled() -> Self {
        Self::of(RunFinishedOutcome::Cancelled)
    }

    /// Adds an interrupt; turns any other outcome into an interrupt outcome. An interrupt whose
    /// id is already there replaces it (a resume entry answers an interrupt by its id, so one
    /// outcome never holds two with one id: rule D3 of the verifier).
    #[must_use]
    pub fn with_interrupt(mut self, interrupt: Interrupt) -> Self {
        match &mut self.kind {
            RunFinishedOutcome::Interrupt { interrupts } => {
                match interrupts.iter_mut().find(|i| i.id == interrupt.id) {
                    Some(same) => *same = interrupt,
                    None => interrupts.push(interrupt),
                }
            }
            other => *other = RunFinishedOutcome::interrupt(vec![interrupt]),
        }
        self
    }

    /// Adds several interrupts (see [`with_interrupt`](Self::with_interrupt)); an empty list
    /// changes nothing.
    #[must_use]
    pub fn with_interrupts(self, interrupts: impl IntoIterator<Item = Interrupt>) -> Self {
        interrupts.into_iter().fold(self, Self::with_interrupt)
    }

    /// Sets the ids of the tool calls this run started and left for the client to answer
    /// (success only; ignored on other outcomes).
    #[must_use]
    pub fn with_pending_tool_calls(
        mut self,
        ids: impl IntoIterator<Item = impl Into<ToolCallId>>,
    ) -> Self {
        if let RunFinishedOutcome::Success {
            pending_tool_call_ids,
        } = &mut self.kind
        {
            *pending_tool_call_ids = Some(ids.into_iter().map(Into::into).collect());
        }
        self
    }

    /// Sets the run's return value (`RUN_FINISHED.result`); `null` leaves it out.
    #[must_use]
    pub fn with_result(mut self, result: Value) -> Self {
        self.result = (!result.is_null()).then_some(result);
        self
    }

    /// Sets the token usage reported on `RUN_FINISHED`.
    #[must_use]
    pub fn with_usage(mut self, usage: Vec<TokenUsage>) -> Self {
        self.usage = Some(usage);
        self
    }

    /// The outcome as `RUN_FINISHED` carries it (success, or the interrupts it paused on).
    ///
    /// Named `outcome`, not `kind`: `kind()` is what an error type answers with its `…Kind`
    /// enum, and an `Outcome` is not an error.
    pub fn outcome(&self) -> &RunFinishedOutcome {
        &self.kind
    }

    /// The return value, if any.
    pub fn result(&self) -> Option<&Value> {
        self.result.as_ref()
    }

    fn into_event(self, input: &RunAgentInput) -> Event {
        let mut event = RunFinishedEvent::new(input.thread_id.clone(), input.run_id.clone())
            .with_outcome(self.kind);
        event.result = self.result;
        event.usage = self.usage;
        event.into()
    }
}

/// An agent: what runs for one [`RunAgentInput`] and emits through a [`RunContext`].
///
/// `run` is async and its future `Send`, so the runner can put it on a multi-threaded
/// runtime. Implement it with an `async fn`:
///
/// ```
/// use ag_ui::server::{Agent, Outcome, Result, RunContext};
///
/// struct Echo;
///
/// impl Agent for Echo {
///     type State = ();
///
///     async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
///         let last = ctx.input().messages.len();
///         ctx.say(format!("{last} messages so far"))?;
///         Ok(Outcome::success())
///     }
/// }
/// ```
pub trait Agent: Send + Sync + 'static {
    /// The run's typed state, read from `RunAgentInput.state`.
    type State: Default + Serialize + DeserializeOwned + Send + Sync + 'static;

    /// Runs once. `Ok` ends the run with `RUN_FINISHED` carrying the outcome; `Err` (or a
    /// panic) ends it with `RUN_ERROR`.
    fn run(
        &self,
        ctx: &mut RunContext<Self::State>,
    ) -> impl Future<Output = Result<Outcome>> + Send;
}

impl<A: Agent> Agent for Arc<A> {
    type State = A::State;

    fn run(
        &self,
        ctx: &mut RunContext<Self::State>,
    ) -> impl Future<Output = Result<Outcome>> + Send {
        (**self).run(ctx)
    }
}

/// Runs an agent, one run per input, framing each with `RUN_STARTED` and `RUN_FINISHED` or
/// `RUN_ERROR`. Cheap to clone; hold one in your server's state.
pub struct Runner<A> {
    agent: Arc<A>,
    echo_input: bool,
    backpressure: Backpressure,
}

impl<A> Clone for Runner<A> {
    fn clone(&self) -> Self {
        Self {
            agent: Arc::clone(&self.agent),
            echo_input: self.echo_input,
            backpressure: self.backpressure,
        }
    }
}

impl<A> fmt::Debug for Runner<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runner")
            .field("agent", &std::any::type_name::<A>())
            .field("echo_input", &self.echo_input)
            .field("backpressure", &self.backpressure)
            .finish()
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        format!("the agent panicked: {s}")
    } else if let Some(s) = payload.downcast_ref::<String>() {
        format!("the agent panicked: {s}")
    } else {
        "the agent panicked".to_owned()
    }
}

impl<A: Agent> Runner<A> {
    /// A runner for `agent`.
    pub fn new(agent: A) -> Self {
        Self {
            agent: Arc::new(agent),
            echo_input: false,
            backpressure: Backpressure::default(),
        }
    }

    /// Sets the limits each run's backlog is held to (default: [`Backpressure::default`],
    /// that is [`DEFAULT_HIGH_WATER`](super::DEFAULT_HIGH_WATER) and
    /// [`DEFAULT_HARD_CAP`](super::DEFAULT_HARD_CAP)).
    #[must_use]
    pub fn with_backpressure(mut self, limits: Backpressure) -> Self {
        self.backpressure = limits;
        self
    }

    /// The limits each run's backlog is held to.
    pub fn backpressure(&self) -> Backpressure {
        self.backpressure
    }

    /// Whether `RUN_STARTED` echoes the input (`input`); off by default.
    #[must_use]
    pub fn with_input_echo(mut self, echo: bool) -> Self {
        self.echo_input = echo;
        self
    }

    /// Starts a run for `input` on the current tokio runtime and returns its event stream:
    /// `RUN_STARTED`, what the agent emits, then `RUN_FINISHED` with the agent's outcome, or
    /// `RUN_ERROR` when the agent returns `Err` (message and code from the error) or panics
    /// (code `"panic"`).
    ///
    /// The stream is `Send + 'static` and ends after the terminal event. Dropping it cancels
    /// the run: `ctx.cancelled()` resolves and every later emission fails with
    /// [`ErrorKind::Disconnected`]. Cancelling through [`Events::cancel_handle`] while still
    /// reading ends the run with the `cancelled` outcome once the agent returns.
    ///
    /// Backpressure (see [`Backpressure`]): whenever the agent's future yields while the
    /// backlog is at or above the high-water mark, the runner resumes it only once the
    /// consumer has drained the backlog (or asked to stop). When an emission hit the hard cap,
    /// the run ends with `RUN_ERROR` (code `"backpressure"`, the sizes in the message),
    /// whatever the agent returned.
    ///
    /// # Errors
    ///
    /// Before anything is streamed: [`ErrorKind::State`] when the input's state does not fit
    /// `A::State`; [`ErrorKind::Runtime`] outside a tokio runtime.
    pub fn run(&self, input: RunAgentInput) -> Result<Events> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|e| {
            Error::new(ErrorKind::Runtime, "a run needs a tokio runtime").with_source(e)
        })?;
        let mut started = RunStartedEvent::new(input.thread_id.clone(), input.run_id.clone())
            .with_protocol_version(PROTOCOL_VERSION);
        started.parent_run_id = input.parent_run_id.clone();
        if self.echo_input {
            started.input = Some(Box::new(input.clone()));
        }
        let (mut ctx, events) =
            RunContext::<A::State>::open(input, started.into(), true, self.backpressure)?;
        let agent = Arc::clone(&self.agent);
        runtime.spawn(async move {
            // The agent runs until it returns or the consumer drops the stream; in the second
            // case its future is dropped (handles close silently), so an agent that ignores
            // `ctx.cancelled()` does not go on working for nobody.
            let result = {
                let gone = std::pin::pin!(ctx.sink().gone());
                let readiness = ctx.sink().readiness();
                let work = Gated::new(
                    AssertUnwindSafe(agent.run(&mut ctx)).catch_unwind(),
                    readiness,
                );
                let work = std::pin::pin!(work);
                match futures::future::select(work, gone).await {
                    futures::future::Either::Left((result, _)) => result,
                    futures::future::Either::Right(((), _)) => return,
                }
            };
            if let Some(error) = ctx.sink().overflow() {
                let _ = ctx.sink().finish(
                    RunErrorEvent::new(error.message())
                        .with_code(error.wire_code())
                        .into(),
                );
                return;
            }
            let terminal = match result {
                Ok(Ok(outcome)) => match ctx.sink().cancel_state() {
                    Cancel::Requested => Outcome::cancelled().into_event(ctx.input()),
                    _ => outcome.into_event(ctx.input()),
                },
                Ok(Err(error)) => match (ctx.sink().cancel_state(), error.kind()) {
                    (Cancel::Requested, ErrorKind::Disconnected | ErrorKind::Closed) => {
                        Outcome::cancelled().into_event(ctx.input())
                    }
                    _ => RunErrorEvent::new(error.message())
                        .with_code(error.wire_code())
                        .into(),
                },
                Err(panic) => RunErrorEvent::new(panic_message(&*panic))
                    .with_code("panic")
                    .into(),
            };
            finish(&ctx, terminal);
        });
        Ok(events)
    }
}

/// The agent's future, resumed after each `.await` only when the run's backlog is under the
/// high-water mark (or the consumer asked to stop, or went away).
struct Gated<F> {
    inner: Pin<Box<F>>,
    readiness: Readiness,
    /// Set while the backlog is being waited on.
    wait: Option<Pin<Box<dyn Future<Output = Result<()>> + Send>>>,
}

impl<F> Gated<F> {
    fn new(inner: F, readiness: Readiness) -> Self {
        Self {
            inner: Box::pin(inner),
            readiness,
            wait: None,
        }
    }
}

impl<F: Future> Future for Gated<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = &mut *self;
        if this.wait.is_none() && this.readiness.is_over() {
            this.wait = Some(Box::pin(this.readiness.wait()));
        }
        if let Some(wait) = &mut this.wait {
            // Whatever the wait ends with (drained, cancelled, gone, closed), the agent runs
            // on: its next emission reports what happened.
            ready!(wait.as_mut().poll(cx)).ok();
            this.wait = None;
        }
        this.inner.as_mut().poll(cx)
    }
}

/// Queues the terminal event; when the verifier refuses it (something the agent handed to
/// another task is still open), the run ends with `RUN_ERROR` naming why instead.
fn finish<S>(ctx: &RunContext<S>, terminal: Event) {
    let sink = ctx.sink();
    if let Err(error) = sink.finish(terminal)
        && error.kind() == ErrorKind::Protocol
    {
        let _ = sink.finish(
            RunErrorEvent::new(format!("the run could not finish: {error}"))
                .with_code("unclosed")
                .into(),
        );
    }
}

/// Runs `agent` for `input`; see [`Runner::run`].
///
/// # Errors
///
/// As [`Runner::run`].
pub fn run<A: Agent>(agent: A, input: RunAgentInput) -> Result<Events> {
    Runner::new(agent).run(input)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Outcome;
    use crate::{Event, Interrupt, RunAgentInput, RunFinishedOutcome, TokenUsage};

    fn finished(outcome: Outcome) -> crate::RunFinishedEvent {
        match outcome.into_event(&RunAgentInput::new("t", "r")) {
            Event::RunFinished(e) => *e,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn success_carries_result_pending_calls_and_usage() {
        let e = finished(
            Outcome::success()
                .with_result(json!([1]))
                .with_pending_tool_calls(["c1", "c2"])
                .with_usage(vec![TokenUsage::new("p", "m")]),
        );
        assert_eq!(e.thread_id, "t");
        assert_eq!(e.run_id, "r");
        assert_eq!(e.result, Some(json!([1])));
        assert_eq!(
            e.outcome,
            Some(RunFinishedOutcome::Success {
                pending_tool_call_ids: Some(vec!["c1".into(), "c2".into()])
            })
        );
        assert_eq!(e.usage.unwrap().len(), 1);
        assert_eq!(
            finished(Outcome::success().with_result(json!(null))).result,
            None
        );
    }

    #[test]
    fn interrupts_accumulate_and_never_come_empty() {
        let e = finished(
            Outcome::success()
                .with_interrupts([Interrupt::new("a", "x"), Interrupt::new("b", "y")])
                .with_pending_tool_calls(["ignored"]),
        );
        assert_eq!(
            e.outcome,
            Some(RunFinishedOutcome::interrupt(vec![
                Interrupt::new("a", "x"),
                Interrupt::new("b", "y")
            ]))
        );
        // One id twice: the later interrupt replaces the earlier.
        let e = finished(
            Outcome::interrupt(Interrupt::new("a", "x"))
                .with_interrupt(Interrupt::new("b", "y"))
                .with_interrupt(Interrupt::new("a", "z")),
        );
        assert_eq!(
            e.outcome,
            Some(RunFinishedOutcome::interrupt(vec![
                Interrupt::new("a", "z"),
                Interrupt::new("b", "y")
            ]))
        );
        let e = finished(Outcome::cancelled().with_interrupts([]));
        assert_eq!(e.outcome, Some(RunFinishedOutcome::Cancelled));
        assert!(matches!(
            Outcome::interrupt(Interrupt::new("a", "x")).outcome(),
            RunFinishedOutcome::Interrupt { interrupts } if interrupts.len() == 1
        ));
    }
}
