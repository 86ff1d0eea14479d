//! MCP tools against a real rmcp server in-process (over a duplex pipe), and offered to
//! `LlmAgent` with the mock OpenAI-compatible model; every AG-UI stream passes the verifier.

use std::time::Duration;

use ag_ui::llm::{LlmAgent, OpenAiClient};
use ag_ui::mcp::{McpConfig, McpErrorKind, McpServer, McpTools};
use ag_ui::server::Runner;
use ag_ui::{Content, ContentPart, Event, Message, RunAgentInput, Tool, verify};
use futures::StreamExt;
use serde_json::json;

mod support;
use support::mcp_pipe::in_process;
use support::mcp_server::DemoServer;
use support::openai_mock::{self, Reply, chunk, finish, sse};

#[tokio::test]
async fn lists_names_descriptions_and_schemas() {
    let server = in_process(McpConfig::default()).await;
    let tools = server.tools();
    let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    for name in ["add", "fail", "slow", "image", "exit"] {
        assert!(names.contains(&name), "{names:?}");
    }
    let add = tools.iter().find(|t| t.name == "add").unwrap();
    assert_eq!(add.description, "Adds two numbers");
    let schema = add.parameters.as_ref().unwrap();
    assert_eq!(schema["properties"]["a"]["type"], "number");
}

