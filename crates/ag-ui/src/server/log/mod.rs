//! The event log behind resumable runs: each run's events, numbered from 1, kept for a while
//! after the run so a client that lost its connection (or a second client, or another server
//! instance) can read them again from a cursor and follow the rest live.
//!
//! [`EventLog`] is the whole contract, small on purpose: [`open`](EventLog::open) a run for
//! appending (a [`RunWriter`]: `append` numbers and stores one event, `finish` marks the end),
//! and [`read`](EventLog::read) a run after a sequence number, as a stream that replays what
//! is stored and then follows the run until it finishes. Two backends:
//!
//! - [`MemoryLog`], the default: in this process, bounded by [`MemoryLogConfig`] (runs kept,
//!   bytes per run and in all, time kept after a run ends);
//! - [`RedisLog`] (feature `redis`): one Redis stream per run, appends
//!   pipelined, blocking reads for the tail, expiry for retention, a length cap. Instances
//!   sharing one Redis serve each other's runs.
//!
//! A [`Cursor`] names a position: `<runId>:<seq>`, the SSE `id:` of the event at `seq`.
//!
//! ```
//! use ag_ui::server::log::{Cursor, EventLog, MemoryLog};
//! use futures::StreamExt;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let log = MemoryLog::default();
//! let mut writer = log.open("run-1").await.unwrap();
//! assert_eq!(writer.append(br#"{"type":"RUN_STARTED","threadId":"t","runId":"run-1"}"#), 1);
//! assert_eq!(writer.append(br#"{"type":"RUN_FINISHED","threadId":"t","runId":"run-1"}"#), 2);
//! writer.finish(); // flushes: readers see both
//!
//! // A client that saw event 1 reads on from there.
//! let cursor: Cursor = "run-1:1".parse().unwrap();
//! let mut tail = log.read(cursor.run_id(), cursor.seq()).await.unwrap();
//! let entry = tail.next().await.unwrap().unwrap();
//! assert_eq!(entry.seq, 2);
//! assert!(entry.data.starts_with(br#"{"type":"RUN_FINISHED""#));
//! assert!(tail.next().await.is_none()); // the run is finished: the tail ends
//!
//! // A cursor past the end is refused.
//! let error = log.read("run-1", 3).await.err().unwrap();
//! assert_eq!(error.kind().as_str(), "future-cursor");
//! # }
//! ```

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;

use bytes::Bytes;
use futures::stream::BoxStream;

mod memory;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
mod redis;

#[cfg(feature = "redis")]
pub use self::redis::{RedisLog, RedisLogConfig};
pub use memory::{MemoryLog, MemoryLogConfig, MemoryLogStats};

/// A boxed, sendable future, as the [`EventLog`] methods return them.
pub type LogFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What [`EventLog::read`] returns: the run's entries after the cursor, then the live tail;
/// the stream ends after the run's last event, or with an `Err` when the log cannot go on.
pub type Tail = BoxStream<'static, Result<Entry, LogError>>;

/// One stored event: its sequence number in the run (from 1) and its JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The event's number in its run, from 1.
    pub seq: u64,
    /// The event as JSON, as it was appended.
    pub data: Bytes,
}

/// A store of runs' events that a reconnecting client reads again. See the
/// [module documentation](self).
pub trait EventLog: Send + Sync + fmt::Debug + 'static {
    /// Opens `run_id` for appending; its events are numbered from 1.
    ///
    /// # Errors
    ///
    /// [`LogErrorKind::Conflict`] when the run is in the log already,
    /// [`LogErrorKind::Full`] when the log may hold no more runs, and
    /// [`LogErrorKind::Unavailable`] when the backend cannot be reached.
    fn open<'a>(&'a self, run_id: &'a str) -> LogFuture<'a, Result<Box<dyn RunWriter>, LogError>>;

    /// The events of `run_id` after sequence number `after` (0: from the start), then each
    /// event as it is appended, until the run finishes.
    ///
    /// # Errors
    ///
    /// [`LogErrorKind::UnknownRun`] for a run the log has never held,
    /// [`LogErrorKind::Expired`] when the run or the events after `after` are no longer kept,
    /// [`LogErrorKind::FutureCursor`] when `after` is past the run's last event, and
    /// [`LogErrorKind::Unavailable`] when the backend cannot be reached.
    fn read<'a>(&'a self, run_id: &'a str, after: u64) -> LogFuture<'a, Result<Tail, LogError>>;
}

