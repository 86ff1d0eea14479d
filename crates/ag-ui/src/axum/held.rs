//! What a parsed [`RunAgentInput`] holds on the heap, estimated by walking it: what the
//! endpoint's input budget charges a run once its body is parsed.
//!
//! A request body's length is no measure of its input: two bytes of JSON (`0,` in an array)
//! become an 80-byte `serde_json::Value`, so a state of `[0,0,…]` holds 40 times its JSON (and
//! twice that in an agent of [`server`](crate::server), which keeps the state as sent and as
//! it last published it). The walk counts each allocation the parsed input owns (its
//! requested bytes and [`PER_ALLOCATION`] for the allocator's header and rounding) without
//! recursion, in one pass over what was parsed.

use std::mem::size_of;

use serde_json::{Map, Value};

use crate::{
    Content, ContentPart, Context, Message, PartSource, ResumeEntry, RunAgentInput, Tool, ToolCall,
};

/// Bytes counted for each allocation beyond what it asks for: a small-block allocator's
/// header and rounding.
pub(crate) const PER_ALLOCATION: usize = 16;

/// An allocation of `bytes` (none for zero).
fn alloc(bytes: usize) -> usize {
    if bytes == 0 {
        0
    } else {
        bytes + PER_ALLOCATION
    }
}

fn string(s: &str, capacity: usize) -> usize {
    debug_assert!(capacity >= s.len());
    alloc(capacity)
}

fn owned(s: &String) -> usize {
    string(s, s.capacity())
}

fn opt(s: &Option<String>) -> usize {
    s.as_ref().map_or(0, owned)
}

/// An id: an `Arc<str>` (two counters and the text).
fn id(s: &str) -> usize {
    alloc(2 * size_of::<usize>() + s.len())
}

/// A `Vec`'s buffer and what each element holds.
fn vec<T>(items: &Vec<T>, each: impl Fn(&T) -> usize) -> usize {
    alloc(items.capacity() * size_of::<T>()) + items.iter().map(each).sum::<usize>()
}

/// What an object's map holds itself (an `IndexMap`: its entries, each a hash, a key and a
/// value, and a hash table of their indices), its keys but not its values.
fn map_own(map: &Map<String, Value>) -> usize {
    if map.is_empty() {
        return 0;
    }
    // hashbrown's buckets for this many entries, and the entries' room that follows them.
    let buckets = (map.len() * 8 / 7 + 1).next_power_of_two().max(4);
    let entries = (buckets / 8 * 7).max(buckets - 1).max(map.len());
    let entry = size_of::<usize>() + size_of::<String>() + size_of::<Value>();
    alloc(entries * entry)
        + alloc(buckets * size_of::<usize>() + buckets + 16)
        + map.keys().map(owned).sum::<usize>()
}

