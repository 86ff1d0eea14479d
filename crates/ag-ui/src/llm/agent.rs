//! [`LlmAgent`]: the agent loop.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::pin;

use futures::future::{Either, select};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use super::client::OpenAiClient;
use super::convert::{ChatOptions, chat_tools, context_message, to_chat_messages};
use super::mapper::{ChunkMapper, FinishReason, Turn, TurnToolCall};
use super::tool::{BackendTool, ToolError, ToolOutput, ToolRun};
use super::wire::{ChatContent, ChatFunctionCall, ChatMessage, ChatRequest, ChatToolCall};
use super::{LlmError, LlmErrorKind};
use crate::json::partial::PartialJson;
use crate::server::bridge::{self, LoopConfig};
use crate::server::{Agent, Outcome, PredictState, RunContext};
use crate::{Content, TokenUsage, Tool, ToolCallId};

/// Runs `work` unless the run is cancelled first; `None` then, and `work` is dropped.
async fn unless_cancelled<T>(
    cancelled: impl Future<Output = ()>,
    work: impl Future<Output = T>,
) -> Option<T> {
    match select(pin!(work), pin!(cancelled)).await {
        Either::Left((value, _)) => Some(value),
        Either::Right(((), _)) => None,
    }
}

/// A model-backed AG-UI agent: streams an OpenAI-compatible model, runs backend tools, hands
/// frontend tools to the client, and stops when the model does.
///
/// Each run:
///
/// 1. writes the request: the system prompt, then the [`context_message`] with the input's
///    context and the current state, then the conversation ([`to_chat_messages`]); the tools
///    are the backend tools and the input's frontend tools (a frontend tool with a backend
///    tool's name ends the run with `RUN_ERROR` code `tool_name_clash`, see
///    [`bridge::check_frontend_tools`]);
/// 2. streams the model's turn into the run ([`ChunkMapper`]);
/// 3. when the turn called tools: runs each backend tool (emitting `TOOL_CALL_RESULT`, and
///    `STATE_DELTA` when the tool changed the state — also while it works, for a tool made
///    with [`BackendTool::with_run`]), answers a failed tool, invalid arguments and unknown
///    tools with an error result ([`bridge::tool_error_text`], [`bridge::unknown_tool_text`]),
///    and asks the model again — unless a frontend tool was called, or a backend tool handed
///    the turn to the person ([`ToolOutput::with_frontend_call`]): then the run ends with
///    outcome `success` and `pendingToolCallIds`, and the next run, carrying the client's tool
///    message, continues the conversation;
/// 4. stops when the model answers without tool calls, with the token usage of all its turns
///    on `RUN_FINISHED`.
///
/// The loop asks the model at most [`LoopConfig::max_turns`] times (the bridge core's
/// [`LoopConfig`], set with [`with_loop_config`](Self::with_loop_config) or
/// [`with_max_turns`](Self::with_max_turns)); past that, and on any provider failure, the run
/// ends with `RUN_ERROR` and the code of the [`LlmErrorKind`]. A truncated answer
/// (`finish_reason: "length"`) and a filtered one are errors too: they are not a success. A cancelled run drops the provider's request at once,
/// and between provider chunks the loop waits on [`RunContext::ready`] so a slow consumer slows
/// the provider's stream instead of growing the run's backlog.
///
/// ## Predicted state
///
/// With [`with_predicted_state`](Self::with_predicted_state), a tool call's argument becomes
/// part of the state while the model is still writing it: each run begins with the `CUSTOM`
/// `PredictState` event (for clients that predict on their own), and as the named tool's
/// arguments stream, the agent reads them as far as they parse and publishes the argument as
/// the state's key (`STATE_DELTA` with one `add` of the whole value per provider chunk that
/// changed it, so a long argument costs its length times the number of chunks). The typed
/// state is not changed by a prediction: the tool's own result decides what the state becomes.
pub struct LlmAgent<S = ()> {
    client: OpenAiClient,
    model: String,
    system_prompt: Option<String>,
    tools: Vec<BackendTool<S>>,
    config: LoopConfig,
    temperature: Option<f64>,
    options: ChatOptions,
    extra: Map<String, Value>,
    predicted: Vec<PredictState>,
}

