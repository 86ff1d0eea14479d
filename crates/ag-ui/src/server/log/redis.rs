use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::{AsyncConnectionConfig, Value};
use tokio::sync::mpsc;

use super::{Entry, EventLog, LogError, LogErrorKind, LogFuture, RunWriter, Tail};

/// The settings of a [`RedisLog`].
///
/// Redis's granularity and the log's workings set floors, applied however the fields were
/// set ([`RedisLog::connect_with`] applies them): `retention` and `tombstone` count as at least
/// 1 s, `block` as at least 1 ms, and `max_len`, `max_queued` and `batch` as at least 1.
///
/// ```
/// use std::time::Duration;
/// use ag_ui::server::log::RedisLogConfig;
///
/// let config = RedisLogConfig::default().with_prefix("app:").with_max_len(10_000);
/// assert_eq!((config.prefix.as_str(), config.max_len), ("app:", 10_000));
/// assert_eq!(RedisLogConfig::default().retention, Duration::from_secs(300));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RedisLogConfig {
    /// The prefix of every key (default `ag-ui:`).
    pub prefix: String,
    /// The length a run's stream is trimmed to, about (`MAXLEN ~`; default 100 000 events).
    pub max_len: usize,
    /// How long a finished run's events are kept (default 5 minutes; at least 1 s).
    pub retention: Duration,
    /// How long a run id is remembered after its events expire (default a day; at least 1 s).
    pub tombstone: Duration,
    /// How long one blocking read waits for new events (default 5 s; at least 1 ms).
    pub block: Duration,
    /// How many events of one run may wait for Redis; more are dropped and logged (default
    /// 65 536).
    pub max_queued: usize,
    /// The most events written in one pipeline (default 1024).
    pub batch: usize,
    /// How long a failing write is retried before its events are dropped (default 30 s).
    pub give_up: Duration,
}

impl Default for RedisLogConfig {
    /// Prefix `ag-ui:`, 100 000 events per run, 5 minutes after the end, tombstones for a
    /// day, 5 s blocking reads, 65 536 events queued per run, 1024 per pipeline, 30 s of
    /// retries.
    fn default() -> Self {
        Self {
            prefix: "ag-ui:".to_owned(),
            max_len: 100_000,
            retention: Duration::from_secs(300),
            tombstone: Duration::from_secs(86_400),
            block: Duration::from_secs(5),
            max_queued: 65_536,
            batch: 1024,
            give_up: Duration::from_secs(30),
        }
    }
}

impl RedisLogConfig {
    /// Sets [`prefix`](Self::prefix).
    #[must_use]
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Sets [`max_len`](Self::max_len).
    #[must_use]
    pub fn with_max_len(mut self, events: usize) -> Self {
        self.max_len = events;
        self
    }

    /// Sets [`retention`](Self::retention).
    #[must_use]
    pub fn with_retention(mut self, retention: Duration) -> Self {
        self.retention = retention;
        self
    }

    /// Sets [`tombstone`](Self::tombstone).
    #[must_use]
    pub fn with_tombstone(mut self, time: Duration) -> Self {
        self.tombstone = time;
        self
    }

    /// Sets [`block`](Self::block).
    #[must_use]
    pub fn with_block(mut self, time: Duration) -> Self {
        self.block = time;
        self
    }

    /// Sets [`max_queued`](Self::max_queued).
    #[must_use]
    pub fn with_max_queued(mut self, events: usize) -> Self {
        self.max_queued = events;
        self
    }

    /// Sets [`batch`](Self::batch).
    #[must_use]
    pub fn with_batch(mut self, events: usize) -> Self {
        self.batch = events;
        self
    }

    /// Sets [`give_up`](Self::give_up).
    #[must_use]
    pub fn with_give_up(mut self, time: Duration) -> Self {
        self.give_up = time;
        self
    }

    /// The settings a log holds to: the one place the fields' floors are applied.
    fn effective(self) -> Self {
        let second = Duration::from_secs(1);
        Self {
            max_len: self.max_len.max(1),
            retention: self.retention.max(second),
            tombstone: self.tombstone.max(second),
            block: self.block.max(Duration::from_millis(1)),
            max_queued: self.max_queued.max(1),
            batch: self.batch.max(1),
            ..self
        }
    }
}

