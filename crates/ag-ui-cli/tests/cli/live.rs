//! `ag-ui serve` and `ag-ui run` as processes: the demo agent served on port 0, a run against
//! it in `--json` mode, an interrupt answered with `--resume`, and failures named.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use ag_ui::server::Runner;
use ag_ui::{Event, Message, RunAgentInput, RunErrorEvent, TextMessageRole};
use ag_ui_demo_agent::DemoAgent;
use futures::StreamExt;

use crate::{Server, plain_response, scripted, serve_process, sse_response};

/// `ag-ui serve` at `/agent`, pacing nothing.
fn serve() -> Server {
    let server = serve_process(&["--path", "/agent", "--pace-ms", "0"]);
    assert!(
        server.base.starts_with("http://127.0.0.1:") && server.base.ends_with("/agent"),
        "{}",
        server.base
    );
    server
}

fn ag_ui(args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args(args)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
    output
}

/// Splits a run's events into the parent's and each subagent's, in order: concurrent subagents
/// interleave differently from run to run, but each one's own sequence is fixed.
fn by_owner(events: &[Event]) -> Vec<(String, Vec<Event>)> {
    let mut groups: Vec<(String, Vec<Event>)> = Vec::new();
    for event in events {
        // By the subagent an event is from, or (SUBAGENT_*) about.
        let owner = event
            .subagent_run_id()
            .map_or(String::new(), |s| s.to_string());
        match groups.iter_mut().find(|(o, _)| *o == owner) {
            Some((_, list)) => list.push(event.clone()),
            None => groups.push((owner, vec![event.clone()])),
        }
    }
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    groups
}

