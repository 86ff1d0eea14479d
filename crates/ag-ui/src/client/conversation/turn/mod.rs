//! One run of a conversation, without I/O: [`Turn`] (re-exported at `ag_ui::client`).

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use serde_json::Value;

use crate::client::apply::{Applied, MessagesChange, Reducer, RunOutcome};
use crate::client::run::{Pipeline, PipelineError, StreamEnd};
use crate::client::subscriber::{Flow, Mutation, Subscriber};
use crate::client::warning::Warnings;
use crate::{
    Event, Interrupt, Message, MessageId, PROTOCOL_VERSION, ResumeEntry, RunAgentInput, RunId,
    ThreadId, ToolCallId,
};

use super::summary::{Ending, conclude};
use super::{RunEnd, RunError, RunSummary};

/// One run of a conversation, without I/O; here, a run about to be sent: the conversation's
/// open interrupts answered, its input built.
///
/// A turn is what every client of the crate does with a run, apart from carrying it: it checks
/// that the user answered the interrupts the last run left open, builds the run's
/// [`RunAgentInput`], then ([`open`](Turn::open)) applies the response's events through a
/// [`Pipeline`] over the conversation, and at the [`finish`](RunningTurn::finish) concludes
/// the run ([`RunSummary`] or [`RunError`]) and gives the conversation back with the new
/// messages marked. [`Conversation`](super::Conversation) drives one over its
/// [`Transport`](crate::client::Transport); the browser's `HttpAgent` (`crates/ag-ui-wasm`)
/// from its JavaScript event loop, awaiting its subscribers between two events. The turn does
/// no I/O and reads no clock: the caller sends the input, feeds the events and passes the time.
///
/// ```
/// use ag_ui::client::{Pipeline, RunEnd, Turn};
/// use ag_ui::{Event, Message, RunAgentInput, TextMessageRole};
///
/// let mut messages = vec![Message::user("u1", "Hi")];
/// let mut interrupts = Vec::new();
/// // An empty run id gets a fresh one.
/// let input = RunAgentInput::new("t1", "").with_state(serde_json::json!({}));
/// let turn = Turn::new(input, &mut messages, &mut interrupts, std::time::SystemTime::now())?;
/// assert_eq!(turn.input().messages.len(), 1);
/// assert!(turn.input().run_id.as_str().starts_with("t1-run-"));
///
/// // The request went out; the response's events come in, one at a time.
/// let mut running = turn.open(Pipeline::new);
/// for event in [
///     Event::run_started("t1", "r1"),
///     Event::text_message_start("a1", TextMessageRole::Assistant),
///     Event::text_message_content("a1", "Hello"),
///     Event::text_message_end("a1"),
///     Event::run_finished("t1", "r1"),
/// ] {
///     let changed = running.push(event)?;
///     assert!(!changed.state);
/// }
/// let end = running.finish(Ok(RunEnd::Finished), Default::default());
/// let summary = end.result.as_ref().unwrap();
/// assert_eq!(summary.end, RunEnd::Finished);
/// assert_eq!(summary.new_messages.len(), 1);
/// assert_eq!(end.new_messages().next().and_then(Message::text), Some("Hello"));
/// assert_eq!(end.messages.len(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Turn {
    /// What is sent: the conversation's messages but its activities.
    input: RunAgentInput,
    /// The activity messages (the client's own, never sent), each with its place.
    activities: Vec<(usize, Message)>,
    /// The interrupts the last run left open (answered by `input.resume`).
    pending_interrupts: Vec<Interrupt>,
    /// The messages the conversation held when the turn began.
    before: HashSet<MessageId>,
}

impl Turn {
    /// Begins a turn: checks that `input.resume` answers every interrupt of
    /// `pending_interrupts` (an expired one, as of `now`, only with `cancelled`), then builds
    /// the input from `input` (thread, run id, state, tools, context, forwarded props, resume;
    /// an empty run id gets a fresh one, unique to this process and time), the protocol version
    /// and `messages`, but the activity messages, which are the client's own and never sent.
    /// On success the turn takes `messages` and `pending_interrupts` (leaving them empty); they
    /// come back with the end of the turn ([`TurnEnd`]), or [`unsent`](Self::unsent).
    ///
    /// # Errors
    /// Nothing is taken, and nothing is to be sent:
    /// - [`RunErrorKind::UnansweredInterrupt`](super::RunErrorKind::UnansweredInterrupt) when
    ///   an open interrupt has no resume entry (the error names every such one);
    /// - [`RunErrorKind::ExpiredInterrupt`](super::RunErrorKind::ExpiredInterrupt) when an
    ///   expired one is answered otherwise than `cancelled`.
    pub fn new(
        mut input: RunAgentInput,
        messages: &mut Vec<Message>,
        pending_interrupts: &mut Vec<Interrupt>,
        now: SystemTime,
    ) -> Result<Self, RunError> {
        check_answers(pending_interrupts, input.resume.as_deref(), now)?;
        if input.run_id.as_str().is_empty() {
            input.run_id = RunId::new(fresh_run_id(&input.thread_id, now));
        }
        input.protocol_version = Some(PROTOCOL_VERSION.to_owned());
        let before = messages.iter().map(|m| m.id().clone()).collect();
        let mut turn = Turn {
            input,
            activities: Vec::new(),
            pending_interrupts: std::mem::take(pending_interrupts),
            before,
        };
        turn.set_messages(std::mem::take(messages));
        Ok(turn)
    }

