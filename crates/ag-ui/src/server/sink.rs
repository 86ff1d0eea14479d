//! The shared event sink (verifier + channel), the receiving end [`Events`], and cancellation.

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use futures::Stream;
use tokio::sync::watch;

use super::{Error, Result};
use crate::Event;
use crate::verify::{Verifier, Violation};

/// Where the consumer stands, as the agent sees it through `cancelled()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Cancel {
    /// Nobody asked to stop.
    Running,
    /// The consumer asked the run to stop ([`CancelHandle::cancel`]) and is still reading.
    Requested,
    /// The consumer dropped the event stream.
    Gone,
}

/// The queue and its bookkeeping, behind the sink's one lock.
///
/// The verifier already needs a lock per event, so the queue lives under the same one: the
/// order the verifier accepted is the order on the wire, and an event costs one lock, not a
/// lock plus a channel's own synchronization. The consumer takes the whole backlog at once
/// (swapping buffers), so memory is bounded by the backlog, never by what a run emitted.
struct Shared {
    queue: VecDeque<Event>,
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

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The one place every event of a run goes through: checked, then queued, under one lock, so
/// the order the verifier saw is the order on the wire.
pub(crate) struct Sink {
    shared: Arc<Mutex<Shared>>,
    cancel: watch::Receiver<Cancel>,
}

impl fmt::Debug for Sink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sink")
            .field("cancel", &*self.cancel.borrow())
            .finish_non_exhaustive()
    }
}

