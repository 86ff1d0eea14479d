//! Tools behind MCP servers, offered to this crate's agents: [`McpServer`] connects to a
//! server over stdio (a child process) or streamable HTTP, lists its tools and calls them;
//! [`McpTools`] gathers the tools of several servers, refusing a name two of them share.
//!
//! With feature `openai`, [`McpTools::backend_tools`] gives them to
//! [`LlmAgent`](crate::llm::LlmAgent) as backend tools; the crate `ag-ui-rig` (feature `mcp`)
//! adds them to a rig agent through [`McpTools::call`]. A call then streams like any backend
//! tool's: `TOOL_CALL_START` / `ARGS` / `END` from the model, `TOOL_CALL_RESULT` with the MCP
//! result.
//!
//! ## Tool names
//!
//! Every tool the model is offered has one name: two servers offering the same name are
//! refused by [`McpTools::new`] ([`McpErrorKind::DuplicateTool`]), an MCP tool with the name
//! of one of a rig agent's own tools by `ag_ui_rig::mcp::add_tools`, and a run
//! whose frontend tools reuse the name of an MCP tool (or of any other tool of the agent) ends
//! with `RUN_ERROR` code `tool_name_clash`: both model agents check each run with
//! [`check_frontend_tools`](crate::server::bridge::check_frontend_tools).
//!
//! ## Results and failures
//!
//! | MCP | what the model and the client get |
//! |---|---|
//! | text blocks | their text |
//! | image blocks | image content parts (inline data) beside the text |
//! | audio, resources, links; `structuredContent` without blocks | their JSON, as text |
//! | `isError: true` | a tool error with the result's text |
//! | a protocol error (unknown tool, bad arguments) | a tool error with the server's message |
//! | no answer within [`McpConfig::call_timeout`] | a tool error saying the server did not answer in time |
//! | the server died | a tool error saying the connection closed |
//!
//! A tool error goes back to the model as the tool's result (`Error: …`) and the run goes on,
//! as the agent's loop decides. A command that cannot start, or a server that does not
//! complete the MCP handshake within [`McpConfig::connect_timeout`], is an [`McpError`] from
//! the constructor.
//!
//! ```no_run
//! # #[cfg(feature = "openai")]
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use ag_ui::llm::{LlmAgent, OpenAiClient};
//! use ag_ui::mcp::{McpConfig, McpServer, McpTools};
//!
//! let files = McpServer::stdio("npx", ["-y", "@modelcontextprotocol/server-everything"], McpConfig::default()).await?;
//! let tools = McpTools::new(vec![files])?;
//! let mut agent = LlmAgent::<()>::new(OpenAiClient::new("https://api.openai.com/v1"), "gpt-4o-mini");
//! for tool in tools.backend_tools() {
//!     agent = agent.with_tool(tool);
//! }
//! # Ok(())
//! # }
//! ```

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use serde_json::Value;

use crate::{Content, ContentPart, MediaPart, PartSource, Tool};

/// The `rmcp` crate this module is built on, re-exported for [`McpServer::connect`]'s
/// transports.
pub use rmcp;

/// How MCP servers are reached and waited for.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpConfig {
    /// The longest a tool call may take before it fails (default 60 s).
    pub call_timeout: Duration,
    /// The longest the start, the handshake and the tool listing may take (default 30 s).
    pub connect_timeout: Duration,
}

impl Default for McpConfig {
    fn default() -> Self {
        Self {
            call_timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(30),
        }
    }
}

impl McpConfig {
    /// This configuration with tool calls bounded by `timeout`.
    #[must_use]
    pub fn with_call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }
}

/// What went wrong with an MCP server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpErrorKind {
    /// The server command could not be started.
    Spawn,
    /// The connection or the MCP handshake failed, or took longer than the time-out.
    Connect,
    /// Listing the server's tools failed.
    ListTools,
    /// Two servers offer a tool with the same name.
    DuplicateTool,
}

impl McpErrorKind {
    /// The kind's name, in snake case.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Spawn => "mcp_spawn",
            Self::Connect => "mcp_connect",
            Self::ListTools => "mcp_list_tools",
            Self::DuplicateTool => "mcp_duplicate_tool",
        }
    }
}

/// An MCP server could not be used; see [`kind`](Self::kind).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct McpError {
    kind: McpErrorKind,
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl McpError {
    fn new(kind: McpErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            source: None,
        }
    }

    fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> McpErrorKind {
        self.kind
    }
}

/// A connected MCP server and the tools it listed when it connected.
pub struct McpServer {
    label: String,
    service: RunningService<RoleClient, ()>,
    tools: Vec<rmcp::model::Tool>,
    config: McpConfig,
}

