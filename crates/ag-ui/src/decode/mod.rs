//! Reading events from JSON, with errors that say what was wrong.
//!
//! [`Event::from_slice`] is the fast path the transports use: it reads the `type` key, then
//! deserializes the matching event struct straight from the bytes. Only when that fails does it
//! read again, slowly, to say what was wrong; the path of the offending field is found from
//! where serde_json raised its error (`decode::path`).
//!
//! ```
//! use ag_ui::{DecodeErrorKind, Event};
//!
//! let err = Event::from_json(r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","metadata":null}"#)
//!     .unwrap_err();
//! assert_eq!(err.kind(), DecodeErrorKind::InvalidField);
//! assert_eq!(err.event_type(), Some("TEXT_MESSAGE_START"));
//! assert_eq!(err.field(), Some("metadata"));
//!
//! let err = Event::from_json(r#"{"type":"FUTURE_EVENT"}"#).unwrap_err();
//! assert_eq!(err.kind(), DecodeErrorKind::UnknownEventType);
//! ```

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

use crate::json::IdCache;
use crate::{Event, EventType};

pub(crate) mod path;
pub(crate) mod strip;

/// What kind of problem a [`DecodeError`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The bytes are not JSON (or are truncated).
    Syntax,
    /// The JSON is not an object.
    NotAnObject,
    /// The object has no non-empty string `type`.
    MissingType,
    /// `type` names no AG-UI 1.0 event. Readers may skip such events with a warning, as the
    /// reference client does; [`DecodeError::event_type`] gives the name.
    UnknownEventType,
    /// A known event with a missing, mistyped or `null`-where-forbidden field.
    InvalidField,
    /// A transport frame exceeded the configured size limit.
    TooLarge,
    /// A transport-level framing error (e.g. a protobuf frame cut short).
    Framing,
}

impl DecodeErrorKind {
    /// A stable name for the kind (`"schema.invalid"` for [`Self::InvalidField`], as the
    /// protocol's rule catalogue names it).
    pub fn as_str(self) -> &'static str {
        match self {
            DecodeErrorKind::Syntax => "decode.syntax",
            DecodeErrorKind::NotAnObject => "decode.not-an-object",
            DecodeErrorKind::MissingType => "decode.missing-type",
            DecodeErrorKind::UnknownEventType => "decode.unknown-event-type",
            DecodeErrorKind::InvalidField => "schema.invalid",
            DecodeErrorKind::TooLarge => "decode.too-large",
            DecodeErrorKind::Framing => "decode.framing",
        }
    }
}

/// An event could not be read. Names the event type and the field when they are known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    kind: DecodeErrorKind,
    event_type: Option<String>,
    field: Option<String>,
    index: Option<u64>,
    message: String,
}

impl DecodeError {
    /// A new error.
    pub fn new(kind: DecodeErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            event_type: None,
            field: None,
            index: None,
            message: message.into(),
        }
    }

    /// Adds the event type the error concerns.
    #[must_use]
    pub fn with_event_type(mut self, event_type: impl Into<String>) -> Self {
        self.event_type = Some(event_type.into());
        self
    }

    /// Adds the zero-based position of the event (or transport frame) in its stream.
    #[must_use]
    pub fn with_index(mut self, index: u64) -> Self {
        self.index = Some(index);
        self
    }

    /// The zero-based position of the event (or transport frame) in its stream, when the error
    /// came from a stream decoder.
    pub fn index(&self) -> Option<u64> {
        self.index
    }

    /// What went wrong, to match on.
    pub fn kind(&self) -> DecodeErrorKind {
        self.kind
    }

    /// The `type` of the event, when it was readable.
    pub fn event_type(&self) -> Option<&str> {
        self.event_type.as_deref()
    }

    /// The path of the offending field (`messageId`, `input.messages[0].content`), when known.
    pub fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }

    /// The underlying message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(index) = self.index {
            write!(f, "event #{index}: ")?;
        }
        // The type, the field path and the message quote the input: bounded excerpts.
        use crate::{EXCERPT_BYTES, EXCERPT_LIST_BYTES, excerpt};
        let message = excerpt(&self.message, EXCERPT_LIST_BYTES);
        match (&self.event_type, &self.field) {
            (Some(t), Some(field)) => write!(
                f,
                "{}: field `{}`: {message}",
                excerpt(t, EXCERPT_BYTES),
                excerpt(field, EXCERPT_BYTES)
            ),
            (Some(t), None) => write!(f, "{}: {message}", excerpt(t, EXCERPT_BYTES)),
            (None, _) => f.write_str(&message),
        }
    }
}

impl std::error::Error for DecodeError {}

