//! The direct JSON reader of the text and reasoning events (see the [module above](super)).

use super::next_escape;
use crate::{Event, EventType, MessageId, SubagentRunId, TextMessageRole};

/// Largest magnitude of a `timestamp` (2^53 − 1).
const MAX_SAFE: i64 = 9_007_199_254_740_991;

/// A value the direct reader understands: a string without escapes, or a plain integer.
#[derive(Clone, Copy)]
enum Raw<'a> {
    Str(&'a str),
    Int(i64),
}

/// The members of a compact JSON object, after its leading `"type"` member.
struct Members<'a> {
    keys: [&'a str; 8],
    values: [Raw<'a>; 8],
    len: usize,
    /// Which members were taken; any left over is a key the reader does not handle.
    taken: u8,
}

impl<'a> Members<'a> {
    /// Reads `,"key":value` pairs up to the closing brace at the very end of `json`. `None` for
    /// anything unusual: whitespace, escapes, nested values, floats, more than eight members.
    fn parse(json: &'a str, mut at: usize) -> Option<Self> {
        let bytes = json.as_bytes();
        let mut members = Members {
            keys: [""; 8],
            values: [Raw::Int(0); 8],
            len: 0,
            taken: 0,
        };
        loop {
            match *bytes.get(at)? {
                b'}' if at + 1 == bytes.len() => return Some(members),
                b',' if members.len < 8 => {}
                _ => return None,
            }
            if bytes.get(at + 1) != Some(&b'"') {
                return None;
            }
            let (key, next) = plain_str(json, at + 2)?;
            if bytes.get(next) != Some(&b':') {
                return None;
            }
            at = next + 1;
            let value = match *bytes.get(at)? {
                b'"' => {
                    let (value, next) = plain_str(json, at + 1)?;
                    at = next;
                    Raw::Str(value)
                }
                b'-' | b'0'..=b'9' => {
                    let (value, next) = plain_int(bytes, at)?;
                    at = next;
                    Raw::Int(value)
                }
                _ => return None,
            };
            if members.keys[..members.len].contains(&key) {
                return None; // a duplicate: serde reports it
            }
            members.keys[members.len] = key;
            members.values[members.len] = value;
            members.len += 1;
        }
    }

    fn take(&mut self, key: &str) -> Option<Raw<'a>> {
        let index = self.keys[..self.len].iter().position(|k| *k == key)?;
        self.taken |= 1 << index;
        Some(self.values[index])
    }

    /// A required string member.
    fn string(&mut self, key: &str) -> Option<&'a str> {
        match self.take(key)? {
            Raw::Str(s) => Some(s),
            Raw::Int(_) => None,
        }
    }

    /// An optional string member: `Err` when present with another type.
    fn opt_string<T: From<&'a str>>(&mut self, key: &str) -> Result<Option<T>, ()> {
        match self.take(key) {
            None => Ok(None),
            Some(Raw::Str(s)) => Ok(Some(T::from(s))),
            Some(Raw::Int(_)) => Err(()),
        }
    }

    /// A required id member, shared with the last id read into `slot` when it is the same.
    fn id<T: Id>(&mut self, key: &str, slot: &mut Option<T>) -> Option<T> {
        match self.take(key)? {
            Raw::Str(s) => Some(cached(slot, s)),
            Raw::Int(_) => None,
        }
    }

    /// An optional id member: `Err` when present with another type.
    fn opt_id<T: Id>(&mut self, key: &str, slot: &mut Option<T>) -> Result<Option<T>, ()> {
        match self.take(key) {
            None => Ok(None),
            Some(Raw::Str(s)) => Ok(Some(cached(slot, s))),
            Some(Raw::Int(_)) => Err(()),
        }
    }

    /// Whether every member was taken.
    fn done(&self) -> bool {
        u32::from(self.taken) == (1u32 << self.len) - 1
    }
}

/// The last ids a stream decoder read, by kind. A stream names the same message and subagent
/// run in event after event; reading an id equal to the last one shares it (a reference count)
/// instead of allocating a copy.
#[derive(Clone, Debug, Default)]
pub(crate) struct IdCache {
    message: Option<MessageId>,
    subagent: Option<SubagentRunId>,
}

/// The id newtypes, for [`cached`].
trait Id: Clone + AsRef<str> + for<'s> From<&'s str> {}
impl<T: Clone + AsRef<str> + for<'s> From<&'s str>> Id for T {}

/// `s` as an id: the one in `slot` when equal, else a new one, remembered in `slot`.
#[inline]
fn cached<T: Id>(slot: &mut Option<T>, s: &str) -> T {
    match slot {
        Some(id) if id.as_ref() == s => id.clone(),
        _ => slot.insert(T::from(s)).clone(),
    }
}

