//! The run's hook: the frontend's tools offered to the model, the calls the model makes to
//! them recorded for the client, and every other call rig cannot run answered as the bridge
//! core words it.
//!
//! rig 0.44 has no way to add a tool to one run of an agent: the tools a model is offered and
//! may have run are the agent's tool server's, shared by every run. A frontend tool is the
//! run's own (`RunAgentInput.tools`), so this hook adds the frontend's declarations to each
//! completion request as it is dispatched, and rig, which does not run them, reports a call
//! to one as an invalid tool call at the call's end. The hook records it for the bridge and
//! leaves it unresolved: the run's policy then drops it from the turn
//! ([`UnhandledInvalidToolCall::Ignore`](rig_agent::run::UnhandledInvalidToolCall)), the
//! turn's other calls run, and the hook stops the run before its next model request.

use std::sync::{Arc, Mutex, PoisonError};

use ag_ui::Tool;
use ag_ui::server::bridge;
use rig_agent::agent::{
    AgentHook, CompletionCallAction, CompletionCallEvent, DispatchAction, DispatchEvent,
    HookContext, InvalidToolCallAction, InvalidToolCallContext, InvalidToolCallReason,
    StepEventKind,
};
use rig_core::completion::ToolDefinition;
use rig_core::effect::EffectKind;
use rig_core::message::ToolName;

/// Why the run is stopped before its next model request once a frontend tool was called;
/// recognised in the run's error, never shown.
pub(crate) const FRONTEND_STOP: &str = "ag-ui: frontend tool calls are pending";

/// A call the model made that rig held back instead of streaming it: a call to a frontend tool
/// (for the client to run), or to a tool the run does not have. It is shown with an id of the
/// run's minting, as every call is.
#[derive(Debug)]
pub(crate) struct HeldCall {
    pub(crate) name: String,
    /// The arguments, as JSON text.
    pub(crate) arguments: String,
    /// What the model was told instead of a result, for a tool the run does not have; `None`
    /// for a frontend tool, whose result the client sends.
    pub(crate) answer: Option<String>,
}

/// What the hook hands the bridge: the held calls not yet shown, and whether a frontend tool
/// was called.
#[derive(Debug, Default)]
pub(crate) struct Calls {
    pub(crate) new: Vec<HeldCall>,
    pub(crate) frontend: bool,
}

/// The calls the hook records, shared with the bridge.
pub(crate) type SharedCalls = Arc<Mutex<Calls>>;

/// Locks `calls`; a poisoned lock (a panic elsewhere while holding it) still holds the calls.
pub(crate) fn lock(calls: &Mutex<Calls>) -> std::sync::MutexGuard<'_, Calls> {
    calls.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The hook of one run.
pub(crate) struct RunHook {
    /// The frontend's tools as rig declarations, added to each completion request.
    frontend: Vec<ToolDefinition>,
    calls: SharedCalls,
}

impl RunHook {
    /// The hook for a run offering `frontend` tools; their names are checked beforehand
    /// (`bridge::check_frontend_tools`). A tool with an empty name cannot be declared to rig
    /// and is left out (no model can call it).
    pub(crate) fn new(frontend: &[Tool], calls: SharedCalls) -> Self {
        let frontend = frontend
            .iter()
            .filter_map(|tool| {
                let name = ToolName::new(tool.name.clone()).ok()?;
                let parameters = tool
                    .parameters
                    .clone()
                    .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
                Some(ToolDefinition::new(
                    name,
                    tool.description.clone(),
                    parameters,
                ))
            })
            .collect();
        Self { frontend, calls }
    }

    fn is_frontend(&self, name: &str) -> bool {
        self.frontend.iter().any(|t| t.name.as_str() == name)
    }
}

impl AgentHook for RunHook {
    fn name(&self) -> Option<String> {
        Some("ag-ui-rig".to_owned())
    }

    async fn on_completion_call(
        &self,
        _ctx: &HookContext,
        _event: CompletionCallEvent<'_>,
    ) -> CompletionCallAction {
        if lock(&self.calls).frontend {
            CompletionCallAction::stop(FRONTEND_STOP)
        } else {
            CompletionCallAction::Continue
        }
    }

    async fn on_dispatch(&self, _ctx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        match event.kind {
            EffectKind::Completion { request, stream } if !self.frontend.is_empty() => {
                // The request is rig's to own; a patch is a whole new effect.
                let mut request = request.clone();
                request.tools.extend(self.frontend.iter().cloned());
                DispatchAction::Patch(EffectKind::Completion {
                    request,
                    stream: *stream,
                })
            }
            _ => DispatchAction::Proceed,
        }
    }

    async fn on_invalid_tool_call(
        &self,
        _ctx: &HookContext,
        event: &InvalidToolCallContext,
    ) -> Option<InvalidToolCallAction> {
        if let InvalidToolCallReason::MalformedArguments { error } = &event.reason {
            // A call to one of the agent's tools, already streamed: answered, and the turn
            // goes on.
            let message = bridge::invalid_arguments(&event.tool_name, error);
            return Some(InvalidToolCallAction::skip(bridge::tool_error_text(
                &message,
            )));
        }
        let name = &event.tool_name;
        let (frontend, answer) = match event.reason {
            InvalidToolCallReason::UnknownTool if self.is_frontend(name) => (true, None),
            InvalidToolCallReason::DisallowedByToolChoice => (
                false,
                Some(bridge::tool_error_text(&format!(
                    "the tool `{name}` may not be called now"
                ))),
            ),
            _ => (false, Some(bridge::unknown_tool_text(name))),
        };
        let mut calls = lock(&self.calls);
        calls.frontend |= frontend;
        calls.new.push(HeldCall {
            name: name.clone(),
            arguments: event.args.clone().unwrap_or_else(|| "{}".to_owned()),
            answer: answer.clone(),
        });
        // A frontend call is left to the run's policy, which drops it from the turn (the client
        // runs it); any other is answered, and the model asked again.
        answer.map(InvalidToolCallAction::retry)
    }

    fn observes(&self, kind: StepEventKind) -> bool {
        match kind {
            StepEventKind::CompletionCall | StepEventKind::InvalidToolCall => true,
            StepEventKind::CompletionDispatch => !self.frontend.is_empty(),
            _ => false,
        }
    }
}
