//! What every emitter shares: the sink, the attribution, the id counters, and the state slot.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use serde_json::Value;

use super::sink::Sink;
use super::{Error, ErrorKind, Result};
use crate::json::measure::{MAX_DEPTH, measure};
use crate::{Event, EventType, MessageId, SubagentRunId, ToolCallId};

/// The emitting half of a context: the shared sink, the attribution every event gets, and the
/// counters ids are minted from. Shared by reference with every handle opened from the context.
#[derive(Debug)]
pub(crate) struct Emitter {
    pub(crate) sink: Sink,
    /// `Some` inside a subagent: stamped on every attributable event.
    pub(crate) attribution: Option<SubagentRunId>,
    /// The id counters, shared with every [`StreamWriter`](super::StreamWriter) of this owner.
    pub(crate) mint: Arc<Mint>,
}

/// Mints the ids of one owner: `{prefix}-msg-{n}`, `{prefix}-call-{n}`, `{prefix}-sub-{n}`.
#[derive(Debug)]
pub(crate) struct Mint {
    /// The run id, or the subagent run id.
    prefix: String,
    messages: AtomicU64,
    calls: AtomicU64,
    subagents: AtomicU64,
}

impl Mint {
    fn mint(&self, counter: &AtomicU64, kind: &str) -> String {
        let n = counter.fetch_add(1, Ordering::Relaxed) + 1;
        format!("{}-{kind}-{n}", self.prefix)
    }

    pub(crate) fn next_message_id(&self) -> MessageId {
        MessageId::new(self.mint(&self.messages, "msg"))
    }

    pub(crate) fn next_tool_call_id(&self) -> ToolCallId {
        ToolCallId::new(self.mint(&self.calls, "call"))
    }
}

impl Emitter {
    pub(crate) fn new(sink: Sink, attribution: Option<SubagentRunId>, prefix: String) -> Self {
        Self {
            sink,
            attribution,
            mint: Arc::new(Mint {
                prefix,
                messages: AtomicU64::new(0),
                calls: AtomicU64::new(0),
                subagents: AtomicU64::new(0),
            }),
        }
    }

    pub(crate) fn next_message_id(&self) -> MessageId {
        self.mint.next_message_id()
    }

    pub(crate) fn next_tool_call_id(&self) -> ToolCallId {
        self.mint.next_tool_call_id()
    }

    pub(crate) fn next_subagent_id(&self) -> SubagentRunId {
        SubagentRunId::new(self.mint.mint(&self.mint.subagents, "sub"))
    }

    /// Attributes (inside a subagent) and sends one event.
    #[inline]
    pub(crate) fn send(&self, event: Event) -> Result<()> {
        self.sink.send(attribute(event, self.attribution.as_ref()))
    }

    /// `emit`: the general form, for the families that need no bracket of their own.
    pub(crate) fn emit_unordered(&self, event: Event) -> Result<()> {
        emit_unordered(&self.sink, self.attribution.as_ref(), event)
    }
}

/// `emit` of a context or a [`StreamWriter`](super::StreamWriter): sends an event of a family
/// that needs no bracket (attributed to `owner`), and refuses the others, saying why.
pub(crate) fn emit_unordered(
    sink: &Sink,
    owner: Option<&SubagentRunId>,
    event: Event,
) -> Result<()> {
    use EventType::*;
    match event.event_type() {
        RunStarted | RunFinished | RunError => Err(Error::misuse(format!(
            "{} frames the run and is emitted by the runner, not by the agent",
            event.event_type()
        ))),
        SubagentStarted | SubagentFinished | SubagentError => Err(Error::misuse(format!(
            "{} is emitted by a subagent context (`ctx.subagent(..)`), not by hand",
            event.event_type()
        ))),
        TextMessageStart
        | TextMessageContent
        | TextMessageEnd
        | ToolCallStart
        | ToolCallArgs
        | ToolCallEnd
        | ReasoningStart
        | ReasoningMessageStart
        | ReasoningMessageContent
        | ReasoningMessageEnd
        | ReasoningEnd
        | StepStarted
        | StepFinished => {
            // Refused either way; say why the verifier would refuse it when it would.
            let event = attribute(event, owner);
            if let Some(violation) = sink.dry_check(&event) {
                return Err(Error::protocol(violation));
            }
            Err(Error::misuse(format!(
                "{} belongs to a bracketed block; open it with its handle \
                 (`assistant_message`, `tool_call`, `reasoning`, `step`) so it is always \
                 closed",
                event.event_type()
            )))
        }
        _ => sink.send(attribute(event, owner)),
    }
}

