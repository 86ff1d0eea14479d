//! Server-Sent Events: the writer every AG-UI server uses and an incremental, bounded reader.
//!
//! On the wire each event is one frame, `data: <compact JSON>\n\n`, exactly as the reference
//! encoder writes it ([`encode_into`], [`encode`]). Reading goes through two layers:
//!
//! * [`FrameDecoder`] turns bytes, fed in chunks of any size, into [`Frame`]s following the SSE
//!   rules: LF, CRLF and CR line endings, several `data:` lines joined by `\n`, one optional
//!   space after the colon, comments, `event:`/`id:`/`retry:` fields (the last event id is kept
//!   for resuming), a leading byte order mark, and a final frame without its blank line once
//!   [`FrameDecoder::finish`] says the input ended. A frame larger than the configured maximum
//!   (10 MiB by default, as the reference client) is an error of kind
//!   [`DecodeErrorKind::TooLarge`] instead of a buffer that grows without bound.
//! * [`EventDecoder`] reads each frame's data as an [`Event`]. An event type this crate does not
//!   know is reported as [`DecodeErrorKind::UnknownEventType`], so a reader can skip it with a
//!   warning as the reference client does; [`decode`] does exactly that.
//!
//! Errors carry the zero-based index of the frame they concern ([`DecodeError::index`]).
//!
//! ```
//! use ag_ui::encoding::sse::{self, EventDecoder};
//! use ag_ui::{DecodeErrorKind, Event, TextMessageRole};
//!
//! let mut bytes = sse::encode(&Event::text_message_start("m1", TextMessageRole::Assistant));
//! assert_eq!(
//!     bytes,
//!     b"data: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m1\",\"role\":\"assistant\"}\n\n"
//! );
//! sse::encode_into(&Event::text_message_content("m1", "Hi"), &mut bytes);
//! bytes.extend_from_slice(b": keep-alive\r\n\r\ndata: {\"type\":\"FUTURE\"}\r\n\r\n");
//! bytes.extend_from_slice(b"data: {\"type\":\"TEXT_MESSAGE_END\",\n");
//! bytes.extend_from_slice(b"data: \"messageId\":\"m1\"}"); // no blank line at the end
//!
//! // Feed the bytes in awkward pieces; the events come out the same.
//! let mut decoder = EventDecoder::new();
//! let mut events = Vec::new();
//! let mut unknown = 0;
//! for piece in bytes.chunks(7) {
//!     decoder.push(piece);
//!     for result in &mut decoder {
//!         match result {
//!             Ok(event) => events.push(event),
//!             Err(e) if e.kind() == DecodeErrorKind::UnknownEventType => unknown += 1,
//!             Err(e) => panic!("{e}"),
//!         }
//!     }
//! }
//! decoder.finish();
//! events.extend(decoder.by_ref().map(Result::unwrap));
//!
//! assert_eq!(events, [
//!     Event::text_message_start("m1", TextMessageRole::Assistant),
//!     Event::text_message_content("m1", "Hi"),
//!     Event::text_message_end("m1"),
//! ]);
//! assert_eq!(unknown, 1);
//! assert_eq!(sse::decode(&bytes).unwrap(), events);
//! ```

use std::collections::VecDeque;

use crate::json::IdCache;
use crate::{DecodeError, DecodeErrorKind, Event};

/// The media type of an SSE response.
pub const CONTENT_TYPE: &str = "text/event-stream";

/// The default largest frame a decoder accepts: 10 MiB, the reference client's limit.
pub const DEFAULT_MAX_EVENT_SIZE: usize = 10 * 1024 * 1024;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Appends one SSE frame for `event` to `out`: `data: <json>\n\n`, byte-identical to the
/// reference encoder. Reuses the caller's buffer.
pub fn encode_into(event: &Event, out: &mut Vec<u8>) {
    out.extend_from_slice(b"data: ");
    event.write_json(out);
    out.extend_from_slice(b"\n\n");
}

/// One SSE frame for `event` in a new buffer. Prefer [`encode_into`] in loops.
pub fn encode(event: &Event) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    encode_into(event, &mut out);
    out
}

/// Reads every event of a complete SSE byte stream. Events of unknown type are skipped with a
/// warning, as the reference client does.
///
/// # Errors
///
/// The first [`DecodeError`] other than an unknown event type: an oversized frame, invalid
/// JSON, or an invalid event, with its frame index.
pub fn decode(bytes: &[u8]) -> Result<Vec<Event>, DecodeError> {
    let mut decoder = EventDecoder::new();
    decoder.push(bytes);
    decoder.finish();
    let mut events = Vec::new();
    for result in decoder {
        match result {
            Ok(event) => events.push(event),
            Err(e) if e.kind() == DecodeErrorKind::UnknownEventType => {
                tracing::warn!(error = %e, "skipping an event of unknown type");
            }
            Err(e) => return Err(e),
        }
    }
    Ok(events)
}

/// One dispatched SSE frame, borrowed from its [`FrameDecoder`] until the next call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame<'a> {
    index: u64,
    data: &'a str,
    event: Option<&'a str>,
    id: Option<&'a str>,
}

impl<'a> Frame<'a> {
    /// The zero-based position of the frame among the frames of the stream.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// The frame's data: its `data:` lines joined by `\n`.
    pub fn data(&self) -> &'a [u8] {
        self.data.as_bytes()
    }

    /// The frame's data as text. The stream is read as UTF-8, as the SSE rules say: invalid
    /// sequences read as U+FFFD.
    pub fn text(&self) -> &'a str {
        self.data
    }

    /// The frame's `event:` field, if it had one (AG-UI producers send none).
    pub fn event(&self) -> Option<&'a str> {
        self.event
    }

    /// The last event id seen in the stream up to and including this frame (an `id:` field
    /// persists across frames, as the SSE rules say); what a reconnecting client would send as
    /// `Last-Event-ID`.
    pub fn id(&self) -> Option<&'a str> {
        self.id
    }
}