impl Clone for Sink {
    fn clone(&self) -> Self {
        lock(&self.shared).senders += 1;
        Self {
            shared: Arc::clone(&self.shared),
            cancel: self.cancel.clone(),
        }
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        let waker = {
            let mut shared = lock(&self.shared);
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
    /// A sink and the receiving end of its stream.
    pub(crate) fn channel() -> (Sink, Events) {
        let (cancel_tx, cancel_rx) = watch::channel(Cancel::Running);
        let shared = Arc::new(Mutex::new(Shared {
            queue: VecDeque::new(),
            waker: None,
            finished: false,
            reading: true,
            senders: 1,
            verifier: Verifier::for_emission(),
        }));
        let sink = Sink {
            shared: Arc::clone(&shared),
            cancel: cancel_rx,
        };
        let events = Events {
            shared,
            buffer: VecDeque::new(),
            cancel: Arc::new(cancel_tx),
        };
        (sink, events)
    }

    /// Starts the run with its `RUN_STARTED`: checked, and queued when `queue` (the harness
    /// keeps it private so a test sees only what the agent emitted).
    pub(crate) fn begin(&self, started: Event, queue: bool) -> Result<()> {
        let mut shared = lock(&self.shared);
        shared.verifier.check(&started).map_err(Error::protocol)?;
        if queue {
            shared.queue.push_back(started);
        }
        Ok(())
    }

    /// What the verifier would say about `event`, without emitting it or changing its state.
    /// For the refused path of `emit` only: it copies the verifier.
    pub(crate) fn dry_check(&self, event: &Event) -> Option<Violation> {
        let mut verifier = lock(&self.shared).verifier.clone();
        verifier.check(event).err()
    }

    /// Checks `event` and queues it; with `finish`, closes the sink behind it.
    #[inline]
    fn push(&self, event: Event, finish: bool) -> Result<()> {
        let waker = {
            let mut shared = lock(&self.shared);
            if shared.finished {
                return Err(Error::closed());
            }
            if !shared.reading {
                return Err(Error::disconnected());
            }
            shared.verifier.check(&event).map_err(Error::protocol)?;
            shared.queue.push_back(event);
            shared.finished = finish;
            shared.waker.take()
        };
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

    /// Where the consumer stands right now.
    pub(crate) fn cancel_state(&self) -> Cancel {
        *self.cancel.borrow()
    }

    /// A `'static` future that resolves once the consumer dropped the event stream: nobody
    /// will read anything this run emits from then on.
    pub(crate) fn gone(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut rx = self.cancel.clone();
        async move {
            let _ = rx.wait_for(|state| *state == Cancel::Gone).await;
        }
    }

    /// A `'static` future that resolves once the consumer asked to stop or went away.
    pub(crate) fn cancelled(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut rx = self.cancel.clone();
        async move {
            // An error means the sender (the `Events`) is gone: that is cancellation too.
            let _ = rx.wait_for(|state| *state != Cancel::Running).await;
        }
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
/// ```
/// use ag_ui::{Event, RunAgentInput};
/// use ag_ui::server::RunContext;
///
/// let (mut ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap();
/// ctx.say("hi").unwrap();
/// assert_eq!(events.len(), 3);
/// assert_eq!(events.drain().len(), 3);
/// assert!(events.drain().is_empty());
/// ```
pub struct Events {
    shared: Arc<Mutex<Shared>>,
    /// Events taken from the queue and not yet handed out.
    buffer: VecDeque<Event>,
    cancel: Arc<watch::Sender<Cancel>>,
}

impl fmt::Debug for Events {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Events")
            .field("queued", &self.len())
            .field("cancel", &*self.cancel.borrow())
            .finish()
    }
}

impl Events {
    /// Moves the shared backlog into the local buffer; reports whether the stream is over
    /// when both are empty.
    fn refill(&mut self) -> bool {
        let mut shared = lock(&self.shared);
        if self.buffer.is_empty() {
            std::mem::swap(&mut shared.queue, &mut self.buffer);
        } else {
            self.buffer.extend(shared.queue.drain(..));
        }
        shared.finished || shared.senders == 0
    }

    /// Every event queued so far, in order, without waiting.
    pub fn drain(&mut self) -> Vec<Event> {
        self.refill();
        self.buffer.drain(..).collect()
    }

    /// The next queued event, without waiting; `None` when nothing is queued right now.
    pub fn try_next(&mut self) -> Option<Event> {
        if self.buffer.is_empty() {
            self.refill();
        }
        self.buffer.pop_front()
    }

    /// Number of events queued and not yet read.
    pub fn len(&self) -> usize {
        self.buffer.len() + lock(&self.shared).queue.len()
    }

    /// Whether no event is queued right now.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A handle that asks the run to stop while this side keeps reading: the agent sees
    /// `ctx.cancelled()` resolve, and the runner ends the run with the `cancelled` outcome.
    pub fn cancel_handle(&self) -> CancelHandle {
        CancelHandle {
            cancel: Arc::clone(&self.cancel),
        }
    }
}

impl Stream for Events {
    type Item = Event;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        if let Some(event) = self.buffer.pop_front() {
            return Poll::Ready(Some(event));
        }
        let this = &mut *self;
        let mut shared = lock(&this.shared);
        if !shared.queue.is_empty() {
            std::mem::swap(&mut shared.queue, &mut this.buffer);
            drop(shared);
            return Poll::Ready(this.buffer.pop_front());
        }
        if shared.finished || shared.senders == 0 {
            return Poll::Ready(None);
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
            let mut shared = lock(&self.shared);
            shared.reading = false;
            std::mem::take(&mut shared.queue)
        };
        drop(backlog);
        self.cancel.send_replace(Cancel::Gone);
    }
}

/// Asks a run to stop while its consumer is still reading; see [`Events::cancel_handle`].
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
    cancel: Arc<watch::Sender<Cancel>>,
}

impl fmt::Debug for CancelHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancelHandle")
            .field("cancel", &*self.cancel.borrow())
            .finish()
    }
}

impl CancelHandle {
    /// Requests cancellation. Idempotent; has no effect once the consumer is gone.
    pub fn cancel(&self) {
        self.cancel.send_if_modified(|state| {
            if *state == Cancel::Running {
                *state = Cancel::Requested;
                true
            } else {
                false
            }
        });
    }

    /// Whether cancellation was requested (or the consumer is gone).
    pub fn is_cancelled(&self) -> bool {
        *self.cancel.borrow() != Cancel::Running
    }
}
