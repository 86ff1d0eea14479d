//! The JavaScript subscribers of a run, called as `@ag-ui/client` 1.0.0 calls them: one
//! callback after the other, each awaited when it returns a promise, with `{ messages, state,
//! agent, input }` (and the event's own parameters); a returned `messages` or `state` replaces
//! the conversation's (later subscribers see the replacement), and `stopPropagation: true`
//! skips the subscribers after it for that callback (and, from an event's callback, the event
//! itself). `onMessagesChanged`, `onStateChanged`, `onNewMessage` and `onNewToolCall` are
//! notifications: called, not awaited.

use std::cell::Cell;
use std::rc::Rc;

use ag_ui::client::Mutation;
use ag_ui::{EventType, Message};
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
/// Read from bytes, by the serde_json reader the `ag-ui` decoders use, so the module holds one
/// copy of each type's deserializer.
pub(crate) fn from_js<T: serde::de::DeserializeOwned>(
    value: &JsValue,
    what: &str,
) -> Result<T, String> {
    let json = js_sys::JSON::stringify(value)
        .map_err(|_| format!("{what}: cannot be written as JSON"))?
        .as_string()
        .ok_or_else(|| format!("{what}: cannot be written as JSON"))?;
    serde_json::from_slice(json.as_bytes()).map_err(|e| format!("{what}: {e}"))
}

/// A property of a JavaScript object, if it is there.
pub(crate) fn get(object: &JsValue, key: &str) -> Option<JsValue> {
    Reflect::get(object, &JsValue::from_str(key))
        .ok()
        .filter(|v| !v.is_undefined() && !v.is_null())
}

pub(crate) fn set(object: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(object, &JsValue::from_str(key), value);
}

/// `onTextMessageContentEvent` for `TEXT_MESSAGE_CONTENT`, and so on.
pub(crate) fn callback_name(event_type: EventType) -> String {
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

/// What one round of callbacks asked for.
#[derive(Debug, Default)]
pub(crate) struct Answer {
    /// The messages or state a callback returned (the last one of each wins).
    pub(crate) mutation: Mutation,
    /// A callback returned `stopPropagation: true`.
    pub(crate) stop: bool,
    /// A returned `messages` or `state` that is not what AG-UI describes.
    pub(crate) error: Option<String>,
}

/// The conversation as the callbacks see it: messages and state as plain objects.
pub(crate) struct View {
    pub(crate) messages: JsValue,
    pub(crate) state: JsValue,
}

impl View {
    pub(crate) fn of(messages: &[&Message], state: &Value) -> Self {
        Self {
            messages: to_js(messages),
            state: to_js(state),
        }
    }
}

/// The subscribers of one run.
pub(crate) struct JsSubscribers {
    subscribers: Vec<JsValue>,
    input: JsValue,
    /// The `HttpAgent` object the callbacks get as `agent`.
    agent: JsValue,
    /// Set by `abortRun()`: no event is applied after it, even one of a piece already read.
    aborted: Rc<Cell<bool>>,
}

/// Reports a callback's exception (or its promise's rejection) on the console, as
/// `@ag-ui/client` does; the other callbacks still run.
fn report(name: &str, error: &JsValue) {
    web_sys::console::error_2(&JsValue::from_str(&format!("{name}:")), error);
}

impl JsSubscribers {
    pub(crate) fn new(
        subscribers: Vec<JsValue>,
        input: JsValue,
        agent: JsValue,
        aborted: Rc<Cell<bool>>,
    ) -> Self {
        Self {
            subscribers,
            input,
            agent,
            aborted,
        }
    }

    /// Whether `abortRun()` was called.
    pub(crate) fn aborted(&self) -> bool {
        self.aborted.get()
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

    /// Whether any subscriber has `name`.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.subscribers
            .iter()
            .any(|s| get(s, name).is_some_and(|f| f.is_function()))
    }

    fn params(&self, view: &View, extra: &[(&str, JsValue)]) -> Object {
        let params = Object::new();
        for (key, value) in extra {
            set(&params, key, value);
        }
        set(&params, "messages", &view.messages);
        set(&params, "state", &view.state);
        set(&params, "agent", &self.agent);
        set(&params, "input", &self.input);
        params
    }

    /// Calls `name` of each subscriber in turn with the conversation (`view()`, asked only
    /// when one has it; a `dyn`, so the module holds one copy of this function) and `extra`,
    /// awaiting what it returns when that is a promise; stops at `stopPropagation: true`. A
    /// callback that throws (or rejects) is reported on the console; the others still run.
    pub(crate) async fn round(
        &self,
        name: &str,
        view: &dyn Fn() -> View,
        extra: &[(&str, JsValue)],
    ) -> Answer {
        let mut answer = Answer::default();
        let callbacks = self.with(name);
        if callbacks.is_empty() {
            return answer;
        }
        let mut view = view();
        for (subscriber, f) in callbacks {
            let params = self.params(&view, extra);
            let mut returned = match f.call1(&subscriber, &params) {
                Ok(returned) => returned,
                Err(e) => {
                    report(name, &e);
                    continue;
                }
            };
            if returned.has_type::<js_sys::Promise>()
                || get(&returned, "then").is_some_and(|t| t.is_function())
            {
                let promise = js_sys::Promise::resolve(&returned);
                returned = match wasm_bindgen_futures::JsFuture::from(promise).await {
                    Ok(value) => value,
                    Err(e) => {
                        report(name, &e);
                        continue;
                    }
                };
            }
            if !returned.is_object() {
                continue;
            }
            if let Some(messages) = get(&returned, "messages")
                && !Object::is(&messages, &view.messages)
            {
                match from_js::<Vec<Message>>(&messages, &format!("the messages {name} returned")) {
                    Ok(list) => {
                        answer.mutation.messages = Some(list);
                        view.messages = messages;
                    }
                    Err(e) => answer.error = answer.error.take().or(Some(e)),
                }
            }
            let state =
                Reflect::get(&returned, &JsValue::from_str("state")).unwrap_or(JsValue::UNDEFINED);
            if !state.is_undefined() && !Object::is(&state, &view.state) {
                match from_js::<Value>(&state, &format!("the state {name} returned")) {
                    Ok(value) => {
                        answer.mutation.state = Some(value);
                        view.state = state;
                    }
                    Err(e) => answer.error = answer.error.take().or(Some(e)),
                }
            }
            if get(&returned, "stopPropagation").and_then(|s| s.as_bool()) == Some(true) {
                answer.stop = true;
                break;
            }
        }
        answer
    }

    /// Calls `name` of every subscriber with the conversation and `extra` without awaiting
    /// anything (`onMessagesChanged`, `onStateChanged`, `onNewMessage`, `onNewToolCall`).
    pub(crate) fn notify(&self, name: &str, view: &dyn Fn() -> View, extra: &[(&str, JsValue)]) {
        let callbacks = self.with(name);
        if callbacks.is_empty() {
            return;
        }
        let params = self.params(&view(), extra);
        for (subscriber, f) in callbacks {
            if let Err(e) = f.call1(&subscriber, &params) {
                report(name, &e);
            }
        }
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
