use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::client::transport::{Body, Piece, Timeout, TransportError, TransportErrorKind};
use crate::encoding::Format;
use crate::encoding::sse::FrameDecoder;
use crate::{DecodeError, EXCERPT_BYTES, excerpt};

/// The default number of failed reconnection attempts in a row before giving up: 8.
pub const DEFAULT_ATTEMPTS: u32 = 8;

/// The default largest delay a server's `retry:` may ask for: 30 seconds (a longer one is
/// cut to this). See [`ReconnectPolicy::with_max_retry`].
pub const DEFAULT_MAX_RETRY: Duration = Duration::from_secs(30);

/// Opens a stream of a run again, after a sequence number.
pub trait Reconnect: Send + Sync {
    /// The body of a reconnection.
    type Body: Body;

    /// Asks for the events of `run_id` after `after` (0: from its start), then the rest
    /// live.
    ///
    /// # Errors
    /// The transport's errors; an HTTP `4xx` is not retried.
    fn reconnect(
        &self,
        run_id: &str,
        after: u64,
    ) -> impl Future<Output = Result<Self::Body, TransportError>> + Send;
}

/// How [`Resuming`] retries: attempts in a row, first delay, largest delay, largest `retry:`
/// honoured.
///
/// ```
/// use std::time::Duration;
/// use ag_ui::client::ReconnectPolicy;
///
/// let policy = ReconnectPolicy::default().with_attempts(3).with_max_delay(Duration::from_secs(2));
/// assert_eq!((policy.attempts, policy.max_delay), (3, Duration::from_secs(2)));
/// assert_eq!(ReconnectPolicy::never().attempts, 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReconnectPolicy {
    /// The failed attempts in a row allowed before giving up (default [`DEFAULT_ATTEMPTS`];
    /// 0: never reconnect).
    pub attempts: u32,
    /// The delay before the first attempt when the stream sent no `retry:` (default 500 ms).
    pub initial_delay: Duration,
    /// The largest delay between attempts (default 10 s; a longer `retry:` the server asked
    /// for, once cut to [`max_retry`](Self::max_retry), is kept).
    pub max_delay: Duration,
    /// The largest delay a server's `retry:` may ask for (default [`DEFAULT_MAX_RETRY`]); a
    /// longer one is cut to it.
    pub max_retry: Duration,
}

impl Default for ReconnectPolicy {
    /// [`DEFAULT_ATTEMPTS`] attempts, 500 ms first (unless the stream says `retry:`), 10 s
    /// at most (or the stream's `retry:`, up to [`DEFAULT_MAX_RETRY`]).
    fn default() -> Self {
        Self {
            attempts: DEFAULT_ATTEMPTS,
            initial_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(10),
            max_retry: DEFAULT_MAX_RETRY,
        }
    }
}

impl ReconnectPolicy {
    /// A policy that never reconnects.
    pub fn never() -> Self {
        Self::default().with_attempts(0)
    }

    /// Sets [`attempts`](Self::attempts).
    #[must_use]
    pub fn with_attempts(mut self, attempts: u32) -> Self {
        self.attempts = attempts;
        self
    }

    /// Sets [`initial_delay`](Self::initial_delay).
    #[must_use]
    pub fn with_initial_delay(mut self, delay: Duration) -> Self {
        self.initial_delay = delay;
        self
    }

    /// Sets [`max_delay`](Self::max_delay).
    #[must_use]
    pub fn with_max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// Sets [`max_retry`](Self::max_retry).
    #[must_use]
    pub fn with_max_retry(mut self, delay: Duration) -> Self {
        self.max_retry = delay;
        self
    }

    /// The delay before attempt `attempt` (from 1) in a row: `retry` (cut to the policy's
    /// `max_retry`; or the initial delay) doubled per earlier attempt, capped at the largest
    /// delay (or the cut `retry`, when longer), scaled by `jitter` (in `[0.5, 1]` when drawn
    /// by [`Resuming`]).
    pub fn delay(&self, attempt: u32, retry: Option<Duration>, jitter: f64) -> Duration {
        let base = retry.map_or(self.initial_delay, |retry| retry.min(self.max_retry));
        let doubled = base.saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
        doubled
            .min(self.max_delay.max(base))
            .mul_f64(jitter.clamp(0.0, 1.0))
    }
}

