use std::sync::OnceLock;
use std::time::{Duration, Instant};

use reqwest::header::{
    ACCEPT, AUTHORIZATION, CONTENT_ENCODING, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue,
    LOCATION,
};
use reqwest::{StatusCode, Url};

use crate::RunAgentInput;
use crate::client::peer::PeerVersion;
use crate::client::resume::{HookSlot, ReconnectPolicy, Reconnection, Resuming};
use crate::client::transport::{Body, Piece, Timeout, Transport, TransportError};
use crate::encoding::Format;

/// How much of an error response's body is kept.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

use crate::redirects::MAX_REDIRECTS;

/// The `Accept` header of a run: SSE only.
const ACCEPT_SSE: &str = crate::encoding::SSE_MEDIA_TYPE;

/// The `Accept` header of a run that asks for protobuf, SSE still welcome.
#[cfg(feature = "proto")]
const ACCEPT_PROTO: &str = crate::encoding::ACCEPT_PROTO_FIRST;

use crate::timeouts::Timeouts;
#[cfg(doc)]
use crate::timeouts::{DEFAULT_CONNECT_TIMEOUT, DEFAULT_IDLE_TIMEOUT};

/// An AG-UI agent behind an HTTP endpoint. See the [`HttpAgent`] docs.
///
/// [`HttpAgent`]: the [`Transport`] for an AG-UI endpoint over HTTP.
///
/// Each run is a `POST` of the [`RunAgentInput`] as JSON with `Accept: text/event-stream`; the
/// response streams SSE, read incrementally (nothing is buffered beyond the event being read,
/// which is bounded by the pipeline's event size limit).
///
/// With the `proto` feature, [`with_proto`](HttpAgent::with_proto) asks for protobuf
/// (`Accept: application/vnd.ag-ui.event+proto, text/event-stream;q=0.5`). Whatever was asked,
/// the body is decoded by the response's `Content-Type` (see [`Body::format`]), and the events
/// go through the same pipeline stages either way.
///
/// What comes back is checked before a byte of it is read as events:
///
/// - a non-success status is a [`TransportError`] of kind [`Http`](crate::client::TransportErrorKind::Http) carrying the status and (the first 64 KiB
///   of) the body; its `Display` shows a short, sanitized excerpt;
/// - a success that is not an event stream (another content type, none, `204 No Content`, or
///   a `Content-Encoding` the client does not decode such as `gzip`) is a
///   [`TransportError`] of kind [`NotAgUi`](crate::client::TransportErrorKind::NotAgUi) naming what came back (stricter than the reference client, which
///   reads any response but the protobuf media type as SSE: a login page or a JSON error
///   answered with `200` then fails, named, instead of reading as an empty run);
/// - a redirect to another origin (scheme, host, port) is not followed
///   ([`TransportError`] of kind [`Redirect`](crate::client::TransportErrorKind::Redirect)) unless [`with_cross_origin_redirects`](
///   HttpAgent::with_cross_origin_redirects) allows it, and then only without the custom
///   headers and the bearer token. Redirects within the origin are followed (at most 10;
///   more, a redirect loop, is a [`TransportError`] of kind [`Redirect`](crate::client::TransportErrorKind::Redirect) at once), and none
///   at all after [`with_redirects(false)`](HttpAgent::with_redirects);
/// - a success whose event stream ends without a byte is a [`TransportError`] of kind [`NotAgUi`](crate::client::TransportErrorKind::NotAgUi) ([`is_empty_body`](crate::client::TransportError::is_empty_body)) at
///   once (not taken for a cut stream to reconnect to).
///
/// # Timeouts
///
/// Set together as [`Timeouts`] ([`with_timeouts`](HttpAgent::with_timeouts)), or one at a
/// time with the shortcuts:
///
/// - **connect** ([`Timeouts::connect`], default [`DEFAULT_CONNECT_TIMEOUT`]): establishing the
///   connection;
/// - **idle** ([`with_idle_timeout`](HttpAgent::with_idle_timeout), default
///   [`DEFAULT_IDLE_TIMEOUT`]): how long the agent may send nothing — from sending the request
///   to the response headers (connecting included), then between any two pieces of the body.
///   Any byte resets it, so an agent that sends SSE keep-alive comments while it thinks is
///   never idle. The waits before reconnecting a resumable stream count too (see
///   [`Resuming::with_idle_timeout`]);
/// - **total** ([`with_timeout`](HttpAgent::with_timeout), none by default): the whole run.
///
/// Each one that fires is a [`TransportError`] of kind [`Timeout`](crate::client::TransportErrorKind::Timeout) naming it.
///
/// # Resumable runs
///
/// Against a resumable endpoint (frames with `id: <runId>:<seq>`), a stream that ends before
/// its run does is reconnected by itself, from the last event received, with backoff and
/// jitter, and no event is passed on twice or lost (see [`Resuming`](crate::client::Resuming)):
/// [`with_reconnect`](HttpAgent::with_reconnect) sets the policy,
/// [`with_on_reconnect`](HttpAgent::with_on_reconnect) reports each attempt, and
/// [`attach`](HttpAgent::attach) joins a run in flight from its start or from a cursor.
///
/// ```no_run
/// use ag_ui::client::{Conversation, HttpAgent};
/// use std::time::Duration;
///
/// # async fn demo() -> Result<(), ag_ui::client::RunError> {
/// let agent = HttpAgent::new("http://127.0.0.1:8000/agent")
///     .with_bearer_token("secret")
///     .try_with_header("x-tenant", "acme")?
///     .with_idle_timeout(Duration::from_secs(30))
///     .with_timeout(Duration::from_secs(120));
/// let mut conversation = Conversation::new("thread-1");
/// conversation.add_user_message("What is the weather in Paris?");
/// let summary = conversation.run(&agent, &mut ()).await?;
/// // The messages the run added are in the conversation, after the question.
/// assert!(!summary.new_messages.is_empty());
/// let added = &conversation.messages()[conversation.messages().len() - summary.new_messages.len()..];
/// assert!(added.iter().map(|m| m.id()).eq(&summary.new_messages));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct HttpAgent {
    url: String,
    /// A client given with [`with_client`](Self::with_client).
    client: Option<reqwest::Client>,
    /// The client built from this agent's settings, on first use.
    built: OnceLock<reqwest::Client>,
    headers: HeaderMap,
    /// The first header that was not valid in HTTP (reported when a run is opened).
    invalid_header: Option<String>,
    bearer: Option<String>,
    timeouts: Timeouts,
    cross_origin_redirects: bool,
    /// Whether any redirect is followed (`with_redirects(false)`: none is).
    follow_redirects: bool,
    /// Ask for protobuf first.
    #[cfg(feature = "proto")]
    proto: bool,
    reconnect: ReconnectPolicy,
    on_reconnect: HookSlot,
    /// The agent's version, when it is pinned to an older one.
    peer: Option<PeerVersion>,
}

