//! The binary transport, `application/vnd.ag-ui.event+proto`: an encoder and an incremental,
//! bounded decoder for the framed protobuf stream of `@ag-ui/proto` 1.0.0.
//!
//! A response body is a run of frames placed back to back: a **4-byte big-endian length** `N`,
//! then `N` bytes of one `ag_ui.Event` message (the schema is in `crates/ag-ui/proto/`). There
//! is no header, trailer or separator. [`encode_into`] appends one frame, byte-identical to the
//! reference encoder's. Reading goes through two layers, as for [`sse`](super::sse):
//!
//! * [`FrameDecoder`] cuts bytes, pushed in chunks of any size, into frames. A frame whose
//!   `4 + N` exceeds the maximum (10 MiB by default, as the reference client) is an error of
//!   kind [`ProtoErrorKind::TooLarge`]; its bytes are dropped as they arrive, never buffered. A
//!   zero length is [`ProtoErrorKind::EmptyFrame`]; a stream that ends inside a frame is
//!   [`ProtoErrorKind::Truncated`] once [`FrameDecoder::finish`] says the input ended.
//! * [`EventDecoder`] reads each frame as an [`Event`]. The message must hold exactly one event
//!   arm ([`ProtoErrorKind::NoArm`], [`ProtoErrorKind::TwoArms`]) whose `base_event` is present
//!   ([`ProtoErrorKind::MissingBaseEvent`]) and names the same event
//!   ([`ProtoErrorKind::TypeMismatch`]). A message holding only arms unknown to AG-UI 1.0 is
//!   [`ProtoErrorKind::UnknownEventType`], which a reader skips with a warning as the
//!   reference client does; [`decode`] does exactly that.
//!
//! Every error names the zero-based index of its frame ([`ProtoError::index`]), and decoding
//! can go on after it. [`ProtoError`] converts into the crate's [`DecodeError`] for code that
//! reads either transport.
//!
//! ```
//! use ag_ui::encoding::proto::{self, EventDecoder, ProtoErrorKind};
//! use ag_ui::{Event, TextMessageRole};
//!
//! let mut bytes = proto::encode(&Event::step_started("s"));
//! assert_eq!(bytes, [0, 0, 0, 9, 0x7a, 7, 0x0a, 2, 0x08, 14, 0x12, 1, b's']);
//! proto::encode_into(&Event::text_message_start("m1", TextMessageRole::Assistant), &mut bytes);
//! proto::encode_into(&Event::text_message_content("m1", "Hi"), &mut bytes);
//! // A frame from a later protocol: only an arm this version does not know (field 32).
//! bytes.extend_from_slice(&[0, 0, 0, 5, 0x82, 0x02, 2, 0x08, 0x0a]);
//!
//! // Feed the bytes in awkward pieces; the events come out the same.
//! let mut decoder = EventDecoder::new();
//! let (mut events, mut unknown) = (Vec::new(), 0);
//! for piece in bytes.chunks(3) {
//!     decoder.push(piece);
//!     for result in &mut decoder {
//!         match result {
//!             Ok(event) => events.push(event),
//!             Err(e) if e.kind() == ProtoErrorKind::UnknownEventType => unknown += 1,
//!             Err(e) => panic!("{e}"),
//!         }
//!     }
//! }
//! decoder.finish();
//! assert!(decoder.next().is_none());
//! assert_eq!(events, [
//!     Event::step_started("s"),
//!     Event::text_message_start("m1", TextMessageRole::Assistant),
//!     Event::text_message_content("m1", "Hi"),
//! ]);
//! assert_eq!(unknown, 1);
//! assert_eq!(proto::decode(&bytes).unwrap(), events);
//!
//! // A stream cut inside a frame is an error naming that frame.
//! let err = proto::decode(&bytes[..bytes.len() - 12]).unwrap_err();
//! assert_eq!((err.kind(), err.index()), (ProtoErrorKind::Truncated, Some(2)));
//! ```
//!
//! # What the binary form does not carry
//!
//! The schema has no place for some of what the JSON form can say. For this crate's typed
//! events that comes down to the following; everything else comes back exactly as it went
//! (the tests `proto_roundtrip` and `proto_parity` hold each point):
//!
//! 1. **Empty lists come back absent.** An assistant message's `toolCalls: []`, a `usage: []`
//!    of `RUN_FINISHED` or `RUN_ERROR`, a success outcome's `pendingToolCallIds: []` and a
//!    suspended outcome's `interruptIds: []` are repeated fields, which cannot tell empty from
//!    absent: they read back as `None`.
//! 2. **`RUN_STARTED.input.resume` always comes back.** An input with no `resume` reads back
//!    with `resume: Some(vec![])`, as the reference decoder gives `resume: []`.
//! 3. **JSON numbers are doubles.** Numbers inside JSON values (`google.protobuf.Value`:
//!    snapshots, `rawEvent`, `result`, `value`, metadata, …) travel as 64-bit floats: an
//!    integer beyond ±2^53 loses precision, and an integral float (`1.0`) reads back as the
//!    integer `1`, as JavaScript would print it.
//! 4. **Object member order is not part of protobuf.** This crate writes and reads the members
//!    of JSON objects (`google.protobuf.Struct`) in their order, as the reference does, but
//!    another producer may reorder them.
//!
//! And from the JSON the reference packages accept, which this crate's model already does not
//! hold after reading it: unknown keys at any level are dropped, optional fields set to `null`
//! are left out, a legacy `binary` content part becomes a `document` part, a content part or
//! message of a kind unknown to 1.0 is dropped, an outcome of an unknown type keeps only its
//! type (and is dropped on reading, as the JSON reader drops it), and an event type outside
//! the 31 has no encoding at all.
//!
//! Reading follows the reference decoder otherwise: the same arm twice merges (protobuf's rule
//! for a repeated message field); a message of unknown role, a JSON Patch operation or an
//! outcome of unknown type is dropped with a warning, as the JSON reader drops it; what the
//! JSON reader refuses (a `role` of no text message, an interrupt outcome without interrupts, a
//! count below zero) is an error of kind [`ProtoErrorKind::InvalidField`] naming the field.

