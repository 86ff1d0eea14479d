//! The Dojo's features behind a real CopilotKit app, in headless Chromium: `interop/copilotkit`
//! (a page built with `@copilotkit/react-core`'s v2 hooks and `CopilotChat`, a node server
//! with `@copilotkit/runtime`'s `CopilotRuntime`, its agents `HttpAgent`s of the runtime's own
//! `@ag-ui/client` 0.0.59) in front of these routes. Each feature is checked by what a person
//! sees on the page: the countdown, the background the frontend tool paints and the follow-up,
//! the weather card, the ten steps confirmed, the haiku card, the recipe (and an ingredient
//! added in the page reaching the agent's next `RunAgentInput.state`), the document filling
//! while the tool's arguments stream then confirmed, and rejected, the task's steps completed
//! one by one. Then the same page straight to the routes with `@ag-ui/client` 1.0.0 in the
//! browser, on another origin (CORS preflight included). The routes run at pace 0, except
//! where the streaming itself is watched (the document, the steps: pace [`WATCHED`]).
//!
//! Needs `npm ci --prefix interop/copilotkit` (a failure naming it otherwise), chromium and
//! chromedriver (the harness: `crates/ag-ui/tests/support/browser.rs`). Without those two
//! the browser tests print why and skip, except in CI (`CI=true`), where they fail.
//! Screenshots of each feature go to `target/copilotkit-screenshots/`.

#[path = "../../../crates/ag-ui/tests/support/browser.rs"]
mod browser;
#[path = "../../../crates/ag-ui/tests/support/copilotkit.rs"]
mod copilotkit;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ag_ui_dojo::scripted::{
    agentic_chat, backend_tool_rendering, human_in_the_loop, predictive_state_updates,
    shared_state, tool_based_generative_ui,
};
use ag_ui_dojo::{Config, Pace, router};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use browser::{js, skip_without_browser, with_browser};
use copilotkit::{
    WAIT, answer_changes, app, click, idle, open, screenshot, send, texts, wait_for, wait_for_reply,
};
use fantoccini::Client;
use serde_json::Value;

/// The `RunAgentInput` bodies the routes received, in order.
type Received = Arc<Mutex<Vec<(String, Value)>>>;

