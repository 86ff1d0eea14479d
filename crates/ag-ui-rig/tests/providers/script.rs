//! Model turns written once and served by each provider's mock in its own wire: rig's OpenAI
//! provider on the Chat Completions API, and rig's Anthropic provider on the Messages API.
//! The requests each provider's mock recorded are read back the same way.

use std::sync::Arc;

use ag_ui::server::Runner;
use ag_ui::{Event, RunAgentInput, verify};
use ag_ui_rig::RigAgent;
use ag_ui_rig::rig_agent::AgentBuilder;
use ag_ui_rig::rig_agent::agent::NoToolConfig;
use ag_ui_rig::rig_core::providers::anthropic::AnthropicConfig;
use ag_ui_rig::rig_core::providers::openai::OpenAIConfig;
use futures::StreamExt;
use serde_json::{Value, json};

use crate::{anthropic_mock, openai_mock};
use openai_mock::{Mock, Reply};

/// The providers every test runs against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Provider {
    /// rig's OpenAI provider, Chat Completions API.
    OpenAi,
    /// rig's Anthropic provider, Messages API.
    Anthropic,
}

pub(crate) const PROVIDERS: [Provider; 2] = [Provider::OpenAi, Provider::Anthropic];

/// One block of a model turn.
pub(crate) enum Part {
    /// Reasoning, streamed in these pieces.
    Reasoning(&'static [&'static str]),
    /// Text, streamed in these pieces.
    Text(&'static [&'static str]),
    /// A tool call with the provider's id, streaming its arguments in these pieces.
    Call(&'static str, &'static str, &'static [&'static str]),
}

/// One model turn: its blocks, and the usage reported (prompt, completion tokens).
pub(crate) struct Turn(pub(crate) Vec<Part>, pub(crate) (u64, u64));

impl Provider {
    /// `turn` in this provider's wire, as the mock sends it.
    pub(crate) fn turn(self, turn: &Turn) -> Reply {
        Reply::Sse(self.body(turn))
    }

    fn body(self, Turn(parts, (input, output)): &Turn) -> Vec<Vec<u8>> {
        let calls = parts.iter().any(|p| matches!(p, Part::Call(..)));
        match self {
            Provider::OpenAi => {
                let mut chunks = Vec::new();
                let mut call_index = 0;
                for part in parts {
                    match part {
                        Part::Reasoning(pieces) => chunks.extend(
                            pieces
                                .iter()
                                .map(|p| openai_mock::chunk(json!({"reasoning_content": p}))),
                        ),
                        Part::Text(pieces) => chunks.extend(
                            pieces
                                .iter()
                                .map(|p| openai_mock::chunk(json!({"content": p}))),
                        ),
                        Part::Call(id, name, pieces) => {
                            for (i, piece) in pieces.iter().enumerate() {
                                let function = if i == 0 {
                                    json!({"name": name, "arguments": piece})
                                } else {
                                    json!({"arguments": piece})
                                };
                                let mut call = json!({"index": call_index, "function": function});
                                if i == 0 {
                                    call["id"] = json!(id);
                                    call["type"] = json!("function");
                                }
                                chunks.push(openai_mock::chunk(json!({"tool_calls": [call]})));
                            }
                            call_index += 1;
                        }
                    }
                }
                chunks.push(openai_mock::finish(if calls {
                    "tool_calls"
                } else {
                    "stop"
                }));
                chunks.push(openai_mock::usage(*input, *output));
                openai_mock::sse(&chunks)
            }
            Provider::Anthropic => {
                use anthropic_mock as a;
                let mut events = vec![a::start(*input)];
                for (index, part) in parts.iter().enumerate() {
                    let index = index as u32;
                    match part {
                        Part::Reasoning(pieces) => {
                            events.push(a::thinking_block(index));
                            events.extend(pieces.iter().map(|p| a::thinking(index, p)));
                            events.push(a::signature(index));
                        }
                        Part::Text(pieces) => {
                            events.push(a::text_block(index));
                            events.extend(pieces.iter().map(|p| a::text(index, p)));
                        }
                        Part::Call(id, name, pieces) => {
                            events.push(a::tool_block(index, id, name));
                            events.extend(pieces.iter().map(|p| a::arguments(index, p)));
                        }
                    }
                    events.push(a::stop_block(index));
                }
                events.extend(a::finish(
                    if calls { "tool_use" } else { "end_turn" },
                    *output,
                ));
                a::sse(&events)
            }
        }
    }

