//! How runs and subagents end: outcomes, interrupts and token usage.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::serde_util::{Tagged, VariantStruct, non_null};
use crate::{InterruptId, Metadata, SubagentRunId, ToolCallId};

/// A pause that asks the outside world for input before the run can go on.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Interrupt {
    /// Correlation key; a resume entry answers by this id.
    pub id: InterruptId,
    /// Why: `"tool_call"`, `"input_required"`, `"confirmation"` or a custom
    /// `"<framework>:<name>"`.
    pub reason: String,
    /// A prompt for the person.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The tool call the approval concerns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<ToolCallId>,
    /// JSON Schema of the expected answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_schema: Option<Metadata>,
    /// When the interrupt expires (ISO 8601 by convention).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// Open-by-key extra information.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// The subagent whose work raised it; absent for the root agent. A legacy `null` reads as
    /// absent, as the reference client reads it (the verifier on raw JSON,
    /// [`Verifier::check_json`](crate::verify::Verifier::check_json), reports it as
    /// `attribution.null`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<SubagentRunId>,
}

read_fields! {
    Interrupt, rest = crate::serde_util::fields::Ignore,
    required { id: InterruptId, reason: String }
    optional {
        message: String,
        tool_call_id: ToolCallId,
        response_schema: Metadata,
        expires_at: String,
        metadata: Metadata,
    }
    lenient { subagent_run_id: SubagentRunId }
    defaulted {}
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

    /// When the interrupt expires, read from [`expires_at`](Self::expires_at): an RFC 3339
    /// date-time (`2026-01-31T12:00:00Z`, `2026-01-31T14:00:00.250+02:00`) or a bare date (UTC
    /// midnight). `None` without an expiry, or for one that cannot be read: such an interrupt
    /// never expires, as in the reference client.
    ///
    /// ```
    /// use ag_ui::Interrupt;
    /// use std::time::{Duration, UNIX_EPOCH};
    ///
    /// let i = Interrupt::new("i1", "confirmation").with_expires_at("1970-01-01T00:01:00.5+00:01");
    /// assert_eq!(i.expiry(), Some(UNIX_EPOCH + Duration::from_millis(500)));
    /// assert_eq!(Interrupt::new("i2", "confirmation").with_expires_at("soon").expiry(), None);
    /// ```
    pub fn expiry(&self) -> Option<SystemTime> {
        let ms = timestamp_ms(self.expires_at.as_deref()?)?;
        let offset = Duration::from_millis(ms.unsigned_abs());
        if ms >= 0 {
            UNIX_EPOCH.checked_add(offset)
        } else {
            UNIX_EPOCH.checked_sub(offset)
        }
    }

    /// Whether the interrupt has expired at `now`: its [`expiry`](Self::expiry) is `now` or
    /// earlier. An interrupt without a readable expiry never expires.
    ///
    /// ```
    /// use ag_ui::Interrupt;
    /// use std::time::SystemTime;
    ///
    /// let old = Interrupt::new("i1", "confirmation").with_expires_at("2001-01-01T00:00:00Z");
    /// assert!(old.is_expired_at(SystemTime::now()));
    /// let new = Interrupt::new("i2", "confirmation").with_expires_at("2999-01-01");
    /// assert!(!new.is_expired_at(SystemTime::now()));
    /// ```
    pub fn is_expired_at(&self, now: SystemTime) -> bool {
        self.expiry().is_some_and(|at| at <= now)
    }

    /// Whether `resume` answers this interrupt after it expired (at `now`) with something else
    /// than `cancelled`: an expired interrupt can only be cancelled, so a client refuses such a
    /// resume without sending it ([`Conversation`](crate::client::Conversation)'s
    /// `run.expired-interrupt`, and `crates/ag-ui-wasm`'s `HttpAgent`).
    ///
    /// ```
    /// use ag_ui::{Interrupt, ResumeEntry};
    /// use std::time::SystemTime;
    ///
    /// let old = Interrupt::new("i1", "confirmation").with_expires_at("2001-01-01T00:00:00Z");
    /// let now = SystemTime::now();
    /// let yes = ResumeEntry::resolved("i1", serde_json::json!({ "ok": true }));
    /// assert!(old.answered_after_expiry(&[yes], now));
    /// assert!(!old.answered_after_expiry(&[ResumeEntry::cancelled("i1")], now));
    /// ```
    pub fn answered_after_expiry(&self, resume: &[crate::ResumeEntry], now: SystemTime) -> bool {
        let cancelled = resume
            .iter()
            .any(|r| r.interrupt_id == self.id && r.status == crate::ResumeStatus::Cancelled);
        !cancelled && self.is_expired_at(now)
    }
}

