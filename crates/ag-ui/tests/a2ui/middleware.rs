//! Differential against the real `@ag-ui/a2ui-middleware` 0.0.10 (what CopilotKit's runtime
//! puts in front of an agent; committed lockfile in `interop/`): our runs' events go through it
//! under Node (`interop/a2ui/middleware.mjs`), and what it paints must be what our own
//! activity emission shows, its validator must find what ours finds, and its failure view must
//! carry our recovery-exhausted result.

use ag_ui::a2ui::{GenerateConfig, UserAction, activity_content};
use ag_ui::llm::{BackendTool, ToolOutput, schemars};
use ag_ui::{Event, RunAgentInput};
use serde::Deserialize;
use serde_json::{Value, json};

use super::activity::hotel_results;
use super::support::openai_mock;
use super::{
    DOJO_CATALOG_ID, agent, call, dojo, exhausted, input, page_context, recovered, results, run,
    say,
};

/// Runs the middleware (configured with `config`) over `events` for a run whose input is
/// `run_input`; returns what it printed: `events`, `messages`, `received`.
fn through_middleware(events: &[Event], config: Value, run_input: Value) -> Value {
    let payload = json!({"events": events, "config": config, "input": run_input});
    crate::support::node::json_with_input(
        "a2ui/middleware.mjs",
        &[] as &[&str],
        payload.to_string().as_bytes(),
    )
}

