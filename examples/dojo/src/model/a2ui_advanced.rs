//! `POST /a2ui_advanced`: a generated surface with nothing configured on the server.
//!
//! `generate_a2ui` with [`GenerateA2ui`]'s defaults: the catalog, its id and its components'
//! rules come from the page, in the run's context (CopilotKit sends the page's catalog with
//! every run), so the page decides what the model may build with; the page may also render the
//! `render_a2ui` call's progress itself.

use ag_ui::a2ui::GenerateA2ui;
use ag_ui::llm::LlmAgent;

use super::ModelConfig;
use super::a2ui_dynamic_schema::PLANNER_PROMPT;

/// The agent: the model, the planner's prompt and `generate_a2ui` as it comes. No state.
pub fn agent(model: &ModelConfig) -> LlmAgent<()> {
    let generate = GenerateA2ui::new(model.client(), model.model.as_str());
    model.agent(PLANNER_PROMPT).with_tool(generate.tool())
}
