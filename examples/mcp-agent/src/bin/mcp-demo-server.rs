//! A small MCP server (`add`, `fail`, `slow`, `image`, `exit`), to try `ag-ui-mcp-agent` and
//! `ag-ui serve --mcp` / `--mcp-url` with and to test the MCP bridge against a real process.
//!
//! `mcp-demo-server` speaks MCP over stdio; `mcp-demo-server --http ADDR` serves streamable
//! HTTP at `http://ADDR/mcp` instead (port 0 picks a free one) and prints that URL first.
//! `--credential VALUE` is taken and ignored, as a real server's secret arguments would be
//! (the tests check that none reaches the model). For tests of the bridge's bounds,
//! `mcp-demo-server --hostile MODE` lists its tools badly over stdio: `endless-pages` (a next
//! page for ever), `huge-line` (a 17 MiB listing), `deep-schema` (a schema 200 levels deep).

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

#[path = "../../../../crates/ag-ui/tests/support/mcp_server.rs"]
#[allow(dead_code, unreachable_pub)]
mod mcp_server;

use mcp_server::{DemoServer, Hostile, HostileServer};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some("--credential") {
        args.nth(1);
    }
    match (args.next().as_deref(), args.next()) {
        (Some("--hostile"), Some(mode)) => {
            let mode =
                Hostile::parse(&mode).ok_or("--hostile endless-pages|huge-line|deep-schema")?;
            let running = HostileServer(mode).serve(rmcp::transport::stdio()).await?;
            running.waiting().await?;
        }
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
        _ => {
            return Err(
                "usage: mcp-demo-server [--credential VALUE] [--http ADDR | --hostile MODE]".into(),
            );
        }
    }
    Ok(())
}
