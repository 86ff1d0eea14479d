//! Hostile state documents: shapes that are small per event but large or deep in what they
//! build (the library's hostile tests and the fuzz seed corpora build from these).

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
