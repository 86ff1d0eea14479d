//! The run request: [`RunAgentInput`] and what it carries.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::messages;
use crate::{InterruptId, Message, Metadata, RunId, ThreadId};

/// The body of a run request (`POST` to an agent endpoint), echoed optionally in
/// `RUN_STARTED.input`.
///
/// ```
/// use ag_ui::{Message, RunAgentInput, PROTOCOL_VERSION};
/// use serde_json::json;
///
/// let input = RunAgentInput::new("thread-1", "run-1")
///     .with_protocol_version(PROTOCOL_VERSION)
///     .with_messages(vec![Message::user("u1", "hello")])
///     .with_state(json!({"count": 1}));
/// let wire = serde_json::to_value(&input).unwrap();
/// assert_eq!(wire["threadId"], "thread-1");
/// assert_eq!(wire["messages"][0]["role"], "user");
/// assert_eq!(wire.get("parentRunId"), None);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RunAgentInput {
    /// The conversation.
    pub thread_id: ThreadId,
    /// The run being requested.
    pub run_id: RunId,
    /// The protocol version the client speaks (`"1.0"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The run that spawned this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_run_id: Option<RunId>,
    /// Starting state; a `null` reads as absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<Value>,
    /// The conversation so far. Messages of unknown role are dropped when reading.
    pub messages: Vec<Message>,
    /// Tools the agent may call (absent reads as empty).
    pub tools: Vec<Tool>,
    /// Ambient context (absent reads as empty).
    pub context: Vec<Context>,
    /// Application values passed through untouched; a legacy `null` reads as absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forwarded_props: Option<Value>,
    /// Answers to the interrupts that ended the previous run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resume: Option<Vec<ResumeEntry>>,
}

read_fields! {
    RunAgentInput, rest = crate::serde_util::fields::Ignore,
    required { thread_id: ThreadId, run_id: RunId, messages: Vec<Message> as InputMessages }
    optional { protocol_version: String, parent_run_id: RunId, resume: Vec<ResumeEntry> }
    lenient { state: Value, forwarded_props: Value }
    defaulted { tools: Vec<Tool>, context: Vec<Context> }
}

impl RunAgentInput {
    /// An input for `run_id` on `thread_id` with no messages, tools, context or state,
    /// declaring the protocol version this crate speaks ([`PROTOCOL_VERSION`](crate::PROTOCOL_VERSION),
    /// "1.0"): a server reads an input without `protocolVersion` as a pre-1.0 client's and
    /// downgrades its stream. An input read from JSON keeps what it said.
    ///
    /// ```
    /// use ag_ui::RunAgentInput;
    ///
    /// let input = RunAgentInput::new("t", "r");
    /// assert_eq!(input.protocol_version.as_deref(), Some("1.0"));
    /// let old: RunAgentInput =
    ///     serde_json::from_str(r#"{"threadId":"t","runId":"r","messages":[]}"#).unwrap();
    /// assert_eq!(old.protocol_version, None);
    /// ```
    pub fn new(thread_id: impl Into<ThreadId>, run_id: impl Into<RunId>) -> Self {
        Self {
            thread_id: thread_id.into(),
            run_id: run_id.into(),
            protocol_version: Some(crate::PROTOCOL_VERSION.to_owned()),
            parent_run_id: None,
            state: None,
            messages: Vec::new(),
            tools: Vec::new(),
            context: Vec::new(),
            forwarded_props: None,
            resume: None,
        }
    }

    /// Sets the protocol version the client speaks.
    #[must_use]
    pub fn with_protocol_version(mut self, version: impl Into<String>) -> Self {
        self.protocol_version = Some(version.into());
        self
    }

    /// Sets the parent run.
    #[must_use]
    pub fn with_parent_run_id(mut self, id: impl Into<RunId>) -> Self {
        self.parent_run_id = Some(id.into());
        self
    }

    /// Sets the starting state.
    #[must_use]
    pub fn with_state(mut self, state: Value) -> Self {
        self.state = Some(state);
        self
    }

