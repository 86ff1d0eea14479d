//! The bridge core: what every model bridge of this project does the same way, in one place.
//!
//! A model bridge turns an AG-UI run into requests to a model and the model's answer into
//! events. This project has two, each on its own wire: `ag_ui::llm::LlmAgent` (an
//! OpenAI-compatible Chat Completions server, feature `openai`) and `ag_ui_rig::RigAgent` (an
//! agent built with [rig](https://docs.rs/rig-agent), crate `ag-ui-rig`). What the model is
//! shown and how the loop is bounded is decided here, so one input reads the same to a model
//! through either bridge, and a bridge of your own (feature `server` is all it needs) can do
//! the same:
//!
//! | job | here |
//! |---|---|
//! | the loop's settings: the most model requests a run makes, the names the reported usage carries | [`LoopConfig`], [`DEFAULT_MAX_TURNS`]; a run past its limit ends with `RUN_ERROR` code [`MAX_TURNS_CODE`] |
//! | the run's context entries and state, shown to the model | [`context_text`]: the text of one system message |
//! | a tool that failed, arguments a tool does not take, a tool the model named that does not exist, a tool message that carries an `error` | [`tool_error_text`], [`invalid_arguments`], [`unknown_tool_text`], [`tool_message_text`] |
//! | a message's text parts as one text | [`Content::flatten`]: the text parts joined with `"\n"`, the other parts left out |
//! | the run's frontend tools (`RunAgentInput.tools`) beside the agent's own | [`check_frontend_tools`]: a name both have ends the run with code [`TOOL_NAME_CLASH`] |
//! | the usage of several model requests | [`add_usage`]: one `TokenUsage`, each counter summed |
//!
//! Each bridge writes these texts into its own wire's messages (a chat `system` message, a
//! rig system message; a chat `tool` message, a rig tool result) and adds nothing to them.
//!
//! ```
//! use ag_ui::server::bridge::{self, LoopConfig};
//! use ag_ui::{Content, ContentPart, Context};
//! use serde_json::json;
//!
//! // The settings both bridges take whole (`with_loop_config`).
//! let config = LoopConfig::default().with_max_turns(4).with_usage_provider("my-gateway");
//! assert_eq!(config.max_turns, 4);
//! assert_eq!(config.usage_provider.as_deref(), Some("my-gateway"));
//!
//! // What the model reads for the run's context and state.
//! let text = bridge::context_text(&[Context::new("city", "Oslo")], Some(&json!({"n": 1})));
//! assert_eq!(
//!     text.as_deref(),
//!     Some("Context from the application:\n- city: Oslo\n\nThe application's current state (JSON):\n{\"n\":1}")
//! );
//!
//! // What it reads when a tool failed.
//! assert_eq!(bridge::tool_error_text("the disk is full"), "Error: the disk is full");
//!
//! // And a message in parts, as text.
//! let parts = Content::Parts(vec![ContentPart::text("Hello"), ContentPart::text("world")]);
//! assert_eq!(parts.flatten(), "Hello\nworld");
//! ```
//!
//! [`Content::flatten`]: crate::Content::flatten

use serde_json::Value;

use super::{Error, Result};
use crate::{Content, Context, TokenUsage, Tool};

/// The default of [`LoopConfig::max_turns`]: the most model requests one run makes.
pub const DEFAULT_MAX_TURNS: u32 = 8;

/// The `RUN_ERROR` code of a run that reached [`LoopConfig::max_turns`] while the model still
/// wanted tools.
pub const MAX_TURNS_CODE: &str = "max_turns";

/// The code of the error [`check_frontend_tools`] returns.
pub const TOOL_NAME_CLASH: &str = "tool_name_clash";

/// How a model bridge runs its loop: one settings type for every bridge of this project
/// (`LlmAgent::with_loop_config`, `RigAgent::with_loop_config`).
///
/// Built with [`Default`] and the `with_*` methods; the fields stay readable.
///
/// ```
/// use ag_ui::server::bridge::{DEFAULT_MAX_TURNS, LoopConfig};
///
/// let config = LoopConfig::default();
/// assert_eq!(config.max_turns, DEFAULT_MAX_TURNS);
/// assert_eq!(config.usage_provider, None);
///
/// // The limit is at least one request, however the struct was built.
/// assert_eq!(LoopConfig::default().with_max_turns(0).max_turns, 1);
/// let mut config = LoopConfig::default();
/// config.max_turns = 0;
/// assert_eq!(config.turn_limit(), 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoopConfig {
    /// The most model requests one run makes, the requests after tool results included
    /// (default [`DEFAULT_MAX_TURNS`]). A model that still wants tools after the last one
    /// ends the run with `RUN_ERROR` code [`MAX_TURNS_CODE`]. Zero counts as one: a bridge
    /// reads the limit through [`turn_limit`](Self::turn_limit).
    pub max_turns: u32,
    /// The provider named in the reported `TokenUsage`; `None` (the default) names the
    /// bridge's own (`openai` for `LlmAgent`, `rig` for `RigAgent`).
    pub usage_provider: Option<String>,
    /// The model named in the reported `TokenUsage`; `None` (the default) names the bridge's
    /// own (for `LlmAgent` the model the provider's answer names, else the one it asks;
    /// `unknown` for `RigAgent`, whose agent does not say).
    pub usage_model: Option<String>,
}

