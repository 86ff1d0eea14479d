//! Resumable runs of the demo agent under faults:
//!
//! - fault injection: 100 runs through a TCP proxy that cuts connections at random byte
//!   offsets (inside headers and frames included); each conversation ends identical to an
//!   uninterrupted run;
//! - reload: a second client joins a run in flight from its start;
//! - scale-out: two `ag-ui serve --resumable --redis` processes sharing one Redis behind a
//!   round-robin balancer that also cuts connections; a run keeps going while nobody listens;
//! - `ag-ui run` reconnects by itself and says so on stderr, its `--json` output unchanged.
//!
//! Redis: `AG_UI_TEST_REDIS=redis://…` (`.ci/test` starts one), else a `redis-server` spawned
//! here; the test fails when neither works.

use std::net::SocketAddr;
use std::process::Command;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ag_ui::Event;
use ag_ui::axum::{AgentEndpoint, ResumeConfig, RouterExt};
use ag_ui::client::{Conversation, Flow, HttpAgent, Reducer, RunEnd, RunSummary, Subscriber};
use ag_ui::server::log::MemoryLog;
use ag_ui_demo_agent::DemoAgent;

use crate::proxy::{Cuts, cutting_proxy};
use crate::serve_process;
use serde_json::Value;

/// A small deterministic generator (the cut offsets are reproducible from the seed).
struct Rng(AtomicU64);

impl Rng {
    fn below(&self, n: usize) -> usize {
        let mut x = self.0.load(Ordering::Relaxed);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0.store(x, Ordering::Relaxed);
        (x % n.max(1) as u64) as usize
    }
}

async fn serve_demo(resumable: bool) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut endpoint = AgentEndpoint::agent(DemoAgent::new());
    if resumable {
        endpoint = endpoint
            .with_resumable(MemoryLog::default())
            .with_resume_config(ResumeConfig::default().with_retry(Duration::from_millis(5)));
    }
    let app = axum::Router::new().agent("/agent", endpoint);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// The conversation, with this run's id (which the demo's message ids derive from) replaced,
/// and the outcome. The demo's two subagents run concurrently, so the order in which their
/// messages and findings land differs from run to run, interrupted or not: messages are
/// sorted by id and findings by text.
fn normalized(conversation: &Conversation, summary: &RunSummary, run_id: &str) -> Value {
    let mut messages = conversation.messages().to_vec();
    messages.sort_by(|a, b| a.id().as_str().cmp(b.id().as_str()));
    let mut state = conversation.state().clone();
    if let Some(findings) = state.get_mut("findings").and_then(Value::as_array_mut) {
        findings.sort_by_key(|f| f.to_string());
    }
    let text = serde_json::to_string(&serde_json::json!({
        "messages": messages,
        "state": state,
        "outcome": format!("{:?}", summary.outcome),
        "end": format!("{:?}", summary.end),
        "events": summary.events,
    }))
    .unwrap();
    serde_json::from_str(&text.replace(run_id, "RUN")).unwrap()
}

