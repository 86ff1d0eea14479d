//! Several agents on one server: the registry's listing, capabilities, health route, runs at
//! `/agents/{id}`, `404` for an unknown agent, refused ids, and a CORS preflight answered by
//! tower-http's layer — over a real socket on 127.0.0.1.
#![cfg(feature = "axum")]

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui::axum::{AgentInfo, AgentRegistry, RegistryErrorKind};
use ag_ui::capabilities::{AgentCapabilities, IdentityCapabilities, TransportCapabilities};
use ag_ui::{Event, RunAgentInput};
use axum::http::{Method, header};
use futures::Stream;
use serde_json::{Value, json};
use tower_http::cors::{Any, CorsLayer};

use crate::support::http::spawn_url;

fn named(
    name: &'static str,
) -> impl Fn(RunAgentInput) -> Box<dyn Stream<Item = Event> + Send + Unpin> + Send + Sync + 'static
{
    move |input: RunAgentInput| {
        let (t, r) = (input.thread_id, input.run_id);
        Box::new(futures::stream::iter(vec![
            Event::run_started(t.clone(), r.clone()),
            Event::custom("agent", json!(name)),
            Event::run_finished(t, r),
        ])) as Box<dyn Stream<Item = Event> + Send + Unpin>
    }
}

fn caps(name: &str) -> AgentCapabilities {
    AgentCapabilities {
        identity: Some(IdentityCapabilities {
            name: Some(name.to_owned()),
            ..Default::default()
        }),
        transport: Some(TransportCapabilities {
            streaming: Some(true),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn registry() -> AgentRegistry {
    let mut registry = AgentRegistry::new();
    registry
        .register(
            AgentInfo::new("alpha")
                .with_description("The first")
                .with_capabilities(caps("alpha")),
            AgentEndpoint::new(named("alpha")),
        )
        .unwrap()
        .register(AgentInfo::new("beta"), AgentEndpoint::new(named("beta")))
        .unwrap();
    registry
}

async fn get(url: &str) -> (u16, String, Value) {
    let response = reqwest::get(url).await.unwrap();
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let body = response.text().await.unwrap();
    (status, content_type, serde_json::from_str(&body).unwrap())
}

async fn run(url: &str) -> (u16, String) {
    let response = reqwest::Client::new()
        .post(url)
        .header(header::CONTENT_TYPE, "application/json")
        .body(json!({"threadId": "t", "runId": "r", "messages": []}).to_string())
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

#[tokio::test]
async fn lists_the_agents_with_descriptions_and_capabilities() {
    let base = spawn_url(registry().into_router()).await;
    let (status, content_type, listing) = get(&format!("{base}/agents")).await;
    assert_eq!(status, 200);
    assert_eq!(content_type, "application/json");
    assert_eq!(
        listing,
        json!({"agents": [
            {"id": "alpha", "url": "/agents/alpha", "description": "The first",
             "capabilities": {"identity": {"name": "alpha"}, "transport": {"streaming": true}}},
            {"id": "beta", "url": "/agents/beta", "capabilities": {}},
        ]})
    );
}

#[tokio::test]
async fn serves_each_agents_capabilities_and_404_for_an_unknown_one() {
    let base = spawn_url(registry().into_router()).await;
    let (status, _, body) = get(&format!("{base}/agents/alpha/capabilities")).await;
    assert_eq!(status, 200);
    let parsed: AgentCapabilities = serde_json::from_value(body).unwrap();
    assert_eq!(parsed, caps("alpha"));
    let (status, _, body) = get(&format!("{base}/agents/beta/capabilities")).await;
    assert_eq!((status, body), (200, json!({})));

    let (status, content_type, body) = get(&format!("{base}/agents/gamma/capabilities")).await;
    assert_eq!(status, 404);
    assert_eq!(content_type, "application/json");
    assert_eq!(body["error"]["kind"], "unknown-agent");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("\"gamma\"") && message.contains("alpha, beta"),
        "{message}"
    );
}

#[tokio::test]
async fn runs_each_agent_at_its_path_and_refuses_an_unknown_one() {
    let base = spawn_url(registry().into_router()).await;
    let (status, body) = run(&format!("{base}/agents/alpha")).await;
    assert_eq!(status, 200);
    assert!(body.contains(r#""value":"alpha""#), "{body}");
    let (status, body) = run(&format!("{base}/agents/beta")).await;
    assert_eq!(status, 200);
    assert!(body.contains(r#""value":"beta""#), "{body}");

    let (status, body) = run(&format!("{base}/agents/gamma")).await;
    assert_eq!(status, 404);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"]["kind"], "unknown-agent");
    // A GET of an agent's own path is the endpoint's JSON 405, not a 404.
    let (status, _, body) = get(&format!("{base}/agents/alpha")).await;
    assert_eq!(status, 405);
    assert_eq!(body["error"]["kind"], "method-not-allowed");
}

#[tokio::test]
async fn health_counts_the_agents() {
    let base = spawn_url(registry().into_router()).await;
    let (status, _, body) = get(&format!("{base}/health")).await;
    assert_eq!((status, body), (200, json!({"status": "ok", "agents": 2})));
    let base = spawn_url(AgentRegistry::new().into_router()).await;
    let (_, _, body) = get(&format!("{base}/health")).await;
    assert_eq!(body["agents"], 0);
    let (status, _, body) = get(&format!("{base}/agents/x/capabilities")).await;
    assert_eq!(status, 404);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("has none")
    );
}

#[tokio::test]
async fn refuses_ids_that_are_not_one_plain_path_segment_or_are_taken() {
    let mut registry = AgentRegistry::new();
    for id in ["", "a/b", "a b", "é", "..", ".", "x?y", &"a".repeat(129)] {
        let error = registry
            .register(AgentInfo::new(id), AgentEndpoint::new(named("x")))
            .unwrap_err();
        assert_eq!(error.kind(), RegistryErrorKind::InvalidId, "{id:?}");
        assert_eq!(error.id(), id);
    }
    registry
        .register(AgentInfo::new("a-b_c.d~1"), AgentEndpoint::new(named("x")))
        .unwrap();
    let error = registry
        .register(AgentInfo::new("a-b_c.d~1"), AgentEndpoint::new(named("y")))
        .unwrap_err();
    assert_eq!(error.kind(), RegistryErrorKind::DuplicateId);
    assert!(error.to_string().contains("registered already"), "{error}");
    assert_eq!(registry.agents().len(), 1);
}

#[tokio::test]
async fn a_cors_layer_answers_the_preflight_and_marks_the_responses() {
    let app = registry()
        .into_router()
        // The registry beside an agent at the root, as `ag-ui serve` mounts them.
        .agent("/", AgentEndpoint::new(named("root")))
        .layer(
            CorsLayer::new()
                .allow_origin(Any)
                .allow_methods([Method::GET, Method::POST])
                .allow_headers([header::CONTENT_TYPE, header::ACCEPT]),
        );
    let base = spawn_url(app).await;
    let preflight = reqwest::Client::new()
        .request(Method::OPTIONS, format!("{base}/agents/alpha"))
        .header(header::ORIGIN, "http://localhost:5173")
        .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
        .header(header::ACCESS_CONTROL_REQUEST_HEADERS, "content-type")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status().as_u16(), 200);
    let headers = preflight.headers();
    assert_eq!(headers[header::ACCESS_CONTROL_ALLOW_ORIGIN], "*");
    let methods = headers[header::ACCESS_CONTROL_ALLOW_METHODS]
        .to_str()
        .unwrap();
    assert!(methods.contains("POST"), "{methods}");
    let allowed = headers[header::ACCESS_CONTROL_ALLOW_HEADERS]
        .to_str()
        .unwrap();
    assert!(allowed.contains("content-type"), "{allowed}");

    let listing = reqwest::Client::new()
        .get(format!("{base}/agents"))
        .header(header::ORIGIN, "http://localhost:5173")
        .send()
        .await
        .unwrap();
    assert_eq!(listing.headers()[header::ACCESS_CONTROL_ALLOW_ORIGIN], "*");
    let (status, body) = run(&format!("{base}/")).await;
    assert_eq!(status, 200);
    assert!(body.contains(r#""value":"root""#), "{body}");
}
