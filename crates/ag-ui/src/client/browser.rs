use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::task::Poll;
use std::time::Duration;

use bytes::Bytes;
use futures::Stream;
use futures::channel::{mpsc, oneshot};
use wasm_bindgen::{JsCast, JsValue};

use crate::RunAgentInput;
use crate::client::transport::{Body, Piece, Timeout, Transport, TransportError};
use crate::encoding::Format;

/// How long the agent may send nothing by default, before the response headers and then
/// between two pieces of the body: the default of every client of this crate.
use crate::timeouts::DEFAULT_IDLE_TIMEOUT;

/// How many pieces of a body at most wait, read but not yet taken by the pipeline.
pub(crate) const CHANNEL_PIECES: usize = 8;

/// At most this much of an error response's body is kept.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// An AG-UI agent at a URL, reached with the browser's `fetch`.
///
/// [`BrowserAgent`]: the [`Transport`] for an AG-UI endpoint from a web page, on the browser's
/// `fetch` (feature `browser`, target `wasm32-unknown-unknown`).
///
/// Each run is a `POST` of the [`RunAgentInput`] as JSON with `Accept: text/event-stream`
/// (protobuf first with [`with_proto`](BrowserAgent::with_proto), feature `proto`); the
/// response body is read as a stream, piece by piece, as it arrives. What comes back is
/// checked as [`HttpAgent`](crate::client::HttpAgent) checks it natively: a non-success status
/// is a [`TransportError`] of kind [`Http`](crate::client::TransportErrorKind::Http) (with the first 64 KiB of the body), a success that is not an
/// event stream a [`TransportError`] of kind [`NotAgUi`](crate::client::TransportErrorKind::NotAgUi), one whose stream ends before a byte a
/// [`TransportError`] of kind [`NotAgUi`](crate::client::TransportErrorKind::NotAgUi) ([`is_empty_body`](crate::client::TransportError::is_empty_body)), a connection that breaks mid-stream a
/// [`TransportError`] of kind [`Connection`](crate::client::TransportErrorKind::Connection), and an agent silent for longer than the idle timeout a
/// [`TransportError`] of kind [`Timeout`](crate::client::TransportErrorKind::Timeout). The browser itself follows redirects and decodes
/// `Content-Encoding`; the page's origin must be allowed by the agent (CORS).
///
/// Dropping the body, or the future of [`open`](Transport::open), aborts the request through
/// its `AbortController`: a [`CancelToken`](crate::client::CancelToken) given to
/// [`Conversation::run_with`](crate::client::Conversation::run_with) cancels a run in flight.
///
/// The JavaScript objects of a request live in a task of the page's event loop
/// (`wasm_bindgen_futures::spawn_local`), which hands the bytes over through a bounded channel:
/// the transport's futures are `Send` like every other's, no thread and no tokio runtime is
/// needed, and at most 8 pieces wait for the pipeline.
///
/// ```no_run
/// use ag_ui::client::{BrowserAgent, Conversation};
///
/// # async fn demo() -> Result<(), ag_ui::client::RunError> {
/// let agent = BrowserAgent::new("http://127.0.0.1:8000/").with_header("x-tenant", "acme");
/// let mut conversation = Conversation::new("thread-1");
/// conversation.add_user_message("Hi");
/// conversation.run(&agent, &mut ()).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct BrowserAgent {
    url: String,
    headers: Vec<(String, String)>,
    idle_timeout: Duration,
    #[cfg(feature = "proto")]
    proto: bool,
}

impl BrowserAgent {
    /// An agent at `url` (absolute, or relative to the page), with the default idle timeout.
    /// The URL is checked when a run is opened (an invalid one is a
    /// [`TransportError`] of kind [`InvalidRequest`](crate::client::TransportErrorKind::InvalidRequest)).
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            headers: Vec::new(),
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            #[cfg(feature = "proto")]
            proto: false,
        }
    }

    /// Sends this header with every run. The browser checks it when a run is opened: an
    /// invalid name or value is a [`TransportError`] of kind [`InvalidRequest`](crate::client::TransportErrorKind::InvalidRequest) naming the header.
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sends `Authorization: Bearer <token>` with every run.
    pub fn with_bearer_token(self, token: impl AsRef<str>) -> Self {
        let value = format!("Bearer {}", token.as_ref());
        self.with_header("authorization", value)
    }

    /// How long the agent may send nothing: from sending the request to the response headers,
    /// then between any two pieces of the body.
    pub fn with_idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// Asks for protobuf first (`Accept: application/vnd.ag-ui.event+proto,
    /// text/event-stream;q=0.5`); the body is decoded by the `Content-Type` that comes back.
    #[cfg(feature = "proto")]
    #[cfg_attr(docsrs, doc(cfg(feature = "proto")))]
    pub fn with_proto(mut self, proto: bool) -> Self {
        self.proto = proto;
        self
    }

    /// The URL runs are sent to.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn accept(&self) -> &'static str {
        #[cfg(feature = "proto")]
        if self.proto {
            return crate::encoding::ACCEPT_PROTO_FIRST;
        }
        crate::encoding::SSE_MEDIA_TYPE
    }
}

