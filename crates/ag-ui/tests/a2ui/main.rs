//! A2UI (`ag_ui::a2ui`): the `generate_a2ui` tool of `LlmAgent` against the mock
//! OpenAI-compatible server (recovery, exhaustion, updates, a sub-call that breaks off),
//! surfaces as `a2ui-surface` activity reduced by the client, the same runs through the real
//! `@ag-ui/a2ui-middleware`, and the validator's properties on hostile input.
//!
//! One test binary for the area (each binary links on its own); each module is a concern.

#[path = "../support/mod.rs"]
mod support;

mod activity;
mod generate;
mod middleware;
mod props;

use ag_ui::a2ui::{GenerateA2ui, GenerateConfig, SCHEMA_CONTEXT_DESCRIPTION};
use ag_ui::client::Reducer;
use ag_ui::llm::{LlmAgent, OpenAiClient};
use ag_ui::server::Runner;
use ag_ui::{Context, Event, Message, RunAgentInput, verify};
use futures::StreamExt;
use serde_json::{Value, json};
use support::openai_mock::{self, Mock, Reply, chunk, finish, sse};

/// The Dojo's tool-call arguments (`tests/fixtures/a2ui/`, origin in its README).
pub(crate) fn dojo(name: &str) -> Value {
    let all: Value =
        serde_json::from_str(include_str!("../fixtures/a2ui/dojo_tool_arguments.json")).unwrap();
    assert!(all[name].is_object(), "no fixture {name}");
    all[name].clone()
}

pub(crate) const DOJO_CATALOG_ID: &str = "https://a2ui.org/demos/dojo/dynamic_catalog.json";

/// The Dojo page's dynamic catalog as CopilotKit's A2UI renderer sends it
/// (`extractCatalogComponentSchemas`: an `allOf` of the common part and the component's
/// properties with `required`), with the required properties of the Dojo's `apis.ts`.
pub(crate) fn dojo_catalog() -> Value {
    let component = |name: &str, required: &[&str]| {
        let mut all = vec!["component"];
        all.extend_from_slice(required);
        json!({"allOf": [
            {"$ref": "common_types.json#/$defs/ComponentCommon"},
            {"properties": {"component": {"const": name}}, "required": all}
        ]})
    };
    json!({"catalogId": DOJO_CATALOG_ID, "components": {
        "Row": component("Row", &["children"]),
        "HotelCard": component("HotelCard", &["name", "location", "rating", "pricePerNight", "action"]),
        "ProductCard": component("ProductCard", &["name", "price", "rating", "action"]),
        "TeamMemberCard": component("TeamMemberCard", &["name", "role", "action"]),
    }})
}

/// The run's context: the page's catalog and one entry of the application's.
pub(crate) fn page_context() -> Vec<Context> {
    vec![
        Context::new("The user's city", "Lisbon"),
        Context::new(SCHEMA_CONTEXT_DESCRIPTION, dojo_catalog().to_string()),
    ]
}

/// A model turn calling `name` with `args`, the argument text streamed in `pieces` chunks.
pub(crate) fn call(name: &str, args: &Value, pieces: usize) -> Reply {
    let text = args.to_string();
    let size = text.len().div_ceil(pieces.max(1));
    let mut chunks = vec![chunk(json!({"role": "assistant", "tool_calls": [{
        "index": 0, "id": format!("call_{name}"), "type": "function",
        "function": {"name": name, "arguments": ""}}]}))];
    let mut rest = text.as_str();
    while !rest.is_empty() {
        let mut end = size.min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (piece, tail) = rest.split_at(end);
        chunks.push(chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
        ));
        rest = tail;
    }
    chunks.push(finish("tool_calls"));
    Reply::Sse(sse(&chunks))
}

/// A model turn answering `text`.
pub(crate) fn say(text: &str) -> Reply {
    Reply::Sse(sse(&[
        chunk(json!({"role": "assistant", "content": text})),
        finish("stop"),
    ]))
}

