//! The cross-SDK fixture `null-omission.json`: every case decodes, re-encodes through the SSE
//! writer, and equals `expected` as JSON.
//!
//! The fixture is a copy, kept in `tests/fixtures/`, of the project's cross-SDK fixture
//! `shared/fixtures/null-omission.json` (see `tests/fixtures/README.md`).

#![cfg(feature = "sse")]

use std::path::PathBuf;

use ag_ui::Event;
use serde_json::Value;

fn fixture() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/null-omission.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).expect("fixture is JSON")
}

#[test]
fn every_case_round_trips_to_expected() {
    let fixture = fixture();
    let cases = fixture["stream"].as_array().expect("stream array");
    assert!(cases.len() >= 34, "fixture has {} cases", cases.len());
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let event = Event::from_value(&case["input"]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut frame = Vec::new();
        ag_ui::encoding::sse::encode_into(&event, &mut frame);
        let text = std::str::from_utf8(&frame).unwrap();
        let json = text
            .strip_prefix("data: ")
            .and_then(|t| t.strip_suffix("\n\n"))
            .unwrap_or_else(|| panic!("{name}: not an SSE frame: {text:?}"));
        let produced: Value = serde_json::from_str(json).unwrap();
        assert_eq!(produced, case["expected"], "{name}");
    }
}
