//! `POST /human_in_the_loop`: a frontend tool call whose arguments stream step by step, for
//! the person to pick from.
//!
//! - last message a tool result (the person confirmed) → the text [`DONE`];
//! - otherwise → a call of `generate_task_steps` whose arguments stream as `{"steps":[`, then
//!   ten `{"description": "Step N", "status": "enabled"}`, each but the last followed by a
//!   comma in the same delta and by a 200 ms pause, then `]}`.

use std::time::Duration;

use ag_ui::server::{Agent, Outcome, Result, RunContext};
use serde::{Deserialize, Serialize};

use super::answered_a_tool;
use super::{Pace, json_text};

/// The text once the person confirmed the steps.
pub const DONE: &str = "Ok! I'm working on it.";
/// The reference's pause after each streamed step.
pub const STEP_PAUSE: Duration = Duration::from_millis(200);

/// Whether the page lets the step be picked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepStatus {
    /// Picked.
    Enabled,
    /// Left out.
    Disabled,
}

/// One step of `generate_task_steps`' arguments `{steps: [TaskStep]}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskStep {
    /// What the step does.
    pub description: String,
    /// Whether it is picked.
    pub status: StepStatus,
}

/// The human-in-the-loop agent.
#[derive(Clone, Copy, Debug, Default)]
pub struct HumanInTheLoop {
    /// The factor on the pauses between steps.
    pub pace: Pace,
}

impl Agent for HumanInTheLoop {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        if answered_a_tool(ctx) {
            ctx.say(DONE)?;
            return Ok(Outcome::success());
        }
        let mut call = ctx.tool_call("generate_task_steps")?;
        call.args(r#"{"steps":["#)?;
        for n in 1..=10 {
            let step = TaskStep {
                description: format!("Step {n}"),
                status: StepStatus::Enabled,
            };
            let mut delta = json_text(&step)?;
            if n < 10 {
                delta.push(',');
            }
            call.args(delta)?;
            self.pace.pause(STEP_PAUSE).await;
        }
        call.args("]}")?;
        call.end()?;
        Ok(Outcome::success())
    }
}
