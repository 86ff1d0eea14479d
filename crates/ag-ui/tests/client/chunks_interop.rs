//! Differential test of `client::chunks` against the reference `transformChunks` of
//! @ag-ui/client 1.0.0.
//!
//! `interop/chunks/corpus.jsonl` holds a few hundred generated chunked streams
//! (`interop/chunks/gen-corpus.mjs`, deterministic) and `interop/chunks/expected.jsonl` the
//! reference's recorded output for each. The test runs the reference live over the corpus
//! (`node interop/chunks/transform.mjs`), checks it still agrees with the recording, and holds
//! the Rust normalizer to it: the same events (as JSON) pushed one at a time, the same rejection
//! (kind and index) after the same events. `normalize_all` must agree as well, except that it
//! closes what a stream left open at the end of its input, which the reference does not.
//!
//! One difference is named: an explicit END for an entity another owner's lane streams as
//! chunks is refused here at its own index (`chunk.closed-elsewhere`, issue 36), where the
//! reference passes it on; up to that END both emit the same events.

#![cfg(feature = "client")]

use std::path::Path;

use crate::support::node::{self, interop};

use ag_ui::client::chunks::{ChunkError, ChunkErrorKind, ChunkNormalizer, normalize_all};
use ag_ui::{Event, EventType};
use serde_json::Value;

fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

/// Runs the reference over the corpus.
fn reference(corpus: &Path) -> Vec<Value> {
    node::json_lines("chunks/transform.mjs", &[corpus])
}

/// What the streaming normalizer emits, event by event, and the first error.
fn streamed(events: &[Event]) -> (Vec<Event>, Option<ChunkError>) {
    let mut normalizer = ChunkNormalizer::new();
    let mut out = Vec::new();
    for event in events {
        match normalizer.push(event.clone()) {
            Ok(expanded) => out.extend(expanded),
            Err(error) => return (out, Some(error)),
        }
    }
    (out, None)
}

fn json(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .map(|e| serde_json::to_value(e).expect("an event serializes"))
        .collect()
}

fn ends_with_run_level_event(events: &[Event]) -> bool {
    matches!(
        events.last().map(Event::event_type),
        Some(
            EventType::RunStarted
                | EventType::RunFinished
                | EventType::RunError
                | EventType::MessagesSnapshot
        )
    )
}

#[test]
fn normalizer_matches_the_reference_on_the_corpus() {
    let corpus_path = interop().join("chunks/corpus.jsonl");
    let corpus = lines(&std::fs::read_to_string(&corpus_path).expect("reading the corpus"));
    let recorded = lines(
        &std::fs::read_to_string(interop().join("chunks/expected.jsonl"))
            .expect("reading the recorded output"),
    );
    let live = reference(&corpus_path);
    assert_eq!(live.len(), corpus.len(), "one reference result per stream");
    assert_eq!(
        recorded.len(),
        corpus.len(),
        "one recorded result per stream"
    );

    let mut tally = Tally::default();
    for (n, ((stream, expected), recorded)) in corpus.iter().zip(&live).zip(&recorded).enumerate() {
        assert_eq!(
            expected, recorded,
            "stream {n}: the live reference differs from the recording"
        );
        check_stream(n, stream, expected, &mut tally);
    }
    tally.covers(corpus.len());
}

/// What the corpus's streams exercised, counted as they are checked.
#[derive(Default)]
struct Tally {
    /// Streams ending with a run-level event (`normalize_all` identical to the reference).
    completed_with_run_end: usize,
    /// Streams `normalize_all` had to close at the end of the input.
    left_open: usize,
    /// Streams refused as `chunk.closed-elsewhere` (the named difference).
    closed_elsewhere: usize,
    /// Rejections agreed with the reference, by kind.
    kinds: std::collections::BTreeMap<String, usize>,
}

impl Tally {
    /// Asserts the corpus of `streams` streams exercises what it is meant to.
    fn covers(&self, streams: usize) {
        let Tally {
            completed_with_run_end,
            left_open,
            closed_elsewhere,
            kinds,
        } = self;
        assert!(streams >= 300, "corpus has {streams} streams");
        assert!(
            *completed_with_run_end >= 100,
            "{completed_with_run_end} completed runs"
        );
        assert!(*left_open >= 10, "{left_open} streams left open at the end");
        // The named difference shows on the corpus, and stays the exception.
        assert!(
            (1..=streams / 10).contains(closed_elsewhere),
            "{closed_elsewhere} streams close an entity elsewhere"
        );
        for kind in [
            "chunk.missing-id",
            "chunk.missing-name",
            "chunk.ambiguous",
            "chunk.owner-mismatch",
            "chunk.field-mismatch",
        ] {
            assert!(
                kinds.get(kind).copied().unwrap_or(0) >= 5,
                "{kind} occurs {kinds:?}"
            );
        }
    }
}