/// A string starting after its opening quote at `at`, without escapes or control characters;
/// returns it and the position after its closing quote.
fn plain_str(json: &str, at: usize) -> Option<(&str, usize)> {
    let bytes = json.as_bytes();
    let end = next_escape(bytes, at)?;
    if bytes[end] != b'"' {
        return None;
    }
    // Both ends are ASCII quotes, so the slice is on character boundaries.
    Some((json.get(at..end)?, end + 1))
}

/// A JSON integer (no fraction, no exponent) within ±(2^53 − 1).
fn plain_int(bytes: &[u8], at: usize) -> Option<(i64, usize)> {
    let negative = bytes[at] == b'-';
    let start = at + usize::from(negative);
    let digits = bytes[start..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 || digits > 16 || (digits > 1 && bytes[start] == b'0') {
        return None;
    }
    let end = start + digits;
    if matches!(bytes.get(end), Some(b'.' | b'e' | b'E')) {
        return None;
    }
    let mut value: i64 = 0;
    for &b in &bytes[start..end] {
        value = value * 10 + i64::from(b - b'0');
    }
    if value > MAX_SAFE {
        return None;
    }
    Some((if negative { -value } else { value }, end))
}

fn text_role(raw: Option<Raw<'_>>) -> Result<Option<TextMessageRole>, ()> {
    match raw {
        None => Ok(None),
        Some(Raw::Str("developer")) => Ok(Some(TextMessageRole::Developer)),
        Some(Raw::Str("system")) => Ok(Some(TextMessageRole::System)),
        Some(Raw::Str("assistant")) => Ok(Some(TextMessageRole::Assistant)),
        Some(Raw::Str("user")) => Ok(Some(TextMessageRole::User)),
        Some(_) => Err(()),
    }
}

/// Reads the text and reasoning events directly from compact JSON whose `type` member (of type `ty`) ends
/// at `at`. `None` when the event is of another type or shape, or anything about it is
/// unusual; the caller then reads it with serde, which accepts or rejects it with a precise
/// error. What this returns is exactly what serde would.
pub(crate) fn read_event(json: &str, at: usize, ty: EventType, ids: &mut IdCache) -> Option<Event> {
    use crate::event::*;
    let mut m = Members::parse(json, at)?;
    let mut event: Event = match ty {
        EventType::TextMessageStart => {
            let mut e = TextMessageStartEvent::new(m.id("messageId", &mut ids.message)?);
            e.role = text_role(m.take("role")).ok()?;
            e.name = m.opt_string("name").ok()?;
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::TextMessageContent => {
            let mut e = TextMessageContentEvent::new(
                m.id("messageId", &mut ids.message)?,
                m.string("delta")?,
            );
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::TextMessageEnd => {
            let mut e = TextMessageEndEvent::new(m.id("messageId", &mut ids.message)?);
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::TextMessageChunk => {
            let mut e = TextMessageChunkEvent::new();
            e.message_id = m.opt_id("messageId", &mut ids.message).ok()?;
            e.role = text_role(m.take("role")).ok()?;
            e.delta = m.opt_string("delta").ok()?;
            e.name = m.opt_string("name").ok()?;
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::ReasoningStart => {
            let mut e = ReasoningStartEvent::new(m.id("messageId", &mut ids.message)?);
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::ReasoningMessageStart => {
            if !matches!(m.take("role"), Some(Raw::Str("reasoning"))) {
                return None;
            }
            let mut e = ReasoningMessageStartEvent::new(m.id("messageId", &mut ids.message)?);
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::ReasoningMessageContent => {
            let mut e = ReasoningMessageContentEvent::new(
                m.id("messageId", &mut ids.message)?,
                m.string("delta")?,
            );
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::ReasoningMessageEnd => {
            let mut e = ReasoningMessageEndEvent::new(m.id("messageId", &mut ids.message)?);
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        EventType::ReasoningEnd => {
            let mut e = ReasoningEndEvent::new(m.id("messageId", &mut ids.message)?);
            e.subagent_run_id = m.opt_id("subagentRunId", &mut ids.subagent).ok()?;
            e.into()
        }
        _ => return None,
    };
    match m.take("timestamp") {
        None => {}
        Some(Raw::Int(ts)) => *event.timestamp_mut() = Some(ts),
        Some(Raw::Str(_)) => return None,
    }
    // Unknown members are ignored by serde; leave them (and the warnings about them) to it.
    m.done().then_some(event)
}
