//! Stream transformers for the server's output: delta coalescing and a filter/redaction hook.
//!
//! [`Coalescer`] joins consecutive deltas of one stream (`TEXT_MESSAGE_CONTENT`,
//! `TOOL_CALL_ARGS`, `REASONING_MESSAGE_CONTENT` with the same id and attribution) into one
//! event, up to a size bound: fewer frames and fewer bytes on the wire, and the reducer builds
//! the same conversation (a delta is appended text; two appended in a row are one appended).
//! `ag_ui::axum` applies it to what is ready to send at once, or held for a short window
//! ([`AgentEndpoint::with_coalescing`](crate::axum::AgentEndpoint::with_coalescing)).
//!
//! [`Filter`] runs a closure over each outgoing event, which keeps, replaces or drops it, and
//! keeps the stream valid whatever the closure answers (see [`Filter`] for the rules).
//!
//! ```
//! use ag_ui::server::transform::{Coalescer, Filter, Verdict};
//! use ag_ui::{Event, EventType, TextMessageRole};
//!
//! let mut coalescer = Coalescer::new(16 * 1024);
//! let mut out = Vec::new();
//! for event in [
//!     Event::text_message_start("m", TextMessageRole::Assistant),
//!     Event::text_message_content("m", "Hel"),
//!     Event::text_message_content("m", "lo"),
//!     Event::text_message_end("m"),
//! ] {
//!     coalescer.push(event, &mut out);
//! }
//! coalescer.flush(&mut out);
//! assert_eq!(out[1], Event::text_message_content("m", "Hello"));
//! assert_eq!(out.len(), 3);
//!
//! // Redact every text delta; a dropped START takes its message with it.
//! let mut filter = Filter::new(|event: &Event| match event {
//!     Event::TextMessageContent(e) => {
//!         Verdict::Replace(Event::text_message_content(e.message_id.clone(), "[redacted]"))
//!     }
//!     Event::ToolCallStart(_) => Verdict::Drop,
//!     _ => Verdict::Keep,
//! });
//! let kept: Vec<Event> = [
//!     Event::text_message_content("m", "secret"),
//!     Event::tool_call_start("c", "search"),
//!     Event::tool_call_args("c", "{}"),
//!     Event::tool_call_end("c"),
//! ]
//! .into_iter()
//! .filter_map(|e| filter.apply(e))
//! .collect();
//! assert_eq!(kept, [Event::text_message_content("m", "[redacted]")]);
//! ```

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use crate::{Event, EventType};

/// The default largest coalesced delta, in bytes.
pub const DEFAULT_COALESCE_BYTES: usize = 16 * 1024;

/// Joins consecutive deltas of one stream; see the [module docs](self).
///
/// A delta is held until the next event shows whether it can grow; feed every event to
/// [`push`](Self::push) and call [`flush`](Self::flush) when nothing more is ready. Only
/// deltas without `metadata` and `rawEvent` are joined (those carry per-event information);
/// the joined event keeps the first delta's timestamp.
#[derive(Debug)]
pub struct Coalescer {
    max_bytes: usize,
    pending: Option<Event>,
    joined: u64,
}

impl Coalescer {
    /// A coalescer joining deltas up to `max_bytes` of text each (a single larger delta passes
    /// as it is).
    pub fn new(max_bytes: usize) -> Self {
        Self {
            max_bytes,
            pending: None,
            joined: 0,
        }
    }

    /// How many deltas were joined into an earlier one (the frames saved).
    pub fn joined(&self) -> u64 {
        self.joined
    }

    /// Whether a delta is held, waiting for the next event.
    #[cfg_attr(not(feature = "axum"), allow(dead_code))]
    pub(crate) fn is_holding(&self) -> bool {
        self.pending.is_some()
    }

    /// Takes one event, appending to `out` what can be sent now.
    pub fn push(&mut self, event: Event, out: &mut Vec<Event>) {
        if !joinable(&event) {
            self.flush(out);
            out.push(event);
            return;
        }
        if let Some(pending) = &mut self.pending
            && let Some(delta) = same_stream(pending, &event)
            && pending_len(pending) + delta.len() <= self.max_bytes
        {
            append(pending, delta);
            self.joined += 1;
            return;
        }
        self.flush(out);
        self.pending = Some(event);
    }

    /// Sends the held delta, if any.
    pub fn flush(&mut self, out: &mut Vec<Event>) {
        if let Some(pending) = self.pending.take() {
            out.push(pending);
        }
    }
}

