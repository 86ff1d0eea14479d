//! `ag-ui inspect`: a web page for watching an AG-UI agent run.
//!
//! The page never calls the agent itself (so CORS never gets in the way): it asks this local
//! server to run a turn (`POST /api/run`) or to read a recording (`POST /api/load`), and the
//! server runs it through the SDK's client pipeline (decoding, compat, chunk expansion, the
//! verifier, the reducer) with a [`Subscriber`] that pushes to the page, over one SSE response,
//! each event with its time, each change the reducer made, and the verdict. The page is static
//! HTML, CSS and JavaScript embedded in the binary: no build step, nothing fetched from the
//! network.
//!
//! Memory on this side is bounded: what goes to the page passes through a bounded channel, and
//! when the page reads slower than the agent writes, the run waits (and the page is told how
//! long it waited) instead of queueing. Uploads are limited in size, one recording is read at a
//! time (another upload meanwhile is refused with `429`), and the number of threads kept is
//! bounded. The server is the library's [`serve`](ag_ui::axum::serve), with its header
//! timeout: a connection that trickles its request head is closed.
//!
//! Only the inspector's own page may use it ([`guard`]): requests whose `Host` or `Origin` is
//! not the inspector's address are refused, and every `POST` needs the session token that the
//! page embeds, so neither another web page nor a DNS-rebinding one can run the agent (with
//! the user's `--header` values) or load a recording.

use std::collections::HashMap;
use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ag_ui::axum::{EventStream, RunHandler, ServeConfig};
use ag_ui::client::{
    AgentError, Body, CancelToken, Conversation, Flow, HttpAgent, Piece, Pipeline, PipelineError,
    Reducer, RunEnd, RunError, RunErrorKind, Subscriber, Transport, TransportError,
};
use ag_ui::client::{Applied, MessagesChange};
use ag_ui::encoding::{proto, sse};
use ag_ui::server::Runner;
use ag_ui::{Event, Message, ResumeEntry, RunAgentInput};
use ag_ui_demo_agent::DemoAgent;
use axum::Router;
use axum::body::{Body as HttpBody, Bytes};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::StreamExt;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::{Semaphore, mpsc};

use crate::failure::Failure;
use crate::failure::chain;
use crate::input::{self, InputError};

mod guard;
use guard::Guard;

const PAGE: &str = include_str!("../../assets/inspector.html");
const SCRIPT: &str = include_str!("../../assets/inspector.js");
const STYLE: &str = include_str!("../../assets/inspector.css");

/// How many messages for the page may wait in the channel before the run waits for the page.
const CHANNEL: usize = 256;

/// How many threads the inspector keeps; a run on a new thread beyond this is refused.
const MAX_THREADS: usize = 256;

/// The longest a message that is being streamed waits before the page sees its new text.
const MESSAGE_FLUSH: Duration = Duration::from_millis(40);

/// What `ag-ui inspect` was asked to do.
#[derive(Debug)]
pub(crate) struct InspectOptions {
    /// The agent's endpoint; `None` for the built-in demo agent, in-process.
    pub(crate) url: Option<String>,
    /// Where the page is served.
    pub(crate) addr: SocketAddr,
    /// Extra request headers for the agent.
    pub(crate) headers: Vec<(String, String)>,
    /// The demo agent's pause between streamed words.
    pub(crate) pace: Duration,
    /// The largest recording accepted, in bytes.
    pub(crate) max_upload: usize,
}

/// The agent the page talks to.
enum Target {
    Http(Box<HttpAgent>),
    InProcess(InProcess<Runner<DemoAgent>>),
}

impl Target {
    fn describe(&self, url: Option<&str>) -> String {
        match self {
            Target::Http(_) => url.unwrap_or_default().to_owned(),
            Target::InProcess(_) => "the built-in demo agent (in-process)".to_owned(),
        }
    }
}

/// A transport that runs a [`RunHandler`] in this process: the events it emits go to the
/// pipeline as they are, with no HTTP or SSE in between.
pub(crate) struct InProcess<H> {
    handler: H,
}

/// The body of an [`InProcess`] run.
pub(crate) struct InProcessBody {
    events: EventStream,
}