impl HttpAgent {
    /// An agent at `url`, with the default timeouts, following redirects within its origin
    /// only. The URL is checked when a run is opened (an invalid one is a
    /// [`TransportError`] of kind [`InvalidRequest`](crate::client::TransportErrorKind::InvalidRequest)).
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            client: None,
            built: OnceLock::new(),
            headers: HeaderMap::new(),
            invalid_header: None,
            bearer: None,
            timeouts: Timeouts::default(),
            cross_origin_redirects: false,
            follow_redirects: true,
            #[cfg(feature = "proto")]
            proto: false,
            reconnect: ReconnectPolicy::default(),
            on_reconnect: HookSlot::default(),
            peer: None,
        }
    }

    /// Pins the agent at this endpoint to an older version of AG-UI (`None`, the default: it
    /// speaks this crate's): a [`Conversation`](crate::client::Conversation) shapes each run's
    /// input for it and reads its stream as the [`PeerVersion`](crate::client::PeerVersion) shims say, and
    /// a request to a peer before 1.0 carries no `protocolVersion`.
    ///
    /// ```
    /// use ag_ui::client::{HttpAgent, PeerVersion, Transport};
    ///
    /// let peer: PeerVersion = "0.0.57".parse()?;
    /// let agent = HttpAgent::new("http://127.0.0.1:8000/").with_peer_version(Some(peer));
    /// assert_eq!(agent.peer_version(), Some(peer));
    /// # Ok::<(), ag_ui::client::PeerVersionError>(())
    /// ```
    #[must_use]
    pub fn with_peer_version(mut self, peer: Option<PeerVersion>) -> Self {
        self.peer = peer;
        self
    }

    /// Sets how a resumable stream that ends early is reconnected (default
    /// [`ReconnectPolicy::default`]; [`ReconnectPolicy::never`] turns it off).
    #[must_use]
    pub fn with_reconnect(mut self, policy: ReconnectPolicy) -> Self {
        self.reconnect = policy;
        self
    }

    /// Calls `hook` before each reconnection attempt of a resumable stream.
    #[must_use]
    pub fn with_on_reconnect(
        mut self,
        hook: impl Fn(&Reconnection) + Send + Sync + 'static,
    ) -> Self {
        self.on_reconnect = HookSlot(Some(std::sync::Arc::new(hook)));
        self
    }

    /// A transport that joins run `run_id` of this endpoint in flight, after event `after`
    /// (0: from its start, as a page reload does), instead of starting a run: its
    /// [`open`](Transport::open) ignores the input. The stream reconnects like any other.
    pub fn attach(&self, run_id: impl Into<String>, after: u64) -> Attach {
        Attach {
            agent: self.clone(),
            run_id: run_id.into(),
            after,
        }
    }

    fn bearer(&self) -> Result<Option<HeaderValue>, TransportError> {
        match &self.bearer {
            None => Ok(None),
            Some(token) => {
                let mut value =
                    HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
                        TransportError::invalid_request(
                            "the bearer token is not a valid header value",
                        )
                    })?;
                value.set_sensitive(true);
                Ok(Some(value))
            }
        }
    }

    fn checked_url(&self) -> Result<Url, TransportError> {
        if let Some(error) = &self.invalid_header {
            return Err(TransportError::invalid_request(error.clone()));
        }
        let url = Url::parse(&self.url)
            .map_err(|e| TransportError::invalid_request(format!("URL {:?}: {e}", self.url)))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(TransportError::invalid_request(format!(
                "URL {:?}: the scheme must be http or https",
                self.url
            )));
        }
        Ok(url)
    }

    /// Uses this client (connection pool, proxies, TLS roots). Its own connect timeout and
    /// redirect policy then apply instead of [`Timeouts::connect`]
    /// and the same-origin rule: build it with `redirect(reqwest::redirect::Policy::none())`
    /// so that no redirect carries your headers elsewhere. The idle and total timeouts, the
    /// response checks and the cross-origin rule for redirects it does not follow still apply.
    #[must_use]
    pub fn with_client(mut self, client: reqwest::Client) -> Self {
        self.client = Some(client);
        self
    }

    /// Sends this header with every run (replacing an earlier value of the same name).
    ///
    /// A name or value that is not valid in HTTP is not dropped silently: every run of this
    /// agent then fails with [`TransportError`] of kind [`InvalidRequest`](crate::client::TransportErrorKind::InvalidRequest) naming the header, as `reqwest`
    /// reports an invalid header when the request is sent. Use
    /// [`try_with_header`](Self::try_with_header) to learn it at once.
    #[must_use]
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        match header(name, value) {
            Ok((name, value)) => {
                self.headers.insert(name, value);
            }
            Err(error) => {
                self.invalid_header.get_or_insert(error);
            }
        }
        self
    }

    /// Sends this header with every run (replacing an earlier value of the same name).
    ///
    /// ```
    /// use ag_ui::client::{HttpAgent, TransportErrorKind};
    ///
    /// let agent = HttpAgent::new("http://127.0.0.1:8000/").try_with_header("x-api-key", "k1");
    /// assert!(agent.is_ok());
    /// let err = HttpAgent::new("http://127.0.0.1:8000/")
    ///     .try_with_header("x api key", "k1")
    ///     .unwrap_err();
    /// assert_eq!(err.kind(), TransportErrorKind::InvalidRequest);
    /// assert_eq!(err.to_string(), "invalid request: header \"x api key\": invalid HTTP header name");
    /// ```
    ///
    /// # Errors
    /// [`TransportError`] of kind [`InvalidRequest`](crate::client::TransportErrorKind::InvalidRequest) naming the header when its name or value is not valid in
    /// HTTP (the value is not shown: it may be a secret).
    pub fn try_with_header(mut self, name: &str, value: &str) -> Result<Self, TransportError> {
        let (name, value) = header(name, value).map_err(TransportError::invalid_request)?;
        self.headers.insert(name, value);
        Ok(self)
    }

    /// Sends `Authorization: Bearer <token>` with every run (never across origins).
    #[must_use]
    pub fn with_bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(token.into());
        self
    }

    /// Sets every time-out at once (see [`Timeouts`]; the defaults otherwise). The shortcuts
    /// [`with_timeout`](Self::with_timeout) and [`with_idle_timeout`](Self::with_idle_timeout)
    /// set one field each, in any order.
    ///
    /// ```
    /// use std::time::Duration;
    /// use ag_ui::Timeouts;
    /// use ag_ui::client::HttpAgent;
    ///
    /// let timeouts = Timeouts::default()
    ///     .with_idle(Duration::from_secs(30))
    ///     .with_total(Duration::from_secs(120));
    /// let agent = HttpAgent::new("http://127.0.0.1:8000/agent").with_timeouts(timeouts);
    /// assert_eq!(agent.timeouts().connect, Duration::from_secs(10));
    /// let a = HttpAgent::new("http://127.0.0.1:8000/agent")
    ///     .with_timeout(Duration::from_secs(120))
    ///     .with_idle_timeout(Duration::from_secs(30));
    /// let b = HttpAgent::new("http://127.0.0.1:8000/agent")
    ///     .with_idle_timeout(Duration::from_secs(30))
    ///     .with_timeout(Duration::from_secs(120));
    /// assert_eq!(a.timeouts(), timeouts);
    /// assert_eq!(b.timeouts(), timeouts);
    /// ```
    #[must_use]
    pub fn with_timeouts(mut self, timeouts: Timeouts) -> Self {
        if timeouts.connect != self.timeouts.connect {
            // The agent's own client is built with the connect time-out.
            self.built = OnceLock::new();
        }
        self.timeouts = timeouts;
        self
    }

    /// The time-outs runs of this agent get.
    pub fn timeouts(&self) -> Timeouts {
        self.timeouts
    }

    /// Limits a whole run (connecting, sending, and streaming the response) to `timeout`
    /// (no limit by default): [`Timeouts::total`].
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.total = Some(timeout);
        self
    }

    /// Limits how long the agent may send nothing (default [`DEFAULT_IDLE_TIMEOUT`]):
    /// [`Timeouts::idle`].
    #[must_use]
    pub fn with_idle_timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.idle = timeout;
        self
    }

    /// Follows `307` and `308` redirects to another origin too (off by default), without the
    /// custom headers and the bearer token: only the run input goes there.
    #[must_use]
    pub fn with_cross_origin_redirects(mut self, allow: bool) -> Self {
        self.cross_origin_redirects = allow;
        self
    }

    /// Follows no redirect at all when `false` (default `true`: within the origin, and to
    /// another one as [`with_cross_origin_redirects`](Self::with_cross_origin_redirects)
    /// says): a redirect answer is then a [`TransportError`] of kind [`Redirect`](crate::client::TransportErrorKind::Redirect) naming its target, so
    /// every request of a run goes to the URL given and nowhere else (what a load generator
    /// needs).
    #[must_use]
    pub fn with_redirects(mut self, follow: bool) -> Self {
        self.follow_redirects = follow;
        self.built = OnceLock::new();
        self
    }

    /// Asks for protobuf events (`application/vnd.ag-ui.event+proto`) with SSE as a lower-rated
    /// fallback (off by default: SSE only). The response is read in the encoding its
    /// `Content-Type` names, so an agent that answers SSE works either way.
    #[cfg(feature = "proto")]
    #[cfg_attr(docsrs, doc(cfg(feature = "proto")))]
    #[must_use]
    pub fn with_proto(mut self, proto: bool) -> Self {
        self.proto = proto;
        self
    }

    /// The `Accept` header runs send.
    fn accept(&self) -> &'static str {
        #[cfg(feature = "proto")]
        if self.proto {
            return ACCEPT_PROTO;
        }
        ACCEPT_SSE
    }

    /// The endpoint.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The client runs go through.
    fn client(&self) -> Result<&reqwest::Client, TransportError> {
        if let Some(client) = &self.client {
            return Ok(client);
        }
        if let Some(client) = self.built.get() {
            return Ok(client);
        }
        let client = reqwest::Client::builder()
            .connect_timeout(self.timeouts.connect)
            .redirect(if self.follow_redirects {
                crate::redirects::same_origin()
            } else {
                reqwest::redirect::Policy::none()
            })
            .referer(false)
            .build()
            .map_err(|e| TransportError::connection("building the HTTP client", e))?;
        Ok(self.built.get_or_init(|| client))
    }

    /// The error of a request that got no response.
    fn send_error(&self, url: &Url, error: reqwest::Error) -> TransportError {
        if error.is_builder() {
            TransportError::invalid_request(chain(&error))
        } else if error.is_redirect() {
            TransportError::too_many_redirects(
                MAX_REDIRECTS,
                error.url().map_or_else(|| url.to_string(), Url::to_string),
            )
        } else if error.is_connect() && error.is_timeout() {
            TransportError::from(Timeout::Connect(self.timeouts.connect))
        } else if let (true, Some(total)) = (error.is_timeout(), self.timeouts.total) {
            TransportError::from(Timeout::Total(total))
        } else {
            TransportError::connection(format!("cannot reach {url}"), error)
        }
    }

    /// Reads (at most [`ERROR_BODY_LIMIT`] of) an error response's body.
    async fn error_body(&self, mut response: reqwest::Response) -> String {
        let mut body = Vec::new();
        while body.len() < ERROR_BODY_LIMIT {
            match tokio::time::timeout(self.timeouts.idle, response.chunk()).await {
                Ok(Ok(Some(bytes))) => body.extend_from_slice(&bytes),
                _ => break,
            }
        }
        body.truncate(ERROR_BODY_LIMIT);
        String::from_utf8_lossy(&body).into_owned()
    }
}

