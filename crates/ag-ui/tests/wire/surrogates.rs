//! Lone UTF-16 surrogates, as a JavaScript producer that cuts text by code units sends them
//! (`"…\ud83d"` ending one delta, `"\ude00…"` starting the next), against the reference client
//! (@ag-ui/client 1.0.0 under Node: `JSON.parse`, `transformChunks`, `verifyEvents`,
//! `defaultApplyEvents`; `interop/surrogates/apply.mjs`). The stream never fails for them; halves
//! of one entity's consecutive deltas rejoin into the character; a half left alone is U+FFFD, as
//! the reference's text renders once encoded as UTF-8.
//!
//! Needs `npm ci --prefix interop` (CI runs it first).

#![cfg(all(feature = "client", feature = "sse"))]

use std::path::Path;

use ag_ui::client::{Pipeline, Reducer};
use ag_ui::{Event, EventType};
use serde_json::Value;

/// Each case: a name and its raw event lines, exactly as the producer wrote them.
const CASES: &[(&str, &[&str])] = &[
    (
        "text halves rejoin",
        &[
            r#"{"type":"TEXT_MESSAGE_START","messageId":"a","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"smile \ud83d"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"\ude00!"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"a"}"#,
        ],
    ),
    (
        "a delta that is only the high half",
        &[
            r#"{"type":"TEXT_MESSAGE_START","messageId":"a","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"\ud83d"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"\ude00"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"a"}"#,
        ],
    ),
    (
        "reasoning halves rejoin",
        &[
            r#"{"type":"REASONING_START","messageId":"r"}"#,
            r#"{"type":"REASONING_MESSAGE_START","messageId":"rm","role":"reasoning"}"#,
            r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"rm","delta":"think \ud83e"}"#,
            r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"rm","delta":"\udd14 done"}"#,
            r#"{"type":"REASONING_MESSAGE_END","messageId":"rm"}"#,
            r#"{"type":"REASONING_END","messageId":"r"}"#,
        ],
    ),
    (
        "tool call argument halves rejoin",
        &[
            r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"say"}"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"text\":\"\ud83d"}"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"\ude00\"}"}"#,
            r#"{"type":"TOOL_CALL_END","toolCallId":"c"}"#,
        ],
    ),
    (
        "chunk halves rejoin",
        &[
            r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","role":"assistant","delta":"a\ud83d"}"#,
            r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"\ude00b"}"#,
            r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"f","parentMessageId":"m","delta":"[\"\ud83d"}"#,
            r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c","delta":"\ude00\"]"}"#,
        ],
    ),
    (
        "an unpaired high half at the end of the stream",
        &[
            r#"{"type":"TEXT_MESSAGE_START","messageId":"a","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"cut \ud83d"}"#,
        ],
    ),
    (
        "an unpaired high half before the end",
        &[
            r#"{"type":"TEXT_MESSAGE_START","messageId":"a","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"cut \ud83d"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"a"}"#,
        ],
    ),
    (
        "an unpaired high half before other text",
        &[
            r#"{"type":"TEXT_MESSAGE_START","messageId":"a","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"x\ud83d\ud83d"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"y"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"a"}"#,
        ],
    ),
    (
        "an unpaired low half",
        &[
            r#"{"type":"TEXT_MESSAGE_START","messageId":"a","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"\ude00 and \udc00"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"a"}"#,
        ],
    ),
    (
        "a high half followed by another entity's delta",
        &[
            r#"{"type":"TEXT_MESSAGE_START","messageId":"a","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"b","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"x\ud83d"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"b","delta":"\ude00y"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"\ude00z"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"b"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"a"}"#,
        ],
    ),
    (
        "a replacement character the producer sent is not a half",
        &[
            r#"{"type":"TEXT_MESSAGE_START","messageId":"a","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"x\ufffd"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"\ude00�"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"\ud83d\ude00 \\ud83d"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"a"}"#,
        ],
    ),
];

/// The reference's verdict per case: `{"messages": […]}` or `{"error": …}`.
fn reference(cases: &[Vec<String>]) -> Vec<Value> {
    let text: String = cases
        .iter()
        .map(|lines| lines.join("\n") + "\n\n")
        .collect();
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("surrogate-streams.txt");
    std::fs::write(&path, text).unwrap();
    crate::support::node::json_lines("surrogates/apply.mjs", &[path])
}

/// The case's lines inside a run (closed unless the case leaves a message open).
fn with_run(lines: &[&str]) -> Vec<String> {
    let mut out = vec![r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_owned()];
    out.extend(lines.iter().map(|l| (*l).to_owned()));
    let last = lines.last().copied().unwrap_or_default();
    if last.contains("_END") || last.contains("_CHUNK") {
        out.push(r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#.to_owned());
    }
    out
}

/// Runs the lines through our client pipeline as SSE, in pieces of `piece` bytes.
fn ours(lines: &[String], piece: usize) -> Vec<Value> {
    let mut sse = Vec::new();
    for line in lines {
        sse.extend_from_slice(b"data: ");
        sse.extend_from_slice(line.as_bytes());
        sse.extend_from_slice(b"\n\n");
    }
    let mut pipeline = Pipeline::new(Reducer::new());
    for chunk in sse.chunks(piece) {
        pipeline
            .push_bytes(chunk, &mut ())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    pipeline.finish(&mut ()).unwrap_or_else(|e| panic!("{e}"));
    let messages = serde_json::to_value(pipeline.reducer().messages()).unwrap();
    messages.as_array().unwrap().clone()
}

#[test]
fn lone_surrogates_read_as_the_reference_client_shows_them() {
    let cases: Vec<Vec<String>> = CASES.iter().map(|(_, lines)| with_run(lines)).collect();
    let want = reference(&cases);
    assert_eq!(want.len(), cases.len());
    for (((name, _), lines), want) in CASES.iter().zip(&cases).zip(&want) {
        assert!(
            want.get("error").is_none(),
            "{name}: the reference failed: {want}"
        );
        for piece in [1, 7, usize::MAX] {
            assert_eq!(
                ours(lines, piece.min(1 << 20)),
                want["messages"].as_array().unwrap().clone(),
                "{name} (pieces of {piece} bytes)"
            );
        }
    }
    // The cases do exercise what they are named for.
    let joined = serde_json::to_string(&want).unwrap();
    assert!(joined.contains('\u{1F600}') && joined.contains('\u{1F914}'));
    assert!(joined.contains("cut \u{FFFD}"));
}

#[test]
fn the_stateless_reader_reads_a_lone_half_as_a_replacement_character() {
    let event =
        Event::from_slice(br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"x\ud83d"}"#)
            .unwrap();
    let Event::TextMessageContent(content) = &event else {
        panic!("{event:?}")
    };
    assert_eq!(content.delta, "x\u{FFFD}");
    let event = Event::from_slice(
        br#"{"type":"TOOL_CALL_START","toolCallId":"c\udc00","toolCallName":"\ud83d\ude00\ud800"}"#,
    )
    .unwrap();
    assert_eq!(event.event_type(), EventType::ToolCallStart);
    assert_eq!(
        event.to_json(),
        "{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"c\u{FFFD}\",\"toolCallName\":\"\u{1F600}\u{FFFD}\"}"
    );
    // Malformed escapes are still syntax errors, not repaired.
    let err =
        Event::from_slice(br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"\ud83"}"#)
            .unwrap_err();
    assert_eq!(err.kind(), ag_ui::DecodeErrorKind::Syntax);
}