/// The appending side of one run in an [`EventLog`].
///
/// Appending never waits and never fails at the call: a backend that cannot store an event
/// (for instance Redis going away) logs it and marks the run's log incomplete, and readers
/// of the missing part get [`LogErrorKind::Incomplete`]; the live stream is not held up.
pub trait RunWriter: Send + fmt::Debug {
    /// Stores one event's JSON and returns its sequence number: 1 for the first event, then
    /// one more for each (a caller may rely on the numbers being consecutive).
    ///
    /// A backend may stage appends until [`flush`](Self::flush): readers see them after it.
    fn append(&mut self, json: &[u8]) -> u64;

    /// Stores the events whose JSON lies at `ranges` (start and end offsets) of `buffer`, in
    /// order, as [`append`](Self::append) on each would, and returns the sequence number of
    /// the last (`ranges` is not empty). A resumable endpoint
    /// passes the bytes it is about to write to the socket, so a backend that keeps bytes in
    /// memory can hold that buffer instead of copying each event; the default copies.
    fn append_shared(&mut self, buffer: &Bytes, ranges: &[(u32, u32)]) -> u64 {
        let mut last = None;
        for &(start, end) in ranges {
            last = Some(self.append(&buffer[start as usize..end as usize]));
        }
        last.unwrap_or_default()
    }

    /// An empty buffer with room for at least `capacity` bytes, for the next write a resumable
    /// endpoint will pass to [`append_shared`](Self::append_shared). A backend that keeps those
    /// writes may hand back the memory of ones it no longer holds (already mapped, where a
    /// fresh allocation would be new pages); the default allocates.
    fn spare_buffer(&mut self, capacity: usize) -> Vec<u8> {
        Vec::with_capacity(capacity)
    }

    /// Makes the events appended so far visible to readers (before they are sent anywhere a
    /// client could take a cursor from them).
    fn flush(&mut self) {}

    /// Flushes, and marks the run finished: readers end after its last event, and retention
    /// starts.
    fn finish(&mut self);
}

/// A position in a run: `<runId>:<seq>`, where `seq` is the last event the reader has (0
/// before the first). It is the SSE `id:` of each event of a resumable stream.
///
/// ```
/// use ag_ui::server::log::Cursor;
///
/// let cursor: Cursor = "thread-1:run:42".parse().unwrap();
/// assert_eq!(cursor.run_id(), "thread-1:run"); // run ids may hold ':'
/// assert_eq!(cursor.seq(), 42);
/// assert_eq!(cursor.to_string(), "thread-1:run:42");
/// assert!("no-seq".parse::<Cursor>().is_err());
/// assert!("r:-1".parse::<Cursor>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cursor {
    run_id: String,
    seq: u64,
}

impl Cursor {
    /// The cursor at `seq` in `run_id`.
    pub fn new(run_id: impl Into<String>, seq: u64) -> Self {
        Self {
            run_id: run_id.into(),
            seq,
        }
    }

    /// The run.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The last sequence number seen (0: none).
    pub fn seq(&self) -> u64 {
        self.seq
    }
}

impl fmt::Display for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.run_id, self.seq)
    }
}

/// The longest cursor accepted, in bytes.
pub(crate) const MAX_CURSOR_LEN: usize = 1024;

impl FromStr for Cursor {
    type Err = LogError;

