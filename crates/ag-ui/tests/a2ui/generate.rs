//! `generate_a2ui` in an `LlmAgent` run against the mock model: what streams on the run, what
//! the sub-agent is asked, the recovery loop and its end.

use ag_ui::a2ui::{GenerateConfig, ValidateConfig};
use ag_ui::{AssistantMessage, Event, EventType, Message, ToolCall};
use serde_json::{Value, json};

use super::support::openai_mock::{Reply, chunk, sse};
use super::{
    DOJO_CATALOG_ID, agent, call, dojo, exhausted, input, recovered, reduce, request, results, run,
    say,
};

/// The operations the valid recovery surface becomes.
fn recovery_envelope() -> Value {
    let valid = dojo("recovery_valid");
    json!({"a2ui_operations": [
        {"version": "v0.9", "createSurface": {"surfaceId": "hotel-comparison", "catalogId": DOJO_CATALOG_ID}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "hotel-comparison", "components": valid["components"]}},
        {"version": "v0.9", "updateDataModel": {"surfaceId": "hotel-comparison", "path": "/", "value": valid["data"]}},
    ]})
}

#[tokio::test]
async fn an_invalid_first_attempt_is_retried_with_its_findings_and_the_second_is_the_result() {
    let (mock, events) = recovered(GenerateConfig::default()).await;

    // The sub-agent's calls stream on the run, each argument piece one TOOL_CALL_ARGS, each
    // answered; then generate_a2ui's result: the valid surface.
    let args_pieces = events
        .iter()
        .filter(|e| e.event_type() == EventType::ToolCallArgs)
        .count();
    assert!(args_pieces >= 1 + 7 + 9, "{args_pieces}");
    let results = results(&events);
    let names: Vec<&str> = results.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["render_a2ui", "render_a2ui", "generate_a2ui"]);
    let first: Value = serde_json::from_str(&results[0].1).unwrap();
    assert_eq!(
        first,
        json!({"status": "invalid", "errors": [{"code": "unresolved_child",
            "path": "components[0].children", "message": "no component has the id `card`"}]})
    );
    assert_eq!(results[1].1, r#"{"status":"rendered"}"#);
    let envelope: Value = serde_json::from_str(&results[2].1).unwrap();
    assert_eq!(envelope, recovery_envelope());
    let Some(Event::TextMessageContent(last)) = events
        .iter()
        .rev()
        .find(|e| e.event_type() == EventType::TextMessageContent)
    else {
        panic!()
    };
    assert_eq!(last.delta, "Here is the comparison.");

    // What the sub-agent was asked: only render_a2ui, forced; the rules, the catalog and the
    // application's context in its prompt; the user's words, and not the call being served.
    let sub = request(&mock, 1);
    let tools: Vec<&str> = sub["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["render_a2ui"]);
    assert_eq!(
        sub["tool_choice"],
        json!({"type": "function", "function": {"name": "render_a2ui"}})
    );
    let system = sub["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("## Available Components\n{\"catalogId\":\"https://a2ui.org/demos/dojo/dynamic_catalog.json\""));
    assert!(system.contains("## The user's city\nLisbon"));
    assert!(!system.contains("Previous attempt was invalid"));
    let rest = &sub["messages"].as_array().unwrap()[1..];
    assert_eq!(
        rest,
        [json!({"role": "user", "content": "Compare 3 luxury hotels with ratings and prices."})]
    );
    // The retry's prompt lists the first attempt's findings.
    let retry = request(&mock, 2);
    let system = retry["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.ends_with(
            "## Previous attempt was invalid\nThe surface you rendered last breaks these rules. \
             Call `render_a2ui` again with all of them fixed:\n- [unresolved_child] \
             components[0].children: no component has the id `card`"
        ),
        "{system}"
    );
    // The planner's next turn reads the surface as generate_a2ui's result.
    let planner = request(&mock, 3);
    let tool = planner["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(tool["content"].as_str().unwrap()).unwrap(),
        recovery_envelope()
    );

    // The client holds a well-formed conversation: every call answered.
    let messages = reduce(&events);
    let calls: Vec<String> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant(a) => a.tool_calls.clone(),
            _ => None,
        })
        .flatten()
        .map(|c| c.id.into_string())
        .collect();
    let answered: Vec<String> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool(t) => Some(t.tool_call_id.as_str().to_owned()),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 3);
    assert!(
        calls.iter().all(|c| answered.contains(c)),
        "{calls:?} {answered:?}"
    );
}

