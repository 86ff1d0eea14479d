use crate::verify::{ViolationKind as K, verify_all};
use crate::{Event, Message, TextMessageRole};

fn kind(events: &[Event]) -> Option<(K, usize)> {
    verify_all(events).err().map(|v| (v.kind(), v.index()))
}

/// What the engine holds: entries in its tables, whatever the number of events.
fn held(engine: &super::Engine) -> usize {
    engine.messages.len()
        + engine.tool_calls.len()
        + engine.reasoning.len()
        + engine.activities.len()
        + engine.steps.len()
        + engine.subagents.len()
        + engine.owners.names.len()
}

#[test]
fn memory_grows_with_entities_not_with_events() {
    let mut engine = super::Engine::new(false);
    let mut step = |event: Event| engine.step(&event).unwrap();
    step(Event::run_started("t", "r"));
    step(Event::text_message_start("m1", TextMessageRole::Assistant));
    step(Event::tool_call_start("c1", "f"));
    let after_openers = held(&engine);
    for i in 0..10_000 {
        let mut step = |event: Event| engine.step(&event).unwrap();
        step(Event::text_message_content("m1", "x"));
        step(Event::tool_call_args("c1", "{}"));
        if i % 1000 == 0 {
            assert_eq!(held(&engine), after_openers, "after {i} deltas");
        }
    }
    engine.step(&Event::text_message_end("m1")).unwrap();
    engine.step(&Event::tool_call_end("c1")).unwrap();
    assert_eq!(held(&engine), after_openers);
    // A new run releases the last one's entities.
    engine.step(&Event::run_finished("t", "r")).unwrap();
    engine.step(&Event::run_started("t", "r2")).unwrap();
    assert_eq!(held(&engine), 0);
}

#[test]
fn the_recent_entity_cache_is_forgotten_when_it_goes_stale() {
    let rs = || Event::run_started("t", "r");
    let tms = |id: &str| Event::text_message_start(id, TextMessageRole::Assistant);
    let tmc = |id: &str| Event::text_message_content(id, "x");
    // Closed.
    let closed = [
        rs(),
        tms("m1"),
        tmc("m1"),
        Event::text_message_end("m1"),
        tmc("m1"),
    ];
    assert_eq!(kind(&closed), Some((K::TextNotOpen, 4)));
    // A new run.
    let new_run = [
        rs(),
        tms("m1"),
        tmc("m1"),
        Event::run_error("x"),
        rs(),
        tmc("m1"),
    ];
    assert_eq!(kind(&new_run), Some((K::TextNotOpen, 5)));
    // The owner overwritten by a tool result and by a snapshot.
    let result = [
        rs(),
        tms("m1"),
        tmc("m1"),
        Event::tool_call_result("m1", "t1", "ok").with_subagent_run_id("s1"),
        tmc("m1").with_subagent_run_id("s1"),
        tmc("m1"),
        Event::text_message_end("m1"),
    ];
    assert_eq!(kind(&result), None);
    let snapshot = [
        rs(),
        tms("m1"),
        tmc("m1"),
        Event::messages_snapshot(vec![Message::assistant("m1", "")]),
        tmc("m1").with_subagent_run_id("s1"),
    ];
    assert_eq!(kind(&snapshot), Some((K::OwnerMismatch, 4)));
    // Tool calls and reasoning messages.
    let tool = [
        rs(),
        Event::tool_call_start("t1", "f"),
        Event::tool_call_args("t1", "{"),
        Event::tool_call_end("t1"),
        Event::tool_call_args("t1", "}"),
    ];
    assert_eq!(kind(&tool), Some((K::ToolNotOpen, 4)));
    let reasoning = [
        rs(),
        Event::reasoning_message_start("r1"),
        Event::reasoning_message_content("r1", "a"),
        Event::reasoning_message_end("r1"),
        Event::reasoning_message_content("r1", "b"),
    ];
    assert_eq!(kind(&reasoning), Some((K::ReasoningMessageNotOpen, 4)));
}

#[test]
fn emission_lanes_are_allocated_at_the_first_chunk_and_freed_when_they_close() {
    let lanes = |engine: &super::Engine| engine.emission.as_ref().unwrap().lanes.0.is_some();
    let mut engine = super::Engine::new(true);
    engine.step(&Event::run_started("t", "r")).unwrap();
    engine
        .step(&Event::text_message_start("m1", TextMessageRole::Assistant))
        .unwrap();
    engine
        .step(&Event::text_message_content("m1", "x"))
        .unwrap();
    engine.step(&Event::text_message_end("m1")).unwrap();
    assert!(!lanes(&engine), "a run without chunks holds no lane table");
    engine
        .step(&Event::text_message_chunk(
            Some("m2".into()),
            Some("y".into()),
        ))
        .unwrap();
    assert!(lanes(&engine));
    assert_eq!(engine.emission.as_ref().unwrap().lanes.len(), 1);
    // RUN_FINISHED closes every lane: the table is given back.
    engine.step(&Event::run_finished("t", "r")).unwrap();
    assert!(!lanes(&engine));
}

#[test]
fn tables_hash_with_keys_shared_by_every_table_of_the_process() {
    use std::hash::BuildHasher;
    let one = crate::lanes::Keys.hash_one("message-1");
    assert_eq!(one, crate::lanes::Keys.hash_one("message-1"));
    assert_ne!(one, crate::lanes::Keys.hash_one("message-2"));
    assert_eq!(std::mem::size_of::<crate::lanes::Keys>(), 0);
}
