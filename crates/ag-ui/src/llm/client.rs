//! [`OpenAiClient`]: a thin streaming client for `POST {base}/chat/completions`.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE, RETRY_AFTER};

use super::connections::{Connections, Lease, Pool};
use super::mapper::{ChunkDecoder, Decoded};
use super::wire::{ChatChunk, ChatRequest, ErrorBody};
use super::{LlmError, LlmErrorKind};
#[cfg(doc)]
use crate::timeouts::DEFAULT_IDLE_TIMEOUT;
use crate::timeouts::Timeouts;

/// The most of an error response body that is read: 64 KiB.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// How the key is sent.
#[derive(Clone, Debug, PartialEq, Eq)]
enum KeyHeader {
    /// `Authorization: Bearer {key}` (OpenAI and most compatible servers).
    Bearer,
    /// `{name}: {key}` (`api-key` for Azure OpenAI).
    Named(String),
}

/// A streaming client for any OpenAI-compatible Chat Completions server: OpenAI, Azure OpenAI
/// deployments, Ollama, vLLM, llama.cpp's server, OpenRouter, DeepSeek.
///
/// The request goes to `{base_url}/chat/completions` (plus any query set with
/// [`with_query`](Self::with_query)), the key as a bearer token or in a header of your choice,
/// and the response is read as SSE by this crate's own decoder, chunk by chunk.
///
/// Failures are typed ([`LlmErrorKind`]): an HTTP error status (with the provider's message
/// from its error body, read up to 64 KiB), `429` (retried after `Retry-After`, up to
/// [`with_max_retries`](Self::with_max_retries) times and never waiting longer than
/// [`with_max_retry_wait`](Self::with_max_retry_wait)), a malformed chunk, a stream that ends
/// without `[DONE]`, no bytes within the idle time-out, and a request longer than its total
/// time-out ([`Timeouts`], the same knobs as an `HttpAgent`'s).
///
/// Requests go through clients built from these settings, or through the `reqwest::Client`
/// given with [`with_client`](Self::with_client): its connection pool, proxies, TLS roots and
/// HTTP version are then yours to set. The crate's own clients connect as
/// [`with_connections`](Self::with_connections) says ([`Connections`]): over HTTP/2 (a hosted
/// API over `https` negotiates it; [`HttpVersion::Http2`](super::HttpVersion::Http2) for a
/// server known to speak it over plain `http`), the runs waiting on the model share
/// connections, [`Connections::streams_per_connection`] runs each (100 by default), and a
/// further connection is opened when every one is full, so no run waits for another to
/// finish; a waiting run then holds a stream, not a connection (1.6 times less resident
/// memory per waiting bridge run than over HTTP/1.1, README, Performance). Over HTTP/1.1 each
/// waiting run holds a connection of its own (hyper's dispatch channel and its two 8 KiB
/// buffers), kept alive for the next runs once its run ends, up to
/// [`Connections::max_idle_connections`]. A request that goes out on a kept-alive connection
/// just as the server closes it for idleness (node:http does after five seconds) meets a
/// connection closed with no answer: it is sent once more, on another connection, and a
/// second such close is a [`Connect`](LlmErrorKind::Connect) error.
///
/// ```
/// use ag_ui::llm::OpenAiClient;
/// use std::time::Duration;
///
/// // Ollama on this machine, no key.
/// let ollama = OpenAiClient::new("http://127.0.0.1:11434/v1");
/// // An Azure OpenAI deployment.
/// let azure = OpenAiClient::new("https://example.openai.azure.com/openai/deployments/gpt-4o")
///     .with_api_key("key")
///     .with_api_key_header("api-key")
///     .with_query("api-version", "2024-10-21")
///     .with_idle_timeout(Duration::from_secs(30))
///     .with_timeout(Duration::from_secs(300));
/// assert_eq!(
///     azure.url(),
///     "https://example.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21"
/// );
/// assert_eq!(ollama.url(), "http://127.0.0.1:11434/v1/chat/completions");
/// assert!(!format!("{azure:?}").contains("key\""), "the key is not shown");
/// assert_eq!(azure.timeouts().total, Some(Duration::from_secs(300)));
/// ```
#[derive(Clone)]
pub struct OpenAiClient {
    /// A client given with [`with_client`](Self::with_client).
    client: Option<reqwest::Client>,
    /// The clients built from these settings, as the requests in flight need them.
    pool: Arc<Pool>,
    connections: Connections,
    base_url: String,
    api_key: Option<String>,
    key_header: KeyHeader,
    query: Vec<(String, String)>,
    headers: Vec<(String, String)>,
    max_retries: u32,
    max_retry_wait: Duration,
    timeouts: Timeouts,
}

