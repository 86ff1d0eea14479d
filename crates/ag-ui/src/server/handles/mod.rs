//! The RAII emit handles; the guide to them is [`emit`](super::emit).

use std::fmt;
use std::ops::{Deref, DerefMut};

use serde::Serialize;

use super::scope::{Emitter, StateSlot, attribute};
use super::sink::Sink;
use super::{Error, Result};
use crate::{
    Event, MessageId, ReasoningEncryptedValueSubtype, SubagentRunId, TextMessageRole, ToolCallId,
    ToolCallStartEvent,
};

/// Opens a tool call and streams whole arguments into it; shared by contexts and messages.
pub(crate) fn one_shot_tool_call(
    emitter: &Emitter,
    id: ToolCallId,
    name: String,
    parent: Option<&MessageId>,
    args: &impl Serialize,
) -> Result<ToolCallId> {
    let args = serde_json::to_string(args).map_err(|e| Error::serialize("tool arguments", e))?;
    let mut call = ToolCallHandle::open(emitter, id, name, parent)?;
    call.args(args)?;
    let id = call.id.clone();
    call.end()?;
    Ok(id)
}

macro_rules! state_access {
    ($handle:ident) => {
        impl<S: Serialize> $handle<'_, S> {
            /// The run's state.
            pub fn state(&self) -> &S {
                &self.state.value
            }

            /// The run's state, for changing it while the block is open.
            pub fn state_mut(&mut self) -> &mut S {
                &mut self.state.value
            }

            /// Emits `STATE_SNAPSHOT` with the whole state (legal while the block is open).
            ///
            /// # Errors
            ///
            /// The state does not serialize, or the emission was refused (see
            /// [`RunContext::emit`](crate::server::RunContext::emit)).
            pub fn publish_state(&mut self) -> Result<()> {
                self.state.publish(self.emitter)
            }

            /// Emits what changed in the state since it was last published: `STATE_DELTA`,
            /// or a snapshot when that is smaller, or nothing.
            ///
            /// # Errors
            ///
            /// As [`publish_state`](Self::publish_state).
            pub fn publish_state_delta(&mut self) -> Result<()> {
                self.state.publish_delta(self.emitter)
            }
        }

        impl<S> $handle<'_, S> {
            /// Waits while the run's backlog is over its high-water mark; see
            /// [`RunContext::ready`](crate::server::RunContext::ready). Call it between
            /// deltas that a slow reader could pile up.
            ///
            /// # Errors
            ///
            /// As [`RunContext::ready`](crate::server::RunContext::ready).
            pub fn ready(&self) -> impl std::future::Future<Output = Result<()>> + Send + 'static {
                self.emitter.sink.ready()
            }

            /// Sends an event of an unordered family (`STATE_*`, `ACTIVITY_*`, `CUSTOM`,
            /// `RAW`, `MESSAGES_SNAPSHOT`, `TOOL_CALL_RESULT`, `REASONING_ENCRYPTED_VALUE`,
            /// chunks) while the block is open. Inside a subagent it is attributed to it.
            ///
            /// # Errors
            ///
            /// [`ErrorKind::Misuse`](crate::server::ErrorKind::Misuse) for a bracketed or
            /// lifecycle event type; otherwise as
            /// [`RunContext::emit`](crate::server::RunContext::emit).
            pub fn emit(&mut self, event: impl Into<Event>) -> Result<()> {
                self.emitter.emit_unordered(event.into())
            }
        }
    };
}

/// An open text message: `TEXT_MESSAGE_START` has been emitted; [`delta`](Self::delta) emits
/// `TEXT_MESSAGE_CONTENT`; [`end`](Self::end) — or `Drop` — emits `TEXT_MESSAGE_END`.
///
/// From [`RunContext::assistant_message`](crate::server::RunContext::assistant_message) and
/// friends. `S` is the run's state type ([`Detached`](crate::server::Detached) inside a
/// subagent).
#[must_use = "a message is ended when its handle is dropped; bind it to stream into it"]
pub struct MessageHandle<'a, S = ()> {
    emitter: &'a Emitter,
    state: &'a mut StateSlot<S>,
    id: MessageId,
    role: TextMessageRole,
    open: bool,
}

