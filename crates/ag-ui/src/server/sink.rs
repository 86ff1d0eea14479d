//! The shared event sink (verifier + bounded queue), the receiving end [`Events`], the
//! backpressure limits ([`Backpressure`]), and cancellation.

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use futures::Stream;
use tokio::sync::Notify;

use super::{Error, Result};
use crate::Event;
use crate::verify::{Verifier, Violation};

/// The default high-water mark of a run's backlog: 256 KiB. Above it,
/// [`RunContext::ready`](super::RunContext::ready) waits for the consumer.
pub const DEFAULT_HIGH_WATER: usize = 256 * 1024;

/// The default hard cap on a run's backlog: 16 MiB. An emission that would take the backlog
/// past it fails with [`ErrorKind::Backpressure`](super::ErrorKind::Backpressure), and the run
/// ends with `RUN_ERROR`.
pub const DEFAULT_HARD_CAP: usize = 16 * 1024 * 1024;

/// How much a run may queue for a consumer that reads slower than the agent emits.
///
/// The backlog is measured in bytes: an estimate of the memory each queued event holds (its
/// text or JSON payload plus the size of an [`Event`]), summed over the events emitted and not
/// yet handed to the consumer. Two limits apply:
///
/// * the **high-water mark** ([`DEFAULT_HIGH_WATER`]): while the backlog is at or above it,
///   `ready().await` (on the context, a subagent, or an open handle) waits, and the
///   [`Runner`](super::Runner) does not resume the agent's future after an `.await`, until
///   the consumer has drained the backlog to half the mark. Emission itself never waits: a
///   `delta` is synchronous, and so is the terminator a handle emits from `Drop`;
/// * the **hard cap** ([`DEFAULT_HARD_CAP`]): an emission that would take the backlog past it
///   is refused with [`ErrorKind::Backpressure`](super::ErrorKind::Backpressure), and so is
///   every later one; the runner then ends the run with `RUN_ERROR` (code `"backpressure"`),
///   which is always let through. Memory per run is so bounded by configuration, not by how
///   fast a peer reads.
///
/// A hard cap below the high-water mark is raised to it when the run starts, and a high-water
/// mark of 0 counts as 1, however the fields were set.
///
/// ```
/// use ag_ui::server::{Backpressure, DEFAULT_HARD_CAP, DEFAULT_HIGH_WATER};
///
/// let limits = Backpressure::default().with_high_water(64 * 1024).with_hard_cap(1 << 20);
/// assert_eq!((limits.high_water, limits.hard_cap), (64 * 1024, 1 << 20));
/// assert_eq!(Backpressure::default().high_water, DEFAULT_HIGH_WATER);
/// assert_eq!(Backpressure::default().hard_cap, DEFAULT_HARD_CAP);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Backpressure {
    /// The high-water mark, in bytes of backlog (default [`DEFAULT_HIGH_WATER`]; 0 counts as
    /// 1).
    pub high_water: usize,
    /// The hard cap, in bytes of backlog (default [`DEFAULT_HARD_CAP`]; below the high-water
    /// mark, it is raised to it).
    pub hard_cap: usize,
}

impl Default for Backpressure {
    fn default() -> Self {
        Self {
            high_water: DEFAULT_HIGH_WATER,
            hard_cap: DEFAULT_HARD_CAP,
        }
    }
}

impl Backpressure {
    /// These limits with the high-water mark at `bytes` of backlog.
    #[must_use]
    pub fn with_high_water(mut self, bytes: usize) -> Self {
        self.high_water = bytes;
        self
    }

    /// These limits with the hard cap at `bytes` of backlog.
    #[must_use]
    pub fn with_hard_cap(mut self, bytes: usize) -> Self {
        self.hard_cap = bytes;
        self
    }

    /// The limits a run holds to: the one place the fields' rules are applied.
    fn effective(self) -> Self {
        let high_water = self.high_water.max(1);
        Self {
            high_water,
            hard_cap: self.hard_cap.max(high_water),
        }
    }

    /// Where waiting emitters are let go again: half the high-water mark, so that a run at the
    /// mark does not wake its agent once per event.
    fn low_water(&self) -> usize {
        self.high_water / 2
    }
}

