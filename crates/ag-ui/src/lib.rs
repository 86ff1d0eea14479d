//! # ag-ui
//!
//! A Rust SDK for the AG-UI protocol 1.0 (Agent–User Interaction): agent backends stream typed
//! JSON events — text, tool calls, reasoning, state snapshots and JSON Patch deltas, activity,
//! steps, subagents, interrupts — to frontends over Server-Sent Events.
//!
//! The crate root is the wire model: [`Event`] and one struct per event type, the id newtypes,
//! [`RunAgentInput`], [`Message`] and its parts, outcomes and interrupts. Everything serializes
//! exactly as AG-UI 1.0 puts it on the wire.
//!
//! ```
//! use ag_ui::{Event, EventType, TextMessageRole};
//!
//! let events = [
//!     Event::run_started("thread-1", "run-1"),
//!     Event::text_message_start("m1", TextMessageRole::Assistant),
//!     Event::text_message_content("m1", "Hello"),
//!     Event::text_message_end("m1"),
//!     Event::run_finished("thread-1", "run-1"),
//! ];
//! let json = events[2].to_json();
//! assert_eq!(json, r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello"}"#);
//! assert_eq!(Event::from_json(&json).unwrap().event_type(), EventType::TextMessageContent);
//! ```
//!
//! ## Fields outside the schema
//!
//! An event is read into its typed struct, so a member the AG-UI 1.0 schema does not describe
//! (`"foo": 1` on a chunk, a vendor key on a message) is dropped when read and never written
//! back: a proxy or a recorder built on this crate re-emits events in their schema shape, and
//! `ag-ui normalize` / `ag-ui convert` do too. This is what the reference client's schema
//! stage does to every event before chunk expansion and verification (it removes unknown
//! properties, with a warning), so the events an application sees are the same either way. To
//! carry data of your own, use the protocol's places for it: `metadata`, `rawEvent`, or a
//! `CUSTOM` event.
//!
//! ```
//! use ag_ui::Event;
//!
//! let event = Event::from_json(r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"x","foo":1}"#).unwrap();
//! assert_eq!(event.to_json(), r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"x"}"#);
//! ```
//!
//! ## Modules
//!
//! | module | what | feature |
//! |---|---|---|
//! | crate root | the wire model: [`Event`], the event structs, ids, messages, input, outcomes | always |
//! | [`verify`] | the ordering verifier, for both sides | always |
//! | [`capabilities`] | what an agent says it supports (`AgentCapabilities`) | always |
//! | `encoding::sse` | the SSE writer and an incremental, bounded decoder | `sse` |
//! | `encoding::proto` | the protobuf transport (`application/vnd.ag-ui.event+proto`), byte-compatible with `@ag-ui/proto` 1.0.0 | `proto` |
//! | `client` | chunk expansion (`client::chunks`), pre-1.0 compatibility (`Compat`), the reducer (`Reducer`) | `client` |
//! | `client` | the run pipeline from SSE bytes (`Pipeline`); a conversation across runs (`Conversation`) | `client` + `sse` |
//! | `client` | `HttpAgent`, the HTTP transport; `Timeouts` at the crate root | `http` |
//! | `server` | `RunContext`, RAII emit handles, subagents, the `Agent` trait and the runner | `server` |
//! | `axum` | serving agents with axum 0.8 | `axum` |
//! | `llm` | an OpenAI-compatible model bridge, typed backend tools, the `LlmAgent` loop | `openai` |
//! | `a2ui` | generative UI with A2UI v0.9: operations, a surface builder, a catalog validator, the `a2ui-surface` activity; the `generate_a2ui` tool of `LlmAgent` | `a2ui` (+ `openai` for the tool) |
//!
//! ## Server quick start
//!
//! An agent is an `async fn run` against a `server::RunContext`; `ag_ui::axum` serves it at a
//! path of your router. This program serves one and talks to it with the client below.
//!
//! ```
//! # #[cfg(all(feature = "axum", feature = "http"))]
//! # mod quick_start {
//! use ag_ui::axum::{AgentEndpoint, RouterExt, ServeConfig, serve};
//! use ag_ui::server::{Agent, Outcome, Result, RunContext};
//!
//! struct Hello;
//!
//! impl Agent for Hello {
//!     type State = ();
//!
//!     async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
//!         ctx.think("A greeting is in order.")?;
//!         let mut message = ctx.assistant_message()?;
//!         for word in ["Hello", " from", " Rust."] {
//!             message.delta(word)?;
//!         }
//!         message.end()?;
//!         Ok(Outcome::success())
//!     }
//! }
//!
//! # #[tokio::main(flavor = "multi_thread", worker_threads = 2)]
//! # pub async fn main() -> std::io::Result<()> {
//! let app = axum::Router::new().agent("/agent", AgentEndpoint::agent(Hello));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let url = format!("http://{}/agent", listener.local_addr()?);
//! // Rather than `axum::serve`: a time-out on request heads, a cap on connections, and about
//! // 11 KB less memory per open run. Serves until `shutdown` (here: never) resolves.
//! let shutdown = std::future::pending();
//! tokio::spawn(serve(listener, app, ServeConfig::default(), shutdown));
//! # // The client quick start below, against this server.
//! # use ag_ui::client::{Conversation, HttpAgent};
//! # let mut conversation = Conversation::new("thread-1");
//! # conversation.add_user_message("Hi");
//! # conversation.run(&HttpAgent::new(url), &mut ()).await.unwrap();
//! # assert_eq!(conversation.messages().last().unwrap().text(), Some("Hello from Rust."));
//! # Ok(())
//! # }
//! # }
//! # #[cfg(all(feature = "axum", feature = "http"))]
//! # fn main() -> std::io::Result<()> { quick_start::main() }
//! # #[cfg(not(all(feature = "axum", feature = "http")))]
//! # fn main() {}
//! ```
//!
//! ## Client quick start
//!
//! A `client::Conversation` keeps the thread, messages, state and open interrupts
//! across runs; each run goes through the whole client pipeline (decoding, chunk normalization,
//! verification, the reducer).
//!
//! ```
//! # #[cfg(all(feature = "axum", feature = "http"))]
//! # mod quick_start {
//! use ag_ui::client::{Conversation, HttpAgent};
//!
//! # #[tokio::main(flavor = "multi_thread", worker_threads = 2)]
//! # pub async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # // An agent to talk to: it echoes the user's words and counts the turns in its state.
//! # use ag_ui::server::{Agent, Outcome, RunContext};
//! # #[derive(Default, serde::Serialize, serde::Deserialize)]
//! # struct Turns { turns: u32 }
//! # struct Echo;
//! # impl Agent for Echo {
//! #     type State = Turns;
//! #     async fn run(&self, ctx: &mut RunContext<Turns>) -> ag_ui::server::Result<Outcome> {
//! #         let said = ctx.input().messages.last().and_then(|m| m.text()).unwrap_or("").to_owned();
//! #         ctx.say(format!("You said: {said}"))?;
//! #         ctx.state_mut().turns += 1;
//! #         ctx.publish_state()?;
//! #         Ok(Outcome::success())
//! #     }
//! # }
//! # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! # let url = format!("http://{}/", listener.local_addr()?);
//! # let app = ag_ui::axum::AgentEndpoint::agent(Echo).into_router();
//! # tokio::spawn(async move { axum::serve(listener, app).await });
//! let agent = HttpAgent::new(url); // any AG-UI endpoint
//! let mut conversation = Conversation::new("thread-1");
//! conversation.add_user_message("Hello");
//! conversation.run(&agent, &mut ()).await?;
//! conversation.add_user_message("Again");
//! let summary = conversation.run(&agent, &mut ()).await?;
//!
//! assert_eq!(summary.new_messages.len(), 1);
//! assert_eq!(conversation.messages().last().unwrap().text(), Some("You said: Again"));
//! assert_eq!(conversation.state()["turns"], 2);
//! # Ok(())
//! # }
//! # }
//! # #[cfg(all(feature = "axum", feature = "http"))]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> { quick_start::main() }
//! # #[cfg(not(all(feature = "axum", feature = "http")))]
//! # fn main() {}
//! ```
//!
//! ## How a run ends: the four outcome types
//!
//! Each type belongs to one place on the way from an agent to a conversation:
//!
//! | type | what it says | made by | when you get which |
//! |---|---|---|---|
//! | [`RunFinishedOutcome`] | the wire's `RUN_FINISHED.outcome`: `success` (with the tool calls left to the client), `interrupt` (at least one [`Interrupt`]) or `cancelled` | the agent's side; read from the wire | on a `RunFinishedEvent`, as the agent sent it (`None`: none named, read as success) |
//! | [`SubagentFinishedOutcome`] | the wire's `SUBAGENT_FINISHED.outcome`: `success`, or `suspended` on some of the run's interrupts | a subagent's handle; read from the wire | on a `SubagentFinishedEvent` (none: success); a subagent that failed ends with `SUBAGENT_ERROR` instead |
//! | `server::Outcome` (feature `server`) | what an agent returns from its run: a `RunFinishedOutcome` with the run's `result` and token usage | your agent code | the runner writes it as the closing `RUN_FINISHED`; an agent's `Err` becomes `RUN_ERROR` instead |
//! | `client::RunOutcome` (feature `client`) | what the reducer read from the last `RUN_FINISHED`: success with the `result` and the tool calls still waiting for the client (the outcome's list, or the run's calls left without a result), the open interrupts, or cancelled | the client's reducer | `Reducer::outcome()` and `RunSummary::outcome` once a run finished; `None` before |
//!
//! A run that did not finish has no outcome. On the client, a `RUN_ERROR` ending the response is
//! the agent's failure (`client::RunError` of kind `agent.run-error`, with the summary of what
//! it did) and a response cut off before `RUN_FINISHED` the client's rejection (kind
//! `run.incomplete`); a run you stopped (a subscriber's `Flow::Stop`) or cancelled (a
//! `client::CancelToken`) returns a `RunSummary` whose `end` (`client::RunEnd`) says so, with
//! the outcome of the last `RUN_FINISHED` seen, if any.

