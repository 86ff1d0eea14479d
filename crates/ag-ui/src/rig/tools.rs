//! Per-run tools: the agent's own tools beside the run's frontend tools, and the hook that
//! hands a frontend call to the client.

use std::sync::{Arc, Mutex};

use rig_core::agent::{AgentHook, Flow, HookContext, StepEvent, StepEventKind};
use rig_core::completion::{CompletionModel, ToolDefinition};
use rig_core::tool::server::ToolServerHandle;
use rig_core::tool::{ToolDyn, ToolError};
use rig_core::wasm_compat::WasmBoxedFuture;

/// Why the rig run is stopped after a frontend tool call; recognised, never shown.
pub(crate) const FRONTEND_STOP: &str = "ag-ui: frontend tool calls are pending";

/// A tool the model may call whose body lives elsewhere: an agent tool forwarded to the
/// agent's own tool server, or a frontend tool (never called: the hook skips it).
pub(crate) struct ProxyTool {
    pub(crate) definition: ToolDefinition,
    /// The agent's tool server for an agent tool; `None` for a frontend tool.
    pub(crate) target: Option<ToolServerHandle>,
}

impl ToolDyn for ProxyTool {
    fn name(&self) -> String {
        self.definition.name.clone()
    }

    fn description(&self) -> String {
        self.definition.description.clone()
    }

    fn parameters(&self) -> serde_json::Value {
        self.definition.parameters.clone()
    }

    fn call<'a>(&'a self, args: String) -> WasmBoxedFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            match &self.target {
                Some(server) => server
                    .call_tool(&self.definition.name, &args)
                    .await
                    .map_err(|e| ToolError::ToolCallError(Box::new(e))),
                None => Err(ToolError::ToolCallError(
                    format!(
                        "`{}` is a frontend tool; the client runs it",
                        self.definition.name
                    )
                    .into(),
                )),
            }
        })
    }
}

/// Skips the run's frontend tool calls (recording their ids) and stops the run before the
/// next model request when any were made, so the client can run them.
pub(crate) struct FrontendHook {
    pub(crate) names: Arc<[String]>,
    /// `(internal call id, tool call id)` of each frontend call made.
    pub(crate) pending: Arc<Mutex<Vec<(String, String)>>>,
}

impl<M: CompletionModel> AgentHook<M> for FrontendHook {
    fn on_event(
        &self,
        _ctx: &HookContext,
        event: StepEvent<'_, M>,
    ) -> impl Future<Output = Flow> + Send {
        let flow = match event {
            StepEvent::ToolCall {
                tool_name,
                tool_call_id,
                internal_call_id,
                ..
            } if self.names.iter().any(|n| n == tool_name) => {
                let id = tool_call_id
                    .filter(|id| !id.is_empty())
                    .unwrap_or(internal_call_id);
                if let Ok(mut pending) = self.pending.lock() {
                    pending.push((internal_call_id.to_owned(), id.to_owned()));
                }
                Flow::Skip {
                    reason: format!("`{tool_name}` runs in the client; its result comes later."),
                }
            }
            StepEvent::CompletionCall { .. }
                if self.pending.lock().is_ok_and(|p| !p.is_empty()) =>
            {
                Flow::Terminate {
                    reason: FRONTEND_STOP.to_owned(),
                }
            }
            _ => Flow::Continue,
        };
        async move { flow }
    }

    fn observes(&self, kind: StepEventKind) -> bool {
        matches!(
            kind,
            StepEventKind::ToolCall | StepEventKind::CompletionCall
        )
    }
}