mod convert;
mod direct;
#[rustfmt::skip]
#[allow(
    missing_docs,
    missing_debug_implementations,
    unreachable_pub,
    clippy::all,
    dead_code
)]
mod generated;
mod json;

use std::fmt;

use prost::Message as _;

use crate::{DecodeError, DecodeErrorKind, Event, EventType};

/// The default largest frame a decoder accepts, its 4-byte length included: 10 MiB, the
/// reference client's limit.
pub const DEFAULT_MAX_FRAME_SIZE: usize = 10 * 1024 * 1024;

/// The size of the length before each message.
const LENGTH_SIZE: usize = 4;

/// Appends one frame for `event` to `out`: its length as 4 bytes big-endian, then the
/// `ag_ui.Event` message, byte-identical to `@ag-ui/proto`'s encoder (JSON objects inside keep
/// their member order). Reuses the caller's buffer.
///
/// A frame is as large as its event; a peer refuses one over its limit
/// ([`DEFAULT_MAX_FRAME_SIZE`]), as it refuses an oversized SSE frame.
pub fn encode_into(event: &Event, out: &mut Vec<u8>) {
    // The streaming events go straight into `out`; the others through their generated message.
    if direct::encode_into(event, out) {
        return;
    }
    let message = convert::to_message(event);
    let len = message.encoded_len();
    out.reserve(LENGTH_SIZE + len);
    // No event this crate can hold in memory comes near 4 GiB of protobuf.
    out.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_be_bytes());
    message.encode_raw(out);
}

/// One frame for `event` in a new buffer. Prefer [`encode_into`] in loops.
pub fn encode(event: &Event) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    encode_into(event, &mut out);
    out
}

/// The `ag_ui.Event` message for `event`, without the frame's length: what `@ag-ui/proto`'s
/// `encode` returns.
pub fn encode_message(event: &Event) -> Vec<u8> {
    convert::to_message(event).encode_to_vec()
}