/// The estimated memory an event holds while queued: the size of an [`Event`], plus its text
/// for the streaming families (the hot path: no serialization), plus the JSON length of the
/// payload for every other event (counted, not written).
#[inline]
fn cost(event: &Event) -> usize {
    let payload = match event {
        Event::TextMessageContent(e) => e.delta.len() + e.message_id.as_str().len(),
        Event::ReasoningMessageContent(e) => e.delta.len() + e.message_id.as_str().len(),
        Event::ToolCallArgs(e) => e.delta.len() + e.tool_call_id.as_str().len(),
        other => payload_len(other),
    };
    std::mem::size_of::<Event>() + payload
}

/// The JSON length of an event off the streaming hot path.
#[cold]
#[inline(never)]
fn payload_len(event: &Event) -> usize {
    super::scope::json_len(event)
}

/// Where the consumer stands, as the agent sees it through `cancelled()`. It only moves
/// forward (`Running`, then `Requested`, then `Gone`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub(crate) enum Cancel {
    /// Nobody asked to stop.
    Running,
    /// The consumer asked the run to stop ([`CancelHandle::cancel`]) and is still reading.
    Requested,
    /// The consumer dropped the event stream.
    Gone,
}

impl Cancel {
    fn from_u8(value: u8) -> Self {
        match value {
            0 => Cancel::Running,
            1 => Cancel::Requested,
            _ => Cancel::Gone,
        }
    }
}

/// The queue and its bookkeeping, behind the sink's one lock.
///
/// The verifier already needs a lock per event, so the queue lives under the same one: the
/// order the verifier accepted is the order on the wire, and an event costs one lock, not a
/// lock plus a channel's own synchronization. The consumer takes the whole backlog at once
/// (swapping buffers); the backlog counts both what is queued and what the consumer took and
/// has not handed out yet, so memory is bounded by the [`Backpressure`] limits, never by what
/// a run emitted.
struct Shared {
    queue: VecDeque<Event>,
    /// Bytes of the events in `queue`.
    queued_bytes: usize,
    /// Bytes of the events the consumer took and still holds, as it last reported.
    held_bytes: usize,
    /// The largest backlog seen.
    peak_bytes: usize,
    limits: Backpressure,
    /// The backlog and the cap when an emission was refused for the hard cap: from then on
    /// every emission is refused, and the runner ends the run with `RUN_ERROR`.
    overflow: Option<(usize, usize)>,
    /// The consumer's waker while it waits for an event.
    waker: Option<Waker>,
    /// The run's terminal event has been queued; nothing more is accepted.
    finished: bool,
    /// The consumer (`Events`) is still there.
    reading: bool,
    /// Live `Sink`s; at zero the stream ends once drained.
    senders: usize,
    /// Every event passes it before it is queued.
    verifier: Verifier,
}

impl Shared {
    fn backlog(&self) -> usize {
        self.queued_bytes + self.held_bytes
    }
}

/// What the sink and the consumer share.
struct Channel {
    shared: Mutex<Shared>,
    /// Set (under the lock) while an emitter waits in `ready()`; the consumer reads it without
    /// the lock after each event it hands out, and only then counts the event off (its cost is
    /// computed again then, rather than stored with every event) and reports how far it got.
    waiting: AtomicBool,
    /// Wakes the emitters waiting in `ready()` (also when the cancel state moves).
    drained: Notify,
    /// The [`Cancel`] state as a `u8`. An atomic and a `Notify` in the allocation the run
    /// already has, rather than a `tokio::sync::watch` channel of its own: a watch channel
    /// is a second allocation of some 300 bytes a run (eight notifiers), held while the run
    /// waits.
    cancel: AtomicU8,
    /// Wakes the futures of `cancelled()` and `gone()` when the cancel state moves.
    cancel_moved: Notify,
}

impl Channel {
    fn cancel_state(&self) -> Cancel {
        Cancel::from_u8(self.cancel.load(Ordering::Acquire))
    }

    /// Moves the cancel state forward to `to` (never back) and wakes whoever waits on it.
    fn move_cancel(&self, to: Cancel) {
        let before = self.cancel.fetch_max(to as u8, Ordering::AcqRel);
        if before < to as u8 {
            self.cancel_moved.notify_waiters();
            // Emitters waiting in `ready()` return once the run is asked to stop.
            self.drained.notify_waiters();
        }
    }

