use std::collections::{BTreeSet, HashMap, VecDeque};

use serde_json::Value;

use super::apply::{
    ApplyError, Bounds, Document, LimitExceeded, Limits, Patched, check_document, patch_bounded,
};
use crate::{
    Event, Metadata, ReasoningEncryptedValueSubtype, ReasoningMessageContentEvent,
    StateSnapshotEvent, TextMessageContentEvent, ToolCallArgsEvent,
};

/// The compacted form of `events`, folding state under the default [`Limits`]; see the
/// [`Compactor`] docs.
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

/// What a joined delta belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Stream {
    /// A text or reasoning message's content, by message id.
    Message(String),
    /// A tool call's arguments, by tool call id.
    ToolCall(String),
}

/// Compaction one event at a time (see the [`Compactor`] docs): the events that can no longer
/// change are handed out as they are known ([`Compactor::ready`]), so a long input is compacted
/// in memory proportional to what is still being joined, not to its length.
///
/// ```
/// use ag_ui::client::Compactor;
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
/// assert_eq!(out.len(), 3);
/// ```
///
/// Compaction: a finished event list rewritten into fewer events that build the same
/// conversation, for storing a thread.
///
/// [`compact`] joins what the reference client's `compactEvents` (`@ag-ui/client` 1.0.0) joins,
/// without moving events:
///
/// - a text message's `TEXT_MESSAGE_CONTENT` events, a reasoning message's
///   `REASONING_MESSAGE_CONTENT` and a tool call's `TOOL_CALL_ARGS` become one event, where the
///   first of them was, carrying the concatenated `delta` and the merged metadata (and, as the
///   reference's, no subagent tag or timestamp: a continuation inherits its owner) — as long as
///   nothing in between may act on that message or tool call: its own START or END, a tool call
///   started under the message, a result or encrypted value for it, a `MESSAGES_SNAPSHOT`, an
///   activity event or a run boundary. After such an event, the next delta starts a new joined
///   one;
/// - from the first `STATE_SNAPSHOT` of a window on (the events up to the next `RUN_STARTED`,
///   `RUN_FINISHED` or `RUN_ERROR`, or the end), the state events are folded into one
///   `STATE_SNAPSHOT`, sent where the window ends (the later deltas applied, a delta that does
///   not apply skipped, every folded event's metadata merged onto it); state events before it
///   stay where they are;
/// - every other event stays where it is, in its order.
///
/// ```
/// use ag_ui::client::compact;
/// use ag_ui::{Event, EventType, TextMessageRole};
///
/// let events = vec![
///     Event::run_started("t", "r"),
///     Event::text_message_start("m1", TextMessageRole::Assistant),
///     Event::text_message_content("m1", "Hel"),
///     Event::custom("progress", serde_json::json!(1)),
///     Event::text_message_content("m1", "lo"),
///     Event::text_message_end("m1"),
///     Event::run_finished("t", "r"),
/// ];
/// let compacted = compact(&events).unwrap();
/// let types: Vec<EventType> = compacted.iter().map(Event::event_type).collect();
/// assert_eq!(
///     types,
///     [
///         EventType::RunStarted,
///         EventType::TextMessageStart,
///         EventType::TextMessageContent,
///         EventType::Custom,
///         EventType::TextMessageEnd,
///         EventType::RunFinished,
///     ]
/// );
/// assert_eq!(compacted[2], Event::text_message_content("m1", "Hello"));
/// ```
///
/// The reducer builds the same conversation from the compacted stream as from the original —
/// messages, state, pending interrupts and tool calls — and the compacted stream passes the
/// [`Verifier`](crate::verify::Verifier) when the original does (both tested on generated
/// streams of interleaved messages, tool calls, reasoning, steps and subagent lanes).
///
/// ## Where it parts from the reference
///
/// The reference sends each text message and tool call where it ends and holds the events that
/// arrive while one is open until then. That moves messages past each other when they overlap
/// (the reducer then builds them in another order, or creates a message for a tool call whose
/// parent has not started yet), moves events out of a subagent's lane, and can put events after
/// the run's end; its output does not always verify. `compact` moves nothing but the folded
/// state snapshot. On streams where one text message or tool call at a time is open and
/// nothing else arrives inside it, the outputs are the same, except that the reference also
/// drops the state events before a window's last snapshot.
///
/// It runs in linear time, and [`Compactor`] takes the events one at a time and hands out what
/// can no longer change, so it holds only the events from the first delta still being joined
/// on.
///
/// State is folded as the reducer applies it, under the same [`Limits`] (the one bounded patch
/// application of [`Reducer::apply`](super::Reducer::apply)): a snapshot or delta the reducer would refuse (too
/// large, too deep, a patch adding or shifting too much) is refused with the same
/// [`ApplyError`], naming the event.
#[derive(Debug, Default)]
pub struct Compactor {
    /// Compacted events not yet handed out; some are joined deltas still gathering.
    queue: VecDeque<Event>,
    /// How many events were handed out before `queue[0]`.
    base: usize,
    /// The joined delta of each stream still gathering: its position (counted from the first
    /// event ever queued).
    joining: HashMap<Stream, usize>,
    /// Those positions, smallest first: nothing from the smallest on can be handed out yet.
    held_from: BTreeSet<usize>,
    window: Window,
    limits: Limits,
    /// Array items the folded deltas of the current run shifted (the reducer's count).
    run_shifts: usize,
    /// Events pushed so far.
    index: u64,
}

