//! Emission mode (`Verifier::for_emission`): the 1.0 rules plus one open text message and one
//! open reasoning block per owner, chunks as self-contained units, and rejected events that
//! leave the verifier untouched.

use crate::support::ev;

use ag_ui::verify::{Verifier, Violation, ViolationKind as K};
use ag_ui::{Event, TextMessageRole};
use ev::*;

/// Feeds every event; returns the kinds of the rejected ones with their positions.
fn rejected(events: &[Event]) -> Vec<(usize, K)> {
    emit_all(events)
        .into_iter()
        .enumerate()
        .filter_map(|(i, r)| r.err().map(|v| (i, v.kind())))
        .collect()
}

fn kind_at(events: &[Event]) -> Violation {
    let results = emit_all(events);
    let last = results.last().unwrap();
    for r in &results[..results.len() - 1] {
        r.as_ref().unwrap();
    }
    last.clone().unwrap_err()
}

#[test]
fn one_open_text_message_per_owner() {
    let v = kind_at(&[rs(), tms("m1"), tms("m2")]);
    assert_eq!(v.kind(), K::EmitTextAlreadyOpen);
    assert_eq!(v.kind().as_str(), "emit.text-already-open");
    assert!(v.kind().is_emission_only());
    assert_eq!(v.ids(), ["m2", "m1"]);
    assert!(
        v.message()
            .contains("the parent agent still has text message m1 open"),
        "{v}"
    );
    // The same in client mode is legal.
    accepts(&[rs(), tms("m1"), tms("m2"), tme("m2"), tme("m1"), rf()]);
    // Per owner: the parent and two subagents each stream one at a time, in parallel.
    assert!(
        rejected(&[
            rs(),
            tms("m1"),
            at(tms("m2"), "s1"),
            at(tms("m3"), ""),
            tmc("m1"),
            at(tme("m2"), "s1"),
            at(tms("m4"), "s1"),
            tme("m1"),
            tms("m5"),
            tme("m5"),
            tme("m4"),
            tme("m3"),
            rf(),
        ])
        .is_empty()
    );
    assert_eq!(
        rejected(&[rs(), at(tms("m1"), "s1"), at(tms("m2"), "s1")]),
        [(2, K::EmitTextAlreadyOpen)]
    );
    // An untagged reopen of a subagent's message counts for that subagent.
    assert_eq!(
        rejected(&[
            rs(),
            at(tms("m1"), "s1"),
            tme("m1"),
            at(tms("m2"), "s1"),
            tms("m1")
        ]),
        [(4, K::EmitTextAlreadyOpen)]
    );
}

#[test]
fn one_open_reasoning_block_per_owner() {
    // The handle's shape: a span holding a message, same id or not.
    assert!(
        rejected(&[
            rs(),
            rst("r1"),
            rms("r1"),
            rmc("r1"),
            rme("r1"),
            rend("r1"),
            rst("r2"),
            rms("x2"),
            rme("x2"),
            rend("r2"),
            rf(),
        ])
        .is_empty()
    );
    assert_eq!(
        rejected(&[rs(), rst("r1"), rst("r2")]),
        [(2, K::EmitReasoningAlreadyOpen)]
    );
    assert_eq!(
        rejected(&[rs(), rms("r1"), rms("r2")]),
        [(2, K::EmitReasoningAlreadyOpen)]
    );
    // Other owners reason in parallel.
    assert!(
        rejected(&[
            rs(),
            rst("r1"),
            at(rst("r2"), "s1"),
            rend("r1"),
            at(rend("r2"), "s1"),
            rf()
        ])
        .is_empty()
    );
}

#[test]
fn parallel_tool_calls_stay_legal() {
    assert!(
        rejected(&[
            rs(),
            tms("m1"),
            tcs_in("t1", "m1"),
            tcs_in("t2", "m1"),
            tca("t2"),
            tca("t1"),
            tce("t1"),
            tce("t2"),
            tme("m1"),
            rf(),
        ])
        .is_empty()
    );
}