/// A header as HTTP types, or what is wrong with it (naming the header, not its value).
fn header(name: &str, value: &str) -> Result<(HeaderName, HeaderValue), String> {
    let name_ok =
        HeaderName::from_bytes(name.as_bytes()).map_err(|e| format!("header {name:?}: {e}"))?;
    let value_ok = HeaderValue::from_str(value).map_err(|e| format!("header {name:?}: {e}"))?;
    Ok((name_ok, value_ok))
}

/// The `Display` of an error and all its sources, joined with `: `.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

/// Refuses a success response that is not an AG-UI event stream; else the encoding of its
/// body.
fn check_event_stream(response: &reqwest::Response) -> Result<Format, TransportError> {
    let header = |name| {
        response
            .headers()
            .get(name)
            .map(|v: &HeaderValue| String::from_utf8_lossy(v.as_bytes()).into_owned())
    };
    let content_type = header(CONTENT_TYPE);
    let encoding = header(CONTENT_ENCODING)
        .filter(|e| !e.trim().is_empty() && !e.trim().eq_ignore_ascii_case("identity"));
    let status = response.status();
    let no_body = matches!(status, StatusCode::NO_CONTENT | StatusCode::RESET_CONTENT);
    match content_type.as_deref().and_then(Format::from_content_type) {
        Some(wire) if !no_body && encoding.is_none() => Ok(wire),
        _ => Err(TransportError::not_ag_ui(
            status.as_u16(),
            content_type,
            encoding,
        )),
    }
}