/// Reads one `ag_ui.Event` message (no length before it), as `@ag-ui/proto`'s `decode` does.
///
/// # Errors
///
/// A [`ProtoError`] with no frame index: the bytes are not protobuf
/// ([`ProtoErrorKind::Malformed`]), the envelope is wrong ([`ProtoErrorKind::NoArm`],
/// [`ProtoErrorKind::TwoArms`], [`ProtoErrorKind::MissingBaseEvent`],
/// [`ProtoErrorKind::TypeMismatch`]), the event is from a later protocol
/// ([`ProtoErrorKind::UnknownEventType`]) or a field holds what no AG-UI event can
/// ([`ProtoErrorKind::InvalidField`]).
pub fn decode_message(bytes: &[u8]) -> Result<Event, ProtoError> {
    read_message(bytes, &mut convert::Ids::default())
}

/// Reads every event of a complete protobuf stream. Frames of an event type unknown to AG-UI
/// 1.0 are skipped with a warning, as the reference client does.
///
/// # Errors
///
/// The first [`ProtoError`] other than an unknown event type, with its frame index.
pub fn decode(bytes: &[u8]) -> Result<Vec<Event>, ProtoError> {
    let mut decoder = EventDecoder::new();
    decoder.push(bytes);
    decoder.finish();
    let mut events = Vec::new();
    for result in decoder {
        match result {
            Ok(event) => events.push(event),
            Err(e) if e.kind() == ProtoErrorKind::UnknownEventType => {
                tracing::warn!(error = %e, "skipping an event of unknown type");
            }
            Err(e) => return Err(e),
        }
    }
    Ok(events)
}

// -------------------------------------------------------------------------------- errors

/// What kind of problem a [`ProtoError`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProtoErrorKind {
    /// A frame of length zero (no message can be empty: it needs an event arm).
    EmptyFrame,
    /// The stream ended inside a frame.
    Truncated,
    /// A frame's `4 + N` bytes exceed the decoder's maximum.
    TooLarge,
    /// The bytes are not a well-formed protobuf `ag_ui.Event`.
    Malformed,
    /// The message holds no event arm at all.
    NoArm,
    /// The message holds two different event arms.
    TwoArms,
    /// The event arm has no `base_event`.
    MissingBaseEvent,
    /// `base_event.type` names another event than the arm that carries it.
    TypeMismatch,
    /// The message holds only arms unknown to AG-UI 1.0: an event from a later protocol,
    /// which a reader may skip with a warning, as the reference client does.
    UnknownEventType,
    /// A field holds what no AG-UI 1.0 event can: [`ProtoError::field`] names it.
    InvalidField,
}

impl ProtoErrorKind {
    /// A stable name for the kind (`"schema.invalid"` for [`Self::InvalidField`], as the
    /// protocol's rule catalogue names it; `"proto.…"` for the others).
    pub fn as_str(self) -> &'static str {
        match self {
            ProtoErrorKind::EmptyFrame => "proto.empty-frame",
            ProtoErrorKind::Truncated => "proto.truncated",
            ProtoErrorKind::TooLarge => "proto.too-large",
            ProtoErrorKind::Malformed => "proto.malformed",
            ProtoErrorKind::NoArm => "proto.no-arm",
            ProtoErrorKind::TwoArms => "proto.two-arms",
            ProtoErrorKind::MissingBaseEvent => "proto.missing-base-event",
            ProtoErrorKind::TypeMismatch => "proto.type-mismatch",
            ProtoErrorKind::UnknownEventType => "decode.unknown-event-type",
            ProtoErrorKind::InvalidField => "schema.invalid",
        }
    }
}

impl fmt::Display for ProtoErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A protobuf frame could not be read as an event. Names the frame, and the event type and
/// field when they are known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtoError {
    kind: ProtoErrorKind,
    index: Option<u64>,
    event_type: Option<EventType>,
    field: Option<String>,
    message: String,
}

