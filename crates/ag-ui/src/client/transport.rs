use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};
use std::time::Duration;

use crate::encoding::Format;
use crate::{Event, RunAgentInput};

/// A piece of a response body: bytes of an event stream, or an event already decoded.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Piece {
    /// Bytes of the stream in the body's [`format`](Body::format) encoding, in pieces of any
    /// size (shared, not copied, from the transport's buffers).
    Bytes(bytes::Bytes),
    /// One event (from a transport that does not go through bytes).
    Event(Box<Event>),
    /// The data of one SSE frame (its `data:` lines joined by `\n`), from a body that read the
    /// stream's frames itself (the reconnecting reader of
    /// [`Resuming`](crate::client::Resuming) does): the pipeline reads the event in it
    /// without parsing SSE again ([`Pipeline::push_frame`](crate::client::Pipeline::push_frame)).
    Frame(String),
    /// A frame the body refused while reading the stream's frames itself (the reconnecting
    /// reader of [`Resuming`](crate::client::Resuming) does): a frame over the
    /// [limit](Body::set_max_event_size), with its index among the frames of the run. The
    /// pipeline reports it as it reports a frame it refused itself
    /// ([`PipelineErrorKind::Decode`](crate::client::PipelineErrorKind::Decode)); it is the body's
    /// last piece.
    Refused(crate::DecodeError),
}

/// The response of one run, read piece by piece.
///
/// # How a response ends
///
/// A body says only what it knows about the carrying of the response; whether the *run* ended
/// is decided by the pipeline, from the events:
///
/// - **`Ok(None)`**: the response ended as the transport sees it (the server closed the
///   stream, the recording is over). If the events so far did not end the run with
///   `RUN_FINISHED` or `RUN_ERROR`, the run fails with [`PipelineErrorKind::Incomplete`](
///   crate::client::PipelineErrorKind::Incomplete), naming the run and what it still had open.
///   A transport never needs to check that itself.
/// - **`Err(_)`**: the response was cut off in a way the transport could see — the connection
///   reset, a chunked or length-delimited body that stopped short, a timeout. Report it as a
///   [`TransportError`] ([`connection`](TransportError::connection) with the cause as its
///   source, or `TransportError::from(Timeout)`), never as `Ok(None)`: a caller that
///   retries (a reconnecting client) can then tell a broken carrier from a server that
///   closed the stream in the middle of a run.
///
/// After `Ok(None)` or an error, `next` is not called again.
pub trait Body: Send {
    /// The next piece; `Ok(None)` at the end of the response.
    ///
    /// # Errors
    /// A [`TransportError`] when the response cannot be read to its end (the connection broke,
    /// the body stopped short, a timeout fired); see [how a response ends](Body#how-a-response-ends).
    fn next(&mut self) -> impl Future<Output = Result<Option<Piece>, TransportError>> + Send;

    /// The encoding of the [`Piece::Bytes`] this body yields, as the response declared it:
    /// SSE unless overridden.
    fn format(&self) -> Format {
        Format::Sse
    }

    /// Sets the largest SSE frame accepted, in bytes, for a body that reads the stream's
    /// frames itself (the reconnecting reader does; it then yields a frame over the limit as
    /// [`Piece::Refused`]). A [`Conversation`](crate::client::Conversation) calls it with its
    /// pipeline's limit before the first read, so one limit holds on every path. Does nothing
    /// by default.
    fn set_max_event_size(&mut self, bytes: usize) {
        let _ = bytes;
    }
}

