//! The client pipeline on `wasm32-unknown-unknown`, in headless Chromium (`wasm-bindgen-test`,
//! run by `wasm-bindgen-test-runner` through chromedriver: `.ci/wasm`), and the same tests
//! natively (`cargo test -p ag-ui-wasm --test pipeline`), so that each assertion holds on both
//! targets: SSE decoding with the stream split at every byte boundary (a multi-byte character
//! and a UTF-16 surrogate pair split across two deltas included), protobuf decoding, chunk
//! expansion, the reducer's messages and state after text, a tool call and state snapshot and
//! delta, and the verifier rejecting a bad stream with its violation kind. In the browser
//! only: a [`Conversation`](ag_ui::client::Conversation) run over
//! [`BrowserAgent`](ag_ui::client::BrowserAgent), on the page's real `fetch` of `data:` URLs
//! (a streaming body the browser produces itself), and a response that is not an event stream
//! rejected as natively.

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use ag_ui::client::chunks::normalize_all;
use ag_ui::client::{Pipeline, PipelineErrorKind, Reducer};
use ag_ui::encoding::Format;
use ag_ui::{Event, EventType, MessageId, ToolCallId};
use serde_json::{Value, json};

/// The events of one run, as JSON lines: text with a multi-byte character and a surrogate
/// pair split across two deltas, a tool call with its result, a state snapshot and a delta.
const RUN: &[&str] = &[
    r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}"#,
    r#"{"type":"STATE_SNAPSHOT","snapshot":{"count":1,"tags":["a"]}}"#,
    r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Grüße \ud83d"}"#,
    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"\ude00 done"}"#,
    r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
    r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search","parentMessageId":"m1"}"#,
    r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"q\":"}"#,
    r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"\"wasm\"}"}"#,
    r#"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#,
    r#"{"type":"TOOL_CALL_RESULT","messageId":"t1-result","toolCallId":"c1","content":"found"}"#,
    r#"{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/count","value":2},{"op":"add","path":"/tags/-","value":"b"}]}"#,
    r#"{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}"#,
];

/// `lines` as an SSE stream.
fn sse(lines: &[&str]) -> Vec<u8> {
    lines
        .iter()
        .flat_map(|line| format!("data: {line}\n\n").into_bytes())
        .collect()
}

/// The events of [`RUN`], read as the pipeline's compatibility stage reads them (which joins
/// the surrogate halves of two deltas).
fn events() -> Vec<Event> {
    let mut compat = ag_ui::client::Compat::new();
    let mut out = Vec::new();
    for line in RUN {
        compat.decode_into(line.as_bytes(), &mut out).unwrap();
    }
    out
}

/// What the run must end with.
fn expected() -> (Value, Value) {
    let messages = json!([
        {
            "id": "m1",
            "role": "assistant",
            "content": "Grüße \u{1F600} done",
            "toolCalls": [{
                "id": "c1",
                "type": "function",
                "function": { "name": "search", "arguments": "{\"q\":\"wasm\"}" }
            }]
        },
        { "id": "t1-result", "role": "tool", "toolCallId": "c1", "content": "found" }
    ]);
    (messages, json!({ "count": 2, "tags": ["a", "b"] }))
}

/// `bytes` through a pipeline reading `format`, in `pieces`: the messages and state it ends
/// with, or the kind of its error.
fn run(format: Format, pieces: &[&[u8]]) -> Result<(Value, Value), PipelineErrorKind> {
    let mut pipeline = Pipeline::new(Reducer::new()).with_format(format);
    for piece in pieces {
        pipeline.push_bytes(piece, &mut ()).map_err(|e| e.kind())?;
    }
    pipeline.finish(&mut ()).map_err(|e| e.kind())?;
    assert_eq!(
        pipeline.check_end().map_err(|e| e.kind())?,
        ag_ui::client::StreamEnd::Finished
    );
    let reducer = pipeline.into_reducer();
    let messages = serde_json::to_value(reducer.messages()).unwrap();
    Ok((messages, reducer.state().clone()))
}

