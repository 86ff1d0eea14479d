//! Every feature of the [AG-UI Dojo](https://github.com/ag-ui-protocol/ag-ui/tree/main/apps/dojo),
//! served by a Rust agent.
//!
//! The Dojo shows each protocol feature as a CopilotKit page; an integration is a backend with
//! one `POST` route per feature. This crate serves those routes at the root of its address, from
//! one of two backends ([`Backend`]):
//!
//! - **model-driven** ([`model`], the binary's default): each feature is an
//!   [`LlmAgent`](ag_ui::llm::LlmAgent) asking any OpenAI-compatible model, with the tools,
//!   prompts and state the Dojo's pages and its mock model's fixtures expect — what every real
//!   integration in the Dojo (LangGraph, Mastra, the .NET SDK, …) does;
//! - **scripted** ([`scripted`], `--scripted`): what the Dojo's "server-starter-all-features"
//!   reference backend sends, script by script, without a model.
//!
//! | route | model-driven | scripted |
//! |---|---|---|
//! | `/agentic_chat` | text; the page's frontend tools | a countdown, a frontend tool, a backend tool |
//! | `/backend_tool_rendering` | `get_weather` run by the agent, its result as `TOOL_CALL_RESULT` | `get_weather` in a snapshot |
//! | `/human_in_the_loop` | the page's `generate_task_steps` called, the run ends with it pending | ten streamed steps |
//! | `/agentic_generative_ui` | a plan tool's steps in the state, completed one by one | ten steps completed |
//! | `/tool_based_generative_ui` | the page's `generate_haiku` called | a haiku in a snapshot |
//! | `/shared_state` | a recipe written by `generate_recipe`, the page's edits read back | a recipe snapshot |
//! | `/predictive_state_updates` | `write_document_local`'s document streamed into the state, then `confirm_changes` | a streamed story |
//! | `/agentic_chat_reasoning` | the model's reasoning (`REASONING_*`), then its answer | — |
//! | `/agentic_chat_multimodal` | text and image parts reaching the model as multimodal content | — |
//! | `/a2ui_fixed_schema` | A2UI surfaces of a fixed layout (flights, hotels) filled with the model's data | — |
//! | `/a2ui_dynamic_schema`, `/a2ui_advanced` | A2UI surfaces the model designs (`generate_a2ui`) | — |
//! | `/a2ui_recovery` | a generated surface recovered after an invalid attempt, or the failure | — |
//! | `/` | — | "Hello world!" |
//!
//! ([`FEATURES`] is the table.) Every run is framed by `RUN_STARTED` / `RUN_FINISHED` with the
//! request's `threadId` and `runId`, and every route is an [`AgentEndpoint`]: a body that is
//! not a `RunAgentInput` gets a JSON `4xx`, never a half stream. A client that sends no
//! `protocolVersion` — `@copilotkit/runtime` 1.75, whose `@ag-ui/client` is 0.0.59 — gets the
//! [version downgrade](ag_ui::server::downgrade), unless the deployment names the oldest client
//! it serves ([`Config::oldest_client`]): from 0.0.52 on, reasoning stays `REASONING_*`, which
//! CopilotKit shows as the model's thought.
//!
//! ## Browsers on another origin
//!
//! A page may call the routes straight from the browser (`@ag-ui/client`'s `HttpAgent` in the
//! page, no server in between, as `interop/copilotkit`'s page does with `?agent=URL`): every
//! route answers CORS preflights for any origin (`POST`, `Content-Type`, `Accept`,
//! `Authorization`). The routes hold nothing and read no cookies, so no origin is refused.
//!
//! ```
//! use ag_ui_dojo::{Backend, Config, router};
//! use ag_ui_dojo::model::ModelConfig;
//! use ag_ui_dojo::Pace;
//!
//! // The scripts, without their pauses.
//! let scripted: axum::Router = router(Config::default().with_pace(Pace::INSTANT));
//! // The model-driven routes, against a local OpenAI-compatible server.
//! let model = ModelConfig::default()
//!     .with_base_url("http://127.0.0.1:11434/v1")
//!     .with_model("llama3.2");
//! let driven: axum::Router = router(Config::default().with_backend(Backend::Model(model)));
//! # let _ = (scripted, driven);
//! ```
//!
//! Run with: `cargo run -p ag-ui-dojo [ADDR] [--scripted [--pace FACTOR]] [--old-clients
//! VERSION]` (default `127.0.0.1:8000`; the model from `OPENAI_BASE_URL`, `OPENAI_API_KEY` and
//! `MODEL`), then point the Dojo at `http://127.0.0.1:8000`, or try a route with
//! `cargo run -p ag-ui-cli -- run http://127.0.0.1:8000/agentic_chat "hello"`.

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui::server::Agent;
use ag_ui::server::downgrade::{ClientVersion, DowngradeConfig};
use tower_http::cors::{Any, CorsLayer};

