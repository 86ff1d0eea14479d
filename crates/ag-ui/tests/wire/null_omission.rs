//! The cross-SDK fixture `null-omission.json`: every case decodes, re-encodes through the SSE
//! writer, and equals `expected` as JSON.
//!
//! The fixture is a copy, kept in `tests/fixtures/`, of the project's cross-SDK fixture
//! `shared/fixtures/null-omission.json` (see `tests/fixtures/README.md`).

#![cfg(feature = "sse")]

use std::path::{Path, PathBuf};

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
/// beside it passes. Every relative path written in them (a quoted string holding `../`, as in
/// `include_str!`, `#[path]` or a fixture read) is resolved against the file's directory and
/// must stay under the repository root: against the file's directory for `include_str!`,
/// `include_bytes!` and `#[path]`, against the crate's directory (where tests run and
/// `CARGO_MANIFEST_DIR` points) for anything read at run time.
#[test]
fn no_test_reads_outside_the_repository() {
    let root =
        std::fs::canonicalize(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap();
    // Resolves `..` and `.` without touching the file system (the target may not exist).
    let normalize = |base: &Path, relative: &str| -> PathBuf {
        let mut out = base.to_path_buf();
        for part in relative.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    out.pop();
                }
                part => out.push(part),
            }
        }
        out
    };
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
                // The crate directory: the nearest ancestor holding a Cargo.toml.
                let krate = path
                    .ancestors()
                    .find(|a| a.join("Cargo.toml").is_file())
                    .unwrap()
                    .to_path_buf();
                let pieces: Vec<&str> = text.split('"').collect();
                for (i, literal) in pieces.iter().enumerate().skip(1).step_by(2) {
                    if !literal.contains("../") || literal.contains(char::is_whitespace) {
                        continue;
                    }
                    let before = pieces[i - 1].trim_end();
                    let compiled = ["include_str!(", "include_bytes!(", "#[path ="]
                        .iter()
                        .any(|m| before.ends_with(m));
                    let base = if compiled {
                        path.parent().unwrap()
                    } else {
                        krate.as_path()
                    };
                    let relative = literal.trim_start_matches('/');
                    let inside = normalize(base, relative).starts_with(&root);
                    assert!(
                        inside,
                        "{} reads {literal:?}, outside the repository",
                        path.display()
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "only {checked} files checked");
}

/// The `#[non_exhaustive]` wire types are built from outside the crate with `new` and `with_*`,
/// and serialize as the protocol spells them, absent fields left out.
#[test]
fn non_exhaustive_wire_types_build_and_serialize() {
    use ag_ui::{Context, FunctionCall, MediaPart, PartSource, ResumeStatus, TextPart, ToolCall};
    use serde_json::json;

    let call = ToolCall::new("c1", "get_weather", r#"{"city":"Paris"}"#)
        .with_encrypted_value("opaque")
        .with_metadata(serde_json::from_value(json!({"k": 1})).unwrap());
    assert_eq!(
        call.function,
        FunctionCall::new("get_weather", r#"{"city":"Paris"}"#)
    );
    assert_eq!(
        serde_json::to_value(&call).unwrap(),
        json!({
            "id": "c1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
            "encryptedValue": "opaque",
            "metadata": {"k": 1}
        })
    );
    assert_eq!(
        serde_json::to_value(ToolCall::new("c2", "f", "{}")).unwrap(),
        json!({"id": "c2", "type": "function", "function": {"name": "f", "arguments": "{}"}})
    );
    let part = TextPart::new("hi")
        .with_id("p1")
        .with_metadata(json!({"lang": "en"}));
    assert_eq!(
        serde_json::to_value(&part).unwrap(),
        json!({"text": "hi", "id": "p1", "metadata": {"lang": "en"}})
    );
    let media = MediaPart::new(PartSource::Url {
        value: "https://example.com/a.png".into(),
        mime_type: None,
    })
    .with_id("m1")
    .with_metadata(json!({"alt": "a"}));
    assert_eq!(media.id.as_deref(), Some("m1"));
    assert_eq!(media.metadata, Some(json!({"alt": "a"})));
    assert_eq!(
        serde_json::to_value(Context::new("city", "Paris")).unwrap(),
        json!({"description": "city", "value": "Paris"})
    );
    let status: ResumeStatus = serde_json::from_value(json!("cancelled")).unwrap();
    assert_eq!(status, ResumeStatus::Cancelled);
}
