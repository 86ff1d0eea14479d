//! The rules of the catalogue about nulls and shapes (R0, R35, R36, R39, R40, R45–R47), which
//! a typed `Event` cannot break: their tests prove the decoder rejects such input (or reads a
//! legacy null as absent), and that `Verifier::check_json` names the rule on raw JSON. The
//! ordering rules are in `rules.rs`.

use crate::support::ev;

use ag_ui::verify::{CheckJsonErrorKind, Verifier};
use ag_ui::{DecodeErrorKind, Event};
use ev::*;

/// The decoder rejects `json` as `schema.invalid`.
#[track_caller]
fn schema_rejects(json: &str) {
    let err = Event::from_json(json).expect_err(json);
    assert_eq!(err.kind(), DecodeErrorKind::InvalidField, "{json}: {err}");
    assert_eq!(err.kind().as_str(), "schema.invalid");
}

/// `Verifier::check_json` over raw lines: the first rule kind and index, or `None`.
fn raw_verdict(lines: &[&str]) -> Option<(&'static str, usize)> {
    let mut verifier = Verifier::new();
    for (i, line) in lines.iter().enumerate() {
        match verifier.check_json(line.as_bytes()) {
            Ok(_) => {}
            Err(e) => {
                if let Some(v) = e.violation() {
                    assert_eq!(v.index(), i, "{v}");
                    assert_eq!(e.kind(), CheckJsonErrorKind::Violation(v.kind()));
                } else {
                    assert!(matches!(e.kind(), CheckJsonErrorKind::Decode(_)), "{e}");
                }
                return Some((e.kind().as_str(), i));
            }
        }
    }
    None
}

const RS: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;
const RF: &str = r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#;
const SAS: &str = r#"{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n"}"#;

/// The null and shape rules on raw JSON (issue 11, item 12): each named by its kind at its
/// event, in the reference verifier's order; verdicts from @ag-ui/client 1.0.0 `verifyEvents`.
#[test]
fn raw_json_shape_rules_are_violations_at_their_event() {
    type Case<'a> = (&'a [&'a str], Option<(&'a str, usize)>);
    let cases: &[Case<'_>] = &[
        // R35, including on run-scoped events that cannot carry the field.
        (
            &[
                RS,
                r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","subagentRunId":null}"#,
            ],
            Some(("attribution.null", 1)),
        ),
        (
            &[r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","subagentRunId":null}"#],
            Some(("attribution.null", 0)),
        ),
        (
            &[
                RS,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":null}"#,
            ],
            Some(("attribution.null", 1)),
        ),
        // An ordering gate comes first: R3 before R35 and before R39.
        (
            &[
                RS,
                RF,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":null}"#,
            ],
            Some(("run.after-finished", 2)),
        ),
        (
            &[RS, RF, r#"{"type":"SUBAGENT_STARTED","name":"n"}"#],
            Some(("run.after-finished", 2)),
        ),
        // R35 before R39.
        (
            &[
                RS,
                r#"{"type":"SUBAGENT_STARTED","subagentRunId":null,"name":"n"}"#,
            ],
            Some(("attribution.null", 1)),
        ),
        // R39.
        (
            &[RS, r#"{"type":"SUBAGENT_STARTED","name":"n"}"#],
            Some(("subagent.missing-field", 1)),
        ),
        (
            &[RS, r#"{"type":"SUBAGENT_STARTED","subagentRunId":"s"}"#],
            Some(("subagent.missing-field", 1)),
        ),
        (
            &[RS, SAS, r#"{"type":"SUBAGENT_ERROR","subagentRunId":"s"}"#],
            Some(("subagent.missing-field", 2)),
        ),
        (
            &[RS, SAS, r#"{"type":"SUBAGENT_FINISHED","subagentRunId":7}"#],
            Some(("subagent.missing-field", 2)),
        ),
        // R40.
        (
            &[
                RS,
                r#"{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n","description":null}"#,
            ],
            Some(("subagent.null-field", 1)),
        ),
        (
            &[
                RS,
                SAS,
                r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":null}"#,
            ],
            Some(("subagent.null-field", 2)),
        ),
        (
            &[
                RS,
                SAS,
                r#"{"type":"SUBAGENT_ERROR","subagentRunId":"s","message":"x","code":null}"#,
            ],
            Some(("subagent.null-field", 2)),
        ),
        // R45, R46.
        (
            &[
                RS,
                SAS,
                r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"paused"}}"#,
            ],
            Some(("subagent.bad-outcome", 2)),
        ),
        (
            &[
                RS,
                SAS,
                r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"suspended","interruptIds":[1]}}"#,
            ],
            Some(("subagent.bad-outcome", 2)),
        ),
        (
            &[
                RS,
                SAS,
                r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"success","interruptIds":null}}"#,
            ],
            Some(("subagent.bad-outcome", 2)),
        ),
        // R36.
        (
            &[
                RS,
                r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m1","role":"user","content":"hi","subagentRunId":null}]}"#,
            ],
            Some(("attribution.null", 1)),
        ),
        // Accepted: the same events without the broken shape.
        (
            &[
                RS,
                SAS,
                r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"suspended","interruptIds":["i"]}}"#,
                RF,
            ],
            None,
        ),
        // Other invalid fields stay decode errors.
        (
            &[
                RS,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"tool"}"#,
            ],
            Some(("schema.invalid", 1)),
        ),
    ];
    for (lines, want) in cases {
        assert_eq!(raw_verdict(lines), *want, "{lines:?}");
    }
}

