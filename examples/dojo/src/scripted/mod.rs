//! The scripted backend (`ag-ui-dojo --scripted`): what the Dojo's "server-starter-all-features"
//! reference backend sends, route by route, without a model.
//!
//! Each route sends what that reference backend sends (the texts, the tool calls and how their
//! arguments stream, the state and its deltas, the pauses), written the way an agent built on
//! `ag_ui` is written: an [`Agent`](ag_ui::server::Agent) per route, its
//! [`RunContext`], the RAII handles that close what they open, typed
//! state structs published as snapshots and deltas, and `MESSAGES_SNAPSHOT` where the reference
//! sends the whole conversation back.
//!
//! | route | module | what the client sees |
//! |---|---|---|
//! | `POST /agentic_chat` | [`agentic_chat`] | a countdown; a frontend tool call; a backend tool in a snapshot |
//! | `POST /backend_tool_rendering` | [`backend_tool_rendering`] | a `get_weather` call and its result, in a snapshot |
//! | `POST /human_in_the_loop` | [`human_in_the_loop`] | `generate_task_steps`, its ten steps streamed |
//! | `POST /agentic_generative_ui` | [`agentic_generative_ui`] | ten steps completed one by one in the state |
//! | `POST /tool_based_generative_ui` | [`tool_based_generative_ui`] | a `generate_haiku` call, in a snapshot |
//! | `POST /shared_state` | [`shared_state`] | a recipe as the shared state |
//! | `POST /predictive_state_updates` | [`predictive_state_updates`] | a document streamed into a tool call's arguments |
//! | `POST /` | [`hello`] | "Hello world!" |
//!
//! ## Pace
//!
//! The reference pauses between deltas (300 ms in the countdown, 200 ms between streamed
//! arguments, 1 s between state deltas) so a person can watch the page fill. [`Pace`] scales
//! those pauses: `1` is the reference's timing, `0` streams at once (the tests), `0.1` ten times
//! faster.
//!
//! Ids are derived from the run id (`{runId}-msg-1`, `{runId}-call-1`, …) where the reference
//! mints UUIDs: the client sends a fresh run id per run, so they are as unique, and a recorded
//! stream is reproducible.

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
use serde::Serialize;

use crate::Pace;
use crate::Routes;

/// Mounts the scripts: the seven routes of [`FEATURES`](crate::FEATURES) marked `scripted`, and
/// [`hello`] at `POST /`.
pub(crate) fn routes(routes: Routes, pace: Pace) -> Routes {
    routes
        .agent("", hello::Hello)
        .agent("agentic_chat", agentic_chat::AgenticChat { pace })
        .agent(
            "backend_tool_rendering",
            backend_tool_rendering::BackendToolRendering,
        )
        .agent(
            "human_in_the_loop",
            human_in_the_loop::HumanInTheLoop { pace },
        )
        .agent(
            "agentic_generative_ui",
            agentic_generative_ui::AgenticGenerativeUi { pace },
        )
        .agent(
            "tool_based_generative_ui",
            tool_based_generative_ui::ToolBasedGenerativeUi,
        )
        .agent("shared_state", shared_state::SharedState)
        .agent(
            "predictive_state_updates",
            predictive_state_updates::PredictiveStateUpdates { pace },
        )
}

/// Whether the last message of the conversation is a tool result: the client answered the
/// tool call of the previous run, and the route says it is done.
pub(crate) fn answered_a_tool<S>(ctx: &RunContext<S>) -> bool {
    matches!(ctx.input().messages.last(), Some(Message::Tool(_)))
}

/// The text of the last message (see [`message_text`]).
pub(crate) fn last_text<S>(ctx: &RunContext<S>) -> Option<String> {
    ctx.input().messages.last().and_then(message_text)
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

/// The text of a message as the reference reads it: a string as is, the text parts of a list
/// joined with newlines (media parts skipped; [`ag_ui::Content::flatten`],
/// the rule the crate's model bridges share); `None` for a message without content.
pub fn message_text(message: &Message) -> Option<String> {
    match message {
        Message::User(m) => Some(m.content.flatten()),
        Message::Tool(m) => Some(m.content.flatten()),
        other => other.text().map(str::to_owned),
    }
}

/// JSON text spaced as Python's `json.dumps` writes it (`", "` between items, `": "` after a
/// key), so the arguments and results the routes send are the reference's, byte for byte
/// (non-ASCII characters stay UTF-8 where Python writes `\uXXXX`; the parsed value is the
/// same).
///
/// ```
/// assert_eq!(
///     ag_ui_dojo::scripted::json_text(&serde_json::json!({"city": "San Francisco", "n": [1, 2]})).unwrap(),
///     r#"{"city": "San Francisco", "n": [1, 2]}"#
/// );
/// ```
///
/// # Errors
///
/// `value` does not serialize as JSON, as a server error (the run ends with `RUN_ERROR`).
pub fn json_text(value: &impl Serialize) -> ag_ui::server::Result<String> {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, PythonSpacing);
    value.serialize(&mut serializer).map_err(|e| {
        ag_ui::server::Error::agent(format!("the value did not serialize as JSON: {e}"))
            .with_source(e)
    })?;
    // serde_json writes UTF-8 only.
    String::from_utf8(out).map_err(|e| {
        ag_ui::server::Error::agent("the JSON text is not UTF-8").with_source(e.utf8_error())
    })
}

/// `json.dumps`' default separators.
struct PythonSpacing;

impl serde_json::ser::Formatter for PythonSpacing {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }
}

/// An id derived from the run: `{runId}-{what}`.
pub(crate) fn run_scoped_id(run_id: &ag_ui::RunId, what: &str) -> String {
    format!("{}-{what}", run_id.as_str())
}
