//! One test per ordering rule of the AG-UI 1.0 rule catalogue (`protocol/rules.md`), continued:
//! subagents, state and activity, the emission-mode chunk rules, and what is deliberately not
//! enforced. Lifecycle, text, tool calls, reasoning and steps are in `rules.rs`.

use crate::support::ev;

use ag_ui::verify::{Verifier, ViolationKind as K};
use ag_ui::{Event, Message};
use ev::*;

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