    /// The first pieces of a turn streaming `text`, then nothing ever again; `dropped` fires
    /// when the client hangs up.
    pub(crate) fn hang(self, text: &str, dropped: tokio::sync::oneshot::Sender<()>) -> Reply {
        let pieces = match self {
            Provider::OpenAi => openai_mock::sse(&[openai_mock::chunk(json!({"content": text}))])
                .into_iter()
                .take(1)
                .collect(),
            Provider::Anthropic => anthropic_mock::sse(&[
                anthropic_mock::start(1),
                anthropic_mock::text_block(0),
                anthropic_mock::text(0, text),
            ]),
        };
        Reply::Hang(pieces, dropped)
    }

    /// An error answer with `status` whose body says `message`, as the provider writes it.
    pub(crate) fn error(self, status: u16, message: &str) -> Reply {
        let body = match self {
            Provider::OpenAi => {
                json!({"error": {"message": message, "type": "rate_limit"}}).to_string()
            }
            Provider::Anthropic => anthropic_mock::error_body("rate_limit_error", message),
        };
        Reply::Status(status, vec![("content-type", "application/json")], body)
    }

    /// A mock of this provider serving `replies`, and an agent builder on its model.
    pub(crate) async fn serve(
        self,
        replies: Vec<Reply>,
    ) -> (Arc<Mock>, AgentBuilder<NoToolConfig>) {
        match self {
            Provider::OpenAi => {
                let (mock, base) = openai_mock::serve(replies).await;
                let model = OpenAIConfig::new("test-key")
                    .with_base_url(base)
                    .client()
                    .chat("mock-model");
                (mock, AgentBuilder::new(model))
            }
            Provider::Anthropic => {
                let (mock, origin) = openai_mock::serve_at("/v1/messages", replies).await;
                let model = AnthropicConfig::new("test-key")
                    .with_base_url(origin)
                    .client()
                    .completion("claude-mock");
                (mock, AgentBuilder::new(model).max_tokens(1024))
            }
        }
    }

    /// The names of the tools request `body` offered.
    pub(crate) fn tools(self, body: &Value) -> Vec<String> {
        let name = match self {
            Provider::OpenAi => "/function/name",
            Provider::Anthropic => "/name",
        };
        body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t.pointer(name).and_then(Value::as_str))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every system text of request `body`, in order.
    pub(crate) fn system(self, body: &Value) -> Vec<String> {
        let mut texts = Vec::new();
        if let Provider::Anthropic = self {
            match &body["system"] {
                Value::String(s) => texts.push(s.clone()),
                Value::Array(blocks) => texts.extend(
                    blocks
                        .iter()
                        .filter_map(|b| b["text"].as_str().map(str::to_owned)),
                ),
                _ => {}
            }
        }
        for message in body["messages"].as_array().into_iter().flatten() {
            if message["role"] == "system" {
                texts.push(text_of(&message["content"]));
            }
        }
        texts
    }

    /// The tool results request `body` carries: each answered call's id and its text.
    pub(crate) fn results(self, body: &Value) -> Vec<(String, String)> {
        let messages = body["messages"].as_array().into_iter().flatten();
        match self {
            Provider::OpenAi => messages
                .filter(|m| m["role"] == "tool")
                .map(|m| {
                    (
                        m["tool_call_id"].as_str().unwrap_or("").to_owned(),
                        text_of(&m["content"]),
                    )
                })
                .collect(),
            Provider::Anthropic => messages
                .filter(|m| m["role"] == "user")
                .flat_map(|m| m["content"].as_array().into_iter().flatten())
                .filter(|b| b["type"] == "tool_result")
                .map(|b| {
                    (
                        b["tool_use_id"].as_str().unwrap_or("").to_owned(),
                        text_of(&b["content"]),
                    )
                })
                .collect(),
        }
    }

    /// The text of request `body`'s last message.
    pub(crate) fn last_text(self, body: &Value) -> String {
        body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .map(|m| text_of(&m["content"]))
            .unwrap_or_default()
    }
}

/// A content field as text: a string, or its blocks' texts joined with newlines.
pub(crate) fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Runs `input` through `agent` (10 s at most) and returns its events, verified.
pub(crate) async fn run(agent: &Arc<RigAgent>, input: RunAgentInput) -> Vec<Event> {
    let events: Vec<Event> = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        Runner::new(Arc::clone(agent))
            .run(input)
            .unwrap()
            .collect::<Vec<_>>(),
    )
    .await
    .expect("the run ends");
    verify::verify_all(&events).unwrap_or_else(|v| panic!("{v}\n{events:#?}"));
    events
}