/// The event log on Redis Streams. Cloning shares the connection. See the
/// [`RedisLog`] docs.
///
/// [`RedisLog`]: the event log on Redis Streams, shared by every server instance that points
/// at the same Redis.
///
/// Each run is one stream, `<prefix>s:<runId>`, whose entry ids are `0-<seq>`: the event at
/// sequence number `seq` is the entry `0-seq` with one field `d` holding its JSON, so a cursor
/// maps onto a stream id and `XREAD … STREAMS key 0-<seq>` both replays and follows. The end
/// of a run is one more entry, `0-<last+1>` with a field `end`; a reader that meets it, or a
/// jump in the numbers, knows whether it saw every event.
///
/// - **Appends** never wait: [`RunWriter::append`] queues the event (up to
///   [`max_queued`](RedisLogConfig::max_queued) per run) for a task that writes
///   what is queued in one pipeline of `XADD`s (`MAXLEN ~` caps the stream,
///   [`max_len`](RedisLogConfig::max_len)). When Redis is slow or gone the task
///   retries with backoff for [`give_up`](RedisLogConfig::give_up); events it cannot
///   store are dropped and logged, and readers of that part get
///   [`LogErrorKind::Incomplete`]. The live stream of the connected client is never held up.
/// - **Reads** use a connection of their own and `XREAD BLOCK`, so tails do not queue behind
///   appends.
/// - **Retention**: when a run finishes its stream gets `EXPIRE` (the retention); a small
///   marker key `<prefix>g:<runId>` outlives it (the tombstone time) so a late reader gets
///   `expired`, not `unknown-run`. The marker, set with `SET NX` when a run opens, also keeps
///   two instances from logging the same run id.
///
/// ```no_run
/// use ag_ui::axum::{AgentEndpoint, RouterExt};
/// use ag_ui::server::log::RedisLog;
/// # use ag_ui::{Event, RunAgentInput};
/// # fn echo(input: RunAgentInput) -> impl futures::Stream<Item = Event> + Send + 'static {
/// #     futures::stream::iter([Event::run_finished(input.thread_id, input.run_id)])
/// # }
///
/// # #[tokio::main] async fn main() -> Result<(), ag_ui::server::log::LogError> {
/// let log = RedisLog::connect("redis://127.0.0.1:6379").await?;
/// let app: axum::Router = axum::Router::new().agent("/", AgentEndpoint::new(echo).with_resumable(log));
/// # let _ = app; Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisLog {
    client: redis::Client,
    conn: ConnectionManager,
    config: Arc<RedisLogConfig>,
}

impl fmt::Debug for RedisLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisLog")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

fn unavailable(what: &str, error: &redis::RedisError) -> LogError {
    LogError::new(LogErrorKind::Unavailable, format!("Redis: {what}: {error}"))
}

impl RedisLog {
    /// Connects to Redis at `url` (`redis://host:port[/db]`) with the default settings.
    ///
    /// # Errors
    ///
    /// [`LogErrorKind::Unavailable`] when the URL is invalid or Redis cannot be reached.
    pub async fn connect(url: &str) -> Result<Self, LogError> {
        Self::connect_with(url, RedisLogConfig::default()).await
    }