impl fmt::Debug for McpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServer")
            .field("label", &self.label)
            .field(
                "tools",
                &self.tools.iter().map(|t| &t.name).collect::<Vec<_>>(),
            )
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// Starts `command` with `args` and speaks MCP over its stdin and stdout (its stderr is
    /// inherited).
    ///
    /// # Errors
    ///
    /// [`McpErrorKind::Spawn`] when the command cannot start; [`McpErrorKind::Connect`] when
    /// it does not complete the handshake in time (it exited, or it is not an MCP server);
    /// [`McpErrorKind::ListTools`] when listing its tools fails.
    pub async fn stdio<I, A>(command: &str, args: I, config: McpConfig) -> Result<Self, McpError>
    where
        I: IntoIterator<Item = A>,
        A: AsRef<std::ffi::OsStr>,
    {
        let args: Vec<std::ffi::OsString> =
            args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        let label = std::iter::once(command.to_owned())
            .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
            .collect::<Vec<_>>()
            .join(" ");
        let transport =
            TokioChildProcess::new(tokio::process::Command::new(command).configure(|cmd| {
                cmd.args(&args);
            }))
            .map_err(|e| {
                McpError::new(
                    McpErrorKind::Spawn,
                    format!("the MCP server command `{label}` could not start: {e}"),
                )
                .with_source(e)
            })?;
        Self::connect(label, transport, config).await
    }

    /// Connects to the streamable HTTP MCP endpoint at `url`.
    ///
    /// # Errors
    ///
    /// [`McpErrorKind::Connect`] when the handshake fails or takes too long;
    /// [`McpErrorKind::ListTools`] when listing its tools fails.
    pub async fn http(url: &str, config: McpConfig) -> Result<Self, McpError> {
        let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
        Self::connect(url.to_owned(), transport, config).await
    }

    /// Speaks MCP over `transport` (any rmcp client transport: an in-process duplex pipe, a
    /// socket), naming the server `label` in messages.
    ///
    /// # Errors
    ///
    /// [`McpErrorKind::Connect`] when the handshake fails or takes too long;
    /// [`McpErrorKind::ListTools`] when listing its tools fails.
    pub async fn connect<T, E, A>(
        label: impl Into<String>,
        transport: T,
        config: McpConfig,
    ) -> Result<Self, McpError>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let label = label.into();
        let service = tokio::time::timeout(config.connect_timeout, ().serve(transport))
            .await
            .map_err(|_| {
                McpError::new(
                    McpErrorKind::Connect,
                    format!(
                        "the MCP server `{label}` did not complete the handshake within {:?}",
                        config.connect_timeout
                    ),
                )
            })?
            .map_err(|e| {
                McpError::new(
                    McpErrorKind::Connect,
                    format!("the MCP server `{label}` did not complete the handshake: {e}"),
                )
                .with_source(e)
            })?;
        let tools = tokio::time::timeout(config.connect_timeout, service.list_all_tools())
            .await
            .map_err(|_| {
                McpError::new(
                    McpErrorKind::ListTools,
                    format!("the MCP server `{label}` did not list its tools in time"),
                )
            })?
            .map_err(|e| {
                McpError::new(
                    McpErrorKind::ListTools,
                    format!("the MCP server `{label}` did not list its tools: {e}"),
                )
                .with_source(e)
            })?;
        Ok(Self {
            label,
            service,
            tools,
            config,
        })
    }

    /// The command line or URL the server was reached at.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The server's tools as AG-UI declarations (name, description, input schema).
    pub fn tools(&self) -> Vec<Tool> {
        self.tools
            .iter()
            .map(|t| {
                Tool::new(
                    t.name.to_string(),
                    t.description.as_deref().unwrap_or_default(),
                )
                .with_parameters(Value::Object((*t.input_schema).clone()))
            })
            .collect()
    }

    /// Calls the tool `name` with `arguments` (JSON object text; empty means `{}`).
    ///
    /// # Errors
    ///
    /// A message for the model: the arguments are not a JSON object, the server answered with
    /// an error or an `isError` result, it did not answer within
    /// [`McpConfig::call_timeout`], or the connection closed.
    pub async fn call(&self, name: &str, arguments: &str) -> Result<Content, String> {
        let arguments = if arguments.trim().is_empty() {
            serde_json::Map::new()
        } else {
            match serde_json::from_str::<Value>(arguments) {
                Ok(Value::Object(map)) => map,
                Ok(_) => return Err(format!("the arguments of `{name}` must be a JSON object")),
                Err(e) => return Err(format!("the arguments of `{name}` are not JSON: {e}")),
            }
        };
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        let result = tokio::time::timeout(self.config.call_timeout, self.service.call_tool(params))
            .await
            .map_err(|_| {
                format!(
                    "the MCP server `{}` did not answer `{name}` within {:?}",
                    self.label, self.config.call_timeout
                )
            })?
            .map_err(|e| match e {
                ServiceError::TransportClosed | ServiceError::TransportSend(_) => format!(
                    "the MCP server `{}` closed the connection during `{name}` (did it exit?)",
                    self.label
                ),
                ServiceError::McpError(e) => {
                    format!(
                        "the MCP server `{}` refused `{name}`: {}",
                        self.label, e.message
                    )
                }
                other => format!("the MCP server `{}` failed `{name}`: {other}", self.label),
            })?;
        let content = result_content(&result);
        if result.is_error == Some(true) {
            return Err(match content {
                Content::Text(text) => text,
                parts => serde_json::to_string(&parts).unwrap_or_default(),
            });
        }
        Ok(content)
    }
}