/// Milliseconds since the Unix epoch of an ISO 8601 / RFC 3339 date-time
/// (`2026-01-31T12:00:00Z`, `…T12:00:00.250+02:00`, or a bare date, read as UTC midnight).
/// `None` for anything else.
fn timestamp_ms(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = text.get(range)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    if b.get(4) != Some(&b'-')
        || b.get(7) != Some(&b'-')
        || !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
    {
        return None;
    }
    // Days from the civil date (proleptic Gregorian), after H. Hinnant.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    if b.len() == 10 {
        return Some(days * 86_400_000);
    }
    if !matches!(b.get(10), Some(b'T' | b't' | b' '))
        || b.get(13) != Some(&b':')
        || b.get(16) != Some(&b':')
    {
        return None;
    }
    let (hour, minute, second) = (digits(11..13)?, digits(14..16)?, digits(17..19)?);
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut at = 19;
    let mut millis = 0;
    if b.get(at) == Some(&b'.') {
        let start = at + 1;
        at = start;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        let fraction = text.get(start..at.min(start + 3))?;
        if fraction.is_empty() {
            return None;
        }
        millis = fraction.parse::<i64>().ok()? * 10_i64.pow(3 - fraction.len() as u32);
    }
    let offset = match text.get(at..)? {
        "Z" | "z" => 0,
        zone if zone.len() == 6
            && (zone.starts_with('+') || zone.starts_with('-'))
            && zone.as_bytes()[3] == b':' =>
        {
            let minutes = digits(at + 1..at + 3)? * 60 + digits(at + 4..at + 6)?;
            if zone.starts_with('-') {
                -minutes
            } else {
                minutes
            }
        }
        _ => return None,
    };
    Some(((days * 24 + hour) * 60 + minute - offset) * 60_000 + second * 1000 + millis)
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

// Read as serde's derived reading of the tagged enum read it (once from a wire enum of that
// name, which its errors still name), without its buffering (see `serde_util::Tagged`).
impl<'de> Deserialize<'de> for RunFinishedOutcome {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        RUN.deserialize(d, run_from)
    }
}

const RUN: Tagged = Tagged {
    tag: "type",
    name: "RunFinishedOutcomeWire",
    variants: &["success", "interrupt", "cancelled"],
};

/// Outcome `variant` (an index in `RUN.variants`) from the `body` [`Tagged::read`] returned.
fn run_from(variant: usize, body: Value) -> Result<RunFinishedOutcome, serde_json::Error> {
    use de::Error as _;
    Ok(match variant {
        0 => RunFinishedOutcome::Success {
            pending_tool_call_ids: one_member(&RUN_SUCCESS, body, non_null)?.flatten(),
        },
        1 => match one_member(&RUN_INTERRUPT, body, Vec::<Interrupt>::deserialize)? {
            None => return Err(serde_json::Error::missing_field("interrupts")),
            Some(interrupts) if interrupts.is_empty() => {
                return Err(serde_json::Error::invalid_length(
                    0,
                    &"at least one interrupt",
                ));
            }
            Some(interrupts) => RunFinishedOutcome::Interrupt { interrupts },
        },
        _ => RunFinishedOutcome::Cancelled,
    })
}

const RUN_SUCCESS: VariantStruct = VariantStruct {
    name: "struct variant RunFinishedOutcomeWire::Success",
    fields: &["pendingToolCallIds"],
    required: 0,
};

const RUN_INTERRUPT: VariantStruct = VariantStruct {
    name: "struct variant RunFinishedOutcomeWire::Interrupt",
    fields: &["interrupts"],
    required: 1,
};

