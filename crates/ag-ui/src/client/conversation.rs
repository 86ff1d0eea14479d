//! A conversation that lives across runs, and the [`Transport`] trait that carries its runs.
//!
//! A [`Conversation`] holds a thread id, the messages, the state, the interrupts the last run
//! left open and the tool calls it left for the client. Each [`run`](Conversation::run) sends
//! them to an agent through a transport — [`HttpAgent`](crate::client::http::HttpAgent) over
//! HTTP, [`Replay`] for recorded events, or your own (an in-process agent, another wire format) —
//! and applies the answer through the whole [`Pipeline`]. Frontend tools are Rust functions
//! registered with [`register_tool`](Conversation::register_tool): [`run_tools`](
//! Conversation::run_tools) answers the pending tool calls with them, and the next run sends
//! the results.
//!
//! ```
//! use ag_ui::client::conversation::{Conversation, Replay, RunEnd};
//! use ag_ui::{Event, TextMessageRole};
//!
//! # futures_executor_block_on(async {
//! let agent = Replay::new(vec![
//!     Event::run_started("thread-1", "run-1"),
//!     Event::text_message_start("a1", TextMessageRole::Assistant),
//!     Event::text_message_content("a1", "Hi there"),
//!     Event::text_message_end("a1"),
//!     Event::run_finished("thread-1", "run-1"),
//! ]);
//! let mut conversation = Conversation::new("thread-1");
//! conversation.add_user_message("Hello");
//! let summary = conversation.run(&agent, &mut ()).await?;
//! assert_eq!(summary.end, RunEnd::Finished);
//! assert_eq!(summary.new_messages.len(), 1);
//! assert_eq!(conversation.messages()[1].text(), Some("Hi there"));
//! # Ok::<(), ag_ui::client::run::RunError>(())
//! # }).unwrap();
//! # fn futures_executor_block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     // A tiny executor for the example: Replay never waits.
//! #     let waker = std::task::Waker::noop();
//! #     let mut cx = std::task::Context::from_waker(&waker);
//! #     let mut f = std::pin::pin!(f);
//! #     loop {
//! #         if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; }
//! #     }
//! # }
//! ```

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};

use serde_json::Value;

use crate::client::apply::{Limits, PartialJson, Reducer, RunOutcome};
use crate::client::run::{Flow, Pipeline, RunError, Subscriber, Wire};
use crate::{
    Context, Event, Interrupt, Message, MessageId, PROTOCOL_VERSION, ResumeEntry, ResumeStatus,
    RunAgentInput, ThreadId, Tool, ToolCallId, ToolMessage,
};

/// A piece of a response: bytes of an event stream, or an event already decoded.
#[derive(Clone, Debug, PartialEq)]
pub enum Chunk {
    /// Bytes of the stream in the body's [`wire`](Body::wire) encoding, in pieces of any
    /// size (shared, not copied, from the transport's buffers).
    Bytes(bytes::Bytes),
    /// One event (from a transport that does not go through bytes).
    Event(Box<Event>),
}

/// The response of one run, read piece by piece.
pub trait Body: Send {
    /// The next piece; `Ok(None)` at the end of the response.
    fn next(&mut self) -> impl Future<Output = Result<Option<Chunk>, RunError>> + Send;

    /// The encoding of the [`Chunk::Bytes`] this body yields, as the response declared it:
    /// SSE unless overridden.
    fn wire(&self) -> Wire {
        Wire::Sse
    }
}

/// Carries a run to an agent and its events back.
pub trait Transport: Sync {
    /// The response type.
    type Body: Body;

    /// Sends the run input and returns the response, once the agent accepted the run.
    ///
    /// # Errors
    /// [`RunError::Transport`] when the agent cannot be reached, [`RunError::Http`] when it
    /// refuses the run, [`RunError::NotAgUi`] when what came back is not an event stream,
    /// [`RunError::Timeout`] when it does not answer in time.
    fn open(
        &self,
        input: &RunAgentInput,
    ) -> impl Future<Output = Result<Self::Body, RunError>> + Send;
}