#[derive(Deserialize)]
struct TypeProbe<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
}

fn syntax(e: serde_json::Error) -> DecodeError {
    DecodeError::new(DecodeErrorKind::Syntax, format!("invalid JSON: {e}"))
}

fn not_an_object() -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::NotAnObject,
        "the event is not a JSON object",
    )
}

fn missing_type() -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::MissingType,
        "the event carries no event type",
    )
}

/// The fast path of the type probe: `{"type":"NAME"` at the very start, as every AG-UI encoder
/// writes events. Anything else (whitespace, another key first, escapes) takes the full probe.
fn leading_type(bytes: &[u8]) -> Option<&str> {
    let rest = bytes.strip_prefix(b"{\"type\":\"")?;
    let end = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
    if rest[end] != b'"' {
        return None;
    }
    std::str::from_utf8(&rest[..end]).ok()
}

/// [`leading_type`] of a string, without checking it again.
#[inline]
fn leading_type_str(json: &str) -> Option<&str> {
    let rest = json.strip_prefix("{\"type\":\"")?;
    let end = rest.bytes().position(|b| b == b'"' || b == b'\\')?;
    // `end` is at an ASCII byte, so on a character boundary.
    (rest.as_bytes()[end] == b'"')
        .then(|| rest.get(..end))
        .flatten()
}

/// Resolves a `type` string to an [`EventType`], or the matching error.
fn resolve(ty: Option<&str>) -> Result<EventType, DecodeError> {
    match ty {
        None | Some("") => Err(missing_type()),
        Some(name) => name.parse::<EventType>().map_err(|_| {
            DecodeError::new(
                DecodeErrorKind::UnknownEventType,
                format!(
                    "unknown event type {:?}",
                    crate::excerpt(name, crate::EXCERPT_BYTES)
                ),
            )
            .with_event_type(name)
        }),
    }
}

/// Turns serde_json's error in reading a `ty`, about the value at `path`, into a
/// [`DecodeError`] naming the field.
fn invalid(ty: EventType, path: &str, err: &serde_json::Error) -> DecodeError {
    let (field, message) = locate(path, &err.to_string());
    DecodeError {
        kind: DecodeErrorKind::InvalidField,
        event_type: Some(ty.as_str().to_owned()),
        field,
        index: None,
        message,
    }
}

/// Splits a serde error into the path of the offending field and the message.
///
/// `path` is the value the error is about ([`path::error_path`], `.` for the root). Errors
/// raised inside arrays that are read element by element start with the element's own path
/// (`[3].content: …`); a missing field is reported by serde at its parent, so its name is
/// lifted out of the message.
pub(crate) fn locate(path: &str, text: &str) -> (Option<String>, String) {
    let mut field = if path == "." {
        String::new()
    } else {
        path.to_owned()
    };
    let mut rest = text;
    while rest.starts_with('[') {
        match rest.split_once(": ") {
            Some((element, remainder)) => {
                field.push_str(element);
                rest = remainder;
            }
            None => break,
        }
    }
    if let Some(name) = rest
        .strip_prefix("missing field `")
        .and_then(|r| r.split('`').next())
    {
        if !field.is_empty() {
            field.push('.');
        }
        field.push_str(name);
    }
    let message = rest.split(" at line ").next().unwrap_or(rest).to_owned();
    ((!field.is_empty()).then_some(field), message)
}

/// How [`repair_surrogates`] rewrites a lone UTF-16 surrogate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lone {
    /// As U+FFFD, as a UTF-8 encoder (and the reference client's display) renders it.
    Replace,
    /// As the private-use character [`SURROGATE_MARK`] + (surrogate − 0xD800), so that a caller
    /// comparing with the [`Lone::Replace`] reading can tell which half it was.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    Mark,
}

/// The first of the 2048 private-use characters (plane 15) [`Lone::Mark`] writes.
#[cfg_attr(not(feature = "client"), allow(dead_code))]
pub(crate) const SURROGATE_MARK: u32 = 0xF_0000;

/// The value of four hex digits, if they are.
fn hex4(digits: &[u8]) -> Option<u16> {
    let digits = std::str::from_utf8(digits.get(..4)?).ok()?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(digits, 16).ok()
}

