//! `ag-ui serve` as a process: its log (one line per run with the right outcome, client ids
//! escaped, one warning for many dropped messages) and Ctrl-C stopping it while a client
//! trickles its headers.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};

use crate::{Server, serve_command};
use std::time::{Duration, Instant};

fn serve() -> Server {
    serve_with(&[])
}

/// `ag-ui serve` pacing nothing, with `extra` arguments, logging at `info` to a kept stderr.
fn serve_with(extra: &[&str]) -> Server {
    let mut command = serve_command(&[&["--pace-ms", "0"], extra].concat());
    command.env("RUST_LOG", "info").stderr(Stdio::piped());
    Server::start(command)
}

/// Sends SIGINT, as Ctrl-C does.
fn interrupt(child: &Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits for the process to exit, up to `limit`; kills it and fails when it does not.
fn wait_exit(child: &mut Child, limit: Duration) -> (std::process::ExitStatus, Duration) {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return (status, start.elapsed());
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ag-ui serve did not stop within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn post(url: &str, body: String) -> String {
    post_with(url, body, &[])
}

fn post_with(url: &str, body: String, headers: &[(&str, &str)]) -> String {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut request = reqwest::Client::new().post(url);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    })
}

#[test]
fn ctrl_c_stops_serve_while_a_client_trickles_its_headers() {
    let mut server = serve();
    let mut slow = std::net::TcpStream::connect(server.addr()).unwrap();
    slow.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nX-Slow: a")
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    interrupt(&server.child);
    let (status, took) = wait_exit(&mut server.child, Duration::from_secs(15));
    assert!(status.success(), "{status:?}");
    // The shutdown is bounded (5 s) even though the slow client never finishes its request.
    assert!(took < Duration::from_secs(9), "stopped after {took:?}");
    let log = server.stderr();
    assert!(
        log.contains("interrupted; closing open connections"),
        "{log}"
    );
    drop(slow);
}

#[test]
fn the_log_names_the_outcome_escapes_client_ids_and_warns_once_for_many_dropped_messages() {
    let mut server = serve();
    // An interrupted run, with a run id that tries to forge a log line and colour the log.
    let forged = "r1\r\n2026-01-01T00:00:00Z  INFO forged: run ended\u{1b}[31m";
    let body = serde_json::json!({
        "threadId": "t1",
        "runId": forged,
        "protocolVersion": "1.0",
        "messages": [{"id": "u1", "role": "user", "content": "please confirm"}],
    });
    let stream = post(&server.base, body.to_string());
    assert!(
        stream.contains("\"outcome\":{\"type\":\"interrupt\""),
        "{stream}"
    );

    // A completed run whose input carries 1000 messages of a role nobody knows.
    let mut messages: Vec<serde_json::Value> = (0..1000)
        .map(|i| serde_json::json!({"id": format!("x{i}"), "role": "alien", "content": "?"}))
        .collect();
    messages.push(serde_json::json!({"id": "u1", "role": "user", "content": "hello"}));
    let body = serde_json::json!({"threadId": "t2", "runId": "r2", "messages": messages});
    let stream = post(&server.base, body.to_string());
    assert!(stream.contains("RUN_FINISHED"), "{stream}");

    interrupt(&server.child);
    wait_exit(&mut server.child, Duration::from_secs(15));
    let log = server.stderr();

    assert!(
        !log.contains('\u{1b}'),
        "a raw ESC reached the log: {log:?}"
    );
    assert!(!log.contains('\r'), "a raw CR reached the log: {log:?}");
    assert!(
        !log.lines().any(|l| l.starts_with("2026-01-01")),
        "a forged line: {log}"
    );
    let ended: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("ag_ui::serve: run ended run="))
        .collect();
    assert_eq!(ended.len(), 2, "{log}");
    assert!(
        ended[0].contains(r#"run="r1\r\n2026"#) && ended[0].contains("outcome=\"interrupted\""),
        "{}",
        ended[0]
    );
    assert!(ended[1].contains("outcome=\"finished\""), "{}", ended[1]);

    let warnings: Vec<&str> = log.lines().filter(|l| l.contains("unknown role")).collect();
    assert_eq!(warnings.len(), 1, "{log}");
    assert!(warnings[0].contains("count=1000"), "{}", warnings[0]);
}

