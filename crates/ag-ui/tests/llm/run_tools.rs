//! Tools that work on the run: state published while a tool works
//! ([`BackendTool::with_run`]), the turn handed to the page
//! ([`ToolOutput::with_frontend_call`]), and state predicted from streaming arguments
//! ([`LlmAgent::with_predicted_state`]).

use ag_ui::llm::{BackendTool, LlmAgent, ToolOutput, ToolRun};
use ag_ui::server::PredictState;
use ag_ui::{Event, JsonPatchOperation, ToolCallStartEvent};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::support::openai_mock::{Reply, chunk, finish, sse};
use super::{call, call_start, finished, input, mock, run, text};

fn patch(ops: Value) -> Vec<JsonPatchOperation> {
    serde_json::from_value(ops).unwrap()
}

/// The state of the plan tests.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Plan {
    steps: Vec<String>,
    done: usize,
}

/// Arguments of `perform`.
#[derive(Deserialize, schemars::JsonSchema)]
struct Perform {
    /// The steps.
    steps: Vec<String>,
}

#[tokio::test]
async fn a_tool_working_on_the_run_publishes_the_state_as_it_goes() {
    let (mock, client) = mock(vec![
        Reply::Sse(sse(&[
            call(
                0,
                "perform",
                r#"{"steps":["digging a deep hole","planting the tree"]}"#,
            ),
            finish("tool_calls"),
        ])),
        Reply::Sse(sse(&[chunk(json!({"content": "Done."})), finish("stop")])),
    ])
    .await;
    let perform = BackendTool::with_run(
        "perform",
        "Performs the steps",
        |args: Perform, mut run: ToolRun<Plan>| async move {
            let mut plan = run.state().clone();
            plan.steps = args.steps;
            run.publish(plan.clone()).await?;
            for _ in 0..plan.steps.len() {
                plan.done += 1;
                run.publish(plan.clone()).await?;
            }
            assert_eq!(run.state(), &plan);
            Ok(ToolOutput::text("performed"))
        },
    );
    let agent = LlmAgent::new(client, "mock-model").with_tool(perform);
    let events = run(agent, input()).await;

    let mut expected = vec![
        super::started(),
        call_start("r-call-1", "perform", "r-msg-1"),
        Event::tool_call_args(
            "r-call-1",
            r#"{"steps":["digging a deep hole","planting the tree"]}"#,
        ),
        Event::tool_call_end("r-call-1"),
        // No state came with the input: the first publication is a snapshot.
        Event::state_snapshot(
            json!({"steps": ["digging a deep hole", "planting the tree"], "done": 0}),
        ),
        Event::state_delta(patch(
            json!([{"op": "replace", "path": "/done", "value": 1}]),
        )),
        Event::state_delta(patch(
            json!([{"op": "replace", "path": "/done", "value": 2}]),
        )),
        Event::tool_call_result("r-msg-2", "r-call-1", "performed"),
    ];
    expected.extend(text("r-msg-3", &["Done."]));
    expected.push(finished(None, None));
    assert_eq!(events, expected);

    // The model's next request shows the state as the tool left it.
    let requests = mock.requests.lock().unwrap();
    assert_eq!(
        requests[1].1["messages"][0]["content"],
        "The application's current state (JSON):\n{\"steps\":[\"digging a deep hole\",\"planting the tree\"],\"done\":2}"
    );
}

/// A tool that publishes, then returns a state of its own: both reach the client in order.
#[tokio::test]
async fn a_returned_state_follows_the_published_ones() {
    let (_, client) = mock(vec![
        Reply::Sse(sse(&[
            call(
                0,
                "perform",
                r#"{"steps":["a step long enough for a delta"]}"#,
            ),
            finish("tool_calls"),
        ])),
        Reply::Sse(sse(&[chunk(json!({"content": "ok"})), finish("stop")])),
    ])
    .await;
    let perform = BackendTool::with_run(
        "perform",
        "Performs the steps",
        |args: Perform, mut run: ToolRun<Plan>| async move {
            let mut plan = Plan {
                steps: args.steps,
                done: 0,
            };
            run.publish(plan.clone()).await?;
            plan.done = 1;
            Ok(ToolOutput::text("performed").with_state(plan))
        },
    );
    let events = run(
        LlmAgent::new(client, "mock-model").with_tool(perform),
        input(),
    )
    .await;
    let states: Vec<&Event> = events
        .iter()
        .filter(|e| matches!(e, Event::StateSnapshot(_) | Event::StateDelta(_)))
        .collect();
    assert_eq!(
        states,
        [
            &Event::state_snapshot(json!({"steps": ["a step long enough for a delta"], "done": 0})),
            &Event::state_delta(patch(
                json!([{"op": "replace", "path": "/done", "value": 1}])
            )),
        ]
    );
}

