//! Compaction: a finished event list rewritten into fewer events that build the same
//! conversation, for storing a thread.
//!
//! [`compact`] follows the reference client's `compactEvents` (`@ag-ui/client` 1.0.0):
//!
//! - a text message's `TEXT_MESSAGE_CONTENT` events, and a tool call's `TOOL_CALL_ARGS`, become
//!   one event carrying the concatenated `delta`, sent with the START and the END where the
//!   END was;
//! - any other event that arrives while a text message is open is held and sent after that
//!   message (the first one open, in the order they were first seen); failing that, after the
//!   first open tool call (held events keep their order, see below);
//! - `STATE_SNAPSHOT` and `STATE_DELTA` events are gathered and sent, just before each
//!   `RUN_STARTED`, `RUN_FINISHED` or `RUN_ERROR` and at the end, as one `STATE_SNAPSHOT`
//!   (from the last snapshot of the window with the later deltas applied; a delta that does
//!   not apply is skipped), or unchanged when the window has no snapshot;
//! - metadata is merged as the reference merges it (the deltas' metadata onto the collapsed
//!   delta, every state event's onto the snapshot).
//!
//! ```
//! use ag_ui::client::compact::compact;
//! use ag_ui::{Event, EventType, TextMessageRole};
//!
//! let events = vec![
//!     Event::run_started("t", "r"),
//!     Event::text_message_start("m1", TextMessageRole::Assistant),
//!     Event::text_message_content("m1", "Hel"),
//!     Event::custom("progress", serde_json::json!(1)),
//!     Event::text_message_content("m1", "lo"),
//!     Event::text_message_end("m1"),
//!     Event::run_finished("t", "r"),
//! ];
//! let compacted = compact(&events).unwrap();
//! let types: Vec<EventType> = compacted.iter().map(Event::event_type).collect();
//! assert_eq!(
//!     types,
//!     [
//!         EventType::RunStarted,
//!         EventType::TextMessageStart,
//!         EventType::TextMessageContent,
//!         EventType::TextMessageEnd,
//!         EventType::Custom,
//!         EventType::RunFinished,
//!     ]
//! );
//! assert_eq!(compacted[2], Event::text_message_content("m1", "Hello"));
//! ```
//!
//! ## Where it parts from the reference
//!
//! The output always passes the [`Verifier`](crate::verify::Verifier) when the input does; the
//! reference's does not always, and there `compact` differs from it:
//!
//! | case | reference | `compact` |
//! |---|---|---|
//! | a `RUN_ERROR` while a message or tool call is open | keeps them, and what they hold, to the end of the input: after the `RUN_ERROR` (the verifier refuses events after a run's end: `run.after-error`, `run.after-finished`), or inside a later run, whose events they then hold too (`run.unclosed-steps` when a later step's end is held) | sends them (START and collapsed delta, no END, then what they held) just before the `RUN_ERROR` |
//!
//! | events held by two streams: one held by a tool call, a later one by a text message opened after it, the message ending first | sends each stream's held events after it, so the later event goes first: a `STEP_FINISHED` before its `STEP_STARTED` (`step.not-open`) | sends held events in the order they arrived, each once the stream holding it has been sent |
//!
//! Everything else matches: on the reducer's differential corpus (`interop/apply/corpus.jsonl`)
//! and on generated streams the outputs are equal except in these two cases.
//!
//! Like the reference, compaction moves events: a stream is sent where it ends and an event held
//! inside a message is sent after it. When text messages and tool calls do not overlap, the
//! reducer builds the same conversation from the compacted stream (tested on the corpus and on
//! generated streams); when they do, the state is the same but the messages may differ: a tool
//! call under a message that is still streaming is sent before that message's START, so the
//! reducer creates the message for the call, and messages come in the order their streams
//! ended. A `MESSAGES_SNAPSHOT` held inside a message lands after it.
//!
//! It runs in linear time: each event is looked at once, the deltas are appended to one buffer
//! per stream, and finding the first open stream is a map lookup. [`Compactor`] takes the events
//! one at a time and hands out what can no longer change, so it holds only what is open.
//!
//! State is folded as the reducer applies it, under the same [`Limits`] (the one bounded patch
//! application of [`apply`](super::apply)): a window whose snapshot or delta the reducer would
//! refuse (too large, too deep, a patch adding or shifting too much) is refused with the same
//! [`ApplyError`], naming the event.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::hash::Hash;

