//! The MCP bridge against a real server process over stdio (this package's
//! `mcp-demo-server`), and a model agent using it with the mock OpenAI-compatible model.

use std::time::{Duration, Instant};

use ag_ui::llm::{LlmAgent, OpenAiClient};
use ag_ui::mcp::{McpConfig, McpErrorKind, McpServer, McpTools};
use ag_ui::server::Runner;
use ag_ui::{Content, Event, EventType, Message, RunAgentInput, verify};
use futures::StreamExt;
use serde_json::json;

#[path = "../../../crates/ag-ui/tests/support/openai_mock.rs"]
#[allow(dead_code, unreachable_pub)]
mod openai_mock;
use openai_mock::{Reply, chunk, finish, sse};

async fn demo(config: McpConfig) -> McpServer {
    McpServer::stdio(
        env!("CARGO_BIN_EXE_mcp-demo-server"),
        Vec::<String>::new(),
        config,
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn a_real_process_lists_and_answers() {
    let server = demo(McpConfig::default()).await;
    assert!(server.tools().iter().any(|t| t.name == "add"));
    assert_eq!(
        server.call("add", r#"{"a":1.5,"b":2}"#).await.unwrap(),
        Content::Text("3.5".into())
    );
}

#[tokio::test]
async fn a_server_killed_mid_call_ends_the_call_with_a_clear_error() {
    let server = demo(McpConfig::default()).await;
    let started = Instant::now();
    let error = server.call("exit", "{}").await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(error.kind(), McpErrorKind::Closed);
    assert!(
        error
            .to_string()
            .contains("closed the connection during `exit`"),
        "{error}"
    );
    // Later calls fail the same way, at once.
    let error = server.call("add", r#"{"a":1,"b":2}"#).await.unwrap_err();
    assert_eq!(error.kind(), McpErrorKind::Closed);
    assert!(
        error.to_string().contains("closed the connection"),
        "{error}"
    );
}

#[tokio::test]
async fn a_slow_tool_past_its_time_out_over_stdio() {
    let server = demo(McpConfig::default().with_call_timeout(Duration::from_millis(300))).await;
    let error = server.call("slow", r#"{"ms":10000}"#).await.unwrap_err();
    assert_eq!(error.kind(), McpErrorKind::CallTimeout);
    assert!(
        error.to_string().contains("did not answer `slow` within"),
        "{error}"
    );
}

fn call(id: &str, name: &str, arguments: &str) -> serde_json::Value {
    chunk(
        json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
                                  "function": {"name": name, "arguments": arguments}}]}),
    )
}

async fn agent(replies: Vec<Reply>, config: McpConfig) -> LlmAgent<()> {
    let tools = McpTools::new(vec![demo(config).await]).unwrap();
    let (_, base) = openai_mock::serve(replies).await;
    let mut agent = LlmAgent::<()>::new(OpenAiClient::new(base), "mock-model");
    for tool in tools.backend_tools() {
        agent = agent.with_tool(tool);
    }
    agent
}

fn input() -> RunAgentInput {
    RunAgentInput::new("t", "r").with_messages(vec![Message::user("u1", "Hi")])
}

#[tokio::test]
async fn a_dead_server_is_a_tool_error_and_the_run_goes_on() {
    let agent = agent(
        vec![
            Reply::Sse(sse(&[call("c1", "exit", "{}"), finish("tool_calls")])),
            Reply::Sse(sse(&[
                chunk(json!({"content": "The tool died."})),
                finish("stop"),
            ])),
        ],
        McpConfig::default(),
    )
    .await;
    let events: Vec<Event> = Runner::new(agent).run(input()).unwrap().collect().await;
    verify::verify_all(&events).unwrap_or_else(|v| panic!("{v}\n{events:#?}"));
    let result = events
        .iter()
        .find_map(|e| match e {
            Event::ToolCallResult(r) => Some(r.content.clone()),
            _ => None,
        })
        .unwrap();
    let Content::Text(text) = result else {
        panic!("{result:?}")
    };
    assert!(
        text.starts_with("Error: ") && text.contains("closed the connection"),
        "{text}"
    );
    assert!(events.contains(&Event::text_message_content("r-msg-3", "The tool died.")));
}

#[tokio::test]
async fn a_disconnect_during_a_slow_mcp_call_ends_the_run_at_once() {
    let agent = agent(
        vec![Reply::Sse(sse(&[
            call("c1", "slow", r#"{"ms":20000}"#),
            finish("tool_calls"),
        ]))],
        McpConfig::default(),
    )
    .await;
    let mut events = Runner::new(agent).run(input()).unwrap();
    let mut seen = Vec::new();
    while let Some(event) = events.next().await {
        let end = event.event_type() == EventType::ToolCallEnd;
        seen.push(event);
        if end {
            break;
        }
    }
    let started = Instant::now();
    events.cancel_handle().cancel();
    seen.extend(events.collect::<Vec<_>>().await);
    assert!(started.elapsed() < Duration::from_secs(5));
    verify::verify_all(&seen).unwrap_or_else(|v| panic!("{v}\n{seen:#?}"));
    assert!(
        matches!(seen.last(), Some(Event::RunFinished(_))),
        "{seen:?}"
    );
}
