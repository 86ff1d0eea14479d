//! A small MCP server over stdio (`add`, `fail`, `slow`, `image`, `exit`), to try
//! `ag-ui-mcp-agent` with and to test the MCP bridge against a real process.

use rmcp::ServiceExt;

#[path = "../../../../crates/ag-ui/tests/support/mcp_server.rs"]
#[allow(dead_code, unreachable_pub)]
mod mcp_server;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let running = mcp_server::DemoServer::new()
        .serve(rmcp::transport::stdio())
        .await?;
    running.waiting().await?;
    Ok(())
}