/// Arguments of `write`.
#[derive(Deserialize, schemars::JsonSchema)]
struct Write {
    /// The whole document.
    document: String,
}

/// The state of the document tests.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Doc {
    #[serde(default)]
    document: String,
}

fn write_tool() -> BackendTool<Doc> {
    BackendTool::new(
        "write",
        "Writes the document",
        |args: Write, _state: Doc| async move {
            Ok(ToolOutput::text("written")
                .with_state(Doc {
                    document: args.document,
                })
                .with_frontend_call("confirm", json!({"ask": "Keep it?"})))
        },
    )
}

#[tokio::test]
async fn a_tool_hands_the_turn_to_the_page_and_the_run_waits_for_it() {
    let (mock, client) = mock(vec![Reply::Sse(sse(&[
        call(0, "write", r#"{"document":"Hi"}"#),
        finish("tool_calls"),
    ]))])
    .await;
    let input = input().with_tools(vec![ag_ui::Tool::new("confirm", "Ask the user")]);
    let events = run(
        LlmAgent::new(client, "mock-model").with_tool(write_tool()),
        input,
    )
    .await;
    assert_eq!(
        events,
        [
            super::started(),
            call_start("r-call-1", "write", "r-msg-1"),
            Event::tool_call_args("r-call-1", r#"{"document":"Hi"}"#),
            Event::tool_call_end("r-call-1"),
            Event::state_snapshot(json!({"document": "Hi"})),
            Event::tool_call_result("r-msg-2", "r-call-1", "written"),
            // The page's tool, in an assistant message of its own; the model is not asked again.
            ToolCallStartEvent::new("r-call-2", "confirm").into(),
            Event::tool_call_args("r-call-2", r#"{"ask":"Keep it?"}"#),
            Event::tool_call_end("r-call-2"),
            finished(None, Some(vec!["r-call-2"])),
        ]
    );
    assert_eq!(mock.requests.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_predicted_argument_fills_the_state_while_the_model_writes_it() {
    let piece = |arguments: &str| {
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]}))
    };
    let (_, client) = mock(vec![Reply::Sse(sse(&[
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "c0", "type": "function",
                                      "function": {"name": "write", "arguments": ""}}]}),
        ),
        piece(r#"{"docu"#),
        piece(r#"ment": "Once"#),
        piece(r#" upon"#),
        piece(r#" a time\u00e9"}"#),
        finish("tool_calls"),
    ]))])
    .await;
    let agent = LlmAgent::new(client, "mock-model")
        .with_tool(write_tool())
        .with_predicted_state(
            PredictState::new("document", "write").with_tool_argument("document"),
        );
    let input = input()
        .with_tools(vec![ag_ui::Tool::new("confirm", "Ask the user")])
        .with_state(json!({"document": ""}));
    let events = run(agent, input).await;
    let add = |value: &str| {
        Event::state_delta(patch(
            json!([{"op": "add", "path": "/document", "value": value}]),
        ))
    };
    assert_eq!(
        &events[..12],
        [
            super::started(),
            PredictState::event(&[
                PredictState::new("document", "write").with_tool_argument("document")
            ]),
            call_start("r-call-1", "write", "r-msg-1"),
            Event::tool_call_args("r-call-1", r#"{"docu"#),
            // `{"docu` has no document yet; then each piece that changes it.
            Event::tool_call_args("r-call-1", r#"ment": "Once"#),
            add("Once"),
            Event::tool_call_args("r-call-1", " upon"),
            add("Once upon"),
            Event::tool_call_args("r-call-1", r#" a time\u00e9"}"#),
            add("Once upon a timeé"),
            Event::tool_call_end("r-call-1"),
            // The tool made the prediction the state: nothing left to publish.
            Event::tool_call_result("r-msg-2", "r-call-1", "written"),
        ]
    );
}