/// The streaming response of an [`HttpAgent`] run: one HTTP response, which a resumable run
/// may follow with more ([`Resuming`] reconnects). Dropping it closes the request.
pub type HttpBody = Resuming<HttpAgent>;

/// One HTTP response of an [`HttpAgent`] run. Dropping it closes the request.
#[derive(Debug)]
pub struct HttpStream {
    response: reqwest::Response,
    idle_timeout: Duration,
    timeout: Option<Duration>,
    wire: Format,
    /// The response's status, and whether a byte of its body came.
    status: u16,
    started: bool,
}

impl HttpStream {
    fn new(agent: &HttpAgent, response: reqwest::Response, wire: Format) -> Self {
        Self {
            status: response.status().as_u16(),
            response,
            idle_timeout: agent.timeouts.idle,
            timeout: agent.timeouts.total,
            wire,
            started: false,
        }
    }
}

impl Body for HttpStream {
    async fn next(&mut self) -> Result<Option<Piece>, TransportError> {
        match tokio::time::timeout(self.idle_timeout, self.response.chunk()).await {
            Err(_) => Err(TransportError::from(Timeout::Idle(self.idle_timeout))),
            Ok(Ok(Some(bytes))) => {
                self.started |= !bytes.is_empty();
                Ok(Some(Piece::Bytes(bytes)))
            }
            Ok(Ok(None)) if !self.started => Err(TransportError::empty_body(self.status)),
            Ok(Ok(None)) => Ok(None),
            Ok(Err(e)) => match (e.is_timeout(), self.timeout) {
                (true, Some(total)) => Err(TransportError::from(Timeout::Total(total))),
                _ => Err(TransportError::connection("reading the response", e)),
            },
        }
    }

