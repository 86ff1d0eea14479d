//! The reducer's `Limits`: each refused with its kind, the state and messages unchanged.

use super::*;

// ----- limits -----------------------------------------------------------------------------

/// One patch of `n` copies of the whole document into itself: each doubles it.
fn doubling_patch(n: usize) -> Value {
    Value::Array(
        (0..n)
            .map(|i| json!({"op":"copy","from":"","path":format!("/copy{i}")}))
            .collect(),
    )
}

fn limit_of(err: &ApplyError) -> LimitExceeded {
    assert_eq!(err.kind(), ApplyErrorKind::Limit, "{err}");
    err.limit.expect("a limit error names its limit")
}

#[test]
fn forty_copies_of_the_state_are_refused_with_the_state_unchanged() {
    let patch = doubling_patch(40);
    assert!(patch.to_string().len() < 2600, "the patch is small");
    let mut r = run(&[
        json!({"type":"RUN_STARTED","threadId":"t","runId":"r"}),
        json!({"type":"STATE_SNAPSHOT","snapshot":{"seed":"0123456789"}}),
    ]);
    let before = r.state().clone();
    let err = r
        .apply(&ev(json!({"type":"STATE_DELTA","delta":patch})))
        .unwrap_err();
    assert_eq!((err.index, err.event_type), (2, EventType::StateDelta));
    let limit = limit_of(&err);
    assert_eq!(limit.kind, LimitKind::GrowthBytes);
    assert_eq!(limit.max, Limits::new().max_growth_bytes);
    assert!(limit.size > limit.max);
    assert_eq!(r.state(), &before, "nothing of the patch applied");
    let text = err.to_string();
    assert!(
        text.starts_with("event 2 (STATE_DELTA): apply.limit: max-growth-bytes exceeded"),
        "{text}"
    );
    // The reducer goes on.
    r.apply(&ev(
        json!({"type":"STATE_DELTA","delta":[{"op":"add","path":"/n","value":1}]}),
    ))
    .unwrap();
    assert_eq!(r.state()["n"], json!(1));
}

