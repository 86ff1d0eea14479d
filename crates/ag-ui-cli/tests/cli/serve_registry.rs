//! `ag-ui serve` as a host of several agents: the registry's listing, capabilities, health and
//! `404`, the root path kept for existing clients, CORS for pages on this machine only (unless
//! widened), and `--replay FILE` serving a recording with the request's ids.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use ag_ui::Event;
use ag_ui::encoding::sse::EventDecoder;
use serde_json::{Value, json};

use crate::serve_process as serve;

fn recording(name: &str, text: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A recorded run, as SSE (any format the CLI reads will do), with its own ids.
const RECORDED: &str = concat!(
    "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"rec-thread\",\"runId\":\"rec-run\"}\n\n",
    "data: {\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m1\",\"role\":\"assistant\",\"delta\":\"recorded answer\"}\n\n",
    "data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"rec-thread\",\"runId\":\"rec-run\"}\n\n",
);

async fn get(url: &str) -> (u16, Value) {
    let response = reqwest::get(url).await.unwrap();
    let status = response.status().as_u16();
    (
        status,
        serde_json::from_str(&response.text().await.unwrap()).unwrap(),
    )
}

async fn run(url: &str, thread: &str, run: &str) -> Vec<Event> {
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .body(
            json!({"threadId": thread, "runId": run, "protocolVersion": "1.0", "messages": []})
                .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200, "{url}");
    let bytes = response.bytes().await.unwrap();
    let mut decoder = EventDecoder::new();
    decoder.push(&bytes);
    decoder.finish();
    let mut events = Vec::new();
    while let Some(event) = decoder.next_event() {
        events.push(event.unwrap());
    }
    events
}

fn ids(events: &[Event]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::RunStarted(e) => Some((e.thread_id.to_string(), e.run_id.to_string())),
            Event::RunFinished(e) => Some((e.thread_id.to_string(), e.run_id.to_string())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn serve_lists_the_demo_and_the_replay_and_serves_each() {
    let file = recording("serve-replay.sse", RECORDED);
    let server = serve(&["--replay", file.to_str().unwrap(), "--pace-ms", "0"]);
    let base = &server.base;
    assert!(server.banner[1].contains("/agents"), "{:?}", server.banner);

    let (status, listing) = get(&format!("{base}/agents")).await;
    assert_eq!(status, 200);
    let listed: Vec<&str> = listing["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["demo", "replay"]);
    assert!(
        listing["agents"][1]["description"]
            .as_str()
            .unwrap()
            .contains("3 events"),
        "{listing}"
    );
    let (status, caps) = get(&format!("{base}/agents/demo/capabilities")).await;
    assert_eq!(status, 200);
    assert_eq!(caps["transport"]["streaming"], true);
    assert_eq!(caps["humanInTheLoop"]["interrupts"], true);
    assert_eq!(caps["transport"].get("resumable"), None, "{caps}");
    let (status, health) = get(&format!("{base}/health")).await;
    assert_eq!(
        (status, health),
        (200, json!({"status": "ok", "agents": 2}))
    );
    let (status, missing) = get(&format!("{base}/agents/nope/capabilities")).await;
    assert_eq!(status, 404);
    assert_eq!(missing["error"]["kind"], "unknown-agent");

    // The recording, at its own path and at the root, with each request's ids.
    for (url, thread, run_id) in [
        (format!("{base}/agents/replay"), "t1", "r1"),
        (format!("{base}/"), "t2", "r2"),
    ] {
        let events = run(&url, thread, run_id).await;
        assert_eq!(
            ids(&events),
            [
                (thread.to_owned(), run_id.to_owned()),
                (thread.to_owned(), run_id.to_owned())
            ]
        );
        assert!(
            events
                .iter()
                .any(|e| format!("{e:?}").contains("recorded answer")),
            "{events:?}"
        );
    }
    // The demo agent still runs, at its own path.
    let events = run(&format!("{base}/agents/demo"), "t3", "r3").await;
    assert_eq!(
        ids(&events).last().unwrap(),
        &("t3".to_owned(), "r3".to_owned())
    );

    // The client pipeline accepts the replay as a run it asked for.
    let output = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args(["run", &format!("{base}/agents/replay"), "hello", "--json"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("recorded answer"));
}

#[tokio::test]
async fn without_a_replay_the_demo_agent_keeps_the_root_path() {
    let server = serve(&["--pace-ms", "0"]);
    assert!(
        server.banner[0].starts_with("ag-ui demo agent: "),
        "{:?}",
        server.banner
    );
    let events = run(&format!("{}/", server.base), "t", "r").await;
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::SubagentStarted(_)))
    );
    let (_, listing) = get(&format!("{}/agents", server.base)).await;
    assert_eq!(listing["agents"].as_array().unwrap().len(), 1);
}

async fn preflight(url: &str, origin: &str) -> Option<String> {
    let response = reqwest::Client::new()
        .request(reqwest::Method::OPTIONS, url)
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type")
        .send()
        .await
        .unwrap();
    response
        .headers()
        .get("access-control-allow-origin")
        .map(|v| v.to_str().unwrap().to_owned())
}

#[tokio::test]
async fn cors_lets_pages_on_this_machine_in_and_others_only_when_named() {
    let server = serve(&["--pace-ms", "0", "--cors-origin", "https://app.example"]);
    let url = format!("{}/agents/demo", server.base);
    assert_eq!(
        preflight(&url, "http://localhost:5173").await.as_deref(),
        Some("http://localhost:5173")
    );
    assert_eq!(
        preflight(&url, "https://app.example").await.as_deref(),
        Some("https://app.example")
    );
    assert_eq!(preflight(&url, "https://evil.example").await, None);
    assert_eq!(preflight(&url, "http://localhost.evil.example").await, None);

    let open = serve(&["--pace-ms", "0", "--cors-origin", "*"]);
    assert_eq!(
        preflight(&format!("{}/", open.base), "https://evil.example")
            .await
            .as_deref(),
        Some("*")
    );
}

#[tokio::test]
async fn a_paced_replay_waits_between_events() {
    let file = recording("serve-paced.sse", RECORDED);
    let server = serve(&["--replay", file.to_str().unwrap(), "--pace-ms", "150"]);
    let started = Instant::now();
    let events = run(&format!("{}/agents/replay", server.base), "t", "r").await;
    // The three recorded events, sent as recorded (the server does not expand the chunk), with
    // a pause between each two.
    assert_eq!(events.len(), 3);
    assert!(started.elapsed() >= Duration::from_millis(300));
}

#[test]
fn a_recording_that_cannot_be_read_is_refused_naming_where() {
    let bad = recording("serve-bad.jsonl", "{\"type\":\"RUN_STARTED\"}\n");
    let output = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args(["serve", "--addr", "127.0.0.1:0", "--replay"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("line 1") && stderr.contains("threadId"),
        "{stderr}"
    );
    let missing = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--replay",
            "/nonexistent/recording.jsonl",
        ])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    let empty = recording("serve-empty.jsonl", "");
    let output = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args(["serve", "--addr", "127.0.0.1:0", "--replay"])
        .arg(&empty)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("empty"));
    // Nothing known to replay: refused, not served as an agent that sends nothing.
    let unknown = recording("serve-unknown.jsonl", "{\"type\":\"SOMETHING_NEW\"}\n");
    let output = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args(["serve", "--addr", "127.0.0.1:0", "--replay"])
        .arg(&unknown)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no known AG-UI event"));
}

#[tokio::test]
async fn a_resumable_server_declares_it_in_every_agents_capabilities() {
    let file = recording("serve-replay-resumable.sse", RECORDED);
    let server = serve(&[
        "--resumable",
        "--replay",
        file.to_str().unwrap(),
        "--pace-ms",
        "0",
    ]);
    for agent in ["demo", "replay"] {
        let (status, caps) = get(&format!("{}/agents/{agent}/capabilities", server.base)).await;
        assert_eq!(status, 200);
        assert_eq!(caps["transport"]["resumable"], true, "{agent}: {caps}");
        assert_eq!(caps["transport"]["streaming"], true, "{agent}: {caps}");
    }
}
