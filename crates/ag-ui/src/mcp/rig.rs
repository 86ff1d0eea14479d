//! MCP tools as rig tools.

use std::sync::Arc;

use rig_core::tool::{ToolDyn, ToolError};
use rig_core::wasm_compat::WasmBoxedFuture;

use super::{McpServer, McpTools};
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
    /// The tools as rig tools, for `AgentBuilder::tools`; a call's failure reaches the model
    /// as rig's tool error.
    pub fn rig_tools(&self) -> Vec<Box<dyn ToolDyn>> {
        self.tools
            .iter()
            .map(|(tool, server)| {
                Box::new(McpRigTool {
                    tool: tool.clone(),
                    server: Arc::clone(server),
                }) as Box<dyn ToolDyn>
            })
            .collect()
    }
}