use serde_json::Value;

use super::apply::{
    ApplyError, Document, LimitExceeded, Limits, Patched, check_document, patch_bounded,
};
use crate::{
    Event, MessageId, Metadata, StateSnapshotEvent, TextMessageContentEvent, ToolCallArgsEvent,
    ToolCallId,
};

/// The compacted form of `events`, folding state under the default [`Limits`]; see the
/// [module docs](self).
///
/// # Errors
/// An [`ApplyError`] of kind [`Limit`](super::apply::ApplyErrorKind::Limit) naming the state
/// event that folding would have taken over the limits (the reducer refuses that event too).
pub fn compact(events: &[Event]) -> Result<Vec<Event>, ApplyError> {
    let mut compactor = Compactor::new();
    for event in events {
        compactor.push(event.clone())?;
    }
    Ok(compactor.finish())
}

/// Compaction one event at a time: what it holds is what may still change (the open text
/// messages and tool calls, the events they hold, the current state window), and the events
/// that can no longer change are handed out as they are known ([`Compactor::ready`]), so a
/// long input is compacted in memory proportional to what it keeps open, not to its length.
///
/// ```
/// use ag_ui::client::compact::Compactor;
/// use ag_ui::{Event, TextMessageRole};
///
/// let mut compactor = Compactor::new();
/// let mut out = Vec::new();
/// for event in [
///     Event::text_message_start("m1", TextMessageRole::Assistant),
///     Event::text_message_content("m1", "Hel"),
///     Event::text_message_content("m1", "lo"),
///     Event::text_message_end("m1"),
/// ] {
///     compactor.push(event).unwrap();
///     out.extend(compactor.ready());
/// }
/// out.extend(compactor.finish());
/// assert_eq!(out[1], Event::text_message_content("m1", "Hello"));
/// ```
#[derive(Debug, Default)]
pub struct Compactor {
    /// Events that can no longer change, not yet handed out.
    out: Vec<Event>,
    texts: Streams<MessageId>,
    tools: Streams<ToolCallId>,
    window: Window,
    /// Stream tokens handed out so far.
    tokens: u64,
    /// Held events in arrival order, with the token of the stream holding each.
    held: VecDeque<(u64, Event)>,
    /// Tokens of streams already sent whose held events still wait for older ones.
    sent: HashSet<u64>,
    limits: Limits,
    /// Events pushed so far.
    index: u64,
}

/// The state events since the last run boundary.
#[derive(Debug, Default)]
struct Window {
    /// The state events before the window's first snapshot, sent unchanged if none comes.
    pending: Vec<Event>,
    /// From the last snapshot on: the state it and the later deltas make, with its bounds.
    folded: Option<(Value, super::apply::Bounds)>,
    /// Every state event's metadata, merged in order (the folded snapshot's metadata).
    metadata: Option<Metadata>,
}

/// One text message or tool call being gathered.
#[derive(Debug, Default)]
struct Stream {
    start: Option<Event>,
    deltas: usize,
    delta: String,
    /// The merged metadata of the deltas (and of a START seen again after them).
    metadata: Option<Metadata>,
    /// The token its held events carry in the queue.
    token: u64,
}

/// Streams by id, in the order their ids were first seen (a JS `Map`'s order).
#[derive(Debug)]
struct Streams<K> {
    next: u64,
    by_id: HashMap<K, (u64, Stream)>,
    order: BTreeMap<u64, K>,
    /// The streams that have a START, by order.
    open: BTreeSet<u64>,
}

impl<K> Default for Streams<K> {
    fn default() -> Self {
        Self {
            next: 0,
            by_id: HashMap::new(),
            order: BTreeMap::new(),
            open: BTreeSet::new(),
        }
    }
}

impl<K: Clone + Eq + Hash> Streams<K> {
    fn entry(&mut self, id: &K, tokens: &mut u64) -> &mut (u64, Stream) {
        if !self.by_id.contains_key(id) {
            let seq = self.next;
            self.next += 1;
            self.order.insert(seq, id.clone());
            *tokens += 1;
            let stream = Stream {
                token: *tokens,
                ..Stream::default()
            };
            self.by_id.insert(id.clone(), (seq, stream));
        }
        self.by_id.get_mut(id).expect("inserted above")
    }

