//! Serving agents over HTTP with [axum](https://docs.rs/axum) 0.8.
//!
//! An AG-UI endpoint answers `POST <path>` with a [`RunAgentInput`] JSON body by streaming
//! events back as Server-Sent Events. [`AgentEndpoint`] is that endpoint for anything that
//! implements [`RunHandler`] — a closure returning a stream of events, or an agent of
//! [`server`](crate::server) — and it mounts like any other axum route, next to your own routes
//! and middleware (auth, CORS from tower-http, tracing):
//!
//! ```
//! use ag_ui::axum::{AgentEndpoint, RouterExt};
//! use ag_ui::{Event, RunAgentInput};
//! use axum::Router;
//!
//! fn echo(input: RunAgentInput) -> impl futures::Stream<Item = Event> + Send + 'static {
//!     futures::stream::iter([
//!         Event::run_started(input.thread_id.clone(), input.run_id.clone()),
//!         Event::run_finished(input.thread_id, input.run_id),
//!     ])
//! }
//!
//! let app: Router = Router::new()
//!     .agent("/echo", AgentEndpoint::new(echo))
//!     .route("/health", axum::routing::get(|| async { "ok" }));
//! # let _ = app;
//! ```
//!
//! What the endpoint does for you:
//!
//! - **Input**: the body is read up to a limit (4 MiB by default; more is `413`), must be
//!   `application/json` (else `415`), and must parse as a `RunAgentInput` (else `400`, naming the
//!   field's path). Other methods get `405`. Every rejection is a JSON body
//!   `{"error": {"kind": …, "message": …, "field": …}}`; [`AgentInput`] is the same extractor
//!   for your own handlers.
//! - **Negotiation** on `Accept` ([`negotiate`], RFC 9110 q-values and specificity): SSE
//!   (`text/event-stream`) by default and for `*/*`; protobuf
//!   (`application/vnd.ag-ui.event+proto`, with the `proto` feature) when the client asks for
//!   it above SSE; a `406` naming what is offered when the client accepts neither. See
//!   [Protobuf](#protobuf).
//! - **Streaming**: headers that keep proxies from buffering (`Cache-Control: no-cache`,
//!   `X-Accel-Buffering: no`); each event is written as soon as it is emitted (events that are
//!   already waiting go out in one write, nothing waits for more); a `: keep-alive` comment after
//!   a quiet interval (15 s by default); optional SSE `id:` fields numbering the events.
//! - **Cancellation**: when the client disconnects, the response body is dropped, and with it
//!   the event stream — which, for an agent run by [`server`](crate::server), fires the run's
//!   cancellation signal and stops the agent.
//! - **Errors** before the stream starts ([`RunHandler::run`] returning `Err`) are a JSON `5xx`
//!   (or the status the error names); once streaming, failures are the handler's to report
//!   in-band as `RUN_ERROR`.
//! - **Slow clients**: a body not read whole within the body timeout (30 s by default,
//!   [`AgentEndpoint::with_body_timeout`]) is a JSON `408`. A run's events are queued for the
//!   client up to the runner's [`Backpressure`](crate::server::Backpressure) limits, so a
//!   client that reads slowly holds the agent back instead of growing the server's memory.
//!
//! ## Protobuf
//!
//! With the `proto` feature, a request whose `Accept` prefers
//! `application/vnd.ag-ui.event+proto` is answered with that `Content-Type` (exactly, without
//! parameters, as the reference client compares it) and a body of length-prefixed protobuf
//! frames ([`encoding::proto`](crate::encoding::proto)), one per event, batched and
//! back-pressured exactly as SSE frames are.
//!
//! **Keep-alive:** the binary stream has no frame a reader would skip (every frame must hold an
//! event, and a zero length is an error to the reference decoder), so nothing is sent during
//! quiet intervals: [`AgentEndpoint::with_keep_alive`] applies to SSE only. A deployment
//! behind a proxy that closes idle connections should have the agent emit events (for example
//! `ACTIVITY_SNAPSHOT` progress) or serve SSE. Likewise [`AgentEndpoint::with_event_ids`]
//! applies to SSE only; frames carry no id.
//!
//! **Where this differs from `@ag-ui/encoder` 1.0.0.** The reference `EventEncoder` answers
//! the question "does the client accept protobuf at all?": it sends protobuf whenever the
//! range that best matches the protobuf type has a non-zero quality, and SSE otherwise. This
//! endpoint instead compares the two types as RFC 9110 asks:
//!
//! | `Accept` | `@ag-ui/encoder` | this endpoint |
//! |---|---|---|
//! | `*/*` | protobuf | SSE (`*/*` keeps SSE) |
//! | `application/*` | protobuf | protobuf |
//! | `text/event-stream, application/vnd.ag-ui.event+proto` | protobuf | SSE (a tie favours SSE) |
//! | `text/event-stream, application/vnd.ag-ui.event+proto;q=0.5` | protobuf | SSE (higher q) |
//! | `text/event-stream;q=0.5, application/vnd.ag-ui.event+proto` | protobuf | protobuf |
//! | `application/json` | SSE | `406` (neither is acceptable) |
//! | `text/event-stream;q=0` | SSE | `406` |
//!
//! A client that wants protobuf should name it alone (`Accept:
//! application/vnd.ag-ui.event+proto`) or above SSE; the test `axum_proto` holds the table
//! against the reference encoder.
//!
//! ## Serving
//!
//! `axum::serve` has no timeout on reading a request head, so a client that trickles its
//! headers holds a connection (and a file descriptor) for ever. [`serve`] serves a router with
//! a header timeout, a cap on the request head, a connection limit and a bounded graceful
//! shutdown ([`ServeConfig`]).
//!
//! ## Replies that are not JSON
//!
//! Every rejection this module makes has a JSON body. A few replies are made by hyper itself,
//! while it parses the request head and before any router or handler runs, and have an empty
//! body; they cannot be changed from here:
//!
//! - `431 Request Header Fields Too Large`: the head is larger than
//!   [`ServeConfig::with_max_header_bytes`] (or has more than 100 header fields);
//! - `400 Bad Request`: the head is not valid HTTP/1.1 (a bad request line, method, URI,
//!   header name or value, or a bad `Content-Length`/`Transfer-Encoding`);
//! - a connection whose head is not received within the header timeout is closed without a
//!   reply.
//!
//! A client that sends such a request has not reached the AG-UI endpoint; it gets the status
//! and the connection is closed.

use std::convert::Infallible;
use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use ::axum::body::{Body, Bytes};
use ::axum::extract::{FromRequest, Request};
use ::axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use ::axum::response::{IntoResponse, Response};
use ::axum::routing::{MethodRouter, on};
use ::axum::{Router, routing::MethodFilter};
use futures::{Stream, StreamExt};
use serde_json::json;

use crate::encoding::sse;
use crate::server::downgrade::{self, Downgrade, LegacyFrame};
use crate::server::transform::{Coalescer, Filter, FilterFn, Verdict};
use crate::{Event, RunAgentInput};

pub mod registry;
pub use registry::{AgentInfo, AgentRegistry};
pub mod resume;

/// The default limit on the size of a request body: 4 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 4 * 1024 * 1024;

/// The default interval of quiet after which a keep-alive comment is sent: 15 seconds.
pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The default time allowed to read a whole request body: 30 seconds (more is `408`).
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// The default time allowed to read a request's head (request line and headers), from the
/// moment the server waits for it: 10 seconds. See [`ServeConfig`].
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// The default most connections served at once: 1024. See [`ServeConfig`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// The default bound on a graceful shutdown: 10 seconds. See [`ServeConfig`].
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);

