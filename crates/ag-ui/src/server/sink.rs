//! The shared event sink (verifier + channel), the receiving end [`Events`], and cancellation.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use futures::Stream;
use tokio::sync::{mpsc, watch};

use super::{Error, Result};
use crate::Event;

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

struct SinkInner {
    /// `None` once the run has been closed by its terminal event.
    tx: Option<mpsc::UnboundedSender<Event>>,
}

/// The one place every event of a run goes through: checked, then queued, under one lock, so
/// the order the verifier saw is the order on the wire.
#[derive(Clone)]
pub(crate) struct Sink {
    inner: Arc<Mutex<SinkInner>>,
    cancel: watch::Receiver<Cancel>,
}

impl fmt::Debug for Sink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sink")
            .field("cancel", &*self.cancel.borrow())
            .finish_non_exhaustive()
    }
}

impl Sink {
    /// A sink and the receiving end of its stream.
    pub(crate) fn channel() -> (Sink, Events) {
        let (tx, rx) = mpsc::unbounded_channel();
        let (cancel_tx, cancel_rx) = watch::channel(Cancel::Running);
        let sink = Sink {
            inner: Arc::new(Mutex::new(SinkInner { tx: Some(tx) })),
            cancel: cancel_rx,
        };
        let events = Events {
            rx,
            cancel: Arc::new(cancel_tx),
        };
        (sink, events)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SinkInner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts the run with its `RUN_STARTED`: checked, and queued when `queue` (the harness
    /// keeps it private so a test sees only what the agent emitted).
    pub(crate) fn begin(&self, started: Event, queue: bool) -> Result<()> {
        let inner = self.lock();
        let Some(tx) = &inner.tx else {
            return Err(Error::closed());
        };
        if queue {
            tx.send(started).map_err(|_| Error::disconnected())?;
        }
        Ok(())
    }

    /// Checks `event` and queues it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Closed`](super::ErrorKind::Closed) after the run's terminal event,
    /// [`ErrorKind::Disconnected`](super::ErrorKind::Disconnected) when the consumer is gone.
    pub(crate) fn send(&self, event: Event) -> Result<()> {
        let inner = self.lock();
        let Some(tx) = &inner.tx else {
            return Err(Error::closed());
        };
        tx.send(event).map_err(|_| Error::disconnected())
    }

    /// Queues the run's terminal event and closes the sink: every later emission fails with
    /// `Closed`, and the stream ends once the consumer has read what is queued.
    pub(crate) fn finish(&self, event: Event) -> Result<()> {
        let mut inner = self.lock();
        let Some(tx) = inner.tx.take() else {
            return Err(Error::closed());
        };
        tx.send(event).map_err(|_| Error::disconnected())
    }

    /// Where the consumer stands right now.
    pub(crate) fn cancel_state(&self) -> Cancel {
        *self.cancel.borrow()
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
/// [`Events::drain`]. A transport reads it as a [`Stream`] of [`Event`]s, which ends once the
/// run's terminal event has been read. Dropping it tells the agent the consumer went away
/// (`ctx.cancelled()` resolves, emissions fail with `ErrorKind::Disconnected`).
///
/// ```
/// use ag_ui::{Event, RunAgentInput};
/// use ag_ui::server::RunContext;
///
/// let (mut ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap();
/// ctx.say("hi").unwrap();
/// assert_eq!(events.drain().len(), 3);
/// assert!(events.drain().is_empty());
/// ```
pub struct Events {
    rx: mpsc::UnboundedReceiver<Event>,
    cancel: Arc<watch::Sender<Cancel>>,
}

impl fmt::Debug for Events {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Events")
            .field("queued", &self.rx.len())
            .field("cancel", &*self.cancel.borrow())
            .finish()
    }
}

impl Events {
    /// Every event queued so far, in order, without waiting.
    pub fn drain(&mut self) -> Vec<Event> {
        let mut out = Vec::with_capacity(self.rx.len());
        while let Ok(event) = self.rx.try_recv() {
            out.push(event);
        }
        out
    }

    /// Number of events queued and not yet read.
    pub fn len(&self) -> usize {
        self.rx.len()
    }

    /// Whether no event is queued right now.
    pub fn is_empty(&self) -> bool {
        self.rx.is_empty()
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
        self.rx.poll_recv(cx)
    }
}

impl Drop for Events {
    fn drop(&mut self) {
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
