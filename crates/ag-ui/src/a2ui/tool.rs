//! [`GenerateA2ui`]: the `generate_a2ui` backend tool of [`LlmAgent`](crate::llm::LlmAgent),
//! whose sub-agent is an OpenAI-compatible model call made to answer with `render_a2ui`.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Value, json};

use super::activity::{SurfaceActivity, snapshot};
use super::generation::{GenerateArgs, GenerateConfig, Generation};
use super::prompt::{generate_tool, render_tool};
use super::{A2uiError, RENDER_TOOL_NAME};
use crate::llm::wire::{ChatContent, ChatMessage, ChatRequest};
use crate::llm::{
    BackendTool, ChunkMapper, LlmError, LlmErrorKind, OpenAiClient, ToolError, ToolOutput, ToolRun,
    Turn, chat_tools,
};
use crate::server::StreamWriter;
use crate::{Event, MessageId, Metadata, ToolCallId};

/// The `generate_a2ui` tool for [`LlmAgent`](crate::llm::LlmAgent): when the planning model
/// calls it, a sub-agent — the model `model` behind `client`, given only `render_a2ui` and
/// made to call it — designs the surface; its call is streamed on the run as it arrives (so
/// `@ag-ui/a2ui-middleware` paints it progressively), checked against the catalog the page
/// sent with the run, and asked again with the findings, up to
/// [`max_attempts`](GenerateConfig::max_attempts) times. The tool's result is the surface's
/// `{"a2ui_operations": [...]}`, or the structured `a2ui_recovery_exhausted` failure the
/// middleware shows when every attempt failed.
///
/// On the run, each attempt is an assistant turn with a `render_a2ui` tool call (its
/// arguments streamed as `TOOL_CALL_ARGS`) and the call's result (`{"status": "rendered"}`,
/// or `{"status": "invalid", "errors": [...]}`), between the planner's `generate_a2ui` call
/// and that call's result — the sequence the other SDKs' adapters write and the middleware
/// reads.
///
/// ```
/// use ag_ui::a2ui::{GenerateA2ui, GenerateConfig};
/// use ag_ui::llm::{LlmAgent, OpenAiClient};
///
/// let client = OpenAiClient::new("https://api.openai.com/v1")
///     .with_api_key(std::env::var("OPENAI_API_KEY").unwrap_or_default());
/// let generate = GenerateA2ui::new(client.clone(), "gpt-4o")
///     .with_config(GenerateConfig::default().with_guide("Use a Row of HotelCards for hotels."));
/// let agent = LlmAgent::<()>::new(client, "gpt-4o")
///     .with_system_prompt("When a visual answer helps, call generate_a2ui.")
///     .with_tool(generate.tool());
/// assert_eq!(agent.tools()[0].tool().name, "generate_a2ui");
/// ```
#[derive(Clone, Debug)]
pub struct GenerateA2ui {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    client: OpenAiClient,
    model: String,
    config: GenerateConfig,
}

impl GenerateA2ui {
    /// The tool, its sub-agent the model `model` behind `client`, with the default
    /// [`GenerateConfig`].
    pub fn new(client: OpenAiClient, model: impl Into<String>) -> Self {
        Self {
            inner: Arc::new(Inner {
                client,
                model: model.into(),
                config: GenerateConfig::default(),
            }),
        }
    }

    /// Sets the whole configuration.
    #[must_use]
    pub fn with_config(self, config: GenerateConfig) -> Self {
        let inner = Inner {
            client: self.inner.client.clone(),
            model: self.inner.model.clone(),
            config,
        };
        Self {
            inner: Arc::new(inner),
        }
    }

    /// Sets the guide appended to the sub-agent's prompt (shortcut for
    /// [`GenerateConfig::with_guide`]).
    #[must_use]
    pub fn with_guide(self, guide: impl Into<String>) -> Self {
        let config = self.inner.config.clone().with_guide(guide);
        self.with_config(config)
    }

