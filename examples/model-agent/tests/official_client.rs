//! End to end: the official TypeScript client (@ag-ui/client 1.0.0 `HttpAgent`, its own
//! verification on) against the model agent served by `ag_ui::axum`, the model being a mock
//! OpenAI-compatible server replaying canned streams. Two runs: a backend tool loop, then a
//! frontend tool left pending, answered by the client, and continued by the second run.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui::llm::OpenAiClient;
use ag_ui_model_agent::{forecast, trip_agent};
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::response::Response;
use serde_json::{Value, json};

#[path = "../../../crates/ag-ui/tests/support/node.rs"]
mod node;

/// The mock model: answers each request with the next canned SSE body, and keeps the
/// requests.
#[derive(Default)]
struct Model {
    replies: Mutex<VecDeque<String>>,
    requests: Mutex<Vec<Value>>,
}

async fn completions(State(model): State<Arc<Model>>, body: Bytes) -> Response {
    model
        .requests
        .lock()
        .unwrap()
        .push(serde_json::from_slice(&body).unwrap());
    let reply = model
        .replies
        .lock()
        .unwrap()
        .pop_front()
        .expect("a reply is left");
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from(reply))
        .unwrap()
}

fn sse(chunks: &[Value]) -> String {
    let mut body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    body
}

fn delta(delta: Value) -> Value {
    json!({"object": "chat.completion.chunk", "model": "mock",
           "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
}

fn finish(reason: &str) -> Value {
    json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
}

fn tool_call(name: &str, arguments: &str) -> Value {
    delta(
        json!({"tool_calls": [{"index": 0, "id": "call_x", "type": "function",
                                 "function": {"name": name, "arguments": arguments}}]}),
    )
}

async fn serve(replies: Vec<String>) -> (Arc<Model>, String) {
    let model = Arc::new(Model {
        replies: Mutex::new(replies.into()),
        requests: Mutex::default(),
    });
    let provider = axum::Router::new()
        .route("/v1/chat/completions", axum::routing::post(completions))
        .with_state(Arc::clone(&model));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let provider_url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, provider).await.unwrap() });

    let agent = trip_agent(OpenAiClient::new(provider_url), "mock");
    let app = axum::Router::new().agent("/agent", AgentEndpoint::agent(agent));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/agent", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (model, url)
}

async fn run_official_client(url: String, message: &str) -> Value {
    let args = [url, message.to_owned()];
    tokio::task::spawn_blocking(move || node::json("llm/run_model_agent.mjs", &args))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backend_tool_loop_then_a_frontend_tool_round_trip_across_two_runs() {
    let (model, url) = serve(vec![
        // Run 1: the model asks for the backend tool…
        sse(&[
            tool_call("get_weather", r#"{"city":"Oslo"}"#),
            finish("tool_calls"),
        ]),
        // …reads its result, and asks the frontend to show the map.
        sse(&[
            delta(json!({"role": "assistant", "content": "Showing Oslo."})),
            tool_call("show_map", r#"{"city":"Oslo"}"#),
            finish("tool_calls"),
        ]),
        // Run 2: the frontend's answer is in; the model wraps up.
        sse(&[
            delta(json!({"reasoning_content": "The map is up."})),
            delta(json!({"content": "Enjoy Oslo!"})),
            finish("stop"),
        ]),
    ])
    .await;
    let out = run_official_client(url, "Weather in Oslo?").await;

    // Run 1 ended with the frontend call pending; run 2 continued after the client's answer.
    assert_eq!(out["runs"][0]["pending"], json!(["model-run-1-call-2"]));
    assert_eq!(out["runs"].as_array().unwrap().len(), 2);

    let messages = out["messages"].as_array().unwrap();
    let shape: Vec<(&str, &str)> = messages
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap(),
                m["content"].as_str().unwrap_or(""),
            )
        })
        .collect();
    let weather = forecast("Oslo");
    assert_eq!(
        shape,
        [
            ("user", "Weather in Oslo?"),
            ("assistant", ""),
            ("tool", weather.as_str()),
            ("assistant", "Showing Oslo."),
            ("tool", "the map shows it"),
            ("reasoning", "The map is up."),
            ("assistant", "Enjoy Oslo!"),
        ],
        "{messages:#?}"
    );
    assert_eq!(
        messages[1]["toolCalls"][0]["function"],
        json!({"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"})
    );
    assert_eq!(messages[2]["toolCallId"], "model-run-1-call-1");
    assert_eq!(
        messages[3]["toolCalls"][0]["function"],
        json!({"name": "show_map", "arguments": "{\"city\":\"Oslo\"}"})
    );
    assert_eq!(messages[4]["toolCallId"], "model-run-1-call-2");
    // The backend tool's state change reached the client as a delta.
    assert_eq!(out["state"], json!({"cities_checked": ["Oslo"]}));
    let types: Vec<&str> = out["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert!(types.contains(&"STATE_DELTA") || types.contains(&"STATE_SNAPSHOT"));
    assert_eq!(types.iter().filter(|t| **t == "RUN_FINISHED").count(), 2);
    assert!(!types.contains(&"RUN_ERROR"));

    // What the model was sent: the frontend tool offered, the backend result fed back, and in
    // run 2 the whole conversation with the client's tool answer.
    let requests = model.requests.lock().unwrap();
    assert_eq!(requests.len(), 3);
    let names: Vec<&str> = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["get_weather", "show_map"]);
    assert_eq!(
        requests[0]["tools"][0]["function"]["parameters"]["properties"]["city"]["type"],
        "string"
    );
    let second = requests[1]["messages"].as_array().unwrap();
    assert_eq!(
        second.last().unwrap(),
        &json!({"role": "tool", "content": weather, "tool_call_id": "model-run-1-call-1"})
    );
    let third = requests[2]["messages"].as_array().unwrap();
    assert_eq!(
        third.last().unwrap(),
        &json!({"role": "tool", "content": "the map shows it", "tool_call_id": "model-run-1-call-2"})
    );
    assert!(
        third[1]["content"]
            .as_str()
            .unwrap()
            .contains(r#"{"cities_checked":["Oslo"]}"#),
        "the state is offered to the model: {third:#?}"
    );
}
