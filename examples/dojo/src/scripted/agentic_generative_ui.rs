//! `POST /agentic_generative_ui`: a plan whose steps complete one by one in the shared state.
//!
//! Ignores the input. `STATE_SNAPSHOT` of [`Plan::pending`] (ten steps, `"pending"`), a 1 s
//! pause, then for each step a `STATE_DELTA` replacing `/steps/i/status` with `"completed"`
//! followed by a 1 s pause, then a final `STATE_SNAPSHOT` with every step completed. No text.
//!
//! The deltas are what [`RunContext::publish_state_delta`] computes from the typed state
//! (an RFC 6902 diff against what was last published), as the reference computes them with
//! `jsonpatch.make_patch`.

use std::time::Duration;

use ag_ui::server::{Agent, Outcome, Result, RunContext};
use serde::{Deserialize, Serialize};

use super::Pace;

/// The reference's pause after the first snapshot and after each delta.
pub const STEP_PAUSE: Duration = Duration::from_secs(1);

/// Where a step is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepStatus {
    /// Not done yet.
    #[default]
    Pending,
    /// Done.
    Completed,
}

/// One step of the plan.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// What the step does.
    #[serde(default)]
    pub description: String,
    /// Where it is.
    #[serde(default)]
    pub status: StepStatus,
}

/// The shared state of this route.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// The steps, in order.
    #[serde(default)]
    pub steps: Vec<Step>,
}

impl Plan {
    /// Ten pending steps, "Step 1" to "Step 10".
    pub fn pending() -> Self {
        Plan {
            steps: (1..=10)
                .map(|n| Step {
                    description: format!("Step {n}"),
                    status: StepStatus::Pending,
                })
                .collect(),
        }
    }
}

/// The agentic generative UI agent.
#[derive(Clone, Copy, Debug, Default)]
pub struct AgenticGenerativeUi {
    /// The factor on the pauses between steps.
    pub pace: Pace,
}

impl Agent for AgenticGenerativeUi {
    type State = Plan;

    async fn run(&self, ctx: &mut RunContext<Plan>) -> Result<Outcome> {
        *ctx.state_mut() = Plan::pending();
        ctx.publish_state()?;
        self.pace.pause(STEP_PAUSE).await;
        for i in 0..ctx.state().steps.len() {
            ctx.state_mut().steps[i].status = StepStatus::Completed;
            ctx.publish_state_delta()?;
            self.pace.pause(STEP_PAUSE).await;
        }
        ctx.publish_state()?;
        Ok(Outcome::success())
    }
}