impl ProtoError {
    fn new(kind: ProtoErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            index: None,
            event_type: None,
            field: None,
            message: message.into(),
        }
    }

    fn at(mut self, index: u64) -> Self {
        self.index = Some(index);
        self
    }

    /// What went wrong, to match on.
    pub fn kind(&self) -> ProtoErrorKind {
        self.kind
    }

    /// The zero-based position of the frame in its stream, when the error came from a stream
    /// decoder.
    pub fn index(&self) -> Option<u64> {
        self.index
    }

    /// The event the frame's arm carries, when it got that far.
    pub fn event_type(&self) -> Option<EventType> {
        self.event_type
    }

    /// The path of the offending field, in the JSON form's names (`role`,
    /// `messages[2].toolCalls[0].function`), for [`ProtoErrorKind::InvalidField`].
    pub fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }

    /// The underlying message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ProtoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(index) = self.index {
            write!(f, "frame #{index}: ")?;
        }
        if let Some(t) = self.event_type {
            write!(f, "{t}: ")?;
        }
        if let Some(field) = &self.field {
            write!(f, "field `{field}`: ")?;
        }
        write!(f, "{} ({})", self.message, self.kind)
    }
}

impl std::error::Error for ProtoError {}

impl From<ProtoError> for DecodeError {
    /// The error as the transport-neutral [`DecodeError`]: an oversized frame is
    /// [`DecodeErrorKind::TooLarge`], an unknown event type
    /// [`DecodeErrorKind::UnknownEventType`], an invalid field
    /// [`DecodeErrorKind::InvalidField`], and every other kind
    /// [`DecodeErrorKind::Framing`]; the index and event type carry over, and the field is
    /// named in the message.
    fn from(e: ProtoError) -> Self {
        let kind = match e.kind {
            ProtoErrorKind::TooLarge => DecodeErrorKind::TooLarge,
            ProtoErrorKind::UnknownEventType => DecodeErrorKind::UnknownEventType,
            ProtoErrorKind::InvalidField => DecodeErrorKind::InvalidField,
            _ => DecodeErrorKind::Framing,
        };
        let message = match &e.field {
            Some(field) => format!("field `{field}`: {} ({})", e.message, e.kind),
            None => format!("{} ({})", e.message, e.kind),
        };
        let mut out = DecodeError::new(kind, message);
        if let Some(index) = e.index {
            out = out.with_index(index);
        }
        if let Some(t) = e.event_type {
            out = out.with_event_type(t.as_str());
        }
        out
    }
}

// -------------------------------------------------------------------------------- envelope

/// The highest field number of an event arm in AG-UI 1.0.
const LAST_ARM: u32 = 31;

