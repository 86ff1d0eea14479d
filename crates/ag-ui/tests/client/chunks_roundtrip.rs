//! Properties: chunking a valid explicit stream and normalizing it again gives back that stream;
//! and whatever chunked run the normalizer accepts, its output passes the verifier.
//!
//! The explicit streams are generated as runs in which the parent and two subagents open text
//! messages, tool calls and reasoning messages, stream content into them (with and without
//! metadata and raw events) and interleave other events. Chunks can only say "the next stream in
//! this lane begins" or "the run / subagent ends", so the generator closes each stream exactly
//! where its chunked form would: when its owner opens the next one, when an event of its owner
//! closes the lane, or at the end of its subagent or of the run. Within that, every explicit
//! stream has a chunked form, and the normalizer must reproduce the stream from it.

#![cfg(feature = "client")]

use ag_ui::client::chunks::{ChunkNormalizer, normalize_all};
use ag_ui::verify::Verifier;
use ag_ui::{
    Event, Metadata, ReasoningMessageChunkEvent, SubagentRunId, TextMessageChunkEvent,
    TextMessageRole, TextMessageStartEvent, ToolCallChunkEvent, ToolCallStartEvent,
};
use proptest::prelude::*;
use serde_json::json;

const SUBAGENTS: [&str; 2] = ["s1", "s2"];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Text,
    Tool,
    Reasoning,
}

#[derive(Clone, Debug)]
enum Op {
    Open {
        owner: usize,
        kind: Kind,
        role: Option<TextMessageRole>,
        name: bool,
        parent: bool,
        metadata: bool,
    },
    Content {
        owner: usize,
        delta: String,
        metadata: bool,
        raw: bool,
    },
    /// An event that closes its owner's lane (CUSTOM, STATE_DELTA) or passes through (RAW,
    /// ACTIVITY_SNAPSHOT).
    Other { owner: usize, closes: bool },
}

fn owner_tag(owner: usize) -> Option<&'static str> {
    // 0 is the parent; 1 and 2 the subagents.
    owner.checked_sub(1).map(|i| SUBAGENTS[i])
}

fn tag(event: Event, owner: usize) -> Event {
    match owner_tag(owner) {
        Some(s) => event.with_subagent_run_id(s),
        None => event,
    }
}

fn meta(n: usize) -> Metadata {
    match json!({"n": n, "note": null}) {
        serde_json::Value::Object(map) => map,
        _ => unreachable!(),
    }
}

fn op() -> impl Strategy<Value = Op> {
    let owner = 0usize..3;
    prop_oneof![
        3 => (
            owner.clone(),
            prop_oneof![Just(Kind::Text), Just(Kind::Tool), Just(Kind::Reasoning)],
            prop::option::of(prop_oneof![
                Just(TextMessageRole::Assistant),
                Just(TextMessageRole::User),
                Just(TextMessageRole::System),
                Just(TextMessageRole::Developer),
            ]),
            any::<bool>(),
            any::<bool>(),
            prop::bool::weighted(0.3),
        )
            .prop_map(|(owner, kind, role, name, parent, metadata)| Op::Open {
                owner,
                kind,
                role,
                name,
                parent,
                metadata
            }),
        6 => (
            owner.clone(),
            "[a-z {}\"]{0,4}",
            prop::bool::weighted(0.2),
            prop::bool::weighted(0.2),
        )
            .prop_map(|(owner, delta, metadata, raw)| Op::Content {
                owner,
                delta,
                metadata,
                raw
            }),
        1 => (owner, any::<bool>()).prop_map(|(owner, closes)| Op::Other { owner, closes }),
    ]
}

/// A lane of the generator: its owner and the stream open in it.
struct Lane {
    owner: usize,
    kind: Kind,
    id: String,
}