/// A transport that answers every run with the same recorded events (tests, demos, replays of
/// a captured stream).
#[derive(Clone, Debug, Default)]
pub struct Replay {
    events: Arc<Vec<Event>>,
}

impl Replay {
    /// Replays these events.
    pub fn new(events: Vec<Event>) -> Self {
        Self {
            events: Arc::new(events),
        }
    }
}

/// The body of a [`Replay`].
#[derive(Debug)]
pub struct ReplayBody {
    events: Arc<Vec<Event>>,
    next: usize,
}

impl Body for ReplayBody {
    async fn next(&mut self) -> Result<Option<Chunk>, RunError> {
        let event = self.events.get(self.next).cloned();
        self.next += 1;
        Ok(event.map(|e| Chunk::Event(Box::new(e))))
    }
}

impl Transport for Replay {
    type Body = ReplayBody;

    async fn open(&self, _input: &RunAgentInput) -> Result<ReplayBody, RunError> {
        Ok(ReplayBody {
            events: Arc::clone(&self.events),
            next: 0,
        })
    }
}

#[derive(Debug, Default)]
struct CancelState {
    cancelled: bool,
    waker: Option<Waker>,
}

/// Cancels a run from elsewhere (another task, a UI button). Cloning gives another handle to
/// the same run.
#[derive(Clone, Debug, Default)]
pub struct CancelHandle(Arc<Mutex<CancelState>>);

impl CancelHandle {
    /// A handle that has not cancelled anything yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels the run: the response is dropped (closing the HTTP request) and the run ends as
    /// [`RunEnd::Cancelled`], keeping what was applied.
    pub fn cancel(&self) {
        let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        state.cancelled = true;
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).cancelled
    }

    /// Awaits `future` unless cancelled first (`None` then).
    async fn guard<F: Future>(&self, future: F) -> Option<F::Output> {
        let mut future = pin!(future);
        poll_fn(|cx| {
            {
                let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
                if state.cancelled {
                    return Poll::Ready(None);
                }
                state.waker = Some(cx.waker().clone());
            }
            future.as_mut().poll(cx).map(Some)
        })
        .await
    }
}

/// How a run ended, when it did not fail.
///
/// Failures are not summaries: a run the agent ended with `RUN_ERROR`, a response that
/// stopped in the middle of a run and a response that is not an AG-UI stream are
/// [`RunError`]s ([`RunFailed`](RunError::RunFailed), [`Incomplete`](RunError::Incomplete),
/// [`NotAgUi`](RunError::NotAgUi)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunEnd {
    /// The agent ended the run with `RUN_FINISHED` (its outcome is in
    /// [`RunSummary::outcome`]).
    Finished,
    /// A subscriber returned [`Flow::Stop`].
    Stopped,
    /// The run was cancelled through its [`CancelHandle`].
    Cancelled,
}

/// What a run did. [`Conversation::run`] returns one only for a run that finished
/// (`RUN_FINISHED`) or that you stopped or cancelled; every failure is an `Err`.
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
}

type ToolHandler = Box<dyn FnMut(&Value) -> Result<String, String> + Send>;

/// A conversation with an agent, kept across runs. See the [module documentation](self).
pub struct Conversation {
    thread_id: ThreadId,
    messages: Vec<Message>,
    state: Value,
    pending_interrupts: Vec<Interrupt>,
    pending_tool_calls: Vec<ToolCallId>,
    tools: Vec<Tool>,
    handlers: HashMap<String, ToolHandler>,
    context: Vec<Context>,
    forwarded_props: Value,
    ids: u64,
    max_event_size: Option<usize>,
    limits: Limits,
}

impl fmt::Debug for Conversation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Conversation")
            .field("thread_id", &self.thread_id)
            .field("messages", &self.messages.len())
            .field("pending_interrupts", &self.pending_interrupts)
            .field("pending_tool_calls", &self.pending_tool_calls)
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}

