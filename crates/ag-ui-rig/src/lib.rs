//! Serve a [rig](https://docs.rs/rig-agent) agent over AG-UI: [`RigAgent`] wraps a
//! [`rig_agent::Agent`] (its model, preamble, context documents, tools and hooks) and
//! implements [`ag_ui::server::Agent`], so `AgentEndpoint::agent(RigAgent::new(agent))`
//! serves it.
//!
//! ## rig versions
//!
//! | crate | versions | rust-version |
//! |---|---|---|
//! | `rig-core`, `rig-agent` | 0.44.x (`0.44`, a caret requirement: rig's minor releases break) | 1.95 |
//!
//! rig 0.45 and later need Rust 1.97.1. CI builds this crate against the oldest and the newest
//! release the requirement takes. rig is this crate's dependency, not `ag-ui`'s: a rig
//! release is a release of this crate alone. The crates are re-exported as [`rig_core`] and
//! [`rig_agent`], so an application can build its agent with the same versions.
//!
//! ## What a run does
//!
//! | AG-UI | rig |
//! |---|---|
//! | `RunAgentInput.messages` | rig's messages (user text and media, assistant text and tool calls, tool results, system and developer text); the last message is the prompt, the rest the history |
//! | `RunAgentInput.context`, `state` | one system message before the history, written by the bridge core ([`context_text`](ag_ui::server::bridge::context_text)) |
//! | `RunAgentInput.tools` | offered to the model beside the agent's own tools, for this run only; one with the name of an agent tool ends the run with `RUN_ERROR` code `tool_name_clash` before the model is asked |
//!
//! | rig's stream | AG-UI |
//! |---|---|
//! | text fragments | `TEXT_MESSAGE_START` / `CONTENT` / `END` |
//! | reasoning fragments (or a whole reasoning block) | `REASONING_START` / `REASONING_MESSAGE_*` / `REASONING_END` |
//! | a tool call's start, argument fragments, end | `TOOL_CALL_START` / `ARGS` / `END` (the call's id is the run's, as `LlmAgent`'s are: rig names a call's id only at its end) |
//! | an agent tool's result | `TOOL_CALL_RESULT` |
//! | a frontend tool call | `TOOL_CALL_START` / `ARGS` / `END` at the call's end (rig holds back a call to a tool it does not run), then the run ends with outcome `success` and the call in `pendingToolCallIds` once the turn's agent tools have run; the next run, carrying the client's tool message, continues |
//! | a call to a tool the run does not have | the call, and a `TOOL_CALL_RESULT` with what the model is told ([`unknown_tool_text`](ag_ui::server::bridge::unknown_tool_text)); the model is asked again |
//! | the usage of each model request | summed into `RUN_FINISHED.usage`, when the provider reports it |
//! | a provider error, a tool-server error, the turn limit spent | `RUN_ERROR` with rig's message, code `rig_provider_error`, `rig_tool_error` or `max_turns` (a run whose frontend call is pending when the limit is reached ends with the call pending) |
//! | no message to answer; a tool message answering a call no earlier message made, a call without a name | `RUN_ERROR` before the model is asked, code `rig_no_messages`, `rig_invalid_messages` |
//!
//! The loop's settings are the bridge core's [`LoopConfig`], shared with `ag_ui::llm::LlmAgent`:
//! at most [`LoopConfig::max_turns`] model requests per run (default 8, whatever the agent's
//! own default), the usage reported for provider `rig` and model `unknown` unless
//! [`LoopConfig::usage_provider`] and [`LoopConfig::usage_model`] say otherwise.
//!
//! A client that disconnects cancels the run, which drops rig's stream and with it the
//! provider's request. Between stream items the bridge waits on
//! [`RunContext::ready`], so a slow consumer slows the model's stream.
//!
//! ```
//! use ag_ui::server::bridge::LoopConfig;
//! use ag_ui_rig::RigAgent;
//! use ag_ui_rig::rig_agent::AgentBuilder;
//! use ag_ui_rig::rig_core::providers::openai::OpenAIConfig;
//!
//! // rig's OpenAI provider on the Chat Completions API, at any compatible server.
//! let model = OpenAIConfig::new("sk-…")
//!     .with_base_url("http://127.0.0.1:11434/v1")
//!     .client()
//!     .chat("llama3.2");
//! let agent = AgentBuilder::new(model).preamble("Be brief.").build();
//! let agent = RigAgent::new(agent).with_loop_config(
//!     LoopConfig::default().with_usage_provider("ollama").with_usage_model("llama3.2"),
//! );
//! assert_eq!(agent.loop_config().max_turns, 8);
//! // Serve it: `ag_ui::axum::AgentEndpoint::agent(agent)`.
//! ```
//!
//! ## MCP tools
//!
//! With feature `mcp`, [`mcp::add_tools`] gives a rig agent the tools of MCP servers reached
//! through [`ag_ui::mcp`] (the way `LlmAgent` gets them too), so the tree holds one `rmcp`.
//! rig's own `rig-rmcp` 0.44 is built on rmcp 2, this workspace on rmcp 3 (`rig-rmcp` moves
//! to rmcp 3 in 0.45, which needs Rust 1.97.1).

mod convert;
mod hook;
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod mcp;
mod stream;

use std::fmt;
use std::pin::pin;
use std::sync::Arc;

use ag_ui::server::bridge::{self, LoopConfig};
use ag_ui::server::{Agent, Error, Outcome, RunContext};
use futures::StreamExt;
use futures::future::{Either, select};
use rig_agent::completion::PromptError;
use rig_agent::run::UnhandledInvalidToolCall;
use rig_core::error::ErrorKind as RigErrorKind;
use serde_json::Value;

use self::hook::{FRONTEND_STOP, RunHook, SharedCalls, lock};
use self::stream::ItemMapper;