fn end(lane: &Lane) -> Event {
    let event = match lane.kind {
        Kind::Text => Event::text_message_end(lane.id.as_str()),
        Kind::Tool => Event::tool_call_end(lane.id.as_str()),
        Kind::Reasoning => Event::reasoning_message_end(lane.id.as_str()),
    };
    tag(event, lane.owner)
}

fn close(lanes: &mut Vec<Lane>, owner: usize, out: &mut Vec<Event>) {
    if let Some(i) = lanes.iter().position(|l| l.owner == owner) {
        out.push(end(&lanes.remove(i)));
    }
}

/// Builds the explicit stream the operations describe.
fn explicit(ops: &[Op]) -> Vec<Event> {
    let mut out = vec![Event::run_started("t", "r")];
    for s in SUBAGENTS {
        out.push(Event::subagent_started(s, "helper"));
    }
    let mut lanes: Vec<Lane> = Vec::new();
    for (n, op) in ops.iter().enumerate() {
        match op {
            &Op::Open {
                owner,
                kind,
                role,
                name,
                parent,
                metadata,
            } => {
                close(&mut lanes, owner, &mut out);
                let id = format!("{}{n}", ["m", "c", "r"][kind as usize]);
                let mut start = match kind {
                    Kind::Text => {
                        let mut e = TextMessageStartEvent::new(id.as_str())
                            .with_role(role.unwrap_or_default());
                        if name {
                            e = e.with_name("bob");
                        }
                        e.into()
                    }
                    Kind::Tool => {
                        let mut e = ToolCallStartEvent::new(id.as_str(), "search");
                        if parent {
                            e = e.with_parent_message_id("elsewhere");
                        }
                        e.into()
                    }
                    Kind::Reasoning => Event::reasoning_message_start(id.as_str()),
                };
                if metadata {
                    start = start.with_metadata(meta(n));
                }
                out.push(tag(start, owner));
                lanes.push(Lane { owner, kind, id });
            }
            Op::Content {
                owner,
                delta,
                metadata,
                raw,
            } => {
                let Some(lane) = lanes.iter().find(|l| l.owner == *owner) else {
                    continue;
                };
                let mut content = match lane.kind {
                    Kind::Text => Event::text_message_content(lane.id.as_str(), delta.as_str()),
                    Kind::Tool => Event::tool_call_args(lane.id.as_str(), delta.as_str()),
                    Kind::Reasoning => {
                        Event::reasoning_message_content(lane.id.as_str(), delta.as_str())
                    }
                };
                if *metadata {
                    content = content.with_metadata(meta(n));
                }
                if *raw {
                    content = content.with_raw_event(json!({"provider": n}));
                }
                out.push(tag(content, *owner));
            }
            &Op::Other { owner, closes } => {
                if closes {
                    close(&mut lanes, owner, &mut out);
                    out.push(tag(Event::custom("progress", json!(n)), owner));
                } else {
                    out.push(tag(Event::raw(json!({"n": n})), owner));
                }
            }
        }
    }
    for (i, s) in SUBAGENTS.iter().enumerate() {
        close(&mut lanes, i + 1, &mut out);
        out.push(Event::subagent_finished(*s));
    }
    for lane in lanes.drain(..) {
        out.push(end(&lane));
    }
    out.push(Event::run_finished("t", "r"));
    out
}