#[test]
fn forty_copies_of_an_activity_are_refused_with_the_content_unchanged() {
    let mut r = run(&[
        json!({"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"PLAN","content":{"seed":"0123456789"}}),
    ]);
    let before = messages_json(&r);
    let err = r
        .apply(&ev(
            json!({"type":"ACTIVITY_DELTA","messageId":"a","activityType":"PLAN",
            "patch":doubling_patch(40),"metadata":{"m":1}}),
        ))
        .unwrap_err();
    assert_eq!((err.index, err.event_type), (1, EventType::ActivityDelta));
    assert_eq!(limit_of(&err).kind, LimitKind::GrowthBytes);
    assert_eq!(messages_json(&r), before, "content and metadata unchanged");
    // A legal patch still applies to the content that was kept.
    r.apply(&ev(
        json!({"type":"ACTIVITY_DELTA","messageId":"a","activityType":"PLAN",
        "patch":[{"op":"copy","from":"/seed","path":"/again"}]}),
    ))
    .unwrap();
    assert_eq!(
        messages_json(&r)[0]["content"],
        json!({"seed":"0123456789","again":"0123456789"})
    );
}

#[test]
fn doubling_one_copy_per_event_stops_at_the_document_limit() {
    let max = 10_000;
    let mut r = Reducer::new().with_limits(
        Limits::new()
            .with_max_document_bytes(max)
            .with_max_growth_bytes(max),
    );
    r.apply(&ev(
        json!({"type":"STATE_SNAPSHOT","snapshot":{"seed":"0123456789"}}),
    ))
    .unwrap();
    let mut refused = None;
    for i in 0..40 {
        let before = r.state().clone();
        let event = ev(
            json!({"type":"STATE_DELTA","delta":[{"op":"copy","from":"","path":format!("/c{i}")}]}),
        );
        match r.apply(&event) {
            Ok(_) => continue,
            Err(err) => {
                let limit = limit_of(&err);
                assert_eq!(limit.kind, LimitKind::StateBytes);
                assert_eq!(limit.max, max);
                assert_eq!(r.state(), &before);
                refused = Some((i, before));
                break;
            }
        }
    }
    let (i, state) = refused.expect("refused before 40 doublings");
    let size = serde_json::to_string(&state).unwrap().len();
    // Refused at the first doubling that would not fit, not earlier.
    assert!(
        size <= max && 2 * size > max - 100,
        "refused at {i} with {size} bytes"
    );
}

#[test]
fn churn_below_the_limit_is_never_refused() {
    // The running estimate only grows; the document is measured before anything is refused.
    let mut r = Reducer::new().with_limits(
        Limits::new()
            .with_max_document_bytes(4_000)
            .with_max_growth_bytes(3_000),
    );
    let value = "x".repeat(1_000);
    for _ in 0..500 {
        r.apply(&ev(
            json!({"type":"STATE_DELTA","delta":[{"op":"add","path":"/k","value":value}]}),
        ))
        .unwrap();
        r.apply(&ev(
            json!({"type":"STATE_DELTA","delta":[{"op":"remove","path":"/k"}]}),
        ))
        .unwrap();
        r.apply(&ev(
            json!({"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"T","content":{}}),
        ))
        .unwrap();
        r.apply(&ev(json!({"type":"ACTIVITY_DELTA","messageId":"a","activityType":"T",
            "patch":[{"op":"add","path":"/k","value":value},{"op":"copy","from":"/k","path":"/j"}]})))
            .unwrap();
    }
    assert_eq!(r.state(), &json!({}));
}

#[test]
fn a_copy_is_measured_where_it_comes_from() {
    let limits = Limits::new()
        .with_max_document_bytes(20_000)
        .with_max_growth_bytes(2_000);
    let big = "x".repeat(5_000);
    let mut r = Reducer::new().with_limits(limits);
    r.apply(&ev(
        json!({"type":"STATE_SNAPSHOT","snapshot":{"big":big,"small":{"a":1}}}),
    ))
    .unwrap();
    // A copy of a part no earlier operation touched counts that part.
    r.apply(&ev(json!({"type":"STATE_DELTA","delta":[
        {"op":"add","path":"/n","value":1},
        {"op":"copy","from":"/small","path":"/small2"}
    ]})))
    .unwrap();
    assert_eq!(r.state()["small2"], json!({"a":1}));
    // A copy of a part an earlier operation changed counts the whole document (an upper bound).
    let err = r
        .apply(&ev(json!({"type":"STATE_DELTA","delta":[
            {"op":"add","path":"/small/b","value":2},
            {"op":"copy","from":"/small","path":"/small3"}
        ]})))
        .unwrap_err();
    assert_eq!(limit_of(&err).kind, LimitKind::GrowthBytes);
    assert!(r.state().get("small3").is_none() && r.state()["small"].get("b").is_none());
    // A failing patch is still a warning, not an error, and changes nothing.
    let applied = r
        .apply(&ev(
            json!({"type":"STATE_DELTA","delta":[{"op":"copy","from":"/missing","path":"/x"}]}),
        ))
        .unwrap();
    assert_eq!(
        applied.warning.unwrap().kind,
        ApplyWarningKind::StatePatchFailed
    );
}

#[test]
fn snapshots_over_the_limits_are_refused() {
    let limits = Limits::new()
        .with_max_document_bytes(1_000)
        .with_max_message_bytes(100);
    let mut r = Reducer::new().with_limits(limits);
    r.apply(&ev(json!({"type":"STATE_SNAPSHOT","snapshot":{"a":1}})))
        .unwrap();
    r.apply(&ev(json!({"type":"TEXT_MESSAGE_START","messageId":"m"})))
        .unwrap();
    let before = messages_json(&r);

    let err = r
        .apply(&ev(
            json!({"type":"STATE_SNAPSHOT","snapshot":{"a":"x".repeat(2_000)}}),
        ))
        .unwrap_err();
    assert_eq!((err.index, limit_of(&err).kind), (2, LimitKind::StateBytes));
    assert_eq!(r.state(), &json!({"a":1}));

    let err = r
        .apply(&ev(
            json!({"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"T",
            "content":{"a":"x".repeat(2_000)}}),
        ))
        .unwrap_err();
    assert_eq!(
        (err.index, limit_of(&err).kind),
        (3, LimitKind::ActivityBytes)
    );

    let err = r
        .apply(&ev(json!({"type":"MESSAGES_SNAPSHOT","messages":[
            {"id":"u","role":"user","content":"hi"},
            {"id":"v","role":"assistant","content":"y".repeat(101)}
        ]})))
        .unwrap_err();
    assert_eq!(
        (err.index, limit_of(&err).kind),
        (4, LimitKind::MessageBytes)
    );
    assert_eq!(messages_json(&r), before, "messages unchanged");

    let err = r
        .apply(&ev(
            json!({"type":"RUN_STARTED","threadId":"t","runId":"r","input":{
            "threadId":"t","runId":"r","state":{},"messages":[
                {"id":"w","role":"assistant","toolCalls":[{"id":"c","type":"function",
                    "function":{"name":"f","arguments":"z".repeat(100)}}]}
            ],"tools":[],"context":[],"forwardedProps":{}}}),
        ))
        .map(|_| ());
    assert_eq!(err, Ok(()), "arguments have their own limit");
    assert_eq!(messages_json(&r).as_array().unwrap().len(), 2);
}

#[test]
fn text_arguments_and_reasoning_stop_at_their_limits() {
    let limits = Limits::new()
        .with_max_message_bytes(10)
        .with_max_tool_call_args_bytes(20)
        .with_max_reasoning_bytes(30);
    let mut r = Reducer::new().with_limits(limits);
    for event in [
        json!({"type":"TEXT_MESSAGE_START","messageId":"m"}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}),
        json!({"type":"REASONING_MESSAGE_START","messageId":"r","role":"reasoning"}),
    ] {
        r.apply(&ev(event)).unwrap();
    }
    let mut refused = Vec::new();
    for _ in 0..8 {
        for event in [
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"abcd"}),
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"abcd"}),
            json!({"type":"REASONING_MESSAGE_CONTENT","messageId":"r","delta":"abcd"}),
        ] {
            if let Err(err) = r.apply(&ev(event)) {
                let limit = limit_of(&err);
                refused.push((err.index, err.event_type, limit.kind, limit.size, limit.max));
            }
        }
    }
    // Each is refused from the delta that would take it past its limit, and kept whole before.
    assert_eq!(
        refused.first(),
        Some(&(
            9,
            EventType::TextMessageContent,
            LimitKind::MessageBytes,
            12,
            10
        ))
    );
    assert!(refused.contains(&(
        19,
        EventType::ToolCallArgs,
        LimitKind::ToolCallArgsBytes,
        24,
        20
    )));
    assert!(refused.contains(&(
        26,
        EventType::ReasoningMessageContent,
        LimitKind::ReasoningBytes,
        32,
        30
    )));
    assert_eq!(r.message("m").unwrap().text(), Some("abcdabcd"));
    assert_eq!(
        r.tool_call("c").unwrap().function.arguments,
        "abcd".repeat(5)
    );
    assert_eq!(r.message("r").unwrap().text(), Some(&*"abcd".repeat(7)));

    let err = r
        .apply(&ev(
            json!({"type":"TOOL_CALL_RESULT","messageId":"t","toolCallId":"c",
            "content":"x".repeat(11)}),
        ))
        .unwrap_err();
    assert_eq!(limit_of(&err).kind, LimitKind::MessageBytes);
    assert!(r.message("t").is_none());
}
