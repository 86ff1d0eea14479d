//! What an open run holds of its input: a 4 MB body of 100,000 messages, posted to an
//! endpoint running a [`Runner`] agent that waits, costs the heap the parsed input and little
//! more (not the body beside it, nor a second parse); and abandoned runs of a resumable
//! endpoint, each holding a state built to take the most memory per byte of JSON, hold no more
//! than the endpoint's input budget besides their log. Counted with dhat's heap statistics in
//! its own binary (one global allocator, one test at a time).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ag_ui::axum::{AgentEndpoint, EndpointLimits, RouterExt};
use ag_ui::server::log::{MemoryLog, MemoryLogConfig};
use ag_ui::server::{Agent, Outcome, Result, RunContext, Runner};
use axum::body::Body;
use axum::http::Request;
use tokio::sync::{Notify, mpsc};
use tower::ServiceExt;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

const MESSAGES: usize = 100_000;

/// dhat counts one process: its tests take turns.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Says it started (with the number of messages it sees), then waits to be released.
struct Waiting {
    started: mpsc::UnboundedSender<usize>,
    release: Arc<Notify>,
}

impl Agent for Waiting {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        let _ = self.started.send(ctx.input().messages.len());
        self.release.notified().await;
        Ok(Outcome::success())
    }
}

/// A `RunAgentInput` of `n` short user messages, about 42 bytes each.
fn body(run: &str, n: usize) -> String {
    let mut out =
        format!(r#"{{"threadId":"t","runId":"{run}","protocolVersion":"1.0","messages":["#);
    for i in 0..n {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            r#"{{"id":"m{i:06}","role":"user","content":"hello"}}"#
        ));
    }
    out.push_str("]}");
    out
}

/// Runs `test` on a runtime of `workers` threads (none: the current thread) once no other
/// test of this binary runs.
fn in_turn<F: std::future::Future<Output = ()>>(workers: usize, test: F) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut runtime = if workers == 0 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(workers);
        builder
    };
    runtime.enable_all().build().unwrap().block_on(test);
}

#[test]
fn an_open_run_holds_its_parsed_input_and_little_more() {
    in_turn(0, open_run());
}

async fn open_run() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let (started, mut starts) = mpsc::unbounded_channel();
    let release = Arc::new(Notify::new());
    let agent = Waiting {
        started,
        release: Arc::clone(&release),
    };
    let app: axum::Router = AgentEndpoint::new(Runner::new(agent))
        .with_body_limit(8 << 20)
        .with_tracing(false)
        .into_router();
    // Warm up: the first request sizes what the runtime and the router keep.
    let warm = Request::post("/")
        .header("content-type", "application/json")
        .body(Body::from(body("warm", 10)))
        .unwrap();
    let response = app.clone().oneshot(warm).await.unwrap();
    assert_eq!(starts.recv().await, Some(10));
    release.notify_one();
    drop(
        axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap(),
    );

    let text = body("big", MESSAGES);
    let body_len = text.len();
    let before = dhat::HeapStats::get().curr_bytes;
    let request = Request::post("/")
        .header("content-type", "application/json")
        .body(Body::from(text))
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(starts.recv().await, Some(MESSAGES));
    let stats = dhat::HeapStats::get();
    let held = stats.curr_bytes.saturating_sub(before);
    let peak = stats.max_bytes.saturating_sub(before);
    let ratio = |bytes: usize| bytes as f64 / body_len as f64;
    println!(
        "a {body_len}-byte body of {MESSAGES} messages: {held} bytes held while the run is open \
         ({:.2}x the body), {peak} bytes at the peak of reading it ({:.2}x)",
        ratio(held),
        ratio(peak)
    );
    // Held: the parsed messages (the `Message` enum, each id and text), nothing beside them.
    // Peak: the body, the parsed input, and one message as a `serde_json::Value` at a time
    // (the whole array as values first was 14x).
    assert!(ratio(held) < 3.5, "held {held} bytes");
    assert!(ratio(peak) < 8.0, "peak {peak} bytes");
    release.notify_one();
    drop(
        axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap(),
    );
}

/// Streams a short delta every 5 ms until cancelled.
struct Endless;

impl Agent for Endless {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        let mut message = ctx.assistant_message()?;
        loop {
            message.delta("tick ")?;
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

/// A `RunAgentInput` whose state is `[0,0,…]` of about `bytes` bytes: two bytes of JSON for
/// each `serde_json::Value` of 80.
fn hostile_body(run: &str, bytes: usize) -> String {
    let state = vec!["0"; bytes / 2].join(",");
    format!(
        r#"{{"threadId":"t","runId":"{run}","protocolVersion":"1.0","messages":[],"state":[{state}]}}"#
    )
}

#[test]
fn abandoned_runs_hold_no_more_input_than_the_budget() {
    in_turn(2, abandoned_runs());
}

async fn abandoned_runs() {
    const BUDGET: usize = 2 << 20;
    const RUNS: usize = 20;
    const STATE: usize = 8 * 1024;
    let _profiler = dhat::Profiler::builder().testing().build();
    let log = MemoryLog::new(MemoryLogConfig::default().with_max_total_bytes(1 << 20));
    let limits = EndpointLimits::default().with_max_input_bytes(BUDGET);
    let app = axum::Router::new().agent(
        "/",
        AgentEndpoint::agent(Endless)
            .with_limits(limits)
            .with_tracing(false)
            .with_resumable(log.clone()),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let client = reqwest::Client::new();
    let post = |run: String| {
        client
            .post(&url)
            .header("content-type", "application/json")
            .body(hostile_body(&run, STATE))
            .send()
    };
    // Warm up (the runtime's, the router's and the client's first blocks).
    drop(post("warm".into()).await.unwrap());
    tokio::time::sleep(Duration::from_millis(100)).await;
    let idle = dhat::HeapStats::get().curr_bytes;
    let (mut served, mut refused) = (0, 0);
    for i in 0..RUNS {
        let mut response = post(format!("r{i}")).await.unwrap();
        if response.status() == 503 {
            refused += 1;
            continue;
        }
        assert_eq!(response.status(), 200);
        // Its first bytes, then the client leaves: the run goes on detached.
        response.chunk().await.unwrap().unwrap();
        served += 1;
    }
    // The server notices each client leaving at its next write.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let stats = log.stats();
    let held = dhat::HeapStats::get()
        .curr_bytes
        .saturating_sub(idle)
        .saturating_sub(stats.bytes + stats.spare_bytes);
    println!(
        "{served} abandoned runs ({refused} refused) of {STATE}-byte states hold {held} bytes \
         besides their log, against an input budget of {BUDGET}"
    );
    // The inputs within the budget, and a few KB per run for its tasks, queue and buffers.
    assert!(held <= BUDGET + RUNS * 16 * 1024, "held {held} bytes");
}
