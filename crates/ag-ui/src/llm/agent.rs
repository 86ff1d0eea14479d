//! [`LlmAgent`]: the agent loop, and [`BackendTool`]: typed Rust tools.

use std::fmt;
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;

use futures::future::{Either, select};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::client::OpenAiClient;
use super::convert::{ChatOptions, chat_tools, context_message, to_chat_messages};
use super::mapper::{ChunkMapper, FinishReason, Turn};
use super::wire::{ChatContent, ChatFunctionCall, ChatMessage, ChatRequest, ChatToolCall};
use super::{LlmError, LlmErrorKind};
use crate::server::bridge::{self, LoopConfig};
use crate::server::{Agent, Outcome, RunContext, StreamWriter};
use crate::{Content, TokenUsage, Tool, ToolCallId};

/// What a backend tool returns: the content the model (and the frontend, as
/// `TOOL_CALL_RESULT`) receives, and optionally the run's new state.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolOutput<S> {
    content: Content,
    state: Option<S>,
}

impl<S> ToolOutput<S> {
    /// Text for the model.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: Content::Text(text.into()),
            state: None,
        }
    }

    /// A JSON value for the model, as its JSON text.
    pub fn json(value: &Value) -> Self {
        Self::text(value.to_string())
    }

    /// Content for the model: text, or content parts.
    pub fn from_content(content: Content) -> Self {
        Self {
            content,
            state: None,
        }
    }

    /// Replaces the run's state with `state`; the agent then publishes what changed
    /// (`STATE_DELTA`).
    #[must_use]
    pub fn with_state(mut self, state: S) -> Self {
        self.state = Some(state);
        self
    }

    /// The content.
    pub fn content(&self) -> &Content {
        &self.content
    }
}

/// A backend tool failed; its message goes back to the model as the tool's result
/// ([`bridge::tool_error_text`]: `Error: {message}`), and the loop goes on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// A failure with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

type ToolFuture<S> = Pin<Box<dyn Future<Output = Result<ToolOutput<S>, ToolError>> + Send>>;
type Handler<S> = dyn Fn(&str, S, Option<ToolRun>) -> Result<ToolFuture<S>, String> + Send + Sync;

/// What a tool made with [`BackendTool::in_run`] sees of the run that called it: the call's
/// id, the run's context, the conversation as the model had it when it made the call (the call
/// included), and a [`StreamWriter`] to emit on the run — a sub-call's stream, progress, an
/// activity.
///
/// ```
/// use ag_ui::llm::{BackendTool, ToolOutput, ToolRun};
/// use ag_ui::{Event, Tool};
/// use serde_json::json;
///
/// // A tool that reports its progress on the run while it works.
/// let tool = BackendTool::<()>::in_run(Tool::new("index", "Indexes the documents"), |_args, _state, run: ToolRun| async move {
///     run.writer().emit(Event::custom("indexing", json!({"call": run.call_id().as_str()}))).ok();
///     Ok(ToolOutput::text("indexed"))
/// });
/// assert!(tool.is_in_run());
/// // Outside a run there is nothing to give it.
/// let err = futures::executor::block_on(tool.call("{}", ())).unwrap_err();
/// assert_eq!(err.message(), "`index` runs only inside an agent's run");
/// ```
pub struct ToolRun {
    call_id: ToolCallId,
    context: Vec<crate::Context>,
    messages: Vec<ChatMessage>,
    writer: StreamWriter,
}

impl fmt::Debug for ToolRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRun")
            .field("call_id", &self.call_id)
            .field("messages", &self.messages.len())
            .finish_non_exhaustive()
    }
}

impl ToolRun {
    /// What a tool sees of a run: for an agent loop of your own calling [`BackendTool`]s made
    /// with [`in_run`](BackendTool::in_run) ([`LlmAgent`] builds it itself).
    pub fn new(
        call_id: impl Into<ToolCallId>,
        context: Vec<crate::Context>,
        messages: Vec<ChatMessage>,
        writer: StreamWriter,
    ) -> Self {
        Self {
            call_id: call_id.into(),
            context,
            messages,
            writer,
        }
    }

    /// The id of the call being answered.
    pub fn call_id(&self) -> &ToolCallId {
        &self.call_id
    }

