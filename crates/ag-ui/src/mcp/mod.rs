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
//! as the agent's loop decides. It names the server by its [label](McpServer::label) — the
//! configured [`McpConfig::name`], else the program's file name or the URL's host — never by
//! its command line, its URL's credentials or path, or its environment, which can hold
//! secrets; the detail goes to the operator's log (`tracing`, target `ag_ui::mcp`).
//!
//! ## Bounds
//!
//! A command that cannot start, or a server that does not complete the MCP handshake within
//! [`McpConfig::connect_timeout`], is an [`McpError`] from the constructor; so is a server
//! listing more than [`McpConfig::max_tools`] tools (or taking more pages than that), or more
//! than [`McpConfig::max_tool_bytes`] of declarations ([`McpErrorKind::TooManyTools`]). A
//! stdio server that writes a message longer than [`MAX_MESSAGE_BYTES`] or nested deeper than
//! a JSON parser reads is cut off at once, and the error says so (it was dropped, and the
//! request left to time out).
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

mod content;
mod listing;
mod stdio;

use content::result_content;
use listing::{Listing, list};
pub use stdio::MAX_MESSAGE_BYTES;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use std::collections::HashMap;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::Value;

use crate::{Content, EXCERPT_BYTES, Tool, excerpt};

/// The `rmcp` crate this module is built on, re-exported for [`McpServer::connect`]'s
/// transports.
pub use rmcp;

/// The default of [`McpConfig::max_tools`]: 1,000.
pub const DEFAULT_MAX_TOOLS: usize = 1_000;

/// The default of [`McpConfig::max_tool_bytes`]: 16 MiB.
pub const DEFAULT_MAX_TOOL_BYTES: usize = 16 * 1024 * 1024;

/// How MCP servers are reached, named, waited for and bounded.
///
/// ```
/// use ag_ui::mcp::McpConfig;
/// use std::time::Duration;
///
/// let config = McpConfig::default()
///     .with_name("files")
///     .with_max_tools(200)
///     .with_call_timeout(Duration::from_secs(10));
/// assert_eq!((config.name.as_deref(), config.max_tools), (Some("files"), 200));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpConfig {
    /// The longest a tool call may take before it fails (default 60 s).
    pub call_timeout: Duration,
    /// The longest the start, the handshake and the tool listing may take (default 30 s).
    pub connect_timeout: Duration,
    /// The server's name in what the model, the client and errors see (none by default: the
    /// program's file name for stdio, the URL's host and port for HTTP).
    pub name: Option<String>,
    /// The most tools taken from one server, and the most pages its listing may take
    /// ([`DEFAULT_MAX_TOOLS`] by default; at least 1): a server listing more is refused.
    pub max_tools: usize,
    /// The most bytes of tool declarations (names, descriptions, input schemas, as compact
    /// JSON) taken from one server ([`DEFAULT_MAX_TOOL_BYTES`] by default): a server listing
    /// more is refused.
    pub max_tool_bytes: usize,
}