/// Splits an SSE byte stream into [`Frame`]s, incrementally.
///
/// Feed bytes with [`push`](Self::push) in chunks of any size, take frames with
/// [`next_frame`](Self::next_frame) until it returns `Ok(None)`, and call
/// [`finish`](Self::finish) at the end of the input so that a last frame without its blank line
/// is delivered too. The decoder keeps its buffers between frames; a frame costs no allocation
/// once they have grown to the stream's frame size.
///
/// ```
/// use ag_ui::encoding::sse::FrameDecoder;
///
/// let mut frames = FrameDecoder::new();
/// frames.push(b"\xEF\xBB\xBFid: 7\revent: note\rdata: a\r\ndata:b\r\n\r\n: comment\n\ndata: c");
/// let frame = frames.next_frame().unwrap().unwrap();
/// assert_eq!((frame.index(), frame.text()), (0, "a\nb"));
/// assert_eq!((frame.event(), frame.id()), (Some("note"), Some("7")));
/// assert!(frames.next_frame().unwrap().is_none()); // "data: c" may go on
/// frames.finish();
/// let frame = frames.next_frame().unwrap().unwrap();
/// assert_eq!((frame.index(), frame.data(), frame.event()), (1, &b"c"[..], None));
/// assert_eq!(frames.last_event_id(), Some("7"));
/// ```
#[derive(Debug)]
pub struct FrameDecoder {
    max_event_size: usize,
    /// Unprocessed input, already read as UTF-8; `buf[pos..]` is still to be read.
    buf: String,
    pos: usize,
    /// How many bytes after `pos` were already searched for a line end without finding one,
    /// so that a long line arriving in small pieces is searched once, not once per piece.
    searched: usize,
    /// How much text was dropped from the front of `buf` so far: `buf[i]` is at offset
    /// `base + i` of the whole decoded text.
    base: usize,
    /// The start of a UTF-8 sequence cut by the end of the last push, completed by the next.
    utf8_tail: Vec<u8>,
    /// Where the text holds more bytes than the stream (a U+FFFD for an invalid byte), so that
    /// the frame limit counts the stream's own bytes.
    repairs: Repairs,
    /// The current frame's data, its `data:` lines joined by `\n`, once it has two lines or
    /// spans two pushes; until then `data_range` points at its only line inside `buf`.
    data: String,
    data_range: Option<(usize, usize)>,
    has_data: bool,
    /// The current frame's `event:` field.
    event: String,
    has_event: bool,
    /// Bytes the current frame has consumed so far (complete lines, terminators included).
    frame_bytes: usize,
    last_event_id: Option<String>,
    retry: Option<u64>,
    /// The last line ended with CR; a LF right after it belongs to the same line ending.
    after_cr: bool,
    /// That line was not blank, so its frame goes on and the LF counts toward it.
    after_cr_counts: bool,
    bom_checked: bool,
    finished: bool,
    /// The current frame exceeded the limit: its lines are being dropped up to its end.
    skipping: bool,
    /// The start of the current line was dropped (it belonged to an oversized frame), so its
    /// end is not a blank line.
    partial_discarded: bool,
    /// A frame was handed out; its buffers are cleared when the next call starts.
    dispatched: bool,
    index: u64,
}

impl Default for FrameDecoder {
    fn default() -> Self {
        Self::new()
    }
}

enum Line {
    /// A complete line at `buf[start..end]`.
    Complete { start: usize, end: usize },
    /// No complete line in the buffer.
    Incomplete,
}

impl FrameDecoder {
    /// A decoder with the default limit of [`DEFAULT_MAX_EVENT_SIZE`].
    pub fn new() -> Self {
        Self {
            max_event_size: DEFAULT_MAX_EVENT_SIZE,
            buf: String::new(),
            pos: 0,
            searched: 0,
            base: 0,
            utf8_tail: Vec::new(),
            repairs: Repairs::default(),
            data: String::new(),
            data_range: None,
            has_data: false,
            event: String::new(),
            has_event: false,
            frame_bytes: 0,
            last_event_id: None,
            retry: None,
            after_cr: false,
            after_cr_counts: false,
            bom_checked: false,
            finished: false,
            skipping: false,
            partial_discarded: false,
            dispatched: false,
            index: 0,
        }
    }

    /// Sets the largest frame accepted, in bytes of the stream (lines and line endings of one
    /// frame, up to its blank line).
    #[must_use]
    pub fn with_max_event_size(mut self, bytes: usize) -> Self {
        self.max_event_size = bytes;
        self
    }

    /// The largest frame accepted.
    pub fn max_event_size(&self) -> usize {
        self.max_event_size
    }

