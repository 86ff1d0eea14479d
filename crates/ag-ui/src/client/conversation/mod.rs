use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

use crate::client::apply::{Applied, PartialJson, Reducer};
use crate::client::callbacks::Callbacks;
use crate::client::middleware::Stack;
use crate::client::peer::PeerVersion;
use crate::client::run::{Pipeline, PipelineLimits, StreamEnd};
use crate::client::subscriber::{Flow, Mutation, Subscriber};
use crate::client::transport::{Body, CancelToken, Piece, Transport};
use crate::client::warning::Warning;
use crate::encoding::Format;
use crate::trace::TraceOutcome;
use crate::{
    Context, Event, Interrupt, Message, MessageId, PROTOCOL_VERSION, ResumeEntry, RunAgentInput,
    ThreadId, Tool, ToolCallId, ToolMessage,
};

mod error;
mod summary;

pub use error::{RunError, RunErrorKind};
use summary::{Ending, conclude, request_warnings};
pub use summary::{RunEnd, RunSummary};

type ToolHandler = Box<dyn FnMut(&Value) -> Result<String, String> + Send>;

/// A conversation with an agent, kept across runs. See the [`Conversation`] docs.
///
/// A conversation that lives across runs.
///
/// A [`Conversation`] holds a thread id, the messages, the state, the interrupts the last run
/// left open and the tool calls it left for the client. Each [`run`](Conversation::run) sends
/// them to an agent through a [`Transport`] — [`HttpAgent`](crate::client::HttpAgent) over
/// HTTP, [`Replay`](crate::client::Replay) for recorded events, or your own (an in-process agent, another wire format) —
/// and applies the answer through the whole [`Pipeline`]. A failed run is a [`RunError`]: the
/// agent's own failure, the transport's, the pipeline's, or an interrupt left unanswered (see
/// below). Frontend tools are Rust functions
/// registered with [`register_tool`](Conversation::register_tool): [`run_tools`](
/// Conversation::run_tools) answers the pending tool calls with them, and the next run sends
/// the results.
///
/// ```
/// use ag_ui::client::{Conversation, Replay, RunEnd};
/// use ag_ui::{Event, TextMessageRole};
///
/// # futures::executor::block_on(async {
/// let agent = Replay::new(vec![
///     Event::run_started("thread-1", "run-1"),
///     Event::text_message_start("a1", TextMessageRole::Assistant),
///     Event::text_message_content("a1", "Hi there"),
///     Event::text_message_end("a1"),
///     Event::run_finished("thread-1", "run-1"),
/// ]);
/// let mut conversation = Conversation::new("thread-1");
/// conversation.add_user_message("Hello");
/// let summary = conversation.run(&agent, &mut ()).await?;
/// assert_eq!(summary.end, RunEnd::Finished);
/// assert_eq!(summary.new_messages.len(), 1);
/// assert_eq!(conversation.messages()[1].text(), Some("Hi there"));
/// # Ok::<(), ag_ui::client::RunError>(())
/// # }).unwrap();
/// ```
///
/// # The agent's failure is not a rejection
///
/// Two different things end a run in an `Err`, so that `?` never reads either as success:
///
/// - **the agent reported that its run failed**: the response's last run ended with
///   `RUN_ERROR`. The client consumed the stream (the conformance corpus's `outcome:
///   completed` with a `runError`): every event was delivered to the subscribers and applied,
///   the `RUN_ERROR` included. The error is of kind [`RunErrorKind::Agent`], with the agent's
///   message and code ([`RunError::agent_error`]) and what the run did
///   ([`RunError::summary`]).
/// - **the client rejected the response**, or could not get it
///   ([`RunErrorKind::is_rejection`], the corpus's `outcome: failed`): an ordering violation,
///   an event that does not decode, a chunk that cannot expand, an event over the limits, a
///   response cut off in the middle of a run, a transport failure.
///
/// A `RUN_ERROR` does not end the stream: a `RUN_STARTED` after it begins a new run in the same
/// response, and the response's last run decides the result (the failure before it is still
/// reported, in [`RunSummary::run_error`]). A `RUN_ERROR` after a finished run is delivered, not
/// refused: the response ends as the agent's failure.
///
/// What the client left out of a response (an event type, a member, an outcome, a part, a
/// message or a patch operation this version does not know) or could not apply is no silent
/// matter either: each [`Warning`] is told to the subscriber
/// ([`Subscriber::on_warning`]) and kept in [`RunSummary::warnings`].
///
/// ```
/// use ag_ui::client::{Conversation, Replay, RunErrorKind};
/// use ag_ui::{Event, RunErrorEvent, TextMessageRole};
///
/// # futures::executor::block_on(async {
/// // The agent fails: the stream was consumed and what came is kept.
/// let failing = Replay::new(vec![
///     Event::run_started("t", "r1"),
///     Event::text_message_start("a1", TextMessageRole::Assistant),
///     Event::text_message_content("a1", "Let me"),
///     RunErrorEvent::new("the model is overloaded").with_code("busy").into(),
/// ]);
/// let mut conversation = Conversation::new("t");
/// let err = conversation.run(&failing, &mut ()).await.unwrap_err();
/// assert_eq!(err.kind(), RunErrorKind::Agent);
/// assert!(!err.kind().is_rejection());
/// let failure = err.agent_error().unwrap();
/// assert_eq!((failure.code(), failure.message()), (Some("busy"), "the model is overloaded"));
/// assert_eq!(err.summary().unwrap().new_messages.len(), 1);
/// assert_eq!(conversation.messages()[0].text(), Some("Let me"));
///
/// // The stream is broken: the client rejects it, naming the rule.
/// let broken = Replay::new(vec![
///     Event::run_started("t", "r2"),
///     Event::text_message_content("ghost", "boo"),
/// ]);
/// let err = conversation.run(&broken, &mut ()).await.unwrap_err();
/// assert!(err.kind().is_rejection());
/// let violation = err.pipeline().and_then(|p| p.violation()).unwrap();
/// assert_eq!(violation.kind().as_str(), "text.not-open");
///
/// // A failed run, then a new one in the same response: the response's last run finished.
/// let retried = Replay::new(vec![
///     Event::run_started("t", "r3"),
///     Event::run_error("first try failed"),
///     Event::run_started("t", "r4"),
///     Event::run_finished("t", "r4"),
/// ]);
/// let summary = conversation.run(&retried, &mut ()).await.unwrap();
/// assert_eq!(summary.run_error.unwrap().message(), "first try failed");
/// # });
/// ```
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
    limits: PipelineLimits,
    middleware: Stack,
    callbacks: Callbacks,
}