impl Default for McpConfig {
    fn default() -> Self {
        Self {
            call_timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(30),
            name: None,
            max_tools: DEFAULT_MAX_TOOLS,
            max_tool_bytes: DEFAULT_MAX_TOOL_BYTES,
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

    /// This configuration with the start, the handshake and the listing bounded by `timeout`.
    #[must_use]
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// This configuration naming the server `name` in what the model, the client and errors
    /// see.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// This configuration taking at most `max` tools (and pages) from one server (0 counts
    /// as 1).
    #[must_use]
    pub fn with_max_tools(mut self, max: usize) -> Self {
        self.max_tools = max;
        self
    }

    /// This configuration taking at most `bytes` of tool declarations from one server.
    #[must_use]
    pub fn with_max_tool_bytes(mut self, bytes: usize) -> Self {
        self.max_tool_bytes = bytes;
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
    /// The server lists more tools, pages or bytes of declarations than
    /// [`McpConfig::max_tools`] or [`McpConfig::max_tool_bytes`] allow.
    TooManyTools,
    /// Two servers offer a tool with the same name.
    DuplicateTool,
    /// A call's arguments are not a JSON object.
    InvalidArguments,
    /// No server offers the tool called.
    UnknownTool,
    /// The server did not answer a call within [`McpConfig::call_timeout`].
    CallTimeout,
    /// The connection closed before the server answered a call (a stdio server that exited).
    Closed,
    /// The server refused a call (an MCP error) or it failed on the way.
    CallFailed,
    /// The tool ran and reported a failure (an `isError` result): the message is its output.
    ToolError,
}

impl McpErrorKind {
    /// The kind's name, in snake case.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Spawn => "mcp_spawn",
            Self::Connect => "mcp_connect",
            Self::ListTools => "mcp_list_tools",
            Self::TooManyTools => "mcp_too_many_tools",
            Self::DuplicateTool => "mcp_duplicate_tool",
            Self::InvalidArguments => "mcp_invalid_arguments",
            Self::UnknownTool => "mcp_unknown_tool",
            Self::CallTimeout => "mcp_call_timeout",
            Self::Closed => "mcp_closed",
            Self::CallFailed => "mcp_call_failed",
            Self::ToolError => "mcp_tool_error",
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
    /// What the model, the client and errors call it.
    label: String,
    /// The command line or URL, for the operator's log only.
    detail: String,
    service: RunningService<RoleClient, ()>,
    tools: Vec<rmcp::model::Tool>,
    config: McpConfig,
    /// The child process of a stdio server (killed when dropped), and why its output was cut
    /// off, once it was.
    child: Option<(tokio::process::Child, stdio::Cause)>,
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
    /// inherited; the process is killed when the server is dropped). It is named by
    /// [`McpConfig::name`], else by the program's file name.
    ///
    /// # Errors
    ///
    /// [`McpErrorKind::Spawn`] when the command cannot start; [`McpErrorKind::Connect`] when
    /// it does not complete the handshake in time (it exited, or it is not an MCP server);
    /// [`McpErrorKind::ListTools`] when listing its tools fails;
    /// [`McpErrorKind::TooManyTools`] past the configuration's bounds.
    pub async fn stdio<I, A>(command: &str, args: I, config: McpConfig) -> Result<Self, McpError>
    where
        I: IntoIterator<Item = A>,
        A: AsRef<std::ffi::OsStr>,
    {
        let args: Vec<std::ffi::OsString> =
            args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        let detail = std::iter::once(command.to_owned())
            .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
            .collect::<Vec<_>>()
            .join(" ");
        let label = config.name.clone().unwrap_or_else(|| {
            std::path::Path::new(command)
                .file_name()
                .map_or_else(|| command.to_owned(), |n| n.to_string_lossy().into_owned())
        });
        let (child, stdout, stdin, cause) = stdio::spawn(command, &args).map_err(|e| {
            tracing::warn!(target: "ag_ui::mcp", server = %detail, error = %e, "an MCP server could not start");
            McpError::new(
                McpErrorKind::Spawn,
                format!("the MCP server `{label}` could not start: {e}"),
            )
            .with_source(e)
        })?;
        let mut config = config;
        config.name = Some(label);
        Self::open(detail, (stdout, stdin), config, Some((child, cause))).await
    }

    /// Connects to the streamable HTTP MCP endpoint at `url`. It is named by
    /// [`McpConfig::name`], else by the URL's host and port (never its credentials, path or
    /// query).
    ///
    /// # Errors
    ///
    /// [`McpErrorKind::Connect`] when the handshake fails or takes too long;
    /// [`McpErrorKind::ListTools`] when listing its tools fails;
    /// [`McpErrorKind::TooManyTools`] past the configuration's bounds.
    pub async fn http(url: &str, config: McpConfig) -> Result<Self, McpError> {
        let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
        let mut config = config;
        config.name = Some(config.name.take().unwrap_or_else(|| host_of(url)));
        Self::open(url.to_owned(), transport, config, None).await
    }

    /// Speaks MCP over `transport` (any rmcp client transport: an in-process duplex pipe, a
    /// socket), naming the server `label` in messages (unless [`McpConfig::name`] names it).
    ///
    /// # Errors
    ///
    /// [`McpErrorKind::Connect`] when the handshake fails or takes too long;
    /// [`McpErrorKind::ListTools`] when listing its tools fails;
    /// [`McpErrorKind::TooManyTools`] past the configuration's bounds.
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
        let mut config = config;
        config.name = Some(config.name.take().unwrap_or_else(|| label.clone()));
        Self::open(label, transport, config, None).await
    }

    /// The handshake and the listing; `config.name` is set.
    async fn open<T, E, A>(
        detail: String,
        transport: T,
        config: McpConfig,
        child: Option<(tokio::process::Child, stdio::Cause)>,
    ) -> Result<Self, McpError>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let label = config.name.clone().unwrap_or_default();
        let cause = child.as_ref().map(|(_, cause)| Arc::clone(cause));
        // What the stdio guard saw, when it cut the connection.
        let why = || {
            cause
                .as_ref()
                .and_then(stdio::cause_of)
                .map(|c| format!(": {c}"))
                .unwrap_or_default()
        };
        let fail = |kind, message: String| {
            tracing::warn!(target: "ag_ui::mcp", server = %detail, "{message}");
            McpError::new(kind, message)
        };
        let service = tokio::time::timeout(config.connect_timeout, ().serve(transport))
            .await
            .map_err(|_| {
                fail(
                    McpErrorKind::Connect,
                    format!(
                        "the MCP server `{label}` did not complete the handshake within {:?}",
                        config.connect_timeout
                    ),
                )
            })?
            .map_err(|e| {
                fail(
                    McpErrorKind::Connect,
                    format!(
                        "the MCP server `{label}` did not complete the handshake{}",
                        why()
                    ),
                )
                .with_source(e)
            })?;
        let tools =
            match tokio::time::timeout(config.connect_timeout, list(&service, &config)).await {
                Err(_) => {
                    return Err(fail(
                        McpErrorKind::ListTools,
                        format!("the MCP server `{label}` did not list its tools in time"),
                    ));
                }
                Ok(Err(Listing::Failed(e))) => {
                    return Err(fail(
                        McpErrorKind::ListTools,
                        format!("the MCP server `{label}` did not list its tools{}", why()),
                    )
                    .with_source(e));
                }
                Ok(Err(Listing::TooMany(what))) => {
                    return Err(fail(
                        McpErrorKind::TooManyTools,
                        format!("the MCP server `{label}` lists {what}"),
                    ));
                }
                Ok(Ok(tools)) => tools,
            };
        Ok(Self {
            label,
            detail,
            service,
            tools,
            config,
            child,
        })
    }

    /// The server's name in what the model, the client and errors see:
    /// [`McpConfig::name`], else the program's file name (stdio), the URL's host and port
    /// (HTTP), or the label given to [`connect`](Self::connect).
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
    /// An error whose message is for the model: [`McpErrorKind::InvalidArguments`] when the
    /// arguments are not a JSON object, [`McpErrorKind::CallFailed`] when the server answered
    /// with an error, [`McpErrorKind::ToolError`] with the tool's output when it returned an
    /// `isError` result, [`McpErrorKind::CallTimeout`] past [`McpConfig::call_timeout`],
    /// [`McpErrorKind::Closed`] when the connection closed.
    pub async fn call(&self, name: &str, arguments: &str) -> Result<Content, McpError> {
        let invalid = |message: String| McpError::new(McpErrorKind::InvalidArguments, message);
        let arguments = if arguments.trim().is_empty() {
            serde_json::Map::new()
        } else {
            match serde_json::from_str::<Value>(arguments) {
                Ok(Value::Object(map)) => map,
                Ok(_) => {
                    return Err(invalid(format!(
                        "the arguments of `{name}` must be a JSON object"
                    )));
                }
                // The parser's position is part of what the model reads, so it is in the
                // message (and not repeated as a source).
                Err(e) => {
                    return Err(invalid(format!(
                        "the arguments of `{name}` are not JSON: {e}"
                    )));
                }
            }
        };
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        let name = excerpt(name, EXCERPT_BYTES);
        let result = tokio::time::timeout(self.config.call_timeout, self.service.call_tool(params))
            .await
            .map_err(|_| {
                self.logged(
                    McpErrorKind::CallTimeout,
                    format!(
                        "the MCP server `{}` did not answer `{name}` within {:?}",
                        self.label, self.config.call_timeout
                    ),
                )
            })?
            .map_err(|e| match e {
                ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                    let why = self
                        .child
                        .as_ref()
                        .and_then(|(_, cause)| stdio::cause_of(cause))
                        .unwrap_or_else(|| "did it exit?".to_owned());
                    self.logged(
                        McpErrorKind::Closed,
                        format!(
                            "the MCP server `{}` closed the connection during `{name}` ({why})",
                            self.label
                        ),
                    )
                }
                // The server's message is quoted as a bounded excerpt, and not kept whole as
                // a source.
                ServiceError::McpError(e) => self.logged(
                    McpErrorKind::CallFailed,
                    format!(
                        "the MCP server `{}` refused `{name}`: {}",
                        self.label,
                        excerpt(&e.message, EXCERPT_BYTES)
                    ),
                ),
                // Its text can hold the URL with its credentials: the log has it, the error
                // does not (not even as a source).
                other => {
                    tracing::warn!(target: "ag_ui::mcp", server = %self.detail, error = %other, "an MCP tool call failed");
                    self.logged(
                        McpErrorKind::CallFailed,
                        format!("the MCP server `{}` failed `{name}`", self.label),
                    )
                }
            })?;
        let content = result_content(&result);
        if result.is_error == Some(true) {
            return Err(McpError::new(
                McpErrorKind::ToolError,
                match content {
                    Content::Text(text) => text,
                    parts => serde_json::to_string(&parts).unwrap_or_default(),
                },
            ));
        }
        Ok(content)
    }
}

