//! `HttpAgent`, the JavaScript class: a conversation with an AG-UI agent over HTTP, run
//! through the `ag-ui` client pipeline on the browser's `fetch`.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::time::Duration;

use ag_ui::client::Warnings;
use ag_ui::client::{
    Body, BrowserAgent, Changed, Flow, Mutation, Piece, Pipeline, PipelineError, Reducer, RunEnd,
    RunError, RunErrorKind, RunOutcome, RunningTurn, Transport, TransportErrorKind, Turn, clock,
};
use ag_ui::{
    Context, Event, EventType, Interrupt, Message, ResumeEntry, RunAgentInput, ThreadId, Tool,
};
use futures::channel::oneshot;
use futures::future::{Either, select};
use js_sys::{Array, Object, Reflect};
use serde_json::Value;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::{Closure, wasm_bindgen};

use crate::subscriber::{Answer, JsSubscribers, View, callback_name, from_js, get, to_js};

#[wasm_bindgen]
extern "C" {
    /// The options of `new HttpAgent(...)`.
    #[wasm_bindgen(typescript_type = "HttpAgentConfig")]
    pub type HttpAgentConfig;
    /// The parameters of one run.
    #[wasm_bindgen(typescript_type = "RunAgentParameters")]
    pub type RunAgentParameters;
    /// Callbacks of a run.
    #[wasm_bindgen(typescript_type = "AgentSubscriber")]
    pub type AgentSubscriber;
    /// What `runAgent` resolves to.
    #[wasm_bindgen(typescript_type = "Promise<RunAgentResult>")]
    pub type RunAgentPromise;
    /// A list of messages.
    #[wasm_bindgen(typescript_type = "Message[]")]
    pub type MessageList;
    /// A message.
    #[wasm_bindgen(typescript_type = "Message")]
    pub type JsMessage;
    /// What `subscribe` returns.
    #[wasm_bindgen(typescript_type = "{ unsubscribe: () => void }")]
    pub type Subscription;
}

/// What one agent holds between runs.
struct Inner {
    transport: BrowserAgent,
    thread_id: String,
    messages: Vec<Message>,
    state: Value,
    pending_interrupts: Vec<Interrupt>,
    subscribers: Vec<(u64, JsValue)>,
    next_subscriber: u64,
    /// Set while a run is in flight: sending on it (or dropping it) aborts the run.
    abort: Option<oneshot::Sender<()>>,
    /// The run in flight's flag, set by `abortRun()`, which its subscriber checks per event.
    aborted: Rc<Cell<bool>>,
    /// The run in flight, once its response opened: `messages`, `state` and
    /// `pendingInterrupts` read it while the run goes on, so they show each event as soon as
    /// it is applied.
    run: Option<RunningTurn>,
    /// What `messages` and `state` show while an event is being delivered to subscribers once
    /// the conversation changed under it (a callback's mutation, or the event applied before
    /// `onNewMessage` / `onNewToolCall`): the conversation as it was before the event, as
    /// `@ag-ui/client` publishes its messages and state once per event, after its callbacks.
    /// Made only then, so a run whose subscribers ask for nothing converts nothing.
    published: Option<View>,
}

impl Inner {
    /// The conversation as the callbacks see it now.
    fn view(&self) -> View {
        match &self.run {
            Some(turn) => {
                let reducer = turn.reducer();
                let messages: Vec<&Message> = reducer.messages().iter().collect();
                View::of(&messages, reducer.state())
            }
            None => {
                let messages: Vec<&Message> = self.messages.iter().collect();
                View::of(&messages, &self.state)
            }
        }
    }

    /// What the `messages` and `state` properties show now.
    fn shown(&self) -> View {
        match &self.published {
            Some(view) => View {
                messages: view.messages.clone(),
                state: view.state.clone(),
            },
            None => self.view(),
        }
    }

    /// Replaces messages or state, of the run in flight if there is one.
    fn mutate(&mut self, mutation: Mutation) {
        self.published = None;
        match &mut self.run {
            Some(turn) => {
                turn.apply_mutation(mutation);
            }
            None => {
                if let Some(messages) = mutation.messages {
                    self.messages = messages;
                }
                if let Some(state) = mutation.state {
                    self.state = state;
                }
            }
        }
    }
}