/// The state events of the current window, from its first snapshot on.
#[derive(Debug, Default)]
struct Window {
    /// The state the snapshot and the later deltas make, with its bounds.
    folded: Option<(Value, Bounds)>,
    /// The folded events' metadata, merged in order.
    metadata: Option<Metadata>,
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

/// Appends a later delta of the same stream to a joined one: its text, and its metadata merged
/// over the joined one's (as the reducer merges each delta's onto the message).
fn join(joined: &mut Event, later: &Event) {
    let delta = match later {
        Event::TextMessageContent(e) => &e.delta,
        Event::ReasoningMessageContent(e) => &e.delta,
        Event::ToolCallArgs(e) => &e.delta,
        _ => return,
    };
    match joined {
        Event::TextMessageContent(e) => e.delta.push_str(delta),
        Event::ReasoningMessageContent(e) => e.delta.push_str(delta),
        Event::ToolCallArgs(e) => e.delta.push_str(delta),
        _ => return,
    }
    if let Some(incoming) = later.metadata() {
        let mut metadata = joined.metadata_mut().take().map(|m| *m);
        merge(&mut metadata, Some(incoming));
        *joined.metadata_mut() = metadata.map(Box::new);
    }
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
        let joined = match &event {
            Event::TextMessageContent(e) => Some(Stream::Message(e.message_id.as_str().to_owned())),
            Event::ReasoningMessageContent(e) => {
                Some(Stream::Message(e.message_id.as_str().to_owned()))
            }
            Event::ToolCallArgs(e) => Some(Stream::ToolCall(e.tool_call_id.as_str().to_owned())),
            _ => None,
        };
        if let Some(stream) = joined {
            self.delta(stream, event);
            return Ok(());
        }
        match &event {
            Event::TextMessageStart(e) => {
                self.stop(&Stream::Message(e.message_id.as_str().to_owned()))
            }
            Event::TextMessageEnd(e) => {
                self.stop(&Stream::Message(e.message_id.as_str().to_owned()))
            }
            Event::ReasoningMessageStart(e) => {
                self.stop(&Stream::Message(e.message_id.as_str().to_owned()));
            }
            Event::ReasoningMessageEnd(e) => {
                self.stop(&Stream::Message(e.message_id.as_str().to_owned()));
            }
            Event::ToolCallStart(e) => {
                self.stop(&Stream::ToolCall(e.tool_call_id.as_str().to_owned()));
                if let Some(parent) = &e.parent_message_id {
                    self.stop(&Stream::Message(parent.as_str().to_owned()));
                }
            }
            Event::ToolCallEnd(e) => {
                self.stop(&Stream::ToolCall(e.tool_call_id.as_str().to_owned()))
            }
            Event::ToolCallResult(e) => {
                self.stop(&Stream::ToolCall(e.tool_call_id.as_str().to_owned()));
                self.stop(&Stream::Message(e.message_id.as_str().to_owned()));
            }
            Event::ReasoningEncryptedValue(e) => self.stop(&match e.subtype {
                ReasoningEncryptedValueSubtype::Message => Stream::Message(e.entity_id.clone()),
                ReasoningEncryptedValueSubtype::ToolCall => Stream::ToolCall(e.entity_id.clone()),
            }),
            Event::MessagesSnapshot(_) | Event::ActivitySnapshot(_) | Event::ActivityDelta(_) => {
                self.stop_all();
            }
            Event::RunStarted(_) | Event::RunFinished(_) | Event::RunError(_) => {
                if matches!(event, Event::RunStarted(_)) {
                    self.run_shifts = 0;
                }
                self.stop_all();
                self.flush_state();
            }
            Event::StateSnapshot(e) => {
                let bounds =
                    check_document(&e.snapshot, &self.limits, Document::State).map_err(refused)?;
                merge(&mut self.window.metadata, e.metadata.as_deref());
                let Event::StateSnapshot(e) = event else {
                    unreachable!("matched above")
                };
                self.window.folded = Some((e.snapshot, bounds));
                return Ok(());
            }
            Event::StateDelta(e) => {
                if let Some((state, bounds)) = &mut self.window.folded {
                    // A delta that does not apply is skipped, as the reducer skips it.
                    *bounds = match patch_bounded(
                        state,
                        &e.delta,
                        &self.limits,
                        Some(*bounds),
                        Document::State,
                        &mut self.run_shifts,
                    )
                    .map_err(refused)?
                    {
                        Patched::Applied(bounds) | Patched::Failed(bounds, _) => bounds,
                    };
                    merge(&mut self.window.metadata, e.metadata.as_deref());
                    return Ok(());
                }
            }
            _ => {}
        }
        self.queue.push_back(event);
        Ok(())
    }