/// A varint of at most `max` bytes whose last byte is at most `last_max`, as the reference's
/// envelope walker reads tags and lengths; `None` when it is cut short or too wide.
fn varint(bytes: &mut &[u8], max: usize, last_max: u8) -> Option<u64> {
    let mut value = 0u64;
    for i in 0..max {
        let (&byte, rest) = bytes.split_first()?;
        *bytes = rest;
        if i + 1 == max && byte > last_max {
            return None;
        }
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// Skips the body of one field; `None` when the bytes are not protobuf.
fn skip(bytes: &mut &[u8], field: u32, wire_type: u8, depth: u32) -> Option<()> {
    match wire_type {
        0 => varint(bytes, 10, 1).map(drop),
        1 => advance(bytes, 8),
        5 => advance(bytes, 4),
        2 => {
            let len = usize::try_from(varint(bytes, 5, 15)?).ok()?;
            advance(bytes, len)
        }
        3 if depth < 64 => loop {
            let (inner, wt) = tag(bytes)?;
            if wt == 4 {
                return (inner == field).then_some(());
            }
            skip(bytes, inner, wt, depth + 1)?;
        },
        _ => None,
    }
}

fn advance(bytes: &mut &[u8], n: usize) -> Option<()> {
    *bytes = bytes.get(n..)?;
    Some(())
}

fn tag(bytes: &mut &[u8]) -> Option<(u32, u8)> {
    let tag = u32::try_from(varint(bytes, 5, 15)?).ok()?;
    let field = tag >> 3;
    (field != 0).then_some((field, (tag & 7) as u8))
}

/// Whether `bytes` read as a protobuf message at their top level.
fn walks_as_message(mut bytes: &[u8]) -> bool {
    while !bytes.is_empty() {
        let Some((field, wt)) = tag(&mut bytes) else {
            return false;
        };
        if skip(&mut bytes, field, wt, 0).is_none() {
            return false;
        }
    }
    true
}

/// What the top level of an `ag_ui.Event` holds.
enum Envelope<'a> {
    /// One known arm (possibly repeated, which merges), with its field number and its body
    /// when it came once.
    Arm(u32, Option<&'a [u8]>),
    /// No known arm, and at least one unknown length-delimited field that reads as a message.
    Future,
    /// Nothing readable as an event.
    Empty,
}

/// Checks the envelope before the generated decoder reads it, which would keep the last of two
/// different arms instead of refusing them.
fn scan(mut bytes: &[u8]) -> Result<Envelope<'_>, ProtoError> {
    let malformed = || ProtoError::new(ProtoErrorKind::Malformed, "not a protobuf message");
    let mut arm = None;
    let mut body = None;
    let mut once = true;
    let mut future = true;
    let mut unknown = 0usize;
    while !bytes.is_empty() {
        let (field, wt) = tag(&mut bytes).ok_or_else(malformed)?;
        if field <= LAST_ARM {
            match arm {
                Some(a) if a != field => {
                    return Err(ProtoError::new(
                        ProtoErrorKind::TwoArms,
                        format!("the message holds two event arms (fields {a} and {field})"),
                    ));
                }
                Some(_) => once = false,
                None => arm = Some(field),
            }
            if wt == 2 {
                let len = varint(&mut bytes, 5, 15).ok_or_else(malformed)?;
                let len = usize::try_from(len).map_err(|_| malformed())?;
                body = Some(bytes.get(..len).ok_or_else(malformed)?);
                bytes = &bytes[len..];
            } else {
                once = false;
                skip(&mut bytes, field, wt, 0).ok_or_else(malformed)?;
            }
        } else if wt == 2 {
            let len = varint(&mut bytes, 5, 15).ok_or_else(malformed)?;
            let len = usize::try_from(len).map_err(|_| malformed())?;
            let body = bytes.get(..len).ok_or_else(malformed)?;
            future &= walks_as_message(body);
            unknown += 1;
            bytes = &bytes[len..];
        } else {
            future = false;
            skip(&mut bytes, field, wt, 0).ok_or_else(malformed)?;
        }
    }
    Ok(match arm {
        Some(field) => Envelope::Arm(field, body.filter(|_| once)),
        None if future && unknown > 0 => Envelope::Future,
        None => Envelope::Empty,
    })
}

fn read_message(bytes: &[u8], ids: &mut convert::Ids) -> Result<Event, ProtoError> {
    match scan(bytes)? {
        // The direct reader is a speed path for native builds: in the browser module the
        // generated decoder reads every message (the same events; the module's size first,
        // issue 40), and the compiler leaves the direct reader out.
        Envelope::Arm(field, Some(body)) if cfg!(not(target_arch = "wasm32")) => {
            if let Some(event) = direct::decode(field, body, ids) {
                return Ok(event);
            }
        }
        Envelope::Arm(..) => {}
        Envelope::Future => {
            return Err(ProtoError::new(
                ProtoErrorKind::UnknownEventType,
                "the message holds only event arms unknown to AG-UI 1.0",
            ));
        }
        Envelope::Empty => {
            return Err(ProtoError::new(
                ProtoErrorKind::NoArm,
                "the message holds no event arm",
            ));
        }
    }
    let message = generated::Event::decode(bytes)
        .map_err(|e| ProtoError::new(ProtoErrorKind::Malformed, e.to_string()))?;
    let Some(arm) = message.event else {
        return Err(ProtoError::new(
            ProtoErrorKind::NoArm,
            "the message holds no event arm",
        ));
    };
    let (ty, expected, base) = convert::arm_type(&arm);
    let with_type = |mut e: ProtoError| {
        e.event_type = Some(ty);
        e
    };
    let Some(base) = base else {
        return Err(with_type(ProtoError::new(
            ProtoErrorKind::MissingBaseEvent,
            "the event has no base_event",
        )));
    };
    if base.r#type != expected as i32 {
        let declared = generated::EventType::try_from(base.r#type)
            .map_or_else(|_| base.r#type.to_string(), |t| t.as_str_name().to_owned());
        return Err(with_type(ProtoError::new(
            ProtoErrorKind::TypeMismatch,
            format!("base_event.type is {declared}"),
        )));
    }
    convert::from_arm(arm, ids).map_err(|invalid| {
        let mut e = with_type(ProtoError::new(
            ProtoErrorKind::InvalidField,
            invalid.message,
        ));
        e.field = Some(invalid.field);
        e
    })
}

// -------------------------------------------------------------------------------- frames

/// One frame of a protobuf stream, borrowed from its [`FrameDecoder`] until the next call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame<'a> {
    index: u64,
    message: &'a [u8],
}

impl<'a> Frame<'a> {
    /// The zero-based position of the frame in the stream.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// The frame's `ag_ui.Event` message, without its length.
    pub fn message(&self) -> &'a [u8] {
        self.message
    }
}