thread_local! {
    /// Whether `HttpAgent.prototype` passes the agent itself to the methods that need it.
    static BOUND: Cell<bool> = const { Cell::new(false) };
}

#[wasm_bindgen(inline_js = "export function bind_this(proto, name) {
  const raw = proto[name];
  proto[name] = function (...args) { return raw.call(this, this, ...args); };
}")]
extern "C" {
    /// Makes `proto[name](...args)` call the exported method as `name(this, ...args)`: the
    /// callbacks' `agent` is the very object the page holds.
    fn bind_this(proto: &JsValue, name: &str);
}

/// An AG-UI agent over HTTP, for JavaScript: the `HttpAgent` of `@ag-ui/client` (its common
/// subset), running the `ag-ui` client pipeline.
#[wasm_bindgen]
pub struct HttpAgent {
    inner: Rc<RefCell<Inner>>,
}

impl std::fmt::Debug for HttpAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.inner.borrow();
        f.debug_struct("HttpAgent")
            .field("url", &inner.transport.url())
            .field("thread_id", &inner.thread_id)
            .field("messages", &inner.messages.len())
            .finish_non_exhaustive()
    }
}

/// A JavaScript `Error` with `message`, and `kind` (a stable dotted name) and `status` when
/// known.
fn js_error(message: &str, kind: Option<&str>, status: Option<u16>) -> JsValue {
    let error = js_sys::Error::new(message);
    if let Some(kind) = kind {
        let _ = Reflect::set(&error, &"kind".into(), &kind.into());
    }
    if let Some(status) = status {
        let _ = Reflect::set(&error, &"status".into(), &status.into());
    }
    error.into()
}

fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

/// A run's failure as a JavaScript `Error`: its message, its kind's stable name, and the
/// HTTP status of a response that was refused for it.
fn run_error(error: &RunError) -> JsValue {
    let status = error
        .transport()
        .filter(|e| {
            matches!(
                e.kind(),
                TransportErrorKind::Http | TransportErrorKind::NotAgUi
            )
        })
        .and_then(|e| e.status());
    js_error(&error.to_string(), Some(error.kind().as_str()), status)
}

/// A fresh thread id, as `@ag-ui/client` makes one when none is given.
fn fresh_thread_id() -> String {
    let bits = js_sys::Math::random().to_bits() ^ js_sys::Date::now().to_bits();
    format!("thread-{bits:016x}")
}

impl HttpAgent {
    fn with(transport: BrowserAgent, thread_id: String) -> Self {
        HttpAgent {
            inner: Rc::new(RefCell::new(Inner {
                transport,
                thread_id,
                messages: Vec::new(),
                state: Value::Object(serde_json::Map::new()),
                pending_interrupts: Vec::new(),
                subscribers: Vec::new(),
                next_subscriber: 0,
                abort: None,
                aborted: Rc::new(Cell::new(false)),
                run: None,
                published: None,
            })),
        }
    }
}

