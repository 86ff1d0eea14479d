//! Compaction on generated valid streams (interleaved text messages, tool calls, reasoning,
//! steps, subagent lanes, unordered events): the compacted stream builds the same conversation
//! as the original, and verifies.

use ag_ui::Event;
use ag_ui::client::Reducer;
use ag_ui::client::compact;
use ag_ui::verify::verify_all;
use proptest::prelude::*;
use serde_json::Value;

use crate::support::streams::valid_stream;

/// Messages, state, pending interrupts and tool calls a fresh reducer builds from `events`.
fn apply(events: &[Event]) -> (Value, Value, Value, Value) {
    let mut reducer = Reducer::new();
    reducer.apply_all(events).expect("within the limits");
    (
        serde_json::to_value(reducer.messages()).unwrap(),
        reducer.state().clone(),
        serde_json::to_value(reducer.pending_interrupts()).unwrap(),
        serde_json::to_value(reducer.pending_tool_call_ids()).unwrap(),
    )
}

fn choices() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..160)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn compact_then_apply_equals_apply_and_verifies(c in choices(), one_per_owner in any::<bool>()) {
        let events = valid_stream(&c, one_per_owner);
        let compacted = compact(&events).unwrap();
        prop_assert_eq!(
            verify_all(&compacted).map(|_| ()).map_err(|v| v.to_string()),
            Ok(()),
            "{:#?}",
            compacted
        );
        prop_assert_eq!(apply(&compacted), apply(&events), "{:#?}\n{:#?}", events, compacted);
    }
}
