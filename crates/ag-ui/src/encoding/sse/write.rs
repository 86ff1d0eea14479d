//! Writing SSE frames: every frame, field and comment the crate sends is written here, into the
//! caller's buffer (no allocation per frame).
//!
//! A frame is `[retry: <ms>\n][id: <id>\n]data: <payload>\n\n`. The crate's own payload is
//! compact JSON, which holds no line break, so it is always one `data:` line. Public:
//! [`encode_into`] / [`encode`] (an event), [`write_frame`] (any text, one `data:` line per
//! line) and [`write_frame_with`] (a payload written in place).

#[cfg(feature = "axum")]
use std::time::Duration;

use crate::Event;

#[cfg(feature = "axum")]
const ID: &[u8] = b"id: ";
const DATA: &[u8] = b"data: ";
const END: &[u8] = b"\n\n";

#[cfg(feature = "axum")]
/// The comment a server sends to keep a quiet connection open.
pub(crate) const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

/// Appends one SSE frame for `event` to `out`: `data: <json>\n\n`, byte-identical to the
/// reference encoder. Reuses the caller's buffer.
#[inline]
pub fn encode_into(event: &Event, out: &mut Vec<u8>) {
    write_data(out, |out| event.write_json(out));
}

/// One SSE frame for `event` in a new buffer. Prefer [`encode_into`] in loops.
pub fn encode(event: &Event) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    encode_into(event, &mut out);
    out
}

/// Appends one SSE frame whose data is `data`: a `data:` line for each of its lines (a CR, an
/// LF or a CRLF starts the next one), then the blank line that ends the frame. A reader joins
/// the lines with LF ([`FrameDecoder`](super::FrameDecoder) does), so data whose only line
/// breaks are LF reads back exactly; data of one line is the frame `data: <data>\n\n`.
///
/// ```
/// use ag_ui::encoding::sse::{self, FrameDecoder};
///
/// let mut out = Vec::new();
/// sse::write_frame("{\"a\":1}", &mut out);
/// sse::write_frame("two\nlines", &mut out);
/// assert_eq!(out, b"data: {\"a\":1}\n\ndata: two\ndata: lines\n\n");
///
/// let mut frames = FrameDecoder::new();
/// frames.push(&out);
/// assert_eq!(frames.next_frame().unwrap().unwrap().text(), "{\"a\":1}");
/// assert_eq!(frames.next_frame().unwrap().unwrap().text(), "two\nlines");
/// ```
pub fn write_frame(data: &str, out: &mut Vec<u8>) {
    write_lines(data.as_bytes(), out);
}

/// Appends one SSE frame whose data `payload` writes straight into `out` (compact JSON from
/// `serde_json::to_writer`, say), without a copy in between: `data: `, the payload, the blank
/// line. A line break the payload writes starts a new `data:` line, as in [`write_frame`], so
/// the frame reads back as what was written whatever it holds.
///
/// ```
/// use ag_ui::encoding::sse;
///
/// let mut out = Vec::new();
/// sse::write_frame_with(&mut out, |out| out.extend_from_slice(br#"{"t":"ping"}"#));
/// assert_eq!(out, b"data: {\"t\":\"ping\"}\n\n");
/// sse::write_frame_with(&mut out, |out| out.extend_from_slice(b"a\r\nb"));
/// assert_eq!(&out[20..], b"data: a\ndata: b\n\n");
/// ```
pub fn write_frame_with(out: &mut Vec<u8>, payload: impl FnOnce(&mut Vec<u8>)) {
    let start = out.len();
    out.extend_from_slice(DATA);
    let from = out.len();
    payload(out);
    if memchr::memchr2(b'\n', b'\r', &out[from..]).is_none() {
        out.extend_from_slice(END);
        return;
    }
    let data = out.split_off(from);
    out.truncate(start);
    write_lines(&data, out);
}

/// A `data:` line for each line of `data` (CR, LF and CRLF end a line), then the blank line.
fn write_lines(mut data: &[u8], out: &mut Vec<u8>) {
    loop {
        out.extend_from_slice(DATA);
        let Some(at) = memchr::memchr2(b'\n', b'\r', data) else {
            out.extend_from_slice(data);
            out.extend_from_slice(END);
            return;
        };
        out.extend_from_slice(&data[..at]);
        out.push(b'\n');
        let crlf = data[at] == b'\r' && data.get(at + 1) == Some(&b'\n');
        data = &data[at + 1 + usize::from(crlf)..];
    }
}

/// Appends the end of a frame, `data: <payload>\n\n`, the payload written by `payload` (which
/// must write no line break: compact JSON never does). The crate's own events go this way;
/// [`write_frame_with`] is the public form, which checks.
#[inline]
pub(crate) fn write_data(out: &mut Vec<u8>, payload: impl FnOnce(&mut Vec<u8>)) {
    out.extend_from_slice(DATA);
    payload(out);
    out.extend_from_slice(END);
}

