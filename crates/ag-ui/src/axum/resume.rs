use std::convert::Infallible;
use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use ::axum::body::{Body, Bytes};
use ::axum::extract::Request;
use ::axum::http::{HeaderValue, StatusCode, header};
use ::axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt};

use super::body::MAX_BATCH;
use super::detached::Detached;
use super::error_response;
use crate::Event;
use crate::encoding::{Format, sse};
use crate::server::log::{Cursor, EventLog, LogError, LogErrorKind, RunWriter, Tail};

/// The default bound on how long a detached run goes on: 10 minutes.
pub const DEFAULT_DETACH_TIMEOUT: Duration = Duration::from_secs(600);

/// The default reconnection delay sent in `retry:`: 1 second.
pub const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// The room asked of the log for an output while batches come full: a batch and the event
/// that ends it, most often.
const BATCH_CAPACITY: usize = MAX_BATCH + 16 * 1024;

/// The longest run id a resumable endpoint accepts, in bytes (it travels in every `id:`).
pub(crate) const MAX_RUN_ID_LEN: usize = 512;

/// The default most runs of one endpoint going on detached at once: 256.
pub const DEFAULT_MAX_DETACHED: usize = 256;

/// The default most bytes the detached runs of one endpoint hold besides their log: 64 MiB.
pub const DEFAULT_MAX_DETACHED_BYTES: usize = 64 * 1024 * 1024;

/// What a detached run is counted for besides its input, in
/// [`ResumeConfig::max_detached_bytes`]: its tasks, the agent's queue and future, the
/// response chain's buffers (about 4 KB for an agent of [`server`](crate::server) streaming
/// text, measured by the example `detached_memory`), with room for a larger agent.
pub const DETACHED_RUN_BYTES: usize = 8 * 1024;

