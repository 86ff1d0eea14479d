//! The response body of a run: its events encoded as they come (SSE or protobuf frames), the
//! version downgrade, filter, coalescing, timestamps and ids on the way, keep-alive comments
//! when quiet, and the run's detached life when its client leaves a resumable run.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use ::axum::body::Bytes;
use futures::Stream;

use crate::Event;
use crate::encoding::{Format, sse};
use crate::server::downgrade::{Downgrade, LegacyFrame};
use crate::server::transform::{Coalescer, Filter};

use super::limits::InputPermit;
use super::{EventStream, resume};

/// Most bytes gathered into one write from events that are already waiting.
pub(super) const MAX_BATCH: usize = 64 * 1024;

/// A coalescer, its window, and the timer of the delta it holds.
type Coalescing = (Coalescer, Duration, Option<Pin<Box<tokio::time::Sleep>>>);

/// The response body: the events encoded as they come (SSE frames or protobuf frames), and
/// for SSE keep-alive comments when quiet.
pub(super) struct EventBody {
    pub(super) events: EventStream,
    pub(super) encoding: Format,
    pub(super) keep_alive: Option<(Duration, Pin<Box<tokio::time::Sleep>>)>,
    pub(super) event_ids: bool,
    pub(super) next_id: u64,
    pub(super) done: bool,
    /// The rewrite for a pre-1.0 client, and its reused frame buffer (boxed, as the
    /// coalescer: rarely set, and every open run would carry their room inline).
    pub(super) downgrade: Option<Box<(Downgrade, Vec<LegacyFrame>)>>,
    pub(super) filter: Option<Filter>,
    /// The coalescer, its window, and the timer of the delta it holds.
    pub(super) coalesce: Option<Box<Coalescing>>,
    /// Reused buffer for what the coalescer lets through.
    pub(super) staged: Vec<Event>,
    /// Resumable: the run's log, which numbers the frames.
    pub(super) live: Option<resume::LiveLog>,
    /// Whether each event's timestamp is set as it is written.
    pub(super) timestamps: bool,
    /// The run's span and counts.
    pub(super) trace: crate::trace::RunTrace,
    /// The run's input bytes in the endpoint's budget: counted while the run is open (here,
    /// then in its detached life).
    pub(super) permit: InputPermit,
    /// Whether this is the detached life of a run, polled by a task of its own.
    pub(super) detached: bool,
}

impl EventBody {
    pub(super) fn new(
        events: EventStream,
        encoding: Format,
        keep_alive: Option<Duration>,
        event_ids: bool,
        downgrade: Option<Downgrade>,
    ) -> Self {
        // The binary stream has no frame that a reader would skip: no keep-alive, no ids.
        let sse = encoding == Format::Sse;
        Self {
            events,
            encoding,
            keep_alive: keep_alive
                .filter(|_| sse)
                .map(|every| (every, Box::pin(tokio::time::sleep(every)))),
            event_ids: event_ids && sse,
            next_id: 1,
            done: false,
            downgrade: downgrade.map(|d| Box::new((d, Vec::new()))),
            filter: None,
            coalesce: None,
            staged: Vec::new(),
            live: None,
            timestamps: false,
            trace: crate::trace::RunTrace::disabled(),
            permit: InputPermit::unbounded(),
            detached: false,
        }
    }

    /// One event from the agent: filtered, coalesced, then written.
    pub(super) fn write(&mut self, event: Event, out: &mut Vec<u8>) {
        let event = match &mut self.filter {
            None => event,
            Some(filter) => match filter.apply(event) {
                Some(event) => event,
                None => return,
            },
        };
        let Some((coalescer, _, _)) = self.coalesce.as_deref_mut() else {
            self.emit(event, out);
            return;
        };
        let mut staged = std::mem::take(&mut self.staged);
        coalescer.push(event, &mut staged);
        if !coalescer.is_holding()
            && let Some((_, _, timer)) = self.coalesce.as_deref_mut()
        {
            *timer = None;
        }
        for event in staged.drain(..) {
            self.emit(event, out);
        }
        self.staged = staged;
    }

    /// Writes the delta the coalescer holds, if any.
    pub(super) fn flush_coalesced(&mut self, out: &mut Vec<u8>) {
        let Some((coalescer, _, timer)) = self.coalesce.as_deref_mut() else {
            return;
        };
        *timer = None;
        let mut staged = std::mem::take(&mut self.staged);
        coalescer.flush(&mut staged);
        for event in staged.drain(..) {
            self.emit(event, out);
        }
        self.staged = staged;
    }

    /// Whether the coalescer holds a delta that may wait longer: arms its timer on first call
    /// and answers `false` (flush now) once it fired or when the window is zero.
    pub(super) fn hold_longer(&mut self, cx: &mut Context<'_>) -> bool {
        let Some((coalescer, window, timer)) = self.coalesce.as_deref_mut() else {
            return false;
        };
        if !coalescer.is_holding() || window.is_zero() {
            return false;
        }
        let timer = timer.get_or_insert_with(|| Box::pin(tokio::time::sleep(*window)));
        timer.as_mut().poll(cx).is_pending()
    }