/// Carries a run to an agent and its events back.
///
/// Transports: what carries a run to an agent and its events back.
///
/// A [`Transport`] opens a run from its [`RunAgentInput`] and returns a [`Body`], read [`Piece`]
/// by piece: bytes of an SSE stream, or events already decoded. [`HttpAgent`](
/// crate::client::HttpAgent) is the HTTP transport (feature `http`); [`Replay`] answers
/// every run with recorded events; your own can carry an in-process agent or another wire format.
/// What goes wrong while carrying a run is a [`TransportError`]; a [`CancelToken`] ends a run
/// from elsewhere.
///
/// ```
/// use ag_ui::client::{Body, Piece, Replay, Transport};
/// use ag_ui::{Event, RunAgentInput};
///
/// # futures::executor::block_on(async {
/// let agent = Replay::new(vec![Event::run_started("t1", "r1"), Event::run_finished("t1", "r1")]);
/// let mut body = agent.open(&RunAgentInput::new("t1", "r1")).await?;
/// let mut events = 0;
/// while let Some(piece) = body.next().await? {
///     assert!(matches!(piece, Piece::Event(_)));
///     events += 1;
/// }
/// assert_eq!(events, 2);
/// # Ok::<(), ag_ui::client::TransportError>(())
/// # }).unwrap();
/// ```
pub trait Transport: Sync {
    /// The response type.
    type Body: Body;

    /// Sends the run input and returns the response, once the agent accepted the run.
    ///
    /// # Errors
    /// A [`TransportError`] of kind [`Connection`](TransportErrorKind::Connection) when the
    /// agent cannot be reached, [`Http`](TransportErrorKind::Http) when it refuses the run,
    /// [`NotAgUi`](TransportErrorKind::NotAgUi) when what came back is not an event stream,
    /// [`Timeout`](TransportErrorKind::Timeout) when it does not answer in time,
    /// [`InvalidRequest`](TransportErrorKind::InvalidRequest) when the request cannot be built.
    fn open(
        &self,
        input: &RunAgentInput,
    ) -> impl Future<Output = Result<Self::Body, TransportError>> + Send;

    /// The version of the agent this transport reaches, when it is pinned to an older one
    /// ([`PeerVersion`](crate::client::PeerVersion)): a
    /// [`Conversation`](crate::client::Conversation) shapes its requests and reads its
    /// responses as the [`PeerVersion`](crate::client::PeerVersion) shims say. `None` (the default): the
    /// agent speaks this crate's version.
    fn peer_version(&self) -> Option<crate::client::PeerVersion> {
        None
    }
}

/// A transport that answers every run with the same recorded events (tests, demos, replays of
/// a captured stream).
#[derive(Clone, Debug, Default)]
pub struct Replay {
    events: Arc<Vec<Event>>,
}

impl Replay {
    /// Replays these events.
    pub fn new(events: Vec<Event>) -> Self {
        Self {
            events: Arc::new(events),
        }
    }
}

/// The body of a [`Replay`].
#[derive(Debug)]
pub struct ReplayBody {
    events: Arc<Vec<Event>>,
    next: usize,
}

impl Body for ReplayBody {
    async fn next(&mut self) -> Result<Option<Piece>, TransportError> {
        let event = self.events.get(self.next).cloned();
        self.next += 1;
        Ok(event.map(|e| Piece::Event(Box::new(e))))
    }
}

impl Transport for Replay {
    type Body = ReplayBody;

    async fn open(&self, _input: &RunAgentInput) -> Result<ReplayBody, TransportError> {
        Ok(ReplayBody {
            events: Arc::clone(&self.events),
            next: 0,
        })
    }
}

#[derive(Debug, Default)]
struct CancelState {
    cancelled: bool,
    waker: Option<Waker>,
}

/// Cancels a client's run from elsewhere (another task, a UI button): made by the caller
/// before the run exists and handed to [`Conversation::run_with`](
/// crate::client::Conversation::run_with). Clones share one token.
///
/// Not the server's `server::CancelHandle` (feature `server`), which is one end of a run's
/// channel that the endpoint gets from the run's `Events` and the agent's `RunContext` waits
/// on (running, asked to stop, or the consumer gone, on tokio's `watch`). This token belongs
/// to no run until it is passed in, and needs no runtime: the client builds without tokio.
///
/// ```
/// use ag_ui::client::{CancelToken, Conversation, Replay, RunEnd};
///
/// let cancel = CancelToken::new();
/// cancel.clone().cancel();
/// let mut conversation = Conversation::new("t");
/// let summary =
///     futures::executor::block_on(conversation.run_with(&Replay::default(), None, &cancel, &mut ()))
///         .unwrap();
/// assert_eq!(summary.end, RunEnd::Cancelled);
/// ```
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<Mutex<CancelState>>);

