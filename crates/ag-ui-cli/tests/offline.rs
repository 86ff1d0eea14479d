//! The offline commands, run as a user runs them: the `ag-ui` binary on files and stdin.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn ag_ui(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the ag-ui binary runs");
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("panicked"),
        "ag-ui {args:?} panicked: {stderr}"
    );
    output
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

const VALID: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r1"}
{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}
{"type":"TEXT_MESSAGE_END","messageId":"m1"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r1"}
{"type":"RUN_STARTED","threadId":"t","runId":"r2"}
{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}
{"type":"RUN_FINISHED","threadId":"t","runId":"r2"}
"#;

#[test]
fn verify_accepts_a_valid_stream_in_every_encoding() {
    let out = ag_ui(&["verify"], VALID.as_bytes());
    assert_eq!(stdout(&out), "ok: 8 events, 2 runs\n");
    assert_eq!(out.status.code(), Some(0));

    let sse = ag_ui(&["convert", "--to", "sse", "-"], VALID.as_bytes());
    assert_eq!(sse.status.code(), Some(0));
    assert!(stdout(&sse).starts_with("data: {\"type\":\"RUN_STARTED\""));
    assert_eq!(
        stdout(&ag_ui(&["verify", "-"], &sse.stdout)),
        "ok: 8 events, 2 runs\n"
    );

    let array = format!("[{}]", VALID.trim().lines().collect::<Vec<_>>().join(","));
    assert_eq!(
        stdout(&ag_ui(&["verify"], array.as_bytes())),
        "ok: 8 events, 2 runs\n"
    );

    let path = std::env::temp_dir().join(format!("ag-ui-cli-test-{}.jsonl", std::process::id()));
    std::fs::write(&path, VALID).unwrap();
    assert_eq!(
        stdout(&ag_ui(&["verify", path.to_str().unwrap()], b"")),
        "ok: 8 events, 2 runs\n"
    );
    std::fs::remove_file(path).unwrap();
}

#[test]
fn verify_names_the_index_kind_and_ids_of_each_kind_of_break() {
    let rs = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;
    let cases: [(String, &str, &str); 6] = [
        (
            format!(
                "{rs}\n{{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m9\",\"delta\":\"x\"}}\n"
            ),
            "line 2: text.not-open [m9]",
            "",
        ),
        (
            "{\"type\":\"STEP_STARTED\",\"stepName\":\"s\"}\n".to_owned(),
            "line 1: run.first-event",
            "",
        ),
        (
            format!(
                "{rs}\n{{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m1\"}}\n{{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}}\n"
            ),
            "line 3: run.unclosed-text-messages [m1]",
            "",
        ),
        (
            format!(
                "{rs}\n{{\"type\":\"STEP_STARTED\",\"stepName\":\"s\"}}\n{{\"type\":\"STEP_FINISHED\",\"stepName\":\"s\",\"subagentRunId\":\"sub\"}}\n"
            ),
            "line 3: step.owner-mismatch",
            "",
        ),
        (
            format!("{rs}\n{{\"type\":\"SUBAGENT_FINISHED\",\"subagentRunId\":\"x\"}}\n"),
            "line 2: subagent.not-active [x]",
            "",
        ),
        (
            format!("{rs}\n{{\"type\":\"TEXT_MESSAGE_CHUNK\",\"delta\":\"x\"}}\n"),
            "line 2: chunk.missing-id",
            "--raw accepts it",
        ),
    ];
    for (input, expected, _) in &cases {
        let out = ag_ui(&["verify"], input.as_bytes());
        assert_eq!(out.status.code(), Some(1), "{input}");
        let err = stderr(&out);
        assert!(
            err.starts_with(&format!("violation: {expected}")),
            "expected {expected:?}, got {err:?}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // Without normalization, the verifier lets chunks through untouched.
    let out = ag_ui(&["verify", "--raw"], cases[5].0.as_bytes());
    assert_eq!(stdout(&out), "ok: 2 events, 1 runs\n");
}

#[test]
fn normalize_expands_chunks() {
    let input = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"Hel"}
{"type":"TEXT_MESSAGE_CHUNK","delta":"lo"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
"#;
    let out = ag_ui(&["normalize"], input.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hel"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"lo"}
{"type":"TEXT_MESSAGE_END","messageId":"m1"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
"#
    );
    // Left open at the end of input: closed, as normalize_all does.
    let out = ag_ui(
        &["normalize", "--sse"],
        b"{\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"x\"}\n",
    );
    assert_eq!(
        stdout(&out),
        "data: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n\n\
         data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"x\"}\n\n\
         data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n"
    );
    let out = ag_ui(
        &["normalize"],
        b"{\"type\":\"TEXT_MESSAGE_CHUNK\",\"delta\":\"x\"}\n",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("violation: line 1: chunk.missing-id"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn apply_prints_the_conversation() {
    let input = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"Hi"}
{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search","parentMessageId":"m1"}
{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}
{"type":"TOOL_CALL_END","toolCallId":"c1"}
{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}
{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":2}]}
{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"confirmation"}]}}
"#;
    let out = ag_ui(&["apply"], input.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        value,
        serde_json::json!({
            "messages": [{
                "id": "m1", "role": "assistant", "content": "Hi",
                "toolCalls": [{"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{}"}}]
            }],
            "state": {"n": 2},
            "pendingInterrupts": [{"id": "i1", "reason": "confirmation"}],
            // An interrupted run has no pending tool calls of its own (as the reference).
            "pendingToolCallIds": []
        })
    );
}

#[test]
fn malformed_input_is_one_error_line_and_exit_2() {
    let garbage: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    for (input, expected) in [
        (&b""[..], "error: input: the input is empty"),
        (&garbage[..], "error: input: not JSON Lines"),
        (&b"{\"type\":\"RUN_STARTED\",\"threadId\":"[..], "error: line 1: "),
        (&b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n{\"type\":\"TEXT_MESSAGE_START\"}\n"[..], "error: line 2: TEXT_MESSAGE_START: field `messageId`"),
        (&b"[{\"type\":\"RUN_STARTED\"}"[..], "error: input: not a JSON array"),
        (&b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"RAW\"}\n\n"[..], "error: event 1: RAW: field `event`"),
    ] {
        for command in [&["verify"][..], &["normalize"], &["apply"], &["convert", "--to", "jsonl"]] {
            let out = ag_ui(command, input);
            assert_eq!(out.status.code(), Some(2), "{command:?} on {:?}", String::from_utf8_lossy(input));
            let err = stderr(&out);
            assert!(err.starts_with(expected), "{command:?}: expected {expected:?}, got {err:?}");
            assert_eq!(err.lines().count(), 1, "{err}");
        }
    }
    let missing = ag_ui(&["verify", "/nonexistent/file.jsonl"], b"");
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).starts_with("error: input: cannot open /nonexistent/file.jsonl"));
}

/// `verify --raw` names the null and shape rules at their event with exit 1, in the reference
/// verifier's order (verdicts of @ag-ui/client 1.0.0 `verifyEvents`), in every encoding.
#[test]
fn verify_raw_names_null_and_shape_rules_like_any_violation() {
    let rs = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;
    let rf = r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#;
    let sas = r#"{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n"}"#;
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                rs,
                r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","subagentRunId":null}"#,
            ],
            "line 2: attribution.null",
        ),
        (
            &[rs, r#"{"type":"SUBAGENT_STARTED","name":"n"}"#],
            "line 2: subagent.missing-field",
        ),
        (
            &[
                rs,
                sas,
                r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"paused"}}"#,
            ],
            "line 3: subagent.bad-outcome [s]",
        ),
        (
            &[
                rs,
                sas,
                r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"suspended","interruptIds":[1]}}"#,
            ],
            "line 3: subagent.bad-outcome [s]",
        ),
        (
            &[
                rs,
                r#"{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n","description":null}"#,
            ],
            "line 2: subagent.null-field [s]",
        ),
        (
            &[
                rs,
                r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i","reason":"x","subagentRunId":null}]}}"#,
            ],
            "line 2: attribution.null [i]",
        ),
        // The ordering gate first.
        (
            &[
                rs,
                rf,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":null}"#,
            ],
            "line 3: run.after-finished",
        ),
    ];
    for (lines, expected) in cases {
        let input = lines.join("\n") + "\n";
        let out = ag_ui(&["verify", "--raw"], input.as_bytes());
        assert_eq!(out.status.code(), Some(1), "{input}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.starts_with(&format!("violation: {expected}")),
            "expected {expected:?}, got {err:?}"
        );
        // The same as SSE and as a JSON array, at the event's index.
        let index = expected[5..6].parse::<usize>().unwrap() - 1;
        let kind = expected.split(' ').nth(2).unwrap();
        let sse: String = lines.iter().map(|l| format!("data: {l}\n\n")).collect();
        let array = format!("[{}]", lines.join(","));
        for encoded in [sse, array] {
            let out = ag_ui(&["verify", "--raw"], encoded.as_bytes());
            assert_eq!(out.status.code(), Some(1), "{encoded}");
            assert!(
                stderr(&out).starts_with(&format!("violation: event {index}: {kind}")),
                "{encoded}: {}",
                stderr(&out)
            );
        }
    }
    // A legacy null the decoder reads as absent is still accepted without --raw.
    let input = cases[5].0.join("\n") + "\n";
    let out = ag_ui(&["verify"], input.as_bytes());
    assert_eq!(stdout(&out), "ok: 2 events, 1 runs\n", "{}", stderr(&out));
    // Other invalid fields stay input errors (exit 2).
    let input = format!(
        "{rs}\n{{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"tool\"}}\n"
    );
    assert_eq!(
        ag_ui(&["verify", "--raw"], input.as_bytes()).status.code(),
        Some(2)
    );
}