/// Marks a test for both targets: `#[test]` natively, `#[wasm_bindgen_test]` on wasm32.
macro_rules! both {
    ($(#[doc = $doc:literal])* fn $name:ident() $body:block) => {
        $(#[doc = $doc])*
        #[cfg_attr(not(target_arch = "wasm32"), test)]
        #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
        fn $name() $body
    };
}

both! {
    /// The whole stream in one piece, and split in two at every byte boundary (inside the
    /// multi-byte `ü`, inside `data:`, between the frame's two newlines, …): the same
    /// conversation, with the surrogate halves of two deltas joined into one character.
    fn sse_split_at_every_byte_boundary_reads_the_same_conversation() {
        let bytes = sse(RUN);
        assert_eq!(run(Format::Sse, &[&bytes]), Ok(expected()));
        for cut in 1..bytes.len() {
            let (a, b) = bytes.split_at(cut);
            assert_eq!(run(Format::Sse, &[a, b]), Ok(expected()), "split at byte {cut}");
        }
        let bytes_one_by_one: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(run(Format::Sse, &bytes_one_by_one), Ok(expected()));
    }
}

both! {
    /// A delta ending in the first half of a surrogate pair and the next starting with the
    /// second half make one character; a half left alone reads as U+FFFD, as `JSON.parse`
    /// shows it.
    fn surrogate_halves_split_across_deltas_are_rejoined() {
        let (messages, _) = run(Format::Sse, &[&sse(RUN)]).unwrap();
        assert_eq!(messages[0]["content"], "Grüße \u{1F600} done");
        let lone = sse(&[
            r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x\ud83d"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}"#,
        ]);
        let (messages, _) = run(Format::Sse, &[&lone]).unwrap();
        assert_eq!(messages[0]["content"], "x\u{FFFD}");
    }
}

both! {
    /// The same run as length-prefixed protobuf frames, split at every byte boundary: the same
    /// conversation as over SSE.
    fn protobuf_frames_read_the_same_conversation() {
        let events = events();
        let mut bytes = Vec::new();
        for event in &events {
            ag_ui::encoding::proto::encode_into(event, &mut bytes);
        }
        assert_eq!(
            ag_ui::encoding::proto::decode(&bytes).unwrap().len(),
            events.len()
        );
        assert_eq!(run(Format::Proto, &[&bytes]), Ok(expected()));
        for cut in 1..bytes.len() {
            let (a, b) = bytes.split_at(cut);
            assert_eq!(run(Format::Proto, &[a, b]), Ok(expected()), "split at byte {cut}");
        }
        // A frame that is not an AG-UI event is a decode error.
        let mut bad = bytes.clone();
        bad.extend_from_slice(&[0, 0, 0, 2, 0xff, 0xff]);
        assert_eq!(run(Format::Proto, &[&bad]), Err(PipelineErrorKind::Decode));
    }
}

both! {
    /// Chunks expand into start, content and end events; a continuation without an id joins
    /// the open stream.
    fn chunks_expand_into_explicit_events() {
        let expanded = normalize_all([
            Event::run_started("t1", "r1"),
            Event::text_message_chunk(Some(MessageId::new("m1")), Some("Hel".into())),
            Event::text_message_chunk(None, Some("lo".into())),
            Event::tool_call_chunk(
                Some(ToolCallId::new("c1")),
                Some("search".into()),
                Some("{}".into()),
            ),
            Event::run_finished("t1", "r1"),
        ])
        .unwrap();
        let types: Vec<EventType> = expanded.iter().map(Event::event_type).collect();
        use EventType::*;
        assert_eq!(
            types,
            [
                RunStarted,
                TextMessageStart,
                TextMessageContent,
                TextMessageContent,
                TextMessageEnd,
                ToolCallStart,
                ToolCallArgs,
                ToolCallEnd,
                RunFinished
            ]
        );
        let mut pipeline = Pipeline::new(Reducer::new());
        for event in expanded {
            pipeline.push_event(event, &mut ()).unwrap();
        }
        let messages = pipeline.reducer().messages();
        assert_eq!(messages[0].text(), Some("Hello"));
    }
}

both! {
    /// The reducer, event by event: messages and state after the text, the tool call and its
    /// result, the snapshot and the delta.
    fn the_reducer_builds_messages_and_state() {
        let mut reducer = Reducer::new();
        for event in events() {
            reducer.apply(&event).unwrap();
            if event.event_type() == EventType::StateSnapshot {
                assert_eq!(reducer.state(), &json!({ "count": 1, "tags": ["a"] }));
            }
        }
        let (messages, state) = expected();
        assert_eq!(serde_json::to_value(reducer.messages()).unwrap(), messages);
        assert_eq!(reducer.state(), &state);
    }
}

both! {
    /// A stream that breaks the protocol is refused by the verifier, naming the violation: a
    /// message's content after its end, and a second run started inside the first.
    fn the_verifier_rejects_a_bad_stream_with_its_violation_kind() {
        let cases = [
            (
                vec![
                    r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}"#,
                    r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
                    r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
                    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"late"}"#,
                ],
                "text.not-open",
            ),
            (
                vec![
                    r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}"#,
                    r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r2"}"#,
                ],
                "run.already-active",
            ),
        ];
        for (lines, kind) in cases {
            let mut pipeline = Pipeline::new(Reducer::new());
            let error = pipeline.push_bytes(&sse(&lines), &mut ()).unwrap_err();
            assert_eq!(error.kind(), PipelineErrorKind::Verify, "{error}");
            let violation = error.violation().unwrap();
            assert_eq!(violation.kind().as_str(), kind, "{error}");
        }
    }
}

