//! What applying an event reports: [`Applied`], [`ApplyWarning`] and the [`RunOutcome`].

use std::fmt;

use crate::{EventType, Interrupt, ToolCallId};
use serde_json::Value;

/// What one event did to the messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MessagesChange {
    /// Nothing.
    Unchanged,
    /// A message was appended at this index.
    Appended(usize),
    /// A message was inserted at this index; the messages after it moved up by one.
    Inserted(usize),
    /// The message at this index changed in place (text appended, tool call added, metadata
    /// merged, activity replaced or patched, encrypted value set).
    Updated(usize),
    /// The list changed as a whole (a `MESSAGES_SNAPSHOT`, or `RUN_STARTED` input messages).
    Replaced,
}

impl MessagesChange {
    /// Whether the messages changed at all (the reference client emits a messages update).
    pub fn is_changed(self) -> bool {
        self != MessagesChange::Unchanged
    }
}

/// What applying one event changed.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Applied {
    /// How the messages changed.
    pub messages: MessagesChange,
    /// Whether the state changed.
    pub state_changed: bool,
    /// A message that is complete now (`TEXT_MESSAGE_END`, `REASONING_MESSAGE_END`, a tool
    /// result, a newly created activity): its index.
    pub new_message: Option<usize>,
    /// A tool call whose arguments are complete now (`TOOL_CALL_END`).
    pub new_tool_call: Option<ToolCallId>,
    /// Why (part of) the event was not applied.
    pub warning: Option<ApplyWarning>,
}

impl Applied {
    pub(super) fn none() -> Self {
        Self {
            messages: MessagesChange::Unchanged,
            state_changed: false,
            new_message: None,
            new_tool_call: None,
            warning: None,
        }
    }

    pub(super) fn messages(change: MessagesChange) -> Self {
        Self {
            messages: change,
            ..Self::none()
        }
    }

    pub(super) fn updated_if(changed: bool, index: usize) -> Self {
        Self::messages(if changed {
            MessagesChange::Updated(index)
        } else {
            MessagesChange::Unchanged
        })
    }

    /// Whether the messages or the state changed.
    pub fn is_changed(&self) -> bool {
        self.messages.is_changed() || self.state_changed
    }
}

/// The kinds of [`ApplyWarning`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ApplyWarningKind {
    /// A text or reasoning event names a message that does not exist.
    UnknownMessage,
    /// A text or reasoning event names an activity message.
    ActivityMessageId,
    /// A tool call event names a tool call that does not exist.
    UnknownToolCall,
    /// `TOOL_CALL_START.parentMessageId` names a message that is not an assistant message; a new
    /// assistant message with the tool call's id holds the call.
    ParentNotAssistant,
    /// A replayed `TOOL_CALL_START` renamed an existing tool call.
    ToolCallRenamed,
    /// `ACTIVITY_DELTA` names a message that is not an activity.
    NotActivity,
    /// A `STATE_DELTA` patch failed; the state is unchanged.
    StatePatchFailed,
    /// An `ACTIVITY_DELTA` patch failed (or would make the content a non-object); the content is
    /// unchanged.
    ActivityPatchFailed,
}

impl ApplyWarningKind {
    /// A stable dotted name, e.g. `apply.state-patch-failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApplyWarningKind::UnknownMessage => "apply.unknown-message",
            ApplyWarningKind::ActivityMessageId => "apply.activity-message-id",
            ApplyWarningKind::UnknownToolCall => "apply.unknown-tool-call",
            ApplyWarningKind::ParentNotAssistant => "apply.parent-not-assistant",
            ApplyWarningKind::ToolCallRenamed => "apply.tool-call-renamed",
            ApplyWarningKind::NotActivity => "apply.not-activity",
            ApplyWarningKind::StatePatchFailed => "apply.state-patch-failed",
            ApplyWarningKind::ActivityPatchFailed => "apply.activity-patch-failed",
        }
    }
}

/// A part of an event that the reducer could not apply. Messages and state stay as they were for
/// that part.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApplyWarning {
    /// What was wrong.
    pub kind: ApplyWarningKind,
    /// The event's index among the events this reducer was given (0-based).
    pub index: u64,
    /// The event's type.
    pub event_type: EventType,
    /// A human-readable explanation.
    pub message: String,
}

impl fmt::Display for ApplyWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "event {} ({}): {}: {}",
            self.index,
            self.event_type.as_str(),
            self.kind.as_str(),
            self.message
        )
    }
}

/// How the last `RUN_FINISHED` ended its run, as the reducer saw it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RunOutcome {
    /// The run succeeded (also when `RUN_FINISHED` names no outcome).
    Success {
        /// The run's result, if it reported one.
        result: Option<Value>,
        /// Tool calls waiting for a result from the client: the outcome's own non-empty list,
        /// else the tool calls started in this run that got no `TOOL_CALL_RESULT` (start order).
        pending_tool_call_ids: Vec<ToolCallId>,
    },
    /// The run paused on interrupts.
    Interrupt {
        /// The open interrupts.
        interrupts: Vec<Interrupt>,
    },
    /// The run was cancelled.
    Cancelled,
}
