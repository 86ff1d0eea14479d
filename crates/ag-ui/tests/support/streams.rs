//! A generator of valid streams from choice bytes (random interleavings of text messages, tool
//! calls, reasoning spans and messages, steps, subagents and unordered events, of several
//! owners), for the verifier's properties and compaction's.

#![allow(dead_code, unreachable_pub)]

use super::ev::*;
use ag_ui::Event;

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
pub fn valid_stream(choices: &[u8], one_per_owner: bool) -> Vec<Event> {
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