/// The default largest request head (request line and headers): 64 KiB; more is `431`. See
/// [`ServeConfig`].
pub const DEFAULT_MAX_HEADER_BYTES: usize = 64 * 1024;

/// A boxed, sendable stream of events, as a [`RunHandler`] returns it.
pub type EventStream = Pin<Box<dyn Stream<Item = Event> + Send + 'static>>;

/// Something that answers a run request with a stream of events.
///
/// Implemented for every `Fn(RunAgentInput) -> impl Stream<Item = Event>` closure or function.
/// The stream is dropped when the client goes away, so a handler that spawns work should stop
/// it when its stream is dropped.
pub trait RunHandler: Send + Sync + 'static {
    /// Starts a run.
    ///
    /// # Errors
    ///
    /// A [`StartError`] when the run cannot start; the client receives it as a JSON error
    /// response with its status, and no stream.
    fn run(&self, input: RunAgentInput) -> Result<EventStream, StartError>;
}

impl<F, S> RunHandler for F
where
    F: Fn(RunAgentInput) -> S + Send + Sync + 'static,
    S: Stream<Item = Event> + Send + 'static,
{
    fn run(&self, input: RunAgentInput) -> Result<EventStream, StartError> {
        Ok(Box::pin(self(input)))
    }
}

/// An agent of [`server`](crate::server), run by its [`Runner`](crate::server::Runner): each
/// request starts a run whose events stream back; the client going away cancels it.
///
/// A state in the input that does not fit the agent's `State` is the client's mistake and is
/// answered `400` (kind `invalid-state`); anything else that stops a run from starting is a
/// `500`.
impl<A: crate::server::Agent> RunHandler for crate::server::Runner<A> {
    fn run(&self, input: RunAgentInput) -> Result<EventStream, StartError> {
        match crate::server::Runner::run(self, input) {
            Ok(events) => Ok(Box::pin(events)),
            Err(error) if error.kind() == crate::server::ErrorKind::State => {
                Err(StartError::new(error.to_string())
                    .with_status(StatusCode::BAD_REQUEST)
                    .with_kind(StartErrorKind::InvalidState))
            }
            Err(error) => Err(StartError::new(error.to_string())),
        }
    }
}

impl<A: crate::server::Agent> AgentEndpoint<crate::server::Runner<A>> {
    /// An endpoint running `agent`, one run per request. Shorthand for
    /// `AgentEndpoint::new(Runner::new(agent))`; use that form to configure the runner (for
    /// example to echo the input in `RUN_STARTED`).
    pub fn agent(agent: A) -> Self {
        AgentEndpoint::new(crate::server::Runner::new(agent))
    }

    /// Sets the limits each run's backlog is held to: how much a client that reads slowly
    /// can leave queued (see [`Backpressure`](crate::server::Backpressure); same as
    /// [`Runner::with_backpressure`](crate::server::Runner::with_backpressure)).
    #[must_use]
    pub fn with_backpressure(mut self, limits: crate::server::Backpressure) -> Self {
        self.handler = Arc::new((*self.handler).clone().with_backpressure(limits));
        self
    }
}

/// The kinds of [`StartError`], sent as the `kind` of the JSON error body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StartErrorKind {
    /// The run could not start (the default).
    RunFailed,
    /// The input's state does not fit the agent.
    InvalidState,
    /// The input is not one the agent can run (a missing message, an unknown tool, …).
    InvalidInput,
    /// The agent cannot take the run now (a dependency is down, it is at capacity).
    Unavailable,
}

impl StartErrorKind {
    /// A stable name, the `kind` of the JSON error body: `run-failed`, `invalid-state`,
    /// `invalid-input`, `unavailable`.
    pub fn as_str(self) -> &'static str {
        match self {
            StartErrorKind::RunFailed => "run-failed",
            StartErrorKind::InvalidState => "invalid-state",
            StartErrorKind::InvalidInput => "invalid-input",
            StartErrorKind::Unavailable => "unavailable",
        }
    }
}

/// A run could not start. Sent to the client as a JSON error body
/// (`{"error": {"kind": …, "message": …}}`); the status is `500` and the kind
/// [`StartErrorKind::RunFailed`] unless set otherwise.
///
/// ```
/// use ag_ui::axum::{StartError, StartErrorKind};
/// use axum::http::StatusCode;
///
/// let err = StartError::new("the model is not configured")
///     .with_status(StatusCode::SERVICE_UNAVAILABLE)
///     .with_kind(StartErrorKind::Unavailable);
/// assert_eq!(err.kind(), StartErrorKind::Unavailable);
/// assert_eq!(err.kind().as_str(), "unavailable");
/// assert_eq!(err.status(), StatusCode::SERVICE_UNAVAILABLE);
/// assert_eq!(err.to_string(), "the model is not configured (503 Service Unavailable)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartError {
    status: StatusCode,
    kind: StartErrorKind,
    message: String,
}

impl StartError {
    /// A `500 Internal Server Error` with the given message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            kind: StartErrorKind::RunFailed,
            message: message.into(),
        }
    }

    /// Sets the status (for example `400` when the input's state does not fit the agent).
    #[must_use]
    pub fn with_status(mut self, status: StatusCode) -> Self {
        self.status = status;
        self
    }

    /// Sets the machine-readable kind (default [`StartErrorKind::RunFailed`]).
    #[must_use]
    pub fn with_kind(mut self, kind: StartErrorKind) -> Self {
        self.kind = kind;
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> StartErrorKind {
        self.kind
    }

    /// The status sent.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The message sent.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.status)
    }
}

impl std::error::Error for StartError {}

impl IntoResponse for StartError {
    fn into_response(self) -> Response {
        error_response(self.status, self.kind.as_str(), &self.message, None)
    }
}

fn error_response(status: StatusCode, kind: &str, message: &str, field: Option<&str>) -> Response {
    // What a message quotes (a run id, a header, a query parameter) is the client's: bounded.
    let message = crate::excerpt(message, crate::EXCERPT_LIST_BYTES);
    let mut error = json!({ "kind": kind, "message": message });
    if let Some(field) = field {
        error["field"] = json!(field);
    }
    let body = json!({ "error": error }).to_string();
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// Why a request body was not accepted as a [`RunAgentInput`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RejectionKind {
    /// The `Content-Type` is not `application/json` (`415`).
    UnsupportedMediaType,
    /// The body exceeds the limit (`413`).
    PayloadTooLarge,
    /// The body could not be read (`400`).
    UnreadableBody,
    /// The body is not JSON (`400`).
    MalformedJson,
    /// The JSON is not a valid `RunAgentInput` (`400`, with the field's path).
    InvalidInput,
    /// The body was not read in time (`408`).
    BodyTimeout,
    /// The method is not `POST` (`405`).
    MethodNotAllowed,
    /// The client accepts no encoding this endpoint produces (`406`).
    NotAcceptable,
}

impl RejectionKind {
    /// The kind's name in the JSON error body.
    pub fn as_str(self) -> &'static str {
        match self {
            RejectionKind::UnsupportedMediaType => "unsupported-media-type",
            RejectionKind::PayloadTooLarge => "payload-too-large",
            RejectionKind::UnreadableBody => "unreadable-body",
            RejectionKind::MalformedJson => "malformed-json",
            RejectionKind::InvalidInput => "invalid-input",
            RejectionKind::BodyTimeout => "body-timeout",
            RejectionKind::MethodNotAllowed => "method-not-allowed",
            RejectionKind::NotAcceptable => "not-acceptable",
        }
    }

    /// The HTTP status sent for it.
    pub fn status(self) -> StatusCode {
        match self {
            RejectionKind::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            RejectionKind::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            RejectionKind::UnreadableBody
            | RejectionKind::MalformedJson
            | RejectionKind::InvalidInput => StatusCode::BAD_REQUEST,
            RejectionKind::BodyTimeout => StatusCode::REQUEST_TIMEOUT,
            RejectionKind::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            RejectionKind::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
        }
    }
}