    fn from_str(s: &str) -> Result<Self, LogError> {
        let malformed = |why: &str| {
            LogError::new(
                LogErrorKind::MalformedCursor,
                format!("cursor {:?}: {why}", crate::excerpt(s, 64)),
            )
        };
        if s.len() > MAX_CURSOR_LEN {
            return Err(malformed("longer than 1024 bytes"));
        }
        let (run_id, seq) = s
            .rsplit_once(':')
            .ok_or_else(|| malformed("expected <runId>:<seq>"))?;
        if run_id.is_empty() {
            return Err(malformed("the run id is empty"));
        }
        if seq.is_empty() || !seq.bytes().all(|b| b.is_ascii_digit()) {
            return Err(malformed("the sequence number is not a whole number"));
        }
        let seq = seq
            .parse::<u64>()
            .map_err(|_| malformed("the sequence number is too large"))?;
        Ok(Cursor::new(run_id, seq))
    }
}

/// The kinds of [`LogError`], each with the HTTP status a reconnect route answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LogErrorKind {
    /// The log has never held this run (or forgot it long ago): `404`.
    UnknownRun,
    /// The run, or the events after the cursor, are past retention: `410`.
    Expired,
    /// Events of the run were lost (the backend failed while it ran): `410`.
    Incomplete,
    /// The cursor is not `<runId>:<seq>`: `400`.
    MalformedCursor,
    /// The cursor belongs to another run than the one asked for: `400`.
    ForeignCursor,
    /// The cursor is past the run's last event: `400`.
    FutureCursor,
    /// A run with this id is in the log already: `409`.
    Conflict,
    /// The log holds as many live runs as it may: `503`.
    Full,
    /// The backend cannot be reached: `503`.
    Unavailable,
}

impl LogErrorKind {
    /// A stable name (`unknown-run`, `expired`, …), the `kind` of a JSON error body.
    pub fn as_str(self) -> &'static str {
        match self {
            LogErrorKind::UnknownRun => "unknown-run",
            LogErrorKind::Expired => "expired",
            LogErrorKind::Incomplete => "incomplete",
            LogErrorKind::MalformedCursor => "malformed-cursor",
            LogErrorKind::ForeignCursor => "foreign-cursor",
            LogErrorKind::FutureCursor => "future-cursor",
            LogErrorKind::Conflict => "conflict",
            LogErrorKind::Full => "log-full",
            LogErrorKind::Unavailable => "log-unavailable",
        }
    }

    /// The HTTP status for this kind.
    pub fn status(self) -> u16 {
        match self {
            LogErrorKind::UnknownRun => 404,
            LogErrorKind::Expired | LogErrorKind::Incomplete => 410,
            LogErrorKind::MalformedCursor
            | LogErrorKind::ForeignCursor
            | LogErrorKind::FutureCursor => 400,
            LogErrorKind::Conflict => 409,
            LogErrorKind::Full | LogErrorKind::Unavailable => 503,
        }
    }
}

/// An event log operation failed: what kind of failure, and a message naming the run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", kind.as_str())]
pub struct LogError {
    kind: LogErrorKind,
    message: String,
}

impl LogError {
    /// An error of `kind` with a message for a person.
    pub fn new(kind: LogErrorKind, message: impl Into<String>) -> Self {
        // The run ids and cursors a message quotes are a client's: it stays bounded.
        let message = message.into();
        let message = match crate::excerpt(&message, crate::EXCERPT_LIST_BYTES) {
            std::borrow::Cow::Borrowed(_) => message,
            std::borrow::Cow::Owned(cut) => cut,
        };
        Self { kind, message }
    }

    /// What went wrong.
    pub fn kind(&self) -> LogErrorKind {
        self.kind
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_parse_strictly() {
        for bad in [
            "",
            "r",
            ":1",
            "r:",
            "r:x",
            "r:1.5",
            "r:+1",
            "r: 1",
            "r:99999999999999999999999",
        ] {
            let err = bad.parse::<Cursor>().unwrap_err();
            assert_eq!(err.kind(), LogErrorKind::MalformedCursor, "{bad}");
        }
        let long = format!("{}:1", "r".repeat(2000));
        assert_eq!(
            long.parse::<Cursor>().unwrap_err().kind(),
            LogErrorKind::MalformedCursor
        );
        assert_eq!("r:0".parse::<Cursor>().unwrap(), Cursor::new("r", 0));
        assert_eq!(LogErrorKind::Expired.status(), 410);
        assert_eq!(LogErrorKind::UnknownRun.status(), 404);
    }
}
