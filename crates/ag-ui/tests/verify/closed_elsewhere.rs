//! An explicit `…_END` for an entity a chunk opened on another lane is reported at its own
//! event index (`chunk.closed-elsewhere`), through chunk expansion and the client verifier as
//! the pipeline runs them. Before, the END passed (an END without `subagentRunId` claims no
//! owner) and the stream failed later, at the END that closes the chunk stream: at the next
//! event of that lane, at `RUN_FINISHED`, or at the end of the input when the stream stopped
//! first. Generated as the emission-mode chunk mixes of `differential.rs` are (deterministic),
//! with an END from another owner injected where a lane is streaming.
#![cfg(feature = "client")]

use ag_ui::client::chunks::{ChunkErrorKind, ChunkNormalizer, normalize_all};
use ag_ui::verify::Verifier;
use ag_ui::{
    Event, MessageId, SubagentRunId, TextMessageChunkEvent, TextMessageRole, ToolCallChunkEvent,
};

/// Where the pipeline first refuses `events`: (input index, kind), the end of the input counted
/// as index `events.len()`.
fn refused(events: &[Event]) -> Option<(usize, String)> {
    let mut normalizer = ChunkNormalizer::new();
    let mut verifier = Verifier::new();
    let mut expanded = Vec::new();
    for (i, event) in events.iter().enumerate() {
        expanded.clear();
        if let Err(e) = normalizer.push_into(event.clone(), &mut expanded) {
            return Some((i, e.kind().as_str().to_owned()));
        }
        for event in &expanded {
            if let Err(v) = verifier.check(event) {
                return Some((i, v.kind().as_str().to_owned()));
            }
        }
    }
    expanded.clear();
    normalizer.finish_into(&mut expanded);
    for event in &expanded {
        if let Err(v) = verifier.check(event) {
            return Some((events.len(), v.kind().as_str().to_owned()));
        }
    }
    None
}

/// The explicit END of the stream `chunk` continues, from `owner` instead of the chunk's own.
fn end_from(chunk: &Event, owner: Option<&str>) -> Option<Event> {
    let end = match chunk {
        Event::TextMessageChunk(c) => Event::text_message_end(c.message_id.clone()?),
        Event::ToolCallChunk(c) => Event::tool_call_end(c.tool_call_id.clone()?),
        Event::ReasoningMessageChunk(c) => Event::reasoning_message_end(c.message_id.clone()?),
        _ => return None,
    };
    Some(match owner {
        Some(owner) => end.with_subagent_run_id(owner),
        None => end,
    })
}

/// Deterministic chunk mixes, each valid for a client (filtered by emission mode), with no
/// `RUN_FINISHED` half of the time (a stream may stop anywhere).
fn mixes(count: usize) -> Vec<Vec<Event>> {
    let mut seed: u64 = 0x00c1_05ed_e15e_3e7e;
    let mut next = move |n: u64| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    const IDS: [&str; 3] = ["a", "b", "c"];
    const TAGS: [Option<&str>; 4] = [None, None, Some("s1"), Some("s2")];
    let mut streams = Vec::new();
    for _ in 0..count {
        let mut verifier = Verifier::for_emission();
        let mut out = Vec::new();
        let mut offer = |event: Event, out: &mut Vec<Event>| {
            if verifier.check(&event).is_ok() {
                out.push(event);
            }
        };
        offer(Event::run_started("t", "r"), &mut out);
        for _ in 0..(5 + next(20)) {
            let id = IDS[next(3) as usize];
            let tag = TAGS[next(4) as usize];
            let mut event = match next(8) {
                0..=2 => TextMessageChunkEvent::new()
                    .with_message_id(id)
                    .with_delta("x")
                    .into(),
                3 | 4 => ToolCallChunkEvent::new()
                    .with_tool_call_id(id)
                    .with_tool_call_name("f")
                    .with_delta("{}")
                    .into(),
                5 => Event::reasoning_message_chunk(Some(MessageId::new(id)), Some("r".into())),
                6 => Event::text_message_start(id, TextMessageRole::Assistant),
                _ => Event::custom("c", serde_json::json!(1)),
            };
            if let Some(tag) = tag {
                event = event.with_subagent_run_id(tag);
            }
            offer(event, &mut out);
        }
        if next(2) == 0 {
            for id in IDS {
                for tag in TAGS {
                    let end = Event::text_message_end(id);
                    offer(
                        match tag {
                            Some(t) => end.with_subagent_run_id(t),
                            None => end,
                        },
                        &mut out,
                    );
                }
            }
            offer(Event::run_finished("t", "r"), &mut out);
        }
        streams.push(out);
    }
    streams
}

