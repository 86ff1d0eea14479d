//! The rig bridge against the mock OpenAI-compatible server, through rig's own OpenAI provider
//! (Chat Completions API). Every AG-UI stream produced passes the verifier.

use std::time::Duration;

use ag_ui::rig::RigAgent;
use ag_ui::rig::rig_core::client::CompletionClient;
use ag_ui::rig::rig_core::providers::openai;
use ag_ui::rig::rig_core::tool::Tool as RigTool;
use ag_ui::server::Runner;
use ag_ui::{
    Event, EventType, Message, RunAgentInput, RunErrorEvent, RunFinishedOutcome, Tool, ToolCall,
    verify,
};
use futures::StreamExt;
use serde::Deserialize;
use serde_json::{Value, json};

mod support;
use support::openai_mock::{self, Reply, chunk, finish, sse, usage};

type Model = openai::completion::CompletionModel;

/// Arguments of `add`.
#[derive(Deserialize)]
struct AddArgs {
    a: f64,
    b: f64,
}

/// The sum of two numbers.
struct Add;

#[derive(Debug, thiserror::Error)]
#[error("cannot add")]
struct AddError;

impl RigTool for Add {
    const NAME: &'static str = "add";
    type Error = AddError;
    type Args = AddArgs;
    type Output = f64;

    fn description(&self) -> String {
        "Adds two numbers".into()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
               "required": ["a", "b"]})
    }

    async fn call(&self, args: AddArgs) -> Result<f64, AddError> {
        Ok(args.a + args.b)
    }
}

async fn agent(replies: Vec<Reply>) -> (std::sync::Arc<openai_mock::Mock>, RigAgent<Model>) {
    let (mock, base) = openai_mock::serve(replies).await;
    let client = openai::CompletionsClient::builder()
        .api_key("test-key")
        .base_url(&base)
        .build()
        .unwrap();
    let agent = client
        .agent("mock-model")
        .preamble("Be brief.")
        .tool(Add)
        .build();
    (
        mock,
        RigAgent::new(agent).with_usage_names("openai", "mock-model"),
    )
}

fn input() -> RunAgentInput {
    RunAgentInput::new("t", "r").with_messages(vec![Message::user("u1", "Hi")])
}

async fn run(agent: RigAgent<Model>, input: RunAgentInput) -> Vec<Event> {
    let events: Vec<Event> = tokio::time::timeout(
        Duration::from_secs(10),
        Runner::new(agent).run(input).unwrap().collect::<Vec<_>>(),
    )
    .await
    .expect("the run ends");
    verify::verify_all(&events).unwrap_or_else(|v| panic!("{v}\n{events:#?}"));
    events
}

fn call(index: u32, id: &str, name: &str, arguments: &str) -> Value {
    chunk(
        json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                                  "function": {"name": name, "arguments": arguments}}]}),
    )
}

fn args(index: u32, arguments: &str) -> Value {
    chunk(json!({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]}))
}

fn types(events: &[Event]) -> Vec<EventType> {
    events.iter().map(Event::event_type).collect()
}

fn finished(events: &[Event]) -> &ag_ui::RunFinishedEvent {
    match events.last() {
        Some(Event::RunFinished(done)) => done,
        other => panic!("the run did not finish: {other:?}"),
    }
}

fn error(events: &[Event]) -> &RunErrorEvent {
    match events.last() {
        Some(Event::RunError(e)) => e,
        other => panic!("the run did not end with RUN_ERROR: {other:?}"),
    }
}

