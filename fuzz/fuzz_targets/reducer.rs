//! The client's reading and reducing of arbitrary event sequences: the fuzz input is JSON
//! Lines, each line read by the compatibility stage (legacy `THINKING_*`, lone surrogate halves
//! rejoined across deltas), chunks expanded, and every event applied to a reducer (message
//! building, tool calls, JSON Patch on state, snapshots, outcomes). Nothing panics; an event a
//! stage refuses is skipped and the next one still applies; the conversation stays readable, and
//! its view (`Reducer::messages`) agrees with itself by position, by iteration either way, and
//! with the owned list.
//!
//! The same events also go to a reducer with tight limits (8 levels deep, 64 array items
//! shifted per patch), so that short inputs reach the depth and shift refusals: its state and
//! activity contents never nest deeper than its limit. And they are compacted under those
//! limits: compaction refuses what that reducer refuses, and never panics.

#![no_main]

use ag_ui::client::chunks::ChunkNormalizer;
use ag_ui::client::{Compactor, Compat, Limits, Reducer};
use ag_ui::{Event, Message};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const TIGHT_DEPTH: usize = 8;

/// How deeply arrays and objects nest in `value` (`{}` is 1), without recursion.
fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, above)) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, above + 1))),
            Value::Object(members) => stack.extend(members.values().map(|i| (i, above + 1))),
            _ => continue,
        }
        deepest = deepest.max(above + 1);
    }
    deepest
}

/// The tightly limited reducer and compactor, fed every expanded event.
struct Tight {
    reducer: Reducer,
    compactor: Compactor,
}

impl Tight {
    fn apply(&mut self, event: &Event) {
        let applied = self.reducer.apply(event).is_ok();
        let compacted = self.compactor.push(event.clone());
        // Compaction folds state as the reducer applies it: a state event compaction refuses,
        // the reducer refuses too (the converse does not hold: compaction drops what a later
        // snapshot replaces).
        if compacted.is_err() {
            assert!(!applied, "compaction refused {event:?}, the reducer applied it");
        }
        self.compactor.ready().for_each(drop);
    }
}

fuzz_target!(|data: &[u8]| {
    let mut compat = Compat::new();
    let mut chunks = ChunkNormalizer::new();
    let mut reducer = Reducer::new();
    let limits = Limits::new()
        .with_max_depth(TIGHT_DEPTH)
        .with_max_array_shifts(64)
        .with_max_run_array_shifts(256);
    let mut tight = Tight {
        reducer: Reducer::new().with_limits(limits),
        compactor: Compactor::new().with_limits(limits),
    };
    let mut decoded = Vec::new();
    let mut expanded = Vec::new();
    for line in data.split(|&b| b == b'\n') {
        if compat.decode_into(line, &mut decoded).is_err() {
            continue;
        }
        for event in decoded.drain(..) {
            if chunks.push_into(event, &mut expanded).is_err() {
                continue;
            }
        }
        for event in expanded.drain(..) {
            let _ = reducer.apply(&event);
            tight.apply(&event);
        }
    }
    compat.finish_into(&mut decoded);
    for event in decoded.drain(..) {
        let _ = chunks.push_into(event, &mut expanded);
    }
    chunks.finish_into(&mut expanded);
    for event in expanded.drain(..) {
        let _ = reducer.apply(&event);
        tight.apply(&event);
    }
    assert!(depth(tight.reducer.state()) <= TIGHT_DEPTH);
    for message in tight.reducer.messages().iter() {
        if let Message::Activity(activity) = message {
            let content = Value::Object(activity.content.clone());
            assert!(depth(&content) <= TIGHT_DEPTH);
        }
    }
    for event in tight.compactor.finish() {
        if let Event::StateSnapshot(e) = &event {
            assert!(depth(&e.snapshot) <= TIGHT_DEPTH);
        }
    }
    // The view reads the same by position, forwards and backwards, and as the owned list.
    let messages = reducer.messages();
    assert_eq!(messages.iter().len(), messages.len());
    for (i, message) in messages.iter().enumerate() {
        assert!(reducer.message(message.id().as_str()).is_some());
        assert!(std::ptr::eq(message, &messages[i]));
    }
    assert!(messages.iter().rev().eq(messages.iter().collect::<Vec<_>>().into_iter().rev()));
    assert_eq!(reducer.clone().into_parts().0, messages.to_vec());
    let _ = reducer.state();
});
