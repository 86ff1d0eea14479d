//! What an open run holds of its input: a 4 MB body of 100,000 messages, posted to an
//! endpoint running a [`Runner`] agent that waits, costs the heap the parsed input and little
//! more (not the body beside it, nor a second parse). Counted with dhat's heap statistics in
//! its own binary (one global allocator, one test).

use std::sync::Arc;

use ag_ui::axum::AgentEndpoint;
use ag_ui::server::{Agent, Outcome, Result, RunContext, Runner};
use axum::body::Body;
use axum::http::Request;
use tokio::sync::{Notify, mpsc};
use tower::ServiceExt;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

const MESSAGES: usize = 100_000;

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

#[tokio::test(flavor = "current_thread")]
async fn an_open_run_holds_its_parsed_input_and_little_more() {
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
