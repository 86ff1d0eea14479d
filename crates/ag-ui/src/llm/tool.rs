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

use crate::server::bridge;
use crate::{Content, Tool};

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

/// What a tool made with [`BackendTool::with_run`] sees of the run while it works: the state
/// when it was called, and a way to publish the state as it changes, before the tool returns.
///
/// ```
/// use ag_ui::llm::{BackendTool, ToolOutput};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// /// Arguments of `count`.
/// #[derive(Deserialize, JsonSchema)]
/// struct Count {
///     /// How far.
///     to: u32,
/// }
///
/// // The client watches the count go up, one state delta per number.
/// let tool = BackendTool::<u32>::with_run("count", "Count up", |args: Count, mut run| async move {
///     for n in 1..=args.to {
///         run.publish(n).await?;
///     }
///     Ok(ToolOutput::text("counted"))
/// });
/// # let _ = tool;
/// ```
#[derive(Debug)]
pub struct ToolRun<S> {
    state: S,
    updates: Option<mpsc::Sender<S>>,
}

impl<S> ToolRun<S> {
    /// A tool run outside any agent run (see [`BackendTool::call`]): publishing only changes
    /// [`state`](Self::state).
    pub(crate) fn detached(state: S) -> Self {
        Self {
            state,
            updates: None,
        }
    }

    /// A tool run whose publications go to `updates`, which the agent reads while the tool
    /// works.
    pub(crate) fn new(state: S, updates: mpsc::Sender<S>) -> Self {
        Self {
            state,
            updates: Some(updates),
        }
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
    /// Makes `state` the run's state now: the agent publishes what changed (`STATE_DELTA`, or
    /// `STATE_SNAPSHOT` when that is smaller) while the tool goes on. Waits while the agent
    /// has not taken the previous publication yet, so a fast tool is held to the pace of the
    /// run's consumer.
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

type ToolFuture<S> = Pin<Box<dyn Future<Output = Result<ToolOutput<S>, ToolError>> + Send>>;
type Handler<S> = dyn Fn(&str, ToolRun<S>) -> Result<ToolFuture<S>, String> + Send + Sync;

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
}

impl<S> Clone for BackendTool<S> {
    fn clone(&self) -> Self {
        Self {
            tool: self.tool.clone(),
            handler: Arc::clone(&self.handler),
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
        Self::with_run(name, description, move |args: A, run: ToolRun<S>| {
            handler(args, run.into_state())
        })
    }

    /// A tool that works on the run: `handler` gets the parsed arguments and a [`ToolRun`],
    /// through which it publishes the state as it changes while it works (a plan's steps
    /// completed one by one, a long job's progress).
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
        let handler = move |arguments: &str, run: ToolRun<S>| -> Result<ToolFuture<S>, String> {
            let args = parse::<A>(arguments)?;
            Ok(Box::pin(handler(args, run)))
        };
        Self {
            tool,
            handler: Arc::new(handler),
        }
    }

    /// A tool declared by `tool` as it is (its JSON Schema written elsewhere, as an MCP
    /// server's), whose `handler` receives the raw argument text.
    pub fn from_declaration<F, Fut>(tool: Tool, handler: F) -> Self
    where
        F: Fn(&str, S) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput<S>, ToolError>> + Send + 'static,
    {
        let handler = move |arguments: &str, run: ToolRun<S>| -> Result<ToolFuture<S>, String> {
            Ok(Box::pin(handler(arguments, run.into_state())))
        };
        Self {
            tool,
            handler: Arc::new(handler),
        }
    }

    /// The declaration offered to the model (and its generated schema).
    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// Parses `arguments` and calls the tool, outside any run (what a tool made with
    /// [`with_run`](Self::with_run) publishes goes nowhere).
    ///
    /// # Errors
    ///
    /// The arguments do not parse as the tool's type (serde's message), or the tool failed.
    pub async fn call(&self, arguments: &str, state: S) -> Result<ToolOutput<S>, ToolError> {
        self.call_in(arguments, ToolRun::detached(state)).await
    }

    /// Parses `arguments` and calls the tool on `run`.
    pub(crate) async fn call_in(
        &self,
        arguments: &str,
        run: ToolRun<S>,
    ) -> Result<ToolOutput<S>, ToolError> {
        let future = (self.handler)(arguments, run)
            .map_err(|e| ToolError::new(bridge::invalid_arguments(&self.tool.name, &e)))?;
        future.await
    }
}