/// The one member of a variant of one field, read by `read`; `None` when the body lacks it.
fn one_member<T>(
    shape: &VariantStruct,
    body: Value,
    read: fn(Value) -> Result<T, serde_json::Error>,
) -> Result<Option<T>, serde_json::Error> {
    let mut found = None;
    shape.members(body, &mut |_, member| {
        found = Some(read(member)?);
        Ok(())
    })?;
    Ok(found)
}

/// How a subagent invocation ended (`SUBAGENT_FINISHED.outcome`); absent means success.
#[derive(Clone, Debug, PartialEq, Serialize)]
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

// Read as serde's derived reading of the tagged enum read it, without its buffering (see
// `serde_util::Tagged`).
impl<'de> Deserialize<'de> for SubagentFinishedOutcome {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        SUBAGENT.deserialize(d, subagent_from)
    }
}

const SUBAGENT: Tagged = Tagged {
    tag: "type",
    name: "SubagentFinishedOutcome",
    variants: &["success", "suspended"],
};

/// Outcome `variant` (an index in `SUBAGENT.variants`) from the `body` [`Tagged::read`]
/// returned.
fn subagent_from(
    variant: usize,
    body: Value,
) -> Result<SubagentFinishedOutcome, serde_json::Error> {
    Ok(match variant {
        0 => SubagentFinishedOutcome::Success,
        _ => SubagentFinishedOutcome::Suspended {
            interrupt_ids: one_member(&SUBAGENT_SUSPENDED, body, non_null)?.flatten(),
        },
    })
}

const SUBAGENT_SUSPENDED: VariantStruct = VariantStruct {
    name: "struct variant SubagentFinishedOutcome::Suspended",
    fields: &["interruptIds"],
    required: 0,
};

/// Reads an optional outcome, `value`: a legacy `null` is absent, an object whose `type` names
/// no known outcome is dropped with a warning (read as success), anything else must be one of
/// `union` (an object, then read by `read` as [`Tagged::read_members`] splits it).
fn lenient_outcome<T>(
    value: Value,
    union: &Tagged,
    read: fn(usize, Value) -> Result<T, serde_json::Error>,
) -> Result<Option<T>, serde_json::Error> {
    let members = match value {
        Value::Null => return Ok(None),
        Value::Object(members) => members,
        // An internally tagged union read from anything but an object names its tag's
        // expectation ("expected variant identifier"), which says nothing to the producer.
        other => {
            return Err(de::Error::invalid_type(
                crate::serde_util::unexpected(&other),
                &"an outcome object",
            ));
        }
    };
    if let Some(Value::String(name)) = members.get(union.tag)
        && !union.variants.contains(&name.as_str())
    {
        crate::decode::strip::within("outcome", || {
            crate::decode::strip::record(crate::decode::strip::StripKind::Outcome, None, name, 1)
        });
        return Ok(None);
    }
    let (variant, body) = union.read_members(members)?;
    read(variant, body).map(Some)
}

pub(crate) fn run_outcome<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<RunFinishedOutcome>, D::Error> {
    lenient_outcome(Value::deserialize(d)?, &RUN, run_from).map_err(de::Error::custom)
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
    lenient_outcome(value, &SUBAGENT, subagent_from).map_err(de::Error::custom)
}

/// Tokens spent by one (provider, model) pair. Every field is optional; `{}` is valid.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TokenUsage {
    /// Lower-case vendor id, e.g. `openai`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Model name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Total prompt tokens, cache reads and writes included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// Total generated tokens, reasoning included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Input plus output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    /// The reasoning part of the output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    /// Cache reads, part of the input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
    /// Cache writes, part of the input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_write_input_tokens: Option<u64>,
}

reader! {
    /// A token count: an integer from 0 to 2^53 − 1 (`serde_util::count`).
    Count(crate::serde_util::safe_count) -> u64
}

