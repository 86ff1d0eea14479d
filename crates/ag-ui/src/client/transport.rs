//! Transports: what carries a run to an agent and its events back.
//!
//! A [`Transport`] opens a run from its [`RunAgentInput`] and returns a [`Body`], read [`Piece`]
//! by piece: bytes of an SSE stream, or events already decoded. [`HttpAgent`](
//! crate::client::http::HttpAgent) is the HTTP transport (feature `http`); [`Replay`] answers
//! every run with recorded events; your own can carry an in-process agent or another wire format.
//! What goes wrong while carrying a run is a [`TransportError`]; a [`CancelHandle`] ends a run
//! from elsewhere.
//!
//! ```
//! use ag_ui::client::transport::{Body, Piece, Replay, Transport};
//! use ag_ui::{Event, RunAgentInput};
//!
//! # futures::executor::block_on(async {
//! let agent = Replay::new(vec![Event::run_started("t1", "r1"), Event::run_finished("t1", "r1")]);
//! let mut body = agent.open(&RunAgentInput::new("t1", "r1")).await?;
//! let mut events = 0;
//! while let Some(piece) = body.next().await? {
//!     assert!(matches!(piece, Piece::Event(_)));
//!     events += 1;
//! }
//! assert_eq!(events, 2);
//! # Ok::<(), ag_ui::client::transport::TransportError>(())
//! # }).unwrap();
//! ```

use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};
use std::time::Duration;

use crate::client::run::Wire;
use crate::{Event, RunAgentInput};

