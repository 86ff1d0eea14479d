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

// The concurrency cases, the API, and many lanes.
mod lanes;
