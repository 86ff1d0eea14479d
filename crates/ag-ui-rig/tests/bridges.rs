//! The two model bridges, `ag_ui::llm::LlmAgent` and `RigAgent`, fed the same input: each asks
//! its mock OpenAI-compatible server (RigAgent through rig's OpenAI provider on the Chat
//! Completions API), and the requests show the model the same context and state message, the
//! same text for a tool message with an error (text parts joined by the one rule) and the same
//! text for a call to a tool the run does not have. They share one settings type for the loop.

#[path = "../../ag-ui/tests/support/openai_mock.rs"]
#[allow(dead_code, unreachable_pub)]
mod openai_mock;

use std::sync::Arc;

use ag_ui::llm::{BackendTool, LlmAgent, OpenAiClient, ToolOutput};
use ag_ui::server::bridge::{self, LoopConfig};
use ag_ui::server::{Agent, Runner};
use ag_ui::{
    AssistantMessage, Content, ContentPart, Context, Event, Message, RunAgentInput, Tool, ToolCall,
    ToolMessage, verify,
};
use ag_ui_rig::RigAgent;
use ag_ui_rig::rig_agent::AgentBuilder;
use ag_ui_rig::rig_core::providers::openai::OpenAIConfig;
use ag_ui_rig::rig_core::tool::PortableTool;
use futures::StreamExt;
use openai_mock::{Mock, Reply, chunk, finish, sse};
use serde_json::{Value, json};

/// The agent's own tool `book`, in rig.
struct Book;

#[derive(Debug, thiserror::Error)]
#[error("cannot book")]
struct BookError;

impl PortableTool for Book {
    const NAME: &'static str = "book";
    type Args = Value;
    type Output = String;
    type Error = BookError;

    fn description(&self) -> String {
        "Books it".into()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }

    async fn call(&self, _: Value) -> Result<String, BookError> {
        Ok("booked".into())
    }
}

/// The model's two turns: a call to `nope` (no such tool), then an answer.
fn replies() -> Vec<Reply> {
    vec![
        Reply::Sse(sse(&[
            chunk(
                json!({"tool_calls": [{"index": 0, "id": "call_x", "type": "function",
                                         "function": {"name": "nope", "arguments": "{}"}}]}),
            ),
            finish("tool_calls"),
        ])),
        Reply::Sse(sse(&[chunk(json!({"content": "Done."})), finish("stop")])),
    ]
}

fn input() -> RunAgentInput {
    let mut tool = ToolMessage::new(
        "t1",
        "call_1",
        Content::Parts(vec![
            ContentPart::text("the user"),
            ContentPart::text("said no"),
        ]),
    );
    tool.error = Some("denied".into());
    RunAgentInput::new("t", "r")
        .with_context(vec![Context::new("city", "Oslo")])
        .with_state(json!({"todos": ["milk"]}))
        .with_messages(vec![
            Message::user("u1", "Book it."),
            Message::Assistant(
                AssistantMessage::new("a1")
                    .with_tool_calls(vec![ToolCall::new("call_1", "book", "{}")]),
            ),
            Message::Tool(tool),
            Message::user("u2", "Try again."),
        ])
}

async fn run<A: Agent<State = Value>>(agent: A) -> Vec<Event> {
    let events: Vec<Event> = Runner::new(agent)
        .run(input())
        .unwrap()
        .collect::<Vec<_>>()
        .await;
    verify::verify_all(&events).unwrap_or_else(|v| panic!("{v}\n{events:#?}"));
    assert!(
        matches!(events.last(), Some(Event::RunFinished(_))),
        "{events:#?}"
    );
    events
}

/// The chat messages of request `n` the mock recorded.
fn messages(mock: &Mock, n: usize) -> Vec<Value> {
    mock.requests.lock().unwrap()[n].1["messages"]
        .as_array()
        .unwrap()
        .clone()
}

/// The content of each message with `role`, as text.
fn texts(messages: &[Value], role: &str) -> Vec<String> {
    messages
        .iter()
        .filter(|m| m["role"] == role)
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            other => other.to_string(),
        })
        .collect()
}

#[tokio::test]
async fn both_bridges_show_the_model_the_same_texts() {
    let (llm_mock, llm_base) = openai_mock::serve(replies()).await;
    let (rig_mock, rig_base) = openai_mock::serve(replies()).await;
    // One settings type for both loops.
    let config = LoopConfig::default().with_max_turns(3);
    let book =
        Tool::new("book", "Books it").with_parameters(json!({"type": "object", "properties": {}}));
    let llm = LlmAgent::<Value>::new(OpenAiClient::new(llm_base), "mock-model")
        .with_tool(BackendTool::from_declaration(book, |_, _| async {
            Ok(ToolOutput::text("booked"))
        }))
        .with_loop_config(config.clone());
    let model = OpenAIConfig::new("test-key")
        .with_base_url(rig_base)
        .client()
        .chat("mock-model");
    let rig = Arc::new(
        RigAgent::new(AgentBuilder::new(model).tool(Book).build()).with_loop_config(config),
    );
    run(llm).await;
    run(rig).await;

    for n in [0, 1] {
        let (llm, rig) = (messages(&llm_mock, n), messages(&rig_mock, n));
        // The context and state message, written by the bridge core.
        let context = bridge::context_text(
            &[Context::new("city", "Oslo")],
            Some(&json!({"todos": ["milk"]})),
        )
        .unwrap();
        assert_eq!(
            texts(&llm, "system"),
            std::slice::from_ref(&context),
            "request {n}"
        );
        assert_eq!(texts(&rig, "system"), [context], "request {n}");
        // The tool message with an error, its parts joined by the one rule.
        let tool = texts(&llm, "tool");
        assert_eq!(tool[0], "Error: denied\nthe user\nsaid no");
        assert_eq!(tool, texts(&rig, "tool"), "request {n}");
    }
    // The second request answers the call to `nope` with the same text.
    let unknown = bridge::unknown_tool_text("nope");
    assert_eq!(texts(&messages(&llm_mock, 1), "tool")[1], unknown);
    assert_eq!(texts(&messages(&rig_mock, 1), "tool")[1], unknown);
}
