//! [`RunContext`]: what an agent emits through.

use std::fmt;
use std::future::Future;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::handles::StepHandle;
use super::scope::{Emitter, StateSlot};
use super::sink::{Backpressure, Cancel, Events, Sink};
use super::{Error, ErrorKind, Result};
use crate::{Event, ResumeEntry, RunAgentInput, RunId, ThreadId};

/// The API every emitting context offers (the run's own, and a subagent's): generated once for
/// both so they cannot drift apart.
macro_rules! emitting_api {
    ($ctx:ty, $state:ty, [$($generics:tt)*]) => {
        impl<$($generics)*> $ctx {
            /// Emits a whole assistant message — `TEXT_MESSAGE_START`, one
            /// `TEXT_MESSAGE_CONTENT`, `TEXT_MESSAGE_END` — and returns its id.
            ///
            /// # Errors
            ///
            /// The emission was refused (see [`emit`](Self::emit)); whatever was opened is
            /// closed again.
            pub fn say(&mut self, text: impl Into<String>) -> Result<$crate::MessageId> {
                let mut message = self.assistant_message()?;
                message.delta(text)?;
                let id = message.id().clone();
                message.end()?;
                Ok(id)
            }

            /// Opens an assistant message (`TEXT_MESSAGE_START`) and returns its handle.
            /// Same as `message(TextMessageRole::Assistant)`.
            ///
            /// # Errors
            ///
            /// The emission was refused (see [`emit`](Self::emit)).
            pub fn assistant_message(
                &mut self,
            ) -> Result<$crate::server::MessageHandle<'_, $state>> {
                self.message($crate::TextMessageRole::Assistant)
            }

            /// Opens a text message with `role` and a minted id (`{run id}-msg-{n}`). Roles
            /// other than assistant are for replaying a transcript.
            ///
            /// # Errors
            ///
            /// The emission was refused (see [`emit`](Self::emit)).
            pub fn message(
                &mut self,
                role: $crate::TextMessageRole,
            ) -> Result<$crate::server::MessageHandle<'_, $state>> {
                let id = self.emitter.next_message_id();
                $crate::server::MessageHandle::open(&self.emitter, &mut self.state, id, role)
            }

            /// Opens a text message with an id of your own.
            ///
            /// # Errors
            ///
            /// The emission was refused (see [`emit`](Self::emit)) — for instance because
            /// the id names a message that is still open.
            pub fn message_with_id(
                &mut self,
                id: impl Into<$crate::MessageId>,
                role: $crate::TextMessageRole,
            ) -> Result<$crate::server::MessageHandle<'_, $state>> {
                $crate::server::MessageHandle::open(
                    &self.emitter,
                    &mut self.state,
                    id.into(),
                    role,
                )
            }

            /// Emits a whole reasoning block — `REASONING_START`,
            /// `REASONING_MESSAGE_START`, one `REASONING_MESSAGE_CONTENT`,
            /// `REASONING_MESSAGE_END`, `REASONING_END` — and returns its id.
            ///
            /// # Errors
            ///
            /// The emission was refused (see [`emit`](Self::emit)).
            pub fn think(&mut self, text: impl Into<String>) -> Result<$crate::MessageId> {
                let mut reasoning = self.reasoning()?;
                reasoning.delta(text)?;
                let id = reasoning.id().clone();
                reasoning.end()?;
                Ok(id)
            }

            /// Opens a reasoning block (`REASONING_START`, `REASONING_MESSAGE_START`) and
            /// returns its handle.
            ///
            /// # Errors
            ///
            /// The emission was refused (see [`emit`](Self::emit)).
            pub fn reasoning(&mut self) -> Result<$crate::server::ReasoningHandle<'_, $state>> {
                let id = self.emitter.next_message_id();
                $crate::server::ReasoningHandle::open(&self.emitter, &mut self.state, id)
            }

            /// Opens a tool call (`TOOL_CALL_START`, id `{run id}-call-{n}`) and returns its
            /// handle. Borrows the context shared: several calls may be open at once.
            ///
            /// # Errors
            ///
            /// The emission was refused (see [`emit`](Self::emit)).
            pub fn tool_call(
                &self,
                name: impl Into<String>,
            ) -> Result<$crate::server::ToolCallHandle<'_>> {
                let id = self.emitter.next_tool_call_id();
                $crate::server::ToolCallHandle::open(&self.emitter, id, name.into(), None)
            }

            /// Opens a tool call with an id of your own (for instance the provider's).
            ///
            /// # Errors
            ///
            /// The emission was refused (see [`emit`](Self::emit)).
            pub fn tool_call_with_id(
                &self,
                id: impl Into<$crate::ToolCallId>,
                name: impl Into<String>,
            ) -> Result<$crate::server::ToolCallHandle<'_>> {
                $crate::server::ToolCallHandle::open(&self.emitter, id.into(), name.into(), None)
            }

            /// A whole tool call: `TOOL_CALL_START`, `TOOL_CALL_ARGS` with `args` serialized
            /// as JSON, `TOOL_CALL_END`. Returns the call id.
            ///
            /// # Errors
            ///
            /// [`ErrorKind::Serialize`](crate::server::ErrorKind::Serialize) when `args` does not serialize (nothing is emitted
            /// then); otherwise as [`emit`](Self::emit).
            pub fn call_tool(
                &self,
                name: impl Into<String>,
                args: &impl Serialize,
            ) -> Result<$crate::ToolCallId> {
                $crate::server::handles::one_shot_tool_call(
                    &self.emitter,
                    self.emitter.next_tool_call_id(),
                    name.into(),
                    None,
                    args,
                )
            }

            /// Emits `TOOL_CALL_RESULT`: the tool message (with a minted id, returned)
            /// answering `tool_call_id` with `content` — text or content parts.
            ///
            /// # Errors
            ///
            /// The emission was refused (see [`emit`](Self::emit)).
            pub fn tool_result(
                &self,
                tool_call_id: impl Into<$crate::ToolCallId>,
                content: impl Into<$crate::Content>,
            ) -> Result<$crate::MessageId> {
                let id = self.emitter.next_message_id();
                self.emitter
                    .send(Event::tool_call_result(id.clone(), tool_call_id, content))?;
                Ok(id)
            }

            /// Opens a step (`STEP_STARTED`); the handle dereferences to this context, and
            /// emits `STEP_FINISHED` when ended or dropped.
            ///
            /// # Errors
            ///
            /// The emission was refused (see [`emit`](Self::emit)) — for instance because a
            /// step of that name is already open in this owner.
            pub fn step(&mut self, name: impl Into<String>) -> Result<StepHandle<'_, Self>> {
                let sink = self.emitter.sink.clone();
                let owner = self.emitter.attribution.clone();
                StepHandle::open(self, sink, owner, name.into())
            }

            /// Emits `ACTIVITY_SNAPSHOT` for a new activity message (minted id, returned).
            ///
            /// # Errors
            ///
            /// The emission was refused (see [`emit`](Self::emit)).
            pub fn activity(
                &self,
                activity_type: impl Into<String>,
                content: $crate::Metadata,
            ) -> Result<$crate::MessageId> {
                let id = self.emitter.next_message_id();
                self.emitter
                    .send(Event::activity_snapshot(id.clone(), activity_type, content))?;
                Ok(id)
            }

            /// Emits `ACTIVITY_SNAPSHOT` replacing the content of activity `id`.
            ///
            /// # Errors
            ///
            /// The emission was refused (see [`emit`](Self::emit)).
            pub fn activity_snapshot(
                &self,
                id: impl Into<$crate::MessageId>,
                activity_type: impl Into<String>,
                content: $crate::Metadata,
            ) -> Result<()> {
                self.emitter
                    .send(Event::activity_snapshot(id, activity_type, content))
            }

            /// Emits `ACTIVITY_DELTA`: an RFC 6902 patch to the content of activity `id`.
            ///
            /// # Errors
            ///
            /// The emission was refused (see [`emit`](Self::emit)).
            pub fn activity_delta(
                &self,
                id: impl Into<$crate::MessageId>,
                activity_type: impl Into<String>,
                patch: Vec<$crate::JsonPatchOperation>,
            ) -> Result<()> {
                self.emitter
                    .send(Event::activity_delta(id, activity_type, patch))
            }

            /// Sends one event of a family that needs no bracket: `STATE_*`, `ACTIVITY_*`,
            /// `CUSTOM`, `RAW`, `MESSAGES_SNAPSHOT`, `TOOL_CALL_RESULT`,
            /// `REASONING_ENCRYPTED_VALUE` and the `*_CHUNK` shorthands. Inside a subagent
            /// the event is attributed to it.
            ///
            /// # Errors
            ///
            /// * [`ErrorKind::Misuse`](crate::server::ErrorKind::Misuse) for the bracketed types (they belong to a handle) and
            ///   for the run and subagent lifecycle (the runner and the subagent context own
            ///   them);
            /// * [`ErrorKind::Protocol`](crate::server::ErrorKind::Protocol) when the ordering verifier refuses the event —
            ///   nothing is queued then;
            /// * [`ErrorKind::Disconnected`](crate::server::ErrorKind::Disconnected) when the consumer is gone,
            ///   [`ErrorKind::Closed`](crate::server::ErrorKind::Closed) after the run ended.
            pub fn emit(&self, event: impl Into<Event>) -> Result<()> {
                self.emitter.emit_unordered(event.into())
            }

            /// Starts a subagent (`SUBAGENT_STARTED`) and returns its context, which can move
            /// to another task. Inside a subagent this nests: the child's
            /// `parentSubagentRunId` names this one.
            ///
            /// # Errors
            ///
            /// The emission was refused (see [`emit`](Self::emit)).
            pub fn subagent(
                &self,
                spec: impl Into<$crate::server::SubagentSpec>,
            ) -> Result<$crate::server::SubagentContext> {
                $crate::server::SubagentContext::start(&self.emitter, spec.into())
            }

            /// A [`StreamWriter`]($crate::server::StreamWriter): opens, streams and closes
            /// blocks by id without borrowing this context, for bridges (a model's chunk
            /// stream) that keep blocks open across `await`s. Its events are verified and
            /// attributed like this context's, its ids come from the same counters, and it
            /// closes what it left open when dropped.
            pub fn stream_writer(&self) -> $crate::server::StreamWriter {
                $crate::server::StreamWriter::new(&self.emitter)
            }

            /// Resolves once the consumer asked the run to stop or went away. The future
            /// borrows nothing, so it can race the agent's own work in a `select!`.
            pub fn cancelled(&self) -> impl Future<Output = ()> + Send + 'static {
                self.emitter.sink.cancelled()
            }

            /// Whether the consumer asked the run to stop or went away.
            pub fn is_cancelled(&self) -> bool {
                self.emitter.sink.cancel_state() != Cancel::Running
            }

            /// Waits while the run's backlog is at or above its high-water mark (see
            /// [`Backpressure`](crate::server::Backpressure)): resolves at once when it is
            /// below, else once the consumer has drained it, or once the consumer asked the
            /// run to stop. Call it between emissions that a slow reader could pile up. The
            /// future borrows nothing.
            ///
            /// # Errors
            ///
            /// [`ErrorKind::Disconnected`](crate::server::ErrorKind::Disconnected) when the
            /// consumer is gone, [`ErrorKind::Closed`](crate::server::ErrorKind::Closed) after
            /// the run ended, [`ErrorKind::Backpressure`](crate::server::ErrorKind::Backpressure)
            /// once an emission hit the hard cap.
            pub fn ready(&self) -> impl Future<Output = Result<()>> + Send + 'static {
                self.emitter.sink.ready()
            }
        }
    };
}

