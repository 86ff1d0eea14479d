//! `ag-ui load` as a process: runs against a served agent over a socket with the server's
//! figures, a failing server, the JSON report's shape, and what it refuses (a redirect to
//! another host, `--pid` of a host that is not this machine, more runs than open files).

use std::time::Duration;

use ag_ui::{Event, RunErrorEvent};
use serde_json::Value;

use crate::{ag_ui, scripted, serve_process, sse_response};

fn json_of(out: &std::process::Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "one JSON object: {stdout}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

fn is_spread(value: &Value) -> bool {
    let (p50, p99, max) = (
        value["p50"].as_f64(),
        value["p99"].as_f64(),
        value["max"].as_f64(),
    );
    matches!((p50, p99, max), (Some(a), Some(b), Some(c)) if 0.0 <= a && a <= b && b <= c)
}

#[test]
fn every_run_against_a_served_agent_completes_with_the_servers_figures() {
    let server = serve_process(&["--pace-ms", "0"]);
    let url = format!("{}/", server.base);
    let pid = server.child.id().to_string();
    let out = ag_ui(
        &[
            "load", &url, "--runs", "20", "--ramp", "0.2", "--json", "--pid", &pid,
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json_of(&out);
    assert_eq!(report["runs"], 20);
    assert_eq!(report["completed"], 20);
    assert_eq!(report["failed"], 0);
    assert_eq!(report["reasons"], serde_json::json!([]));
    assert!(
        report["most_open"]
            .as_u64()
            .is_some_and(|n| (1..=20).contains(&n))
    );
    for spread in ["first_byte_ms", "first_event_ms", "gap_ms"] {
        assert!(is_spread(&report[spread]), "{spread}: {report}");
    }
    // The first event cannot come before the first byte.
    assert!(report["first_event_ms"]["p50"].as_f64() >= report["first_byte_ms"]["p50"].as_f64());
    // The demo agent's answer is many events; every run counted them all.
    let events = report["events"].as_u64().unwrap();
    assert!(events >= 20 * 5, "{report}");
    assert!(report["events_per_second"].as_f64().unwrap() > 0.0);
    let server_figures = &report["server"];
    assert_eq!(
        server_figures["pid"].as_u64(),
        Some(u64::from(server.child.id()))
    );
    let (idle, peak) = (
        server_figures["idle_rss_kib"].as_u64().unwrap(),
        server_figures["peak_rss_kib"].as_u64().unwrap(),
    );
    assert!(idle > 0 && peak >= idle, "{server_figures}");
    assert!(server_figures["bytes_per_run"].as_f64().is_some());
    assert!(
        server_figures["cpu_seconds"]
            .as_f64()
            .is_some_and(|c| c >= 0.0)
    );
    assert!(
        server_figures["cpu_seconds_per_1000_runs"]
            .as_f64()
            .is_some()
    );

    // The text report says the same.
    let out = ag_ui(&["load", &url, "--runs", "3"], b"");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("3 runs, 3 completed, 0 failed"), "{text}");
    assert!(text.contains("time to first byte:  p50 "), "{text}");
}

#[test]
fn a_failing_server_exits_1_with_the_reasons() {
    let (url, requests) = scripted(
        sse_response(&[
            Event::run_started("t", "r1"),
            RunErrorEvent::new("model overloaded")
                .with_code("overloaded")
                .into(),
        ]),
        Duration::ZERO,
    );
    let out = ag_ui(&["load", &url, "--runs", "4", "--json"], b"");
    assert_eq!(out.status.code(), Some(1));
    let report = json_of(&out);
    assert_eq!(
        (report["completed"].as_u64(), report["failed"].as_u64()),
        (Some(0), Some(4))
    );
    let reasons = report["reasons"].as_array().unwrap();
    assert_eq!(
        reasons.len(),
        1,
        "the same reason once, counted: {reasons:?}"
    );
    let reason = reasons[0].as_str().unwrap();
    assert!(
        reason.starts_with("4 × ") && reason.contains("model overloaded"),
        "{reason}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("4 of 4 runs failed"));
    assert_eq!(requests.try_iter().count(), 4, "one request per run");

    // In text too, the first reasons are shown.
    let out = ag_ui(&["load", &url, "--runs", "1"], b"");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("first failures:") && text.contains("model overloaded"),
        "{text}"
    );
}

#[test]
fn no_request_leaves_the_urls_host() {
    // The endpoint redirects to another origin that would answer: the run fails, naming the
    // redirect, and nothing reaches the other one.
    let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    other.set_nonblocking(true).unwrap();
    let target = format!(
        "http://localhost:{}/agent",
        other.local_addr().unwrap().port()
    );
    let reply = format!(
        "HTTP/1.1 307 Temporary Redirect\r\nlocation: {target}\r\ncontent-length: 0\r\n\
         connection: close\r\n\r\n"
    );
    let (url, _) = scripted(reply.into_bytes(), Duration::ZERO);
    let out = ag_ui(&["load", &url, "--runs", "2", "--json"], b"");
    assert_eq!(out.status.code(), Some(1));
    let report = json_of(&out);
    let reason = report["reasons"][0].as_str().unwrap();
    assert!(
        reason.contains("redirect") && reason.contains(&target),
        "{reason}"
    );
    assert_eq!(
        other.accept().map_err(|e| e.kind()).err(),
        Some(std::io::ErrorKind::WouldBlock),
        "the other host was never contacted"
    );

    // --pid reads a process of this machine: any other host is refused before a run.
    let out = ag_ui(
        &["load", "http://example.com/", "--runs", "1", "--pid", "1"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("127.0.0.1, localhost or ::1"), "{stderr}");
}

#[test]
fn more_runs_than_open_files_are_refused_up_front() {
    let out = std::process::Command::new("sh")
        .args([
            "-c",
            "ulimit -n 64 && exec \"$0\" load http://127.0.0.1:9/ --runs 100",
            env!("CARGO_BIN_EXE_ag-ui"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ulimit -n 132"), "{stderr}");
    for bad in [
        vec!["load", "http://127.0.0.1:9/", "--runs", "0"],
        vec!["load", "http://127.0.0.1:9/", "--runs", "1", "--ramp", "-1"],
        vec![
            "load",
            "http://127.0.0.1:9/",
            "--runs",
            "1",
            "--timeout",
            "0",
        ],
        vec!["load", "ftp://127.0.0.1:9/", "--runs", "1"],
    ] {
        assert_eq!(ag_ui(&bad, b"").status.code(), Some(2), "{bad:?}");
    }
}