    /// The run's context (`RunAgentInput.context`).
    pub fn context(&self) -> &[crate::Context] {
        &self.context
    }

    /// The conversation as the model had it when it made the call, in the Chat Completions
    /// form: the system prompt and context message, the history, the assistant turn with this
    /// call, and the results of the calls answered before it.
    pub fn messages(&self) -> &[ChatMessage] {
        &self.messages
    }

    /// A writer on the run, attributed like the agent's events.
    pub fn writer(&self) -> &StreamWriter {
        &self.writer
    }
}

/// A tool that runs in the agent: an async Rust function with typed arguments `A`, whose JSON
/// Schema (`Tool.parameters`) is generated from `A` by `schemars` — never written by hand.
///
/// The function receives the parsed arguments and a copy of the run's state, and returns a
/// [`ToolOutput`] (with a new state if it changed one) or a [`ToolError`]. Arguments that do not
/// parse as `A` never reach it: the model gets an error result naming what was wrong, and can
/// try again.
///
/// ```
/// use ag_ui::llm::{BackendTool, ToolOutput};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// /// Arguments of `weather`.
/// #[derive(Deserialize, JsonSchema)]
/// struct WeatherArgs {
///     /// The city.
///     city: String,
/// }
///
/// let tool = BackendTool::<()>::new("weather", "Current weather", |args: WeatherArgs, _state| async move {
///     Ok(ToolOutput::text(format!("Sunny in {}", args.city)))
/// });
/// let schema = tool.tool().parameters.as_ref().unwrap();
/// assert_eq!(schema["type"], "object");
/// assert_eq!(schema["properties"]["city"]["type"], "string");
/// assert_eq!(schema["required"][0], "city");
/// ```
pub struct BackendTool<S> {
    tool: Tool,
    handler: Arc<Handler<S>>,
    in_run: bool,
}

impl<S> Clone for BackendTool<S> {
    fn clone(&self) -> Self {
        Self {
            tool: self.tool.clone(),
            handler: Arc::clone(&self.handler),
            in_run: self.in_run,
        }
    }
}

impl<S> fmt::Debug for BackendTool<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BackendTool")
            .field("name", &self.tool.name)
            .finish_non_exhaustive()
    }
}

/// The JSON Schema of `A`, inlined (no `$defs`), without `$schema` and `title`, which some
/// servers refuse in a tool declaration.
pub fn schema_for<A: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut schema: Value = generator.into_root_schema_for::<A>().into();
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
    }
    schema
}