impl fmt::Debug for Conversation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Conversation")
            .field("thread_id", &self.thread_id)
            .field("messages", &self.messages.len())
            .field("pending_interrupts", &self.pending_interrupts)
            .field("pending_tool_calls", &self.pending_tool_calls)
            .field("tools", &self.tools.len())
            .field("middleware", &self.middleware)
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
            limits: PipelineLimits::default(),
            middleware: Stack::new(),
            callbacks: Callbacks::new(),
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

    /// Offers these tools to the agent with every run, without a handler: a call of one stays
    /// pending for the application to answer (see [`register_tool`](Self::register_tool) for
    /// tools this conversation answers itself). A tool of the same name is replaced.
    #[must_use]
    pub fn with_tools(mut self, tools: Vec<Tool>) -> Self {
        for tool in tools {
            self.tools.retain(|t| t.name != tool.name);
            self.tools.push(tool);
        }
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

    /// Sets every limit of its runs' pipelines at once (see [`PipelineLimits`]; the defaults
    /// otherwise): the largest frame, on every path (the reconnecting reader's too), and what
    /// the events may build, an event over one ending the run with a
    /// [`PipelineErrorKind::Apply`](crate::client::PipelineErrorKind::Apply). The shortcut
    /// [`with_max_event_size`](Self::with_max_event_size) sets one field.
    #[must_use]
    pub fn with_limits(mut self, limits: PipelineLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Limits the size of one SSE (or protobuf) frame (default 10 MiB):
    /// [`PipelineLimits::max_event_size`].
    #[must_use]
    pub fn with_max_event_size(mut self, bytes: usize) -> Self {
        self.limits.max_event_size = bytes;
        self
    }

    /// The limits its runs' pipelines get.
    pub fn limits(&self) -> PipelineLimits {
        self.limits
    }

    /// Runs every event of every run through `middleware` before verification (see
    /// [`middleware`](crate::client::middleware)); a layer's state lasts across runs.
    #[must_use]
    pub fn with_middleware(mut self, middleware: Stack) -> Self {
        self.middleware = middleware;
        self
    }

    /// Calls `callbacks` in every run, before the run's own subscriber (see
    /// [`Callbacks`]); a mutation from either replaces messages or state, the run's
    /// subscriber's winning. A closure set with [`on_text_delta`](Self::on_text_delta) is
    /// kept unless `callbacks` has one of its own, whichever was called first.
    #[must_use]
    pub fn with_callbacks(mut self, callbacks: Callbacks) -> Self {
        self.callbacks = std::mem::take(&mut self.callbacks).overlaid(callbacks);
        self
    }

    /// Calls `f` with the text of every `TEXT_MESSAGE_CONTENT` of every run, as it streams
    /// (the same as [`Callbacks::on_text_delta`] on the conversation's callbacks).
    #[must_use]
    pub fn on_text_delta<R: Into<Flow>>(
        mut self,
        f: impl FnMut(&str) -> R + Send + 'static,
    ) -> Self {
        self.callbacks = std::mem::take(&mut self.callbacks).on_text_delta(f);
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
    /// `Ok` means the response's last run finished with `RUN_FINISHED`; see [`run_with`](
    /// Self::run_with) for the failures.
    ///
    /// # Errors
    /// See [`run_with`](Self::run_with).
    pub async fn run<T: Transport>(
        &mut self,
        transport: &T,
        subscriber: &mut (impl Subscriber + Send),
    ) -> Result<RunSummary, RunError> {
        self.run_with(transport, None, &CancelToken::new(), subscriber)
            .await
    }

    /// Runs the agent once, answering the open interrupts with `resume` (required when there
    /// are open interrupts), cancellable through `cancel`.
    ///
    /// Every run is sent with `protocolVersion` `"1.0"` and a fresh run id (see
    /// [`fresh_run_id`]); to a transport pinned to an older agent
    /// ([`Transport::peer_version`]), as the [`PeerVersion`](crate::client::PeerVersion) shims shape it
    /// (what they change is a warning of the summary). Messages and state keep whatever was
    /// applied when the run fails or is cancelled.
    ///
    /// # Errors
    /// - [`RunErrorKind::UnansweredInterrupt`] / [`RunErrorKind::ExpiredInterrupt`] (nothing is sent)
    ///   when an open interrupt has no resume entry, or an expired one is not cancelled;
    /// - [`RunErrorKind::Agent`], with the agent's message and code
    ///   ([`RunError::agent_error`]) and the run's summary ([`RunError::summary`]), when the
    ///   response's last run ended with `RUN_ERROR`;
    /// - [`PipelineErrorKind::Incomplete`](crate::client::PipelineErrorKind::Incomplete), naming
    ///   the run and what it still had open (messages, tool calls, steps, subagents), when the
    ///   response ended before its run did;
    /// - the other pipeline errors (decode, chunk, verify, apply), as [`RunError::pipeline`];
    /// - the transport's errors ([`TransportError`](crate::client::TransportError): connection,
    ///   HTTP status, not an event stream, timeout, …), as [`RunError::transport`].
    pub async fn run_with<T: Transport>(
        &mut self,
        transport: &T,
        resume: Option<Vec<ResumeEntry>>,
        cancel: &CancelToken,
        subscriber: &mut (impl Subscriber + Send),
    ) -> Result<RunSummary, RunError> {
        self.check_answers(resume.as_deref())?;
        let (mut input, activities) = self.input(resume);
        let peer = transport.peer_version();
        let mut shaped = Vec::new();
        if let Some(peer) = peer {
            peer.shape_input(&mut input, &mut shaped);
        }
        // Told before anything is sent; the run is read whatever the subscribers answer (a
        // `Flow::Stop` is for the response, whose first event can be stopped at).
        for warning in &shaped {
            let _ = Subscriber::on_warning(&mut self.callbacks, warning);
            let _ = subscriber.on_warning(warning);
        }
        let warnings = request_warnings(shaped);
        let mut trace = crate::trace::RunTrace::new(&input, "client");
        let opened = tracing::Instrument::instrument(
            cancel.guard(transport.open(&input)),
            trace.span().clone(),
        )
        .await;
        let messages = with_activities(std::mem::take(&mut input.messages), activities);
        drop(input);
        let before: HashSet<MessageId> = messages.iter().map(|m| m.id().clone()).collect();
        let mut body = match opened {
            Some(Ok(body)) => body,
            Some(Err(e)) => {
                self.messages = messages;
                trace.set_outcome(TraceOutcome::Failed(RunErrorKind::Transport(e.kind())));
                return Err(e.into());
            }
            None => {
                self.messages = messages;
                trace.set_outcome(TraceOutcome::Cancelled);
                return Ok(RunSummary::cancelled_unopened(warnings));
            }
        };
        let mut pipeline = self.pipeline(messages, body.format(), peer);
        // One frame limit: the pipeline's holds in a body that reads frames itself too.
        body.set_max_event_size(pipeline.max_event_size());
        let mut callbacks = std::mem::take(&mut self.callbacks);
        let mut both = Both {
            first: &mut callbacks,
            second: subscriber,
            trace: &mut trace,
        };
        let ending = read(&mut body, &mut pipeline, cancel, &mut both).await;
        drop(body);
        self.middleware = pipeline.take_middleware();
        self.callbacks = callbacks;
        record_end(&mut trace, &ending);
        drop(trace);
        let result = conclude(
            pipeline.reducer(),
            &before,
            ending,
            warnings,
            pipeline.warnings(),
            pipeline.run_error().cloned(),
        );
        self.take_back(pipeline.into_reducer(), &result);
        result
    }

    /// Checks that every open interrupt is answered by `resume`, and every expired one with
    /// `cancelled`.
    fn check_answers(&self, resume: Option<&[ResumeEntry]>) -> Result<(), RunError> {
        if self.pending_interrupts.is_empty() {
            return Ok(());
        }
        let answers = resume.unwrap_or_default();
        let answered: HashSet<&str> = answers.iter().map(|r| r.interrupt_id.as_str()).collect();
        if let Some(open) = self
            .pending_interrupts
            .iter()
            .find(|i| !answered.contains(i.id.as_str()))
        {
            return Err(RunError::unanswered(open.id.to_string()));
        }
        let now = crate::client::clock::now();
        match self
            .pending_interrupts
            .iter()
            .find(|i| i.answered_after_expiry(answers, now))
        {
            Some(interrupt) => Err(RunError::expired(interrupt.id.to_string())),
            None => Ok(()),
        }
    }

    /// The input of the next run, with the conversation's messages moved into it, and the
    /// activity messages (the client's own, never sent) set aside with their places.
    fn input(&mut self, resume: Option<Vec<ResumeEntry>>) -> (RunAgentInput, Activities) {
        let mut input = RunAgentInput::new(self.thread_id.clone(), fresh_run_id(&self.thread_id))
            .with_protocol_version(PROTOCOL_VERSION)
            .with_state(self.state.clone())
            .with_tools(self.tools.clone())
            .with_context(self.context.clone())
            .with_forwarded_props(self.forwarded_props.clone());
        // The other messages travel in the input and come back for the reducer, uncopied.
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
        (input, activities)
    }

    /// The pipeline of one run over the conversation as it stands, reading `wire`, with the
    /// conversation's middleware and limits.
    fn pipeline(
        &mut self,
        messages: Vec<Message>,
        format: Format,
        peer: Option<PeerVersion>,
    ) -> Pipeline {
        let reducer = Reducer::new()
            .with_messages(messages)
            .with_state(self.state.clone())
            .with_pending_interrupts(std::mem::take(&mut self.pending_interrupts));
        Pipeline::new(reducer)
            .with_format(format)
            .with_limits(self.limits)
            .with_middleware(std::mem::take(&mut self.middleware))
            .with_peer_version(peer)
    }

    /// Takes the conversation back from the run's reducer (what was applied is kept whatever
    /// the result): messages, state, the interrupts left open, and the tool calls left for the
    /// client when the run finished.
    fn take_back(&mut self, reducer: Reducer, result: &Result<RunSummary, RunError>) {
        self.pending_interrupts = reducer.pending_interrupts().to_vec();
        self.pending_tool_calls = match result {
            Ok(summary) if summary.end == RunEnd::Finished => {
                reducer.pending_tool_call_ids().to_vec()
            }
            _ => Vec::new(),
        };
        let (messages, state) = reducer.into_parts();
        self.messages = messages;
        self.state = state;
    }
}

/// Activity messages set aside while a run's input is sent, each with its place among the
/// conversation's messages.
type Activities = Vec<(usize, Message)>;

/// The messages that came back from the input, with the activities put back in their places.
fn with_activities(mut messages: Vec<Message>, activities: Activities) -> Vec<Message> {
    for (index, activity) in activities {
        messages.insert(index, activity);
    }
    messages
}

/// Reads `body` into `pipeline` until the response ends (the body ends and the pipeline says
/// how its last run did), a subscriber stops it, `cancel` cancels it, or a stage fails.
async fn read<B: Body, A: Subscriber, S: Subscriber>(
    body: &mut B,
    pipeline: &mut Pipeline,
    cancel: &CancelToken,
    subscriber: &mut Both<'_, A, S>,
) -> Result<Ending, RunError> {
    loop {
        let piece = match cancel.guard(body.next()).await {
            None => return Ok(Ending::Run(RunEnd::Cancelled)),
            Some(Err(e)) => return Err(e.into()),
            Some(Ok(piece)) => piece,
        };
        let flow = match piece {
            Some(Piece::Bytes(bytes)) => {
                subscriber.trace.add_bytes(bytes.len());
                pipeline.push_bytes(&bytes, subscriber)
            }
            Some(Piece::Frame(data)) => {
                subscriber.trace.add_bytes(data.len());
                pipeline.push_frame(&data, subscriber)
            }
            Some(Piece::Event(event)) => pipeline.push_event(*event, subscriber),
            Some(Piece::Refused(error)) => Err(error.into()),
            None => match pipeline.finish(subscriber) {
                Ok(Flow::Continue) => {
                    return match pipeline.check_end()? {
                        StreamEnd::Failed(error) => Ok(Ending::AgentFailed(error)),
                        _ => Ok(Ending::Run(RunEnd::Finished)),
                    };
                }
                other => other,
            },
        };
        match flow {
            Ok(Flow::Continue) => {}
            Ok(Flow::Stop) => return Ok(Ending::Run(RunEnd::Stopped)),
            Err(e) => return Err(e.into()),
        }
    }
}

/// Records how the run ended on its trace (a finished run's outcome is the trace's own).
fn record_end(trace: &mut crate::trace::RunTrace, ending: &Result<Ending, RunError>) {
    match ending {
        Ok(Ending::Run(RunEnd::Finished)) => {}
        Ok(Ending::Run(RunEnd::Stopped)) => trace.set_outcome(TraceOutcome::Stopped),
        Ok(Ending::Run(RunEnd::Cancelled)) => trace.set_outcome(TraceOutcome::Cancelled),
        Ok(Ending::AgentFailed(_)) => trace.set_outcome(TraceOutcome::Error),
        Err(e) => trace.set_outcome(TraceOutcome::Failed(e.kind())),
    }
}

/// Two subscribers, `first` called first (`second`'s mutation wins a conflict), and the run's
/// trace, told every event.
struct Both<'a, A, B> {
    /// The conversation's own callbacks.
    first: &'a mut A,
    /// The run's subscriber.
    second: &'a mut B,
    /// The run's trace.
    trace: &'a mut crate::trace::RunTrace,
}

impl<A: Subscriber, B: Subscriber> Subscriber for Both<'_, A, B> {
    fn on_event(&mut self, event: &Event, conversation: &Reducer) -> Flow {
        self.trace.on_event(event, 0);
        match self.first.on_event(event, conversation) {
            Flow::Stop => Flow::Stop,
            Flow::Continue => self.second.on_event(event, conversation),
        }
    }

    fn on_applied(&mut self, event: &Event, applied: &Applied, conversation: &Reducer) -> Flow {
        match self.first.on_applied(event, applied, conversation) {
            Flow::Stop => Flow::Stop,
            Flow::Continue => self.second.on_applied(event, applied, conversation),
        }
    }

    fn on_warning(&mut self, warning: &Warning) -> Flow {
        match self.first.on_warning(warning) {
            Flow::Stop => Flow::Stop,
            Flow::Continue => self.second.on_warning(warning),
        }
    }

    fn take_mutation(&mut self) -> Option<Mutation> {
        match (self.first.take_mutation(), self.second.take_mutation()) {
            (None, second) => second,
            (first, None) => first,
            (Some(first), Some(second)) => Some(Mutation {
                messages: second.messages.or(first.messages),
                state: second.state.or(first.state),
            }),
        }
    }
}

/// A run id no other run has: `<thread>-run-<t>-<p>-<n>`, where `t` is the time in
/// microseconds since the Unix epoch, `p` the process id and `n` a counter of this process,
/// all in hex. Two runs of one process differ by the counter, runs of two processes by the
/// process id or the time: a conversation resumed by a new process (`ag-ui run --thread`)
/// never repeats the id of the run it resumes.
///
/// ```
/// use ag_ui::client::fresh_run_id;
/// use ag_ui::ThreadId;
///
/// let thread = ThreadId::new("t1");
/// let (a, b) = (fresh_run_id(&thread), fresh_run_id(&thread));
/// assert!(a.starts_with("t1-run-"));
/// assert_ne!(a, b);
/// ```
pub fn fresh_run_id(thread: &ThreadId) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let micros = crate::client::clock::now()
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