/// Rewrites every `\uXXXX` escape of a lone UTF-16 surrogate in `json` (a high half not
/// followed by an escaped low half, or a low half not preceded by a high one) as `lone` says;
/// `None` when there is none. JavaScript producers that cut text by code units send such
/// halves; `JSON.parse` accepts them, serde_json does not, and a Rust string cannot hold them.
///
/// Backslashes only occur inside JSON strings, so the scan needs no other parsing; anything
/// malformed is left for the JSON reader to report.
pub(crate) fn repair_surrogates(json: &[u8], lone: Lone) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    let mut i = 0;
    // `i` may step past the end (a backslash as the last byte), so take the rest with `get`.
    while let Some(offset) = json
        .get(i..)
        .and_then(|rest| rest.iter().position(|&b| b == b'\\'))
    {
        i += offset;
        if json.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let Some(unit) = hex4(&json[i + 2..]) else {
            i += 2;
            continue;
        };
        let paired = match unit {
            0xD800..=0xDBFF => {
                json.get(i + 6..i + 8) == Some(b"\\u".as_slice())
                    && hex4(&json[i + 8..]).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low))
            }
            0xDC00..=0xDFFF => false,
            _ => {
                i += 6;
                continue;
            }
        };
        if paired {
            i += 12;
            continue;
        }
        let buf = out.get_or_insert_with(|| Vec::with_capacity(json.len() + 8));
        buf.extend_from_slice(&json[copied..i]);
        match lone {
            Lone::Replace => buf.extend_from_slice(b"\\uFFFD"),
            Lone::Mark => {
                let mark = char::from_u32(SURROGATE_MARK + u32::from(unit - 0xD800))
                    .unwrap_or(char::REPLACEMENT_CHARACTER);
                buf.extend_from_slice(mark.encode_utf8(&mut [0; 4]).as_bytes());
            }
        }
        i += 6;
        copied = i;
    }
    let mut buf = out?;
    buf.extend_from_slice(&json[copied..]);
    Some(buf)
}

/// `json` with every escape of a lone UTF-16 surrogate read as U+FFFD (`None` when it has
/// none), as the decoder reads an event: for JSON that JavaScript's `JSON.stringify` wrote from
/// strings cut by code units, which serde_json refuses.
pub fn repair_lone_surrogates(json: &[u8]) -> Option<Vec<u8>> {
    repair_surrogates(json, Lone::Replace)
}