#[tokio::test]
async fn calls_return_text_parts_or_tool_errors() {
    let server = in_process(McpConfig::default()).await;
    assert_eq!(
        server.call("add", r#"{"a":2,"b":3}"#).await.unwrap(),
        Content::Text("5".into())
    );
    let failed = server.call("fail", "").await.unwrap_err();
    assert_eq!(failed.kind(), McpErrorKind::ToolError);
    assert!(failed.to_string().contains("the disk is full"), "{failed}");
    let unknown = server.call("nope", "{}").await.unwrap_err();
    assert_eq!(unknown.kind(), McpErrorKind::CallFailed);
    assert!(unknown.to_string().contains("nope"), "{unknown}");
    let bad = server.call("add", "[1]").await.unwrap_err();
    assert_eq!(bad.kind(), McpErrorKind::InvalidArguments);
    assert!(bad.to_string().contains("JSON object"), "{bad}");
    let bad = server.call("add", "{").await.unwrap_err();
    assert_eq!(bad.kind(), McpErrorKind::InvalidArguments);
    assert!(bad.to_string().contains("are not JSON"), "{bad}");
    match server.call("image", "{}").await.unwrap() {
        Content::Parts(parts) => {
            assert_eq!(parts[0], ContentPart::text("a dot"));
            assert!(matches!(parts[1], ContentPart::Image(_)), "{parts:?}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn the_tools_of_several_servers_are_called_by_name() {
    let tools = McpTools::new(vec![in_process(McpConfig::default()).await]).unwrap();
    assert_eq!(
        tools.call("add", r#"{"a":1,"b":2}"#).await.unwrap(),
        Content::Text("3".into())
    );
    let failed = tools.call("fail", "{}").await.unwrap_err();
    assert!(failed.to_string().contains("the disk is full"), "{failed}");
    let unknown = tools.call("nope", "{}").await.unwrap_err();
    assert_eq!(unknown.kind(), McpErrorKind::UnknownTool);
    assert_eq!(
        unknown.to_string(),
        "no MCP server offers a tool named `nope`"
    );
}

#[tokio::test]
async fn a_slow_tool_past_its_time_out_is_a_clear_error() {
    let config = McpConfig::default().with_call_timeout(Duration::from_millis(200));
    let server = in_process(config).await;
    let started = std::time::Instant::now();
    let error = server.call("slow", r#"{"ms":5000}"#).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(error.kind(), McpErrorKind::CallTimeout);
    assert!(
        error.to_string().contains("did not answer `slow` within"),
        "{error}"
    );
    // The server still answers the next call.
    assert_eq!(
        server.call("slow", r#"{"ms":1}"#).await.unwrap(),
        Content::Text("done".into())
    );
}

#[tokio::test]
async fn colliding_names_are_refused() {
    let a = in_process(McpConfig::default()).await;
    let b = in_process(McpConfig::default()).await;
    let error = McpTools::new(vec![a, b]).unwrap_err();
    assert_eq!(error.kind(), McpErrorKind::DuplicateTool);
    assert!(error.to_string().contains("`add`"), "{error}");

    // A frontend tool with an MCP tool's name: the model agent refuses the run.
    let tools = McpTools::new(vec![in_process(McpConfig::default()).await]).unwrap();
    let (mock, base) = openai_mock::serve(vec![]).await;
    let mut agent = LlmAgent::<()>::new(OpenAiClient::new(base), "mock-model");
    for tool in tools.backend_tools() {
        agent = agent.with_tool(tool);
    }
    let input = RunAgentInput::new("t", "r")
        .with_messages(vec![Message::user("u1", "Hi")])
        .with_tools(vec![
            Tool::new("confirm", ""),
            Tool::new("add", "a frontend add"),
        ]);
    let events: Vec<Event> = Runner::new(agent).run(input).unwrap().collect().await;
    verify::verify_all(&events).unwrap_or_else(|v| panic!("{v}\n{events:#?}"));
    match events.last() {
        Some(Event::RunError(e)) => {
            assert_eq!(e.code.as_deref(), Some("tool_name_clash"));
            assert!(e.message.contains("`add`"), "{}", e.message);
        }
        other => panic!("{other:?}"),
    }
    assert!(mock.requests.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_command_that_cannot_start_is_a_clear_error() {
    let error = McpServer::stdio(
        "/nonexistent/ag-ui-mcp-server",
        ["--flag"],
        McpConfig::default(),
    )
    .await
    .unwrap_err();
    assert_eq!(error.kind(), McpErrorKind::Spawn);
    // Named by the program's file name: its path and arguments may hold secrets.
    let text = error.to_string();
    assert!(
        text.contains("`ag-ui-mcp-server`") && !text.contains("--flag"),
        "{error}"
    );
    // A command that starts but is not an MCP server fails the handshake.
    let error = McpServer::stdio("true", Vec::<String>::new(), McpConfig::default())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), McpErrorKind::Connect);
}

fn call(index: u32, id: &str, name: &str, arguments: &str) -> serde_json::Value {
    chunk(
        json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                                  "function": {"name": name, "arguments": arguments}}]}),
    )
}

fn args(index: u32, arguments: &str) -> serde_json::Value {
    chunk(json!({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]}))
}

#[tokio::test]
async fn llm_agent_streams_mcp_calls_and_results_and_errors_reach_the_model() {
    let tools = McpTools::new(vec![in_process(McpConfig::default()).await]).unwrap();
    let (mock, base) = openai_mock::serve(vec![
        Reply::Sse(sse(&[
            call(0, "call_a", "add", "{\"a\":"),
            args(0, "2,\"b\":3}"),
            call(1, "call_f", "fail", "{}"),
            finish("tool_calls"),
        ])),
        Reply::Sse(sse(&[
            chunk(json!({"content": "5, and a failure."})),
            finish("stop"),
        ])),
    ])
    .await;
    let mut agent = LlmAgent::<()>::new(OpenAiClient::new(base), "mock-model");
    for tool in tools.backend_tools() {
        agent = agent.with_tool(tool);
    }
    let input = RunAgentInput::new("t", "r").with_messages(vec![Message::user("u1", "Hi")]);
    let events: Vec<Event> = Runner::new(agent).run(input).unwrap().collect().await;
    verify::verify_all(&events).unwrap_or_else(|v| panic!("{v}\n{events:#?}"));
    assert!(events.contains(&Event::tool_call_args("r-call-1", "2,\"b\":3}")));
    assert!(events.contains(&Event::tool_call_result("r-msg-2", "r-call-1", "5")));
    assert!(events.contains(&Event::tool_call_result(
        "r-msg-3",
        "r-call-2",
        "Error: the disk is full"
    )));
    assert!(matches!(events.last(), Some(Event::RunFinished(_))));
    let requests = mock.requests.lock().unwrap();
    let declared: Vec<_> = requests[0].1["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(declared.contains(&"add".to_owned()) && declared.contains(&"slow".to_owned()));
}

#[tokio::test]
async fn streamable_http_lists_and_calls() {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

    let service: StreamableHttpService<DemoServer, LocalSessionManager> =
        StreamableHttpService::new(
            || Ok(DemoServer::new()),
            Default::default(),
            StreamableHttpServerConfig::default(),
        );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    let server = McpServer::http(&format!("http://{addr}/mcp"), McpConfig::default())
        .await
        .unwrap();
    assert!(server.tools().iter().any(|t| t.name == "add"));
    assert_eq!(
        server.call("add", r#"{"a":4,"b":5}"#).await.unwrap(),
        Content::Text("9".into())
    );
    // Nothing listening: a clear connection error.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", closed.local_addr().unwrap());
    drop(closed);
    let error = McpServer::http(&url, McpConfig::default())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), McpErrorKind::Connect);
}
