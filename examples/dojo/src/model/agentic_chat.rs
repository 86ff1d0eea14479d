//! `POST /agentic_chat` (and the Dojo's v1 chat page, which uses this route): a chat with the
//! model, the page's frontend tools offered to it.
//!
//! The Dojo's page declares `change_background` (a CSS background for the page) and reads
//! `get_weather` calls if any; a call of `change_background` ends the run with the call
//! pending, the page paints and sends the result, and the next run answers it.

use ag_ui::llm::LlmAgent;

use super::ModelConfig;

/// The system prompt.
pub const SYSTEM_PROMPT: &str = "You are a friendly assistant in a chat window. Answer briefly. \
When the user asks for another background, call the change_background tool with a CSS \
background value; do not describe the change in words before the tool has run.";

/// The agent: the model, the prompt, the page's tools. No state.
pub fn agent(model: &ModelConfig) -> LlmAgent<()> {
    model.agent(SYSTEM_PROMPT)
}