impl fmt::Debug for OpenAiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiClient")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("max_retries", &self.max_retries)
            .field("timeouts", &self.timeouts)
            .field("connections", &self.connections)
            .finish_non_exhaustive()
    }
}

/// Reads `Retry-After` given in seconds (the HTTP-date form is not used by these providers).
fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    let value = response.headers().get(RETRY_AFTER)?.to_str().ok()?.trim();
    let seconds: f64 = value.parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(86_400.0)))
}

impl OpenAiClient {
    /// A client for the server at `base_url` (for example `https://api.openai.com/v1`), with
    /// no key, two retries on `429`, and the default [`Timeouts`].
    pub fn new(base_url: impl Into<String>) -> Self {
        let base_url = base_url.into();
        let connections = Connections::default();
        Self {
            client: None,
            pool: Pool::new(&connections, plain_http(&base_url)),
            connections,
            base_url,
            api_key: None,
            key_header: KeyHeader::Bearer,
            query: Vec::new(),
            headers: Vec::new(),
            max_retries: 2,
            max_retry_wait: Duration::from_secs(30),
            timeouts: Timeouts::default(),
        }
    }

    /// Sets the API key (sent as `Authorization: Bearer {key}` unless
    /// [`with_api_key_header`](Self::with_api_key_header) says otherwise).
    #[must_use]
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Sends the key in header `name` as it is (Azure OpenAI: `api-key`).
    #[must_use]
    pub fn with_api_key_header(mut self, name: impl Into<String>) -> Self {
        self.key_header = KeyHeader::Named(name.into());
        self
    }

    /// Adds a query parameter to the URL (Azure OpenAI: `api-version`).
    #[must_use]
    pub fn with_query(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.query.push((name.into(), value.into()));
        self
    }

    /// Adds a request header (OpenRouter's `HTTP-Referer`, say).
    #[must_use]
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// How many times a `429` is retried before it is an error (default 2; 0 turns retrying
    /// off).
    #[must_use]
    pub fn with_max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// The longest wait before a retry (default 30 s). A `Retry-After` asking for more is not
    /// waited for, nor one past the total time-out: the `429` is returned as an error at once.
    #[must_use]
    pub fn with_max_retry_wait(mut self, wait: Duration) -> Self {
        self.max_retry_wait = wait;
        self
    }

    /// Sends requests through this client (connection pool, proxies, TLS roots, HTTP/2).
    /// Its own connect time-out and pool then apply instead of [`Timeouts::connect`] and
    /// [`with_connections`](Self::with_connections); the idle and total time-outs still apply.
    #[must_use]
    pub fn with_client(mut self, client: reqwest::Client) -> Self {
        self.client = Some(client);
        self
    }

    /// Sets every time-out at once (see [`Timeouts`]; the defaults otherwise). The shortcuts
    /// [`with_idle_timeout`](Self::with_idle_timeout) and [`with_timeout`](Self::with_timeout)
    /// set one field each, in any order.
    ///
    /// ```
    /// use ag_ui::Timeouts;
    /// use ag_ui::llm::OpenAiClient;
    /// use std::time::Duration;
    ///
    /// let timeouts = Timeouts::default()
    ///     .with_connect(Duration::from_secs(3))
    ///     .with_idle(Duration::from_secs(20))
    ///     .with_total(Duration::from_secs(300));
    /// let client = OpenAiClient::new("http://127.0.0.1:11434/v1").with_timeouts(timeouts);
    /// assert_eq!(client.timeouts(), timeouts);
    /// let shortcuts = OpenAiClient::new("http://127.0.0.1:11434/v1")
    ///     .with_timeout(Duration::from_secs(300))
    ///     .with_idle_timeout(Duration::from_secs(20));
    /// assert_eq!(shortcuts.timeouts(), timeouts.with_connect(Duration::from_secs(10)));
    /// ```
    #[must_use]
    pub fn with_timeouts(mut self, timeouts: Timeouts) -> Self {
        if timeouts.connect != self.timeouts.connect {
            // The client's own HTTP clients are built with the connect time-out.
            self.pool = Pool::new(&self.connections, plain_http(&self.base_url));
        }
        self.timeouts = timeouts;
        self
    }

