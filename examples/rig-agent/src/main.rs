//! Serves the rig agent over SSE.
//!
//! Run with: `OPENAI_API_KEY=… cargo run -p ag-ui-rig-agent [ADDR]` (default
//! `127.0.0.1:8000`). `OPENAI_BASE_URL` (default `https://api.openai.com/v1`, its `/v1`
//! included) and `MODEL` (default `gpt-4o-mini`) pick another server and model, e.g. Ollama:
//! `OPENAI_BASE_URL=http://127.0.0.1:11434/v1 MODEL=llama3.2 cargo run -p ag-ui-rig-agent`.

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui_rig_agent::rig_agent;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8000".to_owned());
    let base_url =
        std::env::var("OPENAI_BASE_URL").unwrap_or_else(|_| "https://api.openai.com/v1".to_owned());
    let model = std::env::var("MODEL").unwrap_or_else(|_| "gpt-4o-mini".to_owned());
    let key = std::env::var("OPENAI_API_KEY").unwrap_or_default();
    let agent = rig_agent(&base_url, &key, &model);
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let app = axum::Router::new().agent("/", AgentEndpoint::agent(agent));
    println!("rig agent ({model}) on http://{}/", listener.local_addr()?);
    axum::serve(listener, app).await?;
    Ok(())
}
