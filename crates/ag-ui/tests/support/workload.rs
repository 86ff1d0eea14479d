//! The shared benchmark workload: one run of about 210k events.
//!
//! 2,000 assistant messages of 100 text deltas each; every 10th message also makes a tool call
//! (start, four argument fragments, end, result); every 50th also publishes a state delta and
//! reasons (a span holding one reasoning message of ten fragments). Deterministic, so figures
//! can be rerun; `examples/workload.rs` writes it out for the reference measurements.

#![allow(dead_code, unreachable_pub)]

use ag_ui::{Event, JsonPatchOperation, MessageId, TextMessageRole, ToolCallId};
use serde_json::json;

/// Number of assistant messages in the full workload.
pub const MESSAGES: usize = 2_000;

/// The explicit (START / CONTENT / END) workload with `messages` assistant messages.
pub fn events(messages: usize) -> Vec<Event> {
    let mut out = Vec::with_capacity(messages * 105 + 2);
    out.push(Event::run_started("thread-bench", "run-bench"));
    for m in 0..messages {
        let id = format!("msg-{m}");
        out.push(Event::text_message_start(
            id.as_str(),
            TextMessageRole::Assistant,
        ));
        for d in 0..100 {
            out.push(Event::text_message_content(id.as_str(), delta(m, d)));
        }
        out.push(Event::text_message_end(id.as_str()));
        if m % 10 == 0 {
            let call = format!("call-{m}");
            out.push(
                ag_ui::ToolCallStartEvent::new(call.as_str(), "search")
                    .with_parent_message_id(id.as_str())
                    .into(),
            );
            for part in ["{\"query\":", "\"weather in ", "Paris\"", "}"] {
                out.push(Event::tool_call_args(call.as_str(), part));
            }
            out.push(Event::tool_call_end(call.as_str()));
            out.push(Event::tool_call_result(
                format!("result-{m}"),
                call.as_str(),
                "sunny, 21°C",
            ));
        }
        if m % 50 == 0 {
            out.push(Event::state_delta(vec![patch_add(m)]));
            let r = format!("reason-{m}");
            out.push(Event::reasoning_start(r.as_str()));
            out.push(Event::reasoning_message_start(r.as_str()));
            for d in 0..10 {
                out.push(Event::reasoning_message_content(r.as_str(), delta(m, d)));
            }
            out.push(Event::reasoning_message_end(r.as_str()));
            out.push(Event::reasoning_end(r.as_str()));
        }
    }
    out.push(Event::run_finished("thread-bench", "run-bench"));
    out
}

/// The same run with its text messages and tool calls sent as chunks: the first chunk of each
/// carries the id, the rest continue it.
pub fn chunked(messages: usize) -> Vec<Event> {
    let mut out = Vec::with_capacity(messages * 103 + 2);
    out.push(Event::run_started("thread-bench", "run-bench"));
    for m in 0..messages {
        let id = MessageId::new(format!("msg-{m}"));
        for d in 0..100 {
            let first = (d == 0).then(|| id.clone());
            out.push(Event::text_message_chunk(
                first,
                Some(delta(m, d).to_owned()),
            ));
        }
        if m % 10 == 0 {
            let call = ToolCallId::new(format!("call-{m}"));
            for (i, part) in ["{\"query\":", "\"weather in ", "Paris\"", "}"]
                .into_iter()
                .enumerate()
            {
                let (id, name) = if i == 0 {
                    (Some(call.clone()), Some("search".to_owned()))
                } else {
                    (None, None)
                };
                out.push(Event::tool_call_chunk(id, name, Some(part.to_owned())));
            }
            out.push(Event::tool_call_result(
                format!("result-{m}"),
                call,
                "sunny, 21°C",
            ));
        }
        if m % 50 == 0 {
            out.push(Event::state_delta(vec![patch_add(m)]));
        }
    }
    out.push(Event::run_finished("thread-bench", "run-bench"));
    out
}

fn delta(m: usize, d: usize) -> &'static str {
    const WORDS: [&str; 8] = [
        "Hello",
        " world",
        ", this",
        " is",
        " token",
        " number",
        " — ünïcode",
        " text.",
    ];
    WORDS[(m + d) % WORDS.len()]
}

fn patch_add(m: usize) -> JsonPatchOperation {
    serde_json::from_value(
        json!({"op": "add", "path": format!("/step{m}"), "value": {"done": m, "note": null}}),
    )
    .expect("a valid patch operation")
}
