//! A model agent with an MCP server's tools, over SSE.
//!
//! Run with: `cargo run -p ag-ui-mcp-agent -- COMMAND [ARGS…]`, the MCP server's command line
//! (e.g. `npx -y @modelcontextprotocol/server-everything`, or this package's own
//! `target/debug/mcp-demo-server`). `ADDR` (default `127.0.0.1:8000`), `OPENAI_BASE_URL`
//! (default `https://api.openai.com/v1`), `MODEL` (default `gpt-4o-mini`) and
//! `OPENAI_API_KEY` configure the rest, as for `examples/model-agent`.

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui::llm::{LlmAgent, OpenAiClient};
use ag_ui::mcp::{McpConfig, McpServer, McpTools};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let env =
        |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.to_owned());
    let mut args = std::env::args().skip(1);
    let command = args
        .next()
        .ok_or("usage: ag-ui-mcp-agent COMMAND [ARGS…]")?;
    let server = McpServer::stdio(&command, args, McpConfig::default()).await?;
    let client = OpenAiClient::new(env("OPENAI_BASE_URL", "https://api.openai.com/v1"))
        .with_api_key(env("OPENAI_API_KEY", ""));
    let mut agent = LlmAgent::<()>::new(client, env("MODEL", "gpt-4o-mini"));
    for tool in McpTools::new(vec![server])?.backend_tools() {
        agent = agent.with_tool(tool);
    }
    let listener = tokio::net::TcpListener::bind(env("ADDR", "127.0.0.1:8000")).await?;
    println!("MCP agent on http://{}/", listener.local_addr()?);
    axum::serve(
        listener,
        axum::Router::new().agent("/", AgentEndpoint::agent(agent)),
    )
    .await?;
    Ok(())
}
