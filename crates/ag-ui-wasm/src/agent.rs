//! `HttpAgent`, the JavaScript class: a conversation with an AG-UI agent over HTTP, run
//! through the `ag-ui` client pipeline on the browser's `fetch`.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::time::Duration;

use ag_ui::client::conversation::fresh_run_id;
use ag_ui::client::{
    Body, BrowserAgent, Flow, Piece, Pipeline, PipelineError, PipelineErrorKind, Reducer,
    RunOutcome, Subscriber, Transport, TransportError, TransportErrorKind,
};
use ag_ui::{
    Context, Interrupt, Message, PROTOCOL_VERSION, ResumeEntry, RunAgentInput, ThreadId, Tool,
};
use futures::channel::oneshot;
use futures::future::{Either, select};
use js_sys::{Array, Object, Reflect};
use serde_json::Value;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::{Closure, wasm_bindgen};

use crate::subscriber::{JsSubscribers, from_js, get, to_js};

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

fn transport_error(error: &TransportError) -> JsValue {
    let status = match error.kind() {
        TransportErrorKind::Http | TransportErrorKind::NotAgUi => error.status(),
        _ => None,
    };
    js_error(&error.to_string(), Some(error.kind().as_str()), status)
}

fn pipeline_error(error: &PipelineError) -> JsValue {
    js_error(&error.to_string(), Some(error.kind().as_str()), None)
}

