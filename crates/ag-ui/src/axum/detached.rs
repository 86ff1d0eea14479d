//! The detached runs of a resumable endpoint: runs whose client left, going on into the log.
//!
//! A detached run is the response body its client left, polled by a task of its own: the same
//! chain (filter, coalescing, timestamps, downgrade, the run's trace) writes into the log, and
//! its output goes nowhere.
//!
//! Each is bounded in time ([`ResumeConfig::detach_timeout`]) and all of them in number
//! ([`ResumeConfig::max_detached`]) and in what they hold besides their log
//! ([`ResumeConfig::max_detached_bytes`]: each run's input as the input budget counts it, and
//! [`DETACHED_RUN_BYTES`] for the rest): a client leaving past either evicts the
//! oldest, and a new run that finds the log full evicts the oldest to take its place (a
//! [`MemoryLog`](crate::server::log::MemoryLog) forgets a finished run to make room, never a
//! running one, so abandoned runs would otherwise hold every slot until their time-out). An
//! evicted run is cancelled (its event stream dropped, which stops an agent of
//! [`server`](crate::server)) and its log ends with a `RUN_ERROR` of code `evicted` that a
//! reconnecting client reads; once the log has forgotten the run, a reconnect is `410`
//! (`expired`). A detached run holds its input in the endpoint's budget
//! ([`EndpointLimits::max_input_bytes`](super::EndpointLimits::max_input_bytes)) until it ends.
//!
//! Measured (example `detached_memory`, 1,100 abandoned runs against the default bounds): a
//! detached run of an agent streaming text holds about 4 KB besides its log and its input;
//! its input is what a client chooses, and was the rest (a 60 KB state of `[0,0,…]` held
//! 4.7 MB in each of 256 detached runs, 1.2 GB in all, while the input budget counted 15 MB).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::oneshot;

use super::EventBody;
use super::resume::{DETACHED_RUN_BYTES, DetachedStats, LiveLog, Resumable, ResumeConfig};
use crate::server::log::{LogError, LogErrorKind, RunWriter};

/// How long a new run waits for an evicted run to finish its log before trying the log again.
const EVICTION_WAIT: Duration = Duration::from_secs(1);

/// Most detached runs one new run evicts to find room in a full log.
const MAX_EVICTIONS_PER_OPEN: usize = 2;

/// The code of the `RUN_ERROR` ending the log of an evicted run.
pub(crate) const EVICTED: &str = "evicted";

/// The endpoint's detached runs, oldest first.
#[derive(Debug, Default)]
pub(crate) struct Detached {
    runs: Mutex<Runs>,
}

#[derive(Debug, Default)]
struct Runs {
    next_id: u64,
    queue: VecDeque<Entry>,
    /// The sum of the queue's `bytes`.
    bytes: usize,
}

impl Runs {
    fn pop_front(&mut self) -> Option<Entry> {
        let entry = self.queue.pop_front()?;
        self.bytes -= entry.bytes;
        Some(entry)
    }
}

/// A detached run: its number, what it is counted for, and the channel that tells it to
/// leave (carrying the sender it drops once its log is finished).
#[derive(Debug)]
struct Entry {
    id: u64,
    bytes: usize,
    evict: oneshot::Sender<oneshot::Sender<()>>,
}

fn lock(mutex: &Mutex<Runs>) -> MutexGuard<'_, Runs> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Detached {
    /// The number of runs detached now.
    pub(crate) fn len(&self) -> usize {
        lock(&self.runs).queue.len()
    }

    /// The runs detached now, and the bytes they are counted for.
    pub(crate) fn stats(&self) -> DetachedStats {
        let runs = lock(&self.runs);
        DetachedStats {
            runs: runs.queue.len(),
            bytes: runs.bytes,
        }
    }

    /// Tells the oldest detached run to leave; the receiver resolves once its log is
    /// finished. `None` when no run is detached.
    pub(crate) fn evict_oldest(&self) -> Option<oneshot::Receiver<()>> {
        loop {
            let entry = lock(&self.runs).pop_front()?;
            let (done, finished) = oneshot::channel();
            if entry.evict.send(done).is_ok() {
                return Some(finished);
            }
            // That run was ending on its own: try the next.
        }
    }

    /// The client of `body` (a resumable run) left: the run goes on into the log, through
    /// the same chain as when it had a client, in a task, until it ends, times out or is
    /// evicted; the oldest detached runs are evicted first to stay within the bounds.
    pub(super) fn detach(self: Arc<Self>, mut body: EventBody) {
        let Some(live) = &body.live else {
            return;
        };
        let config = *live.config();
        let max = config.max_detached;
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            // No task can carry it: the run ends here (dropping the body finishes its log).
            return;
        };
        tracing::debug!(run_id = %live.run_id(), "client left; the run goes on detached");
        let bytes = body.permit.bytes().saturating_add(DETACHED_RUN_BYTES);
        if max == 0 || bytes > config.max_detached_bytes {
            body.cancel(EVICTED, evicted_message(&config));
            runtime.spawn(async move { while body.next().await.is_some() {} });
            return;
        }
        let (evict, evicted) = oneshot::channel();
        let id = {
            let mut runs = lock(&self.runs);
            while runs.queue.len() >= max
                || runs.bytes.saturating_add(bytes) > config.max_detached_bytes
            {
                let Some(oldest) = runs.pop_front() else {
                    break;
                };
                // The run finishes its log on its own; nobody waits for it here.
                let (done, _) = oneshot::channel();
                let _ = oldest.evict.send(done);
            }
            let id = runs.next_id;
            runs.next_id += 1;
            runs.bytes += bytes;
            runs.queue.push_back(Entry { id, bytes, evict });
            id
        };
        let ticket = Ticket { detached: self, id };
        runtime.spawn(run_detached(body, ticket, evicted, config));
    }
}