    fn remove(&mut self, id: &K) -> Option<Stream> {
        let (seq, stream) = self.by_id.remove(id)?;
        self.order.remove(&seq);
        self.open.remove(&seq);
        Some(stream)
    }

    fn first_open(&mut self) -> Option<&mut Stream> {
        let seq = *self.open.first()?;
        let id = self.order.get(&seq)?;
        self.by_id.get_mut(id).map(|(_, stream)| stream)
    }

    fn drain(&mut self) -> impl Iterator<Item = (K, Stream)> + '_ {
        let order = std::mem::take(&mut self.order);
        self.open.clear();
        order.into_values().filter_map(|id| {
            let (_, stream) = self.by_id.remove(&id)?;
            Some((id, stream))
        })
    }
}

/// `{...existing, ...incoming}`, absent on both sides staying absent.
fn merge(target: &mut Option<Metadata>, incoming: Option<&Metadata>) {
    let Some(incoming) = incoming else {
        return;
    };
    match target {
        Some(existing) => {
            for (key, value) in incoming {
                existing.insert(key.clone(), value.clone());
            }
        }
        None => *target = Some(incoming.clone()),
    }
}

/// A START seen (again) for a stream: before any delta the later START wins with the
/// metadata merged; after deltas its fields win but its metadata goes to the collapsed delta.
fn restart(stream: &mut Stream, mut start: Event) {
    let kept = stream.start.as_mut().and_then(|s| s.metadata_mut().take());
    if stream.deltas == 0 {
        let mut metadata = kept.map(|m| *m);
        merge(&mut metadata, start.metadata());
        *start.metadata_mut() = metadata.map(Box::new);
    } else {
        merge(&mut stream.metadata, start.metadata());
        *start.metadata_mut() = kept;
    }
    stream.start = Some(start);
}

fn add_delta(stream: &mut Stream, metadata: Option<&Metadata>, delta: &str) {
    stream.deltas += 1;
    stream.delta.push_str(delta);
    merge(&mut stream.metadata, metadata);
}

