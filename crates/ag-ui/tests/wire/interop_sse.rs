//! SSE against the reference packages (@ag-ui/core, @ag-ui/encoder 1.0.0, run under Node):
//! our writer's frames validate and are byte-identical to the reference encoder's, and frames
//! the reference encoder wrote read back to equal events.
//!
//! Needs `npm ci --prefix interop` (CI runs it first).

#![cfg(feature = "sse")]

use crate::support as common;

use std::path::{Path, PathBuf};

use ag_ui::encoding::sse::{self, EventDecoder};
use ag_ui::{Event, EventType};
use common::strategies::event_of;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use serde_json::Value;

/// Generated events per type.
const PER_TYPE: usize = 12;

/// A deterministic corpus: `PER_TYPE` generated events of each of the 31 types.
fn corpus() -> Vec<Event> {
    let mut runner = TestRunner::deterministic();
    let mut events = Vec::new();
    for &ty in EventType::ALL {
        let strategy = event_of(ty);
        for _ in 0..PER_TYPE {
            events.push(strategy.new_tree(&mut runner).unwrap().current());
        }
    }
    events
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn our_frames_validate_and_match_the_reference_encoder_byte_for_byte() {
    let events = corpus();
    let mut bytes = Vec::new();
    for event in &events {
        sse::encode_into(event, &mut bytes);
    }
    let path = temp_file("interop-sse-writer.sse", &bytes);
    let report = common::node::json("encoding/writer-check.mjs", &[&path]);
    assert_eq!(report["frames"], events.len(), "{report}");
    assert_eq!(report["types"].as_object().unwrap().len(), 31, "{report}");
    assert_eq!(report["invalid"], Value::Array(vec![]), "schema failures");
    assert_eq!(
        report["mismatched"],
        Value::Array(vec![]),
        "byte mismatches"
    );
}

#[test]
fn frames_written_by_the_reference_encoder_read_back_to_equal_events() {
    let mut jsonl = Vec::new();
    for event in corpus() {
        event.write_json(&mut jsonl);
        jsonl.push(b'\n');
    }
    let path = temp_file("interop-sse-corpus.jsonl", &jsonl);
    let out = common::node::json("encoding/reference-corpus.mjs", &[&path]);
    assert_eq!(out["types"], 31);
    let expected = out["expected"].as_array().unwrap();
    let bytes = out["sse"].as_str().unwrap().as_bytes();

    let mut decoder = EventDecoder::new();
    let mut events = Vec::new();
    for piece in bytes.chunks(61) {
        decoder.push(piece);
        events.extend(decoder.by_ref().map(|r| r.unwrap()));
    }
    decoder.finish();
    events.extend(decoder.by_ref().map(|r| r.unwrap()));

    assert_eq!(events.len(), expected.len());
    for (i, (event, expected)) in events.iter().zip(expected).enumerate() {
        let ours = serde_json::to_value(event).unwrap();
        assert_eq!(&ours, expected, "event {i}");
    }
}