impl Conversation {
    /// An empty conversation on this thread; the state is `{}`.
    pub fn new(thread_id: impl Into<ThreadId>) -> Self {
        Self {
            thread_id: thread_id.into(),
            messages: Vec::new(),
            state: Value::Object(serde_json::Map::new()),
            pending_interrupts: Vec::new(),
            pending_tool_calls: Vec::new(),
            tools: Vec::new(),
            handlers: HashMap::new(),
            context: Vec::new(),
            forwarded_props: Value::Object(serde_json::Map::new()),
            ids: 0,
            max_event_size: None,
            limits: Limits::new(),
        }
    }

    /// Starts from this state.
    #[must_use]
    pub fn with_state(mut self, state: Value) -> Self {
        self.state = state;
        self
    }

    /// Starts from these messages.
    #[must_use]
    pub fn with_messages(mut self, messages: Vec<Message>) -> Self {
        self.messages = messages;
        self
    }

    /// Sends this context with every run.
    #[must_use]
    pub fn with_context(mut self, context: Vec<Context>) -> Self {
        self.context = context;
        self
    }

    /// Sends these forwarded props with every run (default `{}`).
    #[must_use]
    pub fn with_forwarded_props(mut self, props: Value) -> Self {
        self.forwarded_props = props;
        self
    }

    /// Limits the size of one SSE event (default 10 MiB).
    #[must_use]
    pub fn with_max_event_size(mut self, bytes: usize) -> Self {
        self.max_event_size = Some(bytes);
        self
    }

    /// Sets the limits on what a run's events may build (see [`Limits`]; the defaults
    /// otherwise); an event over one ends the run with a [`RunError::Apply`].
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The thread id.
    pub fn thread_id(&self) -> &ThreadId {
        &self.thread_id
    }

    /// The messages.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The state.
    pub fn state(&self) -> &Value {
        &self.state
    }

    /// The interrupts the last run left open; the next run must answer each of them.
    pub fn pending_interrupts(&self) -> &[Interrupt] {
        &self.pending_interrupts
    }

    /// The tool calls the last run left for the client to answer.
    pub fn pending_tool_calls(&self) -> &[ToolCallId] {
        &self.pending_tool_calls
    }

    fn next_id(&mut self, kind: &str) -> String {
        self.ids += 1;
        format!("{}-{kind}-{}", self.thread_id, self.ids)
    }

    /// Appends a message.
    pub fn add_message(&mut self, message: Message) {
        self.messages.push(message);
    }

    /// Appends a user message with a fresh id (`<thread>-user-<n>`) and returns the id.
    pub fn add_user_message(&mut self, text: impl Into<String>) -> MessageId {
        let id = MessageId::new(self.next_id("user"));
        self.messages.push(Message::user(id.clone(), text.into()));
        id
    }

    /// Registers a frontend tool: it is offered to the agent with every run, and
    /// [`run_tools`](Self::run_tools) answers calls of it with `handler`, which gets the parsed
    /// arguments and returns the result text (or an error text).
    pub fn register_tool(
        &mut self,
        tool: Tool,
        handler: impl FnMut(&Value) -> Result<String, String> + Send + 'static,
    ) {
        self.handlers.insert(tool.name.clone(), Box::new(handler));
        self.tools.retain(|t| t.name != tool.name);
        self.tools.push(tool);
    }

    /// Answers every pending tool call whose tool has a registered handler: appends a tool
    /// message with the handler's result (or its error, in the message's `error` field) for
    /// each. Returns how many were answered; the rest stay pending.
    pub fn run_tools(&mut self) -> usize {
        let pending = std::mem::take(&mut self.pending_tool_calls);
        let mut answered = 0;
        for id in pending {
            let call = self.messages.iter().find_map(|m| match m {
                Message::Assistant(a) => a
                    .tool_calls
                    .iter()
                    .flatten()
                    .find(|c| c.id == id)
                    .map(|c| (c.function.name.clone(), c.function.arguments.clone())),
                _ => None,
            });
            let Some((name, arguments)) = call else {
                self.pending_tool_calls.push(id);
                continue;
            };
            let Some(handler) = self.handlers.get_mut(&name) else {
                self.pending_tool_calls.push(id);
                continue;
            };
            let args = serde_json::from_str(&arguments)
                .unwrap_or_else(|_| PartialJson::from_text(&arguments).value());
            let result = handler(&args);
            let message_id = MessageId::new(self.next_id("tool"));
            let message = match result {
                Ok(text) => ToolMessage::new(message_id, id.clone(), text),
                Err(error) => {
                    let mut m = ToolMessage::new(message_id, id.clone(), "");
                    m.error = Some(error);
                    m
                }
            };
            self.messages.push(Message::Tool(message));
            answered += 1;
        }
        answered
    }

