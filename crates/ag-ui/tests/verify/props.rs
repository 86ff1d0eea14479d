//! Properties of the verifier: a generator of valid streams (random interleavings of text
//! messages, tool calls, reasoning spans and messages, steps, subagents and unordered events,
//! of several owners) is always accepted, in both modes where it applies; single mutations
//! of such a stream — dropping an END, swapping the owner of a continuation, duplicating a
//! START — are rejected with the expected kind at the expected event.

use crate::support::ev;
use crate::support::streams::valid_stream;

use ag_ui::Event;
use ag_ui::verify::{Verifier, ViolationKind as K, verify_all};
use ev::*;
use proptest::prelude::*;

/// What RUN_FINISHED reports when the END of this event is missing.
fn unclosed_kind(end: &Event) -> Option<K> {
    Some(match end {
        Event::TextMessageEnd(_) => K::RunUnclosedTextMessages,
        Event::ToolCallEnd(_) => K::RunUnclosedToolCalls,
        Event::ReasoningMessageEnd(_) => K::RunUnclosedReasoningMessages,
        Event::ReasoningEnd(_) => K::RunUnclosedReasoningSpans,
        Event::StepFinished(_) => K::RunUnclosedSteps,
        Event::SubagentFinished(_) | Event::SubagentError(_) => K::RunUnclosedSubagents,
        _ => return None,
    })
}

/// The kind a duplicate of this START right after it gets.
fn duplicate_kind(start: &Event) -> Option<K> {
    Some(match start {
        Event::TextMessageStart(_) => K::TextAlreadyOpen,
        Event::ToolCallStart(_) => K::ToolAlreadyOpen,
        Event::ReasoningStart(_) => K::ReasoningSpanAlreadyOpen,
        Event::ReasoningMessageStart(_) => K::ReasoningMessageAlreadyOpen,
        Event::StepStarted(_) => K::StepAlreadyOpen,
        Event::SubagentStarted(_) => K::SubagentAlreadyActive,
        _ => return None,
    })
}

fn is_continuation(event: &Event) -> bool {
    matches!(
        event,
        Event::TextMessageContent(_)
            | Event::TextMessageEnd(_)
            | Event::ToolCallArgs(_)
            | Event::ToolCallEnd(_)
            | Event::ReasoningMessageContent(_)
            | Event::ReasoningMessageEnd(_)
            | Event::ReasoningEnd(_)
    )
}

fn choices() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..160)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn valid_streams_are_accepted(c in choices()) {
        let events = valid_stream(&c, false);
        prop_assert_eq!(verify_all(&events).map_err(|v| v.to_string()), Ok(events.len()));
    }

    #[test]
    fn valid_one_at_a_time_streams_pass_emission_mode(c in choices()) {
        let events = valid_stream(&c, true);
        let mut verifier = Verifier::for_emission();
        for event in &events {
            prop_assert!(verifier.check(event).is_ok(), "{:?}", verifier.check(event));
        }
    }

    #[test]
    fn dropping_an_end_is_rejected_at_run_finished(c in choices(), at_ in any::<prop::sample::Index>()) {
        let mut events = valid_stream(&c, false);
        let ends: Vec<usize> = (0..events.len()).filter(|&i| unclosed_kind(&events[i]).is_some()).collect();
        prop_assume!(!ends.is_empty());
        let i = ends[at_.index(ends.len())];
        let expected = unclosed_kind(&events.remove(i)).unwrap();
        let v = verify_all(&events).unwrap_err();
        // Steps are reported first, so a dropped STEP_FINISHED always wins; otherwise the
        // only open category is the dropped one.
        prop_assert_eq!((v.kind(), v.index()), (expected, events.len() - 1), "{}", v);
    }

    #[test]
    fn swapping_the_owner_of_a_continuation_is_rejected(c in choices(), at_ in any::<prop::sample::Index>()) {
        let mut events = valid_stream(&c, false);
        let conts: Vec<usize> = (0..events.len()).filter(|&i| is_continuation(&events[i])).collect();
        prop_assume!(!conts.is_empty());
        let i = conts[at_.index(conts.len())];
        events[i] = at(events[i].clone(), "intruder");
        let v = verify_all(&events).unwrap_err();
        prop_assert_eq!((v.kind(), v.index()), (K::OwnerMismatch, i), "{}", v);
        prop_assert!(v.ids().contains(&"intruder".to_owned()));
    }

    #[test]
    fn duplicating_a_start_is_rejected(c in choices(), at_ in any::<prop::sample::Index>()) {
        let mut events = valid_stream(&c, false);
        let starts: Vec<usize> = (0..events.len()).filter(|&i| duplicate_kind(&events[i]).is_some()).collect();
        prop_assume!(!starts.is_empty());
        let i = starts[at_.index(starts.len())];
        let expected = duplicate_kind(&events[i]).unwrap();
        events.insert(i + 1, events[i].clone());
        let v = verify_all(&events).unwrap_err();
        prop_assert_eq!((v.kind(), v.index()), (expected, i + 1), "{}", v);
    }
}