    /// Appends input. Bytes pushed after [`finish`](Self::finish) are ignored.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.finished {
            return;
        }
        if std::mem::take(&mut self.dispatched) {
            self.clear_frame();
        }
        // The buffer is about to move: keep the pending data line.
        self.own_data();
        if self.pos == self.buf.len() {
            self.base += self.buf.len();
            self.buf.clear();
            self.pos = 0;
        } else if self.pos > 0 && self.pos >= self.buf.len() / 2 {
            self.base += self.pos;
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        let mut text = Text {
            buf: &mut self.buf,
            base: self.base,
            repairs: &mut self.repairs,
        };
        push_utf8(&mut text, &mut self.utf8_tail, bytes);
    }

    /// Marks the end of the input: a last frame without its closing blank line is delivered by
    /// the following calls to [`next_frame`](Self::next_frame).
    pub fn finish(&mut self) {
        if !self.finished && !self.utf8_tail.is_empty() {
            // A sequence cut by the end of the stream.
            self.repairs
                .record(self.base + self.buf.len(), self.utf8_tail.len());
            self.utf8_tail.clear();
            self.buf.push(char::REPLACEMENT_CHARACTER);
        }
        self.finished = true;
    }

    /// Forgets all input and state (including the last event id), keeping the buffers.
    pub fn reset(&mut self) {
        let max = self.max_event_size;
        let mut buf = std::mem::take(&mut self.buf);
        let mut utf8_tail = std::mem::take(&mut self.utf8_tail);
        let mut data = std::mem::take(&mut self.data);
        let mut event = std::mem::take(&mut self.event);
        let mut repairs = std::mem::take(&mut self.repairs);
        buf.clear();
        utf8_tail.clear();
        data.clear();
        event.clear();
        repairs.clear();
        *self = Self {
            buf,
            utf8_tail,
            repairs,
            data,
            event,
            ..Self::new().with_max_event_size(max)
        };
    }

    /// The last event id the stream set with an `id:` field, if any.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// The reconnection time the stream last set with a `retry:` field, in milliseconds.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// How many frames have been delivered (or failed) so far.
    pub fn frames(&self) -> u64 {
        self.index
    }

    /// The next complete frame, `Ok(None)` when more input is needed (or, after
    /// [`finish`](Self::finish), when the stream is exhausted).
    ///
    /// # Errors
    ///
    /// [`DecodeErrorKind::TooLarge`] when the frame being read exceeds the maximum size. The
    /// oversized frame is dropped up to its blank line; decoding continues after it.
    pub fn next_frame(&mut self) -> Result<Option<Frame<'_>>, DecodeError> {
        if std::mem::take(&mut self.dispatched) {
            self.clear_frame();
        }
        if !self.bom_checked && !self.check_bom() {
            return Ok(None);
        }
        loop {
            if self.after_cr && self.pos < self.buf.len() {
                // The LF of a CRLF split from its CR by the reads: it counts as it would have
                // counted read together (see `next_line`).
                self.after_cr = false;
                if self.buf.as_bytes()[self.pos] == b'\n' {
                    self.pos += 1;
                    if self.after_cr_counts {
                        self.frame_bytes += 1;
                        if let Some(error) = self.check_size() {
                            return Err(error);
                        }
                    }
                }
            }
            match self.next_line() {
                Line::Incomplete => {
                    // In bytes of the stream: the text's, less what repairs added, plus the
                    // start of a character still to come.
                    let pending = (self.buf.len() - self.pos).saturating_sub(self.repairs.surplus)
                        + self.utf8_tail.len();
                    if self.finished {
                        if self.pos < self.buf.len() {
                            // The last line has no terminator: take it as complete.
                            let (start, end) = (self.pos, self.buf.len());
                            self.pos = end;
                            self.searched = 0;
                            self.frame_bytes += (end - start)
                                .saturating_sub(self.repairs.take_before(self.base + end));
                            if let Some(error) = self.check_size() {
                                return Err(error);
                            }
                            if !self.skipping {
                                self.field(start, end);
                            }
                        }
                        return Ok(self.dispatch_at_end().then(|| self.frame()));
                    }
                    if self.skipping {
                        // Nothing of an oversized frame needs keeping.
                        self.discard_partial_line();
                    } else if let Some(error) = self.check_size_with(pending) {
                        self.discard_partial_line();
                        return Err(error);
                    }
                    return Ok(None);
                }
                Line::Complete { start, end } => {
                    if std::mem::take(&mut self.partial_discarded) {
                        // The tail of a dropped line of an oversized frame.
                        continue;
                    }
                    if start == end {
                        self.frame_bytes = 0;
                        if std::mem::take(&mut self.skipping) {
                            self.clear_frame();
                            continue;
                        }
                        if self.dispatch() {
                            return Ok(Some(self.frame()));
                        }
                        continue;
                    }
                    if let Some(error) = self.check_size() {
                        return Err(error);
                    }
                    if !self.skipping {
                        self.field(start, end);
                    }
                }
            }
        }
    }

    fn discard_partial_line(&mut self) {
        if self.pos < self.buf.len() {
            self.partial_discarded = true;
        }
        self.pos = self.buf.len();
        self.searched = 0;
        self.repairs.clear();
    }

    /// Drops a leading byte order mark. Returns `false` while too few bytes have arrived to
    /// tell.
    fn check_bom(&mut self) -> bool {
        let head = &self.buf.as_bytes()[self.pos..];
        if head.len() < BOM.len() && BOM.starts_with(head) && !self.finished {
            return false;
        }
        if head.starts_with(BOM) {
            self.pos += BOM.len();
        }
        self.bom_checked = true;
        true
    }

    /// Finds the next line in the buffer and advances past it and its terminator, counting
    /// the stream's bytes of both toward the frame. A CRLF counts two bytes: its LF is taken
    /// with the line when it has arrived, else by the next call to `next_frame` (toward the
    /// same frame unless the line was blank and ended it), so the count does not depend on
    /// where the reads split the stream.
    fn next_line(&mut self) -> Line {
        let rest = &self.buf.as_bytes()[self.pos..];
        // A blank line (every frame's end) needs no search.
        let found = match rest.first() {
            Some(b'\n' | b'\r') => Some(0),
            _ => {
                // Only the bytes that arrived since the last search can hold the line end.
                let from = self.searched.min(rest.len());
                memchr::memchr2(b'\n', b'\r', &rest[from..]).map(|at| from + at)
            }
        };
        match found {
            None => {
                self.searched = rest.len();
                Line::Incomplete
            }
            Some(at) => {
                self.searched = 0;
                let start = self.pos;
                let end = start + at;
                let mut next = end + 1;
                if rest[at] == b'\r' {
                    match rest.get(at + 1) {
                        Some(b'\n') => next += 1,
                        Some(_) => {}
                        None => {
                            self.after_cr = true;
                            self.after_cr_counts = at > 0;
                        }
                    }
                }
                self.pos = next;
                self.frame_bytes +=
                    (next - start).saturating_sub(self.repairs.take_before(self.base + end));
                Line::Complete { start, end }
            }
        }
    }

    fn check_size(&mut self) -> Option<DecodeError> {
        self.check_size_with(0)
    }

    /// An error (once per frame) when the frame, plus `pending` bytes of an unfinished line,
    /// is over the limit; the frame is then skipped up to its end.
    fn check_size_with(&mut self, pending: usize) -> Option<DecodeError> {
        if self.skipping || self.frame_bytes + pending <= self.max_event_size {
            return None;
        }
        self.skipping = true;
        self.clear_frame();
        let index = self.index;
        self.index += 1;
        Some(
            DecodeError::new(
                DecodeErrorKind::TooLarge,
                format!(
                    "SSE frame exceeds the maximum size of {} bytes",
                    self.max_event_size
                ),
            )
            .with_index(index),
        )
    }

    /// Applies one non-empty line of the current frame.
    fn field(&mut self, start: usize, end: usize) {
        let line = &self.buf.as_bytes()[start..end];
        // `name` is `line[..name_end]`, the value `buf[value_start..end]`.
        let (name_end, value_start) = match memchr::memchr(b':', line) {
            Some(0) => return, // a comment
            Some(colon) => {
                let skip = usize::from(line.get(colon + 1) == Some(&b' '));
                (colon, start + colon + 1 + skip)
            }
            None => (line.len(), end),
        };
        if &line[..name_end] == b"data" {
            if self.has_data {
                self.own_data();
                self.data.push('\n');
                self.data.push_str(&self.buf[value_start..end]);
            } else {
                // Most frames have one data line: point at it instead of copying it.
                self.data_range = Some((value_start, end));
                self.has_data = true;
            }
            return;
        }
        let value = &self.buf[value_start..end];
        match &line[..name_end] {
            b"event" => {
                self.event.clear();
                self.event.push_str(value);
                self.has_event = true;
            }
            // An id with a NUL is ignored, as the SSE rules say.
            b"id" if !value.contains('\0') => {
                self.last_event_id = Some(value.to_owned());
            }
            b"retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                // Out of range for u64: keep the previous value.
                self.retry = value.parse().ok().or(self.retry);
            }
            _ => {}
        }
    }

    /// Copies a data line still pointed at inside `buf` into `data`.
    fn own_data(&mut self) {
        if let Some((start, end)) = self.data_range.take() {
            self.data.clear();
            self.data.push_str(&self.buf[start..end]);
        }
    }

    fn clear_frame(&mut self) {
        self.data_range = None;
        self.data.clear();
        self.has_data = false;
        self.event.clear();
        self.has_event = false;
    }

    /// Ends the current frame at a blank line; `true` when it had data and is to be handed out.
    fn dispatch(&mut self) -> bool {
        if !self.has_data {
            self.clear_frame();
            return false;
        }
        self.has_data = false;
        // The buffers are cleared when the next call starts.
        self.dispatched = true;
        self.index += 1;
        true
    }

    /// The frame just dispatched.
    fn frame(&self) -> Frame<'_> {
        Frame {
            index: self.index - 1,
            data: match self.data_range {
                Some((start, end)) => &self.buf[start..end],
                None => &self.data,
            },
            event: self.has_event.then_some(self.event.as_str()),
            id: self.last_event_id.as_deref(),
        }
    }

    fn dispatch_at_end(&mut self) -> bool {
        self.frame_bytes = 0;
        self.partial_discarded = false;
        if std::mem::take(&mut self.skipping) {
            self.clear_frame();
            return false;
        }
        self.dispatch()
    }
}