    /// Connects to Redis at `url` with these settings.
    ///
    /// # Errors
    ///
    /// [`LogErrorKind::Unavailable`] when the URL is invalid or Redis cannot be reached.
    pub async fn connect_with(url: &str, config: RedisLogConfig) -> Result<Self, LogError> {
        let client = redis::Client::open(url).map_err(|e| unavailable("the URL", &e))?;
        let manager = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(2)))
            .set_response_timeout(Some(Duration::from_secs(5)))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_millis(500));
        let conn = client
            .get_connection_manager_with_config(manager)
            .await
            .map_err(|e| unavailable("connecting", &e))?;
        Ok(Self {
            client,
            conn,
            config: Arc::new(config.effective()),
        })
    }

    /// The settings.
    pub fn config(&self) -> &RedisLogConfig {
        &self.config
    }

    fn stream_key(&self, run_id: &str) -> String {
        format!("{}s:{run_id}", self.config.prefix)
    }

    fn marker_key(&self, run_id: &str) -> String {
        format!("{}g:{run_id}", self.config.prefix)
    }

    async fn open_run(&self, run_id: &str) -> Result<Box<dyn RunWriter>, LogError> {
        let marker = self.marker_key(run_id);
        let mut conn = self.conn.clone();
        let claimed: Value = redis::cmd("SET")
            .arg(&marker)
            .arg("live")
            .arg("NX")
            .arg("EX")
            .arg(self.config.tombstone.as_secs().max(1))
            .query_async(&mut conn)
            .await
            .map_err(|e| unavailable("opening a run", &e))?;
        if matches!(claimed, Value::Nil) {
            return Err(LogError::new(
                LogErrorKind::Conflict,
                format!("run {run_id:?} is in the log already"),
            ));
        }
        let (tx, rx) = mpsc::channel(self.config.max_queued);
        let task = WriteTask {
            conn,
            config: Arc::clone(&self.config),
            stream: self.stream_key(run_id),
            marker,
            run_id: run_id.to_owned(),
            written: 0,
            warned: false,
        };
        tokio::spawn(task.run(rx));
        Ok(Box::new(RedisWriter {
            tx: Some(tx),
            next_seq: 1,
            run_id: run_id.to_owned(),
            dropped: 0,
        }))
    }

    async fn read_run(&self, run_id: &str, after: u64) -> Result<Tail, LogError> {
        let stream = self.stream_key(run_id);
        let marker = self.marker_key(run_id);
        let mut conn = self.conn.clone();
        let (state, first, last): (Option<String>, Value, Value) = redis::pipe()
            .cmd("GET")
            .arg(&marker)
            .cmd("XRANGE")
            .arg(&stream)
            .arg("-")
            .arg("+")
            .arg("COUNT")
            .arg(1)
            .cmd("XREVRANGE")
            .arg(&stream)
            .arg("+")
            .arg("-")
            .arg("COUNT")
            .arg(1)
            .query_async(&mut conn)
            .await
            .map_err(|e| unavailable("reading a run", &e))?;
        let first = parse_entries(first)?.into_iter().next();
        let last = parse_entries(last)?.into_iter().next();
        match (&state, &first) {
            (None, None) => {
                return Err(LogError::new(
                    LogErrorKind::UnknownRun,
                    format!("no run {run_id:?} in the event log"),
                ));
            }
            (Some(state), None) if state == "done" => {
                return Err(LogError::new(
                    LogErrorKind::Expired,
                    format!("run {run_id:?} is no longer kept in the event log"),
                ));
            }
            _ => {}
        }
        if let Some(first) = &first
            && first.0 > after + 1
        {
            return Err(LogError::new(
                LogErrorKind::Expired,
                format!(
                    "run {run_id:?} keeps events from {} on; the events after {after} are no longer kept",
                    first.0
                ),
            ));
        }
        if let Some((end, None)) = &last
            && after >= *end
        {
            return Err(LogError::new(
                LogErrorKind::FutureCursor,
                format!(
                    "run {run_id:?} has {} events; the cursor is at {after}",
                    end - 1
                ),
            ));
        }
        let connection = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(2)))
            .set_response_timeout(Some(self.config.block + Duration::from_secs(5)));
        let reader = self
            .client
            .get_multiplexed_async_connection_with_config(&connection)
            .await
            .map_err(|e| unavailable("connecting a reader", &e))?;
        let tail = ReadState {
            conn: reader,
            stream,
            marker,
            run_id: run_id.to_owned(),
            cursor: after,
            batch: std::collections::VecDeque::new(),
            done: false,
            block_ms: self.config.block.as_millis().max(1) as u64,
        };
        Ok(Box::pin(futures::stream::unfold(tail, ReadState::next)))
    }
}

impl EventLog for RedisLog {
    fn open<'a>(&'a self, run_id: &'a str) -> LogFuture<'a, Result<Box<dyn RunWriter>, LogError>> {
        Box::pin(self.open_run(run_id))
    }

    fn read<'a>(&'a self, run_id: &'a str, after: u64) -> LogFuture<'a, Result<Tail, LogError>> {
        Box::pin(self.read_run(run_id, after))
    }
}

enum Message {
    Append(u64, Bytes),
    Finish(u64),
}

/// The [`RunWriter`] of a [`RedisLog`] run: queues for the write task. Dropping it finishes
/// the run.
struct RedisWriter {
    tx: Option<mpsc::Sender<Message>>,
    next_seq: u64,
    run_id: String,
    dropped: u64,
}

impl fmt::Debug for RedisWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisWriter")
            .field("run_id", &self.run_id)
            .field("next_seq", &self.next_seq)
            .finish_non_exhaustive()
    }
}

impl RunWriter for RedisWriter {
    fn append(&mut self, json: &[u8]) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        if let Some(tx) = &self.tx
            && tx
                .try_send(Message::Append(seq, Bytes::copy_from_slice(json)))
                .is_err()
        {
            if self.dropped == 0 {
                tracing::error!(
                    run_id = %self.run_id,
                    seq,
                    "the Redis event log is behind; events are dropped from the log (the live stream goes on)"
                );
            }
            self.dropped += 1;
        }
        seq
    }

    fn finish(&mut self) {
        if let Some(tx) = self.tx.take() {
            let end = self.next_seq;
            // The end marker must get through even when the queue is full.
            tokio::spawn(async move {
                let _ = tx.send(Message::Finish(end)).await;
            });
        }
    }
}