pub(crate) use emitting_api;

/// The context an agent runs in: it emits the run's events and holds its typed state `S`.
///
/// Inside an agent the runner hands you `&mut RunContext<S>`. In a unit test,
/// [`RunContext::new`] builds one together with the receiving end of its stream. See the
/// [module documentation](super) for the tour.
pub struct RunContext<S = ()> {
    pub(crate) emitter: Emitter,
    pub(crate) state: StateSlot<S>,
    input: RunAgentInput,
}

impl<S> fmt::Debug for RunContext<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunContext")
            .field("thread_id", &self.input.thread_id)
            .field("run_id", &self.input.run_id)
            .finish_non_exhaustive()
    }
}

/// Reads the input's state as `S`: absent (or `{}` when `S` does not accept it) is
/// `S::default()`; anything else must deserialize, unless `S` holds nothing at all.
///
/// A state type that holds nothing (`()`, a unit struct: zero-sized and serialized as `null`)
/// is a stateless agent: whatever state the client sends is ignored, as the reference servers
/// ignore it (CopilotKit pages and `@ag-ui/client` send back the state they hold).
fn initial_state<S: Default + Serialize + DeserializeOwned>(state: Option<&Value>) -> Result<S> {
    let Some(value) = state else {
        return Ok(S::default());
    };
    if holds_nothing::<S>() {
        return Ok(S::default());
    }
    match serde_path_to_error::deserialize::<_, S>(value) {
        Ok(state) => Ok(state),
        Err(_) if value.as_object().is_some_and(|m| m.is_empty()) => Ok(S::default()),
        Err(e) => {
            let path = e.path().to_string();
            let inner = e.into_inner();
            Err(Error::new(
                ErrorKind::State,
                format!(
                    "the input state does not fit the agent's state type {} at `{path}`: {inner}",
                    std::any::type_name::<S>()
                ),
            )
            .with_source(inner))
        }
    }
}

