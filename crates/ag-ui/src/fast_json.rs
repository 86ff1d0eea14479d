//! Direct JSON reading and writing for the events that make up almost every stream (text,
//! tool call and reasoning fragments, their starts and ends, steps), used by
//! [`crate::Event::write_json`] and [`crate::Event::from_json`].
//!
//! The writer produces exactly the bytes the serde serializer produces (same keys, same order,
//! same string escapes) but skips serde's per-field machinery: keys are constants and strings
//! are scanned eight bytes at a time. The reader takes compact JSON of the covered events with
//! plain strings and integers and builds the event directly; anything else (escapes,
//! whitespace, `rawEvent`, `metadata`, unknown or duplicate keys, a bad value) is left to serde,
//! which accepts or rejects it with a precise error. Property tests hold both to serde: the
//! writer on generated events of every type, the reader on generated and mangled JSON.

use std::io::Write;

use crate::{Content, Event, EventType, MessageId, SubagentRunId, TextMessageRole, ToolCallId};

/// Writes `event` if it is one of the covered shapes; returns `false` (having written nothing)
/// otherwise.
pub(crate) fn write_event(event: &Event, out: &mut Vec<u8>) -> bool {
    if event.raw_event().is_some() || event.metadata().is_some() {
        return false;
    }
    let ts = event.timestamp();
    match event {
        Event::TextMessageStart(e) => {
            head(
                out,
                b"{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":",
                &e.message_id,
            );
            if let Some(role) = e.role {
                out.extend_from_slice(role_json(role));
            }
            opt_str(out, b",\"name\":", e.name.as_deref());
            tail(out, e.subagent_run_id.as_ref(), ts);
        }
        Event::TextMessageContent(e) => {
            head(
                out,
                b"{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":",
                &e.message_id,
            );
            field(out, b",\"delta\":", &e.delta);
            tail(out, e.subagent_run_id.as_ref(), ts);
        }
        Event::TextMessageEnd(e) => {
            head(
                out,
                b"{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":",
                &e.message_id,
            );
            tail(out, e.subagent_run_id.as_ref(), ts);
        }
        Event::TextMessageChunk(e) => {
            out.extend_from_slice(b"{\"type\":\"TEXT_MESSAGE_CHUNK\"");
            opt_str(
                out,
                b",\"messageId\":",
                e.message_id.as_ref().map(MessageId::as_str),
            );
            if let Some(role) = e.role {
                out.extend_from_slice(role_json(role));
            }
            opt_str(out, b",\"delta\":", e.delta.as_deref());
            opt_str(out, b",\"name\":", e.name.as_deref());
            tail(out, e.subagent_run_id.as_ref(), ts);
        }
        Event::ToolCallStart(e) => {
            head(
                out,
                b"{\"type\":\"TOOL_CALL_START\",\"toolCallId\":",
                &e.tool_call_id,
            );
            field(out, b",\"toolCallName\":", &e.tool_call_name);
            opt_str(out, b",\"subagentRunId\":", sub(e.subagent_run_id.as_ref()));
            opt_str(
                out,
                b",\"parentMessageId\":",
                e.parent_message_id.as_ref().map(MessageId::as_str),
            );
            tail(out, None, ts);
        }
        Event::ToolCallArgs(e) => {
            head(
                out,
                b"{\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":",
                &e.tool_call_id,
            );
            field(out, b",\"delta\":", &e.delta);
            tail(out, e.subagent_run_id.as_ref(), ts);
        }
        Event::ToolCallEnd(e) => {
            head(
                out,
                b"{\"type\":\"TOOL_CALL_END\",\"toolCallId\":",
                &e.tool_call_id,
            );
            tail(out, e.subagent_run_id.as_ref(), ts);
        }
        Event::ToolCallChunk(e) => {
            out.extend_from_slice(b"{\"type\":\"TOOL_CALL_CHUNK\"");
            opt_str(
                out,
                b",\"toolCallId\":",
                e.tool_call_id.as_ref().map(|id| id.as_str()),
            );
            opt_str(out, b",\"toolCallName\":", e.tool_call_name.as_deref());
            opt_str(out, b",\"delta\":", e.delta.as_deref());
            opt_str(out, b",\"subagentRunId\":", sub(e.subagent_run_id.as_ref()));
            opt_str(
                out,
                b",\"parentMessageId\":",
                e.parent_message_id.as_ref().map(MessageId::as_str),
            );
            tail(out, None, ts);
        }
        Event::ToolCallResult(e) => {
            let Content::Text(content) = &e.content else {
                return false;
            };
            head(
                out,
                b"{\"type\":\"TOOL_CALL_RESULT\",\"messageId\":",
                &e.message_id,
            );
            field(out, b",\"toolCallId\":", &e.tool_call_id);
            field(out, b",\"content\":", content);
            if e.role.is_some() {
                out.extend_from_slice(b",\"role\":\"tool\"");
            }
            tail(out, e.subagent_run_id.as_ref(), ts);
        }
        Event::StepStarted(e) => {
            head(
                out,
                b"{\"type\":\"STEP_STARTED\",\"stepName\":",
                &e.step_name,
            );
            tail(out, e.subagent_run_id.as_ref(), ts);
        }
        Event::StepFinished(e) => {
            head(
                out,
                b"{\"type\":\"STEP_FINISHED\",\"stepName\":",
                &e.step_name,
            );
            tail(out, e.subagent_run_id.as_ref(), ts);
        }
        Event::ReasoningStart(e) => {
            head(
                out,
                b"{\"type\":\"REASONING_START\",\"messageId\":",
                &e.message_id,
            );
            tail(out, e.subagent_run_id.as_ref(), ts);
        }
        Event::ReasoningMessageStart(e) => {
            head(
                out,
                b"{\"type\":\"REASONING_MESSAGE_START\",\"messageId\":",
                &e.message_id,
            );
            out.extend_from_slice(b",\"role\":\"reasoning\"");
            tail(out, e.subagent_run_id.as_ref(), ts);
        }
        Event::ReasoningMessageContent(e) => {
            head(
                out,
                b"{\"type\":\"REASONING_MESSAGE_CONTENT\",\"messageId\":",
                &e.message_id,
            );
            field(out, b",\"delta\":", &e.delta);
            tail(out, e.subagent_run_id.as_ref(), ts);
        }
        Event::ReasoningMessageEnd(e) => {
            head(
                out,
                b"{\"type\":\"REASONING_MESSAGE_END\",\"messageId\":",
                &e.message_id,
            );
            tail(out, e.subagent_run_id.as_ref(), ts);
        }
        Event::ReasoningMessageChunk(e) => {
            out.extend_from_slice(b"{\"type\":\"REASONING_MESSAGE_CHUNK\"");
            opt_str(
                out,
                b",\"messageId\":",
                e.message_id.as_ref().map(MessageId::as_str),
            );
            opt_str(out, b",\"delta\":", e.delta.as_deref());
            tail(out, e.subagent_run_id.as_ref(), ts);
        }
        Event::ReasoningEnd(e) => {
            head(
                out,
                b"{\"type\":\"REASONING_END\",\"messageId\":",
                &e.message_id,
            );
            tail(out, e.subagent_run_id.as_ref(), ts);
        }
        _ => return false,
    }
    true
}