    /// A delta: joined to its stream's joined delta, or the start of one.
    fn delta(&mut self, stream: Stream, event: Event) {
        if let Some(&at) = self.joining.get(&stream) {
            join(&mut self.queue[at - self.base], &event);
            return;
        }
        // A fresh event, as the reference makes it: the id, the text and the metadata (a
        // continuation's subagent tag is optional; the stream keeps its owner).
        let joined: Event = match event {
            Event::TextMessageContent(e) => {
                let mut fresh = TextMessageContentEvent::new(e.message_id, e.delta);
                fresh.metadata = e.metadata;
                fresh.into()
            }
            Event::ReasoningMessageContent(e) => {
                let mut fresh = ReasoningMessageContentEvent::new(e.message_id, e.delta);
                fresh.metadata = e.metadata;
                fresh.into()
            }
            Event::ToolCallArgs(e) => {
                let mut fresh = ToolCallArgsEvent::new(e.tool_call_id, e.delta);
                fresh.metadata = e.metadata;
                fresh.into()
            }
            other => other,
        };
        let at = self.base + self.queue.len();
        self.queue.push_back(joined);
        self.joining.insert(stream, at);
        self.held_from.insert(at);
    }

    /// Ends the joining of a stream's deltas: the next one starts a new joined delta.
    fn stop(&mut self, stream: &Stream) {
        if let Some(at) = self.joining.remove(stream) {
            self.held_from.remove(&at);
        }
    }

    fn stop_all(&mut self) {
        self.joining.clear();
        self.held_from.clear();
    }

