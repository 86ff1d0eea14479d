//! The catalogue's null and shape rules, which a typed [`Event`](crate::Event) cannot break,
//! checked on an event's JSON for [`Verifier::check_json`](super::Verifier::check_json).
//!
//! In the order the reference verifier evaluates them, after the run-level gates: R35 (the
//! event's own `subagentRunId: null`), R40 then R45/R46 (`SUBAGENT_*` nulls and outcome
//! shape), R47 (interrupt tags of a `RUN_FINISHED`), then the per-type R39 (`SUBAGENT_*`
//! required strings) and R36 (message tags inside `MESSAGES_SNAPSHOT` / `RUN_STARTED.input`).

use serde_json::{Map, Value};

use super::ViolationKind;
use super::engine::Fail;
use crate::EventType;

/// The first shape rule `event` (a JSON object of type `ty`) breaks.
pub(super) fn shape(ty: EventType, event: &Map<String, Value>) -> Option<Fail> {
    let fail = |kind, ids: Vec<String>, message: String| Some(Fail::new(kind, ids, message));
    let run_id = || {
        event
            .get("subagentRunId")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .into_iter()
            .collect::<Vec<_>>()
    };
    // R35.
    if event.get("subagentRunId") == Some(&Value::Null) {
        return fail(
            ViolationKind::AttributionNull,
            Vec::new(),
            format!("{ty} with `subagentRunId: null`: leave the field out for the parent agent"),
        );
    }
    let subagent = matches!(
        ty,
        EventType::SubagentStarted | EventType::SubagentFinished | EventType::SubagentError
    );
    if subagent {
        // R40.
        let optional: &[&str] = match ty {
            EventType::SubagentStarted => &[
                "description",
                "parentSubagentRunId",
                "parentToolCallId",
                "parentMessageId",
            ],
            EventType::SubagentFinished => &["outcome"],
            _ => &["code"],
        };
        if let Some(field) = optional
            .iter()
            .find(|f| event.get(**f) == Some(&Value::Null))
        {
            return fail(
                ViolationKind::SubagentNullField,
                run_id(),
                format!("{ty} with `{field}: null`: leave an optional field out instead"),
            );
        }
        // R45, R46.
        if let Some(outcome) = event.get("outcome")
            && let Some(problem) = bad_outcome(outcome)
        {
            return fail(
                ViolationKind::SubagentBadOutcome,
                run_id(),
                format!("{ty} with an invalid outcome: {problem}"),
            );
        }
    }
    // R47.
    if ty == EventType::RunFinished
        && let Some(outcome) = event.get("outcome").and_then(Value::as_object)
        && outcome.get("type").and_then(Value::as_str) == Some("interrupt")
        && let Some(interrupts) = outcome.get("interrupts").and_then(Value::as_array)
        && let Some(interrupt) = interrupts
            .iter()
            .filter_map(Value::as_object)
            .find(|i| i.get("subagentRunId") == Some(&Value::Null))
    {
        let id = interrupt
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        return fail(
            ViolationKind::AttributionNull,
            vec![id.to_owned()],
            format!(
                "RUN_FINISHED with interrupt {id:?} carrying `subagentRunId: null`: leave the field out for the parent agent"
            ),
        );
    }
    // R39.
    if subagent {
        let mut required = vec!["subagentRunId"];
        match ty {
            EventType::SubagentStarted => required.push("name"),
            EventType::SubagentError => required.push("message"),
            _ => {}
        }
        if let Some(field) = required
            .iter()
            .find(|f| !event.get(**f).is_some_and(Value::is_string))
        {
            return fail(
                ViolationKind::SubagentMissingField,
                run_id(),
                format!("{ty} without a string `{field}`"),
            );
        }
    }
    // R36.
    let messages = match ty {
        EventType::MessagesSnapshot => event.get("messages"),
        EventType::RunStarted => event.get("input").and_then(|i| i.get("messages")),
        _ => None,
    };
    if let Some(message) = messages.and_then(Value::as_array).and_then(|messages| {
        messages.iter().filter_map(Value::as_object).find(|m| {
            m.get("id").is_some_and(Value::is_string)
                && m.get("subagentRunId") == Some(&Value::Null)
        })
    }) {
        let id = message
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        return fail(
            ViolationKind::AttributionNull,
            vec![id.to_owned()],
            format!(
                "{ty} with message {id:?} carrying `subagentRunId: null`: leave the field out for the parent agent"
            ),
        );
    }
    None
}

/// What is wrong with a subagent outcome, if anything (R45, R46).
fn bad_outcome(outcome: &Value) -> Option<String> {
    let Some(object) = outcome.as_object() else {
        return Some(format!("{outcome} is not an object"));
    };
    match object.get("type").and_then(Value::as_str) {
        Some("success" | "suspended") => {}
        Some(other) => {
            return Some(format!(
                "outcome type {other:?} is neither \"success\" nor \"suspended\""
            ));
        }
        None => return Some("the outcome has no string `type`".to_owned()),
    }
    match object.get("interruptIds") {
        Some(Value::Null) => Some("`interruptIds: null`".to_owned()),
        Some(Value::Array(ids)) if ids.iter().any(|id| !id.is_string()) => {
            Some("a non-string entry in `interruptIds`".to_owned())
        }
        _ => None,
    }
}
