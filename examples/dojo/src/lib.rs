//! Every feature of the [AG-UI Dojo](https://github.com/ag-ui-protocol/ag-ui/tree/main/apps/dojo),
//! served by a Rust agent.
//!
//! The Dojo shows each protocol feature as a CopilotKit page, and its
//! "server-starter-all-features" integration is a plain HTTP backend with one `POST` route per
//! feature. This crate serves the same routes, each sending what that reference backend sends
//! (the texts, the tool calls and how their arguments stream, the state and its deltas, the
//! pauses), written the way an agent built on `ag_ui` is written: an [`Agent`](ag_ui::server::Agent)
//! per route, its [`RunContext`](ag_ui::server::RunContext), the RAII handles that close what
//! they open, typed state structs published as snapshots and deltas, and `MESSAGES_SNAPSHOT`
//! where the reference sends the whole conversation back.
//!
//! | route | module | what the client sees |
//! |---|---|---|
//! | `POST /agentic_chat` | [`features::agentic_chat`] | a countdown; a frontend tool call; a backend tool in a snapshot |
//! | `POST /backend_tool_rendering` | [`features::backend_tool_rendering`] | a `get_weather` call and its result, in a snapshot |
//! | `POST /human_in_the_loop` | [`features::human_in_the_loop`] | `generate_task_steps`, its ten steps streamed |
//! | `POST /agentic_generative_ui` | [`features::agentic_generative_ui`] | ten steps completed one by one in the state |
//! | `POST /tool_based_generative_ui` | [`features::tool_based_generative_ui`] | a `generate_haiku` call, in a snapshot |
//! | `POST /shared_state` | [`features::shared_state`] | a recipe as the shared state |
//! | `POST /predictive_state_updates` | [`features::predictive_state_updates`] | a document streamed into a tool call's arguments |
//! | `POST /` | [`features::hello`] | "Hello world!" |
//!
//! Every run is framed by `RUN_STARTED` / `RUN_FINISHED` with the request's `threadId` and
//! `runId` (the [`Runner`](ag_ui::server::Runner) does that), and every route is an
//! [`AgentEndpoint`]: a body that is not a `RunAgentInput` gets a JSON `4xx`, never a half
//! stream. A client that sends no `protocolVersion` — `@copilotkit/runtime` 1.75, whose
//! `@ag-ui/client` is 0.0.59 — gets the [version downgrade](ag_ui::server::downgrade); the
//! tests run every route through `@ag-ui/client` 0.0.42, 0.0.52, 0.0.59 and 1.0.0, which all
//! rebuild the same conversation.
//!
//! ## Browsers on another origin
//!
//! A page may call the routes straight from the browser (`@ag-ui/client`'s `HttpAgent` in the
//! page, no server in between, as `interop/copilotkit`'s page does with `?agent=URL`): every
//! route answers CORS preflights for any origin (`POST`, `Content-Type`, `Accept`,
//! `Authorization`). The routes hold nothing and read no cookies, so no origin is refused.
//!
//! ## Pace
//!
//! The reference pauses between deltas (300 ms in the countdown, 200 ms between streamed
//! arguments, 1 s between state deltas) so a person can watch the page fill. [`Pace`] scales
//! those pauses: `1` is the reference's timing, `0` streams at once (the tests), `0.1` ten times
//! faster.
//!
//! ```
//! use ag_ui_dojo::{Config, Pace, router};
//!
//! let app: axum::Router = router(Config::with_pace(Pace::INSTANT));
//! # let _ = app;
//! ```
//!
//! Ids are derived from the run id (`{runId}-msg-1`, `{runId}-call-1`, …) where the reference
//! mints UUIDs: the client sends a fresh run id per run, so they are as unique, and a recorded
//! stream is reproducible.
//!
//! Run with: `cargo run -p ag-ui-dojo [ADDR] [--pace FACTOR]` (default `127.0.0.1:8000`, pace
//! from `AG_UI_DOJO_PACE`, else `1`), then point the Dojo's server-starter-all-features
//! integration at `http://127.0.0.1:8000`, or try a route with
//! `cargo run -p ag-ui-cli -- run http://127.0.0.1:8000/agentic_chat "hello"`.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use ag_ui::Message;
use ag_ui::axum::{AgentEndpoint, RouterExt};
use serde::Serialize;
use tower_http::cors::{Any, CorsLayer};

pub mod features;

/// The environment variable [`Pace`] is read from by the binary: `AG_UI_DOJO_PACE=0`.
pub const PACE_ENV: &str = "AG_UI_DOJO_PACE";

/// A factor on the reference backend's pauses: `1` is its timing, `0` none at all.
///
/// ```
/// use std::time::Duration;
/// use ag_ui_dojo::Pace;
///
/// let pace: Pace = "0.5".parse().unwrap();
/// assert_eq!(pace.scale(Duration::from_millis(300)), Duration::from_millis(150));
/// assert!("-1".parse::<Pace>().is_err());
/// assert!("NaN".parse::<Pace>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Pace(f64);

impl Pace {
    /// The reference backend's own timing.
    pub const REFERENCE: Pace = Pace(1.0);
    /// No pauses at all.
    pub const INSTANT: Pace = Pace(0.0);
    /// The largest factor accepted: a hundred times slower than the reference (a 1 s pause
    /// becomes 100 s).
    pub const MAX_FACTOR: f64 = 100.0;