#[cfg(feature = "axum")]
/// Appends an `id: <n>\n` field.
pub(crate) fn write_id(n: u64, out: &mut Vec<u8>) {
    out.extend_from_slice(ID);
    push_decimal(n, out);
    out.push(b'\n');
}

#[cfg(feature = "axum")]
/// Appends an `id: <runId>:<seq>\n` field, the id of a resumable run's frame (the form of a
/// `server::log::Cursor`).
pub(crate) fn write_cursor_id(run_id: &str, seq: u64, out: &mut Vec<u8>) {
    out.extend_from_slice(ID);
    out.extend_from_slice(run_id.as_bytes());
    out.push(b':');
    push_decimal(seq, out);
    out.push(b'\n');
}

#[cfg(feature = "axum")]
/// Appends a `retry: <milliseconds>\n` field (saturating at `u64::MAX` milliseconds).
pub(crate) fn write_retry(retry: Duration, out: &mut Vec<u8>) {
    out.extend_from_slice(b"retry: ");
    push_decimal(u64::try_from(retry.as_millis()).unwrap_or(u64::MAX), out);
    out.push(b'\n');
}

#[cfg(feature = "axum")]
/// Appends `n` in decimal (the formatting machinery costs more than the frame).
pub(super) fn push_decimal(mut n: u64, out: &mut Vec<u8>) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

#[cfg(feature = "axum")]
/// The head of a resumable run's frames, `id: <runId>:<seq>\ndata: `, kept whole and counted up
/// in place: no number formatting per frame. A head of at most [`BLOCK`](Self::BLOCK) bytes is
/// also kept in a block of that constant size, which is appended whole and cut back (a few
/// register moves, where a copy of a length known only at run time is a call into `memcpy`).
pub(crate) struct FrameHead {
    /// `id: <runId>:<seq>\ndata: `, the seq in ASCII decimal.
    pub(crate) bytes: Vec<u8>,
    /// Where the seq's digits begin.
    digits: usize,
    /// `bytes`, zero-padded, when it fits.
    block: [u8; FrameHead::BLOCK],
    fits: bool,
}

#[cfg(feature = "axum")]
impl FrameHead {
    const TAIL: &'static [u8] = b"\ndata: ";
    /// Room for a UUID run id and a sequence number of up to 16 digits.
    const BLOCK: usize = 64;

    /// The head before the first frame: seq 0.
    pub(crate) fn new(run_id: &str) -> Self {
        let mut bytes = Vec::with_capacity(run_id.len() + 24);
        write_cursor_id(run_id, 0, &mut bytes);
        bytes.pop();
        let digits = bytes.len() - 1;
        bytes.extend_from_slice(Self::TAIL);
        let mut head = Self {
            bytes,
            digits,
            block: [0; Self::BLOCK],
            fits: false,
        };
        head.sync();
        head
    }

    /// Copies `bytes` into the block when they fit.
    fn sync(&mut self) {
        self.fits = self.bytes.len() <= Self::BLOCK;
        if self.fits {
            self.block = [0; Self::BLOCK];
            self.block[..self.bytes.len()].copy_from_slice(&self.bytes);
        }
    }

    /// Appends the head to `out`.
    #[inline]
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        if self.fits {
            out.extend_from_slice(&self.block);
            out.truncate(out.len() - (Self::BLOCK - self.bytes.len()));
        } else {
            out.extend_from_slice(&self.bytes);
        }
    }

    /// Adds one to the seq.
    pub(crate) fn advance(&mut self) {
        let end = self.bytes.len() - Self::TAIL.len();
        for i in (self.digits..end).rev() {
            if self.bytes[i] == b'9' {
                self.bytes[i] = b'0';
                if self.fits {
                    self.block[i] = b'0';
                }
            } else {
                self.bytes[i] += 1;
                if self.fits {
                    self.block[i] += 1;
                }
                return;
            }
        }
        // All nines: one digit more.
        self.bytes.insert(self.digits, b'1');
        self.sync();
    }

    /// Appends the next frame, `id: <runId>:<seq + 1>\ndata: <payload>\n\n`, and returns where
    /// its payload lies in `out`.
    #[inline]
    pub(crate) fn write_next(
        &mut self,
        out: &mut Vec<u8>,
        payload: impl FnOnce(&mut Vec<u8>),
    ) -> std::ops::Range<usize> {
        self.advance();
        self.write(out);
        let start = out.len();
        payload(out);
        let end = out.len();
        out.extend_from_slice(END);
        start..end
    }
}