impl<S: Send + 'static> BackendTool<S> {
    /// A tool named `name`, described to the model by `description`, running `handler`.
    pub fn new<A, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Self
    where
        A: JsonSchema + DeserializeOwned + Send + 'static,
        F: Fn(A, S) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput<S>, ToolError>> + Send + 'static,
    {
        let tool = Tool::new(name, description).with_parameters(schema_for::<A>());
        let handler =
            move |arguments: &str, state: S, _: Option<ToolRun>| -> Result<ToolFuture<S>, String> {
                let arguments = if arguments.trim().is_empty() {
                    "{}"
                } else {
                    arguments
                };
                let args = serde_json::from_str::<A>(arguments).map_err(|e| e.to_string())?;
                Ok(Box::pin(handler(args, state)))
            };
        Self {
            tool,
            handler: Arc::new(handler),
            in_run: false,
        }
    }

    /// A tool declared by `tool` as it is (its JSON Schema written elsewhere, as an MCP
    /// server's), whose `handler` receives the raw argument text.
    pub fn from_declaration<F, Fut>(tool: Tool, handler: F) -> Self
    where
        F: Fn(&str, S) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput<S>, ToolError>> + Send + 'static,
    {
        let handler =
            move |arguments: &str, state: S, _: Option<ToolRun>| -> Result<ToolFuture<S>, String> {
                Ok(Box::pin(handler(arguments, state)))
            };
        Self {
            tool,
            handler: Arc::new(handler),
            in_run: false,
        }
    }

    /// A tool declared by `tool` whose `handler` receives the raw argument text, the state,
    /// and the run that called it ([`ToolRun`]): to read the run's context and conversation,
    /// or emit on the run while it works (`ag_ui::a2ui`'s `generate_a2ui` streams a sub-agent's
    /// call this way).
    pub fn in_run<F, Fut>(tool: Tool, handler: F) -> Self
    where
        F: Fn(&str, S, ToolRun) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput<S>, ToolError>> + Send + 'static,
    {
        let name = tool.name.clone();
        let handler = move |arguments: &str,
                            state: S,
                            run: Option<ToolRun>|
              -> Result<ToolFuture<S>, String> {
            Ok(match run {
                Some(run) => Box::pin(handler(arguments, state, run)),
                None => {
                    let error = ToolError::new(format!("`{name}` runs only inside an agent's run"));
                    Box::pin(std::future::ready(Err(error)))
                }
            })
        };
        Self {
            tool,
            handler: Arc::new(handler),
            in_run: true,
        }
    }

    /// Whether the tool was made with [`in_run`](Self::in_run).
    pub fn is_in_run(&self) -> bool {
        self.in_run
    }

    /// The declaration offered to the model (and its generated schema).
    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// Parses `arguments` and calls the tool.
    ///
    /// # Errors
    ///
    /// The arguments do not parse as the tool's type (serde's message), or the tool failed.
    pub async fn call(&self, arguments: &str, state: S) -> Result<ToolOutput<S>, ToolError> {
        self.call_in_run(arguments, state, None).await
    }

    /// Parses `arguments` and calls the tool, in `run` when it was made with
    /// [`in_run`](Self::in_run) (other tools ignore it).
    ///
    /// # Errors
    ///
    /// As [`call`](Self::call); an [`in_run`](Self::in_run) tool called without a run.
    pub async fn call_in_run(
        &self,
        arguments: &str,
        state: S,
        run: Option<ToolRun>,
    ) -> Result<ToolOutput<S>, ToolError> {
        let future = (self.handler)(arguments, state, run)
            .map_err(|e| ToolError::new(bridge::invalid_arguments(&self.tool.name, &e)))?;
        future.await
    }
}

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
///    `STATE_DELTA` when the tool changed the state), answers a failed tool, invalid
///    arguments and unknown tools with an error result ([`bridge::tool_error_text`],
///    [`bridge::unknown_tool_text`]), and asks the model again — unless a frontend tool was
///    called: then the run ends with outcome `success` and `pendingToolCallIds`, and the next
///    run, carrying the client's tool message, continues the conversation;
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
pub struct LlmAgent<S = ()> {
    client: OpenAiClient,
    model: String,
    system_prompt: Option<String>,
    tools: Vec<BackendTool<S>>,
    config: LoopConfig,
    temperature: Option<f64>,
    options: ChatOptions,
    extra: Map<String, Value>,
}

impl<S> fmt::Debug for LlmAgent<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmAgent")
            .field("client", &self.client)
            .field("model", &self.model)
            .field("tools", &self.tools)
            .field("config", &self.config)
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

    /// The backend tools.
    pub fn tools(&self) -> &[BackendTool<S>] {
        &self.tools
    }
}

