//! The client's reading and reducing of arbitrary event sequences: the fuzz input is JSON
//! Lines, each line read by the compatibility stage (legacy `THINKING_*`, lone surrogate halves
//! rejoined across deltas), chunks expanded, and every event applied to a reducer (message
//! building, tool calls, JSON Patch on state, snapshots, outcomes). Nothing panics; an event a
//! stage refuses is skipped and the next one still applies; the conversation stays readable, and
//! its view (`Reducer::messages`) agrees with itself by position, by iteration either way, and
//! with the owned list.

#![no_main]

use ag_ui::client::Reducer;
use ag_ui::client::chunks::ChunkNormalizer;
use ag_ui::client::compat::Compat;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut compat = Compat::new();
    let mut chunks = ChunkNormalizer::new();
    let mut reducer = Reducer::new();
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
        }
    }
    compat.finish_into(&mut decoded);
    for event in decoded.drain(..) {
        let _ = chunks.push_into(event, &mut expanded);
    }
    chunks.finish_into(&mut expanded);
    for event in expanded.drain(..) {
        let _ = reducer.apply(&event);
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