/// The body of a [`BrowserAgent`] run: the pieces its `fetch` reads. Dropping it aborts the
/// request.
#[derive(Debug)]
pub struct BrowserBody {
    format: Format,
    pieces: mpsc::Receiver<Result<Bytes, TransportError>>,
    /// Dropped with the body, which tells the fetch task to abort.
    _abort: oneshot::Sender<()>,
}

impl Body for BrowserBody {
    async fn next(&mut self) -> Result<Option<Piece>, TransportError> {
        let pieces = &mut self.pieces;
        match poll_fn(|cx| Pin::new(&mut *pieces).poll_next(cx)).await {
            Some(Ok(bytes)) => Ok(Some(Piece::Bytes(bytes))),
            Some(Err(e)) => Err(e),
            None => Ok(None),
        }
    }

    fn format(&self) -> Format {
        self.format
    }
}

impl Transport for BrowserAgent {
    type Body = BrowserBody;

    fn open(
        &self,
        input: &RunAgentInput,
    ) -> impl Future<Output = Result<BrowserBody, TransportError>> + Send {
        let request = serde_json::to_string(input)
            .map_err(|e| TransportError::invalid_request(format!("the run input: {e}")));
        let agent = self.clone();
        async move {
            let request = request?;
            let (head_tx, head_rx) = oneshot::channel();
            let (pieces_tx, pieces) = mpsc::channel(CHANNEL_PIECES);
            let (abort, abort_rx) = oneshot::channel();
            wasm_bindgen_futures::spawn_local(fetch_task(
                agent, request, head_tx, pieces_tx, abort_rx,
            ));
            match head_rx.await {
                Ok(Ok(format)) => Ok(BrowserBody {
                    format,
                    pieces,
                    _abort: abort,
                }),
                Ok(Err(e)) => Err(e),
                Err(_) => Err(TransportError::connection_lost(
                    "the fetch task ended without an answer",
                )),
            }
        }
    }
}

/// A JavaScript exception or rejection, as an error.
#[derive(Debug)]
struct JsError(String);

impl std::fmt::Display for JsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for JsError {}

impl From<JsValue> for JsError {
    fn from(value: JsValue) -> Self {
        let text = value
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .or_else(|| value.as_string())
            .unwrap_or_else(|| format!("{value:?}"));
        JsError(text)
    }
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// The global `fetch` (of a window or a worker).
    #[wasm_bindgen(js_name = fetch)]
    fn global_fetch(request: &web_sys::Request) -> js_sys::Promise;
}

/// How a wait ended.
enum Raced<T> {
    Done(T),
    /// The body (or the open future) was dropped.
    Aborted,
    /// The idle timeout fired.
    Idle,
}

/// The longest delay `setTimeout` takes (a longer one fires at once).
const MAX_TIMER_MILLIS: u32 = i32::MAX as u32;

/// Awaits `future` unless `abort` fires or `idle` (if any) passes first.
async fn race<F: Future>(
    future: F,
    abort: &mut oneshot::Receiver<()>,
    idle: Option<Duration>,
) -> Raced<F::Output> {
    let mut future = pin!(future);
    let mut timer = idle.map(|idle| {
        let millis = u32::try_from(idle.as_millis()).unwrap_or(u32::MAX);
        gloo_timers::future::TimeoutFuture::new(millis.min(MAX_TIMER_MILLIS))
    });
    poll_fn(|cx| {
        if let Poll::Ready(value) = future.as_mut().poll(cx) {
            return Poll::Ready(Raced::Done(value));
        }
        if Pin::new(&mut *abort).poll(cx).is_ready() {
            return Poll::Ready(Raced::Aborted);
        }
        if let Some(timer) = timer.as_mut()
            && Pin::new(timer).poll(cx).is_ready()
        {
            return Poll::Ready(Raced::Idle);
        }
        Poll::Pending
    })
    .await
}

/// Builds the request; what is wrong with it, as the browser says.
fn build_request(
    agent: &BrowserAgent,
    body: &str,
    signal: &web_sys::AbortSignal,
) -> Result<web_sys::Request, TransportError> {
    let headers =
        web_sys::Headers::new().map_err(|e| TransportError::invalid_request(JsError::from(e).0))?;
    let set = |name: &str, value: &str| {
        headers.set(name, value).map_err(|e| {
            TransportError::invalid_request(format!("header {name:?}: {}", JsError::from(e)))
        })
    };
    set("content-type", "application/json")?;
    set("accept", agent.accept())?;
    for (name, value) in &agent.headers {
        set(name, value)?;
    }
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_body(&JsValue::from_str(body));
    init.set_headers(&headers);
    init.set_signal(Some(signal));
    web_sys::Request::new_with_str_and_init(&agent.url, &init).map_err(|e| {
        TransportError::invalid_request(format!("the URL {:?}: {}", agent.url, JsError::from(e)))
    })
}