impl<S> fmt::Debug for LlmAgent<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmAgent")
            .field("client", &self.client)
            .field("model", &self.model)
            .field("tools", &self.tools)
            .field("config", &self.config)
            .field("predicted", &self.predicted)
            .finish_non_exhaustive()
    }
}

impl<S> LlmAgent<S> {
    /// An agent asking `model` through `client`; no system prompt, no backend tools, the
    /// default [`LoopConfig`] (at most [`bridge::DEFAULT_MAX_TURNS`] requests per run, usage
    /// reported for provider `openai`).
    pub fn new(client: OpenAiClient, model: impl Into<String>) -> Self {
        Self {
            client,
            model: model.into(),
            system_prompt: None,
            tools: Vec::new(),
            config: LoopConfig::default(),
            temperature: None,
            options: ChatOptions::default(),
            extra: Map::new(),
            predicted: Vec::new(),
        }
    }

    /// Sets the system prompt, sent first.
    #[must_use]
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Adds a backend tool.
    #[must_use]
    pub fn with_tool(mut self, tool: BackendTool<S>) -> Self {
        self.tools.push(tool);
        self
    }

    /// Sets how the loop runs: the most model requests per run, the names in the reported
    /// usage.
    ///
    /// ```
    /// use ag_ui::llm::{LlmAgent, OpenAiClient};
    /// use ag_ui::server::bridge::LoopConfig;
    ///
    /// let agent = LlmAgent::<()>::new(OpenAiClient::new("http://127.0.0.1:11434/v1"), "llama3.2")
    ///     .with_loop_config(LoopConfig::default().with_max_turns(3).with_usage_provider("ollama"));
    /// assert_eq!(agent.loop_config().max_turns, 3);
    /// ```
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

    /// Sets the sampling temperature.
    #[must_use]
    pub fn with_temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sets how messages are written for the model.
    #[must_use]
    pub fn with_chat_options(mut self, options: ChatOptions) -> Self {
        self.options = options;
        self
    }

    /// Adds a provider-specific request option, written at the top level of the body.
    #[must_use]
    pub fn with_request_option(mut self, name: impl Into<String>, value: Value) -> Self {
        self.extra.insert(name.into(), value);
        self
    }

    /// Predicts the state's `predict.state_key` from `predict.tool`'s arguments while the
    /// model writes them (see [Predicted state](Self#predicted-state)); several may be given.
    ///
    /// ```
    /// use ag_ui::llm::{LlmAgent, OpenAiClient};
    /// use ag_ui::server::PredictState;
    ///
    /// let agent = LlmAgent::<serde_json::Value>::new(OpenAiClient::new("http://127.0.0.1:11434/v1"), "llama3.2")
    ///     .with_predicted_state(
    ///         PredictState::new("document", "write_document").with_tool_argument("document"),
    ///     );
    /// # let _ = agent;
    /// ```
    #[must_use]
    pub fn with_predicted_state(mut self, predict: PredictState) -> Self {
        self.predicted.push(predict);
        self
    }

    /// The backend tools.
    pub fn tools(&self) -> &[BackendTool<S>] {
        &self.tools
    }
}

/// The predicting calls' arguments read so far: per call, the scanner and how many bytes of
/// the arguments it has read.
type Predicting = HashMap<ToolCallId, (PartialJson, usize)>;

/// A step of a running tool: it returned (`None` when the run was cancelled), or it published
/// a state (`None` when it dropped its [`ToolRun`]).
enum ToolStep<S> {
    Returned(Option<Result<ToolOutput<S>, ToolError>>),
    Published(Option<S>),
}

