//! Differential test of the reducer against the reference: @ag-ui/client 1.0.0
//! `defaultApplyEvents`, run live under Node over the recorded corpus
//! `interop/apply/corpus.jsonl` (written by `interop/apply/generate.mjs`).
//!
//! Per stream, ours must equal the reference's final messages, state and pending interrupts (as
//! JSON), report a messages/state change on exactly the events where the reference emits an
//! update, and report the same outcome, result and pending tool call ids at every RUN_FINISHED.
#![cfg(feature = "client")]

use std::path::PathBuf;
use std::process::Command;

use ag_ui::client::{Reducer, RunOutcome};
use ag_ui::{Event, Message};
use serde_json::{Value, json};

fn interop() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../interop"))
}

fn run_reference(corpus: &PathBuf) -> Vec<Value> {
    let root = interop();
    assert!(
        root.join("node_modules/@ag-ui/client").is_dir(),
        "interop/node_modules is missing: run `npm ci --prefix interop` first"
    );
    let output = Command::new("node")
        .arg(root.join("apply/apply.mjs"))
        .arg(corpus)
        .output()
        .expect("cannot start `node` (needed for the differential test against @ag-ui/client)");
    assert!(
        output.status.success(),
        "reference reducer failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn outcome_json(outcome: Option<&RunOutcome>) -> Value {
    match outcome {
        Some(RunOutcome::Success {
            result,
            pending_tool_call_ids,
        }) => {
            let mut v = json!({"outcome": "success", "pendingToolCallIds": pending_tool_call_ids});
            if let Some(result) = result {
                v["result"] = result.clone();
            }
            v
        }
        Some(RunOutcome::Interrupt { interrupts }) => {
            json!({"outcome": "interrupt", "interrupts": interrupts})
        }
        Some(RunOutcome::Cancelled) => json!({"outcome": "cancelled"}),
        Some(_) => json!({"outcome": "unknown"}),
        None => Value::Null,
    }
}

#[test]
fn reducer_matches_the_reference_on_the_corpus() {
    let corpus_path = interop().join("apply/corpus.jsonl");
    let corpus = std::fs::read_to_string(&corpus_path).expect("interop/apply/corpus.jsonl");
    let streams: Vec<Value> = corpus
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let expected = run_reference(&corpus_path);
    assert_eq!(streams.len(), expected.len());
    assert!(
        streams.len() >= 200,
        "the corpus should hold a few hundred streams"
    );

    let mut events_seen = 0;
    for (stream, want) in streams.iter().zip(&expected) {
        let name = stream["name"].as_str().unwrap();
        assert_eq!(want["name"], stream["name"]);
        assert!(
            want.get("error").is_none(),
            "{name}: reference failed: {}",
            want["error"]
        );
        let initial: Vec<Message> = serde_json::from_value(stream["messages"].clone())
            .unwrap_or_else(|e| panic!("{name}: initial messages: {e}"));
        let mut reducer = Reducer::new()
            .with_messages(initial)
            .with_state(stream["state"].clone());
        let mut finished = Vec::new();
        for (i, raw) in stream["events"].as_array().unwrap().iter().enumerate() {
            let event = Event::from_value(raw).unwrap_or_else(|e| panic!("{name}: event {i}: {e}"));
            let applied = reducer
                .apply(&event)
                .unwrap_or_else(|e| panic!("{name}: event {i}: {e}"));
            let changes = &want["changes"][i];
            assert_eq!(
                [applied.messages.is_changed(), applied.state_changed],
                [changes[0].as_bool().unwrap(), changes[1].as_bool().unwrap()],
                "{name}: event {i} ({raw}): messages/state change flags differ"
            );
            if let Event::RunFinished(_) = event {
                finished.push(outcome_json(reducer.outcome()));
            }
            events_seen += 1;
        }
        assert_eq!(
            serde_json::to_value(reducer.messages()).unwrap(),
            want["messages"],
            "{name}: messages differ"
        );
        assert_eq!(reducer.state(), &want["state"], "{name}: state differs");
        assert_eq!(
            serde_json::to_value(reducer.pending_interrupts()).unwrap(),
            want["pendingInterrupts"],
            "{name}: pending interrupts differ"
        );
        let want_finished: Vec<Value> = want["finished"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let mut f = f.clone();
                let obj = f.as_object_mut().unwrap();
                obj.retain(|_, v| !v.is_null());
                f
            })
            .collect();
        assert_eq!(
            finished, want_finished,
            "{name}: RUN_FINISHED reports differ"
        );
    }
    assert!(events_seen > 10_000);
}