    /// Sets the conversation.
    #[must_use]
    pub fn with_messages(mut self, messages: Vec<Message>) -> Self {
        self.messages = messages;
        self
    }

    /// Sets the tools.
    #[must_use]
    pub fn with_tools(mut self, tools: Vec<Tool>) -> Self {
        self.tools = tools;
        self
    }

    /// Sets the context.
    #[must_use]
    pub fn with_context(mut self, context: Vec<Context>) -> Self {
        self.context = context;
        self
    }

    /// Sets the forwarded props.
    #[must_use]
    pub fn with_forwarded_props(mut self, props: Value) -> Self {
        self.forwarded_props = Some(props);
        self
    }

    /// Sets the resume entries.
    #[must_use]
    pub fn with_resume(mut self, resume: Vec<ResumeEntry>) -> Self {
        self.resume = Some(resume);
        self
    }
}

/// A tool the agent may call.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// The name the agent calls it by.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of the arguments; a legacy `null` reads as absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
    /// Rendering or routing information.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

read_fields! {
    Tool, rest = crate::serde_util::fields::Ignore,
    required { name: String, description: String }
    optional { metadata: Metadata }
    lenient { parameters: Value }
    defaulted {}
}

impl Tool {
    /// A tool with no parameter schema.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            parameters: None,
            metadata: None,
        }
    }

    /// Sets the JSON Schema of the arguments.
    #[must_use]
    pub fn with_parameters(mut self, schema: Value) -> Self {
        self.parameters = Some(schema);
        self
    }

    /// Sets the metadata.
    #[must_use]
    pub fn with_metadata(mut self, metadata: Metadata) -> Self {
        self.metadata = Some(metadata);
        self
    }
}

/// Named ambient information for a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Context {
    /// What the value is.
    pub description: String,
    /// The value.
    pub value: String,
}

read_fields! {
    Context, rest = crate::serde_util::fields::Ignore,
    required { description: String, value: String }
    optional {}
    lenient {}
    defaulted {}
}

impl Context {
    /// A context entry.
    pub fn new(description: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            description: description.into(),
            value: value.into(),
        }
    }
}

/// How an interrupt was answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ResumeStatus {
    /// Answered; the answer is in `payload`.
    Resolved,
    /// Withdrawn.
    Cancelled,
}

/// One answer to an interrupt, in `RunAgentInput.resume`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResumeEntry {
    /// The interrupt answered.
    pub interrupt_id: InterruptId,
    /// Resolved or cancelled.
    pub status: ResumeStatus,
    /// The answer; a legacy `null` reads as absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<Value>,
    /// Data about the response (signatures, routing keys).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

read_fields! {
    ResumeEntry, rest = crate::serde_util::fields::Ignore,
    required { interrupt_id: InterruptId, status: ResumeStatus }
    optional { metadata: Metadata }
    lenient { payload: Value }
    defaulted {}
}

impl ResumeEntry {
    /// A resolved entry carrying `payload`.
    pub fn resolved(interrupt_id: impl Into<InterruptId>, payload: Value) -> Self {
        Self {
            interrupt_id: interrupt_id.into(),
            status: ResumeStatus::Resolved,
            payload: Some(payload),
            metadata: None,
        }
    }

    /// A cancelled entry.
    pub fn cancelled(interrupt_id: impl Into<InterruptId>) -> Self {
        Self {
            interrupt_id: interrupt_id.into(),
            status: ResumeStatus::Cancelled,
            payload: None,
            metadata: None,
        }
    }

    /// Sets the metadata.
    #[must_use]
    pub fn with_metadata(mut self, metadata: Metadata) -> Self {
        self.metadata = Some(metadata);
        self
    }
}

/// The input's messages, as `messages` reads them, with what is left out recorded under
/// `/input/messages` (the only place an input is read with a collector installed is
/// `RUN_STARTED.input`; see `decode::strip`).
fn input_messages<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Message>, D::Error> {
    crate::decode::strip::within("input", || messages(d))
}

reader! {
    /// `RunAgentInput.messages`: messages of an unknown role dropped (`message::messages`).
    InputMessages(input_messages) -> Vec<Message>
}