    /// Resolves once the cancel state satisfies `done`.
    async fn until_cancel(self: Arc<Self>, done: fn(Cancel) -> bool) {
        loop {
            let moved = self.cancel_moved.notified();
            let mut moved = std::pin::pin!(moved);
            // Registered before the check, so a move in between is not lost.
            moved.as_mut().enable();
            if done(self.cancel_state()) {
                return;
            }
            moved.await;
        }
    }

    #[inline]
    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// After the consumer's holding went down: lets waiting emitters go once the backlog is
    /// at or below the low-water mark. Called with the lock held.
    fn release_if_drained(&self, shared: &Shared) {
        if self.waiting.load(Ordering::Acquire) && shared.backlog() <= shared.limits.low_water() {
            self.waiting.store(false, Ordering::Release);
            self.drained.notify_waiters();
        }
    }
}

/// The error of an emission refused for the hard cap.
fn overflow_error(backlog: usize, cap: usize) -> Error {
    Error::backpressure(format!(
        "backpressure: the run's backlog would reach {backlog} bytes, over its hard cap of \
         {cap} bytes; the consumer reads slower than the agent emits (wait with \
         `ctx.ready().await` between emissions)"
    ))
}

/// A `'static` handle on the backlog, for waiting until the consumer caught up. Not a sender:
/// holding one does not keep the stream open.
#[derive(Clone)]
pub(crate) struct Readiness {
    channel: Arc<Channel>,
}

impl fmt::Debug for Readiness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Readiness").finish_non_exhaustive()
    }
}

impl Readiness {
    /// Whether the backlog is at or above the high-water mark right now.
    pub(crate) fn is_over(&self) -> bool {
        let shared = self.channel.lock();
        shared.backlog() >= shared.limits.high_water
    }

    /// Resolves once the backlog is below the high-water mark (at once when it already is),
    /// or once the consumer asked the run to stop.
    ///
    /// # Errors
    ///
    /// `Disconnected` when the consumer is gone, `Closed` after the terminal event,
    /// `Backpressure` once the hard cap was hit.
    pub(crate) fn wait(&self) -> impl Future<Output = Result<()>> + Send + use<> {
        let channel = Arc::clone(&self.channel);
        async move {
            loop {
                let notified = channel.drained.notified();
                let mut notified = std::pin::pin!(notified);
                // Registered before the check, so a release between the check and the wait
                // is not lost.
                notified.as_mut().enable();
                {
                    let shared = channel.lock();
                    if let Some((backlog, cap)) = shared.overflow {
                        return Err(overflow_error(backlog, cap));
                    }
                    if shared.finished {
                        return Err(Error::closed());
                    }
                    if !shared.reading {
                        return Err(Error::disconnected());
                    }
                    if shared.backlog() < shared.limits.high_water
                        || channel.cancel_state() != Cancel::Running
                    {
                        return Ok(());
                    }
                    channel.waiting.store(true, Ordering::Release);
                }
                // Woken by the consumer's progress and by a cancel request alike.
                notified.await;
            }
        }
    }
}

/// The one place every event of a run goes through: checked, then queued, under one lock, so
/// the order the verifier saw is the order on the wire.
pub(crate) struct Sink {
    channel: Arc<Channel>,
}

impl fmt::Debug for Sink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sink")
            .field("cancel", &self.channel.cancel_state())
            .finish_non_exhaustive()
    }
}