impl CancelToken {
    /// A token that has not cancelled anything yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels the run: the response is dropped (closing the HTTP request) and the run ends as
    /// [`RunEnd::Cancelled`](crate::client::RunEnd::Cancelled), keeping what was applied.
    pub fn cancel(&self) {
        let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        state.cancelled = true;
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).cancelled
    }

    /// Awaits `future` unless cancelled first (`None` then).
    pub(crate) async fn guard<F: Future>(&self, future: F) -> Option<F::Output> {
        let mut future = pin!(future);
        poll_fn(|cx| {
            {
                let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
                if state.cancelled {
                    return Poll::Ready(None);
                }
                state.waker = Some(cx.waker().clone());
            }
            future.as_mut().poll(cx).map(Some)
        })
        .await
    }
}

/// The kinds of [`TransportError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransportErrorKind {
    /// The agent could not be reached, or the connection broke.
    Connection,
    /// The server answered with a non-success status.
    Http,
    /// The response is not an AG-UI event stream (content type, encoding, or no body).
    NotAgUi,
    /// A connect, idle or total timeout fired.
    Timeout,
    /// The request could not be built (an invalid URL or header).
    InvalidRequest,
    /// The agent redirected to another origin, which is not followed.
    Redirect,
}

impl TransportErrorKind {
    /// A stable dotted name, e.g. `transport.http`.
    pub fn as_str(self) -> &'static str {
        match self {
            TransportErrorKind::Connection => "transport.connection",
            TransportErrorKind::Http => "transport.http",
            TransportErrorKind::NotAgUi => "transport.not-ag-ui",
            TransportErrorKind::Timeout => "transport.timeout",
            TransportErrorKind::InvalidRequest => "transport.invalid-request",
            TransportErrorKind::Redirect => "transport.redirect",
        }
    }
}

/// Why a transport could not carry a run: the agent was not reached, refused the run, answered
/// with something else than an event stream, or went silent.
///
/// Opaque, with a [`kind`](Self::kind), in the style of the other errors of the crate: what
/// went wrong underneath (the I/O error of a broken connection) is the
/// [`source`](std::error::Error::source), never repeated in the message; the details are behind
/// accessors ([`status`](Self::status), [`body`](Self::body),
/// [`content_type`](Self::content_type), [`timeout`](Self::timeout),
/// [`location`](Self::location), …). A transport of your own builds one with
/// [`connection`](Self::connection), [`http`](Self::http), [`not_ag_ui`](Self::not_ag_ui),
/// [`invalid_request`](Self::invalid_request), or `from` a [`Timeout`].
///
/// ```
/// use ag_ui::client::{Timeout, TransportError, TransportErrorKind};
/// use std::time::Duration;
///
/// let err = TransportError::http(503, r#"{"error":{"message":"busy"}}"#);
/// assert_eq!(err.kind(), TransportErrorKind::Http);
/// assert_eq!(err.status(), Some(503));
/// assert_eq!(err.to_string(), "HTTP 503: busy");
/// let err = TransportError::from(Timeout::Idle(Duration::from_secs(2)));
/// assert_eq!(err.timeout(), Some(Timeout::Idle(Duration::from_secs(2))));
/// ```
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct TransportError(Failure);

