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
//!   field's path). The inputs of the runs the endpoint holds open count against one budget
//!   (what each holds once parsed; 256 MiB by default): a request that would pass it is
//!   answered `503` (`overloaded`, with `Retry-After`) at once ([`EndpointLimits`]). Other
//!   methods get `405`. Every rejection is a JSON body
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
//!   [`EndpointLimits::body_timeout`]) is a JSON `408`. A run's events are queued for the
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
//! An endpoint is a route like any other, so `axum::serve` serves it. [`serve`] is the
//! better host for agents, and the quick start's:
//!
//! - `axum::serve` has no timeout on reading a request head, so a client that trickles its
//!   headers holds a connection (and a file descriptor) for ever; [`serve`] has a header
//!   timeout, a cap on the request head, a connection limit and a bounded graceful shutdown
//!   ([`ServeConfig`]).
//! - A run holds its connection for its whole life, and `axum::serve` holds about 11 KB more
//!   per connection: 26.5 against 15.4 KB of resident memory per run at 10,000 paced runs
//!   (README, Performance), 12.2 KB more heap per waiting run (dhat, 1,000 runs). It reads
//!   the first bytes of a connection apart to tell HTTP/2 from HTTP/1.1, so hyper's first
//!   read of the request head lands in a read buffer that already holds them and grows it to
//!   16 KiB, kept for the connection's life (8 KiB under [`serve`]); it rebuilds the router's
//!   tables for each connection (`Router::with_state`, 2.7 KB with one route); and its
//!   connection task is 1 KB larger (measured with axum's `http2` feature on). None of it is
//!   the endpoint's: the rest of a waiting run's memory is the same under both.
//!
//! ## Replies that are not JSON
//!
//! Every rejection this module makes has a JSON body. A few replies are made by hyper itself,
//! while it parses the request head and before any router or handler runs, and have an empty
//! body; they cannot be changed from here:
//!
//! - `431 Request Header Fields Too Large`: the head is larger than
//!   [`ServeConfig::max_header_bytes`] (or has more than 100 header fields);
//! - `400 Bad Request`: the head is not valid HTTP/1.1 (a bad request line, method, URI,
//!   header name or value, or a bad `Content-Length`/`Transfer-Encoding`);
//! - a connection whose head is not received within the header timeout is closed without a
//!   reply.
//!
//! A client that sends such a request has not reached the AG-UI endpoint; it gets the status
//! and the connection is closed.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use ::axum::body::Body;
use ::axum::extract::Request;
use ::axum::http::{HeaderValue, Method, StatusCode, header};
use ::axum::response::{IntoResponse, Response};
use ::axum::routing::{MethodRouter, on};
use ::axum::{Router, routing::MethodFilter};
use futures::Stream;

use crate::server::downgrade::{Downgrade, DowngradeConfig};
use crate::server::transform::{Coalescer, Filter, FilterFn, Verdict};
use crate::{Event, RunAgentInput};

mod body;
use body::EventBody;
mod detached;
mod error;
pub use error::{StartError, StartErrorKind};
mod held;
mod input;
pub(crate) use input::error_response;
use input::read_input;
pub use input::{AgentInput, InputRejection, RejectionKind};
mod limits;
mod negotiate;
use negotiate::accept_header;
pub use negotiate::negotiate;
mod serve;
pub use limits::{DEFAULT_MAX_INPUT_BYTES, EndpointLimits};
use limits::{InputBudget, InputPermit};
pub use serve::{ServeConfig, serve};
mod registry;
pub use registry::{AgentInfo, AgentRegistry, RegistryError, RegistryErrorKind};
mod resume;
pub use resume::{
    DEFAULT_DETACH_TIMEOUT, DEFAULT_MAX_DETACHED, DEFAULT_MAX_DETACHED_BYTES, DEFAULT_RETRY,
    DETACHED_RUN_BYTES, DetachedStats, ResumeConfig,
};

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

#[derive(Clone, Copy, Debug)]
struct Config {
    limits: EndpointLimits,
    resume: ResumeConfig,
    keep_alive: Option<Duration>,
    event_ids: bool,
    downgrade: DowngradeConfig,
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
    /// The input budget, shared by the clones serving one router (made by
    /// [`into_method_router`](Self::into_method_router), from the limits then set).
    budget: Option<Arc<InputBudget>>,
}