impl<S> LlmAgent<S>
where
    S: Default + Serialize + DeserializeOwned + Clone + Send + Sync + 'static,
{
    /// Streams one model turn into the run.
    async fn turn(&self, ctx: &mut RunContext<S>, request: &ChatRequest) -> Result<Turn, LlmError> {
        let mut stream = self.client.stream(request).await?;
        let mut mapper = ChunkMapper::new(ctx.stream_writer());
        let mut predicting = Predicting::new();
        while let Some(chunk) = stream.next_chunk().await? {
            mapper.push(chunk)?;
            if !self.predicted.is_empty() {
                self.predict(ctx, &mapper, &mut predicting)?;
            }
            // The readiness point: between provider chunks, wait while the consumer is behind,
            // so a slow reader slows the provider's stream instead of growing the backlog.
            ctx.ready().await?;
        }
        mapper.finish()
    }

    /// Publishes what the predicting calls' arguments now say.
    fn predict(
        &self,
        ctx: &mut RunContext<S>,
        mapper: &ChunkMapper,
        predicting: &mut Predicting,
    ) -> Result<(), LlmError> {
        for (id, name, arguments) in mapper.started_tool_calls() {
            if !self.predicted.iter().any(|p| p.tool == name) {
                continue;
            }
            let (scanner, read) = predicting
                .entry(id.clone())
                .or_insert_with(|| (PartialJson::new(), 0));
            if arguments.len() == *read {
                continue;
            }
            // The arguments only grow, by whole strings: `read` is a character boundary.
            scanner.push(&arguments[*read..]);
            *read = arguments.len();
            let value = scanner.value();
            for predict in self.predicted.iter().filter(|p| p.tool == name) {
                if let Some(predicted) = predict.value_in(&value) {
                    ctx.publish_predicted(&predict.state_key, predicted.clone())?;
                }
            }
        }
        Ok(())
    }

    /// Runs `tool` on `call`; a tool that works on its run gets a [`ToolRun`] (the run's
    /// context, `messages` as the model had them, a writer on the run, the state), and what it
    /// publishes while it works becomes the run's state as it comes. `None` when the run was
    /// cancelled first.
    async fn run_tool(
        &self,
        ctx: &mut RunContext<S>,
        tool: &BackendTool<S>,
        call: &TurnToolCall,
        messages: &[ChatMessage],
    ) -> Result<Option<Result<ToolOutput<S>, ToolError>>, crate::server::Error> {
        if !tool.is_in_run() {
            let work = tool.call(&call.arguments, ctx.state().clone());
            return Ok(unless_cancelled(ctx.cancelled(), work).await);
        }
        let (updates, mut published) = mpsc::channel(1);
        let run = ToolRun::new(
            call.id.clone(),
            ctx.input().context.clone(),
            messages.to_vec(),
            ctx.stream_writer(),
            ctx.state().clone(),
        )
        .with_updates(updates);
        let mut work = pin!(unless_cancelled(
            ctx.cancelled(),
            tool.call_in_run(&call.arguments, run)
        ));
        loop {
            let step = match select(work.as_mut(), pin!(published.recv())).await {
                Either::Left((returned, _)) => ToolStep::Returned(returned),
                Either::Right((state, _)) => ToolStep::Published(state),
            };
            match step {
                ToolStep::Returned(returned) => {
                    // What it published just before it returned.
                    while let Ok(state) = published.try_recv() {
                        *ctx.state_mut() = state;
                        ctx.publish_state_delta()?;
                    }
                    return Ok(returned);
                }
                ToolStep::Published(Some(state)) => {
                    *ctx.state_mut() = state;
                    ctx.publish_state_delta()?;
                }
                ToolStep::Published(None) => return Ok(work.await),
            }
        }
    }

    async fn run_loop(&self, ctx: &mut RunContext<S>) -> Result<Outcome, crate::server::Error> {
        bridge::check_frontend_tools(
            self.tools.iter().map(|t| t.tool().name.as_str()),
            &ctx.input().tools,
        )?;
        if !self.predicted.is_empty() {
            ctx.emit(PredictState::event(&self.predicted))?;
        }
        let frontend: Vec<String> = ctx.input().tools.iter().map(|t| t.name.clone()).collect();
        let (mut request, mut context) = self.first_request(ctx)?;
        let mut usage: Option<TokenUsage> = None;
        let turns = self.config.turn_limit();
        for index in 0..turns {
            if index > 0 {
                // Show the model the state as the tools left it.
                let state = serde_json::to_value(ctx.state()).unwrap_or(Value::Null);
                let message = context_message(&ctx.input().context, Some(&state));
                context.set(&mut request.messages, message);
            }
            let Some(turn) = unless_cancelled(ctx.cancelled(), self.turn(ctx, &request)).await
            else {
                return Ok(Outcome::cancelled());
            };
            let turn = turn?;
            self.add_usage(&mut usage, &turn);
            let finish = |outcome: Outcome| match &usage {
                Some(usage) => outcome.with_usage(vec![usage.clone()]),
                None => outcome,
            };
            stopped_short(&turn)?;
            request.messages.push(self.assistant_message(&turn));
            if turn.tool_calls.is_empty() {
                return Ok(finish(Outcome::success()));
            }
            match self
                .answer_tool_calls(ctx, &turn, &frontend, &mut request.messages)
                .await?
            {
                Answered::Continue => {}
                Answered::Pending(pending) => {
                    return Ok(finish(Outcome::success().with_pending_tool_calls(pending)));
                }
                Answered::Cancelled => return Ok(Outcome::cancelled()),
            }
        }
        Err(LlmError::new(
            LlmErrorKind::MaxTurns,
            format!(
                "the model still wanted tools after {turns} requests, the most this agent makes in one run"
            ),
        )
        .into())
    }

    /// The first turn's request: the system prompt, the context message (the run's context
    /// and state), the conversation, the tools (the backend's and the client's) and this
    /// agent's sampling options; with where the context message sits.
    fn first_request(&self, ctx: &RunContext<S>) -> Result<(ChatRequest, ContextSlot), LlmError> {
        let mut declared: Vec<Tool> = self.tools.iter().map(|t| t.tool().clone()).collect();
        declared.extend(ctx.input().tools.iter().cloned());
        let mut messages = Vec::new();
        if let Some(prompt) = &self.system_prompt {
            messages.push(ChatMessage::System {
                content: prompt.clone(),
                name: None,
            });
        }
        let mut context = ContextSlot {
            at: messages.len(),
            present: false,
        };
        let state = serde_json::to_value(ctx.state()).map_err(|e| {
            LlmError::new(
                LlmErrorKind::Unsupported,
                format!("the state does not serialize: {e}"),
            )
        })?;
        context.set(
            &mut messages,
            context_message(&ctx.input().context, Some(&state)),
        );
        messages.extend(to_chat_messages(&ctx.input().messages, self.options)?);
        let mut request =
            ChatRequest::new(self.model.clone(), messages).with_tools(chat_tools(&declared));
        request.temperature = self.temperature;
        request.extra = self.extra.clone();
        Ok((request, context))
    }

    /// Adds what `turn` used to the run's `usage`, under this agent's provider and model.
    fn add_usage(&self, usage: &mut Option<TokenUsage>, turn: &Turn) {
        let provider = self.config.usage_provider.as_deref().unwrap_or("openai");
        if let Some(mut turn_usage) = turn.token_usage(provider, &self.model) {
            if let Some(model) = &self.config.usage_model {
                turn_usage.model = Some(model.clone());
            }
            bridge::add_usage(usage, turn_usage);
        }
    }

    /// The model's turn as the next request shows it to the model: its text, its tool calls,
    /// and its reasoning when it is replayed.
    fn assistant_message(&self, turn: &Turn) -> ChatMessage {
        ChatMessage::Assistant {
            content: (!turn.text.is_empty()).then(|| turn.text.clone()),
            tool_calls: turn
                .tool_calls
                .iter()
                .map(|c| ChatToolCall {
                    id: c.id.as_str().to_owned(),
                    kind: "function".to_owned(),
                    function: ChatFunctionCall {
                        name: c.name.clone(),
                        arguments: c.arguments.clone(),
                    },
                })
                .collect(),
            reasoning_content: (self.options.replay_reasoning && !turn.reasoning.is_empty())
                .then(|| turn.reasoning.clone()),
            name: None,
        }
    }

    /// Answers the tool calls of `turn`: runs the backend's (their results go to the run and
    /// to `messages`), leaves the client's pending, and names an unknown tool as such to the
    /// model.
    async fn answer_tool_calls(
        &self,
        ctx: &mut RunContext<S>,
        turn: &Turn,
        frontend: &[String],
        messages: &mut Vec<ChatMessage>,
    ) -> Result<Answered, crate::server::Error> {
        let mut pending = Vec::new();
        let mut handed_over = Vec::new();
        for call in &turn.tool_calls {
            let content = if let Some(tool) = self.tools.iter().find(|t| t.tool().name == call.name)
            {
                let Some(result) = self.run_tool(ctx, tool, call, messages).await? else {
                    return Ok(Answered::Cancelled);
                };
                match result {
                    Ok(output) => {
                        if let Some(state) = output.state {
                            *ctx.state_mut() = state;
                            ctx.publish_state_delta()?;
                        }
                        handed_over.extend(output.frontend_call);
                        output.content
                    }
                    Err(error) => Content::Text(bridge::tool_error_text(error.message())),
                }
            } else if frontend.contains(&call.name) {
                pending.push(call.id.clone());
                continue;
            } else {
                Content::Text(bridge::unknown_tool_text(&call.name))
            };
            ctx.tool_result(call.id.clone(), content.clone())?;
            messages.push(ChatMessage::Tool {
                content: self.tool_content(&call.id, content)?,
                tool_call_id: call.id.as_str().to_owned(),
            });
        }
        // A tool handed the turn to the person: its frontend call, then the run waits.
        for (name, arguments) in handed_over {
            pending.push(ctx.call_tool(name, &arguments)?);
        }
        Ok(if pending.is_empty() {
            Answered::Continue
        } else {
            Answered::Pending(pending)
        })
    }

    /// The result of call `id` as the model reads it: text as it is, parts converted.
    fn tool_content(&self, id: &ToolCallId, content: Content) -> Result<ChatContent, LlmError> {
        Ok(match content {
            Content::Text(text) => ChatContent::Text(text),
            parts => to_chat_messages(
                &[crate::Message::tool("m", id.clone(), parts)],
                self.options,
            )?
            .pop()
            .and_then(|m| match m {
                ChatMessage::Tool { content, .. } => Some(content),
                _ => None,
            })
            .unwrap_or(ChatContent::Text(String::new())),
        })
    }
}