impl<S> fmt::Debug for MessageHandle<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MessageHandle")
            .field("id", &self.id)
            .field("role", &self.role)
            .finish_non_exhaustive()
    }
}

impl<'a, S> MessageHandle<'a, S> {
    pub(crate) fn open(
        emitter: &'a Emitter,
        state: &'a mut StateSlot<S>,
        id: MessageId,
        role: TextMessageRole,
    ) -> Result<Self> {
        emitter.send(Event::text_message_start(id.clone(), role))?;
        Ok(Self {
            emitter,
            state,
            id,
            role,
            open: true,
        })
    }

    /// The message id.
    pub fn id(&self) -> &MessageId {
        &self.id
    }

    /// The message's role.
    pub fn role(&self) -> TextMessageRole {
        self.role
    }

    /// Appends `text` (`TEXT_MESSAGE_CONTENT`). An empty delta is legal.
    ///
    /// # Errors
    ///
    /// The emission was refused (see [`RunContext::emit`](crate::server::RunContext::emit)).
    #[inline]
    pub fn delta(&mut self, text: impl Into<String>) -> Result<()> {
        self.emitter
            .send(Event::text_message_content(self.id.clone(), text))
    }

    /// Emits `TEXT_MESSAGE_END`. Optional — `Drop` does the same — but only `end` reports an
    /// error.
    ///
    /// # Errors
    ///
    /// The emission was refused (see [`RunContext::emit`](crate::server::RunContext::emit)).
    pub fn end(mut self) -> Result<()> {
        self.open = false;
        self.emitter.send(Event::text_message_end(self.id.clone()))
    }

    /// Opens a tool call held by this message: its `TOOL_CALL_START` carries this message as
    /// `parentMessageId`. The message cannot stream text until the call is closed.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Misuse`](crate::server::ErrorKind::Misuse) unless this is an assistant
    /// message; otherwise as [`delta`](Self::delta).
    pub fn tool_call(&self, name: impl Into<String>) -> Result<ToolCallHandle<'_>> {
        self.check_assistant()?;
        ToolCallHandle::open(
            self.emitter,
            self.emitter.next_tool_call_id(),
            name.into(),
            Some(&self.id),
        )
    }

    /// A whole tool call held by this message: `TOOL_CALL_START` (with `parentMessageId`),
    /// `TOOL_CALL_ARGS` with `args` serialized as JSON, `TOOL_CALL_END`. Returns its id.
    ///
    /// # Errors
    ///
    /// As [`tool_call`](Self::tool_call); [`ErrorKind::Serialize`](crate::server::ErrorKind)
    /// when `args` does not serialize (nothing is emitted then).
    pub fn call_tool(&self, name: impl Into<String>, args: &impl Serialize) -> Result<ToolCallId> {
        self.check_assistant()?;
        one_shot_tool_call(
            self.emitter,
            self.emitter.next_tool_call_id(),
            name.into(),
            Some(&self.id),
            args,
        )
    }

    fn check_assistant(&self) -> Result<()> {
        if self.role == TextMessageRole::Assistant {
            Ok(())
        } else {
            Err(Error::misuse(format!(
                "tool calls belong to assistant messages; message {} has another role",
                self.id
            )))
        }
    }
}

impl<S> Drop for MessageHandle<'_, S> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.emitter.send(Event::text_message_end(self.id.clone()));
        }
    }
}

state_access!(MessageHandle);

/// An open reasoning block: `REASONING_START` and `REASONING_MESSAGE_START` have been emitted;
/// [`delta`](Self::delta) emits `REASONING_MESSAGE_CONTENT`; [`end`](Self::end) — or `Drop` —
/// emits `REASONING_MESSAGE_END` and `REASONING_END`.
///
/// The span and the message it holds share one id.
#[must_use = "a reasoning block is ended when its handle is dropped; bind it to stream into it"]
pub struct ReasoningHandle<'a, S = ()> {
    emitter: &'a Emitter,
    state: &'a mut StateSlot<S>,
    id: MessageId,
    open: bool,
}