/// How a resumable endpoint treats its runs: how long, how many and how much go on detached
/// after their client left, and the reconnection delay it advises. Taken by
/// [`AgentEndpoint::with_resume_config`](super::AgentEndpoint::with_resume_config), before
/// or after the log is given.
///
/// What detached runs hold is bounded three ways: their events by the log's own bounds
/// ([`MemoryLogConfig`](crate::server::log::MemoryLogConfig)), their number by
/// [`max_detached`](Self::max_detached), and everything else they hold (their inputs, tasks,
/// queues and buffers) by [`max_detached_bytes`](Self::max_detached_bytes); a client leaving
/// past either of the last two evicts the oldest detached runs.
///
/// ```
/// use std::time::Duration;
/// use ag_ui::axum::AgentEndpoint;
/// use ag_ui::axum::ResumeConfig;
/// use ag_ui::server::log::MemoryLog;
/// # use ag_ui::{Event, RunAgentInput};
/// # fn echo(input: RunAgentInput) -> impl futures::Stream<Item = Event> + Send + 'static {
/// #     futures::stream::iter([Event::run_finished(input.thread_id, input.run_id)])
/// # }
///
/// let config = ResumeConfig::default()
///     .with_max_detached(32)
///     .with_max_detached_bytes(16 << 20);
/// let endpoint = AgentEndpoint::new(echo)
///     .with_resume_config(config)
///     .with_resumable(MemoryLog::default());
/// assert_eq!(endpoint.resume_config().max_detached, 32);
/// assert_eq!(endpoint.resume_config().max_detached_bytes, 16 << 20);
/// assert_eq!(endpoint.resume_config().retry, Duration::from_secs(1));
/// ```
///
/// Resumable endpoints: runs kept in an [`EventLog`] so a client that lost its connection, a
/// second client, or a client of another server instance reads them again and follows them
/// to their end.
///
/// [`AgentEndpoint::with_resumable`](super::AgentEndpoint::with_resumable) turns it on:
///
/// - every event of a run is appended to the log as it is written, and every SSE frame
///   carries `id: <runId>:<seq>` (the first one also `retry:`, the reconnection delay);
/// - when the client goes away the run is **detached**, not cancelled: it goes on into the
///   log until it ends, for at most the detach timeout
///   ([`ResumeConfig::detach_timeout`], 10 minutes by default), then it is cancelled and its
///   log ends with a `RUN_ERROR` of code `detach-timeout`;
/// - at most [`ResumeConfig::max_detached`] runs (256 by default) go on detached at once: one
///   more client leaving evicts the oldest, and a new run that finds the log full (`log-full`)
///   evicts the oldest to take its place. An evicted run is cancelled and its log ends with a
///   `RUN_ERROR` of code `evicted`, which a reconnect replays; once the log has forgotten it,
///   a reconnect is `410` (`expired`). So clients that leave at once cannot hold every slot of
///   the log: a fresh client is served, or told at once (`503` with `Retry-After`) when the
///   log is full of runs whose clients are still there;
/// - `GET` on the same path reads a run from the log after a cursor and follows it live:
///   the standard `Last-Event-ID: <runId>:<seq>` header, or `?cursor=<runId>:<seq>` for
///   clients that cannot set it, or `?runId=<runId>` to join from the start (a page reload);
/// - errors are JSON (`{"error": {"kind", "message"}}`): an unknown run is `404`
///   (`unknown-run`), a run or cursor past retention `410` (`expired`), a malformed cursor
///   or one of another run than `runId` `400` (`malformed-cursor`, `foreign-cursor`), a
///   cursor past the run's end `400` (`future-cursor`), a log that cannot be reached or is full
///   `503` (`log-unavailable`, `log-full`, with `Retry-After: 1`).
///
/// Any instance sharing the log (Redis) serves a reconnect: the run goes on where it started,
/// and the other instance tails the log. Reconnects are answered in SSE; a protobuf response
/// is logged too (so an SSE reconnect can read it), but its frames carry no id. So is the
/// stream of a client that declares no `protocolVersion` (a pre-1.0 client, which gets the
/// [downgraded](crate::server::downgrade) stream): the log keeps the 1.0 events for readers
/// that reconnect, and the downgraded frames carry no id, since their numbering is not the log's.
///
/// ```
/// use ag_ui::axum::{AgentEndpoint, RouterExt};
/// use ag_ui::server::log::MemoryLog;
/// use ag_ui::{Event, RunAgentInput};
/// use axum::body::Body;
/// use axum::http::Request;
/// use tower::ServiceExt;
///
/// fn echo(input: RunAgentInput) -> impl futures::Stream<Item = Event> + Send + 'static {
///     futures::stream::iter([
///         Event::run_started(input.thread_id.clone(), input.run_id.clone()),
///         Event::run_finished(input.thread_id, input.run_id),
///     ])
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let app: axum::Router =
///     axum::Router::new().agent("/", AgentEndpoint::new(echo).with_resumable(MemoryLog::default()));
/// let run = Request::post("/")
///     .header("content-type", "application/json")
///     .body(Body::from(r#"{"threadId":"t","runId":"r1","messages":[],"protocolVersion":"1.0"}"#))
///     .unwrap();
/// let body = app.clone().oneshot(run).await.unwrap().into_body();
/// let text = String::from_utf8(axum::body::to_bytes(body, 1 << 20).await.unwrap().to_vec()).unwrap();
/// assert!(text.starts_with("retry: 1000\nid: r1:1\ndata: {\"type\":\"RUN_STARTED\""));
/// assert!(text.contains("id: r1:2\ndata: {\"type\":\"RUN_FINISHED\""));
///
/// // A client that saw event 1 reconnects and gets the rest.
/// let again = Request::get("/").header("last-event-id", "r1:1").body(Body::empty()).unwrap();
/// let body = app.clone().oneshot(again).await.unwrap().into_body();
/// let text = String::from_utf8(axum::body::to_bytes(body, 1 << 20).await.unwrap().to_vec()).unwrap();
/// assert!(text.starts_with("retry: 1000\nid: r1:2\ndata: {\"type\":\"RUN_FINISHED\""));
///
/// // An unknown run is a 404 with a JSON body.
/// let lost = Request::get("/?cursor=nope:3").body(Body::empty()).unwrap();
/// assert_eq!(app.oneshot(lost).await.unwrap().status(), 404);
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResumeConfig {
    /// How long a run whose client left goes on before it is cancelled, its log ending with a
    /// `RUN_ERROR` of code `detach-timeout` (default [`DEFAULT_DETACH_TIMEOUT`]).
    pub detach_timeout: Duration,
    /// The reconnection delay advised in `retry:` (default [`DEFAULT_RETRY`]).
    pub retry: Duration,
    /// The most runs going on detached at once (default [`DEFAULT_MAX_DETACHED`]). One more
    /// client leaving evicts the oldest detached run: it is cancelled and its log ends with a
    /// `RUN_ERROR` of code `evicted`. A new run that finds the log full (`log-full`) evicts the
    /// oldest detached run too, to take its place. `0`: no run goes on detached (a run whose
    /// client leaves is cancelled, its log ending the same way).
    pub max_detached: usize,
    /// The most bytes the detached runs hold together besides their log (default
    /// [`DEFAULT_MAX_DETACHED_BYTES`]): each is counted for its input as the endpoint's input
    /// budget counts it (what the parsed input holds, see
    /// [`EndpointLimits::max_input_bytes`](super::EndpointLimits::max_input_bytes)) and
    /// [`DETACHED_RUN_BYTES`] more. A client leaving that would take the count past it evicts
    /// the oldest detached runs first, as [`max_detached`](Self::max_detached) does; a run
    /// that alone would pass it is cancelled as its client leaves (`evicted`). So abandoned
    /// runs never hold more than this of the input budget, which leaves the rest to clients
    /// that stay.
    pub max_detached_bytes: usize,
}

