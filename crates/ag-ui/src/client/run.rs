//! The run pipeline: bytes of an SSE response (or ready events) in, a conversation out.
//!
//! ```text
//! bytes ─► FrameDecoder ─► Compat (THINKING_*, unknown types) ─► ChunkNormalizer ─► Verifier ─► Reducer
//! ```
//!
//! An SSE frame's data is read as [`EventDecoder`](crate::encoding::sse::EventDecoder) reads it:
//! the stream is checked as UTF-8 once, as it arrives, and ids repeated from one event to the
//! next share one string. A body that decoded the frames itself (the reconnecting reader) hands
//! their data on, fed with [`Pipeline::push_frame`] to the same stages. With the `proto` feature, a pipeline set to [`Format::Proto`] reads
//! protobuf frames instead (`encoding::proto`) and feeds the same stages.
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
//! # Ok::<(), ag_ui::client::run::PipelineError>(())
//! ```

use std::fmt;

use crate::client::apply::{Applied, ApplyError, Limits, Reducer};
use crate::client::callbacks::Mutation;
use crate::client::chunks::{ChunkError, ChunkNormalizer};
use crate::client::compat::Compat;
use crate::client::middleware::Stack;
use crate::encoding::Format;
use crate::encoding::sse::FrameDecoder;
use crate::verify::{OpenEntities, Verifier, Violation};
use crate::{DecodeError, Event, RunId};

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

    /// Asked after every call to [`on_event`](Self::on_event) or [`on_applied`](
    /// Self::on_applied) that continued: a [`Mutation`] returned here replaces the
    /// conversation's messages or state at once. `None` by default.
    fn take_mutation(&mut self) -> Option<Mutation> {
        None
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

    fn take_mutation(&mut self) -> Option<Mutation> {
        (**self).take_mutation()
    }
}

/// The kinds of [`PipelineError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PipelineErrorKind {
    /// A frame was not a valid event (or too large).
    Decode,
    /// A chunk event could not be expanded.
    Chunk,
    /// The stream broke an ordering rule.
    Verify,
    /// The reducer refused an event.
    Apply,
    /// The agent ended the run with `RUN_ERROR`.
    RunFailed,
    /// The response ended in the middle of a run, or before any run started.
    Incomplete,
}

impl PipelineErrorKind {
    /// A stable dotted name, e.g. `run.verify`.
    pub fn as_str(self) -> &'static str {
        match self {
            PipelineErrorKind::Decode => "run.decode",
            PipelineErrorKind::Chunk => "run.chunk",
            PipelineErrorKind::Verify => "run.verify",
            PipelineErrorKind::Apply => "run.apply",
            PipelineErrorKind::RunFailed => "run.failed",
            PipelineErrorKind::Incomplete => "run.incomplete",
        }
    }
}

/// Why the pipeline refused a response, or why the run it told failed. The reducer keeps what
/// was applied before the failure.
///
/// A run that the agent ended with `RUN_ERROR` ([`RunFailed`](Self::RunFailed)) and a response
/// that stopped in the middle of a run ([`Incomplete`](Self::Incomplete)) are errors too, so
/// that `?` never reads a failed run as a successful one.
///
/// The variants that wrap an error of a stage say which stage failed; the stage's error is the
/// [`source`](std::error::Error::source) (so a report that walks the chain shows it once).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PipelineError {
    /// A frame was not a valid event.
    #[error("decoding the stream failed")]
    Decode(#[from] DecodeError),
    /// A chunk could not be expanded.
    #[error("chunk expansion failed")]
    Chunk(#[from] ChunkError),
    /// The stream broke an ordering rule.
    #[error("the stream is invalid")]
    Verify(#[from] Violation),
    /// The reducer refused an event.
    #[error(transparent)]
    Apply(#[from] ApplyError),
    /// The agent ended the run with `RUN_ERROR`. `Display` quotes at most 4 KiB of the message
    /// (the fields keep it whole).
    #[error("the run failed: {}", printable(&match code {
        Some(code) => format!(
            "{} (code {})",
            crate::excerpt(message, 4 * crate::EXCERPT_LIST_BYTES),
            crate::excerpt(code, crate::EXCERPT_BYTES)
        ),
        None => crate::excerpt(message, 4 * crate::EXCERPT_LIST_BYTES).into_owned(),
    }))]
    RunFailed {
        /// The `RUN_ERROR` message.
        message: String,
        /// The `RUN_ERROR` code, if any.
        code: Option<String>,
    },
    /// The response ended without `RUN_FINISHED` or `RUN_ERROR` for the last run (or before
    /// any run started).
    #[error("{}", incomplete_message(.run_id.as_deref(), .open))]
    Incomplete {
        /// The run that was still in progress; `None` when no run started at all.
        run_id: Option<String>,
        /// What that run still had open.
        open: Box<OpenEntities>,
    },
}