    /// Sets how requests connect to the model: the HTTP version, the runs one HTTP/2
    /// connection carries, the idle connections kept ([`Connections`]; the defaults
    /// otherwise). Not for a client given with [`with_client`](Self::with_client).
    #[must_use]
    pub fn with_connections(mut self, connections: Connections) -> Self {
        self.pool = Pool::new(&connections, plain_http(&self.base_url));
        self.connections = connections;
        self
    }

    /// How requests connect to the model.
    pub fn connections(&self) -> Connections {
        self.connections
    }

    /// The time-outs requests of this client get.
    pub fn timeouts(&self) -> Timeouts {
        self.timeouts
    }

    /// How long to wait for the response's headers and then for each next piece of its body
    /// (default [`DEFAULT_IDLE_TIMEOUT`]): [`Timeouts::idle`].
    #[must_use]
    pub fn with_idle_timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.idle = timeout;
        self
    }

    /// Limits a whole request (connecting, sending, waiting to retry a `429`, and streaming
    /// the response) to `timeout` (no limit by default): [`Timeouts::total`].
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.total = Some(timeout);
        self
    }

    /// The HTTP client one request goes through: the one given, or one of the pool's, with
    /// the request's place on it.
    fn http(&self) -> Result<(reqwest::Client, Option<Lease>), LlmError> {
        if let Some(client) = &self.client {
            return Ok((client.clone(), None));
        }
        let lease = self.pool.lease(|| self.build_http())?;
        Ok((lease.client().clone(), Some(lease)))
    }

    /// Builds an HTTP client from these settings: every client of the pool is built here.
    fn build_http(&self) -> Result<reqwest::Client, LlmError> {
        // HttpAgent's redirect policy: a redirect to another origin is not followed (with the
        // conversation re-posted), but answered as the provider's response.
        let builder = reqwest::Client::builder()
            .connect_timeout(self.timeouts.connect)
            .redirect(crate::redirects::same_origin());
        self.connections
            .apply(builder, plain_http(&self.base_url))
            .build()
            .map_err(|e| {
                LlmError::new(
                    LlmErrorKind::Connect,
                    format!("the HTTP client could not be built: {e}"),
                )
                .with_source(e)
            })
    }

    /// The URL requests go to.
    pub fn url(&self) -> String {
        let mut url = format!("{}/chat/completions", self.base_url.trim_end_matches('/'));
        for (i, (name, value)) in self.query.iter().enumerate() {
            url.push(if i == 0 { '?' } else { '&' });
            url.push_str(name);
            url.push('=');
            url.push_str(value);
        }
        url
    }

    /// Sends `request` and returns its chunk stream once the provider answered `200`.
    ///
    /// # Errors
    ///
    /// [`Connect`](LlmErrorKind::Connect), [`Timeout`](LlmErrorKind::Timeout),
    /// [`Http`](LlmErrorKind::Http) with the status and the provider's message, or
    /// [`RateLimited`](LlmErrorKind::RateLimited) with the `Retry-After` it asked for.
    pub async fn stream(&self, request: &ChatRequest) -> Result<ChunkStream, LlmError> {
        let deadline = Deadline::new(self.timeouts.total);
        // Shared, not copied, by each attempt (a 429 retried, a connection closed unanswered).
        let body = bytes::Bytes::from(serde_json::to_vec(request).map_err(|e| {
            LlmError::new(
                LlmErrorKind::Unsupported,
                format!("the request does not serialize: {e}"),
            )
        })?);
        let url = self.url();
        let mut attempt = 0;
        let mut asked_again = false;
        loop {
            let (http, lease) = self.http()?;
            let mut builder = http
                .post(&url)
                .header(CONTENT_TYPE, "application/json")
                .header(ACCEPT, crate::encoding::SSE_MEDIA_TYPE)
                .body(body.clone());
            if let Some(key) = &self.api_key {
                builder = match &self.key_header {
                    KeyHeader::Bearer => builder.bearer_auth(key),
                    KeyHeader::Named(name) => builder.header(name.as_str(), key.as_str()),
                };
            }
            for (name, value) in &self.headers {
                builder = builder.header(name.as_str(), value.as_str());
            }
            if let Some(left) = deadline.left()? {
                builder = builder.timeout(left);
            }
            let idle = self.timeouts.idle;
            let response = match tokio::time::timeout(idle, builder.send()).await {
                Err(_) => {
                    return Err(LlmError::new(
                        LlmErrorKind::Timeout,
                        format!("the provider did not answer within {idle:?} (idle time-out)"),
                    ));
                }
                Ok(Err(e)) if e.is_timeout() => {
                    let message = match deadline.total {
                        Some(total) if !e.is_connect() => total_message(total),
                        _ => format!("the provider timed out: {e}"),
                    };
                    return Err(LlmError::new(LlmErrorKind::Timeout, message).with_source(e));
                }
                Ok(Err(e)) if closed_unanswered(&e) && !asked_again => {
                    // A kept-alive connection the server closed as this request went out on
                    // it (its idle close crossed the request): nothing was answered, so the
                    // request is asked once more, on another connection.
                    asked_again = true;
                    tracing::debug!(
                        "the provider closed a kept-alive connection unanswered; asking again"
                    );
                    continue;
                }
                Ok(Err(e)) => {
                    let message = if closed_unanswered(&e) {
                        format!(
                            "the provider at {url} closed the connection without answering, \
                             twice"
                        )
                    } else {
                        format!("the provider at {url} could not be reached: {e}")
                    };
                    return Err(LlmError::new(LlmErrorKind::Connect, message).with_source(e));
                }
                Ok(Ok(response)) => response,
            };
            if let Some(lease) = &lease {
                lease.answered_in(response.version());
            }
            let status = response.status();
            if status.is_success() {
                return Ok(ChunkStream {
                    response,
                    _lease: lease,
                    decoder: ChunkDecoder::new(),
                    timeouts: self.timeouts,
                    eof: false,
                    done: false,
                });
            }
            let wait = retry_after(&response);
            let message = self.error_message(response).await;
            if status == StatusCode::TOO_MANY_REQUESTS {
                let wait_for = wait.unwrap_or(Duration::from_millis(500 << attempt.min(6)));
                if attempt < self.max_retries
                    && wait_for <= self.max_retry_wait
                    && deadline.allows(wait_for)
                {
                    attempt += 1;
                    tracing::debug!(
                        attempt,
                        ?wait_for,
                        "the provider is rate limiting; retrying"
                    );
                    tokio::time::sleep(wait_for).await;
                    continue;
                }
                return Err(LlmError::new(
                    LlmErrorKind::RateLimited,
                    format!(
                        "the provider is rate limiting (429{}) after {attempt} retries: {message}",
                        wait.map(|w| format!(", retry after {}s", w.as_secs_f64()))
                            .unwrap_or_default()
                    ),
                )
                .with_status(status.as_u16())
                .with_retry_after(wait));
            }
            return Err(LlmError::new(
                LlmErrorKind::Http,
                format!("the provider answered {status}: {message}"),
            )
            .with_status(status.as_u16()));
        }
    }

    /// The provider's message from an error body (`{"error": {"message": …}}`), else the
    /// body's text, read up to [`MAX_ERROR_BODY`] bytes.
    async fn error_message(&self, mut response: reqwest::Response) -> String {
        let mut body = Vec::new();
        while body.len() < MAX_ERROR_BODY {
            match tokio::time::timeout(self.timeouts.idle, response.chunk()).await {
                Ok(Ok(Some(bytes))) => body.extend_from_slice(&bytes),
                _ => break,
            }
        }
        body.truncate(MAX_ERROR_BODY);
        match serde_json::from_slice::<ErrorBody>(&body) {
            Ok(parsed) if !parsed.error.message.is_empty() => match parsed.error.code {
                Some(code) => format!("{} ({code})", parsed.error.message),
                None => parsed.error.message,
            },
            _ => {
                let text = String::from_utf8_lossy(&body);
                let text = text.trim();
                if text.is_empty() {
                    "no error message".to_owned()
                } else {
                    text.chars().take(500).collect()
                }
            }
        }
    }
}

