//! Reading SSE frames and the events in them.

use std::collections::VecDeque;

use super::DEFAULT_MAX_EVENT_SIZE;
use crate::json::IdCache;
use crate::{DecodeError, DecodeErrorKind, Event};

const BOM: &[u8] = b"\xEF\xBB\xBF";

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
    /// How many `id:` fields the stream had set up to this frame.
    ids_set: u64,
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

    /// How many `id:` fields the stream had set up to and including this frame (since the
    /// decoder's last [`reset`](FrameDecoder::reset)): a reader that compares it with the
    /// previous frame's knows whether [`id`](Self::id) was set anew, without comparing or
    /// copying the ids themselves (a persisting id of a megabyte would cost a megabyte per
    /// frame).
    ///
    /// ```
    /// use ag_ui::encoding::sse::FrameDecoder;
    ///
    /// let mut frames = FrameDecoder::new();
    /// frames.push(b"id: r:1\ndata: a\n\ndata: b\n\nid: r:1\ndata: c\n\n");
    /// let a = frames.next_frame().unwrap().unwrap().ids_set();
    /// let b = frames.next_frame().unwrap().unwrap().ids_set();
    /// let c = frames.next_frame().unwrap().unwrap().ids_set();
    /// // `b` repeats `a`'s id without setting one; `c` sets it again.
    /// assert_eq!((a, b, c), (1, 1, 2));
    /// ```
    pub fn ids_set(&self) -> u64 {
        self.ids_set
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
    pub(super) buf: String,
    pub(super) pos: usize,
    /// How many bytes after `pos` were already searched for a line end without finding one,
    /// so that a long line arriving in small pieces is searched once, not once per piece.
    pub(super) searched: usize,
    /// How much text was dropped from the front of `buf` so far: `buf[i]` is at offset
    /// `base + i` of the whole decoded text.
    pub(super) base: usize,
    /// The start of a UTF-8 sequence cut by the end of the last push, completed by the next.
    utf8_tail: Vec<u8>,
    /// Where the text holds more bytes than the stream (a U+FFFD for an invalid byte), so that
    /// the frame limit counts the stream's own bytes.
    pub(super) repairs: Repairs,
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
    /// How many `id:` fields were applied (see [`Frame::ids_set`]).
    ids_set: u64,
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
            ids_set: 0,
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

    /// Changes the largest frame accepted; it holds from the next line read.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn set_max_event_size(&mut self, bytes: usize) {
        self.max_event_size = bytes;
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
                let id = self.last_event_id.get_or_insert_with(String::new);
                id.clear();
                id.push_str(value);
                self.ids_set += 1;
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
            ids_set: self.ids_set,
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
/// call [`finish`](Self::finish) at the end of the input. See the [module docs](super) for an
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
pub(super) struct Repairs {
    /// (offset in the whole decoded text, bytes the replacement added), in order.
    at: VecDeque<(usize, usize)>,
    /// The bytes added by all of `at`.
    pub(super) surplus: usize,
}

impl Repairs {
    /// A U+FFFD at `offset` replaced `replaced` bytes of the stream.
    pub(super) fn record(&mut self, offset: usize, replaced: usize) {
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
pub(super) struct Text<'a> {
    pub(super) buf: &'a mut String,
    /// The offset of `buf[0]` in the whole decoded text.
    pub(super) base: usize,
    pub(super) repairs: &'a mut Repairs,
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
pub(super) fn push_utf8(text: &mut Text<'_>, tail: &mut Vec<u8>, mut input: &[u8]) {
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