/// A request rejected before any run started. Renders as a JSON error body with the kind's
/// status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputRejection {
    kind: RejectionKind,
    message: String,
    field: Option<String>,
}

impl InputRejection {
    fn new(kind: RejectionKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            field: None,
        }
    }

    /// What was wrong.
    pub fn kind(&self) -> RejectionKind {
        self.kind
    }

    /// A message for a person.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The path of the offending field (`messages[0].role`), for [`RejectionKind::InvalidInput`].
    pub fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }
}

impl fmt::Display for InputRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(
                f,
                "{}: field `{field}`: {}",
                self.kind.as_str(),
                self.message
            ),
            None => write!(f, "{}: {}", self.kind.as_str(), self.message),
        }
    }
}

impl std::error::Error for InputRejection {}

impl IntoResponse for InputRejection {
    fn into_response(self) -> Response {
        error_response(
            self.kind.status(),
            self.kind.as_str(),
            &self.message,
            self.field.as_deref(),
        )
    }
}

/// Extracts a [`RunAgentInput`] from a JSON request body (up to [`DEFAULT_BODY_LIMIT`], read
/// within [`DEFAULT_BODY_TIMEOUT`]), rejecting with an [`InputRejection`].
///
/// ```
/// use ag_ui::axum::AgentInput;
///
/// async fn handler(AgentInput(input): AgentInput) -> String {
///     format!("run {} on thread {}", input.run_id, input.thread_id)
/// }
/// let _app: axum::Router = axum::Router::new().route("/", axum::routing::post(handler));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct AgentInput(pub RunAgentInput);

impl<S: Send + Sync> FromRequest<S> for AgentInput {
    type Rejection = InputRejection;

    async fn from_request(req: Request, _state: &S) -> Result<Self, Self::Rejection> {
        read_input(req, DEFAULT_BODY_LIMIT, DEFAULT_BODY_TIMEOUT)
            .await
            .map(AgentInput)
    }
}

/// Reads and parses the body of `req` as a `RunAgentInput`, refusing a body over `limit`
/// bytes as soon as it is known to be too large (from `Content-Length`, or while reading), and
/// a body not read whole within `timeout`.
async fn read_input(
    req: Request,
    limit: usize,
    timeout: Duration,
) -> Result<RunAgentInput, InputRejection> {
    check_content_type(req.headers())?;
    let too_large = || {
        InputRejection::new(
            RejectionKind::PayloadTooLarge,
            format!("the request body exceeds the limit of {limit} bytes"),
        )
    };
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    let read = async {
        let mut body = Vec::with_capacity(declared.map_or(0, |n| n as usize));
        let mut chunks = req.into_body().into_data_stream();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.map_err(|e| {
                InputRejection::new(
                    RejectionKind::UnreadableBody,
                    format!("the request body could not be read: {e}"),
                )
            })?;
            if body.len() + chunk.len() > limit {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    };
    let body = tokio::time::timeout(timeout, read).await.map_err(|_| {
        InputRejection::new(
            RejectionKind::BodyTimeout,
            format!(
                "the request body was not received within {} ms",
                timeout.as_millis()
            ),
        )
    })??;
    parse_input(&body)
}

fn check_content_type(headers: &HeaderMap) -> Result<(), InputRejection> {
    let value = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = value.split(';').next().unwrap_or("").trim();
    let json = essence.eq_ignore_ascii_case("application/json")
        || (essence.len() > 5
            && essence[..essence.len() - 5].contains('/')
            && essence.to_ascii_lowercase().ends_with("+json"));
    if json {
        Ok(())
    } else if value.is_empty() {
        Err(InputRejection::new(
            RejectionKind::UnsupportedMediaType,
            "expected Content-Type: application/json, found none",
        ))
    } else {
        Err(InputRejection::new(
            RejectionKind::UnsupportedMediaType,
            format!("expected Content-Type: application/json, found {value:?}"),
        ))
    }
}

fn parse_input(body: &[u8]) -> Result<RunAgentInput, InputRejection> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let result: Result<RunAgentInput, _> = serde_path_to_error::deserialize(&mut de);
    if result.is_ok()
        && let Err(e) = de.end()
    {
        return Err(InputRejection::new(
            RejectionKind::MalformedJson,
            format!("the body is not valid JSON: {e}"),
        ));
    }
    result.map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            return InputRejection::new(
                RejectionKind::MalformedJson,
                format!("the body is not valid JSON: {inner}"),
            );
        }
        let (field, message) = crate::decode::locate(&path, &inner.to_string());
        InputRejection {
            kind: RejectionKind::InvalidInput,
            message,
            field,
        }
    })
}

/// The event encoding chosen for a response.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Encoding {
    /// Server-Sent Events (`text/event-stream`).
    Sse,
    /// Length-prefixed protobuf frames (`application/vnd.ag-ui.event+proto`), see
    /// [`encoding::proto`](crate::encoding::proto).
    #[cfg(feature = "proto")]
    #[cfg_attr(docsrs, doc(cfg(feature = "proto")))]
    Proto,
}

impl Encoding {
    /// The response `Content-Type`.
    pub fn content_type(self) -> &'static str {
        match self {
            Encoding::Sse => sse::CONTENT_TYPE,
            #[cfg(feature = "proto")]
            Encoding::Proto => crate::encoding::proto::CONTENT_TYPE,
        }
    }
}

/// The protobuf media type, known even when the `proto` feature is off (to say why a request
/// for it is refused).
const PROTO_MEDIA_TYPE: &str = "application/vnd.ag-ui.event+proto";

/// The encodings this build offers, SSE first: on equal quality the earlier one wins.
const OFFERED: &[(Encoding, &str, &str)] = &[
    (Encoding::Sse, "text", "event-stream"),
    #[cfg(feature = "proto")]
    (Encoding::Proto, "application", "vnd.ag-ui.event+proto"),
];