impl Event {
    /// Reads one event from JSON bytes.
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] naming what was wrong: invalid JSON, not an object, no `type`, an
    /// unknown `type`, or an invalid field of a known event (with its path).
    ///
    /// An escaped lone UTF-16 surrogate (`"\\ud83d"` without its other half), which
    /// JavaScript's `JSON.parse` accepts, reads as U+FFFD: a Rust string cannot hold it. The
    /// client pipeline's `client::compat::Compat::decode_into`
    /// rejoins halves split across consecutive deltas.
    #[inline]
    pub fn from_slice(bytes: &[u8]) -> Result<Event, DecodeError> {
        match std::str::from_utf8(bytes) {
            Ok(json) => Event::from_json(json),
            Err(_) => Event::decode_slow(bytes),
        }
    }

    /// Reads one event from a JSON string. See [`Event::from_slice`].
    ///
    /// # Errors
    ///
    /// As [`Event::from_slice`].
    #[inline]
    pub fn from_json(json: &str) -> Result<Event, DecodeError> {
        Event::from_json_sharing(json, &mut IdCache::default())
    }

    /// [`Event::from_json`] for a stream decoder: ids equal to the last ones read share them.
    #[inline]
    pub(crate) fn from_json_sharing(json: &str, ids: &mut IdCache) -> Result<Event, DecodeError> {
        // The fast path: `type` first, as encoders write it, and a valid event (the direct
        // reader, else serde through `deserialize_event`). Anything else takes the slow path,
        // which names what is wrong.
        if let Some(name) = leading_type_str(json)
            && let Ok(ty) = name.parse::<EventType>()
        {
            // After `{"type":"` and the name, the closing quote.
            let after_type = 9 + name.len() + 1;
            if let Some(event) = crate::json::read_event(json, after_type, ty, ids) {
                return Ok(event);
            }
            let mark = strip::mark();
            if let Ok(event) = Event::deserialize_event(ty, json.as_bytes()) {
                return Ok(event);
            }
            // What the failed read recorded, the slow path reads again.
            strip::rollback(mark);
        }
        Event::decode_slow(json.as_bytes())
    }

    /// The event of type `ty` read from `bytes` by serde; when it is not one, the error names
    /// the bad field (or is the syntax error). Every reader of events comes here, whatever
    /// its input (a string, bytes, or, on wasm32, a [`Value`] written out first), so the event
    /// structs' deserializers are instantiated for serde_json's reader over bytes: each further
    /// reader would add a copy of all of them to the binary, the browser module's largest
    /// part. One plain reading names the bad field too: its path is found from where
    /// serde_json raised the error ([`path::error_path`]), with no path-tracking reader.
    fn deserialize_event(ty: EventType, bytes: &[u8]) -> Result<Event, DecodeError> {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        match Event::deserialize_as(ty, &mut de).and_then(|event| de.end().map(|()| event)) {
            Ok(event) => Ok(event),
            // Truncated or malformed JSON (a leading `type` skipped the full probe).
            Err(e) if e.is_syntax() || e.is_eof() => Err(syntax(e)),
            Err(e) => {
                let read = |text: &[u8]| {
                    let mut de = serde_json::Deserializer::from_slice(text);
                    Event::deserialize_as(ty, &mut de).map(drop)
                };
                Err(invalid(ty, &path::error_path(bytes, &e, &read), &e))
            }
        }
    }

    /// Decodes `bytes`, reporting the first problem precisely. Escapes of lone UTF-16
    /// surrogates, which serde_json rejects and `JSON.parse` accepts, read as U+FFFD.
    #[cold]
    #[inline(never)]
    fn decode_slow(bytes: &[u8]) -> Result<Event, DecodeError> {
        match repair_surrogates(bytes, Lone::Replace) {
            Some(repaired) => Event::decode_checked(&repaired),
            None => Event::decode_checked(bytes),
        }
    }

    /// [`Event::decode_slow`] once lone surrogates are dealt with.
    fn decode_checked(bytes: &[u8]) -> Result<Event, DecodeError> {
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
        if first != Some(&b'{') {
            return Err(match serde_json::from_slice::<de::IgnoredAny>(bytes) {
                Err(e) => syntax(e),
                Ok(_) => not_an_object(),
            });
        }
        let ty = match leading_type(bytes) {
            Some(name) => resolve(Some(name))?,
            None => match serde_json::from_slice::<TypeProbe<'_>>(bytes) {
                Ok(probe) => resolve(probe.ty.as_deref())?,
                Err(e) if e.is_data() => return Err(missing_type()),
                Err(e) => return Err(syntax(e)),
            },
        };
        Event::deserialize_event(ty, bytes)
    }

    /// Reads one event from a parsed JSON value.
    ///
    /// # Errors
    ///
    /// As [`Event::from_slice`], except that the value is already valid JSON.
    pub fn from_value(value: &Value) -> Result<Event, DecodeError> {
        let Value::Object(map) = value else {
            return Err(not_an_object());
        };
        let ty = match map.get("type") {
            Some(Value::String(name)) => resolve(Some(name))?,
            _ => return Err(missing_type()),
        };
        // Natively the value is read as it is; only one that is not a valid event is written
        // out, to be read by the bytes' reader, which names the bad field. On wasm32, where size
        // comes first, every value takes that way: the event structs' deserializers are in the
        // browser module once (see `deserialize_event`). A value's keys are unique either way.
        #[cfg(not(target_arch = "wasm32"))]
        {
            let mark = strip::mark();
            if let Ok(event) = Event::deserialize_as(ty, value) {
                return Ok(event);
            }
            // What the failed read recorded, the second read records again.
            strip::rollback(mark);
        }
        let bytes = serde_json::to_vec(value).map_err(syntax)?;
        Event::deserialize_event(ty, &bytes)
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Event::from_value(&value).map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_inside_arrays_name_the_element_path() {
        let err = Event::from_json(
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"user","content":"x"},{"id":"b","role":"user"}]}"#,
        )
        .unwrap_err();
        assert_eq!(err.field(), Some("messages[1].content"), "{err}");
        let err = Event::from_json(
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"b","role":"user","content":[{"type":"text"}]}]}"#,
        )
        .unwrap_err();
        assert_eq!(err.field(), Some("messages[0].content[0].text"), "{err}");
        let err = Event::from_json(r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a"}]}"#)
            .unwrap_err();
        assert_eq!(err.field(), Some("delta[0].value"), "{err}");
        assert_eq!(err.message(), "missing field `value`");
    }

    /// Found by the `event_from_slice` fuzz target: a backslash as the last byte made the
    /// lone-surrogate scan slice past the end and panic.
    #[test]
    fn a_trailing_backslash_is_a_syntax_error_not_a_panic() {
        let cases: [(&[u8], bool); 6] = [
            (br#"{{""type":"REASONIFG_START",ssageId":"r1type":"TEXT_MES","sSAGE_Cdelt?"ubag:2\"#, false),
            (br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\"#, false),
            (br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\u"#, false),
            (br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud83d\"#, true),
            (br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud83d\u"#, true),
            (b"\\", false),
        ];
        for (input, lone) in cases {
            let err = Event::from_slice(input).unwrap_err();
            assert_eq!(err.kind(), DecodeErrorKind::Syntax, "{err}");
            assert_eq!(repair_surrogates(input, Lone::Mark).is_some(), lone);
        }
    }
}