/// Where the context message (the run's context and state) sits in a request's messages,
/// and whether it is there: set again before each turn after the first.
#[derive(Clone, Copy, Debug)]
struct ContextSlot {
    at: usize,
    present: bool,
}

impl ContextSlot {
    /// Puts `message` in the slot, in place of the one there; `None` takes that one out.
    fn set(&mut self, messages: &mut Vec<ChatMessage>, message: Option<ChatMessage>) {
        match (message, self.present) {
            (Some(message), true) => messages[self.at] = message,
            (Some(message), false) => {
                messages.insert(self.at, message);
                self.present = true;
            }
            (None, true) => {
                messages.remove(self.at);
                self.present = false;
            }
            (None, false) => {}
        }
    }
}

/// What answering a turn's tool calls came to.
enum Answered {
    /// Every call has its result: the next turn asks the model.
    Continue,
    /// These calls wait for the client (its own tools, and those a backend tool handed over):
    /// the run ends with them pending.
    Pending(Vec<ToolCallId>),
    /// The run was cancelled while a tool worked.
    Cancelled,
}

/// An error when the model stopped short: at its output token limit, or at the provider's
/// content filter.
fn stopped_short(turn: &Turn) -> Result<(), LlmError> {
    match &turn.finish_reason {
        Some(FinishReason::Length) => Err(LlmError::new(
            LlmErrorKind::Length,
            "the model stopped at its output token limit; the answer is cut off",
        )),
        Some(FinishReason::ContentFilter) => Err(LlmError::new(
            LlmErrorKind::ContentFilter,
            "the provider's content filter stopped the answer",
        )),
        _ => Ok(()),
    }
}

impl<S> Agent for LlmAgent<S>
where
    S: Default + Serialize + DeserializeOwned + Clone + Send + Sync + 'static,
{
    type State = S;

    async fn run(&self, ctx: &mut RunContext<S>) -> crate::server::Result<Outcome> {
        self.run_loop(ctx).await
    }
}
