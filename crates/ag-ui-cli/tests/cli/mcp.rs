//! `ag-ui serve --model … --mcp …`: a live MCP server (the workspace's `mcp-demo-server`, over
//! stdio and over streamable HTTP) whose tool the mock model calls, the call and its result
//! reaching `ag-ui run` as verified events; an MCP server that cannot start, or is not an MCP
//! server, is a usage error before anything listens.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use ag_ui::{Content, Event, verify};
use serde_json::json;

use crate::model::run_json;
use crate::{ag_ui, serve_process};

#[path = "../../../ag-ui/tests/support/openai_mock.rs"]
#[allow(dead_code, unreachable_pub)]
mod openai_mock;
use openai_mock::{Mock, Reply, chunk, finish, sse};

/// The workspace's demo MCP server (`examples/mcp-agent`), which `cargo test --workspace`
/// builds beside `ag-ui`.
fn demo_server() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_BIN_EXE_ag-ui"))
        .with_file_name(format!("mcp-demo-server{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is missing: the workspace's tests build it (`cargo test --workspace`), or \
         `cargo build -p ag-ui-mcp-agent --bin mcp-demo-server`",
        path.display()
    );
    path
}

/// The demo MCP server serving streamable HTTP on a free port, killed when dropped.
struct HttpDemo {
    child: Child,
    url: String,
}

impl HttpDemo {
    fn start() -> Self {
        let mut child = Command::new(demo_server())
            .args(["--http", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut url = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut url)
            .unwrap();
        assert!(url.starts_with("http://"), "{url}");
        Self {
            child,
            url: url.trim().to_owned(),
        }
    }
}

impl Drop for HttpDemo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The mock model on its own runtime thread: a call of the MCP tool `add`, then the answer.
fn mock_model() -> (String, Arc<Mock>) {
    let replies = vec![
        Reply::Sse(sse(&[
            chunk(
                json!({"tool_calls": [{"index": 0, "id": "call_add", "type": "function",
                "function": {"name": "add", "arguments": "{\"a\":2,"}}]}),
            ),
            chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"b\":3}"}}]})),
            finish("tool_calls"),
        ])),
        Reply::Sse(sse(&[
            chunk(json!({"content": "It is 5."})),
            finish("stop"),
        ])),
    ];
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let (mock, base) = openai_mock::serve(replies).await;
            tx.send((base, mock)).unwrap();
            std::future::pending::<()>().await;
        });
    });
    rx.recv().unwrap()
}

/// Serves the model agent with `mcp` (`--mcp …` or `--mcp-url …`), runs it once, and checks
/// that the model's call reached the MCP tool and its result the client.
fn the_models_call_reaches_the_mcp_tool(mcp: &[&str]) {
    let (base, mock) = mock_model();
    let mut args = vec!["--model", "mock-model", "--base-url", base.as_str()];
    args.extend_from_slice(mcp);
    let server = serve_process(&args);
    let (code, events) = run_json(&format!("{}/", server.base));
    assert_eq!(code, Some(0), "{events:#?}");
    verify::verify_all(&events).unwrap_or_else(|v| panic!("{v}\n{events:#?}"));
    let start = events
        .iter()
        .find_map(|e| match e {
            Event::ToolCallStart(s) => Some(s),
            _ => None,
        })
        .expect("the model's call is shown");
    assert_eq!(start.tool_call_name, "add");
    let result = events
        .iter()
        .find_map(|e| match e {
            Event::ToolCallResult(r) => Some(r),
            _ => None,
        })
        .expect("the MCP tool's result is shown");
    assert_eq!(result.tool_call_id, start.tool_call_id);
    assert_eq!(result.content, Content::Text("5".into()));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::TextMessageContent(c) if c.delta == "It is 5."))
    );
    let requests = mock.requests.lock().unwrap();
    assert_eq!(requests.len(), 2);
    let offered = requests[0].1["tools"].to_string();
    assert!(
        offered.contains("\"add\"") && offered.contains("\"slow\""),
        "{offered}"
    );
    let answer = requests[1].1["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap();
    assert_eq!(answer["role"], "tool");
    assert_eq!(answer["content"], "5");
}

#[test]
fn a_stdio_mcp_servers_tool_answers_the_models_call() {
    let demo = demo_server();
    the_models_call_reaches_the_mcp_tool(&["--mcp", demo.to_str().unwrap()]);
}

#[test]
fn a_streamable_http_mcp_servers_tool_answers_the_models_call() {
    let demo = HttpDemo::start();
    the_models_call_reaches_the_mcp_tool(&["--mcp-url", &demo.url]);
}

#[test]
fn an_mcp_command_that_cannot_start_is_refused_at_startup() {
    let output = ag_ui(
        &[
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--model",
            "m",
            "--mcp",
            "/nonexistent/mcp-server --stdio",
        ],
        b"",
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--mcp /nonexistent/mcp-server --stdio")
            && stderr.contains("could not start"),
        "{stderr}"
    );
}

#[test]
fn a_command_that_is_not_an_mcp_server_is_refused_at_startup() {
    let output = ag_ui(
        &[
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--model",
            "m",
            "--mcp",
            "true",
        ],
        b"",
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("handshake"), "{stderr}");
}

#[test]
fn mcp_needs_a_model() {
    let output = ag_ui(&["serve", "--mcp", "true"], b"");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--model"));
}