    /// The configuration.
    pub fn config(&self) -> &GenerateConfig {
        &self.inner.config
    }

    /// The backend tool, named `generate_a2ui`, for
    /// [`LlmAgent::with_tool`](crate::llm::LlmAgent::with_tool).
    pub fn tool<S: Send + Sync + 'static>(&self) -> BackendTool<S> {
        let inner = Arc::clone(&self.inner);
        BackendTool::in_run(generate_tool(), move |arguments, run: ToolRun<S>| {
            let inner = Arc::clone(&inner);
            let args = GenerateArgs::parse(arguments);
            async move {
                inner
                    .generate(&args, &run)
                    .await
                    .map(ToolOutput::text)
                    .map_err(|e| ToolError::new(e.to_string()))
            }
        })
    }
}

impl Inner {
    async fn generate<S>(
        &self,
        args: &GenerateArgs,
        run: &ToolRun<S>,
    ) -> Result<String, A2uiError> {
        let history: Vec<&str> = run
            .messages()
            .iter()
            .filter_map(|m| match m {
                ChatMessage::Tool {
                    content: ChatContent::Text(text),
                    ..
                } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let mut generation = Generation::new(args, run.context(), history, &self.config);
        let conversation = sub_conversation(run.messages());
        let writer = run.writer();
        let activity = MessageId::new(format!("a2ui-surface-{}", run.call_id()));
        let mut last_errors = Value::Null;
        while let Some(prompt) = generation.prompt() {
            if self.config.emit_activity {
                let content = if generation.attempt() == 1 {
                    status_content("building", &[])
                } else {
                    status_content(
                        "retrying",
                        &[
                            ("attempt", json!(generation.attempt())),
                            ("maxAttempts", json!(generation.max_attempts())),
                            ("errors", last_errors.clone()),
                        ],
                    )
                };
                writer.emit(snapshot(activity.clone(), content))?;
            }
            let mut messages = Vec::with_capacity(conversation.len() + 1);
            messages.push(ChatMessage::System {
                content: prompt,
                name: None,
            });
            messages.extend(conversation.iter().cloned());
            let mut request = ChatRequest::new(self.model.clone(), messages)
                .with_tools(chat_tools(&[render_tool()]));
            request.extra.insert(
                "tool_choice".to_owned(),
                json!({"type": "function", "function": {"name": RENDER_TOOL_NAME}}),
            );
            match stream_turn(&self.client, &request, writer.sibling()).await {
                Ok(turn) => {
                    let render = turn.tool_calls.iter().find(|c| c.name == RENDER_TOOL_NAME);
                    let attempt = generation
                        .record(render.map(|c| c.arguments.as_str()))
                        .clone();
                    last_errors = json!(attempt.errors);
                    // Every call the sub-agent made is answered, so the conversation stays
                    // well formed for the client and for the next request.
                    for call in &turn.tool_calls {
                        let result = if render.is_some_and(|r| r.id == call.id) {
                            if attempt.ok {
                                json!({"status": "rendered"})
                            } else {
                                json!({"status": "invalid", "errors": attempt.errors})
                            }
                        } else if call.name == RENDER_TOOL_NAME {
                            json!({"status": "ignored", "reason": "one render_a2ui call is read per attempt, the first"})
                        } else {
                            json!({"error": format!("only {RENDER_TOOL_NAME} can be called here")})
                        };
                        writer.emit(Event::tool_call_result(
                            writer.next_message_id(),
                            call.id.clone(),
                            result.to_string(),
                        ))?;
                    }
                }
                Err((error, _)) if error.kind() == LlmErrorKind::Emit => {
                    return Err(crate::server::Error::from(error).into());
                }
                Err((error, started)) => {
                    let attempt = generation.record_failure(&error.to_string());
                    last_errors = json!(attempt.errors);
                    // The calls that began before the break are answered too.
                    let result = json!({"status": "failed", "errors": attempt.errors}).to_string();
                    for id in started {
                        writer.emit(Event::tool_call_result(
                            writer.next_message_id(),
                            id,
                            result.clone(),
                        ))?;
                    }
                }
            }
        }
        let outcome = generation.finish();
        if self.config.emit_activity {
            match &outcome.operations {
                Some(operations) => {
                    SurfaceActivity::show_with_id(writer, activity, operations.clone())?;
                }
                // An update refused before any attempt showed nothing, and shows nothing.
                None if outcome.attempts.is_empty() => {}
                None => {
                    let failure: Value =
                        serde_json::from_str(&outcome.result).unwrap_or(Value::Null);
                    let content = status_content(
                        "failed",
                        &[
                            ("error", failure["error"].clone()),
                            ("attempts", json!(outcome.attempts)),
                            ("maxAttempts", json!(outcome.attempts.len())),
                        ],
                    );
                    writer.emit(snapshot(activity, content))?;
                }
            }
        }
        Ok(outcome.result)
    }
}

/// Streams one sub-agent turn on the run through `writer`, waiting between chunks while the
/// consumer is behind. A turn that breaks off returns the error and the calls it had started
/// (their `TOOL_CALL_END` sent by the writer), which the caller answers.
async fn stream_turn(
    client: &OpenAiClient,
    request: &ChatRequest,
    writer: StreamWriter,
) -> Result<Turn, (LlmError, Vec<ToolCallId>)> {
    let gate = writer.sibling();
    let mut stream = client.stream(request).await.map_err(|e| (e, Vec::new()))?;
    let mut mapper = ChunkMapper::new(writer);
    let broken = |mapper: ChunkMapper, error: LlmError| {
        let started = mapper
            .started_tool_calls()
            .map(|(id, _, _)| id.clone())
            .collect();
        drop(mapper);
        (error, started)
    };
    loop {
        match stream.next_chunk().await {
            Ok(Some(chunk)) => {
                if let Err(error) = mapper.push(chunk) {
                    return Err(broken(mapper, error));
                }
                if let Err(error) = gate.ready().await {
                    return Err(broken(mapper, error.into()));
                }
            }
            Ok(None) => return mapper.finish().map_err(|e| (e, Vec::new())),
            Err(error) => return Err(broken(mapper, error)),
        }
    }
}

/// The conversation the sub-agent reads: the planner's, without its system prompt and
/// context message (the sub-agent has its own) and without the calls not answered yet (the
/// `generate_a2ui` call being served among them), which providers refuse.
fn sub_conversation(messages: &[ChatMessage]) -> Vec<ChatMessage> {
    let answered: HashSet<&str> = messages
        .iter()
        .filter_map(|m| match m {
            ChatMessage::Tool { tool_call_id, .. } => Some(tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        match message {
            ChatMessage::System { .. } | ChatMessage::Developer { .. } => {}
            ChatMessage::Assistant {
                content,
                tool_calls,
                reasoning_content,
                name,
            } => {
                let kept: Vec<_> = tool_calls
                    .iter()
                    .filter(|c| answered.contains(c.id.as_str()))
                    .cloned()
                    .collect();
                if kept.is_empty() && content.as_deref().is_none_or(str::is_empty) {
                    continue;
                }
                out.push(ChatMessage::Assistant {
                    content: content.clone(),
                    tool_calls: kept,
                    reasoning_content: reasoning_content.clone(),
                    name: name.clone(),
                });
            }
            other => out.push(other.clone()),
        }
    }
    out
}

/// The content of a surface that is not painted yet, as CopilotKit's renderer reads it
/// (`status`: `building`, `retrying`, `failed`), shown in place until the surface replaces
/// it under the same message id.
fn status_content(status: &str, fields: &[(&str, Value)]) -> Metadata {
    let mut content = Metadata::new();
    content.insert("status".to_owned(), Value::from(status));
    for (name, value) in fields {
        content.insert((*name).to_owned(), value.clone());
    }
    content
}
