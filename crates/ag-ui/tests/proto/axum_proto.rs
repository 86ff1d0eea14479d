//! The axum endpoint serving the protobuf transport, end to end over 127.0.0.1:
//!
//! * `Accept: application/vnd.ag-ui.event+proto` gets that exact `Content-Type` and a body of
//!   frames that decode to the run's events; `*/*` keeps SSE; a request for neither is a JSON
//!   `406` naming what is offered;
//! * a quiet protobuf stream sends nothing between events (no keep-alive), an SSE one does;
//! * the official client's HTTP path (`runHttpRequest` + `transformHttpEventStream` of
//!   @ag-ui/client 1.0.0, `interop/proto/http_client.mjs`) reads the binary response into the
//!   same events as the SSE response of the same agent;
//! * the negotiation differs from @ag-ui/encoder 1.0.0 exactly where `ag_ui::axum`'s module
//!   docs say (`interop/proto/negotiate.mjs`).
//!
//! The events are the fixture `tests/data/proto_cases.json` (all 31 types). Needs
//! `npm ci --prefix interop` for the Node tests.

#![cfg(all(feature = "axum", feature = "proto"))]

use crate::support::node;
use crate::support::proto as proto_support;

use std::time::Duration;

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui::encoding::PROTO_MEDIA_TYPE as CONTENT_TYPE;
use ag_ui::encoding::proto;
use ag_ui::{Event, RunAgentInput};
use axum::Router;
use futures::{Stream, StreamExt};
use proto_support::lossy;
use serde_json::Value;

fn fixture() -> Vec<Event> {
    crate::support::ev::proto_cases()
        .into_iter()
        .map(|(_, event)| event)
        .collect()
}

fn all_types(_: RunAgentInput) -> impl Stream<Item = Event> + Send + 'static {
    futures::stream::iter(fixture())
}

/// Three events with a pause of `gap` before the last.
fn slow(gap: Duration) -> impl Fn(RunAgentInput) -> futures::stream::BoxStream<'static, Event> {
    move |input: RunAgentInput| {
        let (t, r) = (input.thread_id, input.run_id);
        futures::stream::iter([
            Event::run_started(t.clone(), r.clone()),
            Event::step_started("wait"),
        ])
        .chain(futures::stream::once(async move {
            tokio::time::sleep(gap).await;
            Event::run_finished(t, r)
        }))
        .boxed()
    }
}

/// Serves `app` (with its agent at `/agent`) and returns the agent's URL.
async fn spawn(app: Router) -> String {
    format!("{}/agent", crate::support::http::spawn_url(app).await)
}

/// A request from a 1.0 client (a pre-1.0 one, without `protocolVersion`, gets the stream
/// downgraded: see `a_pre_1_0_client_gets_no_reasoning_over_protobuf`).
async fn post(url: &str, accept: &str) -> reqwest::Response {
    post_body(
        url,
        accept,
        r#"{"threadId":"t1","runId":"r1","protocolVersion":"1.0","messages":[]}"#,
    )
    .await
}

async fn post_body(url: &str, accept: &str, body: &'static str) -> reqwest::Response {
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", accept)
        .body(body)
        .send()
        .await
        .unwrap()
}

/// The downgrade applies over protobuf too; the pre-1.0 `THINKING_*` events have no protobuf
/// mapping, so reasoning is left out there.
#[tokio::test]
async fn a_pre_1_0_client_gets_no_reasoning_over_protobuf() {
    let url = spawn(Router::new().agent("/agent", AgentEndpoint::new(all_types))).await;
    let body = post_body(
        &url,
        CONTENT_TYPE,
        r#"{"threadId":"t1","runId":"r1","messages":[]}"#,
    )
    .await
    .bytes()
    .await
    .unwrap();
    let events = proto::decode(&body).unwrap();
    let mut downgrade = ag_ui::server::downgrade::Downgrade::new();
    let mut frames = Vec::new();
    for event in fixture() {
        downgrade.push(event, &mut frames);
    }
    let expected: Vec<Event> = frames
        .into_iter()
        .filter_map(|f| match f {
            ag_ui::server::downgrade::LegacyFrame::Event(e) => Some(lossy(&e)),
            _ => None,
        })
        .collect();
    assert!(expected.len() < fixture().len());
    assert_eq!(events, expected);
    for event in &events {
        let name = event.event_type().as_str();
        assert!(
            !name.starts_with("REASONING_") && !name.starts_with("SUBAGENT_"),
            "{name}"
        );
    }
    // The attribution is kept (every pre-1.0 schema strips or ignores it; 0.0.59 reads it).
    assert!(events.iter().any(|e| e.attribution().is_some()));
}

#[tokio::test]
async fn protobuf_is_served_when_asked_for_and_its_frames_decode() {
    let url = spawn(Router::new().agent("/agent", AgentEndpoint::new(all_types))).await;
    for accept in [
        CONTENT_TYPE,
        "application/vnd.ag-ui.event+proto, text/event-stream;q=0.5",
        "text/html, application/*",
    ] {
        let response = post(&url, accept).await;
        assert_eq!(response.status(), 200, "{accept}");
        assert_eq!(response.headers()["content-type"], CONTENT_TYPE, "{accept}");
        assert_eq!(response.headers()["cache-control"], "no-cache");
        assert_eq!(response.headers()["x-accel-buffering"], "no");
        let body = response.bytes().await.unwrap();
        let events = proto::decode(&body).unwrap_or_else(|e| panic!("{accept}: {e}"));
        let expected: Vec<Event> = fixture().iter().map(lossy).collect();
        assert_eq!(events.len(), expected.len());
        assert_eq!(events, expected, "{accept}");
    }
}

