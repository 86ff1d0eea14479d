//! Serve a [`rig`](https://docs.rs/rig-core) agent over AG-UI: [`RigAgent`] wraps a
//! `rig::agent::Agent<M>` (its preamble, context documents and tools) and implements
//! [`Agent`], so `AgentEndpoint::agent(RigAgent::new(agent))` serves it.
//!
//! The bridge is built on `rig-core` 0.40, the last release whose agent runtime is
//! `rig::agent::Agent<M>` (from 0.41 it moved to the separate `rig-agent` crate); the crate is
//! re-exported as [`rig_core`] so an application builds its agent with the same version.
//!
//! ## What a run does
//!
//! | rig | AG-UI |
//! |---|---|
//! | `RunAgentInput.messages` | rig's messages: user text and images, assistant text and tool calls, tool results, system and developer text; the last message is the prompt, the rest the history |
//! | `RunAgentInput.context`, `state` | one system message before the history, when present |
//! | `RunAgentInput.tools` | offered to the model beside the agent's own tools; one with the name of an agent tool (a rig or MCP tool) ends the run with `RUN_ERROR` code `tool_name_clash` before the model is asked |
//! | text deltas | `TEXT_MESSAGE_START` / `CONTENT` / `END` |
//! | reasoning deltas (or a whole reasoning block) | `REASONING_START` / `REASONING_MESSAGE_*` / `REASONING_END` |
//! | tool-call deltas, the complete call | `TOOL_CALL_START` / `ARGS` / `END` |
//! | an agent tool's result | `TOOL_CALL_RESULT` |
//! | a frontend tool call | the run ends with outcome `success` and the call in `pendingToolCallIds`; the next run, carrying the client's tool message, continues |
//! | the usage of each model request | summed into `RUN_FINISHED.usage`, when the provider reports it |
//! | a provider error, a tool-server error, the turn budget spent | `RUN_ERROR` with rig's message, code `rig_provider_error`, `rig_tool_error` or `rig_max_turns` |
//!
//! A client that disconnects cancels the run, which drops rig's stream and with it the
//! provider's request. Between stream items the bridge waits on
//! [`RunContext::ready`], so a slow consumer slows the model's stream.
//!
//! ```no_run
//! use ag_ui::rig::RigAgent;
//! use ag_ui::rig::rig_core::client::{CompletionClient, ProviderClient};
//! use ag_ui::rig::rig_core::providers::openai;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let client = openai::CompletionsClient::from_env()?;
//! let agent = client.agent("gpt-4o-mini").preamble("Be brief.").build();
//! let agent = RigAgent::new(agent).with_usage_names("openai", "gpt-4o-mini");
//! // Serve it: `ag_ui::axum::AgentEndpoint::agent(agent)`.
//! # let _ = agent;
//! # Ok(())
//! # }
//! ```

mod convert;
mod stream;
mod tools;

use std::fmt;
use std::pin::pin;
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use futures::future::{Either, select};
use rig_core::agent::{Agent as RigAgentInner, StreamingError};
use rig_core::completion::PromptError;
use rig_core::completion::{CompletionModel, GetTokenUsage, ToolDefinition};
use rig_core::streaming::StreamingPrompt;
use rig_core::tool::server::ToolServer;
use serde_json::Value;

use self::convert::{context_message, to_rig_messages};
use self::stream::ItemMapper;
use self::tools::{FRONTEND_STOP, FrontendHook, ProxyTool};
use crate::server::{Agent, Error, Outcome, RunContext};
use crate::{Message, TokenUsage};

/// The `rig-core` crate this bridge is built on, re-exported so an application builds its
/// agent with the same version.
pub use rig_core;

/// The default cap on model requests per run when the rig agent sets none.
pub const DEFAULT_MAX_TURNS: usize = 8;

/// How [`RigAgent`] runs its agent.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RigConfig {
    /// The most model requests one run makes (tool rounds included); `None` uses the agent's
    /// `default_max_turns`, or [`DEFAULT_MAX_TURNS`] when it sets none.
    pub max_turns: Option<usize>,
    /// The provider named in the reported `TokenUsage` (default `rig`).
    pub provider: String,
    /// The model named in the reported `TokenUsage` (default `unknown`: rig's model trait does
    /// not say its name).
    pub model: String,
}