/// Chooses the encoding for an `Accept` header value (`None` when the header is absent), by
/// the rules of RFC 9110 §12.5.1.
///
/// * Each media range may carry a quality `q` (0 to 1, default 1); a `q` that is not a number
///   in that range counts as 0. Other parameters are ignored.
/// * For each encoding offered, the **most specific** range that matches it applies: the
///   exact type beats `type/*`, which beats `*/*`, whatever their order in the header (among
///   ranges equally specific, the first one). `text/event-stream;q=0, */*` therefore refuses
///   SSE.
/// * The offered encoding with the highest quality is chosen; a quality of 0 excludes it; on
///   equal quality SSE wins. So `*/*` (and an absent or empty header) gets SSE, and protobuf
///   is sent only when the client names it (or `application/*`) above everything that
///   matches SSE.
///
/// Protobuf ([`Encoding::Proto`]) is offered only with the `proto` feature; without it a
/// client asking only for protobuf gets the `406`, whose message says so.
///
/// # Errors
///
/// An [`InputRejection`] of kind [`RejectionKind::NotAcceptable`] when nothing this endpoint
/// produces is acceptable; the message names what is offered.
///
/// ```
/// use ag_ui::axum::{negotiate, Encoding};
///
/// assert_eq!(negotiate(None).unwrap(), Encoding::Sse);
/// assert_eq!(negotiate(Some("text/event-stream")).unwrap(), Encoding::Sse);
/// assert_eq!(negotiate(Some("application/json, */*;q=0.1")).unwrap(), Encoding::Sse);
/// assert!(negotiate(Some("application/json")).is_err());
/// assert!(negotiate(Some("text/event-stream;q=0")).is_err());
/// ```
pub fn negotiate(accept: Option<&str>) -> Result<Encoding, InputRejection> {
    let Some(accept) = accept.map(str::trim).filter(|a| !a.is_empty()) else {
        return Ok(Encoding::Sse);
    };
    // Per offer: (specificity of the applying range, its quality).
    let mut applying: [Option<(u8, f32)>; OFFERED.len()] = [None; OFFERED.len()];
    for range in split_unquoted(accept) {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or("").trim();
        let Some((kind, subtype)) = media.split_once('/') else {
            continue;
        };
        let (kind, subtype) = (kind.trim(), subtype.trim());
        let mut q = 1.0_f32;
        for param in parts {
            if let Some((k, v)) = param.split_once('=')
                && k.trim().eq_ignore_ascii_case("q")
            {
                q = v
                    .trim()
                    .parse::<f32>()
                    .ok()
                    .filter(|q| (0.0..=1.0).contains(q))
                    .unwrap_or(0.0);
                // What follows `q` are accept-extensions, not media type parameters.
                break;
            }
        }
        for (slot, &(_, offer_type, offer_subtype)) in applying.iter_mut().zip(OFFERED) {
            let specificity = if kind == "*" && subtype == "*" {
                1
            } else if !kind.eq_ignore_ascii_case(offer_type) {
                continue;
            } else if subtype == "*" {
                2
            } else if subtype.eq_ignore_ascii_case(offer_subtype) {
                3
            } else {
                continue;
            };
            if slot.is_none_or(|(s, _)| specificity > s) {
                *slot = Some((specificity, q));
            }
        }
    }
    let mut best: Option<(Encoding, f32)> = None;
    for (slot, &(encoding, _, _)) in applying.iter().zip(OFFERED) {
        if let Some((_, q)) = *slot
            && q > 0.0
            && best.is_none_or(|(_, b)| q > b)
        {
            best = Some((encoding, q));
        }
    }
    if let Some((encoding, _)) = best {
        return Ok(encoding);
    }
    let offered = OFFERED
        .iter()
        .map(|(encoding, _, _)| encoding.content_type())
        .collect::<Vec<_>>()
        .join(", ");
    let wants_proto = accept.to_ascii_lowercase().contains(PROTO_MEDIA_TYPE);
    let message = if wants_proto && !cfg!(feature = "proto") {
        format!(
            "Accept: {accept:?} asks for protobuf ({PROTO_MEDIA_TYPE}), which this server was built without; it produces {offered}"
        )
    } else {
        format!("Accept: {accept:?} accepts nothing this endpoint produces ({offered})")
    };
    Err(InputRejection::new(RejectionKind::NotAcceptable, message))
}

/// Splits a header value on commas that are not inside double quotes.
fn split_unquoted(value: &str) -> impl Iterator<Item = &str> {
    let mut quoted = false;
    let mut start = 0;
    let mut pieces = Vec::new();
    for (i, c) in value.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => {
                pieces.push(&value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces.push(&value[start..]);
    pieces.into_iter()
}

#[derive(Clone, Copy, Debug)]
struct Config {
    body_limit: usize,
    body_timeout: Duration,
    keep_alive: Option<Duration>,
    event_ids: bool,
    downgrade: bool,
    /// Delta coalescing: the largest joined delta, and how long a delta may wait for the next.
    coalesce: Option<(usize, Duration)>,
    timestamps: bool,
    tracing: bool,
}

/// An AG-UI endpoint serving a [`RunHandler`]: `POST` a `RunAgentInput`, receive the events.
///
/// Mount it with [`RouterExt::agent`], or turn it into an axum [`MethodRouter`] (which is also
/// a tower `Service`) with [`AgentEndpoint::into_method_router`].
pub struct AgentEndpoint<H> {
    handler: Arc<H>,
    config: Config,
    filter: Option<Arc<FilterFn>>,
    resumable: Option<resume::Resumable>,
}

impl<H> Clone for AgentEndpoint<H> {
    fn clone(&self) -> Self {
        Self {
            handler: Arc::clone(&self.handler),
            config: self.config,
            filter: self.filter.clone(),
            resumable: self.resumable.clone(),
        }
    }
}

impl<H> fmt::Debug for AgentEndpoint<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentEndpoint")
            .field("config", &self.config)
            .field("filter", &self.filter.is_some())
            .field("resumable", &self.resumable)
            .finish_non_exhaustive()
    }
}

impl<H: RunHandler> AgentEndpoint<H> {
    /// An endpoint with the default body limit and keep-alive interval, without SSE ids.
    pub fn new(handler: H) -> Self {
        Self {
            handler: Arc::new(handler),
            config: Config {
                body_limit: DEFAULT_BODY_LIMIT,
                body_timeout: DEFAULT_BODY_TIMEOUT,
                keep_alive: Some(DEFAULT_KEEP_ALIVE),
                event_ids: false,
                downgrade: true,
                coalesce: None,
                timestamps: false,
                tracing: true,
            },
            filter: None,
            resumable: None,
        }
    }

    /// Makes the endpoint resumable on `log`: every event is logged and numbered
    /// (`id: <runId>:<seq>`), a run outlives its connection, and `GET` on the same path
    /// reconnects from a cursor. See [`resume`] for the whole behaviour;
    /// [`MemoryLog::default()`](crate::server::log::MemoryLog) is the usual log of a single
    /// instance.
    #[must_use]
    pub fn with_resumable(self, log: impl crate::server::log::EventLog) -> Self {
        self.with_resumable_log(Arc::new(log))
    }

    /// [`with_resumable`](Self::with_resumable) with a log shared as a trait object.
    #[must_use]
    pub fn with_resumable_log(mut self, log: Arc<dyn crate::server::log::EventLog>) -> Self {
        let mut resumable = resume::Resumable::new(log);
        if let Some(old) = &self.resumable {
            resumable.detach_timeout = old.detach_timeout;
            resumable.retry = old.retry;
        }
        self.resumable = Some(resumable);
        self
    }

    /// Sets how long a resumable run whose client left goes on before it is cancelled
    /// (default [`resume::DEFAULT_DETACH_TIMEOUT`]). No effect until the endpoint is
    /// resumable.
    #[must_use]
    pub fn with_detach_timeout(mut self, timeout: Duration) -> Self {
        if let Some(resumable) = &mut self.resumable {
            resumable.detach_timeout = timeout;
        }
        self
    }

    /// Sets the reconnection delay a resumable stream advises in `retry:` (default
    /// [`resume::DEFAULT_RETRY`]). No effect until the endpoint is resumable.
    #[must_use]
    pub fn with_retry(mut self, delay: Duration) -> Self {
        if let Some(resumable) = &mut self.resumable {
            resumable.retry = delay;
        }
        self
    }

    /// Whether the endpoint is resumable (then its capabilities say `transport.resumable`).
    pub fn is_resumable(&self) -> bool {
        self.resumable.is_some()
    }