/// What `value` holds on the heap (not its own `Value`), without recursion.
pub(crate) fn value(value: &Value) -> usize {
    let mut total = 0;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => total += owned(s),
            Value::Array(items) => {
                total += alloc(items.capacity() * size_of::<Value>());
                stack.extend(items);
            }
            Value::Object(map) => {
                total += map_own(map);
                stack.extend(map.values());
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    total
}

fn opt_value(v: &Option<Value>) -> usize {
    v.as_ref().map_or(0, value)
}

fn metadata(map: &Option<Map<String, Value>>) -> usize {
    map.as_ref().map_or(0, |map| {
        map_own(map) + map.values().map(value).sum::<usize>()
    })
}

fn part(part: &ContentPart) -> usize {
    match part {
        ContentPart::Text(text) => owned(&text.text) + opt(&text.id) + opt_value(&text.metadata),
        ContentPart::Image(media)
        | ContentPart::Audio(media)
        | ContentPart::Video(media)
        | ContentPart::Document(media) => {
            let source = match &media.source {
                PartSource::Data { value, mime_type } => owned(value) + owned(mime_type),
                PartSource::Url { value, mime_type } => owned(value) + opt(mime_type),
                PartSource::File {
                    value,
                    provider,
                    mime_type,
                } => owned(value) + opt(provider) + opt(mime_type),
            };
            source + opt(&media.id) + opt_value(&media.metadata)
        }
    }
}

fn content(content: &Content) -> usize {
    match content {
        Content::Text(text) => owned(text),
        Content::Parts(parts) => vec(parts, part),
    }
}

fn tool_call(call: &ToolCall) -> usize {
    id(call.id.as_str())
        + owned(&call.function.name)
        + owned(&call.function.arguments)
        + opt(&call.encrypted_value)
        + metadata(&call.metadata)
}

fn message(message: &Message) -> usize {
    // What every message has: an id, metadata, perhaps a subagent's run id.
    macro_rules! common {
        ($m:expr) => {
            id($m.id.as_str())
                + metadata(&$m.metadata)
                + $m.subagent_run_id
                    .as_ref()
                    .map_or(0, |run| id(run.as_str()))
        };
    }
    match message {
        Message::Developer(m) => {
            common!(m) + owned(&m.content) + opt(&m.name) + opt(&m.encrypted_value)
        }
        Message::System(m) => {
            common!(m) + owned(&m.content) + opt(&m.name) + opt(&m.encrypted_value)
        }
        Message::Assistant(m) => {
            common!(m)
                + opt(&m.content)
                + m.tool_calls
                    .as_ref()
                    .map_or(0, |calls| vec(calls, tool_call))
                + opt(&m.name)
                + opt(&m.encrypted_value)
        }
        Message::User(m) => {
            common!(m) + content(&m.content) + opt(&m.name) + opt(&m.encrypted_value)
        }
        Message::Tool(m) => {
            common!(m)
                + content(&m.content)
                + id(m.tool_call_id.as_str())
                + opt(&m.error)
                + opt(&m.encrypted_value)
        }
        Message::Activity(m) => {
            common!(m)
                + owned(&m.activity_type)
                + map_own(&m.content)
                + m.content.values().map(value).sum::<usize>()
        }
        Message::Reasoning(m) => common!(m) + owned(&m.content) + opt(&m.encrypted_value),
    }
}

fn tool(tool: &Tool) -> usize {
    owned(&tool.name)
        + owned(&tool.description)
        + opt_value(&tool.parameters)
        + metadata(&tool.metadata)
}

fn context(context: &Context) -> usize {
    owned(&context.description) + owned(&context.value)
}

fn resume(entry: &ResumeEntry) -> usize {
    id(entry.interrupt_id.as_str()) + opt_value(&entry.payload) + metadata(&entry.metadata)
}

/// What a parsed input holds: itself, and on the heap its ids, messages, tools, context,
/// resume entries and JSON values, its state counted twice (an agent of
/// [`server`](crate::server) keeps the state as sent and as it last published it).
pub(crate) fn input(input: &RunAgentInput) -> usize {
    size_of::<RunAgentInput>()
        + id(input.thread_id.as_str())
        + id(input.run_id.as_str())
        + input
            .parent_run_id
            .as_ref()
            .map_or(0, |run| id(run.as_str()))
        + opt(&input.protocol_version)
        + 2 * opt_value(&input.state)
        + input.state.as_ref().map_or(0, |_| size_of::<Value>())
        + vec(&input.messages, message)
        + vec(&input.tools, tool)
        + vec(&input.context, context)
        + opt_value(&input.forwarded_props)
        + input
            .resume
            .as_ref()
            .map_or(0, |entries| vec(entries, resume))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(json: &str) -> RunAgentInput {
        super::super::input::parse_input(json.as_bytes()).unwrap()
    }

    #[test]
    fn a_state_of_small_values_is_counted_at_what_it_holds_not_its_json() {
        let elements = 10_000;
        let state = vec!["0"; elements].join(",");
        let json = format!(r#"{{"threadId":"t","runId":"r","messages":[],"state":[{state}]}}"#);
        let held = input(&parsed(&json));
        // Each element an 80-byte value, twice: some 80 times the JSON.
        assert!(held >= 2 * elements * size_of::<Value>(), "{held}");
        assert!(held > 70 * json.len(), "{held} for {}", json.len());
        assert!(held < 130 * json.len(), "{held} for {}", json.len());
    }

    #[test]
    fn every_value_of_the_input_is_walked() {
        let small = input(&parsed(r#"{"threadId":"t","runId":"r","messages":[]}"#));
        let big = "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]";
        let cases = [
            format!(r#""forwardedProps":{big}"#),
            format!(r#""tools":[{{"name":"t","description":"d","parameters":{big}}}]"#),
            format!(
                r#""messages":[{{"id":"m","role":"user","content":"hi","metadata":{{"k":{big}}}}}]"#
            ),
            format!(
                r#""messages":[{{"id":"m","role":"user","content":[{{"type":"text","text":"x","metadata":{big}}}]}}]"#
            ),
            format!(
                r#""messages":[{{"id":"m","role":"assistant","toolCalls":[{{"id":"c","type":"function","function":{{"name":"f","arguments":"{{}}"}},"metadata":{{"k":{big}}}}}]}}]"#
            ),
            format!(
                r#""messages":[{{"id":"m","role":"activity","activityType":"A","content":{{"k":{big}}}}}]"#
            ),
            format!(r#""resume":[{{"interruptId":"i","status":"resolved","payload":{big}}}]"#),
        ];
        for case in cases {
            let json = format!(r#"{{"threadId":"t","runId":"r","messages":[],{case}}}"#)
                .replace(r#""messages":[],"messages""#, r#""messages""#);
            let held = input(&parsed(&json));
            assert!(
                held >= small + 20 * size_of::<Value>(),
                "{case}: {held} against {small}"
            );
        }
    }

    #[test]
    fn a_deep_value_is_walked_without_recursion() {
        let mut deep = Value::Null;
        for _ in 0..100_000 {
            deep = Value::Array(vec![deep]);
        }
        assert!(value(&deep) >= 100_000 * size_of::<Value>());
        // Dropping it is recursive: take it apart first.
        let mut next = Some(deep);
        while let Some(Value::Array(mut items)) = next {
            next = items.pop();
        }
    }
}
