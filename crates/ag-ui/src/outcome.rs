//! How runs and subagents end: outcomes, interrupts and token usage.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::serde_util::{count, non_null};
use crate::{InterruptId, Metadata, SubagentRunId, ToolCallId};

/// A pause that asks the outside world for input before the run can go on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Interrupt {
    /// Correlation key; a resume entry answers by this id.
    pub id: InterruptId,
    /// Why: `"tool_call"`, `"input_required"`, `"confirmation"` or a custom
    /// `"<framework>:<name>"`.
    pub reason: String,
    /// A prompt for the person.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "non_null"
    )]
    pub message: Option<String>,
    /// The tool call the approval concerns.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "non_null"
    )]
    pub tool_call_id: Option<ToolCallId>,
    /// JSON Schema of the expected answer.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "non_null"
    )]
    pub response_schema: Option<Metadata>,
    /// When the interrupt expires (ISO 8601 by convention).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "non_null"
    )]
    pub expires_at: Option<String>,
    /// Open-by-key extra information.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "non_null"
    )]
    pub metadata: Option<Metadata>,
    /// The subagent whose work raised it; absent for the root agent. A legacy `null` reads as
    /// absent, as the reference client reads it (the verifier on raw JSON,
    /// [`Verifier::check_json`](crate::verify::Verifier::check_json), reports it as
    /// `attribution.null`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<SubagentRunId>,
}

impl Interrupt {
    /// An interrupt with an id and a reason.
    pub fn new(id: impl Into<InterruptId>, reason: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            reason: reason.into(),
            message: None,
            tool_call_id: None,
            response_schema: None,
            expires_at: None,
            metadata: None,
            subagent_run_id: None,
        }
    }

    /// Sets the prompt.
    #[must_use]
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }

    /// Binds the interrupt to a tool call.
    #[must_use]
    pub fn with_tool_call_id(mut self, id: impl Into<ToolCallId>) -> Self {
        self.tool_call_id = Some(id.into());
        self
    }

    /// Sets the schema of the expected answer.
    #[must_use]
    pub fn with_response_schema(mut self, schema: Metadata) -> Self {
        self.response_schema = Some(schema);
        self
    }

    /// Sets the expiry.
    #[must_use]
    pub fn with_expires_at(mut self, at: impl Into<String>) -> Self {
        self.expires_at = Some(at.into());
        self
    }

    /// Sets the metadata.
    #[must_use]
    pub fn with_metadata(mut self, metadata: Metadata) -> Self {
        self.metadata = Some(metadata);
        self
    }

    /// Attributes the interrupt to a subagent invocation.
    #[must_use]
    pub fn with_subagent_run_id(mut self, id: impl Into<SubagentRunId>) -> Self {
        self.subagent_run_id = Some(id.into());
        self
    }
}

/// How a run ended (`RUN_FINISHED.outcome`); an absent outcome means success.
///
/// ```
/// use ag_ui::{Interrupt, RunFinishedOutcome};
///
/// let o = RunFinishedOutcome::interrupt(vec![Interrupt::new("i1", "confirmation")]);
/// assert_eq!(
///     serde_json::to_string(&o).unwrap(),
///     r#"{"type":"interrupt","interrupts":[{"id":"i1","reason":"confirmation"}]}"#
/// );
/// // An interrupt outcome needs at least one interrupt.
/// assert!(serde_json::from_str::<RunFinishedOutcome>(r#"{"type":"interrupt","interrupts":[]}"#).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum RunFinishedOutcome {
    /// The run completed.
    Success {
        /// Tool calls this run started and left unanswered, in call order.
        #[serde(rename = "pendingToolCallIds", skip_serializing_if = "Option::is_none")]
        pending_tool_call_ids: Option<Vec<ToolCallId>>,
    },
    /// The run is paused until every interrupt is answered by a `resume` entry.
    Interrupt {
        /// At least one interrupt.
        interrupts: Vec<Interrupt>,
    },
    /// The run was stopped by whoever ran it.
    Cancelled,
}

impl RunFinishedOutcome {
    /// Success with no pending tool calls.
    pub fn success() -> Self {
        RunFinishedOutcome::Success {
            pending_tool_call_ids: None,
        }
    }

