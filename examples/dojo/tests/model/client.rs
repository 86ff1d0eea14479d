//! Every model-driven route through this crate's client (`HttpAgent` and `Conversation`, over
//! a real socket): the events each run sends (verified by the client's pipeline on the way),
//! the messages and state a conversation ends with, and what the model received.

use std::path::PathBuf;

use ag_ui::client::{Conversation, Flow, HttpAgent, Reducer, RunEnd, RunSummary, Subscriber};
use ag_ui::{
    Content, ContentPart, Event, EventType, MediaPart, Message, PartSource, Tool, ToolCallId,
};
use ag_ui_dojo::Pace;
use ag_ui_dojo::model::{
    agentic_generative_ui, backend_tool_rendering, predictive_state_updates, shared_state,
};
use serde_json::{Value, json};

use super::aimock::aimock;
use super::dojo;

/// The answer of the Dojo's mock to a turn that carries a tool's result.
pub(super) const DONE: &str = "Done! I've completed that for you.";

/// Every event of a run, as the client verified it.
#[derive(Default)]
pub(super) struct Recorded(pub(super) Vec<Event>);

impl Subscriber for Recorded {
    fn on_event(&mut self, event: &Event, _: &Reducer) -> Flow {
        self.0.push(event.clone());
        Flow::Continue
    }
}

impl Recorded {
    pub(super) fn types(&self) -> Vec<EventType> {
        self.0.iter().map(Event::event_type).collect()
    }
}

/// One run of `conversation` on `route`: its summary and its events.
pub(super) async fn turn(
    conversation: &mut Conversation,
    base: &str,
    route: &str,
) -> (RunSummary, Recorded) {
    let agent = HttpAgent::new(format!("{base}/{route}"));
    let mut recorded = Recorded::default();
    let summary = conversation
        .run(&agent, &mut recorded)
        .await
        .unwrap_or_else(|e| panic!("{route}: {e}"));
    assert_eq!(summary.end, RunEnd::Finished, "{route}");
    (summary, recorded)
}

/// The text of the conversation's last message.
pub(super) fn last_text(conversation: &Conversation) -> Option<&str> {
    conversation.messages().last().and_then(Message::text)
}

/// The one tool call pending after a run: its name and parsed arguments.
fn pending_call(conversation: &Conversation) -> (String, Value) {
    let [id] = conversation.pending_tool_calls() else {
        panic!("one call pending: {:?}", conversation.pending_tool_calls());
    };
    let call = conversation
        .messages()
        .iter()
        .find_map(|m| match m {
            Message::Assistant(a) => a.tool_calls.iter().flatten().find(|c| &c.id == id),
            _ => None,
        })
        .expect("the pending call is in the conversation");
    (
        call.function.name.clone(),
        serde_json::from_str(&call.function.arguments).unwrap(),
    )
}

/// A frontend tool the page declares; its handler answers `result`.
fn page_tool(conversation: &mut Conversation, name: &str, result: Value) {
    conversation.register_tool(
        Tool::new(name, format!("the page's {name}"))
            .with_parameters(json!({"type": "object", "properties": {}})),
        move |_| Ok(result.to_string()),
    );
}

