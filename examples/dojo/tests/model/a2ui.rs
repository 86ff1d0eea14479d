//! The four A2UI routes through this crate's client, against the Dojo's A2UI fixtures
//! (`interop/aimock/fixtures/ours/a2ui.json`): the surfaces each run sends in its tool results
//! (what `@ag-ui/a2ui-middleware` paints), the sub-agent's streamed `render_a2ui` calls and
//! their verdicts, what the models received, and the conversation each run leaves.

use ag_ui::a2ui::{
    Catalog, Envelope, Operation, RECOVERY_EXHAUSTED_CODE, SCHEMA_CONTEXT_DESCRIPTION,
    ValidateConfig,
};
use ag_ui::client::Conversation;
use ag_ui::{Context, Event, EventType, Message};
use ag_ui_dojo::Pace;
use ag_ui_dojo::model::{a2ui_dynamic_schema, a2ui_fixed_schema};
use serde_json::{Value, json};

use super::aimock::aimock;
use super::client::{DONE, Recorded, last_text, turn};
use super::dojo;

/// The page's catalog as CopilotKit sends it with every run (`@copilotkit/a2ui-renderer`'s
/// inline form): the components of the Dojo's dynamic catalog, each with the properties it
/// requires (what `interop/copilotkit/a2ui.jsx` declares).
fn page_catalog() -> Value {
    let component = |name: &str, required: &[&str]| {
        let properties: serde_json::Map<String, Value> = required
            .iter()
            .map(|p| ((*p).to_owned(), json!({})))
            .chain([("component".to_owned(), json!({"const": name}))])
            .collect();
        let mut needed = vec!["component"];
        needed.extend_from_slice(required);
        json!({"allOf": [
            {"$ref": "common_types.json#/$defs/ComponentCommon"},
            {"properties": properties, "required": needed}
        ]})
    };
    json!({
        "catalogId": a2ui_dynamic_schema::CATALOG_ID,
        "components": {
            "Row": component("Row", &["children"]),
            "HotelCard": component("HotelCard", &["name", "location", "rating", "pricePerNight", "action"]),
            "ProductCard": component("ProductCard", &["name", "price", "rating", "description", "action"]),
            "TeamMemberCard": component("TeamMemberCard", &["name", "role", "department", "email", "action"]),
        }
    })
}

/// A conversation on a page that registers the Dojo's dynamic catalog.
fn page_conversation(thread: &str) -> Conversation {
    let catalog = page_catalog();
    Catalog::from_json(&catalog).expect("the page's catalog reads");
    Conversation::new(thread).with_context(vec![Context::new(
        SCHEMA_CONTEXT_DESCRIPTION,
        catalog.to_string(),
    )])
}

/// The results of the run's tool calls, by the name of the call, in order.
fn results(events: &Recorded) -> Vec<(String, String)> {
    events
        .0
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallResult(r) => {
                let name = events.0.iter().find_map(|s| match s {
                    Event::ToolCallStart(s) if s.tool_call_id == r.tool_call_id => {
                        Some(s.tool_call_name.clone())
                    }
                    _ => None,
                })?;
                Some((name, r.content.flatten()))
            }
            _ => None,
        })
        .collect()
}

/// The surface a tool result carries: its operations, checked as A2UI.
fn surface(result: &str) -> Vec<Operation> {
    let envelope: Envelope =
        serde_json::from_str(result).unwrap_or_else(|e| panic!("{e}: {result}"));
    envelope.validate(None, &ValidateConfig::default()).unwrap();
    envelope.operations
}

/// The surface's id, catalog and data, read from its operations.
fn created(ops: &[Operation]) -> (String, String, Value) {
    let ops = serde_json::to_value(ops).unwrap();
    let create = &ops[0]["createSurface"];
    let data = ops
        .as_array()
        .unwrap()
        .iter()
        .find_map(|op| op.get("updateDataModel"))
        .map(|update| update["value"].clone())
        .unwrap_or(Value::Null);
    (
        create["surfaceId"].as_str().unwrap().to_owned(),
        create["catalogId"].as_str().unwrap().to_owned(),
        data,
    )
}