#[tokio::test]
async fn a_surface_that_never_becomes_valid_ends_with_the_recovery_exhausted_result() {
    let (mock, events) = exhausted(GenerateConfig::default(), 3).await;

    let results = results(&events);
    assert_eq!(results.len(), 4);
    let finding = json!({"code": "unresolved_child", "path": "components[0].children",
                         "message": "no component has the id `card`"});
    let exhausted: Value = serde_json::from_str(&results[3].1).unwrap();
    assert_eq!(
        exhausted,
        json!({
            "error": "no valid A2UI surface after 3 attempts",
            "code": "a2ui_recovery_exhausted",
            "attempts": [
                {"attempt": 1, "ok": false, "errors": [finding]},
                {"attempt": 2, "ok": false, "errors": [finding]},
                {"attempt": 3, "ok": false, "errors": [finding]},
            ]
        })
    );
    assert_eq!(mock.requests.lock().unwrap().len(), 5);
    // The run itself succeeded: the failure is the tool's result, and the planner answered.
    assert_eq!(events.last().unwrap().event_type(), EventType::RunFinished);
}

#[tokio::test]
async fn the_attempts_are_configured_and_the_catalog_on_the_server_wins() {
    // Two attempts; a server-side catalog where HotelCard requires `stars`.
    let catalog = ag_ui::a2ui::Catalog::new("https://example.com/server.json")
        .with_component("Row", ag_ui::a2ui::ComponentSpec::new())
        .with_component(
            "HotelCard",
            ag_ui::a2ui::ComponentSpec::new().with_required(["stars"]),
        );
    let config = GenerateConfig::default()
        .with_max_attempts(2)
        .with_catalog(catalog)
        .with_catalog_id("https://example.com/server.json");
    let mut replies = vec![call("generate_a2ui", &json!({}), 1)];
    replies.extend((0..2).map(|_| call("render_a2ui", &dojo("recovery_valid"), 2)));
    replies.push(say("No."));
    let (mock, agent) = agent(replies, config).await;
    let events = run(agent, input("Compare 3 luxury hotels")).await;
    let exhausted: Value = serde_json::from_str(&results(&events)[2].1).unwrap();
    assert_eq!(exhausted["error"], "no valid A2UI surface after 2 attempts");
    assert_eq!(
        exhausted["attempts"][1]["errors"][0]["code"],
        "missing_required_prop"
    );
    assert_eq!(mock.requests.lock().unwrap().len(), 4);
    // The prompt lists the server's catalog, not the page's.
    let system = request(&mock, 1)["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(system.contains("## Available Components\n- HotelCard (requires stars)\n- Row"));
    assert!(!system.contains("dynamic_catalog.json"));

    // Bindings can be left unchecked: a surface binding a missing path then passes.
    let unbound = json!({"surfaceId": "s", "components": [
        {"id": "root", "component": "Row", "children": {"componentId": "card", "path": "/nowhere"}},
        {"id": "card", "component": "HotelCard", "name": {"path": "name"}, "location": "x",
         "rating": 1, "pricePerNight": "$1", "action": {"event": {"name": "book"}}}]});
    let config = GenerateConfig::default()
        .with_validate(ValidateConfig::default().with_check_bindings(false));
    let (_, unchecked) = super::agent(
        vec![
            call("generate_a2ui", &json!({}), 1),
            call("render_a2ui", &unbound, 1),
            say("ok"),
        ],
        config,
    )
    .await;
    let events = run(unchecked, input("hotels")).await;
    assert!(results(&events)[1].1.starts_with(r#"{"a2ui_operations""#));
}

#[tokio::test]
async fn a_sub_call_that_breaks_off_is_a_failed_attempt_whose_call_is_answered() {
    let broken = Reply::Sse(sse(&[
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "x", "type": "function",
            "function": {"name": "render_a2ui", "arguments": "{\"surfaceId\": \"hot"}}]}),
        ),
        json!({"error": {"message": "overloaded", "code": "server_busy"}}),
    ]));
    let (_, agent) = agent(
        vec![
            call("generate_a2ui", &json!({}), 1),
            broken,
            call("render_a2ui", &dojo("recovery_valid"), 3),
            say("Done."),
        ],
        GenerateConfig::default(),
    )
    .await;
    let events = run(agent, input("Compare 3 luxury hotels")).await;
    let results = results(&events);
    let names: Vec<&str> = results.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["render_a2ui", "render_a2ui", "generate_a2ui"]);
    let failed: Value = serde_json::from_str(&results[0].1).unwrap();
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["errors"][0]["code"], "empty_components");
    assert!(
        failed["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("overloaded")
    );
    assert_eq!(
        serde_json::from_str::<Value>(&results[2].1).unwrap(),
        recovery_envelope()
    );
}