/// Reads [`Event`]s from an SSE byte stream, incrementally: a [`FrameDecoder`] whose frames'
/// data are read as [`Event::from_json`] reads them, one string shared by the ids that repeat.
///
/// Feed bytes with [`push`](Self::push), take results with [`next_event`](Self::next_event) (or
/// iterate: the decoder is an [`Iterator`] that yields `None` when it needs more input), and
/// call [`finish`](Self::finish) at the end of the input. See the [module docs](self) for an
/// example.
#[derive(Debug, Default)]
pub struct EventDecoder {
    frames: FrameDecoder,
    ids: IdCache,
}

impl EventDecoder {
    /// A decoder with the default frame limit of [`DEFAULT_MAX_EVENT_SIZE`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the largest frame accepted, in bytes.
    #[must_use]
    pub fn with_max_event_size(mut self, bytes: usize) -> Self {
        self.frames = self.frames.with_max_event_size(bytes);
        self
    }

    /// Appends input.
    pub fn push(&mut self, bytes: &[u8]) {
        self.frames.push(bytes);
    }

    /// Marks the end of the input, so that a last frame without its blank line is read too.
    pub fn finish(&mut self) {
        self.frames.finish();
    }

    /// The last event id the stream set, for a resuming client's `Last-Event-ID`.
    pub fn last_event_id(&self) -> Option<&str> {
        self.frames.last_event_id()
    }

