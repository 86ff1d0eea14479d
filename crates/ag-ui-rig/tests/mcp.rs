//! MCP tools on a rig agent (`ag_ui_rig::mcp::add_tools`), from the demo MCP server served
//! in-process, the model being the mock OpenAI-compatible server through rig's OpenAI provider;
//! every AG-UI stream passes the verifier.

#[path = "../../ag-ui/tests/support/mcp_pipe.rs"]
#[allow(dead_code, unreachable_pub)]
mod mcp_pipe;
#[path = "../../ag-ui/tests/support/mcp_server.rs"]
#[allow(dead_code, unreachable_pub)]
mod mcp_server;
#[path = "../../ag-ui/tests/support/openai_mock.rs"]
#[allow(dead_code, unreachable_pub)]
mod openai_mock;

use ag_ui::mcp::{McpConfig, McpTools};
use ag_ui::server::Runner;
use ag_ui::server::bridge;
use ag_ui::{Content, ContentPart, Event, Message, RunAgentInput, Tool, verify};
use ag_ui_rig::RigAgent;
use ag_ui_rig::mcp::{ErrorKind, add_tools};
use ag_ui_rig::rig_agent::{Agent, AgentBuilder};
use ag_ui_rig::rig_core::providers::openai::OpenAIConfig;
use futures::StreamExt;
use mcp_pipe::in_process;
use openai_mock::{Mock, Reply, chunk, finish, sse};
use serde_json::{Value, json};
use std::sync::Arc;

fn call(index: u32, id: &str, name: &str, arguments: &str) -> Value {
    chunk(
        json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                                 "function": {"name": name, "arguments": arguments}}]}),
    )
}

async fn agent(replies: Vec<Reply>) -> (Arc<Mock>, Agent) {
    let (mock, base) = openai_mock::serve(replies).await;
    let model = OpenAIConfig::new("test-key")
        .with_base_url(base)
        .client()
        .chat("mock-model");
    (mock, AgentBuilder::new(model).build())
}

async fn run(agent: Agent, input: RunAgentInput) -> Vec<Event> {
    let events: Vec<Event> = Runner::new(RigAgent::new(agent))
        .run(input)
        .unwrap()
        .collect()
        .await;
    verify::verify_all(&events).unwrap_or_else(|v| panic!("{v}\n{events:#?}"));
    events
}

fn input() -> RunAgentInput {
    RunAgentInput::new("t", "r").with_messages(vec![Message::user("u1", "Hi")])
}

#[tokio::test]
async fn a_rig_agent_calls_mcp_tools_and_their_failures_reach_the_model() {
    let (mock, agent) = agent(vec![
        Reply::Sse(sse(&[
            call(0, "call_a", "add", r#"{"a":2,"b":3}"#),
            call(1, "call_f", "fail", "{}"),
            call(2, "call_i", "image", "{}"),
            finish("tool_calls"),
        ])),
        Reply::Sse(sse(&[chunk(json!({"content": "5."})), finish("stop")])),
    ])
    .await;
    let tools = McpTools::new(vec![in_process(McpConfig::default()).await]).unwrap();
    add_tools(&agent, tools).unwrap();
    let events = run(agent, input()).await;
    let results: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallResult(r) => Some(r.content.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(results[0], Content::Text("5".into()));
    let Content::Text(failed) = &results[1] else {
        panic!("{results:?}")
    };
    assert!(failed.starts_with("Error: "), "{failed}");
    assert!(failed.contains("the disk is full"), "{failed}");
    match &results[2] {
        Content::Parts(parts) => {
            assert_eq!(parts[0], ContentPart::text("a dot"));
            assert!(matches!(parts[1], ContentPart::Image(_)), "{parts:?}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(events.last(), Some(Event::RunFinished(_))));
    // The model reads the failure as the bridge core writes a tool error.
    let second = mock.requests.lock().unwrap()[1].1["messages"].clone();
    let answered = second
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["tool_call_id"] == "call_f")
        .unwrap()["content"]
        .to_string();
    assert!(
        answered.contains(&bridge::tool_error_text("")),
        "{answered}"
    );
    assert!(answered.contains("the disk is full"), "{answered}");
}

#[tokio::test]
async fn mcp_tools_with_the_agents_names_are_refused_and_frontend_tools_with_theirs() {
    let (mock, agent) = agent(vec![]).await;
    add_tools(
        &agent,
        McpTools::new(vec![in_process(McpConfig::default()).await]).unwrap(),
    )
    .unwrap();
    let before = agent.tool_server_handle().snapshot().len();

    // A second server with the same tools: refused, nothing added.
    let second = McpTools::new(vec![in_process(McpConfig::default()).await]).unwrap();
    let error = add_tools(&agent, second).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::ToolName);
    assert!(error.to_string().contains("`add`"), "{error}");
    assert_eq!(agent.tool_server_handle().snapshot().len(), before);

    // A frontend tool with an MCP tool's name: RUN_ERROR before the model is asked.
    let events = run(
        agent,
        input().with_tools(vec![Tool::new("slow", "the client's slow")]),
    )
    .await;
    match events.last() {
        Some(Event::RunError(e)) => {
            assert_eq!(e.code.as_deref(), Some("tool_name_clash"));
            assert!(e.message.contains("`slow`"), "{}", e.message);
        }
        other => panic!("{other:?}"),
    }
    assert!(mock.requests.lock().unwrap().is_empty());
}
