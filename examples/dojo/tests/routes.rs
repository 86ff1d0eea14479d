//! Every route and every branch over a real socket: the exact events (read with the crate's
//! SSE decoder), the stream verified, the conversation and state after the crate's reducer.

use std::time::{Duration, Instant};

use ag_ui::client::Reducer;
use ag_ui::verify::Verifier;
use ag_ui::{
    AssistantMessage, Event, Message, PROTOCOL_VERSION, RunAgentInput, RunFinishedEvent,
    RunFinishedOutcome, RunStartedEvent, TextMessageRole, ToolCall,
};
use ag_ui_dojo::scripted::{
    agentic_chat, agentic_generative_ui, backend_tool_rendering, hello, human_in_the_loop,
    predictive_state_updates, shared_state, tool_based_generative_ui,
};
use ag_ui_dojo::{Config, Pace, router};
use serde_json::{Value, json};

/// The routes served on a free port.
async fn serve(pace: Pace) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(
        async move { axum::serve(listener, router(Config::default().with_pace(pace))).await },
    );
    base
}

/// What a run sent, and what the client holds after it.
struct Run {
    events: Vec<Event>,
    messages: Vec<Message>,
    state: Value,
}

async fn post(base: &str, route: &str, body: String) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{base}{route}"))
        .header("Content-Type", "application/json")
        .header("Accept", "text/event-stream")
        .body(body)
        .send()
        .await
        .unwrap()
}

/// Runs `input` on `route`: the stream must be SSE, decode, pass the verifier whole, and apply.
async fn run(base: &str, route: &str, input: &RunAgentInput) -> Run {
    let response = post(base, route, serde_json::to_string(input).unwrap()).await;
    assert_eq!(response.status(), 200, "{route}");
    assert_eq!(
        response.headers()["content-type"],
        "text/event-stream",
        "{route}"
    );
    let body = tokio::time::timeout(Duration::from_secs(10), response.bytes())
        .await
        .expect("the run ends")
        .unwrap();
    let events = ag_ui::encoding::sse::decode(&body).unwrap();

    let mut verifier = Verifier::new();
    for (i, event) in events.iter().enumerate() {
        verifier
            .check(event)
            .unwrap_or_else(|v| panic!("{route}: event {i}: {v}"));
    }
    assert!(
        verifier.has_started() && !verifier.in_run(),
        "{route}: the run is not closed"
    );

    let mut reducer = Reducer::new()
        .with_messages(input.messages.clone())
        .with_state(input.state.clone().unwrap_or(json!({})));
    reducer.apply_all(&events).unwrap();
    let (messages, state) = reducer.into_parts();
    Run {
        events,
        messages,
        state,
    }
}

/// `middle` framed by the run's `RUN_STARTED` and a successful `RUN_FINISHED`, with the
/// request's ids.
fn framed(input: &RunAgentInput, middle: Vec<Event>) -> Vec<Event> {
    let (thread, run) = (input.thread_id.clone(), input.run_id.clone());
    let mut events = vec![
        RunStartedEvent::new(thread.clone(), run.clone())
            .with_protocol_version(PROTOCOL_VERSION)
            .into(),
    ];
    events.extend(middle);
    events.push(
        RunFinishedEvent::new(thread, run)
            .with_outcome(RunFinishedOutcome::success())
            .into(),
    );
    events
}

/// A whole assistant message `{run}-msg-1` of `deltas`.
fn text(run: &str, deltas: &[&str]) -> Vec<Event> {
    let id = format!("{run}-msg-1");
    let mut events = vec![Event::text_message_start(
        id.as_str(),
        TextMessageRole::Assistant,
    )];
    events.extend(
        deltas
            .iter()
            .map(|d| Event::text_message_content(id.as_str(), *d)),
    );
    events.push(Event::text_message_end(id.as_str()));
    events
}

/// A tool call `id` of `name` whose arguments stream as `deltas`.
fn tool_call(id: &str, name: &str, deltas: &[&str]) -> Vec<Event> {
    let mut events = vec![Event::tool_call_start(id, name)];
    events.extend(deltas.iter().map(|d| Event::tool_call_args(id, *d)));
    events.push(Event::tool_call_end(id));
    events
}