#[wasm_bindgen]
impl HttpAgent {
    /// `new HttpAgent({ url, headers, threadId, initialMessages, initialState })`.
    ///
    /// # Errors
    /// A `TypeError` when `url` is missing or the messages, state or headers are not what
    /// AG-UI 1.0 describes, naming what was wrong.
    #[wasm_bindgen(constructor)]
    pub fn new(config: HttpAgentConfig) -> Result<HttpAgent, JsValue> {
        let config: JsValue = config.into();
        let url = get(&config, "url")
            .and_then(|u| u.as_string())
            .ok_or_else(|| type_error("HttpAgent: `url` (a string) is required"))?;
        let mut transport = BrowserAgent::new(url);
        if let Some(headers) = get(&config, "headers") {
            let headers: serde_json::Map<String, Value> =
                from_js(&headers, "HttpAgent: `headers`").map_err(|e| type_error(&e))?;
            for (name, value) in headers {
                let value = match value {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                transport = transport.with_header(name, value);
            }
        }
        if let Some(ms) = get(&config, "idleTimeoutMs").and_then(|v| v.as_f64())
            && ms.is_finite()
            && ms > 0.0
        {
            transport = transport.with_idle_timeout(Duration::from_secs_f64(ms / 1000.0));
        }
        let thread_id = get(&config, "threadId")
            .and_then(|t| t.as_string())
            .unwrap_or_else(fresh_thread_id);
        let messages = match get(&config, "initialMessages") {
            Some(m) => from_js(&m, "HttpAgent: `initialMessages`").map_err(|e| type_error(&e))?,
            None => Vec::new(),
        };
        let state = match get(&config, "initialState") {
            Some(s) => from_js(&s, "HttpAgent: `initialState`").map_err(|e| type_error(&e))?,
            None => Value::Object(serde_json::Map::new()),
        };
        if !BOUND.with(Cell::get) {
            BOUND.with(|b| b.set(true));
            // A second wrapper of the class, only to reach its prototype.
            let probe: JsValue = HttpAgent::with(BrowserAgent::new(""), String::new()).into();
            let proto = js_sys::Object::get_prototype_of(&probe);
            bind_this(&proto, "runAgent");
        }
        let agent = HttpAgent::with(transport, thread_id);
        {
            let mut inner = agent.inner.borrow_mut();
            inner.messages = messages;
            inner.state = state;
        }
        Ok(agent)
    }

    /// The conversation's messages (plain objects, a copy).
    #[wasm_bindgen(getter)]
    pub fn messages(&self) -> MessageList {
        self.inner.borrow().shown().messages.into()
    }

    /// Replaces the messages.
    ///
    /// # Errors
    /// A `TypeError` naming what is wrong with them.
    #[wasm_bindgen(setter)]
    pub fn set_messages(&self, messages: MessageList) -> Result<(), JsValue> {
        self.replace_messages(messages)
    }

    /// Replaces the messages (as `agent.messages = …`).
    ///
    /// # Errors
    /// A `TypeError` naming what is wrong with them.
    #[wasm_bindgen(js_name = setMessages)]
    pub fn replace_messages(&self, messages: MessageList) -> Result<(), JsValue> {
        let messages: Vec<Message> =
            from_js(&messages.into(), "messages").map_err(|e| type_error(&e))?;
        self.inner
            .borrow_mut()
            .mutate(Mutation::new().with_messages(messages));
        Ok(())
    }

    /// Appends a message.
    ///
    /// # Errors
    /// A `TypeError` naming what is wrong with it.
    #[wasm_bindgen(js_name = addMessage)]
    pub fn add_message(&self, message: JsMessage) -> Result<(), JsValue> {
        let message: Message = from_js(&message.into(), "message").map_err(|e| type_error(&e))?;
        let mut inner = self.inner.borrow_mut();
        let running: Option<Vec<Message>> = inner
            .run
            .as_ref()
            .map(|turn| turn.reducer().messages().iter().cloned().collect());
        match running {
            Some(mut messages) => {
                messages.push(message);
                inner.mutate(Mutation::new().with_messages(messages));
            }
            None => inner.messages.push(message),
        }
        Ok(())
    }

    /// The shared state (a copy).
    #[wasm_bindgen(getter)]
    pub fn state(&self) -> JsValue {
        self.inner.borrow().shown().state
    }

    /// Replaces the state.
    ///
    /// # Errors
    /// A `TypeError` when it cannot be written as JSON.
    #[wasm_bindgen(setter)]
    pub fn set_state(&self, state: JsValue) -> Result<(), JsValue> {
        self.replace_state(state)
    }

    /// Replaces the state (as `agent.state = …`).
    ///
    /// # Errors
    /// A `TypeError` when it cannot be written as JSON.
    #[wasm_bindgen(js_name = setState)]
    pub fn replace_state(&self, state: JsValue) -> Result<(), JsValue> {
        let state: Value = from_js(&state, "state").map_err(|e| type_error(&e))?;
        self.inner
            .borrow_mut()
            .mutate(Mutation::new().with_state(state));
        Ok(())
    }

    /// The thread.
    #[wasm_bindgen(getter, js_name = threadId)]
    pub fn thread_id(&self) -> String {
        self.inner.borrow().thread_id.clone()
    }

    /// The interrupts the last run ended on, to answer with `runAgent({ resume })`.
    #[wasm_bindgen(getter, js_name = pendingInterrupts)]
    pub fn pending_interrupts(&self) -> JsValue {
        let inner = self.inner.borrow();
        match &inner.run {
            Some(turn) => to_js(turn.reducer().pending_interrupts()),
            None => to_js(&inner.pending_interrupts),
        }
    }

    /// Whether a run is in flight.
    #[wasm_bindgen(getter, js_name = isRunning)]
    pub fn is_running(&self) -> bool {
        self.inner.borrow().abort.is_some()
    }

    /// Adds a subscriber to every run; returns `{ unsubscribe }`.
    pub fn subscribe(&self, subscriber: AgentSubscriber) -> Subscription {
        let mut inner = self.inner.borrow_mut();
        let id = inner.next_subscriber;
        inner.next_subscriber += 1;
        inner.subscribers.push((id, subscriber.into()));
        let weak = Rc::downgrade(&self.inner);
        let unsubscribe = Closure::<dyn FnMut()>::new(move || {
            if let Some(inner) = weak.upgrade() {
                inner.borrow_mut().subscribers.retain(|(i, _)| *i != id);
            }
        });
        let result = Object::new();
        let _ = Reflect::set(&result, &"unsubscribe".into(), &unsubscribe.into_js_value());
        JsValue::from(result).into()
    }

    /// Aborts the run in flight (its request too): `runAgent` then resolves with what was
    /// applied, as `@ag-ui/client`'s does.
    #[wasm_bindgen(js_name = abortRun)]
    pub fn abort_run(&self) {
        let mut inner = self.inner.borrow_mut();
        if let Some(abort) = inner.abort.take() {
            inner.aborted.set(true);
            let _ = abort.send(());
        }
    }

    /// Runs the agent once: resolves to `{ newMessages, result }`, rejects with an `Error`
    /// (its `kind` a stable name such as `transport.http` or `verify`) when the run cannot be
    /// carried or read. (`agent`, first, is the object itself, passed by the class's
    /// prototype: JavaScript calls `runAgent(parameters?, subscriber?)`.)
    #[wasm_bindgen(js_name = runAgent, skip_typescript)]
    pub fn run_agent(
        &self,
        agent: JsValue,
        parameters: Option<RunAgentParameters>,
        subscriber: Option<AgentSubscriber>,
    ) -> RunAgentPromise {
        let inner = Rc::clone(&self.inner);
        let parameters: JsValue = parameters.map_or(JsValue::UNDEFINED, Into::into);
        let subscriber: Option<JsValue> = subscriber.map(Into::into);
        wasm_bindgen_futures::future_to_promise(run(inner, agent, parameters, subscriber))
            .unchecked_into_promise()
    }
}

trait IntoRunPromise {
    fn unchecked_into_promise(self) -> RunAgentPromise;
}

impl IntoRunPromise for js_sys::Promise {
    fn unchecked_into_promise(self) -> RunAgentPromise {
        wasm_bindgen::JsCast::unchecked_into(self)
    }
}

/// The turn of a run, from the agent and the run's parameters (its input built, the open
/// interrupts answered); what is wrong with them otherwise.
fn prepare(inner: &Inner, parameters: &JsValue) -> Result<Turn, JsValue> {
    let field = |key: &str| get(parameters, key);
    let resume: Option<Vec<ResumeEntry>> = field("resume")
        .map(|r| from_js(&r, "runAgent: `resume`"))
        .transpose()
        .map_err(|e| type_error(&e))?;
    // Empty or absent: the turn makes a fresh one.
    let run_id = field("runId")
        .and_then(|r| r.as_string())
        .unwrap_or_default();
    let tools: Vec<Tool> = field("tools")
        .map(|t| from_js(&t, "runAgent: `tools`"))
        .transpose()
        .map_err(|e| type_error(&e))?
        .unwrap_or_default();
    let context: Vec<Context> = field("context")
        .map(|c| from_js(&c, "runAgent: `context`"))
        .transpose()
        .map_err(|e| type_error(&e))?
        .unwrap_or_default();
    let forwarded: Value = field("forwardedProps")
        .map(|f| from_js(&f, "runAgent: `forwardedProps`"))
        .transpose()
        .map_err(|e| type_error(&e))?
        .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
    let mut input = RunAgentInput::new(ThreadId::new(inner.thread_id.clone()), run_id)
        .with_state(inner.state.clone())
        .with_tools(tools)
        .with_context(context)
        .with_forwarded_props(forwarded);
    if let Some(resume) = resume {
        input = input.with_resume(resume);
    }
    // The agent keeps its own messages and interrupts until the response opens: the page
    // reads them meanwhile (and may change the messages, which the run then applies to).
    Turn::new(
        input,
        &mut inner.messages.clone(),
        &mut inner.pending_interrupts.clone(),
        clock::now(),
    )
    .map_err(|e| run_error(&e))
}

/// How reading a run ended.
enum Ended {
    /// The response ended (the turn then says how its last run did).
    Body,
    /// The pipeline stopped.
    Stopped,
    /// `abortRun()`.
    Aborted,
    /// The transport or the pipeline failed.
    Failed(RunError),
    /// A callback returned messages or state that are not what AG-UI describes.
    Callback(String),
}

/// Awaits `future` unless the run is aborted first.
async fn unless_aborted<F: Future>(
    future: F,
    abort: &mut oneshot::Receiver<()>,
) -> Option<F::Output> {
    match select(pin!(future), abort).await {
        Either::Left((value, _)) => Some(value),
        Either::Right(_) => None,
    }
}

/// Applies what a round of callbacks returned (`mid_event`: of an event's callbacks);
/// whether one of them stopped the propagation.
fn take_answer(
    inner: &Rc<RefCell<Inner>>,
    answer: Answer,
    changes: &mut Changed,
    mid_event: bool,
) -> Result<bool, String> {
    if let Some(error) = answer.error {
        return Err(error);
    }
    changes.messages |= answer.mutation.messages.is_some();
    changes.state |= answer.mutation.state.is_some();
    if !answer.mutation.is_empty() {
        let mut guard = inner.borrow_mut();
        // Mid-event, the properties keep showing the conversation as it was before it.
        let published = match guard.published.take() {
            Some(view) => Some(view),
            None if mid_event => Some(guard.view()),
            None => None,
        };
        guard.mutate(answer.mutation);
        guard.published = published;
    }
    Ok(answer.stop)
}

/// Tells `onMessagesChanged` and `onStateChanged` what changed.
fn notify_changes(inner: &Rc<RefCell<Inner>>, subscribers: &JsSubscribers, changes: &Changed) {
    if changes.messages {
        subscribers.notify("onMessagesChanged", &|| inner.borrow().view(), &[]);
    }
    if changes.state {
        subscribers.notify("onStateChanged", &|| inner.borrow().view(), &[]);
    }
}

/// The parameters of an event's own callback besides `event`, from the conversation before
/// the event is applied (as `@ag-ui/client` gives them).
fn event_extra(
    reducer: &Reducer,
    event: &Event,
    event_js: &JsValue,
) -> Vec<(&'static str, JsValue)> {
    let id = |key: &str| get(event_js, key).and_then(|v| v.as_string());
    let mut extra = Vec::new();
    match event.event_type() {
        EventType::TextMessageContent | EventType::TextMessageEnd => {
            let buffer = id("messageId")
                .and_then(|m| {
                    reducer
                        .message(&m)
                        .and_then(Message::text)
                        .map(str::to_owned)
                })
                .unwrap_or_default();
            extra.push(("textMessageBuffer", JsValue::from_str(&buffer)));
        }
        EventType::ToolCallArgs | EventType::ToolCallEnd => {
            let call_id = id("toolCallId").unwrap_or_default();
            let call = reducer.tool_call(&call_id);
            let name = call.map(|c| c.function.name.clone()).unwrap_or_default();
            let buffer = call
                .map(|c| c.function.arguments.clone())
                .unwrap_or_default();
            extra.push(("toolCallName", JsValue::from_str(&name)));
            if event.event_type() == EventType::ToolCallArgs {
                extra.push(("toolCallBuffer", JsValue::from_str(&buffer)));
                let partial = reducer.partial_tool_call_args(&call_id);
                extra.push(("partialToolCallArgs", to_js(&partial)));
            } else {
                let args = js_sys::JSON::parse(&buffer).unwrap_or_else(|_| Object::new().into());
                extra.push(("toolCallArgs", args));
            }
        }
        EventType::RunFinished => {
            let outcome = get(event_js, "outcome");
            let kind = outcome
                .as_ref()
                .and_then(|o| get(o, "type"))
                .and_then(|t| t.as_string())
                .unwrap_or_else(|| "success".to_owned());
            if kind == "interrupt" {
                let interrupts = outcome.and_then(|o| get(&o, "interrupts"));
                extra.push(("interrupts", interrupts.unwrap_or(JsValue::UNDEFINED)));
            } else if kind == "success" {
                let result = get(event_js, "result").unwrap_or(JsValue::UNDEFINED);
                extra.push(("result", result));
            }
            extra.push(("outcome", JsValue::from_str(&kind)));
        }
        _ => {}
    }
    extra
}

/// What `onNewMessage` / `onNewToolCall` are told after an event is applied.
enum New {
    Message(String),
    ToolCall(String),
}

/// One verified event: `onEvent`, then its own callback (each awaited), then, unless one of
/// them stopped it, the event applied, then the notifications. `Flow::Stop` when the run was
/// aborted meanwhile.
async fn deliver(
    inner: &Rc<RefCell<Inner>>,
    subscribers: &JsSubscribers,
    event: Event,
) -> Result<Flow, Ended> {
    let view = || inner.borrow().view();
    let specific = callback_name(event.event_type());
    let mut changes = Changed::default();
    let mut stop = false;
    if subscribers.has("onEvent") || subscribers.has(&specific) {
        let event_js = to_js(&event);
        let answer = subscribers
            .round("onEvent", &view, &[("event", event_js.clone())])
            .await;
        stop = take_answer(inner, answer, &mut changes, true).map_err(Ended::Callback)?;
        if subscribers.aborted() {
            return Ok(Flow::Stop);
        }
        if !stop {
            let mut extra = match &inner.borrow().run {
                Some(turn) => event_extra(turn.reducer(), &event, &event_js),
                None => Vec::new(),
            };
            extra.insert(0, ("event", event_js));
            let answer = subscribers.round(&specific, &view, &extra).await;
            stop = take_answer(inner, answer, &mut changes, true).map_err(Ended::Callback)?;
            if subscribers.aborted() {
                return Ok(Flow::Stop);
            }
        }
    }
    let new = match &event {
        Event::TextMessageEnd(e) => Some(New::Message(e.message_id.to_string())),
        Event::ReasoningMessageEnd(e) => Some(New::Message(e.message_id.to_string())),
        Event::ToolCallResult(e) if !stop => Some(New::Message(e.message_id.to_string())),
        Event::ToolCallEnd(e) => Some(New::ToolCall(e.tool_call_id.to_string())),
        Event::ActivitySnapshot(e) if !stop => {
            let id = e.message_id.to_string();
            let existed = inner
                .borrow()
                .run
                .as_ref()
                .is_some_and(|turn| turn.reducer().message(&id).is_some());
            (!existed).then_some(New::Message(id))
        }
        _ => None,
    };
    if !stop {
        // `onNewMessage` and `onNewToolCall`, told after the event is applied, still see the
        // properties show the conversation as it was before it.
        let told = match &new {
            Some(New::Message(_)) => subscribers.has("onNewMessage"),
            Some(New::ToolCall(_)) => subscribers.has("onNewToolCall"),
            None => false,
        };
        let mut guard = inner.borrow_mut();
        if told && guard.published.is_none() {
            guard.published = Some(guard.view());
        }
        if let Some(turn) = guard.run.as_mut() {
            let changed = turn.push(event).map_err(|e| Ended::Failed(e.into()))?;
            changes.messages |= changed.messages;
            changes.state |= changed.state;
        }
    }
    match new {
        Some(New::Message(id)) if subscribers.has("onNewMessage") => {
            let message = match &inner.borrow().run {
                Some(turn) => turn.reducer().message(&id).map(to_js),
                None => None,
            };
            if let Some(message) = message {
                subscribers.notify("onNewMessage", &view, &[("message", message)]);
            }
        }
        Some(New::ToolCall(id)) if subscribers.has("onNewToolCall") => {
            let call = match &inner.borrow().run {
                Some(turn) => turn.reducer().tool_call(&id).map(to_js),
                None => None,
            };
            if let Some(call) = call {
                subscribers.notify("onNewToolCall", &view, &[("toolCall", call)]);
            }
        }
        _ => {}
    }
    // The event is through: the properties show the conversation as it is now.
    inner.borrow_mut().published = None;
    notify_changes(inner, subscribers, &changes);
    Ok(Flow::Continue)
}

/// Reads the body into the run's pipeline, delivering each verified event, until the
/// response ends, fails or the run is aborted.
async fn read(
    inner: &Rc<RefCell<Inner>>,
    body: &mut impl Body,
    subscribers: &JsSubscribers,
    abort: &mut oneshot::Receiver<()>,
) -> Ended {
    let mut verified = Vec::new();
    loop {
        let piece = match unless_aborted(body.next(), abort).await {
            None => return Ended::Aborted,
            Some(Err(e)) => return Ended::Failed(e.into()),
            Some(Ok(piece)) => piece,
        };
        let end = piece.is_none();
        let pushed = {
            let mut guard = inner.borrow_mut();
            let Some(turn) = guard.run.as_mut() else {
                return Ended::Aborted;
            };
            let pipeline = turn.pipeline_mut();
            let pushed = match piece {
                Some(Piece::Bytes(bytes)) => pipeline.push_bytes(&bytes, &mut ()),
                Some(Piece::Frame(data)) => pipeline.push_frame(&data, &mut ()),
                Some(Piece::Event(event)) => pipeline.push_event(*event, &mut ()),
                Some(Piece::Refused(e)) => Err(PipelineError::from(e)),
                Some(_) => Ok(Flow::Continue),
                None => pipeline.finish(&mut ()),
            };
            pipeline.take_verified_into(&mut verified);
            pushed
        };
        for event in verified.drain(..) {
            if subscribers.aborted() {
                return Ended::Aborted;
            }
            match deliver(inner, subscribers, event).await {
                Ok(Flow::Continue) => {}
                Ok(Flow::Stop) => return Ended::Aborted,
                Err(ended) => return ended,
            }
        }
        match pushed {
            Err(e) => return Ended::Failed(e.into()),
            Ok(Flow::Stop) => return Ended::Stopped,
            Ok(Flow::Continue) if end => return Ended::Body,
            Ok(Flow::Continue) => {}
        }
    }
}

/// Applies what `onRunFailed` or `onRunFinalized` returned to the agent, telling
/// `onMessagesChanged` and `onStateChanged`.
fn finally_answer(inner: &Rc<RefCell<Inner>>, subscribers: &JsSubscribers, answer: Answer) {
    let mut changes = Changed::default();
    if let Err(error) = take_answer(inner, answer, &mut changes, false) {
        web_sys::console::error_1(&JsValue::from_str(&error));
    }
    notify_changes(inner, subscribers, &changes);
}

/// One run, start to end.
async fn run(
    inner: Rc<RefCell<Inner>>,
    agent: JsValue,
    parameters: JsValue,
    subscriber: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let (turn, transport, subscribers, mut abort) = {
        let mut guard = inner.borrow_mut();
        if guard.abort.is_some() {
            return Err(js_error(
                "a run is already in flight on this agent",
                Some("run.busy"),
                None,
            ));
        }
        let turn = prepare(&guard, &parameters)?;
        let mut list: Vec<JsValue> = guard.subscribers.iter().map(|(_, s)| s.clone()).collect();
        list.extend(subscriber);
        let (abort_tx, abort_rx) = oneshot::channel();
        guard.abort = Some(abort_tx);
        guard.aborted = Rc::new(Cell::new(false));
        let input = to_js(turn.input());
        let subscribers = JsSubscribers::new(list, input, agent, Rc::clone(&guard.aborted));
        (turn, guard.transport.clone(), subscribers, abort_rx)
    };
    let outcome = run_inner(&inner, turn, &transport, &subscribers, &mut abort).await;
    inner.borrow_mut().abort = None;
    let view = || inner.borrow().view();
    let outcome = match outcome {
        Ok(resolved) => Ok(resolved),
        Err(Rejected { error, resolved }) => {
            let answer = subscribers
                .round("onRunFailed", &view, &[("error", error.clone())])
                .await;
            let stopped = answer.stop;
            finally_answer(&inner, &subscribers, answer);
            // A subscriber that stops the failure's propagation resolves the run, as with
            // `@ag-ui/client`.
            if stopped { Ok(resolved) } else { Err(error) }
        }
    };
    let answer = subscribers.round("onRunFinalized", &view, &[]).await;
    finally_answer(&inner, &subscribers, answer);
    outcome
}

/// A run that failed: the `Error` it rejects with, and what it resolves to instead when an
/// `onRunFailed` subscriber stops the failure's propagation.
struct Rejected {
    error: JsValue,
    resolved: JsValue,
}

/// The run after its turn is ready: sends its input, reads the response, keeps what was
/// applied.
async fn run_inner(
    inner: &Rc<RefCell<Inner>>,
    mut turn: Turn,
    transport: &BrowserAgent,
    subscribers: &JsSubscribers,
    abort: &mut oneshot::Receiver<()>,
) -> Result<JsValue, Rejected> {
    // Nothing was read: the run resolves to no new message.
    let unread = |error: JsValue| Rejected {
        error,
        resolved: result_object(None, &[]),
    };
    let answer = subscribers
        .round("onRunInitialized", &|| inner.borrow().view(), &[])
        .await;
    if let Some(error) = answer.error {
        return Err(unread(type_error(&error)));
    }
    if !answer.mutation.is_empty() {
        // Sent with the run, and the agent's own.
        turn.apply_mutation(answer.mutation.clone());
        finally_answer(inner, subscribers, answer);
    }
    let mut body = match unless_aborted(transport.open(turn.input()), abort).await {
        None => return Ok(result_object(None, &[])),
        Some(Err(e)) => return Err(unread(run_error(&e.into()))),
        Some(Ok(body)) => body,
    };
    {
        let mut guard = inner.borrow_mut();
        // The run applies to the conversation as it is now: the page may have changed it
        // while the request went out.
        let now = Mutation::new()
            .with_messages(std::mem::take(&mut guard.messages))
            .with_state(std::mem::take(&mut guard.state));
        turn.apply_mutation(now);
        let format = body.format();
        let running = turn.open(|reducer| Pipeline::new(reducer).with_format(format).deferred());
        body.set_max_event_size(running.pipeline().max_event_size());
        guard.run = Some(running);
    }
    let ended = read(inner, &mut body, subscribers, abort).await;
    drop(body);
    inner.borrow_mut().published = None;
    let Some(running) = inner.borrow_mut().run.take() else {
        return Err(unread(js_error(
            "the run's pipeline was lost",
            Some("run.internal"),
            None,
        )));
    };
    let (end, callback) = match ended {
        Ended::Body => (Ok(RunEnd::Finished), None),
        Ended::Stopped => (Ok(RunEnd::Stopped), None),
        Ended::Aborted => (Ok(RunEnd::Cancelled), None),
        Ended::Failed(e) => (Err(e), None),
        Ended::Callback(e) => (Ok(RunEnd::Stopped), Some(e)),
    };
    let end = running.finish(end, Warnings::new());
    let result = match &end.outcome {
        Some(RunOutcome::Success { result, .. }) => result.as_ref(),
        _ => None,
    };
    let new: Vec<&Message> = end.new_messages().collect();
    let resolved = result_object(result, &new);
    let error = match (callback, &end.result) {
        (Some(e), _) => Some(type_error(&e)),
        // The agent's RUN_ERROR was told to `onRunErrorEvent`; the run resolves, as with
        // `@ag-ui/client`.
        (None, Err(e)) if e.kind() != RunErrorKind::Agent => Some(run_error(e)),
        (None, _) => None,
    };
    {
        let mut guard = inner.borrow_mut();
        guard.pending_interrupts = end.pending_interrupts;
        guard.state = end.state;
        guard.messages = end.messages;
    }
    match error {
        None => Ok(resolved),
        Some(error) => Err(Rejected { error, resolved }),
    }
}

/// `{ result, newMessages }`.
fn result_object(result: Option<&Value>, new_messages: &[&Message]) -> JsValue {
    let object = Object::new();
    let result = result.map_or(JsValue::UNDEFINED, to_js);
    let _ = Reflect::set(&object, &"result".into(), &result);
    let list: Array = new_messages.iter().map(|m| to_js(*m)).collect();
    let _ = Reflect::set(&object, &"newMessages".into(), &list);
    object.into()
}