/// `text` with control characters (terminal escapes, line breaks) written as `\u{…}`
/// escapes: what a peer sent is shown, never obeyed by a terminal.
fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

fn incomplete_message(run_id: Option<&str>, open: &OpenEntities) -> String {
    let run_id = run_id.map(|run| crate::excerpt(run, crate::EXCERPT_BYTES));
    let text = match run_id.as_deref() {
        None => "the response ended before any run started (no RUN_STARTED)".to_owned(),
        Some(run) if open.is_empty() => {
            format!("the response ended in the middle of run {run} (no RUN_FINISHED or RUN_ERROR)")
        }
        Some(run) => format!(
            "the response ended in the middle of run {run} (no RUN_FINISHED or RUN_ERROR); still open: {open}"
        ),
    };
    printable(&text).into_owned()
}

impl PipelineError {
    /// What kind of failure this is.
    pub fn kind(&self) -> PipelineErrorKind {
        match self {
            PipelineError::Decode(_) => PipelineErrorKind::Decode,
            PipelineError::Chunk(_) => PipelineErrorKind::Chunk,
            PipelineError::Verify(_) => PipelineErrorKind::Verify,
            PipelineError::Apply(_) => PipelineErrorKind::Apply,
            PipelineError::RunFailed { .. } => PipelineErrorKind::RunFailed,
            PipelineError::Incomplete { .. } => PipelineErrorKind::Incomplete,
        }
    }
}

