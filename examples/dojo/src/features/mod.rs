//! One module per Dojo feature, each an [`Agent`](ag_ui::server::Agent) answering one route.

pub mod agentic_chat;
pub mod agentic_generative_ui;
pub mod backend_tool_rendering;
pub mod hello;
pub mod human_in_the_loop;
pub mod predictive_state_updates;
pub mod shared_state;
pub mod tool_based_generative_ui;

use ag_ui::server::{Result, RunContext};
use ag_ui::{AssistantMessage, Event, Message, ToolCall};

use crate::run_scoped_id;

/// Whether the last message of the conversation is a tool result: the client answered the
/// tool call of the previous run, and the route says it is done.
pub(crate) fn answered_a_tool<S>(ctx: &RunContext<S>) -> bool {
    matches!(ctx.input().messages.last(), Some(Message::Tool(_)))
}

/// The text of the last message (see [`message_text`](crate::message_text)).
pub(crate) fn last_text<S>(ctx: &RunContext<S>) -> Option<String> {
    ctx.input().messages.last().and_then(crate::message_text)
}

/// A tool the agent ran itself, sent as the reference does: one `MESSAGES_SNAPSHOT` of the
/// input messages, an assistant message calling `tool` with `arguments` (JSON text), and the
/// tool message answering it with `result`. No `TOOL_CALL_*` events.
pub(crate) fn snapshot_with_tool_result<S>(
    ctx: &RunContext<S>,
    tool: &str,
    arguments: String,
    result: String,
) -> Result<()> {
    let run = ctx.run_id();
    let call_id = run_scoped_id(run, "call-1");
    let call = ToolCall::new(call_id.as_str(), tool, arguments);
    let mut messages = ctx.input().messages.clone();
    messages.push(Message::Assistant(
        AssistantMessage::new(run_scoped_id(run, "msg-1")).with_tool_calls(vec![call]),
    ));
    messages.push(Message::tool(run_scoped_id(run, "msg-2"), call_id, result));
    ctx.emit(Event::messages_snapshot(messages))
}