#[test]
fn the_client_rules_still_apply() {
    assert_eq!(rejected(&[tms("m1")]), [(0, K::RunFirstEvent)]);
    assert_eq!(rejected(&[rs(), tmc("m1")]), [(1, K::TextNotOpen)]);
    assert_eq!(
        rejected(&[rs(), at(tms("m1"), "s1"), at(tme("m1"), "s2")]),
        [(2, K::OwnerMismatch)]
    );
    assert_eq!(
        rejected(&[rs(), tms("m1"), rf()]),
        [(2, K::RunUnclosedTextMessages)]
    );
}

#[test]
fn a_rejected_event_changes_nothing() {
    let mut verifier = Verifier::for_emission();
    assert!(verifier.is_emission());
    verifier.check(&rs()).unwrap();
    verifier.check(&tms("m1")).unwrap();
    let v = verifier.check(&tms("m2")).unwrap_err();
    assert_eq!((v.kind(), v.index()), (K::EmitTextAlreadyOpen, 2));
    // Not counted, not recorded, not terminated.
    assert_eq!(verifier.events_checked(), 2);
    assert!(verifier.violation().is_none());
    assert_eq!(
        verifier.check(&tmc("m2")).unwrap_err().kind(),
        K::TextNotOpen
    );
    verifier.check(&tmc("m1")).unwrap();
    verifier.check(&tme("m1")).unwrap();
    verifier.check(&tms("m2")).unwrap();
    verifier.check(&tme("m2")).unwrap();
    verifier.check(&rf()).unwrap();
    assert_eq!(verifier.events_checked(), 7);
}

#[test]
fn the_seed_streams_are_accepted() {
    // `say`, `assistant_message` with three deltas, `think`, `reasoning` with a delta.
    let mut events = vec![rs()];
    for id in ["r-msg-1", "r-msg-2"] {
        events.push(Event::text_message_start(id, TextMessageRole::Assistant));
        events.push(Event::text_message_content(id, "Hello"));
        events.push(Event::text_message_end(id));
    }
    for id in ["r-reasoning-1", "r-reasoning-2"] {
        events.extend([rst(id), rms(id), rmc(id), rme(id), rend(id)]);
    }
    events.push(rf());
    assert!(rejected(&events).is_empty());
}

#[test]
fn chunks_are_self_contained() {
    // A chunk registers its id and needs no closing.
    assert!(rejected(&[rs(), tmk(Some("chunk-1")), rf()]).is_empty());
    assert!(
        rejected(&[
            rs(),
            tck(Some("t1"), Some("f")),
            tck(Some("t1"), None),
            rmk(Some("r1")),
            rf()
        ])
        .is_empty()
    );
    // It needs its id.
    assert_eq!(rejected(&[rs(), tmk(None)]), [(1, K::EmitChunkMissingId)]);
    assert_eq!(rejected(&[rs(), rmk(None)]), [(1, K::EmitChunkMissingId)]);
    assert_eq!(
        rejected(&[rs(), tck(None, Some("f"))]),
        [(1, K::EmitChunkMissingId)]
    );
}

#[test]
fn a_chunks_owner_binds_later_chunks_and_events() {
    // The registered owner binds later chunks and explicit events.
    assert_eq!(
        rejected(&[rs(), at(tmk(Some("c1")), "s1"), at(tmk(Some("c1")), "s2")]),
        [(2, K::OwnerMismatch)]
    );
    // (Once s1's lane has closed; while it streams, c1 is open on the client.)
    assert_eq!(
        rejected(&[
            rs(),
            at(tmk(Some("c1")), "s1"),
            at(cu(), "s1"),
            at(tms("c1"), "s2")
        ]),
        [(3, K::OwnerMismatch)]
    );
    assert_eq!(
        rejected(&[rs(), at(tmk(Some("c1")), "s1"), at(tms("c1"), "s2")]),
        [(2, K::TextAlreadyOpen)]
    );
    // A tool chunk is checked against its parent message's owner.
    assert_eq!(
        rejected(&[rs(), at(tms("m1"), "s1"), at(tck_in("t1", "m1"), "s2")]),
        [(2, K::OwnerParentMessageMismatch)]
    );
}