    /// The input to send.
    pub fn input(&self) -> &RunAgentInput {
        &self.input
    }

    /// The input, to reshape it for the peer before it is sent.
    pub(crate) fn input_mut(&mut self) -> &mut RunAgentInput {
        &mut self.input
    }

    /// Replaces the messages or the state before the response is read (what a subscriber of
    /// the run's start asks for, or what the application changed while the request went out):
    /// the input, if it is yet to be sent, sends them, and the run applies to them. The
    /// messages the run counts as new are still those the conversation did not hold when the
    /// turn began.
    pub fn apply_mutation(&mut self, mutation: Mutation) {
        if let Some(messages) = mutation.messages {
            self.set_messages(messages);
        }
        if let Some(state) = mutation.state {
            self.input.state = Some(state);
        }
    }

    /// Sends all of `messages` but the activities, which are set aside with their places.
    fn set_messages(&mut self, messages: Vec<Message>) {
        self.input.messages.clear();
        self.activities.clear();
        for (index, message) in messages.into_iter().enumerate() {
            if matches!(message, Message::Activity(_)) {
                self.activities.push((index, message));
            } else {
                self.input.messages.push(message);
            }
        }
    }

    /// The turn that was never sent (the transport failed, or it was cancelled before the
    /// response opened): the messages and the open interrupts it took, as they were.
    pub fn unsent(self) -> (Vec<Message>, Vec<Interrupt>) {
        let messages = with_activities(self.input.messages, self.activities);
        (messages, self.pending_interrupts)
    }

    /// The response opened: the turn reads it through the pipeline `pipeline` makes of the
    /// conversation (the reducer holding the messages, the state and the open interrupts),
    /// where the caller sets the format, limits, middleware or deferral.
    pub fn open(self, pipeline: impl FnOnce(Reducer) -> Pipeline) -> RunningTurn {
        let state = self
            .input
            .state
            .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
        let reducer = Reducer::new()
            .with_messages(with_activities(self.input.messages, self.activities))
            .with_state(state)
            .with_pending_interrupts(self.pending_interrupts);
        RunningTurn {
            pipeline: pipeline(reducer),
            before: self.before,
        }
    }
}

/// The messages that came back from the input, with the activities put back in their places.
fn with_activities(mut messages: Vec<Message>, activities: Vec<(usize, Message)>) -> Vec<Message> {
    for (index, activity) in activities {
        messages.insert(index.min(messages.len()), activity);
    }
    messages
}

/// Checks that every open interrupt is answered by `resume`, and every expired one (as of
/// `now`) with `cancelled`.
fn check_answers(
    pending: &[Interrupt],
    resume: Option<&[ResumeEntry]>,
    now: SystemTime,
) -> Result<(), RunError> {
    if pending.is_empty() {
        return Ok(());
    }
    let answers = resume.unwrap_or_default();
    let answered: HashSet<&str> = answers.iter().map(|r| r.interrupt_id.as_str()).collect();
    let open: Vec<String> = pending
        .iter()
        .filter(|i| !answered.contains(i.id.as_str()))
        .map(|i| i.id.to_string())
        .collect();
    if !open.is_empty() {
        return Err(RunError::unanswered(open));
    }
    match pending
        .iter()
        .find(|i| i.answered_after_expiry(answers, now))
    {
        Some(interrupt) => Err(RunError::expired(
            interrupt.id.to_string(),
            interrupt.expires_at.clone().unwrap_or_default(),
        )),
        None => Ok(()),
    }
}

/// What one event (or a mutation) changed in the conversation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Changed {
    /// The messages changed.
    pub messages: bool,
    /// The state changed.
    pub state: bool,
}

/// Records what the events applied changed.
struct Track(Changed);

impl Subscriber for Track {
    fn on_applied(&mut self, _: &Event, applied: &Applied, _: &Reducer) -> Flow {
        self.0.messages |= !matches!(applied.messages, MessagesChange::Unchanged);
        self.0.state |= applied.state_changed;
        Flow::Continue
    }
}

/// A turn whose response is being read: the events apply to the conversation through its
/// [`Pipeline`], fed by the caller as they come ([`pipeline_mut`](Self::pipeline_mut)'s
/// `push_*` with a subscriber, or one verified event at a time with [`push`](Self::push)).
#[derive(Debug)]
pub struct RunningTurn {
    pipeline: Pipeline,
    before: HashSet<MessageId>,
}

impl RunningTurn {
    /// The pipeline the response goes through.
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// The pipeline, to push the response's bytes, frames or events into.
    pub fn pipeline_mut(&mut self) -> &mut Pipeline {
        &mut self.pipeline
    }