impl Clone for Sink {
    fn clone(&self) -> Self {
        self.channel.lock().senders += 1;
        Self {
            channel: Arc::clone(&self.channel),
        }
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        let waker = {
            let mut shared = self.channel.lock();
            shared.senders -= 1;
            if shared.senders == 0 {
                shared.waker.take()
            } else {
                None
            }
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl Sink {
    /// A sink with the given limits and the receiving end of its stream.
    pub(crate) fn channel(limits: Backpressure) -> (Sink, Events) {
        let channel = Arc::new(Channel {
            shared: Mutex::new(Shared {
                queue: VecDeque::new(),
                queued_bytes: 0,
                held_bytes: 0,
                peak_bytes: 0,
                limits: limits.effective(),
                overflow: None,
                waker: None,
                finished: false,
                reading: true,
                senders: 1,
                verifier: Verifier::for_emission(),
            }),
            waiting: AtomicBool::new(false),
            drained: Notify::new(),
            cancel: AtomicU8::new(Cancel::Running as u8),
            cancel_moved: Notify::new(),
        });
        let sink = Sink {
            channel: Arc::clone(&channel),
        };
        let events = Events {
            channel,
            buffer: VecDeque::new(),
            held: 0,
        };
        (sink, events)
    }

    /// Starts the run with its `RUN_STARTED`: checked, and queued when `queue` (the harness
    /// keeps it private so a test sees only what the agent emitted).
    pub(crate) fn begin(&self, started: Event, queue: bool) -> Result<()> {
        let cost = cost(&started);
        let mut shared = self.channel.lock();
        shared.verifier.check(&started).map_err(Error::protocol)?;
        if queue {
            shared.queue.push_back(started);
            shared.queued_bytes += cost;
            shared.peak_bytes = shared.peak_bytes.max(shared.backlog());
        }
        Ok(())
    }

    /// What the verifier would say about `event`, without emitting it or changing its state.
    /// For the refused path of `emit` only: it copies the verifier.
    pub(crate) fn dry_check(&self, event: &Event) -> Option<Violation> {
        let mut verifier = self.channel.lock().verifier.clone();
        verifier.check(event).err()
    }

    /// Checks `event` and queues it; with `finish`, closes the sink behind it (the terminal
    /// event passes the hard cap: it is what tells the client the run failed).
    ///
    /// The hot path of every emission: small enough to inline into the emit handles. Whatever
    /// is not an ordinary emission under the hard cap (a closed or abandoned run, the cap hit,
    /// the terminal event) goes to [`push_slow`](Self::push_slow).
    #[inline]
    fn push(&self, event: Event, finish: bool) -> Result<()> {
        let cost = cost(&event);
        let waker = {
            let mut shared = self.channel.lock();
            let backlog = shared.backlog() + cost;
            if finish
                || shared.finished
                || !shared.reading
                || shared.overflow.is_some()
                || backlog > shared.limits.hard_cap
            {
                return self.push_slow(shared, event, cost, finish);
            }
            shared.verifier.check(&event).map_err(Error::protocol)?;
            shared.queue.push_back(event);
            shared.queued_bytes += cost;
            if backlog > shared.peak_bytes {
                shared.peak_bytes = backlog;
            }
            shared.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }

    /// [`push`](Self::push) off the hot path, with the lock held: refuses what a closed,
    /// abandoned or overflowing run cannot take, and queues the terminal event.
    #[cold]
    #[inline(never)]
    fn push_slow(
        &self,
        mut shared: MutexGuard<'_, Shared>,
        event: Event,
        cost: usize,
        finish: bool,
    ) -> Result<()> {
        if shared.finished {
            return Err(Error::closed());
        }
        if !shared.reading {
            return Err(Error::disconnected());
        }
        let backlog = shared.backlog() + cost;
        if !finish {
            if let Some((backlog, cap)) = shared.overflow {
                return Err(overflow_error(backlog, cap));
            }
            if backlog > shared.limits.hard_cap {
                let cap = shared.limits.hard_cap;
                shared.overflow = Some((backlog, cap));
                return Err(overflow_error(backlog, cap));
            }
        }
        shared.verifier.check(&event).map_err(Error::protocol)?;
        shared.queue.push_back(event);
        shared.queued_bytes += cost;
        if backlog > shared.peak_bytes {
            shared.peak_bytes = backlog;
        }
        shared.finished = finish;
        let waker = shared.waker.take();
        drop(shared);
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }

    /// Checks `event` and queues it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Protocol`](super::ErrorKind::Protocol) when the verifier refuses it
    /// (nothing is queued, and the verifier is as before),
    /// [`ErrorKind::Backpressure`](super::ErrorKind::Backpressure) when it would take the
    /// backlog past the hard cap (and for every emission after that),
    /// [`ErrorKind::Closed`](super::ErrorKind::Closed) after the run's terminal event,
    /// [`ErrorKind::Disconnected`](super::ErrorKind::Disconnected) when the consumer is gone.
    #[inline]
    pub(crate) fn send(&self, event: Event) -> Result<()> {
        self.push(event, false)
    }

    /// Queues the run's terminal event and closes the sink: every later emission fails with
    /// `Closed`, and the stream ends once the consumer has read what is queued.
    pub(crate) fn finish(&self, event: Event) -> Result<()> {
        self.push(event, true)
    }

    /// The error an emission got for the hard cap, if one did: the run has lost events and
    /// must end with `RUN_ERROR`.
    pub(crate) fn overflow(&self) -> Option<Error> {
        self.channel
            .lock()
            .overflow
            .map(|(backlog, cap)| overflow_error(backlog, cap))
    }

    /// A handle for waiting on the backlog that does not keep the stream open.
    pub(crate) fn readiness(&self) -> Readiness {
        Readiness {
            channel: Arc::clone(&self.channel),
        }
    }

    /// See [`Readiness::wait`].
    pub(crate) fn ready(&self) -> impl Future<Output = Result<()>> + Send + 'static {
        self.readiness().wait()
    }

    /// Where the consumer stands right now.
    pub(crate) fn cancel_state(&self) -> Cancel {
        self.channel.cancel_state()
    }

    /// A `'static` future that resolves once the consumer dropped the event stream: nobody
    /// will read anything this run emits from then on.
    pub(crate) fn gone(&self) -> impl Future<Output = ()> + Send + 'static {
        Arc::clone(&self.channel).until_cancel(|state| state == Cancel::Gone)
    }

    /// A `'static` future that resolves once the consumer asked to stop or went away.
    pub(crate) fn cancelled(&self) -> impl Future<Output = ()> + Send + 'static {
        Arc::clone(&self.channel).until_cancel(|state| state != Cancel::Running)
    }
}

/// The receiving end of a run's event stream.
///
/// From [`RunContext::new`](super::RunContext::new) (the unit-test harness) or from the runner
/// ([`Runner::run`](super::Runner::run)). Emission never waits for this side: everything an
/// agent emitted is already queued when its call returns, so a test simply calls
/// [`Events::drain`]. A transport reads it as a [`Stream`] of [`Event`]s, which ends after the
/// run's terminal event (or once every context feeding it is gone). Dropping it tells the
/// agent the consumer went away (`ctx.cancelled()` resolves, emissions fail with
/// `ErrorKind::Disconnected`).
///
/// What is queued and not yet read is the run's backlog, bounded by its [`Backpressure`]
/// limits; [`backlog_bytes`](Self::backlog_bytes) and
/// [`peak_backlog_bytes`](Self::peak_backlog_bytes) measure it.
///
/// ```
/// use ag_ui::{Event, RunAgentInput};
/// use ag_ui::server::RunContext;
///
/// let (mut ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap();
/// ctx.say("hi").unwrap();
/// assert_eq!(events.len(), 3);
/// assert!(events.backlog_bytes() > 0);
/// assert_eq!(events.drain().len(), 3);
/// assert!(events.drain().is_empty());
/// assert_eq!(events.backlog_bytes(), 0);
/// assert!(events.peak_backlog_bytes() > 0);
/// ```
pub struct Events {
    channel: Arc<Channel>,
    /// Events taken from the queue and not yet handed out.
    buffer: VecDeque<Event>,
    /// Bytes of the events in `buffer`, counted off one by one only while an emitter waits:
    /// otherwise an over-estimate until the buffer is empty again (memory is never
    /// under-counted).
    held: usize,
}

impl fmt::Debug for Events {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Events")
            .field("queued", &self.len())
            .field("cancel", &self.channel.cancel_state())
            .finish()
    }
}