/// Holds stream `n` of the corpus to the reference's result `expected`: pushed one event at a
/// time, then whole through `normalize_all`.
fn check_stream(n: usize, stream: &Value, expected: &Value, tally: &mut Tally) {
    let events: Vec<Event> = stream
        .as_array()
        .expect("a stream is an array")
        .iter()
        .enumerate()
        .map(|(i, e)| {
            Event::from_value(e).unwrap_or_else(|err| panic!("stream {n}, event {i}: {err}"))
        })
        .collect();
    let reference_events = expected["events"].as_array().expect("events");

    // Streaming: the same events, the same rejection.
    let (out, error) = streamed(&events);
    if let Some(error) = &error
        && error.kind() == ChunkErrorKind::ClosedElsewhere
    {
        let ours = json(&out);
        assert_eq!(
            &reference_events[..ours.len().min(reference_events.len())],
            &ours[..],
            "stream {n}: the output before the END differs\ninput: {stream}"
        );
        assert!(
            expected["error"]["index"]
                .as_u64()
                .is_none_or(|i| i > error.index() as u64),
            "stream {n}: the reference refuses earlier\ninput: {stream}"
        );
        tally.closed_elsewhere += 1;
        return;
    }
    assert_eq!(
        &json(&out),
        reference_events,
        "stream {n}: output differs\ninput: {stream}"
    );
    match (&expected["error"], &error) {
        (Value::Null, None) => {}
        (reference_error, Some(error)) if !reference_error.is_null() => {
            assert_eq!(
                (error.kind().as_str(), error.index() as u64),
                (
                    reference_error["kind"].as_str().unwrap_or_default(),
                    reference_error["index"].as_u64().unwrap_or(u64::MAX)
                ),
                "stream {n}: rejection differs ({error}; reference: {})\ninput: {stream}",
                reference_error["message"]
            );
            *tally
                .kinds
                .entry(error.kind().as_str().to_owned())
                .or_default() += 1;
        }
        (reference_error, error) => {
            panic!("stream {n}: reference error {reference_error}, ours {error:?}\ninput: {stream}")
        }
    }
    check_whole_run(n, &events, &out, error, reference_events, tally);
}

/// Whole run: `normalize_all` over stream `n`'s `events` is identical to the reference's when
/// the stream ends with a run-level event; otherwise it is what pushing them emitted (`out`)
/// followed by the ENDs of what was still open. It refuses what pushing refused (`error`),
/// with the same error.
fn check_whole_run(
    n: usize,
    events: &[Event],
    out: &[Event],
    error: Option<ChunkError>,
    reference_events: &[Value],
    tally: &mut Tally,
) {
    match normalize_all(events.to_vec()) {
        Ok(all) => {
            assert!(
                error.is_none(),
                "stream {n}: normalize_all accepted a rejected stream"
            );
            if ends_with_run_level_event(events) {
                tally.completed_with_run_end += 1;
                assert_eq!(
                    &json(&all),
                    reference_events,
                    "stream {n}: normalize_all differs"
                );
            } else {
                let (head, tail) = all.split_at(out.len());
                assert_eq!(
                    head, out,
                    "stream {n}: normalize_all differs before the end"
                );
                let mut normalizer = ChunkNormalizer::new();
                for event in events.iter().cloned() {
                    normalizer
                        .push(event)
                        .expect("accepted above")
                        .for_each(drop);
                }
                let ends: Vec<Event> = normalizer.finish().collect();
                assert_eq!(tail, ends, "stream {n}: normalize_all closes differently");
                assert!(tail.iter().all(|e| matches!(
                    e.event_type(),
                    EventType::TextMessageEnd
                        | EventType::ToolCallEnd
                        | EventType::ReasoningMessageEnd
                )));
                if !tail.is_empty() {
                    tally.left_open += 1;
                }
            }
        }
        Err(all_error) => {
            let error = error.unwrap_or_else(|| {
                panic!("stream {n}: normalize_all rejected ({all_error}) what push accepted")
            });
            assert_eq!(all_error, error, "stream {n}");
        }
    }
}
