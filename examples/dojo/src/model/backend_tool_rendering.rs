//! `POST /backend_tool_rendering`: a tool the agent runs itself, `get_weather(location)`, whose
//! result the page renders as a weather card.
//!
//! The model calls `get_weather`; the agent runs it and sends its result as `TOOL_CALL_RESULT`
//! (JSON text of [`Weather`]: `temperature`, `conditions`, `humidity`, `wind_speed`,
//! `feelsLike`), which the page's `useRenderTool("get_weather")` parses into the card; then the
//! model, given the result, answers in words.

use ag_ui::llm::{BackendTool, LlmAgent, ToolError, ToolOutput};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ModelConfig;

/// The system prompt.
pub const SYSTEM_PROMPT: &str = "You are a weather assistant. To tell the weather anywhere, \
call get_weather with the place; the user sees its result as a card, so answer with one short \
sentence about it.";

/// The arguments of `get_weather`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
pub struct WeatherArgs {
    /// The place to get the weather for, such as a city.
    pub location: String,
}

/// What `get_weather` returns, as the Dojo's weather card reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Weather {
    /// Degrees Celsius.
    pub temperature: i32,
    /// In words.
    pub conditions: String,
    /// Percent.
    pub humidity: u8,
    /// Kilometres per hour.
    pub wind_speed: u32,
    /// Degrees Celsius.
    #[serde(rename = "feelsLike")]
    pub feels_like: i32,
}

/// The weather at `location`: a stand-in for a weather service (a real deployment calls one
/// here), the same report for every place.
pub fn weather(location: &str) -> Result<Weather, ToolError> {
    if location.trim().is_empty() {
        return Err(ToolError::new("get_weather needs a location"));
    }
    Ok(Weather {
        temperature: 20,
        conditions: "sunny".to_owned(),
        humidity: 50,
        wind_speed: 10,
        feels_like: 25,
    })
}

/// The `get_weather` tool.
pub fn get_weather() -> BackendTool<()> {
    BackendTool::new(
        "get_weather",
        "Get the current weather at a location.",
        |args: WeatherArgs, _state: ()| async move {
            let report = weather(&args.location)?;
            let json = serde_json::to_value(&report)
                .map_err(|e| ToolError::new(format!("the report did not serialize: {e}")))?;
            Ok(ToolOutput::json(&json))
        },
    )
}

/// The agent: the model, the prompt and `get_weather`. No state.
pub fn agent(model: &ModelConfig) -> LlmAgent<()> {
    model.agent(SYSTEM_PROMPT).with_tool(get_weather())
}