impl Default for RigConfig {
    fn default() -> Self {
        Self {
            max_turns: None,
            provider: "rig".to_owned(),
            model: "unknown".to_owned(),
        }
    }
}

/// A rig agent served as an AG-UI [`Agent`]; see the [module docs](self).
///
/// The run's state is JSON (`serde_json::Value`): it is shown to the model in the context
/// message and returned unchanged.
pub struct RigAgent<M: CompletionModel> {
    agent: RigAgentInner<M>,
    config: RigConfig,
}

impl<M: CompletionModel> fmt::Debug for RigAgent<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RigAgent")
            .field("name", &self.agent.name)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl<M: CompletionModel> RigAgent<M> {
    /// Serves `agent` with the default [`RigConfig`].
    pub fn new(agent: RigAgentInner<M>) -> Self {
        Self {
            agent,
            config: RigConfig::default(),
        }
    }

    /// Replaces the configuration.
    #[must_use]
    pub fn with_config(mut self, config: RigConfig) -> Self {
        self.config = config;
        self
    }

    /// Caps the model requests of one run (at least 1).
    #[must_use]
    pub fn with_max_turns(mut self, max: usize) -> Self {
        self.config.max_turns = Some(max.max(1));
        self
    }

    /// Names the provider and model in the reported `TokenUsage`.
    #[must_use]
    pub fn with_usage_names(
        mut self,
        provider: impl Into<String>,
        model: impl Into<String>,
    ) -> Self {
        self.config.provider = provider.into();
        self.config.model = model.into();
        self
    }

    /// The wrapped rig agent.
    pub fn agent(&self) -> &RigAgentInner<M> {
        &self.agent
    }
}

/// The error code of a rig failure.
fn code(error: &StreamingError) -> &'static str {
    match error {
        StreamingError::Completion(_) => "rig_provider_error",
        StreamingError::Tool(_) => "rig_tool_error",
        StreamingError::Prompt(prompt) => match prompt.as_ref() {
            PromptError::CompletionError(_) => "rig_provider_error",
            PromptError::MaxTurnsError { .. } => "rig_max_turns",
            PromptError::ToolError(_) | PromptError::ToolServerError(_) => "rig_tool_error",
            _ => "rig_error",
        },
    }
}