/// The `rig-agent` crate this bridge is built on, re-exported so an application builds its
/// agent with the same version.
pub use rig_agent;
/// The `rig-core` crate this bridge is built on (providers, messages, tools), re-exported so
/// an application builds its models with the same version.
pub use rig_core;

/// A rig agent served as an AG-UI [`Agent`]; see the [crate docs](crate).
///
/// The run's state is JSON (`serde_json::Value`): it is shown to the model in the context
/// message and returned unchanged.
pub struct RigAgent {
    agent: rig_agent::Agent,
    config: LoopConfig,
}

impl fmt::Debug for RigAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RigAgent")
            .field("name", &self.agent.name())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl RigAgent {
    /// Serves `agent` with the default [`LoopConfig`].
    pub fn new(agent: rig_agent::Agent) -> Self {
        Self {
            agent,
            config: LoopConfig::default(),
        }
    }

    /// Sets how the loop runs: the most model requests per run, the names in the reported
    /// usage.
    #[must_use]
    pub fn with_loop_config(mut self, config: LoopConfig) -> Self {
        self.config = config;
        self
    }

    /// Sets [`LoopConfig::max_turns`] alone: the most model requests of one run (at least 1).
    #[must_use]
    pub fn with_max_turns(mut self, max: u32) -> Self {
        self.config = self.config.with_max_turns(max);
        self
    }

    /// How the loop runs.
    pub fn loop_config(&self) -> &LoopConfig {
        &self.config
    }

    /// The wrapped rig agent.
    pub fn agent(&self) -> &rig_agent::Agent {
        &self.agent
    }

    async fn run_inner(&self, ctx: &mut RunContext<Value>) -> Result<Outcome, Error> {
        let input = ctx.input();
        if !input.tools.is_empty() {
            let own = self.agent.tool_server_handle().snapshot();
            bridge::check_frontend_tools(own.names(), &input.tools)?;
        }
        let state = ctx.state();
        let context = bridge::context_text(&input.context, Some(state));
        let conversation = convert::conversation(&input.messages, context)?;
        let calls = SharedCalls::default();
        let turns = usize::try_from(self.config.turn_limit()).unwrap_or(usize::MAX);
        let mut stream = self
            .agent
            .prompt(conversation.prompt)
            .history(conversation.history)
            .max_turns(turns)
            // A call to a tool the run does not have is answered and the model asked again,
            // within the turn limit.
            .max_invalid_tool_call_retries(turns)
            // A frontend call the hook leaves unresolved is dropped from the turn.
            .unhandled_invalid_tool_call(UnhandledInvalidToolCall::Ignore)
            .add_hook(RunHook::new(&input.tools, Arc::clone(&calls)))
            .stream();

        let ctx: &RunContext<Value> = ctx;
        let mut mapper = ItemMapper::new(ctx);
        let work = async {
            while let Some(item) = stream.next().await {
                // Calls rig held back came before this item.
                let held = std::mem::take(&mut lock(&calls).new);
                mapper.held(ctx, held)?;
                match item {
                    Ok(item) => {
                        if mapper.push(ctx, item, &self.config)? {
                            return Ok(None);
                        }
                        ctx.ready().await?;
                    }
                    Err(PromptError::Cancelled { reason, .. }) if reason == FRONTEND_STOP => {
                        return Ok(None);
                    }
                    // The turn that called a frontend tool was the last the limit allows: the
                    // client's call is what the run waits on.
                    Err(PromptError::MaxTurns { .. }) if lock(&calls).frontend => {
                        return Ok(None);
                    }
                    Err(error) => return Ok(Some(error)),
                }
            }
            Ok::<_, Error>(None)
        };
        let failed = match select(pin!(work), pin!(ctx.cancelled())).await {
            Either::Left((result, _)) => result?,
            Either::Right(((), _)) => return Ok(Outcome::cancelled()),
        };
        let held = std::mem::take(&mut lock(&calls).new);
        mapper.held(ctx, held)?;
        let (pending, usage) = mapper.finish()?;
        if let Some(error) = failed {
            return Err(Error::agent(error.to_string()).with_code(code(&error)));
        }
        let outcome = if pending.is_empty() {
            Outcome::success()
        } else {
            Outcome::success().with_pending_tool_calls(pending)
        };
        Ok(match usage {
            Some(usage) => outcome.with_usage(vec![usage]),
            None => outcome,
        })
    }
}

/// The `RUN_ERROR` code of a rig failure.
fn code(error: &PromptError) -> &'static str {
    match error {
        PromptError::Provider(_) => "rig_provider_error",
        PromptError::Report(report) => match report.kind {
            RigErrorKind::Tool(_) => "rig_tool_error",
            RigErrorKind::MemoryBackend | RigErrorKind::MemoryPolicy => "rig_memory_error",
            RigErrorKind::Cancelled => "rig_cancelled",
            RigErrorKind::Http
            | RigErrorKind::Json
            | RigErrorKind::Url
            | RigErrorKind::Request
            | RigErrorKind::Response
            | RigErrorKind::Provider
            | RigErrorKind::ProviderResponse
            | RigErrorKind::Timeout => "rig_provider_error",
            _ => "rig_error",
        },
        PromptError::Memory(_) => "rig_memory_error",
        PromptError::MaxTurns { .. } => bridge::MAX_TURNS_CODE,
        PromptError::Cancelled { .. } => "rig_cancelled",
        PromptError::UnknownToolCall { .. } => "rig_tool_error",
        _ => "rig_error",
    }
}

impl Agent for RigAgent {
    type State = Value;

    async fn run(&self, ctx: &mut RunContext<Value>) -> ag_ui::server::Result<Outcome> {
        self.run_inner(ctx).await
    }
}
