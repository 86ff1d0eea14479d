//! Client middleware: layers over a run's event stream that map, filter, inject or log events
//! before the stream is verified and reduced.
//!
//! A [`Middleware`] gets every event the compatibility stage read (chunk events still
//! unexpanded) and pushes what goes on: nothing (a filtered event), a changed event, or
//! several (injected ones). A [`Stack`] composes layers the way `@ag-ui/client` composes its
//! middleware: the first layer added is the outermost, so it sees the events **last**; the
//! last layer added sees the agent's stream first. What comes out of the stack goes on to the
//! chunk normalizer, the verifier and the reducer: a layer cannot put an invalid stream past
//! the verifier.
//!
//! Ready-made layers: [`map`], [`filter`], [`from_fn`] (inject, or anything else),
//! [`FilterToolCalls`] (allowed or disallowed tool names) and [`Log`] (each event at debug
//! level through `tracing`). Give a stack to [`Pipeline::with_middleware`](
//! crate::client::Pipeline::with_middleware) or [`Conversation::with_middleware`](
//! crate::client::Conversation::with_middleware).
//!
//! ```
//! use ag_ui::client::middleware::{self, FilterToolCalls, Stack};
//! use ag_ui::client::{Flow, Pipeline, Reducer};
//! use ag_ui::{Event, TextMessageRole};
//!
//! let stack = Stack::new()
//!     // Outermost: sees what the inner layers let through, last.
//!     .with(middleware::map(|event| match event {
//!         Event::TextMessageContent(mut e) => {
//!             e.delta = e.delta.to_uppercase();
//!             Event::TextMessageContent(e)
//!         }
//!         other => other,
//!     }))
//!     .with(FilterToolCalls::disallow(["delete_everything"]));
//!
//! let mut pipeline = Pipeline::new(Reducer::new()).with_middleware(stack);
//! for event in [
//!     Event::run_started("t", "r"),
//!     Event::text_message_start("m1", TextMessageRole::Assistant),
//!     Event::text_message_content("m1", "hello"),
//!     Event::text_message_end("m1"),
//!     Event::tool_call_start("c1", "delete_everything"),
//!     Event::tool_call_args("c1", "{}"),
//!     Event::tool_call_end("c1"),
//!     Event::run_finished("t", "r"),
//! ] {
//!     assert_eq!(pipeline.push_event(event, &mut ())?, Flow::Continue);
//! }
//! pipeline.finish(&mut ())?;
//! pipeline.check_end()?;
//! let messages = pipeline.reducer().messages();
//! assert_eq!(messages.len(), 1);
//! assert_eq!(messages[0].text(), Some("HELLO"));
//! assert!(pipeline.reducer().tool_call("c1").is_none());
//! # Ok::<(), ag_ui::client::PipelineError>(())
//! ```

use std::collections::HashSet;
use std::fmt;

use crate::client::subscriber::Flow;
use crate::{Event, ToolCallId};

/// One layer over a run's event stream. See the [module documentation](self).
pub trait Middleware: Send {
    /// Takes one event and pushes to `out` what goes on in its place: nothing to drop it,
    /// the event (changed or not), or several. [`Flow::Stop`] ends the run here: nothing this
    /// call pushed is applied.
    fn on_event(&mut self, event: Event, out: &mut Vec<Event>) -> Flow;

    /// Called once when the response ended, after the last event: a last chance to push
    /// events. Does nothing by default.
    fn on_finish(&mut self, out: &mut Vec<Event>) -> Flow {
        let _ = out;
        Flow::Continue
    }
}

impl<M: Middleware + ?Sized> Middleware for Box<M> {
    fn on_event(&mut self, event: Event, out: &mut Vec<Event>) -> Flow {
        (**self).on_event(event, out)
    }

    fn on_finish(&mut self, out: &mut Vec<Event>) -> Flow {
        (**self).on_finish(out)
    }
}

/// Layers composed in order: the first added is the outermost (it sees events last). An empty
/// stack passes every event through untouched.
///
/// The stack keeps two buffers it reuses from event to event, so running events through it
/// allocates nothing once they have grown to the largest burst a layer pushed.
#[derive(Default)]
pub struct Stack {
    layers: Vec<Box<dyn Middleware>>,
    current: Vec<Event>,
    next: Vec<Event>,
}

impl fmt::Debug for Stack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stack")
            .field("layers", &self.layers.len())
            .finish_non_exhaustive()
    }
}

impl Stack {
    /// An empty stack.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a layer inside the ones already added: it sees the events before them.
    #[must_use]
    pub fn with(mut self, layer: impl Middleware + 'static) -> Self {
        self.push_layer(layer);
        self
    }

    /// Adds a layer inside the ones already added, in place.
    pub fn push_layer(&mut self, layer: impl Middleware + 'static) {
        self.layers.push(Box::new(layer));
    }