impl Body for InProcessBody {
    async fn next(&mut self) -> Result<Option<Piece>, TransportError> {
        Ok(self
            .events
            .next()
            .await
            .map(|event| Piece::Event(Box::new(event))))
    }
}

impl<H: RunHandler> Transport for InProcess<H> {
    type Body = InProcessBody;

    async fn open(&self, input: &RunAgentInput) -> Result<InProcessBody, TransportError> {
        self.handler
            .run(input.clone())
            .map(|events| InProcessBody { events })
            .map_err(|e| TransportError::http(e.status().as_u16(), e.message()))
    }
}

/// Shared by the routes.
struct Inspector {
    target: Target,
    description: String,
    threads: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Conversation>>>>,
    max_upload: usize,
    /// One recording is read at a time: its bytes, and what the pipeline builds from them, are
    /// the most an upload holds.
    loading: Arc<Semaphore>,
}

impl Inspector {
    fn new(target: Target, description: String, max_upload: usize) -> Self {
        Self {
            target,
            description,
            threads: Mutex::new(HashMap::new()),
            max_upload,
            loading: Arc::new(Semaphore::new(1)),
        }
    }
}

/// `ag-ui inspect`: serves the page until interrupted.
pub(crate) async fn inspect(options: InspectOptions) -> Result<(), Failure> {
    let target = match &options.url {
        Some(url) => {
            let mut agent = HttpAgent::new(url.as_str());
            for (name, value) in &options.headers {
                agent = agent.with_header(name, value);
            }
            Target::Http(Box::new(agent))
        }
        None => Target::InProcess(InProcess {
            // The input is echoed in RUN_STARTED, so a recording of the session holds the user's
            // messages too, and renders as the live run did.
            handler: Runner::new(DemoAgent::new().with_pace(options.pace)).with_input_echo(true),
        }),
    };
    let listener = tokio::net::TcpListener::bind(options.addr)
        .await
        .map_err(|e| Failure::Usage(format!("cannot listen on {}: {e}", options.addr)))?;
    let local = listener.local_addr().map_err(Failure::Output)?;
    let description = target.describe(options.url.as_deref());
    let banner = format!("ag-ui inspector: http://{local}/\nwatching: {description}\n");
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(banner.as_bytes()).and_then(|()| out.flush());
    drop(out);
    let guard = Guard::new(local)?;
    let app = router(
        Inspector::new(target, description, options.max_upload),
        guard,
    );
    ag_ui::axum::serve(listener, app, ServeConfig::default(), async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await
    .map_err(Failure::Output)
}

fn router(inspector: Inspector, guard: Guard) -> Router {
    let limit = inspector.max_upload;
    let page: Arc<str> = guard.page(PAGE).into();
    Router::new()
        .route(
            "/",
            get(move || async move {
                (
                    [
                        (
                            header::CONTENT_TYPE,
                            HeaderValue::from_static("text/html; charset=utf-8"),
                        ),
                        (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
                    ],
                    page.to_string(),
                )
                    .into_response()
            }),
        )
        .route(
            "/inspector.js",
            get(|| async { asset(SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/inspector.css",
            get(|| async { asset(STYLE, "text/css; charset=utf-8") }),
        )
        .route("/api/info", get(info))
        .route("/api/run", post(start_run))
        .route(
            "/api/load",
            post(load).layer(DefaultBodyLimit::max(limit.saturating_add(1))),
        )
        .with_state(Arc::new(inspector))
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(guard),
            guard::check,
        ))
}

fn asset(text: &'static str, content_type: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        text,
    )
        .into_response()
}

/// A JSON error body, as the library's endpoints send them.
fn error(status: StatusCode, kind: &str, message: impl Into<String>) -> Response {
    json_response(
        status,
        &json!({ "error": { "kind": kind, "message": message.into() } }),
    )
}

fn json_response(status: StatusCode, body: &serde_json::Value) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body.to_string(),
    )
        .into_response()
}

async fn info(State(inspector): State<Arc<Inspector>>) -> Response {
    json_response(
        StatusCode::OK,
        &json!({
            "target": inspector.description,
            "inProcess": matches!(inspector.target, Target::InProcess(_)),
            "maxUpload": inspector.max_upload,
        }),
    )
}

