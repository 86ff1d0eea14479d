//! A small MCP server (`add`, `fail`, `slow`, `image`, `exit`), to try `ag-ui-mcp-agent` and
//! `ag-ui serve --mcp` / `--mcp-url` with and to test the MCP bridge against a real process.
//!
//! `mcp-demo-server` speaks MCP over stdio; `mcp-demo-server --http ADDR` serves streamable
//! HTTP at `http://ADDR/mcp` instead (port 0 picks a free one) and prints that URL first.

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

#[path = "../../../../crates/ag-ui/tests/support/mcp_server.rs"]
#[allow(dead_code, unreachable_pub)]
mod mcp_server;

use mcp_server::DemoServer;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (None, _) => {
            let running = DemoServer::new().serve(rmcp::transport::stdio()).await?;
            running.waiting().await?;
        }
        (Some("--http"), Some(addr)) => {
            let service: StreamableHttpService<DemoServer, LocalSessionManager> =
                StreamableHttpService::new(
                    || Ok(DemoServer::new()),
                    Default::default(),
                    StreamableHttpServerConfig::default(),
                );
            let listener = tokio::net::TcpListener::bind(&addr).await?;
            println!("http://{}/mcp", listener.local_addr()?);
            let router = axum::Router::new().nest_service("/mcp", service);
            axum::serve(listener, router).await?;
        }
        _ => return Err("usage: mcp-demo-server [--http ADDR]".into()),
    }
    Ok(())
}
