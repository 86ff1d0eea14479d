//! The rig agent of this example over a real socket, read by the crate's own client (its
//! verification on), the model being the mock OpenAI-compatible server of the crate's tests:
//! one run with text, the rig tool `add` called and answered, then a frontend tool that ends
//! the run with its call pending; the next run, carrying the client's answer, continues.

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui::client::{Conversation, HttpAgent, Reducer, Subscriber};
use ag_ui::{Content, Event, RunFinishedOutcome, Tool};
use ag_ui_rig_agent::rig_agent;
use serde_json::json;

#[path = "../../../crates/ag-ui/tests/support/openai_mock.rs"]
#[allow(dead_code, unreachable_pub)]
mod openai_mock;
use openai_mock::{Reply, chunk, finish, sse};

/// Keeps every event the client saw.
#[derive(Default)]
struct Seen(Vec<Event>);

impl Subscriber for Seen {
    fn on_event(&mut self, event: &Event, _: &Reducer) -> ag_ui::client::Flow {
        self.0.push(event.clone());
        ag_ui::client::Flow::Continue
    }
}

fn call(id: &str, name: &str, arguments: &str) -> serde_json::Value {
    chunk(
        json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
                                  "function": {"name": name, "arguments": arguments}}]}),
    )
}

#[tokio::test]
async fn text_the_add_tool_and_a_frontend_tool_over_two_runs() {
    let (mock, base) = openai_mock::serve(vec![
        Reply::Sse(sse(&[
            chunk(json!({"role": "assistant", "content": "Adding."})),
            call("call_add", "add", r#"{"a":2,"b":3}"#),
            finish("tool_calls"),
        ])),
        Reply::Sse(sse(&[
            call("call_ok", "confirm", r#"{"question":"Is it 5?"}"#),
            finish("tool_calls"),
        ])),
        Reply::Sse(sse(&[
            chunk(json!({"content": "Confirmed: 5."})),
            finish("stop"),
        ])),
    ])
    .await;
    let agent = rig_agent(&base, "test-key", "mock-model");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let app = axum::Router::new().agent("/", AgentEndpoint::agent(agent));
    tokio::spawn(async move { axum::serve(listener, app).await });
    let client = HttpAgent::new(url);

    let mut conversation = Conversation::new("t");
    conversation.register_tool(
        Tool::new("confirm", "Asks the user to confirm").with_parameters(
            json!({"type": "object", "properties": {"question": {"type": "string"}}}),
        ),
        |args| Ok(format!("yes, {}", args["question"].as_str().unwrap_or("?"))),
    );
    conversation.add_user_message("What is 2 + 3? Ask me to confirm.");

    let mut seen = Seen::default();
    conversation.run(&client, &mut seen).await.unwrap();
    let text: String = seen
        .0
        .iter()
        .filter_map(|e| match e {
            Event::TextMessageContent(c) => Some(c.delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "Adding.");
    // The calls, by name: their ids are the run's.
    let id_of = |name: &str| {
        seen.0
            .iter()
            .find_map(|e| match e {
                Event::ToolCallStart(s) if s.tool_call_name == name => {
                    Some(s.tool_call_id.as_str().to_owned())
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("no call to {name}"))
    };
    let (add, confirm) = (id_of("add"), id_of("confirm"));
    let results: Vec<_> = seen
        .0
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallResult(r) => Some((r.tool_call_id.as_str(), &r.content)),
            _ => None,
        })
        .collect();
    // The rig tool answered; the frontend call is answered by the client.
    assert_eq!(results, [(add.as_str(), &Content::Text("5.0".into()))]);
    // The wire's own list, not the client's fallback (calls without a result).
    let finished = match seen.0.last() {
        Some(Event::RunFinished(done)) => done,
        other => panic!("the run did not finish: {other:?}"),
    };
    match &finished.outcome {
        Some(RunFinishedOutcome::Success {
            pending_tool_call_ids: Some(ids),
        }) => assert_eq!(
            ids.iter().map(|i| i.as_str()).collect::<Vec<_>>(),
            [confirm.as_str()]
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        conversation
            .pending_tool_calls()
            .iter()
            .map(|i| i.as_str())
            .collect::<Vec<_>>(),
        [confirm.as_str()]
    );

    assert_eq!(conversation.run_tools(), 1);
    conversation.run(&client, &mut ()).await.unwrap();
    assert_eq!(
        conversation.messages().last().unwrap().text(),
        Some("Confirmed: 5.")
    );
    let requests = mock.requests.lock().unwrap();
    assert_eq!(requests.len(), 3, "one request per model turn");
    let offered: Vec<_> = requests[0].1["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(offered, ["add", "confirm"]);
    let last = requests[2].1["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap();
    assert_eq!(
        (last["role"].as_str(), last["tool_call_id"].as_str()),
        (Some("tool"), Some(confirm.as_str()))
    );
    assert!(
        last["content"].to_string().contains("yes, Is it 5?"),
        "{last}"
    );
}