/// Whether `S` is a state that holds nothing: zero-sized, its default serialized as `null`.
fn holds_nothing<S: Default + Serialize>() -> bool {
    std::mem::size_of::<S>() == 0 && serde_json::to_value(S::default()).is_ok_and(|v| v.is_null())
}

impl<S: Default + Serialize + DeserializeOwned> RunContext<S> {
    /// The unit-test harness: a context for `input` and the receiving end of its stream.
    ///
    /// The state is read from `input.state`. The context behaves as inside a run that has
    /// just started (the verifier has seen its `RUN_STARTED`, which is not queued).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::State`](crate::server::ErrorKind::State) when `input.state` does not deserialize as `S` (an absent state,
    /// or `{}`, reads as `S::default()`; a state type that holds nothing, such as `()`, ignores
    /// the input's state).
    ///
    /// ```
    /// use ag_ui::RunAgentInput;
    /// use ag_ui::server::{ErrorKind, RunContext};
    /// use serde_json::json;
    ///
    /// let input = RunAgentInput::new("t", "r").with_state(json!({"count": 3}));
    /// let (ctx, _events) = RunContext::<serde_json::Value>::new(input.clone()).unwrap();
    /// assert_eq!(ctx.state()["count"], 3);
    ///
    /// let err = RunContext::<Vec<u32>>::new(input.clone()).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::State);
    ///
    /// // A stateless agent ignores whatever state the client holds.
    /// assert!(RunContext::<()>::new(input).is_ok());
    /// ```
    ///
    /// The backlog is held to the default [`Backpressure`] limits ([`DEFAULT_HIGH_WATER`],
    /// [`DEFAULT_HARD_CAP`]); [`new_with_backpressure`](Self::new_with_backpressure) sets
    /// others.
    ///
    /// [`DEFAULT_HIGH_WATER`]: crate::server::DEFAULT_HIGH_WATER
    /// [`DEFAULT_HARD_CAP`]: crate::server::DEFAULT_HARD_CAP
    pub fn new(input: RunAgentInput) -> Result<(Self, Events)> {
        Self::new_with_backpressure(input, Backpressure::default())
    }

