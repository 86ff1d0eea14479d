//! MCP tools on a rig agent: the tools of MCP servers, reached through [`ag_ui::mcp`], added to
//! a rig agent's tool server, so a [`RigAgent`](crate::RigAgent) serving it offers them.
//!
//! The servers are connected, listed and called by `ag_ui::mcp` (`McpServer`, `McpTools`), the
//! same way `ag_ui::llm::LlmAgent` gets MCP tools, so one `rmcp` serves both bridges. (rig's
//! own `rig-rmcp` 0.44 is built on rmcp 2 where this workspace is on rmcp 3; it moves to
//! rmcp 3 in 0.45, which needs Rust 1.97.1.)
//!
//! | MCP | what the model and the client get |
//! |---|---|
//! | a result's text blocks | their text (`TOOL_CALL_RESULT`) |
//! | image blocks | image content beside the text |
//! | a failed call (`isError`, a protocol error, no answer in time, the server gone) | a tool error: the model reads the bridge core's [`tool_error_text`](ag_ui::server::bridge::tool_error_text) of `ag_ui::mcp`'s message, and the run goes on |
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use ag_ui::mcp::{McpConfig, McpServer, McpTools};
//! use ag_ui_rig::RigAgent;
//! use ag_ui_rig::rig_agent::AgentBuilder;
//! use ag_ui_rig::rig_core::providers::openai::OpenAI;
//!
//! let everything = McpServer::stdio("npx", ["-y", "@modelcontextprotocol/server-everything"], McpConfig::default()).await?;
//! let agent = AgentBuilder::new(OpenAI::from_env()?.chat("gpt-4o-mini")).build();
//! ag_ui_rig::mcp::add_tools(&agent, McpTools::new(vec![everything])?)?;
//! let agent = RigAgent::new(agent);
//! # let _ = agent;
//! # Ok(())
//! # }
//! ```

use std::fmt;
use std::sync::Arc;

use ag_ui::mcp::McpTools;
use ag_ui::server::bridge;
use ag_ui::{Content, ContentPart, PartSource};
use rig_core::message::{Image, ImageMediaType, MimeType, ToolName, ToolResultContent};
use rig_core::tool::{DynamicTool, ToolExecutionError, ToolOutput};

/// What went wrong adding MCP tools, as [`Error::kind`] reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An MCP tool has the name of one of the agent's own tools (rig would keep one of the
    /// two, silently), or no name at all.
    ToolName,
}

impl ErrorKind {
    /// A short stable name: `mcp_tool_name`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ToolName => "mcp_tool_name",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// MCP tools could not be added to a rig agent; see [`kind`](Self::kind).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}

/// Adds `tools` to `agent`'s tool server (which every clone of the agent shares); a call's
/// failure reaches the model as a tool error. Build the agent with its own tools first.
///
/// # Errors
///
/// [`ErrorKind::ToolName`] naming the first MCP tool that has the name of one of the agent's
/// own tools, or no name; nothing is added then.
pub fn add_tools(agent: &rig_agent::Agent, tools: McpTools) -> Result<(), Error> {
    let declarations = tools.declarations();
    let own = agent.tool_server_handle().snapshot();
    let mut named = Vec::with_capacity(declarations.len());
    for tool in declarations {
        let clash = own.contains(&tool.name);
        let name = ToolName::new(tool.name.clone()).ok().filter(|_| !clash);
        let Some(name) = name else {
            return Err(Error {
                kind: ErrorKind::ToolName,
                message: if clash {
                    format!(
                        "the MCP tool `{}` has the name of one of the rig agent's own tools",
                        tool.name
                    )
                } else {
                    "an MCP server offers a tool without a name".to_owned()
                },
            });
        };
        named.push((name, tool));
    }
    let tools = Arc::new(tools);
    for (name, tool) in named {
        let parameters = tool
            .parameters
            .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
        let tools = Arc::clone(&tools);
        let tool_name = tool.name;
        agent
            .tool_server_handle()
            .add_dynamic_tool(DynamicTool::new(
                name,
                tool.description,
                parameters,
                move |arguments| {
                    let tools = Arc::clone(&tools);
                    let name = tool_name.clone();
                    Box::pin(async move {
                        match tools.call(&name, &arguments.to_string()).await {
                            Ok(content) => output(content),
                            Err(error) => {
                                let message = error.to_string();
                                Err(ToolExecutionError::other(message.clone())
                                    .with_model_feedback(bridge::tool_error_text(&message)))
                            }
                        }
                    })
                },
            ));
    }
    Ok(())
}

/// An MCP result as rig tool output: its text, or its text and images.
fn output(content: Content) -> Result<ToolOutput, ToolExecutionError> {
    match content {
        Content::Text(text) => Ok(ToolOutput::text(text)),
        Content::Parts(parts) => ToolOutput::content(
            parts
                .into_iter()
                .filter_map(|part| match part {
                    ContentPart::Text(t) => Some(ToolResultContent::text(t.text)),
                    ContentPart::Image(media) => match media.source {
                        PartSource::Data { value, mime_type } => {
                            Some(ToolResultContent::Image(Image {
                                data: rig_core::message::DocumentSourceKind::Base64(value),
                                media_type: ImageMediaType::from_mime_type(&mime_type),
                                ..Image::default()
                            }))
                        }
                        _ => None,
                    },
                    _ => None,
                })
                .collect(),
        ),
    }
}