impl Events {
    /// Moves the shared backlog into the local buffer and reports what this side holds;
    /// returns whether the stream is over when both are empty.
    fn refill(&mut self) -> bool {
        let mut shared = self.channel.lock();
        if self.buffer.is_empty() {
            std::mem::swap(&mut shared.queue, &mut self.buffer);
        } else {
            self.buffer.extend(shared.queue.drain(..));
        }
        self.held += shared.queued_bytes;
        shared.queued_bytes = 0;
        shared.held_bytes = self.held;
        self.channel.release_if_drained(&shared);
        shared.finished || shared.senders == 0
    }

    /// Hands out the next buffered event; tells a waiting emitter how far this side got.
    #[inline]
    fn pop(&mut self) -> Option<Event> {
        let event = self.buffer.pop_front()?;
        if self.channel.waiting.load(Ordering::Acquire) {
            self.held = if self.buffer.is_empty() {
                0
            } else {
                self.held.saturating_sub(cost(&event))
            };
            let mut shared = self.channel.lock();
            shared.held_bytes = self.held;
            self.channel.release_if_drained(&shared);
        } else if self.buffer.is_empty() {
            self.held = 0;
        }
        Some(event)
    }

    /// Every event queued so far, in order, without waiting.
    pub fn drain(&mut self) -> Vec<Event> {
        self.refill();
        self.held = 0;
        let events = self.buffer.drain(..).collect();
        let mut shared = self.channel.lock();
        shared.held_bytes = 0;
        self.channel.release_if_drained(&shared);
        events
    }