// ---------- schema-level rules: the decoder's job ----------

#[test]
fn r0_schema_invalid_never_reaches_the_verifier() {
    schema_rejects(r#"{"type":"TEXT_MESSAGE_START"}"#);
    schema_rejects(r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"tool"}"#);
    schema_rejects(r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","metadata":null}"#);
    schema_rejects(r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","timestamp":1.5}"#);
    schema_rejects(
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[]}}"#,
    );
    assert!(Event::from_json(r#"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#).is_ok());
}

#[test]
fn r35_null_attribution_is_a_decode_error() {
    schema_rejects(r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":null}"#);
    schema_rejects(r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","subagentRunId":null}"#);
    schema_rejects(r#"{"type":"STEP_STARTED","stepName":"a","subagentRunId":null}"#);
    schema_rejects(r#"{"type":"SUBAGENT_STARTED","subagentRunId":null,"name":"n"}"#);
    // Accepted side: an absent or empty-string tag.
    let e =
        Event::from_json(r#"{"type":"STEP_STARTED","stepName":"a","subagentRunId":""}"#).unwrap();
    assert_eq!(e.attribution().map(|s| s.as_str()), Some(""));
}

#[test]
fn r36_null_attribution_inside_messages_is_a_decode_error() {
    schema_rejects(
        r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m1","role":"user","content":"hi","subagentRunId":null}]}"#,
    );
    schema_rejects(
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"m1","role":"user","content":"hi","subagentRunId":null}],"tools":[],"context":[]}}"#,
    );
    assert!(
        Event::from_json(
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m1","role":"user","content":"hi","subagentRunId":"s1"}]}"#
        )
        .is_ok()
    );
}

#[test]
fn r39_subagent_missing_field_is_a_decode_error() {
    schema_rejects(r#"{"type":"SUBAGENT_STARTED","name":"n"}"#);
    schema_rejects(r#"{"type":"SUBAGENT_STARTED","subagentRunId":"s1"}"#);
    schema_rejects(r#"{"type":"SUBAGENT_STARTED","subagentRunId":1,"name":"n"}"#);
    schema_rejects(r#"{"type":"SUBAGENT_FINISHED"}"#);
    schema_rejects(r#"{"type":"SUBAGENT_ERROR","subagentRunId":"s1"}"#);
    // Empty strings are fine.
    assert!(
        Event::from_json(r#"{"type":"SUBAGENT_STARTED","subagentRunId":"","name":""}"#).is_ok()
    );
}

#[test]
fn r40_subagent_null_field_is_a_decode_error() {
    for field in [
        "description",
        "parentSubagentRunId",
        "parentToolCallId",
        "parentMessageId",
    ] {
        schema_rejects(&format!(
            r#"{{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"n","{field}":null}}"#
        ));
    }
    schema_rejects(r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s1","outcome":null}"#);
    schema_rejects(r#"{"type":"SUBAGENT_ERROR","subagentRunId":"s1","message":"m","code":null}"#);
}

#[test]
fn r45_bad_subagent_outcome_is_a_decode_error() {
    for outcome in [r#""""#, "false", "0", r#"{"type":null}"#, "{}"] {
        schema_rejects(&format!(
            r#"{{"type":"SUBAGENT_FINISHED","subagentRunId":"s1","outcome":{outcome}}}"#
        ));
    }
    // An outcome of unknown type is removed, as the reference's schema stage does, so the
    // event reaches the verifier without one (and is accepted there).
    let e = Event::from_json(
        r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s1","outcome":{"type":"paused"}}"#,
    )
    .unwrap();
    let Event::SubagentFinished(finished) = &e else {
        unreachable!()
    };
    assert!(finished.outcome.is_none());
    accepts(&[rs(), sas("s1"), e, rf()]);
}

#[test]
fn r46_bad_interrupt_ids_are_a_decode_error() {
    schema_rejects(
        r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s1","outcome":{"type":"suspended","interruptIds":null}}"#,
    );
    schema_rejects(
        r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s1","outcome":{"type":"suspended","interruptIds":[1]}}"#,
    );
    assert!(
        Event::from_json(
            r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s1","outcome":{"type":"suspended","interruptIds":["i1"]}}"#
        )
        .is_ok()
    );
}

#[test]
fn r47_null_interrupt_attribution_reads_as_absent_and_raw_verification_names_it() {
    // The reference client reads the legacy null as absent; its verifier on raw JSON does not.
    let rf = r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"x","subagentRunId":null}]}}"#;
    let event = Event::from_json(rf).unwrap();
    assert_eq!(
        event.to_json(),
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"x"}]}}"#
    );
    assert_eq!(raw_verdict(&[RS, rf]), Some(("attribution.null", 1)));
    assert!(
        Event::from_json(
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"x","subagentRunId":"s1"}]}}"#
        )
        .is_ok()
    );
}