/// Splits a protobuf stream into [`Frame`]s, incrementally.
///
/// Feed bytes with [`push`](Self::push) in chunks of any size, take frames with
/// [`next_frame`](Self::next_frame) until it returns `Ok(None)`, and call
/// [`finish`](Self::finish) at the end of the input so that a frame cut short is reported. The
/// decoder holds at most one frame (bounded by its maximum) beyond the chunk being read, and
/// reuses its buffer.
///
/// ```
/// use ag_ui::encoding::proto::{FrameDecoder, ProtoErrorKind};
///
/// let mut frames = FrameDecoder::new().with_max_frame_size(16);
/// frames.push(&[0, 0, 0, 2, 0x7a]);
/// assert!(frames.next_frame().unwrap().is_none()); // one byte missing
/// frames.push(&[0x00, 0, 0, 0, 0, 0, 0, 0, 99]);
/// let frame = frames.next_frame().unwrap().unwrap();
/// assert_eq!((frame.index(), frame.message()), (0, &[0x7a, 0x00][..]));
/// let e = frames.next_frame().unwrap_err();
/// assert_eq!((e.kind(), e.index()), (ProtoErrorKind::EmptyFrame, Some(1)));
/// let e = frames.next_frame().unwrap_err();
/// assert_eq!((e.kind(), e.index()), (ProtoErrorKind::TooLarge, Some(2)));
/// ```
#[derive(Debug)]
pub struct FrameDecoder {
    max_frame_size: usize,
    /// Unread input is `buf[pos..]`.
    buf: Vec<u8>,
    pos: usize,
    /// Bytes of an oversized frame still to drop as they arrive.
    skip: usize,
    finished: bool,
    index: u64,
}

impl Default for FrameDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl FrameDecoder {
    /// A decoder with the default limit of [`DEFAULT_MAX_FRAME_SIZE`].
    pub fn new() -> Self {
        Self {
            max_frame_size: DEFAULT_MAX_FRAME_SIZE,
            buf: Vec::new(),
            pos: 0,
            skip: 0,
            finished: false,
            index: 0,
        }
    }

    /// Sets the largest frame accepted, in bytes, its 4-byte length included (the reference
    /// client's rule: `4 + N` must not exceed it).
    #[must_use]
    pub fn with_max_frame_size(mut self, bytes: usize) -> Self {
        self.max_frame_size = bytes;
        self
    }

    /// The largest frame accepted, its length included.
    pub fn max_frame_size(&self) -> usize {
        self.max_frame_size
    }

    /// How many frames have been delivered (or failed) so far.
    pub fn frames(&self) -> u64 {
        self.index
    }

    /// Appends input. Bytes pushed after [`finish`](Self::finish) are ignored.
    pub fn push(&mut self, mut bytes: &[u8]) {
        if self.finished {
            return;
        }
        if self.skip > 0 {
            let n = self.skip.min(bytes.len());
            self.skip -= n;
            bytes = &bytes[n..];
        }
        if self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
        } else if self.pos > 0 && self.pos >= self.buf.len() / 2 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// Marks the end of the input: a frame cut short is then reported by
    /// [`next_frame`](Self::next_frame).
    pub fn finish(&mut self) {
        self.finished = true;
    }

    /// Forgets all input and state, keeping the buffer.
    pub fn reset(&mut self) {
        self.buf.clear();
        self.pos = 0;
        self.skip = 0;
        self.finished = false;
        self.index = 0;
    }

    fn error(&mut self, kind: ProtoErrorKind, message: String) -> ProtoError {
        let index = self.index;
        self.index += 1;
        ProtoError::new(kind, message).at(index)
    }