#[test]
fn run_json_prints_exactly_the_agents_events() {
    let server = serve();
    let out = ag_ui(&[
        "run",
        &server.base,
        "What is AG-UI?",
        "--json",
        "--thread",
        "t1",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Vec<Event> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| Event::from_json(l).unwrap())
        .collect();

    // The same agent, run in-process on the same input (the run id is fresh for every run, so
    // it is read from the printed RUN_STARTED).
    let Some(Event::RunStarted(started)) = printed.first() else {
        panic!("{printed:?}")
    };
    assert!(
        started.run_id.as_str().starts_with("t1-run-"),
        "{started:?}"
    );
    let input = RunAgentInput::new("t1", started.run_id.clone())
        .with_messages(vec![Message::user("u", "What is AG-UI?")]);
    let expected: Vec<Event> = tokio::runtime::Runtime::new().unwrap().block_on(async {
        Runner::new(DemoAgent::new())
            .run(input)
            .unwrap()
            .collect()
            .await
    });
    assert_eq!(printed.len(), expected.len());
    assert_eq!(printed.first(), expected.first());
    assert_eq!(printed.last(), expected.last());
    assert_eq!(by_owner(&printed), by_owner(&expected));
}

#[test]
fn an_interrupt_is_shown_and_answered_with_resume() {
    let server = serve();
    let out = ag_ui(&[
        "run",
        &server.base,
        "please confirm",
        "--color",
        "never",
        "--thread",
        "t2",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("⏸ the run is waiting for you:\n  confirm-save-t2 (confirmation) Shall I save these findings?\n"), "{text}");
    let hint = format!(
        "  resume with: ag-ui run {} --thread t2 --resume confirm-save-t2='{{\"approved\":true}}'\n",
        server.base
    );
    assert!(text.ends_with(&hint), "{text}");

    let out = ag_ui(&[
        "run",
        &server.base,
        "--color",
        "never",
        "--thread",
        "t2",
        "--resume",
        "confirm-save-t2={\"approved\":false}",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("assistant: Understood, nothing was saved.\n"),
        "{text}"
    );
    assert!(text.ends_with("✓ done {\"saved\":false}\n"), "{text}");
}

#[test]
fn failures_are_named_with_a_non_zero_exit() {
    let server = serve();
    // The agent rejects a state that does not fit it, before streaming: an HTTP error.
    let out = ag_ui(&["run", &server.base, "hi", "--state", "[1,2]"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("error: HTTP 400: invalid-state: "), "{err}");

    let out = ag_ui(&["run", "http://127.0.0.1:9/", "hi"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: cannot reach http://127.0.0.1:9/"),
        "{err}"
    );
    // The whole cause, down to the operating system's word for it.
    assert!(err.to_lowercase().contains("connection refused"), "{err}");

    let out = ag_ui(&["run", &server.base, "hi", "--state", "{not json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .starts_with("error: --state is not JSON")
    );
}

#[test]
fn verify_runs_a_url_once_and_checks_the_stream() {
    let server = serve();
    let out = ag_ui(&["verify", &server.base, "--message", "What is AG-UI?"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(
        line.starts_with("ok: ") && line.ends_with(" events, 1 runs\n"),
        "{line}"
    );
}

#[test]
fn serve_logs_each_run_with_its_id_events_and_duration() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--pace-ms",
            "0",
            "--color",
            "never",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let url = first
        .trim()
        .strip_prefix("ag-ui demo agent: ")
        .unwrap()
        .to_owned();
    let (tx, rx) = mpsc::channel();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let out = ag_ui(&["run", &url, "hi", "--json", "--thread", "t3"]);
    assert_eq!(out.status.code(), Some(0));
    let events = String::from_utf8(out.stdout).unwrap().lines().count();
    let ended = loop {
        let line = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("serve logged no end of the run");
        if line.contains("run ended") {
            break line;
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    // Client ids are logged quoted, with control characters escaped.
    assert!(ended.contains("run=\"t3-run-"), "{ended}");
    assert!(ended.contains(&format!("events={events}")), "{ended}");
    assert!(ended.contains("duration_ms="), "{ended}");
    assert!(ended.contains("outcome=\"finished\""), "{ended}");
}

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The agent's RUN_ERROR is its failure, not a broken stream: its code and message on standard
/// error, exit 3 (a violation or a cut-off stream is 1).
#[test]
fn run_exits_3_with_the_agents_error_when_the_run_ends_in_run_error() {
    let (url, _) = scripted(
        sse_response(&[
            Event::run_started("t", "r1"),
            RunErrorEvent::new("model overloaded")
                .with_code("overloaded")
                .into(),
        ]),
        Duration::ZERO,
    );
    let out = ag_ui(&["run", &url, "hi", "--json"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr_of(&out));
    assert_eq!(
        stderr_of(&out),
        "run error: the agent's run failed: model overloaded (code overloaded)\n"
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    assert!(printed.contains("\"RUN_ERROR\""), "{printed}");
    let out = ag_ui(&["run", &url, "hi", "--color", "never"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("model overloaded")
    );
    // A RUN_ERROR after a finished run is delivered the same way.
    let (url, _) = scripted(
        sse_response(&[
            Event::run_started("t", "r1"),
            Event::run_finished("t", "r1"),
            Event::run_error("late"),
        ]),
        Duration::ZERO,
    );
    let out = ag_ui(&["run", &url, "hi", "--json"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr_of(&out));
    assert_eq!(stderr_of(&out), "run error: the agent's run failed: late\n");
}

/// What the client strips is said on standard error, one line per kind (the rest counted); a
/// conformant stream says nothing.
#[test]
fn run_prints_one_warning_per_kind_of_stripped_material() {
    let mut reply = sse_response(&[Event::run_started("t", "r1")]);
    for frame in [
        r#"{"type":"FUTURE_EVENT"}"#,
        r#"{"type":"FUTURE_EVENT"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant","futureProp":1}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","futureProp":2}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r1","outcome":{"type":"future"}}"#,
    ] {
        ag_ui::encoding::sse::write_frame(frame, &mut reply);
    }
    let (url, _) = scripted(reply, Duration::ZERO);
    let out = ag_ui(&["run", &url, "hi", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let stderr = stderr_of(&out);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 4, "{stderr}");
    for (line, kind) in lines
        .iter()
        .zip(["strip.event", "strip.member", "strip.outcome"])
    {
        assert!(
            line.starts_with("warning: event ") && line.contains(kind),
            "{stderr}"
        );
    }
    assert!(lines[1].contains("/futureProp"), "{stderr}");
    assert_eq!(lines[3], "warning: 2 more of the kinds above");
    let (url, _) = scripted(
        sse_response(&[
            Event::run_started("t", "r1"),
            Event::run_finished("t", "r1"),
        ]),
        Duration::ZERO,
    );
    let out = ag_ui(&["run", &url, "hi", "--json"]);
    assert_eq!((out.status.code(), stderr_of(&out).as_str()), (Some(0), ""));
}

/// `--input FILE` starts from a conversation in the corpus's `input` shape, or from a whole
/// fixture (its input and peer pin); `--peer-version` shapes the request for an older agent.
#[test]
fn run_sends_a_conversation_from_a_file_shaped_for_a_pinned_peer() {
    let dir = std::env::temp_dir().join(format!("ag-ui-run-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("input.json");
    std::fs::write(
        &input,
        r#"{"messages":[{"id":"u1","role":"user","content":[{"type":"text","text":"What is "},{"type":"image","source":{"type":"url","value":"https://x/cat.png"}},{"type":"text","text":"this?"}]}],"tools":[{"name":"look","description":"looks","parameters":{}}]}"#,
    )
    .unwrap();
    let (url, requests) = scripted(
        sse_response(&[
            Event::run_started("t", "r1"),
            Event::run_finished("t", "r1"),
        ]),
        Duration::ZERO,
    );
    let input_arg = input.to_str().unwrap();
    let out = ag_ui(&[
        "run",
        &url,
        "--input",
        input_arg,
        "--peer-version",
        "0.0.39",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let stderr = stderr_of(&out);
    assert!(
        stderr.starts_with("warning: request: peer.downgrade: flattening message u1's content"),
        "{stderr}"
    );
    let sent = requests.recv_timeout(Duration::from_secs(5)).unwrap();
    let body: serde_json::Value =
        serde_json::from_str(sent.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(body["messages"][0]["content"], "What is this?", "{body}");
    assert_eq!(body["tools"][0]["name"], "look");
    assert!(body.get("protocolVersion").is_none(), "{body}");
    // A whole fixture: its input, and its peer pin.
    let fixture = dir.join("fixture.json");
    std::fs::write(
        &fixture,
        r#"{"name":"f","client":{"maxProtocolVersion":"0.0.57"},"input":{"messages":[{"id":"a1","role":"assistant","content":"x","subagentRunId":"s1"}]},"stream":[],"expect":{}}"#,
    )
    .unwrap();
    let out = ag_ui(&[
        "run",
        &url,
        "then",
        "--input",
        fixture.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let sent = requests.recv_timeout(Duration::from_secs(5)).unwrap();
    let body: serde_json::Value =
        serde_json::from_str(sent.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(body["messages"][0]["id"], "a1");
    assert!(body["messages"][0].get("subagentRunId").is_none(), "{body}");
    assert_eq!(body["messages"][1]["content"], "then");
    assert!(body.get("protocolVersion").is_none(), "{body}");
    // What is not an input is a usage error naming the file.
    std::fs::write(&input, r#"{"messages":[],"novel":1}"#).unwrap();
    let out = ag_ui(&["run", &url, "--input", input_arg]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("\"novel\" is not a member"),
        "{}",
        stderr_of(&out)
    );
    let out = ag_ui(&["run", &url, "--peer-version", "latest"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("--peer-version"),
        "{}",
        stderr_of(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn run_exits_1_on_a_response_that_is_not_ag_ui() {
    for (reply, shown) in [
        (
            plain_response("200 OK", "application/json", r#"{"ok":true}"#),
            "content type \"application/json\"",
        ),
        (
            plain_response("200 OK", "text/html", "<html>sign in</html>"),
            "content type \"text/html\"",
        ),
        (
            b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n".to_vec(),
            "HTTP 204, no content type",
        ),
        (
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-encoding: gzip\r\ncontent-length: 4\r\nconnection: close\r\n\r\n\x1f\x8b\x08\x00".to_vec(),
            "content encoding \"gzip\"",
        ),
    ] {
        let (url, _) = scripted(reply, Duration::ZERO);
        let out = ag_ui(&["run", &url, "hi", "--json"]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
        let err = stderr_of(&out);
        assert!(
            err.starts_with("error: the response is not an AG-UI event stream: "),
            "{err}"
        );
        assert!(err.contains(shown), "{err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn run_exits_1_when_the_stream_stops_mid_run_naming_what_was_open() {
    let (url, _) = scripted(
        sse_response(&[
            Event::run_started("t", "r1"),
            Event::text_message_start("a1", TextMessageRole::Assistant),
            Event::text_message_content("a1", "cut off"),
        ]),
        Duration::ZERO,
    );
    let out = ag_ui(&["run", &url, "hi", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr_of(&out),
        "error: the response ended in the middle of run r1 (no RUN_FINISHED or RUN_ERROR); \
         still open: text messages a1\n"
    );
}

#[test]
fn run_times_out_on_a_stalled_server() {
    let stalls = [
        Vec::new(),
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n".to_vec(),
        {
            let mut r = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n".to_vec();
            ag_ui::encoding::sse::encode_into(&Event::run_started("t", "r1"), &mut r);
            r
        },
    ];
    let expected = [
        "error: no response headers within 300ms of sending the request (idle timeout)\n",
        "error: the agent sent nothing for 300ms (idle timeout)\n",
        "error: the agent sent nothing for 300ms (idle timeout)\n",
    ];
    for (reply, expected) in stalls.into_iter().zip(expected) {
        let (url, _) = scripted(reply, Duration::from_secs(20));
        let started = Instant::now();
        let out = ag_ui(&["run", &url, "hi", "--json", "--idle-timeout", "0.3"]);
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(stderr_of(&out), expected);
    }
}

#[test]
fn run_stops_at_its_total_timeout_though_keep_alives_keep_coming() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/agent", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else {
            return;
        };
        let mut buf = [0u8; 4096];
        let _ = stream.read(&mut buf);
        let mut head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n".to_vec();
        ag_ui::encoding::sse::encode_into(&Event::run_started("t", "r1"), &mut head);
        let _ = stream.write_all(&head);
        // A keep-alive comment every 100 ms for 20 s: never idle.
        for _ in 0..200 {
            if stream.write_all(b": keep-alive\n\n").is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    let started = Instant::now();
    let out = ag_ui(&[
        "run",
        &url,
        "hi",
        "--json",
        "--idle-timeout",
        "0.5",
        "--timeout",
        "1",
    ]);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert!(took >= Duration::from_secs(1), "{took:?}");
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert_eq!(
        stderr_of(&out),
        "error: the run took longer than 1s (--timeout); stopped\n"
    );
    // What came before the stop was printed.
    assert!(String::from_utf8_lossy(&out.stdout).contains("RUN_STARTED"));
}

/// Issue 41's reproducer against the command: `retry: 100`, frames with ids from `r:0`, the
/// third one's delta 11 MiB. With ids, with `retry:` alone and with neither, `ag-ui run --json`
/// prints the first two events and fails with the same frame-limit error (it said, with ids,
/// that the stream started with `TEXT_MESSAGE_START`), asking once.
#[test]
fn run_names_an_oversized_frame_the_same_with_ids_from_zero_or_without() {
    use crate::hostile::oversized_frame_response;
    for (retry, ids) in [(true, true), (true, false), (false, false)] {
        let (url, requests) = scripted(oversized_frame_response(retry, ids), Duration::ZERO);
        let out = ag_ui(&["run", &url, "hi", "--json"]);
        let context = format!("retry {retry}, ids {ids}");
        assert_eq!(out.status.code(), Some(1), "{context}: {}", stderr_of(&out));
        assert_eq!(
            stderr_of(&out),
            "error: decoding the stream failed: event #2: SSE frame exceeds the maximum size of \
             10485760 bytes\n",
            "{context}"
        );
        let printed: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|line| {
                serde_json::from_str::<serde_json::Value>(line).unwrap()["type"].to_string()
            })
            .collect();
        assert_eq!(
            printed,
            ["\"RUN_STARTED\"", "\"TEXT_MESSAGE_START\""],
            "{context}"
        );
        assert_eq!(requests.try_iter().count(), 1, "{context}");
    }
}

#[test]
fn usage_errors_exit_2() {
    for (args, err) in [
        (
            &["run", "not a url", "hi"][..],
            "error: \"not a url\" is not a valid URL: relative URL without a base\n",
        ),
        (
            &["run", "ftp://127.0.0.1/", "hi"][..],
            "error: \"ftp://127.0.0.1/\" is not an http or https URL (scheme \"ftp\")\n",
        ),
        (
            &[
                "run",
                "http://127.0.0.1:9/",
                "hi",
                "--header",
                "bad name: v",
            ][..],
            "error: --header \"bad name\": invalid HTTP header name\n",
        ),
        (
            &[
                "run",
                "http://127.0.0.1:9/",
                "hi",
                "--header",
                "x-key: a\u{7f}b",
            ][..],
            "error: --header \"x-key\": failed to parse header value\n",
        ),
        (
            &["run", "http://127.0.0.1:9/", "hi", "--timeout", "0"][..],
            "error: --timeout: \"0\" is not a positive number of seconds\n",
        ),
        (
            &["run", "http://127.0.0.1:9/", "hi", "--idle-timeout", "0"][..],
            "error: --idle-timeout: \"0\" is not a positive number of seconds\n",
        ),
        (
            &[
                "run",
                "http://127.0.0.1:9/",
                "hi",
                "--connect-timeout",
                "soon",
            ][..],
            "error: --connect-timeout: \"soon\" is not a positive number of seconds\n",
        ),
    ] {
        let out = ag_ui(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr_of(&out));
        assert_eq!(stderr_of(&out), err, "{args:?}");
    }
}

#[test]
fn custom_headers_never_reach_another_origin() {
    let (other, other_requests) = scripted(
        sse_response(&[Event::run_started("t", "r"), Event::run_finished("t", "r")]),
        Duration::ZERO,
    );
    let (url, requests) = scripted(
        format!(
            "HTTP/1.1 307 Temporary Redirect\r\nlocation: {other}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        )
        .into_bytes(),
        Duration::ZERO,
    );
    let out = ag_ui(&["run", &url, "hi", "--header", "X-Api-Key: secret"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr_of(&out),
        format!(
            "error: HTTP 307: the agent redirected to another origin ({other}), which is not followed\n"
        )
    );
    let sent = requests.recv_timeout(Duration::from_secs(5)).unwrap();
    assert!(sent.to_lowercase().contains("x-api-key: secret"), "{sent}");
    assert!(
        other_requests
            .recv_timeout(Duration::from_millis(300))
            .is_err(),
        "the other origin got a request"
    );
}

#[test]
fn http_errors_are_shown_short() {
    let page = format!(
        "<!DOCTYPE html><html><head><title>Not Found</title></head><body>{}</body></html>",
        "<div>chrome</div>".repeat(500)
    );
    let (url, _) = scripted(
        plain_response("404 Not Found", "text/html", &page),
        Duration::ZERO,
    );
    let out = ag_ui(&["run", &url, "hi"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr_of(&out), "error: HTTP 404: Not Found\n");
}

#[test]
fn every_run_gets_a_fresh_id() {
    let server = serve();
    let run_id = || {
        let out = ag_ui(&["run", &server.base, "hi", "--json", "--thread", "t9"]);
        assert_eq!(out.status.code(), Some(0));
        let first = String::from_utf8(out.stdout).unwrap();
        match Event::from_json(first.lines().next().unwrap()).unwrap() {
            Event::RunStarted(e) => e.run_id.to_string(),
            other => panic!("{other:?}"),
        }
    };
    let (a, b) = (run_id(), run_id());
    assert!(a.starts_with("t9-run-"), "{a}");
    assert_ne!(a, b);
}

#[test]
fn run_proto_asks_for_protobuf_and_reads_the_same_conversation() {
    let server = serve();
    let texts = |args: &[&str]| {
        let out = ag_ui(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let events: Vec<Event> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| Event::from_json(l).unwrap())
            .collect();
        let mut texts: Vec<(String, String)> = events
            .iter()
            .filter_map(|e| match e {
                // Subagent run ids carry the (fresh) run id: keep their last part.
                Event::TextMessageContent(c) => Some((
                    c.subagent_run_id.as_ref().map_or(String::new(), |s| {
                        s.as_str().rsplit('-').next().unwrap_or("").to_owned()
                    }),
                    c.delta.clone(),
                )),
                _ => None,
            })
            .collect();
        texts.sort();
        (events.len(), texts)
    };
    let sse = texts(&["run", &server.base, "hi", "--json", "--thread", "t"]);
    let proto = texts(&[
        "run",
        &server.base,
        "hi",
        "--json",
        "--thread",
        "t",
        "--proto",
    ]);
    assert!(!sse.1.is_empty());
    assert_eq!(sse, proto);

    // The request asks for protobuf first, SSE as a fallback.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let seen = std::thread::spawn(move || {
        use std::io::{Read, Write};
        let (mut socket, _) = listener.accept().unwrap();
        let mut request = Vec::new();
        let mut buf = [0; 4096];
        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = socket.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            request.extend_from_slice(&buf[..n]);
        }
        let _ = socket.write_all(
            b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        );
        String::from_utf8_lossy(&request).to_ascii_lowercase()
    });
    let out = ag_ui(&["run", &url, "hi", "--proto"]);
    assert_eq!(out.status.code(), Some(1));
    let request = seen.join().unwrap();
    assert!(
        request.contains("accept: application/vnd.ag-ui.event+proto"),
        "{request}"
    );
}

/// The README's first command: `ag-ui demo` serves the demo agent on a free port and renders
/// one verified turn against it; with `--json` the events end in `RUN_FINISHED`.
#[test]
fn demo_serves_and_runs_one_turn() {
    let output = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args(["demo", "--json", "Hello"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let events: Vec<Event> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| Event::from_json(line).unwrap())
        .collect();
    assert!(
        matches!(events.first(), Some(Event::RunStarted(_))),
        "{events:?}"
    );
    assert!(
        matches!(events.last(), Some(Event::RunFinished(_))),
        "{events:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::TextMessageContent(_))),
        "the demo streams text"
    );

    let rendered = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args(["--color", "never", "demo", "Hello"])
        .output()
        .unwrap();
    assert!(rendered.status.success(), "{rendered:?}");
    assert!(!rendered.stdout.is_empty());
}
