//! The run pipeline: bytes of an SSE response (or ready events) in, a conversation out.
//!
//! ```text
//! bytes ─► FrameDecoder ─► Compat (THINKING_*, unknown types) ─► ChunkNormalizer ─► Verifier ─► Reducer
//! ```
//!
//! Every stage is public on its own ([`FrameDecoder`], [`Compat`], [`ChunkNormalizer`],
//! [`Verifier`], [`Reducer`]); a [`Pipeline`] runs them in one pass, event by event, and tells a
//! [`Subscriber`] about every event and every change of messages or state. A subscriber can end
//! the run early by returning [`Flow::Stop`].
//!
//! ```
//! use ag_ui::client::run::{Flow, Pipeline, Subscriber};
//! use ag_ui::client::apply::{Applied, Reducer};
//! use ag_ui::encoding::sse;
//! use ag_ui::{Event, TextMessageRole};
//!
//! let mut bytes = Vec::new();
//! for event in [
//!     Event::run_started("t1", "r1"),
//!     Event::text_message_start("m1", TextMessageRole::Assistant),
//!     Event::text_message_content("m1", "Hello"),
//!     Event::text_message_end("m1"),
//!     Event::run_finished("t1", "r1"),
//! ] {
//!     sse::encode_into(&event, &mut bytes);
//! }
//!
//! /// Counts the changes of the messages.
//! #[derive(Default)]
//! struct Changes(usize);
//! impl Subscriber for Changes {
//!     fn on_applied(&mut self, _: &Event, applied: &Applied, _: &Reducer) -> Flow {
//!         self.0 += usize::from(applied.messages.is_changed());
//!         Flow::Continue
//!     }
//! }
//!
//! let mut pipeline = Pipeline::new(Reducer::new());
//! let mut changes = Changes::default();
//! for piece in bytes.chunks(10) {
//!     pipeline.push_bytes(piece, &mut changes)?;
//! }
//! pipeline.finish(&mut changes)?;
//! assert_eq!(pipeline.reducer().messages()[0].text(), Some("Hello"));
//! assert_eq!(changes.0, 2); // created, then its text
//! # Ok::<(), ag_ui::client::run::RunError>(())
//! ```

use std::fmt;

use crate::client::apply::{Applied, ApplyError, Reducer};
use crate::client::chunks::{ChunkError, ChunkNormalizer};
use crate::client::compat::Compat;
use crate::encoding::sse::FrameDecoder;
use crate::verify::{Verifier, Violation};
use crate::{DecodeError, DecodeErrorKind, Event};

/// Whether the run goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Go on.
    Continue,
    /// End the run now; the current event is not applied (when said from
    /// [`Subscriber::on_event`]) and nothing after it is read.
    Stop,
}

/// Observes a run: every event, and what each one changed. Every method has a default that does
/// nothing and continues.
pub trait Subscriber {
    /// Called for every event (after chunk expansion and verification), before it is applied.
    fn on_event(&mut self, event: &Event, conversation: &Reducer) -> Flow {
        let _ = (event, conversation);
        Flow::Continue
    }

    /// Called after every event that changed messages or state, or that the reducer warned
    /// about; `conversation` shows the result.
    fn on_applied(&mut self, event: &Event, applied: &Applied, conversation: &Reducer) -> Flow {
        let _ = (event, applied, conversation);
        Flow::Continue
    }
}

/// A subscriber that observes nothing.
impl Subscriber for () {}

impl<S: Subscriber + ?Sized> Subscriber for &mut S {
    fn on_event(&mut self, event: &Event, conversation: &Reducer) -> Flow {
        (**self).on_event(event, conversation)
    }

    fn on_applied(&mut self, event: &Event, applied: &Applied, conversation: &Reducer) -> Flow {
        (**self).on_applied(event, applied, conversation)
    }
}

/// The kinds of [`RunError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RunErrorKind {
    /// A frame was not a valid event (or too large).
    Decode,
    /// A chunk event could not be expanded.
    Chunk,
    /// The stream broke an ordering rule.
    Verify,
    /// The reducer refused an event.
    Apply,
    /// The transport failed (connection, I/O, timeout).
    Transport,
    /// The server answered with a non-success status.
    Http,
    /// Every open interrupt must be answered by a `resume` entry before the next run.
    UnansweredInterrupt,
    /// An expired interrupt must be answered with status `cancelled`.
    ExpiredInterrupt,
}

