//! One test per ordering rule of the AG-UI 1.0 rule catalogue (`protocol/rules.md`), named
//! after the rule id, each with its accepted and rejected side: lifecycle, text, tool calls,
//! reasoning and steps here; subagents, state and activity and the chunk rules in
//! `rules_subagents.rs`; the null and shape rules in `rules_shape.rs`.

use crate::support::ev;

use ag_ui::Message;
use ag_ui::verify::{ViolationKind as K, verify_all};
use ev::*;

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