impl Default for ResumeConfig {
    fn default() -> Self {
        Self {
            detach_timeout: DEFAULT_DETACH_TIMEOUT,
            retry: DEFAULT_RETRY,
            max_detached: DEFAULT_MAX_DETACHED,
            max_detached_bytes: DEFAULT_MAX_DETACHED_BYTES,
        }
    }
}

impl ResumeConfig {
    /// Sets [`detach_timeout`](Self::detach_timeout).
    #[must_use]
    pub fn with_detach_timeout(mut self, timeout: Duration) -> Self {
        self.detach_timeout = timeout;
        self
    }

    /// Sets [`retry`](Self::retry).
    #[must_use]
    pub fn with_retry(mut self, delay: Duration) -> Self {
        self.retry = delay;
        self
    }

    /// Sets [`max_detached`](Self::max_detached).
    #[must_use]
    pub fn with_max_detached(mut self, runs: usize) -> Self {
        self.max_detached = runs;
        self
    }

    /// Sets [`max_detached_bytes`](Self::max_detached_bytes).
    #[must_use]
    pub fn with_max_detached_bytes(mut self, bytes: usize) -> Self {
        self.max_detached_bytes = bytes;
        self
    }
}

/// What the detached runs of a resumable endpoint hold now, besides their log
/// ([`AgentEndpoint::detached_stats`](super::AgentEndpoint::detached_stats)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DetachedStats {
    /// Runs going on detached.
    pub runs: usize,
    /// The bytes they are counted for in [`ResumeConfig::max_detached_bytes`].
    pub bytes: usize,
}

/// The resumable mode of an endpoint: the log, its detached runs, the configuration.
#[derive(Clone)]
pub(crate) struct Resumable {
    pub(crate) log: Arc<dyn EventLog>,
    pub(crate) detached: Arc<Detached>,
    pub(crate) config: ResumeConfig,
}

