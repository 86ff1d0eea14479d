//! `ag-ui serve --model … --mcp 'COMMAND ARGS…' --mcp-url URL`: the model agent with the tools
//! of MCP servers, connected before anything listens (a server that cannot start is a usage
//! error at once); a run whose frontend tools reuse an MCP tool's name is refused.

use ag_ui::llm::LlmAgent;
use ag_ui::mcp::{McpConfig, McpServer, McpTools};
use ag_ui::server::{Agent, Error, Outcome, RunContext};
use serde_json::Value;

use crate::offline::Failure;

/// Connects to each `--mcp` command line (split on whitespace) and `--mcp-url`, and gathers
/// their tools; `None` when there are none.
pub(crate) async fn connect(
    commands: &[String],
    urls: &[String],
) -> Result<Option<McpTools>, Failure> {
    if commands.is_empty() && urls.is_empty() {
        return Ok(None);
    }
    let mut servers = Vec::new();
    for line in commands {
        let mut words = line.split_whitespace();
        let command = words
            .next()
            .ok_or_else(|| Failure::Usage("--mcp needs a command".to_owned()))?;
        let server = McpServer::stdio(command, words, McpConfig::default())
            .await
            .map_err(|e| Failure::Usage(format!("--mcp {line}: {e}")))?;
        servers.push(server);
    }
    for url in urls {
        let server = McpServer::http(url, McpConfig::default())
            .await
            .map_err(|e| Failure::Usage(format!("--mcp-url {url}: {e}")))?;
        servers.push(server);
    }
    McpTools::new(servers)
        .map(Some)
        .map_err(|e| Failure::Usage(format!("--mcp: {e}")))
}

/// The model agent with MCP tools, refusing runs whose frontend tools reuse their names.
pub(crate) struct McpModelAgent {
    pub(crate) tools: McpTools,
    pub(crate) inner: LlmAgent<Value>,
}

impl McpModelAgent {
    /// `inner` with every tool of `tools` as a backend tool.
    pub(crate) fn new(tools: McpTools, mut inner: LlmAgent<Value>) -> Self {
        for tool in tools.backend_tools() {
            inner = inner.with_tool(tool);
        }
        Self { tools, inner }
    }
}

impl Agent for McpModelAgent {
    type State = Value;

    async fn run(&self, ctx: &mut RunContext<Value>) -> ag_ui::server::Result<Outcome> {
        self.tools
            .check_frontend(&ctx.input().tools)
            .map_err(|e| Error::agent(e.to_string()).with_code(e.kind().as_str()))?;
        self.inner.run(ctx).await
    }
}