/// `@ag-ui/client` 0.0.42, 0.0.52 and 0.0.59 (npm aliases pinned in interop/package.json;
/// 0.0.59 is what `@copilotkit/runtime` 1.75 runs) send no `protocolVersion`: `ag-ui serve`
/// downgrades the demo's stream for them, one stream all three accept, and each ends with the
/// richest conversation it can hold of what the 1.0 client builds. All read the reasoning (as
/// `THINKING_*`; none keeps it as messages); 0.0.59 keeps the subagent attribution of the
/// messages, which the older two strip; a run that paused for an interrupt is visible to all
/// (a notice message), and 0.0.59 holds the interrupt itself and answers it with `resume`.
/// `@ag-ui/client` 1.0.0 declares "1.0" and gets every 1.0 event the demo sends.
#[test]
fn pre_1_0_clients_run_the_demo_through_the_downgrade() {
    use serde_json::{Value, json};
    let mut server = serve();
    for question in ["what is rust", "please confirm"] {
        let paused = question == "please confirm";
        let out = crate::node::json("client/old_clients.mjs", &[&server.base, question]);
        let modern = &out["1.0.0"];
        assert_eq!(modern["error"], Value::Null, "{question}: {modern}");
        assert_eq!(modern["sent"], "1.0");
        let modern_types: Vec<&str> = modern["eventTypes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        for wanted in [
            "REASONING_START",
            "REASONING_MESSAGE_CONTENT",
            "SUBAGENT_STARTED",
            "SUBAGENT_FINISHED",
            "TOOL_CALL_RESULT",
            "STATE_DELTA",
        ] {
            assert!(
                modern_types.contains(&wanted),
                "{question}: 1.0.0 missed {wanted}"
            );
        }
        let interrupts = modern["pendingInterrupts"].as_array().unwrap();
        assert_eq!(interrupts.len(), usize::from(paused), "{question}");

        // What a pre-1.0 client can hold of the 1.0 client's conversation. Each client makes
        // its own run, in which the two subagents race: messages are compared by id.
        let by_id = |messages: &mut Vec<Value>| {
            messages.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
        };
        let expected = |attributed: bool| {
            let mut messages: Vec<Value> = modern["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["role"] != "reasoning")
                .map(|m| {
                    let mut m = m.clone();
                    if !attributed {
                        m.as_object_mut().unwrap().remove("subagentRunId");
                    }
                    m
                })
                .collect();
            if paused {
                messages.push(json!({
                    "id": "run-old-interrupt",
                    "role": "assistant",
                    "content": "Paused, waiting for your answer (confirmation): Shall I save these findings?"
                }));
            }
            by_id(&mut messages);
            messages
        };
        for (version, attributed) in [("0.0.42", false), ("0.0.52", false), ("0.0.59", true)] {
            let old = &out[version];
            assert_eq!(old["error"], Value::Null, "{question}: {version}: {old}");
            assert_eq!(old["sent"], Value::Null, "{version} declares no version");
            let types: Vec<&str> = old["eventTypes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect();
            assert!(
                types.contains(&"THINKING_TEXT_MESSAGE_CONTENT"),
                "{version}: {types:?}"
            );
            assert_eq!(types.last(), Some(&"RUN_FINISHED"), "{version}");
            let mut messages = old["messages"].as_array().unwrap().clone();
            by_id(&mut messages);
            let wanted = expected(attributed);
            assert!(wanted.len() >= 5, "{question}: {wanted:?}");
            assert_eq!(
                messages, wanted,
                "{question}: {version} rebuilt other messages"
            );
            if attributed {
                let subagents = messages
                    .iter()
                    .filter(|m| m["subagentRunId"].is_string())
                    .count();
                assert_eq!(subagents, 2, "{question}: {version}: {messages:?}");
            }
        }

        // Only 0.0.59 holds interrupts: the one the 1.0 client holds, answered by `resume` on
        // its next run, which the demo takes (no protocolVersion, still downgraded).
        assert_eq!(out["0.0.42"]["pendingInterrupts"], Value::Null);
        assert_eq!(out["0.0.52"]["pendingInterrupts"], Value::Null);
        let newest = &out["0.0.59"];
        assert_eq!(
            newest["pendingInterrupts"], modern["pendingInterrupts"],
            "{question}"
        );
        if paused {
            for version in ["0.0.59", "1.0.0"] {
                let resumed = &out[version]["resumed"];
                assert_eq!(resumed["error"], Value::Null, "{version}: {resumed}");
                assert_eq!(
                    resumed["resume"][0]["interruptId"], interrupts[0]["id"],
                    "{version}"
                );
                assert_eq!(resumed["pendingInterrupts"], json!([]), "{version}");
                let last = resumed["messages"].as_array().unwrap().last().unwrap();
                assert_eq!(
                    last["content"], "Saved. Thanks for confirming.",
                    "{version}"
                );
            }
        } else {
            assert_eq!(newest["resumed"], Value::Null);
        }
    }
    interrupt(&server.child);
    wait_exit(&mut server.child, Duration::from_secs(15));
}

/// `--old-clients 0.0.57`: the deployment says its pre-1.0 clients are 0.0.57 or newer, so
/// their stream keeps reasoning as `REASONING_*`: 0.0.52 and 0.0.59 hold the reasoning
/// messages the 1.0 client holds (the two subagents' included), while 0.0.42, older than the
/// deployment said, fails its run at the first reasoning event.
#[test]
fn old_clients_named_keep_the_reasoning() {
    use serde_json::{Value, json};
    let mut server = serve_with(&["--old-clients", "0.0.57"]);
    let out = crate::node::json("client/old_clients.mjs", &[&server.base, "what is rust"]);
    let reasoning = |version: &str| {
        let mut texts: Vec<Value> = out[version]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "reasoning")
            .map(|m| json!([m["id"], m["content"]]))
            .collect();
        texts.sort_by_key(|t| t[0].as_str().map(str::to_owned));
        texts
    };
    let modern = reasoning("1.0.0");
    assert!(modern.len() >= 2, "the demo reasons: {modern:?}");
    for version in ["0.0.52", "0.0.59"] {
        let old = &out[version];
        assert_eq!(old["error"], Value::Null, "{version}: {old}");
        assert_eq!(old["sent"], Value::Null, "{version} declares no version");
        let types = old["eventTypes"].as_array().unwrap();
        assert!(
            types.contains(&json!("REASONING_MESSAGE_CONTENT")),
            "{version}: {types:?}"
        );
        assert!(!types.contains(&json!("THINKING_START")), "{version}");
        assert_eq!(
            reasoning(version),
            modern,
            "{version}: the reasoning messages"
        );
    }
    let oldest = &out["0.0.42"]["error"];
    assert!(
        oldest
            .as_str()
            .is_some_and(|e| e.contains("REASONING") || e.contains("discriminator")),
        "0.0.42 is older than the deployment serves: {oldest}"
    );

    // A value that is not a version is refused before anything listens.
    let refused = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args(["serve", "--addr", "127.0.0.1:0", "--old-clients", "0.0"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("three numbers"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    interrupt(&server.child);
    wait_exit(&mut server.child, Duration::from_secs(15));
}

/// `--coalesce-ms`: the demo's streamed words are joined into fewer `TEXT_MESSAGE_CONTENT`
/// events, with the same text.
#[test]
fn serve_coalesces_deltas_when_asked() {
    let body = serde_json::json!({
        "threadId": "t",
        "runId": "r",
        "protocolVersion": "1.0",
        "messages": [{"id": "u1", "role": "user", "content": "what is rust"}],
    })
    .to_string();
    // The text of each message (the two subagents race, so messages are told apart by id).
    let texts = |stream: &str| {
        let mut deltas = 0;
        let mut text = std::collections::BTreeMap::<String, String>::new();
        for data in stream.lines().filter_map(|l| l.strip_prefix("data: ")) {
            let event: serde_json::Value = serde_json::from_str(data).unwrap();
            if event["type"] == "TEXT_MESSAGE_CONTENT" {
                deltas += 1;
                text.entry(event["messageId"].as_str().unwrap().to_owned())
                    .or_default()
                    .push_str(event["delta"].as_str().unwrap());
            }
        }
        (deltas, text)
    };
    let mut plain = serve();
    let (plain_deltas, plain_text) = texts(&post(&plain.base, body.clone()));
    interrupt(&plain.child);
    wait_exit(&mut plain.child, Duration::from_secs(15));
    let mut joined = serve_with(&["--coalesce-ms", "20"]);
    let (joined_deltas, joined_text) = texts(&post(&joined.base, body));
    interrupt(&joined.child);
    wait_exit(&mut joined.child, Duration::from_secs(15));
    assert_eq!(joined_text, plain_text);
    assert!(
        joined_deltas * 2 < plain_deltas,
        "{joined_deltas} deltas coalesced, {plain_deltas} without"
    );
}

/// `--log-format json`: one JSON line per finished run on stderr, with the run's attributes
/// and the trace id of the request's `traceparent` (a fresh one without it).
#[test]
fn the_json_log_has_one_line_per_run_with_its_attributes_and_trace_id() {
    let mut server = serve_with(&["--log-format", "json"]);
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let body = serde_json::json!({
        "threadId": "t1",
        "runId": "r1",
        "parentRunId": "r0",
        "protocolVersion": "1.0",
        "messages": [{"id": "u1", "role": "user", "content": "hello"}],
    });
    let first = post_with(
        &server.base,
        body.to_string(),
        &[("traceparent", traceparent)],
    );
    assert!(first.contains("RUN_FINISHED"), "{first}");
    let body = serde_json::json!({
        "threadId": "t2",
        "runId": "r2\n",
        "protocolVersion": "1.0",
        "messages": [{"id": "u1", "role": "user", "content": "please confirm"}],
    });
    let second = post(&server.base, body.to_string());
    interrupt(&server.child);
    wait_exit(&mut server.child, Duration::from_secs(15));
    let log = server.stderr();

    let runs: Vec<serde_json::Value> = log
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(runs.len(), 2, "{log}");
    // Nothing else but warnings: no text line per run.
    assert!(!log.contains("run ended"), "{log}");
    let run = &runs[0];
    assert_eq!(run["span"], "agui.run");
    assert_eq!(run["agui.side"], "server");
    assert_eq!(run["agui.thread_id"], "t1");
    assert_eq!(run["agui.run_id"], "r1");
    assert_eq!(run["agui.parent_run_id"], "r0");
    assert_eq!(run["agui.run.outcome"], "success");
    assert_eq!(run["trace_id"], "4bf92f3577b34da6a3ce929d0e0e4736");
    let frames = first.matches("data: ").count() as u64;
    assert_eq!(run["agui.events.count"].as_u64(), Some(frames), "{run}");
    assert_eq!(
        run["agui.bytes"].as_u64(),
        Some(first.len() as u64),
        "{run}"
    );
    assert!(run["duration_ms"].is_u64(), "{run}");

    let run = &runs[1];
    assert_eq!(run["agui.run_id"], "r2\n");
    assert!(second.contains("interrupt"), "{second}");
    assert_eq!(run["agui.run.outcome"], "interrupt");
    let trace_id = run["trace_id"].as_str().unwrap();
    assert_eq!(trace_id.len(), 32, "{trace_id}");
    assert!(
        trace_id.bytes().all(|b| b.is_ascii_hexdigit()),
        "{trace_id}"
    );
    assert!(run.get("agui.parent_run_id").is_none(), "{run}");
}

/// Sends `method path` with no body and returns the status, the content type and the body.
fn raw_request(addr: &str, method: &str, path: &str) -> (u16, String, String) {
    use std::io::Write;
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let status = head[9..12].parse().unwrap();
    let content_type = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-type: ")
                .map(str::to_owned)
        })
        .unwrap_or_default();
    (status, content_type, body.to_owned())
}

/// An unknown path and a method a route does not take get the JSON error body every endpoint
/// sends, not axum's empty answers.
#[test]
fn framework_4xx_answers_are_json() {
    let server = serve();
    for (method, path, status, kind) in [
        ("GET", "/no-such-route", 404, "not-found"),
        ("DELETE", "/agents", 405, "method-not-allowed"),
        ("GET", "/agents/demo", 405, "method-not-allowed"),
    ] {
        let (got, content_type, body) = raw_request(&server.addr().to_string(), method, path);
        assert_eq!(got, status, "{method} {path}: {body}");
        assert!(
            content_type.starts_with("application/json"),
            "{method} {path}: {content_type}"
        );
        let body: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["error"]["kind"], kind, "{method} {path}: {body}");
    }
}
