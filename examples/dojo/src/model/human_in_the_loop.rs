//! `POST /human_in_the_loop`: the model plans a task with the page's `generate_task_steps`,
//! and the person picks the steps.
//!
//! The page declares `generate_task_steps` (`{steps: [{description, status: "enabled" |
//! "disabled"}]}`) with `useHumanInTheLoop`: the model's call is streamed, the run ends with
//! it pending, the page shows the steps with a Confirm button, and the next run — carrying the
//! person's choice as the tool's result — continues the conversation.

use ag_ui::llm::LlmAgent;

use super::ModelConfig;

/// The system prompt.
pub const SYSTEM_PROMPT: &str = "You help people plan tasks. When asked to do or plan \
something, call generate_task_steps with the steps (a few words each, status \"enabled\") and \
wait: the user picks the steps to perform. Once the user has answered, say in one sentence \
that you are performing the chosen steps.";

/// The agent: the model, the prompt, the page's `generate_task_steps`. No state.
pub fn agent(model: &ModelConfig) -> LlmAgent<()> {
    model.agent(SYSTEM_PROMPT)
}