fn user(input: RunAgentInput, text: &str) -> RunAgentInput {
    input.with_messages(vec![Message::user("u1", text)])
}

/// A conversation whose last message answers a tool call.
fn after_a_tool(run: &str) -> RunAgentInput {
    RunAgentInput::new("t", run).with_messages(vec![
        Message::user("u1", "go"),
        Message::Assistant(
            AssistantMessage::new("a1").with_tool_calls(vec![ToolCall::new(
                "c1",
                "some_tool",
                "{}",
            )]),
        ),
        Message::tool("m2", "c1", "done"),
    ])
}

/// The last `n` messages of a run's conversation, as JSON.
fn last_messages(run: &Run, n: usize) -> Value {
    serde_json::to_value(&run.messages[run.messages.len() - n..]).unwrap()
}

#[tokio::test]
async fn root_says_hello_world() {
    let base = serve(Pace::INSTANT).await;
    let input = user(RunAgentInput::new("t", "r1"), "hi");
    let got = run(&base, "/", &input).await;
    assert_eq!(got.events, framed(&input, text("r1", &[hello::TEXT])));
    assert_eq!(got.messages.last().unwrap().text(), Some("Hello world!"));
}

#[tokio::test]
async fn agentic_chat_counts_down() {
    let base = serve(Pace::INSTANT).await;
    let input = user(RunAgentInput::new("t", "r1"), "hello");
    let got = run(&base, "/agentic_chat", &input).await;
    let deltas = [
        "counting down: ",
        "10  ",
        "9  ",
        "8  ",
        "7  ",
        "6  ",
        "5  ",
        "4  ",
        "3  ",
        "2  ",
        "1  ",
        "✓",
    ];
    assert_eq!(got.events, framed(&input, text("r1", &deltas)));
    assert_eq!(
        got.messages.last().unwrap().text(),
        Some("counting down: 10  9  8  7  6  5  4  3  2  1  ✓")
    );

    // No messages at all is the same branch.
    let empty = RunAgentInput::new("t", "r2");
    let got = run(&base, "/agentic_chat", &empty).await;
    assert_eq!(got.events, framed(&empty, text("r2", &deltas)));
}

#[tokio::test]
async fn agentic_chat_calls_the_frontend_tool() {
    let base = serve(Pace::INSTANT).await;
    let input = user(RunAgentInput::new("t", "r1"), "tool");
    let got = run(&base, "/agentic_chat", &input).await;
    let args = r#"{"background": "linear-gradient(135deg, #667eea 0%, #764ba2 100%)"}"#;
    assert_eq!(
        got.events,
        framed(&input, tool_call("r1-call-1", "change_background", &[args]))
    );
    let Message::Assistant(call) = got.messages.last().unwrap() else {
        panic!("{:?}", got.messages)
    };
    let calls = call.tool_calls.as_deref().unwrap();
    assert_eq!(calls[0].function.name, "change_background");
    assert_eq!(
        serde_json::from_str::<Value>(&calls[0].function.arguments).unwrap(),
        json!({"background": agentic_chat::BACKGROUND})
    );
    assert!(call.content.is_none(), "no text: {call:?}");
}

#[tokio::test]
async fn agentic_chat_reports_the_backend_tool_in_a_snapshot() {
    let base = serve(Pace::INSTANT).await;
    let input = user(RunAgentInput::new("t", "r1"), "backend_tool");
    let got = run(&base, "/agentic_chat", &input).await;
    let expected = vec![
        Message::user("u1", "backend_tool"),
        Message::Assistant(
            AssistantMessage::new("r1-msg-1").with_tool_calls(vec![ToolCall::new(
                "r1-call-1",
                "lookup_weather",
                r#"{"city": "San Francisco", "weather": "sunny"}"#,
            )]),
        ),
        Message::tool(
            "r1-msg-2",
            "r1-call-1",
            "The weather in San Francisco is sunny.",
        ),
    ];
    assert_eq!(
        got.events,
        framed(&input, vec![Event::messages_snapshot(expected.clone())])
    );
    assert_eq!(got.messages, expected);
}