impl fmt::Debug for Resumable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resumable")
            .field("log", &self.log)
            .field("detached", &self.detached.len())
            .field("config", &self.config)
            .finish()
    }
}

impl Resumable {
    pub(crate) fn new(log: Arc<dyn EventLog>, config: ResumeConfig) -> Self {
        Self {
            log,
            detached: Arc::default(),
            config,
        }
    }
}

/// The JSON error response for a log error, with its kind's status (and `Retry-After` for a
/// `503`: a full or unreachable log may take the run a moment later).
pub(crate) fn log_error_response(error: &LogError) -> Response {
    let status =
        StatusCode::from_u16(error.kind().status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = error_response(status, error.kind().as_str(), error.message(), None);
    if status == StatusCode::SERVICE_UNAVAILABLE {
        response.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from(super::limits::RETRY_AFTER_SECS),
        );
    }
    response
}

/// The refusal of a run id that cannot travel in an SSE `id:` field; `None` when it can.
pub(crate) fn refuse_run_id(run_id: &str) -> Option<Response> {
    let bad = run_id.is_empty()
        || run_id.len() > MAX_RUN_ID_LEN
        || run_id.bytes().any(|b| matches!(b, b'\r' | b'\n' | 0));
    if bad {
        return Some(error_response(
            StatusCode::BAD_REQUEST,
            "invalid-input",
            &format!(
                "a resumable endpoint takes run ids of 1 to {MAX_RUN_ID_LEN} bytes without CR, LF or NUL"
            ),
            Some("runId"),
        ));
    }
    None
}

/// The live side of a resumable run: appends each event to the log and writes its frame with
/// the id; finishes the log at the end, or goes on detached when the client leaves early.
pub(crate) struct LiveLog {
    writer: Box<dyn RunWriter>,
    run_id: Arc<str>,
    /// The JSON of an event logged without an SSE frame (protobuf, pre-1.0 clients): empty,
    /// and not allocated, for an SSE client.
    json: Vec<u8>,
    retry: Option<Duration>,
    config: ResumeConfig,
    /// The endpoint's detached runs, which this one joins if its client leaves.
    detached: Arc<Detached>,
    terminal: bool,
    /// The number of the last frame written.
    next_seq: u64,
    /// Where the JSON of each SSE frame written since the last flush lies in the output.
    ranges: Vec<(u32, u32)>,
    /// The head of the next SSE frame.
    head: sse::FrameHead,
    finished: bool,
    /// Whether the last output was a full batch: the agent writes faster than it is sent, so
    /// the next output starts in a buffer with room for a whole batch.
    full: bool,
}

impl LiveLog {
    pub(crate) fn new(writer: Box<dyn RunWriter>, run_id: &str, resumable: &Resumable) -> Self {
        Self {
            writer,
            run_id: Arc::from(run_id),
            json: Vec::new(),
            retry: Some(resumable.config.retry),
            config: resumable.config,
            detached: Arc::clone(&resumable.detached),
            terminal: false,
            next_seq: 0,
            ranges: Vec::new(),
            head: sse::FrameHead::new(run_id),
            finished: false,
            full: false,
        }
    }

    fn append(&mut self, event: &Event) -> u64 {
        self.terminal |= matches!(event, Event::RunFinished(_) | Event::RunError(_));
        self.json.clear();
        event.write_json(&mut self.json);
        self.writer.append(&self.json)
    }

    /// Appends `event` without writing a frame (the connection gets another form of it, as a
    /// pre-1.0 client does).
    pub(crate) fn log(&mut self, event: &Event) {
        self.append(event);
    }

