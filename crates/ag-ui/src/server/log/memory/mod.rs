use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::Notify;

use super::{Entry, EventLog, LogError, LogErrorKind, LogFuture, RunWriter, Tail};

/// Bytes counted for each stored event beyond its JSON (its number and bookkeeping).
pub(crate) const ENTRY_OVERHEAD: usize = 16;

/// Bytes counted for each chunk beyond its entries: the chunk in the run's queue, the
/// allocation of its entries' places, the shared buffer's header (a write's `Bytes` is
/// shared with the socket). Counted with the chunk's last entry, which frees it.
pub(crate) const CHUNK_OVERHEAD: usize = 64;

/// The smallest buffer kept as a spare: a full write of a resumable endpoint (smaller writes
/// are not worth the bookkeeping).
const MIN_SPARE: usize = 64 * 1024;

/// Most entries a reader takes from a run at once.
const READ_BATCH: usize = 256;

/// The bounds of a [`MemoryLog`]. See the [`MemoryLog`] docs.
///
/// A `max_runs` of 0 counts as 1, however the field was set ([`MemoryLog::new`] applies it).
///
/// ```
/// use std::time::Duration;
/// use ag_ui::server::log::MemoryLogConfig;
///
/// let config = MemoryLogConfig::default().with_max_runs(64).with_retention(Duration::from_secs(60));
/// assert_eq!((config.max_runs, config.retention), (64, Duration::from_secs(60)));
/// assert_eq!(MemoryLogConfig::default().max_run_bytes, 16 * 1024 * 1024);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemoryLogConfig {
    /// The most runs held at once (default 1024; 0 counts as 1).
    pub max_runs: usize,
    /// The most bytes one run's events may take; older events are dropped past it (default
    /// 16 MiB).
    pub max_run_bytes: usize,
    /// The most bytes all runs' events may take (default 256 MiB).
    pub max_total_bytes: usize,
    /// How long a finished run is kept (default 5 minutes).
    pub retention: Duration,
    /// How many forgotten run ids are remembered, to answer `expired` rather than
    /// `unknown-run` (default 16384).
    pub max_tombstones: usize,
}

impl Default for MemoryLogConfig {
    /// 1024 runs, 16 MiB per run, 256 MiB in all, 5 minutes after a run ends, 16384
    /// expired run ids remembered.
    fn default() -> Self {
        Self {
            max_runs: 1024,
            max_run_bytes: 16 * 1024 * 1024,
            max_total_bytes: 256 * 1024 * 1024,
            retention: Duration::from_secs(300),
            max_tombstones: 16 * 1024,
        }
    }
}

impl MemoryLogConfig {
    /// Sets [`max_runs`](Self::max_runs).
    #[must_use]
    pub fn with_max_runs(mut self, runs: usize) -> Self {
        self.max_runs = runs;
        self
    }

    /// Sets [`max_run_bytes`](Self::max_run_bytes).
    #[must_use]
    pub fn with_max_run_bytes(mut self, bytes: usize) -> Self {
        self.max_run_bytes = bytes;
        self
    }

    /// Sets [`max_total_bytes`](Self::max_total_bytes).
    #[must_use]
    pub fn with_max_total_bytes(mut self, bytes: usize) -> Self {
        self.max_total_bytes = bytes;
        self
    }

    /// Sets [`retention`](Self::retention).
    #[must_use]
    pub fn with_retention(mut self, retention: Duration) -> Self {
        self.retention = retention;
        self
    }

    /// Sets [`max_tombstones`](Self::max_tombstones).
    #[must_use]
    pub fn with_max_tombstones(mut self, ids: usize) -> Self {
        self.max_tombstones = ids;
        self
    }

    /// The bounds a log holds to: the one place the fields' floors are applied.
    fn effective(self) -> Self {
        Self {
            max_runs: self.max_runs.max(1),
            ..self
        }
    }
}

