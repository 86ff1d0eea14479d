//! The model-driven backend (`ag-ui-dojo`'s default): each Dojo feature an
//! [`LlmAgent`] asking an OpenAI-compatible model, as every real integration in the Dojo does.
//!
//! The page brings its own tools (`RunAgentInput.tools`: `change_background`,
//! `generate_task_steps`, `generate_haiku`, `confirm_changes`, …); the agent adds the backend
//! tools of its feature and its system prompt, and streams what the model does: text,
//! reasoning, tool calls (a call of a page's tool ends the run with the call pending, and the
//! next run carries the page's answer), the backend tools' results as `TOOL_CALL_RESULT`, and
//! the state they write as `STATE_DELTA`.
//!
//! | route | module | the agent's own tools | its state |
//! |---|---|---|---|
//! | `/agentic_chat` | [`agentic_chat`] | — | — |
//! | `/backend_tool_rendering` | [`backend_tool_rendering`] | `get_weather` | — |
//! | `/human_in_the_loop` | [`human_in_the_loop`] | — | — |
//! | `/agentic_generative_ui` | [`agentic_generative_ui`] | `generate_task_steps_generative_ui` | `steps` |
//! | `/tool_based_generative_ui` | [`tool_based_generative_ui`] | — | — |
//! | `/shared_state` | [`shared_state`] | `generate_recipe` | `recipe` |
//! | `/predictive_state_updates` | [`predictive_state_updates`] | `write_document_local` | `document` |
//! | `/agentic_chat_reasoning` | [`agentic_chat_reasoning`] | — | whatever the page keeps |
//! | `/agentic_chat_multimodal` | [`agentic_chat_multimodal`] | — | — |
//! | `/a2ui_fixed_schema` | [`a2ui_fixed_schema`] | `search_flights`, `search_hotels` | — |
//! | `/a2ui_dynamic_schema` | [`a2ui_dynamic_schema`] | `generate_a2ui` (the Dojo's catalog, a guide) | — |
//! | `/a2ui_advanced` | [`a2ui_advanced`] | `generate_a2ui` (the page's catalog) | — |
//! | `/a2ui_recovery` | [`a2ui_recovery`] | `generate_a2ui` (3 attempts) | — |
//!
//! The tests run every route against `@copilotkit/aimock`, the mock model of the Dojo's own
//! end-to-end suite, loaded with the Dojo's fixtures (`interop/aimock/`): the tool names, the
//! argument shapes and the prompts here are the ones those fixtures answer.

pub mod a2ui_advanced;
pub mod a2ui_dynamic_schema;
pub mod a2ui_fixed_schema;
pub mod a2ui_recovery;
pub mod agentic_chat;
pub mod agentic_chat_multimodal;
pub mod agentic_chat_reasoning;
pub mod agentic_generative_ui;
pub mod backend_tool_rendering;
pub mod human_in_the_loop;
pub mod predictive_state_updates;
pub mod shared_state;
pub mod tool_based_generative_ui;

use std::fmt;

use ag_ui::llm::{LlmAgent, OpenAiClient};

use crate::{Pace, Routes};

/// The model server `ModelConfig::default()` asks: OpenAI's.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// The model `ModelConfig::default()` asks.
pub const DEFAULT_MODEL: &str = "gpt-4o";

/// Which model the agents ask, and where.
///
/// ```
/// use ag_ui_dojo::model::ModelConfig;
///
/// let env = |name: &str| match name {
///     "OPENAI_BASE_URL" => Some("http://127.0.0.1:4010/v1".to_owned()),
///     "OPENAI_API_KEY" => Some("sk-secret".to_owned()),
///     _ => None,
/// };
/// let config = ModelConfig::from_env(env);
/// assert_eq!(config.base_url, "http://127.0.0.1:4010/v1");
/// assert_eq!(config.model, "gpt-4o");
/// assert!(!format!("{config:?}").contains("sk-secret"));
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ModelConfig {
    /// The base URL of the OpenAI-compatible server (`…/v1`), default [`DEFAULT_BASE_URL`].
    pub base_url: String,
    /// The key, sent as a bearer token; none by default.
    pub api_key: Option<String>,
    /// The model's name, default [`DEFAULT_MODEL`].
    pub model: String,
}

impl Default for ModelConfig {
    fn default() -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.to_owned(),
            api_key: None,
            model: DEFAULT_MODEL.to_owned(),
        }
    }
}

impl fmt::Debug for ModelConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .finish()
    }
}

impl ModelConfig {
    /// The configuration from the environment, read through `var`: `OPENAI_BASE_URL`,
    /// `OPENAI_API_KEY` and `MODEL`, each left at its default when unset or empty.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Self {
        let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let defaults = Self::default();
        Self {
            base_url: var("OPENAI_BASE_URL").unwrap_or(defaults.base_url),
            api_key: var("OPENAI_API_KEY"),
            model: var("MODEL").unwrap_or(defaults.model),
        }
    }

    /// Sets [`base_url`](Self::base_url).
    #[must_use]
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// Sets [`api_key`](Self::api_key).
    #[must_use]
    pub fn with_api_key(mut self, key: Option<String>) -> Self {
        self.api_key = key;
        self
    }

    /// Sets [`model`](Self::model).
    #[must_use]
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// A client of this model's server.
    pub fn client(&self) -> OpenAiClient {
        let client = OpenAiClient::new(self.base_url.as_str());
        match &self.api_key {
            Some(key) => client.with_api_key(key.as_str()),
            None => client,
        }
    }

    /// An agent asking this model, with `system_prompt`.
    pub fn agent<S>(&self, system_prompt: &str) -> LlmAgent<S> {
        LlmAgent::new(self.client(), self.model.as_str()).with_system_prompt(system_prompt)
    }
}

/// Mounts the model-driven agents: every route of [`FEATURES`](crate::FEATURES); `pace` scales
/// the simulated work of [`agentic_generative_ui`]'s steps.
pub(crate) fn routes(routes: Routes, model: &ModelConfig, pace: Pace) -> Routes {
    routes
        .agent("agentic_chat", agentic_chat::agent(model))
        .agent(
            "backend_tool_rendering",
            backend_tool_rendering::agent(model),
        )
        .agent("human_in_the_loop", human_in_the_loop::agent(model))
        .agent(
            "agentic_generative_ui",
            agentic_generative_ui::agent(model, pace),
        )
        .agent(
            "tool_based_generative_ui",
            tool_based_generative_ui::agent(model),
        )
        .agent("shared_state", shared_state::agent(model))
        .agent(
            "predictive_state_updates",
            predictive_state_updates::agent(model),
        )
        .agent(
            "agentic_chat_reasoning",
            agentic_chat_reasoning::agent(model),
        )
        .agent(
            "agentic_chat_multimodal",
            agentic_chat_multimodal::agent(model),
        )
        .agent("a2ui_fixed_schema", a2ui_fixed_schema::agent(model))
        .agent("a2ui_dynamic_schema", a2ui_dynamic_schema::agent(model))
        .agent("a2ui_advanced", a2ui_advanced::agent(model))
        .agent("a2ui_recovery", a2ui_recovery::agent(model))
}