    /// Sets the largest accepted request body, in bytes.
    #[must_use]
    pub fn with_body_limit(mut self, bytes: usize) -> Self {
        self.config.body_limit = bytes;
        self
    }

    /// Sets the time allowed to read the whole request body (default
    /// [`DEFAULT_BODY_TIMEOUT`]); a body still incomplete then is answered `408`
    /// (`body-timeout`), so a client trickling its body cannot hold the request open.
    #[must_use]
    pub fn with_body_timeout(mut self, timeout: Duration) -> Self {
        self.config.body_timeout = timeout;
        self
    }

    /// Sets the interval of quiet after which a keep-alive comment is sent (`None`: never).
    /// SSE only: a protobuf stream sends nothing when quiet (see [Protobuf](self#protobuf)).
    #[must_use]
    pub fn with_keep_alive(mut self, interval: Option<Duration>) -> Self {
        self.config.keep_alive = interval;
        self
    }

    /// Numbers the events with SSE `id:` fields (1, 2, …) so a client can tell how far it got.
    /// SSE only: protobuf frames carry no id.
    #[must_use]
    pub fn with_event_ids(mut self, enabled: bool) -> Self {
        self.config.event_ids = enabled;
        self
    }

    /// Whether a client that declares no `protocolVersion`, or one below 1.0, gets the stream
    /// rewritten into what a pre-1.0 client reads (on by default; see
    /// [`server::downgrade`](crate::server::downgrade) for what changes and what is lost).
    /// A 1.0 client's stream is never touched.
    #[must_use]
    pub fn with_version_downgrade(mut self, enabled: bool) -> Self {
        self.config.downgrade = enabled;
        self
    }

    /// Joins consecutive deltas of one stream (`TEXT_MESSAGE_CONTENT`, `TOOL_CALL_ARGS`,
    /// `REASONING_MESSAGE_CONTENT` of the same id) into one event of at most `max_bytes` of
    /// text: the deltas ready to send at once, and those arriving within `window` of the first
    /// one held (`Duration::ZERO`: no wait, only what is ready). Fewer frames and bytes; the
    /// reducer builds the same conversation. See
    /// [`server::transform`](crate::server::transform).
    #[must_use]
    pub fn with_coalescing(mut self, max_bytes: usize, window: Duration) -> Self {
        self.config.coalesce = Some((max_bytes, window));
        self
    }

    /// Runs `hook` over each outgoing event before it is encoded: keep, replace or drop it
    /// (for redaction). The stream stays valid whatever it answers; see
    /// [`Filter`] for how.
    #[must_use]
    pub fn with_filter(mut self, hook: impl Fn(&Event) -> Verdict + Send + Sync + 'static) -> Self {
        self.filter = Some(Arc::new(hook));
        self
    }

    /// Stamps every event's `timestamp` with the time it is written to the response, in
    /// milliseconds since the Unix epoch (replacing a timestamp the agent set), so a client can
    /// measure latency from the stream. Off by default.
    #[must_use]
    pub fn with_timestamps(mut self, enabled: bool) -> Self {
        self.config.timestamps = enabled;
        self
    }

    /// Opens a [`trace`](crate::trace) span per run (on by default; the span costs nothing
    /// when no subscriber wants it). With the `otel` feature the span's parent is read from
    /// the request's W3C `traceparent` header.
    #[must_use]
    pub fn with_tracing(mut self, enabled: bool) -> Self {
        self.config.tracing = enabled;
        self
    }

    /// The endpoint as an axum method router: `POST` runs the handler, other methods get a JSON
    /// `405`.
    pub fn into_method_router<S: Clone + Send + Sync + 'static>(self) -> MethodRouter<S> {
        let endpoint = self;
        let allow = if endpoint.resumable.is_some() {
            "GET, POST"
        } else {
            "POST"
        };
        let router = if endpoint.resumable.is_some() {
            let reconnecting = endpoint.clone();
            on(MethodFilter::GET, move |req: Request| {
                let endpoint = reconnecting.clone();
                async move {
                    match &endpoint.resumable {
                        Some(resumable) => {
                            resume::reconnect(resumable, req, endpoint.config.keep_alive).await
                        }
                        None => StatusCode::METHOD_NOT_ALLOWED.into_response(),
                    }
                }
            })
        } else {
            MethodRouter::new()
        };
        router.post(move |req: Request| {
            let endpoint = endpoint.clone();
            async move { endpoint.serve(req).await }
        })
        .fallback(move |method: Method| async move {
            let mut response = InputRejection::new(
                RejectionKind::MethodNotAllowed,
                format!("{method} is not allowed; an AG-UI endpoint takes POST with a RunAgentInput body"),
            )
            .into_response();
            response.headers_mut().insert(header::ALLOW, HeaderValue::from_static(allow));
            response
        })
    }

    /// A router serving the endpoint at `/`.
    pub fn into_router<S: Clone + Send + Sync + 'static>(self) -> Router<S> {
        Router::new().route("/", self.into_method_router())
    }

    async fn serve(&self, req: Request) -> Response {
        let encoding = match negotiate(accept_header(req.headers()).as_deref()) {
            Ok(encoding) => encoding,
            Err(rejection) => return rejection.into_response(),
        };
        let parent = self
            .config
            .tracing
            .then(|| crate::trace::RemoteParent::from_headers(req.headers()));
        let input = match read_input(req, self.config.body_limit, self.config.body_timeout).await {
            Ok(input) => input,
            Err(rejection) => return rejection.into_response(),
        };
        let trace = match parent {
            Some(parent) => parent.server_trace(&input),
            None => crate::trace::RunTrace::disabled(),
        };
        let run_id = input.run_id.clone();
        let live = match &self.resumable {
            None => None,
            Some(resumable) => {
                if let Some(refusal) = resume::refuse_run_id(run_id.as_str()) {
                    return refusal;
                }
                match resumable.log.open(run_id.as_str()).await {
                    Ok(writer) => Some(resume::LiveLog::new(writer, run_id.as_str(), resumable)),
                    Err(error) => {
                        tracing::warn!(%run_id, %error, "the run cannot be logged");
                        return resume::log_error_response(&error);
                    }
                }
            }
        };
        let downgrade = (self.config.downgrade
            && downgrade::needs_downgrade(input.protocol_version.as_deref()))
        .then(|| {
            tracing::debug!(%run_id, protocol_version = ?input.protocol_version, "pre-1.0 client: the stream is downgraded");
            Downgrade::new()
        });
        let events = match self.handler.run(input) {
            Ok(events) => events,
            Err(error) => {
                tracing::warn!(%run_id, %error, "run could not start");
                return error.into_response();
            }
        };
        let mut body = EventBody::new(
            events,
            encoding,
            self.config.keep_alive,
            self.config.event_ids,
            downgrade,
        );
        body.filter = self.filter.clone().map(Filter::from_arc);
        body.coalesce = self
            .config
            .coalesce
            .map(|(bytes, window)| (Coalescer::new(bytes), window, None));
        body.live = live;
        body.timestamps = self.config.timestamps;
        body.trace = trace;
        let mut response = Response::new(Body::from_stream(body));
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(encoding.content_type()),
        );
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
        response
    }
}

/// Mounting endpoints on a router.
pub trait RouterExt<S> {
    /// Serves `endpoint` at `path` (`POST`), beside the router's other routes.
    #[must_use]
    fn agent<H: RunHandler>(self, path: &str, endpoint: AgentEndpoint<H>) -> Self;
}

