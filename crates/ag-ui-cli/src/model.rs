//! `ag-ui serve --model NAME`: an agent backed by an OpenAI-compatible model.

use std::io::Write;
use std::net::SocketAddr;

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui::llm::{LlmAgent, OpenAiClient};

use crate::offline::Failure;

/// Where `--base-url` points by default.
pub(crate) const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// The model agent: `model` at `base_url`, the key (if any) as a bearer token. Its state is
/// whatever JSON the frontend keeps; its tools are the frontend's.
pub(crate) fn router(path: &str, model: &str, base_url: &str, key: Option<String>) -> axum::Router {
    let mut client = OpenAiClient::new(base_url);
    if let Some(key) = key.filter(|k| !k.is_empty()) {
        client = client.with_api_key(key);
    }
    let agent = LlmAgent::<serde_json::Value>::new(client, model);
    axum::Router::new().agent(path, AgentEndpoint::agent(agent))
}

/// `ag-ui serve --model`: the model agent on `addr` at `path`, until interrupted. The key comes
/// from `OPENAI_API_KEY` (servers such as Ollama need none).
pub(crate) async fn serve(
    addr: SocketAddr,
    path: &str,
    model: &str,
    base_url: &str,
) -> Result<(), Failure> {
    let key = std::env::var("OPENAI_API_KEY").ok();
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Failure::Usage(format!("cannot listen on {addr}: {e}")))?;
    let local = listener.local_addr().map_err(Failure::Output)?;
    let banner = format!(
        "ag-ui model agent ({model} at {base_url}): http://{local}{path}\ntry: ag-ui run http://{local}{path} \"hello\"\n"
    );
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(banner.as_bytes()).and_then(|()| out.flush());
    drop(out);
    if key.is_none() {
        tracing::warn!("OPENAI_API_KEY is not set; requests go to {base_url} without a key");
    }
    axum::serve(listener, router(path, model, base_url, key))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .map_err(Failure::Output)
}
