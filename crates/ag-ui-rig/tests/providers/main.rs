//! `RigAgent` through rig's providers, each against a mock server of its API (no network):
//! rig's OpenAI provider (Chat Completions) and rig's Anthropic provider (Messages). Every
//! case runs with both; every AG-UI stream produced passes the verifier.

#[path = "../../../ag-ui/tests/support/anthropic_mock.rs"]
#[allow(dead_code, unreachable_pub)]
mod anthropic_mock;
#[path = "../../../ag-ui/tests/support/openai_mock.rs"]
#[allow(dead_code, unreachable_pub)]
mod openai_mock;

mod failures;
mod frontend;
mod script;
mod stream;

use ag_ui::{Event, EventType, Message, RunAgentInput, RunErrorEvent, RunFinishedEvent, Tool};
use ag_ui_rig::rig_core::tool::PortableTool;
use serde::Deserialize;
use serde_json::{Value, json};

/// Arguments of `add`.
#[derive(Deserialize)]
struct AddArgs {
    a: f64,
    b: f64,
}

/// The agent's own tool: the sum of two numbers.
struct Add;

#[derive(Debug, thiserror::Error)]
#[error("cannot add")]
struct AddError;

impl PortableTool for Add {
    const NAME: &'static str = "add";
    type Args = AddArgs;
    type Output = f64;
    type Error = AddError;

    fn description(&self) -> String {
        "Adds two numbers".into()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
               "required": ["a", "b"]})
    }

    async fn call(&self, args: AddArgs) -> Result<f64, AddError> {
        Ok(args.a + args.b)
    }
}

fn input() -> RunAgentInput {
    RunAgentInput::new("t", "r").with_messages(vec![Message::user("u1", "Hi")])
}

/// The frontend's tool.
fn confirm() -> Tool {
    Tool::new("confirm", "Asks the user to confirm")
        .with_parameters(json!({"type": "object", "properties": {"question": {"type": "string"}}}))
}

fn types(events: &[Event]) -> Vec<EventType> {
    events.iter().map(Event::event_type).collect()
}

fn finished(events: &[Event]) -> &RunFinishedEvent {
    match events.last() {
        Some(Event::RunFinished(done)) => done,
        other => panic!("the run did not finish: {other:?}"),
    }
}

fn error(events: &[Event]) -> &RunErrorEvent {
    match events.last() {
        Some(Event::RunError(e)) => e,
        other => panic!("the run did not end with RUN_ERROR: {other:?}"),
    }
}

/// The pending tool calls of a finished run.
fn pending(events: &[Event]) -> Vec<String> {
    match &finished(events).outcome {
        Some(ag_ui::RunFinishedOutcome::Success {
            pending_tool_call_ids: Some(ids),
        }) => ids.iter().map(|i| i.as_str().to_owned()).collect(),
        _ => Vec::new(),
    }
}

/// Each tool call started: its id, name and parent message.
fn starts(events: &[Event]) -> Vec<(String, String, Option<String>)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallStart(s) => Some((
                s.tool_call_id.as_str().to_owned(),
                s.tool_call_name.clone(),
                s.parent_message_id.as_ref().map(|p| p.as_str().to_owned()),
            )),
            _ => None,
        })
        .collect()
}

/// The arguments streamed for `call`, joined.
fn arguments(events: &[Event], call: &str) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallArgs(a) if a.tool_call_id.as_str() == call => Some(a.delta.as_str()),
            _ => None,
        })
        .collect()
}

/// Each tool result: the call it answers and its content.
fn results(events: &[Event]) -> Vec<(String, ag_ui::Content)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallResult(r) => {
                Some((r.tool_call_id.as_str().to_owned(), r.content.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The text the run streamed.
fn text(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::TextMessageContent(c) => Some(c.delta.as_str()),
            _ => None,
        })
        .collect()
}