#[tokio::test]
async fn text_and_reasoning_stream_with_usage() {
    let (mock, agent) = agent(vec![Reply::Sse(sse(&[
        chunk(json!({"reasoning_content": "Think"})),
        chunk(json!({"reasoning_content": "ing."})),
        chunk(json!({"content": "Hel"})),
        chunk(json!({"content": "lo"})),
        finish("stop"),
        usage(7, 3),
    ]))])
    .await;
    let events = run(agent, input()).await;
    use EventType as T;
    assert_eq!(
        types(&events),
        vec![
            T::RunStarted,
            T::ReasoningStart,
            T::ReasoningMessageStart,
            T::ReasoningMessageContent,
            T::ReasoningMessageContent,
            T::ReasoningMessageEnd,
            T::ReasoningEnd,
            T::TextMessageStart,
            T::TextMessageContent,
            T::TextMessageContent,
            T::TextMessageEnd,
            T::RunFinished,
        ]
    );
    assert!(events.contains(&Event::text_message_content("r-msg-2", "lo")));
    let usage = &finished(&events).usage.as_ref().unwrap()[0];
    assert_eq!(
        (usage.input_tokens, usage.output_tokens),
        (Some(7), Some(3))
    );
    let request = &mock.requests.lock().unwrap()[0].1;
    assert_eq!(request["messages"][0]["role"], "system");
    assert!(request["messages"][0].to_string().contains("Be brief."));
    let last = request["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["role"], "user");
    assert!(last.to_string().contains("Hi"));
    assert_eq!(request["stream"], true);
}

#[tokio::test]
async fn a_tool_call_streams_its_arguments_and_result_then_the_model_answers() {
    let (mock, agent) = agent(vec![
        Reply::Sse(sse(&[
            chunk(json!({"content": "Adding."})),
            call(0, "call_a", "add", "{\"a\":"),
            args(0, "2,\"b\":"),
            args(0, "3}"),
            finish("tool_calls"),
            usage(10, 5),
        ])),
        Reply::Sse(sse(&[
            chunk(json!({"content": "It is 5."})),
            finish("stop"),
            usage(20, 4),
        ])),
    ])
    .await;
    let events = run(agent, input()).await;
    let start = events
        .iter()
        .find_map(|e| match e {
            Event::ToolCallStart(s) => Some(s),
            _ => None,
        })
        .unwrap();
    assert_eq!(start.tool_call_id.as_str(), "call_a");
    assert_eq!(start.tool_call_name, "add");
    assert_eq!(
        start.parent_message_id.as_ref().unwrap().as_str(),
        "r-msg-1"
    );
    let streamed: String = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallArgs(a) => Some(a.delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(streamed, r#"{"a":2,"b":3}"#);
    assert!(
        events
            .iter()
            .filter(|e| matches!(e, Event::ToolCallArgs(_)))
            .count()
            >= 2
    );
    let result = events
        .iter()
        .find_map(|e| match e {
            Event::ToolCallResult(r) => Some(r),
            _ => None,
        })
        .unwrap();
    assert_eq!(result.tool_call_id.as_str(), "call_a");
    assert_eq!(result.content, ag_ui::Content::Text("5.0".into()));
    assert!(events.contains(&Event::text_message_content("r-msg-3", "It is 5.")));
    let usage = &finished(&events).usage.as_ref().unwrap()[0];
    assert_eq!(
        (usage.input_tokens, usage.output_tokens),
        (Some(30), Some(9))
    );
    // The second request carries the call and its result.
    let second = &mock.requests.lock().unwrap()[1].1["messages"];
    let tool = second.as_array().unwrap().last().unwrap();
    assert_eq!(tool["role"], "tool");
    assert_eq!(tool["tool_call_id"], "call_a");
}

#[tokio::test]
async fn two_tools_in_one_turn() {
    let (_, agent) = agent(vec![
        Reply::Sse(sse(&[
            call(0, "call_a", "add", r#"{"a":1,"b":2}"#),
            call(1, "call_b", "add", r#"{"a":3,"b":4}"#),
            finish("tool_calls"),
        ])),
        Reply::Sse(sse(&[
            chunk(json!({"content": "3 and 7."})),
            finish("stop"),
        ])),
    ])
    .await;
    let events = run(agent, input()).await;
    let results: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallResult(r) => {
                Some((r.tool_call_id.as_str().to_owned(), r.content.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        vec![
            ("call_a".to_owned(), ag_ui::Content::Text("3.0".into())),
            ("call_b".to_owned(), ag_ui::Content::Text("7.0".into())),
        ]
    );
    assert!(
        finished(&events).usage.is_none(),
        "the mock reported no usage"
    );
}

fn confirm() -> Tool {
    Tool::new("confirm", "Asks the user to confirm")
        .with_parameters(json!({"type": "object", "properties": {"question": {"type": "string"}}}))
}

#[tokio::test]
async fn a_frontend_tool_ends_the_run_and_the_next_run_continues() {
    let (mock, agent) = agent(vec![
        Reply::Sse(sse(&[
            call(0, "call_f", "confirm", r#"{"question":"ok?"}"#),
            finish("tool_calls"),
        ])),
        Reply::Sse(sse(&[
            chunk(json!({"content": "Confirmed."})),
            finish("stop"),
        ])),
    ])
    .await;
    let agent = std::sync::Arc::new(agent);
    let first = run_arc(&agent, input().with_tools(vec![confirm()])).await;
    match &finished(&first).outcome {
        Some(RunFinishedOutcome::Success {
            pending_tool_call_ids: Some(ids),
        }) => assert_eq!(
            ids.iter().map(|i| i.as_str()).collect::<Vec<_>>(),
            ["call_f"]
        ),
        other => panic!("{other:?}"),
    }
    assert!(!first.iter().any(|e| matches!(e, Event::ToolCallResult(_))));
    {
        let requests = mock.requests.lock().unwrap();
        assert_eq!(requests.len(), 1, "the run stopped for the client");
        let tools: Vec<_> = requests[0].1["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(tools, ["confirm", "add"]);
    }

    let next = RunAgentInput::new("t", "r2")
        .with_tools(vec![confirm()])
        .with_messages(vec![
            Message::user("u1", "Hi"),
            Message::Assistant(ag_ui::AssistantMessage::new("a1").with_tool_calls(vec![
                ToolCall::new("call_f", "confirm", r#"{"question":"ok?"}"#),
            ])),
            Message::tool("t1", "call_f", "yes"),
        ]);
    let second = run_arc(&agent, next).await;
    assert!(second.contains(&Event::text_message_content("r2-msg-1", "Confirmed.")));
    let requests = mock.requests.lock().unwrap();
    let messages = requests[1].1["messages"].as_array().unwrap();
    let last = messages.last().unwrap();
    assert_eq!(
        (last["role"].as_str(), last["tool_call_id"].as_str()),
        (Some("tool"), Some("call_f"))
    );
    assert_eq!(
        messages[messages.len() - 2]["tool_calls"][0]["id"],
        "call_f"
    );
}

async fn run_arc(agent: &std::sync::Arc<RigAgent<Model>>, input: RunAgentInput) -> Vec<Event> {
    let events: Vec<Event> = Runner::new(std::sync::Arc::clone(agent))
        .run(input)
        .unwrap()
        .collect()
        .await;
    verify::verify_all(&events).unwrap_or_else(|v| panic!("{v}\n{events:#?}"));
    events
}

#[tokio::test]
async fn a_provider_error_is_run_error_with_its_message() {
    let (_, agent) = agent(vec![Reply::Status(
        429,
        vec![("content-type", "application/json")],
        r#"{"error":{"message":"slow down, please","type":"rate_limit"}}"#.into(),
    )])
    .await;
    let events = run(agent, input()).await;
    let e = error(&events);
    assert_eq!(e.code.as_deref(), Some("rig_provider_error"));
    assert!(e.message.contains("slow down, please"), "{}", e.message);
}

#[tokio::test]
async fn a_run_without_messages_is_a_clear_error() {
    let (_, agent) = agent(vec![]).await;
    let events = run(agent, RunAgentInput::new("t", "r")).await;
    assert_eq!(error(&events).code.as_deref(), Some("rig_no_messages"));
}

#[tokio::test]
async fn cancelling_the_run_drops_the_provider_request() {
    let (dropped_tx, dropped_rx) = tokio::sync::oneshot::channel();
    let (_, agent) = agent(vec![Reply::Hang(
        vec![format!("data: {}\n\n", chunk(json!({"content": "Hi"}))).into_bytes()],
        dropped_tx,
    )])
    .await;
    let events = Runner::new(agent).run(input()).unwrap();
    let seen = openai_mock::cancel_at_first_content(events, dropped_rx).await;
    assert!(
        matches!(seen.last(), Some(Event::RunFinished(_))),
        "{seen:?}"
    );
}

#[tokio::test]
async fn a_frontend_tool_with_a_rig_tools_name_is_refused_before_the_model_is_asked() {
    let (mock, agent) = agent(vec![]).await;
    let events = run(
        agent,
        input().with_tools(vec![confirm(), Tool::new("add", "the client's add")]),
    )
    .await;
    let e = error(&events);
    assert_eq!(e.code.as_deref(), Some("tool_name_clash"));
    assert!(e.message.contains("`add`"), "{}", e.message);
    assert!(mock.requests.lock().unwrap().is_empty());
}
