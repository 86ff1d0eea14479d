//! Bad input is a typed error naming the event index, the event type and the field — never a
//! panic, never a silently different event.

#![cfg(feature = "sse")]

use ag_ui::encoding::sse::{self, EventDecoder};
use ag_ui::{DecodeErrorKind, Event, EventType};
use serde_json::json;

/// Decodes `json` and returns (kind, event type, field) of the error.
fn error_of(json: &str) -> (DecodeErrorKind, Option<String>, Option<String>) {
    let e = Event::from_json(json).expect_err(json);
    // The same error comes out of the SSE reader, with the frame index.
    let mut frames = b"data: {\"type\":\"STEP_STARTED\",\"stepName\":\"s\"}\n\ndata: ".to_vec();
    frames.extend_from_slice(json.as_bytes());
    frames.extend_from_slice(b"\n\n");
    let mut decoder = EventDecoder::new();
    decoder.push(&frames);
    decoder.finish();
    assert!(decoder.next_event().unwrap().is_ok());
    let framed = decoder.next_event().unwrap().unwrap_err();
    assert_eq!(framed.index(), Some(1), "{json}");
    assert_eq!(framed.kind(), e.kind(), "{json}");
    assert_eq!(framed.field(), e.field(), "{json}");
    assert!(decoder.next_event().is_none());
    (
        e.kind(),
        e.event_type().map(str::to_owned),
        e.field().map(str::to_owned),
    )
}

fn invalid(ty: &str, field: &str) -> (DecodeErrorKind, Option<String>, Option<String>) {
    (
        DecodeErrorKind::InvalidField,
        Some(ty.to_owned()),
        Some(field.to_owned()),
    )
}