    fn format(&self) -> Format {
        self.wire
    }
}

impl Transport for HttpAgent {
    type Body = HttpBody;

    fn peer_version(&self) -> Option<PeerVersion> {
        self.peer
    }

    async fn open(&self, input: &RunAgentInput) -> Result<HttpBody, TransportError> {
        let hook = self.on_reconnect.0.clone();
        let mut reached = false;
        match self.post(input, &mut reached).await {
            Ok(stream) => Ok(Resuming::new(self.clone(), stream, self.reconnect)
                .with_run_id(input.run_id.as_str())
                .with_idle_timeout(self.timeouts.idle)
                .with_hook(hook)),
            // The request went out but its answer was lost: a resumable endpoint has the run,
            // so it is joined from its start; any other answer leaves the first error.
            Err(error)
                if reached
                    && self.reconnect.attempts > 0
                    && crate::client::resume::speculative(&error) =>
            {
                let mut body =
                    Resuming::attach(self.clone(), input.run_id.as_str(), 0, self.reconnect)
                        .with_idle_timeout(self.timeouts.idle)
                        .with_hook(hook);
                match body.connect().await {
                    Ok(()) => Ok(body),
                    Err(_) => Err(error),
                }
            }
            Err(error) => Err(error),
        }
    }
}

/// A run of an [`HttpAgent`] joined in flight: see [`HttpAgent::attach`].
#[derive(Clone, Debug)]
pub struct Attach {
    agent: HttpAgent,
    run_id: String,
    after: u64,
}

