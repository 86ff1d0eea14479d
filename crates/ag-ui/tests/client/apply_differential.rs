//! Differential test of the reducer against the reference: @ag-ui/client 1.0.0
//! `defaultApplyEvents`, run live under Node over the recorded corpus
//! `interop/apply/corpus.jsonl` (written by `interop/apply/generate.mjs`).
//!
//! Per stream, ours must equal the reference's final messages, state and pending interrupts (as
//! JSON), report a messages/state change on exactly the events where the reference emits an
//! update, and report the same outcome, result and pending tool call ids at every RUN_FINISHED.
#![cfg(feature = "client")]

use std::path::PathBuf;

use crate::support::node::{self, interop};

use ag_ui::client::{Reducer, RunOutcome};
use ag_ui::{Event, Message};
use serde_json::{Value, json};

fn run_reference(corpus: &PathBuf) -> Vec<Value> {
    node::json_lines("apply/apply.mjs", &[corpus])
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
    node::json_lines("compact/compact.mjs", &[corpus])
}

fn verifies(events: &[Event]) -> Result<usize, ag_ui::verify::Violation> {
    ag_ui::verify::verify_all(events)
}

/// Compares `compact` with the reference's `compactEvents` on `streams`. Ours builds the same
/// conversation as the input (the reference's does not when streams overlap), verifies whenever
/// the input does, and equals the reference's output on plain streams (see [`plain`]). Returns
/// (plain streams, all equal to the reference; streams that verify).
fn compact_against_reference(file: &PathBuf, streams: &[(String, Vec<Event>)]) -> (usize, usize) {
    let expected = run_reference_compact(file);
    assert_eq!(streams.len(), expected.len());
    let show = |es: &[Event]| {
        es.iter()
            .map(|e| e.to_json())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (mut same, mut valid_inputs) = (0, 0);
    for ((name, events), want) in streams.iter().zip(&expected) {
        let ours = ag_ui::client::compact(events).expect("within the limits");
        let theirs: Vec<Event> = want
            .as_array()
            .unwrap()
            .iter()
            .map(|raw| Event::from_value(raw).unwrap_or_else(|e| panic!("{name}: {raw}: {e}")))
            .collect();
        if verifies(events).is_ok() {
            valid_inputs += 1;
            if let Err(v) = verifies(&ours) {
                panic!(
                    "{name}: the compacted stream does not verify: {v}\ninput:\n{}\nours:\n{}",
                    show(events),
                    show(&ours)
                );
            }
        }
        assert_eq!(
            apply_all(&ours),
            apply_all(events),
            "{name}: the compacted stream builds another conversation\ninput:\n{}\nours:\n{}",
            show(events),
            show(&ours)
        );
        if plain(events) {
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
        }
    }
    (same, valid_inputs)
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
    let (same, valid) = compact_against_reference(&interop().join("apply/corpus.jsonl"), &streams);
    eprintln!("corpus: {same} plain streams the same as the reference, {valid} valid inputs");
    assert!(valid >= 200, "too few valid streams: {valid}");
    assert!(same >= 40, "too few plain streams: {same}");
}

/// `compact` against `compactEvents` on 400 generated streams (seeded), valid ones with
/// interleaved messages and tool calls of several owners, events inside open streams, state
/// windows, several runs, runs that fail with streams open, and streams cut off mid-run: ours
/// builds the same conversation as the input, verifies, and equals the reference's on the
/// plain ones.
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
    let (same, valid) = compact_against_reference(&file, &streams);
    std::fs::remove_file(&file).unwrap();
    eprintln!("generated: {same} plain streams the same as the reference, {valid} valid inputs");
    assert!(valid >= 300, "too few valid streams: {valid}");
    assert!(same >= 3, "too few plain streams: {same}");
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

/// Whether the reference's `compactEvents` and ours agree on `events` by construction: one text
/// message or tool call open at a time, started once, nothing but its own deltas inside it, no
/// reasoning content (the reference does not join it), and in every state window nothing but
/// state events from its first one on, a snapshot first if it has one (the reference sends a
/// window's state events where the window ends and drops those before its last snapshot; ours
/// keeps those before its first snapshot where they are).
fn plain(events: &[Event]) -> bool {
    let mut open: Option<String> = None;
    let mut started = std::collections::HashSet::new();
    let mut window: Vec<bool> = Vec::new(); // per state event: is it a snapshot
    let window_ok = |w: &[bool]| !w.contains(&true) || w[0];
    // Whether a non-state event came after the window's first state event.
    let mut interrupted = false;
    for event in events {
        let (id, starts, ends) = match event {
            Event::TextMessageStart(e) => (format!("m:{}", e.message_id.as_str()), true, false),
            Event::TextMessageContent(e) => (format!("m:{}", e.message_id.as_str()), false, false),
            Event::TextMessageEnd(e) => (format!("m:{}", e.message_id.as_str()), false, true),
            Event::ToolCallStart(e) => (format!("c:{}", e.tool_call_id.as_str()), true, false),
            Event::ToolCallArgs(e) => (format!("c:{}", e.tool_call_id.as_str()), false, false),
            Event::ToolCallEnd(e) => (format!("c:{}", e.tool_call_id.as_str()), false, true),
            Event::ReasoningMessageContent(_) => return false,
            other => {
                if open.is_some() {
                    return false;
                }
                match other {
                    Event::StateSnapshot(_) => window.push(true),
                    Event::StateDelta(_) => window.push(false),
                    Event::RunStarted(_) | Event::RunFinished(_) | Event::RunError(_) => {
                        if interrupted || !window_ok(&window) {
                            return false;
                        }
                        window.clear();
                    }
                    _ => interrupted |= !window.is_empty(),
                }
                continue;
            }
        };
        interrupted |= !window.is_empty();
        if starts {
            if open.is_some() || !started.insert(id.clone()) {
                return false;
            }
            open = Some(id);
        } else if open.as_deref() != Some(id.as_str()) {
            return false;
        } else if ends {
            open = None;
        }
    }
    !interrupted && window_ok(&window)
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
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut out = Vec::new();
    let mut counter = 0;
    let runs = 1 + rng.below(3);
    for run in 0..runs {
        out.push(Event::run_started("t", format!("r{run}")));
        let mut open = OpenInRun::default();
        for _ in 0..(5 + rng.below(30)) {
            counter += 1;
            open.step(&mut rng, &mut out, counter, sequential);
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
        open.close(&mut out);
        out.push(Event::run_finished("t", format!("r{run}")));
    }
    out
}

/// What one generated run has open: text messages and tool calls (`(id, owner)`), tool calls
/// ended without their result yet, subagents, steps; and the state keys added so far.
#[derive(Default)]
struct OpenInRun {
    texts: Vec<(String, Option<String>)>,
    tools: Vec<(String, Option<String>)>,
    ended_tools: Vec<String>,
    subagents: Vec<String>,
    steps: Vec<String>,
    keys: usize,
}

impl OpenInRun {
    /// One random piece of activity (the run's event `counter`) onto `out`, for the run or one
    /// of its open subagents.
    fn step(&mut self, rng: &mut Rng, out: &mut Vec<Event>, counter: usize, sequential: bool) {
        use ag_ui::TextMessageRole;
        let owner = if !self.subagents.is_empty() && rng.chance(40) {
            Some(self.subagents[rng.below(self.subagents.len())].clone())
        } else {
            None
        };
        match rng.below(16) {
            0 | 1 if !(sequential && !(self.texts.is_empty() && self.tools.is_empty())) => {
                let id = format!("m{counter}");
                out.push(meta(
                    rng,
                    tag(
                        Event::text_message_start(id.as_str(), TextMessageRole::Assistant),
                        &owner,
                    ),
                ));
                self.texts.push((id, owner));
            }
            2..=4 if !self.texts.is_empty() => {
                let (id, owner) = self.texts[rng.below(self.texts.len())].clone();
                let e = Event::text_message_content(id.as_str(), format!("d{counter} "));
                out.push(meta(rng, tag(e, &owner)));
            }
            5 if !self.texts.is_empty() => {
                let (id, owner) = self.texts.remove(rng.below(self.texts.len()));
                out.push(tag(Event::text_message_end(id.as_str()), &owner));
            }
            6 if !(sequential && !(self.texts.is_empty() && self.tools.is_empty())) => {
                let id = format!("c{counter}");
                let mut e = ag_ui::ToolCallStartEvent::new(id.as_str(), "tool");
                if let Some((parent, _)) = self.texts.iter().find(|(_, o)| *o == owner) {
                    e = e.with_parent_message_id(parent.as_str());
                }
                out.push(meta(rng, tag(e.into(), &owner)));
                self.tools.push((id, owner));
            }
            7 if !self.tools.is_empty() => {
                let (id, owner) = self.tools[rng.below(self.tools.len())].clone();
                out.push(meta(
                    rng,
                    tag(
                        Event::tool_call_args(id.as_str(), format!("{{{counter}")),
                        &owner,
                    ),
                ));
            }
            8 if !self.tools.is_empty() => {
                let (id, owner) = self.tools.remove(rng.below(self.tools.len()));
                out.push(tag(Event::tool_call_end(id.as_str()), &owner));
                self.ended_tools.push(id);
            }
            9 if !self.ended_tools.is_empty() => {
                let id = self.ended_tools.remove(rng.below(self.ended_tools.len()));
                out.push(Event::tool_call_result(
                    format!("res-{id}"),
                    id.as_str(),
                    "ok",
                ));
            }
            10 => {
                self.keys += 1;
                let e = if rng.chance(30) {
                    Event::state_snapshot(json!({"n": counter}))
                } else {
                    Event::state_delta(
                        serde_json::from_value(json!([{"op": "add", "path": format!("/k{}", self.keys), "value": counter}]))
                            .unwrap(),
                    )
                };
                out.push(meta(rng, e));
            }
            11 => out.push(meta(rng, Event::custom("c", json!(counter)))),
            12 if self.steps.is_empty() || rng.chance(50) => {
                let name = format!("s{counter}");
                out.push(Event::step_started(name.as_str()));
                self.steps.push(name);
            }
            12 => out.push(Event::step_finished(self.steps.pop().unwrap().as_str())),
            13 if self.subagents.len() < 2 => {
                let id = format!("sub{counter}");
                out.push(Event::subagent_started(id.as_str(), "helper"));
                self.subagents.push(id);
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

    /// Ends everything still open, as a run that finishes must: text messages, tool calls,
    /// steps (innermost first), subagents.
    fn close(&mut self, out: &mut Vec<Event>) {
        for (id, owner) in self.texts.drain(..) {
            out.push(tag(Event::text_message_end(id.as_str()), &owner));
        }
        for (id, owner) in self.tools.drain(..) {
            out.push(tag(Event::tool_call_end(id.as_str()), &owner));
        }
        for name in self.steps.drain(..).rev() {
            out.push(Event::step_finished(name.as_str()));
        }
        for id in self.subagents.drain(..) {
            out.push(Event::subagent_finished(id.as_str()));
        }
    }
}

/// `e` as sent by the subagent `owner`, if any.
fn tag(e: Event, owner: &Option<String>) -> Event {
    match owner {
        Some(o) => e.with_subagent_run_id(o.as_str()),
        None => e,
    }
}

/// `e`, with random metadata 15 % of the time.
fn meta(rng: &mut Rng, e: Event) -> Event {
    if rng.chance(15) {
        let m: ag_ui::Metadata =
            serde_json::from_value(json!({format!("k{}", rng.below(3)): rng.below(9)})).unwrap();
        e.with_metadata(m)
    } else {
        e
    }
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
        let compacted = ag_ui::client::compact(&events).expect("within the limits");
        assert_eq!(run(&compacted), run(&events), "{name}");
        checked += 1;
    }
    assert!(checked >= 300);
}
