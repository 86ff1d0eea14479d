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

// ---- compaction ---------------------------------------------------------------------------

fn run_reference_compact(corpus: &PathBuf) -> Vec<Value> {
    let output = Command::new("node")
        .arg(interop().join("compact/compact.mjs"))
        .arg(corpus)
        .output()
        .expect("cannot start `node` (needed for the differential test against @ag-ui/client)");
    assert!(
        output.status.success(),
        "reference compactEvents failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn verifies(events: &[Event]) -> Result<usize, ag_ui::verify::Violation> {
    ag_ui::verify::verify_all(events)
}

/// Compares `compact` with the reference's `compactEvents` on `streams`: equal wherever the
/// reference's output verifies (or the input does not); where the input verifies and the
/// reference's output does not, ours differs and verifies. Every output of a stream that
/// verifies verifies. Returns (same, corrected, valid inputs).
fn compact_against_reference(
    file: &PathBuf,
    streams: &[(String, Vec<Event>)],
) -> (usize, usize, usize) {
    let expected = run_reference_compact(file);
    assert_eq!(streams.len(), expected.len());
    let (mut same, mut corrected, mut valid_inputs, mut refused_by_verifier) = (0, 0, 0, 0);
    for ((name, events), want) in streams.iter().zip(&expected) {
        let ours = ag_ui::client::compact::compact(events).expect("within the limits");
        let theirs: Vec<Event> = want
            .as_array()
            .unwrap()
            .iter()
            .map(|raw| Event::from_value(raw).unwrap_or_else(|e| panic!("{name}: {raw}: {e}")))
            .collect();
        let input_ok = verifies(events).is_ok();
        if input_ok {
            valid_inputs += 1;
            if let Err(v) = verifies(&ours) {
                let show = |es: &[Event]| {
                    es.iter()
                        .map(|e| e.to_json())
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                panic!(
                    "{name}: the compacted stream does not verify: {v}\ninput:\n{}\nours:\n{}",
                    show(events),
                    show(&ours)
                );
            }
        }
        // Held events keep their order (the reference's may not: see below).
        assert_eq!(
            held_kind(&ours),
            held_kind(events),
            "{name}: held events reordered"
        );
        let reordered = held_kind(&theirs) != held_kind(events);
        if !open_at_run_error(events) && !reordered {
            let (ours, theirs) = (
                serde_json::to_value(&ours).unwrap(),
                serde_json::to_value(&theirs).unwrap(),
            );
            if ours != theirs {
                let (a, b) = (ours.as_array().unwrap(), theirs.as_array().unwrap());
                let at = a
                    .iter()
                    .zip(b)
                    .position(|(x, y)| x != y)
                    .unwrap_or(a.len().min(b.len()));
                panic!(
                    "{name}: compact differs from the reference at event {at} (lengths {} and {}):\n ours:   {}\n theirs: {}",
                    a.len(),
                    b.len(),
                    a.get(at).map(Value::to_string).unwrap_or_default(),
                    b.get(at).map(Value::to_string).unwrap_or_default(),
                );
            }
            same += 1;
        } else {
            // The documented divergences: what is open at a RUN_ERROR is sent before it (the
            // reference sends it at the end of the input, after that run ended or inside a
            // later run), and held events keep their order (the reference sends the events
            // held by a tool call after those held later by a text message that ends first).
            assert_ne!(ours, theirs, "{name}");
            if input_ok && verifies(&theirs).is_err() {
                refused_by_verifier += 1;
            }
            corrected += 1;
        }
    }
    assert!(
        corrected == 0 || refused_by_verifier > 0,
        "the reference's output always verified"
    );
    (same, corrected, valid_inputs)
}

fn corpus_streams() -> Vec<(String, Vec<Event>)> {
    let corpus = std::fs::read_to_string(interop().join("apply/corpus.jsonl"))
        .expect("interop/apply/corpus.jsonl");
    corpus
        .lines()
        .map(|l| {
            let stream: Value = serde_json::from_str(l).unwrap();
            let events = stream["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(|raw| Event::from_value(raw).unwrap())
                .collect();
            (stream["name"].as_str().unwrap().to_owned(), events)
        })
        .collect()
}

/// `compact` against `compactEvents` on the reducer's corpus (300 streams).
#[test]
fn compact_matches_the_reference_on_the_corpus() {
    let streams = corpus_streams();
    assert!(streams.len() >= 300);
    let (same, corrected, valid) =
        compact_against_reference(&interop().join("apply/corpus.jsonl"), &streams);
    eprintln!("corpus: {same} same as the reference, {corrected} corrected, {valid} valid inputs");
    assert!(valid >= 200, "too few valid streams: {valid}");
}

/// `compact` against `compactEvents` on 400 generated streams (seeded), valid ones with
/// interleaved messages and tool calls of several owners, held events, state windows, several
/// runs, runs that fail with streams open, and streams cut off mid-run.
#[test]
fn compact_matches_the_reference_on_generated_streams() {
    // Even seeds: text messages and tool calls one at a time; odd: overlapping.
    let streams: Vec<(String, Vec<Event>)> = (0..400u64)
        .map(|seed| (format!("generated-{seed}"), generate(seed, seed % 2 == 0)))
        .collect();
    let file = std::env::temp_dir().join(format!("ag-ui-compact-{}.jsonl", std::process::id()));
    let mut lines = String::new();
    for (name, events) in &streams {
        lines.push_str(&json!({"name": name, "events": events}).to_string());
        lines.push('\n');
    }
    std::fs::write(&file, lines).unwrap();
    let (same, corrected, valid) = compact_against_reference(&file, &streams);
    std::fs::remove_file(&file).unwrap();
    eprintln!(
        "generated: {same} same as the reference, {corrected} corrected, {valid} valid inputs"
    );
    assert!(valid >= 300, "too few valid streams: {valid}");
    assert!(
        corrected >= 10,
        "the divergences were not exercised: {corrected}"
    );
    // `compact` then `apply` equals `apply` when the streams do not overlap. When they do, the
    // state is the same but the messages may not be: a stream is sent where it ends, so a tool
    // call under a message that is still streaming comes first (the reference's semantics).
    for (seed, (name, events)) in streams.iter().enumerate() {
        let original = apply_all(events);
        let compacted =
            apply_all(&ag_ui::client::compact::compact(events).expect("within the limits"));
        if seed % 2 == 0 {
            assert_eq!(compacted, original, "{name}");
        } else {
            assert_eq!(compacted.1, original.1, "{name}: state");
        }
    }
}

/// The messages and state a fresh reducer builds from `events` (what it refuses is skipped).
fn apply_all(events: &[Event]) -> (Value, Value) {
    let mut reducer = Reducer::new();
    for event in events {
        let _ = reducer.apply(event);
    }
    (
        serde_json::to_value(reducer.messages()).unwrap(),
        reducer.state().clone(),
    )
}

/// The events compaction may hold (all but text, tool-call, state and run events), in order.
fn held_kind(events: &[Event]) -> Vec<&Event> {
    events
        .iter()
        .filter(|e| {
            !matches!(
                e,
                Event::TextMessageStart(_)
                    | Event::TextMessageContent(_)
                    | Event::TextMessageEnd(_)
                    | Event::ToolCallStart(_)
                    | Event::ToolCallArgs(_)
                    | Event::ToolCallEnd(_)
                    | Event::StateSnapshot(_)
                    | Event::StateDelta(_)
                    | Event::RunStarted(_)
                    | Event::RunFinished(_)
                    | Event::RunError(_)
            )
        })
        .collect()
}

/// Whether a text message or tool call is open at a RUN_ERROR of `events`.
fn open_at_run_error(events: &[Event]) -> bool {
    let mut open = std::collections::HashSet::new();
    for event in events {
        match event {
            Event::TextMessageStart(e) => {
                open.insert(format!("m:{}", e.message_id.as_str()));
            }
            Event::TextMessageEnd(e) => {
                open.remove(&format!("m:{}", e.message_id.as_str()));
            }
            Event::ToolCallStart(e) => {
                open.insert(format!("c:{}", e.tool_call_id.as_str()));
            }
            Event::ToolCallEnd(e) => {
                open.remove(&format!("c:{}", e.tool_call_id.as_str()));
            }
            Event::RunError(_) if !open.is_empty() => return true,
            _ => {}
        }
    }
    false
}

/// A small seeded generator (xorshift), so the streams are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// One generated stream: one to three runs of random but valid activity; `sequential`: at
/// most one text message or tool call open at a time.
fn generate(seed: u64, sequential: bool) -> Vec<Event> {
    use ag_ui::TextMessageRole;
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut out = Vec::new();
    let mut counter = 0;
    let runs = 1 + rng.below(3);
    for run in 0..runs {
        out.push(Event::run_started("t", format!("r{run}")));
        // (id, owner) of what is open
        let mut texts: Vec<(String, Option<String>)> = Vec::new();
        let mut tools: Vec<(String, Option<String>)> = Vec::new();
        let mut ended_tools: Vec<String> = Vec::new();
        let mut subagents: Vec<String> = Vec::new();
        let mut steps: Vec<String> = Vec::new();
        let mut keys = 0;
        let tag = |e: Event, owner: &Option<String>| match owner {
            Some(o) => e.with_subagent_run_id(o.as_str()),
            None => e,
        };
        let meta = |rng: &mut Rng, e: Event| {
            if rng.chance(15) {
                let m: ag_ui::Metadata =
                    serde_json::from_value(json!({format!("k{}", rng.below(3)): rng.below(9)}))
                        .unwrap();
                e.with_metadata(m)
            } else {
                e
            }
        };
        for _ in 0..(5 + rng.below(30)) {
            counter += 1;
            let owner = if !subagents.is_empty() && rng.chance(40) {
                Some(subagents[rng.below(subagents.len())].clone())
            } else {
                None
            };
            match rng.below(16) {
                0 | 1 if !(sequential && !(texts.is_empty() && tools.is_empty())) => {
                    let id = format!("m{counter}");
                    out.push(meta(
                        &mut rng,
                        tag(
                            Event::text_message_start(id.as_str(), TextMessageRole::Assistant),
                            &owner,
                        ),
                    ));
                    texts.push((id, owner));
                }
                2..=4 if !texts.is_empty() => {
                    let (id, owner) = texts[rng.below(texts.len())].clone();
                    let e = Event::text_message_content(id.as_str(), format!("d{counter} "));
                    out.push(meta(&mut rng, tag(e, &owner)));
                }
                5 if !texts.is_empty() => {
                    let (id, owner) = texts.remove(rng.below(texts.len()));
                    out.push(tag(Event::text_message_end(id.as_str()), &owner));
                }
                6 if !(sequential && !(texts.is_empty() && tools.is_empty())) => {
                    let id = format!("c{counter}");
                    let mut e = ag_ui::ToolCallStartEvent::new(id.as_str(), "tool");
                    if let Some((parent, _)) = texts.iter().find(|(_, o)| *o == owner) {
                        e = e.with_parent_message_id(parent.as_str());
                    }
                    out.push(meta(&mut rng, tag(e.into(), &owner)));
                    tools.push((id, owner));
                }
                7 if !tools.is_empty() => {
                    let (id, owner) = tools[rng.below(tools.len())].clone();
                    out.push(meta(
                        &mut rng,
                        tag(
                            Event::tool_call_args(id.as_str(), format!("{{{counter}")),
                            &owner,
                        ),
                    ));
                }
                8 if !tools.is_empty() => {
                    let (id, owner) = tools.remove(rng.below(tools.len()));
                    out.push(tag(Event::tool_call_end(id.as_str()), &owner));
                    ended_tools.push(id);
                }
                9 if !ended_tools.is_empty() => {
                    let id = ended_tools.remove(rng.below(ended_tools.len()));
                    out.push(Event::tool_call_result(
                        format!("res-{id}"),
                        id.as_str(),
                        "ok",
                    ));
                }
                10 => {
                    keys += 1;
                    let e = if rng.chance(30) {
                        Event::state_snapshot(json!({"n": counter}))
                    } else {
                        Event::state_delta(
                            serde_json::from_value(json!([{"op": "add", "path": format!("/k{keys}"), "value": counter}]))
                                .unwrap(),
                        )
                    };
                    out.push(meta(&mut rng, e));
                }
                11 => out.push(meta(&mut rng, Event::custom("c", json!(counter)))),
                12 if steps.is_empty() || rng.chance(50) => {
                    let name = format!("s{counter}");
                    out.push(Event::step_started(name.as_str()));
                    steps.push(name);
                }
                12 => out.push(Event::step_finished(steps.pop().unwrap().as_str())),
                13 if subagents.len() < 2 => {
                    let id = format!("sub{counter}");
                    out.push(Event::subagent_started(id.as_str(), "helper"));
                    subagents.push(id);
                }
                14 => {
                    let id = format!("rs{counter}");
                    out.push(tag(Event::reasoning_start(id.as_str()), &owner));
                    out.push(tag(
                        Event::reasoning_message_start(format!("{id}-m")),
                        &owner,
                    ));
                    out.push(tag(
                        Event::reasoning_message_content(format!("{id}-m"), "hmm"),
                        &owner,
                    ));
                    out.push(tag(Event::reasoning_message_end(format!("{id}-m")), &owner));
                    out.push(tag(Event::reasoning_end(id.as_str()), &owner));
                }
                15 if rng.chance(20) => {
                    out.push(Event::activity_snapshot(
                        format!("a{counter}"),
                        "progress",
                        serde_json::from_value(json!({"p": counter})).unwrap(),
                    ));
                }
                _ => {}
            }
        }
        // The end of the run: finished, failed with what is open, or cut off (last run only).
        let how = rng.below(10);
        if how < 3 {
            out.push(Event::run_error("boom"));
            continue;
        }
        if how == 3 && run + 1 == runs {
            break;
        }
        for (id, owner) in texts.drain(..) {
            out.push(tag(Event::text_message_end(id.as_str()), &owner));
        }
        for (id, owner) in tools.drain(..) {
            out.push(tag(Event::tool_call_end(id.as_str()), &owner));
        }
        for name in steps.drain(..).rev() {
            out.push(Event::step_finished(name.as_str()));
        }
        for id in subagents.drain(..) {
            out.push(Event::subagent_finished(id.as_str()));
        }
        out.push(Event::run_finished("t", format!("r{run}")));
    }
    out
}

/// Applying the compacted stream builds the conversation that applying the original builds.
#[test]
fn compact_then_apply_equals_apply_on_the_corpus() {
    let corpus_path = interop().join("apply/corpus.jsonl");
    let corpus = std::fs::read_to_string(&corpus_path).expect("interop/apply/corpus.jsonl");
    let mut checked = 0;
    for line in corpus.lines() {
        let stream: Value = serde_json::from_str(line).unwrap();
        let name = stream["name"].as_str().unwrap();
        let events: Vec<Event> = stream["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|raw| Event::from_value(raw).unwrap())
            .collect();
        let run = |events: &[Event]| {
            let initial: Vec<Message> = serde_json::from_value(stream["messages"].clone()).unwrap();
            let mut reducer = Reducer::new()
                .with_messages(initial)
                .with_state(stream["state"].clone());
            for event in events {
                let _ = reducer.apply(event);
            }
            (
                serde_json::to_value(reducer.messages()).unwrap(),
                reducer.state().clone(),
            )
        };
        let compacted = ag_ui::client::compact::compact(&events).expect("within the limits");
        assert_eq!(run(&compacted), run(&events), "{name}");
        checked += 1;
    }
    assert!(checked >= 300);
}