/// Reads one piece of `reader`: `Ok(None)` at the end of the stream.
async fn read_piece(
    reader: &web_sys::ReadableStreamDefaultReader,
) -> Result<Option<Vec<u8>>, JsError> {
    let result = wasm_bindgen_futures::JsFuture::from(reader.read()).await?;
    let done = js_sys::Reflect::get(&result, &JsValue::from_str("done"))?;
    if done.as_bool() == Some(true) {
        return Ok(None);
    }
    let value = js_sys::Reflect::get(&result, &JsValue::from_str("value"))?;
    let bytes = value
        .dyn_into::<js_sys::Uint8Array>()
        .map_err(|_| JsError("the response stream yielded something else than bytes".into()))?;
    Ok(Some(bytes.to_vec()))
}

/// The request, from the page's event loop: sends it, checks the response, then reads the body
/// into `pieces` until it ends, breaks, goes idle or the body is dropped.
async fn fetch_task(
    agent: BrowserAgent,
    body: String,
    head: oneshot::Sender<Result<Format, TransportError>>,
    mut pieces: mpsc::Sender<Result<Bytes, TransportError>>,
    mut abort: oneshot::Receiver<()>,
) {
    let controller = match web_sys::AbortController::new() {
        Ok(controller) => controller,
        Err(e) => {
            let _ = head.send(Err(TransportError::connection(
                "creating an AbortController",
                JsError::from(e),
            )));
            return;
        }
    };
    let idle = agent.idle_timeout;
    let timeout = Some(idle);
    let request = match build_request(&agent, &body, &controller.signal()) {
        Ok(request) => request,
        Err(e) => {
            let _ = head.send(Err(e));
            return;
        }
    };
    drop(body);
    let url = agent.url.clone();
    let response = match race(
        wasm_bindgen_futures::JsFuture::from(global_fetch(&request)),
        &mut abort,
        timeout,
    )
    .await
    {
        Raced::Done(Ok(response)) => response.unchecked_into::<web_sys::Response>(),
        Raced::Done(Err(e)) => {
            let _ = head.send(Err(TransportError::connection(
                format!("cannot reach {url}"),
                JsError::from(e),
            )));
            return;
        }
        Raced::Aborted => return controller.abort(),
        Raced::Idle => {
            controller.abort();
            let _ = head.send(Err(TransportError::from(Timeout::Headers(idle))));
            return;
        }
    };
    let status = response.status();
    let reader = response.body().map(|stream| {
        stream
            .get_reader()
            .unchecked_into::<web_sys::ReadableStreamDefaultReader>()
    });
    if !response.ok() {
        let mut text = Vec::new();
        if let Some(reader) = &reader {
            while text.len() < ERROR_BODY_LIMIT {
                match race(read_piece(reader), &mut abort, timeout).await {
                    Raced::Done(Ok(Some(bytes))) => text.extend_from_slice(&bytes),
                    Raced::Aborted => return controller.abort(),
                    _ => break,
                }
            }
        }
        controller.abort();
        text.truncate(ERROR_BODY_LIMIT);
        let body = String::from_utf8_lossy(&text).into_owned();
        let _ = head.send(Err(TransportError::http(status, body)));
        return;
    }
    let content_type = response.headers().get("content-type").ok().flatten();
    let no_body = matches!(status, 204 | 205);
    let wire = match content_type.as_deref().and_then(Format::from_content_type) {
        Some(wire) if !no_body => wire,
        _ => {
            controller.abort();
            let _ = head.send(Err(TransportError::not_ag_ui(status, content_type, None)));
            return;
        }
    };
    let Some(reader) = reader else {
        let _ = head.send(Err(TransportError::empty_body(status)));
        return;
    };
    let mut head = Some(head);
    loop {
        let item = match race(read_piece(&reader), &mut abort, timeout).await {
            Raced::Done(Ok(Some(bytes))) if bytes.is_empty() => continue,
            Raced::Done(Ok(Some(bytes))) => Ok(Bytes::from(bytes)),
            Raced::Done(Ok(None)) => {
                // The end: before a byte, there was no event stream at all.
                if let Some(head) = head.take() {
                    let _ = head.send(Err(TransportError::empty_body(status)));
                }
                return;
            }
            Raced::Done(Err(e)) => Err(TransportError::connection("reading the response", e)),
            Raced::Aborted => return controller.abort(),
            Raced::Idle => Err(TransportError::from(Timeout::Idle(idle))),
        };
        // The first byte makes the response an event stream: the body is handed over.
        if let Some(head) = head.take()
            && head.send(Ok(wire)).is_err()
        {
            return controller.abort();
        }
        let failed = item.is_err();
        let ready = poll_fn(|cx| pieces.poll_ready(cx));
        match race(ready, &mut abort, None).await {
            Raced::Done(Ok(())) => {
                if pieces.try_send(item).is_err() {
                    return controller.abort();
                }
            }
            _ => return controller.abort(),
        }
        if failed {
            return controller.abort();
        }
    }
}