    /// An interrupt outcome.
    pub fn interrupt(interrupts: Vec<Interrupt>) -> Self {
        RunFinishedOutcome::Interrupt { interrupts }
    }
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum RunFinishedOutcomeWire {
    Success {
        #[serde(rename = "pendingToolCallIds", default, deserialize_with = "non_null")]
        pending_tool_call_ids: Option<Vec<ToolCallId>>,
    },
    Interrupt {
        interrupts: Vec<Interrupt>,
    },
    Cancelled,
}

impl<'de> Deserialize<'de> for RunFinishedOutcome {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match RunFinishedOutcomeWire::deserialize(d)? {
            RunFinishedOutcomeWire::Success {
                pending_tool_call_ids,
            } => RunFinishedOutcome::Success {
                pending_tool_call_ids,
            },
            RunFinishedOutcomeWire::Interrupt { interrupts } if interrupts.is_empty() => {
                return Err(de::Error::invalid_length(0, &"at least one interrupt"));
            }
            RunFinishedOutcomeWire::Interrupt { interrupts } => {
                RunFinishedOutcome::Interrupt { interrupts }
            }
            RunFinishedOutcomeWire::Cancelled => RunFinishedOutcome::Cancelled,
        })
    }
}

/// How a subagent invocation ended (`SUBAGENT_FINISHED.outcome`); absent means success.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum SubagentFinishedOutcome {
    /// The subagent completed.
    Success,
    /// The subagent is paused awaiting outside input; a later run may continue it.
    Suspended {
        /// Ids of the run-level interrupts this subagent raised itself.
        #[serde(
            rename = "interruptIds",
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "non_null"
        )]
        interrupt_ids: Option<Vec<InterruptId>>,
    },
}

/// Known discriminators of the outcome unions, used to drop unknown ones.
pub(crate) const RUN_OUTCOMES: &[&str] = &["success", "interrupt", "cancelled"];
pub(crate) const SUBAGENT_OUTCOMES: &[&str] = &["success", "suspended"];

/// Reads an optional outcome: a legacy `null` is absent, an object whose `type` names no known
/// outcome is dropped with a warning (read as success), anything else must parse.
pub(crate) fn lenient_outcome<'de, D, T>(d: D, known: &[&str]) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let value = Value::deserialize(d)?;
    if value.is_null() {
        return Ok(None);
    }
    if let Some(name) = crate::serde_util::unknown_member(&value, "type", known) {
        tracing::warn!(%name, "dropping an outcome of unknown type");
        return Ok(None);
    }
    T::deserialize(value).map(Some).map_err(de::Error::custom)
}

pub(crate) fn run_outcome<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<RunFinishedOutcome>, D::Error> {
    lenient_outcome(d, RUN_OUTCOMES)
}

pub(crate) fn subagent_outcome<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<SubagentFinishedOutcome>, D::Error> {
    // A `null` outcome on SUBAGENT_FINISHED is an error (it is not on the legacy list).
    let value = Value::deserialize(d)?;
    if value.is_null() {
        return Err(de::Error::invalid_type(
            de::Unexpected::Unit,
            &"a subagent outcome object",
        ));
    }
    lenient_outcome(value, SUBAGENT_OUTCOMES).map_err(de::Error::custom)
}

/// Tokens spent by one (provider, model) pair. Every field is optional; `{}` is valid.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TokenUsage {
    /// Lower-case vendor id, e.g. `openai`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "non_null"
    )]
    pub provider: Option<String>,
    /// Model name.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "non_null"
    )]
    pub model: Option<String>,
    /// Total prompt tokens, cache reads and writes included.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "count"
    )]
    pub input_tokens: Option<u64>,
    /// Total generated tokens, reasoning included.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "count"
    )]
    pub output_tokens: Option<u64>,
    /// Input plus output.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "count"
    )]
    pub total_tokens: Option<u64>,
    /// The reasoning part of the output.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "count"
    )]
    pub reasoning_tokens: Option<u64>,
    /// Cache reads, part of the input.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "count"
    )]
    pub cached_input_tokens: Option<u64>,
    /// Cache writes, part of the input.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "count"
    )]
    pub cache_write_input_tokens: Option<u64>,
}

impl TokenUsage {
    /// Usage for one provider and model, with no counts yet.
    pub fn new(provider: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            provider: Some(provider.into()),
            model: Some(model.into()),
            ..Self::default()
        }
    }

    /// Sets input and output tokens and their total.
    #[must_use]
    pub fn with_tokens(mut self, input: u64, output: u64) -> Self {
        self.input_tokens = Some(input);
        self.output_tokens = Some(output);
        self.total_tokens = Some(input + output);
        self
    }
}