/// The whole client pipeline over one response. See the [module documentation](self).
pub struct Pipeline {
    frames: FrameDecoder,
    /// The protobuf reader, when the pipeline reads [`Format::Proto`].
    #[cfg(feature = "proto")]
    proto: Option<crate::encoding::proto::EventDecoder>,
    compat: Compat,
    /// The middleware between the compatibility stage and the chunk normalizer.
    middleware: Stack,
    /// What the middleware let through for one event (reused).
    shaped: Vec<Event>,
    chunks: ChunkNormalizer,
    verifier: Verifier,
    reducer: Reducer,
    expanded: Vec<Event>,
    /// What the compatibility stage read from one frame (reused).
    decoded: Vec<Event>,
    /// The frames fed decoded ([`push_frame`](Self::push_frame)), counted with the decoder's.
    pushed_frames: u64,
    stopped: bool,
    /// The last run started (cleared by nothing: a later `RUN_STARTED` replaces it).
    run_id: Option<RunId>,
    /// The `RUN_ERROR` that ended the last run, if it failed: message and code.
    failure: Option<(String, Option<String>)>,
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
            #[cfg(feature = "proto")]
            proto: None,
            compat: Compat::new(),
            middleware: Stack::new(),
            shaped: Vec::new(),
            chunks: ChunkNormalizer::new(),
            verifier: Verifier::new(),
            reducer,
            expanded: Vec::new(),
            decoded: Vec::new(),
            pushed_frames: 0,
            stopped: false,
            run_id: None,
            failure: None,
        }
    }

    /// Sets the largest SSE frame accepted, in bytes (10 MiB by default); a larger one is a
    /// [`PipelineError::Decode`] of kind `TooLarge`, and the buffer never grows past it.
    #[must_use]
    pub fn with_max_event_size(mut self, bytes: usize) -> Self {
        self.frames = FrameDecoder::new().with_max_event_size(bytes);
        #[cfg(feature = "proto")]
        if let Some(proto) = self.proto.take() {
            self.proto = Some(proto.with_max_frame_size(bytes));
        }
        self
    }

    /// The largest SSE (or protobuf) frame accepted, in bytes.
    pub fn max_event_size(&self) -> usize {
        self.frames.max_event_size()
    }

    /// Sets the encoding of the bytes given to [`push_bytes`](Self::push_bytes) ([`Format::Sse`]
    /// by default). Call it before feeding bytes. Over protobuf, the frame limit of
    /// [`with_max_event_size`](Self::with_max_event_size) holds as well, and an event of
    /// unknown type is skipped as over SSE.
    ///
    /// ```
    /// # #[cfg(feature = "proto")] {
    /// use ag_ui::client::apply::Reducer;
    /// use ag_ui::client::run::Pipeline;
    /// use ag_ui::encoding::Format;
    /// use ag_ui::encoding::proto;
    /// use ag_ui::Event;
    ///
    /// let mut bytes = Vec::new();
    /// for event in [Event::run_started("t", "r"), Event::run_finished("t", "r")] {
    ///     proto::encode_into(&event, &mut bytes);
    /// }
    /// let mut pipeline = Pipeline::new(Reducer::new()).with_format(Format::Proto);
    /// for piece in bytes.chunks(3) {
    ///     pipeline.push_bytes(piece, &mut ()).unwrap();
    /// }
    /// pipeline.finish(&mut ()).unwrap();
    /// assert_eq!(pipeline.reducer().events_applied(), 2);
    /// assert!(pipeline.check_end().is_ok());
    /// # }
    /// ```
    #[must_use]
    #[cfg_attr(not(feature = "proto"), allow(unused_mut))]
    pub fn with_format(mut self, format: Format) -> Self {
        match format {
            Format::Sse => {
                #[cfg(feature = "proto")]
                {
                    self.proto = None;
                }
            }
            #[cfg(feature = "proto")]
            Format::Proto => {
                let limit = self.frames.max_event_size();
                self.proto =
                    Some(crate::encoding::proto::EventDecoder::new().with_max_frame_size(limit));
            }
        }
        self
    }

    /// Runs every event through `middleware` after the compatibility stage and before chunk
    /// expansion and verification (see [`middleware`](crate::client::middleware)).
    #[must_use]
    pub fn with_middleware(mut self, middleware: Stack) -> Self {
        self.middleware = middleware;
        self
    }

    /// Takes the middleware back (an empty stack is left), e.g. to reuse it for the next run.
    pub fn take_middleware(&mut self) -> Stack {
        std::mem::take(&mut self.middleware)
    }

    /// The encoding the pipeline reads.
    pub fn format(&self) -> Format {
        #[cfg(feature = "proto")]
        if self.proto.is_some() {
            return Format::Proto;
        }
        Format::Sse
    }

    /// Sets the limits on what the response's events may build in the reducer (see
    /// [`Limits`]); an event over one is a [`PipelineError::Apply`] of kind `Limit`.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.reducer = std::mem::take(&mut self.reducer).with_limits(limits);
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

    /// Feeds bytes of the response (SSE unless [`with_format`](Self::with_format) said otherwise),
    /// in pieces of any size.
    ///
    /// # Errors
    /// The first decode, chunk, verification or apply failure; the pipeline should not be fed
    /// after one.
    pub fn push_bytes(
        &mut self,
        bytes: &[u8],
        subscriber: &mut impl Subscriber,
    ) -> Result<Flow, PipelineError> {
        if self.stopped {
            return Ok(Flow::Stop);
        }
        #[cfg(feature = "proto")]
        if let Some(proto) = &mut self.proto {
            proto.push(bytes);
            return self.drain_proto(subscriber);
        }
        self.frames.push(bytes);
        self.drain_frames(subscriber)
    }

    /// Feeds the data of one SSE frame a body decoded itself ([`Piece::Frame`](
    /// crate::client::transport::Piece::Frame)): read as the data of a frame of
    /// [`push_bytes`](Self::push_bytes) is, counted among the same frames.
    ///
    /// # Errors
    /// As [`push_bytes`](Self::push_bytes).
    pub fn push_frame(
        &mut self,
        data: &str,
        subscriber: &mut impl Subscriber,
    ) -> Result<Flow, PipelineError> {
        if self.stopped {
            return Ok(Flow::Stop);
        }
        let index = self.frames.frames() + self.pushed_frames;
        self.pushed_frames += 1;
        self.decode_frame(data, index, subscriber)
    }

    /// Feeds the events of the protobuf frames complete so far.
    #[cfg(feature = "proto")]
    fn drain_proto(&mut self, subscriber: &mut impl Subscriber) -> Result<Flow, PipelineError> {
        use crate::encoding::proto::ProtoErrorKind;
        while let Some(read) = self.proto.as_mut().and_then(Iterator::next) {
            let event = match read {
                Ok(event) => event,
                Err(e) if e.kind() == ProtoErrorKind::UnknownEventType => {
                    tracing::warn!(error = %e, "skipping an event of unknown type");
                    continue;
                }
                Err(e) => return Err(DecodeError::from(e).into()),
            };
            if self.push_event(event, subscriber)? == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Continue)
    }

    fn drain_frames(&mut self, subscriber: &mut impl Subscriber) -> Result<Flow, PipelineError> {
        while let Some(frame) = self.frames.next_frame()? {
            let index = frame.index() + self.pushed_frames;
            let mut decoded = std::mem::take(&mut self.decoded);
            // The frame's text was checked as UTF-8 once, as the stream arrived (invalid bytes
            // are U+FFFD, as the SSE rules say): the same read as `sse::EventDecoder`'s.
            if let Err(e) = self.compat.decode_str_into(frame.text(), &mut decoded) {
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

    /// Feeds the events of the data of one frame, `index` among the frames of the stream.
    fn decode_frame(
        &mut self,
        data: &str,
        index: u64,
        subscriber: &mut impl Subscriber,
    ) -> Result<Flow, PipelineError> {
        let mut decoded = std::mem::take(&mut self.decoded);
        if let Err(e) = self.compat.decode_str_into(data, &mut decoded) {
            self.decoded = decoded;
            return Err(e.with_index(index).into());
        }
        let flow = self.push_decoded(&mut decoded, subscriber);
        self.decoded = decoded;
        flow
    }

    /// Feeds what the compatibility stage read, leaving `decoded` empty.
    fn push_decoded(
        &mut self,
        decoded: &mut Vec<Event>,
        subscriber: &mut impl Subscriber,
    ) -> Result<Flow, PipelineError> {
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
    ) -> Result<Flow, PipelineError> {
        if self.stopped {
            return Ok(Flow::Stop);
        }
        if self.middleware.is_empty() {
            self.expanded.clear();
            self.chunks.push_into(event, &mut self.expanded)?;
            return self.apply_expanded(subscriber);
        }
        let mut shaped = std::mem::take(&mut self.shaped);
        shaped.clear();
        let flow = if self.middleware.on_event(event, &mut shaped) == Flow::Stop {
            self.stopped = true;
            Ok(Flow::Stop)
        } else {
            self.push_shaped(&mut shaped, subscriber)
        };
        self.shaped = shaped;
        flow
    }

    /// Feeds what the middleware let through, leaving `shaped` empty.
    fn push_shaped(
        &mut self,
        shaped: &mut Vec<Event>,
        subscriber: &mut impl Subscriber,
    ) -> Result<Flow, PipelineError> {
        for event in shaped.drain(..) {
            self.expanded.clear();
            self.chunks.push_into(event, &mut self.expanded)?;
            if self.apply_expanded(subscriber)? == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Continue)
    }

    fn apply_expanded(&mut self, subscriber: &mut impl Subscriber) -> Result<Flow, PipelineError> {
        for event in self.expanded.drain(..) {
            self.verifier.check(&event)?;
            if subscriber.on_event(&event, &self.reducer) == Flow::Stop {
                self.stopped = true;
                return Ok(Flow::Stop);
            }
            if let Some(mutation) = subscriber.take_mutation() {
                mutation.apply_to(&mut self.reducer);
            }
            let applied = self.reducer.apply(&event)?;
            match &event {
                Event::RunStarted(e) => {
                    self.run_id = Some(e.run_id.clone());
                    self.failure = None;
                }
                Event::RunError(e) => self.failure = Some((e.message.clone(), e.code.clone())),
                _ => {}
            }
            if applied.is_changed() || applied.warning.is_some() {
                if subscriber.on_applied(&event, &applied, &self.reducer) == Flow::Stop {
                    self.stopped = true;
                    return Ok(Flow::Stop);
                }
                if let Some(mutation) = subscriber.take_mutation() {
                    mutation.apply_to(&mut self.reducer);
                }
            }
        }
        Ok(Flow::Continue)
    }

    /// Ends the input: reads a last frame left without its blank line and closes chunk streams
    /// still open.
    ///
    /// # Errors
    /// As [`push_bytes`](Self::push_bytes).
    pub fn finish(&mut self, subscriber: &mut impl Subscriber) -> Result<Flow, PipelineError> {
        if self.stopped {
            return Ok(Flow::Stop);
        }
        #[cfg(feature = "proto")]
        if let Some(proto) = &mut self.proto {
            proto.finish();
            if self.drain_proto(subscriber)? == Flow::Stop {
                return Ok(Flow::Stop);
            }
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
        if !self.middleware.is_empty() {
            let mut shaped = std::mem::take(&mut self.shaped);
            shaped.clear();
            let flow = if self.middleware.on_finish(&mut shaped) == Flow::Stop {
                self.stopped = true;
                Ok(Flow::Stop)
            } else {
                self.push_shaped(&mut shaped, subscriber)
            };
            self.shaped = shaped;
            if flow? == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
        self.expanded.clear();
        self.chunks.finish_into(&mut self.expanded);
        self.apply_expanded(subscriber)
    }
}

impl Pipeline {
    /// Whether the response told a whole, successful run: call it after [`finish`](
    /// Self::finish) returned [`Flow::Continue`]. A stream may stop anywhere (rule R13), so
    /// the pipeline accepts an unterminated one; a client that asked for a run must not.
    ///
    /// ```
    /// use ag_ui::client::apply::Reducer;
    /// use ag_ui::client::run::{Pipeline, PipelineError, PipelineErrorKind};
    /// use ag_ui::{Event, TextMessageRole};
    ///
    /// let mut pipeline = Pipeline::new(Reducer::new());
    /// pipeline.push_event(Event::run_started("t", "r1"), &mut ())?;
    /// pipeline.push_event(Event::text_message_start("m1", TextMessageRole::Assistant), &mut ())?;
    /// pipeline.finish(&mut ())?;
    /// let err = pipeline.check_end().unwrap_err();
    /// assert_eq!(err.kind(), PipelineErrorKind::Incomplete);
    /// let PipelineError::Incomplete { run_id, open } = &err else { unreachable!() };
    /// assert_eq!(run_id.as_deref(), Some("r1"));
    /// assert_eq!(open.text_messages, ["m1"]);
    ///
    /// pipeline.push_event(Event::run_error("model overloaded"), &mut ())?;
    /// assert_eq!(pipeline.check_end().unwrap_err().kind(), PipelineErrorKind::RunFailed);
    /// # Ok::<(), PipelineError>(())
    /// ```
    ///
    /// # Errors
    /// [`PipelineError::RunFailed`] with the message and code when the last run ended in
    /// `RUN_ERROR`; [`PipelineError::Incomplete`] naming the run and what it still had open when
    /// it did not end, or when no run started at all.
    pub fn check_end(&self) -> Result<(), PipelineError> {
        if let Some((message, code)) = &self.failure {
            return Err(PipelineError::RunFailed {
                message: message.clone(),
                code: code.clone(),
            });
        }
        if !self.verifier.has_started() || self.verifier.in_run() {
            return Err(PipelineError::Incomplete {
                run_id: self.run_id.as_ref().map(|id| id.to_string()),
                open: Box::new(self.verifier.open()),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DecodeErrorKind;
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
        assert_eq!(err.kind(), PipelineErrorKind::Verify);
        assert_eq!(pipeline.reducer().messages()[0].text(), Some("kept"));
    }

    #[test]
    fn decode_errors_name_the_frame() {
        let mut bytes = sse_of(&[Event::run_started("t", "r")]);
        bytes.extend_from_slice(b"data: {\"type\":\"TEXT_MESSAGE_START\"}\n\n");
        let err = Pipeline::new(Reducer::new())
            .push_bytes(&bytes, &mut ())
            .unwrap_err();
        let PipelineError::Decode(e) = &err else {
            panic!("{err}")
        };
        assert_eq!(e.index(), Some(1));
        assert_eq!(err.kind().as_str(), "run.decode");
    }

    #[test]
    fn decoded_frames_count_among_the_frames() {
        let mut pipeline = Pipeline::new(Reducer::new());
        pipeline
            .push_bytes(&sse_of(&[Event::run_started("t", "r")]), &mut ())
            .unwrap();
        let start =
            serde_json::to_string(&Event::text_message_start("m", TextMessageRole::Assistant))
                .unwrap();
        pipeline.push_frame(&start, &mut ()).unwrap();
        let err = pipeline
            .push_frame("{\"type\":\"TEXT_MESSAGE_END\"}", &mut ())
            .unwrap_err();
        let PipelineError::Decode(e) = &err else {
            panic!("{err}")
        };
        assert_eq!(e.index(), Some(2));
        assert_eq!(pipeline.reducer().messages()[0].id().as_str(), "m");
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
        let PipelineError::Decode(e) = err else {
            panic!()
        };
        assert_eq!(e.kind(), DecodeErrorKind::TooLarge);
    }

    #[test]
    fn check_end_lists_everything_still_open_in_opening_order() {
        let mut pipeline = Pipeline::new(Reducer::new());
        for event in [
            Event::run_started("t", "r1"),
            Event::reasoning_start("think"),
            Event::reasoning_message_start("rm"),
            Event::subagent_started("s1", "helper"),
            Event::step_started("plan").with_subagent_run_id("s1"),
            Event::step_started("plan"),
            Event::text_message_start("m2", TextMessageRole::Assistant),
            Event::text_message_start("m1", TextMessageRole::Assistant),
            Event::text_message_start("done", TextMessageRole::Assistant),
            Event::text_message_end("done"),
            Event::tool_call_start("c1", "search"),
        ] {
            pipeline.push_event(event, &mut ()).unwrap();
        }
        pipeline.finish(&mut ()).unwrap();
        let err = pipeline.check_end().unwrap_err();
        let PipelineError::Incomplete { run_id, open } = &err else {
            panic!("{err}")
        };
        assert_eq!(run_id.as_deref(), Some("r1"));
        assert_eq!(open.steps, ["plan (subagent s1)", "plan"]);
        assert_eq!(open.text_messages, ["m2", "m1"]);
        assert_eq!(open.reasoning_spans, ["think"]);
        assert_eq!(open.reasoning_messages, ["rm"]);
        assert_eq!(open.tool_calls, ["c1"]);
        assert_eq!(open.subagents, ["s1"]);
        assert_eq!(err.kind().as_str(), "run.incomplete");
        // After RUN_FINISHED nothing is open: a complete run passes.
        let mut done = Pipeline::new(Reducer::new());
        done.push_event(Event::run_started("t", "r"), &mut ())
            .unwrap();
        done.push_event(Event::run_finished("t", "r"), &mut ())
            .unwrap();
        done.finish(&mut ()).unwrap();
        done.check_end().unwrap();
    }

    #[test]
    fn what_a_peer_sent_is_shown_without_control_characters() {
        let mut pipeline = Pipeline::new(Reducer::new());
        pipeline
            .push_event(Event::run_started("t", "r\u{1b}[2J"), &mut ())
            .unwrap();
        let shown = pipeline.check_end().unwrap_err().to_string();
        assert!(shown.contains("run r\\u{1b}[2J "), "{shown}");
        assert!(!shown.contains('\u{1b}'));
        pipeline
            .push_event(Event::run_error("bad\nnews\u{7}"), &mut ())
            .unwrap();
        assert_eq!(
            pipeline.check_end().unwrap_err().to_string(),
            "the run failed: bad\\u{a}news\\u{7}"
        );
    }

    #[test]
    fn reducer_limits_stop_the_pipeline_naming_the_event() {
        let bytes = sse_of(&[
            Event::run_started("t", "r"),
            Event::text_message_start("m", TextMessageRole::Assistant),
            Event::text_message_content("m", "kept"),
            Event::text_message_content("m", "x".repeat(100)),
        ]);
        let mut pipeline =
            Pipeline::new(Reducer::new()).with_limits(Limits::new().with_max_message_bytes(50));
        let err = pipeline.push_bytes(&bytes, &mut ()).unwrap_err();
        let PipelineError::Apply(e) = &err else {
            panic!("{err}")
        };
        assert_eq!(e.kind(), crate::client::apply::ApplyErrorKind::Limit);
        assert_eq!(
            (e.index(), e.event_type()),
            (3, EventType::TextMessageContent)
        );
        assert_eq!(pipeline.reducer().messages()[0].text(), Some("kept"));
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
