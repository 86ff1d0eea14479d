//! Proptest strategies for the wire model: any [`Event`] of any of the 31 types, with every
//! optional field randomly present or absent.
//!
//! Reuse from an integration test with `mod common;` and `common::strategies::any_event()`, or
//! `event_of(EventType::…)` for one type. Generated events are valid under the AG-UI 1.0
//! schemas and survive a JSON round trip unchanged: strings include escapes and non-ASCII
//! characters; JSON payloads nest, carry `null`s where they are values, and hold only numbers
//! that print the same in Rust and JavaScript (safe integers and non-integral dyadic floats);
//! object keys are never array indices (JavaScript would reorder those).

use ag_ui::{
    ActivityMessage, AssistantMessage, Content, ContentPart, Context, DeveloperMessage, Event,
    EventType, Interrupt, JsonPatchOperation, MediaPart, Message, Metadata, PartSource,
    ReasoningMessage, ResumeEntry, RunAgentInput, RunFinishedOutcome, SubagentFinishedOutcome,
    SystemMessage, TextMessageRole, TextPart, TokenUsage, Tool, ToolCall, ToolMessage, UserMessage,
};
use proptest::collection::vec;
use proptest::option::of;
use proptest::prelude::*;
use serde_json::{Value, json};

const MAX_SAFE: i64 = 9_007_199_254_740_991;

/// Text with escapes (quotes, backslashes, control characters) and multi-byte characters.
pub fn text() -> BoxedStrategy<String> {
    prop_oneof![
        3 => "[a-zA-Z0-9 _-]{0,12}",
        1 => "[a-z\"\\\\\n\t\r\u{1}\u{1f}é✓🎉\u{2028}/<> ]{0,8}",
    ]
    .boxed()
}

/// An id: any string, the empty one included.
pub fn id() -> BoxedStrategy<String> {
    prop_oneof![4 => "[a-z0-9-]{1,10}", 1 => Just(String::new()), 1 => text()].boxed()
}

fn key() -> BoxedStrategy<String> {
    prop_oneof![4 => "[a-z_][a-zA-Z0-9_]{0,6}", 1 => "[a-z][a-z \"é-]{0,4}"].boxed()
}

fn number() -> BoxedStrategy<Value> {
    prop_oneof![
        (-MAX_SAFE..=MAX_SAFE).prop_map(Value::from),
        (-1000i64..1000).prop_map(Value::from),
        // Non-integral dyadic values print identically in Rust and JavaScript.
        (
            (-100_000i64..100_000),
            prop::sample::select(vec![0.5, 0.25, 0.125, 0.75])
        )
            .prop_map(|(i, f)| json!(i as f64 + f)),
    ]
    .boxed()
}

/// Any JSON value, `null` included, nested up to three levels.
pub fn json_value() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            vec((key(), inner), 0..4).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
    .boxed()
}

/// Any JSON value except `null` (fields where `null` means absent).
pub fn non_null_value() -> BoxedStrategy<Value> {
    json_value()
        .prop_map(|v| if v.is_null() { json!({"was": null}) } else { v })
        .boxed()
}

/// A metadata object; values may be `null`.
pub fn metadata() -> BoxedStrategy<Metadata> {
    vec((key(), json_value()), 0..4)
        .prop_map(|kv| kv.into_iter().collect())
        .boxed()
}

fn opt<T: std::fmt::Debug + Clone + 'static>(s: BoxedStrategy<T>) -> BoxedStrategy<Option<T>> {
    of(s).boxed()
}

fn pointer() -> BoxedStrategy<String> {
    prop_oneof![
        Just(String::new()),
        vec("([a-z0-9]{0,4}|~0|~1|-)", 1..4).prop_map(|parts| format!("/{}", parts.join("/"))),
    ]
    .boxed()
}

/// One RFC 6902 operation of any kind.
pub fn patch_op() -> BoxedStrategy<JsonPatchOperation> {
    (0..6usize, pointer(), pointer(), json_value())
        .prop_map(|(op, path, from, value)| {
            let v = match op {
                0 => json!({"op": "add", "path": path, "value": value}),
                1 => json!({"op": "remove", "path": path}),
                2 => json!({"op": "replace", "path": path, "value": value}),
                3 => json!({"op": "move", "from": from, "path": path}),
                4 => json!({"op": "copy", "from": from, "path": path}),
                _ => json!({"op": "test", "path": path, "value": value}),
            };
            serde_json::from_value(v).expect("a valid patch operation")
        })
        .boxed()
}

