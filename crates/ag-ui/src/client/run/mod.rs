use std::fmt;

mod end;
mod error;

pub use end::{AgentError, StreamEnd};
pub use error::{PipelineError, PipelineErrorKind};

use crate::client::apply::{Limits, Reducer};
use crate::client::chunks::ChunkNormalizer;
use crate::client::compat::Compat;
use crate::client::middleware::Stack;
use crate::client::peer::{PeerVersion, declared_version_warning};
use crate::client::subscriber::{Flow, Subscriber};
use crate::client::warning::{Warning, Warnings};
use crate::encoding::Format;
use crate::encoding::sse::FrameDecoder;
use crate::verify::Verifier;
use crate::{Event, RunId};

/// What a [`Pipeline`] accepts from a response: the largest frame, and what its events may
/// build. The pipeline owns them; a [`Conversation`](crate::client::Conversation) holds one for
/// its runs and hands the frame limit on to a body that reads frames itself (the reconnecting
/// reader, through [`Body::set_max_event_size`](crate::client::Body::set_max_event_size)), so
/// one limit holds on every path.
///
/// ```
/// use ag_ui::client::{Conversation, Limits, Pipeline, PipelineLimits, Reducer};
///
/// let limits = PipelineLimits::default()
///     .with_max_event_size(64 * 1024)
///     .with_reducer(Limits::new().with_max_depth(16));
/// let pipeline = Pipeline::new(Reducer::new()).with_limits(limits);
/// assert_eq!(pipeline.limits(), limits);
/// let conversation = Conversation::new("t").with_limits(limits);
/// assert_eq!(conversation.limits(), limits);
/// // The shortcut sets one field.
/// let conversation = Conversation::new("t").with_max_event_size(1024);
/// assert_eq!(conversation.limits().max_event_size, 1024);
/// assert_eq!(conversation.limits().reducer, Limits::new());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PipelineLimits {
    /// The largest SSE (or protobuf) frame accepted, in bytes (default
    /// [`DEFAULT_MAX_EVENT_SIZE`](crate::encoding::sse::DEFAULT_MAX_EVENT_SIZE), 10 MiB); a
    /// larger one is a [`PipelineErrorKind::Decode`] of kind `TooLarge`, and no buffer grows past it.
    pub max_event_size: usize,
    /// What the events may build in the reducer (default [`Limits::new`]); an event over one is
    /// a [`PipelineErrorKind::Apply`] of kind `Limit`.
    pub reducer: Limits,
}

impl PipelineLimits {
    /// These limits with frames of at most `bytes` accepted.
    #[must_use]
    pub fn with_max_event_size(mut self, bytes: usize) -> Self {
        self.max_event_size = bytes;
        self
    }

    /// These limits with what the events may build in the reducer bounded by `limits`.
    #[must_use]
    pub fn with_reducer(mut self, limits: Limits) -> Self {
        self.reducer = limits;
        self
    }
}

impl Default for PipelineLimits {
    fn default() -> Self {
        Self {
            max_event_size: crate::encoding::sse::DEFAULT_MAX_EVENT_SIZE,
            reducer: Limits::new(),
        }
    }
}