pub mod model;
mod pace;
pub mod scripted;

pub use pace::{Pace, PaceError};

/// The environment variable the binary reads the scripts' [`Pace`] from:
/// `AG_UI_DOJO_PACE=0`.
pub const PACE_ENV: &str = "AG_UI_DOJO_PACE";

/// The Dojo's features, each served at `POST /{name}`, in the order of the Dojo's menu.
pub const FEATURES: &[Feature] = &[
    Feature::both("agentic_chat"),
    Feature::both("backend_tool_rendering"),
    Feature::both("human_in_the_loop"),
    Feature::both("agentic_generative_ui"),
    Feature::both("tool_based_generative_ui"),
    Feature::both("shared_state"),
    Feature::both("predictive_state_updates"),
    Feature::model("agentic_chat_reasoning"),
    Feature::model("agentic_chat_multimodal"),
    Feature::model("a2ui_fixed_schema"),
    Feature::model("a2ui_dynamic_schema"),
    Feature::model("a2ui_advanced"),
    Feature::model("a2ui_recovery"),
];

/// One Dojo feature: its route, and which backends serve it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Feature {
    /// The feature's name, its route without the leading `/`.
    pub name: &'static str,
    /// Whether the scripted backend has a script for it (the reference backend serves seven).
    pub scripted: bool,
}

impl Feature {
    const fn both(name: &'static str) -> Self {
        Feature {
            name,
            scripted: true,
        }
    }

    const fn model(name: &'static str) -> Self {
        Feature {
            name,
            scripted: false,
        }
    }
}

/// Which backend answers the routes.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub enum Backend {
    /// The reference backend's scripts ([`scripted`]), paced by [`Config::pace`].
    #[default]
    Scripted,
    /// Agents on a model ([`model`]).
    Model(model::ModelConfig),
}

/// How the routes are served.
///
/// ```
/// use ag_ui::server::downgrade::ClientVersion;
/// use ag_ui_dojo::{Backend, Config, Pace};
///
/// let config = Config::default()
///     .with_pace(Pace::INSTANT)
///     .with_oldest_client(Some("0.0.57".parse::<ClientVersion>().unwrap()));
/// assert!(matches!(config.backend, Backend::Scripted));
/// assert_eq!(config.oldest_client.unwrap().to_string(), "0.0.57");
/// ```
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Config {
    /// The backend: the scripts (default) or a model.
    pub backend: Backend,
    /// The factor on the scripts' pauses and on the model-driven agents' simulated work.
    pub pace: Pace,
    /// The oldest pre-1.0 client the routes serve, when the deployment knows it (see
    /// [`DowngradeConfig::oldest_client`]); `None`: any, from `@ag-ui/client` 0.0.42 on.
    pub oldest_client: Option<ClientVersion>,
}

impl Config {
    /// Sets [`backend`](Self::backend).
    #[must_use]
    pub fn with_backend(mut self, backend: Backend) -> Self {
        self.backend = backend;
        self
    }

    /// Sets [`pace`](Self::pace).
    #[must_use]
    pub fn with_pace(mut self, pace: Pace) -> Self {
        self.pace = pace;
        self
    }

    /// Sets [`oldest_client`](Self::oldest_client).
    #[must_use]
    pub fn with_oldest_client(mut self, version: Option<ClientVersion>) -> Self {
        self.oldest_client = version;
        self
    }
}

/// The router: one `POST` route per feature of [`FEATURES`] the backend serves (and `POST /`
/// for the scripts), at the root, answering CORS preflights from any origin (see [Browsers on
/// another origin](crate#browsers-on-another-origin)).
pub fn router(config: Config) -> axum::Router {
    let routes = Routes {
        router: axum::Router::new(),
        downgrade: DowngradeConfig::default().with_oldest_client(config.oldest_client),
    };
    let routes = match &config.backend {
        Backend::Scripted => scripted::routes(routes, config.pace),
        Backend::Model(model) => model::routes(routes, model, config.pace),
    };
    routes.router.with_json_errors().layer(cors())
}

/// The routes being mounted, each with the endpoint settings every route shares.
#[derive(Debug)]
pub(crate) struct Routes {
    router: axum::Router,
    downgrade: DowngradeConfig,
}

impl Routes {
    /// Serves `agent` at `POST /{name}`.
    pub(crate) fn agent<A: Agent>(mut self, name: &str, agent: A) -> Self {
        let endpoint = AgentEndpoint::agent(agent).with_downgrade(self.downgrade);
        self.router = self.router.agent(&format!("/{name}"), endpoint);
        self
    }
}

/// Any origin may call the routes: they hold nothing and read no cookies.
fn cors() -> CorsLayer {
    use axum::http::{Method, header};
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::POST])
        .allow_headers([header::CONTENT_TYPE, header::ACCEPT, header::AUTHORIZATION])
}