impl RunErrorKind {
    /// A stable dotted name, e.g. `run.verify`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunErrorKind::Decode => "run.decode",
            RunErrorKind::Chunk => "run.chunk",
            RunErrorKind::Verify => "run.verify",
            RunErrorKind::Apply => "run.apply",
            RunErrorKind::Transport => "run.transport",
            RunErrorKind::Http => "run.http",
            RunErrorKind::UnansweredInterrupt => "run.unanswered-interrupt",
            RunErrorKind::ExpiredInterrupt => "run.expired-interrupt",
        }
    }
}

/// Why a run failed. Messages and state keep what was applied before the failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// A frame was not a valid event.
    #[error("decoding the stream failed: {0}")]
    Decode(#[from] DecodeError),
    /// A chunk could not be expanded.
    #[error("chunk expansion failed: {0}")]
    Chunk(#[from] ChunkError),
    /// The stream broke an ordering rule.
    #[error("the stream is invalid: {0}")]
    Verify(#[from] Violation),
    /// The reducer refused an event.
    #[error(transparent)]
    Apply(#[from] ApplyError),
    /// The transport failed.
    #[error("transport failed: {0}")]
    Transport(String),
    /// The server answered with a non-success status.
    #[error("HTTP {status}: {body}")]
    Http {
        /// The status code.
        status: u16,
        /// The response body (cut at 64 KiB).
        body: String,
    },
    /// An interrupt left open by the last run has no `resume` entry.
    #[error("interrupt {0:?} is open and has no resume entry")]
    UnansweredInterrupt(String),
    /// An interrupt whose `expiresAt` has passed was answered with something else than
    /// `cancelled`.
    #[error("interrupt {0:?} has expired; its resume entry must be cancelled")]
    ExpiredInterrupt(String),
}

impl RunError {
    /// What kind of failure this is.
    pub fn kind(&self) -> RunErrorKind {
        match self {
            RunError::Decode(_) => RunErrorKind::Decode,
            RunError::Chunk(_) => RunErrorKind::Chunk,
            RunError::Verify(_) => RunErrorKind::Verify,
            RunError::Apply(_) => RunErrorKind::Apply,
            RunError::Transport(_) => RunErrorKind::Transport,
            RunError::Http { .. } => RunErrorKind::Http,
            RunError::UnansweredInterrupt(_) => RunErrorKind::UnansweredInterrupt,
            RunError::ExpiredInterrupt(_) => RunErrorKind::ExpiredInterrupt,
        }
    }
}

/// The whole client pipeline over one response. See the [module documentation](self).
pub struct Pipeline {
    frames: FrameDecoder,
    compat: Compat,
    chunks: ChunkNormalizer,
    verifier: Verifier,
    reducer: Reducer,
    expanded: Vec<Event>,
    /// What the compatibility stage read from one frame (reused).
    decoded: Vec<Event>,
    stopped: bool,
}

impl fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pipeline")
            .field("events", &self.reducer.events_applied())
            .field("stopped", &self.stopped)
            .finish_non_exhaustive()
    }
}

impl Pipeline {
    /// A pipeline that applies to `reducer` (which holds the conversation so far).
    pub fn new(reducer: Reducer) -> Self {
        Self {
            frames: FrameDecoder::new(),
            compat: Compat::new(),
            chunks: ChunkNormalizer::new(),
            verifier: Verifier::new(),
            reducer,
            expanded: Vec::new(),
            decoded: Vec::new(),
            stopped: false,
        }
    }

    /// Sets the largest SSE frame accepted, in bytes (10 MiB by default); a larger one is a
    /// [`RunError::Decode`] of kind `TooLarge`, and the buffer never grows past it.
    #[must_use]
    pub fn with_max_event_size(mut self, bytes: usize) -> Self {
        self.frames = FrameDecoder::new().with_max_event_size(bytes);
        self
    }

    /// The conversation as applied so far.
    pub fn reducer(&self) -> &Reducer {
        &self.reducer
    }

    /// Gives up the conversation.
    pub fn into_reducer(self) -> Reducer {
        self.reducer
    }

    /// Whether a subscriber stopped the run.
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// Feeds bytes of an SSE response, in pieces of any size.
    ///
    /// # Errors
    /// The first decode, chunk, verification or apply failure; the pipeline should not be fed
    /// after one.
    pub fn push_bytes(
        &mut self,
        bytes: &[u8],
        subscriber: &mut impl Subscriber,
    ) -> Result<Flow, RunError> {
        if self.stopped {
            return Ok(Flow::Stop);
        }
        self.frames.push(bytes);
        self.drain_frames(subscriber)
    }

    fn drain_frames(&mut self, subscriber: &mut impl Subscriber) -> Result<Flow, RunError> {
        while let Some(frame) = self.frames.next_frame()? {
            let index = frame.index();
            let mut decoded = std::mem::take(&mut self.decoded);
            if let Err(e) = decode_frame(&mut self.compat, frame.data(), &mut decoded) {
                return Err(e.with_index(index).into());
            }
            let flow = self.push_decoded(&mut decoded, subscriber);
            self.decoded = decoded;
            if flow? == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Continue)
    }

    /// Feeds what the compatibility stage read, leaving `decoded` empty.
    fn push_decoded(
        &mut self,
        decoded: &mut Vec<Event>,
        subscriber: &mut impl Subscriber,
    ) -> Result<Flow, RunError> {
        for event in decoded.drain(..) {
            if self.push_event(event, subscriber)? == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Continue)
    }

    /// Feeds one decoded event (from a transport that delivers events, not bytes).
    ///
    /// # Errors
    /// As [`push_bytes`](Self::push_bytes), without decode errors.
    pub fn push_event(
        &mut self,
        event: Event,
        subscriber: &mut impl Subscriber,
    ) -> Result<Flow, RunError> {
        if self.stopped {
            return Ok(Flow::Stop);
        }
        self.expanded.clear();
        self.chunks.push_into(event, &mut self.expanded)?;
        self.apply_expanded(subscriber)
    }

    fn apply_expanded(&mut self, subscriber: &mut impl Subscriber) -> Result<Flow, RunError> {
        for event in self.expanded.drain(..) {
            self.verifier.check(&event)?;
            if subscriber.on_event(&event, &self.reducer) == Flow::Stop {
                self.stopped = true;
                return Ok(Flow::Stop);
            }
            let applied = self.reducer.apply(&event)?;
            if (applied.is_changed() || applied.warning.is_some())
                && subscriber.on_applied(&event, &applied, &self.reducer) == Flow::Stop
            {
                self.stopped = true;
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Continue)
    }

    /// Ends the input: reads a last frame left without its blank line and closes chunk streams
    /// still open.
    ///
    /// # Errors
    /// As [`push_bytes`](Self::push_bytes).
    pub fn finish(&mut self, subscriber: &mut impl Subscriber) -> Result<Flow, RunError> {
        if self.stopped {
            return Ok(Flow::Stop);
        }
        self.frames.finish();
        if self.drain_frames(subscriber)? == Flow::Stop {
            return Ok(Flow::Stop);
        }
        let mut decoded = std::mem::take(&mut self.decoded);
        self.compat.finish_into(&mut decoded);
        let flow = self.push_decoded(&mut decoded, subscriber);
        self.decoded = decoded;
        if flow? == Flow::Stop {
            return Ok(Flow::Stop);
        }
        self.expanded.clear();
        self.chunks.finish_into(&mut self.expanded);
        self.apply_expanded(subscriber)
    }
}

/// Reads a frame's data; invalid UTF-8 is read as U+FFFD, as the SSE rules say.
/// Lone UTF-16 surrogate halves rejoin across deltas (see [`Compat::decode_into`]).
fn decode_frame(compat: &mut Compat, data: &[u8], out: &mut Vec<Event>) -> Result<(), DecodeError> {
    match compat.decode_into(data, out) {
        Err(e) if e.kind() == DecodeErrorKind::Syntax && std::str::from_utf8(data).is_err() => {
            compat.decode_into(String::from_utf8_lossy(data).as_bytes(), out)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::sse;
    use crate::{EventType, MessageId, TextMessageRole};

    fn sse_of(events: &[Event]) -> Vec<u8> {
        let mut out = Vec::new();
        for e in events {
            sse::encode_into(e, &mut out);
        }
        out
    }

    #[derive(Default)]
    struct Log {
        events: Vec<EventType>,
        applied: usize,
        stop_at: Option<EventType>,
    }

    impl Subscriber for Log {
        fn on_event(&mut self, event: &Event, _: &Reducer) -> Flow {
            self.events.push(event.event_type());
            if Some(event.event_type()) == self.stop_at {
                Flow::Stop
            } else {
                Flow::Continue
            }
        }
        fn on_applied(&mut self, _: &Event, _: &Applied, _: &Reducer) -> Flow {
            self.applied += 1;
            Flow::Continue
        }
    }

    #[test]
    fn chunks_thinking_and_unknown_types_go_through() {
        let mut bytes = sse_of(&[
            Event::run_started("t", "r"),
            Event::text_message_chunk(Some(MessageId::new("m")), Some("a".into())),
            Event::text_message_chunk(None, Some("b".into())),
        ]);
        bytes.extend_from_slice(b"data: {\"type\":\"THINKING_TEXT_MESSAGE_START\"}\n\n");
        bytes.extend_from_slice(
            b"data: {\"type\":\"THINKING_TEXT_MESSAGE_CONTENT\",\"delta\":\"hm\"}\n\n",
        );
        bytes.extend_from_slice(b"data: {\"type\":\"THINKING_TEXT_MESSAGE_END\"}\n\n");
        bytes.extend_from_slice(b"data: {\"type\":\"SOMETHING_NEW\"}\n\n");
        bytes.extend(sse_of(&[Event::run_finished("t", "r")]));
        let mut log = Log::default();
        let mut pipeline = Pipeline::new(Reducer::new());
        for piece in bytes.chunks(5) {
            pipeline.push_bytes(piece, &mut log).unwrap();
        }
        pipeline.finish(&mut log).unwrap();
        let messages = pipeline.reducer().messages();
        assert_eq!(messages[0].text(), Some("ab"));
        assert_eq!(messages[1].text(), Some("hm"));
        assert_eq!(messages[1].id().as_str(), "thinking-1");
        assert_eq!(log.events.len(), 9);
        assert_eq!(log.events[1], EventType::TextMessageStart);
    }

    #[test]
    fn verifier_errors_stop_the_pipeline_with_what_was_applied() {
        let bytes = sse_of(&[
            Event::run_started("t", "r"),
            Event::text_message_start("m", TextMessageRole::Assistant),
            Event::text_message_content("m", "kept"),
            Event::text_message_content("other", "x"),
        ]);
        let mut pipeline = Pipeline::new(Reducer::new());
        let err = pipeline.push_bytes(&bytes, &mut ()).unwrap_err();
        assert_eq!(err.kind(), RunErrorKind::Verify);
        assert_eq!(pipeline.reducer().messages()[0].text(), Some("kept"));
    }

    #[test]
    fn decode_errors_name_the_frame() {
        let mut bytes = sse_of(&[Event::run_started("t", "r")]);
        bytes.extend_from_slice(b"data: {\"type\":\"TEXT_MESSAGE_START\"}\n\n");
        let err = Pipeline::new(Reducer::new())
            .push_bytes(&bytes, &mut ())
            .unwrap_err();
        let RunError::Decode(e) = &err else {
            panic!("{err}")
        };
        assert_eq!(e.index(), Some(1));
        assert_eq!(err.kind().as_str(), "run.decode");
    }

    #[test]
    fn frame_size_limit() {
        let bytes = sse_of(&[
            Event::run_started("t", "r"),
            Event::custom("big", serde_json::json!("x".repeat(1000))),
        ]);
        let err = Pipeline::new(Reducer::new())
            .with_max_event_size(200)
            .push_bytes(&bytes, &mut ())
            .unwrap_err();
        let RunError::Decode(e) = err else { panic!() };
        assert_eq!(e.kind(), DecodeErrorKind::TooLarge);
    }

    #[test]
    fn a_subscriber_can_stop_the_run() {
        let bytes = sse_of(&[
            Event::run_started("t", "r"),
            Event::text_message_start("m", TextMessageRole::Assistant),
            Event::text_message_content("m", "x"),
            Event::text_message_end("m"),
        ]);
        let mut log = Log {
            stop_at: Some(EventType::TextMessageContent),
            ..Log::default()
        };
        let mut pipeline = Pipeline::new(Reducer::new());
        assert_eq!(pipeline.push_bytes(&bytes, &mut log).unwrap(), Flow::Stop);
        assert!(pipeline.is_stopped());
        assert_eq!(pipeline.reducer().messages()[0].text(), Some(""));
        assert_eq!(log.events.len(), 3);
        assert_eq!(pipeline.finish(&mut log).unwrap(), Flow::Stop);
    }
}