/// A fresh thread id, as `@ag-ui/client` makes one when none is given.
fn fresh_thread_id() -> String {
    let bits = js_sys::Math::random().to_bits() ^ js_sys::Date::now().to_bits();
    format!("thread-{bits:016x}")
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
        Ok(HttpAgent {
            inner: Rc::new(RefCell::new(Inner {
                transport,
                thread_id,
                messages,
                state,
                pending_interrupts: Vec::new(),
                subscribers: Vec::new(),
                next_subscriber: 0,
                abort: None,
                aborted: Rc::new(Cell::new(false)),
            })),
        })
    }

    /// The conversation's messages (plain objects, a copy).
    #[wasm_bindgen(getter)]
    pub fn messages(&self) -> MessageList {
        to_js(&self.inner.borrow().messages).into()
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
        self.inner.borrow_mut().messages = messages;
        Ok(())
    }

    /// Appends a message.
    ///
    /// # Errors
    /// A `TypeError` naming what is wrong with it.
    #[wasm_bindgen(js_name = addMessage)]
    pub fn add_message(&self, message: JsMessage) -> Result<(), JsValue> {
        let message: Message = from_js(&message.into(), "message").map_err(|e| type_error(&e))?;
        self.inner.borrow_mut().messages.push(message);
        Ok(())
    }

    /// The shared state (a copy).
    #[wasm_bindgen(getter)]
    pub fn state(&self) -> JsValue {
        to_js(&self.inner.borrow().state)
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
        self.inner.borrow_mut().state = state;
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
        to_js(&self.inner.borrow().pending_interrupts)
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
    /// carried or read.
    #[wasm_bindgen(js_name = runAgent)]
    pub fn run_agent(
        &self,
        parameters: Option<RunAgentParameters>,
        subscriber: Option<AgentSubscriber>,
    ) -> RunAgentPromise {
        let inner = Rc::clone(&self.inner);
        let parameters: JsValue = parameters.map_or(JsValue::UNDEFINED, Into::into);
        let subscriber: Option<JsValue> = subscriber.map(Into::into);
        wasm_bindgen_futures::future_to_promise(run(inner, parameters, subscriber))
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

/// The input of a run, from the agent and the run's parameters; what is wrong with them
/// otherwise.
fn prepare(inner: &Inner, parameters: &JsValue) -> Result<RunAgentInput, JsValue> {
    let field = |key: &str| get(parameters, key);
    let resume: Option<Vec<ResumeEntry>> = field("resume")
        .map(|r| from_js(&r, "runAgent: `resume`"))
        .transpose()
        .map_err(|e| type_error(&e))?;
    if !inner.pending_interrupts.is_empty() {
        let answered: Vec<&str> = resume
            .iter()
            .flatten()
            .map(|r| r.interrupt_id.as_str())
            .collect();
        let open: Vec<&str> = inner
            .pending_interrupts
            .iter()
            .map(|i| i.id.as_str())
            .filter(|id| !answered.contains(id))
            .collect();
        if !open.is_empty() {
            return Err(js_error(
                &format!(
                    "Thread has {} pending interrupt(s) not addressed by resume: {}",
                    open.len(),
                    open.join(", ")
                ),
                Some("run.unanswered-interrupt"),
                None,
            ));
        }
    }
    let thread = ThreadId::new(inner.thread_id.clone());
    let run_id = field("runId")
        .and_then(|r| r.as_string())
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| fresh_run_id(&thread));
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
    let messages = inner
        .messages
        .iter()
        .filter(|m| !matches!(m, Message::Activity(_)))
        .cloned()
        .collect();
    let mut input = RunAgentInput::new(thread, run_id)
        .with_protocol_version(PROTOCOL_VERSION)
        .with_state(inner.state.clone())
        .with_messages(messages)
        .with_tools(tools)
        .with_context(context)
        .with_forwarded_props(forwarded);
    if let Some(resume) = resume {
        input = input.with_resume(resume);
    }
    Ok(input)
}

/// How reading a run ended.
enum Ended {
    /// The response ended; the events said whether the run did.
    Read(Result<(), PipelineError>),
    /// `abortRun()`.
    Aborted,
    /// The transport failed.
    Transport(TransportError),
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

/// Reads the body into the pipeline until the response ends, fails or the run is aborted.
async fn read(
    body: &mut impl Body,
    pipeline: &mut Pipeline,
    subscribers: &mut JsSubscribers,
    abort: &mut oneshot::Receiver<()>,
) -> Ended {
    loop {
        let flow = match unless_aborted(body.next(), abort).await {
            None => return Ended::Aborted,
            Some(Err(e)) => return Ended::Transport(e),
            Some(Ok(Some(Piece::Bytes(bytes)))) => pipeline.push_bytes(&bytes, subscribers),
            Some(Ok(Some(Piece::Frame(data)))) => pipeline.push_frame(&data, subscribers),
            Some(Ok(Some(Piece::Event(event)))) => pipeline.push_event(*event, subscribers),
            Some(Ok(Some(Piece::Refused(e)))) => Err(PipelineError::from(e)),
            Some(Ok(Some(_))) => Ok(Flow::Continue),
            Some(Ok(None)) => {
                return Ended::Read(pipeline.finish(subscribers).and_then(|flow| match flow {
                    Flow::Continue => pipeline.check_end(),
                    Flow::Stop => Ok(()),
                }));
            }
        };
        match flow {
            Ok(Flow::Continue) => {}
            Ok(Flow::Stop) => return Ended::Read(Ok(())),
            Err(e) => return Ended::Read(Err(e)),
        }
    }
}

/// One run, start to end.
async fn run(
    inner: Rc<RefCell<Inner>>,
    parameters: JsValue,
    subscriber: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let (mut input, transport, mut subscribers, mut abort) = {
        let mut guard = inner.borrow_mut();
        if guard.abort.is_some() {
            return Err(js_error(
                "a run is already in flight on this agent",
                Some("run.busy"),
                None,
            ));
        }
        let input = prepare(&guard, &parameters)?;
        let mut list: Vec<JsValue> = guard.subscribers.iter().map(|(_, s)| s.clone()).collect();
        list.extend(subscriber);
        let (abort_tx, abort_rx) = oneshot::channel();
        guard.abort = Some(abort_tx);
        guard.aborted = Rc::new(Cell::new(false));
        let subscribers = JsSubscribers::new(list, to_js(&input), Rc::clone(&guard.aborted));
        (input, guard.transport.clone(), subscribers, abort_rx)
    };
    let outcome = run_inner(&inner, &mut input, &transport, &mut subscribers, &mut abort).await;
    inner.borrow_mut().abort = None;
    let (messages, state) = {
        let guard = inner.borrow();
        (guard.messages.clone(), guard.state.clone())
    };
    let mut params = subscribers.params(&messages, &state);
    if let Err(error) = &outcome {
        let _ = Reflect::set(&params, &"error".into(), error);
        subscribers.call("onRunFailed", &params);
        params = subscribers.params(&messages, &state);
    }
    subscribers.call("onRunFinalized", &params);
    outcome
}

/// The run after its input is ready: sends it, reads the response, keeps what was applied.
async fn run_inner(
    inner: &Rc<RefCell<Inner>>,
    input: &mut RunAgentInput,
    transport: &BrowserAgent,
    subscribers: &mut JsSubscribers,
    abort: &mut oneshot::Receiver<()>,
) -> Result<JsValue, JsValue> {
    let (messages, state, pending) = {
        let guard = inner.borrow();
        (
            guard.messages.clone(),
            guard.state.clone(),
            guard.pending_interrupts.clone(),
        )
    };
    let before: Vec<ag_ui::MessageId> = messages.iter().map(|m| m.id().clone()).collect();
    let params = subscribers.params(&messages, &state);
    subscribers.call("onRunInitialized", &params);
    let mut reducer = Reducer::new()
        .with_messages(messages)
        .with_state(state)
        .with_pending_interrupts(pending);
    if let Some(mutation) = subscribers.take_mutation() {
        if let Some(messages) = mutation.messages {
            input.messages = messages
                .iter()
                .filter(|m| !matches!(m, Message::Activity(_)))
                .cloned()
                .collect();
            reducer = reducer.with_messages(messages);
        }
        if let Some(state) = mutation.state {
            input.state = Some(state.clone());
            reducer = reducer.with_state(state);
        }
    }
    if let Some(error) = subscribers.error.take() {
        return Err(type_error(&error));
    }
    let mut body = match unless_aborted(transport.open(input), abort).await {
        None => return Ok(result_object(None, &[])),
        Some(Err(e)) => return Err(transport_error(&e)),
        Some(Ok(body)) => body,
    };
    let mut pipeline = Pipeline::new(reducer).with_format(body.format());
    body.set_max_event_size(pipeline.max_event_size());
    let ended = read(&mut body, &mut pipeline, subscribers, abort).await;
    drop(body);
    let reducer = pipeline.into_reducer();
    let result = match reducer.outcome() {
        Some(RunOutcome::Success { result, .. }) => result.clone(),
        _ => None,
    };
    let pending = reducer.pending_interrupts().to_vec();
    let (messages, state) = reducer.into_parts();
    let new: Vec<&Message> = messages
        .iter()
        .filter(|m| !before.contains(m.id()))
        .collect();
    let resolved = result_object(result.as_ref(), &new);
    {
        let mut guard = inner.borrow_mut();
        guard.pending_interrupts = pending;
        guard.state = state;
        guard.messages = messages;
    }
    if let Some(error) = subscribers.error.take() {
        return Err(type_error(&error));
    }
    match ended {
        Ended::Read(Ok(())) | Ended::Aborted => Ok(resolved),
        // The agent's RUN_ERROR: told to `onRunErrorEvent`; the run resolves, as with
        // `@ag-ui/client`.
        Ended::Read(Err(e)) if e.kind() == PipelineErrorKind::RunFailed => Ok(resolved),
        Ended::Read(Err(e)) => Err(pipeline_error(&e)),
        Ended::Transport(e) => Err(transport_error(&e)),
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