fn patch() -> BoxedStrategy<Vec<JsonPatchOperation>> {
    vec(patch_op(), 0..4).boxed()
}

fn text_role() -> BoxedStrategy<TextMessageRole> {
    prop::sample::select(vec![
        TextMessageRole::Developer,
        TextMessageRole::System,
        TextMessageRole::Assistant,
        TextMessageRole::User,
    ])
    .boxed()
}

fn source() -> BoxedStrategy<PartSource> {
    prop_oneof![
        (text(), text()).prop_map(|(value, mime_type)| PartSource::Data { value, mime_type }),
        (text(), opt(text())).prop_map(|(value, mime_type)| PartSource::Url { value, mime_type }),
        (text(), opt(text()), opt(text())).prop_map(|(value, provider, mime_type)| {
            PartSource::File {
                value,
                provider,
                mime_type,
            }
        }),
    ]
    .boxed()
}

/// A content part of any of the five kinds.
pub fn content_part() -> BoxedStrategy<ContentPart> {
    let text_part = (text(), opt(id()), opt(non_null_value())).prop_map(|(t, id, metadata)| {
        let mut p = TextPart::new(t);
        p.id = id;
        p.metadata = metadata;
        ContentPart::Text(p)
    });
    let media = (0..4usize, source(), opt(id()), opt(non_null_value())).prop_map(
        |(kind, source, id, metadata)| {
            let mut p = MediaPart::new(source);
            p.id = id;
            p.metadata = metadata;
            match kind {
                0 => ContentPart::Image(p),
                1 => ContentPart::Audio(p),
                2 => ContentPart::Video(p),
                _ => ContentPart::Document(p),
            }
        },
    );
    prop_oneof![text_part, media].boxed()
}

/// Plain text or a list of parts.
pub fn content() -> BoxedStrategy<Content> {
    prop_oneof![
        text().prop_map(Content::Text),
        vec(content_part(), 0..3).prop_map(Content::Parts),
    ]
    .boxed()
}

fn tool_call() -> BoxedStrategy<ToolCall> {
    (id(), text(), text(), opt(text()), opt(metadata()))
        .prop_map(|(id, name, args, enc, metadata)| {
            let mut c = ToolCall::new(id, name, args);
            c.encrypted_value = enc;
            c.metadata = metadata;
            c
        })
        .boxed()
}

/// A message of any of the seven roles, optional fields random.
pub fn message() -> BoxedStrategy<Message> {
    let common = (id(), opt(metadata()), opt(id()));
    prop_oneof![
        (common.clone(), text(), opt(text()), opt(text())).prop_map(
            |((id, metadata, sub), content, name, enc)| {
                let mut m = DeveloperMessage::new(id, content);
                (m.metadata, m.subagent_run_id, m.name, m.encrypted_value) =
                    (metadata, sub.map(Into::into), name, enc);
                Message::Developer(m)
            }
        ),
        (common.clone(), text(), opt(text()), opt(text())).prop_map(
            |((id, metadata, sub), content, name, enc)| {
                let mut m = SystemMessage::new(id, content);
                (m.metadata, m.subagent_run_id, m.name, m.encrypted_value) =
                    (metadata, sub.map(Into::into), name, enc);
                Message::System(m)
            }
        ),
        (
            common.clone(),
            opt(text()),
            opt(vec(tool_call(), 0..3).boxed()),
            opt(text()),
            opt(text())
        )
            .prop_map(|((id, metadata, sub), content, calls, name, enc)| {
                let mut m = AssistantMessage::new(id);
                (m.metadata, m.subagent_run_id, m.content, m.tool_calls) =
                    (metadata, sub.map(Into::into), content, calls);
                (m.name, m.encrypted_value) = (name, enc);
                Message::Assistant(m)
            }),
        (common.clone(), content(), opt(text()), opt(text())).prop_map(
            |((id, metadata, sub), content, name, enc)| {
                let mut m = UserMessage::new(id, content);
                (m.metadata, m.subagent_run_id, m.name, m.encrypted_value) =
                    (metadata, sub.map(Into::into), name, enc);
                Message::User(m)
            }
        ),
        (common.clone(), id(), content(), opt(text()), opt(text())).prop_map(
            |((id, metadata, sub), call, content, error, enc)| {
                let mut m = ToolMessage::new(id, call, content);
                (m.metadata, m.subagent_run_id, m.error, m.encrypted_value) =
                    (metadata, sub.map(Into::into), error, enc);
                Message::Tool(m)
            }
        ),
        (common.clone(), text(), metadata()).prop_map(|((id, metadata, sub), kind, content)| {
            let mut m = ActivityMessage::new(id, kind, content);
            (m.metadata, m.subagent_run_id) = (metadata, sub.map(Into::into));
            Message::Activity(m)
        }),
        (common, text(), opt(text())).prop_map(|((id, metadata, sub), content, enc)| {
            let mut m = ReasoningMessage::new(id, content);
            (m.metadata, m.subagent_run_id, m.encrypted_value) =
                (metadata, sub.map(Into::into), enc);
            Message::Reasoning(m)
        }),
    ]
    .boxed()
}