    /// How many layers there are.
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// Whether there is no layer.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    /// Runs one event through every layer, innermost first, and appends what comes out of the
    /// outermost to `out`. On [`Flow::Stop`] from any layer nothing is appended.
    pub fn on_event(&mut self, event: Event, out: &mut Vec<Event>) -> Flow {
        if self.layers.is_empty() {
            out.push(event);
            return Flow::Continue;
        }
        self.current.clear();
        self.current.push(event);
        self.run_from(self.layers.len(), out, false)
    }

    /// Ends the stream: each layer's [`Middleware::on_finish`], innermost first, with what an
    /// inner layer pushed at its end going through the outer layers as events. Appends the
    /// result to `out`.
    pub fn on_finish(&mut self, out: &mut Vec<Event>) -> Flow {
        self.current.clear();
        self.run_from(self.layers.len(), out, true)
    }

    /// Runs `self.current` through the layers below `top` (innermost first).
    fn run_from(&mut self, top: usize, out: &mut Vec<Event>, finish: bool) -> Flow {
        for layer in self.layers[..top].iter_mut().rev() {
            self.next.clear();
            let mut stopped = false;
            for event in self.current.drain(..) {
                if layer.on_event(event, &mut self.next) == Flow::Stop {
                    stopped = true;
                    break;
                }
            }
            if stopped {
                self.current.clear();
                self.next.clear();
                return Flow::Stop;
            }
            if finish && layer.on_finish(&mut self.next) == Flow::Stop {
                self.next.clear();
                return Flow::Stop;
            }
            std::mem::swap(&mut self.current, &mut self.next);
        }
        out.append(&mut self.current);
        Flow::Continue
    }
}

impl Middleware for Stack {
    fn on_event(&mut self, event: Event, out: &mut Vec<Event>) -> Flow {
        Stack::on_event(self, event, out)
    }

    fn on_finish(&mut self, out: &mut Vec<Event>) -> Flow {
        Stack::on_finish(self, out)
    }
}

/// A layer that replaces every event with what `f` makes of it. See [`map`].
#[derive(Clone)]
pub struct Map<F>(F);

impl<F> fmt::Debug for Map<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Map")
    }
}

/// A layer that replaces every event with `f(event)`.
pub fn map<F: FnMut(Event) -> Event + Send>(f: F) -> Map<F> {
    Map(f)
}

impl<F: FnMut(Event) -> Event + Send> Middleware for Map<F> {
    fn on_event(&mut self, event: Event, out: &mut Vec<Event>) -> Flow {
        out.push((self.0)(event));
        Flow::Continue
    }
}

/// A layer that keeps the events `f` accepts. See [`filter`].
#[derive(Clone)]
pub struct Filter<F>(F);

impl<F> fmt::Debug for Filter<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Filter")
    }
}

/// A layer that keeps the events for which `keep` returns `true` and drops the others.
///
/// Dropping part of an entity (a `TEXT_MESSAGE_START` but not its content) breaks the stream,
/// and the verifier says so; [`FilterToolCalls`] drops whole tool calls.
pub fn filter<F: FnMut(&Event) -> bool + Send>(keep: F) -> Filter<F> {
    Filter(keep)
}

impl<F: FnMut(&Event) -> bool + Send> Middleware for Filter<F> {
    fn on_event(&mut self, event: Event, out: &mut Vec<Event>) -> Flow {
        if (self.0)(&event) {
            out.push(event);
        }
        Flow::Continue
    }
}

/// A layer made of a function that gets each event and pushes what goes on. See [`from_fn`].
#[derive(Clone)]
pub struct FromFn<F>(F);

impl<F> fmt::Debug for FromFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FromFn")
    }
}

/// A layer made of `f`, which gets each event and pushes to the `Vec` what goes on in its
/// place (nothing, the event, events before or after it); its [`Flow`] as
/// [`Middleware::on_event`]'s.
///
/// ```
/// use ag_ui::client::middleware::{from_fn, Stack};
/// use ag_ui::client::Flow;
/// use ag_ui::{Event, EventType};
///
/// // Marks every run with a custom event after its start.
/// let mut stack = Stack::new().with(from_fn(|event: Event, out: &mut Vec<Event>| {
///     let started = matches!(event, Event::RunStarted(_));
///     out.push(event);
///     if started {
///         out.push(Event::custom("seen-by", "my-app".into()));
///     }
///     Flow::Continue
/// }));
/// let mut out = Vec::new();
/// stack.on_event(Event::run_started("t", "r"), &mut out);
/// let types: Vec<_> = out.iter().map(Event::event_type).collect();
/// assert_eq!(types, [EventType::RunStarted, EventType::Custom]);
/// ```
pub fn from_fn<F: FnMut(Event, &mut Vec<Event>) -> Flow + Send>(f: F) -> FromFn<F> {
    FromFn(f)
}