    /// One event past the filter and the coalescer: downgraded when needed, then encoded.
    pub(super) fn emit(&mut self, event: Event, out: &mut Vec<u8>) {
        let Some((downgrade, frames)) = self.downgrade.as_deref_mut() else {
            match &mut self.live {
                Some(live) => live.write(&event, self.encoding == Format::Sse, out),
                None => self.write_event(&event, out),
            }
            return;
        };
        // A resumable run logs the 1.0 event (a reconnecting reader gets the run as it is);
        // the pre-1.0 client on this connection gets the rewritten frames.
        if let Some(live) = &mut self.live {
            live.log(&event);
        }
        downgrade.push(event, frames);
        self.write_frames(out);
    }

    /// Writes the frames the downgrade produced, emptying its buffer.
    pub(super) fn write_frames(&mut self, out: &mut Vec<u8>) {
        let Some((_, frames)) = self.downgrade.as_deref_mut() else {
            return;
        };
        let mut frames = std::mem::take(frames);
        for frame in frames.drain(..) {
            match frame {
                LegacyFrame::Event(event) => self.write_event(&event, out),
                // No protobuf mapping exists for the pre-1.0 THINKING_* events.
                LegacyFrame::Thinking(_) if self.encoding != Format::Sse => {}
                thinking => {
                    self.write_id(out);
                    sse::write_data(out, |out| thinking.write_json(out));
                }
            }
        }
        if let Some((_, buffer)) = self.downgrade.as_deref_mut() {
            *buffer = frames;
        }
    }

    pub(super) fn write_id(&mut self, out: &mut Vec<u8>) {
        if self.event_ids {
            sse::write_id(self.next_id, out);
            self.next_id += 1;
        }
    }

    pub(super) fn write_event(&mut self, event: &Event, out: &mut Vec<u8>) {
        match self.encoding {
            Format::Sse => {
                self.write_id(out);
                sse::encode_into(event, out);
            }
            #[cfg(feature = "proto")]
            Format::Proto => crate::encoding::proto::encode_into(event, out),
        }
    }
}

impl Stream for EventBody {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        // Resumable SSE frames go to the log as written: their buffer comes from the log.
        let shared = this.downgrade.is_none() && this.encoding == Format::Sse;
        let mut out = match &mut this.live {
            Some(live) if shared => live.buffer(),
            _ => Vec::new(),
        };
        loop {
            match this.events.as_mut().poll_next(cx) {
                Poll::Ready(Some(mut event)) => {
                    if this.timestamps {
                        *event.timestamp_mut() = Some(crate::trace::now_millis());
                    }
                    this.trace.on_event(&event, 0);
                    this.write(event, &mut out);
                    if out.len() >= MAX_BATCH {
                        break;
                    }
                }
                Poll::Ready(None) => {
                    this.done = true;
                    this.flush_coalesced(&mut out);
                    if let Some((downgrade, frames)) = this.downgrade.as_deref_mut() {
                        downgrade.finish(frames);
                        this.write_frames(&mut out);
                    }
                    this.trace.set_outcome_from_end();
                    break;
                }
                Poll::Pending => {
                    if !this.hold_longer(cx) {
                        this.flush_coalesced(&mut out);
                    }
                    break;
                }
            }
        }
        if !out.is_empty() {
            this.trace.add_bytes(out.len());
            let out = match &mut this.live {
                Some(live) if shared => live.freeze(out),
                _ => Bytes::from(out),
            };
            if let Some(live) = &mut this.live {
                // The log has these events before a client can hold their ids.
                live.flush(&out);
                if this.done {
                    live.finish();
                }
            }
            if let Some((every, sleep)) = &mut this.keep_alive {
                sleep.as_mut().reset(tokio::time::Instant::now() + *every);
            }
            return Poll::Ready(Some(Ok(out)));
        }
        if this.done {
            if let Some(live) = &mut this.live {
                live.finish();
            }
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

impl Drop for EventBody {
    fn drop(&mut self) {
        // A resumable run whose client left goes on detached, through this same chain (filter,
        // coalescing, timestamps, trace) into the log; otherwise dropping the events cancels
        // the run.
        let Some(mut live) = self.live.take() else {
            return;
        };
        if self.done {
            return;
        }
        if self.detached {
            // The detached life itself was dropped (the runtime shutting down).
            live.finish();
            return;
        }
        let detached = Arc::clone(live.detached());
        let body = EventBody {
            events: std::mem::replace(&mut self.events, Box::pin(futures::stream::empty())),
            encoding: self.encoding,
            keep_alive: None,
            event_ids: false,
            next_id: self.next_id,
            done: false,
            downgrade: self.downgrade.take(),
            filter: self.filter.take(),
            coalesce: self.coalesce.take(),
            staged: std::mem::take(&mut self.staged),
            live: Some(live),
            timestamps: self.timestamps,
            trace: std::mem::replace(&mut self.trace, crate::trace::RunTrace::disabled()),
            permit: std::mem::take(&mut self.permit),
            detached: true,
        };
        detached.detach(body);
    }
}