/// An agent whose planner and sub-agent are the mock's `model`, with `config`.
pub(crate) async fn agent(
    replies: Vec<Reply>,
    config: GenerateConfig,
) -> (std::sync::Arc<Mock>, LlmAgent) {
    let (mock, base) = openai_mock::serve(replies).await;
    let client = OpenAiClient::new(base).with_api_key("test-key");
    let generate = GenerateA2ui::new(client.clone(), "mock-model").with_config(config);
    let agent = LlmAgent::<()>::new(client, "mock-model")
        .with_system_prompt("You are a helpful assistant that creates rich visual UI.")
        .with_tool(generate.tool());
    (mock, agent)
}

pub(crate) fn input(text: &str) -> RunAgentInput {
    RunAgentInput::new("t", "r")
        .with_messages(vec![Message::user("u1", text)])
        .with_context(page_context())
}

/// Runs `agent` for `input`; the events, verified.
pub(crate) async fn run(agent: LlmAgent, input: RunAgentInput) -> Vec<Event> {
    let events: Vec<Event> = Runner::new(agent).run(input).unwrap().collect().await;
    verify::verify_all(&events).unwrap_or_else(|v| panic!("{v}\n{events:#?}"));
    events
}

/// Every `TOOL_CALL_RESULT`: the call's name (from its start) and the content.
pub(crate) fn results(events: &[Event]) -> Vec<(String, String)> {
    let mut names = std::collections::HashMap::new();
    let mut out = Vec::new();
    for event in events {
        match event {
            Event::ToolCallStart(start) => {
                names.insert(start.tool_call_id.clone(), start.tool_call_name.clone());
            }
            Event::ToolCallResult(result) => out.push((
                names[&result.tool_call_id].clone(),
                result.content.flatten(),
            )),
            _ => {}
        }
    }
    out
}

/// The client's messages after `events`.
pub(crate) fn reduce(events: &[Event]) -> Vec<Message> {
    let mut reducer = Reducer::new();
    for event in events {
        reducer.apply(event).unwrap();
    }
    reducer.messages().to_vec()
}

/// The system prompt and the rest of the request the mock received `n`-th.
pub(crate) fn request(mock: &Mock, n: usize) -> Value {
    mock.requests.lock().unwrap()[n].1.clone()
}

/// The Dojo's recovery demo: the planner calls `generate_a2ui`; the sub-agent's first surface
/// references a `card` it never defines, its second is whole (each streamed in pieces); the
/// planner closes. The mock, and the run's events (verified).
pub(crate) async fn recovered(config: GenerateConfig) -> (std::sync::Arc<Mock>, Vec<Event>) {
    let (mock, agent) = agent(
        vec![
            call("generate_a2ui", &json!({"intent": "create"}), 1),
            call("render_a2ui", &dojo("recovery_invalid"), 7),
            call("render_a2ui", &dojo("recovery_valid"), 9),
            say("Here is the comparison."),
        ],
        config,
    )
    .await;
    let events = run(
        agent,
        input("Compare 3 luxury hotels with ratings and prices."),
    )
    .await;
    (mock, events)
}

/// The Dojo's exhaustion demo: every one of `attempts` surfaces references the missing
/// `card`. The mock, and the run's events (verified).
pub(crate) async fn exhausted(
    config: GenerateConfig,
    attempts: usize,
) -> (std::sync::Arc<Mock>, Vec<Event>) {
    let mut replies = vec![call("generate_a2ui", &json!({}), 1)];
    replies.extend((0..attempts).map(|_| call("render_a2ui", &dojo("recovery_invalid"), 3)));
    replies.push(say("Sorry, that did not work."));
    let (mock, agent) = agent(replies, config).await;
    let events = run(
        agent,
        input("Compare 3 broken hotels with ratings and prices."),
    )
    .await;
    (mock, events)
}
