//! RAII emit handles: [`MessageHandle`], [`ReasoningHandle`], [`ToolCallHandle`],
//! [`StepHandle`], and the typestate design that makes a half-written block impossible.
//!
//! Every bracketed family of AG-UI — a text message, a reasoning block, a tool call, a step —
//! is opened by a method that emits the opening event(s) and returns a handle. The handle
//! streams the middle and emits the closing event(s) when it is ended, or when it is dropped:
//! on the normal path, on an early `return`, on a `?`, during a panic. An agent cannot forget a
//! terminator because it never writes one.
//!
//! ## One open block per owner, checked by the compiler
//!
//! Opening a text message or a reasoning block borrows the context mutably for as long as the
//! handle lives. A second block opened beside the first is therefore rejected by the borrow
//! checker, not by a frontend that later finds two messages interleaved in one lane:
//!
//! ```compile_fail,E0499
//! use ag_ui::server::RunContext;
//!
//! fn interleave(ctx: &mut RunContext<()>) {
//!     let mut first = ctx.assistant_message().unwrap();
//!     // error[E0499]: cannot borrow `*ctx` as mutable more than once at a time
//!     let mut second = ctx.assistant_message().unwrap();
//!     first.delta("a").unwrap();
//!     second.delta("b").unwrap();
//! }
//! ```
//!
//! The rule covers reasoning as well: a reasoning block and a message are not open at once in
//! one owner.
//!
//! ```compile_fail,E0499
//! use ag_ui::server::RunContext;
//!
//! fn think_while_talking(ctx: &mut RunContext<()>) {
//!     let mut message = ctx.assistant_message().unwrap();
//!     let mut reasoning = ctx.reasoning().unwrap();
//!     message.delta("a").unwrap();
//!     reasoning.delta("b").unwrap();
//! }
//! ```
//!
//! A subagent context gives the same guarantee inside its own stream:
//!
//! ```compile_fail,E0499
//! use ag_ui::server::SubagentContext;
//!
//! fn interleave(sub: &mut SubagentContext) {
//!     let mut first = sub.assistant_message().unwrap();
//!     let mut second = sub.assistant_message().unwrap();
//!     first.delta("a").unwrap();
//!     second.delta("b").unwrap();
//! }
//! ```
//!
//! A handle that has been ended is gone; nothing can be streamed into a closed message:
//!
//! ```compile_fail,E0382
//! use ag_ui::server::RunContext;
//!
//! fn after_the_end(ctx: &mut RunContext<()>) {
//!     let mut message = ctx.assistant_message().unwrap();
//!     message.end().unwrap();
//!     message.delta("too late").unwrap();
//! }
//! ```
//!
//! While a step is open the context is reachable only through the step, so nothing can be
//! emitted "outside" it, and the step cannot be left open:
//!
//! ```compile_fail,E0499
//! use ag_ui::server::RunContext;
//!
//! fn outside(ctx: &mut RunContext<()>) {
//!     let step = ctx.step("search").unwrap();
//!     ctx.say("outside the step").unwrap();
//!     step.end().unwrap();
//! }
//! ```
//!
//! A subagent has no access to the run's typed state, which belongs to the parent agent (the
//! subagent may be running on another task):
//!
//! ```compile_fail,E0599
//! use ag_ui::server::SubagentContext;
//!
//! fn touch_state(sub: &mut SubagentContext) {
//!     let mut message = sub.assistant_message().unwrap();
//!     message.publish_state().unwrap();
//! }
//! ```
//!
//! Stable rustdoc only checks that a `compile_fail` block fails to compile, for any reason;
//! CI also runs these doctests with `RUSTC_BOOTSTRAP=1`, which makes rustdoc check the error
//! code, so a typo cannot pass for the guarantee.
//!
//! ## What an open block can still do
//!
//! The borrow forbids a second block, not work. A message or reasoning handle holds two parts
//! of the context — the emitter and the state — not the context itself, so the state stays
//! reachable while the block is open, and the unordered families (`STATE_*`, `ACTIVITY_*`,
//! `CUSTOM`, `RAW`, `MESSAGES_SNAPSHOT`, chunks) can be sent through the handle:
//!
//! ```
//! use ag_ui::RunAgentInput;
//! use ag_ui::server::RunContext;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Default, Serialize, Deserialize)]
//! struct Progress {
//!     words: u32,
//! }
//!
//! fn main() -> ag_ui::server::Result<()> {
//!     let (mut ctx, mut events) = RunContext::<Progress>::new(RunAgentInput::new("t", "r"))?;
//!
//!     let mut message = ctx.assistant_message()?;
//!     message.delta("Hello")?;
//!     message.state_mut().words += 1;
//!     // STATE_SNAPSHOT, with the message still open. `STATE_*` is unordered on
//!     // the wire, so this is a legal stream.
//!     message.publish_state()?;
//!     message.end()?;
//!
//!     assert_eq!(ctx.state().words, 1);
//!     assert_eq!(events.drain().len(), 4);
//!     Ok(())
//! }
//! ```
//!
//! What a handle cannot do is open another block: it holds no context to open one with, and
//! the context it came from stays borrowed until the handle is gone. `emit` refuses the
//! bracketed event types outright (they belong to a handle), and every event, whichever way it
//! is sent, passes the ordering verifier before it is queued.
//!
//! ## Tool calls run in parallel
//!
//! Tool calls are the exception: the protocol lets several be open at once, and models do
//! produce parallel calls. [`ToolCallHandle`] borrows its context *shared*, so any number can
//! be open together (the ids are minted distinct), while no text message or reasoning block
//! can open until they are all closed. A tool call opened from an open assistant message
//! carries that message as its `parentMessageId`.
//!
//! ```
//! use ag_ui::{Event, EventType, RunAgentInput};
//! use ag_ui::server::RunContext;
//!
//! fn main() -> ag_ui::server::Result<()> {
//!     let (mut ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r"))?;
//!
//!     let mut weather = ctx.tool_call("weather")?;
//!     let mut time = ctx.tool_call("time")?;
//!     weather.args(r#"{"city":"#)?;
//!     time.args(r#"{"zone":"CET"}"#)?;
//!     weather.args(r#""Oslo"}"#)?;
//!     time.end()?;
//!     weather.end()?;
//!
//!     let events = events.drain();
//!     assert_eq!(events[0], Event::tool_call_start("r-call-1", "weather"));
//!     assert_eq!(events[1], Event::tool_call_start("r-call-2", "time"));
//!     assert_eq!(events.len(), 7);
//!     assert_eq!(events[6].event_type(), EventType::ToolCallEnd);
//!     Ok(())
//! }
//! ```

#[cfg(doc)]
use super::{MessageHandle, ReasoningHandle, StepHandle, ToolCallHandle};