    /// Runs the agent once on the conversation.
    ///
    /// `Ok` means the agent finished the run with `RUN_FINISHED`; see [`run_with`](
    /// Self::run_with) for the failures.
    ///
    /// # Errors
    /// See [`run_with`](Self::run_with).
    pub async fn run<T: Transport>(
        &mut self,
        transport: &T,
        subscriber: &mut (impl Subscriber + Send),
    ) -> Result<RunSummary, RunError> {
        self.run_with(transport, None, &CancelHandle::new(), subscriber)
            .await
    }

    /// Runs the agent once, answering the open interrupts with `resume` (required when there
    /// are open interrupts), cancellable through `cancel`.
    ///
    /// Every run is sent with `protocolVersion` `"1.0"` and a fresh run id (see
    /// [`fresh_run_id`]). Messages and state keep whatever was applied when the run fails or
    /// is cancelled.
    ///
    /// # Errors
    /// - [`RunError::UnansweredInterrupt`] / [`RunError::ExpiredInterrupt`] (nothing is sent)
    ///   when an open interrupt has no resume entry, or an expired one is not cancelled;
    /// - [`RunError::RunFailed`], with the agent's message and code, when the run ended with
    ///   `RUN_ERROR`;
    /// - [`RunError::Incomplete`], naming the run and what it still had open (messages, tool
    ///   calls, steps, subagents), when the response ended before `RUN_FINISHED`;
    /// - the transport's errors ([`RunError::Transport`], [`RunError::Http`],
    ///   [`RunError::NotAgUi`], [`RunError::Timeout`], …);
    /// - the pipeline's errors (decode, chunk, verify, apply).
    pub async fn run_with<T: Transport>(
        &mut self,
        transport: &T,
        resume: Option<Vec<ResumeEntry>>,
        cancel: &CancelHandle,
        subscriber: &mut (impl Subscriber + Send),
    ) -> Result<RunSummary, RunError> {
        if !self.pending_interrupts.is_empty() {
            let answered: HashSet<&str> = resume
                .iter()
                .flatten()
                .map(|r| r.interrupt_id.as_str())
                .collect();
            if let Some(open) = self
                .pending_interrupts
                .iter()
                .find(|i| !answered.contains(i.id.as_str()))
            {
                return Err(RunError::UnansweredInterrupt(open.id.to_string()));
            }
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
            for interrupt in &self.pending_interrupts {
                let expired = interrupt
                    .expires_at
                    .as_deref()
                    .and_then(timestamp_ms)
                    .is_some_and(|at| at <= now);
                let cancelled = resume
                    .iter()
                    .flatten()
                    .any(|r| r.interrupt_id == interrupt.id && r.status == ResumeStatus::Cancelled);
                if expired && !cancelled {
                    return Err(RunError::ExpiredInterrupt(interrupt.id.to_string()));
                }
            }
        }
        let mut input = RunAgentInput::new(self.thread_id.clone(), fresh_run_id(&self.thread_id))
            .with_protocol_version(PROTOCOL_VERSION)
            .with_state(self.state.clone())
            .with_tools(self.tools.clone())
            .with_context(self.context.clone())
            .with_forwarded_props(self.forwarded_props.clone());
        // Activities are the client's own; they are never sent. The other messages travel in
        // the input and come back for the reducer, uncopied.
        let mut activities = Vec::new();
        for (index, message) in std::mem::take(&mut self.messages).into_iter().enumerate() {
            if matches!(message, Message::Activity(_)) {
                activities.push((index, message));
            } else {
                input.messages.push(message);
            }
        }
        if let Some(resume) = resume {
            input = input.with_resume(resume);
        }
        let opened = cancel.guard(transport.open(&input)).await;
        let mut messages = std::mem::take(&mut input.messages);
        drop(input);
        for (index, activity) in activities {
            messages.insert(index, activity);
        }
        let before: HashSet<MessageId> = messages.iter().map(|m| m.id().clone()).collect();
        let mut body = match opened {
            None => {
                self.messages = messages;
                return Ok(RunSummary {
                    end: RunEnd::Cancelled,
                    outcome: None,
                    new_messages: Vec::new(),
                    events: 0,
                });
            }
            Some(Err(e)) => {
                self.messages = messages;
                return Err(e);
            }
            Some(Ok(body)) => body,
        };
        let reducer = Reducer::new()
            .with_messages(messages)
            .with_state(self.state.clone())
            .with_pending_interrupts(std::mem::take(&mut self.pending_interrupts))
            .with_limits(self.limits);
        let mut pipeline = Pipeline::new(reducer).with_wire(body.wire());
        if let Some(limit) = self.max_event_size {
            pipeline = pipeline.with_max_event_size(limit);
        }
        let result = loop {
            let chunk = match cancel.guard(body.next()).await {
                None => break Ok(RunEnd::Cancelled),
                Some(Err(e)) => break Err(e),
                Some(Ok(chunk)) => chunk,
            };
            let flow = match chunk {
                Some(Chunk::Bytes(bytes)) => pipeline.push_bytes(&bytes, subscriber),
                Some(Chunk::Event(event)) => pipeline.push_event(*event, subscriber),
                None => match pipeline.finish(subscriber) {
                    Ok(Flow::Continue) => break pipeline.check_end().map(|()| RunEnd::Finished),
                    other => other,
                },
            };
            match flow {
                Ok(Flow::Continue) => {}
                Ok(Flow::Stop) => break Ok(RunEnd::Stopped),
                Err(e) => break Err(e),
            }
        };
        drop(body);
        let reducer = pipeline.into_reducer();
        let summary = RunSummary {
            end: *result.as_ref().unwrap_or(&RunEnd::Finished),
            outcome: reducer.outcome().cloned(),
            new_messages: reducer
                .messages()
                .iter()
                .map(Message::id)
                .filter(|id| !before.contains(*id))
                .cloned()
                .collect(),
            events: reducer.events_applied(),
        };
        self.pending_interrupts = reducer.pending_interrupts().to_vec();
        self.pending_tool_calls = match result {
            Ok(RunEnd::Finished) => reducer.pending_tool_call_ids().to_vec(),
            _ => Vec::new(),
        };
        let (messages, state) = reducer.into_parts();
        self.messages = messages;
        self.state = state;
        result.map(|_| summary)
    }
}

