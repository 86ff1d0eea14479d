//! `POST /a2ui_recovery`: a generated surface that is invalid at first, recovered, or never.
//!
//! The same agent as [`a2ui_dynamic_schema`](super::a2ui_dynamic_schema), with the number of
//! attempts set explicitly ([`MAX_ATTEMPTS`]): when the sub-agent's surface breaks A2UI's
//! rules (a child it references but never defines), the findings go back to it and it is
//! asked again; the middleware paints only a valid surface. When every attempt fails, the tool's
//! result is `{"error", "code": "a2ui_recovery_exhausted", "attempts"}`, which the page shows as
//! a failure ("Couldn't generate the UI"), and the conversation goes on.

use ag_ui::a2ui::{DEFAULT_MAX_ATTEMPTS, GenerateA2ui};
use ag_ui::llm::LlmAgent;

use super::ModelConfig;
use super::a2ui_dynamic_schema::{PLANNER_PROMPT, generate};

/// How many surfaces the sub-agent may render before the generation fails.
pub const MAX_ATTEMPTS: u32 = DEFAULT_MAX_ATTEMPTS;

/// The `generate_a2ui` tool of this route.
pub fn generate_with_recovery(model: &ModelConfig) -> GenerateA2ui {
    let generate = generate(model);
    let config = generate.config().clone().with_max_attempts(MAX_ATTEMPTS);
    generate.with_config(config)
}

/// The agent: the model, the planner's prompt and `generate_a2ui`. No state.
pub fn agent(model: &ModelConfig) -> LlmAgent<()> {
    model
        .agent(PLANNER_PROMPT)
        .with_tool(generate_with_recovery(model).tool())
}
