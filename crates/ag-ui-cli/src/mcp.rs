//! `ag-ui serve --model … --mcp 'COMMAND ARGS…' --mcp-url URL`: the model agent with the tools
//! of MCP servers, connected before anything listens (a server that cannot start is a usage
//! error at once). The tools become backend tools of the model agent, which refuses a run whose
//! frontend tools reuse one of their names.

use ag_ui::mcp::{McpConfig, McpServer, McpTools};

use crate::failure::Failure;

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