    /// The next complete frame, `Ok(None)` when more input is needed (or, after
    /// [`finish`](Self::finish), when the stream is exhausted).
    ///
    /// # Errors
    ///
    /// [`ProtoErrorKind::EmptyFrame`] for a zero length, [`ProtoErrorKind::TooLarge`] for a
    /// frame over the maximum (its bytes are dropped), and after `finish`,
    /// [`ProtoErrorKind::Truncated`] for a frame cut short. Each names the frame's index;
    /// reading can go on after the first two.
    pub fn next_frame(&mut self) -> Result<Option<Frame<'_>>, ProtoError> {
        let available = self.buf.len() - self.pos;
        if available < LENGTH_SIZE {
            if self.finished && available > 0 {
                self.pos = self.buf.len();
                return Err(self.error(
                    ProtoErrorKind::Truncated,
                    format!("the stream ended inside a frame's length ({available} of 4 bytes)"),
                ));
            }
            return Ok(None);
        }
        let mut header = [0u8; LENGTH_SIZE];
        header.copy_from_slice(&self.buf[self.pos..self.pos + LENGTH_SIZE]);
        let len = u32::from_be_bytes(header) as usize;
        if len == 0 {
            self.pos += LENGTH_SIZE;
            return Err(self.error(ProtoErrorKind::EmptyFrame, "a frame of length 0".into()));
        }
        if len > self.max_frame_size.saturating_sub(LENGTH_SIZE) {
            self.pos += LENGTH_SIZE;
            let here = len.min(self.buf.len() - self.pos);
            self.pos += here;
            self.skip = len - here;
            let max = self.max_frame_size;
            return Err(self.error(
                ProtoErrorKind::TooLarge,
                format!(
                    "a frame of {} bytes exceeds the limit of {max}",
                    len + LENGTH_SIZE
                ),
            ));
        }
        if available < LENGTH_SIZE + len {
            if self.finished {
                self.pos = self.buf.len();
                return Err(self.error(
                    ProtoErrorKind::Truncated,
                    format!(
                        "the stream ended inside a frame ({} of {len} bytes)",
                        available - LENGTH_SIZE
                    ),
                ));
            }
            return Ok(None);
        }
        let start = self.pos + LENGTH_SIZE;
        self.pos = start + len;
        let index = self.index;
        self.index += 1;
        Ok(Some(Frame {
            index,
            message: &self.buf[start..start + len],
        }))
    }
}

/// Reads a protobuf stream as [`Event`]s, incrementally: a [`FrameDecoder`] and the message
/// reader. Iterate it (or call [`next_event`](Self::next_event)) after each
/// [`push`](Self::push); events that repeat an id share its string.
#[derive(Debug, Default)]
pub struct EventDecoder {
    frames: FrameDecoder,
    ids: convert::Ids,
}

impl EventDecoder {
    /// A decoder with the default frame limit.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the largest frame accepted, in bytes, its length included.
    #[must_use]
    pub fn with_max_frame_size(mut self, bytes: usize) -> Self {
        self.frames = self.frames.with_max_frame_size(bytes);
        self
    }

    /// Appends input.
    pub fn push(&mut self, bytes: &[u8]) {
        self.frames.push(bytes);
    }

    /// Marks the end of the input, so that a frame cut short is reported.
    pub fn finish(&mut self) {
        self.frames.finish();
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
    /// The item is an error naming the frame index when the frame layer fails (see
    /// [`FrameDecoder::next_frame`]) or the frame is no AG-UI 1.0 event (see
    /// [`decode_message`]); [`ProtoErrorKind::UnknownEventType`] may be skipped. Decoding can
    /// go on after any error but a truncated end.
    pub fn next_event(&mut self) -> Option<Result<Event, ProtoError>> {
        match self.frames.next_frame() {
            Err(e) => Some(Err(e)),
            Ok(None) => None,
            Ok(Some(frame)) => {
                let index = frame.index();
                Some(read_message(frame.message(), &mut self.ids).map_err(|e| e.at(index)))
            }
        }
    }
}

impl Iterator for EventDecoder {
    type Item = Result<Event, ProtoError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_event()
    }
}

#[cfg(test)]
mod tests;
