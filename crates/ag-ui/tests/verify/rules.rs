//! One test per rule of the AG-UI 1.0 rule catalogue (`protocol/rules.md`), named after the
//! rule id, each with its accepted and rejected side. Rules about nulls and shapes (R0, R35,
//! R36, R39, R40, R45–R47) cannot be broken by a typed `Event`: their tests prove the decoder
//! rejects such input (or reads a legacy null as absent), and that `Verifier::check_json`
//! names the rule on raw JSON.

use crate::support::ev;

use ag_ui::verify::{CheckJsonError, Verifier, ViolationKind as K, verify_all};
use ag_ui::{DecodeErrorKind, Event, Message};
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
            Err(CheckJsonError::Violation(v)) => {
                assert_eq!(v.index(), i, "{v}");
                return Some((v.kind().as_str(), i));
            }
            Err(e) => return Some((e.kind(), i)),
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

// ---------- 1. run lifecycle ----------

#[test]
fn r1_first_event() {
    rejects(&[tms("m1")], K::RunFirstEvent, 0);
    rejects(&[tmk(Some("m1"))], K::RunFirstEvent, 0);
    rejects(&[rf()], K::RunFirstEvent, 0);
    accepts(&[rs()]);
    accepts(&[re()]);
    accepts(&[re(), rs(), rf()]);
}

#[test]
fn r2_after_error() {
    rejects(&[rs(), re(), rf()], K::RunAfterError, 2);
    rejects(&[rs(), re(), re()], K::RunAfterError, 2);
    rejects(&[re(), tms("m1")], K::RunAfterError, 1);
    rejects(&[rs(), re(), tmk(Some("m1"))], K::RunAfterError, 2);
    accepts(&[rs(), re(), rs(), rf()]);
}

#[test]
fn r3_after_finished() {
    rejects(&[rs(), rf(), tms("m1")], K::RunAfterFinished, 2);
    rejects(&[rs(), rf(), rf()], K::RunAfterFinished, 2);
    accepts(&[rs(), rf(), re()]);
    // RUN_ERROR after RUN_FINISHED puts the stream in the errored state.
    rejects(&[rs(), rf(), re(), cu()], K::RunAfterError, 3);
    accepts(&[rs(), rf(), rs(), rf()]);
}

#[test]
fn r4_run_already_active() {
    rejects(&[rs(), rs()], K::RunAlreadyActive, 1);
    rejects(&[rs(), tms("m1"), rs()], K::RunAlreadyActive, 2);
}

#[test]
fn r5_new_run_resets_every_table() {
    // Ids, owners and subagent ids may be reused by the next run.
    accepts(&[
        rs(),
        at(tms("m1"), "s1"),
        tme("m1"),
        sas("s1"),
        saf("s1"),
        rf(),
        rs(),
        at(tms("m1"), "s2"),
        at(tme("m1"), "s2"),
        sas("s1"),
        saf("s1"),
        rf(),
    ]);
    // An open message of an errored run is gone.
    rejects(&[rs(), tms("m1"), re(), rs(), tmc("m1")], K::TextNotOpen, 4);
    // Within one run, the owner persists.
    rejects(
        &[rs(), at(tms("m1"), "s1"), tme("m1"), at(tms("m1"), "s2")],
        K::OwnerMismatch,
        3,
    );
}

#[test]
fn r6_run_error_needs_nothing_closed() {
    accepts(&[
        rs(),
        sts("a"),
        tms("m1"),
        tcs("t1"),
        rst("r1"),
        rms("r2"),
        sas("s1"),
        re(),
    ]);
}

#[test]
fn r7_unclosed_steps() {
    let v = rejects(
        &[rs(), at(sts("a"), "s1"), sts("b"), tms("m1"), rf()],
        K::RunUnclosedSteps,
        4,
    );
    // Steps come first (R7 before R8) and every open step is listed, labelled by owner.
    assert_eq!(v.ids(), ["a", "b"]);
    assert_eq!(
        v.message(),
        "RUN_FINISHED while steps are still open: a (subagent s1), b"
    );
    accepts(&[rs(), sts("a"), stf("a"), rf()]);
}