    /// The next queued event, without waiting; `None` when nothing is queued right now.
    pub fn try_next(&mut self) -> Option<Event> {
        if self.buffer.is_empty() {
            self.refill();
        }
        self.pop()
    }

    /// Number of events queued and not yet read.
    pub fn len(&self) -> usize {
        self.buffer.len() + self.channel.lock().queue.len()
    }

    /// Whether no event is queued right now.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The run's backlog right now: the estimated bytes of the events emitted and not yet
    /// read (see [`Backpressure`]).
    pub fn backlog_bytes(&self) -> usize {
        self.channel.lock().queued_bytes + self.held
    }

    /// The largest backlog the run has had so far, in the same measure as
    /// [`backlog_bytes`](Self::backlog_bytes).
    pub fn peak_backlog_bytes(&self) -> usize {
        self.channel.lock().peak_bytes
    }

    /// The limits the run's backlog is held to.
    pub fn backpressure(&self) -> Backpressure {
        self.channel.lock().limits
    }

    /// A handle that asks the run to stop while this side keeps reading: the agent sees
    /// `ctx.cancelled()` resolve, and the runner ends the run with the `cancelled` outcome.
    pub fn cancel_handle(&self) -> CancelHandle {
        CancelHandle {
            channel: Arc::clone(&self.channel),
        }
    }
}

impl Stream for Events {
    type Item = Event;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        let this = &mut *self;
        if let Some(event) = this.pop() {
            return Poll::Ready(Some(event));
        }
        let mut shared = this.channel.lock();
        if !shared.queue.is_empty() {
            std::mem::swap(&mut shared.queue, &mut this.buffer);
            this.held = shared.queued_bytes;
            shared.queued_bytes = 0;
            shared.held_bytes = this.held;
            // Nothing was handed out since the last report, so nothing to release here; the
            // next `pop` reports.
            drop(shared);
            return Poll::Ready(this.pop());
        }
        // Everything taken was handed out: this side holds nothing.
        shared.held_bytes = 0;
        this.channel.release_if_drained(&shared);
        if shared.finished || shared.senders == 0 {
            return Poll::Ready(None);
        }
        // The run waits (on its model, most of its life): both buffers are empty, and their
        // memory goes back rather than staying with every waiting run (about 1 KB a run:
        // four events' room each). The next event allocates again, once per wake-up, which
        // costs little beside the wake-up itself.
        if shared.queue.capacity() > 0 {
            shared.queue = VecDeque::new();
        }
        if this.buffer.capacity() > 0 {
            this.buffer = VecDeque::new();
        }
        match &mut shared.waker {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            slot => *slot = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

impl Drop for Events {
    fn drop(&mut self) {
        let backlog = {
            let mut shared = self.channel.lock();
            shared.reading = false;
            shared.queued_bytes = 0;
            shared.held_bytes = 0;
            std::mem::take(&mut shared.queue)
        };
        drop(backlog);
        // Also wakes the emitters waiting in `ready()`: they find the consumer gone.
        self.channel.move_cancel(Cancel::Gone);
    }
}

/// Asks a run to stop while its consumer is still reading; see [`Events::cancel_handle`].
///
/// One end of the run's cancellation channel (the agent's `RunContext` waits on the other).
/// A client cancels its own run with `client::CancelToken` instead (feature `client`): a
/// token made before any run exists, with no runtime under it.
///
/// ```
/// use ag_ui::RunAgentInput;
/// use ag_ui::server::RunContext;
///
/// let (ctx, events) = RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap();
/// assert!(!ctx.is_cancelled());
/// events.cancel_handle().cancel();
/// assert!(ctx.is_cancelled());
/// ```
#[derive(Clone)]
pub struct CancelHandle {
    channel: Arc<Channel>,
}

impl fmt::Debug for CancelHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancelHandle")
            .field("cancel", &self.channel.cancel_state())
            .finish()
    }
}

