//! The JavaScript subscribers of a run, as one [`Subscriber`] of the pipeline: `onEvent` and
//! the per-event callbacks before each event is applied, `onMessagesChanged`,
//! `onStateChanged`, `onNewMessage` and `onNewToolCall` after, each with the conversation as
//! plain objects.

use std::cell::Cell;
use std::rc::Rc;

use ag_ui::client::apply::{Applied, MessagesChange};
use ag_ui::client::{Flow, Mutation, Reducer, Subscriber};
use ag_ui::{Event, EventType, Message};
use js_sys::{Function, Object, Reflect};
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};

/// A value as a plain JavaScript object, through JSON: exactly the AG-UI JSON shape.
pub(crate) fn to_js<T: serde::Serialize + ?Sized>(value: &T) -> JsValue {
    match serde_json::to_string(value) {
        Ok(json) => js_sys::JSON::parse(&json).unwrap_or(JsValue::UNDEFINED),
        Err(_) => JsValue::UNDEFINED,
    }
}

/// A plain JavaScript value read as `T`, through JSON; what is wrong, naming `what`, otherwise.
pub(crate) fn from_js<T: serde::de::DeserializeOwned>(
    value: &JsValue,
    what: &str,
) -> Result<T, String> {
    let json = js_sys::JSON::stringify(value)
        .map_err(|_| format!("{what}: cannot be written as JSON"))?
        .as_string()
        .ok_or_else(|| format!("{what}: cannot be written as JSON"))?;
    serde_json::from_str(&json).map_err(|e| format!("{what}: {e}"))
}

/// A property of a JavaScript object, if it is there.
pub(crate) fn get(object: &JsValue, key: &str) -> Option<JsValue> {
    Reflect::get(object, &JsValue::from_str(key))
        .ok()
        .filter(|v| !v.is_undefined() && !v.is_null())
}

fn set(object: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(object, &JsValue::from_str(key), value);
}

/// `onTextMessageContentEvent` for `TEXT_MESSAGE_CONTENT`, and so on.
fn callback_name(event_type: EventType) -> String {
    let mut name = String::from("on");
    for word in event_type.as_str().split('_') {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            name.push(first);
            name.extend(chars.map(|c| c.to_ascii_lowercase()));
        }
    }
    name.push_str("Event");
    name
}

/// The subscribers of one run.
pub(crate) struct JsSubscribers {
    subscribers: Vec<JsValue>,
    input: JsValue,
    mutation: Option<Mutation>,
    /// The first mutation a callback returned that could not be read: the run fails with it.
    pub(crate) error: Option<String>,
    /// Set by `abortRun()`: no event is applied after it, even one of a piece already read.
    aborted: Rc<Cell<bool>>,
}

impl JsSubscribers {
    pub(crate) fn new(subscribers: Vec<JsValue>, input: JsValue, aborted: Rc<Cell<bool>>) -> Self {
        Self {
            subscribers,
            input,
            mutation: None,
            error: None,
            aborted,
        }
    }

    /// The subscribers that have `name`, with it.
    fn with(&self, name: &str) -> Vec<(JsValue, Function)> {
        self.subscribers
            .iter()
            .filter_map(|s| {
                let f = get(s, name)?.dyn_into::<Function>().ok()?;
                Some((s.clone(), f))
            })
            .collect()
    }

    /// The parameters every callback gets.
    pub(crate) fn params(&self, messages: &[Message], state: &Value) -> Object {
        let params = Object::new();
        set(&params, "messages", &to_js(messages));
        set(&params, "state", &to_js(state));
        set(&params, "input", &self.input);
        params
    }

    /// Calls `name` of every subscriber with `params`; keeps the mutations they return. A
    /// callback that throws is reported on the console; the others still run.
    pub(crate) fn call(&mut self, name: &str, params: &Object) {
        for (subscriber, f) in self.with(name) {
            match f.call1(&subscriber, params) {
                Ok(returned) => self.keep_mutation(&returned, name),
                Err(e) => web_sys::console::error_2(&JsValue::from_str(&format!("{name}:")), &e),
            }
        }
    }

    /// Calls `name` with the conversation's parameters and `extra`, if any subscriber has it.
    fn call_with(&mut self, name: &str, conversation: &Reducer, extra: &[(&str, JsValue)]) {
        if self.with(name).is_empty() {
            return;
        }
        let messages: Vec<&Message> = conversation.messages().iter().collect();
        let params = Object::new();
        set(&params, "messages", &to_js(&messages));
        set(&params, "state", &to_js(conversation.state()));
        set(&params, "input", &self.input);
        for (key, value) in extra {
            set(&params, key, value);
        }
        self.call(name, &params);
    }