impl Transport for Attach {
    type Body = HttpBody;

    /// Connects to the run (the input is not sent).
    async fn open(&self, _input: &RunAgentInput) -> Result<HttpBody, TransportError> {
        let mut body = Resuming::attach(
            self.agent.clone(),
            self.run_id.clone(),
            self.after,
            self.agent.reconnect,
        )
        .with_idle_timeout(self.agent.timeouts.idle)
        .with_hook(self.agent.on_reconnect.0.clone());
        body.connect().await?;
        Ok(body)
    }
}

impl crate::client::resume::Reconnect for HttpAgent {
    type Body = HttpStream;

    /// `GET` on the endpoint with `Last-Event-ID: <runId>:<after>` (and `?runId=`).
    async fn reconnect(&self, run_id: &str, after: u64) -> Result<HttpStream, TransportError> {
        let mut url = self.checked_url()?;
        url.query_pairs_mut().append_pair("runId", run_id);
        if after > 0 {
            url.query_pairs_mut()
                .append_pair("cursor", &format!("{run_id}:{after}"));
        }
        let client = self.client()?;
        let mut request = client
            .get(url.clone())
            .header(ACCEPT, ACCEPT_SSE)
            .headers(self.headers.clone());
        if after > 0
            && let Ok(cursor) = HeaderValue::from_str(&format!("{run_id}:{after}"))
        {
            request = request.header("last-event-id", cursor);
        }
        if let Some(bearer) = self.bearer()? {
            request = request.header(AUTHORIZATION, bearer);
        }
        if let Some(total) = self.timeouts.total {
            request = request.timeout(total);
        }
        let response = match tokio::time::timeout(self.timeouts.idle, request.send()).await {
            Err(_) => {
                return Err(TransportError::from(Timeout::Headers(self.timeouts.idle)));
            }
            Ok(Err(e)) => return Err(self.send_error(&url, e)),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if !status.is_success() {
            return Err(TransportError::http(
                status.as_u16(),
                self.error_body(response).await,
            ));
        }
        let wire = check_event_stream(&response)?;
        Ok(HttpStream::new(self, response, wire))
    }
}

impl HttpAgent {
    /// Sends the run and returns its first response; sets `reached` once the request may have
    /// reached the agent (it was connected).
    async fn post(
        &self,
        input: &RunAgentInput,
        reached: &mut bool,
    ) -> Result<HttpStream, TransportError> {
        let mut url = self.checked_url()?;
        let bearer = self.bearer()?;
        // Every request declares the protocol, so a server does not take us for a pre-1.0
        // client; a pinned peer before 1.0 is sent none (it does not know the member).
        let declared;
        let pre_1_0 = self.peer.is_some_and(PeerVersion::is_pre_1_0);
        let input = if input.protocol_version.is_some() != pre_1_0 {
            input
        } else {
            let mut with_version = input.clone();
            with_version.protocol_version = (!pre_1_0).then(|| crate::PROTOCOL_VERSION.to_owned());
            declared = with_version;
            &declared
        };
        let body = serde_json::to_vec(input).map_err(|e| {
            TransportError::invalid_request(format!("the run input cannot be encoded: {e}"))
        })?;
        let client = self.client()?;
        #[cfg(feature = "otel")]
        let trace_headers = crate::trace::otel::current_headers();
        let started = Instant::now();
        // Custom headers and credentials go to the agent's origin only.
        let mut credentials = true;
        for _ in 0..=MAX_REDIRECTS {
            let mut request = client
                .post(url.clone())
                .header(CONTENT_TYPE, "application/json")
                .header(ACCEPT, self.accept())
                .body(body.clone());
            #[cfg(feature = "otel")]
            {
                request = request.headers(trace_headers.clone());
            }
            if credentials {
                request = request.headers(self.headers.clone());
                if let Some(bearer) = &bearer {
                    request = request.header(AUTHORIZATION, bearer.clone());
                }
            }
            if let Some(total) = self.timeouts.total {
                request = request.timeout(total.saturating_sub(started.elapsed()));
            }
            let response = match tokio::time::timeout(self.timeouts.idle, request.send()).await {
                Err(_) => {
                    *reached = true;
                    return Err(TransportError::from(Timeout::Headers(self.timeouts.idle)));
                }
                Ok(Err(e)) => {
                    *reached |= !e.is_connect();
                    return Err(self.send_error(&url, e));
                }
                Ok(Ok(response)) => response,
            };
            let status = response.status();
            if status.is_redirection() {
                let target = response
                    .headers()
                    .get(LOCATION)
                    .and_then(|l| l.to_str().ok())
                    .and_then(|l| response.url().join(l).ok());
                // The agent's own client follows redirects within the origin itself; a client
                // given with `with_client` may leave them to this loop.
                if let Some(target) = target {
                    let cross = target.origin() != response.url().origin();
                    let preserves_method = matches!(
                        status,
                        StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
                    );
                    let allowed = self.follow_redirects
                        && (!cross || (self.cross_origin_redirects && preserves_method));
                    if !allowed {
                        return Err(TransportError::redirect(
                            status.as_u16(),
                            target.to_string(),
                        ));
                    }
                    if preserves_method {
                        // Once the origin changed, credentials stay behind for good.
                        credentials &= !cross;
                        url = target;
                        continue;
                    }
                }
            }
            if !status.is_success() {
                return Err(TransportError::http(
                    status.as_u16(),
                    self.error_body(response).await,
                ));
            }
            let wire = check_event_stream(&response)?;
            return Ok(HttpStream::new(self, response, wire));
        }
        Err(TransportError::too_many_redirects(
            MAX_REDIRECTS,
            url.to_string(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_headers_are_reported_not_dropped() {
        let agent = HttpAgent::new("http://127.0.0.1:1/").with_header("bad name", "v");
        assert_eq!(
            agent.invalid_header.as_deref(),
            Some("header \"bad name\": invalid HTTP header name")
        );
        let err = HttpAgent::new("http://127.0.0.1:1/")
            .try_with_header("x-key", "line\nbreak")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid request: header \"x-key\": failed to parse header value"
        );
        // A later valid header does not hide the first invalid one.
        let agent = HttpAgent::new("http://127.0.0.1:1/")
            .with_header("bad name", "v")
            .with_header("x-ok", "v");
        assert!(agent.invalid_header.is_some());
        assert!(agent.headers.contains_key("x-ok"));
    }
}
