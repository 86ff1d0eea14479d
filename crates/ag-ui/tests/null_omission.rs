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

/// Tests and benchmarks read only what is inside the repository: a fresh clone with nothing
/// beside it passes. No path in them climbs above the repository root (three levels up from a
/// crate's directory, which their paths start from).
#[test]
fn no_test_reads_outside_the_repository() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let climb = ["..", "..", "..", ""].join("/");
    let mut checked = 0;
    let mut stack = vec![root.join("crates"), root.join("examples")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "target" && name != "node_modules" {
                    stack.push(path);
                }
            } else if name.ends_with(".rs")
                && path
                    .components()
                    .any(|c| c.as_os_str() == "tests" || c.as_os_str() == "benches")
            {
                let text = std::fs::read_to_string(&path).unwrap();
                assert!(
                    !text.contains(&climb),
                    "{} reads a path outside the repository",
                    path.display()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "only {checked} files checked");
}