/// The last request the model received whose last user message says `text`.
async fn request_for(text: &str) -> Value {
    aimock()
        .requests()
        .await
        .into_iter()
        .rev()
        .find(|body| {
            body["messages"]
                .as_array()
                .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
                .is_some_and(|m| m.to_string().contains(text))
        })
        .unwrap_or_else(|| panic!("the model received no request saying {text:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agentic_chat_answers_and_calls_the_pages_tool() {
    let base = dojo(Pace::INSTANT, None).await;
    let mut chat = Conversation::new("chat");
    page_tool(&mut chat, "change_background", json!({"status": "success"}));

    chat.add_user_message("Hi, I am duaa");
    let (_, events) = turn(&mut chat, &base, "agentic_chat").await;
    assert_eq!(
        last_text(&chat),
        Some("Hello duaa! How can I assist you today?")
    );
    assert!(events.types().contains(&EventType::TextMessageContent));

    chat.add_user_message("Change the background color to blue");
    let (summary, events) = turn(&mut chat, &base, "agentic_chat").await;
    assert!(!events.types().contains(&EventType::TextMessageStart));
    assert_eq!(
        pending_call(&chat),
        (
            "change_background".to_owned(),
            json!({"background": "blue"})
        )
    );
    assert!(summary.outcome.is_some());
    assert_eq!(chat.run_tools(), 1);
    turn(&mut chat, &base, "agentic_chat").await;
    assert_eq!(last_text(&chat), Some(DONE));

    // The model got the page's tool and the feature's prompt.
    let request = request_for("background color to blue").await;
    assert_eq!(request["model"], super::aimock::MODEL);
    assert_eq!(
        request["messages"][0]["content"],
        ag_ui_dojo::model::agentic_chat::SYSTEM_PROMPT
    );
    assert_eq!(request["tools"][0]["function"]["name"], "change_background");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backend_tool_rendering_runs_get_weather_and_sends_its_result() {
    let base = dojo(Pace::INSTANT, None).await;
    let mut chat = Conversation::new("weather");
    chat.add_user_message("What's the weather in San Francisco?");
    let (_, events) = turn(&mut chat, &base, "backend_tool_rendering").await;

    let Some(Event::ToolCallResult(result)) = events
        .0
        .iter()
        .find(|e| e.event_type() == EventType::ToolCallResult)
    else {
        panic!("no TOOL_CALL_RESULT: {:?}", events.types())
    };
    let weather: backend_tool_rendering::Weather =
        serde_json::from_str(result.content.flatten().as_str()).unwrap();
    assert_eq!(weather, backend_tool_rendering::weather("x").unwrap());
    let result_json: Value = serde_json::from_str(&result.content.flatten()).unwrap();
    for field in [
        "temperature",
        "conditions",
        "humidity",
        "wind_speed",
        "feelsLike",
    ] {
        assert!(result_json.get(field).is_some(), "{field}: {result_json}");
    }
    // The call, its result, then the model's words about it.
    let roles: Vec<&str> = chat.messages().iter().map(|m| m.role().as_str()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
    let Message::Assistant(call) = &chat.messages()[1] else {
        unreachable!()
    };
    let call = &call.tool_calls.as_ref().unwrap()[0];
    assert_eq!(call.function.name, "get_weather");
    assert_eq!(call.function.arguments, r#"{"location":"San Francisco"}"#);
    assert_eq!(last_text(&chat), Some(DONE));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn human_in_the_loop_waits_for_the_persons_choice_then_goes_on() {
    let base = dojo(Pace::INSTANT, None).await;
    let mut chat = Conversation::new("hitl");
    page_tool(
        &mut chat,
        "generate_task_steps",
        json!({"accepted": true, "steps": [{"description": "Assemble crew", "status": "enabled"}]}),
    );
    chat.add_user_message("Plan a trip to mars");
    let (summary, _) = turn(&mut chat, &base, "human_in_the_loop").await;
    let (name, args) = pending_call(&chat);
    assert_eq!(name, "generate_task_steps");
    let steps: Vec<&str> = args["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["description"].as_str().unwrap())
        .collect();
    assert_eq!(
        steps,
        [
            "Research mission requirements",
            "Assemble crew",
            "Build spacecraft",
            "Launch from Earth",
            "Land on Mars"
        ]
    );
    assert!(
        matches!(&summary.outcome, Some(o) if format!("{o:?}").contains("pending")),
        "{:?}",
        summary.outcome
    );
    chat.run_tools();
    turn(&mut chat, &base, "human_in_the_loop").await;
    assert_eq!(last_text(&chat), Some(DONE));
    // The person's answer reached the model.
    let request = request_for("trip to mars").await;
    let last = request["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["role"], "tool");
    assert!(last["content"].as_str().unwrap().contains("Assemble crew"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agentic_generative_ui_completes_the_plans_steps_in_the_state() {
    let base = dojo(Pace::INSTANT, None).await;
    let mut chat = Conversation::new("plan");
    chat.add_user_message("Go to Mars");
    let (_, events) = turn(&mut chat, &base, "agentic_generative_ui").await;

    // A snapshot of the pending plan, then one delta per completed step, before the result.
    let states: Vec<&Event> = events
        .0
        .iter()
        .filter(|e| {
            matches!(
                e.event_type(),
                EventType::StateSnapshot | EventType::StateDelta
            )
        })
        .collect();
    let Event::StateSnapshot(first) = states[0] else {
        panic!("{states:?}")
    };
    let pending: Vec<&str> = first.snapshot["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(pending, ["pending"; 4]);
    assert_eq!(states.len(), 5, "{states:?}");
    for (i, delta) in states[1..].iter().enumerate() {
        let Event::StateDelta(delta) = delta else {
            panic!("{delta:?}")
        };
        assert_eq!(
            serde_json::to_value(&delta.delta).unwrap(),
            json!([{"op": "replace", "path": format!("/steps/{i}/status"), "value": "completed"}])
        );
    }
    let types = events.types();
    let result = types
        .iter()
        .position(|t| *t == EventType::ToolCallResult)
        .unwrap();
    assert!(
        types
            .iter()
            .rposition(|t| *t == EventType::StateDelta)
            .unwrap()
            < result
    );

    let state: agentic_generative_ui::PlanState =
        serde_json::from_value(chat.state().clone()).unwrap();
    assert_eq!(
        state.steps[0].description,
        "Design and build a spacecraft capable of Mars transit"
    );
    assert!(
        state
            .steps
            .iter()
            .all(|s| s.status == agentic_generative_ui::StepStatus::Completed)
    );
    assert_eq!(last_text(&chat), Some(DONE));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_based_generative_ui_calls_the_pages_haiku_tool() {
    let base = dojo(Pace::INSTANT, None).await;
    let mut chat = Conversation::new("haiku");
    page_tool(&mut chat, "generate_haiku", json!("Haiku generated."));
    chat.add_user_message("Write a haiku: I will always win");
    turn(&mut chat, &base, "tool_based_generative_ui").await;
    let (name, haiku) = pending_call(&chat);
    assert_eq!(name, "generate_haiku");
    assert_eq!(haiku["english"][1], "I will always keep walking");
    assert_eq!(haiku["japanese"].as_array().unwrap().len(), 3);
    chat.run_tools();
    turn(&mut chat, &base, "tool_based_generative_ui").await;
    assert_eq!(last_text(&chat), Some(DONE));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_state_writes_the_recipe_and_reads_the_pages_edits_back() {
    let base = dojo(Pace::INSTANT, None).await;
    // The page's initial state, as the Dojo's page sets it.
    let initial = json!({"recipe": {
        "title": "Make Your Recipe", "skill_level": "Intermediate", "cooking_time": "45 min",
        "special_preferences": [],
        "ingredients": [{"icon": "🥕", "name": "Carrots", "amount": "3 large, grated"}],
        "instructions": ["Preheat oven to 350°F (175°C)"]}});
    let mut chat = Conversation::new("recipe").with_state(initial);
    chat.add_user_message("Create a delicious Italian pasta recipe.");
    let (_, events) = turn(&mut chat, &base, "shared_state").await;
    // The whole recipe changed: a snapshot, which is smaller than the patch.
    assert!(events.types().contains(&EventType::StateSnapshot));
    let state: shared_state::RecipeState = serde_json::from_value(chat.state().clone()).unwrap();
    let recipe = state.recipe.unwrap();
    assert_eq!(recipe.title, "Pasta Aglio e Olio");
    assert_eq!(recipe.ingredients.len(), 5);
    assert_eq!(last_text(&chat), Some(DONE));

    // The person adds an ingredient in the page; the next run's model sees it.
    let mut edited = chat.state().clone();
    edited["recipe"]["ingredients"]
        .as_array_mut()
        .unwrap()
        .push(json!({"icon": "🌿", "name": "Basil", "amount": "a handful"}));
    let mut chat = Conversation::new("recipe")
        .with_messages(chat.messages().to_vec())
        .with_state(edited);
    chat.add_user_message("Tell me the ingredients");
    turn(&mut chat, &base, "shared_state").await;
    assert!(
        last_text(&chat)
            .unwrap()
            .starts_with("Here are the ingredients")
    );
    let request = request_for("Tell me the ingredients").await;
    let context = request["messages"][1]["content"].as_str().unwrap();
    assert!(
        context.starts_with("The application's current state (JSON):") && context.contains("Basil"),
        "the model was shown the page's edit: {context}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn predictive_state_updates_stream_the_document_into_the_state_then_ask_to_confirm() {
    let base = dojo(Pace::INSTANT, None).await;
    let mut chat = Conversation::new("story");
    page_tool(&mut chat, "confirm_changes", json!({"accepted": true}));
    chat.add_user_message("Write a story about a dragon called Atlantis");
    let (summary, events) = turn(&mut chat, &base, "predictive_state_updates").await;

    let Some(Event::Custom(predict)) = events.0.get(1) else {
        panic!("PredictState first: {:?}", events.types())
    };
    assert_eq!(predict.name, "PredictState");
    assert_eq!(
        predict.value,
        json!([{"state_key": "document", "tool": "write_document_local", "tool_argument": "document"}])
    );
    // The document grows in the state while the arguments stream, before the call ends.
    let end = events
        .0
        .iter()
        .position(|e| e.event_type() == EventType::ToolCallEnd)
        .unwrap();
    let drafts: Vec<String> = events.0[..end]
        .iter()
        .filter_map(|e| match e {
            Event::StateDelta(d) => serde_json::to_value(&d.delta).unwrap()[0]["value"]
                .as_str()
                .map(str::to_owned),
            _ => None,
        })
        .collect();
    assert!(drafts.len() > 5, "{drafts:?}");
    assert!(
        drafts
            .windows(2)
            .all(|w| w[1].starts_with(&w[0]) && w[1].len() > w[0].len())
    );
    let document = chat.state()["document"].as_str().unwrap().to_owned();
    assert_eq!(drafts.last(), Some(&document));
    assert!(document.starts_with("Once upon a time") && document.contains("Atlantis"));

    let tools: Vec<(&str, &str)> = events
        .0
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallResult(r) => Some(("result", r.tool_call_id.as_str())),
            Event::ToolCallStart(s) => Some((s.tool_call_name.as_str(), s.tool_call_id.as_str())),
            _ => None,
        })
        .collect();
    let [
        ("write_document_local", write),
        ("result", answered),
        ("confirm_changes", confirm),
    ] = tools[..]
    else {
        panic!("{tools:?}")
    };
    assert_eq!(write, answered);
    assert!(events.0.contains(&Event::tool_call_result(
        chat.messages()[2].id().clone(),
        write,
        predictive_state_updates::DOCUMENT_WRITTEN
    )));
    assert_eq!(chat.pending_tool_calls(), [ToolCallId::new(confirm)]);
    assert!(format!("{:?}", summary.outcome).contains(confirm));

    chat.run_tools();
    turn(&mut chat, &base, "predictive_state_updates").await;
    assert_eq!(last_text(&chat), Some(DONE));
    assert_eq!(
        chat.state()["document"],
        document,
        "the document stays once confirmed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agentic_chat_reasoning_streams_the_thought_then_the_answer() {
    let base = dojo(Pace::INSTANT, None).await;
    let mut chat = Conversation::new("think");
    chat.add_user_message("What is the best car to buy?");
    let (_, events) = turn(&mut chat, &base, "agentic_chat_reasoning").await;
    let types = events.types();
    let thought = types
        .iter()
        .position(|t| *t == EventType::ReasoningMessageContent)
        .expect("the reasoning streams");
    let answer = types
        .iter()
        .position(|t| *t == EventType::TextMessageContent)
        .expect("the answer streams");
    assert!(thought < answer);
    assert!(types.contains(&EventType::ReasoningStart) && types.contains(&EventType::ReasoningEnd));
    let roles: Vec<&str> = chat.messages().iter().map(|m| m.role().as_str()).collect();
    assert_eq!(roles, ["user", "reasoning", "assistant"]);
    assert!(
        chat.messages()[1]
            .text()
            .unwrap()
            .starts_with("The user wants a car recommendation.")
    );
    assert!(last_text(&chat).unwrap().contains("Toyota Camry"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agentic_chat_multimodal_sends_the_image_to_the_model() {
    let base = dojo(Pace::INSTANT, None).await;
    let image = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../interop/aimock/fixtures/red-square.png.b64"),
    )
    .unwrap();
    let image = image.trim().to_owned();
    let mut chat = Conversation::new("look");
    chat.add_message(Message::user(
        "look-1",
        Content::Parts(vec![
            ContentPart::text("Tell me what do you see in this image"),
            ContentPart::Image(MediaPart::new(PartSource::Data {
                value: image.clone(),
                mime_type: "image/png".into(),
            })),
        ]),
    ));
    turn(&mut chat, &base, "agentic_chat_multimodal").await;
    assert!(
        last_text(&chat)
            .unwrap()
            .starts_with("I can see the image you've shared.")
    );
    // The model got the text and the image as Chat Completions content parts.
    let request = request_for("what do you see in this image").await;
    let user = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap();
    assert_eq!(
        user["content"],
        json!([
            {"type": "text", "text": "Tell me what do you see in this image"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{image}")}}
        ])
    );
}
