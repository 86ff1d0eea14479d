#![allow(missing_docs)]

//! Loopback throughput of the axum endpoint: the ~206k-event workload streamed by an
//! `AgentEndpoint` and read back as typed events by a Rust client (reqwest + `EventDecoder`).
//!
//! The reference figure comes from `node interop/bench/http.mjs` on the same workload.
//!
//! Recorded 2026-11-30 on the 2-core build machine, the reference right before and after:
//! ours 4.88 M events/s (mean), the reference's `EventEncoder` server read by the client's
//! `runHttpRequest` + `transformHttpEventStream` + `enforceEvents` 0.177 / 0.186 M events/s:
//! 26–27×. (2026-11-29, before the decoder and `Event` size work: 0.98 M against 66k, 15×.)
//! 2026-12-01, load average 1.3: ours 4.80 M events/s (median), the reference 0.177 M: 27×.
//!
//! `axum_emit/traced` and `axum_emit/untraced` (the run span on and off, no subscriber),
//! 2026-12-01 in the same run: 19.22 ms and 19.12 ms for the workload (10.72 M and 10.77 M
//! events/s): tracing costs 0.5 % of emit-to-wire throughput when nobody listens (the issue
//! allows 5 %).

#[path = "../tests/support/workload.rs"]
mod workload;

use std::sync::Arc;

use ag_ui::axum::AgentEndpoint;
use ag_ui::encoding::sse::EventDecoder;
use ag_ui::{Event, RunAgentInput};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;

fn loopback(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let events = Arc::new(workload::events(workload::MESSAGES));
    let total = events.len();
    let served = Arc::clone(&events);
    let handler = move |_: RunAgentInput| {
        let events = Arc::clone(&served);
        futures::stream::iter(0..events.len()).map(move |i| events[i].clone())
    };
    let url = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = AgentEndpoint::new(handler).into_router();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        format!("http://{addr}/")
    });
    let client = reqwest::Client::new();
    let body = serde_json::to_string(&RunAgentInput::new("t", "r")).unwrap();

    let mut group = c.benchmark_group("axum");
    group.sample_size(10);
    group.throughput(Throughput::Elements(total as u64));
    group.bench_function("loopback_sse_to_typed_events", |b| {
        b.iter(|| {
            rt.block_on(async {
                let response = client
                    .post(&url)
                    .header("content-type", "application/json")
                    .header("accept", "text/event-stream")
                    .body(body.clone())
                    .send()
                    .await
                    .unwrap();
                let mut stream = response.bytes_stream();
                let mut decoder = EventDecoder::new();
                let mut count = 0usize;
                let mut last: Option<Event> = None;
                while let Some(chunk) = stream.next().await {
                    decoder.push(&chunk.unwrap());
                    for event in &mut decoder {
                        last = Some(event.unwrap());
                        count += 1;
                    }
                }
                decoder.finish();
                count += decoder.by_ref().count();
                assert_eq!(count, total);
                last
            })
        })
    });
    group.finish();
}

/// Emit to wire, in process: the endpoint's response body (every event encoded as SSE) drained
/// without a socket or a client, with the run span on (the default) and off. No subscriber is
/// installed, so this is the cost of tracing when nobody listens.
fn emit_tracing_ab(c: &mut Criterion) {
    use tower::ServiceExt as _;

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let events = Arc::new(workload::events(workload::MESSAGES));
    let total = events.len();
    let body = serde_json::to_string(&RunAgentInput::new("t", "r")).unwrap();
    let router = |tracing: bool| {
        let served = Arc::clone(&events);
        let handler = move |_: RunAgentInput| {
            let events = Arc::clone(&served);
            futures::stream::iter(0..events.len()).map(move |i| events[i].clone())
        };
        AgentEndpoint::new(handler)
            .with_tracing(tracing)
            .into_router::<()>()
    };
    let mut group = c.benchmark_group("axum_emit");
    group.sample_size(20);
    group.throughput(Throughput::Elements(total as u64));
    for (name, tracing) in [("traced", true), ("untraced", false)] {
        let app = router(tracing);
        group.bench_function(name, |b| {
            b.iter(|| {
                rt.block_on(async {
                    let request = axum::http::Request::post("/")
                        .header("content-type", "application/json")
                        .header("accept", "text/event-stream")
                        .body(axum::body::Body::from(body.clone()))
                        .unwrap();
                    let response = app.clone().oneshot(request).await.unwrap();
                    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
                        .await
                        .unwrap();
                    assert!(bytes.len() > total);
                    bytes.len()
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, loopback, emit_tracing_ab);
criterion_main!(benches);
