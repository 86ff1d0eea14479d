//! The offline commands, run as a user runs them: the `ag-ui` binary on files and stdin.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use crate::ag_ui;

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
    let raw = format!(
        "{}{{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}}\n",
        cases[5].0
    );
    let out = ag_ui(&["verify", "--raw"], raw.as_bytes());
    assert_eq!(stdout(&out), "ok: 3 events, 1 runs\n");
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
fn compact_joins_deltas_and_folds_state_in_every_input_encoding() {
    let input = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"Hel"}
{"type":"TEXT_MESSAGE_CHUNK","delta":"lo"}
{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}
{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":2}]}
{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search"}
{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"q\":"}
{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"1}"}
{"type":"TOOL_CALL_END","toolCallId":"c1"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
"#;
    let want = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello"}
{"type":"TEXT_MESSAGE_END","messageId":"m1"}
{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search"}
{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"q\":1}"}
{"type":"TOOL_CALL_END","toolCallId":"c1"}
{"type":"STATE_SNAPSHOT","snapshot":{"n":2}}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
"#;
    let out = ag_ui(&["compact"], input.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), want);
    // The same stream as SSE, read from a file.
    let sse = ag_ui(&["convert", "--to", "sse", "-"], input.as_bytes());
    let dir = std::env::temp_dir().join(format!("ag-ui-compact-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("run.sse");
    std::fs::write(&file, &sse.stdout).unwrap();
    let out = ag_ui(&["compact", file.to_str().unwrap()], b"");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), want);
    // A broken stream is refused, unless told not to verify.
    let broken = b"{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"x\"}\n";
    let out = ag_ui(&["compact"], broken);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("violation: line 1:"),
        "{}",
        stderr(&out)
    );
    let out = ag_ui(&["compact", "--no-verify"], broken);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"x\"}\n"
    );
}