    /// The reconnection time the stream last set, in milliseconds.
    pub fn retry(&self) -> Option<u64> {
        self.frames.retry()
    }

    /// The frame layer.
    pub fn frames(&self) -> &FrameDecoder {
        &self.frames
    }

    /// The next event, or `None` when more input is needed (or the finished stream is
    /// exhausted).
    ///
    /// # Errors
    ///
    /// The item is an error, naming the frame index, when a frame is too large
    /// ([`DecodeErrorKind::TooLarge`]), its data is not a valid event (see
    /// [`Event::from_json`]), or it names an event type of no AG-UI 1.0 event
    /// ([`DecodeErrorKind::UnknownEventType`], which a reader may skip). Decoding can go on
    /// after any of them.
    #[inline]
    pub fn next_event(&mut self) -> Option<Result<Event, DecodeError>> {
        match self.frames.next_frame() {
            Err(e) => Some(Err(e)),
            Ok(None) => None,
            Ok(Some(frame)) => {
                let index = frame.index();
                Some(
                    Event::from_json_sharing(frame.text(), &mut self.ids)
                        .map_err(|e| e.with_index(index)),
                )
            }
        }
    }
}

/// Where the decoded text holds a U+FFFD (3 bytes) in place of fewer bytes of the stream.
#[derive(Debug, Default)]
struct Repairs {
    /// (offset in the whole decoded text, bytes the replacement added), in order.
    at: VecDeque<(usize, usize)>,
    /// The bytes added by all of `at`.
    surplus: usize,
}

impl Repairs {
    /// A U+FFFD at `offset` replaced `replaced` bytes of the stream.
    fn record(&mut self, offset: usize, replaced: usize) {
        let added = 3usize.saturating_sub(replaced);
        if added > 0 {
            self.at.push_back((offset, added));
            self.surplus += added;
        }
    }

    /// Forgets the repairs before `offset` (text that was read), returning the bytes they
    /// added.
    fn take_before(&mut self, offset: usize) -> usize {
        let mut added = 0;
        while let Some(&(at, n)) = self.at.front() {
            if at >= offset {
                break;
            }
            self.at.pop_front();
            added += n;
        }
        self.surplus -= added;
        added
    }

    fn clear(&mut self) {
        self.at.clear();
        self.surplus = 0;
    }
}

/// The decoded text being appended to, and where its repairs go.
struct Text<'a> {
    buf: &'a mut String,
    /// The offset of `buf[0]` in the whole decoded text.
    base: usize,
    repairs: &'a mut Repairs,
}

impl Text<'_> {
    fn replace(&mut self, replaced: usize) {
        self.repairs.record(self.base + self.buf.len(), replaced);
        self.buf.push(char::REPLACEMENT_CHARACTER);
    }
}

/// Appends `input` to the text read as UTF-8, as the SSE rules (and the reference client's
/// streaming `TextDecoder`) read a stream: each invalid sequence becomes U+FFFD, exactly as
/// [`String::from_utf8_lossy`] would replace it in the whole stream. A sequence cut by the end
/// of `input` waits in `tail` for the next call; [`FrameDecoder::finish`] replaces it if the
/// stream ends there. Reading the stream once here, in large pieces, spares every frame its
/// own check.
fn push_utf8(text: &mut Text<'_>, tail: &mut Vec<u8>, mut input: &[u8]) {
    // Complete a cut sequence one byte at a time: it needs at most three more.
    while !tail.is_empty() && !input.is_empty() {
        tail.push(input[0]);
        input = &input[1..];
        match std::str::from_utf8(tail) {
            Ok(s) => {
                text.buf.push_str(s);
                tail.clear();
            }
            Err(e) => match e.error_len() {
                None => {}
                Some(bad) => {
                    // Invalid: replace the bad bytes and read what followed them again.
                    text.replace(bad);
                    let rest: Vec<u8> = tail[e.valid_up_to() + bad..].to_vec();
                    tail.clear();
                    push_utf8(text, tail, &rest);
                }
            },
        }
    }
    loop {
        match std::str::from_utf8(input) {
            Ok(s) => {
                text.buf.push_str(s);
                return;
            }
            Err(e) => {
                let (valid, rest) = input.split_at(e.valid_up_to());
                // `valid` is exactly the checked prefix.
                text.buf
                    .push_str(std::str::from_utf8(valid).unwrap_or_default());
                match e.error_len() {
                    None => {
                        tail.extend_from_slice(rest);
                        return;
                    }
                    Some(bad) => {
                        text.replace(bad);
                        input = &rest[bad..];
                    }
                }
            }
        }
    }
}