#![cfg_attr(docsrs, feature(doc_cfg))]

// First: its macros (`read_fields!`) write the wire model's readers.
#[macro_use]
mod serde_util;

#[cfg(feature = "a2ui")]
#[cfg_attr(docsrs, doc(cfg(feature = "a2ui")))]
pub mod a2ui;
#[cfg(feature = "axum")]
#[cfg_attr(docsrs, doc(cfg(feature = "axum")))]
pub mod axum;
pub mod capabilities;
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub mod client;
mod decode;
pub mod encoding;
mod event;
mod excerpt;
mod ids;
mod input;
mod json;
mod lanes;
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub mod llm;
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod mcp;
mod message;
mod outcome;
#[cfg(any(feature = "http", feature = "openai"))]
mod redirects;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod server;
#[cfg(any(feature = "http", feature = "openai", feature = "browser"))]
mod timeouts;
#[cfg(any(feature = "http", feature = "openai", feature = "browser"))]
pub use timeouts::DEFAULT_IDLE_TIMEOUT;
#[cfg(any(feature = "http", feature = "openai"))]
pub use timeouts::{DEFAULT_CONNECT_TIMEOUT, Timeouts};
pub mod trace;
pub mod verify;

pub use decode::{DecodeError, DecodeErrorKind};
// JSON from JavaScript with lone UTF-16 surrogate escapes, made readable: the decoder's own
// repair, public for the `ag-ui` command (the conformance kit reads observations from any
// client), not part of the documented API.
#[doc(hidden)]
pub use decode::repair_lone_surrogates;
pub use event::*;
pub use excerpt::{EXCERPT_BYTES, EXCERPT_LIST_BYTES, excerpt, excerpt_list};
pub use ids::{InterruptId, MessageId, RunId, SubagentRunId, ThreadId, ToolCallId};
pub use input::{Context, ResumeEntry, ResumeStatus, RunAgentInput, Tool};
pub use message::{
    ActivityMessage, AssistantMessage, Content, ContentPart, DeveloperMessage, FunctionCall,
    MediaPart, Message, PartSource, ReasoningMessage, Role, SystemMessage, TextMessageRole,
    TextPart, ToolCall, ToolCallType, ToolMessage, UserMessage,
};
pub use outcome::{Interrupt, RunFinishedOutcome, SubagentFinishedOutcome, TokenUsage};

