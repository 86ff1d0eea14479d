//! `POST /agentic_chat_multimodal`: a user message with text and an image reaches the model as
//! the provider's multimodal content.
//!
//! The page lets the person attach files; a message with an attachment arrives as content
//! parts (a text part and an `image` part carrying the data or a URL), which
//! [`LlmAgent`] sends to the model as a Chat Completions `content` array with an `image_url`
//! part (`data:{mime};base64,…` for inline data). The page's `change_background` is offered as
//! on the plain chat.

use ag_ui::llm::LlmAgent;

use super::ModelConfig;

/// The system prompt.
pub const SYSTEM_PROMPT: &str = "You are a helpful assistant who can see images. When the user \
shares an image, describe what it shows, then answer the question about it. Use the \
change_background tool only when asked to.";

/// The agent: the model (one that reads images), the prompt, the page's tools. No state.
pub fn agent(model: &ModelConfig) -> LlmAgent<()> {
    model.agent(SYSTEM_PROMPT)
}
