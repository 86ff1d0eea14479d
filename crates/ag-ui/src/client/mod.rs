//! The client side of AG-UI: what a frontend does with the events an agent sends.
//!
//! The stages of the client pipeline, each usable on its own:
//!
//! - [`chunks`]: expands the `*_CHUNK` shorthand into explicit START / CONTENT / END events.
//! - [`Compat`]: reads pre-1.0 `THINKING_*` events as `REASONING_*`, skips unknown event types.
//! - [`Compactor`] and [`compact()`]: rewrite a finished event list into fewer events that
//!   build the same conversation (the reference's `compactEvents`, with output that always
//!   verifies).
//! - [`Reducer`]: turns a verified event stream back into a conversation (messages, state,
//!   pending interrupts and tool calls).
//! - `Pipeline`: the whole pipeline from SSE bytes, telling subscribers (feature `sse`).
//! - `Transport`, `Body`, `Replay`, `CancelToken`, `TransportError`: what carries a run and its
//!   events (feature `sse`).
//! - `Conversation`: a conversation kept across runs over any transport, and the `Turn`, one
//!   run of it without I/O, which `Conversation` and the browser's JavaScript agent both drive
//!   (feature `sse`).
//! - [`clock`]: the wall clock on every target the client runs on, the browser's included
//!   (feature `sse`).
//! - `HttpAgent`, the HTTP transport (feature `http`).
//! - `BrowserAgent`, the HTTP transport of a web page, on the browser's `fetch` (feature
//!   `browser`, for `wasm32-unknown-unknown`).
//! - `Resuming` and `ReconnectPolicy`: reconnecting to resumable runs without losing or
//!   repeating events (feature `http`).
//! - `middleware`: layers over the event stream before verification (map, filter, inject,
//!   `FilterToolCalls`, `Log`; feature `sse`).
//! - `Subscriber`, what observes a run, the `Flow` its calls return and the `Mutation` (a
//!   replacement of messages or state) it may ask for (feature `sse`).
//! - `Callbacks`, a subscriber made of closures per event type (feature `sse`).
//! - [`Warning`]: what the client strips, translates or cannot apply, told to the
//!   application.
//! - [`PeerVersion`]: an agent pinned to an older version, and the shims it gets.
//!
//! Every type has one path: the stages' types are here, at `ag_ui::client`, except those of
//! the modules that are concepts of their own (`chunks`, `middleware`, `clock`). The time-outs of
//! the HTTP transports are [`ag_ui::Timeouts`](crate::Timeouts).
//!
//! The types a client works with (`Conversation`,
//! `HttpAgent`, `Pipeline`, `RunError`, …); each layer has its own error: `TransportError`
//! (carrying the run), `PipelineError` (reading it: the client's rejection of the stream),
//! and `RunError`, the conversation's, which holds either, the agent's own report that its run
//! failed (`AgentError`, a `RUN_ERROR`), or an unanswered interrupt.

mod apply;
#[cfg(feature = "browser")]
mod browser;
#[cfg(feature = "sse")]
mod callbacks;
pub mod chunks;
#[cfg(feature = "sse")]
#[cfg_attr(docsrs, doc(cfg(feature = "sse")))]
pub mod clock;
mod compact;
mod compat;
#[cfg(feature = "sse")]
mod conversation;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "sse")]
#[cfg_attr(docsrs, doc(cfg(feature = "sse")))]
pub mod middleware;
mod peer;
#[cfg(feature = "http")]
mod resume;
#[cfg(feature = "sse")]
mod run;
#[cfg(feature = "sse")]
mod subscriber;
#[cfg(feature = "sse")]
mod transport;
mod warning;

pub use apply::{
    Applied, ApplyError, ApplyErrorKind, ApplyWarning, ApplyWarningKind, LimitExceeded, LimitKind,
    Limits, Messages, MessagesChange, MessagesIter, PartialJson, Reducer, RunOutcome,
};
#[cfg(feature = "browser")]
pub use browser::{BrowserAgent, BrowserBody};
#[cfg(feature = "sse")]
pub use callbacks::Callbacks;
pub use compact::{Compactor, compact};
pub use compat::Compat;
#[cfg(feature = "sse")]
pub use conversation::{
    Changed, Conversation, RunEnd, RunError, RunErrorKind, RunSummary, RunningTurn, Turn, TurnEnd,
};
#[cfg(feature = "http")]
pub use http::{Attach, HttpAgent, HttpBody, HttpStream};
pub use peer::{PeerVersion, PeerVersionError};
#[cfg(feature = "http")]
pub use resume::{
    DEFAULT_ATTEMPTS, DEFAULT_MAX_RETRY, Reconnect, ReconnectHook, ReconnectPolicy, Reconnection,
    Resuming,
};
#[cfg(feature = "sse")]
pub use run::{AgentError, Pipeline, PipelineError, PipelineErrorKind, PipelineLimits, StreamEnd};
#[cfg(feature = "sse")]
pub use subscriber::{Flow, Mutation, Subscriber};
#[cfg(feature = "sse")]
pub use transport::{
    Body, CancelToken, Piece, Replay, ReplayBody, Timeout, Transport, TransportError,
    TransportErrorKind,
};
pub use warning::{Warning, WarningKind, Warnings};
