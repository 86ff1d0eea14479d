//! The direct JSON writer (see the [module above](super)).

use std::io::Write;

use serde::de;

use super::next_escape;
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

impl Event {
    /// The event as compact JSON, optional fields without a value left out.
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(128);
        self.write_json(&mut out);
        // Both writers produce UTF-8 from UTF-8 strings.
        String::from_utf8(out).unwrap_or_else(|e| unreachable_json(de::Error::custom(e)))
    }

    /// Appends the event's compact JSON to `out`.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        if crate::json::write_event(self, out) {
            return;
        }
        if let Err(e) = serde_json::to_writer(out, self) {
            unreachable_json(e)
        }
    }
}

/// Serializing an [`Event`] cannot fail: every map key is a string and no `Serialize` impl in
/// the model returns an error. Should that ever change, this panics, in every build: it is a
/// bug of this crate, never a consequence of input.
#[cold]
fn unreachable_json<T>(e: serde_json::Error) -> T {
    panic!("serializing an AG-UI event failed: {e}")
}