impl<S> fmt::Debug for ReasoningHandle<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReasoningHandle")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl<'a, S> ReasoningHandle<'a, S> {
    pub(crate) fn open(
        emitter: &'a Emitter,
        state: &'a mut StateSlot<S>,
        id: MessageId,
    ) -> Result<Self> {
        emitter.send(Event::reasoning_start(id.clone()))?;
        if let Err(e) = emitter.send(Event::reasoning_message_start(id.clone())) {
            // Do not leave the span open behind a failed open.
            let _ = emitter.send(Event::reasoning_end(id));
            return Err(e);
        }
        Ok(Self {
            emitter,
            state,
            id,
            open: true,
        })
    }

    /// The id of the span and of its message.
    pub fn id(&self) -> &MessageId {
        &self.id
    }

    /// Appends `text` (`REASONING_MESSAGE_CONTENT`).
    ///
    /// # Errors
    ///
    /// The emission was refused (see [`RunContext::emit`](crate::server::RunContext::emit)).
    pub fn delta(&mut self, text: impl Into<String>) -> Result<()> {
        self.emitter
            .send(Event::reasoning_message_content(self.id.clone(), text))
    }

    /// Attaches reasoning the provider returned only as an opaque blob
    /// (`REASONING_ENCRYPTED_VALUE`, subtype `message`, naming this block's message), for the
    /// client to store and send back with the next request.
    ///
    /// # Errors
    ///
    /// The emission was refused (see [`RunContext::emit`](crate::server::RunContext::emit)).
    pub fn encrypted_value(&mut self, value: impl Into<String>) -> Result<()> {
        self.emitter.send(Event::reasoning_encrypted_value(
            ReasoningEncryptedValueSubtype::Message,
            self.id.as_str(),
            value,
        ))
    }

    fn close(&mut self) -> Result<()> {
        self.open = false;
        let message = self
            .emitter
            .send(Event::reasoning_message_end(self.id.clone()));
        let span = self.emitter.send(Event::reasoning_end(self.id.clone()));
        message.and(span)
    }

    /// Emits `REASONING_MESSAGE_END` and `REASONING_END`. Optional — `Drop` does the same —
    /// but only `end` reports an error.
    ///
    /// # Errors
    ///
    /// The emission was refused (see [`RunContext::emit`](crate::server::RunContext::emit)).
    pub fn end(mut self) -> Result<()> {
        self.close()
    }
}

impl<S> Drop for ReasoningHandle<'_, S> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.close();
        }
    }
}

state_access!(ReasoningHandle);

/// An open tool call: `TOOL_CALL_START` has been emitted; [`args`](Self::args) emits
/// `TOOL_CALL_ARGS`; [`end`](Self::end) — or `Drop` — emits `TOOL_CALL_END`.
///
/// It borrows its context shared, so several tool calls can be open at once (parallel calls
/// are legal), but no message or reasoning block can open beside them.
#[must_use = "a tool call is ended when its handle is dropped; bind it to stream arguments"]
pub struct ToolCallHandle<'a> {
    emitter: &'a Emitter,
    id: ToolCallId,
    open: bool,
}

