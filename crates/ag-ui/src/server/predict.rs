//! Predicted state: a tool call's streaming argument shown as part of the state before the
//! tool has run.
//!
//! A `CUSTOM` event named `PredictState` (a convention of LangGraph and CopilotKit, not an
//! event of its own) tells a client that, while `tool` streams its arguments, the argument
//! `tool_argument` (or the whole arguments, without one) is what the state's `state_key` is
//! about to become. A client that honours it fills that key as the arguments arrive; one that
//! does not can be sent the same thing as state deltas, which is what
//! [`LlmAgent::with_predicted_state`](crate::llm::LlmAgent::with_predicted_state) does.
//!
//! ```
//! use ag_ui::Event;
//! use ag_ui::server::PredictState;
//! use serde_json::json;
//!
//! let predict = PredictState::new("document", "write_document_local").with_tool_argument("document");
//! let Event::Custom(event) = PredictState::event(&[predict]) else { unreachable!() };
//! assert_eq!(event.name, "PredictState");
//! assert_eq!(
//!     event.value,
//!     json!([{"state_key": "document", "tool": "write_document_local", "tool_argument": "document"}])
//! );
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Event;

/// The name of the `CUSTOM` event that announces predicted state.
pub const PREDICT_STATE_EVENT: &str = "PredictState";

/// One entry of a `PredictState` event: while `tool` streams its arguments, the state's
/// `state_key` follows its argument `tool_argument` (the whole arguments without one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PredictState {
    /// The top-level state key the prediction writes.
    pub state_key: String,
    /// The tool whose arguments predict it.
    pub tool: String,
    /// The argument that holds the value; `None`: the whole arguments object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_argument: Option<String>,
}

impl PredictState {
    /// `state_key` follows the whole arguments of `tool`.
    pub fn new(state_key: impl Into<String>, tool: impl Into<String>) -> Self {
        Self {
            state_key: state_key.into(),
            tool: tool.into(),
            tool_argument: None,
        }
    }

    /// `state_key` follows the argument `argument` of the tool.
    #[must_use]
    pub fn with_tool_argument(mut self, argument: impl Into<String>) -> Self {
        self.tool_argument = Some(argument.into());
        self
    }

    /// The `CUSTOM` `PredictState` event announcing `entries`.
    pub fn event(entries: &[PredictState]) -> Event {
        let value = Value::Array(
            entries
                .iter()
                .map(|e| {
                    let mut entry = serde_json::Map::new();
                    entry.insert("state_key".into(), Value::from(e.state_key.as_str()));
                    entry.insert("tool".into(), Value::from(e.tool.as_str()));
                    if let Some(argument) = &e.tool_argument {
                        entry.insert("tool_argument".into(), Value::from(argument.as_str()));
                    }
                    Value::Object(entry)
                })
                .collect(),
        );
        Event::custom(PREDICT_STATE_EVENT, value)
    }

    /// The value this entry predicts from the arguments `arguments` (complete or not, as far
    /// as they parse): the argument, or the whole object; `None` when it is not there yet.
    pub fn value_in<'a>(&self, arguments: &'a Value) -> Option<&'a Value> {
        match &self.tool_argument {
            Some(argument) => arguments.get(argument),
            None => arguments.is_object().then_some(arguments),
        }
    }
}