/// What a [`TransportError`] holds.
#[derive(Debug, thiserror::Error)]
enum Failure {
    /// The agent could not be reached, or the connection broke.
    #[error("transport failed: {message}")]
    Connection {
        message: String,
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
    },
    /// The server answered with a non-success status.
    #[error("HTTP {status}: {}", http_excerpt(.body))]
    Http { status: u16, body: String },
    /// The response is not an AG-UI event stream.
    #[error("the response is not an AG-UI event stream: HTTP {status}, {}", not_ag_ui_message(.content_type.as_deref(), .content_encoding.as_deref()))]
    NotAgUi {
        status: u16,
        content_type: Option<String>,
        content_encoding: Option<String>,
    },
    /// A timeout fired.
    #[error("{0}")]
    Timeout(Timeout),
    /// The request could not be built.
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// The agent redirected to another origin.
    #[error(
        "HTTP {status}: the agent redirected to another origin ({}), which is not followed",
        crate::excerpt(.location, crate::EXCERPT_BYTES)
    )]
    Redirect { status: u16, location: String },
    /// The agent redirected more times than are followed.
    #[error(
        "the agent redirected more than {redirects} times (last to {}): not followed further",
        crate::excerpt(.location, crate::EXCERPT_BYTES)
    )]
    TooManyRedirects { redirects: usize, location: String },
    /// A success whose body ended before a single byte.
    #[error("the response is not an AG-UI event stream: HTTP {status} with an empty body")]
    EmptyBody { status: u16 },
}

/// A timeout fired ([`TransportErrorKind::Timeout`]); `Display` names it.
impl From<Timeout> for TransportError {
    fn from(timeout: Timeout) -> Self {
        TransportError(Failure::Timeout(timeout))
    }
}

impl TransportError {
    /// The agent could not be reached, or the connection broke ([`TransportErrorKind::Connection`]):
    /// `message` says what the transport was doing, `source` what went wrong underneath (for
    /// example the I/O error `connection refused`).
    pub fn connection(
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
    ) -> Self {
        TransportError(Failure::Connection {
            message: message.into(),
            source: Some(source.into()),
        })
    }

    /// A [`TransportErrorKind::Connection`] whose cause is not known.
    #[cfg_attr(not(feature = "browser"), allow(dead_code))]
    pub(crate) fn connection_lost(message: impl Into<String>) -> Self {
        TransportError(Failure::Connection {
            message: message.into(),
            source: None,
        })
    }

    /// The server answered with a non-success `status` ([`TransportErrorKind::Http`]); `body`
    /// is the response body as received (a transport keeps at most 64 KiB of it). `Display`
    /// shows the status and a short, sanitized excerpt of the body: the message of a JSON error
    /// body (`{"error": {"message": …}}`, `{"error": …}`, `{"message": …}`, `{"detail": …}`),
    /// the title or text of an HTML page, control characters removed, at most 200 characters.
    pub fn http(status: u16, body: impl Into<String>) -> Self {
        TransportError(Failure::Http {
            status,
            body: body.into(),
        })
    }

    /// The response is not an AG-UI event stream ([`TransportErrorKind::NotAgUi`]): its status,
    /// the `Content-Type` that came back if any, and the `Content-Encoding` if it is one the
    /// transport does not decode.
    pub fn not_ag_ui(
        status: u16,
        content_type: Option<String>,
        content_encoding: Option<String>,
    ) -> Self {
        TransportError(Failure::NotAgUi {
            status,
            content_type,
            content_encoding,
        })
    }

    /// A success whose body ended before a single byte: no event stream at all
    /// ([`TransportErrorKind::NotAgUi`]). Never taken for a cut stream to reconnect to.
    #[cfg_attr(not(any(feature = "http", feature = "browser")), allow(dead_code))]
    pub(crate) fn empty_body(status: u16) -> Self {
        TransportError(Failure::EmptyBody { status })
    }