impl Drop for RedisWriter {
    fn drop(&mut self) {
        if tokio::runtime::Handle::try_current().is_ok() {
            self.finish();
        }
    }
}

struct WriteTask {
    conn: ConnectionManager,
    config: Arc<RedisLogConfig>,
    stream: String,
    marker: String,
    run_id: String,
    /// The highest seq known to be stored.
    written: u64,
    warned: bool,
}

impl WriteTask {
    async fn run(mut self, mut rx: mpsc::Receiver<Message>) {
        let mut batch = Vec::with_capacity(self.config.batch);
        loop {
            if rx.recv_many(&mut batch, self.config.batch).await == 0 {
                return;
            }
            let finished = batch.iter().any(|m| matches!(m, Message::Finish(_)));
            self.write(&mut batch).await;
            batch.clear();
            if finished {
                return;
            }
        }
    }

    fn pipeline(&self, batch: &[Message]) -> redis::Pipeline {
        let mut pipe = redis::pipe();
        for message in batch {
            match message {
                Message::Append(seq, data) if *seq > self.written => {
                    pipe.cmd("XADD")
                        .arg(&self.stream)
                        .arg("MAXLEN")
                        .arg("~")
                        .arg(self.config.max_len)
                        .arg(format!("0-{seq}"))
                        .arg("d")
                        .arg(data.as_ref())
                        .ignore();
                }
                Message::Append(..) => {}
                Message::Finish(end) => {
                    if *end > self.written {
                        pipe.cmd("XADD")
                            .arg(&self.stream)
                            .arg(format!("0-{end}"))
                            .arg("end")
                            .arg(1)
                            .ignore();
                    }
                    pipe.cmd("EXPIRE")
                        .arg(&self.stream)
                        .arg(self.config.retention.as_secs().max(1))
                        .ignore();
                    pipe.cmd("SET")
                        .arg(&self.marker)
                        .arg("done")
                        .arg("EX")
                        .arg((self.config.retention + self.config.tombstone).as_secs())
                        .ignore();
                }
            }
        }
        pipe
    }

    async fn write(&mut self, batch: &mut [Message]) {
        let started = tokio::time::Instant::now();
        let mut delay = Duration::from_millis(50);
        loop {
            let pipe = self.pipeline(batch);
            let result: redis::RedisResult<()> = pipe.query_async(&mut self.conn).await;
            match result {
                Ok(()) => {
                    if let Some(top) = batch
                        .iter()
                        .map(|m| match m {
                            Message::Append(seq, _) | Message::Finish(seq) => *seq,
                        })
                        .max()
                    {
                        self.written = self.written.max(top);
                    }
                    if self.warned {
                        tracing::info!(run_id = %self.run_id, "the Redis event log is writable again");
                        self.warned = false;
                    }
                    return;
                }
                Err(error) => {
                    if !self.warned {
                        tracing::error!(run_id = %self.run_id, %error, "writing to the Redis event log failed; retrying");
                        self.warned = true;
                    }
                    if started.elapsed() >= self.config.give_up {
                        tracing::error!(
                            run_id = %self.run_id,
                            events = batch.len(),
                            "the Redis event log stayed unavailable; events were dropped from the log"
                        );
                        return;
                    }
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(Duration::from_secs(1));
                    // Part of the pipeline may have been stored: go on after what was.
                    if let Ok(top) = self.top().await {
                        self.written = self.written.max(top);
                    }
                }
            }
        }
    }

    async fn top(&mut self) -> Result<u64, LogError> {
        let last: Value = redis::cmd("XREVRANGE")
            .arg(&self.stream)
            .arg("+")
            .arg("-")
            .arg("COUNT")
            .arg(1)
            .query_async(&mut self.conn)
            .await
            .map_err(|e| unavailable("reading a run's last entry", &e))?;
        Ok(parse_entries(last)?.first().map_or(0, |e| e.0))
    }
}

struct ReadState {
    conn: MultiplexedConnection,
    stream: String,
    marker: String,
    run_id: String,
    cursor: u64,
    batch: std::collections::VecDeque<(u64, Option<Bytes>)>,
    done: bool,
    block_ms: u64,
}