/// Every mix is accepted as it is; with an END from another owner injected right after a chunk
/// of a lane, it is refused at that END, whatever follows and whether the run finishes or not.
#[test]
fn an_end_from_another_lane_is_refused_at_its_own_index() {
    let mut injected = 0;
    let (mut untagged, mut stopped_after) = (0, 0);
    for stream in mixes(5_000) {
        assert_eq!(refused(&stream), None, "{stream:?}");
        for (at, event) in stream.iter().enumerate() {
            let owner = event.attribution().map(SubagentRunId::as_str);
            let other = match owner {
                Some(_) => None,
                None => Some("s9"),
            };
            let Some(end) = end_from(event, other) else {
                continue;
            };
            let mut broken = stream.clone();
            broken.insert(at + 1, end);
            assert_eq!(
                refused(&broken),
                Some((at + 1, "chunk.closed-elsewhere".to_owned())),
                "{broken:?}"
            );
            injected += 1;
            untagged += usize::from(other.is_none());
            stopped_after += usize::from(!matches!(stream.last(), Some(Event::RunFinished(_))));
        }
    }
    // Both shapes, and streams that stop without RUN_FINISHED (the "end of input" ones).
    assert!(
        injected > 5_000 && untagged > 1_000 && stopped_after > 1_000,
        "{injected} {untagged} {stopped_after}"
    );
}

/// The streams that reported the violation at the end of the input before, kept as they were
/// found: a subagent's chunk stream closed by an END without `subagentRunId`, the stream
/// stopping before that lane had another event.
#[test]
fn the_end_of_input_cases_are_refused_at_the_end() {
    let cases: [Vec<Event>; 3] = [
        vec![
            Event::run_started("t", "r"),
            Event::text_message_chunk(Some(MessageId::new("a")), Some("x".into()))
                .with_subagent_run_id("s1"),
            Event::text_message_end("a"),
        ],
        vec![
            Event::run_started("t", "r"),
            ToolCallChunkEvent::new()
                .with_tool_call_id("b")
                .with_tool_call_name("f")
                .with_delta("{}")
                .with_subagent_run_id("s2")
                .into(),
            Event::custom("c", serde_json::json!(1)),
            Event::tool_call_end("b"),
        ],
        vec![
            Event::run_started("t", "r"),
            Event::reasoning_message_chunk(Some(MessageId::new("c")), Some("r".into()))
                .with_subagent_run_id("s1"),
            Event::text_message_start("a", TextMessageRole::Assistant),
            Event::reasoning_message_end("c"),
        ],
    ];
    for case in &cases {
        assert_eq!(
            refused(case),
            Some((case.len() - 1, "chunk.closed-elsewhere".to_owned())),
            "{case:?}"
        );
    }
    let error = normalize_all(cases[0].clone()).unwrap_err();
    assert_eq!(error.kind(), ChunkErrorKind::ClosedElsewhere);
    assert_eq!((error.index(), error.id()), (2, Some("a")));
    assert_eq!(error.owners(), [Some(SubagentRunId::new("s1"))]);
    assert_eq!(
        error.to_string(),
        "chunk.closed-elsewhere: event 2 (TEXT_MESSAGE_END) closes text message \"a\", which subagent \"s1\" is streaming as chunks: the END that closes that chunk stream would find it closed"
    );
}