impl Iterator for EventDecoder {
    type Item = Result<Event, DecodeError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.next_event()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_in_small_pieces_is_searched_once() {
        let mut decoder = FrameDecoder::new();
        decoder.push(b"data: ");
        let mut fed = 6;
        for _ in 0..100 {
            decoder.push(&[b'x'; 1000]);
            fed += 1000;
            assert!(decoder.next_frame().unwrap().is_none());
            // Everything pending was searched: the next piece's search starts after it.
            assert_eq!(decoder.searched, fed);
        }
        decoder.push(b"\r");
        assert!(decoder.next_frame().unwrap().is_none());
        assert_eq!(decoder.searched, 0);
        decoder.push(b"\n\ndata: y\n\n");
        let frame = decoder.next_frame().unwrap().unwrap();
        assert_eq!(frame.data().len(), 100_000);
        let frame = decoder.next_frame().unwrap().unwrap();
        assert_eq!(frame.data(), b"y");
        // An oversized frame dropped mid-line restarts the search at the next line.
        let mut decoder = FrameDecoder::new().with_max_event_size(10);
        decoder.push(b"data: 0123456789");
        assert_eq!(
            decoder.next_frame().unwrap_err().kind(),
            DecodeErrorKind::TooLarge
        );
        assert_eq!(decoder.searched, 0);
        decoder.push(b"abc\n\ndata: z\n\n");
        assert_eq!(decoder.next_frame().unwrap().unwrap().data(), b"z");
    }

    fn frames_of(input: &[u8], chunk: usize) -> Vec<(Vec<u8>, Option<String>, Option<String>)> {
        let mut decoder = FrameDecoder::new();
        let mut out = Vec::new();
        let mut take = |d: &mut FrameDecoder| {
            while let Some(f) = d.next_frame().unwrap() {
                out.push((
                    f.data().to_vec(),
                    f.event().map(str::to_owned),
                    f.id().map(str::to_owned),
                ));
            }
        };
        for piece in input.chunks(chunk.max(1)) {
            decoder.push(piece);
            take(&mut decoder);
        }
        decoder.finish();
        take(&mut decoder);
        out
    }

    fn datas(input: &[u8]) -> Vec<String> {
        let whole: Vec<String> = frames_of(input, input.len())
            .into_iter()
            .map(|(d, _, _)| String::from_utf8(d).unwrap())
            .collect();
        for chunk in 1..8 {
            let split: Vec<String> = frames_of(input, chunk)
                .into_iter()
                .map(|(d, _, _)| String::from_utf8(d).unwrap())
                .collect();
            assert_eq!(split, whole, "chunk size {chunk}");
        }
        whole
    }

    #[test]
    fn line_endings_lf_crlf_cr() {
        assert_eq!(datas(b"data: a\n\ndata: b\n\n"), ["a", "b"]);
        assert_eq!(datas(b"data: a\r\n\r\ndata: b\r\n\r\n"), ["a", "b"]);
        assert_eq!(datas(b"data: a\r\rdata: b\r\r"), ["a", "b"]);
        assert_eq!(datas(b"data: a\r\n\ndata: b\n\r\n"), ["a", "b"]);
    }

    #[test]
    fn multi_line_data_and_the_optional_space() {
        assert_eq!(datas(b"data: a\ndata:b\ndata:  c\n\n"), ["a\nb\n c"]);
        assert_eq!(datas(b"data\n\n"), [""]);
        assert_eq!(datas(b"data:\ndata:\n\n"), ["\n"]);
    }

    #[test]
    fn comments_unknown_fields_and_blank_frames_are_skipped() {
        assert_eq!(
            datas(b": ping\n\n\n\nfoo: bar\n data: x\n\ndata: y\n\n"),
            ["y"]
        );
    }

    #[test]
    fn event_id_and_retry_fields() {
        let frames = frames_of(b"event: a\nid: 1\ndata: x\n\ndata: y\n\nid\ndata: z\n\n", 3);
        assert_eq!(
            frames,
            [
                (b"x".to_vec(), Some("a".into()), Some("1".into())),
                (b"y".to_vec(), None, Some("1".into())),
                (b"z".to_vec(), None, Some(String::new())),
            ]
        );
        let mut d = FrameDecoder::new();
        d.push(b"retry: 3000\nretry: x\nid: a\0b\ndata: 1\n\n");
        assert!(d.next_frame().unwrap().is_some());
        assert_eq!(d.retry(), Some(3000));
        assert_eq!(d.last_event_id(), None);
    }

