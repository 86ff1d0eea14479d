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

/// What a hostile MCP server does wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hostile {
    /// Lists one new tool per page, with a next cursor, for ever.
    EndlessPages,
    /// Lists one tool whose description is 17 MiB: its listing is one line past 16 MiB.
    HugeLine,
    /// Lists one tool whose input schema is nested 200 levels deep.
    DeepSchema,
}

impl Hostile {
    /// The mode named on the command line (`endless-pages`, `huge-line`, `deep-schema`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "endless-pages" => Some(Self::EndlessPages),
            "huge-line" => Some(Self::HugeLine),
            "deep-schema" => Some(Self::DeepSchema),
            _ => None,
        }
    }
}

/// A server whose tool listing is hostile (see [`Hostile`]).
#[derive(Debug, Clone, Copy)]
pub struct HostileServer(pub Hostile);

impl ServerHandler for HostileServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, ErrorData> {
        let object = |value: rmcp::serde_json::Value| match value {
            rmcp::serde_json::Value::Object(map) => map,
            _ => rmcp::serde_json::Map::new(),
        };
        let schema = object(rmcp::serde_json::json!({"type": "object"}));
        let tool = match self.0 {
            Hostile::EndlessPages => {
                let page: u64 = request
                    .and_then(|r| r.cursor)
                    .and_then(|c| c.parse().ok())
                    .unwrap_or(0);
                let mut result =
                    rmcp::model::ListToolsResult::with_all_items(vec![rmcp::model::Tool::new(
                        format!("tool_{page}"),
                        "one more",
                        schema,
                    )]);
                result.next_cursor = Some((page + 1).to_string());
                return Ok(result);
            }
            Hostile::HugeLine => rmcp::model::Tool::new("huge", "x".repeat(17 << 20), schema),
            Hostile::DeepSchema => {
                let mut deep = rmcp::serde_json::json!({"type": "object"});
                for _ in 0..200 {
                    deep = rmcp::serde_json::json!({"type": "object", "properties": {"a": deep}});
                }
                rmcp::model::Tool::new("deep", "deep", object(deep))
            }
        };
        Ok(rmcp::model::ListToolsResult::with_all_items(vec![tool]))
    }
}