/// A delta that may be joined with its neighbours.
fn joinable(event: &Event) -> bool {
    matches!(
        event,
        Event::TextMessageContent(_) | Event::ToolCallArgs(_) | Event::ReasoningMessageContent(_)
    ) && event.metadata().is_none()
        && event.raw_event().is_none()
}

/// The delta of `next` when it continues the stream of `pending`.
fn same_stream<'a>(pending: &Event, next: &'a Event) -> Option<&'a str> {
    if pending.attribution() != next.attribution() {
        return None;
    }
    match (pending, next) {
        (Event::TextMessageContent(a), Event::TextMessageContent(b))
            if a.message_id == b.message_id =>
        {
            Some(&b.delta)
        }
        (Event::ToolCallArgs(a), Event::ToolCallArgs(b)) if a.tool_call_id == b.tool_call_id => {
            Some(&b.delta)
        }
        (Event::ReasoningMessageContent(a), Event::ReasoningMessageContent(b))
            if a.message_id == b.message_id =>
        {
            Some(&b.delta)
        }
        _ => None,
    }
}

fn pending_len(event: &Event) -> usize {
    match event {
        Event::TextMessageContent(e) => e.delta.len(),
        Event::ToolCallArgs(e) => e.delta.len(),
        Event::ReasoningMessageContent(e) => e.delta.len(),
        _ => 0,
    }
}

fn append(event: &mut Event, delta: &str) {
    match event {
        Event::TextMessageContent(e) => e.delta.push_str(delta),
        Event::ToolCallArgs(e) => e.delta.push_str(delta),
        Event::ReasoningMessageContent(e) => e.delta.push_str(delta),
        _ => {}
    }
}

/// What a [`Filter`]'s closure does with an event.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Verdict {
    /// Send it unchanged.
    Keep,
    /// Send this event instead (same type, same id and attribution; see [`Filter`]).
    Replace(Event),
    /// Do not send it.
    Drop,
}

/// The closure a [`Filter`] runs.
pub(crate) type FilterFn = dyn Fn(&Event) -> Verdict + Send + Sync;

/// A filter/redaction hook over each outgoing event, that keeps the stream valid:
///
/// | the closure | what is sent |
/// |---|---|
/// | drops an opener (`TEXT_MESSAGE_START`, `TOOL_CALL_START`, `REASONING_START`, `REASONING_MESSAGE_START`, `STEP_STARTED`, `SUBAGENT_STARTED`) | nothing of that block: its later events (by id, or step name and owner) are dropped too, the closure is not asked |
/// | drops a delta, a result, state, activity, custom or raw event | nothing |
/// | drops a closer of a block it kept (`…_END`, `STEP_FINISHED`, `SUBAGENT_FINISHED` / `_ERROR`), or `RUN_STARTED` / `RUN_FINISHED` / `RUN_ERROR` | the event anyway: dropping it would leave the stream open (counted in [`refused`](Self::refused)) |
/// | replaces an event by one of another type, or with another id or attribution | the original (counted in [`refused`](Self::refused)) |
#[derive(Clone)]
pub struct Filter {
    hook: Arc<FilterFn>,
    /// Dropped blocks: (kind, owner, id).
    dropped: HashSet<(u8, Option<String>, String)>,
    refused: u64,
}

impl fmt::Debug for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Filter")
            .field("dropped_blocks", &self.dropped.len())
            .field("refused", &self.refused)
            .finish_non_exhaustive()
    }
}

/// Which block an event opens, continues or closes: (kind, id, role).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Open,
    Inside,
    Close,
}

fn block(event: &Event) -> Option<(u8, &str, Role)> {
    Some(match event {
        Event::TextMessageStart(e) => (0, e.message_id.as_str(), Role::Open),
        Event::TextMessageContent(e) => (0, e.message_id.as_str(), Role::Inside),
        Event::TextMessageEnd(e) => (0, e.message_id.as_str(), Role::Close),
        Event::ToolCallStart(e) => (1, e.tool_call_id.as_str(), Role::Open),
        Event::ToolCallArgs(e) => (1, e.tool_call_id.as_str(), Role::Inside),
        Event::ToolCallEnd(e) => (1, e.tool_call_id.as_str(), Role::Close),
        Event::ReasoningStart(e) => (2, e.message_id.as_str(), Role::Open),
        Event::ReasoningEnd(e) => (2, e.message_id.as_str(), Role::Close),
        Event::ReasoningMessageStart(e) => (3, e.message_id.as_str(), Role::Open),
        Event::ReasoningMessageContent(e) => (3, e.message_id.as_str(), Role::Inside),
        Event::ReasoningMessageEnd(e) => (3, e.message_id.as_str(), Role::Close),
        Event::StepStarted(e) => (4, e.step_name.as_str(), Role::Open),
        Event::StepFinished(e) => (4, e.step_name.as_str(), Role::Close),
        Event::SubagentStarted(e) => (5, e.subagent_run_id.as_str(), Role::Open),
        Event::SubagentFinished(e) => (5, e.subagent_run_id.as_str(), Role::Close),
        Event::SubagentError(e) => (5, e.subagent_run_id.as_str(), Role::Close),
        _ => return None,
    })
}