/// What a [`MemoryLog`] holds now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemoryLogStats {
    /// Runs held.
    pub runs: usize,
    /// Bytes counted (JSON plus 16 bytes of bookkeeping per event).
    pub bytes: usize,
    /// The largest byte count of one run.
    pub largest_run_bytes: usize,
    /// The capacity of the spare buffers kept for the next writes (see the
    /// [`MemoryLog`] docs); with [`bytes`](Self::bytes), at most
    /// [`max_total_bytes`](MemoryLogConfig::max_total_bytes).
    pub spare_bytes: usize,
}

/// The event log in memory. Cloning shares it. See the [`MemoryLog`] docs.
///
/// [`MemoryLog`]: the event log in this process's memory, bounded by [`MemoryLogConfig`].
///
/// Every bound is configuration, never what a peer sends:
///
/// - **runs**: at most [`max_runs`](MemoryLogConfig::max_runs) runs are held; opening
///   one more first forgets the oldest finished run, and is refused ([`LogErrorKind::Full`])
///   when all of them are still running;
/// - **bytes per run**: past [`max_run_bytes`](MemoryLogConfig::max_run_bytes), a run's
///   oldest events are dropped (a cursor before them is [`LogErrorKind::Expired`]);
/// - **bytes in all**: past [`max_total_bytes`](MemoryLogConfig::max_total_bytes),
///   finished runs are forgotten oldest first, then the appending run's oldest events dropped;
/// - **time**: a finished run is forgotten [`retention`](MemoryLogConfig::retention)
///   after its end; its id is remembered (up to a cap) so a late reader gets
///   [`LogErrorKind::Expired`] rather than [`LogErrorKind::UnknownRun`].
///
/// Events are stored in chunks: each write a resumable endpoint sends to the socket is kept
/// whole (`RunWriter::append_shared` hands over the `Bytes` themselves, no copy) with each
/// event's place in it; events given one by one (`append`) are copied into one buffer per
/// flush. One lock and one wake-up of the readers per chunk, no allocation per event. The
/// caps drop events one at a time, oldest first, and a run keeps at least its newest event. A
/// reader holds at most one batch (256 events) of a run, so a slow reader does not grow the
/// log. The byte figures count each event from the end of the one before it in its chunk (so
/// a shared write counts whole, its SSE framing included) plus 16 bytes of bookkeeping, and
/// each chunk 64 bytes more for its own (its place in the run's queue, its entries' places,
/// the shared buffer's header), counted with its last event: a run whose writes each carry
/// one event, as a paced agent's do, is counted at what it holds. A chunk's buffer is freed
/// with its last event, so the memory held can exceed the figures by the dropped part of one
/// chunk (at most one write, 64 KiB and an event) per run.
///
/// **Spare buffers.** Once a writer has asked for one, when a full write (64 KiB or more) is
/// dropped or its run forgotten and nothing else holds it (no reader, no socket), its buffer
/// is kept and handed back by [`RunWriter::spare_buffer`] for a later write, so a busy endpoint writes into memory that
/// is already mapped instead of new pages each time. The spares take at most one run's bytes
/// ([`max_run_bytes`](MemoryLogConfig::max_run_bytes)) and count toward
/// [`max_total_bytes`](MemoryLogConfig::max_total_bytes): events and spares together
/// stay under it, and spares are freed first when events need the room
/// ([`MemoryLogStats::spare_bytes`]).
///
/// ```
/// use std::time::Duration;
/// use ag_ui::server::log::{EventLog, MemoryLog, MemoryLogConfig};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let log = MemoryLog::new(
///     MemoryLogConfig::default()
///         .with_max_runs(2)
///         .with_retention(Duration::from_secs(60)),
/// );
/// let mut a = log.open("a").await.unwrap();
/// let _b = log.open("b").await.unwrap();
/// // Both runs are live: a third is refused rather than dropping one of them.
/// assert_eq!(log.open("c").await.unwrap_err().kind().as_str(), "log-full");
/// a.append(b"{}");
/// a.finish(); // (finishing flushes)
/// // `a` is finished: it makes room for `c`, and a reader of `a` learns it expired.
/// let _c = log.open("c").await.unwrap();
/// assert_eq!(log.read("a", 0).await.err().unwrap().kind().as_str(), "expired");
/// assert_eq!(log.stats().runs, 2);
/// # }
/// ```
#[derive(Clone, Default)]
pub struct MemoryLog {
    shared: Arc<Shared>,
}

