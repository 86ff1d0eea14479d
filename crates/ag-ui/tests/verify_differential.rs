//! Differential test of `ag_ui::verify` against the reference verifier (`verifyEvents` of
//! @ag-ui/client 1.0.0).
//!
//! The corpus (`tests/data/verify_corpus.json`) holds hand-written edge cases and ~700
//! generated streams, each with the reference's recorded verdict. This test regenerates the
//! corpus with `interop/verify/gen.mjs` (it must be byte-identical: the generator is
//! deterministic and the file is up to date), asks the reference for its verdicts live with
//! `interop/verify/verdicts.mjs`, and asserts that our verifier gives the same verdict on every
//! stream: accepted, or rejected with the same kind at the same event index.

use std::path::{Path, PathBuf};
use std::process::Command;

use ag_ui::Event;
use ag_ui::verify::Verifier;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn corpus_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/verify_corpus.json")
}

fn node(args: &[&Path]) -> Vec<u8> {
    let root = root();
    assert!(
        root.join("interop/node_modules/@ag-ui/client").is_dir(),
        "interop/node_modules is missing: run `npm ci --prefix interop` first"
    );
    let output = Command::new("node")
        .args(args)
        .current_dir(&root)
        .output()
        .expect("failed to run `node` (is Node.js installed?)");
    assert!(
        output.status.success(),
        "node {:?} failed: {}",
        args,
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// Our verdict in the reference's shape.
fn ours(events: &[Value]) -> Value {
    let mut verifier = Verifier::new();
    for (i, json) in events.iter().enumerate() {
        let event = Event::from_value(json)
            .unwrap_or_else(|e| panic!("event {i} does not decode: {e}: {json}"));
        if let Err(v) = verifier.check(&event) {
            assert_eq!(v.index(), i, "violation index is the event's position");
            return serde_json::json!({ "kind": v.kind().as_str(), "index": v.index() });
        }
    }
    serde_json::json!({ "accepted": true })
}

#[test]
fn corpus_is_regenerated_identically() {
    let root = root();
    let generated = node(&[&root.join("interop/verify/gen.mjs")]);
    let recorded = std::fs::read(corpus_path()).unwrap();
    assert!(
        generated == recorded,
        "tests/data/verify_corpus.json is stale: regenerate it with \
         `node interop/verify/gen.mjs > crates/ag-ui/tests/data/verify_corpus.json`"
    );
}

#[test]
fn verdicts_match_the_reference_on_every_stream() {
    let root = root();
    let corpus: Value = serde_json::from_slice(&std::fs::read(corpus_path()).unwrap()).unwrap();
    let streams = corpus["streams"].as_array().unwrap();
    assert!(
        streams.len() >= 500,
        "the corpus has {} streams",
        streams.len()
    );

    let live: Vec<Value> = serde_json::from_slice(&node(&[
        &root.join("interop/verify/verdicts.mjs"),
        &corpus_path(),
    ]))
    .unwrap();
    assert_eq!(live.len(), streams.len());

    let mut mismatches = Vec::new();
    let mut rejected = 0;
    for (stream, reference) in streams.iter().zip(&live) {
        let name = stream["name"].as_str().unwrap();
        assert_eq!(
            &stream["verdict"], reference,
            "{name}: the recorded verdict differs from the live reference; regenerate the corpus"
        );
        assert!(
            !reference["kind"]
                .as_str()
                .unwrap_or("")
                .starts_with("unknown"),
            "{name}: the reference's message matched no kind pattern: {reference}"
        );
        let events = stream["events"].as_array().unwrap();
        let got = ours(events);
        if reference.get("kind").is_some() {
            rejected += 1;
        }
        if &got != reference {
            mismatches.push(format!("{name}: reference {reference}, ours {got}"));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} streams differ:\n{}",
        mismatches.len(),
        streams.len(),
        mismatches.join("\n")
    );
    // The corpus exercises both sides.
    assert!(rejected > 200 && streams.len() - rejected > 200);
}
