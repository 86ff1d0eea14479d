//! Surfaces as `a2ui-surface` activity, for clients without the middleware: what an agent
//! shows and grows, and `generate_a2ui` with `emit_activity`, as the client reduces them.

use ag_ui::a2ui::{
    Action, Component, DeleteSurface, Dynamic, GenerateConfig, Surface, SurfaceActivity,
    UpdateDataModel, activity_content,
};
use ag_ui::server::{Agent, Outcome, RunContext, Runner};
use ag_ui::{Event, Message, RunAgentInput, verify};
use futures::StreamExt;
use serde_json::{Value, json};

use super::{dojo, exhausted, recovered, reduce, results};

/// The Dojo's fixed-schema hotel results: a Row repeating a HotelCard per hotel (the card's
/// `pricePerNight` reads the hotel's `price`).
pub(crate) fn hotel_results(hotels: Value) -> Surface {
    Surface::new(
        "hotel-search-results",
        "https://a2ui.org/demos/dojo/fixed_catalog.json",
    )
    .with_component(
        Component::new("root", "Row")
            .with_template("hotel-card", "/hotels")
            .with("gap", 16),
    )
    .with_component(
        Component::new("hotel-card", "HotelCard")
            .with_path("name", "name")
            .with_path("location", "location")
            .with_path("rating", "rating")
            .with_path("pricePerNight", "price")
            .with_action(
                Action::event("book_hotel")
                    .with_context("hotelName", Dynamic::path("name"))
                    .with_context("price", Dynamic::path("price")),
            ),
    )
    .with_data(json!({"hotels": hotels}))
}

struct Shows;

impl Agent for Shows {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> ag_ui::server::Result<Outcome> {
        let surface = hotel_results(dojo("search_hotels")["hotels"].clone());
        surface.validate(None)?;
        let mut shown = SurfaceActivity::show(ctx, surface.operations())?;
        shown.append(
            ctx,
            vec![
                UpdateDataModel::new("hotel-search-results", "/hotels/0/price", json!("$300"))
                    .into(),
            ],
        )?;
        shown.append(ctx, Vec::new())?; // nothing to send
        // A subagent shows its own, attributed to it.
        let sub = ctx.subagent("planner")?;
        let mut own = SurfaceActivity::show(&sub, Surface::new("plan", "c").operations())?;
        own.append(&sub, vec![DeleteSurface::new("plan").into()])?;
        sub.finish()?;
        Ok(Outcome::success())
    }
}

#[tokio::test]
async fn a_surface_shown_and_grown_reduces_to_its_operations_in_order() {
    let events: Vec<Event> = Runner::new(Shows)
        .run(RunAgentInput::new("t", "r"))
        .unwrap()
        .collect()
        .await;
    verify::verify_all(&events).unwrap();
    let activity: Vec<&Event> = events
        .iter()
        .filter(|e| matches!(e, Event::ActivitySnapshot(_) | Event::ActivityDelta(_)))
        .collect();
    assert_eq!(activity.len(), 4);
    let Event::ActivitySnapshot(snapshot) = activity[0] else {
        panic!()
    };
    assert_eq!(snapshot.replace, Some(true));
    assert_eq!(snapshot.subagent_run_id, None);
    let Event::ActivitySnapshot(own) = activity[2] else {
        panic!()
    };
    assert_eq!(own.subagent_run_id.as_ref().unwrap().as_str(), "r-sub-1");

    let surface = hotel_results(dojo("search_hotels")["hotels"].clone());
    let mut expected = surface.operations();
    expected.push(
        UpdateDataModel::new("hotel-search-results", "/hotels/0/price", json!("$300")).into(),
    );
    let messages = reduce(&events);
    let activities: Vec<_> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Activity(a) => Some(a),
            _ => None,
        })
        .collect();
    assert_eq!(activities.len(), 2);
    assert_eq!(activities[0].activity_type, "a2ui-surface");
    assert_eq!(activities[0].content, activity_content(&expected));
    assert_eq!(
        activities[1].content["a2ui_operations"][1],
        json!({"version": "v0.9", "deleteSurface": {"surfaceId": "plan"}})
    );
}

/// Every content an activity message took, in order.
fn contents(events: &[Event], id: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for event in events {
        if let Event::ActivitySnapshot(s) = event
            && s.message_id.as_str() == id
        {
            assert_eq!(s.activity_type, "a2ui-surface");
            out.push(Value::Object(s.content.clone()));
        }
    }
    out
}

#[tokio::test]
async fn generate_a2ui_with_emit_activity_shows_building_retrying_and_the_surface() {
    let (_, events) = recovered(GenerateConfig::default().with_emit_activity(true)).await;
    let generate = events
        .iter()
        .find_map(|e| match e {
            Event::ToolCallStart(s) if s.tool_call_name == "generate_a2ui" => {
                Some(s.tool_call_id.clone())
            }
            _ => None,
        })
        .unwrap();
    let id = format!("a2ui-surface-{generate}");
    let shown = contents(&events, &id);
    assert_eq!(shown.len(), 3);
    assert_eq!(shown[0], json!({"status": "building"}));
    assert_eq!(shown[1]["status"], "retrying");
    assert_eq!(shown[1]["attempt"], 2);
    assert_eq!(shown[1]["maxAttempts"], 3);
    assert_eq!(shown[1]["errors"][0]["code"], "unresolved_child");
    let envelope: Value = serde_json::from_str(&results(&events)[2].1).unwrap();
    assert_eq!(shown[2], envelope);
    // The client holds the painted surface under that id.
    let messages = reduce(&events);
    let painted = messages
        .iter()
        .find_map(|m| match m {
            Message::Activity(a) if a.id.as_str() == id => Some(a),
            _ => None,
        })
        .unwrap();
    assert_eq!(Value::Object(painted.content.clone()), envelope);
}

#[tokio::test]
async fn generate_a2ui_with_emit_activity_shows_the_failure_when_attempts_run_out() {
    let config = GenerateConfig::default()
        .with_emit_activity(true)
        .with_max_attempts(2);
    let (_, events) = exhausted(config, 2).await;
    let messages = reduce(&events);
    let failed = messages
        .iter()
        .find_map(|m| match m {
            Message::Activity(a) => Some(Value::Object(a.content.clone())),
            _ => None,
        })
        .unwrap();
    let exhausted: Value = serde_json::from_str(&results(&events)[2].1).unwrap();
    assert_eq!(
        failed,
        json!({"status": "failed", "error": exhausted["error"], "attempts": exhausted["attempts"], "maxAttempts": 2})
    );
}
