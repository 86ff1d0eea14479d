//! The `attributed` flag of the event catalogue is the one source of which events carry the
//! `subagentRunId` attribution: `EventType::is_attributable`, `Event::attribution` and
//! `Event::attribution_mut` must agree with each other and with the wire form.

use crate::support as common;

use ag_ui::{Event, EventType, SubagentRunId};
use common::strategies::event_of;
use proptest::prelude::*;

/// The 24 attributable types of AG-UI 1.0, counted from the protocol's event list.
const ATTRIBUTABLE: usize = 24;

#[test]
fn twenty_four_types_are_attributable() {
    let n = EventType::ALL
        .iter()
        .filter(|t| t.is_attributable())
        .count();
    assert_eq!(n, ATTRIBUTABLE);
    for t in [
        EventType::MessagesSnapshot,
        EventType::RunStarted,
        EventType::RunFinished,
        EventType::RunError,
        EventType::SubagentStarted,
        EventType::SubagentFinished,
        EventType::SubagentError,
    ] {
        assert!(!t.is_attributable(), "{t} must not be attributable");
    }
}

fn check(event: Event) -> Result<(), TestCaseError> {
    let ty = event.event_type();
    let mut event = event;
    prop_assert_eq!(
        event.attribution_mut().is_some(),
        ty.is_attributable(),
        "{}",
        ty
    );
    let before = event.clone();
    let attributed = event.with_subagent_run_id("sub-1");
    let wire = attributed.to_json();
    let json: serde_json::Value = serde_json::from_str(&wire).unwrap();
    if ty.is_attributable() {
        prop_assert_eq!(
            attributed.attribution(),
            Some(&SubagentRunId::from("sub-1"))
        );
        prop_assert_eq!(
            attributed.subagent_run_id(),
            Some(&SubagentRunId::from("sub-1"))
        );
        prop_assert_eq!(json["subagentRunId"].as_str(), Some("sub-1"), "{}", wire);
        // Read back, the attribution lands in the same slot.
        let back = Event::from_json(&wire).unwrap();
        prop_assert_eq!(back.attribution(), Some(&SubagentRunId::from("sub-1")));
    } else {
        prop_assert_eq!(attributed.attribution(), None);
        prop_assert_eq!(
            &attributed,
            &before,
            "a non-attributable event is left unchanged"
        );
        prop_assert_ne!(json["subagentRunId"].as_str(), Some("sub-1"), "{}", wire);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn flag_accessors_and_wire_agree(seed in 0usize..EventType::ALL.len()) {
        let ty = EventType::ALL[seed];
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        for _ in 0..4 {
            let event = event_of(ty).new_tree(&mut runner).unwrap().current();
            check(event)?;
        }
    }
}

#[test]
fn every_type_is_covered() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for &ty in EventType::ALL {
        for _ in 0..4 {
            let event = event_of(ty).new_tree(&mut runner).unwrap().current();
            check(event).unwrap();
        }
    }
}