read_fields! {
    TokenUsage, rest = crate::serde_util::fields::Ignore,
    required {}
    optional {
        provider: String,
        model: String,
        input_tokens: u64 as Count,
        output_tokens: u64 as Count,
        total_tokens: u64 as Count,
        reasoning_tokens: u64 as Count,
        cached_input_tokens: u64 as Count,
        cache_write_input_tokens: u64 as Count,
    }
    lenient {}
    defaulted {}
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_timestamps() {
        assert_eq!(timestamp_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(timestamp_ms("1970-01-01"), Some(0));
        assert_eq!(
            timestamp_ms("2000-03-01T00:00:00.5Z"),
            Some(951_868_800_500)
        );
        assert_eq!(
            timestamp_ms("2000-03-01T02:00:00+02:00"),
            Some(951_868_800_000)
        );
        assert_eq!(timestamp_ms("1969-12-31T23:59:59Z"), Some(-1000));
        for bad in [
            "",
            "soon",
            "2000-13-01",
            "2000-01-01T25:00:00Z",
            "2000-01-01T00:00:00",
            "2000-01-01T00:00:00+0200",
            // Not ASCII where the parser looks for separators: refused, never a panic.
            "2000-01-01T00:00:00+0\u{e9}00",
            "2000\u{e9}01-01",
            "2000-01-01T00:00:00.\u{e9}Z",
            "2000-01-01\u{e9}00:00:00Z",
        ] {
            assert_eq!(timestamp_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn interrupt_expiry() {
        let at = |text: &str| Interrupt::new("i", "r").with_expires_at(text);
        assert_eq!(
            at("1970-01-01T00:00:01Z").expiry(),
            Some(UNIX_EPOCH + Duration::from_secs(1))
        );
        assert_eq!(
            at("1969-12-31T23:59:59Z").expiry(),
            Some(UNIX_EPOCH - Duration::from_secs(1))
        );
        assert_eq!(at("whenever").expiry(), None);
        assert_eq!(Interrupt::new("i", "r").expiry(), None);
        let noon = at("2000-01-01T12:00:00Z");
        let t = noon.expiry().unwrap();
        assert!(noon.is_expired_at(t));
        assert!(noon.is_expired_at(t + Duration::from_millis(1)));
        assert!(!noon.is_expired_at(t - Duration::from_millis(1)));
        assert!(!at("whenever").is_expired_at(SystemTime::now()));
    }

    /// The field and message of the error reading `event` (a `RUN_FINISHED` or
    /// `SUBAGENT_FINISHED` with `outcome`).
    fn error_of(event: &str, outcome: &str) -> (Option<String>, String) {
        let json = match event {
            "RUN_FINISHED" => {
                format!(
                    r#"{{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{outcome}}}"#
                )
            }
            _ => {
                format!(r#"{{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{outcome}}}"#)
            }
        };
        let err = crate::Event::from_json(&json).unwrap_err();
        (err.field().map(str::to_owned), err.message().to_owned())
    }

    #[test]
    fn outcome_errors_name_the_type_or_the_field() {
        let cases = [
            (
                "RUN_FINISHED",
                r#"{"type":"interrupt","interrupts":[]}"#,
                "outcome",
                "invalid length 0, expected at least one interrupt",
            ),
            (
                "RUN_FINISHED",
                r#"{"type":"interrupt"}"#,
                "outcome.interrupts",
                "missing field `interrupts`",
            ),
            (
                "RUN_FINISHED",
                r#"{"type":"interrupt","interrupts":[{"id":"i"}]}"#,
                "outcome.reason",
                "missing field `reason`",
            ),
            (
                "RUN_FINISHED",
                r#"{"type":"interrupt","interrupts":[{"id":"i","reason":"r","message":null}]}"#,
                "outcome",
                "invalid type: null, expected a value other than null",
            ),
            (
                "RUN_FINISHED",
                r#"{"type":"success","pendingToolCallIds":[1]}"#,
                "outcome",
                "invalid type: integer `1`, expected a string",
            ),
            (
                "RUN_FINISHED",
                r#"{"type":5}"#,
                "outcome",
                "invalid type: integer `5`, expected variant identifier",
            ),
            (
                "RUN_FINISHED",
                r#"{"interrupts":[]}"#,
                "outcome.type",
                "missing field `type`",
            ),
            (
                "RUN_FINISHED",
                r#""success""#,
                "outcome",
                "invalid type: string \"success\", expected an outcome object",
            ),
            (
                "SUBAGENT_FINISHED",
                r#"{"type":"suspended","interruptIds":null}"#,
                "outcome",
                "invalid type: null, expected a value other than null",
            ),
            (
                "SUBAGENT_FINISHED",
                r#"{"type":null}"#,
                "outcome",
                "invalid type: null, expected variant identifier",
            ),
            (
                "SUBAGENT_FINISHED",
                "null",
                "outcome",
                "invalid type: null, expected a subagent outcome object",
            ),
        ];
        for (event, outcome, field, message) in cases {
            assert_eq!(
                error_of(event, outcome),
                (Some(field.to_owned()), message.to_owned()),
                "{event} {outcome}"
            );
        }
    }

    /// Read alone (not within an event), an outcome's errors are serde's, positioned in the text.
    #[test]
    fn outcomes_read_alone() {
        let run = |json: &str| serde_json::from_str::<RunFinishedOutcome>(json);
        let sub = |json: &str| serde_json::from_str::<SubagentFinishedOutcome>(json);
        assert_eq!(
            run(r#"{"type":"cancelled","extra":[1]}"#).unwrap(),
            RunFinishedOutcome::Cancelled
        );
        assert_eq!(
            run(r#"{"pendingToolCallIds":["c"],"type":"success"}"#).unwrap(),
            RunFinishedOutcome::Success {
                pending_tool_call_ids: Some(vec!["c".into()])
            }
        );
        assert_eq!(
            sub(r#"{"type":"success","x":1}"#).unwrap(),
            SubagentFinishedOutcome::Success
        );
        assert_eq!(
            sub(r#"{"type":"suspended","interruptIds":["i"]}"#).unwrap(),
            SubagentFinishedOutcome::Suspended {
                interrupt_ids: Some(vec!["i".into()])
            }
        );
        fn text<T: std::fmt::Debug>(r: Result<T, serde_json::Error>) -> String {
            r.unwrap_err().to_string()
        }
        assert_eq!(
            text(run(r#"{"type":"done"}"#)),
            "unknown variant `done`, expected one of `success`, `interrupt`, `cancelled` at line 1 column 14"
        );
        assert_eq!(
            text(sub(r#"{"type":"done"}"#)),
            "unknown variant `done`, expected `success` or `suspended` at line 1 column 14"
        );
        assert_eq!(
            text(run("5")),
            "invalid type: integer `5`, expected internally tagged enum RunFinishedOutcomeWire at line 1 column 1"
        );
        assert_eq!(
            text(sub("5")),
            "invalid type: integer `5`, expected internally tagged enum SubagentFinishedOutcome at line 1 column 1"
        );
        assert_eq!(
            text(run(r#"{"type":"interrupt","interrupts":[]}"#)),
            "invalid length 0, expected at least one interrupt"
        );
        // `[type, members…]`, which serde's reading of a tagged enum takes as well.
        assert_eq!(
            run(r#"["cancelled",1,2]"#).unwrap(),
            RunFinishedOutcome::Cancelled
        );
        assert_eq!(
            text(run(r#"["interrupt"]"#)),
            "invalid length 0, expected struct variant RunFinishedOutcomeWire::Interrupt with 1 element"
        );
        assert_eq!(
            text(run(r#"["success",["c"],1]"#)),
            "invalid length 2, expected 1 element in sequence"
        );
        assert_eq!(
            text(sub(r#"{"type":"success","type":"success"}"#)),
            "duplicate field `type` at line 1 column 24"
        );
    }

    /// An outcome of an unknown type is dropped with a record (read as success), as before.
    #[test]
    fn an_unknown_outcome_is_dropped() {
        let mut stripped = Vec::new();
        let event = crate::decode::strip::collecting(&mut stripped, || {
            crate::Event::from_json(
                r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"paused"}}"#,
            )
        });
        let crate::Event::RunFinished(finished) = event.unwrap() else {
            panic!("not RUN_FINISHED")
        };
        assert_eq!(finished.outcome, None);
        assert_eq!(
            stripped.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["dropped the outcome of unknown type \"paused\" at /outcome"]
        );
    }
}