impl Compactor {
    /// A compactor folding state under the default [`Limits`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the limits state folding works under ([`Limits::new`] by default): the reducer's,
    /// so that what the reducer would refuse, compaction refuses too.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Takes one event.
    ///
    /// # Errors
    /// An [`ApplyError`] of kind [`Limit`](super::apply::ApplyErrorKind::Limit) for a
    /// `STATE_SNAPSHOT` or `STATE_DELTA` that folding would take over the limits (its index is
    /// the event's among those pushed); the event is not taken, and the compactor can go on.
    pub fn push(&mut self, event: Event) -> Result<(), ApplyError> {
        let index = self.index;
        self.index += 1;
        let event_type = event.event_type();
        let refused = move |limit: LimitExceeded| ApplyError::over_limit(index, event_type, limit);
        match &event {
            Event::TextMessageStart(e) => {
                let id = e.message_id.clone();
                let (seq, stream) = self.texts.entry(&id, &mut self.tokens);
                let seq = *seq;
                restart(stream, event);
                self.texts.open.insert(seq);
            }
            Event::TextMessageContent(e) => {
                let (_, stream) = self.texts.entry(&e.message_id, &mut self.tokens);
                add_delta(stream, e.metadata.as_deref(), &e.delta);
            }
            Event::TextMessageEnd(e) => {
                let id = e.message_id.clone();
                self.texts.entry(&id, &mut self.tokens);
                if let Some(stream) = self.texts.remove(&id) {
                    self.flush(stream, Some(event), |delta| {
                        TextMessageContentEvent::new(id, delta).into()
                    });
                }
            }
            Event::ToolCallStart(e) => {
                let id = e.tool_call_id.clone();
                let (seq, stream) = self.tools.entry(&id, &mut self.tokens);
                let seq = *seq;
                restart(stream, event);
                self.tools.open.insert(seq);
            }
            Event::ToolCallArgs(e) => {
                let (_, stream) = self.tools.entry(&e.tool_call_id, &mut self.tokens);
                add_delta(stream, e.metadata.as_deref(), &e.delta);
            }
            Event::ToolCallEnd(e) => {
                let id = e.tool_call_id.clone();
                self.tools.entry(&id, &mut self.tokens);
                if let Some(stream) = self.tools.remove(&id) {
                    self.flush(stream, Some(event), |delta| {
                        ToolCallArgsEvent::new(id, delta).into()
                    });
                }
            }
            Event::RunStarted(_) | Event::RunFinished(_) => {
                self.flush_state();
                self.out.push(event);
            }
            Event::RunError(_) => {
                // The one correction: what is still open is sent before the error, not at the
                // end of the input, where it would follow the run's last event.
                self.flush_open();
                self.flush_state();
                self.out.push(event);
            }
            Event::StateSnapshot(e) => {
                let bounds =
                    check_document(&e.snapshot, &self.limits, Document::State).map_err(refused)?;
                merge(&mut self.window.metadata, e.metadata.as_deref());
                // What came before the window's last snapshot is replaced by it.
                self.window.pending.clear();
                let Event::StateSnapshot(e) = event else {
                    unreachable!("matched above")
                };
                self.window.folded = Some((e.snapshot, bounds));
            }
            Event::StateDelta(e) => {
                if let Some((state, bounds)) = &mut self.window.folded {
                    // A delta that does not apply is skipped, as the reference does.
                    *bounds = match patch_bounded(
                        state,
                        &e.delta,
                        &self.limits,
                        Some(*bounds),
                        Document::State,
                    )
                    .map_err(refused)?
                    {
                        Patched::Applied(bounds) | Patched::Failed(bounds, _) => bounds,
                    };
                    merge(&mut self.window.metadata, e.metadata.as_deref());
                } else {
                    merge(&mut self.window.metadata, e.metadata.as_deref());
                    self.window.pending.push(event);
                }
            }
            _ => {
                let holder = match self.texts.first_open() {
                    Some(stream) => Some(stream.token),
                    None => self.tools.first_open().map(|stream| stream.token),
                };
                match holder {
                    Some(token) => self.held.push_back((token, event)),
                    None if self.held.is_empty() => self.out.push(event),
                    // Older held events are still waiting: this one waits behind them.
                    None => self.held.push_back((0, event)),
                }
            }
        }
        Ok(())
    }