    /// Appends `event` and writes its frame to `out`: SSE with `id:`, or protobuf.
    ///
    /// For SSE the JSON is written once, straight into the frame, and its place in `out` is
    /// noted: [`flush`](Self::flush) gives the log the output itself, which a backend may keep
    /// instead of copying (the frame's number is the writer's next: they are consecutive from 1).
    pub(crate) fn write(&mut self, event: &Event, sse: bool, out: &mut Vec<u8>) {
        if !sse {
            self.append(event);
            #[cfg(feature = "proto")]
            crate::encoding::proto::encode_into(event, out);
            return;
        }
        self.terminal |= matches!(event, Event::RunFinished(_) | Event::RunError(_));
        if let Some(retry) = self.retry.take() {
            sse::write_retry(retry, out);
        }
        self.next_seq += 1;
        let json = self.head.write_next(out, |out| event.write_json(out));
        // An output is at most a batch and one event: far below 4 GiB.
        self.ranges.push((json.start as u32, json.end as u32));
    }

    /// The buffer for the next output of SSE frames: while batches come full, one with room
    /// for a whole batch from the log ([`RunWriter::spare_buffer`], perhaps recycled); else an
    /// empty one that grows with what is written.
    pub(crate) fn buffer(&mut self) -> Vec<u8> {
        if self.full {
            self.writer.spare_buffer(BATCH_CAPACITY)
        } else {
            Vec::new()
        }
    }

    /// The output of SSE frames as the bytes for the socket and the log: a buffer with more
    /// than a quarter unused is shrunk first, so what a log keeps is mostly events.
    pub(crate) fn freeze(&mut self, mut output: Vec<u8>) -> Bytes {
        self.full = output.len() >= MAX_BATCH;
        if output.capacity() - output.len() > output.len() / 4 {
            output.shrink_to_fit();
        }
        Bytes::from(output)
    }

    /// Gives the log the events written into `output` since the last flush and makes them
    /// visible to readers; called with each output before it goes to the socket.
    pub(crate) fn flush(&mut self, output: &Bytes) {
        if !self.ranges.is_empty() {
            let last = self.writer.append_shared(output, &self.ranges);
            debug_assert_eq!(last, self.next_seq, "log sequence numbers are consecutive");
            self.ranges.clear();
        }
        self.writer.flush();
    }

    /// Marks the run finished in the log (once).
    pub(crate) fn finish(&mut self) {
        debug_assert!(self.ranges.is_empty(), "flushed before finishing");
        if !self.finished {
            self.finished = true;
            self.writer.finish();
        }
    }

    /// The endpoint's detached runs, which this one joins if its client leaves.
    pub(crate) fn detached(&self) -> &Arc<Detached> {
        &self.detached
    }

    /// The run's id.
    pub(crate) fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The configuration it was opened with.
    pub(crate) fn config(&self) -> &ResumeConfig {
        &self.config
    }

    /// Whether the run's `RUN_FINISHED` or `RUN_ERROR` is logged.
    pub(crate) fn is_terminal(&self) -> bool {
        self.terminal
    }
}

/// `GET` on a resumable endpoint: replay after the cursor, then follow the run.
pub(crate) async fn reconnect(
    resumable: &Resumable,
    req: Request,
    keep_alive: Option<Duration>,
) -> Response {
    let encoding = match super::negotiate(super::accept_header(req.headers()).as_deref()) {
        Ok(encoding) => encoding,
        Err(rejection) => return rejection.into_response(),
    };
    if encoding != Format::Sse {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            "not-acceptable",
            concat!(
                "a reconnect is answered in ",
                crate::encoding::media_type!(sse),
                " only"
            ),
            None,
        );
    }
    let cursor = match cursor_of(&req) {
        Ok(cursor) => cursor,
        Err(error) => return log_error_response(&error),
    };
    let tail = match resumable.log.read(cursor.run_id(), cursor.seq()).await {
        Ok(tail) => tail,
        Err(error) => {
            if error.kind() == LogErrorKind::Unavailable {
                tracing::warn!(%error, "the event log cannot be read");
            }
            return log_error_response(&error);
        }
    };
    let body = TailBody {
        tail,
        run_id: Arc::from(cursor.run_id()),
        retry: Some(resumable.config.retry),
        keep_alive: keep_alive.map(|every| (every, Box::pin(tokio::time::sleep(every)))),
        done: false,
    };
    let mut response = Response::new(Body::from_stream(body));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(crate::encoding::SSE_MEDIA_TYPE),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// The cursor of a reconnect: `Last-Event-ID`, else `?cursor=`, else `?runId=` from the
