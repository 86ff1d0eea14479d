//! Resumable runs end to end, over real sockets on 127.0.0.1: the endpoint's ids, its reconnect
//! route and JSON errors, detached runs, `HttpAgent` reconnecting through a proxy that cuts
//! connections, attaching to a run in flight, and the Redis log (a real `redis-server`:
//! `AG_UI_TEST_REDIS=redis://…`, else one spawned here; a test needing Redis fails when
//! neither works).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ag_ui::axum::{AgentEndpoint, AgentInfo, AgentRegistry, EventStream, ResumeConfig, RouterExt};
use ag_ui::client::ReconnectPolicy;
use ag_ui::client::{
    CancelToken, Conversation, HttpAgent, PipelineErrorKind, RunEnd, RunErrorKind, Transport,
    TransportErrorKind,
};
use ag_ui::server::log::{EventLog, LogErrorKind, MemoryLog, MemoryLogConfig};
use ag_ui::server::log::{RedisLog, RedisLogConfig};
use ag_ui::{Event, RunAgentInput, TextMessageRole};
use axum::Router;
use futures::StreamExt;
use serde_json::Value;

#[path = "support/http.rs"]
#[allow(dead_code, unreachable_pub)]
mod http;
use http::{frames, input_json, json_error, post_json, spawn};
#[path = "support/proxy.rs"]
#[allow(dead_code, unreachable_pub)]
mod proxy;
use proxy::{cuts_from, cutting_proxy};
#[path = "support/redis_server.rs"]
mod redis_server;
use redis_server::RedisServer;

/// A run of `words` text deltas, `pace` apart, with a state snapshot at the end.
fn paced(words: usize, pace: Duration) -> impl Fn(RunAgentInput) -> EventStream + Send + Sync {
    move |input: RunAgentInput| {
        let (t, r) = (input.thread_id, input.run_id);
        let id = format!("{r}-a");
        let mut events = vec![
            Event::run_started(t.clone(), r.clone()),
            Event::text_message_start(id.as_str(), TextMessageRole::Assistant),
        ];
        for i in 0..words {
            events.push(Event::text_message_content(id.as_str(), format!("w{i} ")));
        }
        events.push(Event::text_message_end(id.as_str()));
        events.push(Event::state_snapshot(serde_json::json!({ "words": words })));
        events.push(Event::run_finished(t, r));
        Box::pin(futures::stream::iter(events).then(move |event| async move {
            if !pace.is_zero() {
                tokio::time::sleep(pace).await;
            }
            event
        }))
    }
}

fn endpoint(
    words: usize,
    pace: Duration,
    log: impl EventLog,
) -> AgentEndpoint<impl ag_ui::axum::RunHandler> {
    AgentEndpoint::new(paced(words, pace))
        .with_resumable(log)
        .with_resume_config(ResumeConfig::default().with_retry(Duration::from_millis(10)))
}

async fn post(addr: SocketAddr, run: &str) -> reqwest::Response {
    post_body(addr, input_json(run)).await
}

/// `POST`s a run input as it is given.
async fn post_body(addr: SocketAddr, body: impl Into<reqwest::Body>) -> reqwest::Response {
    post_json(addr, "/agent", body).await
}