    /// The unit-test harness, as [`new`](Self::new), with the backlog held to `limits`.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    ///
    /// ```
    /// use ag_ui::RunAgentInput;
    /// use ag_ui::server::{Backpressure, ErrorKind, RunContext};
    ///
    /// let limits = Backpressure::default().with_high_water(1024).with_hard_cap(4096);
    /// let (mut ctx, mut events) =
    ///     RunContext::<()>::new_with_backpressure(RunAgentInput::new("t", "r"), limits).unwrap();
    /// let mut message = ctx.assistant_message().unwrap();
    /// message.delta("x".repeat(2000)).unwrap();
    /// let err = message.delta("x".repeat(2000)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Backpressure);
    /// assert!(err.message().contains("4096"));
    /// drop(message);
    /// assert!(events.peak_backlog_bytes() <= 4096);
    /// assert_eq!(events.drain().len(), 2);
    /// ```
    pub fn new_with_backpressure(
        input: RunAgentInput,
        limits: Backpressure,
    ) -> Result<(Self, Events)> {
        let started = Event::run_started(input.thread_id.clone(), input.run_id.clone());
        Self::open(input, started, false, limits)
    }

    /// Builds the context, feeds `started` to the verifier, and queues it when `queue`.
    pub(crate) fn open(
        input: RunAgentInput,
        started: Event,
        queue: bool,
        limits: Backpressure,
    ) -> Result<(Self, Events)> {
        let value = initial_state::<S>(input.state.as_ref())?;
        let (sink, events) = Sink::channel(limits);
        sink.begin(started, queue)?;
        let emitter = Emitter::new(sink, None, input.run_id.as_str().to_owned());
        let ctx = RunContext {
            emitter,
            state: StateSlot {
                value,
                published: input.state.clone(),
            },
            input,
        };
        Ok((ctx, events))
    }
}

