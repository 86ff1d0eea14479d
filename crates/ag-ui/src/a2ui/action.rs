//! [`UserAction`]: what a user did on a surface (a button's event), as it reaches the agent in
//! the next run.

use serde_json::Value;

use super::error::{A2uiError, A2uiErrorKind};
use super::ops::{ComponentId, SurfaceId};
use crate::{EXCERPT_BYTES, Message, Metadata, RunAgentInput, excerpt};

/// The name of the tool call `@ag-ui/a2ui-middleware` writes into the conversation for a user
/// action (an assistant message calling it with the action as arguments, then its result):
/// `log_a2ui_event`.
pub const ACTION_TOOL_NAME: &str = "log_a2ui_event";

/// A user's action on a surface: the event a component's `action` names, with its context
/// (the client resolved its bindings when the user acted).
///
/// CopilotKit's A2UI renderer sends it with the next run as `forwardedProps.a2uiAction` =
/// `{"userAction": {…}}`; `@ag-ui/a2ui-middleware` leaves that in place and also appends to
/// the run's messages an assistant message calling [`ACTION_TOOL_NAME`] with the action as
/// arguments, and the call's result. [`from_input`](Self::from_input) reads either, and the
/// A2UI v0.9 client message (`{"version": "v0.9", "action": {…}}`) in the same place.
///
/// ```
/// use ag_ui::RunAgentInput;
/// use ag_ui::a2ui::UserAction;
/// use serde_json::json;
///
/// let input = RunAgentInput::new("t", "r").with_forwarded_props(json!({
///     "a2uiAction": {"userAction": {
///         "name": "book_hotel",
///         "surfaceId": "hotel-search-results",
///         "sourceComponentId": "hotel-card",
///         "timestamp": "2026-01-01T12:00:00Z",
///         "context": {"hotelName": "The Manhattan Grand", "price": "$350"}
///     }}
/// }));
/// let action = UserAction::from_input(&input).unwrap().unwrap();
/// assert_eq!(action.name, "book_hotel");
/// assert_eq!(action.surface_id, "hotel-search-results");
/// assert_eq!(action.context["hotelName"], "The Manhattan Grand");
///
/// // A run without one.
/// assert!(UserAction::from_input(&RunAgentInput::new("t", "r")).unwrap().is_none());
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct UserAction {
    /// The action's name (the component's `action.event.name`).
    pub name: String,
    /// The surface it happened on.
    pub surface_id: SurfaceId,
    /// The component that triggered it.
    pub source_component_id: Option<ComponentId>,
    /// The event's context, bindings resolved.
    pub context: Metadata,
    /// When it happened (ISO 8601), as the client wrote it.
    pub timestamp: Option<String>,
    /// For a component repeated from a list, the data path of its item (CopilotKit's
    /// `dataContextPath`).
    pub data_context_path: Option<String>,
}

fn decode(message: impl Into<String>) -> A2uiError {
    A2uiError::new(A2uiErrorKind::Decode, message)
}

impl UserAction {
    /// Reads an action object: `name` and `surfaceId` (strings) are required;
    /// `sourceComponentId`, `timestamp`, `dataContextPath` (strings) and `context` (an object)
    /// are read when present; other members are ignored.
    ///
    /// # Errors
    ///
    /// [`Decode`](A2uiErrorKind::Decode) naming the member that is missing or of the wrong type.
    pub fn from_value(value: &Value) -> Result<Self, A2uiError> {
        let Value::Object(map) = value else {
            return Err(decode("an A2UI user action is not a JSON object"));
        };
        let string = |name: &str, required: bool| -> Result<Option<String>, A2uiError> {
            match map.get(name) {
                None | Some(Value::Null) if !required => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                None | Some(Value::Null) => {
                    Err(decode(format!("the A2UI user action has no `{name}`")))
                }
                Some(other) => Err(decode(format!(
                    "the A2UI user action's `{name}` is not a string: {}",
                    excerpt(&other.to_string(), EXCERPT_BYTES)
                ))),
            }
        };
        let name = string("name", true)?.unwrap_or_default();
        let surface_id = string("surfaceId", true)?.unwrap_or_default();
        let context = match map.get("context") {
            None | Some(Value::Null) => Metadata::new(),
            Some(Value::Object(context)) => context.clone(),
            Some(other) => {
                return Err(decode(format!(
                    "the A2UI user action's `context` is not an object: {}",
                    excerpt(&other.to_string(), EXCERPT_BYTES)
                )));
            }
        };
        Ok(Self {
            name,
            surface_id: surface_id.into(),
            source_component_id: string("sourceComponentId", false)?.map(Into::into),
            context,
            timestamp: string("timestamp", false)?,
            data_context_path: string("dataContextPath", false)?,
        })
    }

    /// The user action this run carries, if any: `forwardedProps.a2uiAction` (its `userAction`,
    /// or an A2UI v0.9 client message's `action`), else the trailing [`ACTION_TOOL_NAME`] call
    /// the A2UI middleware appended to the messages. An action of an earlier run, further up
    /// the conversation, is not this run's.
    ///
    /// # Errors
    ///
    /// [`Decode`](A2uiErrorKind::Decode) when the run carries an action that is not one (its
    /// `a2uiAction` has neither member, the arguments are not JSON, a member has the wrong
    /// type).
    pub fn from_input(input: &RunAgentInput) -> Result<Option<Self>, A2uiError> {
        if let Some(action) = input
            .forwarded_props
            .as_ref()
            .and_then(|props| props.get("a2uiAction"))
            .filter(|action| !action.is_null())
        {
            let inner = action
                .get("userAction")
                .or_else(|| action.get("action"))
                .ok_or_else(|| {
                    decode("`forwardedProps.a2uiAction` has neither `userAction` nor `action`")
                })?;
            return Self::from_value(inner).map(Some);
        }
        Self::from_messages(&input.messages)
    }

    /// The action of a trailing [`ACTION_TOOL_NAME`] call: the last messages are tool results
    /// answering an assistant message that calls it.
    fn from_messages(messages: &[Message]) -> Result<Option<Self>, A2uiError> {
        let assistant = messages
            .iter()
            .rev()
            .find(|m| !matches!(m, Message::Tool(_)));
        let Some(Message::Assistant(assistant)) = assistant else {
            return Ok(None);
        };
        let Some(call) = assistant
            .tool_calls
            .iter()
            .flatten()
            .find(|call| call.function.name == ACTION_TOOL_NAME)
        else {
            return Ok(None);
        };
        let value: Value = serde_json::from_str(&call.function.arguments).map_err(|e| {
            decode(format!(
                "the arguments of `{ACTION_TOOL_NAME}` are not JSON: {}",
                excerpt(&call.function.arguments, EXCERPT_BYTES)
            ))
            .with_source(e)
        })?;
        Self::from_value(&value).map(Some)
    }
}