/// The whole client pipeline over one response. See the [`Pipeline`] docs.
///
/// The run pipeline: bytes of an SSE response (or ready events) in, a conversation out.
///
/// ```text
/// bytes ─► FrameDecoder ─► Compat (THINKING_*, unknown types) ─► ChunkNormalizer ─► Verifier ─► Reducer
/// ```
///
/// An SSE frame's data is read as [`EventDecoder`](crate::encoding::sse::EventDecoder) reads it:
/// the stream is checked as UTF-8 once, as it arrives, and ids repeated from one event to the
/// next share one string. A body that decoded the frames itself (the reconnecting reader) hands
/// their data on, fed with [`Pipeline::push_frame`] to the same stages. With the `proto` feature, a pipeline set to [`Format::Proto`] reads
/// protobuf frames instead (`encoding::proto`) and feeds the same stages.
///
/// Every stage is public on its own ([`FrameDecoder`], [`Compat`], [`ChunkNormalizer`],
/// [`Verifier`], [`Reducer`]); a [`Pipeline`] runs them in one pass, event by event, and tells a
/// [`Subscriber`] about every event and every change of messages or state. A subscriber can end
/// the run early by returning [`Flow::Stop`].
///
/// ```
/// use ag_ui::client::Pipeline;
/// use ag_ui::client::{Flow, Subscriber};
/// use ag_ui::client::{Applied, Reducer};
/// use ag_ui::encoding::sse;
/// use ag_ui::{Event, TextMessageRole};
///
/// let mut bytes = Vec::new();
/// for event in [
///     Event::run_started("t1", "r1"),
///     Event::text_message_start("m1", TextMessageRole::Assistant),
///     Event::text_message_content("m1", "Hello"),
///     Event::text_message_end("m1"),
///     Event::run_finished("t1", "r1"),
/// ] {
///     sse::encode_into(&event, &mut bytes);
/// }
///
/// /// Counts the changes of the messages.
/// #[derive(Default)]
/// struct Changes(usize);
/// impl Subscriber for Changes {
///     fn on_applied(&mut self, _: &Event, applied: &Applied, _: &Reducer) -> Flow {
///         self.0 += usize::from(applied.messages.is_changed());
///         Flow::Continue
///     }
/// }
///
/// let mut pipeline = Pipeline::new(Reducer::new());
/// let mut changes = Changes::default();
/// for piece in bytes.chunks(10) {
///     pipeline.push_bytes(piece, &mut changes)?;
/// }
/// pipeline.finish(&mut changes)?;
/// assert_eq!(pipeline.reducer().messages()[0].text(), Some("Hello"));
/// assert_eq!(changes.0, 2); // created, then its text
/// # Ok::<(), ag_ui::client::PipelineError>(())
/// ```
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
    /// The last `RUN_ERROR` of the response (kept when a new run starts after it).
    last_error: Option<AgentError>,
    /// Whether the last run ended with `RUN_ERROR` (cleared by a `RUN_STARTED`).
    failed: bool,
    /// Set by [`deferred`](Pipeline::deferred): the verified events wait here, unapplied.
    deferred: Option<Vec<Event>>,
    /// The peer's version when it is pinned ([`with_peer_version`](Pipeline::with_peer_version)).
    peer: Option<PeerVersion>,
    /// The warnings so far, kept for the summary.
    warnings: Warnings,
    /// Warnings waiting to be told (reused).
    notes: Vec<Warning>,
    /// The frame being read, for the index of what reading it left out.
    frame: Option<u64>,
    /// How many events entered the pipeline (decoded or pushed).
    received: u64,
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
            compat: Compat::reporting(),
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
            last_error: None,
            failed: false,
            deferred: None,
            peer: None,
            warnings: Warnings::new(),
            notes: Vec::new(),
            frame: None,
            received: 0,
        }
    }

    /// Reads the stream of a peer pinned to an older version: its events are reshaped as the
    /// [`PeerVersion`](crate::client::PeerVersion) shims say (a peer before subagents has its `SUBAGENT_*`
    /// events left out, with a warning, and its attribution removed).
    #[must_use]
    pub fn with_peer_version(mut self, peer: Option<PeerVersion>) -> Self {
        self.peer = peer;
        self
    }

    /// The warnings of the response so far: what was left out, translated or could not be
    /// applied (see [`Warning`]). Each was told to the subscriber as it happened.
    pub fn warnings(&self) -> &Warnings {
        &self.warnings
    }

    /// The last `RUN_ERROR` the response carried, whether or not a new run started after it.
    pub fn run_error(&self) -> Option<&AgentError> {
        self.last_error.as_ref()
    }

    /// Tells the waiting warnings to `subscriber` and keeps them; a warning without an index
    /// gets `index`.
    fn tell(&mut self, index: u64, subscriber: &mut impl Subscriber) -> Flow {
        let mut flow = Flow::Continue;
        for mut warning in self.notes.drain(..) {
            if warning.index().is_none() {
                warning = warning.at(index);
            }
            if flow == Flow::Continue && subscriber.on_warning(&warning) == Flow::Stop {
                flow = Flow::Stop;
            }
            self.warnings.push(warning);
        }
        if flow == Flow::Stop {
            self.stopped = true;
        }
        flow
    }

    /// A pipeline whose verified events wait instead of being applied: after each
    /// [`push_bytes`](Self::push_bytes), [`push_event`](Self::push_event) or
    /// [`finish`](Self::finish), take them with [`take_verified_into`](
    /// Self::take_verified_into) and apply each with [`apply_verified`](Self::apply_verified),
    /// e.g. after awaiting something between two events (the JavaScript subscribers of
    /// `crates/ag-ui-wasm`, whose callbacks may return promises). Decoding, chunk expansion and
    /// verification run as they do otherwise; on an error, the events verified before it are
    /// still there to take.
    ///
    /// ```
    /// use ag_ui::client::{Pipeline, Reducer};
    /// use ag_ui::Event;
    ///
    /// let mut pipeline = Pipeline::new(Reducer::new()).deferred();
    /// pipeline.push_event(Event::run_started("t", "r"), &mut ())?;
    /// let mut verified = Vec::new();
    /// pipeline.take_verified_into(&mut verified);
    /// assert_eq!(pipeline.reducer().events_applied(), 0);
    /// for event in verified {
    ///     pipeline.apply_verified(event, &mut ())?;
    /// }
    /// assert_eq!(pipeline.reducer().events_applied(), 1);
    /// # Ok::<(), ag_ui::client::PipelineError>(())
    /// ```
    #[must_use]
    pub fn deferred(mut self) -> Self {
        self.deferred = Some(Vec::new());
        self
    }

    /// Whether it is [`deferred`](Self::deferred).
    pub(crate) fn is_deferred(&self) -> bool {
        self.deferred.is_some()
    }

    /// Moves the events verified but not yet applied (of a [`deferred`](Self::deferred)
    /// pipeline) to the end of `out`, in order.
    pub fn take_verified_into(&mut self, out: &mut Vec<Event>) {
        if let Some(waiting) = &mut self.deferred {
            out.append(waiting);
        }
    }

    /// Applies one event taken with [`take_verified_into`](Self::take_verified_into), telling
    /// `subscriber` as [`push_event`](Self::push_event) does.
    ///
    /// # Errors
    /// The reducer's failure ([`PipelineErrorKind::Apply`]).
    pub fn apply_verified(
        &mut self,
        event: Event,
        subscriber: &mut impl Subscriber,
    ) -> Result<Flow, PipelineError> {
        if self.stopped {
            return Ok(Flow::Stop);
        }
        self.apply_one(event, subscriber)
    }

    /// Replaces the conversation's messages or state at once (what a subscriber's
    /// [`Mutation`](crate::client::Mutation) does), e.g. between two
    /// [`apply_verified`](Self::apply_verified).
    pub fn apply_mutation(&mut self, mutation: crate::client::Mutation) {
        mutation.apply_to(&mut self.reducer);
    }

    /// Sets the largest SSE frame accepted, in bytes ([`PipelineLimits::max_event_size`], 10 MiB
    /// by default); a larger one is a [`PipelineErrorKind::Decode`] of kind `TooLarge`, and the
    /// buffer never grows past it.
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
    /// use ag_ui::client::Reducer;
    /// use ag_ui::client::Pipeline;
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

    /// Sets every limit at once (see [`PipelineLimits`]); the shortcut
    /// [`with_max_event_size`](Self::with_max_event_size) sets one.
    #[must_use]
    pub fn with_limits(self, limits: PipelineLimits) -> Self {
        let mut pipeline = self.with_max_event_size(limits.max_event_size);
        pipeline.reducer = std::mem::take(&mut pipeline.reducer).with_limits(limits.reducer);
        pipeline
    }

    /// The limits the pipeline holds the response to (the reducer's as the reducer it was
    /// given holds them, unless set).
    pub fn limits(&self) -> PipelineLimits {
        PipelineLimits {
            max_event_size: self.max_event_size(),
            reducer: *self.reducer.limits(),
        }
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
    /// crate::client::Piece::Frame)): read as the data of a frame of
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
                    let index = e.index().unwrap_or_default();
                    self.notes.push(Warning::new(
                        crate::client::warning::WarningKind::UnknownEvent,
                        Some(index),
                        "dropped a protobuf event of a type AG-UI 1.0 does not define",
                    ));
                    if self.tell(index, subscriber) == Flow::Stop {
                        return Ok(Flow::Stop);
                    }
                    continue;
                }
                Err(e) => return Err(crate::DecodeError::from(e).into()),
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
            let read = self.compat.decode_str_into(frame.text(), &mut decoded);
            if self.feed_frame(read, decoded, index, subscriber)? == Flow::Stop {
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
        let read = self.compat.decode_str_into(data, &mut decoded);
        self.feed_frame(read, decoded, index, subscriber)
    }

    /// Feeds what the compatibility stage `read` from frame `index` into `decoded` (or its
    /// error, naming the frame), telling its notes first; `decoded`'s buffer is kept for the
    /// next frame either way.
    fn feed_frame(
        &mut self,
        read: Result<(), crate::DecodeError>,
        mut decoded: Vec<Event>,
        index: u64,
        subscriber: &mut impl Subscriber,
    ) -> Result<Flow, PipelineError> {
        if let Err(e) = read {
            decoded.clear();
            self.decoded = decoded;
            return Err(e.with_index(index).into());
        }
        self.compat.take_notes(&mut self.notes);
        if !self.notes.is_empty() && self.tell(index, subscriber) == Flow::Stop {
            decoded.clear();
            self.decoded = decoded;
            return Ok(Flow::Stop);
        }
        self.frame = Some(index);
        let flow = self.push_decoded(&mut decoded, subscriber);
        self.frame = None;
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
        let index = self.frame.unwrap_or(self.received);
        self.received += 1;
        if let Event::RunStarted(e) = &event
            && let Some(warning) = e
                .protocol_version
                .as_deref()
                .and_then(declared_version_warning)
        {
            self.notes.push(warning);
        }
        let event = match self.peer {
            Some(peer) => peer.shape_event(event, &mut self.notes),
            None => Some(event),
        };
        if !self.notes.is_empty() && self.tell(index, subscriber) == Flow::Stop {
            return Ok(Flow::Stop);
        }
        let Some(event) = event else {
            return Ok(Flow::Continue);
        };
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
        let mut expanded = std::mem::take(&mut self.expanded);
        let mut flow = Ok(Flow::Continue);
        for event in expanded.drain(..) {
            if let Err(e) = self.verifier.check(&event) {
                flow = Err(e.into());
                break;
            }
            if let Some(waiting) = &mut self.deferred {
                waiting.push(event);
                continue;
            }
            match self.apply_one(event, subscriber) {
                Ok(Flow::Continue) => {}
                other => {
                    flow = other;
                    break;
                }
            }
        }
        expanded.clear();
        self.expanded = expanded;
        flow
    }

    /// Applies one verified event, telling `subscriber` before and after.
    fn apply_one(
        &mut self,
        event: Event,
        subscriber: &mut impl Subscriber,
    ) -> Result<Flow, PipelineError> {
        if subscriber.on_event(&event, &self.reducer) == Flow::Stop {
            self.stopped = true;
            return Ok(Flow::Stop);
        }
        if let Some(mutation) = subscriber.take_mutation() {
            mutation.apply_to(&mut self.reducer);
        }
        let index = self.reducer.events_applied();
        let applied = self.reducer.apply(&event)?;
        match &event {
            Event::RunStarted(e) => {
                self.run_id = Some(e.run_id.clone());
                self.failed = false;
            }
            Event::RunError(e) => {
                self.last_error = Some(AgentError::new(
                    e.message.clone(),
                    e.code.clone(),
                    self.run_id.clone(),
                ));
                self.failed = true;
            }
            _ => {}
        }
        if let Some(warning) = &applied.warning {
            self.notes.push(Warning::from(warning));
            if self.tell(index, subscriber) == Flow::Stop {
                return Ok(Flow::Stop);
            }
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
    /// How the response ended: call it after [`finish`](Self::finish) returned
    /// [`Flow::Continue`]. A stream may stop anywhere (rule R13), so the pipeline accepts an
    /// unterminated one; a client that asked for a run must not, and a run the agent reported
    /// as failed is not a finished one.
    ///
    /// ```
    /// use ag_ui::client::Reducer;
    /// use ag_ui::client::{Pipeline, PipelineError, PipelineErrorKind, StreamEnd};
    /// use ag_ui::{Event, TextMessageRole};
    ///
    /// let mut pipeline = Pipeline::new(Reducer::new());
    /// pipeline.push_event(Event::run_started("t", "r1"), &mut ())?;
    /// pipeline.push_event(Event::text_message_start("m1", TextMessageRole::Assistant), &mut ())?;
    /// pipeline.finish(&mut ())?;
    /// let err = pipeline.check_end().unwrap_err();
    /// assert_eq!(err.kind(), PipelineErrorKind::Incomplete);
    /// let (run_id, open) = (err.run_id(), err.open().unwrap());
    /// assert_eq!(run_id, Some("r1"));
    /// assert_eq!(open.text_messages, ["m1"]);
    ///
    /// // The agent's RUN_ERROR ends the run: the stream was consumed, and the run failed.
    /// pipeline.push_event(Event::run_error("model overloaded"), &mut ())?;
    /// let StreamEnd::Failed(error) = pipeline.check_end()? else { panic!("failed") };
    /// assert_eq!(error.message(), "model overloaded");
    /// # Ok::<(), PipelineError>(())
    /// ```
    ///
    /// # Errors
    /// [`PipelineErrorKind::Incomplete`] naming the run and what it still had open when it did
    /// not end, or when no run started at all.
    pub fn check_end(&self) -> Result<StreamEnd, PipelineError> {
        if self.failed
            && let Some(error) = &self.last_error
        {
            return Ok(StreamEnd::Failed(error.clone()));
        }
        if !self.verifier.has_started() || self.verifier.in_run() {
            return Err(PipelineError::incomplete(
                self.run_id.as_ref().map(|id| id.to_string()),
                self.verifier.open(),
            ));
        }
        Ok(StreamEnd::Finished)
    }
}

#[cfg(test)]
mod tests;