#[test]
fn r8_unclosed_text_messages() {
    let v = rejects(
        &[rs(), tms("m2"), tms("m1"), tcs("t1"), rf()],
        K::RunUnclosedTextMessages,
        4,
    );
    assert_eq!(v.ids(), ["m2", "m1"]);
    assert_eq!(
        v.message(),
        "RUN_FINISHED while text messages are still open: m2, m1"
    );
    accepts(&[rs(), tms("m1"), tme("m1"), rf()]);
}

#[test]
fn r9_unclosed_reasoning_messages() {
    let v = rejects(
        &[rs(), rst("r1"), rms("r2"), rf()],
        K::RunUnclosedReasoningMessages,
        3,
    );
    assert_eq!(v.ids(), ["r2"]);
    accepts(&[rs(), rms("r2"), rme("r2"), rf()]);
}

#[test]
fn r10_unclosed_reasoning_spans() {
    let v = rejects(
        &[rs(), rst("r1"), rms("r1"), rme("r1"), tcs("t1"), rf()],
        K::RunUnclosedReasoningSpans,
        5,
    );
    assert_eq!(v.ids(), ["r1"]);
    accepts(&[rs(), rst("r1"), rend("r1"), rf()]);
}

#[test]
fn r11_unclosed_tool_calls() {
    let v = rejects(
        &[rs(), sas("s1"), tcs("t1"), tcs("t2"), tce("t1"), rf()],
        K::RunUnclosedToolCalls,
        5,
    );
    assert_eq!(v.ids(), ["t2"]);
    accepts(&[rs(), tcs("t1"), tce("t1"), rf()]);
}

#[test]
fn r12_unclosed_subagents() {
    let v = rejects(
        &[rs(), sas("s1"), sas("s2"), rf()],
        K::RunUnclosedSubagents,
        3,
    );
    assert_eq!(v.ids(), ["s1", "s2"]);
    accepts(&[rs(), sas("s1"), sae("s1"), rf()]);
}

#[test]
fn r13_stream_may_end_anywhere() {
    assert_eq!(verify_all(&[]).unwrap(), 0);
    accepts(&[rs()]);
    accepts(&[rs(), tms("m1"), tmc("m1")]);
}

// ---------- 2. text messages ----------

#[test]
fn r14_text_already_open() {
    rejects(&[rs(), tms("m1"), tms("m1")], K::TextAlreadyOpen, 2);
    // Checked before ownership.
    rejects(
        &[rs(), tms("m1"), at(tms("m1"), "s1")],
        K::TextAlreadyOpen,
        2,
    );
    // Closed ids may be reopened; many messages may be open at once.
    accepts(&[
        rs(),
        tms("m1"),
        tms("m2"),
        tme("m1"),
        tms("m1"),
        tmc("m1"),
        tme("m1"),
        tme("m2"),
        rf(),
    ]);
}

#[test]
fn r15_text_not_open() {
    rejects(&[rs(), tmc("m1")], K::TextNotOpen, 1);
    rejects(&[rs(), tms("m1"), tme("m1"), tme("m1")], K::TextNotOpen, 3);
    rejects(&[rs(), tms("m1"), tme("m1"), tmc("m1")], K::TextNotOpen, 3);
    rejects(&[rs(), tcr("m1", "t1"), tmc("m1")], K::TextNotOpen, 2);
    accepts(&[rs(), tms(""), tmc(""), tme(""), rf()]);
}

