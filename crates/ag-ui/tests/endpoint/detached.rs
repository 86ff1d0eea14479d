//! Abandoned runs of a resumable endpoint: many clients leaving at once must not take every
//! slot of the log, nor its memory, from the clients that come next.

use std::time::{Duration, Instant};

use ag_ui::axum::{AgentEndpoint, EventStream, ResumeConfig, RouterExt};
use ag_ui::server::log::{MemoryLog, MemoryLogConfig};
use ag_ui::{Event, RunAgentInput, TextMessageRole};
use axum::Router;
use futures::StreamExt;
use serde_json::Value;

use crate::support::http::{frames, input_json, json_error, post_json, spawn};

/// A run that never ends: a text delta every 5 ms.
fn endless(input: RunAgentInput) -> EventStream {
    let id = format!("{}-a", input.run_id);
    let start = [
        Event::run_started(input.thread_id, input.run_id),
        Event::text_message_start(id.as_str(), TextMessageRole::Assistant),
    ];
    let ticks = futures::stream::unfold(0u64, move |i| {
        let id = id.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            Some((
                Event::text_message_content(id.as_str(), format!("w{i} ")),
                i + 1,
            ))
        }
    });
    Box::pin(futures::stream::iter(start).chain(ticks))
}

fn small_log(runs: usize) -> MemoryLog {
    MemoryLog::new(
        MemoryLogConfig::default()
            .with_max_runs(runs)
            .with_max_run_bytes(4 * 1024)
            .with_max_total_bytes(32 * 1024),
    )
}

/// `POST`s run `run`, reads its first bytes and leaves.
async fn abandon(addr: std::net::SocketAddr, run: &str) {
    abandon_with(addr, run, input_json(run)).await;
}

/// [`abandon`] with `body` as the run's input.
async fn abandon_with(addr: std::net::SocketAddr, run: &str, body: String) {
    let mut response = post_json(addr, "/agent", body).await;
    assert_eq!(response.status(), 200, "{run}");
    let first = response.chunk().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("RUN_STARTED"));
}

/// A fresh client is served within a second: its stream starts with `RUN_STARTED`.
async fn served_promptly(addr: std::net::SocketAddr, run: &str) {
    let started = Instant::now();
    let mut response = post_json(addr, "/agent", input_json(run)).await;
    assert_eq!(response.status(), 200, "{run}");
    let first = response.chunk().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("RUN_STARTED"));
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
}