/// What the page asks for: a turn on a thread, with a message, answers to interrupts, or both.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RunRequest {
    thread: String,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    resume: Option<Vec<ResumeEntry>>,
}

async fn start_run(State(inspector): State<Arc<Inspector>>, body: Bytes) -> Response {
    let request: RunRequest = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                "invalid-request",
                format!("the run request is not valid: {e}"),
            );
        }
    };
    if request.thread.is_empty() || request.thread.len() > 200 {
        return error(
            StatusCode::BAD_REQUEST,
            "invalid-request",
            "the thread id must be 1 to 200 bytes long",
        );
    }
    let conversation = {
        let mut threads = inspector.threads.lock().unwrap_or_else(|e| e.into_inner());
        if !threads.contains_key(&request.thread) && threads.len() >= MAX_THREADS {
            return error(
                StatusCode::TOO_MANY_REQUESTS,
                "too-many-threads",
                format!(
                    "the inspector keeps at most {MAX_THREADS} threads; restart it to begin again"
                ),
            );
        }
        Arc::clone(threads.entry(request.thread.clone()).or_insert_with(|| {
            Arc::new(tokio::sync::Mutex::new(Conversation::new(
                request.thread.as_str(),
            )))
        }))
    };
    let Ok(mut conversation) = conversation.try_lock_owned() else {
        return error(
            StatusCode::CONFLICT,
            "run-in-progress",
            format!("a run is in progress on thread {:?}", request.thread),
        );
    };
    if request.resume.is_none()
        && let Some(open) = conversation.pending_interrupts().first()
    {
        // Refused before anything is added to the thread: the message would otherwise stay in
        // it, unsent, and go with the next run.
        return error(
            StatusCode::CONFLICT,
            "unanswered-interrupt",
            format!(
                "interrupt {:?} is open on thread {:?}: answer it (resume) first",
                ag_ui::excerpt(open.id.as_str(), ag_ui::EXCERPT_BYTES),
                request.thread
            ),
        );
    }
    if let Some(message) = &request.message
        && !message.is_empty()
    {
        conversation.add_user_message(message.as_str());
    }
    let (tx, rx) = mpsc::channel(CHANNEL);
    let mut forwarder = Forwarder::new(tx);
    let task_inspector = Arc::clone(&inspector);
    tokio::spawn(async move {
        let mut head = json!({
            "t": "start",
            "source": "run",
            "thread": conversation.thread_id().as_str(),
            "target": task_inspector.description,
        });
        if let Some(message) = &request.message {
            head["message"] = json!(message);
        }
        if let Some(resume) = &request.resume {
            head["resume"] = json!(resume);
        }
        forwarder.send_json(&head);
        // The messages the run starts from (the reducer only reports what the run changes).
        forwarder.send_json(&json!({ "t": "msgs", "m": conversation.messages() }));
        let cancel = CancelToken::new();
        let result = match &task_inspector.target {
            Target::Http(agent) => {
                conversation
                    .run_with(agent.as_ref(), request.resume, &cancel, &mut forwarder)
                    .await
            }
            Target::InProcess(agent) => {
                conversation
                    .run_with(agent, request.resume, &cancel, &mut forwarder)
                    .await
            }
        };
        forwarder.flush_message(|i| conversation.messages().get(i));
        let interrupts = json!(conversation.pending_interrupts());
        match result {
            Ok(summary) => {
                let end = match summary.end {
                    RunEnd::Finished => "finished",
                    RunEnd::Stopped => "stopped",
                    RunEnd::Cancelled => "cancelled",
                    _ => "ended",
                };
                let state = conversation.state().clone();
                forwarder.send_json(&json!({
                    "t": "end",
                    "end": end,
                    "events": summary.events,
                    "ms": forwarder.elapsed_ms(),
                    "interrupts": interrupts,
                    "state": state,
                    "slowMs": forwarder.waited.as_millis() as u64,
                }));
            }
            Err(e) => forwarder.send_failure(&e, interrupts),
        }
    });
    sse_response(rx)
}

/// Why reading a recording stopped.
enum LoadError {
    Input(InputError),
    Run(PipelineError),
    /// The page went away.
    Gone,
}