/// What [`Resuming`] tells its hook before each reconnection attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reconnection {
    /// The run.
    pub run_id: String,
    /// The last event passed on (0: none).
    pub after: u64,
    /// The attempt in a row, from 1.
    pub attempt: u32,
    /// The wait before it.
    pub delay: Duration,
    /// Why the stream ended.
    pub cause: String,
}

impl fmt::Display for Reconnection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "reconnecting to run {} after event {} (attempt {}, in {} ms): {}",
            excerpt(&self.run_id, EXCERPT_BYTES),
            self.after,
            self.attempt,
            self.delay.as_millis(),
            self.cause
        )
    }
}

/// Called before each reconnection attempt (for a status line, a log, a metric).
pub type ReconnectHook = Arc<dyn Fn(&Reconnection) + Send + Sync>;

/// An optional hook that prints in `Debug` output.
#[derive(Clone, Default)]
pub(crate) struct HookSlot(pub(crate) Option<ReconnectHook>);

impl fmt::Debug for HookSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Some(hook)"
        } else {
            "None"
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Not known before the first bytes.
    Unknown,
    /// No ids: passed through.
    Plain,
    /// Ids: frames checked, reconnects.
    Resumable,
}

/// A response body that reconnects a resumable stream. See the [`Resuming`] docs.
///
/// Reconnecting to resumable runs: a response body that, when a resumable stream ends before
/// its run's last event, reconnects from the last event it passed on and carries on, so the
/// pipeline above it (decode, verify, apply) sees each event once, in order, as if the
/// connection had never dropped.
///
/// A stream is resumable when its SSE frames carry `id: <runId>:<seq>` (an endpoint served
/// with [`AgentEndpoint::with_resumable`](crate::axum::AgentEndpoint::with_resumable) does).
/// [`Resuming`] then:
///
/// - passes on whole frames only, decoded ([`Piece::Frame`]: the pipeline does not parse them
///   again), each once: a frame cut by the connection is dropped and
///   read again after the reconnect, a frame whose sequence number it has passed already is
///   skipped, and a jump in the numbers is an error, never a silent loss. The numbers may
///   start at 0 or 1; a frame that sets no id of its own (an SSE id persists) is passed on
///   without moving the cursor, and an id is read once, when it is set;
/// - when the stream ends (cleanly or with a transport error or idle timeout) and the last
///   event passed on is not `RUN_FINISHED` or `RUN_ERROR`, reconnects through its
///   [`Reconnect`] source with the cursor of that event, after a delay that grows
///   exponentially from the stream's `retry:` (or [`ReconnectPolicy`]'s initial delay), with
///   jitter, up to the policy's cap. A server's `retry:` is itself capped
///   ([`ReconnectPolicy::with_max_retry`], default [`DEFAULT_MAX_RETRY`]): a server cannot
///   make a client wait an hour;
/// - counts the waits against the idle timeout ([`Resuming::with_idle_timeout`]; `HttpAgent`
///   sets its own): from the end of a stream, a client that would wait (and reconnect) longer
///   than the idle timeout without hearing from the server ends the run with
///   [`Timeout::Idle`] instead;
/// - refuses a frame over the frame limit (10 MiB by default, or the pipeline's: a
///   [`Conversation`](crate::client::Conversation) sets it through
///   [`Body::set_max_event_size`]), counting its `id:` line, as the last piece
///   ([`Piece::Refused`], reported as the same decode error as on a stream without ids): an
///   oversized frame is the stream's fault, never a cut to reconnect after;
/// - gives up after [`ReconnectPolicy::with_attempts`] failed attempts in a row (an attempt
///   that brings a new event starts the count again), with the last error; a refusal of the
///   server (`4xx`, such as `410` for a run past retention) is returned at once.
///
/// Streams without ids (any other server, protobuf) pass through untouched. Dropping the body,
/// which is what cancelling a run does, never reconnects.
///
/// [`HttpAgent`](crate::client::HttpAgent) reconnects this way by itself, and attaches to
/// a run in flight with [`HttpAgent::attach`](crate::client::HttpAgent::attach).
///
/// ```
/// use ag_ui::client::ReconnectPolicy;
/// use std::time::Duration;
///
/// let policy = ReconnectPolicy::default()
///     .with_attempts(3)
///     .with_initial_delay(Duration::from_millis(100));
/// // The n-th attempt in a row waits about initial × 2ⁿ⁻¹ (with jitter), capped.
/// assert!(policy.delay(1, None, 0.5) >= Duration::from_millis(50));
/// assert!(policy.delay(3, None, 1.0) <= Duration::from_millis(400));
/// // The stream's `retry:` replaces the initial delay, capped at the policy's `max_retry`.
/// assert_eq!(policy.delay(1, Some(Duration::from_secs(2)), 1.0), Duration::from_secs(2));
/// assert_eq!(
///     policy.delay(1, Some(Duration::from_secs(3240)), 1.0),
///     ag_ui::client::DEFAULT_MAX_RETRY
/// );
/// ```
pub struct Resuming<R: Reconnect> {
    source: R,
    body: Option<R::Body>,
    wire: Format,
    mode: Mode,
    decoder: FrameDecoder,
    head: Vec<u8>,
    run_id: Option<String>,
    /// The run id the request named, to join when the stream is cut before its first id.
    hint: Option<String>,
    last_seq: u64,
    /// A sequence number was passed on (or given to attach after): `last_seq` is one.
    has_seq: bool,
    /// [`Frame::ids_set`](crate::encoding::sse::Frame) of the last frame read: a frame with
    /// the same count set no id of its own.
    ids_seen: u64,
    last_data: Vec<u8>,
    retry: Option<Duration>,
    failures: u32,
    policy: ReconnectPolicy,
    hook: Option<ReconnectHook>,
    cause: String,
    /// An attach connects without a delay the first time.
    first: bool,
    /// The idle timeout the waits count against.
    idle: Option<Duration>,
    /// Since when nothing has come from the server: the last piece read, or the end of the
    /// last stream.
    quiet_since: Instant,
    rng: u64,
    /// The data of the frames decoded and not yet handed on.
    ready: VecDeque<String>,
    /// The frames passed on so far, over every connection: the index of the next one.
    passed: u64,
    /// A frame over the limit, to hand on as the last piece.
    refused: Option<DecodeError>,
    /// The refused frame was handed on: the body is over.
    over: bool,
}

