//! The demo MCP server (`mcp_server.rs`) served in-process over a duplex pipe, connected as
//! an `ag_ui::mcp::McpServer` named `demo`: used by this crate's MCP tests and crates/ag-ui-rig's,
//! which include this file and `mcp_server.rs` by path.

use ag_ui::mcp::{McpConfig, McpServer};
use rmcp::ServiceExt;

use super::mcp_server::DemoServer;

/// A connection to a fresh demo server.
pub async fn in_process(config: McpConfig) -> McpServer {
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = DemoServer::new().serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    McpServer::connect("demo", client_side, config)
        .await
        .unwrap()
}
