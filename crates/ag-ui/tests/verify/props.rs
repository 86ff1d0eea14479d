//! Properties of the verifier: a generator of valid streams (random interleavings of text
//! messages, tool calls, reasoning spans and messages, steps, subagents and unordered events,
//! of several owners) is always accepted, in both modes where it applies; single mutations
//! of such a stream — dropping an END, swapping the owner of a continuation, duplicating a
//! START — are rejected with the expected kind at the expected event.

use crate::support::ev;

use ag_ui::Event;
use ag_ui::verify::{Verifier, ViolationKind as K, verify_all};
use ev::*;
use proptest::prelude::*;

const TAGS: [Option<&str>; 5] = [None, None, Some("s1"), Some("s2"), Some("")];

fn tag(event: Event, t: Option<&str>) -> Event {
    match t {
        Some(t) => at(event, t),
        None => event,
    }
}

/// Builds a valid single-run stream from choice bytes. Ids are unique, so nothing is reopened;
/// the stream closes everything and ends with RUN_FINISHED. With `one_per_owner`, an owner
/// opens at most one text message and one reasoning span/message at a time (emission mode).
fn valid_stream(choices: &[u8], one_per_owner: bool) -> Vec<Event> {
    let mut out = vec![rs()];
    let mut n = 0usize;
    let mut fresh = |p: &str| {
        n += 1;
        format!("{p}{n}")
    };
    let mut text: Vec<(String, Option<&str>)> = Vec::new();
    let mut tools: Vec<(String, Option<&str>)> = Vec::new();
    let mut spans: Vec<(String, Option<&str>)> = Vec::new();
    let mut rmsgs: Vec<(String, Option<&str>)> = Vec::new();
    let mut steps: Vec<(String, Option<&str>)> = Vec::new();
    let mut subs: Vec<String> = Vec::new();
    // A continuation's tag: the owner, or absent.
    let cont = |c: u8, owner: Option<&'static str>| if c & 1 == 0 { None } else { owner };
    for pair in choices.chunks(2) {
        let (a, b) = (pair[0], *pair.get(1).unwrap_or(&0));
        let t = TAGS[b as usize % TAGS.len()];
        let pick = |len: usize| b as usize % len.max(1);
        match a % 16 {
            0 => {
                if one_per_owner && text.iter().any(|(_, o)| *o == t) {
                    continue;
                }
                let id = fresh("m");
                out.push(tag(tms(&id), t));
                text.push((id, t));
            }
            1 | 2 if !text.is_empty() => {
                let (id, o) = &text[pick(text.len())];
                out.push(tag(tmc(id), cont(a / 16, *o)));
            }
            3 if !text.is_empty() => {
                let (id, o) = text.remove(pick(text.len()));
                out.push(tag(tme(&id), cont(a / 16, o)));
            }
            4 => {
                let id = fresh("t");
                // Under an open message: inherit its owner (untagged) or repeat it.
                if let Some((parent, o)) = text.get(pick(text.len())).filter(|_| a & 0x80 != 0) {
                    out.push(tag(tcs_in(&id, parent), cont(a / 16, *o)));
                    tools.push((id, *o));
                } else {
                    out.push(tag(tcs(&id), t));
                    tools.push((id, t));
                }
            }
            5 if !tools.is_empty() => {
                let (id, o) = &tools[pick(tools.len())];
                out.push(tag(tca(id), cont(a / 16, *o)));
            }
            6 if !tools.is_empty() => {
                let (id, o) = tools.remove(pick(tools.len()));
                out.push(tag(tce(&id), cont(a / 16, o)));
            }
            7 => {
                if one_per_owner && spans.iter().any(|(_, o)| *o == t) {
                    continue;
                }
                let id = fresh("r");
                out.push(tag(rst(&id), t));
                spans.push((id, t));
            }
            8 => {
                if one_per_owner && rmsgs.iter().any(|(_, o)| *o == t) {
                    continue;
                }
                let id = fresh("x");
                out.push(tag(rms(&id), t));
                rmsgs.push((id, t));
            }
            9 if !rmsgs.is_empty() => {
                let (id, o) = &rmsgs[pick(rmsgs.len())];
                out.push(tag(rmc(id), cont(a / 16, *o)));
            }
            10 if !rmsgs.is_empty() => {
                let (id, o) = rmsgs.remove(pick(rmsgs.len()));
                out.push(tag(rme(&id), cont(a / 16, o)));
            }
            11 if !spans.is_empty() => {
                let (id, o) = spans.remove(pick(spans.len()));
                out.push(tag(rend(&id), cont(a / 16, o)));
            }
            12 => {
                let name = fresh("step");
                out.push(tag(sts(&name), t));
                steps.push((name, t));
            }
            13 if !steps.is_empty() => {
                let (name, o) = steps.remove(pick(steps.len()));
                out.push(tag(stf(&name), o));
            }
            14 => {
                let id = fresh("s");
                match subs.get(pick(subs.len())).filter(|_| a & 0x80 != 0) {
                    Some(parent) => out.push(sas_under(&id, parent)),
                    None => out.push(sas(&id)),
                }
                subs.push(id);
            }
            15 if !subs.is_empty() => {
                let id = subs.remove(pick(subs.len()));
                out.push(if a & 0x80 != 0 { sae(&id) } else { saf(&id) });
            }
            _ => {
                let unordered = [
                    ss(),
                    sd(),
                    cu(),
                    raw(),
                    act("a1"),
                    tcr(&format!("res{b}"), "t0"),
                ];
                out.push(tag(unordered[b as usize % unordered.len()].clone(), t));
            }
        }
    }
    for (id, o) in text {
        out.push(tag(tme(&id), o));
    }
    for (id, o) in tools {
        out.push(tag(tce(&id), o));
    }
    for (id, o) in rmsgs {
        out.push(tag(rme(&id), o));
    }
    for (id, o) in spans {
        out.push(tag(rend(&id), o));
    }
    for (name, o) in steps {
        out.push(tag(stf(&name), o));
    }
    for id in subs {
        out.push(saf(&id));
    }
    out.push(rf());
    out
}

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
