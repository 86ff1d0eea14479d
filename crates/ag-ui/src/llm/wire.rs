//! The Chat Completions wire format, as OpenAI-compatible servers speak it (snake_case, the
//! provider's own naming, not AG-UI's).
//!
//! Requests are written with only what this crate sets; responses are read leniently: unknown
//! fields are ignored, `null` reads as absent, and the fields other servers add beside OpenAI's
//! schema (`reasoning_content` from DeepSeek, vLLM and llama.cpp; `reasoning` from OpenRouter
//! and Ollama) are kept.
//!
//! The request side (messages, tools, [`ChatRequest`]) is public: you build it, or read what
//! [`to_chat_messages`](super::to_chat_messages) built. The response side is read by
//! [`ChunkMapper`](super::ChunkMapper) and by no one else: a [`ChatChunk`] is opaque, with
//! constructors for tests and replays ([`ChatChunk::text`], [`ChatChunk::tool_calls`], …);
//! what a turn said comes out as events and a [`Turn`](super::Turn).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// `null` (or absent) reads as the type's default.
fn null_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A `POST /chat/completions` request body.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ChatRequest {
    /// The model (for Azure-style deployments, the deployment's model name; the URL names the
    /// deployment).
    pub model: String,
    /// The conversation.
    pub messages: Vec<ChatMessage>,
    /// Tools the model may call.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ChatTool>,
    /// Always `true`: this crate only streams.
    pub(crate) stream: bool,
    /// Asks for a final chunk with the token usage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stream_options: Option<StreamOptions>,
    /// Sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Provider-specific options, written at the top level of the body as they are.
    #[serde(flatten, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

impl ChatRequest {
    /// A streaming request for `model` with usage reporting on.
    pub fn new(model: impl Into<String>, messages: Vec<ChatMessage>) -> Self {
        Self {
            model: model.into(),
            messages,
            tools: Vec::new(),
            stream: true,
            stream_options: Some(StreamOptions {
                include_usage: true,
            }),
            temperature: None,
            extra: Map::new(),
        }
    }

    /// Sets the tools.
    #[must_use]
    pub fn with_tools(mut self, tools: Vec<ChatTool>) -> Self {
        self.tools = tools;
        self
    }
}

/// `stream_options`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct StreamOptions {
    /// Ask for the usage chunk at the end of the stream.
    pub(crate) include_usage: bool,
}

/// A tool offered to the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatTool {
    /// Always `"function"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The function.
    pub function: ChatFunction,
}

/// A function tool's declaration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatFunction {
    /// The name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The JSON Schema of its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
}

/// One message of a chat request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
#[non_exhaustive]
pub enum ChatMessage {
    /// System instructions.
    System {
        /// The text.
        content: String,
        /// The author's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Developer instructions (OpenAI's newer name for system instructions).
    Developer {
        /// The text.
        content: String,
        /// The author's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// The person's turn.
    User {
        /// Text or parts.
        content: ChatContent,
        /// The author's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// The model's turn.
    Assistant {
        /// The text; absent when the turn is only tool calls.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        /// The tool calls of the turn.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ChatToolCall>,
        /// The reasoning that preceded the turn (DeepSeek-style), sent back only when the agent
        /// is configured to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reasoning_content: Option<String>,
        /// The author's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A tool's answer.
    Tool {
        /// The tool's output.
        content: ChatContent,
        /// The call answered.
        tool_call_id: String,
    },
}

/// A message body: text, or parts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ChatContent {
    /// Plain text.
    Text(String),
    /// Text, images, files and audio, in order.
    Parts(Vec<ChatPart>),
}

/// One part of a multimodal body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ChatPart {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, by URL or `data:` URL.
    ImageUrl {
        /// The image.
        image_url: ImageUrl,
    },
    /// A file (a PDF, say), inline or by provider file id.
    File {
        /// The file.
        file: FileRef,
    },
    /// Inline audio.
    InputAudio {
        /// The audio.
        input_audio: InputAudio,
    },
}

/// `image_url`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImageUrl {
    /// An `https:` or `data:` URL.
    pub url: String,
}

/// `file`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileRef {
    /// A `data:` URL with the file's bytes in base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_data: Option<String>,
    /// A file uploaded to the provider beforehand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_id: Option<String>,
    /// The file's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
}

/// `input_audio`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputAudio {
    /// Base64 of the bytes.
    pub data: String,
    /// `wav` or `mp3`.
    pub format: String,
}

/// A tool call of an assistant message in a request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatToolCall {
    /// The call id (tool messages answer it).
    pub id: String,
    /// Always `"function"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The function and its arguments.
    pub function: ChatFunctionCall,
}

/// The function of a tool call: its name and its arguments as JSON text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatFunctionCall {
    /// The function's name.
    pub name: String,
    /// The arguments, JSON text.
    pub arguments: String,
}

/// One streamed chunk (`data:` line) of a chat completion.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ChatChunk {
    /// The completion id.
    #[serde(default)]
    pub(crate) id: Option<String>,
    /// The model that answered.
    #[serde(default)]
    pub(crate) model: Option<String>,
    /// Deltas, one per choice; empty on the final usage chunk.
    #[serde(default, deserialize_with = "null_default")]
    pub(crate) choices: Vec<ChunkChoice>,
    /// Token usage, on the final chunk when asked for.
    #[serde(default)]
    pub(crate) usage: Option<ChatUsage>,
    /// An error the provider reports inside the stream.
    #[serde(default)]
    pub(crate) error: Option<ProviderError>,
}

