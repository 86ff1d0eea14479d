//! The client side of AG-UI: what a frontend does with the events an agent sends.
//!
//! Each stage of the client pipeline is public on its own:
//!
//! - [`chunks`]: expands the `*_CHUNK` shorthand into explicit START / CONTENT / END events.
//! - [`compat`]: reads pre-1.0 `THINKING_*` events as `REASONING_*`, skips unknown event types.
//! - [`compact`]: rewrites a finished event list into fewer events that build the same
//!   conversation (the reference's `compactEvents`, with output that always verifies).
//! - [`apply`]: turns a verified event stream back into a conversation (messages, state,
//!   pending interrupts and tool calls).
//! - `run`: the whole pipeline from SSE bytes, telling subscribers (feature `sse`).
//! - `transport`: what carries a run and its events (`Transport`, `Body`, `Replay`,
//!   `CancelToken`, `TransportError`; feature `sse`).
//! - `conversation`: a conversation kept across runs over any transport, and the `Turn`, one
//!   run of it without I/O, which `Conversation` and the browser's JavaScript agent both drive
//!   (feature `sse`).
//! - `clock`: the wall clock on every target the client runs on, the browser's included
//!   (feature `sse`).
//! - `http`: `HttpAgent`, the HTTP transport (feature `http`).
//! - `browser`: `BrowserAgent`, the HTTP transport of a web page, on the browser's `fetch`
//!   (feature `browser`, for `wasm32-unknown-unknown`).
//! - `resume`: reconnecting to resumable runs without losing or repeating events (feature
//!   `http`).
//! - `middleware`: layers over the event stream before verification (map, filter, inject,
//!   `FilterToolCalls`, `Log`; feature `sse`).
//! - `subscriber`: `Subscriber`, what observes a run, the `Flow` its calls return and the
//!   `Mutation` (a replacement of messages or state) it may ask for (feature `sse`).
//! - `callbacks`: `Callbacks`, a subscriber made of closures per event type (feature `sse`).
//! - [`warning`]: `Warning`, what the client strips, translates or cannot apply, told to the
//!   application.
//! - [`peer`]: `PeerVersion`, an agent pinned to an older version, and the shims it gets.
//!
//! The types a client works with are also here, at `ag_ui::client` (`Conversation`,
//! `HttpAgent`, `Pipeline`, `RunError`, …); each layer has its own error: `TransportError`
//! (carrying the run), `PipelineError` (reading it: the client's rejection of the stream),
//! and `RunError`, the conversation's, which holds either, the agent's own report that its run
//! failed (`AgentError`, a `RUN_ERROR`), or an unanswered interrupt.

pub mod apply;
#[cfg(feature = "browser")]
#[cfg_attr(docsrs, doc(cfg(feature = "browser")))]
pub mod browser;
#[cfg(feature = "sse")]
#[cfg_attr(docsrs, doc(cfg(feature = "sse")))]
pub mod callbacks;
pub mod chunks;
#[cfg(feature = "sse")]
#[cfg_attr(docsrs, doc(cfg(feature = "sse")))]
pub mod clock;
pub mod compact;
pub mod compat;
#[cfg(feature = "sse")]
#[cfg_attr(docsrs, doc(cfg(feature = "sse")))]
pub mod conversation;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod http;
#[cfg(feature = "sse")]
#[cfg_attr(docsrs, doc(cfg(feature = "sse")))]
pub mod middleware;
pub mod peer;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod resume;
#[cfg(feature = "sse")]
#[cfg_attr(docsrs, doc(cfg(feature = "sse")))]
pub mod run;
#[cfg(feature = "sse")]
#[cfg_attr(docsrs, doc(cfg(feature = "sse")))]
pub mod subscriber;
#[cfg(feature = "sse")]
#[cfg_attr(docsrs, doc(cfg(feature = "sse")))]
pub mod transport;
pub mod warning;

pub use apply::{ApplyError, ApplyErrorKind, Limits, Reducer, RunOutcome};
#[cfg(feature = "browser")]
pub use browser::BrowserAgent;
#[cfg(feature = "sse")]
pub use callbacks::Callbacks;
#[cfg(feature = "sse")]
pub use conversation::{
    Changed, Conversation, RunEnd, RunError, RunErrorKind, RunSummary, RunningTurn, Turn, TurnEnd,
};
#[cfg(feature = "http")]
pub use http::{HttpAgent, Timeouts};
#[cfg(feature = "sse")]
pub use middleware::{FilterToolCalls, Middleware, Stack};
pub use peer::{PeerVersion, PeerVersionError};
#[cfg(feature = "sse")]
pub use run::{AgentError, Pipeline, PipelineError, PipelineErrorKind, PipelineLimits, StreamEnd};
#[cfg(feature = "sse")]
pub use subscriber::{Flow, Mutation, Subscriber};
#[cfg(feature = "sse")]
pub use transport::{
    Body, CancelToken, Piece, Replay, Timeout, Transport, TransportError, TransportErrorKind,
};
pub use warning::{Warning, WarningKind, Warnings};
