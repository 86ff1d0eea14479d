//! The worked examples of `protocol/chunks.md` §8, the concurrency cases of the subagent design,
//! and the details of field propagation and error atomicity.

use serde_json::json;

use super::*;
use crate::{EventType, Metadata, TextMessageRole};

// ----- builders -----

fn tmk(id: Option<&str>, delta: Option<&str>) -> TextMessageChunkEvent {
    let mut e = TextMessageChunkEvent::new();
    e.message_id = id.map(MessageId::new);
    e.delta = delta.map(str::to_owned);
    e
}

fn tck(id: Option<&str>, name: Option<&str>, delta: Option<&str>) -> ToolCallChunkEvent {
    let mut e = ToolCallChunkEvent::new();
    e.tool_call_id = id.map(ToolCallId::new);
    e.tool_call_name = name.map(str::to_owned);
    e.delta = delta.map(str::to_owned);
    e
}

fn rmk(id: Option<&str>, delta: Option<&str>) -> Event {
    Event::reasoning_message_chunk(id.map(MessageId::new), delta.map(str::to_owned))
}

fn at(event: impl Into<Event>, subagent: &str) -> Event {
    event.into().with_subagent_run_id(subagent)
}

fn tms(id: &str) -> Event {
    Event::text_message_start(id, TextMessageRole::Assistant)
}

fn tmc(id: &str, delta: &str) -> Event {
    Event::text_message_content(id, delta)
}

fn tme(id: &str) -> Event {
    Event::text_message_end(id)
}

fn rf() -> Event {
    Event::run_finished("t", "r")
}

fn rs() -> Event {
    Event::run_started("t", "r")
}