/// A run id no other run has: `<thread>-run-<t>-<p>-<n>`, where `t` is the time in
/// microseconds since the Unix epoch, `p` the process id and `n` a counter of this process,
/// all in hex. Two runs of one process differ by the counter, runs of two processes by the
/// process id or the time: a conversation resumed by a new process (`ag-ui run --thread`)
/// never repeats the id of the run it resumes.
///
/// ```
/// use ag_ui::client::conversation::fresh_run_id;
/// use ag_ui::ThreadId;
///
/// let thread = ThreadId::new("t1");
/// let (a, b) = (fresh_run_id(&thread), fresh_run_id(&thread));
/// assert!(a.starts_with("t1-run-"));
/// assert_ne!(a, b);
/// ```
pub fn fresh_run_id(thread: &ThreadId) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let micros = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{thread}-run-{micros:x}-{:x}-{n:x}", std::process::id())
}

/// Milliseconds since the Unix epoch of an ISO 8601 / RFC 3339 date-time
/// (`2026-01-31T12:00:00Z`, `…T12:00:00.250+02:00`, or a bare date, read as UTC midnight).
/// `None` for anything else: an unparseable `expiresAt` never expires, as in the reference.
fn timestamp_ms(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = text.get(range)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    if b.get(4) != Some(&b'-')
        || b.get(7) != Some(&b'-')
        || !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
    {
        return None;
    }
    // Days from the civil date (proleptic Gregorian), after H. Hinnant.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    if b.len() == 10 {
        return Some(days * 86_400_000);
    }
    if !matches!(b.get(10), Some(b'T' | b't' | b' '))
        || b.get(13) != Some(&b':')
        || b.get(16) != Some(&b':')
    {
        return None;
    }
    let (hour, minute, second) = (digits(11..13)?, digits(14..16)?, digits(17..19)?);
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut at = 19;
    let mut millis = 0;
    if b.get(at) == Some(&b'.') {
        let start = at + 1;
        at = start;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        let fraction = text.get(start..at.min(start + 3))?;
        if fraction.is_empty() {
            return None;
        }
        millis = fraction.parse::<i64>().ok()? * 10_i64.pow(3 - fraction.len() as u32);
    }
    let offset = match text.get(at..)? {
        "Z" | "z" => 0,
        zone if zone.len() == 6
            && (zone.starts_with('+') || zone.starts_with('-'))
            && &zone[3..4] == ":" =>
        {
            let minutes = digits(at + 1..at + 3)? * 60 + digits(at + 4..at + 6)?;
            if zone.starts_with('-') {
                -minutes
            } else {
                minutes
            }
        }
        _ => return None,
    };
    Some(((days * 24 + hour) * 60 + minute - offset) * 60_000 + second * 1000 + millis)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        ResumeEntry, RunFinishedEvent, RunFinishedOutcome, TextMessageRole, ToolCallStartEvent,
    };

    fn block_on<F: Future>(f: F) -> F::Output {
        let waker = Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        let mut f = pin!(f);
        loop {
            if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
        }
    }

    #[test]
    fn interrupts_must_be_answered() {
        let interrupted = Replay::new(vec![
            Event::run_started("t", "r1"),
            RunFinishedEvent::new("t", "r1")
                .with_outcome(RunFinishedOutcome::interrupt(vec![Interrupt::new(
                    "i1", "approve",
                )]))
                .into(),
        ]);
        let mut c = Conversation::new("t");
        block_on(c.run(&interrupted, &mut ())).unwrap();
        assert_eq!(c.pending_interrupts().len(), 1);
        let err = block_on(c.run(&interrupted, &mut ())).unwrap_err();
        assert!(matches!(err, RunError::UnansweredInterrupt(ref id) if id == "i1"));
        let done = Replay::new(vec![
            Event::run_started("t", "r2"),
            Event::run_finished("t", "r2"),
        ]);
        let summary = block_on(c.run_with(
            &done,
            Some(vec![ResumeEntry::resolved(
                "i1",
                serde_json::json!({"ok": true}),
            )]),
            &CancelHandle::new(),
            &mut (),
        ))
        .unwrap();
        assert_eq!(summary.end, RunEnd::Finished);
        assert!(c.pending_interrupts().is_empty());
    }

    #[test]
    fn limits_reach_the_reducer() {
        let endless = Replay::new(vec![
            Event::run_started("t", "r1"),
            Event::text_message_start("m", TextMessageRole::Assistant),
            Event::text_message_content("m", "0123456789"),
            Event::text_message_content("m", "0123456789"),
        ]);
        let mut c = Conversation::new("t").with_limits(Limits::new().with_max_message_bytes(15));
        let err = block_on(c.run(&endless, &mut ())).unwrap_err();
        let RunError::Apply(e) = &err else {
            panic!("{err}")
        };
        assert_eq!(e.index, 3);
        assert_eq!(
            e.limit.map(|l| (l.kind, l.size, l.max)),
            Some((crate::client::apply::LimitKind::MessageBytes, 20, 15))
        );
    }

    #[test]
    fn timestamps() {
        assert_eq!(timestamp_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(timestamp_ms("1970-01-01"), Some(0));
        assert_eq!(
            timestamp_ms("2000-03-01T00:00:00.5Z"),
            Some(951_868_800_500)
        );
        assert_eq!(
            timestamp_ms("2000-03-01T02:00:00+02:00"),
            Some(951_868_800_000)
        );
        assert_eq!(timestamp_ms("1969-12-31T23:59:59Z"), Some(-1000));
        for bad in [
            "",
            "soon",
            "2000-13-01",
            "2000-01-01T25:00:00Z",
            "2000-01-01T00:00:00",
            "2000-01-01T00:00:00+0200",
        ] {
            assert_eq!(timestamp_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn expired_interrupts_must_be_cancelled() {
        let expired = Interrupt::new("old", "approve").with_expires_at("2001-01-01T00:00:00Z");
        let future = Interrupt::new("new", "approve").with_expires_at("2999-01-01T00:00:00Z");
        let garbage = Interrupt::new("odd", "approve").with_expires_at("whenever");
        let stop = Replay::new(vec![
            Event::run_started("t", "r1"),
            RunFinishedEvent::new("t", "r1")
                .with_outcome(RunFinishedOutcome::interrupt(vec![
                    expired, future, garbage,
                ]))
                .into(),
        ]);
        let mut c = Conversation::new("t");
        block_on(c.run(&stop, &mut ())).unwrap();
        let resolved = |id: &str| ResumeEntry::resolved(id, serde_json::json!(true));
        let all_resolved = vec![resolved("old"), resolved("new"), resolved("odd")];
        let err = block_on(c.run_with(&stop, Some(all_resolved), &CancelHandle::new(), &mut ()))
            .unwrap_err();
        assert!(
            matches!(err, RunError::ExpiredInterrupt(ref id) if id == "old"),
            "{err}"
        );
        let answers = vec![
            ResumeEntry::cancelled("old"),
            resolved("new"),
            resolved("odd"),
        ];
        block_on(c.run_with(&stop, Some(answers), &CancelHandle::new(), &mut ())).unwrap();
    }

    #[test]
    fn frontend_tools_answer_pending_calls() {
        let calls = Replay::new(vec![
            Event::run_started("t", "r1"),
            Event::text_message_start("a", TextMessageRole::Assistant),
            Event::text_message_end("a"),
            ToolCallStartEvent::new("c1", "add")
                .with_parent_message_id("a")
                .into(),
            Event::tool_call_args("c1", r#"{"a":2,"b":3}"#),
            Event::tool_call_end("c1"),
            ToolCallStartEvent::new("c2", "unknown")
                .with_parent_message_id("a")
                .into(),
            Event::tool_call_end("c2"),
            Event::run_finished("t", "r1"),
        ]);
        let mut c = Conversation::new("t");
        c.register_tool(Tool::new("add", "adds"), |args| {
            Ok((args["a"].as_i64().unwrap() + args["b"].as_i64().unwrap()).to_string())
        });
        block_on(c.run(&calls, &mut ())).unwrap();
        assert_eq!(c.pending_tool_calls().len(), 2);
        assert_eq!(c.run_tools(), 1);
        assert_eq!(c.pending_tool_calls(), &[ToolCallId::new("c2")]);
        let last = c.messages().last().unwrap();
        assert_eq!(last.text(), Some("5"));
        assert_eq!(last.id().as_str(), "t-tool-1");
    }

    #[test]
    fn cancelled_before_open_sends_nothing_and_keeps_messages() {
        let cancel = CancelHandle::new();
        cancel.cancel();
        let mut c = Conversation::new("t");
        c.add_user_message("hi");
        let s = block_on(c.run_with(&Replay::default(), None, &cancel, &mut ())).unwrap();
        assert_eq!(s.end, RunEnd::Cancelled);
        assert_eq!(c.messages().len(), 1);
    }
}