impl From<InputError> for LoadError {
    fn from(e: InputError) -> Self {
        LoadError::Input(e)
    }
}

async fn load(State(inspector): State<Arc<Inspector>>, body: HttpBody) -> Response {
    let limit = inspector.max_upload;
    let Ok(permit) = Arc::clone(&inspector.loading).try_acquire_owned() else {
        return error(
            StatusCode::TOO_MANY_REQUESTS,
            "load-in-progress",
            "another recording is being read; load this one when it is done",
        );
    };
    let bytes = match axum::body::to_bytes(body, limit).await {
        Ok(bytes) => bytes,
        Err(_) => {
            return error(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload-too-large",
                format!(
                    "the recording is larger than {limit} bytes (the limit is set with --max-upload-mb)"
                ),
            );
        }
    };
    let (tx, rx) = mpsc::channel(CHANNEL);
    let mut forwarder = Forwarder::new(tx);
    tokio::task::spawn_blocking(move || {
        // Held until the recording and the pipeline built from it are dropped.
        let _permit = permit;
        let bytes = bytes;
        forwarder.send_json(&json!({ "t": "start", "source": "recording", "bytes": bytes.len() }));
        let mut pipeline = Pipeline::new(Reducer::new());
        let mut push = |event: Event| match pipeline.push_event(event, &mut forwarder) {
            Ok(Flow::Continue) => Ok(()),
            Ok(Flow::Stop) => Err(LoadError::Gone),
            Err(e) => Err(LoadError::Run(e)),
        };
        // Text encodings never start with a NUL byte; a protobuf stream's first frame length
        // does (its frames are at most 10 MiB, under 2^24).
        let read = if bytes.first() == Some(&0) {
            for_each_proto_event(&bytes, &mut push)
        } else {
            input::for_each_event(&bytes[..], |positioned| push(positioned.event)).map(|_| ())
        };
        let result = match read {
            // A recording that stops inside a run, or whose run failed, says so as a live run
            // would.
            Ok(_) => pipeline
                .finish(&mut forwarder)
                .and_then(|_| pipeline.check_end())
                .map_err(LoadError::Run),
            Err(e) => Err(e),
        };
        let reducer = pipeline.reducer();
        forwarder.flush_message(|i| reducer.messages().get(i));
        let interrupts = json!(reducer.pending_interrupts());
        match result {
            Ok(end) if end.agent_error().is_some() => {
                if let Some(failure) = end.agent_error() {
                    forwarder.send_agent_failure(failure, interrupts);
                }
            }
            Ok(_) => forwarder.send_json(&json!({
                "t": "end",
                "end": "finished",
                "events": reducer.events_applied(),
                "ms": forwarder.elapsed_ms(),
                "interrupts": interrupts,
                "state": reducer.state(),
                "slowMs": forwarder.waited.as_millis() as u64,
            })),
            Err(LoadError::Run(e)) => forwarder.send_failure(&e.into(), interrupts),
            Err(LoadError::Input(e)) => forwarder.send_json(&json!({
                "t": "error",
                "kind": "input",
                "message": e.to_string(),
            })),
            Err(LoadError::Gone) => {}
        }
    });
    sse_response(rx)
}

/// Most bytes of waiting messages gathered into one write to the page.
const MAX_BATCH: usize = 64 * 1024;

/// Reads a protobuf recording (`application/vnd.ag-ui.event+proto` frames back to back), event
/// by event; events of a later protocol are skipped, as the reference client does.
fn for_each_proto_event(
    bytes: &[u8],
    mut each: impl FnMut(Event) -> Result<(), LoadError>,
) -> Result<(), LoadError> {
    let mut decoder = proto::EventDecoder::new();
    decoder.push(bytes);
    decoder.finish();
    while let Some(result) = decoder.next_event() {
        match result {
            Ok(event) => each(event)?,
            Err(e) if e.kind() == proto::ProtoErrorKind::UnknownEventType => {}
            Err(e) => {
                let index = e
                    .index()
                    .map_or(0, |i| usize::try_from(i).unwrap_or(usize::MAX));
                return Err(LoadError::Input(InputError {
                    position: input::Position::Event(index),
                    message: format!("protobuf: {e}"),
                }));
            }
        }
    }
    Ok(())
}