fn meta(value: serde_json::Value) -> Metadata {
    match value {
        serde_json::Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// What the reference emits: every event pushed one at a time, stopping at the first error
/// (with what was emitted before it).
fn stream(events: impl IntoIterator<Item = impl Into<Event>>) -> (Vec<Event>, Option<ChunkError>) {
    let mut normalizer = ChunkNormalizer::new();
    let mut out = Vec::new();
    for event in events {
        match normalizer.push(event.into()) {
            Ok(expanded) => out.extend(expanded),
            Err(error) => return (out, Some(error)),
        }
    }
    (out, None)
}

fn ok<E: Into<Event>>(events: impl IntoIterator<Item = E>) -> Vec<Event> {
    let (out, error) = stream(events);
    assert_eq!(error, None, "unexpected error after {out:#?}");
    out
}

fn fails(
    events: impl IntoIterator<Item = impl Into<Event>>,
    kind: ChunkErrorKind,
    index: usize,
) -> (Vec<Event>, ChunkError) {
    let (out, error) = stream(events);
    let error = error.unwrap_or_else(|| panic!("expected {kind}, got {out:#?}"));
    assert_eq!((error.kind(), error.index()), (kind, index), "{error}");
    (out, error)
}

// ----- §8 worked examples -----

#[test]
fn ex01_id_less_chunk_continues() {
    assert_eq!(
        ok([
            tmk(Some("m1"), Some("a")).into(),
            tmk(None, Some("b")).into(),
            rf()
        ]),
        [tms("m1"), tmc("m1", "a"), tmc("m1", "b"), tme("m1"), rf()]
    );
}

#[test]
fn ex02_new_id_ends_the_previous_message() {
    assert_eq!(
        ok([
            tmk(Some("m1"), Some("a")).into(),
            tmk(Some("m2"), Some("b")).into(),
            rf()
        ]),
        [
            tms("m1"),
            tmc("m1", "a"),
            tme("m1"),
            tms("m2"),
            tmc("m2", "b"),
            tme("m2"),
            rf()
        ]
    );
}

#[test]
fn ex03_first_chunk_needs_id_and_tool_name() {
    let (out, error) = fails([tmk(None, Some("a"))], ChunkErrorKind::MissingId, 0);
    assert!(out.is_empty());
    assert_eq!(error.field(), Some("messageId"));
    assert_eq!(error.event_type(), EventType::TextMessageChunk);

    let (out, error) = fails(
        [tck(Some("c1"), None, Some("{"))],
        ChunkErrorKind::MissingName,
        0,
    );
    assert!(out.is_empty());
    assert_eq!(
        (error.id(), error.field()),
        (Some("c1"), Some("toolCallName"))
    );

    let (_, error) = fails(
        [tck(None, Some("fn"), Some("{"))],
        ChunkErrorKind::MissingId,
        0,
    );
    assert_eq!(error.field(), Some("toolCallId"));
    let (_, error) = fails([rmk(None, Some("x"))], ChunkErrorKind::MissingId, 0);
    assert_eq!(error.event_type(), EventType::ReasoningMessageChunk);
}

#[test]
fn ex04_chunks_without_deltas() {
    assert_eq!(
        ok([
            tmk(Some("m1"), None).into(),
            tck(Some("c1"), Some("fn"), None).into(),
            rf()
        ]),
        [
            tms("m1"),
            tme("m1"),
            Event::tool_call_start("c1", "fn"),
            Event::tool_call_end("c1"),
            rf()
        ]
    );
}

#[test]
fn ex05_role_and_name_on_start_only() {
    let chunk = tmk(Some("m1"), Some("a"))
        .with_role(TextMessageRole::User)
        .with_name("bob");
    assert_eq!(
        ok([chunk]),
        [
            TextMessageStartEvent::new("m1")
                .with_role(TextMessageRole::User)
                .with_name("bob")
                .into(),
            tmc("m1", "a")
        ]
    );
}

#[test]
fn ex06_interleaved_subagents() {
    assert_eq!(
        ok([
            at(tmk(Some("m1"), Some("A")), "s1"),
            at(tmk(Some("m2"), Some("B")), "s2"),
            at(tmk(None, Some("C")), "s1"),
            rf(),
        ]),
        [
            at(tms("m1"), "s1"),
            at(tmc("m1", "A"), "s1"),
            at(tms("m2"), "s2"),
            at(tmc("m2", "B"), "s2"),
            at(tmc("m1", "C"), "s1"),
            at(tme("m1"), "s1"),
            at(tme("m2"), "s2"),
            rf()
        ]
    );
}

#[test]
fn ex07_ambiguous_chunk_is_rejected() {
    let (out, error) = fails(
        [
            at(tmk(Some("m1"), Some("A")), "s1"),
            at(tmk(Some("m2"), Some("B")), "s2"),
            tmk(None, Some("C")).into(),
        ],
        ChunkErrorKind::Ambiguous,
        2,
    );
    assert_eq!(out.len(), 4);
    assert_eq!(
        error.owners(),
        [
            Some(SubagentRunId::new("s1")),
            Some(SubagentRunId::new("s2"))
        ]
    );
    assert_eq!(error.id(), None);
    let message = error.to_string();
    assert!(
        message.starts_with("chunk.ambiguous: event 2 (TEXT_MESSAGE_CHUNK)"),
        "{message}"
    );
    assert!(
        message.contains("subagent \"s1\", subagent \"s2\""),
        "{message}"
    );
}

#[test]
fn ex08_parent_lane_preferred() {
    assert_eq!(
        ok([
            at(tmk(Some("m1"), Some("A")), "s1"),
            tmk(Some("p1"), Some("P")).into(),
            tmk(None, Some("Q")).into(),
            rf(),
        ]),
        [
            at(tms("m1"), "s1"),
            at(tmc("m1", "A"), "s1"),
            tms("p1"),
            tmc("p1", "P"),
            tmc("p1", "Q"),
            at(tme("m1"), "s1"),
            tme("p1"),
            rf()
        ]
    );
}

#[test]
fn ex09_sole_lane_of_the_kind() {
    assert_eq!(
        ok([
            tck(Some("c1"), Some("fn"), Some("{")).into(),
            at(tmk(Some("m1"), Some("A")), "s1"),
            tmk(None, Some("B")).into(),
            rf(),
        ]),
        [
            Event::tool_call_start("c1", "fn"),
            Event::tool_call_args("c1", "{"),
            at(tms("m1"), "s1"),
            at(tmc("m1", "A"), "s1"),
            at(tmc("m1", "B"), "s1"),
            Event::tool_call_end("c1"),
            at(tme("m1"), "s1"),
            rf()
        ]
    );
}

#[test]
fn ex10_id_beats_missing_tag() {
    let out = ok([
        at(tmk(Some("m1"), Some("A")), "s1"),
        at(tmk(Some("m2"), Some("B")), "s2"),
        tmk(Some("m1"), Some("C")).into(),
    ]);
    assert_eq!(out[4..], [at(tmc("m1", "C"), "s1")]);
}

#[test]
fn ex11_tag_disagreement() {
    let (out, error) = fails(
        [
            at(tmk(Some("m1"), Some("A")), "s1"),
            at(tmk(Some("m1"), Some("B")), "s2"),
        ],
        ChunkErrorKind::OwnerMismatch,
        1,
    );
    assert_eq!(out.len(), 2);
    assert_eq!(error.id(), Some("m1"));
    assert_eq!(error.field(), Some("subagentRunId"));
    assert_eq!(
        error.subagent_run_id().map(SubagentRunId::as_str),
        Some("s2")
    );
    assert_eq!(error.owners(), [Some(SubagentRunId::new("s1"))]);

    // Also without a delta.
    fails(
        [
            at(tmk(Some("m1"), Some("A")), "s1"),
            at(tmk(Some("m1"), None), "s2"),
        ],
        ChunkErrorKind::OwnerMismatch,
        1,
    );
    // The parent counts as an owner.
    let (_, error) = fails(
        [
            tmk(Some("p1"), Some("A")).into(),
            at(tmk(Some("p1"), None), "s1"),
        ],
        ChunkErrorKind::OwnerMismatch,
        1,
    );
    assert_eq!(error.owners(), [None]);
    assert!(error.to_string().contains("the parent agent"), "{error}");
}

#[test]
fn ex12_tagged_id_less_chunk_for_an_empty_lane() {
    fails(
        [
            at(tmk(Some("m1"), Some("A")), "s1"),
            at(tmk(None, Some("B")), "s2"),
        ],
        ChunkErrorKind::MissingId,
        1,
    );
}

#[test]
fn ex13_subagent_terminal_closes_its_lane_only() {
    let out = ok([
        at(tmk(Some("m1"), Some("A")), "s1"),
        at(tmk(Some("m2"), Some("B")), "s2"),
        Event::subagent_finished("s1"),
        at(tmk(None, Some("C")), "s2"),
        rf(),
    ]);
    assert_eq!(
        out[4..],
        [
            at(tme("m1"), "s1"),
            Event::subagent_finished("s1"),
            at(tmc("m2", "C"), "s2"),
            at(tme("m2"), "s2"),
            rf()
        ]
    );
    // SUBAGENT_ERROR likewise; a terminal for a subagent with nothing open closes nothing.
    let out = ok([
        at(tmk(Some("m1"), Some("A")), "s1"),
        Event::subagent_error("s9", "boom"),
        Event::subagent_error("s1", "boom"),
    ]);
    assert_eq!(
        out[2..],
        [
            Event::subagent_error("s9", "boom"),
            at(tme("m1"), "s1"),
            Event::subagent_error("s1", "boom")
        ]
    );
}

#[test]
fn ex14_pass_through_events_close_nothing() {
    let passers = [
        Event::activity_snapshot("a1", "PLAN", Metadata::new()),
        Event::activity_delta("a1", "PLAN", vec![]),
        Event::raw(json!({"x": 1})),
        Event::reasoning_encrypted_value(
            crate::ReasoningEncryptedValueSubtype::Message,
            "m1",
            "secret",
        ),
        Event::subagent_started("s1", "helper"),
    ];
    for passer in passers {
        for tag in [None, Some("s1")] {
            let passer = match tag {
                Some(tag) => at(passer.clone(), tag),
                None => passer.clone(),
            };
            let out = ok([
                tmk(Some("p1"), Some("A")).into(),
                at(tmk(Some("m1"), Some("B")), "s1"),
                passer.clone(),
                tmk(None, Some("C")).into(),
                at(tmk(None, Some("D")), "s1"),
            ]);
            assert_eq!(
                out[4..],
                [passer, tmc("p1", "C"), at(tmc("m1", "D"), "s1")],
                "{:?}",
                tag
            );
        }
    }
}

#[test]
fn ex15_own_lane_closers() {
    let tcr = Event::tool_call_result("tr1", "c9", "done");
    let out = ok([
        at(tmk(Some("m1"), Some("A")), "s1"),
        tmk(Some("p1"), Some("P")).into(),
        tcr.clone(),
        at(tmk(None, Some("B")), "s1"),
        rf(),
    ]);
    assert_eq!(
        out[4..],
        [
            tme("p1"),
            tcr,
            at(tmc("m1", "B"), "s1"),
            at(tme("m1"), "s1"),
            rf()
        ]
    );
}

#[test]
fn ex15_every_own_lane_closer() {
    let closers = [
        tms("x"),
        tmc("x", "."),
        tme("x"),
        Event::tool_call_start("x", "fn"),
        Event::tool_call_args("x", "."),
        Event::tool_call_end("x"),
        Event::tool_call_result("x", "y", "z"),
        Event::state_snapshot(json!({})),
        Event::state_delta(vec![]),
        Event::custom("c", json!(null)),
        Event::step_started("s"),
        Event::step_finished("s"),
        Event::reasoning_start("x"),
        Event::reasoning_message_start("x"),
        Event::reasoning_message_content("x", "."),
        Event::reasoning_message_end("x"),
        Event::reasoning_end("x"),
    ];
    for closer in closers {
        // Untagged: closes the parent's lane, not s1's.
        let out = ok([
            at(tmk(Some("m1"), Some("A")), "s1"),
            tmk(Some("p1"), Some("P")).into(),
            closer.clone(),
        ]);
        assert_eq!(out[4..], [tme("p1"), closer.clone()], "{closer:?}");
        // Tagged: closes only that subagent's lane.
        let tagged = at(closer.clone(), "s1");
        let out = ok([
            at(tmk(Some("m1"), Some("A")), "s1"),
            tmk(Some("p1"), Some("P")).into(),
            tagged.clone(),
        ]);
        assert_eq!(out[4..], [at(tme("m1"), "s1"), tagged], "{closer:?}");
    }
}

#[test]
fn ex16_explicit_events_and_chunk_lanes() {
    let out = ok([at(tmk(Some("m1"), Some("A")), "s1"), at(tms("x1"), "s1")]);
    assert_eq!(
        out,
        [
            at(tms("m1"), "s1"),
            at(tmc("m1", "A"), "s1"),
            at(tme("m1"), "s1"),
            at(tms("x1"), "s1")
        ]
    );
    // The parent's explicit message does not end s1's chunk message.
    let out = ok([
        at(tmk(Some("m1"), Some("A")), "s1"),
        tms("p1"),
        tme("p1"),
        at(tmk(None, Some("B")), "s1"),
    ]);
    assert_eq!(
        out,
        [
            at(tms("m1"), "s1"),
            at(tmc("m1", "A"), "s1"),
            tms("p1"),
            tme("p1"),
            at(tmc("m1", "B"), "s1")
        ]
    );
    // An explicit event naming the message a chunk stream builds ends that stream first.
    let out = ok([tmk(Some("m1"), Some("a")).into(), tmc("m1", "b")]);
    assert_eq!(out, [tms("m1"), tmc("m1", "a"), tme("m1"), tmc("m1", "b")]);
}

#[test]
fn ex17_kind_switch_in_one_lane() {
    let out = ok([
        at(tmk(Some("m1"), Some("A")), "s1"),
        at(rmk(Some("r1"), Some("R")), "s1"),
        rf(),
    ]);
    assert_eq!(
        out,
        [
            at(tms("m1"), "s1"),
            at(tmc("m1", "A"), "s1"),
            at(tme("m1"), "s1"),
            at(Event::reasoning_message_start("r1"), "s1"),
            at(Event::reasoning_message_content("r1", "R"), "s1"),
            at(Event::reasoning_message_end("r1"), "s1"),
            rf()
        ]
    );
}

#[test]
fn ex18_lane_order_after_reopen() {
    let out = ok([
        at(rmk(Some("ra"), None), "s1"),
        at(rmk(Some("rb"), None), "s2"),
        at(rmk(Some("rc"), None), "s1"),
        at(rmk(None, Some("d")), "s2"),
        rf(),
    ]);
    assert_eq!(
        out,
        [
            at(Event::reasoning_message_start("ra"), "s1"),
            at(Event::reasoning_message_start("rb"), "s2"),
            at(Event::reasoning_message_end("ra"), "s1"),
            at(Event::reasoning_message_start("rc"), "s1"),
            at(Event::reasoning_message_content("rb", "d"), "s2"),
            at(Event::reasoning_message_end("rb"), "s2"),
            at(Event::reasoning_message_end("rc"), "s1"),
            rf()
        ]
    );
}

#[test]
fn ex19_metadata_raw_event_and_timestamp() {
    // (The reference also copies undescribed properties such as `foo`; a typed event has none.)
    let first = tmk(Some("m1"), Some("a"))
        .with_metadata(meta(json!({"k": 1})))
        .with_raw_event(json!({"x": 1}))
        .with_timestamp(5);
    let second = tmk(None, None).with_metadata(meta(json!({"usage": 2})));
    let out = ok([first.into(), second.into(), rf()]);
    assert_eq!(
        out,
        [
            tms("m1").with_metadata(meta(json!({"k": 1}))),
            tmc("m1", "a")
                .with_metadata(meta(json!({"k": 1})))
                .with_raw_event(json!({"x": 1})),
            tmc("m1", "").with_metadata(meta(json!({"usage": 2}))),
            tme("m1"),
            rf()
        ]
    );
    assert!(out.iter().all(|e| e.timestamp().is_none()));
    // Non-chunk events keep theirs.
    let out = ok([tmk(Some("m1"), None).into(), rf().with_timestamp(9)]);
    assert_eq!(out[2].timestamp(), Some(9));
}

#[test]
fn ex20_raw_event_alone_gives_content() {
    let out = ok([tmk(Some("m1"), None).with_raw_event(json!({"x": 1}))]);
    assert_eq!(
        out,
        [tms("m1"), tmc("m1", "").with_raw_event(json!({"x": 1}))]
    );
    // A continuation with nothing at all emits nothing.
    let out = ok([
        tmk(Some("m1"), Some("a")),
        tmk(None, None),
        tmk(Some("m1"), None),
    ]);
    assert_eq!(out, [tms("m1"), tmc("m1", "a")]);
    // An opener with only metadata: the START alone carries it.
    let out = ok([tmk(Some("m1"), None).with_metadata(meta(json!({"k": 1})))]);
    assert_eq!(out, [tms("m1").with_metadata(meta(json!({"k": 1})))]);
}

// ex21 (null tags) cannot be expressed: a typed event cannot hold `subagentRunId: null`.

#[test]
fn ex22_empty_id_is_a_real_id() {
    let out = ok([
        at(rmk(Some("r"), Some("A")), "s1"),
        at(rmk(Some(""), Some("B")), "s2"),
        rf(),
    ]);
    assert_eq!(
        out,
        [
            at(Event::reasoning_message_start("r"), "s1"),
            at(Event::reasoning_message_content("r", "A"), "s1"),
            at(Event::reasoning_message_start(""), "s2"),
            at(Event::reasoning_message_content("", "B"), "s2"),
            at(Event::reasoning_message_end("r"), "s1"),
            at(Event::reasoning_message_end(""), "s2"),
            rf()
        ]
    );
    // And "" is a subagent of its own, distinct from the parent.
    let out = ok([
        at(tmk(Some("m1"), Some("A")), ""),
        tmk(Some("m2"), Some("B")).into(),
    ]);
    assert_eq!(out[2..], [tms("m2"), tmc("m2", "B")]);
}

#[test]
fn ex23_field_mismatch() {
    let user = |e: TextMessageChunkEvent| e.with_role(TextMessageRole::User);
    let (out, error) = fails(
        [
            user(tmk(Some("m1"), Some("a"))),
            tmk(None, Some("b")).with_role(TextMessageRole::Assistant),
        ],
        ChunkErrorKind::FieldMismatch,
        1,
    );
    assert_eq!(out.len(), 2);
    assert_eq!(
        (error.id(), error.field(), error.found(), error.expected()),
        (Some("m1"), Some("role"), Some("assistant"), Some("user"))
    );
    // Repeating the same role is fine.
    ok([user(tmk(Some("m1"), Some("a"))), user(tmk(None, Some("b")))]);
    // The default role is assistant.
    fails(
        [tmk(Some("m1"), Some("a")), user(tmk(None, Some("b")))],
        ChunkErrorKind::FieldMismatch,
        1,
    );
    ok([
        tmk(Some("m1"), Some("a")),
        tmk(None, Some("b")).with_role(TextMessageRole::Assistant),
    ]);
    // An absent name differs from any name.
    let (_, error) = fails(
        [
            tmk(Some("m1"), Some("a")),
            tmk(None, Some("b")).with_name("bob"),
        ],
        ChunkErrorKind::FieldMismatch,
        1,
    );
    assert_eq!((error.field(), error.expected()), (Some("name"), None));
    assert!(
        error
            .to_string()
            .ends_with("but it was opened with no name"),
        "{error}"
    );
    // Tool parent message and name.
    let (_, error) = fails(
        [
            tck(Some("c1"), Some("fn"), Some("{")).with_parent_message_id("p"),
            tck(None, None, Some("}")).with_parent_message_id("q"),
        ],
        ChunkErrorKind::FieldMismatch,
        1,
    );
    assert_eq!(
        (error.field(), error.found(), error.expected()),
        (Some("parentMessageId"), Some("q"), Some("p"))
    );
    fails(
        [
            tck(Some("c1"), Some("fn"), Some("{")),
            tck(None, None, Some("}")).with_parent_message_id("q"),
        ],
        ChunkErrorKind::FieldMismatch,
        1,
    );
    let (_, error) = fails(
        [
            tck(Some("c1"), Some("fn"), Some("{")),
            tck(Some("c1"), Some("other"), Some("}")),
        ],
        ChunkErrorKind::FieldMismatch,
        1,
    );
    assert_eq!(error.field(), Some("toolCallName"));
    // Repeating the same values is fine.
    ok([
        tck(Some("c1"), Some("fn"), Some("{")).with_parent_message_id("p"),
        tck(Some("c1"), Some("fn"), Some("}")).with_parent_message_id("p"),
    ]);
}

#[test]
fn ex24_tool_chunk_fields() {
    let first = tck(Some("c1"), Some("search"), Some("{\"a\":"))
        .with_parent_message_id("m9")
        .with_metadata(meta(json!({"k": 1})));
    let out = ok([at(first, "s1"), tck(None, None, Some("1}")).into(), rf()]);
    assert_eq!(
        out,
        [
            at(
                ToolCallStartEvent::new("c1", "search")
                    .with_parent_message_id("m9")
                    .with_metadata(meta(json!({"k": 1}))),
                "s1"
            ),
            at(
                Event::tool_call_args("c1", "{\"a\":").with_metadata(meta(json!({"k": 1}))),
                "s1"
            ),
            at(Event::tool_call_args("c1", "1}"), "s1"),
            at(Event::tool_call_end("c1"), "s1"),
            rf()
        ]
    );
}

#[test]
fn ex25_error_atomicity() {
    let (out, error) = fails(
        [
            tck(Some("c1"), Some("f"), Some("{")),
            tck(Some("c2"), None, Some("x")),
        ],
        ChunkErrorKind::MissingName,
        1,
    );
    assert_eq!(
        out,
        [
            Event::tool_call_start("c1", "f"),
            Event::tool_call_args("c1", "{")
        ]
    );
    assert_eq!(error.id(), Some("c2"));
}

#[test]
fn ex26_run_level_events_close_all_and_end_of_input_closes_none() {
    for closer in [
        rs(),
        Event::messages_snapshot(vec![]),
        rf(),
        Event::run_error("x"),
    ] {
        let out = ok([
            tmk(Some("m1"), Some("a")).into(),
            at(tck(Some("c1"), Some("f"), None), "s1"),
            closer.clone(),
        ]);
        assert_eq!(
            out[3..],
            [tme("m1"), at(Event::tool_call_end("c1"), "s1"), closer]
        );
    }
    assert_eq!(
        ok([tmk(Some("m1"), Some("a"))]),
        [tms("m1"), tmc("m1", "a")]
    );
    // normalize_all closes it.
    assert_eq!(
        normalize_all([tmk(Some("m1"), Some("a")).into()]).unwrap(),
        [tms("m1"), tmc("m1", "a"), tme("m1")]
    );
}

#[test]
fn ex27_a_new_run_starts_with_empty_lanes() {
    let (out, _) = fails(
        [
            rs(),
            at(rmk(Some("r1"), Some("a")), "s1"),
            rf(),
            rs(),
            at(rmk(None, Some("b")), "s2"),
        ],
        ChunkErrorKind::MissingId,
        4,
    );
    assert_eq!(out.len(), 6);
}

#[test]
fn reopening_an_id_starts_it_again() {
    // chunks.md §7.
    let out = ok::<Event>([
        tmk(Some("m1"), Some("a")).into(),
        tck(Some("t1"), Some("fn"), Some("{")).into(),
        tmk(Some("m1"), Some("b")).into(),
    ]);
    assert_eq!(
        out,
        [
            tms("m1"),
            tmc("m1", "a"),
            tme("m1"),
            Event::tool_call_start("t1", "fn"),
            Event::tool_call_args("t1", "{"),
            Event::tool_call_end("t1"),
            tms("m1"),
            tmc("m1", "b")
        ]
    );
}

#[test]
fn reasoning_chunks_inside_an_explicit_span() {
    // chunks.md §6.
    let out = ok([
        rs(),
        Event::reasoning_start("r"),
        rmk(Some("r"), Some("x")),
        Event::reasoning_end("r"),
        rf(),
    ]);
    assert_eq!(
        out,
        [
            rs(),
            Event::reasoning_start("r"),
            Event::reasoning_message_start("r"),
            Event::reasoning_message_content("r", "x"),
            Event::reasoning_message_end("r"),
            Event::reasoning_end("r"),
            rf()
        ]
    );
}

// ----- the concurrency cases -----

#[test]
fn two_subagents_stream_text_at_once() {
    let mut input = vec![
        rs(),
        Event::subagent_started("s1", "researcher"),
        Event::subagent_started("s2", "writer"),
        at(tmk(Some("a"), Some("a0")), "s1"),
        at(tmk(Some("b"), Some("b0")), "s2"),
    ];
    for i in 1..4 {
        input.push(at(tmk(None, Some(&format!("b{i}"))), "s2"));
        input.push(at(tmk(None, Some(&format!("a{i}"))), "s1"));
    }
    input.extend([
        Event::subagent_finished("s2"),
        Event::subagent_finished("s1"),
        rf(),
    ]);
    let out = normalize_all(input).unwrap();
    let text = |id: &str| -> String {
        out.iter()
            .filter_map(|e| match e {
                Event::TextMessageContent(c) if c.message_id == id => {
                    assert_eq!(
                        c.subagent_run_id.as_ref().map(SubagentRunId::as_str),
                        Some(if id == "a" { "s1" } else { "s2" })
                    );
                    Some(c.delta.as_str())
                }
                _ => None,
            })
            .collect()
    };
    assert_eq!(text("a"), "a0a1a2a3");
    assert_eq!(text("b"), "b0b1b2b3");
    let tail: Vec<Event> = out[out.len() - 5..].to_vec();
    assert_eq!(
        tail,
        [
            at(tme("b"), "s2"),
            Event::subagent_finished("s2"),
            at(tme("a"), "s1"),
            Event::subagent_finished("s1"),
            rf()
        ]
    );
}

#[test]
fn unattributed_chunk_resolves_to_the_parent() {
    let out = ok([
        at(tmk(Some("a"), Some("A")), "s1"),
        at(tmk(Some("b"), Some("B")), "s2"),
        tmk(Some("p"), Some("P")).into(),
        tmk(None, Some("Q")).into(),
    ]);
    assert_eq!(out.last(), Some(&tmc("p", "Q")));
}

#[test]
fn ambiguous_chunk_is_rejected_and_changes_nothing() {
    let mut normalizer = ChunkNormalizer::new();
    for event in [
        at(tck(Some("c1"), Some("f"), None), "s1"),
        at(tck(Some("c2"), Some("g"), None), "s2"),
    ] {
        normalizer.push(event).unwrap().for_each(drop);
    }
    let error = normalizer
        .push(tck(None, None, Some("x")).into())
        .unwrap_err();
    assert_eq!(error.kind(), ChunkErrorKind::Ambiguous);
    assert_eq!(error.kind().as_str(), "chunk.ambiguous");
    assert_eq!(error.event_type(), EventType::ToolCallChunk);
    assert_eq!(normalizer.open_streams(), 2);
    // The normalizer goes on as if the chunk had not been sent.
    let next: Vec<Event> = normalizer
        .push(at(tck(None, None, Some("y")), "s2"))
        .unwrap()
        .collect();
    assert_eq!(next, [at(Event::tool_call_args("c2", "y"), "s2")]);
    let error = normalizer.push(tmk(None, None).into()).unwrap_err();
    assert_eq!(
        (error.kind(), error.index()),
        (ChunkErrorKind::MissingId, 4)
    );
}

#[test]
fn subagent_finished_closes_only_that_subagents_lane() {
    let out = ok([
        tmk(Some("p"), Some("P")).into(),
        at(tmk(Some("a"), Some("A")), "s1"),
        at(rmk(Some("b"), Some("B")), "s2"),
        Event::subagent_finished("s1"),
        tmk(None, Some("Q")).into(),
        at(rmk(None, Some("C")), "s2"),
    ]);
    assert_eq!(
        out[6..],
        [
            at(tme("a"), "s1"),
            Event::subagent_finished("s1"),
            tmc("p", "Q"),
            at(Event::reasoning_message_content("b", "C"), "s2")
        ]
    );
}

#[test]
fn parent_events_do_not_close_a_subagents_chunk_stream() {
    let parent_events = [
        tms("p"),
        tmc("p", "x"),
        tme("p"),
        Event::tool_call_start("c", "f"),
        Event::tool_call_end("c"),
        Event::tool_call_result("r", "c", "ok"),
        Event::step_started("plan"),
        Event::step_finished("plan"),
        Event::state_snapshot(json!({"a": 1})),
        Event::custom("n", json!(1)),
        Event::reasoning_start("rs"),
        Event::reasoning_end("rs"),
    ];
    let mut input = vec![at(tmk(Some("m"), Some("A")), "s1")];
    input.extend(parent_events.iter().cloned());
    input.push(at(tmk(None, Some("B")), "s1"));
    let out = ok(input);
    assert_eq!(out[2..2 + parent_events.len()], parent_events);
    assert_eq!(out.last(), Some(&at(tmc("m", "B"), "s1")));
}

// ----- the API -----

#[test]
fn push_into_and_finish_into_match_push_and_finish() {
    let input = [
        rs(),
        at(tmk(Some("m1"), Some("A")), "s1"),
        tck(Some("c1"), Some("f"), Some("{")).into(),
        tmk(Some("p1"), None).into(),
    ];
    let mut a = ChunkNormalizer::new();
    let mut b = ChunkNormalizer::new();
    let mut from_push = Vec::new();
    let mut from_into = Vec::new();
    for event in input {
        from_push.extend(a.push(event.clone()).unwrap());
        b.push_into(event, &mut from_into).unwrap();
    }
    assert_eq!(a.open_streams(), 2);
    let ends = a.finish();
    assert_eq!(ends.len(), 2);
    assert_eq!(ends.as_slice()[0], at(tme("m1"), "s1"));
    from_push.extend(ends);
    b.finish_into(&mut from_into);
    assert_eq!(from_push, from_into);
    assert_eq!(a.open_streams(), 0);
    assert_eq!(a.finish().count(), 0);
    // push_into appends after what is there and leaves it alone on error.
    let mut out = vec![rs()];
    let error = b
        .push_into(tmk(None, Some("x")).into(), &mut out)
        .unwrap_err();
    assert_eq!(error.index(), 4);
    assert_eq!(out, [rs()]);
}

#[test]
fn dropping_the_output_early_does_not_leak_into_the_next_push() {
    let mut normalizer = ChunkNormalizer::new();
    drop(normalizer.push(tmk(Some("m1"), Some("a")).into()).unwrap());
    let next: Vec<Event> = normalizer
        .push(tmk(None, Some("b")).into())
        .unwrap()
        .collect();
    assert_eq!(next, [tmc("m1", "b")]);
}

#[test]
fn normalize_all_stops_at_the_first_error() {
    let error = normalize_all([
        tmk(Some("m1"), Some("a")).into(),
        tmk(Some("m1"), Some("a"))
            .with_role(TextMessageRole::System)
            .into(),
        tmk(None, Some("b")).into(),
    ])
    .unwrap_err();
    assert_eq!(
        (error.kind(), error.index()),
        (ChunkErrorKind::FieldMismatch, 1)
    );
    assert_eq!(
        error.to_string(),
        "chunk.field-mismatch: event 1 (TEXT_MESSAGE_CHUNK) continues text message \"m1\" with \
         role \"system\", but it was opened with role \"assistant\""
    );
}

#[test]
fn error_messages_name_what_could_not_be_resolved() {
    let (_, error) = fails(
        [at(tck(None, Some("f"), Some("{")), "s1")],
        ChunkErrorKind::MissingId,
        0,
    );
    assert_eq!(
        error.to_string(),
        "chunk.missing-id: event 0 (TOOL_CALL_CHUNK from subagent \"s1\") would open a new \
         tool call but has no toolCallId"
    );
    let (_, error) = fails([tck(Some("c"), None, None)], ChunkErrorKind::MissingName, 0);
    assert_eq!(
        error.to_string(),
        "chunk.missing-name: event 0 (TOOL_CALL_CHUNK) would open tool call \"c\" but has no \
         toolCallName"
    );
    let (_, error) = fails(
        [
            at(tmk(Some("m"), None), "s1"),
            at(tmk(Some("m"), None), "s2"),
        ],
        ChunkErrorKind::OwnerMismatch,
        1,
    );
    assert_eq!(
        error.to_string(),
        "chunk.owner-mismatch: event 1 (TEXT_MESSAGE_CHUNK from subagent \"s2\") continues \
         text message \"m\", which subagent \"s1\" has open, but is attributed to subagent \"s2\""
    );
    for kind in [
        ChunkErrorKind::MissingId,
        ChunkErrorKind::MissingName,
        ChunkErrorKind::Ambiguous,
        ChunkErrorKind::OwnerMismatch,
        ChunkErrorKind::FieldMismatch,
    ] {
        assert_eq!(kind.to_string(), kind.as_str());
        assert!(kind.as_str().starts_with("chunk."));
    }
}

// ----- many lanes -----

#[test]
fn the_lane_indexes_find_what_a_scan_finds() {
    // Random streams over few owners, ids and kinds (so that chunks meet, continue, switch and
    // collide), each normalized once finding lanes by scanning and once by the indexes that
    // take over past a handful of lanes: the same events and errors come out.
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n) as usize
    };
    let owners = [None, Some("s1"), Some("s2"), Some("s3")];
    let ids = [None, Some("a"), Some("b"), Some("c")];
    for _ in 0..2_000 {
        let mut scanned = ChunkNormalizer::new();
        let mut indexed = ChunkNormalizer::new();
        indexed.state.lanes.always_indexed = true;
        for _ in 0..40 {
            let owner = owners[next(4)];
            let id = ids[next(4)];
            let event: Event = match next(9) {
                0..=2 => tmk(id, Some("x")).into(),
                3..=4 => tck(id, Some("f"), Some("{}")).into(),
                5 => rmk(id, Some("r")),
                6 => tmc(id.unwrap_or("a"), "y"),
                7 => match owner {
                    Some(s) => Event::subagent_finished(s),
                    None => rf(),
                },
                _ => rs(),
            };
            let event = match owner {
                Some(s) if next(3) > 0 => at(event, s),
                _ => event,
            };
            let a = scanned
                .push(event.clone())
                .map(Iterator::collect::<Vec<_>>)
                .map_err(|e| (e.kind(), e.index(), e.owners().to_vec()));
            let b = indexed
                .push(event.clone())
                .map(Iterator::collect::<Vec<_>>)
                .map_err(|e| (e.kind(), e.index(), e.owners().to_vec()));
            assert_eq!(a, b, "{event:?}");
        }
        let a: Vec<Event> = scanned.finish().collect();
        let b: Vec<Event> = indexed.finish().collect();
        assert_eq!(a, b);
    }
}