/// Removes its run from the detached runs when the run ends (whatever way).
struct Ticket {
    detached: Arc<Detached>,
    id: u64,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut runs = lock(&self.detached.runs);
        if let Some(at) = runs.queue.iter().position(|entry| entry.id == self.id)
            && let Some(entry) = runs.queue.remove(at)
        {
            runs.bytes -= entry.bytes;
        }
    }
}

fn evicted_message(config: &ResumeConfig) -> String {
    format!(
        "the run was detached and evicted to make room (this endpoint keeps at most {} detached runs, holding at most {} bytes besides their log)",
        config.max_detached, config.max_detached_bytes
    )
}

impl EventBody {
    /// Cancels the run: the agent's events are dropped (which stops an agent of
    /// [`server`](crate::server)), and a `RUN_ERROR` of `code` takes their place unless the
    /// run has ended already. It goes through the chain as any event (what the coalescer holds
    /// goes out first); polling the body to its end logs it and finishes the log.
    fn cancel(&mut self, code: &str, message: String) {
        let ended = self.live.as_ref().is_none_or(LiveLog::is_terminal);
        self.events = if ended {
            Box::pin(futures::stream::empty())
        } else {
            let error = crate::RunErrorEvent::new(message).with_code(code);
            Box::pin(futures::stream::iter([error.into()]))
        };
    }
}

/// The detached life of a run: its body polled to the end (its output, already in the log,
/// goes nowhere), or cancelled when evicted or out of time.
async fn run_detached(
    mut body: EventBody,
    ticket: Ticket,
    mut evicted: oneshot::Receiver<oneshot::Sender<()>>,
    config: ResumeConfig,
) {
    let bound = config.detach_timeout;
    let mut done = None;
    let drained = tokio::time::timeout(bound, async {
        loop {
            tokio::select! {
                biased;
                told = &mut evicted => {
                    done = Some(told.ok());
                    return;
                }
                output = body.next() => if output.is_none() {
                    return;
                },
            }
        }
    })
    .await;
    let run_id = body
        .live
        .as_ref()
        .map(|live| Arc::<str>::from(live.run_id()));
    let run_id = run_id.as_deref().unwrap_or_default();
    if done.is_some() {
        tracing::warn!(
            run_id,
            max_detached = config.max_detached,
            max_detached_bytes = config.max_detached_bytes,
            "a detached run was evicted to make room"
        );
        body.cancel(EVICTED, evicted_message(&config));
    } else if drained.is_err() {
        tracing::warn!(
            run_id,
            "a detached run did not end within {} s and was cancelled",
            bound.as_secs()
        );
        body.cancel(
            "detach-timeout",
            format!(
                "the run was detached and did not end within {} s",
                bound.as_secs()
            ),
        );
    }
    // The run's end (or its RUN_ERROR) goes into the log, which is finished then.
    while body.next().await.is_some() {}
    drop(body);
    drop(ticket);
    // The evictor waiting for the room learns the log is finished.
    drop(done);
}

/// Opens `run_id` in the endpoint's log; a log full of running runs first loses the oldest
/// detached ones (at most [`MAX_EVICTIONS_PER_OPEN`], each awaited at most
/// [`EVICTION_WAIT`]), so a live client is served while abandoned runs wait.
///
/// # Errors
///
/// The log's error when it refuses the run, [`LogErrorKind::Full`] included when no detached
/// run is left to evict.
pub(crate) async fn open(
    resumable: &Resumable,
    run_id: &str,
) -> Result<Box<dyn RunWriter>, LogError> {
    let mut evictions = 0;
    loop {
        match resumable.log.open(run_id).await {
            Err(error)
                if error.kind() == LogErrorKind::Full && evictions < MAX_EVICTIONS_PER_OPEN =>
            {
                let Some(finished) = resumable.detached.evict_oldest() else {
                    return Err(error);
                };
                evictions += 1;
                let _ = tokio::time::timeout(EVICTION_WAIT, finished).await;
            }
            opened => return opened,
        }
    }
}
