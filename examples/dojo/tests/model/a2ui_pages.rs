//! The four A2UI pages behind the CopilotKit app in Chromium, `@ag-ui/a2ui-middleware` in its
//! runtime and `@copilotkit/a2ui-renderer` on the page (`interop/copilotkit/a2ui.jsx`), the
//! model the Dojo's mock: each page shows what the Dojo's page shows in the Dojo's own specs
//! (`apps/dojo/e2e/tests/agUiDotnetTests/a2ui*.spec.ts`), in one browser session.

use ag_ui_dojo::Pace;
use fantoccini::Client;

use super::aimock::aimock;
use super::browser::{js, skip_without_browser, with_browser};
use super::copilotkit::{REPLIES, app, idle, open, screenshot, send, wait_for};
use super::dojo;

/// The painted surface `id`.
fn surface(id: &str) -> String {
    format!("document.querySelector('[data-surface-id=\"{id}\"]')")
}

/// Waits until the surface `id` shows every one of `texts`.
async fn shows(client: &Client, id: &str, texts: &[&str]) {
    let texts = serde_json::to_string(texts).unwrap();
    wait_for(
        client,
        &format!("the surface {id} showing {texts}"),
        &format!(
            "{0} && {texts}.every(t => {0}.innerText.includes(t))",
            surface(id)
        ),
    )
    .await;
}

/// Notes in `window.progressShown` whether the advanced page's progress card ever shows.
const PROGRESS_WATCH: &str = "new MutationObserver(() => { \
     if (document.querySelector('[data-testid=\"a2ui-progress\"]')) window.progressShown = true; \
     }).observe(document.body, {childList: true, subtree: true})";

/// Keeps in `window.retrying` the first "Retrying generation…" line the page shows.
const RETRY_WATCH: &str = "new MutationObserver(() => { \
     const line = [...document.querySelectorAll('*')].map(e => e.childNodes.length === 1 && e.innerText) \
       .find(t => typeof t === 'string' && t.startsWith('Retrying generation')); \
     if (line && !window.retrying) window.retrying = line; \
     }).observe(document.body, {childList: true, subtree: true, characterData: true})";

/// How many surfaces the page shows.
async fn surfaces(client: &Client) -> u64 {
    js(
        client,
        "document.querySelectorAll('[data-surface-id]').length",
    )
    .await
    .as_u64()
    .unwrap()
}

async fn fixed_schema(client: &Client, page: &str) {
    open(client, page, "a2ui_fixed_schema").await;
    send(client, "Find flights from SFO to JFK for next Tuesday.").await;
    shows(
        client,
        "flight-search-results",
        &["UA 123", "DL 456", "$289", "$315", "United Airlines"],
    )
    .await;
    send(
        client,
        "Find hotels in downtown Manhattan for next weekend.",
    )
    .await;
    shows(
        client,
        "hotel-search-results",
        &["The Manhattan Grand", "Downtown Boutique Hotel", "4.5"],
    )
    .await;
    // Both surfaces stay.
    assert!(js(client, &format!("!!{}", surface("flight-search-results"))).await == true);
    assert!(surfaces(client).await >= 2);
    // Booking a hotel: the middleware sends the card's action with the next run, as a
    // `log_a2ui_event` call and its result, and the agent answers. The surface shows before
    // the hotels' run ends (the model still writes its sentence after the tool result): a
    // click before then starts a run the runtime refuses ("Thread already running") and
    // detaches the page from the running one, so the click waits for the run's end, as a
    // person waits for the answer, and the replies are counted then.
    idle(client).await;
    let replies = js(client, &format!("{REPLIES}.length"))
        .await
        .as_u64()
        .unwrap();
    let book = format!(
        "[...{}.querySelectorAll('[data-testid=\"a2ui-action\"]')][0]",
        surface("hotel-search-results")
    );
    js(client, &format!("{book}.click()")).await;
    wait_for(
        client,
        "the reply to the booking",
        &format!("{REPLIES}.length > {replies} && {book}.innerText === 'Booked'"),
    )
    .await;
    let request = aimock()
        .requests()
        .await
        .into_iter()
        .rev()
        .find(|r| r["messages"].to_string().contains("log_a2ui_event"))
        .expect("the action reached the model");
    let call = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .flatten()
        .find(|c| c["function"]["name"] == "log_a2ui_event")
        .unwrap();
    let action: serde_json::Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(action["name"], "book_hotel", "{action}");
    assert_eq!(
        action["context"]["hotelName"], "The Manhattan Grand",
        "{action}"
    );
    screenshot(client, "model-a2ui_fixed_schema").await;
}