#[test]
fn many_subagent_lanes_close_in_opening_order() {
    let mut normalizer = ChunkNormalizer::new();
    let n = 50;
    for i in 0..n {
        let out: Vec<Event> = normalizer
            .push(at(tmk(Some(&format!("m{i}")), Some("a")), &format!("s{i}")))
            .unwrap()
            .collect();
        assert_eq!(out.len(), 2);
    }
    assert_eq!(normalizer.open_streams(), n);
    // An idless chunk continues its subagent's stream; one naming another's id is refused.
    let out: Vec<Event> = normalizer
        .push(at(tmk(None, Some("b")), "s7"))
        .unwrap()
        .collect();
    assert_eq!(out, [at(tmc("m7", "b"), "s7")]);
    let error = normalizer
        .push(at(tmk(Some("m8"), Some("c")), "s9"))
        .unwrap_err();
    assert_eq!(error.kind(), ChunkErrorKind::OwnerMismatch);
    assert_eq!(error.owners(), [Some(SubagentRunId::new("s8"))]);
    let error = normalizer.push(tmk(None, Some("d")).into()).unwrap_err();
    assert_eq!(error.kind(), ChunkErrorKind::Ambiguous);
    assert_eq!(error.owners().len(), n);
    // A subagent's end closes its lane alone; the run's end closes the rest in opening order.
    let out: Vec<Event> = normalizer
        .push(Event::subagent_finished("s3"))
        .unwrap()
        .collect();
    assert_eq!(out[0], at(tme("m3"), "s3"));
    let out: Vec<Event> = normalizer.push(rf()).unwrap().collect();
    let ends: Vec<Event> = (0..n)
        .filter(|&i| i != 3)
        .map(|i| at(tme(&format!("m{i}")), &format!("s{i}")))
        .chain([rf()])
        .collect();
    assert_eq!(out, ends);
    assert_eq!(normalizer.open_streams(), 0);
}
