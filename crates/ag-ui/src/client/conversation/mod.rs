use std::collections::HashMap;
use std::fmt;

use serde_json::Value;

use crate::client::apply::{Applied, PartialJson, Reducer};
use crate::client::callbacks::Callbacks;
use crate::client::middleware::Stack;
use crate::client::run::{Pipeline, PipelineLimits};
use crate::client::subscriber::{Flow, Mutation, Subscriber};
use crate::client::transport::{Body, CancelToken, Piece, Transport};
use crate::client::warning::Warning;
use crate::trace::TraceOutcome;
use crate::{
    Context, Event, Interrupt, Message, MessageId, ResumeEntry, RunAgentInput, ThreadId, Tool,
    ToolCallId, ToolMessage,
};

mod error;
mod summary;
mod turn;

pub use error::{RunError, RunErrorKind};
use summary::request_warnings;
pub use summary::{RunEnd, RunSummary};
pub use turn::{Changed, RunningTurn, Turn, TurnEnd};

type ToolHandler = Box<dyn FnMut(&Value) -> Result<String, String> + Send>;

/// A conversation with an agent, kept across runs.
///
/// A conversation that lives across runs.
///
/// A [`Conversation`] holds a thread id, the messages, the state, the interrupts the last run
/// left open and the tool calls it left for the client. Each [`run`](Conversation::run) sends
/// them to an agent through a [`Transport`] — [`HttpAgent`](crate::client::http::HttpAgent) over
/// HTTP, [`Replay`](crate::client::transport::Replay) for recorded events, or your own (an in-process agent, another wire format) —
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
    /// Every run is sent with `protocolVersion` `"1.0"` and a fresh run id (see [`Turn::new`],
    /// which each run drives); to a transport pinned to an older agent
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
        let request = RunAgentInput::new(self.thread_id.clone(), "")
            .with_state(self.state.clone())
            .with_tools(self.tools.clone())
            .with_context(self.context.clone())
            .with_forwarded_props(self.forwarded_props.clone());
        let request = match resume {
            Some(resume) => request.with_resume(resume),
            None => request,
        };
        // The messages travel in the input and come back for the reducer, uncopied.
        let mut turn = Turn::new(
            request,
            &mut self.messages,
            &mut self.pending_interrupts,
            crate::client::clock::now(),
        )?;
        let peer = transport.peer_version();
        let mut shaped = Vec::new();
        if let Some(peer) = peer {
            peer.shape_input(turn.input_mut(), &mut shaped);
        }
        // Told before anything is sent; the run is read whatever the subscribers answer (a
        // `Flow::Stop` is for the response, whose first event can be stopped at).
        for warning in &shaped {
            let _ = Subscriber::on_warning(&mut self.callbacks, warning);
            let _ = subscriber.on_warning(warning);
        }
        let warnings = request_warnings(shaped);
        let mut trace = crate::trace::RunTrace::new(turn.input(), "client");
        let opened = tracing::Instrument::instrument(
            cancel.guard(transport.open(turn.input())),
            trace.span().clone(),
        )
        .await;
        let mut body = match opened {
            Some(Ok(body)) => body,
            Some(Err(e)) => {
                (self.messages, self.pending_interrupts) = turn.unsent();
                trace.set_outcome(TraceOutcome::Failed(RunErrorKind::Transport(e.kind())));
                return Err(e.into());
            }
            None => {
                (self.messages, self.pending_interrupts) = turn.unsent();
                trace.set_outcome(TraceOutcome::Cancelled);
                return Ok(RunSummary::cancelled_unopened(warnings));
            }
        };
        let (limits, middleware) = (self.limits, std::mem::take(&mut self.middleware));
        let mut running = turn.open(|reducer| {
            Pipeline::new(reducer)
                .with_format(body.format())
                .with_limits(limits)
                .with_middleware(middleware)
                .with_peer_version(peer)
        });
        // One frame limit: the pipeline's holds in a body that reads frames itself too.
        body.set_max_event_size(running.pipeline().max_event_size());
        let mut callbacks = std::mem::take(&mut self.callbacks);
        let mut both = Both {
            first: &mut callbacks,
            second: subscriber,
            trace: &mut trace,
        };
        let end = read(&mut body, running.pipeline_mut(), cancel, &mut both).await;
        drop(body);
        self.middleware = running.pipeline_mut().take_middleware();
        self.callbacks = callbacks;
        let end = running.finish(end, warnings);
        record_end(&mut trace, &end.result);
        drop(trace);
        self.pending_interrupts = end.pending_interrupts;
        self.pending_tool_calls = end.pending_tool_calls;
        self.messages = end.messages;
        self.state = end.state;
        end.result
    }
}

/// Reads `body` into `pipeline` until the response ends (the body ends and the pipeline says
/// how its last run did), a subscriber stops it, `cancel` cancels it, or a stage fails.
async fn read<B: Body, A: Subscriber, S: Subscriber>(
    body: &mut B,
    pipeline: &mut Pipeline,
    cancel: &CancelToken,
    subscriber: &mut Both<'_, A, S>,
) -> Result<RunEnd, RunError> {
    loop {
        let piece = match cancel.guard(body.next()).await {
            None => return Ok(RunEnd::Cancelled),
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
            // The turn's finish asks the pipeline how the response's last run ended.
            None => match pipeline.finish(subscriber) {
                Ok(Flow::Continue) => return Ok(RunEnd::Finished),
                other => other,
            },
        };
        match flow {
            Ok(Flow::Continue) => {}
            Ok(Flow::Stop) => return Ok(RunEnd::Stopped),
            Err(e) => return Err(e.into()),
        }
    }
}

/// Records how the run ended on its trace (a finished run's outcome is the trace's own).
fn record_end(trace: &mut crate::trace::RunTrace, result: &Result<RunSummary, RunError>) {
    match result {
        Ok(summary) => match summary.end {
            RunEnd::Stopped => trace.set_outcome(TraceOutcome::Stopped),
            RunEnd::Cancelled => trace.set_outcome(TraceOutcome::Cancelled),
            _ => {}
        },
        Err(e) if e.kind() == RunErrorKind::Agent => trace.set_outcome(TraceOutcome::Error),
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

#[cfg(test)]
mod tests;
