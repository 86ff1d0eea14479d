//! Serves the model agent over SSE.
//!
//! Run with: `OPENAI_API_KEY=… cargo run -p ag-ui-model-agent [ADDR]` (default
//! `127.0.0.1:8000`). `OPENAI_BASE_URL` (default `https://api.openai.com/v1`) and `MODEL`
//! (default `gpt-4o-mini`) pick another server and model, e.g. Ollama:
//! `OPENAI_BASE_URL=http://127.0.0.1:11434/v1 MODEL=llama3.2 cargo run -p ag-ui-model-agent`.

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui::llm::OpenAiClient;
use ag_ui_model_agent::trip_agent;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8000".to_owned());
    let base_url =
        std::env::var("OPENAI_BASE_URL").unwrap_or_else(|_| "https://api.openai.com/v1".to_owned());
    let model = std::env::var("MODEL").unwrap_or_else(|_| "gpt-4o-mini".to_owned());
    let mut client = OpenAiClient::new(base_url);
    if let Ok(key) = std::env::var("OPENAI_API_KEY") {
        client = client.with_api_key(key);
    }
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let app = axum::Router::new().agent("/", AgentEndpoint::agent(trip_agent(client, &model)));
    println!(
        "model agent ({model}) on http://{}/",
        listener.local_addr()?
    );
    // ag_ui::axum::serve rather than axum::serve: a header time-out, a connection cap, and
    // about 11 KB less memory per open run (README, Performance).
    let config = ag_ui::axum::ServeConfig::default();
    ag_ui::axum::serve(listener, app, config, std::future::pending()).await
}