/// The activity messages the client holds after the middleware: (id, content).
fn activities(out: &Value) -> Vec<(String, Value)> {
    out["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "activity")
        .map(|m| {
            assert_eq!(m["activityType"], "a2ui-surface");
            (m["id"].as_str().unwrap().to_owned(), m["content"].clone())
        })
        .collect()
}

/// Every content the middleware gave activity `id`, in order.
fn snapshots(out: &Value, id: &str) -> Vec<Value> {
    out["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "ACTIVITY_SNAPSHOT" && e["messageId"] == id)
        .map(|e| e["content"].clone())
        .collect()
}

fn call_id(events: &[Event], name: &str) -> String {
    events
        .iter()
        .find_map(|e| match e {
            Event::ToolCallStart(s) if s.tool_call_name == name => {
                Some(s.tool_call_id.as_str().to_owned())
            }
            _ => None,
        })
        .unwrap()
}

/// Arguments of the Dojo's `search_hotels`.
#[derive(Deserialize, schemars::JsonSchema)]
struct Hotels {
    /// The hotels found.
    hotels: Vec<Value>,
}

#[tokio::test]
async fn a_fixed_schema_tool_result_is_painted_as_the_surface_our_activity_shows() {
    let (_, base) = openai_mock::serve(vec![
        call("search_hotels", &dojo("search_hotels"), 3),
        say("Here are your results."),
    ])
    .await;
    let client = ag_ui::llm::OpenAiClient::new(base);
    let tool = BackendTool::<()>::new(
        "search_hotels",
        "Search for hotels and show them as cards",
        |args: Hotels, _| async move {
            Ok(ToolOutput::text(
                hotel_results(Value::from(args.hotels)).tool_result(),
            ))
        },
    );
    let agent = ag_ui::llm::LlmAgent::<()>::new(client, "mock-model").with_tool(tool);
    let events = run(
        agent,
        RunAgentInput::new("t", "r").with_messages(vec![ag_ui::Message::user(
            "u1",
            "Find hotels in downtown Manhattan for next weekend.",
        )]),
    )
    .await;
    let out = through_middleware(&events, json!({}), json!({}));
    let painted = activities(&out);
    assert_eq!(painted.len(), 1);
    assert_eq!(
        painted[0].0,
        format!("a2ui-surface-{}", call_id(&events, "search_hotels"))
    );
    let surface = hotel_results(dojo("search_hotels")["hotels"].clone());
    assert_eq!(
        painted[0].1,
        Value::Object(activity_content(&surface.operations()))
    );
}

#[tokio::test]
async fn a_recovered_generation_is_painted_once_as_the_envelope_after_the_middleware_saw_the_same_finding()
 {
    let (_, events) = recovered(GenerateConfig::default()).await;
    let envelope: Value = serde_json::from_str(&results(&events)[2].1).unwrap();
    let ours: Value = serde_json::from_str(&results(&events)[0].1).unwrap();

    let context = serde_json::to_value(page_context()).unwrap();
    let out = through_middleware(&events, json!({}), json!({"context": context}));
    let id = format!("a2ui-surface-{}", call_id(&events, "generate_a2ui"));
    // One surface, under the generate_a2ui call's id, painted as our envelope: the final
    // envelope is not painted a second time.
    let painted = activities(&out);
    assert_eq!(painted.len(), 1, "{painted:#?}");
    assert_eq!(painted[0].0, id);
    assert_eq!(painted[0].1, envelope);
    assert_eq!(
        envelope["a2ui_operations"][0]["createSurface"]["catalogId"],
        DOJO_CATALOG_ID
    );
    // On the way: building, then retrying with the finding our validator made.
    let shown = snapshots(&out, &id);
    assert_eq!(shown[0], json!({"status": "building"}));
    let retrying = shown
        .iter()
        .find(|c| c["status"] == "retrying")
        .expect("the middleware saw the first attempt fail");
    assert_eq!(retrying["attempt"], 2);
    assert_eq!(retrying["maxAttempts"], 3);
    let theirs: Vec<(&Value, &Value)> = retrying["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (&e["code"], &e["path"]))
        .collect();
    let mine: Vec<(&Value, &Value)> = ours["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (&e["code"], &e["path"]))
        .collect();
    assert_eq!(theirs, mine);
    assert!(
        shown
            .iter()
            .position(|c| c["status"] == "retrying")
            .unwrap()
            < shown
                .iter()
                .position(|c| c.get("a2ui_operations").is_some())
                .unwrap(),
        "retrying before the paint"
    );
}

#[tokio::test]
async fn an_exhausted_generation_is_shown_as_the_middlewares_failure_with_our_attempts() {
    let (_, events) = exhausted(GenerateConfig::default(), 3).await;
    let result: Value = serde_json::from_str(&results(&events)[3].1).unwrap();

    let context = serde_json::to_value(page_context()).unwrap();
    let out = through_middleware(&events, json!({}), json!({"context": context}));
    let painted = activities(&out);
    assert_eq!(painted.len(), 1);
    assert_eq!(
        painted[0].1,
        json!({"status": "failed", "error": result["error"], "attempts": result["attempts"], "maxAttempts": 3})
    );
    // No faulty surface was ever painted.
    assert!(
        out["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["content"].get("a2ui_operations").is_none())
    );
}

#[tokio::test]
async fn a_user_action_reads_the_same_from_forwarded_props_and_from_the_middlewares_messages() {
    let (_, agent) = agent(vec![say("Booked.")], GenerateConfig::default()).await;
    let events = run(agent, input("ok")).await;
    let user_action = json!({
        "name": "book_hotel",
        "surfaceId": "hotel-search-results",
        "sourceComponentId": "hotel-card",
        "timestamp": "2026-01-01T12:00:00.000Z",
        "context": {"hotelName": "The Manhattan Grand", "price": "$350"},
        "dataContextPath": "/hotels/0"
    });
    let forwarded = json!({"a2uiAction": {"userAction": user_action}});
    let out = through_middleware(&events, json!({}), json!({"forwardedProps": forwarded}));
    let mut received: RunAgentInput = serde_json::from_value(out["received"].clone()).unwrap();
    let from_props = UserAction::from_input(&received).unwrap().unwrap();
    // Without forwardedProps, the middleware's log_a2ui_event call says the same.
    received.forwarded_props = None;
    let from_messages = UserAction::from_input(&received).unwrap().unwrap();
    assert_eq!(from_props, from_messages);
    assert_eq!(from_messages.name, "book_hotel");
    assert_eq!(
        from_messages.source_component_id.as_ref().unwrap(),
        "hotel-card"
    );
    assert_eq!(
        from_messages.data_context_path.as_deref(),
        Some("/hotels/0")
    );
    assert_eq!(from_messages.context["price"], "$350");
}
