//! `POST /agentic_chat_reasoning`: the model's reasoning streamed as `REASONING_*`, then its
//! answer.
//!
//! A reasoning model streams its thinking before it answers (`reasoning_content` or
//! `reasoning` in the Chat Completions chunks, as DeepSeek, vLLM, OpenRouter and Ollama send
//! it); [`LlmAgent`] opens a reasoning message for it, then the assistant's text. The page
//! shows the thought ("Thought for 2s") above the answer, and keeps a model choice in the
//! state (`{model: "OpenAI"}`), which the agent passes on to the model with the rest of the
//! state.
//!
//! Behind `@copilotkit/runtime` 1.75 (whose `@ag-ui/client` 0.0.59 sends no
//! `protocolVersion`) the route must be told that its oldest client reads reasoning
//! ([`Config::oldest_client`](crate::Config::oldest_client), `--old-clients 0.0.57`):
//! otherwise the downgrade sends `THINKING_*`, which no pre-1.0 client keeps, and the page shows
//! no thought.

use ag_ui::llm::LlmAgent;
use serde_json::Value;

use super::ModelConfig;

/// The system prompt.
pub const SYSTEM_PROMPT: &str = "You are a thoughtful assistant. Think the question through \
before answering, then give a short, well-organized answer. Use the change_background tool \
only when asked to.";

/// The agent: the model, the prompt, the page's tools; the page's state kept as it is.
pub fn agent(model: &ModelConfig) -> LlmAgent<Value> {
    model.agent(SYSTEM_PROMPT)
}