impl Default for LoopConfig {
    fn default() -> Self {
        Self {
            max_turns: DEFAULT_MAX_TURNS,
            usage_provider: None,
            usage_model: None,
        }
    }
}

impl LoopConfig {
    /// Sets [`max_turns`](Self::max_turns), at least 1.
    #[must_use]
    pub fn with_max_turns(mut self, max: u32) -> Self {
        self.max_turns = max.max(1);
        self
    }

    /// Sets [`usage_provider`](Self::usage_provider).
    #[must_use]
    pub fn with_usage_provider(mut self, provider: impl Into<String>) -> Self {
        self.usage_provider = Some(provider.into());
        self
    }

    /// Sets [`usage_model`](Self::usage_model).
    #[must_use]
    pub fn with_usage_model(mut self, model: impl Into<String>) -> Self {
        self.usage_model = Some(model.into());
        self
    }

    /// The most model requests a run makes: [`max_turns`](Self::max_turns), at least 1.
    pub fn turn_limit(&self) -> u32 {
        self.max_turns.max(1)
    }

    /// An empty `TokenUsage` naming the configured provider and model, or `provider` and
    /// `model` (the bridge's own) where none is configured.
    pub fn usage(&self, provider: &str, model: &str) -> TokenUsage {
        TokenUsage::new(
            self.usage_provider.as_deref().unwrap_or(provider),
            self.usage_model.as_deref().unwrap_or(model),
        )
    }
}

/// The text of the system message that shows the model the run's context entries and state,
/// or `None` when there are neither (the state absent, `null` or `{}`).
///
/// The layout is fixed:
///
/// ```text
/// Context from the application:
/// - {description}: {value}
///
/// The application's current state (JSON):
/// {state}
/// ```
///
/// Either section is left out when empty. A bridge puts the message right after the agent's
/// own system prompt; `LlmAgent` writes it again before each model request, so the model sees
/// the state as the tools left it.
///
/// ```
/// use ag_ui::Context;
/// use ag_ui::server::bridge::context_text;
/// use serde_json::json;
///
/// assert_eq!(
///     context_text(&[], Some(&json!({"todos": []}))).as_deref(),
///     Some("The application's current state (JSON):\n{\"todos\":[]}")
/// );
/// assert_eq!(
///     context_text(&[Context::new("user", "Ada")], None).as_deref(),
///     Some("Context from the application:\n- user: Ada")
/// );
/// assert_eq!(context_text(&[], Some(&json!({}))), None);
/// assert_eq!(context_text(&[], Some(&json!(null))), None);
/// ```
pub fn context_text(context: &[Context], state: Option<&Value>) -> Option<String> {
    let mut text = String::new();
    if !context.is_empty() {
        text.push_str("Context from the application:");
        for entry in context {
            text.push_str("\n- ");
            text.push_str(&entry.description);
            text.push_str(": ");
            text.push_str(&entry.value);
        }
    }
    let state = state.filter(|s| !s.is_null() && s.as_object().is_none_or(|o| !o.is_empty()));
    if let Some(state) = state {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str("The application's current state (JSON):\n");
        text.push_str(&state.to_string());
    }
    (!text.is_empty()).then_some(text)
}

/// What the model reads as the result of a tool that failed with `message`:
/// `Error: {message}`. The run goes on; the model decides what to do about it.
///
/// ```
/// assert_eq!(ag_ui::server::bridge::tool_error_text("no such city"), "Error: no such city");
/// ```
pub fn tool_error_text(message: &str) -> String {
    format!("Error: {message}")
}

/// What the model reads as the result of a call to a tool the run does not have (neither the
/// agent's nor the frontend's): the [`tool_error_text`] of `there is no tool named `{name}``.
///
/// ```
/// assert_eq!(
///     ag_ui::server::bridge::unknown_tool_text("weather"),
///     "Error: there is no tool named `weather`"
/// );
/// ```
pub fn unknown_tool_text(name: &str) -> String {
    tool_error_text(&format!("there is no tool named `{name}`"))
}

