//! A direct JSON writer for the events that make up almost every stream (text, tool call and
//! reasoning fragments, their starts and ends, steps), used by [`crate::Event::write_json`].
//!
//! It writes exactly the bytes the serde serializer writes (same keys, same order, same string
//! escapes) — a property test compares both on generated events of every type — but skips
//! serde's per-field machinery: keys are constants and strings are scanned eight bytes at a
//! time. Events it does not cover (or that carry `rawEvent` or `metadata`) go through serde.

use std::io::Write;

use crate::{Content, Event, MessageId, SubagentRunId, TextMessageRole};

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
}