#[test]
fn r16_tagged_reopen_disagrees_with_owner() {
    // Parent is an owner.
    rejects(
        &[rs(), tms("m1"), tme("m1"), at(tms("m1"), "s1")],
        K::OwnerMismatch,
        3,
    );
    // Owner from a tool result, a snapshot, the RUN_STARTED input.
    rejects(
        &[rs(), at(tcr("m1", "t1"), "s1"), at(tms("m1"), "s2")],
        K::OwnerMismatch,
        2,
    );
    rejects(
        &[
            rs(),
            ms(vec![tagged(Message::user("m1", "hi"), "s1")]),
            at(tms("m1"), "s2"),
        ],
        K::OwnerMismatch,
        2,
    );
    rejects(
        &[
            rs_with(vec![tagged(Message::user("m1", "hi"), "s1")]),
            at(tms("m1"), "s2"),
        ],
        K::OwnerMismatch,
        1,
    );
    // An untagged reopen never disagrees and does not take the message over.
    rejects(
        &[
            rs(),
            at(tms("m1"), "s1"),
            tme("m1"),
            tms("m1"),
            at(tmc("m1"), "s2"),
        ],
        K::OwnerMismatch,
        4,
    );
    accepts(&[
        rs(),
        at(tms("m1"), "s1"),
        tme("m1"),
        tms("m1"),
        at(tmc("m1"), "s1"),
        tme("m1"),
        rf(),
    ]);
}

#[test]
fn r17_text_continuation_disagrees_with_owner() {
    let v = rejects(
        &[rs(), at(tms("msg-2"), "s1"), at(tme("msg-2"), "s2")],
        K::OwnerMismatch,
        2,
    );
    assert_eq!(
        v.message(),
        "TEXT_MESSAGE_END for text message msg-2 owned by subagent s1 was sent by subagent s2"
    );
    rejects(&[rs(), tms("m1"), at(tmc("m1"), "s1")], K::OwnerMismatch, 2);
    // "" is a subagent id, not the parent.
    rejects(&[rs(), tms("m1"), at(tmc("m1"), "")], K::OwnerMismatch, 2);
    accepts(&[
        rs(),
        at(tms("m1"), "s1"),
        tmc("m1"),
        at(tme("m1"), "s1"),
        rf(),
    ]);
}

// ---------- 3. tool calls ----------

#[test]
fn r18_tool_already_open() {
    rejects(&[rs(), tcs("t1"), tcs("t1")], K::ToolAlreadyOpen, 2);
    accepts(&[
        rs(),
        tcs("t1"),
        tcs("t2"),
        tce("t1"),
        tcs("t1"),
        tce("t1"),
        tce("t2"),
        rf(),
    ]);
}

#[test]
fn r19_tool_not_open() {
    rejects(&[rs(), tca("t1")], K::ToolNotOpen, 1);
    rejects(&[rs(), tcs("t1"), tce("t1"), tce("t1")], K::ToolNotOpen, 3);
}

#[test]
fn r20_tool_tag_disagrees_with_parent_message() {
    rejects(
        &[rs(), at(tms("m1"), "s1"), at(tcs_in("t1", "m1"), "s2")],
        K::OwnerParentMessageMismatch,
        2,
    );
    rejects(
        &[rs(), tms("m1"), at(tcs_in("t1", "m1"), "s1")],
        K::OwnerParentMessageMismatch,
        2,
    );
    // Unknown parents, and reasoning/activity ids, give nothing to conflict with.
    accepts(&[
        rs(),
        rms("r1"),
        at(tcs_in("t1", "nope"), "s1"),
        at(tcs_in("t2", "r1"), "s2"),
        tce("t1"),
        tce("t2"),
        rme("r1"),
        rf(),
    ]);
}

#[test]
fn r21_tool_reopen_disagrees_with_owner() {
    rejects(
        &[rs(), at(tcs("t1"), "s1"), tce("t1"), at(tcs("t1"), "s2")],
        K::OwnerMismatch,
        3,
    );
    // R20 is evaluated first.
    rejects(
        &[
            rs(),
            at(tcs("t1"), "s1"),
            tce("t1"),
            tms("m1"),
            at(tcs_in("t1", "m1"), "s2"),
        ],
        K::OwnerParentMessageMismatch,
        4,
    );
}