/// The chunks of one streaming response, read as they arrive. Dropping it closes the
/// connection, which is how a cancelled run stops the provider at once.
#[derive(Debug)]
pub struct ChunkStream {
    response: reqwest::Response,
    /// The request's place on one of the client's connections, given back with the response.
    _lease: Option<Lease>,
    decoder: ChunkDecoder,
    timeouts: Timeouts,
    eof: bool,
    done: bool,
}

impl ChunkStream {
    /// The next chunk, `Ok(None)` after `data: [DONE]`.
    ///
    /// # Errors
    ///
    /// [`MalformedChunk`](LlmErrorKind::MalformedChunk) or [`TooLarge`](LlmErrorKind::TooLarge)
    /// for a bad frame; [`IncompleteStream`](LlmErrorKind::IncompleteStream) when the body
    /// ends (or breaks) before `[DONE]`; [`Timeout`](LlmErrorKind::Timeout) when no bytes came
    /// within the idle time-out, or the request went past its total time-out.
    pub async fn next_chunk(&mut self) -> Result<Option<ChatChunk>, LlmError> {
        if self.done {
            return Ok(None);
        }
        loop {
            match self.decoder.next_chunk()? {
                Some(Decoded::Chunk(chunk)) => return Ok(Some(chunk)),
                Some(Decoded::Done) => {
                    self.done = true;
                    return Ok(None);
                }
                None => {}
            }
            if self.eof {
                return Err(LlmError::new(
                    LlmErrorKind::IncompleteStream,
                    "the provider's stream ended without `data: [DONE]`",
                ));
            }
            match tokio::time::timeout(self.timeouts.idle, self.response.chunk()).await {
                Err(_) => {
                    return Err(LlmError::new(
                        LlmErrorKind::Timeout,
                        format!(
                            "the provider sent nothing for {:?} in the middle of its stream \
                             (idle time-out)",
                            self.timeouts.idle
                        ),
                    ));
                }
                Ok(Err(e)) => {
                    let error = match self.timeouts.total {
                        // reqwest ends the body at the total time-out it was given.
                        Some(total) if e.is_timeout() => {
                            LlmError::new(LlmErrorKind::Timeout, total_message(total))
                        }
                        _ => LlmError::new(
                            LlmErrorKind::IncompleteStream,
                            format!("the provider's stream broke before `data: [DONE]`: {e}"),
                        ),
                    };
                    return Err(error.with_source(e));
                }
                Ok(Ok(Some(bytes))) => self.decoder.push(&bytes),
                Ok(Ok(None)) => {
                    self.decoder.finish();
                    self.eof = true;
                }
            }
        }
    }
}