/// The names in a surface's data (`items` or `key`), in order.
fn names(data: &Value, key: &str) -> Vec<String> {
    data[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key}: {data}"))
        .iter()
        .map(|item| {
            item.get("flightNumber")
                .or_else(|| item.get("name"))
                .and_then(Value::as_str)
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// The requests the model received saying `text` in their last user message and declaring
/// the tool `tool`, oldest first.
async fn requests_with(text: &str, tool: &str) -> Vec<Value> {
    aimock()
        .requests()
        .await
        .into_iter()
        .filter(|body| {
            let said = body["messages"]
                .as_array()
                .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
                .is_some_and(|m| m.to_string().contains(text));
            let declared = body["tools"]
                .as_array()
                .is_some_and(|t| t.iter().any(|t| t["function"]["name"] == tool));
            said && declared
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a2ui_fixed_schema_returns_the_flights_then_the_hotels_surface() {
    let base = dojo(Pace::INSTANT, None).await;
    let mut chat = Conversation::new("fixed");
    chat.add_user_message("Find flights from SFO to JFK for next Tuesday.");
    let (_, events) = turn(&mut chat, &base, "a2ui_fixed_schema").await;
    let [(name, result)] = &results(&events)[..] else {
        panic!("{:?}", results(&events))
    };
    assert_eq!(name, "search_flights");
    let ops = surface(result);
    let (id, catalog, data) = created(&ops);
    assert_eq!(id, a2ui_fixed_schema::FLIGHTS_SURFACE);
    assert_eq!(catalog, a2ui_fixed_schema::CATALOG_ID);
    assert_eq!(names(&data, "flights"), ["UA 123", "DL 456"]);
    assert_eq!(data["flights"][0]["price"], "$289");
    // The layout is the author's: the row repeats a FlightCard over /flights.
    let layout = serde_json::to_value(&ops[1]).unwrap();
    assert_eq!(
        layout["updateComponents"]["components"][0]["children"],
        json!({"componentId": "flight-card", "path": "/flights"})
    );
    assert_eq!(
        layout["updateComponents"]["components"][1]["component"],
        "FlightCard"
    );
    assert_eq!(last_text(&chat), Some(DONE));

    // A second surface in the same conversation.
    chat.add_user_message("Find hotels in downtown Manhattan for next weekend.");
    let (_, events) = turn(&mut chat, &base, "a2ui_fixed_schema").await;
    let [(name, result)] = &results(&events)[..] else {
        panic!("{:?}", results(&events))
    };
    assert_eq!(name, "search_hotels");
    let (id, _, data) = created(&surface(result));
    assert_eq!(id, a2ui_fixed_schema::HOTELS_SURFACE);
    assert_eq!(
        names(&data, "hotels"),
        ["The Manhattan Grand", "Downtown Boutique Hotel"]
    );
    assert_eq!(data["hotels"][0]["rating"], 4.5);
    let roles: Vec<&str> = chat.messages().iter().map(|m| m.role().as_str()).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "tool",
            "assistant",
            "user",
            "assistant",
            "tool",
            "assistant"
        ]
    );
    assert_eq!(last_text(&chat), Some(DONE));

    // The model was given the two tools and the prompt.
    let request = &requests_with("Find hotels", "search_hotels").await[0];
    assert_eq!(
        request["messages"][0]["content"],
        a2ui_fixed_schema::SYSTEM_PROMPT
    );
    let tools: Vec<&str> = request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["search_flights", "search_hotels"]);
}

/// One generated surface on `route`: the run's tool results are the sub-agent's verdicts
/// (`render_a2ui`), then `generate_a2ui`'s surface; returns the surface's id, catalog and
/// data, and the run's events.
async fn generated(route: &str, prompt: &str) -> ((String, String, Value), Recorded) {
    let base = dojo(Pace::INSTANT, None).await;
    let mut chat = page_conversation(route);
    chat.add_user_message(prompt);
    let (_, events) = turn(&mut chat, &base, route).await;
    let results = results(&events);
    let [(render, verdict), (generate, result)] = &results[..] else {
        panic!("{route}: {results:?}")
    };
    assert_eq!(
        (render.as_str(), verdict.as_str()),
        ("render_a2ui", r#"{"status":"rendered"}"#)
    );
    assert_eq!(generate, "generate_a2ui");
    // The render_a2ui call streamed in pieces (the middleware paints as they come), inside
    // the generate_a2ui call's span.
    let args = events
        .0
        .iter()
        .filter(|e| e.event_type() == EventType::ToolCallArgs)
        .count();
    assert!(args > 3, "{route}: {:?}", events.types());
    assert_eq!(last_text(&chat), Some(DONE), "{route}");
    // The conversation holds each call answered: the planner's, the sub-agent's, then the
    // planner's closing words.
    let shape: Vec<String> = chat
        .messages()
        .iter()
        .map(|m| match m {
            Message::Assistant(a) => match a.tool_calls.as_deref() {
                Some([call]) => format!("call {} {}", call.function.name, call.id.as_str()),
                _ => "assistant".to_owned(),
            },
            Message::Tool(t) => format!("result {}", t.tool_call_id.as_str()),
            other => other.role().as_str().to_owned(),
        })
        .collect();
    let [user, generate, generated, render, rendered, closing] = &shape[..] else {
        panic!("{route}: {shape:?}")
    };
    assert_eq!((user.as_str(), closing.as_str()), ("user", "assistant"));
    for (call, result, name) in [
        (generate, generated, "generate_a2ui"),
        (render, rendered, "render_a2ui"),
    ] {
        let id = call
            .strip_prefix(&format!("call {name} "))
            .unwrap_or_else(|| panic!("{route}: {shape:?}"));
        assert_eq!(result, &format!("result {id}"), "{route}: {shape:?}");
    }
    ((created(&surface(result))), events)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a2ui_dynamic_schema_generates_the_hotel_product_and_team_surfaces() {
    let cases = [
        (
            "Use the generate_a2ui tool to create a comparison of 3 hotels with name, location, price per night, and star rating using the StarRating component.",
            "hotel-comparison",
            vec!["The Ritz", "Holiday Inn", "Boutique Loft"],
        ),
        (
            "Use the generate_a2ui tool to create a product comparison of 3 headphones with name, price, rating, a short description, and a Select button on each card.",
            "product-comparison",
            vec!["Sony WH-1000XM5", "AirPods Max", "Bose QC Ultra"],
        ),
        (
            "Use the generate_a2ui tool to create a team roster with 4 people showing name, role, avatar, and email.",
            "team-roster",
            vec!["Alice Chen", "Bob Martinez", "Carol Davis", "Dan Wilson"],
        ),
    ];
    for (prompt, surface_id, items) in cases {
        let ((id, catalog, data), _) = generated("a2ui_dynamic_schema", prompt).await;
        assert_eq!(id, surface_id);
        assert_eq!(catalog, a2ui_dynamic_schema::CATALOG_ID);
        assert_eq!(names(&data, "items"), items);
    }
    let ((_, _, data), _) = generated(
        "a2ui_dynamic_schema",
        "Use the generate_a2ui tool to create a comparison of 3 hotels, again.",
    )
    .await;
    assert_eq!(data["items"][0]["pricePerNight"], "$450/night");

    // The planner had generate_a2ui and its prompt; the sub-agent only render_a2ui, forced,
    // with the route's guide and the page's catalog in its prompt.
    let planner = &requests_with("product comparison", "generate_a2ui").await[0];
    assert_eq!(
        planner["messages"][0]["content"],
        a2ui_dynamic_schema::PLANNER_PROMPT
    );
    let sub = &requests_with("product comparison", "render_a2ui").await[0];
    assert_eq!(sub["tools"].as_array().unwrap().len(), 1);
    assert_eq!(sub["tool_choice"]["function"]["name"], "render_a2ui");
    let system = sub["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("## Composing these components"), "{system}");
    assert!(system.contains("TeamMemberCard"), "{system}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a2ui_advanced_generates_from_the_pages_catalog() {
    let ((id, catalog, data), _) = generated(
        "a2ui_advanced",
        "Create a comparison of 3 hotels with name, location, price per night, and star rating using the StarRating component.",
    )
    .await;
    assert_eq!(id, "hotel-comparison");
    // Nothing configured on the server: the catalog is the page's.
    assert_eq!(catalog, a2ui_dynamic_schema::CATALOG_ID);
    assert_eq!(
        names(&data, "items"),
        ["The Ritz", "Holiday Inn", "Boutique Loft"]
    );
    let ((id, _, data), _) = generated(
        "a2ui_advanced",
        "Create a team directory with 4 people showing name, role, department, and a Contact button.",
    )
    .await;
    assert_eq!(id, "team-roster");
    assert_eq!(data["items"].as_array().unwrap().len(), 4);
    // The sub-agent was told the page's catalog, as the page sent it, and no guide.
    let sub = &requests_with("team directory", "render_a2ui").await[0];
    let system = sub["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("HotelCard") && system.contains("pricePerNight"));
    assert!(!system.contains("## Composing these components"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a2ui_recovery_recovers_from_an_invalid_surface() {
    let base = dojo(Pace::INSTANT, None).await;
    let mut chat = page_conversation("recover");
    chat.add_user_message("Compare 3 luxury hotels with ratings and prices.");
    let (_, events) = turn(&mut chat, &base, "a2ui_recovery").await;
    let results = results(&events);
    let [(first, invalid), (second, rendered), (generate, result)] = &results[..] else {
        panic!("{results:?}")
    };
    assert_eq!(
        (first.as_str(), second.as_str()),
        ("render_a2ui", "render_a2ui")
    );
    let invalid: Value = serde_json::from_str(invalid).unwrap();
    assert_eq!(invalid["status"], "invalid");
    assert_eq!(invalid["errors"][0]["code"], "unresolved_child");
    assert!(
        invalid["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("card")
    );
    assert_eq!(rendered, r#"{"status":"rendered"}"#);
    assert_eq!(generate, "generate_a2ui");
    let (id, _, data) = created(&surface(result));
    assert_eq!(id, "hotel-comparison");
    assert_eq!(
        names(&data, "items"),
        ["The Ritz", "Holiday Inn", "Boutique Loft"]
    );
    assert_eq!(last_text(&chat), Some(DONE));
    // The second attempt was asked with what was wrong with the first.
    let attempts = requests_with("luxury hotels", "render_a2ui").await;
    let system = |r: &Value| r["messages"][0]["content"].as_str().unwrap().to_owned();
    assert!(!system(&attempts[attempts.len() - 2]).contains("Previous attempt was invalid"));
    let retry = system(&attempts[attempts.len() - 1]);
    assert!(retry.contains("Previous attempt was invalid") && retry.contains("unresolved_child"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a2ui_recovery_exhausts_its_attempts_and_the_conversation_goes_on() {
    let base = dojo(Pace::INSTANT, None).await;
    let mut chat = page_conversation("exhaust");
    chat.add_user_message("Compare 3 broken hotels with ratings and prices.");
    let (_, events) = turn(&mut chat, &base, "a2ui_recovery").await;
    let results = results(&events);
    // Three attempts, the contract the middleware and the other SDKs' toolkits share.
    let max = 3;
    assert_eq!(ag_ui_dojo::model::a2ui_recovery::MAX_ATTEMPTS, 3);
    assert_eq!(results.len(), max + 1, "{results:?}");
    for (name, verdict) in &results[..max] {
        assert_eq!(name, "render_a2ui");
        assert!(verdict.starts_with(r#"{"status":"invalid""#), "{verdict}");
    }
    let (generate, failure) = &results[max];
    assert_eq!(generate, "generate_a2ui");
    let failure: Value = serde_json::from_str(failure).unwrap();
    assert_eq!(failure["code"], RECOVERY_EXHAUSTED_CODE);
    assert_eq!(failure["attempts"].as_array().unwrap().len(), max);
    assert!(
        failure["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["ok"] == false)
    );
    assert!(
        failure.get("a2ui_operations").is_none(),
        "no surface: {failure}"
    );
    assert_eq!(last_text(&chat), Some(DONE));

    chat.add_user_message("Thanks anyway.");
    let (_, events) = turn(&mut chat, &base, "a2ui_recovery").await;
    assert!(!events.types().contains(&EventType::ToolCallStart));
    assert!(last_text(&chat).unwrap().starts_with("You're welcome!"));
    assert!(matches!(
        chat.messages().last(),
        Some(Message::Assistant(_))
    ));
}