#[test]
fn r22_untagged_reopen_under_other_owners_message() {
    rejects(
        &[
            rs(),
            at(tms("m1"), "s1"),
            tcs("t1"),
            tce("t1"),
            tcs_in("t1", "m1"),
        ],
        K::OwnerParentMessageMismatch,
        4,
    );
    accepts(&[
        rs(),
        at(tms("m1"), "s1"),
        tcs_in("t1", "m1"),
        tce("t1"),
        tcs_in("t1", "m1"),
        tce("t1"),
        tme("m1"),
        rf(),
    ]);
}

#[test]
fn r23_tool_continuation_disagrees_with_owner() {
    rejects(&[rs(), tcs("t1"), at(tce("t1"), "s1")], K::OwnerMismatch, 2);
    // An untagged call inherits its parent message's owner.
    rejects(
        &[
            rs(),
            at(tms("m1"), "s1"),
            tcs_in("t1", "m1"),
            at(tca("t1"), "s2"),
        ],
        K::OwnerMismatch,
        3,
    );
    accepts(&[
        rs(),
        at(tms("m1"), "s1"),
        tcs_in("t1", "m1"),
        at(tca("t1"), "s1"),
        tce("t1"),
        tme("m1"),
        rf(),
    ]);
}

#[test]
fn r24_tool_result_never_rejected_and_records_owner() {
    accepts(&[
        rs(),
        tcr("m9", "t9"),
        tcs("t1"),
        tcr("m8", "t1"),
        tce("t1"),
        rf(),
    ]);
    // Last writer wins.
    accepts(&[
        rs(),
        at(tms("m1"), "s1"),
        tme("m1"),
        at(tcr("m1", "t1"), "s2"),
        at(tms("m1"), "s2"),
        tme("m1"),
        rf(),
    ]);
    rejects(
        &[
            rs(),
            at(tcr("m1", "t1"), "s1"),
            tcr("m1", "t1"),
            at(tms("m1"), "s1"),
        ],
        K::OwnerMismatch,
        3,
    );
}

// ---------- 4. reasoning ----------

#[test]
fn r25_reasoning_span_already_open() {
    rejects(
        &[rs(), rst("r1"), rst("r1")],
        K::ReasoningSpanAlreadyOpen,
        2,
    );
    accepts(&[
        rs(),
        rst("r1"),
        rms("r1"),
        rme("r1"),
        rend("r1"),
        rst("r1"),
        rend("r1"),
        rf(),
    ]);
}

#[test]
fn r26_reasoning_message_already_open() {
    rejects(
        &[rs(), rms("r1"), rms("r1")],
        K::ReasoningMessageAlreadyOpen,
        2,
    );
    // A span of the same id does not count.
    accepts(&[
        rs(),
        rst("r1"),
        rms("r1"),
        rmc("r1"),
        rme("r1"),
        rend("r1"),
        rf(),
    ]);
}

#[test]
fn r27_reasoning_span_not_open() {
    rejects(&[rs(), rms("r1"), rend("r1")], K::ReasoningSpanNotOpen, 2);
    rejects(&[rs(), rend("r1")], K::ReasoningSpanNotOpen, 1);
}

#[test]
fn r28_reasoning_message_not_open() {
    rejects(&[rs(), rst("r1"), rmc("r1")], K::ReasoningMessageNotOpen, 2);
    rejects(&[rs(), rst("r1"), rme("r1")], K::ReasoningMessageNotOpen, 2);
}

#[test]
fn r29_reasoning_opener_disagrees_with_owner() {
    rejects(
        &[rs(), at(rst("r1"), "s1"), at(rms("r1"), "s2")],
        K::OwnerMismatch,
        2,
    );
    rejects(
        &[
            rs(),
            ms(vec![tagged(Message::reasoning("r1", "x"), "s1")]),
            at(rst("r1"), "s2"),
        ],
        K::OwnerMismatch,
        2,
    );
    accepts(&[
        rs(),
        at(rst("r1"), "s1"),
        rms("r1"),
        rme("r1"),
        at(rend("r1"), "s1"),
        rf(),
    ]);
}

