//! Every model-driven route behind the CopilotKit app of `interop/copilotkit` in Chromium (its
//! runtime's agents are `HttpAgent`s of `@ag-ui/client` 0.0.59, which send no
//! `protocolVersion`), the model the Dojo's mock: what a person sees on each page, in one
//! browser session. The routes name 0.0.57 as their oldest client, so the reasoning page shows
//! the model's thought; the same page in front of routes that name none shows no thought (the
//! downgrade's `THINKING_*`, which no pre-1.0 client keeps).

use ag_ui::server::downgrade::ClientVersion;
use ag_ui_dojo::Pace;
use fantoccini::{Client, Locator};
use serde_json::Value;

use super::aimock::aimock;
use super::browser::{js, skip_without_browser, with_browser};
use super::copilotkit::{
    REPLIES, answer_changes, app, click, idle, open, screenshot, send, texts, wait_for,
    wait_for_reply,
};
use super::dojo;

/// The mock's answer to a turn that carries a tool's result.
const DONE: &str = "Done! I've completed that for you.";

/// The pace of the plan's steps: 0.3 s each, slow enough to watch them complete one by one.
const WATCHED: f64 = 0.3;

/// The last request the model received whose user message says `text`.
async fn model_request(text: &str) -> Value {
    aimock()
        .requests()
        .await
        .into_iter()
        .rev()
        .find(|body| body["messages"].to_string().contains(text))
        .unwrap_or_else(|| panic!("the model received no request saying {text:?}"))
}

async fn agentic_chat(client: &Client, page: &str) {
    open(client, page, "agentic_chat").await;
    send(client, "Hi, I am duaa").await;
    wait_for_reply(client, "Hello duaa! How can I assist you today?", 1).await;
    // The page's frontend tool, called by the model, paints the page; then the follow-up.
    send(client, "Change the background color to blue").await;
    wait_for_reply(client, DONE, 1).await;
    let background = "getComputedStyle(document.querySelector('[data-testid=\"background\"]'))\
                      .backgroundColor";
    assert_eq!(js(client, background).await, "rgb(0, 0, 255)");
    screenshot(client, "model-agentic_chat").await;
}

/// The Dojo's v1 page (CopilotKit's v1 provider and `@copilotkit/react-ui`'s chat) on the
/// `agentic_chat` route.
async fn v1_agentic_chat(client: &Client, page: &str) {
    open(client, page, "v1_agentic_chat").await;
    send(client, "Hi").await;
    wait_for(
        client,
        "the v1 chat's reply",
        "[...document.querySelectorAll('.copilotKitAssistantMessage')]\
         .some(e => e.innerText.includes('Hello! How can I assist you today?'))",
    )
    .await;
    assert_eq!(
        js(
            client,
            "[...document.querySelectorAll('.copilotKitUserMessage')].map(e => e.innerText.trim())"
        )
        .await,
        serde_json::json!(["Hi"])
    );
    screenshot(client, "model-v1_agentic_chat").await;
}

async fn backend_tool_rendering(client: &Client, page: &str) {
    open(client, page, "backend_tool_rendering").await;
    send(client, "What's the weather in San Francisco?").await;
    wait_for(
        client,
        "the weather card",
        "document.querySelector('[data-testid=\"weather-card\"]')",
    )
    .await;
    for (id, expected) in [
        ("weather-city", "San Francisco"),
        ("weather-conditions", "sunny"),
        ("weather-temperature", "20°C"),
        ("weather-humidity", "Humidity 50%"),
        ("weather-wind", "Wind 10 km/h"),
        ("weather-feels-like", "Feels like 25°C"),
    ] {
        assert_eq!(texts(client, id).await, [expected], "{id}");
    }
    wait_for_reply(client, DONE, 1).await;
    screenshot(client, "model-backend_tool_rendering").await;
}