    fn keep_mutation(&mut self, returned: &JsValue, name: &str) {
        if !returned.is_object() || returned.has_type::<js_sys::Promise>() {
            return;
        }
        let mut mutation = self.mutation.take().unwrap_or_default();
        if let Some(messages) = get(returned, "messages") {
            match from_js::<Vec<Message>>(&messages, &format!("the messages {name} returned")) {
                Ok(messages) => mutation.messages = Some(messages),
                Err(e) => self.error = self.error.take().or(Some(e)),
            }
        }
        if let Some(state) = get(returned, "state") {
            match from_js::<Value>(&state, &format!("the state {name} returned")) {
                Ok(state) => mutation.state = Some(state),
                Err(e) => self.error = self.error.take().or(Some(e)),
            }
        }
        if mutation.messages.is_some() || mutation.state.is_some() {
            self.mutation = Some(mutation);
        }
    }

    fn flow(&self) -> Flow {
        if self.error.is_some() || self.aborted.get() {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }
}

impl Subscriber for JsSubscribers {
    fn on_event(&mut self, event: &Event, conversation: &Reducer) -> Flow {
        if self.aborted.get() {
            return Flow::Stop;
        }
        if self.subscribers.is_empty() {
            return Flow::Continue;
        }
        let specific = callback_name(event.event_type());
        if self.with("onEvent").is_empty() && self.with(&specific).is_empty() {
            return Flow::Continue;
        }
        let event_js = to_js(event);
        let id = |key: &str| get(&event_js, key).and_then(|v| v.as_string());
        self.call_with("onEvent", conversation, &[("event", event_js.clone())]);
        let mut extra = vec![("event", event_js.clone())];
        match event.event_type() {
            EventType::TextMessageContent | EventType::TextMessageEnd => {
                let buffer = id("messageId")
                    .and_then(|m| {
                        conversation
                            .message(&m)
                            .and_then(Message::text)
                            .map(str::to_owned)
                    })
                    .unwrap_or_default();
                extra.push(("textMessageBuffer", JsValue::from_str(&buffer)));
            }
            EventType::ToolCallArgs | EventType::ToolCallEnd => {
                let call_id = id("toolCallId").unwrap_or_default();
                let call = conversation.tool_call(&call_id);
                let name = call.map(|c| c.function.name.clone()).unwrap_or_default();
                let buffer = call
                    .map(|c| c.function.arguments.clone())
                    .unwrap_or_default();
                extra.push(("toolCallName", JsValue::from_str(&name)));
                if event.event_type() == EventType::ToolCallArgs {
                    extra.push(("toolCallBuffer", JsValue::from_str(&buffer)));
                    let partial = conversation.partial_tool_call_args(&call_id);
                    extra.push(("partialToolCallArgs", to_js(&partial)));
                } else {
                    let args = js_sys::JSON::parse(&buffer).unwrap_or(JsValue::UNDEFINED);
                    extra.push(("toolCallArgs", args));
                }
            }
            EventType::RunFinished => {
                let result = get(&event_js, "result").unwrap_or(JsValue::UNDEFINED);
                extra.push(("result", result));
            }
            _ => {}
        }
        self.call_with(&specific, conversation, &extra);
        self.flow()
    }

    fn on_applied(&mut self, _event: &Event, applied: &Applied, conversation: &Reducer) -> Flow {
        if self.subscribers.is_empty() {
            return Flow::Continue;
        }
        if let Some(index) = applied.new_message
            && let Some(message) = conversation.messages().get(index)
        {
            self.call_with("onNewMessage", conversation, &[("message", to_js(message))]);
        }
        if let Some(id) = &applied.new_tool_call
            && let Some(call) = conversation.tool_call(id.as_str())
        {
            self.call_with("onNewToolCall", conversation, &[("toolCall", to_js(call))]);
        }
        if !matches!(applied.messages, MessagesChange::Unchanged) {
            self.call_with("onMessagesChanged", conversation, &[]);
        }
        if applied.state_changed {
            self.call_with("onStateChanged", conversation, &[]);
        }
        self.flow()
    }

    fn take_mutation(&mut self) -> Option<Mutation> {
        self.mutation.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callback_names_follow_the_event_types() {
        assert_eq!(
            callback_name(EventType::TextMessageContent),
            "onTextMessageContentEvent"
        );
        assert_eq!(callback_name(EventType::RunFinished), "onRunFinishedEvent");
        assert_eq!(
            callback_name(EventType::ReasoningEncryptedValue),
            "onReasoningEncryptedValueEvent"
        );
    }
}
