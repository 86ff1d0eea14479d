//! Unit tests of the reducer; the limits' cases are in `tests/limits.rs`.

use super::*;
use serde_json::json;

fn ev(value: Value) -> Event {
    Event::from_value(&value).unwrap_or_else(|e| panic!("bad test event {value}: {e}"))
}

fn run(events: &[Value]) -> Reducer {
    let mut reducer = Reducer::new();
    for event in events {
        reducer.apply(&ev(event.clone())).unwrap();
    }
    reducer
}

fn messages_json(reducer: &Reducer) -> Value {
    serde_json::to_value(reducer.messages()).unwrap()
}

#[test]
fn text_message_builds_and_reuses() {
    let r = run(&[
        json!({"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"s1","metadata":{"a":1}}),
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi","metadata":{"b":2}}),
        json!({"type":"TEXT_MESSAGE_END","messageId":"m1"}),
        json!({"type":"TEXT_MESSAGE_START","messageId":"m1","role":"user","name":"x"}),
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"!"}),
    ]);
    assert_eq!(
        messages_json(&r),
        json!([{"id":"m1","role":"assistant","content":"Hi!","metadata":{"a":1,"b":2},"subagentRunId":"s1"}])
    );
}

#[test]
fn text_roles_and_names() {
    let r = run(&[
        json!({"type":"TEXT_MESSAGE_START","messageId":"u","role":"user","name":"ann"}),
        json!({"type":"TEXT_MESSAGE_START","messageId":"s","role":"system"}),
        json!({"type":"TEXT_MESSAGE_START","messageId":"d","role":"developer"}),
    ]);
    assert_eq!(
        messages_json(&r),
        json!([
            {"id":"u","role":"user","content":"","name":"ann"},
            {"id":"s","role":"system","content":""},
            {"id":"d","role":"developer","content":""}
        ])
    );
}

#[test]
fn content_replaces_multimodal_content() {
    let mut r = Reducer::new().with_messages(vec![
        serde_json::from_value(
            json!({"id":"u","role":"user","content":[{"type":"text","text":"a"}]}),
        )
        .unwrap(),
    ]);
    r.apply(&ev(
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"u","delta":"b"}),
    ))
    .unwrap();
    assert_eq!(
        messages_json(&r),
        json!([{"id":"u","role":"user","content":"b"}])
    );
}

#[test]
fn unknown_and_activity_targets_warn() {
    let mut r = Reducer::new();
    let a = r
        .apply(&ev(
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"nope","delta":"x"}),
        ))
        .unwrap();
    assert_eq!(a.warning.unwrap().kind, ApplyWarningKind::UnknownMessage);
    assert!(!a.messages.is_changed());
    r.apply(&ev(
        json!({"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"PLAN","content":{}}),
    ))
    .unwrap();
    for e in [
        json!({"type":"TEXT_MESSAGE_START","messageId":"a"}),
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"x"}),
        json!({"type":"REASONING_MESSAGE_START","messageId":"a","role":"reasoning"}),
    ] {
        let applied = r.apply(&ev(e)).unwrap();
        let w = applied.warning.unwrap();
        assert_eq!(w.kind, ApplyWarningKind::ActivityMessageId);
        assert_eq!(w.kind.as_str(), "apply.activity-message-id");
    }
    assert_eq!(r.messages().len(), 1);
}

#[test]
fn tool_calls_attach_to_parent_or_new_message() {
    let r = run(&[
        json!({"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"s1"}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"m1","subagentRunId":"s2"}),
        json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"a\":"}),
        json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"1}","metadata":{"k":true}}),
        json!({"type":"TOOL_CALL_END","toolCallId":"c1"}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"g","parentMessageId":"new","subagentRunId":"s3"}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c3","toolCallName":"h"}),
    ]);
    assert_eq!(
        messages_json(&r),
        json!([
            {"id":"m1","role":"assistant","content":"","subagentRunId":"s1","toolCalls":[
                {"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"},"metadata":{"k":true}}
            ]},
            {"id":"new","role":"assistant","toolCalls":[{"id":"c2","type":"function","function":{"name":"g","arguments":""}}],"subagentRunId":"s3"},
            {"id":"c3","role":"assistant","toolCalls":[{"id":"c3","type":"function","function":{"name":"h","arguments":""}}]}
        ])
    );
}

