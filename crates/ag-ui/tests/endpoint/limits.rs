//! The endpoint-wide budget of input bytes held by open runs (what each parsed input holds): a
//! request that would pass it is refused at once (`503`, `Retry-After`), and accepted again
//! once runs end; an input that alone would hold more is `413`.

use std::time::{Duration, Instant};

use ag_ui::axum::{AgentEndpoint, EndpointLimits, EventStream, RouterExt};
use ag_ui::{Event, RunAgentInput};
use axum::Router;
use futures::StreamExt;
use tokio::sync::watch;

use crate::support::http::{json_error, post_json, spawn};

/// A run input of `run` with messages enough for about `bytes` of JSON.
fn big_input(run: &str, bytes: usize) -> String {
    let message =
        r#"{"id":"m","role":"user","content":"0123456789012345678901234567890123456789"}"#;
    let count = bytes / (message.len() + 1);
    let messages = vec![message; count].join(",");
    format!(r#"{{"threadId":"t","runId":"{run}","protocolVersion":"1.0","messages":[{messages}]}}"#)
}

/// Each run starts, then waits for `released` to turn true, holding its input.
fn waiting(released: watch::Receiver<bool>) -> impl Fn(RunAgentInput) -> EventStream + Send + Sync {
    move |input: RunAgentInput| -> EventStream {
        let mut released = released.clone();
        let (t, r) = (input.thread_id.clone(), input.run_id.clone());
        let end = async move {
            let _ = released.wait_for(|go| *go).await;
            drop(input);
            Event::run_finished(t, r)
        };
        let start = Event::run_started("t", "r");
        Box::pin(futures::stream::iter([start]).chain(futures::stream::once(end)))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_input_budget_refuses_when_spent_and_accepts_again_after_runs_end() {
    let (release, released) = watch::channel(false);
    let handler = waiting(released);
    let limits = EndpointLimits::default().with_max_input_bytes(100_000);
    let app = Router::new().agent("/agent", AgentEndpoint::new(handler).with_limits(limits));
    let addr = spawn(app).await;

    let mut open = Vec::new();
    for run in ["a", "b"] {
        let body = big_input(run, 10_000);
        assert!(body.len() > 9_000 && body.len() <= 10_100, "{}", body.len());
        let mut response = post_json(addr, "/agent", body).await;
        assert_eq!(response.status(), 200);
        response.chunk().await.unwrap().unwrap();
        open.push(response);
    }
    // Each holds some 37 KB parsed: a third is refused at once, and said why.
    let started = Instant::now();
    let refused = post_json(addr, "/agent", big_input("c", 10_000)).await;
    assert_eq!(refused.headers()["retry-after"], "1");
    json_error(refused, 503, "overloaded").await;
    assert!(started.elapsed() < Duration::from_secs(1));
    // A small one still fits.
    let small = post_json(addr, "/agent", big_input("d", 1_000)).await;
    assert_eq!(small.status(), 200);
    drop(small);

    // The runs end: their input leaves the budget, and the third is taken.
    release.send(true).unwrap();
    for response in open {
        response.text().await.unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let response = post_json(addr, "/agent", big_input("c", 10_000)).await;
        if response.status() == 200 {
            assert!(response.text().await.unwrap().contains("RUN_FINISHED"));
            break;
        }
        assert_eq!(response.status(), 503);
        assert!(Instant::now() < deadline, "the budget was not given back");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_detached_run_keeps_its_input_in_the_budget_until_it_ends() {
    let (release, released) = watch::channel(false);
    let handler = waiting(released);
    let limits = EndpointLimits::default().with_max_input_bytes(60_000);
    let app = Router::new().agent(
        "/agent",
        AgentEndpoint::new(handler)
            .with_limits(limits)
            .with_resumable(ag_ui::server::log::MemoryLog::default()),
    );
    let addr = spawn(app).await;
    let mut response = post_json(addr, "/agent", big_input("a", 10_000)).await;
    response.chunk().await.unwrap().unwrap();
    // The client leaves; the run goes on detached, its input still counted.
    drop(response);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let refused = post_json(addr, "/agent", big_input("b", 10_000)).await;
    json_error(refused, 503, "overloaded").await;
    // The detached run ends: its input leaves the budget.
    release.send(true).unwrap();
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let response = post_json(addr, "/agent", big_input("b", 10_000)).await;
        if response.status() == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "the budget was not given back");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_budget_counts_what_an_input_holds_not_its_json() {
    let (_release, released) = watch::channel(false);
    let limits = EndpointLimits::default().with_max_input_bytes(100_000);
    let app = Router::new().agent(
        "/agent",
        AgentEndpoint::new(waiting(released)).with_limits(limits),
    );
    let addr = spawn(app).await;
    // 4 KB of `[0,0,…]`: 2,048 values of 80 bytes, kept twice. The JSON fits the budget many
    // times over; what it holds does not, and never will: too large, not a reason to retry.
    let state = vec!["0"; 2048].join(",");
    let body = format!(
        r#"{{"threadId":"t","runId":"a","protocolVersion":"1.0","messages":[],"state":[{state}]}}"#
    );
    assert!(body.len() < 5_000);
    let refused = post_json(addr, "/agent", body).await;
    let error = json_error(refused, 413, "payload-too-large").await;
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("100000"),
        "{error}"
    );
    // The same state, a tenth of it, is served.
    let state = vec!["0"; 200].join(",");
    let body = format!(
        r#"{{"threadId":"t","runId":"b","protocolVersion":"1.0","messages":[],"state":[{state}]}}"#
    );
    let mut served = post_json(addr, "/agent", body).await;
    assert_eq!(served.status(), 200);
    served.chunk().await.unwrap().unwrap();
}
