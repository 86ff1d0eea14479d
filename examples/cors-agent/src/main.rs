//! Serves the agent behind CORS.
//! Run with: `cargo run -p ag-ui-example-cors-agent -- [ADDR] [ORIGIN]`.

use axum::http::HeaderValue;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8002".to_owned());
    let origin = args
        .next()
        .unwrap_or_else(|| "http://localhost:3000".to_owned());
    let origin = HeaderValue::from_str(&origin)?;
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!(
        "agent on http://{}/agent for pages from {}",
        listener.local_addr()?,
        origin.to_str()?
    );
    axum::serve(listener, ag_ui_example_cors_agent::app(origin)).await?;
    Ok(())
}