fn sse_response(rx: mpsc::Receiver<Bytes>) -> Response {
    // Messages that are already waiting go out in one write (one HTTP chunk), so a fast run is
    // not one write per event; nothing waits for more.
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        let first = rx.recv().await?;
        let mut batch: Option<Vec<u8>> = None;
        while batch.as_ref().map_or(first.len(), Vec::len) < MAX_BATCH {
            let Ok(next) = rx.try_recv() else { break };
            batch
                .get_or_insert_with(|| first.to_vec())
                .extend_from_slice(&next);
        }
        let bytes = batch.map_or(first, Bytes::from);
        Some((Ok::<_, std::convert::Infallible>(bytes), rx))
    });
    let mut response = Response::new(HttpBody::from_stream(stream));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(ag_ui::encoding::SSE_MEDIA_TYPE),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// Forwards a run to the page: each event with its index and time, the reducer's changes, and
/// how the run ended. Sends through a bounded channel; when the page is behind, the run waits.
struct Forwarder {
    tx: mpsc::Sender<Bytes>,
    started: Instant,
    /// The index of the next event (as the verifier counts them).
    index: usize,
    /// Reused for every message.
    buf: Vec<u8>,
    /// A message whose changes the page has not seen yet, and since when.
    pending: Option<(usize, Instant)>,
    /// How long the run waited for the page, in all.
    waited: Duration,
    /// The page went away: stop the run.
    gone: bool,
}

impl Forwarder {
    fn new(tx: mpsc::Sender<Bytes>) -> Self {
        Self {
            tx,
            started: Instant::now(),
            index: 0,
            buf: Vec::with_capacity(4096),
            pending: None,
            waited: Duration::ZERO,
            gone: false,
        }
    }

    fn elapsed_ms(&self) -> f64 {
        (self.started.elapsed().as_secs_f64() * 1e6).round() / 1e3
    }

    /// Sends one SSE frame whose data `payload` writes (JSON); waits when the channel is full.
    fn send(&mut self, payload: impl FnOnce(&mut Vec<u8>)) {
        if self.gone {
            return;
        }
        self.buf.clear();
        sse::write_frame_with(&mut self.buf, payload);
        let bytes = Bytes::copy_from_slice(&self.buf);
        match self.tx.try_send(bytes) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Closed(_)) => self.gone = true,
            Err(mpsc::error::TrySendError::Full(bytes)) => {
                // The page is behind: wait for it rather than queue without bound. The wait is
                // counted, and the page is told.
                let started = Instant::now();
                let tx = self.tx.clone();
                let sent = match tokio::runtime::Handle::try_current() {
                    Ok(handle) => tokio::task::block_in_place(|| handle.block_on(tx.send(bytes))),
                    Err(_) => tx.blocking_send(bytes),
                };
                self.waited += started.elapsed();
                if sent.is_err() {
                    self.gone = true;
                }
            }
        }
    }

    fn send_json(&mut self, value: &serde_json::Value) {
        // Writing JSON into a Vec cannot fail.
        self.send(|out| {
            let _ = serde_json::to_writer(out, value);
        });
    }

    /// Sends the message at `index` as the reducer holds it now.
    fn send_message(&mut self, op: &str, index: usize, message: Option<&Message>) {
        let Some(message) = message else {
            return;
        };
        self.send(|out| {
            let _ = write!(out, r#"{{"t":"msg","op":"{op}","at":{index},"m":"#);
            let _ = serde_json::to_writer(&mut *out, message);
            out.push(b'}');
        });
    }

    /// Sends the message whose changes the page has not seen, if any, as `message_at` (the
    /// message at a position) gives it.
    fn flush_message<'m>(&mut self, message_at: impl FnOnce(usize) -> Option<&'m Message>) {
        if let Some((index, _)) = self.pending.take() {
            self.send_message("update", index, message_at(index));
        }
    }

    /// The agent's report that its run failed (`RUN_ERROR`), as the page shows it.
    fn send_agent_failure(&mut self, failure: &AgentError, interrupts: serde_json::Value) {
        let body = json!({
            "t": "error",
            "kind": RunErrorKind::Agent.as_str(),
            "message": failure.to_string(),
            "code": failure.code(),
            "ms": self.elapsed_ms(),
            "interrupts": interrupts,
        });
        self.send_json(&body);
    }

    fn send_failure(&mut self, error: &RunError, interrupts: serde_json::Value) {
        if let Some(failure) = error.agent_error() {
            return self.send_agent_failure(failure, interrupts);
        }
        let pipeline = error.pipeline();
        let mut body = if let Some(v) = pipeline.and_then(PipelineError::violation) {
            json!({
                "t": "violation",
                "i": v.index(),
                "kind": v.kind().as_str(),
                "ids": v.ids(),
                "message": v.message(),
            })
        } else if let Some(e) = pipeline.and_then(PipelineError::chunk) {
            json!({
                "t": "violation",
                "i": e.index(),
                "kind": e.kind().as_str(),
                "message": e.to_string(),
            })
        } else if let Some(e) = pipeline.and_then(PipelineError::decode) {
            json!({
                "t": "error",
                "kind": error.kind().as_str(),
                "frame": e.index(),
                "message": chain(e),
            })
        } else {
            // The whole chain: a layer's message names what failed, its source why.
            json!({
                "t": "error",
                "kind": error.kind().as_str(),
                "message": chain(error),
            })
        };
        body["ms"] = json!(self.elapsed_ms());
        body["interrupts"] = interrupts;
        self.send_json(&body);
    }
}