    /// The compacted events that nothing later can change, in order, handed out once each.
    pub fn ready(&mut self) -> std::vec::Drain<'_, Event> {
        self.out.drain(..)
    }

    /// The rest of the compacted events: what is still open is sent (without an END), then the
    /// last state window.
    pub fn finish(mut self) -> Vec<Event> {
        self.flush_open();
        self.flush_state();
        self.out
    }

    /// Sends the streams still open, text messages first, without an END.
    fn flush_open(&mut self) {
        let texts: Vec<_> = self.texts.drain().collect();
        for (id, stream) in texts {
            self.flush(stream, None, |delta| {
                TextMessageContentEvent::new(id, delta).into()
            });
        }
        let tools: Vec<_> = self.tools.drain().collect();
        for (id, stream) in tools {
            self.flush(stream, None, |delta| {
                ToolCallArgsEvent::new(id, delta).into()
            });
        }
        // Every stream is sent: whatever still waits goes now.
        self.sent.clear();
        self.out.extend(self.held.drain(..).map(|(_, event)| event));
    }

    /// Sends one stream: its START, the collapsed delta (when a delta arrived), its END (when
    /// it ended), then the held events that are now free to go: held events go in the order
    /// they arrived, each once the stream holding it has been sent.
    fn flush(
        &mut self,
        stream: Stream,
        end: Option<Event>,
        collapsed: impl FnOnce(String) -> Event,
    ) {
        if let Some(start) = stream.start {
            self.out.push(start);
        }
        if stream.deltas > 0 {
            let mut event = collapsed(stream.delta);
            *event.metadata_mut() = stream.metadata.map(Box::new);
            self.out.push(event);
        }
        if let Some(end) = end {
            self.out.push(end);
        }
        self.sent.insert(stream.token);
        while let Some((token, _)) = self.held.front() {
            if *token != 0 && !self.sent.contains(token) {
                break;
            }
            if let Some((_, event)) = self.held.pop_front() {
                self.out.push(event);
            }
        }
        if self.held.is_empty() {
            self.sent.clear();
        }
    }

    /// Sends the window's state events: one snapshot when the window has one, else the deltas.
    fn flush_state(&mut self) {
        let window = std::mem::take(&mut self.window);
        match window.folded {
            Some((state, _)) => {
                let mut snapshot: Event = StateSnapshotEvent::new(state).into();
                *snapshot.metadata_mut() = window.metadata.map(Box::new);
                self.out.push(snapshot);
            }
            None => self.out.extend(window.pending),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TextMessageRole;
    use serde_json::json;

    fn meta(v: Value) -> Metadata {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn state_windows_become_one_snapshot_before_each_run_boundary() {
        let events = vec![
            Event::run_started("t", "r"),
            Event::state_delta(vec![]).with_metadata(meta(json!({"a": 1}))),
            Event::state_snapshot(json!({"n": 1})),
            Event::state_delta(
                serde_json::from_value(json!([{"op":"replace","path":"/n","value":2}])).unwrap(),
            ),
            Event::state_delta(
                serde_json::from_value(json!([{"op":"remove","path":"/missing"}])).unwrap(),
            )
            .with_metadata(meta(json!({"b": 2}))),
            Event::custom("c", json!(null)),
            Event::run_finished("t", "r"),
            Event::state_delta(vec![]),
        ];
        let out = compact(&events).unwrap();
        assert_eq!(
            out,
            vec![
                Event::run_started("t", "r"),
                Event::custom("c", json!(null)),
                Event::state_snapshot(json!({"n": 2})).with_metadata(meta(json!({"a": 1, "b": 2}))),
                Event::run_finished("t", "r"),
                Event::state_delta(vec![]),
            ]
        );
    }

    #[test]
    fn what_is_open_at_a_run_error_is_sent_before_it() {
        let events = vec![
            Event::run_started("t", "r"),
            Event::text_message_start("m", TextMessageRole::Assistant),
            Event::text_message_content("m", "a"),
            Event::custom("held", json!(1)),
            Event::text_message_content("m", "b"),
            Event::run_error("boom"),
        ];
        let out = compact(&events).unwrap();
        assert_eq!(
            out,
            vec![
                Event::run_started("t", "r"),
                Event::text_message_start("m", TextMessageRole::Assistant),
                Event::text_message_content("m", "ab"),
                Event::custom("held", json!(1)),
                Event::run_error("boom"),
            ]
        );
        crate::verify::verify_all(&events).unwrap();
        crate::verify::verify_all(&out).unwrap();
    }

    #[test]
    fn held_events_keep_their_order_across_the_streams_holding_them() {
        let events = vec![
            Event::run_started("t", "r"),
            Event::tool_call_start("c", "f"),
            Event::step_started("s"), // held by the tool call
            Event::text_message_start("m", TextMessageRole::Assistant),
            Event::step_finished("s"), // held by the message, which ends first
            Event::text_message_end("m"),
            Event::tool_call_end("c"),
            Event::run_finished("t", "r"),
        ];
        let out = compact(&events).unwrap();
        assert_eq!(
            out,
            vec![
                Event::run_started("t", "r"),
                Event::text_message_start("m", TextMessageRole::Assistant),
                Event::text_message_end("m"),
                Event::tool_call_start("c", "f"),
                Event::tool_call_end("c"),
                Event::step_started("s"),
                Event::step_finished("s"),
                Event::run_finished("t", "r"),
            ]
        );
        crate::verify::verify_all(&events).unwrap();
        crate::verify::verify_all(&out).unwrap();
    }

    #[test]
    fn open_streams_at_the_end_are_sent_without_an_end() {
        let events = vec![
            Event::tool_call_start("c", "f"),
            Event::tool_call_args("c", "{"),
            Event::text_message_start("m", TextMessageRole::Assistant),
            Event::custom("held", json!(1)),
            Event::text_message_content("m", "x"),
        ];
        assert_eq!(
            compact(&events).unwrap(),
            vec![
                Event::text_message_start("m", TextMessageRole::Assistant),
                Event::text_message_content("m", "x"),
                Event::custom("held", json!(1)),
                Event::tool_call_start("c", "f"),
                Event::tool_call_args("c", "{"),
            ]
        );
    }
}