impl<M> RigAgent<M>
where
    M: CompletionModel + 'static,
    M::StreamingResponse: Clone + Unpin + GetTokenUsage + Send,
{
    /// The agent for this run: the wrapped one, or, when the run offers frontend tools, a copy
    /// whose tool server holds the agent's tools (forwarded to its own server) and the
    /// frontend's.
    async fn run_agent(
        &self,
        ctx: &RunContext<Value>,
        prompt_text: String,
    ) -> Result<(RigAgentInner<M>, Vec<String>), Error> {
        let frontend = &ctx.input().tools;
        if frontend.is_empty() {
            return Ok((self.agent.clone(), Vec::new()));
        }
        let own = self
            .agent
            .tool_server_handle
            .get_tool_defs(Some(prompt_text))
            .await
            .map_err(|e| {
                Error::agent(format!("the rig agent's tools could not be listed: {e}"))
                    .with_code("rig_tool_error")
            })?;
        crate::server::bridge::check_frontend_tools(own.iter().map(|d| d.name.as_str()), frontend)?;
        let server = ToolServer::new().run();
        let mut names = Vec::new();
        for tool in frontend {
            names.push(tool.name.clone());
            let definition = ToolDefinition {
                name: tool.name.clone(),
                description: tool.description.clone(),
                parameters: tool
                    .parameters
                    .clone()
                    .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}})),
            };
            add(
                &server,
                ProxyTool {
                    definition,
                    target: None,
                },
            )
            .await?;
        }
        for definition in own {
            let target = Some(self.agent.tool_server_handle.clone());
            add(&server, ProxyTool { definition, target }).await?;
        }
        let mut agent = self.agent.clone();
        agent.tool_server_handle = server;
        Ok((agent, names))
    }

    async fn run_inner(&self, ctx: &mut RunContext<Value>) -> Result<Outcome, Error> {
        let input = ctx.input();
        let mut history = to_rig_messages(&input.messages);
        let Some(prompt) = history.pop() else {
            return Err(
                Error::agent("the run has no message for the agent to answer")
                    .with_code("rig_no_messages"),
            );
        };
        let prompt_text = match input.messages.last() {
            Some(Message::User(m)) => m.content.flatten(),
            _ => String::new(),
        };
        let state = ctx.state();
        let state = (!state.is_null()).then(|| state.to_string());
        if let Some(context) = context_message(&input.context, state.as_deref()) {
            history.insert(0, context);
        }
        let (agent, frontend) = self.run_agent(ctx, prompt_text).await?;
        let pending = Arc::new(Mutex::new(Vec::new()));
        let max_turns = self
            .config
            .max_turns
            .or(self.agent.default_max_turns)
            .unwrap_or(DEFAULT_MAX_TURNS);
        let request = agent
            .stream_prompt(prompt)
            .history(history)
            .max_turns(max_turns)
            .add_hook(FrontendHook {
                names: frontend.into(),
                pending: Arc::clone(&pending),
            });

        let ctx: &RunContext<Value> = ctx;
        let mut mapper = ItemMapper::new(ctx, Arc::clone(&pending));
        let work = async {
            let mut stream = request.await;
            while let Some(item) = stream.next().await {
                match item {
                    Ok(item) => {
                        if mapper.push(ctx, item)? {
                            return Ok(None);
                        }
                        ctx.ready().await?;
                    }
                    Err(StreamingError::Prompt(prompt)) if matches!(prompt.as_ref(), PromptError::PromptCancelled { reason, .. } if reason == FRONTEND_STOP) =>
                    {
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
        let ids: Vec<_> = pending
            .lock()
            .map(|p| {
                p.iter()
                    .map(|(internal, id)| {
                        mapper
                            .call_id(internal)
                            .cloned()
                            .unwrap_or_else(|| id.as_str().into())
                    })
                    .collect()
            })
            .unwrap_or_default();
        let usage = mapper.usage();
        mapper.finish()?;
        if let Some(error) = failed {
            return Err(Error::agent(error.to_string()).with_code(code(&error)));
        }
        let outcome = if ids.is_empty() {
            Outcome::success()
        } else {
            Outcome::success().with_pending_tool_calls(ids)
        };
        Ok(match usage {
            Some(usage) => outcome.with_usage(vec![self.token_usage(usage)]),
            None => outcome,
        })
    }

    fn token_usage(&self, usage: rig_core::completion::Usage) -> TokenUsage {
        let mut total = TokenUsage::new(self.config.provider.clone(), self.config.model.clone())
            .with_tokens(usage.input_tokens, usage.output_tokens);
        total.total_tokens = Some(usage.total_tokens);
        if usage.reasoning_tokens > 0 {
            total.reasoning_tokens = Some(usage.reasoning_tokens);
        }
        if usage.cached_input_tokens > 0 {
            total.cached_input_tokens = Some(usage.cached_input_tokens);
        }
        total
    }
}

async fn add(
    server: &rig_core::tool::server::ToolServerHandle,
    tool: ProxyTool,
) -> Result<(), Error> {
    server.add_tool(tool).await.map_err(|e| {
        Error::agent(format!("a tool could not be offered to the rig agent: {e}"))
            .with_code("rig_tool_error")
    })
}

impl<M> Agent for RigAgent<M>
where
    M: CompletionModel + 'static,
    M::StreamingResponse: Clone + Unpin + GetTokenUsage + Send,
{
    type State = Value;

    async fn run(&self, ctx: &mut RunContext<Value>) -> crate::server::Result<Outcome> {
        self.run_inner(ctx).await
    }
}