/// start; a `runId` that names another run than the cursor is refused.
fn cursor_of(req: &Request) -> Result<Cursor, LogError> {
    let query = req.uri().query().unwrap_or("");
    let mut run_param = None;
    let mut cursor_param = None;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_decode(value).ok_or_else(|| {
            LogError::new(
                LogErrorKind::MalformedCursor,
                format!("query parameter {key:?} is not valid percent-encoded UTF-8"),
            )
        })?;
        match key {
            "runId" => run_param = Some(value),
            "cursor" => cursor_param = Some(value),
            _ => {}
        }
    }
    let header = match req.headers().get("last-event-id") {
        None => None,
        Some(value) => Some(value.to_str().map(str::to_owned).map_err(|_| {
            LogError::new(
                LogErrorKind::MalformedCursor,
                "the Last-Event-ID header is not visible ASCII",
            )
        })?),
    };
    let cursor = match header.or(cursor_param) {
        Some(text) => Some(text.trim().parse::<Cursor>()?),
        None => None,
    };
    match (cursor, run_param) {
        (Some(cursor), Some(run)) if cursor.run_id() != run => Err(LogError::new(
            LogErrorKind::ForeignCursor,
            format!(
                "the cursor belongs to run {:?}, not to run {run:?}",
                cursor.run_id()
            ),
        )),
        (Some(cursor), _) => Ok(cursor),
        (None, Some(run)) if !run.is_empty() => Ok(Cursor::new(run, 0)),
        (None, _) => Err(LogError::new(
            LogErrorKind::MalformedCursor,
            "a reconnect names a run: a Last-Event-ID header, ?cursor=<runId>:<seq> or ?runId=<runId>",
        )),
    }
}

fn percent_decode(value: &str) -> Option<String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                let hex = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The body of a reconnect: the log's entries as SSE frames with ids, keep-alive when quiet.
struct TailBody {
    tail: Tail,
    run_id: Arc<str>,
    retry: Option<Duration>,
    keep_alive: Option<(Duration, Pin<Box<tokio::time::Sleep>>)>,
    done: bool,
}

