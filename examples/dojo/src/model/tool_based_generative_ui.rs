//! `POST /tool_based_generative_ui`: the model writes a haiku by calling the page's
//! `generate_haiku`, which the page renders as a card.
//!
//! The page declares `generate_haiku` (`{japanese: [3 lines], english: [3 lines], image_name,
//! gradient}`) as a frontend tool: the run ends with the call pending, the page shows the card
//! and answers, and the next run says it is done.

use ag_ui::llm::LlmAgent;

use super::ModelConfig;

/// The system prompt.
pub const SYSTEM_PROMPT: &str = "You write haiku. When asked for one, call generate_haiku with \
three lines in Japanese, their English translation, one of the image names the tool lists, and \
a CSS gradient; do not write the haiku as text.";

/// The agent: the model, the prompt, the page's `generate_haiku`. No state.
pub fn agent(model: &ModelConfig) -> LlmAgent<()> {
    model.agent(SYSTEM_PROMPT)
}