/// A piece of a response body: bytes of an event stream, or an event already decoded.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Piece {
    /// Bytes of the stream in the body's [`wire`](Body::wire) encoding, in pieces of any
    /// size (shared, not copied, from the transport's buffers).
    Bytes(bytes::Bytes),
    /// One event (from a transport that does not go through bytes).
    Event(Box<Event>),
    /// The data of one SSE frame (its `data:` lines joined by `\n`), from a body that read the
    /// stream's frames itself (the reconnecting reader of
    /// [`Resuming`](crate::client::resume::Resuming) does): the pipeline reads the event in it
    /// without parsing SSE again ([`Pipeline::push_frame`](crate::client::run::Pipeline::push_frame)).
    Frame(String),
    /// A frame the body refused while reading the stream's frames itself (the reconnecting
    /// reader of [`Resuming`](crate::client::resume::Resuming) does): a frame over the
    /// [limit](Body::set_max_event_size), with its index among the frames of the run. The
    /// pipeline reports it as it reports a frame it refused itself
    /// ([`PipelineError::Decode`](crate::client::PipelineError::Decode)); it is the body's
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
///   `RUN_FINISHED` or `RUN_ERROR`, the run fails with [`PipelineError::Incomplete`](
///   crate::client::PipelineError::Incomplete), naming the run and what it still had open.
///   A transport never needs to check that itself.
/// - **`Err(_)`**: the response was cut off in a way the transport could see — the connection
///   reset, a chunked or length-delimited body that stopped short, a timeout. Report it as a
///   [`TransportError`] ([`Connection`](TransportError::Connection) with the cause as its
///   source, or [`Timeout`](TransportError::Timeout)), never as `Ok(None)`: a caller that
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
    fn wire(&self) -> Wire {
        Wire::Sse
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
pub trait Transport: Sync {
    /// The response type.
    type Body: Body;

    /// Sends the run input and returns the response, once the agent accepted the run.
    ///
    /// # Errors
    /// [`TransportError::Connection`] when the agent cannot be reached,
    /// [`TransportError::Http`] when it refuses the run, [`TransportError::NotAgUi`] when what
    /// came back is not an event stream, [`TransportError::Timeout`] when it does not answer in
    /// time, [`TransportError::InvalidRequest`] when the request cannot be built.
    fn open(
        &self,
        input: &RunAgentInput,
    ) -> impl Future<Output = Result<Self::Body, TransportError>> + Send;
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

/// Cancels a run from elsewhere (another task, a UI button). Cloning gives another handle to
/// the same run.
#[derive(Clone, Debug, Default)]
pub struct CancelHandle(Arc<Mutex<CancelState>>);

impl CancelHandle {
    /// A handle that has not cancelled anything yet.
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

/// The media types of a response that carries AG-UI events, with the encoding each one
/// declares. Compared case-insensitively, parameters (`; charset=utf-8`) ignored. The one
/// place that decides what is accepted.
const EVENT_MEDIA_TYPES: &[(&str, Wire)] = &[
    ("text/event-stream", Wire::Sse),
    #[cfg(feature = "proto")]
    (crate::encoding::proto::CONTENT_TYPE, Wire::Proto),
];

/// The encoding a `Content-Type` of [`EVENT_MEDIA_TYPES`] declares; `None` for any other.
pub(crate) fn event_media_type(content_type: &str) -> Option<Wire> {
    let essence = content_type.split(';').next().unwrap_or("").trim();
    EVENT_MEDIA_TYPES
        .iter()
        .find(|(accepted, _)| essence.eq_ignore_ascii_case(accepted))
        .map(|&(_, wire)| wire)
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
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The agent could not be reached, or the connection broke. The cause (for example the I/O
    /// error `connection refused`) is the [`source`](std::error::Error::source).
    #[error("transport failed: {message}")]
    Connection {
        /// What the transport was doing.
        message: String,
        /// What went wrong underneath, if known.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
    },
    /// The server answered with a non-success status. `Display` shows the status and a short,
    /// sanitized excerpt of the body: the message of a JSON error body
    /// (`{"error": {"message": …}}`, `{"error": …}`, `{"message": …}`, `{"detail": …}`), the
    /// title or text of an HTML page, control characters removed, at most 200 characters.
    #[error("HTTP {status}: {}", http_excerpt(.body))]
    Http {
        /// The status code.
        status: u16,
        /// The response body as received (cut at 64 KiB).
        body: String,
    },
    /// The response is not an AG-UI event stream.
    #[error("the response is not an AG-UI event stream: HTTP {status}, {}", not_ag_ui_message(.content_type.as_deref(), .content_encoding.as_deref()))]
    NotAgUi {
        /// The status code.
        status: u16,
        /// The `Content-Type` that came back, if any.
        content_type: Option<String>,
        /// The `Content-Encoding` that came back, if it is one the client does not decode.
        content_encoding: Option<String>,
    },
    /// A timeout fired.
    #[error("{0}")]
    Timeout(Timeout),
    /// The request could not be built: an invalid URL or header, named in the message.
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// The agent redirected to another origin; such a redirect is only followed when allowed
    /// (`HttpAgent::with_cross_origin_redirects`).
    #[error(
        "HTTP {status}: the agent redirected to another origin ({}), which is not followed",
        crate::excerpt(.location, crate::EXCERPT_BYTES)
    )]
    Redirect {
        /// The redirect status.
        status: u16,
        /// Where it pointed.
        location: String,
    },
    /// The agent redirected more times than are followed (a redirect loop, most likely); kind
    /// [`TransportErrorKind::Redirect`]. Never retried.
    #[error(
        "the agent redirected more than {redirects} times (last to {}): not followed further",
        crate::excerpt(.location, crate::EXCERPT_BYTES)
    )]
    TooManyRedirects {
        /// How many redirects were followed.
        redirects: usize,
        /// Where the last one pointed.
        location: String,
    },
    /// A success whose body ended before a single byte: no event stream at all; kind
    /// [`TransportErrorKind::NotAgUi`]. Never taken for a cut stream to reconnect to.
    #[error("the response is not an AG-UI event stream: HTTP {status} with an empty body")]
    EmptyBody {
        /// The status code.
        status: u16,
    },
}

impl TransportError {
    /// A [`TransportError::Connection`] saying what failed, with its cause.
    pub fn connection(
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
    ) -> Self {
        TransportError::Connection {
            message: message.into(),
            source: Some(source.into()),
        }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> TransportErrorKind {
        match self {
            TransportError::Connection { .. } => TransportErrorKind::Connection,
            TransportError::Http { .. } => TransportErrorKind::Http,
            TransportError::NotAgUi { .. } | TransportError::EmptyBody { .. } => {
                TransportErrorKind::NotAgUi
            }
            TransportError::Timeout(_) => TransportErrorKind::Timeout,
            TransportError::InvalidRequest(_) => TransportErrorKind::InvalidRequest,
            TransportError::Redirect { .. } | TransportError::TooManyRedirects { .. } => {
                TransportErrorKind::Redirect
            }
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

/// A short, printable excerpt of an error response's body; see [`TransportError::Http`].
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
        let timeout = TransportError::Timeout(Timeout::Idle(Duration::from_secs(2)));
        assert_eq!(timeout.kind(), TransportErrorKind::Timeout);
        assert_eq!(
            timeout.to_string(),
            "the agent sent nothing for 2s (idle timeout)"
        );
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