impl Subscriber for Forwarder {
    fn on_event(&mut self, event: &Event, reducer: &Reducer) -> Flow {
        // Deltas of a message are gathered; any other event (its END among them) first sends
        // the message as the deltas left it.
        if self.pending.is_some()
            && !matches!(
                event,
                Event::TextMessageContent(_)
                    | Event::ReasoningMessageContent(_)
                    | Event::ToolCallArgs(_)
            )
        {
            self.flush_message(|i| reducer.messages().get(i));
        }
        let index = self.index;
        self.index += 1;
        let ms = self.elapsed_ms();
        self.send(|out| {
            let _ = write!(out, r#"{{"t":"ev","i":{index},"ms":{ms},"e":"#);
            event.write_json(out);
            out.push(b'}');
        });
        if self.gone {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }

    fn on_applied(&mut self, _: &Event, applied: &Applied, reducer: &Reducer) -> Flow {
        let index = self.index.saturating_sub(1);
        match applied.messages {
            MessagesChange::Updated(at) => {
                // Text streams in many small pieces: the page gets the message when another
                // message changes, when this one is complete, or every MESSAGE_FLUSH.
                match self.pending {
                    Some((pending, _)) if pending != at => {
                        self.flush_message(|i| reducer.messages().get(i));
                        self.pending = Some((at, Instant::now()));
                    }
                    Some(_) => {}
                    None => self.pending = Some((at, Instant::now())),
                }
                if self
                    .pending
                    .is_some_and(|(_, since)| since.elapsed() >= MESSAGE_FLUSH)
                {
                    self.flush_message(|i| reducer.messages().get(i));
                }
            }
            MessagesChange::Appended(at) => {
                self.flush_message(|i| reducer.messages().get(i));
                self.send_message("append", at, reducer.messages().get(at));
            }
            MessagesChange::Inserted(at) => {
                self.flush_message(|i| reducer.messages().get(i));
                self.send_message("insert", at, reducer.messages().get(at));
            }
            MessagesChange::Replaced => {
                self.pending = None;
                self.send(|out| {
                    out.extend_from_slice(br#"{"t":"msgs","m":"#);
                    let _ = serde_json::to_writer(&mut *out, &reducer.messages());
                    out.push(b'}');
                });
            }
            _ => {}
        }
        if applied.state_changed {
            self.send(|out| {
                let _ = write!(out, r#"{{"t":"state","i":{index},"s":"#);
                let _ = serde_json::to_writer(&mut *out, reducer.state());
                out.push(b'}');
            });
        }
        if let Some(warning) = &applied.warning {
            self.send_json(&json!({
                "t": "warn",
                "i": index,
                "kind": warning.kind.as_str(),
                "message": warning.message,
            }));
        }
        if self.gone {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }
}

#[cfg(test)]
mod tests;