    /// The request could not be built ([`TransportErrorKind::InvalidRequest`]): an invalid URL
    /// or header, named in `message`.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        TransportError(Failure::InvalidRequest(message.into()))
    }

    /// The agent redirected to another origin, which is only followed when allowed
    /// (`HttpAgent::with_cross_origin_redirects`) ([`TransportErrorKind::Redirect`]).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn redirect(status: u16, location: String) -> Self {
        TransportError(Failure::Redirect { status, location })
    }

    /// The agent redirected more times than are followed, a redirect loop most likely
    /// ([`TransportErrorKind::Redirect`]). Never retried.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn too_many_redirects(redirects: usize, location: String) -> Self {
        TransportError(Failure::TooManyRedirects {
            redirects,
            location,
        })
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> TransportErrorKind {
        match &self.0 {
            Failure::Connection { .. } => TransportErrorKind::Connection,
            Failure::Http { .. } => TransportErrorKind::Http,
            Failure::NotAgUi { .. } | Failure::EmptyBody { .. } => TransportErrorKind::NotAgUi,
            Failure::Timeout(_) => TransportErrorKind::Timeout,
            Failure::InvalidRequest(_) => TransportErrorKind::InvalidRequest,
            Failure::Redirect { .. } | Failure::TooManyRedirects { .. } => {
                TransportErrorKind::Redirect
            }
        }
    }

    /// The HTTP status of the answer: the refusal ([`TransportErrorKind::Http`]), the answer
    /// that is not an event stream ([`TransportErrorKind::NotAgUi`]), the redirect to another
    /// origin ([`TransportErrorKind::Redirect`], not for too many redirects).
    pub fn status(&self) -> Option<u16> {
        match &self.0 {
            Failure::Http { status, .. }
            | Failure::NotAgUi { status, .. }
            | Failure::EmptyBody { status }
            | Failure::Redirect { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The body of a refusal as received, whole ([`TransportErrorKind::Http`]; `Display`
    /// quotes an excerpt).
    pub fn body(&self) -> Option<&str> {
        match &self.0 {
            Failure::Http { body, .. } => Some(body),
            _ => None,
        }
    }

    /// The `Content-Type` of an answer that is not an event stream, if it had one
    /// ([`TransportErrorKind::NotAgUi`]).
    pub fn content_type(&self) -> Option<&str> {
        match &self.0 {
            Failure::NotAgUi { content_type, .. } => content_type.as_deref(),
            _ => None,
        }
    }

    /// The `Content-Encoding` of an answer that is not an event stream, when it is one the
    /// transport does not decode ([`TransportErrorKind::NotAgUi`]).
    pub fn content_encoding(&self) -> Option<&str> {
        match &self.0 {
            Failure::NotAgUi {
                content_encoding, ..
            } => content_encoding.as_deref(),
            _ => None,
        }
    }

    /// Whether the answer was a success whose body ended before a single byte
    /// ([`TransportErrorKind::NotAgUi`]).
    pub fn is_empty_body(&self) -> bool {
        matches!(self.0, Failure::EmptyBody { .. })
    }

    /// Which timeout fired, and its length ([`TransportErrorKind::Timeout`]).
    pub fn timeout(&self) -> Option<Timeout> {
        match &self.0 {
            Failure::Timeout(timeout) => Some(*timeout),
            _ => None,
        }
    }

    /// Where a redirect that was not followed pointed ([`TransportErrorKind::Redirect`]; the
    /// last one, for too many redirects).
    pub fn location(&self) -> Option<&str> {
        match &self.0 {
            Failure::Redirect { location, .. } | Failure::TooManyRedirects { location, .. } => {
                Some(location)
            }
            _ => None,
        }
    }

    /// How many redirects were followed before giving up, for too many redirects
    /// ([`TransportErrorKind::Redirect`]).
    pub fn redirects(&self) -> Option<usize> {
        match &self.0 {
            Failure::TooManyRedirects { redirects, .. } => Some(*redirects),
            _ => None,
        }
    }

    /// What the transport was doing when the connection failed
    /// ([`TransportErrorKind::Connection`]), or what made the request invalid
    /// ([`TransportErrorKind::InvalidRequest`]); the cause, if known, is the
    /// [`source`](std::error::Error::source).
    pub fn message(&self) -> Option<&str> {
        match &self.0 {
            Failure::Connection { message, .. } | Failure::InvalidRequest(message) => Some(message),
            _ => None,
        }
    }
}

/// Which timeout fired, and its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Timeout {
    /// Connecting to the agent took longer than the connect timeout.
    Connect(Duration),
    /// The request was sent and no response headers came within the idle timeout.
    Headers(Duration),
    /// No byte of the response body came within the idle timeout.
    Idle(Duration),
    /// The whole run took longer than its total timeout.
    Total(Duration),
}

impl fmt::Display for Timeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Timeout::Connect(d) => write!(f, "connecting took longer than {d:?} (connect timeout)"),
            Timeout::Headers(d) => write!(
                f,
                "no response headers within {d:?} of sending the request (idle timeout)"
            ),
            Timeout::Idle(d) => write!(f, "the agent sent nothing for {d:?} (idle timeout)"),
            Timeout::Total(d) => write!(f, "the run took longer than {d:?} (total timeout)"),
        }
    }
}