impl<S: Clone + Send + Sync + 'static> RouterExt<S> for Router<S> {
    fn agent<H: RunHandler>(self, path: &str, endpoint: AgentEndpoint<H>) -> Self {
        self.route(path, endpoint.into_method_router())
    }
}

/// Most bytes gathered into one write from events that are already waiting.
const MAX_BATCH: usize = 64 * 1024;

/// The value of the request's `Accept` header(s): several header lines are one list (RFC 9110
/// §5.3); a value that is not visible ASCII is left out. `None` when there is none.
fn accept_header(headers: &HeaderMap) -> Option<String> {
    let mut values = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok());
    let first = values.next()?;
    let mut joined = first.to_owned();
    for value in values {
        joined.push_str(", ");
        joined.push_str(value);
    }
    Some(joined)
}

/// A coalescer, its window, and the timer of the delta it holds.
type Coalescing = (Coalescer, Duration, Option<Pin<Box<tokio::time::Sleep>>>);

/// The response body: the events encoded as they come (SSE frames or protobuf frames), and
/// for SSE keep-alive comments when quiet.
struct EventBody {
    events: EventStream,
    encoding: Encoding,
    keep_alive: Option<(Duration, Pin<Box<tokio::time::Sleep>>)>,
    event_ids: bool,
    next_id: u64,
    done: bool,
    /// The rewrite for a pre-1.0 client, and its reused frame buffer.
    downgrade: Option<(Downgrade, Vec<LegacyFrame>)>,
    filter: Option<Filter>,
    /// The coalescer, its window, and the timer of the delta it holds.
    coalesce: Option<Coalescing>,
    /// Reused buffer for what the coalescer lets through.
    staged: Vec<Event>,
    /// Resumable: the run's log, which numbers the frames.
    live: Option<resume::LiveLog>,
    /// Whether each event's timestamp is set as it is written.
    timestamps: bool,
    /// The run's span and counts.
    trace: crate::trace::RunTrace,
}

impl EventBody {
    fn new(
        events: EventStream,
        encoding: Encoding,
        keep_alive: Option<Duration>,
        event_ids: bool,
        downgrade: Option<Downgrade>,
    ) -> Self {
        // The binary stream has no frame that a reader would skip: no keep-alive, no ids.
        let sse = encoding == Encoding::Sse;
        Self {
            events,
            encoding,
            keep_alive: keep_alive
                .filter(|_| sse)
                .map(|every| (every, Box::pin(tokio::time::sleep(every)))),
            event_ids: event_ids && sse,
            next_id: 1,
            done: false,
            downgrade: downgrade.map(|d| (d, Vec::new())),
            filter: None,
            coalesce: None,
            staged: Vec::new(),
            live: None,
            timestamps: false,
            trace: crate::trace::RunTrace::disabled(),
        }
    }

    /// One event from the agent: filtered, coalesced, then written.
    fn write(&mut self, event: Event, out: &mut Vec<u8>) {
        let event = match &mut self.filter {
            None => event,
            Some(filter) => match filter.apply(event) {
                Some(event) => event,
                None => return,
            },
        };
        let Some((coalescer, _, _)) = &mut self.coalesce else {
            self.emit(event, out);
            return;
        };
        let mut staged = std::mem::take(&mut self.staged);
        coalescer.push(event, &mut staged);
        if !coalescer.is_holding()
            && let Some((_, _, timer)) = &mut self.coalesce
        {
            *timer = None;
        }
        for event in staged.drain(..) {
            self.emit(event, out);
        }
        self.staged = staged;
    }

    /// Writes the delta the coalescer holds, if any.
    fn flush_coalesced(&mut self, out: &mut Vec<u8>) {
        let Some((coalescer, _, timer)) = &mut self.coalesce else {
            return;
        };
        *timer = None;
        let mut staged = std::mem::take(&mut self.staged);
        coalescer.flush(&mut staged);
        for event in staged.drain(..) {
            self.emit(event, out);
        }
        self.staged = staged;
    }

    /// Whether the coalescer holds a delta that may wait longer: arms its timer on first call
    /// and answers `false` (flush now) once it fired or when the window is zero.
    fn hold_longer(&mut self, cx: &mut Context<'_>) -> bool {
        let Some((coalescer, window, timer)) = &mut self.coalesce else {
            return false;
        };
        if !coalescer.is_holding() || window.is_zero() {
            return false;
        }
        let timer = timer.get_or_insert_with(|| Box::pin(tokio::time::sleep(*window)));
        timer.as_mut().poll(cx).is_pending()
    }

    /// One event past the filter and the coalescer: downgraded when needed, then encoded.
    fn emit(&mut self, event: Event, out: &mut Vec<u8>) {
        let Some((downgrade, frames)) = &mut self.downgrade else {
            match &mut self.live {
                Some(live) => live.write(&event, self.encoding == Encoding::Sse, out),
                None => self.write_event(&event, out),
            }
            return;
        };
        // A resumable run logs the 1.0 event (a reconnecting reader gets the run as it is);
        // the pre-1.0 client on this connection gets the rewritten frames.
        if let Some(live) = &mut self.live {
            live.log(&event);
        }
        downgrade.push(event, frames);
        self.write_frames(out);
    }

    /// Writes the frames the downgrade produced, emptying its buffer.
    fn write_frames(&mut self, out: &mut Vec<u8>) {
        let Some((_, frames)) = &mut self.downgrade else {
            return;
        };
        let mut frames = std::mem::take(frames);
        for frame in frames.drain(..) {
            match frame {
                LegacyFrame::Event(event) => self.write_event(&event, out),
                // No protobuf mapping exists for the pre-1.0 THINKING_* events.
                LegacyFrame::Thinking(_) if self.encoding != Encoding::Sse => {}
                thinking => {
                    self.write_id(out);
                    out.extend_from_slice(b"data: ");
                    thinking.write_json(out);
                    out.extend_from_slice(b"\n\n");
                }
            }
        }
        if let Some((_, buffer)) = &mut self.downgrade {
            *buffer = frames;
        }
    }

    fn write_id(&mut self, out: &mut Vec<u8>) {
        if self.event_ids {
            out.extend_from_slice(b"id: ");
            resume::push_decimal(self.next_id, out);
            out.push(b'\n');
            self.next_id += 1;
        }
    }

    fn write_event(&mut self, event: &Event, out: &mut Vec<u8>) {
        match self.encoding {
            Encoding::Sse => {
                self.write_id(out);
                sse::encode_into(event, out);
            }
            #[cfg(feature = "proto")]
            Encoding::Proto => crate::encoding::proto::encode_into(event, out),
        }
    }
}