impl<S> LlmAgent<S>
where
    S: Default + Serialize + DeserializeOwned + Clone + Send + Sync + 'static,
{
    /// Streams one model turn into the run.
    async fn turn(&self, ctx: &RunContext<S>, request: &ChatRequest) -> Result<Turn, LlmError> {
        let mut stream = self.client.stream(request).await?;
        let mut mapper = ChunkMapper::new(ctx.stream_writer());
        while let Some(chunk) = stream.next_chunk().await? {
            mapper.push(chunk)?;
            // The readiness point: between provider chunks, wait while the consumer is behind,
            // so a slow reader slows the provider's stream instead of growing the backlog.
            ctx.ready().await?;
        }
        mapper.finish()
    }

    async fn run_loop(&self, ctx: &mut RunContext<S>) -> Result<Outcome, crate::server::Error> {
        bridge::check_frontend_tools(
            self.tools.iter().map(|t| t.tool.name.as_str()),
            &ctx.input().tools,
        )?;
        let frontend: Vec<String> = ctx.input().tools.iter().map(|t| t.name.clone()).collect();
        let mut declared: Vec<Tool> = self.tools.iter().map(|t| t.tool.clone()).collect();
        declared.extend(ctx.input().tools.iter().cloned());
        let mut messages = Vec::new();
        if let Some(prompt) = &self.system_prompt {
            messages.push(ChatMessage::System {
                content: prompt.clone(),
                name: None,
            });
        }
        let context_at = messages.len();
        let state = serde_json::to_value(ctx.state()).map_err(|e| {
            LlmError::new(
                LlmErrorKind::Unsupported,
                format!("the state does not serialize: {e}"),
            )
        })?;
        let mut has_context = false;
        if let Some(message) = context_message(&ctx.input().context, Some(&state)) {
            messages.push(message);
            has_context = true;
        }
        messages.extend(to_chat_messages(&ctx.input().messages, self.options)?);
        let mut request =
            ChatRequest::new(self.model.clone(), messages).with_tools(chat_tools(&declared));
        request.temperature = self.temperature;
        request.extra = self.extra.clone();

        let mut usage: Option<TokenUsage> = None;
        let turns = self.config.turn_limit();
        for index in 0..turns {
            if index > 0 {
                // Show the model the state as the tools left it.
                let state = serde_json::to_value(ctx.state()).unwrap_or(Value::Null);
                match (
                    context_message(&ctx.input().context, Some(&state)),
                    has_context,
                ) {
                    (Some(message), true) => request.messages[context_at] = message,
                    (Some(message), false) => {
                        request.messages.insert(context_at, message);
                        has_context = true;
                    }
                    (None, true) => {
                        request.messages.remove(context_at);
                        has_context = false;
                    }
                    (None, false) => {}
                }
            }
            let Some(turn) = unless_cancelled(ctx.cancelled(), self.turn(ctx, &request)).await
            else {
                return Ok(Outcome::cancelled());
            };
            let turn = turn?;
            let provider = self.config.usage_provider.as_deref().unwrap_or("openai");
            if let Some(mut turn_usage) = turn.token_usage(provider, &self.model) {
                if let Some(model) = &self.config.usage_model {
                    turn_usage.model = Some(model.clone());
                }
                bridge::add_usage(&mut usage, turn_usage);
            }
            let finish = |outcome: Outcome| match &usage {
                Some(usage) => outcome.with_usage(vec![usage.clone()]),
                None => outcome,
            };
            match &turn.finish_reason {
                Some(FinishReason::Length) => {
                    return Err(LlmError::new(
                        LlmErrorKind::Length,
                        "the model stopped at its output token limit; the answer is cut off",
                    )
                    .into());
                }
                Some(FinishReason::ContentFilter) => {
                    return Err(LlmError::new(
                        LlmErrorKind::ContentFilter,
                        "the provider's content filter stopped the answer",
                    )
                    .into());
                }
                _ => {}
            }
            request.messages.push(ChatMessage::Assistant {
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
            });
            if turn.tool_calls.is_empty() {
                return Ok(finish(Outcome::success()));
            }
            let mut pending = Vec::new();
            for call in &turn.tool_calls {
                let content =
                    if let Some(tool) = self.tools.iter().find(|t| t.tool.name == call.name) {
                        let run = tool.in_run.then(|| {
                            ToolRun::new(
                                call.id.clone(),
                                ctx.input().context.clone(),
                                request.messages.clone(),
                                ctx.stream_writer(),
                            )
                        });
                        let work = tool.call_in_run(&call.arguments, ctx.state().clone(), run);
                        let Some(result) = unless_cancelled(ctx.cancelled(), work).await else {
                            return Ok(Outcome::cancelled());
                        };
                        match result {
                            Ok(output) => {
                                if let Some(state) = output.state {
                                    *ctx.state_mut() = state;
                                    ctx.publish_state_delta()?;
                                }
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
                let content = match content {
                    Content::Text(text) => ChatContent::Text(text),
                    parts => to_chat_messages(
                        &[crate::Message::tool("m", call.id.clone(), parts)],
                        self.options,
                    )?
                    .pop()
                    .and_then(|m| match m {
                        ChatMessage::Tool { content, .. } => Some(content),
                        _ => None,
                    })
                    .unwrap_or(ChatContent::Text(String::new())),
                };
                request.messages.push(ChatMessage::Tool {
                    content,
                    tool_call_id: call.id.as_str().to_owned(),
                });
            }
            if !pending.is_empty() {
                return Ok(finish(Outcome::success().with_pending_tool_calls(pending)));
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