#[test]
fn tool_call_parent_not_assistant_and_replay() {
    let mut r = run(&[
        json!({"type":"TEXT_MESSAGE_START","messageId":"u","role":"user"}),
        json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"x"}),
    ]);
    let a = r
        .apply(&ev(json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"u"})))
        .unwrap();
    assert_eq!(
        a.warning.unwrap().kind,
        ApplyWarningKind::ParentNotAssistant
    );
    r.apply(&ev(
        json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}),
    ))
    .unwrap();
    let a = r
        .apply(&ev(json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"g","parentMessageId":"zzz"})))
        .unwrap();
    assert_eq!(a.warning.unwrap().kind, ApplyWarningKind::ToolCallRenamed);
    assert_eq!(
        messages_json(&r),
        json!([
            {"id":"u","role":"user","content":""},
            {"id":"c1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"g","arguments":"{}"}}]}
        ])
    );
}

#[test]
fn tool_results_go_after_their_call_and_earlier_results() {
    let mut r = run(&[
        json!({"type":"RUN_STARTED","threadId":"t","runId":"r"}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"a1"}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"f","parentMessageId":"a1"}),
        json!({"type":"TEXT_MESSAGE_START","messageId":"later"}),
        json!({"type":"TOOL_CALL_RESULT","messageId":"r2","toolCallId":"c2","content":"two","subagentRunId":"s"}),
    ]);
    let applied = r
        .apply(&ev(json!({"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"c1","content":"one","metadata":{"m":1}})))
        .unwrap();
    assert_eq!(applied.messages, MessagesChange::Inserted(2));
    assert_eq!(applied.new_message, Some(2));
    r.apply(&ev(
        json!({"type":"TOOL_CALL_RESULT","messageId":"r9","toolCallId":"nope","content":"?"}),
    ))
    .unwrap();
    let ids: Vec<&str> = r.messages().iter().map(|m| m.id().as_str()).collect();
    assert_eq!(ids, ["a1", "r2", "r1", "later", "r9"]);
    // The index follows the shift: "later" is still reachable and appendable.
    r.apply(&ev(
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"later","delta":"ok"}),
    ))
    .unwrap();
    assert_eq!(r.message("later").unwrap().text(), Some("ok"));
    assert_eq!(
        serde_json::to_value(r.message("r2").unwrap()).unwrap(),
        json!({"id":"r2","role":"tool","content":"two","toolCallId":"c2","subagentRunId":"s"})
    );
    assert_eq!(
        serde_json::to_value(r.message("r1").unwrap()).unwrap(),
        json!({"id":"r1","role":"tool","content":"one","toolCallId":"c1","metadata":{"m":1}})
    );
    r.apply(&ev(
        json!({"type":"RUN_FINISHED","threadId":"t","runId":"r"}),
    ))
    .unwrap();
    assert!(r.pending_tool_call_ids().is_empty());
}

#[test]
fn pending_tool_call_ids_and_outcomes() {
    let mut r = run(&[
        json!({"type":"RUN_STARTED","threadId":"t","runId":"r"}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"f"}),
        json!({"type":"TOOL_CALL_RESULT","messageId":"x","toolCallId":"c1","content":""}),
        json!({"type":"RUN_FINISHED","threadId":"t","runId":"r","result":{"ok":1}}),
    ]);
    assert_eq!(r.pending_tool_call_ids(), &[ToolCallId::new("c2")]);
    assert_eq!(r.result(), Some(&json!({"ok":1})));
    r.apply(&ev(
        json!({"type":"RUN_STARTED","threadId":"t","runId":"r2"}),
    ))
    .unwrap();
    r.apply(&ev(json!({"type":"RUN_FINISHED","threadId":"t","runId":"r2","outcome":{"type":"success","pendingToolCallIds":["z"]}})))
        .unwrap();
    assert_eq!(r.pending_tool_call_ids(), &[ToolCallId::new("z")]);
    assert_eq!(
        r.result(),
        Some(&json!({"ok":1})),
        "last success result kept"
    );
    r.apply(&ev(
        json!({"type":"RUN_STARTED","threadId":"t","runId":"r3"}),
    ))
    .unwrap();
    r.apply(&ev(
        json!({"type":"RUN_FINISHED","threadId":"t","runId":"r3",
        "outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"approve"}]}}),
    ))
    .unwrap();
    assert_eq!(r.pending_interrupts().len(), 1);
    assert!(matches!(r.outcome(), Some(RunOutcome::Interrupt { .. })));
    assert!(r.pending_tool_call_ids().is_empty());
    r.apply(&ev(json!({"type":"RUN_ERROR","message":"x"})))
        .unwrap();
    assert_eq!(
        r.pending_interrupts().len(),
        1,
        "RUN_ERROR leaves interrupts"
    );
    r.apply(&ev(
        json!({"type":"RUN_FINISHED","threadId":"t","runId":"r3","outcome":{"type":"cancelled"}}),
    ))
    .unwrap();
    assert!(r.pending_interrupts().is_empty());
    assert_eq!(r.outcome(), Some(&RunOutcome::Cancelled));
}

#[test]
fn reasoning_and_encrypted_values() {
    let r = run(&[
        json!({"type":"REASONING_START","messageId":"r1"}),
        json!({"type":"REASONING_MESSAGE_START","messageId":"r1","role":"reasoning","subagentRunId":"s"}),
        json!({"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":"hmm"}),
        json!({"type":"REASONING_MESSAGE_END","messageId":"r1"}),
        json!({"type":"REASONING_END","messageId":"r1"}),
        json!({"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"r1","encryptedValue":"E1"}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}),
        json!({"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"c","encryptedValue":"E2"}),
        json!({"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"r1","encryptedValue":"no"}),
        json!({"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"P","content":{}}),
        json!({"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"a","encryptedValue":"no"}),
    ]);
    assert_eq!(
        messages_json(&r),
        json!([
            {"id":"r1","role":"reasoning","content":"hmm","encryptedValue":"E1","subagentRunId":"s"},
            {"id":"c","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":""},"encryptedValue":"E2"}]},
            {"id":"a","role":"activity","activityType":"P","content":{}}
        ])
    );
}

#[test]
fn state_snapshot_and_delta_failure_keeps_state() {
    let mut r = run(&[
        json!({"type":"STATE_SNAPSHOT","snapshot":{"a":1,"list":[1]}}),
        json!({"type":"STATE_DELTA","delta":[{"op":"add","path":"/list/-","value":2},{"op":"replace","path":"/a","value":5}]}),
    ]);
    assert_eq!(r.state(), &json!({"a":5,"list":[1,2]}));
    let applied = r
        .apply(&ev(json!({"type":"STATE_DELTA","delta":[
            {"op":"replace","path":"/a","value":6},
            {"op":"remove","path":"/missing"}
        ]})))
        .unwrap();
    let w = applied.warning.unwrap();
    assert_eq!(w.kind, ApplyWarningKind::StatePatchFailed);
    assert_eq!(w.index, 2);
    assert_eq!(w.event_type, EventType::StateDelta);
    assert!(!applied.state_changed);
    assert_eq!(
        r.state(),
        &json!({"a":5,"list":[1,2]}),
        "atomic: nothing applied"
    );
    r.apply(&ev(json!({"type":"STATE_SNAPSHOT","snapshot":0})))
        .unwrap();
    assert_eq!(r.state(), &json!(0));
}

#[test]
fn activity_snapshot_replace_rules_and_deltas() {
    let mut r = run(&[
        json!({"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"PLAN","content":{"s":1},"subagentRunId":"s1","metadata":{"m":1}}),
        json!({"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"PLAN2","content":{"s":2},"replace":false,"metadata":{"n":2}}),
    ]);
    assert_eq!(
        messages_json(&r),
        json!([{"id":"a","role":"activity","activityType":"PLAN","content":{"s":1},"subagentRunId":"s1","metadata":{"m":1,"n":2}}])
    );
    r.apply(&ev(json!({"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"PLAN3","content":{"s":3}})))
        .unwrap();
    assert_eq!(
        messages_json(&r),
        json!([{"id":"a","role":"activity","activityType":"PLAN3","content":{"s":3},"metadata":{"m":1,"n":2}}])
    );
    r.apply(&ev(json!({"type":"ACTIVITY_DELTA","messageId":"a","activityType":"PLAN4","patch":[{"op":"add","path":"/t","value":true}]})))
        .unwrap();
    let failed = r
        .apply(&ev(json!({"type":"ACTIVITY_DELTA","messageId":"a","activityType":"X","patch":[{"op":"remove","path":"/nope"}],"metadata":{"kept":1}})))
        .unwrap();
    assert_eq!(
        failed.warning.unwrap().kind,
        ApplyWarningKind::ActivityPatchFailed
    );
    assert_eq!(
        messages_json(&r),
        json!([{"id":"a","role":"activity","activityType":"PLAN4","content":{"s":3,"t":true},"metadata":{"m":1,"n":2,"kept":1}}])
    );
    // Non-activity targets.
    r.apply(&ev(json!({"type":"TEXT_MESSAGE_START","messageId":"t"})))
        .unwrap();
    let w = r
        .apply(&ev(
            json!({"type":"ACTIVITY_DELTA","messageId":"t","activityType":"X","patch":[]}),
        ))
        .unwrap();
    assert_eq!(w.warning.unwrap().kind, ApplyWarningKind::NotActivity);
    let kept = r
        .apply(&ev(json!({"type":"ACTIVITY_SNAPSHOT","messageId":"t","activityType":"X","content":{},"replace":false})))
        .unwrap();
    assert!(
        kept.messages.is_changed(),
        "the reference emits even when nothing changed"
    );
    assert_eq!(r.message("t").unwrap().role(), Role::Assistant);
    let replaced = r
        .apply(&ev(json!({"type":"ACTIVITY_SNAPSHOT","messageId":"t","activityType":"X","content":{"z":1}})))
        .unwrap();
    assert_eq!(replaced.new_message, Some(1));
    assert_eq!(r.message("t").unwrap().role(), Role::Activity);
    // Unknown id: silently nothing.
    let none = r
        .apply(&ev(
            json!({"type":"ACTIVITY_DELTA","messageId":"zz","activityType":"X","patch":[]}),
        ))
        .unwrap();
    assert!(!none.is_changed() && none.warning.is_none());
}

#[test]
fn messages_snapshot_reconciles_and_preserves() {
    let mut r = run(&[
        json!({"type":"TEXT_MESSAGE_START","messageId":"m1"}),
        json!({"type":"TEXT_MESSAGE_START","messageId":"m2"}),
        json!({"type":"REASONING_MESSAGE_START","messageId":"r1","role":"reasoning"}),
        json!({"type":"ACTIVITY_SNAPSHOT","messageId":"a1","activityType":"PLAN","content":{}}),
        json!({"type":"ACTIVITY_SNAPSHOT","messageId":"a2","activityType":"SEARCH","content":{}}),
    ]);
    // Snapshot reorders m2 before m1 (existing order kept), drops nothing client-only.
    r.apply(&ev(json!({"type":"MESSAGES_SNAPSHOT","messages":[
        {"id":"new","role":"user","content":"n"},
        {"id":"m2","role":"assistant","content":"two"},
        {"id":"m1","role":"assistant","content":"one"}
    ]})))
    .unwrap();
    let ids: Vec<&str> = r.messages().iter().map(|m| m.id().as_str()).collect();
    assert_eq!(ids, ["m1", "m2", "r1", "a1", "a2", "new"]);
    assert_eq!(r.message("m1").unwrap().text(), Some("one"));
    // Authority over PLAN only: a1 dropped, a2 kept; reasoning dropped (snapshot has one).
    r.apply(&ev(json!({"type":"MESSAGES_SNAPSHOT","messages":[
        {"id":"m1","role":"assistant","content":"one"},
        {"id":"rr","role":"reasoning","content":"x"}
    ],"metadata":{"@ag-ui/client":{"authoritativeActivityTypes":["PLAN"]}}})))
        .unwrap();
    let ids: Vec<&str> = r.messages().iter().map(|m| m.id().as_str()).collect();
    assert_eq!(ids, ["m1", "a2", "rr"]);
    // Legacy inference: the snapshot has an activity, so local ones go; it has no reasoning, so
    // the local reasoning message stays.
    r.apply(&ev(json!({"type":"MESSAGES_SNAPSHOT","messages":[
        {"id":"m1","role":"assistant","content":"one"},
        {"id":"a9","role":"activity","activityType":"Q","content":{}}
    ]})))
    .unwrap();
    let ids: Vec<&str> = r.messages().iter().map(|m| m.id().as_str()).collect();
    assert_eq!(ids, ["m1", "rr", "a9"]);
}

#[test]
fn activity_authority_forms() {
    let meta = |v: Value| -> Metadata { serde_json::from_value(v).unwrap() };
    assert!(matches!(activity_authority(None), Authority::Legacy));
    assert!(matches!(
        activity_authority(Some(&meta(json!({"@ag-ui/client":{}})))),
        Authority::Legacy
    ));
    assert!(matches!(
        activity_authority(Some(&meta(
            json!({"@ag-ui/client":{"authoritativeActivityTypes":null}})
        ))),
        Authority::All
    ));
    assert!(matches!(
        activity_authority(Some(&meta(json!({"@ag-ui/client":5})))),
        Authority::Types(t) if t.is_empty()
    ));
    assert!(matches!(
        activity_authority(Some(&meta(json!({"@ag-ui/client":{"authoritativeActivityTypes":["A",1]}})))),
        Authority::Types(t) if t.is_empty()
    ));
}

#[test]
fn run_started_appends_input_messages_once() {
    let mut r = Reducer::new().with_messages(vec![Message::user("u1", "hi")]);
    let applied = r
        .apply(&ev(json!({"type":"RUN_STARTED","threadId":"t","runId":"r","input":{
            "threadId":"t","runId":"r","state":{},"tools":[],"context":[],"forwardedProps":{},
            "messages":[{"id":"u1","role":"user","content":"changed"},{"id":"u2","role":"user","content":"two"},{"id":"u2","role":"user","content":"dup"}]
        }})))
        .unwrap();
    assert_eq!(applied.messages, MessagesChange::Replaced);
    assert_eq!(
        r.messages(),
        &[Message::user("u1", "hi"), Message::user("u2", "two")]
    );
}

#[test]
fn chunks_are_an_error() {
    let mut r = Reducer::new();
    let err = r
        .apply(&ev(
            json!({"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"x"}),
        ))
        .unwrap_err();
    assert_eq!(err.kind(), ApplyErrorKind::UntransformedChunk);
    assert_eq!(err.kind().as_str(), "apply.untransformed-chunk");
    assert_eq!(err.index, 0);
    assert!(err.to_string().contains("TEXT_MESSAGE_CHUNK"));
    assert!(r.messages().is_empty());
}

#[test]
fn partial_tool_call_args_while_streaming() {
    let mut r = run(&[json!({"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"})]);
    assert_eq!(r.partial_tool_call_args("c"), Some(json!({})));
    r.apply(&ev(
        json!({"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"q\": \"wea"}),
    ))
    .unwrap();
    assert_eq!(r.partial_tool_call_args("c"), Some(json!({"q":"wea"})));
    r.apply(&ev(
        json!({"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"ther\", \"n\": 3}"}),
    ))
    .unwrap();
    r.apply(&ev(json!({"type":"TOOL_CALL_END","toolCallId":"c"})))
        .unwrap();
    assert_eq!(
        r.partial_tool_call_args("c"),
        Some(json!({"q":"weather","n":3}))
    );
    assert_eq!(r.partial_tool_call_args("nope"), None);
}

#[test]
fn metadata_merge_is_shallow_and_keeps_null() {
    let mut target: Option<Metadata> = None;
    let a: Metadata = serde_json::from_value(json!({"x":{"deep":1},"y":1})).unwrap();
    let b: Metadata = serde_json::from_value(json!({"x":{"other":2},"z":null})).unwrap();
    assert!(!merge_metadata(&mut target, None));
    assert!(merge_metadata(&mut target, Some(&a)));
    assert!(merge_metadata(&mut target, Some(&b)));
    assert_eq!(
        Value::Object(target.unwrap()),
        json!({"x":{"other":2},"y":1,"z":null})
    );
}

#[test]
fn subagent_tags_first_writer_wins() {
    let r = run(&[
        json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"p","subagentRunId":"s1"}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"f","parentMessageId":"p","subagentRunId":"s2"}),
        json!({"type":"TEXT_MESSAGE_START","messageId":"p","subagentRunId":"s3"}),
    ]);
    assert_eq!(r.messages()[0].subagent_run_id().unwrap().as_str(), "s1");
    assert_eq!(r.messages().len(), 1);
}

// ----- index -----------------------------------------------------------------------------

#[test]
fn the_index_finds_the_first_message_and_call_after_any_insertions() {
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n) as usize
    };
    for _ in 0..200 {
        let mut r = Reducer::new();
        for _ in 0..60 {
            let call = format!("c{}", next(8));
            let id = format!("m{}", next(8));
            let event = match next(4) {
                0 => json!({"type":"TOOL_CALL_START","toolCallId":call,"toolCallName":"f"}),
                1 => {
                    json!({"type":"TOOL_CALL_START","toolCallId":call,"toolCallName":"f","parentMessageId":id})
                }
                2 => json!({"type":"TEXT_MESSAGE_START","messageId":id}),
                // Results reuse message ids, so a later message can become the first of its id.
                _ => {
                    json!({"type":"TOOL_CALL_RESULT","messageId":id,"toolCallId":call,"content":"x"})
                }
            };
            r.apply(&ev(event)).unwrap();
            let messages = r.messages();
            for (i, m) in messages.iter().enumerate() {
                let first = messages.iter().position(|o| o.id() == m.id()).unwrap();
                assert_eq!(
                    r.message(m.id().as_str()).map(|f| f as *const Message),
                    Some(&messages[first] as *const Message),
                    "message {i}"
                );
            }
            for c in 0..8 {
                let call = format!("c{c}");
                let first = messages.iter().find_map(|m| match m {
                    Message::Assistant(a) => a
                        .tool_calls
                        .iter()
                        .flatten()
                        .find(|t| t.id.as_str() == call),
                    _ => None,
                });
                assert_eq!(
                    r.tool_call(&call).map(|t| t as *const ToolCall),
                    first.map(|t| t as *const ToolCall),
                    "{call}"
                );
            }
        }
    }
}

#[test]
fn a_failing_move_after_a_copy_leaves_the_state_as_it_was() {
    // json_patch's in-place undo panics on this patch (found by the reducer fuzz target).
    let mut reducer = Reducer::new().with_state(serde_json::json!({}));
    let ops: Vec<json_patch::PatchOperation> = serde_json::from_value(serde_json::json!([
        {"op":"add","path":"/k-0","value":{"list":[1]}},
        {"op":"add","path":"/k-0/list/-","value":2},
        {"op":"copy","from":"/k-0","path":"/k-0c"},
        {"op":"move","from":"/k-0c","path":"/k/list/-"},
    ]))
    .unwrap();
    let before = reducer.state().clone();
    let result = reducer.apply(&Event::state_delta(ops));
    assert!(result.is_err() || reducer.state() == &before);
    assert_eq!(reducer.state(), &before);
}

/// The order tool results are placed in, against a plain model of the rule (after the message
/// holding the call and the tool messages that follow it), over random streams that also turn
/// messages into activities (so runs of tool messages break where they were whole); and the
/// positions `apply` reports name the message they say.
#[test]
fn tool_results_land_where_the_reference_puts_them() {
    #[derive(Clone, Debug, PartialEq)]
    struct Model {
        id: String,
        role: Role,
        calls: Vec<String>,
    }
    for seed in 1..=30u64 {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut next = |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below as u64) as usize
        };
        let mut r = Reducer::new();
        let mut model: Vec<Model> = Vec::new();
        for step in 0..300 {
            let call = format!("c{}", next(12));
            let id = format!("m{}", next(40));
            let first_holding = |model: &[Model], call: &str| {
                model.iter().position(|m| m.calls.iter().any(|c| c == call))
            };
            let first_with = |model: &[Model], id: &str| model.iter().position(|m| m.id == id);
            let (event, expect_at) = match next(5) {
                0 | 1 => {
                    let parent = (next(2) == 0).then(|| id.clone());
                    if first_holding(&model, &call).is_none() {
                        let new = |id: &str| Model {
                            id: id.to_owned(),
                            role: Role::Assistant,
                            calls: vec![call.clone()],
                        };
                        match parent.as_deref().map(|p| (p, first_with(&model, p))) {
                            Some((_, Some(p))) if model[p].role == Role::Assistant => {
                                model[p].calls.push(call.clone());
                            }
                            Some((p, None)) => model.push(new(p)),
                            _ => model.push(new(&call)),
                        }
                    }
                    let event = match parent {
                        Some(p) => json!({"type":"TOOL_CALL_START","toolCallId":call,
                            "toolCallName":"f","parentMessageId":p}),
                        None => json!({"type":"TOOL_CALL_START","toolCallId":call,
                            "toolCallName":"f"}),
                    };
                    (event, None)
                }
                2 => {
                    let at = match first_holding(&model, &call) {
                        Some(p) => {
                            let mut at = p + 1;
                            while at < model.len() && model[at].role == Role::Tool {
                                at += 1;
                            }
                            at
                        }
                        None => model.len(),
                    };
                    let result = format!("r{step}");
                    model.insert(
                        at,
                        Model {
                            id: result.clone(),
                            role: Role::Tool,
                            calls: Vec::new(),
                        },
                    );
                    let event = json!({"type":"TOOL_CALL_RESULT","messageId":result,
                        "toolCallId":call,"content":"x"});
                    (event, Some(at))
                }
                3 => {
                    if first_with(&model, &id).is_none() {
                        model.push(Model {
                            id: id.clone(),
                            role: Role::Assistant,
                            calls: Vec::new(),
                        });
                    }
                    (json!({"type":"TEXT_MESSAGE_START","messageId":id}), None)
                }
                _ => {
                    // An existing message's id, most of the time: it becomes an activity.
                    // (Only a message holding no tool call: the reducer's call index keeps
                    // naming a replaced holder, a case of its own.)
                    let target = match model.len() {
                        0 => format!("a{step}"),
                        n => {
                            let m = &model[next(n)];
                            let first = &model[first_with(&model, &m.id).unwrap()];
                            if first.calls.is_empty() {
                                m.id.clone()
                            } else {
                                format!("a{step}")
                            }
                        }
                    };
                    match first_with(&model, &target) {
                        Some(p) => {
                            model[p].role = Role::Activity;
                            model[p].calls.clear();
                        }
                        None => model.push(Model {
                            id: target.clone(),
                            role: Role::Activity,
                            calls: Vec::new(),
                        }),
                    }
                    let event = json!({"type":"ACTIVITY_SNAPSHOT","messageId":target,
                        "activityType":"PLAN","content":{}});
                    (event, None)
                }
            };
            let applied = r.apply(&ev(event)).unwrap();
            let got: Vec<(String, Role)> = r
                .messages()
                .iter()
                .map(|m| (m.id().as_str().to_owned(), m.role()))
                .collect();
            let want: Vec<(String, Role)> = model.iter().map(|m| (m.id.clone(), m.role)).collect();
            assert_eq!(got, want, "seed {seed}, step {step}");
            if let Some(at) = expect_at {
                assert_eq!(applied.new_message, Some(at), "seed {seed}, step {step}");
                assert!(matches!(
                    applied.messages,
                    MessagesChange::Inserted(p) | MessagesChange::Appended(p) if p == at
                ));
            }
            if let MessagesChange::Updated(p) | MessagesChange::Appended(p) = applied.messages {
                assert!(p < r.messages().len());
            }
        }
    }
}

/// Many results for the calls of one message, and results among many messages: each lands
/// after its call and the results before it, as a `Vec` insertion would put it.
#[test]
fn results_among_many_messages_keep_their_order() {
    let mut r = Reducer::new();
    let n = 2_000;
    for i in 0..n {
        r.apply(&Event::tool_call_start(format!("c{i}"), "f"))
            .unwrap();
        r.apply(&Event::tool_call_end(format!("c{i}"))).unwrap();
    }
    // Results in reverse, then a second result for every even call.
    for i in (0..n).rev() {
        let applied = r
            .apply(&Event::tool_call_result(
                format!("r{i}"),
                format!("c{i}"),
                "x",
            ))
            .unwrap();
        assert_eq!(applied.new_message, Some(i + 1));
    }
    for i in (0..n).step_by(2) {
        r.apply(&Event::tool_call_result(
            format!("s{i}"),
            format!("c{i}"),
            "y",
        ))
        .unwrap();
    }
    let ids: Vec<&str> = r.messages().iter().map(|m| m.id().as_str()).collect();
    let mut want = Vec::new();
    for i in 0..n {
        want.push(format!("c{i}"));
        want.push(format!("r{i}"));
        if i % 2 == 0 {
            want.push(format!("s{i}"));
        }
    }
    assert_eq!(ids, want);
    assert_eq!(r.messages()[3].id().as_str(), "c1");
    assert_eq!(r.message("s0").unwrap().text(), Some("y"));
    assert_eq!(r.clone().into_parts().0, r.messages().to_vec());
}

mod limits;
