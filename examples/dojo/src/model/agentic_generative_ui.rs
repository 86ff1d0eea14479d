//! `POST /agentic_generative_ui`: the model plans a task as steps, and the agent works through
//! them in the state the page shows.
//!
//! The model calls `generate_task_steps_generative_ui` with the steps; the tool puts them in
//! the state, all `pending` (`STATE_SNAPSHOT`), then completes them one at a time, each a
//! second of simulated work ([`STEP_PAUSE`], the scripts' pause, scaled by the [`Pace`]) followed by a
//! `STATE_DELTA` turning its status to `completed`, before it returns. The page's task
//! progress card follows `state.steps`; the model, given the tool's result, then says in a
//! sentence what it did.

use ag_ui::llm::{BackendTool, LlmAgent, ToolOutput, ToolRun};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ModelConfig;
use crate::Pace;
pub use crate::scripted::agentic_generative_ui::{STEP_PAUSE, Step, StepStatus};

/// The system prompt.
pub const SYSTEM_PROMPT: &str = "You are a helpful assistant who gets things done. When asked \
to do something, call generate_task_steps_generative_ui with the steps it takes (a few words \
each, in gerund form); the tool performs them and the user watches. Afterwards do not repeat \
the steps: say in one sentence, with an emoji or two, that you did them.";

/// What the tool tells the model once every step is done.
pub const STEPS_EXECUTED: &str = "Steps executed.";

/// The state the page shows: the steps, and whatever else the page keeps.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanState {
    /// The plan's steps.
    #[serde(default)]
    pub steps: Vec<Step>,
    /// The rest of the page's state.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// One step as the model writes it.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct PlannedStep {
    /// The step, a few words in gerund form ("Digging the hole").
    pub description: String,
}

/// The arguments of `generate_task_steps_generative_ui`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct Plan {
    /// The steps of the task, in order.
    pub steps: Vec<PlannedStep>,
}

/// The `generate_task_steps_generative_ui` tool: the plan into the state, then each step
/// completed after [`STEP_PAUSE`] scaled by `pace`.
pub fn generate_task_steps(pace: Pace) -> BackendTool<PlanState> {
    BackendTool::with_run(
        "generate_task_steps_generative_ui",
        "Perform a task as a list of steps the user watches being completed.",
        move |plan: Plan, mut run: ToolRun<PlanState>| async move {
            let mut state = run.state().clone();
            state.steps = plan
                .steps
                .into_iter()
                .map(|s| Step {
                    description: s.description,
                    status: StepStatus::Pending,
                })
                .collect();
            run.publish(state.clone()).await?;
            for i in 0..state.steps.len() {
                pace.pause(STEP_PAUSE).await;
                state.steps[i].status = StepStatus::Completed;
                run.publish(state.clone()).await?;
            }
            Ok(ToolOutput::text(STEPS_EXECUTED))
        },
    )
}

/// The agent: the model, the prompt and the plan tool, its steps' work scaled by `pace`.
pub fn agent(model: &ModelConfig, pace: Pace) -> LlmAgent<PlanState> {
    model
        .agent(SYSTEM_PROMPT)
        .with_tool(generate_task_steps(pace))
}