impl Stream for TailBody {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        let mut out = Vec::new();
        loop {
            match this.tail.poll_next_unpin(cx) {
                Poll::Ready(Some(Ok(entry))) => {
                    if let Some(retry) = this.retry.take() {
                        sse::write_retry(retry, &mut out);
                    }
                    sse::write_cursor_id(&this.run_id, entry.seq, &mut out);
                    sse::write_data(&mut out, |out| out.extend_from_slice(&entry.data));
                    if out.len() >= MAX_BATCH {
                        break;
                    }
                }
                Poll::Ready(Some(Err(error))) => {
                    // Ending here makes the client reconnect, and the reconnect is answered
                    // with this error's status.
                    tracing::warn!(run_id = %this.run_id, %error, "reading the event log failed");
                    this.done = true;
                    break;
                }
                Poll::Ready(None) => {
                    this.done = true;
                    break;
                }
                Poll::Pending => break,
            }
        }
        if !out.is_empty() {
            if let Some((every, sleep)) = &mut this.keep_alive {
                sleep.as_mut().reset(tokio::time::Instant::now() + *every);
            }
            return Poll::Ready(Some(Ok(Bytes::from(out))));
        }
        if this.done {
            return Poll::Ready(None);
        }
        if let Some((every, sleep)) = &mut this.keep_alive
            && sleep.as_mut().poll(cx).is_ready()
        {
            sleep.as_mut().reset(tokio::time::Instant::now() + *every);
            return Poll::Ready(Some(Ok(Bytes::from_static(sse::KEEP_ALIVE))));
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor(uri: &str, last_event_id: Option<&str>) -> Result<Cursor, LogErrorKind> {
        let mut req = Request::get(uri);
        if let Some(id) = last_event_id {
            req = req.header("last-event-id", id);
        }
        cursor_of(&req.body(Body::empty()).unwrap()).map_err(|e| e.kind())
    }

    /// A writer that notes the room asked of it.
    #[derive(Debug, Default)]
    struct Asked(Arc<std::sync::Mutex<Vec<usize>>>);

    impl RunWriter for Asked {
        fn append(&mut self, _: &[u8]) -> u64 {
            0
        }
        fn spare_buffer(&mut self, capacity: usize) -> Vec<u8> {
            self.0.lock().unwrap().push(capacity);
            Vec::with_capacity(capacity)
        }
        fn finish(&mut self) {}
    }

    #[test]
    fn full_batches_ask_the_log_for_room_and_loose_buffers_are_shrunk() {
        let asked = Arc::new(std::sync::Mutex::new(Vec::new()));
        let resumable = Resumable::new(
            Arc::new(crate::server::log::MemoryLog::default()),
            ResumeConfig::default(),
        );
        let mut live = LiveLog::new(Box::new(Asked(Arc::clone(&asked))), "r", &resumable);
        let capacity = |bytes: Bytes| bytes.try_into_mut().unwrap().capacity();
        // A slow agent: small outputs, in buffers that grow with them, kept at their size.
        let mut out = live.buffer();
        assert_eq!(out.capacity(), 0);
        out.extend_from_slice(&[b'x'; 100]);
        out.reserve(1000);
        assert_eq!(capacity(live.freeze(out)), 100);
        assert!(live.buffer().capacity() == 0 && asked.lock().unwrap().is_empty());
        // A full batch: kept whole (a quarter unused at most), and the next output asks the
        // log for a batch's room.
        let mut out = Vec::with_capacity(BATCH_CAPACITY);
        out.resize(MAX_BATCH + 100, b'x');
        assert_eq!(capacity(live.freeze(out)), BATCH_CAPACITY);
        let out = live.buffer();
        assert!(out.capacity() >= BATCH_CAPACITY);
        assert_eq!(*asked.lock().unwrap(), [BATCH_CAPACITY]);
        // That buffer ending with little in it (the agent slowed down) is shrunk.
        let mut out = out;
        out.extend_from_slice(&[b'x'; 300]);
        assert_eq!(capacity(live.freeze(out)), 300);
        assert_eq!(live.buffer().capacity(), 0);
    }

    #[test]
    fn cursors_come_from_the_header_the_query_or_the_run() {
        assert_eq!(cursor("/", Some("r:3")), Ok(Cursor::new("r", 3)));
        assert_eq!(cursor("/?cursor=a%3Ab:4", None), Ok(Cursor::new("a:b", 4)));
        assert_eq!(cursor("/?runId=r", None), Ok(Cursor::new("r", 0)));
        assert_eq!(cursor("/?runId=r", Some("r:2")), Ok(Cursor::new("r", 2)));
        assert_eq!(
            cursor("/?runId=s", Some("r:2")),
            Err(LogErrorKind::ForeignCursor)
        );
        assert_eq!(cursor("/", None), Err(LogErrorKind::MalformedCursor));
        assert_eq!(
            cursor("/", Some("garbage")),
            Err(LogErrorKind::MalformedCursor)
        );
        assert_eq!(
            cursor("/?cursor=%zz", None),
            Err(LogErrorKind::MalformedCursor)
        );
        assert_eq!(
            cursor("/?cursor=%ff:1", None),
            Err(LogErrorKind::MalformedCursor)
        );
    }
}