impl Stream for EventBody {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        // Resumable SSE frames go to the log as written: their buffer comes from the log.
        let shared = this.downgrade.is_none() && this.encoding == Encoding::Sse;
        let mut out = match &mut this.live {
            Some(live) if shared => live.buffer(),
            _ => Vec::new(),
        };
        loop {
            match this.events.as_mut().poll_next(cx) {
                Poll::Ready(Some(mut event)) => {
                    if this.timestamps {
                        *event.timestamp_mut() = Some(crate::trace::now_millis());
                    }
                    this.trace.on_event(&event, 0);
                    this.write(event, &mut out);
                    if out.len() >= MAX_BATCH {
                        break;
                    }
                }
                Poll::Ready(None) => {
                    this.done = true;
                    this.flush_coalesced(&mut out);
                    if let Some((downgrade, frames)) = &mut this.downgrade {
                        downgrade.finish(frames);
                        this.write_frames(&mut out);
                    }
                    this.trace.set_outcome_from_end();
                    break;
                }
                Poll::Pending => {
                    if !this.hold_longer(cx) {
                        this.flush_coalesced(&mut out);
                    }
                    break;
                }
            }
        }
        if !out.is_empty() {
            this.trace.add_bytes(out.len());
            let out = match &mut this.live {
                Some(live) if shared => live.freeze(out),
                _ => Bytes::from(out),
            };
            if let Some(live) = &mut this.live {
                // The log has these events before a client can hold their ids.
                live.flush(&out);
                if this.done {
                    live.finish();
                }
            }
            if let Some((every, sleep)) = &mut this.keep_alive {
                sleep.as_mut().reset(tokio::time::Instant::now() + *every);
            }
            return Poll::Ready(Some(Ok(out)));
        }
        if this.done {
            if let Some(live) = &mut this.live {
                live.finish();
            }
            return Poll::Ready(None);
        }
        if let Some((every, sleep)) = &mut this.keep_alive
            && sleep.as_mut().poll(cx).is_ready()
        {
            sleep.as_mut().reset(tokio::time::Instant::now() + *every);
            return Poll::Ready(Some(Ok(Bytes::from_static(b": keep-alive\n\n"))));
        }
        Poll::Pending
    }
}

impl Drop for EventBody {
    fn drop(&mut self) {
        // A resumable run whose client left goes on detached; otherwise dropping the events
        // cancels the run.
        if !self.done
            && let Some(live) = self.live.take()
        {
            let events = std::mem::replace(&mut self.events, Box::pin(futures::stream::empty()));
            // What the coalescer holds goes first, and the filter goes on applying: a reader
            // of the log sees what this client would have seen.
            let mut held = Vec::new();
            if let Some((coalescer, _, _)) = &mut self.coalesce {
                coalescer.flush(&mut held);
            }
            let events: EventStream = match self.filter.take() {
                None => Box::pin(futures::stream::iter(held).chain(events)),
                Some(mut filter) => Box::pin(futures::stream::iter(held).chain(
                    events.filter_map(move |event| std::future::ready(filter.apply(event))),
                )),
            };
            live.detach(events);
        }
    }
}

/// How [`serve`] treats connections: the time allowed to send a request head, the largest
/// head, how many connections are served at once, and how long a graceful shutdown may take.
///
/// ```
/// use std::time::Duration;
/// use ag_ui::axum::{ServeConfig, DEFAULT_HEADER_TIMEOUT};
///
/// let config = ServeConfig::default()
///     .with_header_timeout(Duration::from_secs(5))
///     .with_max_connections(256);
/// assert_eq!(config.header_timeout(), Duration::from_secs(5));
/// assert_eq!(config.max_connections(), 256);
/// assert_eq!(ServeConfig::default().header_timeout(), DEFAULT_HEADER_TIMEOUT);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServeConfig {
    header_timeout: Duration,
    max_header_bytes: usize,
    max_connections: usize,
    shutdown_timeout: Duration,
}

impl Default for ServeConfig {
    fn default() -> Self {
        Self {
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            max_header_bytes: DEFAULT_MAX_HEADER_BYTES,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
        }
    }
}

impl ServeConfig {
    /// Sets the time a connection has to send a whole request head once the server waits for
    /// one (also between requests on a kept-alive connection); a connection that has not
    /// done so is closed (default [`DEFAULT_HEADER_TIMEOUT`]).
    #[must_use]
    pub fn with_header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// Sets the largest request head, in bytes (at least 8192; default
    /// [`DEFAULT_MAX_HEADER_BYTES`]); a larger one is answered `431`.
    #[must_use]
    pub fn with_max_header_bytes(mut self, bytes: usize) -> Self {
        self.max_header_bytes = bytes.max(8192);
        self
    }

    /// Sets the most connections served at once (at least 1; default
    /// [`DEFAULT_MAX_CONNECTIONS`]); further ones wait in the listener's backlog.
    #[must_use]
    pub fn with_max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// Sets how long a graceful shutdown waits for open connections to finish before closing
    /// them (default [`DEFAULT_SHUTDOWN_TIMEOUT`]).
    #[must_use]
    pub fn with_shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// The time allowed to send a request head.
    pub fn header_timeout(&self) -> Duration {
        self.header_timeout
    }

    /// The largest request head, in bytes.
    pub fn max_header_bytes(&self) -> usize {
        self.max_header_bytes
    }

    /// The most connections served at once.
    pub fn max_connections(&self) -> usize {
        self.max_connections
    }

    /// The bound on a graceful shutdown.
    pub fn shutdown_timeout(&self) -> Duration {
        self.shutdown_timeout
    }
}