#[tokio::test]
async fn agentic_chat_answers_the_tool_result() {
    let base = serve(Pace::INSTANT).await;
    let input = after_a_tool("r1");
    let got = run(&base, "/agentic_chat", &input).await;
    assert_eq!(
        got.events,
        framed(&input, text("r1", &["background changed ✓"]))
    );
    assert_eq!(got.messages.len(), 4);
}

#[tokio::test]
async fn backend_tool_rendering_sends_the_weather_in_a_snapshot() {
    let base = serve(Pace::INSTANT).await;
    let input = user(RunAgentInput::new("t", "r1"), "weather in SF?");
    let got = run(&base, "/backend_tool_rendering", &input).await;
    assert_eq!(
        got.events.len(),
        3,
        "no TOOL_CALL_* events: {:?}",
        got.events
    );
    assert_eq!(
        last_messages(&got, 3),
        json!([
            {"id": "u1", "role": "user", "content": "weather in SF?"},
            {"id": "r1-msg-1", "role": "assistant", "toolCalls": [{
                "id": "r1-call-1", "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"city\": \"San Francisco\"}"}
            }]},
            {"id": "r1-msg-2", "role": "tool", "toolCallId": "r1-call-1",
             "content": "{\"city\": \"San Francisco\", \"conditions\": \"sunny\", \"wind_speed\": \"10\", \"temperature\": \"20\", \"humidity\": \"60\"}"}
        ])
    );
    let Event::MessagesSnapshot(snapshot) = &got.events[1] else {
        panic!("{:?}", got.events)
    };
    assert_eq!(snapshot.messages, got.messages);

    let input = after_a_tool("r2");
    let got = run(&base, "/backend_tool_rendering", &input).await;
    assert_eq!(
        got.events,
        framed(&input, text("r2", &[backend_tool_rendering::DONE]))
    );
}