/// JSON Patch (RFC 6902), as carried by `STATE_DELTA` and `ACTIVITY_DELTA`: the types of the
/// [`json_patch`] crate, re-exported.
pub use json_patch::{Patch as JsonPatch, PatchOperation as JsonPatchOperation};

/// The `json_patch` crate, re-exported so callers can build and apply patches with the same
/// version this crate uses.
pub use json_patch;

/// Open-by-key extra information: a JSON object whose values may be anything, `null` included.
pub type Metadata = serde_json::Map<String, serde_json::Value>;

/// The protocol version this crate speaks.
pub const PROTOCOL_VERSION: &str = "1.0";

#[cfg(test)]
mod readme {
    /// The lines rustdoc shows of each ```` ``` ```` block of the crate docs (hidden `# ` lines
    /// dropped), in order.
    fn visible_doc_blocks(source: &str) -> Vec<String> {
        let docs = source
            .lines()
            .filter_map(|line| line.strip_prefix("//!"))
            .map(|line| line.strip_prefix(' ').unwrap_or(line));
        let mut blocks = Vec::new();
        let mut current: Option<Vec<&str>> = None;
        for line in docs {
            match (&mut current, line.starts_with("```")) {
                (None, true) => current = Some(Vec::new()),
                (Some(_), true) => blocks.push(current.take().unwrap_or_default()),
                (Some(block), false) => {
                    let trimmed = line.trim();
                    if trimmed != "#" && !trimmed.starts_with("# ") {
                        block.push(line);
                    }
                }
                (None, false) => {}
            }
        }
        blocks.into_iter().map(|b| collapse(&b)).collect()
    }