fn count() -> BoxedStrategy<Option<u64>> {
    opt(prop_oneof![0..1000u64, 0..=MAX_SAFE as u64].boxed())
}

/// A token usage entry, every field optional.
pub fn token_usage() -> BoxedStrategy<TokenUsage> {
    (
        opt(text()),
        opt(text()),
        (count(), count(), count(), count(), count(), count()),
    )
        .prop_map(|(provider, model, (i, o, t, r, c, w))| {
            let mut u = TokenUsage::default();
            (u.provider, u.model) = (provider, model);
            (u.input_tokens, u.output_tokens, u.total_tokens) = (i, o, t);
            (
                u.reasoning_tokens,
                u.cached_input_tokens,
                u.cache_write_input_tokens,
            ) = (r, c, w);
            u
        })
        .boxed()
}

/// An interrupt, optional fields random.
pub fn interrupt() -> BoxedStrategy<Interrupt> {
    (
        id(),
        text(),
        opt(text()),
        opt(id()),
        opt(metadata()),
        opt(text()),
        opt(metadata()),
        opt(id()),
    )
        .prop_map(
            |(id, reason, message, call, schema, expires, metadata, sub)| {
                let mut i = Interrupt::new(id, reason);
                (i.message, i.tool_call_id, i.response_schema) =
                    (message, call.map(Into::into), schema);
                (i.expires_at, i.metadata, i.subagent_run_id) =
                    (expires, metadata, sub.map(Into::into));
                i
            },
        )
        .boxed()
}

fn run_outcome() -> BoxedStrategy<RunFinishedOutcome> {
    prop_oneof![
        opt(vec(id(), 0..3).boxed()).prop_map(|ids| RunFinishedOutcome::Success {
            pending_tool_call_ids: ids.map(|ids| ids.into_iter().map(Into::into).collect()),
        }),
        vec(interrupt(), 1..3).prop_map(RunFinishedOutcome::interrupt),
        Just(RunFinishedOutcome::Cancelled),
    ]
    .boxed()
}

fn subagent_outcome() -> BoxedStrategy<SubagentFinishedOutcome> {
    prop_oneof![
        Just(SubagentFinishedOutcome::Success),
        opt(vec(id(), 0..3).boxed()).prop_map(|ids| SubagentFinishedOutcome::Suspended {
            interrupt_ids: ids.map(|ids| ids.into_iter().map(Into::into).collect()),
        }),
    ]
    .boxed()
}

/// A run request, optional fields random.
pub fn run_agent_input() -> BoxedStrategy<RunAgentInput> {
    let tool = (text(), text(), opt(non_null_value()), opt(metadata())).prop_map(
        |(name, description, parameters, metadata)| {
            let mut t = Tool::new(name, description);
            (t.parameters, t.metadata) = (parameters, metadata);
            t
        },
    );
    let resume = (id(), any::<bool>(), opt(non_null_value()), opt(metadata())).prop_map(
        |(id, resolved, payload, metadata)| {
            let mut r = if resolved {
                ResumeEntry::resolved(id, json!(true))
            } else {
                ResumeEntry::cancelled(id)
            };
            (r.payload, r.metadata) = (payload, metadata);
            r
        },
    );
    (
        (id(), id(), opt(text()), opt(id())),
        opt(non_null_value()),
        vec(message(), 0..3),
        vec(tool, 0..2),
        vec((text(), text()).prop_map(|(d, v)| Context::new(d, v)), 0..2),
        opt(non_null_value()),
        opt(vec(resume, 0..2).boxed()),
    )
        .prop_map(
            |((thread, run, version, parent), state, messages, tools, context, props, resume)| {
                let mut input = RunAgentInput::new(thread, run)
                    .with_messages(messages)
                    .with_tools(tools)
                    .with_context(context);
                (input.protocol_version, input.parent_run_id) = (version, parent.map(Into::into));
                (input.state, input.forwarded_props, input.resume) = (state, props, resume);
                input
            },
        )
        .boxed()
}