impl<F: FnMut(Event, &mut Vec<Event>) -> Flow + Send> Middleware for FromFn<F> {
    fn on_event(&mut self, event: Event, out: &mut Vec<Event>) -> Flow {
        (self.0)(event, out)
    }
}

/// Drops the tool calls of some tools, as `@ag-ui/client`'s `FilterToolCallsMiddleware` does:
/// a `TOOL_CALL_START` (or first `TOOL_CALL_CHUNK`) naming a filtered tool and every later
/// `TOOL_CALL_ARGS`, `TOOL_CALL_END`, `TOOL_CALL_RESULT` and `TOOL_CALL_CHUNK` of that call.
/// The set of dropped calls is cleared at each `RUN_STARTED`.
#[derive(Clone, Debug)]
pub struct FilterToolCalls {
    names: HashSet<String>,
    /// `true`: `names` are the allowed tools; `false`: the disallowed ones.
    allow: bool,
    blocked: HashSet<ToolCallId>,
    /// Whether the chunk lane open now (chunks without an id continue it) is dropped.
    chunk_lane_blocked: bool,
}

impl FilterToolCalls {
    /// Keeps only the tool calls of these tools.
    pub fn allow<I: IntoIterator<Item = S>, S: Into<String>>(names: I) -> Self {
        Self::new(names, true)
    }

    /// Drops the tool calls of these tools.
    pub fn disallow<I: IntoIterator<Item = S>, S: Into<String>>(names: I) -> Self {
        Self::new(names, false)
    }

    fn new<I: IntoIterator<Item = S>, S: Into<String>>(names: I, allow: bool) -> Self {
        Self {
            names: names.into_iter().map(Into::into).collect(),
            allow,
            blocked: HashSet::new(),
            chunk_lane_blocked: false,
        }
    }

    fn is_filtered(&self, name: &str) -> bool {
        self.names.contains(name) != self.allow
    }
}

impl Middleware for FilterToolCalls {
    fn on_event(&mut self, event: Event, out: &mut Vec<Event>) -> Flow {
        let drop = match &event {
            Event::RunStarted(_) => {
                self.blocked.clear();
                self.chunk_lane_blocked = false;
                false
            }
            Event::ToolCallStart(e) if self.is_filtered(&e.tool_call_name) => {
                self.blocked.insert(e.tool_call_id.clone());
                true
            }
            Event::ToolCallStart(_) => false,
            Event::ToolCallChunk(e) => {
                match (&e.tool_call_id, &e.tool_call_name) {
                    (Some(id), Some(name)) if !self.blocked.contains(id) => {
                        // A chunk that names its tool opens (or reopens) a lane.
                        if self.is_filtered(name) {
                            self.blocked.insert(id.clone());
                        }
                        self.chunk_lane_blocked = self.blocked.contains(id);
                    }
                    (Some(id), _) => self.chunk_lane_blocked = self.blocked.contains(id),
                    (None, _) => {}
                }
                self.chunk_lane_blocked
            }
            Event::ToolCallArgs(e) => self.blocked.contains(&e.tool_call_id),
            Event::ToolCallEnd(e) => self.blocked.contains(&e.tool_call_id),
            Event::ToolCallResult(e) => self.blocked.contains(&e.tool_call_id),
            _ => false,
        };
        if !drop {
            out.push(event);
        }
        Flow::Continue
    }
}

/// Logs every event through `tracing` at debug level (target `ag_ui::client::middleware`): its
/// index in the stream and its type, plus the JSON of the event at trace level. Nothing is
/// formatted when those levels are off.
#[derive(Clone, Debug, Default)]
pub struct Log {
    index: u64,
}