#[cfg(target_arch = "wasm32")]
mod browser {
    //! The transport on the page's `fetch`.

    use ag_ui::client::{BrowserAgent, Conversation, TransportErrorKind};
    use wasm_bindgen_test::wasm_bindgen_test;

    use super::{RUN, expected, sse};

    /// `bytes` as a `data:` URL of `media_type` (percent-encoded): `fetch` streams it like a
    /// response.
    fn data_url(media_type: &str, bytes: &[u8]) -> String {
        let mut url = format!("data:{media_type},");
        for byte in bytes {
            if byte.is_ascii_alphanumeric() || b"-_.~".contains(byte) {
                url.push(char::from(*byte));
            } else {
                url.push_str(&format!("%{byte:02X}"));
            }
        }
        url
    }

    #[wasm_bindgen_test]
    async fn a_conversation_runs_over_the_browser_agent() {
        let agent = BrowserAgent::new(data_url("text/event-stream", &sse(RUN)));
        let mut conversation = Conversation::new("t1");
        conversation.add_user_message("Search for wasm");
        conversation.run(&agent, &mut ()).await.unwrap();
        let (messages, state) = expected();
        let mut all = serde_json::to_value(conversation.messages()).unwrap();
        assert_eq!(all[0]["role"], "user");
        let all = all.as_array_mut().unwrap();
        all.remove(0);
        assert_eq!(serde_json::Value::Array(all.clone()), messages);
        assert_eq!(conversation.state(), &state);
    }

    #[wasm_bindgen_test]
    async fn a_response_that_is_not_an_event_stream_is_refused() {
        let agent = BrowserAgent::new(data_url("text/html", b"<title>Sign in</title>"));
        let mut conversation = Conversation::new("t1");
        conversation.add_user_message("Hi");
        let error = conversation.run(&agent, &mut ()).await.unwrap_err();
        let transport = error.transport().expect("a transport error");
        assert_eq!(transport.kind(), TransportErrorKind::NotAgUi, "{error}");
    }

    #[wasm_bindgen_test]
    async fn a_stream_that_ends_before_its_run_does_is_incomplete() {
        let agent = BrowserAgent::new(data_url("text/event-stream", &sse(&RUN[..5])));
        let mut conversation = Conversation::new("t1");
        conversation.add_user_message("Hi");
        let error = conversation.run(&agent, &mut ()).await.unwrap_err();
        let pipeline = error.pipeline().expect("a pipeline error");
        assert_eq!(
            pipeline.kind(),
            ag_ui::client::PipelineErrorKind::Incomplete,
            "{error}"
        );
        // What was applied is kept: the message so far.
        let last = conversation.messages().last().unwrap();
        assert_eq!(last.text(), Some("Grüße \u{1F600} done"));
    }
}