/// Keeps a copy of each request's JSON body (at most 1 MiB) before the route reads it.
async fn record(State(received): State<Received>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    if let Ok(value) = serde_json::from_slice(&bytes) {
        received
            .lock()
            .unwrap()
            .push((parts.uri.path().to_owned(), value));
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// The routes on a free port at `pace`, recording what they receive.
async fn dojo(pace: Pace) -> (String, Received) {
    let received = Received::default();
    let app = router(Config::default().with_pace(pace)).layer(
        axum::middleware::from_fn_with_state(received.clone(), record),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (base, received)
}

/// The pace of the routes the streaming is watched on: the document's sixteen words 100 ms
/// apart, the ten steps 500 ms apart (slow enough for a loaded CI machine's polling).
const WATCHED: f64 = 0.5;

/// The app's URLs (with `?agent=` for the direct connection): in front of the routes at pace 0,
/// and at [`WATCHED`] pace.
struct Pages {
    instant: String,
    paced: String,
    /// The `protocolVersion` every request must carry: none from the runtime's 0.0.59 (so the
    /// routes downgrade), the 1.0 client's own straight from the page.
    protocol_version: Value,
}

/// Every feature, through `pages`; `received` is what the routes at pace 0 received.
async fn every_feature(client: &Client, pages: &Pages, received: &Received, label: &str) {
    let page = pages.instant.as_str();
    countdown_and_frontend_tool(client, page, label).await;
    weather_card(client, page, label).await;
    steps_confirmed(client, page, label).await;
    haiku_card(client, page, label).await;
    shared_recipe(client, page, received, label).await;
    predictive_document(client, &pages.paced, label).await;
    task_steps(client, &pages.paced, label).await;

    // Which client spoke: every request the routes at pace 0 received.
    let received = received.lock().unwrap();
    // agentic_chat 3 (the countdown, the tool call, its follow-up), backend_tool_rendering 1,
    // human_in_the_loop 2, tool_based_generative_ui 1, shared_state 2: no retry, no extra run.
    let paths: Vec<&str> = received.iter().map(|(path, _)| path.as_str()).collect();
    assert_eq!(paths.len(), 9, "{label}: {paths:?}");
    for (path, input) in received.iter() {
        assert_eq!(
            input["protocolVersion"], pages.protocol_version,
            "{label}: the protocolVersion of a request to {path}"
        );
    }
}

/// (1) The countdown, ending in ✓; then the frontend tool paints the page, and the follow-up.
async fn countdown_and_frontend_tool(client: &Client, page: &str, label: &str) {
    open(client, page, "agentic_chat").await;
    send(client, "hello").await;
    wait_for_reply(client, "counting down: 10 9 8 7 6 5 4 3 2 1 ✓", 1).await;

    // The frontend tool paints the page, then the agent's follow-up.
    let background = "getComputedStyle(document.querySelector('[data-testid=\"background\"]'))\
                      .backgroundImage";
    assert_eq!(
        js(client, background).await,
        "none",
        "{label}: no gradient yet"
    );
    send(client, "tool").await;
    wait_for_reply(client, agentic_chat::TOOL_DONE, 1).await;
    assert_eq!(
        js(client, background).await,
        // agentic_chat::BACKGROUND, as the browser computes it.
        "linear-gradient(135deg, rgb(102, 126, 234) 0%, rgb(118, 75, 162) 100%)",
        "{label}: the frontend tool's background"
    );
    screenshot(client, &format!("{label}-agentic_chat")).await;
}

/// (2) The weather card, from the backend tool's result.
async fn weather_card(client: &Client, page: &str, label: &str) {
    open(client, page, "backend_tool_rendering").await;
    send(client, "What's the weather in San Francisco?").await;
    wait_for(
        client,
        "the weather card",
        "document.querySelector('[data-testid=\"weather-card\"]')",
    )
    .await;
    let weather = backend_tool_rendering::SAN_FRANCISCO;
    for (id, expected) in [
        ("weather-city", weather.city.to_owned()),
        ("weather-conditions", weather.conditions.to_owned()),
        ("weather-temperature", format!("{}°C", weather.temperature)),
        (
            "weather-humidity",
            format!("Humidity {}%", weather.humidity),
        ),
        ("weather-wind", format!("Wind {} km/h", weather.wind_speed)),
    ] {
        assert_eq!(texts(client, id).await, [expected], "{label}: {id}");
    }
    screenshot(client, &format!("{label}-backend_tool_rendering")).await;
}

/// (3) Ten steps, Confirm, then the agent goes on.
async fn steps_confirmed(client: &Client, page: &str, label: &str) {
    open(client, page, "human_in_the_loop").await;
    send(client, "Plan a trip to Mars").await;
    wait_for(
        client,
        "the Confirm button",
        "document.querySelector('[data-testid=\"confirm-steps\"]')",
    )
    .await;
    let steps: Vec<String> = (1..=10).map(|n| format!("Step {n}")).collect();
    assert_eq!(texts(client, "step").await, steps, "{label}: the steps");
    click(client, "confirm-steps").await;
    wait_for_reply(client, human_in_the_loop::DONE, 1).await;
    assert_eq!(texts(client, "steps-done").await, ["Confirmed"], "{label}");
    screenshot(client, &format!("{label}-human_in_the_loop")).await;
}

/// (4) The haiku card.
async fn haiku_card(client: &Client, page: &str, label: &str) {
    open(client, page, "tool_based_generative_ui").await;
    send(client, "Write me a haiku").await;
    wait_for(
        client,
        "the haiku card",
        "document.querySelectorAll('[data-testid=\"haiku-line\"]').length === 3",
    )
    .await;
    let haiku = tool_based_generative_ui::Haiku::reference();
    assert_eq!(
        texts(client, "haiku-japanese").await,
        haiku.japanese,
        "{label}"
    );
    assert_eq!(
        texts(client, "haiku-english").await,
        haiku.english,
        "{label}"
    );
    screenshot(client, &format!("{label}-tool_based_generative_ui")).await;
}

/// (5) The recipe from the shared state; an ingredient added in the page reaches the agent.
async fn shared_recipe(client: &Client, page: &str, received: &Received, label: &str) {
    open(client, page, "shared_state").await;
    send(client, "Give me a recipe").await;
    let recipe = shared_state::Recipe::reference();
    let ingredients: Vec<String> = recipe
        .ingredients
        .iter()
        .map(|i| format!("{} {}: {}", i.icon, i.name, i.amount))
        .collect();
    wait_for(
        client,
        "the recipe",
        "document.querySelector('[data-testid=\"recipe\"]')",
    )
    .await;
    assert_eq!(texts(client, "ingredient").await, ingredients, "{label}");
    assert_eq!(
        texts(client, "instruction").await,
        recipe.instructions,
        "{label}"
    );
    // Added once the run has ended (a state the run still streams would replace it).
    idle(client).await;
    click(client, "add-ingredient").await;
    wait_for(
        client,
        "the added ingredient",
        "document.querySelectorAll('[data-testid=\"ingredient\"]').length === 5",
    )
    .await;
    let before = received.lock().unwrap().len();
    send(client, "Make it spicier").await;
    let deadline = Instant::now() + WAIT;
    let state = loop {
        let last = received.lock().unwrap()[before..]
            .iter()
            .rev()
            .find(|(path, _)| path == "/shared_state")
            .map(|(_, input)| input["state"].clone());
        if let Some(state) = last {
            break state;
        }
        assert!(
            Instant::now() < deadline,
            "{label}: no second run reached /shared_state"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let names: Vec<&str> = state["recipe"]["ingredients"]
        .as_array()
        .unwrap_or_else(|| panic!("{label}: the state the agent received: {state}"))
        .iter()
        .filter_map(|i| i["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "chicken breast",
            "chili powder",
            "Salt",
            "Lettuce leaves",
            "Basil"
        ],
        "{label}: the state the agent received"
    );
    screenshot(client, &format!("{label}-shared_state")).await;
}

/// (6) The document filling while the tool's arguments stream, confirmed; then again, rejected.
async fn predictive_document(client: &Client, page: &str, label: &str) {
    open(client, page, "predictive_state_updates").await;
    let document = "document.querySelector('[data-testid=\"document\"]')?.textContent ?? ''";
    for (round, (button, outcome)) in [
        ("confirm-changes", "Accepted"),
        ("reject-changes", "Rejected"),
    ]
    .into_iter()
    .enumerate()
    {
        send(client, "Write a story about a dog").await;
        // Part of a new story: begun, not yet at its end (the previous round's story is whole).
        wait_for(
            client,
            "the document half written",
            &format!("(d => d.startsWith('Once upon a') && !d.endsWith('good dog. '))({document})"),
        )
        .await;
        wait_for(
            client,
            "the Confirm and Reject buttons",
            &format!("document.querySelector('[data-testid=\"{button}\"]')"),
        )
        .await;
        let written = js(client, document).await;
        let written = written.as_str().unwrap_or_default();
        assert!(
            predictive_state_updates::DOG_NAMES
                .iter()
                .any(|name| written == format!("{} ", predictive_state_updates::story(name))),
            "{label}: the document: {written:?}"
        );
        answer_changes(client, button, outcome, round).await;
        wait_for_reply(client, predictive_state_updates::DONE, round + 1).await;
    }
    screenshot(client, &format!("{label}-predictive_state_updates")).await;
}

/// (7) The task's steps completed one by one in the agent's state.
async fn task_steps(client: &Client, page: &str, label: &str) {
    open(client, page, "agentic_generative_ui").await;
    send(client, "Go to Mars").await;
    let completed = "document.querySelectorAll('[data-testid=\"task-step\"][data-status=\"completed\"]').length";
    wait_for(
        client,
        "some steps completed, not all",
        &format!("(n => n > 0 && n < 10)({completed})"),
    )
    .await;
    wait_for(
        client,
        "all ten steps completed",
        &format!("{completed} === 10"),
    )
    .await;
    let steps: Vec<String> = (1..=10).map(|n| format!("Step {n}: completed")).collect();
    assert_eq!(texts(client, "task-step").await, steps, "{label}");
    screenshot(client, &format!("{label}-agentic_generative_ui")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_the_copilotkit_runtime_every_feature_shows_what_a_person_sees() {
    if skip_without_browser("the CopilotKit browser suite") {
        return;
    }
    let (agent, received) = dojo(Pace::INSTANT).await;
    let (paced_agent, _) = dojo(Pace::new(WATCHED).unwrap()).await;
    let (app, paced_app) = (app(&agent, &[]), app(&paced_agent, &[]));
    let pages = Pages {
        instant: format!("{}/", app.url),
        paced: format!("{}/", paced_app.url),
        protocol_version: Value::Null,
    };
    with_browser(
        |client| async move { every_feature(&client, &pages, &received, "runtime").await },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn straight_from_the_page_across_origins_every_feature_shows_what_a_person_sees() {
    if skip_without_browser("the CopilotKit browser suite") {
        return;
    }
    let (agent, received) = dojo(Pace::INSTANT).await;
    let (paced_agent, _) = dojo(Pace::new(WATCHED).unwrap()).await;
    let app = app(&agent, &[]);
    // The page on the app's origin, the agent on the routes' own port: another origin.
    let pages = Pages {
        instant: format!("{}/?agent={agent}", app.url),
        paced: format!("{}/?agent={paced_agent}", app.url),
        protocol_version: Value::from(ag_ui::PROTOCOL_VERSION),
    };
    with_browser(|client| async move { every_feature(&client, &pages, &received, "direct").await })
        .await;
}

/// The README's "Behind CopilotKit" section shows the runtime the suite runs, verbatim.
#[test]
fn the_readme_shows_the_runtime_the_suite_runs() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let runtime = std::fs::read_to_string(root.join("interop/copilotkit/runtime.mjs")).unwrap();
    let section = readme
        .split("\n## Behind CopilotKit\n")
        .nth(1)
        .expect("README.md has a \"Behind CopilotKit\" section");
    let section = section.split("\n## ").next().unwrap();
    assert!(
        section.contains(&format!("```js\n{runtime}```")),
        "README.md's \"Behind CopilotKit\" shows interop/copilotkit/runtime.mjs verbatim"
    );
}
