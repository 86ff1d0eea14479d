//! The rules of the next specification's draft the verifier enforces ahead of the reference
//! client (D1–D3), each with its accepted and rejected side, in both modes; and that the
//! emitting side cannot break them.

use crate::support::ev;

use ag_ui::verify::{Verifier, ViolationKind as K};
use ag_ui::{Event, Interrupt, RunFinishedEvent, RunFinishedOutcome};
use ev::*;

fn finished_with(interrupts: &[&str]) -> Event {
    RunFinishedEvent::new("t", "r")
        .with_outcome(RunFinishedOutcome::interrupt(
            interrupts
                .iter()
                .map(|id| Interrupt::new(*id, "approval"))
                .collect(),
        ))
        .into()
}

/// Both modes report the same violation, and emission mode leaves the verifier as it was.
fn both_modes(events: &[Event], kind: K, index: usize) {
    let v = rejects(events, kind, index);
    assert!(kind.is_draft(), "{kind}");
    assert!(v.kind().rules()[0].starts_with('D'));
    let mut emission = Verifier::for_emission();
    for (i, event) in events.iter().enumerate() {
        match emission.check(event) {
            Ok(()) => assert!(i != index, "emission mode accepted {event:?}"),
            Err(e) => {
                assert_eq!((e.kind(), i), (kind, index), "{e}");
                break;
            }
        }
    }
}

#[test]
fn d1_run_finished_names_its_run() {
    both_modes(
        &[rs(), Event::run_finished("t", "other")],
        K::RunIdMismatch,
        1,
    );
    // Before the closure rules: the open message is not what is wrong first.
    let v = rejects(
        &[rs(), tms("m1"), Event::run_finished("t", "other")],
        K::RunIdMismatch,
        2,
    );
    assert_eq!(v.ids(), ["other", "r"]);
    assert!(v.message().contains("must agree on their runId"), "{v}");
    accepts(&[
        rs(),
        rf(),
        Event::run_started("t", "r2"),
        Event::run_finished("t", "r2"),
    ]);
    // A run that failed is closed by RUN_ERROR, which names no run.
    accepts(&[
        rs(),
        re(),
        Event::run_started("t", "r2"),
        Event::run_finished("t", "r2"),
    ]);
}

#[test]
fn d2_every_run_of_a_stream_is_on_one_thread() {
    both_modes(
        &[rs(), Event::run_finished("other", "r")],
        K::RunThreadMismatch,
        1,
    );
    let v = rejects(
        &[
            rs(),
            rf(),
            Event::run_started("t2", "r2"),
            Event::run_finished("t2", "r2"),
        ],
        K::RunThreadMismatch,
        2,
    );
    assert_eq!(v.ids(), ["t2", "t"]);
    assert!(
        v.message()
            .contains("every run of one stream is on one thread"),
        "{v}"
    );
    // After a failed run too: the thread outlives the run.
    rejects(
        &[rs(), re(), Event::run_started("t2", "r2")],
        K::RunThreadMismatch,
        2,
    );
    // A stream that opens with RUN_ERROR has no thread yet.
    accepts(&[
        re(),
        Event::run_started("t9", "r"),
        Event::run_finished("t9", "r"),
    ]);
}

#[test]
fn d3_interrupt_ids_are_unique_within_an_outcome() {
    both_modes(
        &[rs(), finished_with(&["i1", "i2", "i1"])],
        K::InterruptDuplicateId,
        1,
    );
    let v = rejects(
        &[rs(), finished_with(&["a", "a"])],
        K::InterruptDuplicateId,
        1,
    );
    assert_eq!(v.ids(), ["a"]);
    accepts(&[rs(), finished_with(&["i1", "i2"])]);
    // The same id in two runs' outcomes is two questions, each answered in its turn.
    accepts(&[rs(), finished_with(&["i1"]), rs(), finished_with(&["i1"])]);
}

/// A failed check changes nothing: the run is still open, and a correct close is accepted.
#[test]
fn emission_mode_carries_on_after_a_refused_close() {
    let mut verifier = Verifier::for_emission();
    verifier.check(&rs()).unwrap();
    assert!(verifier.check(&Event::run_finished("t", "other")).is_err());
    assert!(verifier.check(&finished_with(&["x", "x"])).is_err());
    verifier.check(&rf()).unwrap();
}

/// The runner frames a run with the input's ids and keeps an outcome's interrupt ids distinct,
/// so an agent cannot break D1–D3.
#[cfg(feature = "server")]
#[test]
fn the_emitting_side_cannot_break_them() {
    use ag_ui::RunAgentInput;
    use ag_ui::server::{Outcome, Result as AgentResult, RunContext, Runner};

    struct Asks;
    impl ag_ui::server::Agent for Asks {
        type State = ();
        async fn run(&self, _: &mut RunContext<()>) -> AgentResult<Outcome> {
            Ok(Outcome::interrupt(Interrupt::new("i", "first"))
                .with_interrupt(Interrupt::new("i", "again")))
        }
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let events: Vec<Event> = runtime.block_on(async {
        use futures::StreamExt;
        Runner::new(Asks)
            .run(RunAgentInput::new("thread-x", "run-x"))
            .unwrap()
            .collect()
            .await
    });
    let Some(Event::RunFinished(finished)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(
        (finished.thread_id.as_str(), finished.run_id.as_str()),
        ("thread-x", "run-x")
    );
    assert!(
        matches!(&finished.outcome, Some(RunFinishedOutcome::Interrupt { interrupts }) if interrupts.len() == 1)
    );
    ag_ui::verify::verify_all(&events).unwrap();
}