impl<H> Clone for AgentEndpoint<H> {
    fn clone(&self) -> Self {
        Self {
            handler: Arc::clone(&self.handler),
            config: self.config,
            filter: self.filter.clone(),
            resumable: self.resumable.clone(),
            budget: self.budget.clone(),
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
                limits: EndpointLimits::default(),
                resume: ResumeConfig::default(),
                keep_alive: Some(DEFAULT_KEEP_ALIVE),
                event_ids: false,
                downgrade: DowngradeConfig::default(),
                coalesce: None,
                timestamps: false,
                tracing: true,
            },
            filter: None,
            resumable: None,
            budget: None,
        }
    }

    /// Makes the endpoint resumable on `log`: every event is logged and numbered
    /// (`id: <runId>:<seq>`), a run outlives its connection, and `GET` on the same path
    /// reconnects from a cursor. See [`ResumeConfig`] for the whole behaviour and
    /// its bounds ([`with_resume_config`](Self::with_resume_config), before or after);
    /// [`MemoryLog::default()`](crate::server::log::MemoryLog) is the usual log of a single
    /// instance.
    #[must_use]
    pub fn with_resumable(self, log: impl crate::server::log::EventLog) -> Self {
        self.with_resumable_log(Arc::new(log))
    }

    /// [`with_resumable`](Self::with_resumable) with a log shared as a trait object.
    #[must_use]
    pub fn with_resumable_log(mut self, log: Arc<dyn crate::server::log::EventLog>) -> Self {
        self.resumable = Some(resume::Resumable::new(log, self.config.resume));
        self
    }

    /// Sets how a resumable endpoint treats its runs: the detach time-out, the most runs
    /// detached at once, the `retry:` advised (see [`ResumeConfig`]). Applies whenever the
    /// endpoint is resumable, whether [`with_resumable`](Self::with_resumable) comes before or
    /// after.
    #[must_use]
    pub fn with_resume_config(mut self, config: ResumeConfig) -> Self {
        self.config.resume = config;
        self
    }

    /// How a resumable endpoint treats its runs.
    pub fn resume_config(&self) -> &ResumeConfig {
        &self.config.resume
    }

    /// What the endpoint's detached runs hold now besides their log (none when it is not
    /// resumable); clones of the endpoint, and the router it is mounted on, share them.
    pub fn detached_stats(&self) -> resume::DetachedStats {
        self.resumable
            .as_ref()
            .map_or_else(Default::default, |resumable| resumable.detached.stats())
    }

    /// Whether the endpoint is resumable (then its capabilities say `transport.resumable`).
    pub fn is_resumable(&self) -> bool {
        self.resumable.is_some()
    }

    /// Sets what requests may cost: the body size and time, the input bytes held by open
    /// runs (see [`EndpointLimits`]). [`with_body_limit`](Self::with_body_limit) sets one
    /// field of them.
    #[must_use]
    pub fn with_limits(mut self, limits: EndpointLimits) -> Self {
        self.config.limits = limits;
        self
    }

    /// The limits on what requests may cost.
    pub fn limits(&self) -> &EndpointLimits {
        &self.config.limits
    }

    /// Sets the largest accepted request body, in bytes ([`EndpointLimits::body_limit`]): the
    /// one limit most deployments set, so the endpoint has it as a shortcut.
    #[must_use]
    pub fn with_body_limit(mut self, bytes: usize) -> Self {
        self.config.limits.body_limit = bytes;
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

    /// How pre-1.0 clients are served: whether a client that declares no `protocolVersion`, or
    /// one below 1.0, gets the stream rewritten into what a pre-1.0 client reads (on by
    /// default; see [`server::downgrade`](crate::server::downgrade) for what changes and what
    /// is lost), and the oldest client the deployment serves, when it knows it (reasoning then
    /// stays `REASONING_*` for 0.0.52 and later). A 1.0 client's stream is never touched.
    ///
    /// ```
    /// use ag_ui::axum::AgentEndpoint;
    /// use ag_ui::server::downgrade::{ClientVersion, DowngradeConfig};
    /// # #[derive(Debug)] struct A;
    /// # impl ag_ui::server::Agent for A { type State = ();
    /// #   async fn run(&self, _: &mut ag_ui::server::RunContext<()>) -> ag_ui::server::Result<ag_ui::server::Outcome> { Ok(ag_ui::server::Outcome::success()) } }
    /// // Behind @copilotkit/runtime 1.75 (@ag-ui/client 0.0.59): its page shows the reasoning.
    /// let endpoint = AgentEndpoint::agent(A).with_downgrade(
    ///     DowngradeConfig::default().with_oldest_client(Some(ClientVersion::new(0, 0, 59))),
    /// );
    /// assert!(endpoint.downgrade().keeps_reasoning());
    /// ```
    #[must_use]
    pub fn with_downgrade(mut self, config: DowngradeConfig) -> Self {
        self.config.downgrade = config;
        self
    }

    /// The downgrade settings (see [`with_downgrade`](Self::with_downgrade)).
    pub fn downgrade(&self) -> DowngradeConfig {
        self.config.downgrade
    }

    /// Turns the downgrade on or off, keeping the rest of its settings (a shortcut for
    /// [`with_downgrade`](Self::with_downgrade) with
    /// [`DowngradeConfig::with_enabled`]).
    #[must_use]
    pub fn with_version_downgrade(mut self, enabled: bool) -> Self {
        self.config.downgrade.enabled = enabled;
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
        let mut endpoint = self;
        endpoint.budget = Some(InputBudget::new(endpoint.config.limits.max_input_bytes));
        if let Some(resumable) = &mut endpoint.resumable {
            resumable.config = endpoint.config.resume;
        }
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
        let mut permit = match &self.budget {
            Some(budget) => budget.permit(),
            None => InputPermit::unbounded(),
        };
        let input = match read_input(req, &self.config.limits, &mut permit).await {
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
                match detached::open(resumable, run_id.as_str()).await {
                    Ok(writer) => Some(resume::LiveLog::new(writer, run_id.as_str(), resumable)),
                    Err(error) => {
                        tracing::warn!(%run_id, %error, "the run cannot be logged");
                        return resume::log_error_response(&error);
                    }
                }
            }
        };
        let downgrade = self
            .config
            .downgrade
            .applies_to(input.protocol_version.as_deref())
            .then(|| {
                tracing::debug!(%run_id, protocol_version = ?input.protocol_version, "pre-1.0 client: the stream is downgraded");
                Downgrade::new().with_oldest_client(self.config.downgrade.oldest_client)
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
            .map(|(bytes, window)| Box::new((Coalescer::new(bytes), window, None)));
        body.live = live;
        body.timestamps = self.config.timestamps;
        body.trace = trace;
        body.permit = permit;
        let mut response = Response::new(Body::from_stream(body));
        // Sized for the three set here: hyper keeps the map for the connection's life (to reuse).
        let headers = response.headers_mut();
        *headers = axum::http::HeaderMap::with_capacity(3);
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(encoding.media_type()),
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

    /// Answers what no route takes with the JSON error body the endpoints send (axum's own
    /// answers have none): a path no route has is `404` (`not-found`), a method a route does
    /// not take `405` (`method-not-allowed`). Add it after the routes.
    ///
    /// ```
    /// use ag_ui::axum::{AgentEndpoint, RouterExt};
    /// use ag_ui::{Event, RunAgentInput};
    ///
    /// fn echo(input: RunAgentInput) -> impl futures::Stream<Item = Event> + Send + 'static {
    ///     futures::stream::iter([Event::run_started(input.thread_id, input.run_id)])
    /// }
    ///
    /// let app: axum::Router = axum::Router::new()
    ///     .agent("/agent", AgentEndpoint::new(echo))
    ///     .with_json_errors();
    /// # let _ = app;
    /// ```
    #[must_use]
    fn with_json_errors(self) -> Self;
}

impl<S: Clone + Send + Sync + 'static> RouterExt<S> for Router<S> {
    fn agent<H: RunHandler>(self, path: &str, endpoint: AgentEndpoint<H>) -> Self {
        self.route(path, endpoint.into_method_router())
    }

    fn with_json_errors(self) -> Self {
        self.fallback(|method: Method, uri: ::axum::http::Uri| async move {
            input::error_response(
                StatusCode::NOT_FOUND,
                "not-found",
                &format!("no route serves {method} {}", uri.path()),
                None,
            )
        })
        .method_not_allowed_fallback(
            |method: Method, uri: ::axum::http::Uri| async move {
                input::error_response(
                    StatusCode::METHOD_NOT_ALLOWED,
                    RejectionKind::MethodNotAllowed.as_str(),
                    &format!("{method} is not allowed on {}", uri.path()),
                    None,
                )
            },
        )
    }
}
