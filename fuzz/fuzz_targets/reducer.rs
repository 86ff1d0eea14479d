//! The client's reading and reducing of arbitrary event sequences: the fuzz input is JSON
//! Lines, each line read by the compatibility stage (legacy `THINKING_*`, lone surrogate halves
//! rejoined across deltas), chunks expanded, and every event applied to a reducer (message
//! building, tool calls, JSON Patch on state, snapshots, outcomes). Nothing panics; an event a
//! stage refuses is skipped and the next one still applies; the conversation stays readable.

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
    for message in reducer.messages() {
        assert!(reducer.message(message.id().as_str()).is_some());
    }
    let _ = reducer.state();
});
