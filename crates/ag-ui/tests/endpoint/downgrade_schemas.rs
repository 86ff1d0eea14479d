//! Every event type, with every optional field set and in every variant (the 80 cases of
//! `tests/data/proto_cases.json`), served to a client that declares no `protocolVersion`: each
//! downgraded frame passes the event schema of `@ag-ui/client` 0.0.42, 0.0.52 and 0.0.59 alike
//! (`interop/client/old_schemas.mjs`), while the same events undowngraded fail all three.

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui::{Event, RunAgentInput};
use axum::Router;
use futures::Stream;
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

/// The rejections of each pre-1.0 schema for `frames` (one JSON object per line).
fn rejections(frames: &str) -> Value {
    crate::support::node::json_with_input(
        "client/old_schemas.mjs",
        &[] as &[&str],
        frames.as_bytes(),
    )
}

#[tokio::test]
async fn every_downgraded_frame_passes_every_pre_1_0_schema() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/agent", listener.local_addr().unwrap());
    let app = Router::new().agent("/agent", AgentEndpoint::new(all_types));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let body = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .body(r#"{"threadId":"t1","runId":"r1","messages":[]}"#)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let frames: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .collect();
    // Some events go (SUBAGENT_*, REASONING_ENCRYPTED_VALUE, subagent steps, empty deltas),
    // reasoning becomes THINKING_*, a paused run gains its notice.
    assert!(frames.len() >= 50, "{}", frames.len());
    let types: Vec<&str> = frames
        .iter()
        .map(|f| {
            let v: Value = serde_json::from_str(f).unwrap();
            match v["type"].as_str().unwrap() {
                "RUN_FINISHED" if v["outcome"]["type"] == "interrupt" => "interrupt",
                _ => "",
            }
        })
        .collect();
    assert!(
        types.contains(&"interrupt"),
        "the interrupt outcome is kept"
    );

    let out = rejections(&(frames.join("\n") + "\n"));
    for version in ["0.0.42", "0.0.52", "0.0.59"] {
        assert_eq!(out[version]["checked"], frames.len(), "{version}");
        assert_eq!(out[version]["rejected"], serde_json::json!([]), "{version}");
    }

    // The check can fail: the 1.0 events as they are break each old schema somewhere.
    let modern: String = fixture().iter().map(|e| e.to_json() + "\n").collect();
    let out = rejections(&modern);
    for version in ["0.0.42", "0.0.52", "0.0.59"] {
        assert!(
            !out[version]["rejected"].as_array().unwrap().is_empty(),
            "{version} accepted every 1.0 event"
        );
    }
}