#[test]
fn truncated_json_is_a_syntax_error() {
    let full = r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hello"}"#;
    for cut in 1..full.len() {
        let (kind, _, _) = error_of(&full[..cut]);
        assert!(
            matches!(kind, DecodeErrorKind::Syntax | DecodeErrorKind::MissingType),
            "{cut}: {kind:?}"
        );
    }
    assert_eq!(error_of(&full[..40]).0, DecodeErrorKind::Syntax);
    assert_eq!(error_of("").0, DecodeErrorKind::Syntax);
    assert_eq!(error_of("[1]").0, DecodeErrorKind::NotAnObject);
    assert_eq!(error_of(r#"{"type":""}"#).0, DecodeErrorKind::MissingType);
    assert_eq!(error_of(r#"{"type":7}"#).0, DecodeErrorKind::MissingType);
}

#[test]
fn wrong_types_name_the_field() {
    assert_eq!(
        error_of(r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":1,"delta":"x"}"#),
        invalid("TEXT_MESSAGE_CONTENT", "messageId")
    );
    assert_eq!(
        error_of(r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"tool"}"#),
        invalid("TEXT_MESSAGE_START", "role")
    );
    assert_eq!(
        error_of(r#"{"type":"STEP_STARTED","stepName":"s","timestamp":1.5}"#),
        invalid("STEP_STARTED", "timestamp")
    );
    assert_eq!(
        error_of(
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"m","activityType":"PLAN","content":[]}"#
        ),
        invalid("ACTIVITY_SNAPSHOT", "content")
    );
    assert_eq!(
        error_of(
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","usage":[{"inputTokens":-1}]}"#
        ),
        invalid("RUN_FINISHED", "usage[0].inputTokens")
    );
    assert_eq!(
        error_of(r#"{"type":"REASONING_MESSAGE_START","messageId":"m","role":"assistant"}"#),
        invalid("REASONING_MESSAGE_START", "role")
    );
}

#[test]
fn missing_required_fields_are_named() {
    assert_eq!(
        error_of(r#"{"type":"TOOL_CALL_START","toolCallId":"c"}"#),
        invalid("TOOL_CALL_START", "toolCallName")
    );
    assert_eq!(
        error_of(r#"{"type":"REASONING_MESSAGE_START","messageId":"m"}"#),
        invalid("REASONING_MESSAGE_START", "role")
    );
    // `null`-valued any-JSON fields must still be present.
    for (ty, field) in [("STATE_SNAPSHOT", "snapshot"), ("RAW", "event")] {
        assert_eq!(
            error_of(&format!(r#"{{"type":"{ty}"}}"#)),
            invalid(ty, field)
        );
    }
    assert_eq!(
        error_of(r#"{"type":"CUSTOM","name":"n"}"#),
        invalid("CUSTOM", "value")
    );
}

#[test]
fn forbidden_nulls_are_rejected() {
    assert_eq!(
        error_of(r#"{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":null}"#),
        invalid("TEXT_MESSAGE_END", "metadata")
    );
    assert_eq!(
        error_of(r#"{"type":"TEXT_MESSAGE_END","messageId":"m","subagentRunId":null}"#),
        invalid("TEXT_MESSAGE_END", "subagentRunId")
    );
    assert_eq!(
        error_of(r#"{"type":"SUBAGENT_STARTED","subagentRunId":null,"name":"n"}"#),
        invalid("SUBAGENT_STARTED", "subagentRunId")
    );
    assert_eq!(
        error_of(r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":null}"#),
        invalid("SUBAGENT_FINISHED", "outcome")
    );
    assert_eq!(
        error_of(
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","content":null}]}"#
        ),
        invalid("MESSAGES_SNAPSHOT", "messages[0].content")
    );
    assert_eq!(
        error_of(r#"{"type":"STEP_STARTED","stepName":"s","timestamp":null}"#),
        invalid("STEP_STARTED", "timestamp")
    );
}

#[test]
fn a_null_text_part_metadata_is_rejected_not_re_emitted() {
    // Regression: `null` used to be read as a JSON value here and written back out.
    assert_eq!(
        error_of(
            r#"{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":[{"type":"text","text":"u","metadata":null}]}"#
        ),
        invalid("TOOL_CALL_RESULT", "content[0].metadata")
    );
}

#[test]
fn fields_inside_arrays_and_unions_are_named_exactly() {
    assert_eq!(
        error_of(
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"other","function":{"name":"n","arguments":""}}]}]}"#
        ),
        invalid("MESSAGES_SNAPSHOT", "messages[0].toolCalls[0].type")
    );
    assert_eq!(
        error_of(
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":"x"},{"id":"a","role":"user","content":[{"type":"image","source":{"type":"data","value":"x"}}]}]}"#
        ),
        invalid(
            "MESSAGES_SNAPSHOT",
            "messages[1].content[0].source.mimeType"
        )
    );
    assert_eq!(
        error_of(
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"s","role":"system"}]}}"#
        ),
        invalid("RUN_STARTED", "input.messages[0].content")
    );
    assert_eq!(
        error_of(r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a"}]}"#),
        invalid("STATE_DELTA", "delta[0].value")
    );
    assert_eq!(
        error_of(
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt"}}"#
        ),
        invalid("RUN_FINISHED", "outcome.interrupts")
    );
}

#[test]
fn legacy_nulls_read_as_absent() {
    let cases = [
        json!({"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"t","parentMessageId":null}),
        json!({"type":"TOOL_CALL_CHUNK","parentMessageId":null}),
        json!({"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":null,"result":null}),
        json!({"type":"SUBAGENT_FINISHED","subagentRunId":"s","result":null}),
        json!({"type":"STEP_STARTED","stepName":"s","rawEvent":null}),
    ];
    for input in cases {
        let event = Event::from_value(&input).unwrap_or_else(|e| panic!("{input}: {e}"));
        let out: serde_json::Value = serde_json::from_str(&event.to_json()).unwrap();
        let nulls: Vec<_> = out
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, v)| v.is_null())
            .collect();
        assert!(nulls.is_empty(), "{input} -> {out}");
    }
}

#[test]
fn unknown_event_types_are_distinct_and_skippable() {
    let (kind, ty, _) = error_of(r#"{"type":"THINKING_START"}"#);
    assert_eq!(kind, DecodeErrorKind::UnknownEventType);
    assert_eq!(ty.as_deref(), Some("THINKING_START"));
    let bytes = b"data: {\"type\":\"FUTURE\",\"x\":1}\n\ndata: {\"type\":\"RUN_ERROR\",\"message\":\"m\"}\n\n";
    assert_eq!(sse::decode(bytes).unwrap(), [Event::run_error("m")]);
}

#[test]
fn oversized_sse_event_is_too_large_and_the_stream_goes_on() {
    let big = format!(
        r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"{}"}}"#,
        "x".repeat(2048)
    );
    let mut bytes = sse::encode(&Event::text_message_start(
        "m",
        ag_ui::TextMessageRole::Assistant,
    ));
    bytes.extend_from_slice(format!("data: {big}\n\n").as_bytes());
    sse::encode_into(&Event::text_message_end("m"), &mut bytes);

    let mut decoder = EventDecoder::new().with_max_event_size(1024);
    for piece in bytes.chunks(100) {
        decoder.push(piece);
    }
    decoder.finish();
    let results: Vec<_> = decoder.collect();
    assert_eq!(results.len(), 3);
    assert!(results[0].is_ok());
    let e = results[1].as_ref().unwrap_err();
    assert_eq!((e.kind(), e.index()), (DecodeErrorKind::TooLarge, Some(1)));
    assert_eq!(
        results[2].as_ref().unwrap().event_type(),
        EventType::TextMessageEnd
    );
    // The default limit is the reference's 10 MiB.
    assert_eq!(
        EventDecoder::new().frames().max_event_size(),
        10 * 1024 * 1024
    );
    let err = sse::decode(&[b"data: ".as_slice(), &vec![b' '; 10 * 1024 * 1024 + 1]].concat())
        .unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::TooLarge);
}
