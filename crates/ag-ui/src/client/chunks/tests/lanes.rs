//! The concurrency cases of the subagent design, the normalizer's API, and many lanes at
//! once; the builders are the parent module's.

use super::*;

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