/// Serves `router` on `listener` over HTTP/1.1 until `shutdown` resolves, with the limits of
/// `config`; use it instead of `axum::serve`, which has no header timeout.
///
/// * A connection must send each request head within the header timeout, or it is closed:
///   clients trickling their headers (slowloris) do not hold connections for ever.
/// * At most `max_connections` connections are served at once; more wait in the listener's
///   backlog until one closes.
/// * Once `shutdown` resolves, no connection is accepted; open ones finish their current
///   request (a streaming run included) and close, and whatever is still open when the
///   shutdown timeout has passed is closed, so the function returns within that bound.
///
/// Request bodies are an endpoint's to time out: [`AgentEndpoint`] answers `408` when a body
/// is not read within its body timeout ([`AgentEndpoint::with_body_timeout`]).
///
/// # Errors
///
/// Never once serving: a failed `accept` (for instance, too many open files) is logged and
/// retried after a short pause, and a failed connection only ends that connection. The
/// `Result` is kept for failures of the listener itself.
///
/// ```no_run
/// use ag_ui::axum::{AgentEndpoint, RouterExt, ServeConfig, serve};
/// # use ag_ui::{Event, RunAgentInput};
/// # fn echo(input: RunAgentInput) -> impl futures::Stream<Item = Event> + Send + 'static {
/// #     futures::stream::iter([Event::run_finished(input.thread_id, input.run_id)])
/// # }
///
/// # #[tokio::main] async fn main() -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
/// let app = axum::Router::new().agent("/", AgentEndpoint::new(echo));
/// // In a binary, `tokio::signal::ctrl_c()` is the usual trigger.
/// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
/// # drop(stop);
/// serve(listener, app, ServeConfig::default(), async {
///     let _ = stopped.await;
/// })
/// .await?;
/// # Ok(()) }
/// ```
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    config: ServeConfig,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::service::TowerToHyperService;

    let permits = Arc::new(tokio::sync::Semaphore::new(config.max_connections));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&permits).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        // Reap the connections that ended.
        while connections.try_join_next().is_some() {}
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) => {
                // Out of file descriptors and the like: wait a little rather than spin.
                tracing::warn!(%error, "accepting a connection failed");
                drop(permit);
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_millis(100)) => continue,
                    () = &mut shutdown => break,
                }
            }
        };
        let service = TowerToHyperService::new(router.clone());
        let mut stop = stop_rx.clone();
        connections.spawn(async move {
            let _permit = permit;
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(config.header_timeout)
                // The exact cap on the head; the buffer cap alone let a head through up to
                // the read buffer's spare capacity (about 114 KB for 64 KiB).
                .max_header_size(config.max_header_bytes)
                .max_buf_size(config.max_header_bytes);
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            let mut connection = std::pin::pin!(connection);
            let stopping = async move {
                let _ = stop.wait_for(|stop| *stop).await;
            };
            let result = tokio::select! {
                result = connection.as_mut() => result,
                () = stopping => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = result {
                tracing::debug!(%error, "connection closed with an error");
            }
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    let drained = tokio::time::timeout(config.shutdown_timeout, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        let open = connections.len();
        connections.abort_all();
        while connections.join_next().await.is_some() {}
        tracing::warn!(
            open,
            "connections still open when the shutdown timeout passed were closed"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_follows_specificity_and_quality() {
        assert_eq!(negotiate(Some("")).unwrap(), Encoding::Sse);
        assert_eq!(negotiate(Some("*/*")).unwrap(), Encoding::Sse);
        assert_eq!(negotiate(Some("text/*")).unwrap(), Encoding::Sse);
        assert_eq!(
            negotiate(Some("TEXT/EVENT-STREAM; charset=utf-8")).unwrap(),
            Encoding::Sse
        );
        // The exact range wins over the wildcard, whatever their order.
        // (With the `proto` feature, that `*/*` still admits protobuf.)
        assert_eq!(
            negotiate(Some("*/*, text/event-stream;q=0")).is_ok(),
            cfg!(feature = "proto")
        );
        assert!(negotiate(Some("text/*, text/event-stream;q=0")).is_err());
        assert_eq!(
            negotiate(Some("text/event-stream;q=0.2, */*;q=0")).unwrap(),
            Encoding::Sse
        );
        assert!(negotiate(Some("application/json, text/html")).is_err());
        // Invalid or out-of-range qualities exclude their range.
        assert!(negotiate(Some("text/event-stream;q=x")).is_err());
        assert!(negotiate(Some("text/event-stream;q=2")).is_err());
        assert!(negotiate(Some("text/event-stream;q=-0.5")).is_err());
        assert!(negotiate(Some("event-stream, ;q=1, /")).is_err());
        // Among equally specific ranges, the first applies.
        assert!(negotiate(Some("text/*;q=0, text/*;q=1")).is_err());
        let err = negotiate(Some("application/json")).unwrap_err();
        assert_eq!(err.kind(), RejectionKind::NotAcceptable);
        assert!(err.message().contains("text/event-stream"), "{err}");
        assert_eq!(
            negotiate(Some(r#"text/plain;x="a,b", text/event-stream"#)).unwrap(),
            Encoding::Sse
        );
    }

    #[cfg(not(feature = "proto"))]
    #[test]
    fn without_the_proto_feature_a_request_for_protobuf_only_is_refused() {
        let err = negotiate(Some("application/vnd.ag-ui.event+proto")).unwrap_err();
        assert_eq!(err.kind(), RejectionKind::NotAcceptable);
        assert!(err.message().contains("protobuf"), "{err}");
        assert!(err.message().contains("text/event-stream"), "{err}");
        assert_eq!(
            negotiate(Some("application/vnd.ag-ui.event+proto, */*;q=0.1")).unwrap(),
            Encoding::Sse
        );
    }

    #[cfg(feature = "proto")]
    #[test]
    fn protobuf_is_chosen_when_asked_for_above_sse() {
        const P: &str = "application/vnd.ag-ui.event+proto";
        let table: &[(&str, Option<Encoding>)] = &[
            (P, Some(Encoding::Proto)),
            ("APPLICATION/VND.AG-UI.EVENT+PROTO", Some(Encoding::Proto)),
            ("application/*", Some(Encoding::Proto)),
            ("*/*", Some(Encoding::Sse)),
            ("", Some(Encoding::Sse)),
            // A tie favours SSE, whatever the order.
            (&format!("{P}, text/event-stream"), Some(Encoding::Sse)),
            (&format!("text/event-stream, {P}"), Some(Encoding::Sse)),
            (
                &format!("{P};q=0.9, text/event-stream;q=0.9"),
                Some(Encoding::Sse),
            ),
            // The higher quality wins.
            (
                &format!("text/event-stream;q=0.5, {P}"),
                Some(Encoding::Proto),
            ),
            (
                &format!("text/event-stream, {P};q=0.5"),
                Some(Encoding::Sse),
            ),
            (&format!("{P}, */*;q=0.1"), Some(Encoding::Proto)),
            // The exact range applies, not the wildcard that also matches.
            (&format!("*/*, {P};q=0"), Some(Encoding::Sse)),
            (&format!("{P};q=0, application/*"), None),
            ("*/*, text/event-stream;q=0", Some(Encoding::Proto)),
            (&format!("{P}, text/*;q=0.3"), Some(Encoding::Proto)),
            ("application/*;q=0.2, text/*;q=0.1", Some(Encoding::Proto)),
            (
                &format!("{P}; charset=utf-8; q=0.8, text/event-stream;q=0.7"),
                Some(Encoding::Proto),
            ),
            // q=0 excludes.
            (&format!("{P};q=0"), None),
            (&format!("{P};q=0, text/event-stream;q=0"), None),
            ("application/json", None),
        ];
        for (accept, expected) in table {
            let got = negotiate(Some(accept));
            match expected {
                Some(encoding) => assert_eq!(got.as_ref().ok(), Some(encoding), "{accept}"),
                None => {
                    let err = got.unwrap_err();
                    assert_eq!(err.kind(), RejectionKind::NotAcceptable, "{accept}");
                    assert!(err.message().contains(P), "{err}");
                    assert!(err.message().contains("text/event-stream"), "{err}");
                }
            }
        }
        assert_eq!(Encoding::Proto.content_type(), P);
    }

    #[test]
    fn several_accept_lines_are_one_list() {
        let mut h = HeaderMap::new();
        assert_eq!(accept_header(&h), None);
        h.append(header::ACCEPT, HeaderValue::from_static("application/json"));
        h.append(
            header::ACCEPT,
            HeaderValue::from_static("text/event-stream;q=0.5"),
        );
        let joined = accept_header(&h).unwrap();
        assert_eq!(joined, "application/json, text/event-stream;q=0.5");
        assert_eq!(negotiate(Some(&joined)).unwrap(), Encoding::Sse);
    }

    #[test]
    fn content_types() {
        let mut h = HeaderMap::new();
        assert_eq!(
            check_content_type(&h).unwrap_err().kind(),
            RejectionKind::UnsupportedMediaType
        );
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        );
        assert!(check_content_type(&h).is_ok());
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/vnd.api+json"),
        );
        assert!(check_content_type(&h).is_ok());
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        assert_eq!(
            check_content_type(&h).unwrap_err().kind(),
            RejectionKind::UnsupportedMediaType
        );
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static("+json"));
        assert!(check_content_type(&h).is_err());
    }

    #[test]
    fn input_errors_name_the_field() {
        let err =
            parse_input(br#"{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user"}]}"#)
                .unwrap_err();
        assert_eq!(err.kind(), RejectionKind::InvalidInput);
        assert_eq!(err.field(), Some("messages[0].content"), "{err}");
        let err = parse_input(br#"{"threadId":"t","messages":[]}"#).unwrap_err();
        assert_eq!(err.field(), Some("runId"));
        let err = parse_input(br#"{"threadId":1,"runId":"r","messages":[]}"#).unwrap_err();
        assert_eq!(err.field(), Some("threadId"));
        let err = parse_input(br#"{"threadId":"t","runId":"r","messages":[]"#).unwrap_err();
        assert_eq!(err.kind(), RejectionKind::MalformedJson);
        let err = parse_input(br#"{"threadId":"t","runId":"r","messages":[]} x"#).unwrap_err();
        assert_eq!(err.kind(), RejectionKind::MalformedJson);
        assert!(parse_input(br#"{"threadId":"t","runId":"r","messages":[]}"#).is_ok());
    }
}
