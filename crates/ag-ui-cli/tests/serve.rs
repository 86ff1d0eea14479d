//! `ag-ui serve` as a process: its log (one line per run with the right outcome, client ids
//! escaped, one warning for many dropped messages) and Ctrl-C stopping it while a client
//! trickles its headers.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Server {
    child: Child,
    url: String,
    addr: String,
    stderr: std::thread::JoinHandle<String>,
    _stdout: BufReader<std::process::ChildStdout>,
}

fn serve() -> Server {
    serve_with(&[])
}

fn serve_with(extra: &[&str]) -> Server {
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
        .args(extra)
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut first = String::new();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdout.read_line(&mut first).unwrap();
    let url = first
        .trim()
        .strip_prefix("ag-ui demo agent: ")
        .expect("serve prints its URL first")
        .to_owned();
    let addr = url
        .strip_prefix("http://")
        .unwrap()
        .trim_end_matches('/')
        .to_owned();
    Server {
        child,
        url,
        addr,
        stderr,
        _stdout: stdout,
    }
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
    let mut slow = std::net::TcpStream::connect(&server.addr).unwrap();
    slow.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nX-Slow: a")
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    interrupt(&server.child);
    let (status, took) = wait_exit(&mut server.child, Duration::from_secs(15));
    assert!(status.success(), "{status:?}");
    // The shutdown is bounded (5 s) even though the slow client never finishes its request.
    assert!(took < Duration::from_secs(9), "stopped after {took:?}");
    let log = server.stderr.join().unwrap();
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
        "messages": [{"id": "u1", "role": "user", "content": "please confirm"}],
    });
    let stream = post(&server.url, body.to_string());
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
    let stream = post(&server.url, body.to_string());
    assert!(stream.contains("RUN_FINISHED"), "{stream}");

    interrupt(&server.child);
    wait_exit(&mut server.child, Duration::from_secs(15));
    let log = server.stderr.join().unwrap();

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
        "messages": [{"id": "u1", "role": "user", "content": "hello"}],
    });
    let first = post_with(
        &server.url,
        body.to_string(),
        &[("traceparent", traceparent)],
    );
    assert!(first.contains("RUN_FINISHED"), "{first}");
    let body = serde_json::json!({
        "threadId": "t2",
        "runId": "r2\n",
        "messages": [{"id": "u1", "role": "user", "content": "please confirm"}],
    });
    let second = post(&server.url, body.to_string());
    interrupt(&server.child);
    wait_exit(&mut server.child, Duration::from_secs(15));
    let log = server.stderr.join().unwrap();

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