impl McpServer {
    /// An error of `kind` with `message` (which names the server by its label), logged for
    /// the operator with the command line or URL.
    fn logged(&self, kind: McpErrorKind, message: String) -> McpError {
        tracing::warn!(target: "ag_ui::mcp", server = %self.detail, "{message}");
        McpError::new(kind, message)
    }
}

/// The host and port of `url`, without its scheme, credentials, path or query.
fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    excerpt(host, EXCERPT_BYTES).into_owned()
}

/// The tools of several MCP servers, each name offered by one server only.
#[derive(Clone, Debug)]
pub struct McpTools {
    /// Each tool's declaration and its server.
    tools: Vec<(Tool, Arc<McpServer>)>,
    /// Where each name is in `tools`.
    index: HashMap<String, usize>,
}

impl McpTools {
    /// Gathers the tools of `servers`.
    ///
    /// # Errors
    ///
    /// [`McpErrorKind::DuplicateTool`] when two servers (or one, twice) offer the same name.
    pub fn new(servers: Vec<McpServer>) -> Result<Self, McpError> {
        let mut tools: Vec<(Tool, Arc<McpServer>)> = Vec::new();
        // Each name once, looked up in a map (listings of thousands of tools).
        let mut index: HashMap<String, usize> = HashMap::new();
        for server in servers {
            let server = Arc::new(server);
            for tool in server.tools() {
                if let Some(&at) = index.get(&tool.name) {
                    return Err(McpError::new(
                        McpErrorKind::DuplicateTool,
                        format!(
                            "the tool `{}` is offered by both `{}` and `{}`",
                            excerpt(&tool.name, EXCERPT_BYTES),
                            tools[at].1.label(),
                            server.label()
                        ),
                    ));
                }
                index.insert(tool.name.clone(), tools.len());
                tools.push((tool, Arc::clone(&server)));
            }
        }
        Ok(Self { tools, index })
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
    /// An error whose message is for the model: [`McpErrorKind::UnknownTool`] when no server
    /// offers `name`, or [`McpServer::call`]'s.
    pub async fn call(&self, name: &str, arguments: &str) -> Result<Content, McpError> {
        match self.index.get(name).map(|&at| &self.tools[at]) {
            Some((_, server)) => server.call(name, arguments).await,
            None => Err(McpError::new(
                McpErrorKind::UnknownTool,
                format!(
                    "no MCP server offers a tool named `{}`",
                    excerpt(name, EXCERPT_BYTES)
                ),
            )),
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
                            .map_err(|e| crate::llm::ToolError::new(e.to_string()))
                    }
                })
            })
            .collect()
    }
}