/// One turn of the demo through `url`; the run id is taken from the first message id.
async fn turn(agent: &HttpAgent) -> (Value, u64) {
    let mut conversation = Conversation::new("thread");
    conversation.add_user_message("What is AG-UI?");
    let summary = conversation.run(agent, &mut ()).await.unwrap();
    assert_eq!(summary.end, RunEnd::Finished);
    let first = conversation.messages()[1].id().as_str().to_owned();
    let run_id = first
        .rsplit_once("-msg-")
        .map_or(first.clone(), |(r, _)| r.to_owned());
    (normalized(&conversation, &summary, &run_id), summary.events)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_cut_runs_end_like_an_uninterrupted_one() {
    let upstream = serve_demo(true).await;
    let direct = HttpAgent::new(format!("http://{upstream}/agent"));
    let (reference, _) = turn(&direct).await;
    // How long a whole response is, headers included, to spread the cuts over it.
    let body = reqwest::Client::new()
        .post(format!("http://{upstream}/agent"))
        .header("content-type", "application/json")
        .body(r#"{"threadId":"t","runId":"measure","messages":[]}"#)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let length = body.len() + 200;
    let rng = Arc::new(Rng(AtomicU64::new(0x9E37_79B9_7F4A_7C15)));
    let reconnects = Arc::new(AtomicUsize::new(0));
    let mut runs = Vec::new();
    for _ in 0..100 {
        // Each run gets its own proxy: its first connection is cut at a random offset, each
        // later one with probability 1/2 at another.
        let rng = Arc::clone(&rng);
        let cuts: Cuts =
            Arc::new(move |n| (n == 0 || rng.below(2) == 0).then(|| rng.below(length)));
        let reconnects = Arc::clone(&reconnects);
        runs.push(async move {
            let proxy = cutting_proxy(vec![upstream], cuts).await;
            let agent =
                HttpAgent::new(format!("http://{proxy}/agent")).with_on_reconnect(move |_| {
                    reconnects.fetch_add(1, Ordering::Relaxed);
                });
            turn(&agent).await.0
        });
    }
    // Ten at a time.
    let mut results = Vec::new();
    let mut runs = runs.into_iter();
    loop {
        let batch: Vec<_> = runs.by_ref().take(10).collect();
        if batch.is_empty() {
            break;
        }
        results.extend(futures::future::join_all(batch).await);
    }
    assert_eq!(results.len(), 100);
    for (i, got) in results.iter().enumerate() {
        assert_eq!(
            got, &reference,
            "run {i} differs from the uninterrupted run"
        );
    }
    assert!(
        reconnects.load(Ordering::Relaxed) >= 100,
        "{} reconnects",
        reconnects.load(Ordering::Relaxed)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_joins_the_run_in_flight_from_its_start() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let endpoint = AgentEndpoint::agent(DemoAgent::new().with_pace(Duration::from_millis(5)))
        .with_resumable(MemoryLog::default());
    let app = axum::Router::new().agent("/agent", endpoint);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let agent = HttpAgent::new(format!("http://{addr}/agent"));
    let mut first = Conversation::new("thread");
    first.add_user_message("What is AG-UI?");
    let (started, run_id) = tokio::sync::oneshot::channel();
    let run = {
        let agent = agent.clone();
        tokio::spawn(async move {
            let mut subscriber = RunStarted(Some(started));
            let summary = first.run(&agent, &mut subscriber).await.unwrap();
            (first, summary)
        })
    };
    // The run is in flight (its first event is out, the pace keeps it going a while).
    let run_id = run_id.await.unwrap();
    assert!(!run.is_finished());
    // The page reloads: a new client with the user's message joins the run from its start.
    let mut second = Conversation::new("thread");
    second.add_user_message("What is AG-UI?");
    let joined = second
        .run(&agent.attach(run_id.as_str(), 0), &mut ())
        .await
        .unwrap();
    let (first, summary) = run.await.unwrap();
    assert_eq!(
        normalized(&second, &joined, &run_id)["messages"],
        normalized(&first, &summary, &run_id)["messages"]
    );
    assert_eq!(second.state(), first.state());
    assert_eq!(joined.outcome, summary.outcome);
}

/// Sends the run id of the first `RUN_STARTED`.
struct RunStarted(Option<tokio::sync::oneshot::Sender<String>>);

impl Subscriber for RunStarted {
    fn on_event(&mut self, event: &Event, _: &Reducer) -> Flow {
        if let (Event::RunStarted(started), Some(tx)) = (event, self.0.take()) {
            let _ = tx.send(started.run_id.to_string());
        }
        Flow::Continue
    }
}

// ---- processes and Redis ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_share_one_redis_behind_a_cutting_balancer() {
    let redis = crate::redis_server::RedisServer::shared_or_own("AG_UI_TEST_REDIS");
    let one = serve_process(&["--resumable", "--redis", &redis.url, "--pace-ms", "2"]);
    let two = serve_process(&["--resumable", "--redis", &redis.url, "--pace-ms", "2"]);
    let direct = HttpAgent::new(format!("http://{}/", one.addr()));
    let (reference, _) = turn(&direct).await;

    // Round robin over both; every other connection is cut at a random offset.
    let rng = Arc::new(Rng(AtomicU64::new(42)));
    let cut_rng = Arc::clone(&rng);
    let cuts: Cuts = Arc::new(move |n| (n % 2 == 0).then(|| 300 + cut_rng.below(3000)));
    let balancer = cutting_proxy(vec![one.addr(), two.addr()], cuts).await;
    let reconnects = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&reconnects);
    // No pooled connections: each request is a new connection to the balancer, so the
    // round robin alternates instances request by request.
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let agent = HttpAgent::new(format!("http://{balancer}/"))
        .with_client(client)
        .with_on_reconnect(move |r| seen.lock().unwrap().push(r.to_string()));
    for _ in 0..5 {
        let (got, _) = turn(&agent).await;
        assert_eq!(got, reference);
    }
    // Each run started on one instance and was finished, after a cut, through the other.
    assert!(
        reconnects.lock().unwrap().len() == 5,
        "{:?}",
        reconnects.lock().unwrap()
    );

    // A run keeps going while nobody listens: start it on one, leave, come back to the other
    // once it has had time to end; everything is there at once.
    let slow_one = serve_process(&["--resumable", "--redis", &redis.url, "--pace-ms", "20"]);
    let mut response = reqwest::Client::new()
        .post(format!("http://{}/", slow_one.addr()))
        .header("content-type", "application/json")
        .body(r#"{"threadId":"t","runId":"unattended","messages":[{"id":"u","role":"user","content":"What is AG-UI?"}]}"#)
        .send()
        .await
        .unwrap();
    response.chunk().await.unwrap().unwrap();
    drop(response);
    tokio::time::sleep(Duration::from_secs(4)).await;
    let started = std::time::Instant::now();
    let rest = reqwest::Client::new()
        .get(format!("http://{}/?runId=unattended", two.addr()))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(rest.contains("\"type\":\"RUN_FINISHED\""), "{rest}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ag_ui_run_reconnects_and_says_so_on_stderr() {
    let upstream = serve_demo(true).await;
    let direct = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args([
            "run",
            &format!("http://{upstream}/agent"),
            "What is AG-UI?",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(direct.status.success());
    let cuts: Cuts = Arc::new(|n| match n {
        0 => Some(900),
        1 => Some(2500),
        _ => None,
    });
    let proxy = cutting_proxy(vec![upstream], cuts).await;
    let url = format!("http://{proxy}/agent");
    let cut = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_ag-ui"))
            .args(["run", &url, "What is AG-UI?", "--json"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&cut.stderr);
    assert!(cut.status.success(), "{stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("reconnecting to run"))
        .collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    // The JSON Lines are the same events, each once (ids aside).
    let events = |out: &[u8]| -> Vec<Value> {
        let text = String::from_utf8_lossy(out).into_owned();
        let run = text
            .lines()
            .next()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["runId"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .unwrap();
        text.replace(&run, "RUN")
            .lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                v.as_object_mut().unwrap().remove("threadId");
                v
            })
            .collect()
    };
    // The subagents interleave differently from run to run: compare as multisets (each
    // event once: a repeat or a loss would change the counts).
    let sorted = |mut v: Vec<Value>| {
        v.sort_by_key(|e| e.to_string());
        v
    };
    let (cut_events, direct_events) = (events(&cut.stdout), events(&direct.stdout));
    assert_eq!(cut_events.first(), direct_events.first());
    assert_eq!(cut_events.last(), direct_events.last());
    assert_eq!(sorted(cut_events), sorted(direct_events));
}