impl ReadState {
    async fn next(mut self) -> Option<(Result<Entry, LogError>, Self)> {
        loop {
            if self.done {
                return None;
            }
            while let Some((seq, data)) = self.batch.pop_front() {
                if seq <= self.cursor {
                    continue;
                }
                if seq != self.cursor + 1 {
                    self.done = true;
                    let error = LogError::new(
                        LogErrorKind::Incomplete,
                        format!(
                            "run {:?}: events {} to {} were lost from the event log",
                            self.run_id,
                            self.cursor + 1,
                            seq - 1
                        ),
                    );
                    return Some((Err(error), self));
                }
                match data {
                    None => {
                        self.done = true;
                        return None;
                    }
                    Some(data) => {
                        self.cursor = seq;
                        return Some((Ok(Entry { seq, data }), self));
                    }
                }
            }
            let read: redis::RedisResult<Value> = redis::cmd("XREAD")
                .arg("COUNT")
                .arg(512)
                .arg("BLOCK")
                .arg(self.block_ms)
                .arg("STREAMS")
                .arg(&self.stream)
                .arg(format!("0-{}", self.cursor))
                .query_async(&mut self.conn)
                .await;
            let value = match read {
                Ok(value) => value,
                Err(error) => {
                    self.done = true;
                    return Some((Err(unavailable("reading a run", &error)), self));
                }
            };
            if matches!(value, Value::Nil) {
                // Nothing new: is the run still there?
                let exists: redis::RedisResult<(i64, Option<String>)> = redis::pipe()
                    .cmd("EXISTS")
                    .arg(&self.stream)
                    .cmd("GET")
                    .arg(&self.marker)
                    .query_async(&mut self.conn)
                    .await;
                match exists {
                    Ok((0, state)) if state.as_deref() != Some("live") => {
                        self.done = true;
                        let error = LogError::new(
                            LogErrorKind::Expired,
                            format!("run {:?} is no longer kept in the event log", self.run_id),
                        );
                        return Some((Err(error), self));
                    }
                    Ok(_) => continue,
                    Err(error) => {
                        self.done = true;
                        return Some((Err(unavailable("reading a run", &error)), self));
                    }
                }
            }
            match parse_xread(value) {
                Ok(entries) => self.batch.extend(entries),
                Err(error) => {
                    self.done = true;
                    return Some((Err(error), self));
                }
            }
        }
    }
}

fn malformed(what: &str) -> LogError {
    LogError::new(
        LogErrorKind::Unavailable,
        format!("Redis answered with an unexpected shape: {what}"),
    )
}

/// `XREAD`'s reply for one stream: `[[key, entries]]` (or a map with RESP3).
fn parse_xread(value: Value) -> Result<Vec<(u64, Option<Bytes>)>, LogError> {
    match value {
        Value::Nil => Ok(Vec::new()),
        Value::Array(streams) => match streams.into_iter().next() {
            None => Ok(Vec::new()),
            Some(Value::Array(pair)) => {
                parse_entries(pair.into_iter().nth(1).unwrap_or(Value::Nil))
            }
            Some(_) => Err(malformed("XREAD stream")),
        },
        Value::Map(streams) => match streams.into_iter().next() {
            None => Ok(Vec::new()),
            Some((_, entries)) => parse_entries(entries),
        },
        _ => Err(malformed("XREAD")),
    }
}

/// A list of stream entries `[[id, [field, value, …]], …]` as `(seq, Some(json))`, or
/// `(seq, None)` for the end marker.
fn parse_entries(value: Value) -> Result<Vec<(u64, Option<Bytes>)>, LogError> {
    let entries = match value {
        Value::Nil => return Ok(Vec::new()),
        Value::Array(entries) => entries,
        _ => return Err(malformed("stream entries")),
    };
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries {
        let Value::Array(parts) = entry else {
            return Err(malformed("stream entry"));
        };
        let mut parts = parts.into_iter();
        let id = match parts.next() {
            Some(Value::BulkString(id)) => id,
            Some(Value::SimpleString(id)) => id.into_bytes(),
            _ => return Err(malformed("entry id")),
        };
        let seq = std::str::from_utf8(&id)
            .ok()
            .and_then(|id| id.strip_prefix("0-"))
            .and_then(|seq| seq.parse::<u64>().ok())
            .ok_or_else(|| malformed("entry id"))?;
        let fields = match parts.next() {
            Some(Value::Array(fields)) => fields,
            Some(Value::Map(pairs)) => pairs.into_iter().flat_map(|(k, v)| [k, v]).collect(),
            _ => return Err(malformed("entry fields")),
        };
        let mut data = None;
        let mut fields = fields.into_iter();
        while let (Some(name), Some(value)) = (fields.next(), fields.next()) {
            if let (Value::BulkString(name), Value::BulkString(value)) = (name, value)
                && name == b"d"
            {
                data = Some(Bytes::from(value));
            }
        }
        out.push((seq, data));
    }
    Ok(out)
}