/// The message of the tool error for arguments the model wrote for the tool `name` that the
/// tool does not take (`error` says why, as the parser put it):
/// `invalid arguments for tool `{name}`: {error}`. The model reads it as any tool error,
/// through [`tool_error_text`].
///
/// ```
/// use ag_ui::server::bridge::{invalid_arguments, tool_error_text};
///
/// assert_eq!(
///     tool_error_text(&invalid_arguments("add", "missing field `b`")),
///     "Error: invalid arguments for tool `add`: missing field `b`"
/// );
/// ```
pub fn invalid_arguments(name: &str, error: &str) -> String {
    format!("invalid arguments for tool `{name}`: {error}")
}

/// The text of a tool message (`Message::Tool`) that carries an `error`: the
/// [`tool_error_text`] of the error, then, on its own line, the message's content as text
/// ([`Content::flatten`]) when it has any. Neither wire has a field for the error, so it goes
/// in front of the content.
///
/// ```
/// use ag_ui::Content;
/// use ag_ui::server::bridge::tool_message_text;
///
/// assert_eq!(tool_message_text("denied", &Content::from("")), "Error: denied");
/// assert_eq!(
///     tool_message_text("denied", &Content::from("the user said no")),
///     "Error: denied\nthe user said no"
/// );
/// ```
pub fn tool_message_text(error: &str, content: &Content) -> String {
    let mut text = tool_error_text(error);
    let body = content.flatten();
    if !body.is_empty() {
        text.push('\n');
        text.push_str(&body);
    }
    text
}

/// Refuses a run whose frontend tools (`RunAgentInput.tools`) reuse the name of one of the
/// agent's `own` tools (backend tools, rig tools, MCP tools): the model could not tell which
/// one it calls. Every bridge checks each run with it before the model is asked.
///
/// # Errors
///
/// An agent error with code [`TOOL_NAME_CLASH`] naming the first frontend tool that clashes;
/// returned from an agent, the run ends with `RUN_ERROR` before the model is asked.
///
/// ```
/// use ag_ui::Tool;
/// use ag_ui::server::bridge::check_frontend_tools;
///
/// let frontend = [Tool::new("confirm", ""), Tool::new("add", "")];
/// assert!(check_frontend_tools(["search"], &frontend).is_ok());
/// let error = check_frontend_tools(["search", "add"], &frontend).unwrap_err();
/// assert_eq!(error.code(), Some("tool_name_clash"));
/// assert!(error.message().contains("`add`"));
/// ```
pub fn check_frontend_tools<'a>(
    own: impl IntoIterator<Item = &'a str>,
    frontend: &[Tool],
) -> Result<()> {
    if frontend.is_empty() {
        return Ok(());
    }
    // One pass over each list: the frontend's names in a set (a request may declare tens of
    // thousands of tools, an agent hundreds of MCP tools).
    let names: std::collections::HashSet<&str> = frontend.iter().map(|t| t.name.as_str()).collect();
    for name in own {
        if names.contains(name) {
            return Err(Error::agent(format!(
                "the frontend tool `{}` has the name of one of the agent's own tools; \
                 rename one of them",
                crate::excerpt(name, crate::EXCERPT_BYTES)
            ))
            .with_code(TOOL_NAME_CLASH));
        }
    }
    Ok(())
}

/// Adds one model request's usage to a run's `total`: the first one becomes the total (its
/// provider and model names kept), the counters of the next ones are summed; a counter the
/// request did not report leaves the total's as it is.
///
/// ```
/// use ag_ui::TokenUsage;
/// use ag_ui::server::bridge::add_usage;
///
/// let mut total = None;
/// add_usage(&mut total, TokenUsage::new("openai", "m").with_tokens(10, 5));
/// add_usage(&mut total, TokenUsage::new("openai", "m").with_tokens(20, 4));
/// let total = total.unwrap();
/// assert_eq!((total.input_tokens, total.output_tokens), (Some(30), Some(9)));
/// assert_eq!(total.reasoning_tokens, None);
/// ```
pub fn add_usage(total: &mut Option<TokenUsage>, turn: TokenUsage) {
    let Some(sum) = total else {
        *total = Some(turn);
        return;
    };
    let add = |a: &mut Option<u64>, b: Option<u64>| {
        if let Some(b) = b {
            *a = Some(a.unwrap_or(0).saturating_add(b));
        }
    };
    add(&mut sum.input_tokens, turn.input_tokens);
    add(&mut sum.output_tokens, turn.output_tokens);
    add(&mut sum.total_tokens, turn.total_tokens);
    add(&mut sum.reasoning_tokens, turn.reasoning_tokens);
    add(&mut sum.cached_input_tokens, turn.cached_input_tokens);
    add(
        &mut sum.cache_write_input_tokens,
        turn.cache_write_input_tokens,
    );
}
