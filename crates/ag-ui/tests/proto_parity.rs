//! Parity of the two transports: every recorded or generated stream of the test suite gives the
//! same events, and the same conversation, over SSE and over protobuf, modulo the lossy points
//! documented on `ag_ui::encoding::proto` (applied by `proto_support::lossy`).
//!
//! Streams: the verifier's differential corpus (`tests/data/verify_corpus.json`), the reducer's
//! (`interop/apply/corpus.jsonl`, with each stream's initial messages and state) and the chunk
//! normalizer's (`interop/chunks/corpus.jsonl`), the benchmark workload (explicit and chunked),
//! and generated streams of every event type.

#![cfg(all(feature = "proto", feature = "sse", feature = "client"))]

mod common;
mod proto_support;
#[path = "../benches/workload.rs"]
mod workload;

use std::path::Path;

use ag_ui::client::Reducer;
use ag_ui::client::chunks::normalize_all;
use ag_ui::encoding::{proto, sse};
use ag_ui::{Event, Message};
use proptest::collection::vec;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use proto_support::{lossy, lossy_messages, lossy_value};
use serde_json::Value;

/// A stream and the conversation it starts from.
struct Stream {
    name: String,
    messages: Vec<Message>,
    state: Value,
    events: Vec<Event>,
}

fn stream(name: String, events: Vec<Event>) -> Stream {
    Stream {
        name,
        messages: Vec::new(),
        state: Value::Object(Default::default()),
        events,
    }
}

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Every event of a JSON array that this crate reads (the verifier's corpus holds invalid ones
/// on purpose: neither transport carries those).
fn readable(events: &Value) -> Vec<Event> {
    events
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| Event::from_json(&e.to_string()).ok())
        .collect()
}

fn streams() -> Vec<Stream> {
    let mut out = Vec::new();
    let verify: Value =
        serde_json::from_str(include_str!("data/verify_corpus.json")).expect("verify corpus");
    for s in verify["streams"].as_array().unwrap() {
        out.push(stream(
            format!("verify/{}", s["name"].as_str().unwrap()),
            readable(&s["events"]),
        ));
    }
    let apply = std::fs::read_to_string(repo().join("interop/apply/corpus.jsonl")).unwrap();
    for line in apply.lines() {
        let s: Value = serde_json::from_str(line).unwrap();
        out.push(Stream {
            name: format!("apply/{}", s["name"].as_str().unwrap()),
            messages: serde_json::from_value(s["messages"].clone()).unwrap(),
            state: s["state"].clone(),
            events: readable(&s["events"]),
        });
    }
    let chunks = std::fs::read_to_string(repo().join("interop/chunks/corpus.jsonl")).unwrap();
    for (i, line) in chunks.lines().enumerate() {
        out.push(stream(
            format!("chunks/{i}"),
            readable(&serde_json::from_str(line).unwrap()),
        ));
    }
    out.push(stream("workload/explicit".into(), workload::events(40)));
    out.push(stream("workload/chunked".into(), workload::chunked(40)));
    let mut runner = TestRunner::deterministic();
    let generated = vec(common::strategies::any_event(), 1..40);
    for i in 0..100 {
        out.push(stream(
            format!("generated/{i}"),
            generated.new_tree(&mut runner).unwrap().current(),
        ));
    }
    out
}

/// The conversation a stream leaves: messages, state, outcome and open interrupts, or where
/// applying it stopped.
fn conversation(s: &Stream, events: Vec<Event>, lossy_start: bool) -> String {
    let (messages, state) = if lossy_start {
        (lossy_messages(&s.messages), lossy_value(&s.state))
    } else {
        (s.messages.clone(), s.state.clone())
    };
    let events = match normalize_all(events) {
        Ok(events) => events,
        Err(e) => return format!("chunks: {e}"),
    };
    let mut reducer = Reducer::new().with_messages(messages).with_state(state);
    let applied = reducer.apply_all(&events);
    let pending = reducer.pending_interrupts().to_vec();
    let outcome = format!("{:?}", reducer.outcome());
    let (messages, state) = reducer.into_parts();
    // Compared through the lossy form, which the SSE side needs and the protobuf side keeps.
    format!(
        "{applied:?}\n{:?}\n{}\n{outcome}\n{pending:?}",
        lossy_messages(&messages),
        lossy_value(&state)
    )
}

#[test]
fn every_stream_gives_the_same_events_and_conversation_over_both_transports() {
    let streams = streams();
    assert!(streams.len() > 500, "{} streams", streams.len());
    let (mut events_seen, mut sse_bytes, mut proto_bytes) = (0, 0, 0);
    let mut types = std::collections::BTreeSet::new();
    for s in &streams {
        let (mut over_sse, mut over_proto) = (Vec::new(), Vec::new());
        for event in &s.events {
            sse::encode_into(event, &mut over_sse);
            proto::encode_into(event, &mut over_proto);
            types.insert(event.event_type());
        }
        events_seen += s.events.len();
        sse_bytes += over_sse.len();
        proto_bytes += over_proto.len();
        let from_sse = sse::decode(&over_sse).unwrap_or_else(|e| panic!("{}: SSE: {e}", s.name));
        let from_proto =
            proto::decode(&over_proto).unwrap_or_else(|e| panic!("{}: protobuf: {e}", s.name));
        let expected: Vec<Event> = from_sse.iter().map(lossy).collect();
        assert_eq!(from_proto, expected, "{}: events", s.name);
        assert_eq!(
            conversation(s, from_proto, true),
            conversation(s, from_sse, false),
            "{}: conversation",
            s.name
        );
    }
    assert_eq!(types.len(), 31);
    assert!(events_seen > 10_000, "{events_seen} events");
    eprintln!(
        "{} streams, {events_seen} events: SSE {sse_bytes} bytes, protobuf {proto_bytes} bytes",
        streams.len()
    );
}
