//! MCP tools as rig tools.

use std::sync::Arc;

use rig_core::agent::Agent;
use rig_core::completion::CompletionModel;
use rig_core::tool::{ToolDyn, ToolError};
use rig_core::wasm_compat::WasmBoxedFuture;

use super::{McpError, McpErrorKind, McpServer, McpTools};
use crate::Content;

/// One MCP tool as a rig tool: its result's text for the model (content parts as their JSON).
struct McpRigTool {
    tool: crate::Tool,
    server: Arc<McpServer>,
}

impl ToolDyn for McpRigTool {
    fn name(&self) -> String {
        self.tool.name.clone()
    }

    fn description(&self) -> String {
        self.tool.description.clone()
    }

    fn parameters(&self) -> serde_json::Value {
        self.tool.parameters.clone().unwrap_or_default()
    }

    fn call<'a>(&'a self, args: String) -> WasmBoxedFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            match self.server.call(&self.tool.name, &args).await {
                Ok(Content::Text(text)) => Ok(text),
                Ok(parts) => Ok(serde_json::to_string(&parts).unwrap_or_default()),
                Err(message) => Err(ToolError::ToolCallError(message.into())),
            }
        })
    }
}

impl McpTools {
    /// Adds the tools to `agent`'s tool server (which its clones share, so a
    /// [`RigAgent`](crate::rig::RigAgent) serving it offers them), refusing a tool whose name
    /// one of the agent's own tools has; a call's failure reaches the model as rig's tool
    /// error. Build the agent with its own tools first, then add the MCP tools.
    ///
    /// # Errors
    ///
    /// [`McpErrorKind::DuplicateTool`] naming the first MCP tool with the name of one of the
    /// agent's tools (nothing is added then); [`McpErrorKind::RigToolServer`] when the
    /// agent's tool server does not list its tools or take the new ones.
    pub async fn add_to_rig_agent<M: CompletionModel>(
        &self,
        agent: &Agent<M>,
    ) -> Result<(), McpError> {
        let refused = |e: &dyn std::fmt::Display| {
            McpError::new(
                McpErrorKind::RigToolServer,
                format!("the rig agent's tool server failed: {e}"),
            )
        };
        let own = agent
            .tool_server_handle
            .get_tool_defs(None)
            .await
            .map_err(|e| refused(&e))?;
        if let Some((tool, server)) = self
            .tools
            .iter()
            .find(|(t, _)| own.iter().any(|d| d.name == t.name))
        {
            return Err(McpError::new(
                McpErrorKind::DuplicateTool,
                format!(
                    "the tool `{}` of the MCP server `{}` has the name of one of the rig \
                     agent's own tools",
                    tool.name,
                    server.label()
                ),
            ));
        }
        for (tool, server) in &self.tools {
            let tool = McpRigTool {
                tool: tool.clone(),
                server: Arc::clone(server),
            };
            agent
                .tool_server_handle
                .add_tool(tool)
                .await
                .map_err(|e| refused(&e))?;
        }
        Ok(())
    }
}
