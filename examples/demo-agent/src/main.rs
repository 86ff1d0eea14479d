//! Serves the demo agent over SSE.
//!
//! Run with: `cargo run -p ag-ui-demo-agent [ADDR]` (default `127.0.0.1:8000`), then
//! `cargo run -p ag-ui-cli -- run http://127.0.0.1:8000/ "hello"`.

use std::time::Duration;

use ag_ui::axum::{AgentEndpoint, RouterExt, ServeConfig};
use ag_ui_demo_agent::DemoAgent;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8000".to_owned());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let app = axum::Router::new().agent(
        "/",
        AgentEndpoint::agent(DemoAgent::new().with_pace(Duration::from_millis(30))),
    );
    println!("demo agent on http://{}/", listener.local_addr()?);
    // Not `axum::serve`: this one times out slow request heads and stops on Ctrl-C within a
    // bound, even with a client still connected.
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    ag_ui::axum::serve(listener, app, ServeConfig::default(), ctrl_c).await
}
