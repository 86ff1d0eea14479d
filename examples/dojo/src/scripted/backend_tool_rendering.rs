//! `POST /backend_tool_rendering`: a backend tool whose result the page renders.
//!
//! - last message a tool result → the text [`DONE`];
//! - otherwise → `MESSAGES_SNAPSHOT`: the conversation, an assistant call of `get_weather`
//!   `{"city": "San Francisco"}`, and its tool message whose content is the JSON text of a
//!   [`Weather`] (the page parses it into a weather card). No `TOOL_CALL_*` events.

use ag_ui::server::{Agent, Outcome, Result, RunContext};
use serde::Serialize;

use super::json_text;
use super::{answered_a_tool, snapshot_with_tool_result};

/// The text once the client sent a tool result.
pub const DONE: &str = "Retrieved weather information!";

/// The arguments of `get_weather`.
#[derive(Debug, Serialize)]
pub struct GetWeather<'a> {
    /// Where.
    pub city: &'a str,
}

/// The result of `get_weather`, as the page's weather card reads it (numbers as strings, as
/// the reference sends them).
#[derive(Debug, Serialize)]
pub struct Weather<'a> {
    /// Where.
    pub city: &'a str,
    /// Sunny, cloudy, …
    pub conditions: &'a str,
    /// km/h.
    pub wind_speed: &'a str,
    /// °C.
    pub temperature: &'a str,
    /// Percent.
    pub humidity: &'a str,
}

/// The weather in San Francisco.
pub const SAN_FRANCISCO: Weather<'static> = Weather {
    city: "San Francisco",
    conditions: "sunny",
    wind_speed: "10",
    temperature: "20",
    humidity: "60",
};

/// The backend tool rendering agent.
#[derive(Clone, Copy, Debug, Default)]
pub struct BackendToolRendering;

impl Agent for BackendToolRendering {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        if answered_a_tool(ctx) {
            ctx.say(DONE)?;
        } else {
            let arguments = json_text(&GetWeather {
                city: SAN_FRANCISCO.city,
            })?;
            snapshot_with_tool_result(ctx, "get_weather", arguments, json_text(&SAN_FRANCISCO)?)?;
        }
        Ok(Outcome::success())
    }
}