impl<R: Reconnect + fmt::Debug> fmt::Debug for Resuming<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resuming")
            .field("source", &self.source)
            .field("mode", &self.mode)
            .field("run_id", &self.run_id)
            .field("last_seq", &self.last_seq)
            .field("failures", &self.failures)
            .finish_non_exhaustive()
    }
}

impl<R: Reconnect> Resuming<R> {
    /// Wraps `body`, the response to a run `source` can reconnect to.
    pub fn new(source: R, body: R::Body, policy: ReconnectPolicy) -> Self {
        let wire = body.format();
        let mut this = Self::empty(source, policy, wire);
        if wire != Format::Sse {
            this.mode = Mode::Plain;
        }
        this.body = Some(body);
        this
    }

    /// A body that connects to `run_id` after `after` (0: from the start) on its first read.
    pub fn attach(
        source: R,
        run_id: impl Into<String>,
        after: u64,
        policy: ReconnectPolicy,
    ) -> Self {
        let mut this = Self::empty(source, policy, Format::Sse);
        this.mode = Mode::Resumable;
        this.run_id = Some(run_id.into());
        this.last_seq = after;
        this.has_seq = after > 0;
        this.first = true;
        this
    }

    fn empty(source: R, policy: ReconnectPolicy, wire: Format) -> Self {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Self {
            source,
            body: None,
            wire,
            mode: Mode::Unknown,
            decoder: FrameDecoder::new(),
            head: Vec::new(),
            run_id: None,
            hint: None,
            last_seq: 0,
            has_seq: false,
            ids_seen: 0,
            last_data: Vec::new(),
            retry: None,
            failures: 0,
            policy,
            hook: None,
            cause: String::new(),
            first: false,
            idle: None,
            quiet_since: Instant::now(),
            rng: seed | 1,
            ready: VecDeque::new(),
            passed: 0,
            refused: None,
            over: false,
        }
    }