impl<S> RunContext<S> {
    /// The run's state.
    pub fn state(&self) -> &S {
        &self.state.value
    }

    /// The run's state, for changing it; publish with [`publish_state`](Self::publish_state)
    /// or [`publish_state_delta`](Self::publish_state_delta).
    pub fn state_mut(&mut self) -> &mut S {
        &mut self.state.value
    }

    /// The request this run answers (its `state` as the client sent it).
    pub fn input(&self) -> &RunAgentInput {
        &self.input
    }

    /// The conversation.
    pub fn thread_id(&self) -> &ThreadId {
        &self.input.thread_id
    }

    /// This run.
    pub fn run_id(&self) -> &RunId {
        &self.input.run_id
    }

    /// The answers to the interrupts that ended the previous run (the input's `resume`),
    /// empty when this is not a resumed run.
    pub fn resume(&self) -> &[ResumeEntry] {
        self.input.resume.as_deref().unwrap_or_default()
    }

    pub(crate) fn sink(&self) -> &Sink {
        &self.emitter.sink
    }
}

impl<S: Serialize> RunContext<S> {
    /// Emits `STATE_SNAPSHOT` with the whole state.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::State`](crate::server::ErrorKind::State) when the state does not serialize,
    /// or nests arrays and objects more than 100 levels deep (what a client's reducer accepts
    /// by default; nothing is sent); otherwise as [`emit`](Self::emit).
    pub fn publish_state(&mut self) -> Result<()> {
        self.state.publish(&self.emitter)
    }

    /// Emits what changed since the state was last published (or since the run began, from
    /// the input's state): `STATE_DELTA` with an RFC 6902 diff, or `STATE_SNAPSHOT` when the
    /// snapshot is not larger than the patch, or nothing when nothing changed.
    ///
    /// ```
    /// use ag_ui::{Event, RunAgentInput};
    /// use ag_ui::server::RunContext;
    /// use serde_json::json;
    ///
    /// let input = RunAgentInput::new("t", "r")
    ///     .with_state(json!({"title": "A long title that stays", "done": false}));
    /// let (mut ctx, mut events) = RunContext::<serde_json::Value>::new(input).unwrap();
    ///
    /// ctx.publish_state_delta().unwrap(); // nothing changed
    /// assert!(events.drain().is_empty());
    ///
    /// ctx.state_mut()["done"] = json!(true);
    /// ctx.publish_state_delta().unwrap();
    /// let delta: Vec<ag_ui::JsonPatchOperation> =
    ///     serde_json::from_value(json!([{"op": "replace", "path": "/done", "value": true}])).unwrap();
    /// assert_eq!(events.drain(), vec![Event::state_delta(delta)]);
    /// ```
    ///
    /// # Errors
    ///
    /// As [`publish_state`](Self::publish_state).
    pub fn publish_state_delta(&mut self) -> Result<()> {
        self.state.publish_delta(&self.emitter)
    }
}

impl<S> RunContext<S> {
    /// Shows the client `value` as the state's top-level `key` before the state holds it (a
    /// value predicted from a tool call's streaming arguments), as `STATE_DELTA`. The typed
    /// state is not changed: the next publication diffs from what the client holds.
    #[cfg_attr(not(feature = "openai"), allow(dead_code))]
    pub(crate) fn publish_predicted(&mut self, key: &str, value: serde_json::Value) -> Result<()> {
        self.state.predict(&self.emitter, key, value)
    }
}

emitting_api!(RunContext<S>, S, [S]);