async fn human_in_the_loop(client: &Client, page: &str) {
    open(client, page, "human_in_the_loop").await;
    send(client, "Plan a trip to mars").await;
    wait_for(
        client,
        "the Confirm button",
        "document.querySelector('[data-testid=\"confirm-steps\"]')",
    )
    .await;
    assert_eq!(
        texts(client, "step").await,
        [
            "Research mission requirements",
            "Assemble crew",
            "Build spacecraft",
            "Launch from Earth",
            "Land on Mars"
        ]
    );
    click(client, "confirm-steps").await;
    wait_for_reply(client, DONE, 1).await;
    assert_eq!(texts(client, "steps-done").await, ["Confirmed"]);
    // The person's answer reached the model.
    let request = model_request("trip to mars").await;
    let last = request["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["role"], "tool", "{request}");
    screenshot(client, "model-human_in_the_loop").await;
}

async fn tool_based_generative_ui(client: &Client, page: &str) {
    open(client, page, "tool_based_generative_ui").await;
    send(client, "Write a haiku: I will always win").await;
    // The card fills as the call's arguments stream; the page answers, the model goes on.
    wait_for_reply(client, DONE, 1).await;
    assert_eq!(
        texts(client, "haiku-english").await,
        [
            "On the path of victory",
            "I will always keep walking",
            "Destined to always win"
        ]
    );
    screenshot(client, "model-tool_based_generative_ui").await;
}

async fn shared_state(client: &Client, page: &str) {
    open(client, page, "shared_state").await;
    send(client, "Create a delicious Italian pasta recipe.").await;
    wait_for(
        client,
        "the recipe",
        "document.querySelector('[data-testid=\"recipe-title\"]')",
    )
    .await;
    assert_eq!(texts(client, "recipe-title").await, ["Pasta Aglio e Olio"]);
    assert_eq!(
        texts(client, "ingredient").await,
        [
            "🍝 Pasta: 400g",
            "🧂 Salt: 1 tsp",
            "🫒 Olive Oil: 4 tbsp",
            "🧄 Garlic: 6 cloves",
            "🍅 Tomatoes: 2 cups"
        ]
    );
    wait_for_reply(client, DONE, 1).await;
    // An ingredient added in the page reaches the model with the next run's state: added once
    // the run has ended (a state the run still streams would replace it).
    idle(client).await;
    click(client, "add-ingredient").await;
    wait_for(
        client,
        "the added ingredient",
        "document.querySelectorAll('[data-testid=\"ingredient\"]').length === 6",
    )
    .await;
    send(client, "Tell me the ingredients").await;
    wait_for(
        client,
        "the ingredients' answer",
        &format!("{REPLIES}.some(t => t.startsWith('Here are the ingredients'))"),
    )
    .await;
    let request = model_request("Tell me the ingredients").await;
    let context = request["messages"][1]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(
        context.contains("The application's current state") && context.contains("Basil"),
        "the model saw the page's edit: {context}"
    );
    screenshot(client, "model-shared_state").await;
}

async fn predictive_state_updates(client: &Client, page: &str) {
    open(client, page, "predictive_state_updates").await;
    let document = "document.querySelector('[data-testid=\"document\"]')";
    for (round, (ask, button, outcome, name)) in [
        (
            "Write a story about a dragon called Atlantis",
            "confirm-changes",
            "Accepted",
            "Atlantis",
        ),
        (
            "Change dragon name to Lola",
            "reject-changes",
            "Rejected",
            "Lola",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        send(client, ask).await;
        wait_for(
            client,
            "the Confirm and Reject buttons",
            &format!("document.querySelector('[data-testid=\"{button}\"]')"),
        )
        .await;
        let written = js(client, &format!("{document}.textContent")).await;
        let written = written.as_str().unwrap_or_default();
        assert!(
            written.starts_with("Once upon a time")
                && written.contains(&format!("a magnificent dragon named {name}.")),
            "the document: {written:?}"
        );
        // The page showed the document in steps, as the model wrote it.
        let drafts = js(client, &format!("Number({document}.dataset.drafts)")).await;
        assert!(
            drafts.as_u64().is_some_and(|n| n > 3),
            "drafts shown: {drafts}"
        );
        answer_changes(client, button, outcome, round).await;
        wait_for_reply(client, DONE, round + 1).await;
    }
    screenshot(client, "model-predictive_state_updates").await;
}

async fn agentic_generative_ui(client: &Client, page: &str) {
    open(client, page, "agentic_generative_ui").await;
    send(client, "Go to Mars").await;
    let completed = "document.querySelectorAll('[data-testid=\"task-step\"][data-status=\"completed\"]').length";
    wait_for(
        client,
        "some steps completed, not all",
        &format!("(n => n > 0 && n < 4)({completed})"),
    )
    .await;
    wait_for(
        client,
        "all four steps completed",
        &format!("{completed} === 4"),
    )
    .await;
    assert_eq!(
        texts(client, "task-step").await,
        [
            "Design and build a spacecraft capable of Mars transit: completed",
            "Assemble crew and run mission simulations: completed",
            "Launch from Earth and navigate to Mars: completed",
            "Land on Mars surface and establish base camp: completed"
        ]
    );
    wait_for_reply(client, DONE, 1).await;
    screenshot(client, "model-agentic_generative_ui").await;
}

/// The reasoning page; `thought`: whether the page should show the model's thought.
async fn agentic_chat_reasoning(client: &Client, page: &str, thought: bool) {
    open(client, page, "agentic_chat_reasoning").await;
    send(client, "What is the best car to buy?").await;
    wait_for(
        client,
        "the answer",
        &format!("{REPLIES}.some(t => t.includes('Toyota Camry'))"),
    )
    .await;
    let shows = "document.body.innerText.includes('Thought for')";
    if thought {
        wait_for(client, "the thought", shows).await;
        screenshot(client, "model-agentic_chat_reasoning").await;
    } else {
        assert_eq!(
            js(client, shows).await,
            false,
            "no thought without the knob"
        );
        screenshot(client, "model-agentic_chat_reasoning-downgraded").await;
    }
}

async fn agentic_chat_multimodal(client: &Client, page: &str) {
    open(client, page, "agentic_chat_multimodal").await;
    let image = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../interop/aimock/fixtures/red-square.png")
        .canonicalize()
        .unwrap();
    wait_for(
        client,
        "the file input",
        "document.querySelector('input[type=\"file\"]')",
    )
    .await;
    client
        .find(Locator::Css("input[type=\"file\"]"))
        .await
        .unwrap()
        .send_keys(image.to_str().unwrap())
        .await
        .unwrap();
    send(client, "Tell me what do you see in this image").await;
    wait_for(
        client,
        "the description",
        &format!("{REPLIES}.some(t => t.startsWith(\"I can see the image you've shared.\"))"),
    )
    .await;
    // The image reached the model as an image_url part, the page's file as sent.
    let request = model_request("what do you see in this image").await;
    let parts = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .map(|m| m["content"].clone())
        .unwrap();
    let png = std::fs::read_to_string(
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../interop/aimock/fixtures/red-square.png.b64"),
    )
    .unwrap();
    assert_eq!(parts[0]["text"], "Tell me what do you see in this image");
    assert_eq!(
        parts[1]["image_url"]["url"],
        format!("data:image/png;base64,{}", png.trim()),
        "{parts}"
    );
    screenshot(client, "model-agentic_chat_multimodal").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_the_copilotkit_runtime_every_model_driven_feature_shows_what_a_person_sees() {
    if skip_without_browser("the CopilotKit browser suite") {
        return;
    }
    let known = dojo(
        Pace::new(WATCHED).unwrap(),
        Some(ClientVersion::new(0, 0, 57)),
    )
    .await;
    let unknown = dojo(Pace::INSTANT, None).await;
    let (app, downgraded) = (app(&known, &[]), app(&unknown, &[]));
    let page = format!("{}/", app.url);
    let downgraded = format!("{}/", downgraded.url);
    with_browser(|client| async move {
        agentic_chat(&client, &page).await;
        v1_agentic_chat(&client, &page).await;
        backend_tool_rendering(&client, &page).await;
        human_in_the_loop(&client, &page).await;
        tool_based_generative_ui(&client, &page).await;
        shared_state(&client, &page).await;
        predictive_state_updates(&client, &page).await;
        agentic_generative_ui(&client, &page).await;
        agentic_chat_reasoning(&client, &page, true).await;
        agentic_chat_reasoning(&client, &downgraded, false).await;
        agentic_chat_multimodal(&client, &page).await;
    })
    .await;
}