/// Stamps `owner` on an attributable event.
#[inline]
pub(crate) fn attribute(mut event: Event, owner: Option<&SubagentRunId>) -> Event {
    if let Some(owner) = owner
        && let Some(slot) = event.attribution_mut()
    {
        *slot = Some(owner.clone());
    }
    event
}

/// The run's typed state and the JSON last published to the client.
#[derive(Debug)]
pub(crate) struct StateSlot<S> {
    pub(crate) value: S,
    /// What the client holds: the input's state, then whatever was last published.
    pub(crate) published: Option<Value>,
}

/// Counts the bytes a value serializes to without keeping them.
struct ByteCount(usize);

impl io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

pub(crate) fn json_len(value: &impl Serialize) -> usize {
    let mut count = ByteCount(0);
    // Writing into a counter cannot fail for values that serialized once already.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

impl<S: Serialize> StateSlot<S> {
    /// The state as JSON, refused when it nests deeper than [`MAX_DEPTH`] levels: a client's
    /// reducer refuses it by default, and diffing it (`json_patch::diff` recurses once per
    /// level) would put the server's stack at the state's mercy.
    fn current(&self) -> Result<Value> {
        let value = serde_json::to_value(&self.value).map_err(|e| {
            Error::new(
                ErrorKind::State,
                format!("the state could not be serialized as JSON: {e}"),
            )
            .with_source(e)
        })?;
        let depth = measure(&value, usize::MAX, MAX_DEPTH).depth;
        if depth > MAX_DEPTH {
            return Err(Error::new(
                ErrorKind::State,
                format!(
                    "the state nests more than {MAX_DEPTH} levels of arrays and objects: \
                     clients refuse it, so it is not published"
                ),
            ));
        }
        Ok(value)
    }

    /// `STATE_SNAPSHOT` with the whole state.
    pub(crate) fn publish(&mut self, emitter: &Emitter) -> Result<()> {
        let value = self.current()?;
        emitter.send(Event::state_snapshot(value.clone()))?;
        self.published = Some(value);
        Ok(())
    }

    /// `STATE_DELTA` from what the client holds to the current state; a snapshot when the
    /// patch would not be smaller (or the client holds nothing); nothing when nothing changed.
    pub(crate) fn publish_delta(&mut self, emitter: &Emitter) -> Result<()> {
        let value = self.current()?;
        let Some(published) = &self.published else {
            emitter.send(Event::state_snapshot(value.clone()))?;
            self.published = Some(value);
            return Ok(());
        };
        let patch = json_patch::diff(published, &value);
        if patch.0.is_empty() {
            return Ok(());
        }
        let event = if json_len(&patch) < json_len(&value) {
            Event::state_delta(patch.0)
        } else {
            Event::state_snapshot(value.clone())
        };
        emitter.send(event)?;
        self.published = Some(value);
        Ok(())
    }
}

impl<S> StateSlot<S> {
    /// `STATE_DELTA` setting the top-level `key` to `value` in what the client holds (a
    /// predicted value: the typed state is not changed), so that later deltas are diffed from
    /// what the client has. Nothing when the client already holds that value.
    #[cfg_attr(not(feature = "openai"), allow(dead_code))]
    pub(crate) fn predict(&mut self, emitter: &Emitter, key: &str, value: Value) -> Result<()> {
        let published = self
            .published
            .get_or_insert_with(|| Value::Object(serde_json::Map::new()));
        let Value::Object(object) = published else {
            return Err(Error::new(
                ErrorKind::State,
                format!(
                    "the state is not an object, so its key `{}` cannot be predicted",
                    crate::excerpt(key, 60)
                ),
            ));
        };
        if object.get(key) == Some(&value) {
            return Ok(());
        }
        let depth = measure(&value, usize::MAX, MAX_DEPTH).depth;
        if depth >= MAX_DEPTH {
            return Err(Error::new(
                ErrorKind::State,
                format!(
                    "the predicted value of `{}` nests more than {MAX_DEPTH} levels: clients \
                     refuse it, so it is not published",
                    crate::excerpt(key, 60)
                ),
            ));
        }
        let path = json_patch::jsonptr::PointerBuf::from_tokens([key]);
        let op = json_patch::PatchOperation::Add(json_patch::AddOperation {
            path,
            value: value.clone(),
        });
        emitter.send(Event::state_delta(vec![op]))?;
        object.insert(key.to_owned(), value);
        Ok(())
    }
}

/// The state parameter of handles opened from a [`SubagentContext`](super::SubagentContext).
///
/// The run's typed state lives with the parent agent; a subagent, which may run on another
/// task, has no access to it, so its handles have no `state_mut` or `publish_state`. (It can
/// still send `STATE_*` events through `emit`.)
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Detached;

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::json::measure::MAX_DEPTH;
    use crate::server::RunContext;
    use crate::{Event, EventType, RunAgentInput};

    fn apply_all(mut state: Value, events: &[Event]) -> Value {
        for event in events {
            match event {
                Event::StateSnapshot(e) => state = e.snapshot.clone(),
                Event::StateDelta(e) => {
                    json_patch::patch(&mut state, &e.delta).unwrap();
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        state
    }

    /// A predicted key reaches the client as an `add` of the whole value, leaves the typed state
    /// alone, and is the base the next delta is diffed from: applied in order, the client ends
    /// with the published state.
    #[test]
    fn a_predicted_key_is_the_base_of_the_next_delta() {
        let title = "A title long enough that a delta beats a snapshot of the whole state";
        let start = json!({"steps": ["a rather long first step", "second"], "title": title});
        let input = RunAgentInput::new("t", "r").with_state(start.clone());
        let (mut ctx, mut events) = RunContext::<Value>::new(input).unwrap();
        ctx.publish_predicted("steps", json!(["x"])).unwrap();
        ctx.publish_predicted("steps", json!(["x"])).unwrap(); // the same value: nothing
        ctx.publish_predicted("steps", json!(["x", "y"])).unwrap();
        assert_eq!(ctx.state(), &start, "the typed state is not changed");
        *ctx.state_mut() = json!({"steps": ["x", "y", "z"], "title": title});
        ctx.publish_state_delta().unwrap();
        let sent = events.drain();
        assert_eq!(
            types(&sent),
            [
                EventType::StateDelta,
                EventType::StateDelta,
                EventType::StateDelta
            ]
        );
        assert_eq!(
            serde_json::to_value(&sent[0]).unwrap()["delta"],
            json!([{"op": "add", "path": "/steps", "value": ["x"]}])
        );
        assert_eq!(
            apply_all(start, &sent),
            json!({"steps": ["x", "y", "z"], "title": title})
        );
    }

    #[test]
    fn a_key_is_predicted_only_in_an_object_state_and_within_the_depth_clients_accept() {
        let input = RunAgentInput::new("t", "r").with_state(json!([1, 2]));
        let (mut ctx, mut events) = RunContext::<Value>::new(input).unwrap();
        let error = ctx.publish_predicted("document", json!("x")).unwrap_err();
        assert_eq!(error.kind(), crate::server::ErrorKind::State);
        assert!(error.to_string().contains("`document`"), "{error}");

        let (mut ctx, _) = RunContext::<Value>::new(RunAgentInput::new("t", "r")).unwrap();
        let mut deep = json!(0);
        for _ in 0..MAX_DEPTH {
            deep = json!([deep]);
        }
        let error = ctx.publish_predicted("deep", deep).unwrap_err();
        assert_eq!(error.kind(), crate::server::ErrorKind::State);
        assert!(events.drain().is_empty());
    }

    #[test]
    fn delta_without_a_published_base_is_a_snapshot() {
        let (mut ctx, mut events) = RunContext::<Value>::new(RunAgentInput::new("t", "r")).unwrap();
        *ctx.state_mut() = json!({"a": 1});
        ctx.publish_state_delta().unwrap();
        assert_eq!(events.drain(), vec![Event::state_snapshot(json!({"a": 1}))]);
    }

    #[test]
    fn nothing_changed_emits_nothing() {
        let input = RunAgentInput::new("t", "r").with_state(json!({"a": [1, 2]}));
        let (mut ctx, mut events) = RunContext::<Value>::new(input).unwrap();
        ctx.publish_state_delta().unwrap();
        ctx.publish_state().unwrap();
        ctx.publish_state_delta().unwrap();
        assert_eq!(types(&events.drain()), [EventType::StateSnapshot]);
    }

    fn types(events: &[Event]) -> Vec<EventType> {
        events.iter().map(Event::event_type).collect()
    }

    #[test]
    fn a_patch_larger_than_the_snapshot_falls_back_to_a_snapshot() {
        let input = RunAgentInput::new("t", "r").with_state(json!({"a": 1, "b": 2}));
        let (mut ctx, mut events) = RunContext::<Value>::new(input).unwrap();
        *ctx.state_mut() = json!({"c": 3});
        ctx.publish_state_delta().unwrap();
        assert_eq!(events.drain(), vec![Event::state_snapshot(json!({"c": 3}))]);
    }

    #[test]
    fn deltas_applied_in_order_reproduce_the_final_state() {
        let start = json!({"todos": [], "title": "Plan the week with a rather long title", "n": 0});
        let input = RunAgentInput::new("t", "r").with_state(start.clone());
        let (mut ctx, mut events) = RunContext::<Value>::new(input).unwrap();
        for i in 0..20 {
            let s = ctx.state_mut();
            s["n"] = json!(i);
            s["todos"]
                .as_array_mut()
                .unwrap()
                .push(json!({"id": i, "done": i % 3 == 0}));
            if i % 4 == 0 {
                s["todos"][0]["done"] = json!(i % 8 == 0);
            }
            if i == 10 {
                s.as_object_mut().unwrap().remove("title");
            }
            ctx.publish_state_delta().unwrap();
        }
        let got = events.drain();
        assert!(got.iter().any(|e| e.event_type() == EventType::StateDelta));
        assert_eq!(apply_all(start, &got), *ctx.state());
    }

    /// `levels` nested objects around `innermost` (an object), built without recursion.
    fn nested(levels: usize, innermost: Value) -> Value {
        let mut value = innermost;
        for _ in 1..levels {
            value = json!({ "a": value });
        }
        value
    }

    #[test]
    fn a_state_deeper_than_clients_accept_is_refused_before_it_is_diffed() {
        // At the limit, published as a delta on a 512 KiB stack (a quarter of a tokio
        // worker's): read, serialized, measured, diffed, cloned and dropped.
        std::thread::Builder::new()
            .stack_size(512 * 1024)
            .spawn(|| {
                let input = RunAgentInput::new("t", "r").with_state(nested(MAX_DEPTH, json!({})));
                let (mut ctx, mut events) = RunContext::<Value>::new(input).unwrap();
                *ctx.state_mut() = nested(MAX_DEPTH, json!({"b": 1}));
                ctx.publish_state_delta().unwrap();
                assert_eq!(types(&events.drain()), [EventType::StateDelta]);
            })
            .unwrap()
            .join()
            .expect("no stack overflow");
        // One level more is refused, delta and snapshot, with nothing sent.
        let input = RunAgentInput::new("t", "r").with_state(nested(MAX_DEPTH, json!({})));
        let (mut ctx, mut events) = RunContext::<Value>::new(input).unwrap();
        *ctx.state_mut() = json!({ "over": nested(MAX_DEPTH, json!({})) });
        for err in [
            ctx.publish_state_delta().unwrap_err(),
            ctx.publish_state().unwrap_err(),
        ] {
            assert_eq!(err.kind(), crate::server::ErrorKind::State);
            assert!(err.to_string().contains("more than 100 levels"), "{err}");
        }
        assert!(events.drain().is_empty());
    }

    #[test]
    fn an_empty_object_reads_as_the_default_state() {
        let input = RunAgentInput::new("t", "r").with_state(json!({}));
        let (ctx, _events) = RunContext::<()>::new(input).unwrap();
        assert_eq!(*ctx.state(), ());
    }

    #[test]
    fn a_state_that_does_not_fit_names_the_path() {
        #[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
        struct St {
            #[allow(dead_code)]
            items: Vec<u32>,
        }
        let input = RunAgentInput::new("t", "r").with_state(json!({"items": [1, "two"]}));
        let err = RunContext::<St>::new(input).unwrap_err();
        assert_eq!(err.kind(), crate::server::ErrorKind::State);
        assert!(err.to_string().contains("items[1]"), "{err}");
    }
}