fn not_ag_ui_message(content_type: Option<&str>, encoding: Option<&str>) -> String {
    let content_type = content_type.map(sanitize);
    match (content_type, encoding.map(sanitize)) {
        (Some(t), Some(e)) => format!("content type {t:?} with content encoding {e:?}"),
        (None, Some(e)) => format!("content encoding {e:?}"),
        (Some(t), None) => format!("content type {t:?}"),
        (None, None) => "no content type".to_owned(),
    }
}

/// At most this many characters of an error body are shown.
const EXCERPT_CHARS: usize = 200;

/// One line of printable text: control characters (terminal escapes included) become spaces,
/// runs of whitespace one space, cut at [`EXCERPT_CHARS`] characters.
fn sanitize(text: &str) -> String {
    let mut out = String::new();
    let mut chars = 0;
    for word in text
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
            chars += 1;
        }
        for c in word.chars() {
            if chars == EXCERPT_CHARS {
                out.push('…');
                return out;
            }
            out.push(c);
            chars += 1;
        }
    }
    out
}

/// A short, printable excerpt of an error response's body; see [`TransportError::http`].
fn http_excerpt(body: &str) -> String {
    let trimmed = body.trim();
    if trimmed.is_empty() {
        return "(empty body)".to_owned();
    }
    if let Ok(serde_json::Value::Object(object)) = serde_json::from_str(trimmed) {
        let text = |key: &str| object.get(key).and_then(|v| v.as_str());
        let found = match object.get("error") {
            Some(serde_json::Value::String(message)) => Some(message.clone()),
            Some(serde_json::Value::Object(error)) => {
                let field = |key: &str| error.get(key).and_then(|v| v.as_str());
                let label = field("kind")
                    .or_else(|| field("code"))
                    .or_else(|| field("type"));
                match (label, field("message")) {
                    (Some(label), Some(message)) => Some(format!("{label}: {message}")),
                    (None, Some(message)) => Some(message.to_owned()),
                    (Some(label), None) => Some(label.to_owned()),
                    (None, None) => None,
                }
            }
            _ => None,
        }
        .or_else(|| {
            text("message")
                .or_else(|| text("detail"))
                .or_else(|| text("title"))
                .map(str::to_owned)
        });
        if let Some(found) = found {
            return sanitize(&found);
        }
    }
    let lower = trimmed
        .get(..trimmed.len().min(1024))
        .unwrap_or(trimmed)
        .to_ascii_lowercase();
    if lower.starts_with('<') || lower.contains("<html") {
        // An HTML page: its title, or else its text without tags.
        let lower_all = trimmed.to_ascii_lowercase();
        if let Some(start) = lower_all.find("<title>") {
            let rest = &trimmed[start + "<title>".len()..];
            let end = rest
                .to_ascii_lowercase()
                .find("</title>")
                .unwrap_or(rest.len());
            let title = sanitize(&rest[..end]);
            if !title.is_empty() {
                return title;
            }
        }
        let mut text = String::new();
        let mut in_tag = false;
        for c in trimmed.chars() {
            match c {
                '<' => in_tag = true,
                '>' if in_tag => {
                    in_tag = false;
                    text.push(' ');
                }
                c if !in_tag => text.push(c),
                _ => {}
            }
        }
        return sanitize(&text);
    }
    sanitize(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_sources() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let err = TransportError::connection("cannot reach http://127.0.0.1:1/", io);
        assert_eq!(err.kind(), TransportErrorKind::Connection);
        assert_eq!(err.kind().as_str(), "transport.connection");
        // The cause is the source, not a copy in the message.
        assert_eq!(
            err.to_string(),
            "transport failed: cannot reach http://127.0.0.1:1/"
        );
        let source = std::error::Error::source(&err).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("refused"));
        let timeout = TransportError::from(Timeout::Idle(Duration::from_secs(2)));
        assert_eq!(timeout.kind(), TransportErrorKind::Timeout);
        assert_eq!(
            timeout.to_string(),
            "the agent sent nothing for 2s (idle timeout)"
        );
    }

    #[test]
    fn accessors_answer_for_their_kind_only() {
        let http = TransportError::http(502, "<html><title>Bad gateway</title></html>");
        assert_eq!(http.kind(), TransportErrorKind::Http);
        assert_eq!(
            (http.status(), http.body()),
            (Some(502), Some("<html><title>Bad gateway</title></html>"))
        );
        assert_eq!(http.to_string(), "HTTP 502: Bad gateway");
        assert!(std::error::Error::source(&http).is_none());
        assert_eq!(
            (http.timeout(), http.message(), http.location()),
            (None, None, None)
        );

        let not = TransportError::not_ag_ui(200, Some("text/html".into()), Some("br".into()));
        assert_eq!(not.kind(), TransportErrorKind::NotAgUi);
        assert_eq!(not.status(), Some(200));
        assert_eq!(not.content_type(), Some("text/html"));
        assert_eq!(not.content_encoding(), Some("br"));
        assert!(!not.is_empty_body());
        assert_eq!(
            not.to_string(),
            "the response is not an AG-UI event stream: HTTP 200, content type \"text/html\" with content encoding \"br\""
        );
        let empty = TransportError::empty_body(200);
        assert_eq!(
            (empty.kind(), empty.status()),
            (TransportErrorKind::NotAgUi, Some(200))
        );
        assert!(empty.is_empty_body());

        let invalid = TransportError::invalid_request("URL \"x\": relative URL without a base");
        assert_eq!(invalid.kind(), TransportErrorKind::InvalidRequest);
        assert_eq!(
            invalid.message(),
            Some("URL \"x\": relative URL without a base")
        );
        assert_eq!(
            invalid.to_string(),
            "invalid request: URL \"x\": relative URL without a base"
        );

        let redirect = TransportError::redirect(307, "https://elsewhere/".into());
        assert_eq!(redirect.kind(), TransportErrorKind::Redirect);
        assert_eq!(
            (redirect.status(), redirect.location()),
            (Some(307), Some("https://elsewhere/"))
        );
        assert_eq!(redirect.redirects(), None);
        let looped = TransportError::too_many_redirects(10, "http://a/loop".into());
        assert_eq!(looped.kind(), TransportErrorKind::Redirect);
        assert_eq!(
            (looped.redirects(), looped.location()),
            (Some(10), Some("http://a/loop"))
        );
        assert_eq!(looped.status(), None);

        let lost = TransportError::connection_lost("the fetch task ended without an answer");
        assert_eq!(lost.kind(), TransportErrorKind::Connection);
        assert_eq!(
            lost.message(),
            Some("the fetch task ended without an answer")
        );
        assert!(std::error::Error::source(&lost).is_none());
    }

    #[test]
    fn http_excerpts() {
        assert_eq!(http_excerpt(""), "(empty body)");
        assert_eq!(http_excerpt(r#"{"error":"no token"}"#), "no token");
        assert_eq!(
            http_excerpt(r#"{"error":{"code":"E1","message":"m"}}"#),
            "E1: m"
        );
        assert_eq!(http_excerpt(r#"{"message":"gone"}"#), "gone");
        assert_eq!(http_excerpt(r#"{"other":1}"#), r#"{"other":1}"#);
        assert_eq!(
            http_excerpt("<html><body><h1>Bad\n Gateway</h1><p>nginx</p></body></html>"),
            "Bad Gateway nginx"
        );
        assert_eq!(http_excerpt("<html><TITLE> Oops </TITLE></html>"), "Oops");
        assert_eq!(http_excerpt("a\u{1b}[31mb\r\nc"), "a [31mb c");
        let long = http_excerpt(&"é".repeat(300));
        assert_eq!(long.chars().count(), 201);
        assert!(long.ends_with('…'));
    }
}
