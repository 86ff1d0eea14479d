//! The binary transport against the reference packages (@ag-ui/proto, @ag-ui/encoder and
//! @ag-ui/client 1.0.0, run under Node by `interop/proto/check.mjs`), on all 31 event types,
//! each with every optional field set and with only the required ones (the fixture
//! `tests/data/proto_cases.json`), plus generated events of every type:
//!
//! * our message for each event is byte-identical to the reference's (`encode`);
//! * the reference decodes our bytes to the event (modulo the documented lossy points), and we
//!   decode its bytes to the same event;
//! * the reference client reads our framed stream in odd-sized chunks, and we read the
//!   reference encoder's framed stream.
//!
//! Needs `npm ci --prefix interop` (CI runs it first).

#![cfg(feature = "proto")]

use crate::support as common;
use crate::support::proto as proto_support;

use std::path::Path;

use ag_ui::encoding::proto::{self, EventDecoder};
use ag_ui::{Event, EventType};
use common::strategies::event_of;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use proto_support::lossy;
use serde_json::Value;

/// Generated events per type, beside the fixture's cases.
const PER_TYPE: usize = 12;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The fixture's 80 cases (31 types full, 31 required-only, 18 variants), then generated ones.
fn corpus() -> Vec<(String, Event)> {
    let mut out = common::ev::proto_cases();
    let mut runner = TestRunner::deterministic();
    for &ty in EventType::ALL {
        let strategy = event_of(ty);
        for i in 0..PER_TYPE {
            out.push((
                format!("{ty}.generated{i}"),
                strategy.new_tree(&mut runner).unwrap().current(),
            ));
        }
    }
    out
}

fn run_reference(cases: &[(String, Event)]) -> Value {
    let mut jsonl = String::new();
    let mut stream = Vec::new();
    for (name, event) in cases {
        let line = serde_json::json!({
            "name": name,
            "event": serde_json::to_value(event).unwrap(),
            "ours": hex(&proto::encode_message(event)),
        });
        jsonl.push_str(&line.to_string());
        jsonl.push('\n');
        proto::encode_into(event, &mut stream);
    }
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let cases_path = tmp.join("proto-interop-cases.jsonl");
    let stream_path = tmp.join("proto-interop-stream.bin");
    std::fs::write(&cases_path, jsonl).unwrap();
    std::fs::write(&stream_path, &stream).unwrap();
    common::node::json("proto/check.mjs", &[cases_path, stream_path])
}

#[test]
fn all_31_types_interoperate_with_the_reference_byte_for_byte() {
    let cases = corpus();
    let report = run_reference(&cases);
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), cases.len());
    let (mut differ, mut warned, mut theirs_bad, mut ours_bad) = (vec![], vec![], vec![], vec![]);
    let mut types = std::collections::BTreeSet::new();
    for ((name, event), r) in cases.iter().zip(results) {
        types.insert(event.event_type());
        let expected = lossy(event);
        let ours = proto::encode_message(event);
        let theirs = unhex(r["theirs"].as_str().unwrap());
        if ours != theirs {
            differ.push(format!(
                "{name}:\n  ours   {}\n  theirs {}",
                hex(&ours),
                hex(&theirs)
            ));
        }
        if !r["warnings"].as_array().unwrap().is_empty() {
            warned.push(format!("{name}: {}", r["warnings"]));
        }
        // The reference reads our bytes to the event.
        match r.get("decoded") {
            Some(decoded) => match Event::from_json(&decoded.to_string()) {
                Ok(back) if back == expected => {}
                Ok(back) => ours_bad.push(format!(
                    "{name}: the reference read {back:?}\n  expected {expected:?}"
                )),
                Err(e) => ours_bad.push(format!("{name}: the reference read {decoded}: {e}")),
            },
            None => ours_bad.push(format!(
                "{name}: the reference refused our bytes: {}",
                r["error"]
            )),
        }
        // We read the reference's bytes to the event.
        match proto::decode_message(&theirs) {
            Ok(back) if back == expected => {}
            Ok(back) => {
                theirs_bad.push(format!("{name}: we read {back:?}\n  expected {expected:?}"))
            }
            Err(e) => theirs_bad.push(format!("{name}: we refused the reference's bytes: {e}")),
        }
    }
    assert_eq!(types.len(), 31);
    assert!(
        differ.is_empty(),
        "{} of {} messages differ:\n{}",
        differ.len(),
        cases.len(),
        differ.join("\n")
    );
    assert!(
        warned.is_empty(),
        "the reference encoder warned:\n{}",
        warned.join("\n")
    );
    assert!(ours_bad.is_empty(), "{}", ours_bad.join("\n"));
    assert!(theirs_bad.is_empty(), "{}", theirs_bad.join("\n"));

    // The reference client reads our framed stream, fed in odd-sized chunks.
    let stream = &report["stream"];
    assert!(
        stream.get("error").is_none(),
        "the reference client failed: {}",
        stream["error"]
    );
    let read = stream["events"].as_array().unwrap();
    assert_eq!(read.len(), cases.len());
    for ((name, event), r) in cases.iter().zip(read) {
        let back = Event::from_json(&r.to_string()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, lossy(event), "{name}: read by the reference client");
    }

    // We read the reference encoder's framed stream, in 61-byte pieces.
    let framed = unhex(report["framed"].as_str().unwrap());
    let mut decoder = EventDecoder::new();
    let mut events = Vec::new();
    for piece in framed.chunks(61) {
        decoder.push(piece);
        events.extend(decoder.by_ref().map(Result::unwrap));
    }
    decoder.finish();
    assert!(decoder.next().is_none());
    let expected: Vec<Event> = cases.iter().map(|(_, e)| lossy(e)).collect();
    assert_eq!(events, expected);
}
