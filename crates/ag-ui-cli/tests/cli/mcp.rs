//! `ag-ui serve --model … --mcp …`: a live MCP server (the workspace's `mcp-demo-server`, over
//! stdio and over streamable HTTP) whose tool the mock model calls, the call and its result
//! reaching `ag-ui run` as verified events; an MCP server that cannot start, or is not an MCP
//! server, is a usage error before anything listens; so is one whose listing is endless, too
//! long a line or too deep, each named at once; a tool error names the server by its label,
//! never its command line or URL credentials.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use ag_ui::{Content, Event, verify};
use serde_json::json;

use crate::model::run_json;
use crate::{ag_ui, ag_ui_peak, serve_process};

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
    mock_model_with(vec![
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
    ])
}

/// The mock model answering with `replies`, on its own runtime thread.
fn mock_model_with(replies: Vec<Reply>) -> (String, Arc<Mock>) {
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

/// `ag-ui serve` with the hostile demo server `mode` over stdio: its stderr and exit code.
fn serve_hostile(mode: &str) -> (String, Option<i32>) {
    let demo = demo_server();
    let mcp = format!("{} --hostile {mode}", demo.display());
    // Under an address-space limit: an endless listing taken whole fails the test, not the
    // machine.
    let (output, _) = ag_ui_peak(
        &[
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--model",
            "m",
            "--mcp",
            &mcp,
        ],
        2 << 30,
    );
    (
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.code(),
    )
}

/// A server that pages its tool listing for ever stops `serve` at startup with the bound it
/// passed (it was listed until the process ran out of memory).
#[test]
fn an_endless_tool_listing_is_refused_at_startup() {
    let (stderr, code) = serve_hostile("endless-pages");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("the MCP server `mcp-demo-server` lists its tools in more than 1000 pages"),
        "{stderr}"
    );
}

/// A listing on a line over 16 MiB, or nested past what a JSON parser reads, is named as such
/// at once (it was dropped, and the listing waited out its 30 s time-out).
#[test]
fn a_listing_too_long_or_too_deep_is_named_at_once() {
    for (mode, cause) in [
        ("huge-line", "it sent a message over 16 MiB"),
        ("deep-schema", "it sent a message nested 128 levels deep"),
    ] {
        let (stderr, code) = serve_hostile(mode);
        assert_eq!(code, Some(2), "{mode}: {stderr}");
        assert!(
            stderr.contains("the MCP server `mcp-demo-server` did not list its tools: ")
                && stderr.contains(cause),
            "{mode}: {stderr}"
        );
        assert!(!stderr.contains("in time"), "{mode}: {stderr}");
    }
}

/// The MCP server goes away mid-call (over stdio the model calls `exit`; the HTTP server is
/// stopped before the run), and the tool error the model and the client see names the server
/// by its label, not by the command line or URL that holds a credential (it quoted them
/// whole, into `TOOL_CALL_RESULT` and the model's input).
#[test]
fn a_tool_error_names_the_server_never_its_credentials() {
    let secret = "postgresql://admin:s3cret@db.internal/prod";
    let demo = demo_server();
    let mut http = HttpDemo::start();
    let port = http
        .url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let credentialed = format!("http://admin:s3cret@{port}/mcp?token=s3cret");
    for (flag, value, label, tool) in [
        (
            "--mcp",
            format!("{} --credential {secret}", demo.display()),
            "mcp-demo-server".to_owned(),
            "exit",
        ),
        ("--mcp-url", credentialed, port.clone(), "add"),
    ] {
        let (base, mock) = mock_model_with(vec![
            Reply::Sse(sse(&[
                chunk(
                    json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                    "function": {"name": tool, "arguments": "{\"a\":1,\"b\":2}"}}]}),
                ),
                finish("tool_calls"),
            ])),
            Reply::Sse(sse(&[
                chunk(json!({"content": "It failed."})),
                finish("stop"),
            ])),
        ]);
        let server = serve_process(&["--model", "mock-model", "--base-url", &base, flag, &value]);
        if flag == "--mcp-url" {
            let _ = http.child.kill();
            let _ = http.child.wait();
        }
        let (code, events) = run_json(&format!("{}/", server.base));
        assert_eq!(code, Some(0), "{flag}: {events:#?}");
        let result = events
            .iter()
            .find_map(|e| match e {
                Event::ToolCallResult(r) => Some(r.content.clone()),
                _ => None,
            })
            .expect("the tool error is shown");
        let Content::Text(text) = result else {
            panic!("{result:?}")
        };
        assert!(text.contains(&format!("`{label}`")), "{flag}: {text}");
        let model_input = mock.requests.lock().unwrap()[1].1.to_string();
        for shown in [text.as_str(), model_input.as_str()] {
            assert!(
                !shown.contains("s3cret") && !shown.contains("admin"),
                "{flag}: {shown}"
            );
        }
    }
}