/// An explicit END without `subagentRunId` for a message a subagent's chunks opened is
/// accepted (as the reference verifier accepts it); the END that closes the subagent's chunk
/// stream is the one rejected, where the stream closes it: at the next event of the
/// subagent's lane, or at the end of the input (issue 11, item 10).
#[test]
fn verify_reports_the_closing_end_of_a_chunk_stream_where_it_closes() {
    let head = [
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
        r#"{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"n"}"#,
        r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","role":"assistant","delta":"hi","subagentRunId":"s1"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
    ];
    let input = head.join("\n") + "\n";
    let err = stderr(&ag_ui(&["verify"], input.as_bytes()));
    assert!(
        err.starts_with("violation: end of input: text.not-open [m]"),
        "{err}"
    );
    let input = head.join("\n") + "\n{\"type\":\"SUBAGENT_FINISHED\",\"subagentRunId\":\"s1\"}\n";
    let err = stderr(&ag_ui(&["verify"], input.as_bytes()));
    assert!(
        err.starts_with("violation: line 5: text.not-open [m]"),
        "{err}"
    );
}

/// Members outside the schema do not survive `normalize` or `convert` (see the crate docs,
/// "Fields outside the schema"): both write events in their schema shape.
#[test]
fn normalize_and_convert_write_events_in_schema_shape() {
    let input = "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\",\"vendor\":true}\n{\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"x\",\"foo\":1}\n";
    for command in [&["normalize", "-"][..], &["convert", "--to", "jsonl", "-"]] {
        let out = ag_ui(command, input.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("\"delta\":\"x\""), "{command:?}: {text}");
        assert!(
            !text.contains("foo") && !text.contains("vendor"),
            "{command:?}: {text}"
        );
    }
}