#[tokio::test]
async fn an_update_edits_the_surface_the_conversation_rendered_and_keeps_its_catalog() {
    // An earlier run rendered the surface: its generate_a2ui call and result are in the input.
    let earlier = recovery_envelope().to_string();
    let mut input = input("Make the second hotel cheaper.");
    input.messages.extend([
        Message::Assistant(
            AssistantMessage::new("a1").with_tool_calls(vec![ToolCall::new(
                "g1",
                "generate_a2ui",
                "{}",
            )]),
        ),
        Message::tool("t1", "g1", earlier),
    ]);
    let mut changed = dojo("recovery_valid");
    changed["data"]["items"][1]["price"] = json!("$99/night");
    let (mock, agent) = agent(
        vec![
            call(
                "generate_a2ui",
                &json!({"intent": "update", "target_surface_id": "hotel-comparison", "changes": "cheaper"}),
                1,
            ),
            call("render_a2ui", &changed, 2),
            say("Updated."),
        ],
        GenerateConfig::default(),
    )
    .await;
    let events = run(agent, input).await;
    let envelope: Value = serde_json::from_str(&results(&events)[1].1).unwrap();
    let ops = envelope["a2ui_operations"].as_array().unwrap();
    // No createSurface: the client has the surface.
    assert_eq!(ops.len(), 2);
    assert!(ops[0].get("updateComponents").is_some());
    assert_eq!(
        ops[1]["updateDataModel"]["value"]["items"][1]["price"],
        "$99/night"
    );
    let system = request(&mock, 1)["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(system.contains("## Editing the surface `hotel-comparison`"));
    assert!(
        system.contains("\"$180/night\""),
        "the previous data is shown"
    );
    assert!(system.contains("### The changes asked for\ncheaper"));
    // The earlier call and its result are in the sub-agent's conversation.
    let sub = request(&mock, 1);
    assert!(
        sub["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "tool")
    );

    // An update of a surface never rendered is refused without asking the sub-agent.
    let (mock, agent) = super::agent(
        vec![
            call(
                "generate_a2ui",
                &json!({"intent": "update", "target_surface_id": "nowhere"}),
                1,
            ),
            say("I cannot."),
        ],
        GenerateConfig::default(),
    )
    .await;
    let events = run(agent, super::input("change it")).await;
    let result: Value = serde_json::from_str(&results(&events)[0].1).unwrap();
    assert_eq!(
        result,
        json!({"error": "no surface `nowhere` was rendered earlier in the conversation, so it cannot be updated"})
    );
    assert_eq!(mock.requests.lock().unwrap().len(), 2);
}