#[test]
fn a_chunk_never_opens_what_is_open() {
    // A chunk for an id open as explicit events would expand into a second START.
    assert_eq!(
        rejected(&[rs(), tms("m1"), tmk(Some("m1"))]),
        [(2, K::TextAlreadyOpen)]
    );
    assert_eq!(
        rejected(&[rs(), tcs("t1"), tck(Some("t1"), Some("f"))]),
        [(2, K::ToolAlreadyOpen)]
    );
    assert_eq!(
        rejected(&[rs(), rms("r1"), rmk(Some("r1"))]),
        [(2, K::ReasoningMessageAlreadyOpen)]
    );
    // One open block per owner holds for chunks too.
    assert_eq!(
        rejected(&[rs(), tms("m1"), tmk(Some("m2"))]),
        [(2, K::EmitTextAlreadyOpen)]
    );
    assert!(rejected(&[rs(), tms("m1"), at(tmk(Some("m2")), "s1"), tme("m1"), rf()]).is_empty());
}

#[test]
fn an_explicit_event_in_its_lane_ends_a_chunk_stream() {
    // An explicit event in the lane ends the chunk stream: the next chunk opens a new call
    // and needs a name again.
    assert_eq!(
        rejected(&[
            rs(),
            tck(Some("t1"), Some("f")),
            cu(),
            tck(Some("t1"), None)
        ]),
        [(3, K::EmitChunkMissingName)]
    );
    // ... but an event of another lane does not.
    assert!(
        rejected(&[
            rs(),
            tck(Some("t1"), Some("f")),
            at(cu(), "s1"),
            tck(Some("t1"), None),
            rf()
        ])
        .is_empty()
    );
}

#[test]
fn a_chunk_continuation_keeps_its_lanes_owner_and_fields() {
    // A continuation keeps its lane's owner and the opener's fields.
    assert_eq!(
        rejected(&[
            rs(),
            at(tms("c1"), "s1"),
            at(tme("c1"), "s1"),
            tmk(Some("c1")),
            at(tmk(Some("c1")), "s1")
        ]),
        [(4, K::OwnerMismatch)]
    );
    let text_chunk = |role: TextMessageRole| -> Event {
        ag_ui::TextMessageChunkEvent::new()
            .with_message_id("m9")
            .with_role(role)
            .into()
    };
    assert_eq!(
        rejected(&[rs(), tmk(Some("m9")), text_chunk(TextMessageRole::User)]),
        [(2, K::EmitChunkFieldMismatch)]
    );
    assert!(
        rejected(&[
            rs(),
            tmk(Some("m9")),
            text_chunk(TextMessageRole::Assistant),
            rf()
        ])
        .is_empty()
    );
    assert_eq!(
        rejected(&[
            rs(),
            tms("p"),
            tme("p"),
            tck_in("t7", "p"),
            tck_in("t7", "q")
        ]),
        [(4, K::EmitChunkFieldMismatch)]
    );
}

#[test]
fn an_id_another_lane_streams_as_chunks_stays_open() {
    // While another lane streams an id as chunks, the client holds it open.
    assert_eq!(
        rejected(&[rs(), at(tmk(Some("c1")), "s1"), tms("c1")]),
        [(2, K::TextAlreadyOpen)]
    );
    assert_eq!(
        rejected(&[rs(), at(tck(Some("t5"), Some("f")), "s1"), tcs("t5")]),
        [(2, K::ToolAlreadyOpen)]
    );
    assert_eq!(
        rejected(&[rs(), at(rmk(Some("x5")), "s1"), rms("x5")]),
        [(2, K::ReasoningMessageAlreadyOpen)]
    );
    // The own lane closes first: reopening explicitly is fine.
    assert!(rejected(&[rs(), tmk(Some("c2")), tms("c2"), tme("c2"), rf()]).is_empty());
    // Re-owning a message another lane streams as chunks (a tool result is the last writer).
    assert_eq!(
        rejected(&[rs(), at(tmk(Some("c3")), "s1"), tcr("c3", "t1")]),
        [(2, K::OwnerMismatch)]
    );
    assert!(
        rejected(&[
            rs(),
            at(tmk(Some("c3")), "s1"),
            at(tcr("c3", "t1"), "s1"),
            rf()
        ])
        .is_empty()
    );
}