#[test]
fn r30_reasoning_continuation_disagrees_with_owner() {
    rejects(
        &[rs(), at(rms("r1"), "s1"), at(rme("r1"), "s2")],
        K::OwnerMismatch,
        2,
    );
    rejects(&[rs(), rms("r1"), at(rmc("r1"), "s1")], K::OwnerMismatch, 2);
    rejects(
        &[rs(), rst("r1"), at(rend("r1"), "s1")],
        K::OwnerMismatch,
        2,
    );
}

#[test]
fn r31_encrypted_value_disagrees_with_owner() {
    // Tool calls: checked after the call closed.
    rejects(
        &[
            rs(),
            at(tcs("t1"), "s1"),
            tce("t1"),
            at(rev_tool("t1"), "s2"),
        ],
        K::OwnerMismatch,
        3,
    );
    // Messages, falling back to reasoning.
    rejects(
        &[
            rs(),
            at(rms("r1"), "s1"),
            rme("r1"),
            at(rev_msg("r1"), "s2"),
        ],
        K::OwnerMismatch,
        3,
    );
    rejects(
        &[rs(), tms("m1"), at(rev_msg("m1"), "s1")],
        K::OwnerMismatch,
        2,
    );
    // The message table wins over the reasoning table.
    accepts(&[
        rs(),
        at(tms("x"), "s1"),
        tme("x"),
        at(rms("x"), "s2"),
        rme("x"),
        at(rev_msg("x"), "s1"),
        rf(),
    ]);
    // Unknown entity, matching owner, untagged: accepted; it opens nothing.
    accepts(&[
        rs(),
        at(rev_msg("zz"), "s1"),
        at(tcs("t1"), "s1"),
        tce("t1"),
        at(rev_tool("t1"), "s1"),
        rev_tool("t1"),
        rf(),
    ]);
}

// ---------- 5. steps ----------

#[test]
fn r32_step_already_open() {
    rejects(&[rs(), sts("a"), sts("a")], K::StepAlreadyOpen, 2);
    rejects(
        &[rs(), at(sts("a"), ""), at(sts("a"), "")],
        K::StepAlreadyOpen,
        2,
    );
    // The same name under different owners, and "" distinct from the parent.
    accepts(&[
        rs(),
        sts("tools"),
        at(sts("tools"), "s1"),
        at(sts("tools"), ""),
        at(stf("tools"), "s1"),
        at(stf("tools"), ""),
        stf("tools"),
        rf(),
    ]);
}

#[test]
fn r33_step_owner_mismatch() {
    rejects(
        &[rs(), sts("a"), at(stf("a"), "s1")],
        K::StepOwnerMismatch,
        2,
    );
    rejects(
        &[rs(), at(sts("a"), "s1"), stf("a")],
        K::StepOwnerMismatch,
        2,
    );
    rejects(
        &[rs(), at(sts("a"), "s1"), at(stf("a"), "s2")],
        K::StepOwnerMismatch,
        2,
    );
    let v = rejects(&[rs(), sts("a"), at(stf("a"), "")], K::StepOwnerMismatch, 2);
    assert!(v.message().contains("the parent agent"), "{v}");
}

#[test]
fn r34_step_not_open() {
    rejects(&[rs(), stf("a")], K::StepNotOpen, 1);
    rejects(&[rs(), sts("a"), stf("a"), stf("a")], K::StepNotOpen, 3);
    // Any order; reopen after finish.
    accepts(&[
        rs(),
        sts("a"),
        sts("b"),
        stf("a"),
        sts("a"),
        stf("b"),
        stf("a"),
        rf(),
    ]);
}

// ---------- 6. subagents ----------

