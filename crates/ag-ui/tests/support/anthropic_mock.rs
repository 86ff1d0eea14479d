//! The events of a streamed Anthropic Messages API answer (`POST /v1/messages`, SSE with an
//! `event:` line per frame), for the mock provider of `openai_mock.rs` (`serve_at`). Shaped
//! like Anthropic's documented stream: `message_start`, then per content block
//! `content_block_start`, its deltas and `content_block_stop`, then `message_delta` (the stop
//! reason and the output tokens) and `message_stop`. Used by crates/ag-ui-rig's tests, which
//! include this file by path.

use serde_json::{Value, json};

/// An SSE body: one frame per event, named by its `type`.
pub fn sse(events: &[Value]) -> Vec<Vec<u8>> {
    events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or("")).into_bytes())
        .collect()
}

/// `message_start`, reporting `input` prompt tokens.
pub fn start(input: u64) -> Value {
    json!({"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-mock",
        "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": input, "output_tokens": 1}}})
}

/// `content_block_start` of a text block at `index`.
pub fn text_block(index: u32) -> Value {
    json!({"type": "content_block_start", "index": index,
           "content_block": {"type": "text", "text": ""}})
}

/// A `text_delta` of block `index`.
pub fn text(index: u32, text: &str) -> Value {
    json!({"type": "content_block_delta", "index": index,
           "delta": {"type": "text_delta", "text": text}})
}

/// `content_block_start` of a thinking block at `index`.
pub fn thinking_block(index: u32) -> Value {
    json!({"type": "content_block_start", "index": index,
           "content_block": {"type": "thinking", "thinking": "", "signature": ""}})
}

/// A `thinking_delta` of block `index`.
pub fn thinking(index: u32, text: &str) -> Value {
    json!({"type": "content_block_delta", "index": index,
           "delta": {"type": "thinking_delta", "thinking": text}})
}

/// The `signature_delta` that ends a thinking block.
pub fn signature(index: u32) -> Value {
    json!({"type": "content_block_delta", "index": index,
           "delta": {"type": "signature_delta", "signature": "c2lnbmF0dXJl"}})
}

/// `content_block_start` of a `tool_use` block at `index`.
pub fn tool_block(index: u32, id: &str, name: &str) -> Value {
    json!({"type": "content_block_start", "index": index,
           "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})
}

/// An `input_json_delta` of block `index`: a piece of the call's arguments.
pub fn arguments(index: u32, json: &str) -> Value {
    json!({"type": "content_block_delta", "index": index,
           "delta": {"type": "input_json_delta", "partial_json": json}})
}

/// `content_block_stop` of block `index`.
pub fn stop_block(index: u32) -> Value {
    json!({"type": "content_block_stop", "index": index})
}

/// `message_delta` with the stop reason (`end_turn`, `tool_use`, `max_tokens`) and `output`
/// tokens, then `message_stop`.
pub fn finish(reason: &str, output: u64) -> [Value; 2] {
    [
        json!({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": null},
               "usage": {"output_tokens": output}}),
        json!({"type": "message_stop"}),
    ]
}

/// An error answer's body: `{"type": "error", "error": {"type": kind, "message": message}}`.
pub fn error_body(kind: &str, message: &str) -> String {
    json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
}