async fn dynamic_schema(client: &Client, page: &str, feature: &str) {
    let cases: [(&str, &str, &[&str]); 3] = [
        (
            "Use the generate_a2ui tool to create a comparison of 3 hotels with name, location, price per night, and star rating using the StarRating component.",
            "hotel-comparison",
            &[
                "The Ritz",
                "Holiday Inn",
                "Boutique Loft",
                "$450/night",
                "$180/night",
                "$320/night",
                "4.8",
            ],
        ),
        (
            "Use the generate_a2ui tool to create a product comparison of 3 headphones with name, price, rating, a short description, and a Select button on each card.",
            "product-comparison",
            &[
                "Sony WH-1000XM5",
                "AirPods Max",
                "Bose QC Ultra",
                "$349",
                "$549",
                "$429",
            ],
        ),
        (
            "Use the generate_a2ui tool to create a team roster with 4 people showing name, role, avatar, and email.",
            "team-roster",
            &[
                "Alice Chen",
                "Bob Martinez",
                "Carol Davis",
                "Dan Wilson",
                "Engineering Lead",
                "Product Designer",
            ],
        ),
    ];
    for (prompt, id, texts) in cases {
        open(client, page, feature).await;
        // Whether the page's own progress card showed while render_a2ui streamed.
        js(client, PROGRESS_WATCH).await;
        send(client, prompt).await;
        shows(client, id, texts).await;
        let progress = js(client, "window.progressShown === true").await;
        assert_eq!(
            progress,
            feature == "a2ui_advanced",
            "{feature}: its own progress card"
        );
        screenshot(client, &format!("model-{feature}-{id}")).await;
    }
}

async fn recovery(client: &Client, page: &str) {
    open(client, page, "a2ui_recovery").await;
    js(client, RETRY_WATCH).await;
    send(client, "Compare 3 luxury hotels with ratings and prices.").await;
    // The invalid first attempt is never painted; the regenerated surface is, after the page
    // said it was retrying (the middleware reads the attempts' verdicts on the run).
    shows(
        client,
        "hotel-comparison",
        &["The Ritz", "Holiday Inn", "Boutique Loft"],
    )
    .await;
    assert_eq!(
        js(client, "window.retrying").await,
        "Retrying generation… (2/3 attempts)"
    );
    screenshot(client, "model-a2ui_recovery").await;

    open(client, page, "a2ui_recovery").await;
    send(client, "Compare 3 broken hotels with ratings and prices.").await;
    wait_for(
        client,
        "the failure",
        "document.body.innerText.includes(\"Couldn't generate the UI\")",
    )
    .await;
    assert_eq!(
        js(client, &format!("!!{}", surface("hotel-comparison"))).await,
        false,
        "no faulty surface painted"
    );
    screenshot(client, "model-a2ui_recovery-exhausted").await;
    // The conversation goes on.
    send(client, "Thanks anyway.").await;
    wait_for(
        client,
        "the reply after the failure",
        "document.body.innerText.includes(\"You're welcome!\")",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_the_copilotkit_runtime_the_a2ui_pages_paint_the_agents_surfaces() {
    if skip_without_browser("the CopilotKit A2UI browser suite") {
        return;
    }
    let base = dojo(Pace::INSTANT, None).await;
    let app = app(&base, &[]);
    let page = format!("{}/", app.url);
    with_browser(|client| async move {
        fixed_schema(&client, &page).await;
        dynamic_schema(&client, &page, "a2ui_dynamic_schema").await;
        dynamic_schema(&client, &page, "a2ui_advanced").await;
        recovery(&client, &page).await;
    })
    .await;
}