    /// Names the run the request started: a stream cut before its first event is then
    /// joined from the run's start (when the endpoint turns out not to be resumable, the
    /// stream ends as it did).
    #[must_use]
    pub fn with_run_id(mut self, run_id: impl Into<String>) -> Self {
        self.hint = Some(run_id.into());
        self
    }

    /// Counts the waits before reconnecting against `timeout`: from the end of a stream (or
    /// the last piece read, when later), a wait that would leave the server unheard for longer
    /// than `timeout` ends the body with [`Timeout::Idle`] instead (none by default;
    /// `Duration::MAX` waits for ever).
    #[must_use]
    pub fn with_idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle = Some(timeout);
        self
    }

    /// Calls `hook` before each reconnection attempt.
    #[must_use]
    pub fn with_hook(mut self, hook: Option<ReconnectHook>) -> Self {
        self.hook = hook;
        self
    }

    /// Sets the largest frame accepted (see [`FrameDecoder::with_max_event_size`]; 10 MiB by
    /// default): a larger one ends the body with [`Piece::Refused`], never a reconnect. A
    /// [`Conversation`](crate::client::Conversation) sets its pipeline's limit here (through
    /// [`Body::set_max_event_size`]).
    #[must_use]
    pub fn with_max_event_size(mut self, bytes: usize) -> Self {
        self.decoder.set_max_event_size(bytes);
        self
    }

    /// The run, once known.
    pub fn run_id(&self) -> Option<&str> {
        self.run_id.as_deref()
    }

    /// The sequence number of the last event passed on (0: none yet).
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// Whether the stream is resumable (its frames carry ids).
    pub fn is_resumable(&self) -> bool {
        self.mode == Mode::Resumable
    }

    fn jitter(&mut self) -> f64 {
        // xorshift: spreading clients out needs no cryptography.
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        0.5 + (self.rng >> 11) as f64 / (1u64 << 53) as f64 * 0.5
    }

    /// Whether the last event passed on ends the run.
    fn ended(&self) -> bool {
        #[derive(serde::Deserialize)]
        struct Type<'a> {
            #[serde(rename = "type", borrow)]
            kind: std::borrow::Cow<'a, str>,
        }
        serde_json::from_slice::<Type<'_>>(&self.last_data)
            .is_ok_and(|t| t.kind == "RUN_FINISHED" || t.kind == "RUN_ERROR")
    }

    /// Connects (again) with the cursor, waiting and retrying within the budget.
    pub(crate) async fn connect(&mut self) -> Result<(), TransportError> {
        let Some(run_id) = self.run_id.clone().or_else(|| self.hint.clone()) else {
            return Err(TransportError::connection(
                "resuming a run",
                "the stream ended before naming its run",
            ));
        };
        self.run_id = Some(run_id.clone());
        loop {
            if self.first {
                self.first = false;
            } else {
                let jitter = self.jitter();
                let delay = self.policy.delay(self.failures.max(1), self.retry, jitter);
                if let Some(idle) = self.idle
                    && delay > idle.saturating_sub(self.quiet_since.elapsed())
                {
                    return Err(TransportError::from(Timeout::Idle(idle)));
                }
                if let Some(hook) = &self.hook {
                    hook(&Reconnection {
                        run_id: run_id.clone(),
                        after: self.last_seq,
                        attempt: self.failures.max(1),
                        delay,
                        cause: self.cause.clone(),
                    });
                }
                tokio::time::sleep(delay).await;
            }
            match self.source.reconnect(&run_id, self.last_seq).await {
                Ok(body) => {
                    self.quiet_since = Instant::now();
                    self.body = Some(body);
                    self.decoder.reset();
                    self.ids_seen = 0;
                    return Ok(());
                }
                Err(error) if retriable(&error) && self.failures < self.policy.attempts => {
                    self.failures += 1;
                    self.cause = error.to_string();
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// Decodes `bytes` into frames and queues the data of the new ones; a frame over the
    /// limit is kept in `self.refused` (with its index among the frames passed on), and
    /// nothing after it is read.
    fn frames(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        self.decoder.push(bytes);
        let mut progressed = false;
        loop {
            let frame = match self.decoder.next_frame() {
                Ok(Some(frame)) => frame,
                Ok(None) => break,
                Err(error) => {
                    // Oversized: a hard error of the stream, not a cut to reconnect after.
                    self.refused = Some(error.with_index(self.passed));
                    break;
                }
            };
            // An id persists across frames: only a frame that set one anew has a cursor to
            // read (read once, however long the id and however many frames follow it).
            let fresh = frame.ids_set() != self.ids_seen;
            self.ids_seen = frame.ids_set();
            if fresh
                && let Some(id) = frame.id()
                && let Some((run, seq)) = cursor(id)
            {
                match &self.run_id {
                    Some(known) if known != run => {
                        return Err(TransportError::connection(
                            "resuming a run",
                            format!(
                                "the stream of run {:?} carried an event of run {:?}",
                                excerpt(known, EXCERPT_BYTES),
                                excerpt(run, EXCERPT_BYTES)
                            ),
                        ));
                    }
                    Some(_) => {}
                    None => self.run_id = Some(run.to_owned()),
                }
                if self.has_seq && seq <= self.last_seq {
                    continue;
                }
                // The first number may be 0 or 1 (servers count from either).
                let first = if self.has_seq { self.last_seq + 1 } else { 1 };
                if seq > first {
                    return Err(TransportError::connection(
                        "resuming a run",
                        format!(
                            "events {first} to {} of run {:?} are missing from the stream",
                            seq - 1,
                            excerpt(self.run_id.as_deref().unwrap_or(""), EXCERPT_BYTES)
                        ),
                    ));
                }
                self.last_seq = seq;
                self.has_seq = true;
                progressed = true;
            }
            let data = frame.text();
            self.ready.push_back(data.to_owned());
            self.passed += 1;
            self.last_data.clear();
            self.last_data.extend_from_slice(data.as_bytes());
        }
        if let Some(ms) = self.decoder.retry() {
            self.retry = Some(Duration::from_millis(ms));
        }
        if progressed {
            self.failures = 0;
        }
        Ok(())
    }
}

fn cursor(id: &str) -> Option<(&str, u64)> {
    let (run, seq) = id.rsplit_once(':')?;
    if run.is_empty() || seq.is_empty() || !seq.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((run, seq.parse().ok()?))
}

/// Whether `error`, before the stream has shown ids, is a reason to try the endpoint as a
/// resumable one: a cut connection only. A timeout there is the agent stalling on a stream that
/// may not be resumable at all, and an HTTP error is the endpoint's answer: both are reported
/// as they are rather than retried against a reconnect route that may not exist.
pub(crate) fn speculative(error: &TransportError) -> bool {
    error.kind() == TransportErrorKind::Connection
}

/// Errors worth another attempt: the connection, a silent server, a server error.
pub(crate) fn retriable(error: &TransportError) -> bool {
    match error.kind() {
        TransportErrorKind::Connection => true,
        TransportErrorKind::Timeout => !matches!(error.timeout(), Some(Timeout::Total(_))),
        TransportErrorKind::Http => error.status().is_some_and(|s| s >= 500 || s == 429),
        _ => false,
    }
}

impl<R: Reconnect> Body for Resuming<R>
where
    R::Body: Send,
{
    async fn next(&mut self) -> Result<Option<Piece>, TransportError> {
        loop {
            if let Some(data) = self.ready.pop_front() {
                return Ok(Some(Piece::Frame(data)));
            }
            if self.over {
                return Ok(None);
            }
            if let Some(error) = self.refused.take() {
                // The frames before it were handed on first; the connection is closed.
                self.over = true;
                self.body = None;
                return Ok(Some(Piece::Refused(error)));
            }
            let Some(body) = self.body.as_mut() else {
                self.connect().await?;
                continue;
            };
            let read = body.next().await;
            // Any piece, or the end of the stream, is hearing from the server: the idle
            // timeout then bounds the waits and attempts that reconnect.
            self.quiet_since = Instant::now();
            match read {
                Ok(Some(Piece::Bytes(bytes))) => {
                    if self.mode == Mode::Unknown {
                        self.head.extend_from_slice(&bytes);
                        let head = self
                            .head
                            .strip_prefix(b"\xEF\xBB\xBF")
                            .unwrap_or(&self.head);
                        let marks: [&[u8]; 2] = [b"retry:", b"id:"];
                        if marks.iter().any(|m| head.starts_with(m)) {
                            self.mode = Mode::Resumable;
                            let head = std::mem::take(&mut self.head);
                            self.frames(&head)?;
                        } else if marks.iter().any(|m| m.starts_with(head)) {
                            continue; // too short to tell
                        } else {
                            self.mode = Mode::Plain;
                            let head = std::mem::take(&mut self.head);
                            return Ok(Some(Piece::Bytes(head.into())));
                        }
                    } else if self.mode == Mode::Plain {
                        return Ok(Some(Piece::Bytes(bytes)));
                    } else {
                        self.frames(&bytes)?;
                    }
                }
                Ok(Some(other)) => return Ok(Some(other)),
                end @ (Ok(None) | Err(_)) => {
                    let marks: [&[u8]; 2] = [b"retry:", b"id:"];
                    let head = self
                        .head
                        .strip_prefix(b"\xEF\xBB\xBF")
                        .unwrap_or(&self.head);
                    let speculative = self.mode == Mode::Unknown
                        && self.wire == Format::Sse
                        && self.policy.attempts > 0
                        && marks.iter().any(|m| m.starts_with(head))
                        && end.as_ref().err().is_none_or(speculative);
                    if speculative && let Some(run_id) = self.hint.clone() {
                        // Cut before the first frame: the endpoint may be resumable.
                        self.mode = Mode::Resumable;
                        self.run_id = Some(run_id);
                        self.head.clear();
                        self.body = None;
                        self.failures = 1;
                        self.cause = match &end {
                            Ok(_) => "the stream ended before its first event".to_owned(),
                            Err(error) => error.to_string(),
                        };
                        match self.connect().await {
                            Ok(()) => continue,
                            Err(error)
                                if error.kind() == TransportErrorKind::Http
                                    && error.status().is_some_and(|s| s < 500) =>
                            {
                                return end;
                            }
                            Err(error) => return Err(error),
                        }
                    }
                    let resumable = self.mode == Mode::Resumable
                        && !self.ended()
                        && end.as_ref().err().is_none_or(retriable);
                    if !resumable || self.failures >= self.policy.attempts {
                        if self.mode == Mode::Unknown && !self.head.is_empty() {
                            let head = std::mem::take(&mut self.head);
                            self.mode = Mode::Plain;
                            return Ok(Some(Piece::Bytes(head.into())));
                        }
                        return end;
                    }
                    self.failures += 1;
                    self.cause = match &end {
                        Ok(_) => "the stream ended before the run did".to_owned(),
                        Err(error) => error.to_string(),
                    };
                    self.body = None;
                }
            }
        }
    }

    fn format(&self) -> Format {
        self.wire
    }

    fn set_max_event_size(&mut self, bytes: usize) {
        self.decoder.set_max_event_size(bytes);
    }
}
