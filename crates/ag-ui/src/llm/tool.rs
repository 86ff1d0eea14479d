//! [`BackendTool`]: typed Rust tools run by the agent, what they return ([`ToolOutput`]), how
//! they fail ([`ToolError`]), and what a tool that works on the run sees of it ([`ToolRun`]).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::mpsc;

use super::wire::ChatMessage;
use crate::server::{StreamWriter, bridge};
use crate::{Content, Context, Tool, ToolCallId};

/// What a backend tool returns: the content the model (and the frontend, as
/// `TOOL_CALL_RESULT`) receives, optionally the run's new state, and optionally a call of a
/// frontend tool to make next.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolOutput<S> {
    pub(crate) content: Content,
    pub(crate) state: Option<S>,
    pub(crate) frontend_call: Option<(String, Value)>,
}

impl<S> ToolOutput<S> {
    /// Text for the model.
    pub fn text(text: impl Into<String>) -> Self {
        Self::from_content(Content::Text(text.into()))
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
            frontend_call: None,
        }
    }

    /// Replaces the run's state with `state`; the agent then publishes what changed
    /// (`STATE_DELTA`).
    #[must_use]
    pub fn with_state(mut self, state: S) -> Self {
        self.state = Some(state);
        self
    }

    /// Hands the turn to the person: after this result, the agent calls the frontend tool
    /// `name` with `arguments` (a tool the page declared, such as a confirmation dialog) and
    /// ends the run with that call pending, instead of asking the model again. The next run,
    /// carrying the page's answer, goes on from there.
    #[must_use]
    pub fn with_frontend_call(mut self, name: impl Into<String>, arguments: Value) -> Self {
        self.frontend_call = Some((name.into(), arguments));
        self
    }

    /// The content.
    pub fn content(&self) -> &Content {
        &self.content
    }

    /// The frontend tool to call next and its arguments, if any
    /// ([`with_frontend_call`](Self::with_frontend_call)).
    pub fn frontend_call(&self) -> Option<(&str, &Value)> {
        self.frontend_call
            .as_ref()
            .map(|(name, arguments)| (name.as_str(), arguments))
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

/// What a tool that works on its run ([`BackendTool::with_run`], [`BackendTool::in_run`]) sees
/// of the run that called it: the call's id, the run's context, the conversation as the model
/// had it when it made the call (the call included), a [`StreamWriter`] to emit on the run (a
/// sub-call's stream, progress, an activity), and the run's state, which it can publish as it
/// changes before it returns.
///
/// ```
/// use ag_ui::llm::{BackendTool, ToolOutput, ToolRun};
/// use ag_ui::{Event, Tool};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use serde_json::json;
///
/// /// Arguments of `count`.
/// #[derive(Deserialize, JsonSchema)]
/// struct Count {
///     /// How far.
///     to: u32,
/// }
///
/// // The client watches the count go up, one state delta per number.
/// let count = BackendTool::<u32>::with_run("count", "Count up", |args: Count, mut run: ToolRun<u32>| async move {
///     for n in 1..=args.to {
///         run.publish(n).await?;
///     }
///     Ok(ToolOutput::text("counted"))
/// });
/// // A tool that reports its progress on the run while it works.
/// let index = BackendTool::<()>::in_run(Tool::new("index", "Indexes the documents"), |_args, run: ToolRun<()>| async move {
///     run.writer().emit(Event::custom("indexing", json!({"call": run.call_id().as_str()}))).ok();
///     Ok(ToolOutput::text("indexed"))
/// });
/// assert!(count.is_in_run() && index.is_in_run());
/// // Outside a run there is nothing to give them.
/// let err = futures::executor::block_on(index.call("{}", ())).unwrap_err();
/// assert_eq!(err.message(), "`index` runs only inside an agent's run");
/// ```
pub struct ToolRun<S> {
    call_id: ToolCallId,
    context: Vec<Context>,
    messages: Vec<ChatMessage>,
    writer: StreamWriter,
    state: S,
    updates: Option<mpsc::Sender<S>>,
}

impl<S> fmt::Debug for ToolRun<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRun")
            .field("call_id", &self.call_id)
            .field("messages", &self.messages.len())
            .finish_non_exhaustive()
    }
}

