//! Short event builders for the verifier tests (`#[path]`-included by each test file).

#![allow(dead_code, unreachable_pub)]

use ag_ui::verify::{Verifier, Violation, ViolationKind, verify_all};
use ag_ui::{
    AssistantMessage, Event, Message, ReasoningEncryptedValueSubtype, RunAgentInput,
    RunStartedEvent, SubagentStartedEvent, TextMessageRole, ToolCall, ToolCallChunkEvent,
    ToolCallStartEvent,
};
use serde_json::json;

/// Tags an event with `subagentRunId`.
pub fn at(event: Event, tag: &str) -> Event {
    event.with_subagent_run_id(tag)
}

pub fn rs() -> Event {
    Event::run_started("t", "r")
}
pub fn rs_with(messages: Vec<Message>) -> Event {
    RunStartedEvent::new("t", "r")
        .with_input(RunAgentInput::new("t", "r").with_messages(messages))
        .into()
}
pub fn rf() -> Event {
    Event::run_finished("t", "r")
}
pub fn re() -> Event {
    Event::run_error("boom")
}
pub fn tms(id: &str) -> Event {
    Event::text_message_start(id, TextMessageRole::Assistant)
}
pub fn tmc(id: &str) -> Event {
    Event::text_message_content(id, "x")
}
pub fn tme(id: &str) -> Event {
    Event::text_message_end(id)
}
pub fn tmk(id: Option<&str>) -> Event {
    Event::text_message_chunk(id.map(Into::into), Some("c".to_owned()))
}
pub fn tcs(id: &str) -> Event {
    Event::tool_call_start(id, "search")
}
pub fn tcs_in(id: &str, parent: &str) -> Event {
    ToolCallStartEvent::new(id, "search")
        .with_parent_message_id(parent)
        .into()
}
pub fn tca(id: &str) -> Event {
    Event::tool_call_args(id, "{}")
}
pub fn tce(id: &str) -> Event {
    Event::tool_call_end(id)
}
pub fn tck(id: Option<&str>, name: Option<&str>) -> Event {
    Event::tool_call_chunk(
        id.map(Into::into),
        name.map(ToOwned::to_owned),
        Some("{}".to_owned()),
    )
}
pub fn tck_in(id: &str, parent: &str) -> Event {
    ToolCallChunkEvent::new()
        .with_tool_call_id(id)
        .with_tool_call_name("search")
        .with_parent_message_id(parent)
        .into()
}
pub fn tcr(message: &str, call: &str) -> Event {
    Event::tool_call_result(message, call, "ok")
}
pub fn rst(id: &str) -> Event {
    Event::reasoning_start(id)
}
pub fn rms(id: &str) -> Event {
    Event::reasoning_message_start(id)
}
pub fn rmc(id: &str) -> Event {
    Event::reasoning_message_content(id, "hm")
}
pub fn rme(id: &str) -> Event {
    Event::reasoning_message_end(id)
}
pub fn rend(id: &str) -> Event {
    Event::reasoning_end(id)
}
pub fn rmk(id: Option<&str>) -> Event {
    Event::reasoning_message_chunk(id.map(Into::into), Some("hm".to_owned()))
}
pub fn rev_tool(id: &str) -> Event {
    Event::reasoning_encrypted_value(ReasoningEncryptedValueSubtype::ToolCall, id, "enc")
}
pub fn rev_msg(id: &str) -> Event {
    Event::reasoning_encrypted_value(ReasoningEncryptedValueSubtype::Message, id, "enc")
}
pub fn sts(name: &str) -> Event {
    Event::step_started(name)
}
pub fn stf(name: &str) -> Event {
    Event::step_finished(name)
}
pub fn sas(id: &str) -> Event {
    Event::subagent_started(id, "helper")
}
pub fn sas_under(id: &str, parent: &str) -> Event {
    SubagentStartedEvent::new(id, "helper")
        .with_parent_subagent_run_id(parent)
        .into()
}
pub fn saf(id: &str) -> Event {
    Event::subagent_finished(id)
}
pub fn sae(id: &str) -> Event {
    Event::subagent_error(id, "failed")
}
pub fn ss() -> Event {
    Event::state_snapshot(json!({"n": 1}))
}
pub fn sd() -> Event {
    Event::state_delta(Vec::new())
}
pub fn cu() -> Event {
    Event::custom("ping", json!(1))
}
pub fn raw() -> Event {
    Event::raw(json!({"any": true}))
}
pub fn act(id: &str) -> Event {
    Event::activity_snapshot(id, "PLAN", serde_json::Map::new())
}
pub fn act_keep(id: &str) -> Event {
    ag_ui::ActivitySnapshotEvent::new(id, "PLAN", serde_json::Map::new())
        .with_replace(false)
        .into()
}
pub fn ad(id: &str) -> Event {
    Event::activity_delta(id, "PLAN", Vec::new())
}
pub fn ms(messages: Vec<Message>) -> Event {
    Event::messages_snapshot(messages)
}
/// A message with an attribution.
pub fn tagged(mut message: Message, tag: &str) -> Message {
    *message.subagent_run_id_mut() = Some(tag.into());
    message
}
/// An assistant message holding tool calls.
pub fn assistant_with_calls(id: &str, calls: &[&str]) -> Message {
    Message::Assistant(
        AssistantMessage::new(id).with_tool_calls(
            calls
                .iter()
                .map(|c| ToolCall::new(*c, "search", "{}"))
                .collect(),
        ),
    )
}

/// Asserts the stream is accepted.
#[track_caller]
pub fn accepts(events: &[Event]) {
    if let Err(v) = verify_all(events) {
        panic!("expected the stream to be accepted, got: {v}");
    }
}

/// Asserts the stream is rejected with `kind` at `index`, and returns the violation.
#[track_caller]
pub fn rejects(events: &[Event], kind: ViolationKind, index: usize) -> Violation {
    match verify_all(events) {
        Ok(n) => panic!("expected {kind} at {index}, but all {n} events were accepted"),
        Err(v) => {
            assert_eq!((v.kind(), v.index()), (kind, index), "{v}");
            v
        }
    }
}

/// Checks `events` with an emission-mode verifier; the result of each event.
pub fn emit_all(events: &[Event]) -> Vec<Result<(), Violation>> {
    let mut verifier = Verifier::for_emission();
    events.iter().map(|e| verifier.check(e)).collect()
}

/// The 80 cases of `tests/data/proto_cases.json`, named: each of the 31 event types with every
/// optional field set, each with only its required fields, and 18 variants.
pub fn proto_cases() -> Vec<(String, Event)> {
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("../data/proto_cases.json")).expect("the fixture");
    fixture["cases"]
        .as_array()
        .expect("the fixture's cases")
        .iter()
        .map(|case| {
            let name = case["name"].as_str().expect("a case's name").to_owned();
            let event = Event::from_value(&case["ev"]).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, event)
        })
        .collect()
}