fn assert_within_cap(log: &MemoryLog) {
    let stats = log.stats();
    let cap = log.config().max_total_bytes;
    assert!(
        stats.bytes + stats.spare_bytes <= cap,
        "{stats:?} against {cap}"
    );
    assert!(stats.runs <= log.config().max_runs, "{stats:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_leaving_past_the_bound_evict_the_oldest_detached_runs() {
    // Room enough per run that no run drops its first events while the test reads it: what
    // is forgotten here is forgotten for the count of runs, not for bytes.
    let log = MemoryLog::new(
        MemoryLogConfig::default()
            .with_max_runs(16)
            .with_max_run_bytes(256 * 1024)
            .with_max_total_bytes(4 * 1024 * 1024),
    );
    let config = ResumeConfig::default().with_max_detached(4);
    let app = Router::new().agent(
        "/agent",
        AgentEndpoint::new(endless)
            .with_resumable(log.clone())
            .with_resume_config(config),
    );
    let addr = spawn(app).await;
    for i in 0..24 {
        abandon(addr, &format!("r{i}")).await;
    }
    // The server notices each client leaving at its next write (5 ms).
    tokio::time::sleep(Duration::from_millis(300)).await;
    served_promptly(addr, "fresh").await;
    assert_within_cap(&log);

    // Which abandoned runs the log still holds depends on when the server noticed each client
    // leaving, so every run is classified: still running (at most the bound), evicted with the
    // RUN_ERROR a reconnecting client reads, or forgotten since to make room (410).
    let fates = futures::future::join_all((0..24).map(|i| fate(addr, format!("r{i}")))).await;
    let count = |wanted: Fate| fates.iter().filter(|fate| **fate == wanted).count();
    assert!(count(Fate::Running) <= 4, "{fates:?}");
    assert!(count(Fate::Evicted) >= 1, "{fates:?}");
    assert!(count(Fate::Gone) >= 1, "{fates:?}");
    assert_eq!(
        fates[0],
        Fate::Gone,
        "the oldest run is forgotten: {fates:?}"
    );
}

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Fate {
    Running,
    Evicted,
    Gone,
}

/// What a client reconnecting to `run` finds, read for at most 300 ms.
async fn fate(addr: std::net::SocketAddr, run: String) -> Fate {
    let response = reqwest::get(format!("http://{addr}/agent?runId={run}"))
        .await
        .unwrap();
    if response.status() == 410 {
        json_error(response, 410, "expired").await;
        return Fate::Gone;
    }
    assert_eq!(response.status(), 200, "{run}");
    let mut body = response.bytes_stream();
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_millis(300);
    while let Ok(Some(chunk)) = tokio::time::timeout_at(deadline, body.next()).await {
        text.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
    }
    let Some((_, last)) = frames(&text).pop() else {
        return Fate::Running;
    };
    let last: Value = serde_json::from_str(&last).unwrap();
    if last["type"] == "RUN_ERROR" {
        assert_eq!(last["code"], "evicted", "{run}: {text}");
        Fate::Evicted
    } else {
        Fate::Running
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_full_of_detached_runs_makes_room_for_a_fresh_client() {
    let log = small_log(8);
    let app = Router::new().agent(
        "/agent",
        AgentEndpoint::new(endless).with_resumable(log.clone()),
    );
    let addr = spawn(app).await;
    for i in 0..8 {
        abandon(addr, &format!("r{i}")).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Every slot is held by a detached run (all still running): the oldest makes room.
    for i in 0..3 {
        served_promptly(addr, &format!("fresh{i}")).await;
    }
    assert_within_cap(&log);
    let gone = reqwest::get(format!("http://{addr}/agent?runId=r0"))
        .await
        .unwrap();
    json_error(gone, 410, "expired").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_full_of_live_clients_refuses_at_once_with_retry_after() {
    let app = Router::new().agent(
        "/agent",
        AgentEndpoint::new(endless).with_resumable(small_log(2)),
    );
    let addr = spawn(app).await;
    let mut held = Vec::new();
    for run in ["a", "b"] {
        let mut response = post_json(addr, "/agent", input_json(run)).await;
        response.chunk().await.unwrap().unwrap();
        held.push(response);
    }
    let started = Instant::now();
    let refused = post_json(addr, "/agent", input_json("c")).await;
    assert_eq!(refused.headers()["retry-after"], "1");
    json_error(refused, 503, "log-full").await;
    assert!(started.elapsed() < Duration::from_secs(1));
    drop(held);
}

/// 200 one-letter deltas, 1 ms apart, between a start and an end.
fn trickle(input: RunAgentInput) -> EventStream {
    let (t, r) = (input.thread_id, input.run_id);
    let id = format!("{r}-a");
    let mut events = vec![
        Event::run_started(t.clone(), r.clone()),
        Event::text_message_start(id.as_str(), TextMessageRole::Assistant),
    ];
    events.extend((0..200).map(|_| Event::text_message_content(id.as_str(), "x")));
    events.push(Event::text_message_end(id.as_str()));
    events.push(Event::run_finished(t, r));
    Box::pin(futures::stream::iter(events).then(|event| async move {
        tokio::time::sleep(Duration::from_millis(1)).await;
        event
    }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_detached_run_goes_through_the_same_chain_as_a_live_one() {
    let app = Router::new().agent(
        "/agent",
        AgentEndpoint::new(trickle)
            .with_coalescing(1 << 20, Duration::from_millis(50))
            .with_timestamps(true)
            .with_resumable(MemoryLog::default()),
    );
    let addr = spawn(app).await;
    let mut response = post_json(addr, "/agent", input_json("r1")).await;
    response.chunk().await.unwrap().unwrap();
    drop(response);
    // The reconnect follows the run to its end.
    let text = crate::support::http::get_text(addr, "/agent?runId=r1").await;
    let events: Vec<Value> = frames(&text)
        .iter()
        .map(|(_, data)| serde_json::from_str(data).unwrap())
        .collect();
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED", "{text}");
    // Stamped as a live client's events are, each one.
    for event in &events {
        assert!(event["timestamp"].as_u64().is_some(), "{event}");
    }
    // Coalesced as they are: 200 deltas over some 200 ms, joined per 50 ms window.
    let deltas: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas.concat(), "x".repeat(200));
    assert!(deltas.len() <= 20, "{} deltas", deltas.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_room_for_detached_runs_a_run_ends_when_its_client_leaves() {
    let config = ResumeConfig::default().with_max_detached(0);
    let app = Router::new().agent(
        "/agent",
        AgentEndpoint::new(endless)
            .with_resume_config(config)
            .with_resumable(MemoryLog::default()),
    );
    let addr = spawn(app).await;
    abandon(addr, "r1").await;
    // The reconnect reads the run to its end: the RUN_ERROR that cancelled it.
    let text = tokio::time::timeout(
        Duration::from_secs(2),
        crate::support::http::get_text(addr, "/agent?runId=r1"),
    )
    .await
    .expect("the run ended");
    let last: Value = serde_json::from_str(&frames(&text).last().unwrap().1).unwrap();
    assert_eq!(last["type"], "RUN_ERROR", "{text}");
    assert_eq!(last["code"], "evicted");
}

/// A run input whose state is `[0,0,…]` of about `bytes` bytes of JSON: the shape that holds
/// the most once parsed (an 80-byte value for every two bytes).
fn state_input(run: &str, bytes: usize) -> String {
    let state = vec!["0"; bytes / 2].join(",");
    format!(
        r#"{{"threadId":"t","runId":"{run}","protocolVersion":"1.0","messages":[],"state":[{state}]}}"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abandoned_runs_hold_at_most_max_detached_bytes_besides_their_log() {
    const MAX: usize = 1 << 20;
    const STATE: usize = 4 * 1024;
    let endpoint = AgentEndpoint::new(endless)
        .with_resume_config(ResumeConfig::default().with_max_detached_bytes(MAX))
        .with_resumable(MemoryLog::default());
    // A clone shares the endpoint's detached runs.
    let counted = endpoint.clone();
    let addr = spawn(Router::new().agent("/agent", endpoint)).await;
    for i in 0..12 {
        let run = format!("r{i}");
        abandon_with(addr, &run, state_input(&run, STATE)).await;
    }
    // The server notices each client leaving at its next write (5 ms).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let held = counted.detached_stats();
    // Each counted for what its parsed input holds (tens of times its JSON), within the bound.
    assert!(held.bytes <= MAX, "{held:?}");
    assert!(held.runs >= 1 && held.runs < 12, "{held:?}");
    assert!(held.bytes >= held.runs * STATE * 40, "{held:?}");
    // The oldest were evicted to stay within it.
    assert_eq!(fate(addr, "r0".into()).await, Fate::Evicted);
    assert_eq!(fate(addr, "r11".into()).await, Fate::Running);

    // A run that alone would hold more is cancelled as its client leaves.
    abandon_with(addr, "big", state_input("big", 8 * STATE)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(fate(addr, "big".into()).await, Fate::Evicted);
    assert!(counted.detached_stats().bytes <= MAX);
    // A client that stays is served.
    served_promptly(addr, "fresh").await;
}