fn role_json(role: TextMessageRole) -> &'static [u8] {
    match role {
        TextMessageRole::Developer => b",\"role\":\"developer\"",
        TextMessageRole::System => b",\"role\":\"system\"",
        TextMessageRole::Assistant => b",\"role\":\"assistant\"",
        TextMessageRole::User => b",\"role\":\"user\"",
    }
}

fn sub(id: Option<&SubagentRunId>) -> Option<&str> {
    id.map(SubagentRunId::as_str)
}

fn head(out: &mut Vec<u8>, prefix: &[u8], first: &impl AsRef<str>) {
    out.extend_from_slice(prefix);
    write_str(out, first.as_ref());
}

fn field(out: &mut Vec<u8>, key: &[u8], value: &impl AsRef<str>) {
    out.extend_from_slice(key);
    write_str(out, value.as_ref());
}

fn opt_str(out: &mut Vec<u8>, key: &[u8], value: Option<&str>) {
    if let Some(value) = value {
        out.extend_from_slice(key);
        write_str(out, value);
    }
}

/// The attribution (where it is the last declared field), the timestamp, and the closing brace.
fn tail(out: &mut Vec<u8>, sub: Option<&SubagentRunId>, ts: Option<i64>) {
    opt_str(out, b",\"subagentRunId\":", sub.map(SubagentRunId::as_str));
    if let Some(ts) = ts {
        out.extend_from_slice(b",\"timestamp\":");
        // Writing to a Vec cannot fail.
        let _ = write!(out, "{ts}");
    }
    out.push(b'}');
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Whether any of the eight bytes is a control character, `"` or `\`.
#[inline]
fn word_needs_escape(w: u64) -> bool {
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    let q = w ^ (ONES * u64::from(b'"'));
    let quote = q.wrapping_sub(ONES) & !q;
    let b = w ^ (ONES * u64::from(b'\\'));
    let backslash = b.wrapping_sub(ONES) & !b;
    (control | quote | backslash) & HIGH != 0
}

#[inline]
fn byte_needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The position of the next byte at or after `from` that needs an escape.
#[inline]
fn next_escape(bytes: &[u8], mut from: usize) -> Option<usize> {
    while from + 8 <= bytes.len() {
        let mut word = [0; 8];
        word.copy_from_slice(&bytes[from..from + 8]);
        if word_needs_escape(u64::from_le_bytes(word)) {
            break;
        }
        from += 8;
    }
    bytes[from..]
        .iter()
        .position(|&b| byte_needs_escape(b))
        .map(|at| from + at)
}

/// Writes `s` as a JSON string, escaped exactly as `serde_json` escapes it.
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    while let Some(at) = next_escape(bytes, start) {
        out.extend_from_slice(&bytes[start..at]);
        match bytes[at] {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            c => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(c >> 4)]);
                out.push(HEX[usize::from(c & 0xf)]);
            }
        }
        start = at + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Largest magnitude of a `timestamp` (2^53 − 1).
const MAX_SAFE: i64 = 9_007_199_254_740_991;

/// A value the direct reader understands: a string without escapes, or a plain integer.
#[derive(Clone, Copy)]
enum Raw<'a> {
    Str(&'a str),
    Int(i64),
}

/// The members of a compact JSON object, after its leading `"type"` member.
struct Members<'a> {
    keys: [&'a str; 8],
    values: [Raw<'a>; 8],
    len: usize,
    /// Which members were taken; any left over is a key the reader does not handle.
    taken: u8,
}

impl<'a> Members<'a> {
    /// Reads `,"key":value` pairs up to the closing brace at the very end of `json`. `None` for
    /// anything unusual: whitespace, escapes, nested values, floats, more than eight members.
    fn parse(json: &'a str, mut at: usize) -> Option<Self> {
        let bytes = json.as_bytes();
        let mut members = Members {
            keys: [""; 8],
            values: [Raw::Int(0); 8],
            len: 0,
            taken: 0,
        };
        loop {
            match *bytes.get(at)? {
                b'}' if at + 1 == bytes.len() => return Some(members),
                b',' if members.len < 8 => {}
                _ => return None,
            }
            if bytes.get(at + 1) != Some(&b'"') {
                return None;
            }
            let (key, next) = plain_str(json, at + 2)?;
            if bytes.get(next) != Some(&b':') {
                return None;
            }
            at = next + 1;
            let value = match *bytes.get(at)? {
                b'"' => {
                    let (value, next) = plain_str(json, at + 1)?;
                    at = next;
                    Raw::Str(value)
                }
                b'-' | b'0'..=b'9' => {
                    let (value, next) = plain_int(bytes, at)?;
                    at = next;
                    Raw::Int(value)
                }
                _ => return None,
            };
            if members.keys[..members.len].contains(&key) {
                return None; // a duplicate: serde reports it
            }
            members.keys[members.len] = key;
            members.values[members.len] = value;
            members.len += 1;
        }
    }

    fn take(&mut self, key: &str) -> Option<Raw<'a>> {
        let index = self.keys[..self.len].iter().position(|k| *k == key)?;
        self.taken |= 1 << index;
        Some(self.values[index])
    }

    /// A required string member.
    fn string(&mut self, key: &str) -> Option<&'a str> {
        match self.take(key)? {
            Raw::Str(s) => Some(s),
            Raw::Int(_) => None,
        }
    }

    /// An optional string member: `Err` when present with another type.
    fn opt_string<T: From<&'a str>>(&mut self, key: &str) -> Result<Option<T>, ()> {
        match self.take(key) {
            None => Ok(None),
            Some(Raw::Str(s)) => Ok(Some(T::from(s))),
            Some(Raw::Int(_)) => Err(()),
        }
    }

    /// A required id member, shared with the last id read into `slot` when it is the same.
    fn id<T: Id>(&mut self, key: &str, slot: &mut Option<T>) -> Option<T> {
        match self.take(key)? {
            Raw::Str(s) => Some(cached(slot, s)),
            Raw::Int(_) => None,
        }
    }

    /// An optional id member: `Err` when present with another type.
    fn opt_id<T: Id>(&mut self, key: &str, slot: &mut Option<T>) -> Result<Option<T>, ()> {
        match self.take(key) {
            None => Ok(None),
            Some(Raw::Str(s)) => Ok(Some(cached(slot, s))),
            Some(Raw::Int(_)) => Err(()),
        }
    }

    /// Whether every member was taken.
    fn done(&self) -> bool {
        u32::from(self.taken) == (1u32 << self.len) - 1
    }
}

/// The last ids a stream decoder read, by kind. A stream names the same message, tool call and
/// subagent run in event after event; reading an id equal to the last one shares it (a
/// reference count) instead of allocating a copy.
#[derive(Clone, Debug, Default)]
pub(crate) struct IdCache {
    message: Option<MessageId>,
    tool_call: Option<ToolCallId>,
    subagent: Option<SubagentRunId>,
}

/// The id newtypes, for [`cached`].
trait Id: Clone + AsRef<str> + for<'s> From<&'s str> {}
impl<T: Clone + AsRef<str> + for<'s> From<&'s str>> Id for T {}

/// `s` as an id: the one in `slot` when equal, else a new one, remembered in `slot`.
#[inline]
fn cached<T: Id>(slot: &mut Option<T>, s: &str) -> T {
    match slot {
        Some(id) if id.as_ref() == s => id.clone(),
        _ => slot.insert(T::from(s)).clone(),
    }
}

/// A string starting after its opening quote at `at`, without escapes or control characters;
/// returns it and the position after its closing quote.
fn plain_str(json: &str, at: usize) -> Option<(&str, usize)> {
    let bytes = json.as_bytes();
    let end = next_escape(bytes, at)?;
    if bytes[end] != b'"' {
        return None;
    }
    // Both ends are ASCII quotes, so the slice is on character boundaries.
    Some((json.get(at..end)?, end + 1))
}

/// A JSON integer (no fraction, no exponent) within ±(2^53 − 1).
fn plain_int(bytes: &[u8], at: usize) -> Option<(i64, usize)> {
    let negative = bytes[at] == b'-';
    let start = at + usize::from(negative);
    let digits = bytes[start..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 || digits > 16 || (digits > 1 && bytes[start] == b'0') {
        return None;
    }
    let end = start + digits;
    if matches!(bytes.get(end), Some(b'.' | b'e' | b'E')) {
        return None;
    }
    let mut value: i64 = 0;
    for &b in &bytes[start..end] {
        value = value * 10 + i64::from(b - b'0');
    }
    if value > MAX_SAFE {
        return None;
    }
    Some((if negative { -value } else { value }, end))
}

fn text_role(raw: Option<Raw<'_>>) -> Result<Option<TextMessageRole>, ()> {
    match raw {
        None => Ok(None),
        Some(Raw::Str("developer")) => Ok(Some(TextMessageRole::Developer)),
        Some(Raw::Str("system")) => Ok(Some(TextMessageRole::System)),
        Some(Raw::Str("assistant")) => Ok(Some(TextMessageRole::Assistant)),
        Some(Raw::Str("user")) => Ok(Some(TextMessageRole::User)),
        Some(_) => Err(()),
    }
}

/// Reads the common events directly from compact JSON whose `type` member (of type `ty`) ends
/// at `at`. `None` when the event is of another type or shape, or anything about it is
/// unusual; the caller then reads it with serde, which accepts or rejects it with a precise
/// error. What this returns is exactly what serde would.
pub(crate) fn read_event(json: &str, at: usize, ty: EventType, ids: &mut IdCache) -> Option<Event> {
    use crate::event::*;
    let mut m = Members::parse(json, at)?;
    let mut event: Event = match ty {
        EventType::TextMessageStart => {
            let mut e = TextMessageStartEvent::new(m.id("messageId", &mut ids.message)?);
            e.role = text_role(m.take("role")).ok()?;
            e.name = m.opt_string("name").ok()?;
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::TextMessageContent => {
            let mut e = TextMessageContentEvent::new(
                m.id("messageId", &mut ids.message)?,
                m.string("delta")?,
            );
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::TextMessageEnd => {
            let mut e = TextMessageEndEvent::new(m.id("messageId", &mut ids.message)?);
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::TextMessageChunk => {
            let mut e = TextMessageChunkEvent::new();
            e.message_id = m.opt_id("messageId", &mut ids.message).ok()?;
            e.role = text_role(m.take("role")).ok()?;
            e.delta = m.opt_string("delta").ok()?;
            e.name = m.opt_string("name").ok()?;
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::ToolCallStart => {
            let mut e = ToolCallStartEvent::new(
                m.id("toolCallId", &mut ids.tool_call)?,
                m.string("toolCallName")?,
            );
            e.parent_message_id = m.opt_id("parentMessageId", &mut ids.message).ok()?;
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::ToolCallArgs => {
            let mut e =
                ToolCallArgsEvent::new(m.id("toolCallId", &mut ids.tool_call)?, m.string("delta")?);
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::ToolCallEnd => {
            let mut e = ToolCallEndEvent::new(m.id("toolCallId", &mut ids.tool_call)?);
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::ReasoningStart => {
            let mut e = ReasoningStartEvent::new(m.id("messageId", &mut ids.message)?);
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::ReasoningMessageStart => {
            if !matches!(m.take("role"), Some(Raw::Str("reasoning"))) {
                return None;
            }
            let mut e = ReasoningMessageStartEvent::new(m.id("messageId", &mut ids.message)?);
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::ReasoningMessageContent => {
            let mut e = ReasoningMessageContentEvent::new(
                m.id("messageId", &mut ids.message)?,
                m.string("delta")?,
            );
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::ReasoningMessageEnd => {
            let mut e = ReasoningMessageEndEvent::new(m.id("messageId", &mut ids.message)?);
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::ReasoningEnd => {
            let mut e = ReasoningEndEvent::new(m.id("messageId", &mut ids.message)?);
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        _ => return None,
    };
    match m.take("timestamp") {
        None => {}
        Some(Raw::Int(ts)) => *event.timestamp_mut() = Some(ts),
        Some(Raw::Str(_)) => return None,
    }
    // Unknown members are ignored by serde; leave them (and the warnings about them) to it.
    m.done().then_some(event)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_escape_like_serde_json() {
        let mut all = String::new();
        for c in (0u32..0x80).chain([0xe9, 0x2028, 0x1f389]) {
            all.push(char::from_u32(c).unwrap());
        }
        let samples = [
            "",
            "plain",
            "exactly8",
            "sixteen bytes ok",
            "quote\" at 6",
            "a longer string with a \\ backslash after eight",
            all.as_str(),
        ];
        for s in samples {
            let mut ours = Vec::new();
            write_str(&mut ours, s);
            assert_eq!(
                String::from_utf8(ours).unwrap(),
                serde_json::to_string(s).unwrap()
            );
        }
        for b in 0u8..=255 {
            let w = u64::from_le_bytes([b'a', b'b', b'c', b, b'd', b'e', b'f', b'g']);
            assert_eq!(word_needs_escape(w), byte_needs_escape(b), "{b}");
        }
    }

    mod reader {
        use super::super::*;
        use proptest::prelude::*;

        const TYPES: &[&str] = &[
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "TEXT_MESSAGE_CHUNK",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "REASONING_START",
            "REASONING_MESSAGE_START",
            "REASONING_MESSAGE_CONTENT",
            "REASONING_MESSAGE_END",
            "REASONING_END",
            "STEP_STARTED",
        ];
        const KEYS: &[&str] = &[
            "messageId",
            "delta",
            "role",
            "name",
            "subagentRunId",
            "timestamp",
            "toolCallId",
            "toolCallName",
            "parentMessageId",
            "type",
            "extra",
            "rawEvent",
            "message\\u0049d",
        ];
        const VALUES: &[&str] = &[
            "\"m1\"",
            "\"\"",
            "\"héllo ✓\"",
            "\"a\\\"b\"",
            "\"tab\there\"",
            "\"assistant\"",
            "\"user\"",
            "\"reasoning\"",
            "\"tool\"",
            "0",
            "-0",
            "17",
            "-42",
            "007",
            "1.5",
            "1e3",
            "9007199254740991",
            "9007199254740992",
            "-9007199254740991",
            "null",
            "true",
            "{}",
            "[]",
        ];

        fn member() -> impl Strategy<Value = String> {
            (prop::sample::select(KEYS), prop::sample::select(VALUES))
                .prop_map(|(k, v)| format!(",\"{k}\":{v}"))
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4096))]

            /// Whatever the direct reader accepts, serde reads to the same event.
            #[test]
            fn the_direct_reader_agrees_with_serde(
                ty in prop::sample::select(TYPES),
                members in prop::collection::vec(member(), 0..5),
                tail in prop::sample::select(vec!["}", "} ", "", ",}", "}}"]),
            ) {
                let json = format!("{{\"type\":\"{ty}\"{}{tail}", members.concat());
                let ty: EventType = ty.parse().unwrap();
                let at = 9 + ty.as_str().len() + 1;
                let mut ids = IdCache::default();
                if let Some(fast) = read_event(&json, at, ty, &mut ids) {
                    let mut de = serde_json::Deserializer::from_str(&json);
                    let slow = Event::deserialize_as(ty, &mut de).and_then(|e| de.end().map(|()| e));
                    prop_assert_eq!(Some(&fast), slow.as_ref().ok(), "{}", json);
                    // Read again, now sharing the ids of the first reading: the same event.
                    prop_assert_eq!(read_event(&json, at, ty, &mut ids), Some(fast), "{}", json);
                }
            }
        }

        #[test]
        fn the_direct_reader_takes_the_common_shapes() {
            for json in [
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","subagentRunId":"s","timestamp":-5}"#,
                r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"n","parentMessageId":"m"}"#,
                r#"{"type":"REASONING_MESSAGE_START","messageId":"m","role":"reasoning"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK"}"#,
            ] {
                let ty: EventType = json[9..].split('"').next().unwrap().parse().unwrap();
                let fast = read_event(json, 9 + ty.as_str().len() + 1, ty, &mut IdCache::default());
                assert!(fast.is_some(), "{json}");
                assert_eq!(fast.unwrap().to_json(), json);
            }
            for json in [
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\nb"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","metadata":{}}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","extra":1}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m"}"#,
            ] {
                let ty = EventType::TextMessageContent;
                assert!(
                    read_event(json, 9 + ty.as_str().len() + 1, ty, &mut IdCache::default())
                        .is_none(),
                    "{json}"
                );
            }
        }
    }
}