#[test]
fn r37_messages_snapshot_seeds_owners_authoritatively() {
    // Overwrites, keeps the message open, and the later duplicate wins.
    accepts(&[
        rs(),
        at(tms("m1"), "s1"),
        ms(vec![tagged(Message::assistant("m1", ""), "s2")]),
        at(tmc("m1"), "s2"),
        tme("m1"),
        ms(vec![
            tagged(Message::user("m2", "a"), "s1"),
            tagged(Message::user("m2", "b"), "s2"),
        ]),
        at(tms("m2"), "s2"),
        tme("m2"),
        rf(),
    ]);
    rejects(
        &[
            rs(),
            tms("m1"),
            ms(vec![Message::assistant("m1", "")]),
            rf(),
        ],
        K::RunUnclosedTextMessages,
        3,
    );
    // Tool calls of assistant messages, activity messages.
    rejects(
        &[
            rs(),
            ms(vec![tagged(assistant_with_calls("m1", &["t1"]), "s1")]),
            at(tcs("t1"), "s2"),
        ],
        K::OwnerMismatch,
        2,
    );
    rejects(
        &[
            rs(),
            ms(vec![tagged(
                Message::Activity(ag_ui::ActivityMessage::new(
                    "a1",
                    "PLAN",
                    serde_json::Map::new(),
                )),
                "s1",
            )]),
            at(ad("a1"), "s2"),
        ],
        K::OwnerMismatch,
        2,
    );
}

#[test]
fn r38_run_started_input_seeds_owners_first_writer_wins() {
    let input = vec![
        tagged(Message::user("m1", "a"), "s1"),
        tagged(Message::user("m1", "b"), "s2"),
    ];
    accepts(&[rs_with(input.clone()), at(tms("m1"), "s1"), tme("m1"), rf()]);
    rejects(&[rs_with(input), at(tms("m1"), "s2")], K::OwnerMismatch, 1);
    rejects(
        &[
            rs_with(vec![assistant_with_calls("m1", &["t1"])]),
            at(tcs("t1"), "s1"),
        ],
        K::OwnerMismatch,
        1,
    );
}

#[test]
fn r41_subagent_already_active() {
    rejects(&[rs(), sas("s1"), sas("s1")], K::SubagentAlreadyActive, 2);
    accepts(&[rs(), sas("s1"), sas("s2"), saf("s2"), saf("s1"), rf()]);
}

#[test]
fn r42_subagent_id_reused() {
    rejects(
        &[rs(), sas("s1"), saf("s1"), sas("s1")],
        K::SubagentIdReused,
        3,
    );
    rejects(
        &[rs(), sas("s1"), sae("s1"), sas("s1")],
        K::SubagentIdReused,
        3,
    );
    accepts(&[
        rs(),
        sas("s1"),
        saf("s1"),
        rf(),
        rs(),
        sas("s1"),
        saf("s1"),
        rf(),
    ]);
}

#[test]
fn r43_subagent_unknown_parent() {
    rejects(&[rs(), sas_under("s2", "s1")], K::SubagentUnknownParent, 1);
    // A parent that already finished is fine.
    accepts(&[
        rs(),
        sas("s1"),
        saf("s1"),
        sas_under("s2", "s1"),
        saf("s2"),
        rf(),
    ]);
}

#[test]
fn r44_subagent_not_active() {
    rejects(&[rs(), saf("s1")], K::SubagentNotActive, 1);
    rejects(&[rs(), sae("s1")], K::SubagentNotActive, 1);
    rejects(
        &[rs(), sas("s1"), sae("s1"), saf("s1")],
        K::SubagentNotActive,
        3,
    );
}

// ---------- 8. state and activity ----------

#[test]
fn r48_activity_snapshot_records_owner_when_new_or_replacing() {
    accepts(&[
        rs(),
        at(act("a1"), "s1"),
        at(act("a1"), "s2"),
        at(ad("a1"), "s2"),
        rf(),
    ]);
    rejects(
        &[
            rs(),
            at(act("a1"), "s1"),
            at(act_keep("a1"), "s2"),
            at(ad("a1"), "s2"),
        ],
        K::OwnerMismatch,
        3,
    );
    // A replace:false snapshot of a new activity records it.
    accepts(&[rs(), at(act_keep("a1"), "s1"), at(ad("a1"), "s1"), rf()]);
}

#[test]
fn r49_activity_delta_disagrees_with_owner() {
    rejects(&[rs(), act("a1"), at(ad("a1"), "s1")], K::OwnerMismatch, 2);
    accepts(&[rs(), at(ad("a9"), "s1"), act("a1"), ad("a1"), rf()]);
}

