//! `POST /agentic_chat`: a chat that counts down, calls a frontend tool, or reports a backend
//! tool, depending on the last message.
//!
//! - last message a tool result → the text [`TOOL_DONE`];
//! - last message `"tool"` → a call of the page's frontend tool `change_background` with
//!   [`BACKGROUND`] (no text);
//! - last message `"backend_tool"` → `MESSAGES_SNAPSHOT`: the conversation, an assistant call of
//!   `lookup_weather` and its result [`WEATHER`];
//! - anything else → one assistant message: `"counting down: "`, `"10  "`, `"9  "`, … `"1  "`
//!   (each followed by a 300 ms pause), then `"✓"`.

use std::time::Duration;

use ag_ui::server::{Agent, Outcome, Result, RunContext};
use serde::Serialize;

use super::{Pace, json_text};
use super::{answered_a_tool, last_text, snapshot_with_tool_result};

/// The text after the page ran `change_background`.
pub const TOOL_DONE: &str = "background changed ✓";
/// The background the agent asks the page for.
pub const BACKGROUND: &str = "linear-gradient(135deg, #667eea 0%, #764ba2 100%)";
/// The backend tool's result.
pub const WEATHER: &str = "The weather in San Francisco is sunny.";
/// The reference's pause after each number of the countdown.
pub const COUNTDOWN_PAUSE: Duration = Duration::from_millis(300);

/// The arguments of `change_background`.
#[derive(Debug, Serialize)]
pub struct ChangeBackground<'a> {
    /// A CSS background.
    pub background: &'a str,
}

/// The arguments of `lookup_weather`.
#[derive(Debug, Serialize)]
pub struct LookupWeather<'a> {
    /// Where.
    pub city: &'a str,
    /// What it found.
    pub weather: &'a str,
}

/// The agentic chat agent.
#[derive(Clone, Copy, Debug, Default)]
pub struct AgenticChat {
    /// The factor on the countdown's pauses.
    pub pace: Pace,
}

impl Agent for AgenticChat {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        if answered_a_tool(ctx) {
            ctx.say(TOOL_DONE)?;
            return Ok(Outcome::success());
        }
        match last_text(ctx).as_deref() {
            Some("tool") => {
                // A frontend tool: the page runs it and sends the result back in a new run.
                let mut call = ctx.tool_call("change_background")?;
                call.args(json_text(&ChangeBackground {
                    background: BACKGROUND,
                })?)?;
                call.end()?;
            }
            Some("backend_tool") => {
                let arguments = json_text(&LookupWeather {
                    city: "San Francisco",
                    weather: "sunny",
                })?;
                snapshot_with_tool_result(ctx, "lookup_weather", arguments, WEATHER.to_owned())?;
            }
            _ => {
                let mut message = ctx.assistant_message()?;
                message.delta("counting down: ")?;
                for n in (1..=10).rev() {
                    message.delta(format!("{n}  "))?;
                    self.pace.pause(COUNTDOWN_PAUSE).await;
                }
                message.delta("✓")?;
                message.end()?;
            }
        }
        Ok(Outcome::success())
    }
}