    /// The compacted events that nothing later can change, in order, handed out once each.
    pub fn ready(&mut self) -> std::collections::vec_deque::Drain<'_, Event> {
        let upto = self
            .held_from
            .first()
            .map_or(self.queue.len(), |&at| at - self.base);
        self.base += upto;
        self.queue.drain(..upto)
    }

    /// The rest of the compacted events, the last state window's snapshot last.
    pub fn finish(mut self) -> Vec<Event> {
        self.stop_all();
        self.flush_state();
        self.queue.into()
    }

    /// Sends the window's folded snapshot, if it has one.
    fn flush_state(&mut self) {
        let window = std::mem::take(&mut self.window);
        if let Some((state, _)) = window.folded {
            let mut snapshot: Event = StateSnapshotEvent::new(state).into();
            *snapshot.metadata_mut() = window.metadata.map(Box::new);
            self.queue.push_back(snapshot);
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
    fn state_from_a_windows_first_snapshot_becomes_one_snapshot_at_its_end() {
        let events = vec![
            Event::run_started("t", "r"),
            Event::state_delta(vec![]).with_metadata(meta(json!({"a": 1}))),
            Event::state_snapshot(json!({"n": 1})).with_metadata(meta(json!({"s": 1}))),
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
                Event::state_delta(vec![]).with_metadata(meta(json!({"a": 1}))),
                Event::custom("c", json!(null)),
                Event::state_snapshot(json!({"n": 2})).with_metadata(meta(json!({"s": 1, "b": 2}))),
                Event::run_finished("t", "r"),
                Event::state_delta(vec![]),
            ]
        );
    }

    #[test]
    fn deltas_join_where_the_first_was_until_something_may_act_on_their_stream() {
        let events = vec![
            Event::run_started("t", "r"),
            Event::text_message_start("m", TextMessageRole::Assistant),
            Event::text_message_content("m", "a").with_metadata(meta(json!({"k": 1, "x": 1}))),
            Event::tool_call_start("c", "f"),
            Event::tool_call_args("c", "{"),
            Event::custom("between", json!(1)),
            Event::text_message_content("m", "b").with_metadata(meta(json!({"k": 2}))),
            Event::tool_call_args("c", "}"),
            Event::tool_call_end("c"),
            // A tool call started under the message: what follows is joined anew.
            under("d", "m"),
            Event::text_message_content("m", "c"),
            Event::tool_call_end("d"),
            Event::text_message_end("m"),
            Event::run_finished("t", "r"),
        ];
        let out = compact(&events).unwrap();
        assert_eq!(
            out,
            vec![
                Event::run_started("t", "r"),
                Event::text_message_start("m", TextMessageRole::Assistant),
                Event::text_message_content("m", "ab").with_metadata(meta(json!({"k": 2, "x": 1}))),
                Event::tool_call_start("c", "f"),
                Event::tool_call_args("c", "{}"),
                Event::custom("between", json!(1)),
                Event::tool_call_end("c"),
                under("d", "m"),
                Event::text_message_content("m", "c"),
                Event::tool_call_end("d"),
                Event::text_message_end("m"),
                Event::run_finished("t", "r"),
            ]
        );
        crate::verify::verify_all(&events).unwrap();
        crate::verify::verify_all(&out).unwrap();
    }

    fn under(id: &str, parent: &str) -> Event {
        crate::ToolCallStartEvent::new(id, "f")
            .with_parent_message_id(parent)
            .into()
    }

    #[test]
    fn ready_hands_out_everything_before_the_first_delta_still_joining() {
        let mut compactor = Compactor::new();
        compactor.push(Event::run_started("t", "r")).unwrap();
        compactor
            .push(Event::text_message_start("m", TextMessageRole::Assistant))
            .unwrap();
        assert_eq!(compactor.ready().count(), 2);
        compactor
            .push(Event::text_message_content("m", "a"))
            .unwrap();
        compactor.push(Event::custom("c", json!(1))).unwrap();
        assert_eq!(compactor.ready().count(), 0);
        compactor
            .push(Event::text_message_content("m", "b"))
            .unwrap();
        compactor.push(Event::text_message_end("m")).unwrap();
        let ready: Vec<Event> = compactor.ready().collect();
        assert_eq!(
            ready,
            [
                Event::text_message_content("m", "ab"),
                Event::custom("c", json!(1)),
                Event::text_message_end("m"),
            ]
        );
        assert_eq!(compactor.finish(), []);
    }
}
