//! A model-backed AG-UI agent in a few lines: [`trip_agent`] asks an OpenAI-compatible model,
//! with one backend tool, `get_weather` (typed arguments, run here, recorded in the typed
//! state), while the frontend offers its own tools (`show_map` in the tests) through
//! `RunAgentInput.tools`: a call to one of them ends the run with `pendingToolCallIds`, and the
//! next run, carrying the client's answer, continues the conversation.

use ag_ui::llm::{BackendTool, LlmAgent, OpenAiClient, ToolError, ToolOutput};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The run's state, shared with the frontend: the cities whose weather was looked up.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TripState {
    /// Cities looked up so far, in order.
    #[serde(default)]
    pub cities_checked: Vec<String>,
}

/// Arguments of `get_weather`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WeatherArgs {
    /// The city, e.g. "Oslo".
    pub city: String,
}

/// A made-up forecast (the example needs no weather service): the same city always gets the
/// same answer.
pub fn forecast(city: &str) -> String {
    let skies = ["sunny", "cloudy", "rainy", "snowy"];
    let n: usize = city.bytes().map(usize::from).sum();
    format!("{} in {city}, {}°C", skies[n % skies.len()], 5 + n % 20)
}

/// The backend tool: looks up the weather and records the city in the state.
pub fn weather_tool() -> BackendTool<TripState> {
    BackendTool::new(
        "get_weather",
        "The current weather in a city",
        |args: WeatherArgs, mut state: TripState| async move {
            let city = args.city.trim().to_owned();
            if city.is_empty() {
                return Err(ToolError::new("the city is empty"));
            }
            let answer = forecast(&city);
            state.cities_checked.push(city);
            Ok(ToolOutput::text(answer).with_state(state))
        },
    )
}

/// The agent: `model` through `client`, a short system prompt, and the weather tool.
pub fn trip_agent(client: OpenAiClient, model: &str) -> LlmAgent<TripState> {
    LlmAgent::new(client, model)
        .with_system_prompt(
            "You help plan trips. Use get_weather for the weather, and the frontend's tools to \
             show things to the user.",
        )
        .with_tool(weather_tool())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_weather_tool_answers_and_records_the_city() {
        let out = weather_tool()
            .call(r#"{"city":"Oslo"}"#, TripState::default())
            .await
            .unwrap();
        assert_eq!(out.content(), &ag_ui::Content::Text(forecast("Oslo")));
        let err = weather_tool()
            .call(r#"{"town":"Oslo"}"#, TripState::default())
            .await
            .unwrap_err();
        assert!(err.message().contains("missing field `city`"), "{err}");
    }
}