/// Whether `error` (of sending a request: no answer came) is a connection the server closed
/// under it: closed before a byte of the answer (hyper's incomplete message), or reset (a close
/// with the request unread). It is what a request meets when the server closes the kept-alive
/// connection it went out on, as node:http does after five idle seconds. A connection that
/// could not be made is not one.
fn closed_unanswered(error: &reqwest::Error) -> bool {
    use std::io::ErrorKind;

    if error.is_connect() {
        return false;
    }
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(error) = cause {
        if error
            .downcast_ref::<hyper::Error>()
            .is_some_and(hyper::Error::is_incomplete_message)
            || error.downcast_ref::<std::io::Error>().is_some_and(|e| {
                matches!(
                    e.kind(),
                    ErrorKind::ConnectionReset
                        | ErrorKind::ConnectionAborted
                        | ErrorKind::BrokenPipe
                )
            })
        {
            return true;
        }
        cause = error.source();
    }
    false
}

/// Whether `url` is plain `http`, where HTTP/2 is not negotiated.
fn plain_http(url: &str) -> bool {
    url.get(..7)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("http://"))
}

/// The total time-out of one request, counted from its start across retries.
#[derive(Clone, Copy, Debug)]
struct Deadline {
    total: Option<Duration>,
    started: tokio::time::Instant,
}

impl Deadline {
    fn new(total: Option<Duration>) -> Self {
        Self {
            total,
            started: tokio::time::Instant::now(),
        }
    }

    /// What is left of the total time-out (`None` without one); an error once nothing is.
    fn left(&self) -> Result<Option<Duration>, LlmError> {
        let Some(total) = self.total else {
            return Ok(None);
        };
        match total.checked_sub(self.started.elapsed()) {
            Some(left) if !left.is_zero() => Ok(Some(left)),
            _ => Err(LlmError::new(LlmErrorKind::Timeout, total_message(total))),
        }
    }

    /// Whether a wait of `wait` still leaves time before the deadline.
    fn allows(&self, wait: Duration) -> bool {
        self.total
            .is_none_or(|total| self.started.elapsed().saturating_add(wait) < total)
    }
}

/// The message of a request past its total time-out.
fn total_message(total: Duration) -> String {
    format!("the model request took longer than {total:?} (total time-out)")
}