    /// A pace of `factor` times the reference's pauses.
    ///
    /// # Errors
    ///
    /// [`PaceError`] unless `factor` is a finite number from 0 to [`MAX_FACTOR`](Self::MAX_FACTOR).
    pub fn new(factor: f64) -> Result<Self, PaceError> {
        if factor.is_finite() && (0.0..=Self::MAX_FACTOR).contains(&factor) {
            Ok(Pace(factor))
        } else {
            Err(PaceError(format!(
                "the pace must be a number from 0 to {}, not {factor}",
                Self::MAX_FACTOR
            )))
        }
    }

    /// The factor.
    pub fn factor(self) -> f64 {
        self.0
    }

    /// The reference's `pause`, scaled.
    pub fn scale(self, pause: Duration) -> Duration {
        // In range by construction: a finite factor of at most 100 times a pause of seconds.
        Duration::try_from_secs_f64(pause.as_secs_f64() * self.0).unwrap_or(Duration::ZERO)
    }

    /// Waits the reference's `pause`, scaled; returns at once at pace 0.
    pub async fn pause(self, pause: Duration) {
        let pause = self.scale(pause);
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
    }
}

impl Default for Pace {
    fn default() -> Self {
        Pace::REFERENCE
    }
}

impl FromStr for Pace {
    type Err = PaceError;

    fn from_str(s: &str) -> Result<Self, PaceError> {
        let factor = s
            .trim()
            .parse::<f64>()
            .map_err(|e| PaceError(format!("the pace must be a number, not {s:?}: {e}")))?;
        Pace::new(factor)
    }
}

/// A pace that is not a number from 0 to [`Pace::MAX_FACTOR`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaceError(String);

impl fmt::Display for PaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PaceError {}

/// How the routes are served.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Config {
    /// The factor on the reference's pauses.
    pub pace: Pace,
}

impl Config {
    /// The default configuration with `pace`.
    pub fn with_pace(pace: Pace) -> Self {
        Config { pace }
    }
}

/// The router: one `POST` route per Dojo feature, at the root, answering CORS preflights from
/// any origin (see [Browsers on another origin](crate#browsers-on-another-origin)).
pub fn router(config: Config) -> axum::Router {
    use features::*;
    let pace = config.pace;
    axum::Router::new()
        .agent("/", AgentEndpoint::agent(hello::Hello))
        .agent(
            "/agentic_chat",
            AgentEndpoint::agent(agentic_chat::AgenticChat { pace }),
        )
        .agent(
            "/backend_tool_rendering",
            AgentEndpoint::agent(backend_tool_rendering::BackendToolRendering),
        )
        .agent(
            "/human_in_the_loop",
            AgentEndpoint::agent(human_in_the_loop::HumanInTheLoop { pace }),
        )
        .agent(
            "/agentic_generative_ui",
            AgentEndpoint::agent(agentic_generative_ui::AgenticGenerativeUi { pace }),
        )
        .agent(
            "/tool_based_generative_ui",
            AgentEndpoint::agent(tool_based_generative_ui::ToolBasedGenerativeUi),
        )
        .agent(
            "/shared_state",
            AgentEndpoint::agent(shared_state::SharedState),
        )
        .agent(
            "/predictive_state_updates",
            AgentEndpoint::agent(predictive_state_updates::PredictiveStateUpdates { pace }),
        )
        .with_json_errors()
        .layer(cors())
}

/// Any origin may call the routes: they hold nothing and read no cookies.
fn cors() -> CorsLayer {
    use axum::http::{Method, header};
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::POST])
        .allow_headers([header::CONTENT_TYPE, header::ACCEPT, header::AUTHORIZATION])
}

/// The text of a message as the reference reads it: a string as is, the text parts of a list
/// joined with newlines (media parts skipped; [`ag_ui::Content::flatten`],
/// the rule the crate's model bridges share); `None` for a message without content.
pub fn message_text(message: &Message) -> Option<String> {
    match message {
        Message::User(m) => Some(m.content.flatten()),
        Message::Tool(m) => Some(m.content.flatten()),
        other => other.text().map(str::to_owned),
    }
}

/// JSON text spaced as Python's `json.dumps` writes it (`", "` between items, `": "` after a
/// key), so the arguments and results the routes send are the reference's, byte for byte
/// (non-ASCII characters stay UTF-8 where Python writes `\uXXXX`; the parsed value is the
/// same).
///
/// ```
/// assert_eq!(
///     ag_ui_dojo::json_text(&serde_json::json!({"city": "San Francisco", "n": [1, 2]})).unwrap(),
///     r#"{"city": "San Francisco", "n": [1, 2]}"#
/// );
/// ```
///
/// # Errors
///
/// `value` does not serialize as JSON, as a server error (the run ends with `RUN_ERROR`).
pub fn json_text(value: &impl Serialize) -> ag_ui::server::Result<String> {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, PythonSpacing);
    value.serialize(&mut serializer).map_err(|e| {
        ag_ui::server::Error::agent(format!("the value did not serialize as JSON: {e}"))
            .with_source(e)
    })?;
    // serde_json writes UTF-8 only.
    String::from_utf8(out).map_err(|e| {
        ag_ui::server::Error::agent("the JSON text is not UTF-8").with_source(e.utf8_error())
    })
}

/// `json.dumps`' default separators.
struct PythonSpacing;

impl serde_json::ser::Formatter for PythonSpacing {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }
}

/// An id derived from the run: `{runId}-{what}`.
pub(crate) fn run_scoped_id(run_id: &ag_ui::RunId, what: &str) -> String {
    format!("{}-{what}", run_id.as_str())
}
