//! The server SDK: [`RunContext`], the RAII emit handles, and the [`Runner`] that frames a run.
//!
//! An agent author writes ordinary Rust against a [`RunContext`]; what reaches the wire is a
//! well-formed AG-UI stream on every path, early returns and `?` included. Every event passes
//! the ordering verifier before it is queued, so an invalid event is an `Err` at the call that
//! tried to emit it, never a broken stream.
//!
//! ## A whole message
//!
//! On the wire an assistant message is `TEXT_MESSAGE_START`, any number of
//! `TEXT_MESSAGE_CONTENT`, and `TEXT_MESSAGE_END`, all under one message id. When the text is
//! already complete, [`RunContext::say`] emits the three at once:
//!
//! ```
//! use ag_ui::{Event, RunAgentInput, TextMessageRole};
//! use ag_ui::server::RunContext;
//!
//! fn main() -> ag_ui::server::Result<()> {
//!     // `RunContext::new` is the unit-test harness: a context, and the receiving
//!     // end of its event stream. Inside an agent this is just `ctx`.
//!     let (mut ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r"))?;
//!
//!     let id = ctx.say("Hello from Rust.")?;
//!
//!     assert_eq!(id.as_str(), "r-msg-1");
//!     assert_eq!(
//!         events.drain(),
//!         vec![
//!             Event::text_message_start("r-msg-1", TextMessageRole::Assistant),
//!             Event::text_message_content("r-msg-1", "Hello from Rust."),
//!             Event::text_message_end("r-msg-1"),
//!         ]
//!     );
//!     Ok(())
//! }
//! ```
//!
//! Ids are minted from the run id and a per-run counter (`r-msg-1`, `r-call-1`, `r-sub-1`),
//! not drawn at random: the protocol only asks for opaque strings, the crate needs no uuid
//! dependency, and two recordings of the same run compare equal. When the id must be your own,
//! use [`RunContext::message_with_id`].
//!
//! ## Streaming a message
//!
//! [`RunContext::assistant_message`] emits `TEXT_MESSAGE_START` and hands back a
//! [`MessageHandle`]; each [`delta`](MessageHandle::delta) is one `TEXT_MESSAGE_CONTENT`, and
//! [`end`](MessageHandle::end) closes the message:
//!
//! ```
//! use ag_ui::{Event, RunAgentInput, TextMessageRole};
//! use ag_ui::server::RunContext;
//!
//! fn main() -> ag_ui::server::Result<()> {
//!     let (mut ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r"))?;
//!
//!     let mut message = ctx.assistant_message()?;
//!     for word in ["Hello", ", ", "world"] {
//!         message.delta(word)?;
//!     }
//!     message.end()?;
//!
//!     assert_eq!(
//!         events.drain(),
//!         vec![
//!             Event::text_message_start("r-msg-1", TextMessageRole::Assistant),
//!             Event::text_message_content("r-msg-1", "Hello"),
//!             Event::text_message_content("r-msg-1", ", "),
//!             Event::text_message_content("r-msg-1", "world"),
//!             Event::text_message_end("r-msg-1"),
//!         ]
//!     );
//!     Ok(())
//! }
//! ```
//!
//! This is how a model's token stream maps onto the protocol: each chunk the provider yields
//! becomes one delta, nothing is buffered, and the frontend renders text as it arrives.
//! `assistant_message()` is shorthand for `message(TextMessageRole::Assistant)`; the other
//! roles (developer, system, user) exist for agents that replay a transcript.
//!
//! ## The terminator is automatic
//!
//! Calling `end` is optional. A handle that is dropped while still open emits
//! `TEXT_MESSAGE_END` itself, so a message abandoned by an early return or a `?` still leaves
//! a valid stream behind:
//!
//! ```
//! use ag_ui::{Event, EventType, RunAgentInput};
//! use ag_ui::server::{Error, RunContext};
//!
//! fn write_it(ctx: &mut RunContext<()>) -> ag_ui::server::Result<()> {
//!     let mut message = ctx.assistant_message()?;
//!     message.delta("Looking that up")?;
//!     // The message is still open, and this returns.
//!     Err(Error::agent("the weather service is down"))
//! }
//!
//! fn main() -> ag_ui::server::Result<()> {
//!     let (mut ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r"))?;
//!     assert!(write_it(&mut ctx).is_err());
//!
//!     let types: Vec<EventType> = events.drain().iter().map(Event::event_type).collect();
//!     assert_eq!(
//!         types,
//!         [
//!             EventType::TextMessageStart,
//!             EventType::TextMessageContent,
//!             // Emitted by `Drop`, on the way out of the failing function.
//!             EventType::TextMessageEnd,
//!         ]
//!     );
//!     Ok(())
//! }
//! ```
//!
//! Call `end` when you care about the error: `Drop` has no way to report one and discards it.
//!
//! ## Why `delta` is not async
//!
//! Other AG-UI SDKs (TypeScript, .NET) await each emission. Here `message.delta(text)?` is a
//! plain synchronous call, and that is what makes the guarantee above possible: `Drop` cannot
//! be async, so a handle that must emit its terminator from `Drop` needs an emit path that
//! does not await. The choice is between an automatic terminator with synchronous emission,
//! and asynchronous emission with every agent closing its own blocks by hand; this crate takes
//! the first. Emission pushes into a queue that the transport drains, so an emission never
//! blocks.
//!
//! A welcome side effect: once an agent's code has returned, all it emitted is already queued,
//! which is why the examples here check the stream with a plain [`Events::drain`] and no async
//! runtime at all.
//!
//! ## Backpressure
//!
//! A queue that never makes the agent wait would grow without end behind a slow reader, so
//! the wait happens at the agent's own await points instead. The queue's backlog (estimated
//! bytes) is held to the run's [`Backpressure`] limits:
//!
//! * `ready().await` — on [`RunContext::ready`], a [`SubagentContext`], or an open handle
//!   such as [`MessageHandle::ready`] — resolves at once while the backlog is under the
//!   high-water mark ([`DEFAULT_HIGH_WATER`]), and otherwise waits until the consumer has
//!   drained it. An agent that streams a model's output calls it between deltas:
//!
//! ```
//! use ag_ui::server::{Agent, Outcome, Result, RunContext};
//!
//! struct Streamer;
//!
//! impl Agent for Streamer {
//!     type State = ();
//!
//!     async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
//!         let mut message = ctx.assistant_message()?;
//!         for token in ["As ", "fast ", "as ", "the ", "client ", "reads."] {
//!             message.delta(token)?;
//!             message.ready().await?;
//!         }
//!         message.end()?;
//!         Ok(Outcome::success())
//!     }
//! }
//! # let _ = Streamer;
//! ```
//!
//! * The [`Runner`] also waits at every other `.await` of the agent: once the agent's future
//!   yields while the backlog is over the mark, it is not resumed until the consumer has
//!   caught up. An agent that awaits its model's stream between deltas is so held back
//!   without calling `ready()`; work spawned on other tasks (a subagent's) calls `ready()`
//!   itself.
//! * An emission that would take the backlog past the hard cap ([`DEFAULT_HARD_CAP`]) fails
//!   with [`ErrorKind::Backpressure`], as does every later one, and the run ends with
//!   `RUN_ERROR` (code `"backpressure"`) instead of exhausting memory.
//!
//! In the unit-test harness ([`RunContext::new`], default limits) nothing drains the queue
//! until the test does, so a test should not await `ready()` beyond the high-water mark
//! without draining.
//!
//! ## One block at a time
//!
//! A message handle borrows the context mutably while it lives, so a second message opened
//! beside it does not compile (`E0499`), rather than being discovered as an interleaving by a
//! frontend. The proof, and the other compile-time guarantees, are `compile_fail` doctests in
//! [`emit`], which also shows what an open handle can still do: change and publish the state,
//! and send the unordered event families.
//!
//! ## Reasoning
//!
//! Reasoning the client should render has its own event family and its own handle,
//! [`ReasoningHandle`]. `REASONING_*` nests a message inside a span, so the handle brackets
//! four events instead of two:
//!
//! ```text
//! REASONING_START              on creation
//! REASONING_MESSAGE_START      on creation
//! REASONING_MESSAGE_CONTENT    once per delta
//! REASONING_MESSAGE_END        on end() or Drop
//! REASONING_END                on end() or Drop
//! ```
//!
//! ```
//! use ag_ui::{Event, EventType, RunAgentInput};
//! use ag_ui::server::RunContext;
//!
//! fn main() -> ag_ui::server::Result<()> {
//!     let (mut ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r"))?;
//!
//!     // The one-shot form, like `say`.
//!     ctx.think("The user wants a title.")?;
//!
//!     // The streaming form, like `assistant_message`.
//!     let mut reasoning = ctx.reasoning()?;
//!     reasoning.delta("Checking the board first")?;
//!     reasoning.end()?;
//!
//!     let types: Vec<EventType> = events.drain().iter().map(Event::event_type).collect();
//!     assert_eq!(types.len(), 10);
//!     assert_eq!(types[0], EventType::ReasoningStart);
//!     assert_eq!(types[9], EventType::ReasoningEnd);
//!     Ok(())
//! }
//! ```
//!
//! When a provider only hands back reasoning as an opaque, encrypted blob (zero data
//! retention: the blob must go back with the next request for the model to stay coherent),
//! pass it to [`ReasoningHandle::encrypted_value`], which emits `REASONING_ENCRYPTED_VALUE`.
//!
//! ## Chunks
//!
//! The `*_CHUNK` events carry their own id and need neither a start nor an end; they are for
//! provider adapters that only learn a message is over when the next one begins. With nothing
//! to close there is nothing for a handle to do, so chunks go through [`RunContext::emit`]:
//!
//! ```
//! use ag_ui::{Event, MessageId, RunAgentInput};
//! use ag_ui::server::RunContext;
//!
//! fn main() -> ag_ui::server::Result<()> {
//!     let (mut ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r"))?;
//!
//!     ctx.emit(Event::text_message_chunk(
//!         Some(MessageId::new("chunk-1")),
//!         Some("a whole update in one event".to_owned()),
//!     ))?;
//!
//!     assert_eq!(events.drain().len(), 1);
//!     Ok(())
//! }
//! ```
//!
//! The verifier treats a chunk as self-contained: it records the id instead of rejecting the
//! event for lacking a start.
//!
//! ## Tool calls, state, steps, subagents
//!
//! * Tool calls: [`RunContext::tool_call`] opens a [`ToolCallHandle`] (several may be open at
//!   once), [`RunContext::call_tool`] emits a whole call with arguments serialized from any
//!   `Serialize`, [`RunContext::tool_result`] answers one. A call opened from an assistant
//!   [`MessageHandle`] names it as `parentMessageId`.
//! * State: [`RunContext::publish_state`] emits a snapshot;
//!   [`RunContext::publish_state_delta`] a JSON Patch from what the client last saw.
//! * Steps: [`RunContext::step`] returns a [`StepHandle`] that finishes the step when dropped.
//! * Bridges: [`RunContext::stream_writer`] returns a [`StreamWriter`] that opens, streams and
//!   closes blocks by id without borrowing the context, for a state machine fed a model's
//!   chunks (still verified, still closed on drop).
//! * Subagents: [`RunContext::subagent`] returns a [`SubagentContext`] that attributes all it
//!   emits, can move to its own task, and always ends with `SUBAGENT_FINISHED` or
//!   `SUBAGENT_ERROR`.
//!
//! ## Running an agent
//!
//! An [`Agent`] is an async `run(&self, ctx)` returning an [`Outcome`]. [`Runner::run`] (or
//! [`run`]) puts it on the tokio runtime and returns its [`Events`] — a `Send + 'static`
//! stream framed by `RUN_STARTED` and `RUN_FINISHED` / `RUN_ERROR`, ready for a transport to
//! encode. Dropping the stream cancels the run.
//!
//! ```
//! use ag_ui::{Event, EventType, RunAgentInput};
//! use ag_ui::server::{Agent, Outcome, Result, RunContext, Runner};
//! use futures::StreamExt;
//!
//! struct Greeter;
//!
//! impl Agent for Greeter {
//!     type State = ();
//!
//!     async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
//!         ctx.say("Hello!")?;
//!         Ok(Outcome::success())
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<()> {
//! let events: Vec<Event> = Runner::new(Greeter)
//!     .run(RunAgentInput::new("t", "r"))?
//!     .collect()
//!     .await;
//! let types: Vec<EventType> = events.iter().map(Event::event_type).collect();
//! assert_eq!(types.first(), Some(&EventType::RunStarted));
//! assert_eq!(types.last(), Some(&EventType::RunFinished));
//! assert_eq!(types.len(), 5);
//! # Ok(())
//! # }
//! ```

pub mod bridge;
mod context;
pub mod downgrade;
pub mod emit;
mod error;
mod handles;
pub mod log;
mod predict;
mod runner;
mod scope;
mod sink;
mod subagent;
pub mod transform;
mod writer;

pub use context::RunContext;
pub use error::{Error, ErrorKind, Result};
pub use handles::{MessageHandle, ReasoningHandle, StepHandle, ToolCallHandle};
pub use predict::{PREDICT_STATE_EVENT, PredictState};
pub use runner::{Agent, Outcome, Runner, run};
pub use scope::Detached;
pub use sink::{Backpressure, CancelHandle, DEFAULT_HARD_CAP, DEFAULT_HIGH_WATER, Events};
pub use subagent::{SubagentContext, SubagentSpec};
pub use writer::StreamWriter;