/// An event of the given type: required fields random, every optional field (the base fields
/// and the attribution included) randomly present or absent.
pub fn event_of(ty: EventType) -> BoxedStrategy<Event> {
    use ag_ui::*;
    let body: BoxedStrategy<Event> = match ty {
        EventType::TextMessageStart => (id(), opt(text_role()), opt(text()))
            .prop_map(|(m, role, name)| {
                let mut e = TextMessageStartEvent::new(m);
                (e.role, e.name) = (role, name);
                e.into()
            })
            .boxed(),
        EventType::TextMessageContent => (id(), text())
            .prop_map(|(m, d)| Event::text_message_content(m, d))
            .boxed(),
        EventType::TextMessageEnd => id().prop_map(Event::text_message_end).boxed(),
        EventType::TextMessageChunk => (opt(id()), opt(text_role()), opt(text()), opt(text()))
            .prop_map(|(m, role, delta, name)| {
                let mut e = TextMessageChunkEvent::new();
                (e.message_id, e.role, e.delta, e.name) = (m.map(Into::into), role, delta, name);
                e.into()
            })
            .boxed(),
        EventType::ToolCallStart => (id(), text(), opt(id()))
            .prop_map(|(c, name, parent)| {
                let mut e = ToolCallStartEvent::new(c, name);
                e.parent_message_id = parent.map(Into::into);
                e.into()
            })
            .boxed(),
        EventType::ToolCallArgs => (id(), text())
            .prop_map(|(c, d)| Event::tool_call_args(c, d))
            .boxed(),
        EventType::ToolCallEnd => id().prop_map(Event::tool_call_end).boxed(),
        EventType::ToolCallChunk => (opt(id()), opt(text()), opt(id()), opt(text()))
            .prop_map(|(c, name, parent, delta)| {
                let mut e = ToolCallChunkEvent::new();
                (e.tool_call_id, e.tool_call_name) = (c.map(Into::into), name);
                (e.parent_message_id, e.delta) = (parent.map(Into::into), delta);
                e.into()
            })
            .boxed(),
        EventType::ToolCallResult => (id(), id(), content(), any::<bool>())
            .prop_map(|(m, c, content, role)| {
                let mut e = ToolCallResultEvent::new(m, c, content);
                e.role = role.then_some(ToolRole::Tool);
                e.into()
            })
            .boxed(),
        EventType::StateSnapshot => json_value().prop_map(Event::state_snapshot).boxed(),
        EventType::StateDelta => patch().prop_map(Event::state_delta).boxed(),
        EventType::MessagesSnapshot => vec(message(), 0..4)
            .prop_map(Event::messages_snapshot)
            .boxed(),
        EventType::ActivitySnapshot => (id(), text(), metadata(), opt(any::<bool>().boxed()))
            .prop_map(|(m, kind, content, replace)| {
                let mut e = ActivitySnapshotEvent::new(m, kind, content);
                e.replace = replace;
                e.into()
            })
            .boxed(),
        EventType::ActivityDelta => (id(), text(), patch())
            .prop_map(|(m, kind, p)| Event::activity_delta(m, kind, p))
            .boxed(),
        EventType::Raw => (json_value(), opt(text()))
            .prop_map(|(event, source)| {
                let mut e = RawEvent::new(event);
                e.source = source;
                e.into()
            })
            .boxed(),
        EventType::Custom => (text(), json_value())
            .prop_map(|(n, v)| Event::custom(n, v))
            .boxed(),
        EventType::RunStarted => (id(), id(), opt(text()), opt(id()), opt(run_agent_input()))
            .prop_map(|(t, r, version, parent, input)| {
                let mut e = RunStartedEvent::new(t, r);
                (e.protocol_version, e.parent_run_id) = (version, parent.map(Into::into));
                e.input = input.map(Box::new);
                e.into()
            })
            .boxed(),
        EventType::RunFinished => (
            id(),
            id(),
            opt(non_null_value()),
            opt(run_outcome()),
            opt(vec(token_usage(), 0..3).boxed()),
        )
            .prop_map(|(t, r, result, outcome, usage)| {
                let mut e = RunFinishedEvent::new(t, r);
                (e.result, e.outcome, e.usage) = (result, outcome, usage);
                e.into()
            })
            .boxed(),
        EventType::RunError => (text(), opt(text()), opt(vec(token_usage(), 0..3).boxed()))
            .prop_map(|(message, code, usage)| {
                let mut e = RunErrorEvent::new(message);
                (e.code, e.usage) = (code, usage);
                e.into()
            })
            .boxed(),
        EventType::StepStarted => text().prop_map(Event::step_started).boxed(),
        EventType::StepFinished => text().prop_map(Event::step_finished).boxed(),
        EventType::ReasoningStart => id().prop_map(Event::reasoning_start).boxed(),
        EventType::ReasoningMessageStart => id().prop_map(Event::reasoning_message_start).boxed(),
        EventType::ReasoningMessageContent => (id(), text())
            .prop_map(|(m, d)| Event::reasoning_message_content(m, d))
            .boxed(),
        EventType::ReasoningMessageEnd => id().prop_map(Event::reasoning_message_end).boxed(),
        EventType::ReasoningMessageChunk => (opt(id()), opt(text()))
            .prop_map(|(m, d)| Event::reasoning_message_chunk(m.map(Into::into), d))
            .boxed(),
        EventType::ReasoningEnd => id().prop_map(Event::reasoning_end).boxed(),
        EventType::ReasoningEncryptedValue => (any::<bool>(), id(), text())
            .prop_map(|(call, entity, value)| {
                let subtype = if call {
                    ReasoningEncryptedValueSubtype::ToolCall
                } else {
                    ReasoningEncryptedValueSubtype::Message
                };
                Event::reasoning_encrypted_value(subtype, entity, value)
            })
            .boxed(),
        EventType::SubagentStarted => (id(), text(), opt(text()), opt(id()), opt(id()), opt(id()))
            .prop_map(
                |(s, name, description, parent_sub, parent_call, parent_msg)| {
                    let mut e = SubagentStartedEvent::new(s, name);
                    e.description = description;
                    e.parent_subagent_run_id = parent_sub.map(Into::into);
                    e.parent_tool_call_id = parent_call.map(Into::into);
                    e.parent_message_id = parent_msg.map(Into::into);
                    e.into()
                },
            )
            .boxed(),
        EventType::SubagentFinished => (id(), opt(non_null_value()), opt(subagent_outcome()))
            .prop_map(|(s, result, outcome)| {
                let mut e = SubagentFinishedEvent::new(s);
                (e.result, e.outcome) = (result, outcome);
                e.into()
            })
            .boxed(),
        EventType::SubagentError => (id(), text(), opt(text()))
            .prop_map(|(s, message, code)| {
                let mut e = SubagentErrorEvent::new(s, message);
                e.code = code;
                e.into()
            })
            .boxed(),
        other => panic!("no strategy for {other}"),
    };
    (
        body,
        opt((-MAX_SAFE..=MAX_SAFE).boxed()),
        opt(non_null_value()),
        opt(metadata()),
        opt(id()),
    )
        .prop_map(|(mut event, ts, raw, metadata, sub)| {
            *event.timestamp_mut() = ts;
            *event.raw_event_mut() = raw.map(Box::new);
            *event.metadata_mut() = metadata.map(Box::new);
            if let (Some(slot), Some(sub)) = (event.attribution_mut(), sub) {
                *slot = Some(sub.into());
            }
            event
        })
        .boxed()
}

/// An event of any of the 31 types, each equally likely.
pub fn any_event() -> BoxedStrategy<Event> {
    let all: Vec<BoxedStrategy<Event>> = EventType::ALL.iter().map(|&t| event_of(t)).collect();
    proptest::strategy::Union::new(all).boxed()
}