#[test]
fn r50_unordered_families() {
    accepts(&[
        rs(),
        tms("m1"),
        ss(),
        sd(),
        ms(Vec::new()),
        act("a1"),
        ad("a1"),
        cu(),
        raw(),
        sts("s"),
        stf("s"),
        sas("s1"),
        saf("s1"),
        rev_msg("m1"),
        tcr("m2", "t9"),
        tme("m1"),
        rf(),
    ]);
}

#[test]
fn r51_chunks_pass_through_in_client_mode() {
    accepts(&[
        rs(),
        tmk(Some("m1")),
        tck(Some("t1"), None),
        rmk(None),
        tmk(None),
        rf(),
    ]);
    // Only the run gates apply to them.
    rejects(&[rs(), rf(), tmk(Some("m1"))], K::RunAfterFinished, 2);
}

// ---------- 9. chunks: emission-mode counterparts ----------
// R52–R56 are rules of chunk expansion (`client::chunks`), which runs before the verifier on
// the client. In emission mode chunks are checked as self-contained units instead.

#[test]
fn r52_emission_chunk_without_id() {
    let results = emit_all(&[rs(), tmk(None)]);
    assert_eq!(
        results[1].as_ref().unwrap_err().kind(),
        K::EmitChunkMissingId
    );
    assert!(emit_all(&[rs(), tmk(Some("m1"))]).iter().all(Result::is_ok));
}

#[test]
fn r53_emission_tool_chunk_without_name() {
    let results = emit_all(&[rs(), tck(Some("t1"), None)]);
    assert_eq!(
        results[1].as_ref().unwrap_err().kind(),
        K::EmitChunkMissingName
    );
    // A continuation of the same call needs no name.
    assert!(
        emit_all(&[
            rs(),
            tck(Some("t1"), Some("f")),
            tck(Some("t1"), None),
            rf()
        ])
        .iter()
        .all(Result::is_ok)
    );
}

#[test]
fn r55_emission_chunk_owner_mismatch() {
    let results = emit_all(&[rs(), tmk(Some("p1")), at(tmk(Some("p1")), "s1")]);
    assert_eq!(results[2].as_ref().unwrap_err().kind(), K::OwnerMismatch);
}

#[test]
fn r54_emission_chunks_are_never_ambiguous() {
    // Ambiguity needs an id-less, untagged chunk; client mode leaves chunks to expansion,
    // emission mode requires the id, so no chunk has to be resolved by lane.
    let stream = [
        rs(),
        at(tmk(Some("a")), "s1"),
        at(tmk(Some("b")), "s2"),
        tmk(None),
    ];
    accepts(&stream);
    let results = emit_all(&stream);
    assert_eq!(
        results[3].as_ref().unwrap_err().kind(),
        K::EmitChunkMissingId
    );
}

#[test]
fn r56_emission_chunk_field_mismatch() {
    let named = |name: &str| -> Event {
        ag_ui::TextMessageChunkEvent::new()
            .with_message_id("m1")
            .with_name(name)
            .into()
    };
    let results = emit_all(&[rs(), named("a"), named("b")]);
    assert_eq!(
        results[2].as_ref().unwrap_err().kind(),
        K::EmitChunkFieldMismatch
    );
    let results = emit_all(&[rs(), tck(Some("t1"), Some("f")), tck(Some("t1"), Some("g"))]);
    assert_eq!(
        results[2].as_ref().unwrap_err().kind(),
        K::EmitChunkFieldMismatch
    );
    // Repeating the opener's values, or leaving them out, is fine.
    assert!(
        emit_all(&[rs(), named("a"), named("a"), tmk(Some("m1")), rf()])
            .iter()
            .all(Result::is_ok)
    );
}

// ---------- §6.4 and §8: deliberately not enforced ----------

