//! A small MCP server (rmcp) with tools that succeed, fail, take their time, return an image,
//! and exit the process mid-call: served in-process by the `mcp` tests, and over stdio by the
//! `mcp-agent` example's demo server binary, which includes this file.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;

/// Arguments of `add`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct AddRequest {
    /// The first number.
    pub a: f64,
    /// The second number.
    pub b: f64,
}

/// Arguments of `slow`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SlowRequest {
    /// How long to wait, in milliseconds.
    pub ms: u64,
}

/// The demo server.
#[derive(Debug, Clone)]
pub struct DemoServer {
    tool_router: ToolRouter<Self>,
}

impl Default for DemoServer {
    fn default() -> Self {
        Self::new()
    }
}

#[tool_router(router = tool_router)]
impl DemoServer {
    /// A server with every tool.
    pub fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    /// The sum of two numbers.
    #[tool(name = "add", description = "Adds two numbers")]
    pub async fn add(&self, Parameters(AddRequest { a, b }): Parameters<AddRequest>) -> String {
        (a + b).to_string()
    }

    /// Always an `isError` result.
    #[tool(name = "fail", description = "Always fails")]
    pub async fn fail(&self) -> Result<String, String> {
        Err("the disk is full".to_owned())
    }

    /// Answers after `ms` milliseconds.
    #[tool(name = "slow", description = "Answers after a while")]
    pub async fn slow(&self, Parameters(SlowRequest { ms }): Parameters<SlowRequest>) -> String {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        "done".to_owned()
    }

    /// Text and a 1×1 PNG.
    #[tool(name = "image", description = "Returns a picture")]
    pub async fn image(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![
            ContentBlock::text("a dot"),
            ContentBlock::image("iVBORw0KGgo=", "image/png"),
        ]))
    }

    /// Ends the server's process in the middle of the call (only over stdio).
    #[tool(name = "exit", description = "Exits the server process")]
    pub async fn exit(&self) -> String {
        std::process::exit(3)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}