impl Filter {
    /// A filter running `hook` on each event.
    pub fn new(hook: impl Fn(&Event) -> Verdict + Send + Sync + 'static) -> Self {
        Self::from_arc(Arc::new(hook))
    }

    /// A filter running a shared `hook` (one per run, the closure shared between them).
    pub(crate) fn from_arc(hook: Arc<FilterFn>) -> Self {
        Self {
            hook,
            dropped: HashSet::new(),
            refused: 0,
        }
    }

    /// How many of the closure's answers were not followed because they would have broken
    /// the stream.
    pub fn refused(&self) -> u64 {
        self.refused
    }

    /// The event to send in place of `event`, or `None` to send nothing.
    pub fn apply(&mut self, event: Event) -> Option<Event> {
        if let Event::RunStarted(_) = event {
            // Ids are per run.
            self.dropped.clear();
        }
        let owner = || {
            if let Event::SubagentStarted(_)
            | Event::SubagentFinished(_)
            | Event::SubagentError(_) = event
            {
                None
            } else {
                event.attribution().map(|id| id.as_str().to_owned())
            }
        };
        let block = block(&event).map(|(kind, id, role)| (kind, owner(), id.to_owned(), role));
        if let Some((kind, owner, id, role)) = &block
            && *role != Role::Open
        {
            let key = (*kind, owner.clone(), id.clone());
            if self.dropped.contains(&key) {
                if *role == Role::Close {
                    self.dropped.remove(&key);
                }
                return None;
            }
        }
        let lifecycle = matches!(
            event.event_type(),
            EventType::RunStarted | EventType::RunFinished | EventType::RunError
        );
        match (self.hook)(&event) {
            Verdict::Keep => Some(event),
            Verdict::Drop => match block {
                Some((kind, owner, id, Role::Open)) => {
                    self.dropped.insert((kind, owner, id));
                    None
                }
                Some((_, _, _, Role::Close)) => {
                    self.refused += 1;
                    Some(event)
                }
                _ if lifecycle => {
                    self.refused += 1;
                    Some(event)
                }
                _ => None,
            },
            Verdict::Replace(replacement) => {
                let same = replacement.event_type() == event.event_type()
                    && replacement.attribution() == event.attribution()
                    && crate::server::transform::block(&replacement).map(|(k, id, _)| (k, id))
                        == crate::server::transform::block(&event).map(|(k, id, _)| (k, id));
                if same {
                    Some(replacement)
                } else {
                    self.refused += 1;
                    Some(event)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TextMessageRole;

    #[test]
    fn only_consecutive_deltas_of_one_stream_within_the_bound_are_joined() {
        let mut c = Coalescer::new(4);
        let mut out = Vec::new();
        for event in [
            Event::text_message_content("a", "12"),
            Event::text_message_content("a", "34"),
            Event::text_message_content("a", "5"), // over the bound: a new event
            Event::text_message_content("b", "x"),
            Event::text_message_content("b", "y").with_subagent_run_id("s"),
            Event::tool_call_args("c", "{"),
            Event::tool_call_args("c", "}").with_timestamp(1),
            Event::custom("between", serde_json::Value::Null),
            Event::tool_call_args("c", "!"),
            Event::reasoning_message_content("r", "h"),
            Event::reasoning_message_content("r", "m").with_metadata(serde_json::Map::new()),
        ] {
            c.push(event, &mut out);
        }
        // The last delta carries metadata: sent as it is, nothing held.
        assert!(!c.is_holding());
        c.flush(&mut out);
        assert_eq!(
            out,
            [
                Event::text_message_content("a", "1234"),
                Event::text_message_content("a", "5"),
                Event::text_message_content("b", "x"),
                Event::text_message_content("b", "y").with_subagent_run_id("s"),
                Event::tool_call_args("c", "{}"),
                Event::custom("between", serde_json::Value::Null),
                Event::tool_call_args("c", "!"),
                Event::reasoning_message_content("r", "h"),
                Event::reasoning_message_content("r", "m").with_metadata(serde_json::Map::new()),
            ]
        );
        assert_eq!(c.joined(), 2);
    }

    /// A run of interleaved text messages, tool calls and reasoning messages (three of each at
    /// most, `kind`-`index`), opened at their first delta, with custom events between, and
    /// closed at the end.
    #[cfg(feature = "client")]
    fn stream(ops: &[(u8, u8, String)]) -> Vec<Event> {
        let mut events = vec![Event::run_started("t", "r")];
        let mut open: Vec<(u8, String)> = Vec::new();
        for (kind, index, delta) in ops {
            let id = format!("{kind}-{index}");
            if *kind == 3 {
                events.push(Event::custom("between", serde_json::json!(delta)));
                continue;
            }
            if !open.iter().any(|(_, o)| *o == id) {
                match kind {
                    0 => events.push(Event::text_message_start(
                        id.as_str(),
                        TextMessageRole::Assistant,
                    )),
                    1 => events.push(Event::tool_call_start(id.as_str(), "tool")),
                    _ => {
                        events.push(Event::reasoning_start(id.as_str()));
                        events.push(Event::reasoning_message_start(id.as_str()));
                    }
                }
                open.push((*kind, id.clone()));
            }
            events.push(match kind {
                0 => Event::text_message_content(id.as_str(), delta.as_str()),
                1 => Event::tool_call_args(id.as_str(), delta.as_str()),
                _ => Event::reasoning_message_content(id.as_str(), delta.as_str()),
            });
        }
        for (kind, id) in open {
            match kind {
                0 => events.push(Event::text_message_end(id.as_str())),
                1 => events.push(Event::tool_call_end(id.as_str())),
                _ => {
                    events.push(Event::reasoning_message_end(id.as_str()));
                    events.push(Event::reasoning_end(id.as_str()));
                }
            }
        }
        events.push(Event::run_finished("t", "r"));
        events
    }

    #[cfg(feature = "client")]
    fn apply(events: &[Event]) -> (serde_json::Value, serde_json::Value) {
        let mut reducer = crate::client::Reducer::new();
        for event in events {
            reducer.apply(event).unwrap();
        }
        (
            serde_json::to_value(reducer.messages()).unwrap(),
            reducer.state().clone(),
        )
    }

    #[cfg(feature = "client")]
    proptest::proptest! {
        #[test]
        fn a_coalesced_stream_verifies_and_applies_to_the_same_conversation(
            ops in proptest::collection::vec((0u8..4, 0u8..3, "[a-zé ]{0,4}"), 0..80),
            max_bytes in 1usize..24,
        ) {
            let events = stream(&ops);
            crate::verify::verify_all(&events).unwrap();
            let mut coalescer = Coalescer::new(max_bytes);
            let mut out = Vec::new();
            for event in events.clone() {
                coalescer.push(event, &mut out);
            }
            coalescer.flush(&mut out);
            crate::verify::verify_all(&out).unwrap();
            proptest::prop_assert_eq!(apply(&out), apply(&events));
            proptest::prop_assert_eq!(out.len() as u64 + coalescer.joined(), events.len() as u64);
        }
    }

    #[test]
    fn a_filter_cannot_break_the_stream() {
        let mut filter = Filter::new(|event: &Event| match event {
            Event::TextMessageStart(e) if e.message_id.as_str() == "hidden" => Verdict::Drop,
            Event::TextMessageEnd(_) | Event::RunFinished(_) => Verdict::Drop,
            Event::TextMessageContent(_) => {
                Verdict::Replace(Event::text_message_content("other", "x"))
            }
            Event::StepStarted(_) => Verdict::Drop,
            _ => Verdict::Keep,
        });
        let input = vec![
            Event::run_started("t", "r"),
            Event::text_message_start("hidden", TextMessageRole::Assistant),
            Event::text_message_content("hidden", "secret"),
            Event::text_message_end("hidden"),
            Event::text_message_start("shown", TextMessageRole::Assistant),
            Event::text_message_content("shown", "hi"),
            Event::text_message_end("shown"),
            Event::step_started("s"),
            Event::step_finished("s"),
            Event::run_finished("t", "r"),
        ];
        let out: Vec<Event> = input.into_iter().filter_map(|e| filter.apply(e)).collect();
        assert_eq!(
            out,
            [
                Event::run_started("t", "r"),
                Event::text_message_start("shown", TextMessageRole::Assistant),
                Event::text_message_content("shown", "hi"),
                Event::text_message_end("shown"),
                Event::run_finished("t", "r"),
            ]
        );
        // The replacement with another id, the END and RUN_FINISHED drops were refused.
        assert_eq!(filter.refused(), 3);
        crate::verify::verify_all(&out).unwrap();
    }
}
