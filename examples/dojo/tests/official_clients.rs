//! Every route through the official `HttpAgent` of `@ag-ui/client` 0.0.42, 0.0.52, 0.0.59 (what
//! `@copilotkit/runtime` 1.75 runs; the three send no `protocolVersion` and get the downgraded
//! stream) and 1.0.0, over a real socket, with their own validation on
//! (`interop/client/dojo_routes.mjs`): each client runs each branch without an error and
//! rebuilds the same conversation and state as the 1.0 client.

use ag_ui_dojo::{Config, Pace, router};
use serde_json::{Value, json};

#[path = "../../../crates/ag-ui/tests/support/node.rs"]
mod node;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_client_runs_every_route() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        axum::serve(listener, router(Config::default().with_pace(Pace::INSTANT))).await
    });

    let out = tokio::task::spawn_blocking(move || node::json("client/dojo_routes.mjs", &[base]))
        .await
        .unwrap();
    let cases = out.as_object().unwrap();
    assert_eq!(cases.len(), 11);

    for (case, clients) in cases {
        let modern = &clients["1.0.0"];
        for version in ["0.0.42", "0.0.52", "0.0.59", "1.0.0"] {
            let client = &clients[version];
            assert_eq!(client["error"], Value::Null, "{case}: {version}");
            assert_eq!(
                client["messages"], modern["messages"],
                "{case}: {version} rebuilt another conversation"
            );
            assert_eq!(client["state"], modern["state"], "{case}: {version}");
            let types = client["eventTypes"].as_array().unwrap();
            assert_eq!(types.first().unwrap(), "RUN_STARTED", "{case}: {version}");
            assert_eq!(types.last().unwrap(), "RUN_FINISHED", "{case}: {version}");
        }
    }

    // What the conversation ends with, branch by branch.
    let last_text = |case: &str| {
        let messages = cases[case]["1.0.0"]["messages"].as_array().unwrap();
        messages.last().unwrap()["content"].clone()
    };
    assert_eq!(last_text("/ hi"), "Hello world!");
    assert_eq!(
        last_text("/agentic_chat hello"),
        "counting down: 10  9  8  7  6  5  4  3  2  1  ✓"
    );
    assert_eq!(last_text("/agentic_chat tool"), "background changed ✓");
    assert_eq!(
        last_text("/agentic_chat backend_tool"),
        "The weather in San Francisco is sunny."
    );
    assert_eq!(
        last_text("/backend_tool_rendering weather in SF?"),
        "Retrieved weather information!"
    );
    assert_eq!(
        last_text("/human_in_the_loop plan a trip"),
        "Ok! I'm working on it."
    );
    assert_eq!(
        last_text("/tool_based_generative_ui a haiku"),
        "Haiku created"
    );
    assert_eq!(
        last_text("/tool_based_generative_ui thanks"),
        "Haiku created"
    );
    assert_eq!(last_text("/predictive_state_updates a story"), "Ok!");

    let state = |case: &str| cases[case]["1.0.0"]["state"].clone();
    let steps = state("/agentic_generative_ui go")["steps"].clone();
    assert_eq!(steps.as_array().unwrap().len(), 10);
    assert!(
        steps
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["status"] == "completed")
    );
    assert_eq!(
        state("/shared_state a recipe")["recipe"]["ingredients"][3],
        json!({"icon": "🥬", "name": "Lettuce leaves", "amount": "handful"})
    );
}