impl fmt::Debug for MemoryLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryLog")
            .field("config", &self.shared.config)
            .field("bytes", &self.shared.total.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Shared {
    config: MemoryLogConfig,
    runs: Mutex<Runs>,
    total: AtomicUsize,
    spares: Mutex<Vec<Vec<u8>>>,
    /// The capacity of the spare buffers, in bytes.
    spare_bytes: AtomicUsize,
    /// Whether a writer has asked for a spare buffer: until then none is kept.
    spares_wanted: AtomicBool,
}

#[derive(Default)]
struct Runs {
    map: HashMap<Arc<str>, Arc<Slot>>,
    order: VecDeque<Arc<str>>,
    gone: HashSet<Arc<str>>,
    gone_order: VecDeque<Arc<str>>,
}

struct Slot {
    state: Mutex<RunState>,
    notify: Notify,
}

/// Consecutive events stored together: one buffer, and where each event lies in it (an
/// appended event's JSON copied in; or the frames a resumable endpoint wrote to the socket,
/// shared). An entry counts the bytes from the end of the one before (its framing included)
/// to its own end. Entries before `skip` were dropped by a cap (they stop counting at once;
/// the buffer goes when its last entry does).
struct Chunk {
    first_seq: u64,
    data: Bytes,
    /// Where each entry's JSON lies in `data`: one allocation of the exact size (a paced
    /// run's chunk usually holds one event, and a run keeps every chunk it wrote).
    ranges: Box<[(u32, u32)]>,
    skip: usize,
}

impl Chunk {
    /// The bytes counted for the entries still kept: the sum of their
    /// [`entry_size`](Self::entry_size)s.
    fn size(&self) -> usize {
        (self.ranges.len() - self.skip) * ENTRY_OVERHEAD + self.data.len()
            - self.counted_from(self.skip)
            + CHUNK_OVERHEAD
    }

    /// Where the bytes counted for entry `i` begin.
    fn counted_from(&self, i: usize) -> usize {
        if i == 0 {
            0
        } else {
            self.ranges[i - 1].1 as usize
        }
    }

    /// The bytes counted for entry `i`; the last entry also carries what follows it in the
    /// buffer (an SSE frame's end) and the chunk's own bookkeeping, which go with it.
    fn entry_size(&self, i: usize) -> usize {
        let own = self.ranges[i].1 as usize - self.counted_from(i) + ENTRY_OVERHEAD;
        if i + 1 == self.ranges.len() {
            own + self.data.len() - self.ranges[i].1 as usize + CHUNK_OVERHEAD
        } else {
            own
        }
    }

    fn entry(&self, i: usize) -> Entry {
        Entry {
            seq: self.first_seq + i as u64,
            data: self
                .data
                .slice(self.ranges[i].0 as usize..self.ranges[i].1 as usize),
        }
    }
}

struct RunState {
    chunks: VecDeque<Chunk>,
    /// The seq of the first entry kept (`next_seq` when none is).
    first_seq: u64,
    next_seq: u64,
    bytes: usize,
    finished_at: Option<Instant>,
    evicted: bool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere while holding the lock leaves plain data behind: go on with it.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl MemoryLog {
    /// A log with these bounds.
    pub fn new(config: MemoryLogConfig) -> Self {
        Self {
            shared: Arc::new(Shared {
                config: config.effective(),
                ..Shared::default()
            }),
        }
    }

    /// The bounds, as the log holds to them.
    pub fn config(&self) -> &MemoryLogConfig {
        &self.shared.config
    }

    /// What the log holds now (expired runs are forgotten first).
    pub fn stats(&self) -> MemoryLogStats {
        let mut runs = lock(&self.shared.runs);
        self.shared.sweep(&mut runs, Instant::now());
        let largest_run_bytes = runs
            .map
            .values()
            .map(|slot| lock(&slot.state).bytes)
            .max()
            .unwrap_or(0);
        MemoryLogStats {
            runs: runs.map.len(),
            bytes: self.shared.total.load(Ordering::Relaxed),
            largest_run_bytes,
            spare_bytes: self.shared.spare_bytes.load(Ordering::Relaxed),
        }
    }

    fn open_now(&self, run_id: &str) -> Result<Box<dyn RunWriter>, LogError> {
        let shared = &self.shared;
        let mut runs = lock(&shared.runs);
        shared.sweep(&mut runs, Instant::now());
        if runs.map.contains_key(run_id) || runs.gone.contains(run_id) {
            return Err(LogError::new(
                LogErrorKind::Conflict,
                format!("run {run_id:?} is in the log already"),
            ));
        }
        if runs.map.len() >= shared.config.max_runs && !shared.evict_oldest_finished(&mut runs) {
            return Err(LogError::new(
                LogErrorKind::Full,
                format!(
                    "the event log holds {} runs, all still running",
                    runs.map.len()
                ),
            ));
        }
        let id: Arc<str> = Arc::from(run_id);
        let slot = Arc::new(Slot {
            state: Mutex::new(RunState {
                chunks: VecDeque::new(),
                first_seq: 1,
                next_seq: 1,
                bytes: 0,
                finished_at: None,
                evicted: false,
            }),
            notify: Notify::new(),
        });
        runs.map.insert(Arc::clone(&id), Arc::clone(&slot));
        runs.order.push_back(Arc::clone(&id));
        Ok(Box::new(MemoryWriter {
            shared: Arc::clone(shared),
            slot,
            staged: Vec::new(),
            ranges: Vec::new(),
            pending: Vec::new(),
            next_seq: 1,
            finished: false,
        }))
    }

    fn read_now(&self, run_id: &str, after: u64) -> Result<Tail, LogError> {
        let slot = {
            let mut runs = lock(&self.shared.runs);
            self.shared.sweep(&mut runs, Instant::now());
            match runs.map.get(run_id) {
                Some(slot) => Arc::clone(slot),
                None if runs.gone.contains(run_id) => return Err(expired_run(run_id)),
                None => {
                    return Err(LogError::new(
                        LogErrorKind::UnknownRun,
                        format!("no run {run_id:?} in the event log"),
                    ));
                }
            }
        };
        {
            let state = lock(&slot.state);
            if state.evicted {
                return Err(expired_run(run_id));
            }
            let last = state.next_seq - 1;
            if after > last {
                return Err(LogError::new(
                    LogErrorKind::FutureCursor,
                    format!("run {run_id:?} has {last} events; the cursor is at {after}"),
                ));
            }
            if after + 1 < state.first_seq {
                return Err(expired_events(run_id, after, state.first_seq));
            }
        }
        let run_id: Arc<str> = Arc::from(run_id);
        let tail = futures::stream::unfold(
            (slot, after, VecDeque::<Entry>::new(), false, run_id),
            |(slot, mut cursor, mut batch, mut done, run_id)| async move {
                loop {
                    if let Some(entry) = batch.pop_front() {
                        return Some((Ok(entry), (slot, cursor, batch, done, run_id)));
                    }
                    if done {
                        return None;
                    }
                    let step = {
                        let notified = slot.notify.notified();
                        let mut notified = std::pin::pin!(notified);
                        notified.as_mut().enable();
                        let step = {
                            let state = lock(&slot.state);
                            if state.evicted {
                                Step::Failed(expired_run(&run_id))
                            } else if cursor + 1 < state.first_seq {
                                // The reader fell behind the run's byte cap.
                                Step::Failed(expired_events(&run_id, cursor, state.first_seq))
                            } else {
                                state.read_after(cursor, &mut batch);
                                if let Some(last) = batch.back() {
                                    cursor = last.seq;
                                    Step::Got
                                } else if state.finished_at.is_some() {
                                    Step::End
                                } else {
                                    Step::Wait
                                }
                            }
                        };
                        if let Step::Wait = step {
                            notified.await;
                        }
                        step
                    };
                    match step {
                        Step::Failed(error) => {
                            done = true;
                            return Some((Err(error), (slot, cursor, batch, done, run_id)));
                        }
                        Step::End => return None,
                        Step::Got | Step::Wait => {}
                    }
                }
            },
        );
        Ok(Box::pin(tail))
    }
}

enum Step {
    Failed(LogError),
    End,
    Got,
    Wait,
}

fn expired_run(run_id: &str) -> LogError {
    LogError::new(
        LogErrorKind::Expired,
        format!("run {run_id:?} is no longer kept in the event log"),
    )
}

fn expired_events(run_id: &str, after: u64, first: u64) -> LogError {
    LogError::new(
        LogErrorKind::Expired,
        format!(
            "run {run_id:?} keeps events from {first} on; the events after {after} are no longer kept"
        ),
    )
}

impl Shared {
    /// Forgets the runs finished longer ago than the retention.
    fn sweep(&self, runs: &mut Runs, now: Instant) {
        let retention = self.config.retention;
        let expired: Vec<Arc<str>> = runs
            .map
            .iter()
            .filter(|(_, slot)| {
                lock(&slot.state)
                    .finished_at
                    .is_some_and(|at| now.duration_since(at) >= retention)
            })
            .map(|(id, _)| Arc::clone(id))
            .collect();
        for id in expired {
            self.forget(runs, &id);
        }
    }

    /// Forgets the run opened first among the finished ones; false when none is finished.
    fn evict_oldest_finished(&self, runs: &mut Runs) -> bool {
        let oldest = runs
            .order
            .iter()
            .find(|id| {
                runs.map
                    .get(&***id)
                    .is_some_and(|slot| lock(&slot.state).finished_at.is_some())
            })
            .cloned();
        match oldest {
            Some(id) => {
                self.forget(runs, &id);
                true
            }
            None => false,
        }
    }

    fn forget(&self, runs: &mut Runs, id: &Arc<str>) {
        let Some(slot) = runs.map.remove(id) else {
            return;
        };
        runs.order.retain(|o| o != id);
        let chunks = {
            let mut state = lock(&slot.state);
            state.evicted = true;
            self.total.fetch_sub(state.bytes, Ordering::Relaxed);
            state.bytes = 0;
            std::mem::take(&mut state.chunks)
        };
        self.recycle(chunks);
        slot.notify.notify_waiters();
        if self.config.max_tombstones > 0 {
            if runs.gone_order.len() >= self.config.max_tombstones
                && let Some(old) = runs.gone_order.pop_front()
            {
                runs.gone.remove(&old);
            }
            runs.gone.insert(Arc::clone(id));
            runs.gone_order.push_back(Arc::clone(id));
        }
    }

    /// Brings the total under its cap: finished runs first, then the appending run's oldest
    /// events.
    fn reclaim(&self, own: &Slot) {
        let cap = self.config.max_total_bytes;
        {
            let mut runs = lock(&self.runs);
            self.sweep(&mut runs, Instant::now());
            while self.total.load(Ordering::Relaxed) > cap {
                if !self.evict_oldest_finished(&mut runs) {
                    break;
                }
            }
        }
        if self.total.load(Ordering::Relaxed) > cap {
            let mut state = lock(&own.state);
            while self.total.load(Ordering::Relaxed) > cap && state.kept() > 1 {
                drop_front(&mut state, self);
            }
        }
    }
}

impl Shared {
    /// Keeps the buffers of dropped chunks that nothing else holds (no reader, no socket) for
    /// [`spare_buffer`](RunWriter::spare_buffer), up to one run's bytes and the room left
    /// under the total cap; the others are freed.
    fn recycle(&self, chunks: impl IntoIterator<Item = Chunk>) {
        if !self.spares_wanted.load(Ordering::Relaxed) {
            return;
        }
        let mut spares = None;
        for chunk in chunks {
            if chunk.data.len() < MIN_SPARE {
                continue;
            }
            let Ok(mut buffer) = chunk.data.try_into_mut() else {
                continue;
            };
            // Emptied first, so taking the allocation back moves no bytes.
            buffer.clear();
            let buffer = Vec::from(buffer);
            let spares = spares.get_or_insert_with(|| lock(&self.spares));
            let room = self.config.max_run_bytes.min(
                self.config
                    .max_total_bytes
                    .saturating_sub(self.total.load(Ordering::Relaxed)),
            );
            if self.spare_bytes.load(Ordering::Relaxed) + buffer.capacity() > room {
                break;
            }
            self.spare_bytes
                .fetch_add(buffer.capacity(), Ordering::Relaxed);
            spares.push(buffer);
        }
    }

    /// Frees spare buffers until they take at most `room` bytes.
    fn trim_spares(&self, room: usize) {
        let mut spares = lock(&self.spares);
        while self.spare_bytes.load(Ordering::Relaxed) > room {
            let Some(spare) = spares.pop() else {
                break;
            };
            self.spare_bytes
                .fetch_sub(spare.capacity(), Ordering::Relaxed);
        }
    }
}

/// Drops the run's oldest entry.
fn drop_front(state: &mut RunState, shared: &Shared) {
    let Some(front) = state.chunks.front_mut() else {
        return;
    };
    let size = front.entry_size(front.skip);
    front.skip += 1;
    if front.skip == front.ranges.len() {
        shared.recycle(state.chunks.pop_front());
    }
    state.bytes -= size;
    shared.total.fetch_sub(size, Ordering::Relaxed);
    state.first_seq = state
        .chunks
        .front()
        .map_or(state.next_seq, |c| c.first_seq + c.skip as u64);
}

impl RunState {
    /// How many entries the run keeps.
    fn kept(&self) -> u64 {
        self.next_seq - self.first_seq
    }

    /// Adds the entries after `cursor` (at most [`READ_BATCH`]) to `batch`.
    fn read_after(&self, cursor: u64, batch: &mut VecDeque<Entry>) {
        let want = cursor + 1;
        // The chunk holding `want`: the last one starting at or before it.
        let index = match self.chunks.binary_search_by(|c| c.first_seq.cmp(&want)) {
            Ok(i) => i,
            Err(0) => return,
            Err(i) => i - 1,
        };
        let mut offset = (want - self.chunks[index].first_seq) as usize;
        for chunk in self.chunks.range(index..) {
            while offset < chunk.ranges.len() {
                if batch.len() >= READ_BATCH {
                    return;
                }
                batch.push_back(chunk.entry(offset));
                offset += 1;
            }
            offset = 0;
        }
    }
}

impl EventLog for MemoryLog {
    fn open<'a>(&'a self, run_id: &'a str) -> LogFuture<'a, Result<Box<dyn RunWriter>, LogError>> {
        let result = self.open_now(run_id);
        Box::pin(std::future::ready(result))
    }

    fn read<'a>(&'a self, run_id: &'a str, after: u64) -> LogFuture<'a, Result<Tail, LogError>> {
        let result = self.read_now(run_id, after);
        Box::pin(std::future::ready(result))
    }
}

/// The [`RunWriter`] of a [`MemoryLog`] run. Appends are staged and stored (one lock, one
/// wake-up of the readers) at each [`flush`](RunWriter::flush). Dropping it finishes the run.
struct MemoryWriter {
    shared: Arc<Shared>,
    slot: Arc<Slot>,
    /// The events appended since the last flush, one after the other, and where each is.
    staged: Vec<u8>,
    ranges: Vec<(u32, u32)>,
    /// Chunks of shared buffers (`append_shared`) waiting for the flush, in order.
    pending: Vec<Chunk>,
    next_seq: u64,
    finished: bool,
}

impl fmt::Debug for MemoryWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryWriter")
            .field("next_seq", &self.next_seq)
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

impl MemoryWriter {
    /// Adds a chunk for the next flush. The room grows one chunk at a time: a flush usually
    /// stores one chunk, and the writer keeps this room for the whole run (a doubling `Vec`
    /// would keep four chunks' worth, 256 bytes a run).
    fn push_pending(&mut self, chunk: Chunk) {
        self.pending.reserve_exact(1);
        self.pending.push(chunk);
    }

    /// Turns the copied appends into a pending chunk.
    fn seal_staged(&mut self) {
        if self.ranges.is_empty() {
            return;
        }
        let count = self.ranges.len() as u64;
        // The next batch is likely the size of this one: no regrowth, little slack.
        let bytes = self.staged.len();
        let chunk = Chunk {
            first_seq: self.next_seq - count,
            data: Bytes::from(std::mem::replace(
                &mut self.staged,
                Vec::with_capacity(bytes),
            )),
            ranges: self.ranges.as_slice().into(),
            skip: 0,
        };
        self.ranges.clear();
        self.push_pending(chunk);
    }
}

impl RunWriter for MemoryWriter {
    fn append(&mut self, json: &[u8]) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        if self.staged.len() + json.len() > u32::MAX as usize {
            self.seal_staged();
        }
        let start = self.staged.len() as u32;
        self.staged.extend_from_slice(json);
        self.ranges.push((start, self.staged.len() as u32));
        seq
    }

    /// Keeps `buffer` itself (a clone of the `Bytes`, no copy), with the events' places in it.
    fn append_shared(&mut self, buffer: &Bytes, ranges: &[(u32, u32)]) -> u64 {
        if ranges.is_empty() {
            return self.next_seq - 1;
        }
        self.seal_staged();
        let first_seq = self.next_seq;
        self.next_seq += ranges.len() as u64;
        self.push_pending(Chunk {
            first_seq,
            data: buffer.clone(),
            ranges: ranges.into(),
            skip: 0,
        });
        self.next_seq - 1
    }

    /// The last spare buffer when it has the room asked for; else a new one.
    fn spare_buffer(&mut self, capacity: usize) -> Vec<u8> {
        self.shared.spares_wanted.store(true, Ordering::Relaxed);
        let spare = {
            let mut spares = lock(&self.shared.spares);
            let spare = spares.pop();
            if let Some(spare) = &spare {
                self.shared
                    .spare_bytes
                    .fetch_sub(spare.capacity(), Ordering::Relaxed);
            }
            spare
        };
        match spare {
            Some(spare) if spare.capacity() >= capacity => spare,
            _ => Vec::with_capacity(capacity),
        }
    }

    fn flush(&mut self) {
        self.seal_staged();
        if self.pending.is_empty() {
            return;
        }
        let config = &self.shared.config;
        {
            let mut state = lock(&self.slot.state);
            if state.evicted {
                drop(state);
                self.shared.recycle(self.pending.drain(..));
                return;
            }
            for chunk in self.pending.drain(..) {
                if state.chunks.is_empty() {
                    state.first_seq = chunk.first_seq;
                }
                let added = chunk.size();
                state.chunks.push_back(chunk);
                state.bytes += added;
                self.shared.total.fetch_add(added, Ordering::Relaxed);
            }
            state.next_seq = self.next_seq;
            while state.bytes > config.max_run_bytes && state.kept() > 1 {
                drop_front(&mut state, &self.shared);
            }
        }
        self.slot.notify.notify_waiters();
        let total = self.shared.total.load(Ordering::Relaxed);
        if total + self.shared.spare_bytes.load(Ordering::Relaxed) > config.max_total_bytes {
            // Events come first: spare buffers make room before any run is forgotten.
            self.shared
                .trim_spares(config.max_total_bytes.saturating_sub(total));
        }
        if total > config.max_total_bytes {
            self.shared.reclaim(&self.slot);
        }
    }

    fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.flush();
        self.finished = true;
        lock(&self.slot.state).finished_at = Some(Instant::now());
        self.slot.notify.notify_waiters();
    }
}

impl Drop for MemoryWriter {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests;
