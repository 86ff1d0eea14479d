//! Hostile state documents: shapes that are small per event but large or deep in what they
//! build (the library's hostile tests and the fuzz seed corpora build from these); and hostile
//! streams that the library's and the command's tests both answer with (the command's tests
//! include this file by path).

#![allow(dead_code, unreachable_pub)]

use ag_ui::Event;
use serde_json::{Value, json};

/// The snapshot the nesting starts from: `{"a": {}}`, two levels deep.
pub fn nesting_seed() -> Event {
    Event::state_snapshot(json!({"a": {}}))
}

/// The patch that nests the state one level deeper: `add /b {}`, `move /a` to `/b/a`,
/// `move /b` to `/a` (no operation is large or deep; the document is).
pub fn nest_once() -> Value {
    json!([
        {"op": "add", "path": "/b", "value": {}},
        {"op": "move", "from": "/a", "path": "/b/a"},
        {"op": "move", "from": "/b", "path": "/a"},
    ])
}

/// `levels` `STATE_DELTA` events, each nesting the state one level deeper.
pub fn nesting_deltas(levels: usize) -> impl Iterator<Item = Event> {
    let event = Event::from_value(&json!({"type": "STATE_DELTA", "delta": nest_once()}))
        .expect("a valid STATE_DELTA");
    std::iter::repeat_n(event, levels)
}

/// A state `{"a": [0, 1, …]}` of `items` numbers.
pub fn long_array(items: usize) -> Event {
    Event::state_snapshot(json!({"a": (0..items).collect::<Vec<_>>()}))
}

/// One `STATE_DELTA` of `ops` front removes (`remove /a/0`).
pub fn front_removes(ops: usize) -> Event {
    let ops: Vec<Value> = (0..ops)
        .map(|_| json!({"op": "remove", "path": "/a/0"}))
        .collect();
    Event::from_value(&json!({"type": "STATE_DELTA", "delta": ops})).expect("a valid STATE_DELTA")
}

/// The nesting depth of `value` (a scalar is 0, `{}` 1), without recursion.
pub fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, above)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(members) => Box::new(members.values()),
            _ => continue,
        };
        deepest = deepest.max(above + 1);
        stack.extend(children.map(|c| (c, above + 1)));
    }
    deepest
}

/// The size of the text delta of [`oversized_frame_response`]: 11 MiB, past the default
/// 10 MiB frame limit.
pub const OVERSIZED_DELTA: usize = 11 * 1024 * 1024;

/// Issue 41's reproducer of the frame-limit bug, as a whole HTTP response (connection closed
/// after it): `retry: 100` when `retry`, then `RUN_STARTED`, `TEXT_MESSAGE_START` and a
/// `TEXT_MESSAGE_CONTENT` whose delta is [`OVERSIZED_DELTA`] bytes, each one SSE frame, with
/// `id: r:0`, `id: r:1`, `id: r:2` when `ids` (numbered from 0, as some servers do).
pub fn oversized_frame_response(retry: bool, ids: bool) -> Vec<u8> {
    let mut out =
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n".to_vec();
    if retry {
        out.extend_from_slice(b"retry: 100\n\n");
    }
    let events = [
        Event::run_started("t", "r"),
        Event::text_message_start("m", ag_ui::TextMessageRole::Assistant),
        Event::text_message_content("m", "x".repeat(OVERSIZED_DELTA)),
    ];
    for (seq, event) in events.iter().enumerate() {
        if ids {
            out.extend_from_slice(format!("id: r:{seq}\n").as_bytes());
        }
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(&serde_json::to_vec(event).expect("an event serializes"));
        out.extend_from_slice(b"\n\n");
    }
    out
}