#[tokio::test]
async fn human_in_the_loop_streams_the_steps() {
    let base = serve(Pace::INSTANT).await;
    let input = user(RunAgentInput::new("t", "r1"), "plan a trip to Mars");
    let got = run(&base, "/human_in_the_loop", &input).await;
    let steps: Vec<String> = (1..=10)
        .map(|n| {
            let comma = if n < 10 { "," } else { "" };
            format!(r#"{{"description": "Step {n}", "status": "enabled"}}{comma}"#)
        })
        .collect();
    let mut deltas = vec![r#"{"steps":["#];
    deltas.extend(steps.iter().map(String::as_str));
    deltas.push("]}");
    assert_eq!(
        got.events,
        framed(
            &input,
            tool_call("r1-call-1", "generate_task_steps", &deltas)
        )
    );
    let Message::Assistant(call) = got.messages.last().unwrap() else {
        panic!("{:?}", got.messages)
    };
    let args: Value =
        serde_json::from_str(&call.tool_calls.as_ref().unwrap()[0].function.arguments).unwrap();
    let parsed: Vec<human_in_the_loop::TaskStep> =
        serde_json::from_value(args["steps"].clone()).unwrap();
    assert_eq!(parsed.len(), 10);
    assert_eq!(parsed[9].description, "Step 10");
    assert!(
        parsed
            .iter()
            .all(|s| s.status == human_in_the_loop::StepStatus::Enabled)
    );

    let input = after_a_tool("r2");
    let got = run(&base, "/human_in_the_loop", &input).await;
    assert_eq!(
        got.events,
        framed(&input, text("r2", &["Ok! I'm working on it."]))
    );
}

#[tokio::test]
async fn agentic_generative_ui_completes_the_steps_with_deltas() {
    let base = serve(Pace::INSTANT).await;
    // The input's state is ignored: the plan starts over.
    let input = user(RunAgentInput::new("t", "r1"), "go").with_state(json!({"steps": [
        {"description": "old", "status": "completed"}
    ]}));
    let got = run(&base, "/agentic_generative_ui", &input).await;
    let pending = json!({"steps": (1..=10)
        .map(|n| json!({"description": format!("Step {n}"), "status": "pending"}))
        .collect::<Vec<_>>()});
    let mut middle = vec![Event::state_snapshot(pending.clone())];
    for i in 0..10 {
        middle.push(Event::state_delta(
            serde_json::from_value(json!([
                {"op": "replace", "path": format!("/steps/{i}/status"), "value": "completed"}
            ]))
            .unwrap(),
        ));
    }
    let mut done = agentic_generative_ui::Plan::pending();
    for step in &mut done.steps {
        step.status = agentic_generative_ui::StepStatus::Completed;
    }
    let done = serde_json::to_value(&done).unwrap();
    middle.push(Event::state_snapshot(done.clone()));
    assert_eq!(got.events, framed(&input, middle));
    assert_eq!(got.state, done);
    assert_eq!(got.messages.len(), 1, "no text");

    // The deltas alone, applied to the first snapshot, reach the final state too.
    let mut reducer = Reducer::new();
    reducer
        .apply_all(&got.events[..got.events.len() - 2])
        .unwrap();
    assert_eq!(*reducer.state(), done);
}

#[tokio::test]
async fn tool_based_generative_ui_sends_the_haiku() {
    let base = serve(Pace::INSTANT).await;
    let input = user(RunAgentInput::new("t", "r1"), "a haiku about AI");
    let got = run(&base, "/tool_based_generative_ui", &input).await;
    assert_eq!(
        got.events.len(),
        3,
        "no TOOL_CALL_* events: {:?}",
        got.events
    );
    let Message::Assistant(call) = &got.messages[1] else {
        panic!("{:?}", got.messages)
    };
    let call = &call.tool_calls.as_ref().unwrap()[0];
    assert_eq!(call.function.name, "generate_haiku");
    assert_eq!(
        serde_json::from_str::<Value>(&call.function.arguments).unwrap(),
        json!({
            "japanese": ["エーアイの", "橋つなぐ道", "コパキット"],
            "english": ["From AI's realm", "A bridge-road linking us—", "CopilotKit."]
        })
    );
    assert_eq!(
        last_messages(&got, 1),
        json!([{"id": "r1-msg-2", "role": "tool", "toolCallId": call.id.as_str(), "content": "Haiku created"}])
    );

    let input = user(RunAgentInput::new("t", "r2"), "thanks");
    let got = run(&base, "/tool_based_generative_ui", &input).await;
    let expected = vec![
        Message::user("u1", "thanks"),
        Message::assistant("r2-msg-1", tool_based_generative_ui::DONE),
    ];
    assert_eq!(
        got.events,
        framed(&input, vec![Event::messages_snapshot(expected.clone())])
    );
    assert_eq!(got.messages, expected);
}

#[tokio::test]
async fn shared_state_replaces_the_recipe() {
    let base = serve(Pace::INSTANT).await;
    // An ingredient the page added is overwritten, as by the reference.
    let input = user(RunAgentInput::new("t", "r1"), "make it spicy").with_state(json!({
        "recipe": {"title": "Mine", "ingredients": [{"icon": "🥕", "name": "Carrot", "amount": "2"}]}
    }));
    let got = run(&base, "/shared_state", &input).await;
    let recipe = json!({"recipe": {
        "skill_level": "Advanced",
        "special_preferences": ["Low Carb", "Spicy"],
        "cooking_time": "15 min",
        "ingredients": [
            {"icon": "🍗", "name": "chicken breast", "amount": "1"},
            {"icon": "🌶️", "name": "chili powder", "amount": "1 tsp"},
            {"icon": "🧂", "name": "Salt", "amount": "a pinch"},
            {"icon": "🥬", "name": "Lettuce leaves", "amount": "handful"}
        ],
        "instructions": [
            "Season chicken with chili powder and salt.",
            "Sear until fully cooked.",
            "Slice and wrap in lettuce."
        ]
    }});
    assert_eq!(
        got.events,
        framed(&input, vec![Event::state_snapshot(recipe.clone())])
    );
    assert_eq!(got.state, recipe);
    // The keys in the reference's order.
    let Event::StateSnapshot(snapshot) = &got.events[1] else {
        panic!()
    };
    let keys: Vec<&String> = snapshot.snapshot["recipe"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(
        keys,
        [
            "skill_level",
            "special_preferences",
            "cooking_time",
            "ingredients",
            "instructions"
        ]
    );
    assert_eq!(
        serde_json::to_value(shared_state::Recipe::reference()).unwrap(),
        recipe["recipe"]
    );
}

#[tokio::test]
async fn predictive_state_updates_stream_the_document() {
    let base = serve(Pace::INSTANT).await;
    let input = user(RunAgentInput::new("t", "r1"), "write a story");
    let got = run(&base, "/predictive_state_updates", &input).await;
    let dog = predictive_state_updates::dog_name("r1");
    assert!(predictive_state_updates::DOG_NAMES.contains(&dog));
    let story =
        format!("Once upon a time, there was a dog named {dog}. {dog} was a very good dog.");
    let words: Vec<String> = story.split(' ').map(|w| format!("{w} ")).collect();
    assert_eq!(words.len(), 16);
    let mut deltas = vec![r#"{"document":""#];
    deltas.extend(words.iter().map(String::as_str));
    deltas.push(r#""}"#);

    let mut middle = vec![Event::custom(
        "PredictState",
        json!([{"state_key": "document", "tool": "write_document_local", "tool_argument": "document"}]),
    )];
    middle.extend(tool_call("r1-call-1", "write_document_local", &deltas));
    middle.extend(tool_call("r1-call-2", "confirm_changes", &["{}"]));
    assert_eq!(got.events, framed(&input, middle));

    // The arguments parse whole: the document is the story and its trailing space.
    let calls: Vec<&ToolCall> = got
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant(a) => a.tool_calls.as_ref(),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1].function.name, "confirm_changes");
    let args: Value = serde_json::from_str(&calls[0].function.arguments).unwrap();
    assert_eq!(args["document"], format!("{story} "));
    assert_eq!(calls[1].function.arguments, "{}");

    let input = after_a_tool("r2");
    let got = run(&base, "/predictive_state_updates", &input).await;
    assert_eq!(got.events, framed(&input, text("r2", &["Ok!"])));
}

/// A client that honours `PredictState` (`@ag-ui/client` 1.0.0, straight from a CopilotKit
/// page) answers `confirm_changes` with the predicted document in its state: still "Ok!".
#[tokio::test]
async fn predictive_state_updates_accept_the_predicted_document_back() {
    let base = serve(Pace::INSTANT).await;
    let input = after_a_tool("r2")
        .with_state(json!({"document": "Once upon a time, there was a dog named Rex. "}));
    let got = run(&base, "/predictive_state_updates", &input).await;
    assert_eq!(got.events, framed(&input, text("r2", &["Ok!"])));
}

#[test]
fn the_dog_varies_with_the_run() {
    let dogs: std::collections::BTreeSet<&str> = (0..40)
        .map(|i| predictive_state_updates::dog_name(&format!("run-{i}")))
        .collect();
    assert_eq!(dogs.len(), 4, "{dogs:?}");
}

/// The pauses are there, scaled: at a pace of 0.02 the plan's eleven 1 s pauses take at least
/// 220 ms; at pace 0 the whole run is far quicker.
#[tokio::test]
async fn the_pace_scales_the_pauses() {
    let slow = serve(Pace::new(0.02).unwrap()).await;
    let fast = serve(Pace::INSTANT).await;
    let input = RunAgentInput::new("t", "r1");

    let start = Instant::now();
    run(&slow, "/agentic_generative_ui", &input).await;
    let paced = start.elapsed();
    assert!(paced >= Duration::from_millis(220), "{paced:?}");

    let start = Instant::now();
    run(&fast, "/agentic_generative_ui", &input).await;
    let instant = start.elapsed();
    assert!(instant < paced, "{instant:?} vs {paced:?}");

    // The countdown: ten 300 ms pauses → at least 60 ms at 0.02.
    let start = Instant::now();
    run(&slow, "/agentic_chat", &input).await;
    assert!(start.elapsed() >= Duration::from_millis(60));
}

/// What `AgentEndpoint` answers bad input with: a JSON `4xx` naming what was wrong, on every
/// route, never a stream.
#[tokio::test]
async fn bad_input_is_a_json_4xx() {
    let base = serve(Pace::INSTANT).await;
    let routes = [
        "/",
        "/agentic_chat",
        "/backend_tool_rendering",
        "/human_in_the_loop",
        "/agentic_generative_ui",
        "/tool_based_generative_ui",
        "/shared_state",
        "/predictive_state_updates",
    ];
    for route in routes {
        for (body, status) in [
            ("not json", 400),
            (r#"{"threadId": "t"}"#, 400),
            (
                r#"{"threadId": "t", "runId": "r", "messages": [{"id": "u1", "role": "user", "content": 5}]}"#,
                400,
            ),
        ] {
            let response = post(&base, route, body.to_owned()).await;
            assert_eq!(response.status(), status, "{route} {body}");
            assert_json_error(response).await;
        }
        let response = reqwest::Client::new()
            .post(format!("{base}{route}"))
            .header("Content-Type", "text/plain")
            .body(r#"{"threadId": "t", "runId": "r"}"#)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 415, "{route}");
        assert_json_error(response).await;

        let response = reqwest::get(format!("{base}{route}")).await.unwrap();
        assert_eq!(response.status(), 405, "{route}");
        assert_json_error(response).await;
    }

    // A state that does not fit the route's typed state is the client's mistake.
    for (route, state) in [
        ("/agentic_generative_ui", json!({"steps": "all of them"})),
        ("/shared_state", json!({"recipe": {"ingredients": 3}})),
    ] {
        let input = RunAgentInput::new("t", "r").with_state(state);
        let response = post(&base, route, serde_json::to_string(&input).unwrap()).await;
        assert_eq!(response.status(), 400, "{route}");
        let body = assert_json_error(response).await;
        assert_eq!(body["error"]["kind"], "invalid-state", "{body}");
    }
}

async fn assert_json_error(response: reqwest::Response) -> Value {
    assert_eq!(
        response.headers()["content-type"],
        "application/json",
        "{response:?}"
    );
    let body: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
    assert!(body["error"]["message"].is_string(), "{body}");
    body
}

#[tokio::test]
async fn a_page_on_another_origin_passes_the_preflight() {
    let base = serve(Pace::INSTANT).await;
    let client = reqwest::Client::new();
    let preflight = client
        .request(reqwest::Method::OPTIONS, format!("{base}/agentic_chat"))
        .header("Origin", "http://127.0.0.1:3000")
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", "content-type,accept")
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_success(), "{}", preflight.status());
    let headers = preflight.headers();
    assert_eq!(headers["access-control-allow-origin"], "*");
    let methods = headers["access-control-allow-methods"].to_str().unwrap();
    assert!(methods.contains("POST"), "{methods}");
    let allowed = headers["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    assert!(
        allowed.contains("content-type") && allowed.contains("accept"),
        "{allowed}"
    );

    let input = RunAgentInput::new("t", "r");
    let response = client
        .post(format!("{base}/"))
        .header("Origin", "http://127.0.0.1:3000")
        .header("Content-Type", "application/json")
        .body(serde_json::to_string(&input).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["access-control-allow-origin"], "*");
}

/// An unknown route and a method a route does not take get JSON errors, as the runs' own
/// rejections do.
#[tokio::test]
async fn framework_4xx_answers_are_json() {
    let base = serve(Pace::INSTANT).await;
    let client = reqwest::Client::new();
    for (method, route, status, kind) in [
        (reqwest::Method::GET, "/no_such_feature", 404, "not-found"),
        (
            reqwest::Method::GET,
            "/agentic_chat",
            405,
            "method-not-allowed",
        ),
    ] {
        let response = client
            .request(method.clone(), format!("{base}{route}"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), status, "{method} {route}");
        let body: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
        assert_eq!(body["error"]["kind"], kind, "{method} {route}: {body}");
    }
}
