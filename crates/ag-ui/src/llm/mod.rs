//! Model-backed agents: an OpenAI-compatible Chat Completions bridge, typed backend tools, and
//! an agent loop ([`LlmAgent`]).
//!
//! ## Layers
//!
//! | item | what |
//! |---|---|
//! | [`OpenAiClient`], [`ChunkStream`] | a thin streaming client for `POST {base}/chat/completions` |
//! | [`Connections`], [`HttpVersion`] | how it connects to the model: HTTP/2 shared by many runs, or HTTP/1.1 kept alive |
//! | [`ChunkDecoder`] | provider SSE bytes → [`wire::ChatChunk`]s (`[DONE]` included) |
//! | [`wire`] | the Chat Completions wire types (requests, chunks, messages), for code that builds or inspects them; not re-exported here |
//! | [`ChunkMapper`] | chunks → AG-UI events on a run, as a pure state machine |
//! | [`to_chat_messages`], [`from_chat_messages`], [`context_message`], [`chat_tools`] | AG-UI ↔ chat messages |
//! | [`BackendTool`], [`LlmAgent`] | typed Rust tools and the agent loop |
//!
//! ## Why a thin client, not a client crate
//!
//! The popular OpenAI client crates deserialize each streamed chunk into OpenAI's own types.
//! Those types have no `reasoning_content` (DeepSeek, vLLM, llama.cpp) and no `reasoning`
//! (OpenRouter, Ollama), so the reasoning of every model served outside OpenAI would be dropped
//! before this crate saw it. The bridge needs only one endpoint, so it is a small `reqwest`
//! client reading the body with this crate's own bounded SSE decoder
//! ([`FrameDecoder`](crate::encoding::sse::FrameDecoder)) into the lenient chunk types of this
//! module, which keep those fields and ignore the ones they do not know.
//!
//! ## Providers
//!
//! Any server speaking the Chat Completions streaming format works: set its base URL, and its
//! key when it needs one (OpenAI `https://api.openai.com/v1`; OpenRouter
//! `https://openrouter.ai/api/v1`; DeepSeek `https://api.deepseek.com/v1`; Ollama
//! `http://127.0.0.1:11434/v1`; vLLM and llama.cpp's server at their `/v1`; an Azure OpenAI
//! deployment with [`OpenAiClient::with_api_key_header`] and [`OpenAiClient::with_query`]).
//!
//! ## Failures
//!
//! A provider failure never reaches the client as a success or as a broken stream: whatever the
//! bridge had open is closed, and the run ends with `RUN_ERROR` whose `code` is the
//! [`LlmErrorKind`]'s name (`provider_http_error`, `provider_rate_limited`,
//! `provider_malformed_chunk`, `provider_incomplete_stream`, `provider_timeout`,
//! `provider_error`, …) and whose message says what happened.
//!
//! ## An agent in a few lines
//!
//! ```
//! use ag_ui::llm::{BackendTool, LlmAgent, OpenAiClient, ToolOutput};
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//!
//! /// Arguments of `weather`.
//! #[derive(Deserialize, JsonSchema)]
//! struct City {
//!     /// The city's name.
//!     city: String,
//! }
//!
//! let client = OpenAiClient::new("https://api.openai.com/v1")
//!     .with_api_key(std::env::var("OPENAI_API_KEY").unwrap_or_default());
//! let agent = LlmAgent::<()>::new(client, "gpt-4o-mini")
//!     .with_system_prompt("You are a weather assistant.")
//!     .with_tool(BackendTool::new("weather", "Current weather in a city", |args: City, _| async move {
//!         Ok(ToolOutput::text(format!("Sunny in {}", args.city)))
//!     }));
//! assert_eq!(agent.tools()[0].tool().parameters.as_ref().unwrap()["required"][0], "city");
//! // Serve it like any agent: `ag_ui::axum::AgentEndpoint::agent(agent)`.
//! ```

mod agent;
mod client;
mod connections;
mod convert;
mod error;
mod mapper;
mod tool;
pub mod wire;

pub use agent::LlmAgent;
pub use client::{ChunkStream, OpenAiClient};
pub use connections::{
    Connections, DEFAULT_MAX_IDLE_CONNECTIONS, DEFAULT_POOL_IDLE_TIMEOUT,
    DEFAULT_STREAMS_PER_CONNECTION, HttpVersion,
};
pub use convert::{ChatOptions, chat_tools, context_message, from_chat_messages, to_chat_messages};
pub use error::{LlmError, LlmErrorKind};
pub use mapper::{
    ChunkDecoder, ChunkMapper, DEFAULT_MAX_CHUNK_SIZE, DEFAULT_MAX_TOOL_CALLS,
    DEFAULT_MAX_TURN_BYTES, Decoded, FinishReason, Turn, TurnToolCall,
};
/// The `schemars` crate, re-exported so tool argument types derive `JsonSchema` from the same
/// version this crate generates schemas with.
pub use schemars;
pub use tool::{BackendTool, ToolError, ToolOutput, ToolRun, schema_for};