/// An MCP result as AG-UI content: text alone when every block is text, else content parts.
fn result_content(result: &CallToolResult) -> Content {
    if result.content.is_empty() {
        return Content::Text(
            result
                .structured_content
                .as_ref()
                .map(Value::to_string)
                .unwrap_or_default(),
        );
    }
    let text_only = result
        .content
        .iter()
        .all(|b| matches!(b, ContentBlock::Text(_)));
    if text_only {
        let texts: Vec<&str> = result
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect();
        return Content::Text(texts.join("\n"));
    }
    Content::Parts(
        result
            .content
            .iter()
            .map(|block| match block {
                ContentBlock::Text(t) => ContentPart::text(t.text.clone()),
                ContentBlock::Image(image) => {
                    ContentPart::Image(MediaPart::new(PartSource::Data {
                        value: image.data.clone(),
                        mime_type: image.mime_type.clone(),
                    }))
                }
                other => ContentPart::text(serde_json::to_string(other).unwrap_or_default()),
            })
            .collect(),
    )
}

/// The tools of several MCP servers, each name offered by one server only.
#[derive(Clone, Debug)]
pub struct McpTools {
    /// Each tool's declaration and its server.
    tools: Vec<(Tool, Arc<McpServer>)>,
}

impl McpTools {
    /// Gathers the tools of `servers`.
    ///
    /// # Errors
    ///
    /// [`McpErrorKind::DuplicateTool`] when two servers (or one, twice) offer the same name.
    pub fn new(servers: Vec<McpServer>) -> Result<Self, McpError> {
        let mut tools: Vec<(Tool, Arc<McpServer>)> = Vec::new();
        for server in servers {
            let server = Arc::new(server);
            for tool in server.tools() {
                if let Some((_, other)) = tools.iter().find(|(t, _)| t.name == tool.name) {
                    return Err(McpError::new(
                        McpErrorKind::DuplicateTool,
                        format!(
                            "the tool `{}` is offered by both `{}` and `{}`",
                            tool.name,
                            other.label(),
                            server.label()
                        ),
                    ));
                }
                tools.push((tool, Arc::clone(&server)));
            }
        }
        Ok(Self { tools })
    }

    /// The declarations, in server then listing order.
    pub fn declarations(&self) -> Vec<Tool> {
        self.tools.iter().map(|(t, _)| t.clone()).collect()
    }

    /// Calls the tool `name` on the server that offers it, with `arguments` (JSON object
    /// text; empty means `{}`), as [`McpServer::call`] does.
    ///
    /// # Errors
    ///
    /// A message for the model: no server offers `name`, or [`McpServer::call`]'s.
    pub async fn call(&self, name: &str, arguments: &str) -> Result<Content, String> {
        match self.tools.iter().find(|(t, _)| t.name == name) {
            Some((_, server)) => server.call(name, arguments).await,
            None => Err(format!("no MCP server offers a tool named `{name}`")),
        }
    }

    /// The tools as [`BackendTool`](crate::llm::BackendTool)s for
    /// [`LlmAgent`](crate::llm::LlmAgent); a call's failure goes to the model as a tool error.
    #[cfg(feature = "openai")]
    pub fn backend_tools<S: Send + 'static>(&self) -> Vec<crate::llm::BackendTool<S>> {
        self.tools
            .iter()
            .map(|(tool, server)| {
                let server = Arc::clone(server);
                let name = tool.name.clone();
                crate::llm::BackendTool::from_declaration(tool.clone(), move |arguments, _state| {
                    let server = Arc::clone(&server);
                    let name = name.clone();
                    let arguments = arguments.to_owned();
                    async move {
                        server
                            .call(&name, &arguments)
                            .await
                            .map(crate::llm::ToolOutput::from_content)
                            .map_err(crate::llm::ToolError::new)
                    }
                })
            })
            .collect()
    }
}