impl ChatChunk {
    /// A chunk with one choice holding `delta`.
    pub(crate) fn delta(delta: ChunkDelta) -> Self {
        Self {
            choices: vec![ChunkChoice {
                index: 0,
                delta,
                finish_reason: None,
            }],
            ..Self::default()
        }
    }

    /// A chunk with one choice holding a content delta.
    pub fn text(text: impl Into<String>) -> Self {
        Self::delta(ChunkDelta {
            content: Some(text.into()),
            ..ChunkDelta::default()
        })
    }

    /// A chunk with one choice holding a reasoning delta (`reasoning_content`).
    pub fn reasoning(text: impl Into<String>) -> Self {
        Self::delta(ChunkDelta {
            reasoning_content: Some(text.into()),
            ..ChunkDelta::default()
        })
    }

    /// A chunk with one choice holding tool-call fragments.
    pub fn tool_calls(calls: Vec<ToolCallDelta>) -> Self {
        Self::delta(ChunkDelta {
            tool_calls: calls,
            ..ChunkDelta::default()
        })
    }

    /// A chunk with an empty delta and `reason`.
    pub fn finish(reason: impl Into<String>) -> Self {
        Self {
            choices: vec![ChunkChoice {
                index: 0,
                delta: ChunkDelta::default(),
                finish_reason: Some(reason.into()),
            }],
            ..Self::default()
        }
    }
}

/// One choice of a chunk.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub(crate) struct ChunkChoice {
    /// The choice (this crate asks for one, index 0).
    #[serde(default, deserialize_with = "null_default")]
    pub(crate) index: u32,
    /// What this chunk adds.
    #[serde(default, deserialize_with = "null_default")]
    pub(crate) delta: ChunkDelta,
    /// Why the model stopped, on the choice's last chunk.
    #[serde(default)]
    pub(crate) finish_reason: Option<String>,
}

/// What one chunk adds to the message.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub(crate) struct ChunkDelta {
    /// Text of the answer.
    #[serde(default)]
    pub(crate) content: Option<String>,
    /// Reasoning text (DeepSeek, vLLM, llama.cpp).
    #[serde(default)]
    pub(crate) reasoning_content: Option<String>,
    /// Reasoning text (OpenRouter, Ollama).
    #[serde(default)]
    pub(crate) reasoning: Option<String>,
    /// A refusal, in place of content.
    #[serde(default)]
    pub(crate) refusal: Option<String>,
    /// Fragments of tool calls, by `index`.
    #[serde(default, deserialize_with = "null_default")]
    pub(crate) tool_calls: Vec<ToolCallDelta>,
}

/// A fragment of one tool call.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ToolCallDelta {
    /// Which call of the turn this fragment belongs to.
    #[serde(default, deserialize_with = "null_default")]
    pub(crate) index: u32,
    /// The provider's call id (first fragment).
    #[serde(default)]
    pub(crate) id: Option<String>,
    /// Name and argument fragments.
    #[serde(default)]
    pub(crate) function: Option<FunctionDelta>,
}

impl ToolCallDelta {
    /// A fragment for call `index` with a piece of its name and of its arguments.
    pub fn new(index: u32, name: Option<&str>, arguments: Option<&str>) -> Self {
        Self {
            index,
            id: None,
            function: Some(FunctionDelta {
                name: name.map(str::to_owned),
                arguments: arguments.map(str::to_owned),
            }),
        }
    }
}

/// Name and argument fragments of a tool call.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub(crate) struct FunctionDelta {
    /// A piece of the function's name.
    #[serde(default)]
    pub(crate) name: Option<String>,
    /// A piece of the arguments' JSON text.
    #[serde(default)]
    pub(crate) arguments: Option<String>,
}

/// Token counts of a completion.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub(crate) struct ChatUsage {
    /// Prompt tokens.
    #[serde(default, deserialize_with = "null_default")]
    pub(crate) prompt_tokens: u64,
    /// Generated tokens.
    #[serde(default, deserialize_with = "null_default")]
    pub(crate) completion_tokens: u64,
    /// Their sum.
    #[serde(default, deserialize_with = "null_default")]
    pub(crate) total_tokens: u64,
    /// Details of the prompt tokens.
    #[serde(default)]
    pub(crate) prompt_tokens_details: Option<PromptTokensDetails>,
    /// Details of the generated tokens.
    #[serde(default)]
    pub(crate) completion_tokens_details: Option<CompletionTokensDetails>,
}

/// `prompt_tokens_details`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub(crate) struct PromptTokensDetails {
    /// Prompt tokens read from the provider's cache.
    #[serde(default)]
    pub(crate) cached_tokens: Option<u64>,
}

/// `completion_tokens_details`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub(crate) struct CompletionTokensDetails {
    /// Generated tokens spent on reasoning.
    #[serde(default)]
    pub(crate) reasoning_tokens: Option<u64>,
}

/// An error object, as providers send it in an error response body or inside a stream.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub(crate) struct ProviderError {
    /// What went wrong.
    #[serde(default, deserialize_with = "null_default")]
    pub(crate) message: String,
    /// The provider's error type (`invalid_request_error`, …).
    #[serde(default, rename = "type")]
    pub(crate) kind: Option<String>,
    /// The provider's error code: a string or a number, kept as text.
    #[serde(default, deserialize_with = "code_text")]
    pub(crate) code: Option<String>,
}

fn code_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(match Option::<Value>::deserialize(deserializer)? {
        Some(Value::String(s)) => Some(s),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    })
}

/// An error response body: `{"error": {...}}`.
#[derive(Debug, Deserialize)]
pub(crate) struct ErrorBody {
    pub(crate) error: ProviderError,
}