#[test]
fn apply_refuses_a_state_amplifying_patch_with_exit_2_naming_the_event() {
    // 40 copies of the whole state into itself: each doubles it.
    let copies: Vec<String> = (0..40)
        .map(|i| format!(r#"{{"op":"copy","from":"","path":"/c{i}"}}"#))
        .collect();
    let input = format!(
        "{}\n{}\n{{\"type\":\"STATE_DELTA\",\"delta\":[{}]}}\n",
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"seed":"0123456789"}}"#,
        copies.join(",")
    );
    let out = ag_ui(&["apply"], input.as_bytes());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with(
            "error: line 3: event 2 (STATE_DELTA): apply.limit: max-growth-bytes exceeded"
        ),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn compact_refuses_the_copy_bomb_as_apply_does() {
    // 40 copies of the whole state into itself (2.3 KB): compaction folds state under the
    // reducer's limits, so it is refused at its event instead of filling memory.
    let copies: Vec<String> = (0..40)
        .map(|i| format!(r#"{{"op":"copy","from":"","path":"/c{i}"}}"#))
        .collect();
    let input = format!(
        "{}\n{}\n{{\"type\":\"STATE_DELTA\",\"delta\":[{}]}}\n{}\n",
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"seed":"0123456789"}}"#,
        copies.join(","),
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
    );
    let out = ag_ui(&["compact"], input.as_bytes());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with(
            "error: line 3: event 2 (STATE_DELTA): apply.limit: max-growth-bytes exceeded"
        ),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn a_state_nested_one_level_per_event_is_refused_not_a_crash() {
    // The reproduction: 20,000 short STATE_DELTAs, each nesting the state one level deeper
    // (2.3 MB). It used to overflow the stack; now event 100 (line 101) takes the state past
    // 100 levels and is refused.
    let started = std::time::Instant::now();
    let nest = r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/b","value":{}},{"op":"move","from":"/a","path":"/b/a"},{"op":"move","from":"/b","path":"/a"}]}"#;
    let mut input = String::from(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#);
    input.push('\n');
    input.push_str(r#"{"type":"STATE_SNAPSHOT","snapshot":{"a":{}}}"#);
    input.push('\n');
    for _ in 0..20_000 {
        input.push_str(nest);
        input.push('\n');
    }
    input.push_str(r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#);
    input.push('\n');
    for command in ["apply", "compact"] {
        let out = ag_ui(&[command], input.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{command}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.starts_with(
                "error: line 101: event 100 (STATE_DELTA): apply.limit: max-state-depth exceeded: \
                 101 levels deep, over the limit of 100"
            ),
            "{command}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn malformed_input_is_one_error_line_and_exit_2() {
    // Not starting with NUL: text that is no known encoding.
    let garbage: Vec<u8> = (1..=255u8).cycle().take(4096).collect();
    // Starting with NUL: read as protobuf frames (a frame length), and cut short.
    let nul_garbage: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    for (input, expected) in [
        (&b""[..], "error: input: the input is empty"),
        (&garbage[..], "error: input: not JSON Lines"),
        (&nul_garbage[..], "error: event 0: protobuf frame: "),
        (&b"{\"type\":\"RUN_STARTED\",\"threadId\":"[..], "error: line 1: "),
        (&b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n{\"type\":\"TEXT_MESSAGE_START\"}\n"[..], "error: line 2: TEXT_MESSAGE_START: field `messageId`"),
        (&b"[{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}"[..], "error: input: not a JSON array of events: the input ends before its closing ']'"),
        (&b"[{\"type\":\"RUN_STARTED\"}]"[..], "error: event 0: RUN_STARTED: field `threadId`"),
        (&b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"RAW\"}\n\n"[..], "error: event 1: RAW: field `event`"),
    ] {
        for command in [&["verify"][..], &["normalize"], &["apply"], &["compact"], &["convert", "--to", "jsonl"]] {
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

/// A stream cut off inside a run, with something of every kind still open.
const CUT_OFF: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r1"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r1"}
{"type":"RUN_STARTED","threadId":"t","runId":"r2"}
{"type":"STEP_STARTED","stepName":"plan"}
{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"researcher"}
{"type":"STEP_STARTED","stepName":"plan","subagentRunId":"s1"}
{"type":"REASONING_START","messageId":"rs"}
{"type":"REASONING_MESSAGE_START","messageId":"rm","role":"reasoning"}
{"type":"TEXT_MESSAGE_START","messageId":"m2","role":"assistant"}
{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","subagentRunId":"s1"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hal","subagentRunId":"s1"}
{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search"}
{"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"fetch"}
{"type":"TOOL_CALL_END","toolCallId":"c2"}
"#;

#[test]
fn verify_reports_a_run_cut_off_at_the_end_of_input_unless_partial() {
    let out = ag_ui(&["verify"], CUT_OFF.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        "incomplete: the input ends inside a run; still open: run r2; \
         text messages [m2, m1]; tool calls [c1]; reasoning messages [rm]; reasoning spans [rs]; \
         steps [plan, plan (subagent s1)]; subagents [s1] \
         (--partial accepts a partial recording)\n"
    );
    // The same cut in SSE, and with chunks left open (closed by normalization, so only the
    // run is open).
    let sse = ag_ui(&["convert", "--to", "sse"], CUT_OFF.as_bytes());
    assert_eq!(ag_ui(&["verify"], &sse.stdout).status.code(), Some(1));
    let chunks = "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\
                  {\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"x\"}\n";
    let out = ag_ui(&["verify"], chunks.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("still open: run r (--partial"),
        "{}",
        stderr(&out)
    );

    let out = ag_ui(&["verify", "--partial"], CUT_OFF.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("ok: 14 events, 2 runs (partial: still open: run r2; "),
        "{}",
        stdout(&out)
    );
    // A stream that ends with its run ended (finished or failed) is complete.
    let failed = "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\
                  {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}\n\
                  {\"type\":\"RUN_ERROR\",\"message\":\"boom\"}\n";
    let out = ag_ui(&["verify"], failed.as_bytes());
    assert_eq!(
        stdout(&out),
        "ok: 3 events, 1 runs (1 ended with RUN_ERROR)\n",
        "{}",
        stderr(&out)
    );
}

#[test]
fn verify_says_when_no_known_event_was_read() {
    let unknown = "{\"type\":\"FUTURE_EVENT\"}\n{\"type\":\"ANOTHER\",\"x\":1}\n";
    for args in [
        &["verify"][..],
        &["verify", "--partial"],
        &["verify", "--raw"],
    ] {
        let out = ag_ui(args, unknown.as_bytes());
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(stdout(&out), "");
        assert_eq!(
            stderr(&out),
            "warning: line 1: skipping an event of unknown type \"FUTURE_EVENT\"\n\
             warning: line 2: skipping an event of unknown type \"ANOTHER\"\n\
             error: no known AG-UI event in the input (events of unknown types are skipped)\n"
        );
    }
    // Ten warnings at most, then a count; a type's escapes are shown harmlessly.
    let many = "{\"type\":\"X\\u001b[2J\\u009b\"}\n".repeat(25);
    let out = ag_ui(&["verify"], many.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        !err.contains('\u{1b}') && !err.contains('\u{9b}'),
        "{err:?}"
    );
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 12, "{err}");
    assert_eq!(
        lines[0],
        "warning: line 1: skipping an event of unknown type \"X\\u{1b}[2J\\u{9b}\""
    );
    assert_eq!(
        lines[10],
        "warning: 15 more events of unknown types skipped"
    );
}

#[test]
fn input_with_a_byte_order_mark_is_accepted() {
    let jsonl = format!("\u{feff}{VALID}");
    let array = format!(
        "\u{feff}[{}]",
        VALID.trim().lines().collect::<Vec<_>>().join(",")
    );
    for input in [jsonl, array] {
        for command in [&["verify"][..], &["convert", "--to", "jsonl"], &["apply"]] {
            let out = ag_ui(command, input.as_bytes());
            assert_eq!(out.status.code(), Some(0), "{command:?}: {}", stderr(&out));
        }
        assert_eq!(
            stdout(&ag_ui(&["verify"], input.as_bytes())),
            "ok: 8 events, 2 runs\n"
        );
    }
}

#[test]
fn a_json_lines_line_over_the_limit_is_bad_input_naming_the_line() {
    let mut input = b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n".to_vec();
    input.extend_from_slice(b"{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":\"");
    input.resize(input.len() + 11 * 1024 * 1024, b'x');
    input.extend_from_slice(b"\"}\n");
    for command in [
        &["verify"][..],
        &["normalize"],
        &["apply"],
        &["convert", "--to", "sse"],
    ] {
        let out = ag_ui(command, &input);
        assert_eq!(out.status.code(), Some(2), "{command:?}");
        assert_eq!(
            stderr(&out),
            "error: line 2: the line is longer than the limit of 10485760 bytes\n"
        );
    }
}

/// An HTTP server on a free port that answers one request with `status`, `content_type` and
/// the body `write` produces (delimited by closing the connection), from a thread. The thread
/// returns how many body bytes it managed to write.
fn one_shot(
    status: &'static str,
    content_type: &'static str,
    write: impl FnOnce(&mut std::net::TcpStream) -> u64 + Send + 'static,
) -> (String, std::thread::JoinHandle<u64>) {
    use std::io::{BufRead, BufReader, Read};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/agent", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        // Read the request, body included, so that closing never resets the connection.
        let mut reader = BufReader::new(socket.try_clone().unwrap());
        let mut length = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line.trim().is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let head = format!(
            "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\nconnection: close\r\n\r\n"
        );
        socket.write_all(head.as_bytes()).unwrap();
        write(&mut socket)
    });
    (url, server)
}

/// Writes `text` as one response, returning its length.
fn answer(text: String) -> impl FnOnce(&mut std::net::TcpStream) -> u64 + Send + 'static {
    move |socket| {
        socket.write_all(text.as_bytes()).unwrap();
        text.len() as u64
    }
}

fn ag_ui_url(args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
    output
}

#[test]
fn verify_url_streams_the_response_so_the_frame_limit_applies() {
    const MAX_WRITTEN: u64 = 50 * 1024 * 1024;
    // One event, then a frame that never ends: up to 50 MB, unless the client hangs up.
    let (url, server) = one_shot("200 OK", "text/event-stream", |socket| {
        let start = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n\
                     data: {\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":\"";
        socket.write_all(start.as_bytes()).unwrap();
        let piece = vec![b'x'; 64 * 1024];
        let mut written = start.len() as u64;
        while written < MAX_WRITTEN {
            if socket.write_all(&piece).is_err() {
                break;
            }
            written += piece.len() as u64;
        }
        written
    });
    let out = ag_ui_url(&["verify", &url]);
    let written = server.join().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "error: event 1: SSE frame exceeds the maximum size of 10485760 bytes\n"
    );
    // The client stopped reading at the limit, long before the server was done.
    assert!(
        written < MAX_WRITTEN,
        "the server wrote {written} bytes: the response was read whole"
    );
}

#[test]
fn verify_url_reports_a_stream_cut_off_mid_run_and_http_errors_harmlessly() {
    let cut = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n\
               data: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m1\"}\n\n";
    let (url, server) = one_shot("200 OK", "text/event-stream", answer(cut.to_owned()));
    let out = ag_ui_url(&["verify", &url]);
    server.join().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with(
            "incomplete: the input ends inside a run; still open: run r; text messages [m1]"
        ),
        "{}",
        stderr(&out)
    );
    let (url, server) = one_shot("200 OK", "text/event-stream", answer(cut.to_owned()));
    let out = ag_ui_url(&["verify", &url, "--partial"]);
    server.join().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // A violation is reported at once, as for a file, though the agent keeps the stream open
    // (here for up to 30 s, or until the client hangs up).
    let bad = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n\
               data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m9\"}\n\n";
    let (url, server) = one_shot("200 OK", "text/event-stream", move |socket| {
        use std::io::Read;
        socket.write_all(bad.as_bytes()).unwrap();
        socket.flush().unwrap();
        socket
            .set_read_timeout(Some(std::time::Duration::from_secs(30)))
            .unwrap();
        let _ = socket.read(&mut [0; 1]);
        bad.len() as u64
    });
    let started = std::time::Instant::now();
    let out = ag_ui_url(&["verify", &url]);
    let took = started.elapsed();
    server.join().unwrap();
    assert!(
        took < std::time::Duration::from_secs(20),
        "verify waited for the stream to end: {took:?}"
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("violation: event 1: text.not-open [m9]"),
        "{}",
        stderr(&out)
    );

    // A response that breaks off (shorter than its length) is a failure of the agent, not
    // bad input, and never passes.
    let (url, server) = one_shot(
        "200 OK",
        "text/event-stream\r\ncontent-length: 100000",
        answer(cut.to_owned()),
    );
    let out = ag_ui_url(&["verify", &url, "--partial"]);
    server.join().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("error: the stream broke off: "),
        "{}",
        stderr(&out)
    );

    // A success that is not an event stream is refused and named, as `ag-ui run` refuses it.
    let (url, server) = one_shot(
        "200 OK",
        "application/json",
        answer("{\"ok\":true}".to_owned()),
    );
    let out = ag_ui_url(&["verify", &url]);
    server.join().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("application/json"),
        "{}",
        stderr(&out)
    );

    // An error page reaches the terminal without its escapes, on one line, shortened as
    // `ag-ui run` shows it.
    let (url, server) = one_shot(
        "500 Internal Server Error",
        "text/plain",
        answer("\u{1b}[2J\u{1b}]0;pwned\u{7}boom\nsecond line".to_owned()),
    );
    let out = ag_ui_url(&["verify", &url]);
    server.join().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: HTTP 500: [2J ]0;pwned boom second line\n"
    );
}

#[test]
fn run_renders_escapes_from_the_agent_harmlessly_and_quotes_the_resume_command() {
    let events = [
        r#"{"type":"RUN_STARTED","threadId":"t x","runId":"r"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi \u001b]0;pwned\u0007\u001b[2J"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
        r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"x\u009b31m"}"#,
        r#"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t x","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"$(touch pwned)","reason":"confirmation","message":"ok?\u001b[8m"}]}}"#,
    ];
    let body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    let (url, server) = one_shot("200 OK", "text/event-stream", answer(body));
    let out = ag_ui_url(&["run", &url, "hello", "--color", "never"]);
    server.join().unwrap();
    let shown = stdout(&out);
    for c in ['\u{1b}', '\u{9b}', '\u{7}'] {
        assert!(!shown.contains(c), "{c:?} reached the terminal: {shown:?}");
    }
    assert!(
        shown.contains("assistant: hi \\u{1b}]0;pwned\\u{7}\\u{1b}[2J\n→ x\\u{9b}31m()\n"),
        "{shown}"
    );
    assert!(
        shown.contains("  $(touch pwned) (confirmation) ok?\\u{1b}[8m\n"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!(
            "  resume with: ag-ui run {url} --thread 't x' --resume '$(touch pwned)'='{{\"approved\":true}}'\n"
        )),
        "{shown}"
    );
}
/// `verify` names the null and shape rules at their event with exit 1, with or without `--raw`
/// (typed decoding reads a null as absent, so they are checked on the JSON as sent), in the
/// reference verifier's order (verdicts of @ag-ui/client 1.0.0 `verifyEvents`), in every
/// encoding. Without `--raw` they come before the ordering gates of the same event.
#[test]
fn verify_names_null_and_shape_rules_like_any_violation() {
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
    let modes: [&[&str]; 2] = [&["verify", "--raw"], &["verify"]];
    for (case, (lines, expected)) in cases.iter().enumerate() {
        // The last case is the reference's order of gates and shape rules: `--raw` only.
        let modes = if case + 1 == cases.len() {
            &modes[..1]
        } else {
            &modes[..]
        };
        for args in modes {
            let input = lines.join("\n") + "\n";
            let out = ag_ui(args, input.as_bytes());
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
                let out = ag_ui(args, encoded.as_bytes());
                assert_eq!(out.status.code(), Some(1), "{encoded}");
                assert!(
                    stderr(&out).starts_with(&format!("violation: event {index}: {kind}")),
                    "{encoded}: {}",
                    stderr(&out)
                );
            }
        }
    }
    // Without `--raw`, an interrupt's `subagentRunId: null` (which typed decoding reads as
    // absent, and the reference's schema refuses) is refused too, after chunks that are
    // expanded first; the same interrupt without the null passes.
    let chunks = r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","role":"assistant","delta":"x"}"#;
    let finished = cases[5].0[1];
    let input = format!("{rs}\n{chunks}\n{finished}\n");
    let out = ag_ui(&["verify"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).starts_with("violation: line 3: attribution.null [i]"),
        "{}",
        stderr(&out)
    );
    let input = input.replace(r#","subagentRunId":null"#, "");
    let out = ag_ui(&["verify"], input.as_bytes());
    assert_eq!(stdout(&out), "ok: 3 events, 1 runs\n", "{}", stderr(&out));
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
/// reported at its own line (`chunk.closed-elsewhere`, issue 36), whether or not the subagent's
/// lane goes on; the reference verifier accepts it and fails later, where the chunk stream
/// closes (issue 11, item 10, before).
#[test]
fn verify_reports_an_end_that_closes_another_lanes_chunk_stream_at_its_own_line() {
    let head = [
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
        r#"{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"n"}"#,
        r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","role":"assistant","delta":"hi","subagentRunId":"s1"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
    ];
    for tail in [
        "",
        "{\"type\":\"SUBAGENT_FINISHED\",\"subagentRunId\":\"s1\"}\n",
    ] {
        let input = head.join("\n") + "\n" + tail;
        let err = stderr(&ag_ui(&["verify"], input.as_bytes()));
        assert!(
            err.starts_with("violation: line 4: chunk.closed-elsewhere [m]"),
            "{err}"
        );
    }
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

#[test]
fn a_huge_id_is_quoted_once_as_a_bounded_excerpt() {
    let id = "m".repeat(2_000_000);
    let input = format!(
        "{}\n{{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"{id}\"}}\n",
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#
    );
    let out = ag_ui(&["verify"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.len() < 1024, "{} bytes on stderr", err.len());
    assert!(err.contains("text.not-open"), "{err}");
    assert!(err.contains("(2000000 bytes)"), "{err}");
}

/// A pre-1.0 stream: `THINKING_*` events, and an emoji whose UTF-16 halves a producer split
/// across two deltas.
const LEGACY: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"THINKING_START","title":"plan"}
{"type":"THINKING_TEXT_MESSAGE_START"}
{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"hmm"}
{"type":"THINKING_TEXT_MESSAGE_END"}
{"type":"THINKING_END"}
{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi \ud83d"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ude00!"}
{"type":"TEXT_MESSAGE_END","messageId":"m"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
"#;

#[test]
fn offline_tools_read_through_the_live_compat_stage() {
    let sse: String = LEGACY
        .lines()
        .map(|line| format!("data: {line}\n\n"))
        .collect();
    // What a live run makes of these bytes: HttpAgent's pipeline.
    let mut pipeline = ag_ui::client::Pipeline::new(ag_ui::client::Reducer::new());
    pipeline.push_bytes(sse.as_bytes(), &mut ()).unwrap();
    pipeline.finish(&mut ()).unwrap();
    let live = serde_json::to_value(pipeline.reducer().messages()).unwrap();
    assert_eq!(live[0]["role"], "reasoning", "{live}");
    assert_eq!(live[0]["content"], "hmm", "{live}");
    assert_eq!(live[1]["content"], "hi \u{1F600}!", "{live}");
    for input in [LEGACY, sse.as_str()] {
        let out = ag_ui(&["apply"], input.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(stderr(&out), "", "nothing skipped");
        let applied: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(applied["messages"], live);
    }
    // verify and normalize see the same translated stream.
    assert_eq!(
        stdout(&ag_ui(&["verify"], LEGACY.as_bytes())),
        "ok: 11 events, 1 runs\n"
    );
    let normalized = stdout(&ag_ui(&["normalize"], LEGACY.as_bytes()));
    assert!(
        normalized.contains("REASONING_MESSAGE_CONTENT"),
        "{normalized}"
    );
    assert!(!normalized.contains("THINKING"), "{normalized}");
}