/// The chunked form of an explicit stream: every START becomes the chunk that opens the stream
/// (merged with its first content when they carry the same metadata), every CONTENT / ARGS a
/// continuation chunk (carrying the id again if `repeat_ids`), every END disappears.
fn chunked(events: &[Event], repeat_ids: bool) -> Vec<Event> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < events.len() {
        let event = &events[i];
        let owner = event.attribution().cloned();
        let attribute = |e: Event| match &owner {
            Some(s) => e.with_subagent_run_id(s.clone()),
            None => e,
        };
        // The first content of the stream this START opens, if it follows at once and can share
        // one chunk with it.
        let follower = |id: &str| -> Option<(&Event, Option<String>)> {
            let next = events.get(i + 1)?;
            let (next_id, delta) = match next {
                Event::TextMessageContent(c) => (c.message_id.as_str(), &c.delta),
                Event::ToolCallArgs(c) => (c.tool_call_id.as_str(), &c.delta),
                Event::ReasoningMessageContent(c) => (c.message_id.as_str(), &c.delta),
                _ => return None,
            };
            (next_id == id
                && next.metadata() == event.metadata()
                && next.attribution() == event.attribution())
            .then(|| (next, Some(delta.clone())))
        };
        match event {
            Event::TextMessageStart(s) => {
                let mut chunk = TextMessageChunkEvent::new().with_message_id(s.message_id.clone());
                chunk.role = s.role.filter(|r| *r != TextMessageRole::Assistant);
                chunk.name = s.name.clone();
                chunk.metadata = s.metadata.clone();
                if let Some((next, delta)) = follower(s.message_id.as_str()) {
                    chunk.delta = delta;
                    chunk.raw_event = next.raw_event().cloned().map(Box::new);
                    i += 1;
                }
                out.push(attribute(chunk.into()));
            }
            Event::ToolCallStart(s) => {
                let mut chunk = ToolCallChunkEvent::new()
                    .with_tool_call_id(s.tool_call_id.clone())
                    .with_tool_call_name(s.tool_call_name.clone());
                chunk.parent_message_id = s.parent_message_id.clone();
                chunk.metadata = s.metadata.clone();
                if let Some((next, delta)) = follower(s.tool_call_id.as_str()) {
                    chunk.delta = delta;
                    chunk.raw_event = next.raw_event().cloned().map(Box::new);
                    i += 1;
                }
                out.push(attribute(chunk.into()));
            }
            Event::ReasoningMessageStart(s) => {
                let mut chunk =
                    ReasoningMessageChunkEvent::new().with_message_id(s.message_id.clone());
                chunk.metadata = s.metadata.clone();
                if let Some((next, delta)) = follower(s.message_id.as_str()) {
                    chunk.delta = delta;
                    chunk.raw_event = next.raw_event().cloned().map(Box::new);
                    i += 1;
                }
                out.push(attribute(chunk.into()));
            }
            Event::TextMessageContent(c) => {
                let mut chunk = TextMessageChunkEvent::new().with_delta(c.delta.clone());
                if repeat_ids {
                    chunk.message_id = Some(c.message_id.clone());
                }
                chunk.metadata = c.metadata.clone();
                chunk.raw_event = c.raw_event.clone();
                out.push(attribute(chunk.into()));
            }
            Event::ToolCallArgs(c) => {
                let mut chunk = ToolCallChunkEvent::new().with_delta(c.delta.clone());
                if repeat_ids {
                    chunk.tool_call_id = Some(c.tool_call_id.clone());
                }
                chunk.metadata = c.metadata.clone();
                chunk.raw_event = c.raw_event.clone();
                out.push(attribute(chunk.into()));
            }
            Event::ReasoningMessageContent(c) => {
                let mut chunk = ReasoningMessageChunkEvent::new().with_delta(c.delta.clone());
                if repeat_ids {
                    chunk.message_id = Some(c.message_id.clone());
                }
                chunk.metadata = c.metadata.clone();
                chunk.raw_event = c.raw_event.clone();
                out.push(attribute(chunk.into()));
            }
            Event::TextMessageEnd(_) | Event::ToolCallEnd(_) | Event::ReasoningMessageEnd(_) => {}
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn normalizing_the_chunked_form_gives_back_the_stream(
        ops in prop::collection::vec(op(), 0..40),
        repeat_ids in any::<bool>(),
    ) {
        let explicit = explicit(&ops);
        let chunks = chunked(&explicit, repeat_ids);
        prop_assert!(chunks.iter().all(|e| !matches!(
            e,
            Event::TextMessageEnd(_) | Event::ToolCallEnd(_) | Event::ReasoningMessageEnd(_)
        )));

        let normalized = normalize_all(chunks.clone()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&normalized, &explicit);

        // The streaming form agrees, and leaves nothing open (the run ended).
        let mut normalizer = ChunkNormalizer::new();
        let mut streamed = Vec::new();
        for chunk in chunks {
            streamed.extend(normalizer.push(chunk).map_err(|e| TestCaseError::fail(e.to_string()))?);
        }
        prop_assert_eq!(normalizer.open_streams(), 0);
        prop_assert_eq!(&streamed, &explicit);

        // And it is a valid stream.
        let mut verifier = Verifier::new();
        for event in &streamed {
            verifier.check(event).map_err(|v| TestCaseError::fail(v.to_string()))?;
        }
    }

    #[test]
    fn accepted_chunked_runs_normalize_to_valid_streams(
        items in prop::collection::vec(chunk_item(), 0..60),
    ) {
        let run = chunk_run(&items);
        let Ok(normalized) = normalize_all(run) else {
            // Rejected chunk streams are the business of the other tests.
            return Ok(());
        };
        let mut verifier = Verifier::new();
        for event in &normalized {
            verifier.check(event).map_err(|v| TestCaseError::fail(format!("{v}\n{normalized:#?}")))?;
        }
    }
}

/// One step of a chunked run: a chunk that opens a stream for some owner, a chunk that
/// continues that owner's stream (attributed or not, with or without the id, now and then with a
/// contradicting role), or an event that closes its owner's lane or passes through.
#[derive(Clone, Debug)]
enum Item {
    Open {
        owner: usize,
        kind: Kind,
        id: u8,
        delta: Option<String>,
        role: Option<TextMessageRole>,
        metadata: bool,
    },
    Continue {
        owner: usize,
        attributed: bool,
        repeat_id: bool,
        delta: Option<String>,
        role: Option<TextMessageRole>,
        metadata: bool,
    },
    Other {
        owner: usize,
        closes: bool,
    },
}

fn role() -> impl Strategy<Value = Option<TextMessageRole>> {
    prop::option::weighted(
        0.1,
        prop_oneof![
            Just(TextMessageRole::Assistant),
            Just(TextMessageRole::User)
        ],
    )
}

fn chunk_item() -> impl Strategy<Value = Item> {
    let kind = prop_oneof![Just(Kind::Text), Just(Kind::Tool), Just(Kind::Reasoning)];
    prop_oneof![
        2 => (0usize..3, kind, 0u8..3, prop::option::weighted(0.7, "[a-z]{0,3}"), role(), prop::bool::weighted(0.2))
            .prop_map(|(owner, kind, id, delta, role, metadata)| Item::Open {
                owner, kind, id, delta, role, metadata,
            }),
        6 => (
            0usize..3,
            prop::bool::weighted(0.8),
            prop::bool::weighted(0.3),
            prop::option::weighted(0.9, "[a-z]{0,3}"),
            role(),
            prop::bool::weighted(0.1),
        )
            .prop_map(|(owner, attributed, repeat_id, delta, role, metadata)| Item::Continue {
                owner, attributed, repeat_id, delta, role, metadata,
            }),
        1 => (0usize..3, any::<bool>()).prop_map(|(owner, closes)| Item::Other { owner, closes }),
    ]
}

/// A run around the items. Ids are namespaced by owner (`s1-m2`): the normalizer forgets an id
/// once its stream closes, exactly like the reference, so a chunk stream that reopens another
/// owner's closed message is accepted here and rejected by the verifier (`owner.mismatch`);
/// that is the producer's error, not the normalizer's, and outside this property.
fn chunk_run(items: &[Item]) -> Vec<Event> {
    let mut out = vec![Event::run_started("t", "r")];
    for s in SUBAGENTS {
        out.push(Event::subagent_started(s, "helper"));
    }
    // What the generator believes each owner has open, to aim its continuations.
    let mut open: [Option<(Kind, String)>; 3] = [None, None, None];
    let chunk =
        |kind: Kind, id: Option<&str>, delta: &Option<String>, role, opener: bool| -> Event {
            match kind {
                Kind::Text => {
                    let mut e = TextMessageChunkEvent::new();
                    e.message_id = id.map(Into::into);
                    e.role = role;
                    e.delta = delta.clone();
                    e.into()
                }
                Kind::Tool => {
                    let mut e = ToolCallChunkEvent::new();
                    e.tool_call_id = id.map(Into::into);
                    e.tool_call_name = opener.then(|| "search".to_owned());
                    e.delta = delta.clone();
                    e.into()
                }
                Kind::Reasoning => {
                    let mut e = ReasoningMessageChunkEvent::new();
                    e.message_id = id.map(Into::into);
                    e.delta = delta.clone();
                    e.into()
                }
            }
        };
    for (n, item) in items.iter().enumerate() {
        match item {
            Item::Open {
                owner,
                kind,
                id,
                delta,
                role,
                metadata,
            } => {
                let prefix = owner_tag(*owner).unwrap_or("p");
                let id = format!("{prefix}-{}{id}", ["m", "c", "r"][*kind as usize]);
                let mut event = chunk(*kind, Some(&id), delta, *role, true);
                if *metadata {
                    event = event.with_metadata(meta(n));
                }
                out.push(tag(event, *owner));
                open[*owner] = Some((*kind, id));
            }
            Item::Continue {
                owner,
                attributed,
                repeat_id,
                delta,
                role,
                metadata,
            } => {
                let Some((kind, id)) = &open[*owner] else {
                    continue;
                };
                let mut event = chunk(*kind, repeat_id.then_some(id.as_str()), delta, *role, false);
                if *metadata {
                    event = event.with_metadata(meta(n));
                }
                out.push(if *attributed {
                    tag(event, *owner)
                } else {
                    event
                });
            }
            &Item::Other { owner, closes } => {
                if closes {
                    open[owner] = None;
                }
                out.push(tag(
                    if closes {
                        Event::custom("c", json!(n))
                    } else {
                        Event::raw(json!(n))
                    },
                    owner,
                ));
            }
        }
    }
    for s in SUBAGENTS {
        out.push(Event::subagent_finished(s));
    }
    out.push(Event::run_finished("t", "r"));
    out
}

#[test]
fn the_generator_covers_interleaved_owners_and_merged_openers() {
    // A fixed case, so a change to the generator that loses these shapes is noticed.
    let ops = vec![
        Op::Open {
            owner: 1,
            kind: Kind::Text,
            role: None,
            name: false,
            parent: false,
            metadata: false,
        },
        Op::Content {
            owner: 1,
            delta: "a".into(),
            metadata: false,
            raw: false,
        },
        Op::Open {
            owner: 2,
            kind: Kind::Tool,
            role: None,
            name: false,
            parent: true,
            metadata: true,
        },
        Op::Open {
            owner: 0,
            kind: Kind::Reasoning,
            role: None,
            name: false,
            parent: false,
            metadata: false,
        },
        Op::Content {
            owner: 2,
            delta: "{".into(),
            metadata: false,
            raw: true,
        },
        Op::Content {
            owner: 0,
            delta: "hm".into(),
            metadata: true,
            raw: false,
        },
        Op::Content {
            owner: 1,
            delta: "b".into(),
            metadata: false,
            raw: false,
        },
        Op::Other {
            owner: 2,
            closes: true,
        },
    ];
    let explicit = explicit(&ops);
    let chunks = chunked(&explicit, false);
    assert_eq!(chunks.iter().filter(|e| e.is_chunk()).count(), 6);
    assert_eq!(
        chunks
            .iter()
            .filter(|e| e.is_chunk() && e.attribution() == Some(&SubagentRunId::new("s1")))
            .count(),
        2
    );
    assert_eq!(normalize_all(chunks).unwrap(), explicit);
}
