//! What an event becomes after a trip through the binary transport: the lossy points listed in
//! `ag_ui::encoding::proto`'s documentation, applied to the event's JSON form.

#![allow(dead_code, unreachable_pub)]

use ag_ui::Event;
use serde_json::{Number, Value};

/// `event` as the protobuf transport gives it back.
pub fn lossy(event: &Event) -> Event {
    let mut v = serde_json::to_value(event).unwrap();
    doubles(&mut v);
    let ty = v["type"].as_str().unwrap().to_owned();
    let obj = v.as_object_mut().unwrap();
    match ty.as_str() {
        "MESSAGES_SNAPSHOT" => messages(obj.get_mut("messages")),
        "RUN_STARTED" => {
            if let Some(Value::Object(input)) = obj.get_mut("input") {
                messages(input.get_mut("messages"));
                input
                    .entry("resume")
                    .or_insert_with(|| Value::Array(Vec::new()));
            }
        }
        "RUN_FINISHED" | "RUN_ERROR" => {
            drop_empty(obj, "usage");
            if let Some(Value::Object(outcome)) = obj.get_mut("outcome") {
                drop_empty(outcome, "pendingToolCallIds");
            }
        }
        "SUBAGENT_FINISHED" => {
            if let Some(Value::Object(outcome)) = obj.get_mut("outcome") {
                drop_empty(outcome, "interruptIds");
            }
        }
        _ => {}
    }
    Event::from_json(&v.to_string()).unwrap()
}

fn messages(list: Option<&mut Value>) {
    if let Some(Value::Array(list)) = list {
        for m in list {
            if let Value::Object(m) = m {
                drop_empty(m, "toolCalls");
            }
        }
    }
}

fn drop_empty(obj: &mut serde_json::Map<String, Value>, key: &str) {
    if obj
        .get(key)
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        obj.remove(key);
    }
}

/// Every number as a double read back the way the decoder (and JavaScript) reads it.
fn doubles(v: &mut Value) {
    match v {
        Value::Number(n) => {
            let f = n.as_f64().unwrap();
            const TWO_63: f64 = 9_223_372_036_854_775_808.0;
            *n = if f.fract() == 0.0 && (0.0..2.0 * TWO_63).contains(&f) {
                Number::from(f as u64)
            } else if f.fract() == 0.0 && (-TWO_63..0.0).contains(&f) {
                Number::from(f as i64)
            } else {
                Number::from_f64(f).unwrap()
            };
        }
        Value::Array(items) => items.iter_mut().for_each(doubles),
        Value::Object(map) => map.values_mut().for_each(doubles),
        _ => {}
    }
}

/// Messages as the protobuf transport gives them back.
pub fn lossy_messages(messages: &[ag_ui::Message]) -> Vec<ag_ui::Message> {
    match lossy(&Event::messages_snapshot(messages.to_vec())) {
        Event::MessagesSnapshot(e) => e.messages,
        _ => unreachable!(),
    }
}

/// A JSON value as the protobuf transport gives it back.
pub fn lossy_value(value: &Value) -> Value {
    let mut v = value.clone();
    doubles(&mut v);
    v
}
