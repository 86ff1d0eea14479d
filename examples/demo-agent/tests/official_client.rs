//! The official TypeScript client (@ag-ui/client 1.0.0 `HttpAgent.runAgent`, with its own
//! verification on) against the demo agent served by `ag_ui::axum`, over a real socket.

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui_demo_agent::DemoAgent;
use serde_json::Value;

#[path = "../../../crates/ag-ui/tests/support/node.rs"]
mod node;

async fn serve() -> String {
    serve_with(false).await
}

/// The demo agent, resumable (every frame with an `id:`, a `retry:` first) when asked.
async fn serve_with(resumable: bool) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut endpoint = AgentEndpoint::agent(DemoAgent::new());
    if resumable {
        endpoint = endpoint.with_resumable(ag_ui::server::log::MemoryLog::default());
    }
    let app = axum::Router::new().agent("/agent", endpoint);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/agent")
}

async fn run_official_client(args: Vec<String>) -> Value {
    tokio::task::spawn_blocking(move || node::json("server/run_agent.mjs", &args))
        .await
        .unwrap()
}

fn by_role<'a>(messages: &'a [Value], role: &str) -> Vec<&'a Value> {
    messages.iter().filter(|m| m["role"] == role).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_client_rebuilds_the_demo_turn() {
    let url = serve().await;
    check_demo_turn(run_official_client(vec![url, "What is AG-UI?".to_owned()]).await);
}

/// A resumable endpoint adds `id:` and `retry:` fields, which the official client reads past:
/// it runs unchanged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_client_runs_unchanged_against_a_resumable_endpoint() {
    let url = serve_with(true).await;
    check_demo_turn(run_official_client(vec![url, "What is AG-UI?".to_owned()]).await);
}

fn check_demo_turn(out: Value) {
    let messages = out["messages"].as_array().unwrap();

    // The user's message, then what the agent streamed.
    assert_eq!(messages[0]["id"], "u1");
    let assistants = by_role(messages, "assistant");
    let tool_calls: Vec<&Value> = assistants
        .iter()
        .filter_map(|m| m["toolCalls"].as_array())
        .flatten()
        .collect();
    assert_eq!(tool_calls.len(), 1, "{messages:#?}");
    assert_eq!(tool_calls[0]["function"]["name"], "search");
    assert_eq!(
        tool_calls[0]["function"]["arguments"],
        r#"{"query":"What is AG-UI?"}"#
    );
    let tools = by_role(messages, "tool");
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["toolCallId"], tool_calls[0]["id"]);
    assert_eq!(tools[0]["content"], r#"3 results for "What is AG-UI?""#);

    // Reasoning from the parent and from each subagent.
    let reasoning = by_role(messages, "reasoning");
    assert_eq!(reasoning.len(), 3);
    assert!(
        reasoning[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("The user asked")
    );

    // Two subagents, each with its own attributed messages.
    let mut subagents: Vec<&str> = messages
        .iter()
        .filter_map(|m| m["subagentRunId"].as_str())
        .collect();
    subagents.sort_unstable();
    subagents.dedup();
    assert_eq!(subagents.len(), 2, "{messages:#?}");
    for sub in &subagents {
        let texts: Vec<&Value> = assistants
            .iter()
            .copied()
            .filter(|m| m["subagentRunId"] == *sub)
            .collect();
        assert_eq!(texts.len(), 1);
        assert!(
            texts[0]["content"]
                .as_str()
                .unwrap()
                .contains("it streams typed events")
        );
    }
    // The parent's answer, unattributed.
    let answer = assistants
        .iter()
        .rfind(|m| m.get("subagentRunId").is_none() && m["content"].is_string())
        .unwrap();
    assert!(
        answer["content"]
            .as_str()
            .unwrap()
            .starts_with("Here is what I found")
    );

    // State from the JSON Patch deltas.
    assert_eq!(out["state"]["turns"], 1);
    assert_eq!(out["state"]["topic"], "What is AG-UI?");
    assert_eq!(out["state"]["findings"].as_array().unwrap().len(), 2);

    // The run's result.
    assert!(
        out["runs"][0]["result"]["answer"]
            .as_str()
            .unwrap()
            .starts_with("Here is what I found")
    );
    let types = out["eventTypes"].as_array().unwrap();
    assert_eq!(types.first().unwrap(), "RUN_STARTED");
    assert_eq!(types.last().unwrap(), "RUN_FINISHED");
    assert!(types.iter().any(|t| t == "STEP_STARTED"));
    assert!(types.iter().any(|t| t == "STATE_DELTA"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_is_resumed_by_the_official_client() {
    let url = serve().await;
    let out = run_official_client(vec![
        url,
        "Please confirm".to_owned(),
        "--resume".to_owned(),
    ])
    .await;
    assert_eq!(
        out["pendingInterrupts"][0]["id"],
        ag_ui_demo_agent::interrupt_id("interop-thread")
    );
    assert_eq!(out["pendingInterrupts"][0]["reason"], "confirmation");
    assert_eq!(out["runs"][0]["result"], Value::Null);
    assert_eq!(out["runs"][1]["result"]["saved"], true);
    assert_eq!(out["pendingInterruptsAfterResume"], serde_json::json!([]));
    let last = out["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["content"], "Saved. Thanks for confirming.");
}