    /// The README's `rust` blocks.
    fn readme_blocks(readme: &str) -> Vec<String> {
        let mut blocks = Vec::new();
        let mut current: Option<Vec<&str>> = None;
        for line in readme.lines() {
            match (&mut current, line) {
                (None, "```rust") => current = Some(Vec::new()),
                (Some(_), "```") => blocks.push(current.take().unwrap_or_default()),
                (Some(block), _) => block.push(line),
                (None, _) => {}
            }
        }
        blocks.into_iter().map(|b| collapse(&b)).collect()
    }

    /// Joins lines, with runs of blank lines (left where hidden lines were) made one.
    fn collapse(lines: &[&str]) -> String {
        let mut out = String::new();
        let mut blank = false;
        for line in lines {
            if line.trim().is_empty() {
                blank = true;
                continue;
            }
            if blank && !out.is_empty() {
                out.push('\n');
            }
            blank = false;
            out.push_str(line);
            out.push('\n');
        }
        out
    }

    #[test]
    fn readme_snippets_are_the_visible_lines_of_the_doctested_quick_starts() {
        let readme = readme_blocks(include_str!("../../../README.md"));
        let docs = visible_doc_blocks(include_str!("lib.rs"));
        assert_eq!(
            readme.len(),
            2,
            "the README has the server and the client quick start"
        );
        for snippet in &readme {
            assert!(
                docs.contains(snippet),
                "this README snippet is not a doctested block of the crate docs:\n{snippet}"
            );
        }
    }
}