#[test]
fn not_enforced_subagent_relationships() {
    accepts(&[
        rs(),
        // A tag naming a subagent never announced, and one that already ended.
        at(tms("m1"), "ghost"),
        at(tme("m1"), "ghost"),
        sas("s1"),
        saf("s1"),
        at(tms("m2"), "s1"),
        at(tme("m2"), "s1"),
        // A parent finishing before its child; attributed state, custom, raw, steps.
        sas("p"),
        sas_under("c", "p"),
        saf("p"),
        at(ss(), "c"),
        at(sd(), "x"),
        at(cu(), "y"),
        at(raw(), "z"),
        at(sts("q"), "w"),
        at(stf("q"), "w"),
        saf("c"),
        rf(),
    ]);
    // SAS naming tool calls / messages that do not exist.
    let sas_refs: Event = ag_ui::SubagentStartedEvent::new("s1", "helper")
        .with_parent_tool_call_id("nope")
        .with_parent_message_id("nope")
        .into();
    accepts(&[rs(), sas_refs, saf("s1"), rf()]);
    // A child's lifetime alone blocks RUN_FINISHED; subagents left open at RUN_ERROR.
    rejects(
        &[rs(), sas("p"), sas_under("c", "p"), saf("p"), rf()],
        K::RunUnclosedSubagents,
        4,
    );
    accepts(&[rs(), sas("s1"), re()]);
    // A subagent's end does not close its steps.
    rejects(
        &[rs(), sas("s1"), at(sts("a"), "s1"), saf("s1"), rf()],
        K::RunUnclosedSteps,
        4,
    );
}

#[test]
fn not_enforced_interleaving() {
    accepts(&[
        rs(),
        tms("m1"),
        at(tms("m2"), "s1"),
        tcs("t1"),
        at(tcs("t2"), "s2"),
        rst("r1"),
        rms("r2"),
        tcr("m3", "t1"),
        tmc("m1"),
        at(tmc("m2"), "s1"),
        tca("t1"),
        rmc("r2"),
        tce("t1"),
        tce("t2"),
        rme("r2"),
        rend("r1"),
        tme("m2"),
        tme("m1"),
        rf(),
    ]);
}

#[test]
fn violation_accessors_and_termination() {
    let mut verifier = Verifier::new();
    verifier.check(&rs()).unwrap();
    let v = verifier
        .check(&at(sts("a"), "s1"))
        .and_then(|()| verifier.check(&stf("a")));
    let v = v.unwrap_err();
    assert_eq!(v.kind(), K::StepOwnerMismatch);
    assert_eq!(v.kind().as_str(), "step.owner-mismatch");
    assert_eq!(v.kind().rules(), ["R33"]);
    assert_eq!(v.event_type(), ag_ui::EventType::StepFinished);
    assert_eq!(v.ids(), ["a", "", "s1"]);
    assert_eq!(verifier.events_checked(), 2);
    // Client mode: terminated; the first violation again, for any event.
    let again = verifier.check(&stf("a")).unwrap_err();
    assert_eq!(again, v);
    assert_eq!(verifier.check(&rf()).unwrap_err(), v);
    assert_eq!(verifier.violation(), Some(&v));
    assert_eq!(verifier.events_checked(), 2);
}

#[test]
fn kinds_are_unique_and_cover_the_catalogue() {
    let mut names: Vec<&str> = K::ALL.iter().map(|k| k.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), K::ALL.len());
    let mut rules: Vec<&str> = K::ALL
        .iter()
        .flat_map(|k| k.rules().iter().copied())
        .collect();
    rules.sort_unstable();
    for id in [
        "R1", "R2", "R3", "R4", "R7", "R8", "R9", "R10", "R11", "R12", "R14", "R15", "R16", "R17",
        "R18", "R19", "R20", "R21", "R22", "R23", "R25", "R26", "R27", "R28", "R29", "R30", "R31",
        "R32", "R33", "R34", "R35", "R36", "R39", "R40", "R41", "R42", "R43", "R44", "R45", "R46",
        "R47", "R49",
    ] {
        assert!(rules.contains(&id), "{id} has no kind");
    }
}