impl<S> ToolRun<S> {
    /// What a tool sees of a run, the run's `state` included: for an agent loop of your own
    /// calling [`BackendTool`]s that work on their run ([`LlmAgent`](super::LlmAgent) builds
    /// it itself). What the tool publishes only changes this copy of the state unless the loop
    /// reads it with [`with_updates`](Self::with_updates).
    pub fn new(
        call_id: impl Into<ToolCallId>,
        context: Vec<Context>,
        messages: Vec<ChatMessage>,
        writer: StreamWriter,
        state: S,
    ) -> Self {
        Self {
            call_id: call_id.into(),
            context,
            messages,
            writer,
            state,
            updates: None,
        }
    }

    /// Sends each state the tool [publishes](Self::publish) to `updates` (a bounded channel:
    /// the tool waits while the loop has not taken the previous one), for the loop to publish
    /// on its run as it comes.
    #[must_use]
    pub fn with_updates(mut self, updates: mpsc::Sender<S>) -> Self {
        self.updates = Some(updates);
        self
    }

    /// The id of the call being answered.
    pub fn call_id(&self) -> &ToolCallId {
        &self.call_id
    }

    /// The run's context (`RunAgentInput.context`).
    pub fn context(&self) -> &[Context] {
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

    /// The run's state, as last published (or as it was when the tool was called).
    pub fn state(&self) -> &S {
        &self.state
    }

    /// The state as last published, taken.
    pub fn into_state(self) -> S {
        self.state
    }
}

impl<S: Clone> ToolRun<S> {
    /// Makes `state` the run's state now: [`LlmAgent`](super::LlmAgent) publishes what changed
    /// (`STATE_DELTA`, or `STATE_SNAPSHOT` when that is smaller) while the tool goes on. Waits
    /// while the agent has not taken the previous publication yet, so a fast tool is held to
    /// the pace of the run's consumer.
    ///
    /// # Errors
    ///
    /// The run ended (cancelled, or failed) while the tool was working.
    pub async fn publish(&mut self, state: S) -> Result<(), ToolError> {
        if let Some(updates) = &self.updates {
            updates
                .send(state.clone())
                .await
                .map_err(|_| ToolError::new("the run ended while the tool was working"))?;
        }
        self.state = state;
        Ok(())
    }
}

/// How a tool is called: outside a run, with the state alone, or inside one.
enum Call<S> {
    Detached(S),
    InRun(ToolRun<S>),
}

type ToolFuture<S> = Pin<Box<dyn Future<Output = Result<ToolOutput<S>, ToolError>> + Send>>;
type Handler<S> = dyn Fn(&str, Call<S>) -> Result<ToolFuture<S>, String> + Send + Sync;

/// The answer of a tool that works on its run, called outside one.
fn outside_a_run<S: Send + 'static>(name: &str) -> ToolFuture<S> {
    let error = ToolError::new(format!("`{name}` runs only inside an agent's run"));
    Box::pin(std::future::ready(Err(error)))
}

/// A tool that runs in the agent: an async Rust function with typed arguments `A`, whose JSON
/// Schema (`Tool.parameters`) is generated from `A` by `schemars` — never written by hand.
///
/// The function receives the parsed arguments and a copy of the run's state, and returns a
/// [`ToolOutput`] (with a new state if it changed one) or a [`ToolError`]. Arguments that do not
/// parse as `A` never reach it: the model gets an error result naming what was wrong, and can
/// try again. A tool that shows its progress in the state while it works is made with
/// [`with_run`](Self::with_run).
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