    /// The conversation as the events so far made it.
    pub fn reducer(&self) -> &Reducer {
        self.pipeline.reducer()
    }

    /// Applies one event: through the whole pipeline (chunk expansion, verification, the
    /// reducer), or, for a [`deferred`](Pipeline::deferred) pipeline, straight to the reducer
    /// (an event taken, verified, with [`Pipeline::take_verified_into`]). Returns what it
    /// changed.
    ///
    /// # Errors
    /// The pipeline's: the event breaks the protocol's rules, or the reducer could not apply
    /// it.
    pub fn push(&mut self, event: Event) -> Result<Changed, PipelineError> {
        let mut track = Track(Changed::default());
        if self.pipeline.is_deferred() {
            self.pipeline.apply_verified(event, &mut track)?;
        } else {
            self.pipeline.push_event(event, &mut track)?;
        }
        Ok(track.0)
    }

    /// Replaces the messages or the state at once (what a subscriber asked for); returns what
    /// it changed.
    pub fn apply_mutation(&mut self, mutation: Mutation) -> Changed {
        let changed = Changed {
            messages: mutation.messages.is_some(),
            state: mutation.state.is_some(),
        };
        self.pipeline.apply_mutation(mutation);
        changed
    }

    /// Whether `id` is a message the conversation did not hold when the turn began.
    pub fn is_new(&self, id: &MessageId) -> bool {
        !self.before.contains(id)
    }

    /// Ends the turn. `end` is how reading ended: [`RunEnd::Finished`] when the response
    /// ended (and the pipeline was told so, [`Pipeline::finish`]; it then says how its last run did: finished, failed with the agent's
    /// `RUN_ERROR`, or cut off in the middle), [`RunEnd::Stopped`] when a subscriber stopped
    /// it, [`RunEnd::Cancelled`] when it was cancelled, or the failure that ended it.
    /// `warnings` are the request's (what was reshaped for the peer), told before the
    /// response's own.
    pub fn finish(self, end: Result<RunEnd, RunError>, warnings: Warnings) -> TurnEnd {
        let RunningTurn { pipeline, before } = self;
        let ending = end.and_then(|end| match end {
            RunEnd::Finished => match pipeline.check_end()? {
                StreamEnd::Failed(error) => Ok(Ending::AgentFailed(error)),
                _ => Ok(Ending::Run(RunEnd::Finished)),
            },
            other => Ok(Ending::Run(other)),
        });
        let result = conclude(
            pipeline.reducer(),
            &before,
            ending,
            warnings,
            pipeline.warnings(),
            pipeline.run_error().cloned(),
        );
        let reducer = pipeline.into_reducer();
        let pending_tool_calls = match &result {
            Ok(summary) if summary.end == RunEnd::Finished => {
                reducer.pending_tool_call_ids().to_vec()
            }
            _ => Vec::new(),
        };
        let pending_interrupts = reducer.pending_interrupts().to_vec();
        let outcome = reducer.outcome().cloned();
        let (messages, state) = reducer.into_parts();
        TurnEnd {
            result,
            messages,
            state,
            pending_interrupts,
            pending_tool_calls,
            outcome,
            before,
        }
    }
}

/// The end of a [`Turn`]: how the run went, and the conversation as it left it (what was
/// applied is kept whatever the result).
#[derive(Debug)]
#[non_exhaustive]
pub struct TurnEnd {
    /// What the run did, or why it failed (see [`Conversation::run_with`](
    /// super::Conversation::run_with)).
    pub result: Result<RunSummary, RunError>,
    /// The messages.
    pub messages: Vec<Message>,
    /// The state.
    pub state: Value,
    /// The interrupts the run left open: the next run must answer each of them.
    pub pending_interrupts: Vec<Interrupt>,
    /// The tool calls the run left for the client to answer (only when it finished).
    pub pending_tool_calls: Vec<ToolCallId>,
    /// The outcome of the last `RUN_FINISHED`, whatever the result (`None` if none came).
    pub outcome: Option<RunOutcome>,
    before: HashSet<MessageId>,
}

impl TurnEnd {
    /// The messages the run added (those the conversation did not hold when the turn began),
    /// in conversation order.
    pub fn new_messages(&self) -> impl Iterator<Item = &Message> {
        self.messages
            .iter()
            .filter(|m| !self.before.contains(m.id()))
    }
}

/// A run id no other run has: `<thread>-run-<t>-<p>-<n>`, where `t` is `now` in
/// microseconds since the Unix epoch, `p` the process id and `n` a counter of this process,
/// all in hex. Two runs of one process differ by the counter, runs of two processes by the
/// process id or the time: a conversation resumed by a new process (`ag-ui run --thread`)
/// never repeats the id of the run it resumes.
fn fresh_run_id(thread: &ThreadId, now: SystemTime) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let micros = now
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(
        "{thread}-run-{micros:x}-{:x}-{n:x}",
        crate::client::clock::process_id()
    )
}

#[cfg(test)]
mod tests;
