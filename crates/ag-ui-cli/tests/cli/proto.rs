//! The offline commands on the protobuf transport: `convert --to proto` writes frames, and
//! `verify`, `apply`, `normalize` and `convert` read them, detected by their leading NUL.

use ag_ui::Event;
use ag_ui::encoding::proto;

use crate::ag_ui;

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

const VALID: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r1"}
{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}
{"type":"TEXT_MESSAGE_END","messageId":"m1"}
{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search","parentMessageId":"m1"}
{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"q\":1}"}
{"type":"TOOL_CALL_END","toolCallId":"c1"}
{"type":"STATE_SNAPSHOT","snapshot":{"n":1,"tags":["a"]}}
{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":2}]}
{"type":"RUN_FINISHED","threadId":"t","runId":"r1"}
"#;

fn to_proto(jsonl: &str) -> Vec<u8> {
    let out = ag_ui(&["convert", "--to", "proto", "-"], jsonl.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    out.stdout
}

#[test]
fn convert_to_proto_writes_frames_that_decode_to_the_events() {
    let bytes = to_proto(VALID);
    assert_eq!(bytes[0], 0);
    let expected: Vec<Event> = VALID
        .lines()
        .map(|l| Event::from_json(l).unwrap())
        .collect();
    assert_eq!(proto::decode(&bytes).unwrap(), expected);
    // And back: the JSON Lines are the input's.
    let back = ag_ui(&["convert", "--to", "jsonl"], &bytes);
    assert_eq!(back.status.code(), Some(0), "{}", text(&back.stderr));
    assert_eq!(text(&back.stdout), VALID);
    // From SSE too.
    let sse = ag_ui(&["convert", "--to", "sse"], VALID.as_bytes()).stdout;
    assert_eq!(ag_ui(&["convert", "--to", "proto"], &sse).stdout, bytes);
}

#[test]
fn verify_apply_and_normalize_read_protobuf_input() {
    let bytes = to_proto(VALID);
    for args in [&["verify"][..], &["verify", "--raw"], &["verify", "-"]] {
        let out = ag_ui(args, &bytes);
        assert_eq!(text(&out.stdout), "ok: 10 events, 1 runs\n", "{args:?}");
        assert_eq!(out.status.code(), Some(0));
    }
    let apply = ag_ui(&["apply"], &bytes);
    assert_eq!(apply.status.code(), Some(0), "{}", text(&apply.stderr));
    assert_eq!(apply.stdout, ag_ui(&["apply"], VALID.as_bytes()).stdout);

    let chunks = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r1"}
{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","role":"assistant","delta":"Hel"}
{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"lo"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r1"}
"#;
    let normalized = ag_ui(&["normalize"], &to_proto(chunks));
    assert_eq!(normalized.status.code(), Some(0));
    assert_eq!(
        normalized.stdout,
        ag_ui(&["normalize"], chunks.as_bytes()).stdout
    );
    assert!(text(&normalized.stdout).contains("TEXT_MESSAGE_END"));
}

#[test]
fn problems_in_protobuf_input_name_the_frame_index() {
    // A violation: content for a message never started, in frame 1.
    let broken = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r1"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m9","delta":"x"}
"#;
    let out = ag_ui(&["verify"], &to_proto(broken));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with("violation: event 1: "),
        "{}",
        text(&out.stderr)
    );

    // A frame that is no Event message, after two good ones: bad input, exit 2.
    let mut bytes = to_proto(&VALID.lines().take(2).collect::<Vec<_>>().join("\n"));
    bytes.extend_from_slice(&[0, 0, 0, 2, 0xff, 0xff]);
    for command in ["verify", "apply", "normalize", "convert"] {
        let mut args = vec![command];
        if command == "convert" {
            args.extend(["--to", "jsonl"]);
        }
        let out = ag_ui(&args, &bytes);
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(
            text(&out.stderr).starts_with("error: event 2: protobuf frame"),
            "{command}: {}",
            text(&out.stderr)
        );
    }

    // Cut inside the last frame.
    let bytes = to_proto(VALID);
    let out = ag_ui(&["verify"], &bytes[..bytes.len() - 3]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("error: event 9: "),
        "{}",
        text(&out.stderr)
    );
}