#[tokio::test]
async fn any_type_keeps_sse_and_a_request_for_neither_is_a_json_406() {
    let url = spawn(Router::new().agent("/agent", AgentEndpoint::new(all_types))).await;
    for accept in [
        "*/*",
        "text/event-stream, application/vnd.ag-ui.event+proto",
    ] {
        let response = post(&url, accept).await;
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers()["content-type"],
            "text/event-stream",
            "{accept}"
        );
        let body = response.text().await.unwrap();
        assert!(body.starts_with("data: {"), "{accept}: {body:.40}");
    }
    let response = post(
        &url,
        "application/vnd.ag-ui.event+proto;q=0, application/json",
    )
    .await;
    assert_eq!(response.status(), 406);
    assert_eq!(response.headers()["content-type"], "application/json");
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(body["error"]["kind"], "not-acceptable");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("text/event-stream"), "{message}");
    assert!(message.contains(CONTENT_TYPE), "{message}");
}

#[tokio::test]
async fn a_quiet_protobuf_stream_sends_no_keep_alive_and_no_ids() {
    let gap = Duration::from_millis(400);
    let endpoint = AgentEndpoint::new(slow(gap))
        .with_keep_alive(Some(Duration::from_millis(50)))
        .with_event_ids(true);
    let url = spawn(Router::new().agent("/agent", endpoint)).await;

    let body = post(&url, CONTENT_TYPE).await.bytes().await.unwrap();
    let mut expected = Vec::new();
    for event in slow(gap)(RunAgentInput::new("t1", "r1"))
        .collect::<Vec<_>>()
        .await
    {
        proto::encode_into(&event, &mut expected);
    }
    // Exactly the three frames: nothing was written while the run was quiet.
    assert_eq!(body.as_ref(), expected.as_slice());

    // The same endpoint over SSE does send keep-alive comments and ids (the setting is live).
    let body = post(&url, "text/event-stream").await.text().await.unwrap();
    assert!(body.contains(": keep-alive\n\n"), "{body}");
    assert!(body.starts_with("id: 1\n"), "{body}");
}

fn events_of(report: &Value) -> Vec<Event> {
    assert!(report.get("error").is_none(), "client error: {report}");
    report["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| Event::from_json(&e.to_string()).unwrap_or_else(|err| panic!("{err}: {e}")))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_client_reads_the_binary_response_as_the_sse_one() {
    let url = spawn(Router::new().agent("/agent", AgentEndpoint::new(all_types))).await;
    let (binary, sse) = tokio::task::spawn_blocking(move || {
        (
            node::json("proto/http_client.mjs", &[&url, CONTENT_TYPE]),
            node::json("proto/http_client.mjs", &[&url, "text/event-stream"]),
        )
    })
    .await
    .unwrap();
    assert_eq!(binary["status"], 200);
    assert_eq!(binary["contentType"], CONTENT_TYPE);
    assert_eq!(sse["contentType"], "text/event-stream");
    let (binary, sse) = (events_of(&binary), events_of(&sse));
    assert_eq!(sse, fixture());
    // The same events, up to what the binary form cannot carry (`encoding::proto` docs).
    let expected: Vec<Event> = sse.iter().map(lossy).collect();
    assert_eq!(binary.len(), expected.len());
    for (i, (got, want)) in binary.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "event {i}");
    }
}

#[test]
fn negotiation_differs_from_the_reference_encoder_only_where_documented() {
    const P: &str = "application/vnd.ag-ui.event+proto";
    const S: &str = "text/event-stream";
    // (Accept, the reference encoder's choice, ours; None is a 406.)
    let table: &[(&str, &str, Option<&str>)] = &[
        (P, P, Some(P)),
        ("application/*", P, Some(P)),
        ("*/*", P, Some(S)),
        (
            "text/event-stream, application/vnd.ag-ui.event+proto",
            P,
            Some(S),
        ),
        (
            "text/event-stream, application/vnd.ag-ui.event+proto;q=0.5",
            P,
            Some(S),
        ),
        (
            "text/event-stream;q=0.5, application/vnd.ag-ui.event+proto",
            P,
            Some(P),
        ),
        ("application/vnd.ag-ui.event+proto;q=0, */*", S, Some(S)),
        ("application/json", S, None),
        ("text/event-stream;q=0", S, None),
        (S, S, Some(S)),
    ];
    let accepts: Vec<&str> = table.iter().map(|(a, _, _)| *a).collect();
    let theirs = node::json("proto/negotiate.mjs", &accepts);
    for ((accept, reference, ours), theirs) in table.iter().zip(theirs.as_array().unwrap()) {
        assert_eq!(theirs, reference, "the reference on {accept:?}");
        let got = ag_ui::axum::negotiate(Some(accept))
            .ok()
            .map(|e| e.media_type());
        assert_eq!(got, *ours, "ours on {accept:?}");
    }
}