async fn get(addr: SocketAddr, query: &str, last_event_id: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new().get(format!("http://{addr}/agent{query}"));
    if let Some(id) = last_event_id {
        request = request.header("last-event-id", id);
    }
    request.send().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_carry_the_cursor_and_a_reconnect_replays_after_it() {
    let addr =
        spawn(Router::new().agent("/agent", endpoint(5, Duration::ZERO, MemoryLog::default())))
            .await;
    let text = post(addr, "r1").await.text().await.unwrap();
    assert!(text.starts_with("retry: 10\n"), "{text}");
    let all = frames(&text);
    assert_eq!(all.len(), 10);
    for (i, (id, _)) in all.iter().enumerate() {
        assert_eq!(id, &format!("r1:{}", i + 1));
    }
    // The standard header: everything after event 3.
    let after = get(addr, "", Some("r1:3")).await;
    assert_eq!(after.status(), 200);
    assert_eq!(frames(&after.text().await.unwrap()), all[3..]);
    // The explicit cursor parameter, and joining from the start.
    let after = get(addr, "?cursor=r1%3A8", None)
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(frames(&after), all[8..]);
    let start = get(addr, "?runId=r1", None).await.text().await.unwrap();
    assert_eq!(frames(&start), all);
    // At the end: nothing more, the stream ends.
    let end = get(addr, "", Some("r1:10")).await.text().await.unwrap();
    assert!(frames(&end).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_run_id_is_quoted_as_an_excerpt() {
    let addr =
        spawn(Router::new().agent("/agent", endpoint(1, Duration::ZERO, MemoryLog::default())))
            .await;
    let response = get(addr, &format!("?runId={}", "r".repeat(60_000)), None).await;
    assert!(response.status().is_client_error(), "{}", response.status());
    let body = response.text().await.unwrap();
    assert!(body.len() < 1200, "{} bytes", body.len());
    assert!(body.contains("bytes)"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_foreign_future_and_unknown_cursors_are_json_errors() {
    let addr =
        spawn(Router::new().agent("/agent", endpoint(2, Duration::ZERO, MemoryLog::default())))
            .await;
    post(addr, "r1").await.text().await.unwrap();
    post(addr, "r2").await.text().await.unwrap();
    json_error(
        get(addr, "", Some("garbage")).await,
        400,
        "malformed-cursor",
    )
    .await;
    json_error(get(addr, "", Some("r1:-3")).await, 400, "malformed-cursor").await;
    json_error(
        get(addr, "?cursor=r1:1x", None).await,
        400,
        "malformed-cursor",
    )
    .await;
    json_error(get(addr, "", None).await, 400, "malformed-cursor").await;
    json_error(
        get(addr, "?runId=r2", Some("r1:1")).await,
        400,
        "foreign-cursor",
    )
    .await;
    json_error(get(addr, "", Some("r1:99")).await, 400, "future-cursor").await;
    json_error(get(addr, "", Some("nope:1")).await, 404, "unknown-run").await;
    // The same run id twice is refused, not mixed into one log.
    json_error(post(addr, "r1").await, 409, "conflict").await;
    // A run id that cannot travel in an `id:` field.
    let bad = post_body(addr, r#"{"threadId":"t","runId":"a\nb","messages":[]}"#).await;
    json_error(bad, 400, "invalid-input").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_past_retention_is_a_json_410() {
    // A log of its own with a short retention, so that the checks above never race it.
    let log = MemoryLog::new(MemoryLogConfig::default().with_retention(Duration::from_millis(200)));
    let addr = spawn(Router::new().agent("/agent", endpoint(2, Duration::ZERO, log))).await;
    post(addr, "r1").await.text().await.unwrap();
    post(addr, "r2").await.text().await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    json_error(get(addr, "", Some("r1:1")).await, 410, "expired").await;
    json_error(get(addr, "?runId=r2", None).await, 410, "expired").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_goes_on_detached_when_its_client_leaves() {
    let addr = spawn(Router::new().agent(
        "/agent",
        endpoint(20, Duration::from_millis(10), MemoryLog::default()),
    ))
    .await;
    let mut response = post(addr, "r1").await;
    let first = response.chunk().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("id: r1:1"));
    drop(response);
    // Nobody listens for a while; the run goes on into the log.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rest = get(addr, "", Some("r1:1")).await.text().await.unwrap();
    let rest = frames(&rest);
    assert_eq!(rest.len(), 25 - 1);
    assert!(rest.last().unwrap().1.contains("RUN_FINISHED"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_detached_run_is_cancelled_after_the_detach_timeout() {
    let endless = |input: RunAgentInput| -> EventStream {
        let start = Event::run_started(input.thread_id, input.run_id);
        Box::pin(futures::stream::iter([start]).chain(futures::stream::pending()))
    };
    let app = Router::new().agent(
        "/agent",
        AgentEndpoint::new(endless)
            .with_resumable(MemoryLog::default())
            .with_resume_config(
                ResumeConfig::default().with_detach_timeout(Duration::from_millis(100)),
            ),
    );
    let addr = spawn(app).await;
    let mut response = post(addr, "r1").await;
    response.chunk().await.unwrap().unwrap();
    drop(response);
    let text = get(addr, "?runId=r1", None).await.text().await.unwrap();
    let all = frames(&text);
    assert_eq!(all.len(), 2, "{text}");
    let error: Value = serde_json::from_str(&all[1].1).unwrap();
    assert_eq!(error["type"], "RUN_ERROR");
    assert_eq!(error["code"], "detach-timeout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_registry_advertises_transport_resumable() {
    let mut registry = AgentRegistry::new();
    registry
        .register(
            AgentInfo::new("plain"),
            AgentEndpoint::new(paced(1, Duration::ZERO)),
        )
        .unwrap()
        .register(
            AgentInfo::new("resumable"),
            endpoint(1, Duration::ZERO, MemoryLog::default()),
        )
        .unwrap();
    let addr = spawn(registry.into_router()).await;
    let caps = |id: &'static str| async move {
        reqwest::get(format!("http://{addr}/agents/{id}/capabilities"))
            .await
            .unwrap()
            .text()
            .await
            .map(|t| serde_json::from_str::<Value>(&t).unwrap())
            .unwrap()
    };
    assert_eq!(caps("resumable").await["transport"]["resumable"], true);
    assert_eq!(caps("plain").await.get("transport"), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_reconnects_through_cuts_and_sees_each_event_once() {
    let upstream = spawn(Router::new().agent(
        "/agent",
        endpoint(40, Duration::from_millis(2), MemoryLog::default()),
    ))
    .await;
    // An uninterrupted run first, for reference.
    let direct = HttpAgent::new(format!("http://{upstream}/agent"));
    let mut reference = Conversation::new("t");
    reference.add_user_message("hi");
    let uninterrupted = reference.run(&direct, &mut ()).await.unwrap();

    // Cuts inside the headers, mid-frame, and at a later offset; then clean connections.
    let proxy = cutting_proxy(
        vec![upstream],
        cuts_from(vec![Some(40), Some(400), Some(1500), Some(3)]),
    )
    .await;
    let reconnects = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&reconnects);
    let agent = HttpAgent::new(format!("http://{proxy}/agent"))
        .with_on_reconnect(move |r| seen.lock().unwrap().push((r.after, r.attempt)));
    let mut conversation = Conversation::new("t");
    conversation.add_user_message("hi");
    let summary = conversation.run(&agent, &mut ()).await.unwrap();
    assert_eq!(summary.end, RunEnd::Finished);
    assert_eq!(summary.events, uninterrupted.events);
    let strip = |c: &Conversation| {
        let mut v = serde_json::to_value(c.messages()).unwrap();
        // Run ids differ between the two runs; the text and shape must not.
        for m in v.as_array_mut().unwrap() {
            m.as_object_mut().unwrap().remove("id");
        }
        (v, c.state().clone())
    };
    assert_eq!(strip(&conversation), strip(&reference));
    assert!(
        reconnects.lock().unwrap().len() >= 3,
        "{:?}",
        reconnects.lock().unwrap()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aborted_run_never_reconnects() {
    let upstream = spawn(Router::new().agent(
        "/agent",
        endpoint(200, Duration::from_millis(10), MemoryLog::default()),
    ))
    .await;
    let reconnects = Arc::new(Mutex::new(0));
    let seen = Arc::clone(&reconnects);
    let agent = HttpAgent::new(format!("http://{upstream}/agent"))
        .with_on_reconnect(move |_| *seen.lock().unwrap() += 1);
    let cancel = CancelToken::new();
    let stopper = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        stopper.cancel();
    });
    let mut conversation = Conversation::new("t");
    let summary = conversation
        .run_with(&agent, None, &cancel, &mut ())
        .await
        .unwrap();
    assert_eq!(summary.end, RunEnd::Cancelled);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(*reconnects.lock().unwrap(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_client_attaches_from_the_start_or_a_cursor() {
    let upstream = spawn(Router::new().agent(
        "/agent",
        endpoint(30, Duration::from_millis(5), MemoryLog::default()),
    ))
    .await;
    let agent = HttpAgent::new(format!("http://{upstream}/agent"));
    let first = tokio::spawn({
        let agent = agent.clone();
        async move {
            let mut body = agent
                .open(&RunAgentInput::new("t", "shared"))
                .await
                .unwrap();
            use ag_ui::client::Body;
            let mut pieces = 0;
            while body.next().await.unwrap().is_some() {
                pieces += 1;
            }
            pieces
        }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    // A reload: a conversation joins the run in flight from its start.
    let mut second = Conversation::new("t");
    let summary = second
        .run(&agent.attach("shared", 0), &mut ())
        .await
        .unwrap();
    assert_eq!(summary.end, RunEnd::Finished);
    assert_eq!(summary.new_messages.len(), 1);
    assert_eq!(second.state()["words"], 30);
    let text = second.messages()[0].text().unwrap().to_owned();
    assert!(
        text.starts_with("w0 w1 ") && text.ends_with("w29 "),
        "{text}"
    );
    first.await.unwrap();
    // From a cursor: only the rest.
    let mut third = Conversation::new("t");
    let err = third.run(&agent.attach("shared", 34), &mut ()).await;
    // The events after 34 are a state snapshot and RUN_FINISHED, without RUN_STARTED: the
    // verifier names what is wrong rather than reading a partial run as a whole one.
    assert!(err.is_err());
    // A run past retention or unknown is a clear HTTP error, not a retry loop.
    let mut lost = Conversation::new("t");
    let err = lost
        .run(&agent.attach("nope", 0), &mut ())
        .await
        .unwrap_err();
    assert_eq!(
        err.kind(),
        RunErrorKind::Transport(TransportErrorKind::Http)
    );
    assert!(err.to_string().contains("404"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_budget_runs_out_against_a_server_that_went_away() {
    let upstream = spawn(Router::new().agent(
        "/agent",
        endpoint(1000, Duration::from_millis(5), MemoryLog::default()),
    ))
    .await;
    // The first connection is cut mid-run; every later one is closed at once.
    let cuts = std::iter::once(Some(600))
        .chain(std::iter::repeat_n(Some(0), 50))
        .collect();
    let dead = cutting_proxy(vec![upstream], cuts_from(cuts)).await;
    let count = Arc::new(Mutex::new(0));
    let seen = Arc::clone(&count);
    let agent = HttpAgent::new(format!("http://{dead}/agent"))
        .with_reconnect(
            ReconnectPolicy::default()
                .with_attempts(3)
                .with_max_delay(Duration::from_millis(50)),
        )
        .with_on_reconnect(move |_| *seen.lock().unwrap() += 1);
    let err = Conversation::new("t")
        .run(&agent, &mut ())
        .await
        .unwrap_err();
    assert!(
        matches!(
            err.kind(),
            RunErrorKind::Transport(TransportErrorKind::Connection)
                | RunErrorKind::Pipeline(PipelineErrorKind::Incomplete)
        ),
        "{err}"
    );
    assert_eq!(*count.lock().unwrap(), 3);
}

// ---- Redis ----

fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("test-{prefix}-{nanos}:")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redis_log_replays_tails_and_expires() {
    let redis = RedisServer::shared_or_own("AG_UI_TEST_REDIS");
    let config = RedisLogConfig::default()
        .with_prefix(unique("log"))
        .with_retention(Duration::from_secs(1))
        .with_block(Duration::from_millis(200));
    let log = RedisLog::connect_with(&redis.url, config).await.unwrap();
    let mut writer = log.open("r").await.unwrap();
    assert_eq!(
        log.open("r").await.unwrap_err().kind(),
        LogErrorKind::Conflict
    );
    writer.append(b"{\"n\":1}");
    writer.append(b"{\"n\":2}");
    // A reader that follows live.
    let mut tail = {
        let mut waited = 0;
        loop {
            match log.read("r", 0).await {
                Ok(tail) => break tail,
                Err(e) if waited < 50 => {
                    let _ = e;
                    waited += 1;
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                Err(e) => panic!("{e}"),
            }
        }
    };
    let reader = tokio::spawn(async move {
        let mut seqs = Vec::new();
        while let Some(entry) = tail.next().await {
            let entry = entry.unwrap();
            assert_eq!(entry.data, format!("{{\"n\":{}}}", entry.seq).into_bytes());
            seqs.push(entry.seq);
        }
        seqs
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    writer.append(b"{\"n\":3}");
    writer.finish();
    assert_eq!(reader.await.unwrap(), vec![1, 2, 3]);
    // Replay from a cursor; a future cursor; an unknown run.
    let mut tail = log.read("r", 2).await.unwrap();
    assert_eq!(tail.next().await.unwrap().unwrap().seq, 3);
    assert!(tail.next().await.is_none());
    assert_eq!(
        log.read("r", 4).await.err().unwrap().kind(),
        LogErrorKind::FutureCursor
    );
    assert_eq!(
        log.read("x", 0).await.err().unwrap().kind(),
        LogErrorKind::UnknownRun
    );
    // Past retention: expired.
    tokio::time::sleep(Duration::from_millis(2200)).await;
    assert_eq!(
        log.read("r", 0).await.err().unwrap().kind(),
        LogErrorKind::Expired
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_share_a_redis_log() {
    let redis = RedisServer::shared_or_own("AG_UI_TEST_REDIS");
    let prefix = unique("two");
    let config = RedisLogConfig::default()
        .with_prefix(prefix.as_str())
        .with_block(Duration::from_millis(200));
    let a = RedisLog::connect_with(&redis.url, config.clone())
        .await
        .unwrap();
    let b = RedisLog::connect_with(&redis.url, config).await.unwrap();
    let one = spawn(Router::new().agent("/agent", endpoint(50, Duration::from_millis(5), a))).await;
    let two = spawn(Router::new().agent("/agent", endpoint(50, Duration::from_millis(5), b))).await;
    // The run starts on one; its client leaves after the first bytes.
    let mut response = post(one, "r").await;
    let first = String::from_utf8(response.chunk().await.unwrap().unwrap().to_vec()).unwrap();
    assert!(first.contains("id: r:1"));
    drop(response);
    // The other instance serves the reconnect from the cursor, to the end.
    let rest = get(two, "", Some("r:1")).await;
    assert_eq!(rest.status(), 200);
    let rest = frames(&rest.text().await.unwrap());
    assert_eq!(rest.len(), 55 - 1);
    assert_eq!(rest[0].0, "r:2");
    assert!(rest.last().unwrap().1.contains("RUN_FINISHED"));
    // And its errors are the same.
    json_error(get(two, "", Some("r:999")).await, 400, "future-cursor").await;
    json_error(get(two, "", Some("zz:1")).await, 404, "unknown-run").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_going_away_mid_run_does_not_stop_the_live_stream() {
    let redis = RedisServer::own();
    let port = redis.port;
    let config = RedisLogConfig::default()
        .with_prefix(unique("down"))
        .with_block(Duration::from_millis(200))
        .with_give_up(Duration::from_secs(60));
    let log = RedisLog::connect_with(&redis.url, config).await.unwrap();
    let addr =
        spawn(Router::new().agent("/agent", endpoint(100, Duration::from_millis(10), log))).await;
    let mut response = post(addr, "r").await;
    let mut text = Vec::new();
    text.extend_from_slice(&response.chunk().await.unwrap().unwrap());
    // Redis goes away mid-run.
    drop(redis);
    // While it is away, a reconnect is a clear 503, not a hang or a panic.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let down = get(addr, "", Some("r:1")).await;
    json_error(down, 503, "log-unavailable").await;
    // The live stream goes on to its end.
    let restarted = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        RedisServer::on(port)
    });
    while let Some(chunk) = response.chunk().await.unwrap() {
        text.extend_from_slice(&chunk);
    }
    let all = frames(&String::from_utf8(text).unwrap());
    assert_eq!(all.len(), 105);
    assert!(all.last().unwrap().1.contains("RUN_FINISHED"));
    // Redis is back (empty: it kept nothing): the writer's retries put what was queued
    // after the restart in; a reconnect is served, or names what was lost.
    let _redis = restarted.await.unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let again = get(addr, "", Some("r:1")).await;
    let status = again.status().as_u16();
    assert!(matches!(status, 200 | 404 | 410), "{status}");
    if status == 200 {
        let text = again.text().await.unwrap();
        // Whatever it serves is in order and without repeats; a gap ends the stream.
        let ids: Vec<u64> = frames(&text)
            .iter()
            .map(|(id, _)| id.rsplit(':').next().unwrap().parse().unwrap())
            .collect();
        assert!(ids.windows(2).all(|w| w[1] == w[0] + 1), "{ids:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_concurrent_runs_stay_within_the_memory_bounds() {
    const RUN_CAP: usize = 32 * 1024;
    const TOTAL_CAP: usize = 2 * 1024 * 1024;
    let log = MemoryLog::new(
        MemoryLogConfig::default()
            .with_max_runs(256)
            .with_max_run_bytes(RUN_CAP)
            .with_max_total_bytes(TOTAL_CAP),
    );
    // 505 events of about 100 bytes (with the overhead) per run: three times the run cap;
    // 200 runs: thirty times the total cap.
    let addr =
        spawn(Router::new().agent("/agent", endpoint(500, Duration::ZERO, log.clone()))).await;
    let sampling = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let sampler = {
        let (log, sampling) = (log.clone(), Arc::clone(&sampling));
        tokio::spawn(async move {
            let (mut peak, mut largest) = (0, 0);
            while sampling.load(std::sync::atomic::Ordering::Relaxed) {
                let stats = log.stats();
                // Events and the spare buffers kept for later writes, together.
                peak = peak.max(stats.bytes + stats.spare_bytes);
                largest = largest.max(stats.largest_run_bytes);
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            (peak, largest)
        })
    };
    let runs = (0..200).map(|i| async move {
        let text = post(addr, &format!("run-{i}")).await.text().await.unwrap();
        assert_eq!(frames(&text).len(), 505);
    });
    futures::future::join_all(runs).await;
    sampling.store(false, std::sync::atomic::Ordering::Relaxed);
    let (peak, largest) = sampler.await.unwrap();
    // Each appending run may be one event over a cap between its append and its trim.
    let slack = 200 * 200;
    assert!(peak <= TOTAL_CAP + slack, "peak {peak} bytes");
    assert!(largest <= RUN_CAP + 200, "largest run {largest} bytes");
    let end = log.stats();
    assert!(
        end.bytes + end.spare_bytes <= TOTAL_CAP && end.runs <= 200,
        "{end:?}"
    );
    println!(
        "200 concurrent runs: peak {peak} bytes counted (cap {TOTAL_CAP}), largest run {largest} (cap {RUN_CAP})"
    );
}

/// A pre-1.0 client (no `protocolVersion`) on a resumable endpoint gets the downgraded stream
/// (`THINKING_*` for reasoning), without ids since its frames are not the log's; the log keeps
/// the 1.0 events, which a reader joining from the start gets with their ids.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pre_1_0_client_gets_the_downgrade_and_the_log_keeps_the_1_0_events() {
    let reasoning = |input: RunAgentInput| -> EventStream {
        let (t, r) = (input.thread_id, input.run_id);
        Box::pin(futures::stream::iter([
            Event::run_started(t.clone(), r.clone()),
            Event::reasoning_start("k1"),
            Event::reasoning_message_start("k1m"),
            Event::reasoning_message_content("k1m", "hmm"),
            Event::reasoning_message_end("k1m"),
            Event::reasoning_end("k1"),
            Event::run_finished(t, r),
        ]))
    };
    let addr = spawn(Router::new().agent(
        "/agent",
        AgentEndpoint::new(reasoning).with_resumable(MemoryLog::default()),
    ))
    .await;
    let old = post_body(addr, r#"{"threadId":"t","runId":"old","messages":[]}"#)
        .await
        .text()
        .await
        .unwrap();
    assert!(old.contains("THINKING_"), "{old}");
    assert!(!old.contains("REASONING_"), "{old}");
    assert!(!old.contains("\nid: ") && !old.starts_with("id: "), "{old}");
    let logged = frames(&get(addr, "?runId=old", None).await.text().await.unwrap());
    let ids: Vec<&str> = logged.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "old:1", "old:2", "old:3", "old:4", "old:5", "old:6", "old:7"
        ]
    );
    assert!(logged[1].1.contains("REASONING_START"), "{logged:?}");
}

/// When the client leaves, the endpoint's filter goes on applying to the detached run, and the
/// delta the coalescer held is logged first: a reader of the log sees what the client would
/// have seen, redaction included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_detached_run_keeps_the_filter_and_the_held_delta() {
    use ag_ui::server::transform::Verdict;

    let (release, released) = tokio::sync::oneshot::channel::<()>();
    let released = Arc::new(Mutex::new(Some(released)));
    let agent = move |input: RunAgentInput| -> EventStream {
        let (t, r) = (input.thread_id, input.run_id);
        let released = released.lock().unwrap().take().unwrap();
        let first = futures::stream::iter([
            Event::run_started(t.clone(), r.clone()),
            Event::text_message_start("m", TextMessageRole::Assistant),
            Event::text_message_content("m", "held "),
        ]);
        // The rest comes once the client has gone.
        let rest = futures::stream::once(async move {
            let _ = released.await;
            futures::stream::iter([
                Event::text_message_content("m", "secret"),
                Event::text_message_end("m"),
                Event::run_finished(t, r),
            ])
        })
        .flatten();
        Box::pin(first.chain(rest))
    };
    let endpoint = AgentEndpoint::new(agent)
        .with_resumable(MemoryLog::default())
        .with_coalescing(1 << 16, Duration::from_secs(60))
        .with_filter(|event| match event {
            Event::TextMessageContent(e) if e.delta.contains("secret") => Verdict::Replace(
                Event::text_message_content(e.message_id.clone(), "[redacted]"),
            ),
            _ => Verdict::Keep,
        });
    let addr = spawn(Router::new().agent("/agent", endpoint)).await;
    let mut response = post(addr, "d").await;
    // RUN_STARTED and TEXT_MESSAGE_START come out; the delta waits in the coalescer.
    let mut seen = String::new();
    while !seen.contains("TEXT_MESSAGE_START") {
        seen.push_str(&String::from_utf8_lossy(
            &response.chunk().await.unwrap().unwrap(),
        ));
    }
    assert!(!seen.contains("held"), "{seen}");
    drop(response);
    tokio::time::sleep(Duration::from_millis(100)).await;
    release.send(()).unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let logged = frames(&get(addr, "?runId=d", None).await.text().await.unwrap());
    let text: String = logged
        .iter()
        .filter(|(_, data)| data.contains("TEXT_MESSAGE_CONTENT"))
        .map(|(_, data)| {
            serde_json::from_str::<Value>(data).unwrap()["delta"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(text, "held [redacted]");
    assert!(
        logged.last().unwrap().1.contains("RUN_FINISHED"),
        "{logged:?}"
    );
    assert!(!logged.iter().any(|(_, data)| data.contains("secret")));
}