/// Parses `arguments` (empty text as `{}`) as `A`.
fn parse<A: DeserializeOwned>(arguments: &str) -> Result<A, String> {
    let arguments = if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    };
    serde_json::from_str::<A>(arguments).map_err(|e| e.to_string())
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
        Self::make(tool, false, move |arguments: &str, call: Call<S>| {
            let args = parse::<A>(arguments)?;
            let state = match call {
                Call::Detached(state) => state,
                Call::InRun(run) => run.into_state(),
            };
            Ok(Box::pin(handler(args, state)) as ToolFuture<S>)
        })
    }

    /// A tool that works on its run: `handler` gets the parsed arguments and a [`ToolRun`],
    /// through which it publishes the state as it changes while it works (a plan's steps
    /// completed one by one, a long job's progress), reads the run, or emits on it. It runs
    /// only inside an agent's run.
    pub fn with_run<A, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Self
    where
        A: JsonSchema + DeserializeOwned + Send + 'static,
        F: Fn(A, ToolRun<S>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput<S>, ToolError>> + Send + 'static,
    {
        let tool = Tool::new(name, description).with_parameters(schema_for::<A>());
        let name = tool.name.clone();
        Self::make(tool, true, move |arguments: &str, call: Call<S>| {
            let args = parse::<A>(arguments)?;
            Ok(match call {
                Call::InRun(run) => Box::pin(handler(args, run)) as ToolFuture<S>,
                Call::Detached(_) => outside_a_run(&name),
            })
        })
    }

    /// A tool declared by `tool` as it is (its JSON Schema written elsewhere, as an MCP
    /// server's), whose `handler` receives the raw argument text.
    pub fn from_declaration<F, Fut>(tool: Tool, handler: F) -> Self
    where
        F: Fn(&str, S) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput<S>, ToolError>> + Send + 'static,
    {
        Self::make(tool, false, move |arguments: &str, call: Call<S>| {
            let state = match call {
                Call::Detached(state) => state,
                Call::InRun(run) => run.into_state(),
            };
            Ok(Box::pin(handler(arguments, state)) as ToolFuture<S>)
        })
    }

    /// A tool declared by `tool` whose `handler` receives the raw argument text and the run
    /// that called it ([`ToolRun`]): to read the run's context and conversation, emit on the
    /// run while it works (`ag_ui::a2ui`'s `generate_a2ui` streams a sub-agent's call this
    /// way), or publish the state as it goes. It runs only inside an agent's run.
    pub fn in_run<F, Fut>(tool: Tool, handler: F) -> Self
    where
        F: Fn(&str, ToolRun<S>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput<S>, ToolError>> + Send + 'static,
    {
        let name = tool.name.clone();
        Self::make(tool, true, move |arguments: &str, call: Call<S>| {
            Ok(match call {
                Call::InRun(run) => Box::pin(handler(arguments, run)) as ToolFuture<S>,
                Call::Detached(_) => outside_a_run(&name),
            })
        })
    }

    fn make(
        tool: Tool,
        in_run: bool,
        handler: impl Fn(&str, Call<S>) -> Result<ToolFuture<S>, String> + Send + Sync + 'static,
    ) -> Self {
        Self {
            tool,
            handler: Arc::new(handler),
            in_run,
        }
    }

    /// Whether the tool works on its run ([`with_run`](Self::with_run),
    /// [`in_run`](Self::in_run)): it is then called with a [`ToolRun`].
    pub fn is_in_run(&self) -> bool {
        self.in_run
    }

    /// The declaration offered to the model (and its generated schema).
    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// Parses `arguments` and calls the tool outside any run, with `state` (a tool that works
    /// on its run answers with an error).
    ///
    /// # Errors
    ///
    /// The arguments do not parse as the tool's type (serde's message), or the tool failed.
    pub async fn call(&self, arguments: &str, state: S) -> Result<ToolOutput<S>, ToolError> {
        self.invoke(arguments, Call::Detached(state)).await
    }

    /// Parses `arguments` and calls the tool in `run` (a tool that does not work on its run
    /// gets the run's state alone).
    ///
    /// # Errors
    ///
    /// As [`call`](Self::call).
    pub async fn call_in_run(
        &self,
        arguments: &str,
        run: ToolRun<S>,
    ) -> Result<ToolOutput<S>, ToolError> {
        self.invoke(arguments, Call::InRun(run)).await
    }

    async fn invoke(&self, arguments: &str, call: Call<S>) -> Result<ToolOutput<S>, ToolError> {
        let future = (self.handler)(arguments, call)
            .map_err(|e| ToolError::new(bridge::invalid_arguments(&self.tool.name, &e)))?;
        future.await
    }
}