    #[test]
    fn bom_is_dropped_once_even_when_split() {
        assert_eq!(datas(b"\xEF\xBB\xBFdata: a\n\n"), ["a"]);
        let frames = frames_of(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n", 1);
        assert!(frames.is_empty(), "a second BOM is part of the field name");
        let mut d = FrameDecoder::new();
        d.push(b"\xEF\xBB");
        d.finish();
        assert!(d.next_frame().unwrap().is_none());
    }

    #[test]
    fn final_frame_without_blank_line_needs_finish() {
        assert_eq!(datas(b"data: a\n\ndata: b"), ["a", "b"]);
        assert_eq!(datas(b"data: a\n\ndata: b\r"), ["a", "b"]);
        let mut d = FrameDecoder::new();
        d.push(b"data: b");
        assert!(d.next_frame().unwrap().is_none());
    }

    #[test]
    fn utf8_split_across_chunks() {
        let text = "data: {\"delta\":\"héllo ✓ 🎉\"}\n\n";
        assert_eq!(datas(text.as_bytes()), ["{\"delta\":\"héllo ✓ 🎉\"}"]);
    }

    #[test]
    fn oversized_frame_is_an_error_and_decoding_goes_on() {
        for chunk in [1, 5, 64] {
            let mut d = FrameDecoder::new().with_max_event_size(16);
            let input = b"data: short\n\ndata: 0123456789abcdefghij\ndata: more\n\ndata: next\n\n";
            let mut out = Vec::new();
            let mut errors = Vec::new();
            for piece in input.chunks(chunk) {
                d.push(piece);
                loop {
                    match d.next_frame() {
                        Ok(Some(f)) => out.push((f.index(), f.data().to_vec())),
                        Ok(None) => break,
                        Err(e) => errors.push((e.kind(), e.index())),
                    }
                }
            }
            assert_eq!(
                out,
                [(0, b"short".to_vec()), (2, b"next".to_vec())],
                "chunk {chunk}"
            );
            assert_eq!(errors, [(DecodeErrorKind::TooLarge, Some(1))]);
            // The buffer never held much more than the limit.
            assert!(
                d.buf.capacity() < 256,
                "chunk {chunk}: {}",
                d.buf.capacity()
            );
        }
    }

    /// Every result of decoding `input` with frames limited to `max`, fed in pieces of `piece`.
    fn results(input: &[u8], piece: usize, max: usize) -> Vec<Result<Event, DecodeError>> {
        let mut decoder = EventDecoder::new().with_max_event_size(max);
        let mut out = Vec::new();
        for chunk in input.chunks(piece.max(1)) {
            decoder.push(chunk);
            out.extend(decoder.by_ref());
        }
        decoder.finish();
        out.extend(decoder.by_ref());
        out
    }

    #[test]
    fn the_limit_does_not_depend_on_where_reads_split_a_crlf() {
        // Found by fuzzing (the `sse_decoder` target's input, less its first byte that chose
        // pieces of one byte): a frame that fits only if its last CRLF's LF is not counted
        // twice over, or counted toward the blank line's frame.
        let fuzzed: &[u8] = b"\x01\x00\x00\x7d\x00\x00\x00\x3a\x20\x7b\x3a\x22\x3a\x22STEe\
            \xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\
            \xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\
            \xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe\
            adYd\":\"\x01\x00\x00\x00\x00\x00\x00\x00\x01\xff\x9a\x00\x7d\r\n\r\n";
        for max in [64, 70, 80, 90, 99, 100, 101, 256] {
            let whole = results(fuzzed, fuzzed.len(), max);
            for piece in 1..=16 {
                assert_eq!(
                    results(fuzzed, piece, max),
                    whole,
                    "max {max}, piece {piece}"
                );
            }
        }
        // A frame exactly at the limit, its lines ended by CRLF, split at every point.
        let frame = b"data: {\"type\":\"STEP_STARTED\",\"stepName\":\"s\"}\r\n\r\n";
        let size = frame.len() - 2; // the blank line ends the frame and is not part of it
        let stream = [&frame[..], &frame[..]].concat();
        for max in [size - 1, size, size + 1] {
            let whole = results(&stream, stream.len(), max);
            assert_eq!(whole.iter().all(Result::is_ok), max >= size, "max {max}");
            for piece in 1..=stream.len() {
                assert_eq!(
                    results(&stream, piece, max),
                    whole,
                    "max {max}, piece {piece}"
                );
            }
        }
    }

    #[test]
    fn the_limit_counts_the_streams_bytes_not_their_repair() {
        // 30 invalid bytes are 30 bytes of the stream, though each reads as a 3-byte U+FFFD.
        let mut frame = b"data: {\"type\":\"STEP_STARTED\",\"stepName\":\"".to_vec();
        frame.extend([0xFF; 30]);
        frame.extend(b"\"}\n\n");
        let size = frame.len() - 1;
        for piece in [1, 2, 3, 7, frame.len()] {
            let fits = results(&frame, piece, size);
            assert_eq!(fits.len(), 1);
            let event = fits[0]
                .as_ref()
                .unwrap_or_else(|e| panic!("piece {piece}: {e}"));
            assert_eq!(event, &Event::step_started("\u{FFFD}".repeat(30)));
            let over = results(&frame, piece, size - 1);
            assert_eq!(over.len(), 1);
            assert_eq!(
                over[0].as_ref().unwrap_err().kind(),
                DecodeErrorKind::TooLarge,
                "piece {piece}"
            );
        }
        // A sequence cut by the end of the stream counts its own bytes too.
        let mut cut = b"data: {\"type\":\"STEP_STARTED\",\"stepName\":\"x\"}".to_vec();
        cut.extend(b"\n:\xE2\x82");
        let size = cut.len();
        for piece in [1, 2, cut.len()] {
            let out = results(&cut, piece, size);
            assert_eq!(out.len(), 1);
            assert!(out[0].is_ok(), "piece {piece}: {:?}", out[0]);
            let out = results(&cut, piece, size - 1);
            assert_eq!(
                out[0].as_ref().unwrap_err().kind(),
                DecodeErrorKind::TooLarge
            );
        }
    }

    #[test]
    fn oversized_partial_line_is_caught_before_its_end() {
        let mut d = FrameDecoder::new().with_max_event_size(10);
        d.push(b"data: 0123456789");
        let e = d.next_frame().unwrap_err();
        assert_eq!(e.kind(), DecodeErrorKind::TooLarge);
        d.push(b"more and more");
        assert!(d.next_frame().unwrap().is_none());
        assert_eq!(d.buf.len() - d.pos, 0);
        d.push(b"\n\ndata: ok\n\n");
        assert_eq!(d.next_frame().unwrap().unwrap().data(), b"ok");
    }

    #[test]
    fn events_name_their_index() {
        let mut d = EventDecoder::new();
        d.push(b"data: {\"type\":\"STEP_STARTED\",\"stepName\":\"s\"}\n\ndata: {\"type\":\"STEP_STARTED\"}\n\ndata: {\"type\":\"NOPE\"}\n\n");
        assert!(d.next_event().unwrap().is_ok());
        let e = d.next_event().unwrap().unwrap_err();
        assert_eq!(
            (e.kind(), e.index(), e.event_type(), e.field()),
            (
                DecodeErrorKind::InvalidField,
                Some(1),
                Some("STEP_STARTED"),
                Some("stepName")
            )
        );
        assert!(e.to_string().starts_with("event #1: STEP_STARTED"), "{e}");
        let e = d.next_event().unwrap().unwrap_err();
        assert_eq!(e.kind(), DecodeErrorKind::UnknownEventType);
        assert_eq!(e.index(), Some(2));
        assert!(d.next_event().is_none());
    }

    #[test]
    fn invalid_utf8_reads_as_replacement_characters() {
        let events =
            decode(b"data: {\"type\":\"STEP_STARTED\",\"stepName\":\"a\xFFb\"}\n\n").unwrap();
        assert_eq!(events, [Event::step_started("a\u{FFFD}b")]);
    }

    /// Reads `input` pushed in the pieces `cuts` makes, then finished, as one frame's text.
    fn text_in_pieces(input: &[u8], cuts: &[usize]) -> String {
        let mut buf = String::new();
        let mut repairs = Repairs::default();
        let mut tail = Vec::new();
        let mut at = 0;
        let push = |buf: &mut String, repairs: &mut Repairs, tail: &mut Vec<u8>, bytes| {
            let mut text = Text {
                buf,
                base: 0,
                repairs,
            };
            push_utf8(&mut text, tail, bytes);
        };
        for &cut in cuts {
            let cut = cut.clamp(at, input.len());
            push(&mut buf, &mut repairs, &mut tail, &input[at..cut]);
            at = cut;
        }
        push(&mut buf, &mut repairs, &mut tail, &input[at..]);
        if !tail.is_empty() {
            repairs.record(buf.len(), tail.len());
            buf.push(char::REPLACEMENT_CHARACTER);
        }
        // The repairs account for every byte the text has beyond the stream's.
        assert_eq!(buf.len() - repairs.surplus, input.len(), "{input:?}");
        buf
    }

    #[test]
    fn utf8_is_read_as_the_whole_stream_would_be_lossily() {
        let cases: [&[u8]; 8] = [
            "é—🎉".as_bytes(),
            b"a\xFFb",
            b"\xE2\x82A",        // a truncated sequence before ASCII
            b"\xF0\x9F\x8E",     // truncated at the end of the stream
            b"\xED\xA0\x80x",    // a surrogate
            b"\xC0\xAF\x80",     // overlong
            b"\xF4\x90\x80\x80", // above U+10FFFF
            b"ok\xE2\x82\xAC\xE2",
        ];
        for input in cases {
            let whole = String::from_utf8_lossy(input);
            for a in 0..=input.len() {
                for b in a..=input.len() {
                    assert_eq!(
                        text_in_pieces(input, &[a, b]),
                        whole,
                        "{input:?} cut at {a}, {b}"
                    );
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_in_any_pieces_read_as_from_utf8_lossy(
            input in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::prelude::any::<u8>(),
                    0x80u8..0xC0,
                    0xE0u8..0xF5,
                    proptest::prelude::Just(b'a'),
                ],
                0..40,
            ),
            cuts in proptest::collection::vec(0usize..40, 0..6),
        ) {
            let mut cuts = cuts;
            cuts.sort_unstable();
            proptest::prop_assert_eq!(
                text_in_pieces(&input, &cuts),
                String::from_utf8_lossy(&input)
            );
        }
    }

    #[test]
    fn a_stream_decoder_shares_repeated_ids() {
        let mut d = EventDecoder::new();
        d.push(
            b"data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m1\",\"delta\":\"a\",\"subagentRunId\":\"s\"}\n\n\
              data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m1\",\"delta\":\"b\",\"subagentRunId\":\"s\"}\n\n\
              data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m2\"}\n\n",
        );
        let events: Vec<Event> = d.by_ref().map(Result::unwrap).collect();
        let (Event::TextMessageContent(a), Event::TextMessageContent(b), Event::TextMessageEnd(c)) =
            (&events[0], &events[1], &events[2])
        else {
            panic!("unexpected events: {events:?}");
        };
        assert_eq!((a.delta.as_str(), b.delta.as_str()), ("a", "b"));
        assert_eq!(a.message_id, b.message_id);
        assert_eq!(
            a.message_id.as_str().as_ptr(),
            b.message_id.as_str().as_ptr()
        );
        let (sa, sb) = (
            a.subagent_run_id.as_ref().unwrap(),
            b.subagent_run_id.as_ref().unwrap(),
        );
        assert_eq!(sa.as_str().as_ptr(), sb.as_str().as_ptr());
        assert_eq!(c.message_id, "m2");
        // Stateless decoding copies.
        let one = Event::from_json(r#"{"type":"TEXT_MESSAGE_END","messageId":"m2"}"#).unwrap();
        let two = Event::from_json(r#"{"type":"TEXT_MESSAGE_END","messageId":"m2"}"#).unwrap();
        let (Event::TextMessageEnd(one), Event::TextMessageEnd(two)) = (one, two) else {
            unreachable!()
        };
        assert_eq!(one.message_id, two.message_id);
        assert_ne!(
            one.message_id.as_str().as_ptr(),
            two.message_id.as_str().as_ptr()
        );
    }

    #[test]
    fn encode_matches_encode_into() {
        let e = Event::step_started("s");
        let mut buf = b"x".to_vec();
        encode_into(&e, &mut buf);
        assert_eq!(&buf[1..], encode(&e).as_slice());
        assert_eq!(
            encode(&e),
            b"data: {\"type\":\"STEP_STARTED\",\"stepName\":\"s\"}\n\n"
        );
    }
}