impl fmt::Debug for ToolCallHandle<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolCallHandle")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl<'a> ToolCallHandle<'a> {
    pub(crate) fn open(
        emitter: &'a Emitter,
        id: ToolCallId,
        name: String,
        parent: Option<&MessageId>,
    ) -> Result<Self> {
        let mut start = ToolCallStartEvent::new(id.clone(), name);
        start.parent_message_id = parent.cloned();
        emitter.send(start.into())?;
        Ok(Self {
            emitter,
            id,
            open: true,
        })
    }

    /// The tool call id (what `TOOL_CALL_RESULT` answers).
    pub fn id(&self) -> &ToolCallId {
        &self.id
    }

    /// Waits while the run's backlog is over its high-water mark; see
    /// [`RunContext::ready`](crate::server::RunContext::ready).
    ///
    /// # Errors
    ///
    /// As [`RunContext::ready`](crate::server::RunContext::ready).
    pub fn ready(&self) -> impl std::future::Future<Output = Result<()>> + Send + 'static {
        self.emitter.sink.ready()
    }

    /// Appends a fragment of the argument text (`TOOL_CALL_ARGS`).
    ///
    /// # Errors
    ///
    /// The emission was refused (see [`RunContext::emit`](crate::server::RunContext::emit)).
    pub fn args(&mut self, delta: impl Into<String>) -> Result<()> {
        self.emitter
            .send(Event::tool_call_args(self.id.clone(), delta))
    }

    /// Attaches an opaque provider artefact to this call (`REASONING_ENCRYPTED_VALUE`, subtype
    /// `tool-call`).
    ///
    /// # Errors
    ///
    /// The emission was refused (see [`RunContext::emit`](crate::server::RunContext::emit)).
    pub fn encrypted_value(&mut self, value: impl Into<String>) -> Result<()> {
        self.emitter.send(Event::reasoning_encrypted_value(
            ReasoningEncryptedValueSubtype::ToolCall,
            self.id.as_str(),
            value,
        ))
    }

    /// Emits `TOOL_CALL_END`. Optional — `Drop` does the same — but only `end` reports an
    /// error.
    ///
    /// # Errors
    ///
    /// The emission was refused (see [`RunContext::emit`](crate::server::RunContext::emit)).
    pub fn end(mut self) -> Result<()> {
        self.open = false;
        self.emitter.send(Event::tool_call_end(self.id.clone()))
    }
}

impl Drop for ToolCallHandle<'_> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.emitter.send(Event::tool_call_end(self.id.clone()));
        }
    }
}

/// An open step: `STEP_STARTED` has been emitted; [`end`](Self::end) — or `Drop` — emits
/// `STEP_FINISHED`.
///
/// The step holds its context (a [`RunContext`](crate::server::RunContext) or a
/// [`SubagentContext`](crate::server::SubagentContext)) and dereferences to it: everything
/// done inside the step goes through the handle.
///
/// ```
/// use ag_ui::{Event, RunAgentInput};
/// use ag_ui::server::RunContext;
///
/// let (mut ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap();
/// let mut step = ctx.step("search").unwrap();
/// step.say("Searching…").unwrap();
/// drop(step);
/// let events = events.drain();
/// assert_eq!(events.first(), Some(&Event::step_started("search")));
/// assert_eq!(events.last(), Some(&Event::step_finished("search")));
/// ```
#[must_use = "a step is finished when its handle is dropped; bind it to work inside it"]
pub struct StepHandle<'a, C> {
    ctx: &'a mut C,
    sink: Sink,
    owner: Option<SubagentRunId>,
    name: String,
    open: bool,
}

impl<C> fmt::Debug for StepHandle<'_, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StepHandle")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl<'a, C> StepHandle<'a, C> {
    pub(crate) fn open(
        ctx: &'a mut C,
        sink: Sink,
        owner: Option<SubagentRunId>,
        name: String,
    ) -> Result<Self> {
        sink.send(attribute(Event::step_started(name.clone()), owner.as_ref()))?;
        Ok(Self {
            ctx,
            sink,
            owner,
            name,
            open: true,
        })
    }

    /// The step's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn close(&mut self) -> Result<()> {
        self.open = false;
        self.sink.send(attribute(
            Event::step_finished(self.name.clone()),
            self.owner.as_ref(),
        ))
    }

    /// Emits `STEP_FINISHED`. Optional — `Drop` does the same — but only `end` reports an
    /// error.
    ///
    /// # Errors
    ///
    /// The emission was refused (see [`RunContext::emit`](crate::server::RunContext::emit)).
    pub fn end(mut self) -> Result<()> {
        self.close()
    }
}

impl<C> Deref for StepHandle<'_, C> {
    type Target = C;

    fn deref(&self) -> &C {
        self.ctx
    }
}

impl<C> DerefMut for StepHandle<'_, C> {
    fn deref_mut(&mut self) -> &mut C {
        self.ctx
    }
}

impl<C> Drop for StepHandle<'_, C> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.close();
        }
    }
}

#[cfg(test)]
mod tests;