impl Log {
    /// A logging layer.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Middleware for Log {
    fn on_event(&mut self, event: Event, out: &mut Vec<Event>) -> Flow {
        let index = self.index;
        self.index += 1;
        if tracing::enabled!(tracing::Level::TRACE) {
            let json = serde_json::to_string(&event).unwrap_or_default();
            tracing::trace!(index, r#type = event.event_type().as_str(), %json, "event");
        } else if tracing::enabled!(tracing::Level::DEBUG) {
            tracing::debug!(index, r#type = event.event_type().as_str(), "event");
        }
        out.push(event);
        Flow::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EventType, TextMessageRole};

    /// Tags each text delta it sees with its name, so the order of the layers shows.
    struct Tag(&'static str);

    impl Middleware for Tag {
        fn on_event(&mut self, event: Event, out: &mut Vec<Event>) -> Flow {
            out.push(match event {
                Event::TextMessageContent(mut e) => {
                    e.delta.push_str(self.0);
                    Event::TextMessageContent(e)
                }
                other => other,
            });
            Flow::Continue
        }

        fn on_finish(&mut self, out: &mut Vec<Event>) -> Flow {
            out.push(Event::text_message_content("m", self.0));
            Flow::Continue
        }
    }

    fn deltas(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::TextMessageContent(e) => Some(e.delta.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_first_layer_is_outermost_and_sees_events_last() {
        let mut stack = Stack::new().with(Tag("1")).with(Tag("2")).with(Tag("3"));
        let mut out = Vec::new();
        assert_eq!(
            stack.on_event(Event::text_message_content("m", "x"), &mut out),
            Flow::Continue
        );
        assert_eq!(deltas(&out), ["x321"]);
        // At the end, what an inner layer injects goes through the outer ones.
        out.clear();
        assert_eq!(stack.on_finish(&mut out), Flow::Continue);
        assert_eq!(deltas(&out), ["321", "21", "1"]);
    }

    #[test]
    fn an_empty_stack_passes_events_through() {
        let mut stack = Stack::new();
        let mut out = Vec::new();
        stack.on_event(Event::run_started("t", "r"), &mut out);
        assert_eq!(out, [Event::run_started("t", "r")]);
        out.clear();
        assert_eq!(stack.on_finish(&mut out), Flow::Continue);
        assert!(out.is_empty());
    }

    #[test]
    fn a_stop_from_a_layer_discards_what_it_pushed() {
        let mut stack =
            Stack::new()
                .with(Tag("outer"))
                .with(from_fn(|event: Event, out: &mut Vec<Event>| {
                    let stop = event.event_type() == EventType::TextMessageEnd;
                    out.push(event);
                    if stop { Flow::Stop } else { Flow::Continue }
                }));
        let mut out = Vec::new();
        assert_eq!(
            stack.on_event(Event::text_message_content("m", "a"), &mut out),
            Flow::Continue
        );
        assert_eq!(
            stack.on_event(Event::text_message_end("m"), &mut out),
            Flow::Stop
        );
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn filter_tool_calls_drops_whole_calls_and_forgets_them_at_the_next_run() {
        let mut f = FilterToolCalls::allow(["search"]);
        let mut out = Vec::new();
        for e in [
            Event::run_started("t", "r1"),
            Event::tool_call_start("a", "search"),
            Event::tool_call_args("a", "{}"),
            Event::tool_call_end("a"),
            Event::tool_call_start("b", "rm"),
            Event::tool_call_args("b", "{}"),
            Event::tool_call_end("b"),
            Event::tool_call_result("m2", "b", "done"),
            Event::run_finished("t", "r1"),
            Event::run_started("t", "r2"),
            Event::tool_call_args("b", "{}"),
        ] {
            f.on_event(e, &mut out);
        }
        let kept: Vec<_> = out.iter().map(Event::event_type).collect();
        assert_eq!(
            kept,
            [
                EventType::RunStarted,
                EventType::ToolCallStart,
                EventType::ToolCallArgs,
                EventType::ToolCallEnd,
                EventType::RunFinished,
                EventType::RunStarted,
                // `b` was dropped in the last run only.
                EventType::ToolCallArgs,
            ]
        );
    }

    #[test]
    fn filter_tool_calls_follows_chunk_lanes() {
        use crate::ToolCallChunkEvent;
        let mut f = FilterToolCalls::disallow(["rm"]);
        let mut out = Vec::new();
        for e in [
            Event::ToolCallChunk(
                ToolCallChunkEvent::new()
                    .with_tool_call_id("a")
                    .with_tool_call_name("rm")
                    .with_delta("{"),
            ),
            Event::ToolCallChunk(ToolCallChunkEvent::new().with_delta("}")),
            Event::ToolCallChunk(
                ToolCallChunkEvent::new()
                    .with_tool_call_id("b")
                    .with_tool_call_name("ls")
                    .with_delta("{"),
            ),
            Event::ToolCallChunk(ToolCallChunkEvent::new().with_delta("}")),
            Event::text_message_start("m", TextMessageRole::Assistant),
        ] {
            f.on_event(e, &mut out);
        }
        assert_eq!(out.len(), 3);
        let Event::ToolCallChunk(first) = &out[0] else {
            panic!("{out:?}")
        };
        assert_eq!(first.tool_call_id.as_ref().map(|id| id.as_str()), Some("b"));
    }

    #[test]
    fn map_and_filter() {
        let mut stack = Stack::new()
            .with(filter(|e: &Event| e.event_type() != EventType::Custom))
            .with(map(|e: Event| e.with_timestamp(7)));
        let mut out = Vec::new();
        stack.on_event(Event::custom("x", serde_json::Value::Null), &mut out);
        stack.on_event(Event::run_started("t", "r"), &mut out);
        assert_eq!(out, [Event::run_started("t", "r").with_timestamp(7)]);
    }
}