impl CancelHandle {
    /// Requests cancellation. Idempotent; has no effect once the consumer is gone.
    pub fn cancel(&self) {
        self.channel.move_cancel(Cancel::Requested);
    }

    /// Whether cancellation was requested (or the consumer is gone).
    pub fn is_cancelled(&self) -> bool {
        self.channel.cancel_state() != Cancel::Running
    }
}

#[cfg(test)]
mod tests {
    use futures::FutureExt;

    use super::*;

    fn started() -> Event {
        Event::run_started("t", "r")
    }

    #[test]
    fn the_limits_rules_hold_however_the_fields_were_set_and_in_any_order() {
        let zero = Backpressure {
            high_water: 0,
            hard_cap: 0,
        };
        assert_eq!(
            (zero.effective().high_water, zero.effective().hard_cap),
            (1, 1)
        );
        let low_cap = Backpressure::default().with_hard_cap(1).effective();
        assert_eq!(low_cap.hard_cap, DEFAULT_HIGH_WATER);
        let one = Backpressure::default()
            .with_hard_cap(10)
            .with_high_water(100);
        let other = Backpressure::default()
            .with_high_water(100)
            .with_hard_cap(10);
        assert_eq!(one, other);
        assert_eq!(
            (one.effective().high_water, one.effective().hard_cap),
            (100, 100)
        );
        // A run holds to what it was given.
        let (sink, _events) = Sink::channel(one);
        assert_eq!(sink.channel.shared.lock().unwrap().limits, one.effective());
    }

    #[test]
    fn cancelled_resolves_once_asked_and_gone_only_once_the_consumer_left() {
        let (sink, events) = Sink::channel(Backpressure::default());
        let mut cancelled = Box::pin(sink.cancelled());
        let mut gone = Box::pin(sink.gone());
        assert!(cancelled.as_mut().now_or_never().is_none());
        let handle = events.cancel_handle();
        assert!(!handle.is_cancelled());
        handle.cancel();
        assert!(handle.is_cancelled());
        assert_eq!(sink.cancel_state(), Cancel::Requested);
        assert!(cancelled.as_mut().now_or_never().is_some());
        assert!(gone.as_mut().now_or_never().is_none());
        drop(events);
        assert_eq!(sink.cancel_state(), Cancel::Gone);
        assert!(gone.as_mut().now_or_never().is_some());
    }

    #[test]
    fn the_cancel_state_never_moves_back() {
        let (sink, events) = Sink::channel(Backpressure::default());
        let handle = events.cancel_handle();
        drop(events);
        handle.cancel();
        assert_eq!(sink.cancel_state(), Cancel::Gone);
        assert!(sink.cancelled().now_or_never().is_some());
        assert!(sink.gone().now_or_never().is_some());
    }

    #[tokio::test]
    async fn a_future_made_before_the_move_wakes_on_another_task() {
        let (sink, events) = Sink::channel(Backpressure::default());
        let waiter = tokio::spawn(sink.cancelled());
        tokio::task::yield_now().await;
        events.cancel_handle().cancel();
        tokio::time::timeout(std::time::Duration::from_secs(5), waiter)
            .await
            .expect("cancelled() woke")
            .unwrap();
    }

    #[test]
    fn ready_returns_when_the_run_is_asked_to_stop_over_the_high_water_mark() {
        let (sink, events) = Sink::channel(Backpressure::default().with_high_water(1));
        sink.begin(started(), true).unwrap();
        assert!(sink.readiness().is_over());
        let mut ready = Box::pin(sink.ready());
        assert!(ready.as_mut().now_or_never().is_none());
        events.cancel_handle().cancel();
        assert!(matches!(ready.as_mut().now_or_never(), Some(Ok(()))));
        drop(events);
        let error = sink.ready().now_or_never().unwrap().unwrap_err();
        assert_eq!(error.kind(), super::super::ErrorKind::Disconnected);
    }
}
