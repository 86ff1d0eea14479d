use std::fmt;

use serde_json::Value;

use crate::client::apply::{Applied, Messages, Reducer};
use crate::client::subscriber::{Flow, Mutation, Subscriber};
use crate::client::warning::Warning;
use crate::{Event, RunErrorEvent, RunFinishedEvent, ToolCall};

type Callback<T> = Option<Box<T>>;

/// The closure of [`Callbacks::on_change`].
type ChangeFn = dyn FnMut(&Event, &Reducer) -> Option<Mutation> + Send;

/// A [`Subscriber`] made of closures, one per kind of thing to watch.
///
/// Each closure returns `()` or a [`Flow`]; [`Flow::Stop`] ends the run. Callbacks on an event
/// are called before it is applied; callbacks on a change after.
///
/// Callbacks per event type: a subscriber made of closures.
///
/// [`Callbacks`] is a [`Subscriber`] built from closures, one per thing to watch, so printing
/// text as it streams needs no trait:
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use ag_ui::client::{Callbacks, Flow, Pipeline, Reducer};
/// use ag_ui::{Event, TextMessageRole};
///
/// let printed = Arc::new(Mutex::new(String::new()));
/// let sink = printed.clone();
/// let mut callbacks = Callbacks::new()
///     .on_text_delta(move |delta| sink.lock().unwrap().push_str(delta))
///     // A closure may also end the run.
///     .on_event(|event| match event {
///         Event::Custom(e) if e.name == "stop" => Flow::Stop,
///         _ => Flow::Continue,
///     });
///
/// let mut pipeline = Pipeline::new(Reducer::new());
/// for event in [
///     Event::run_started("t", "r"),
///     Event::text_message_start("m1", TextMessageRole::Assistant),
///     Event::text_message_content("m1", "Hel"),
///     Event::text_message_content("m1", "lo"),
///     Event::custom("stop", serde_json::Value::Null),
///     Event::text_message_content("m1", " never"),
/// ] {
///     pipeline.push_event(event, &mut callbacks)?;
/// }
/// assert!(pipeline.is_stopped());
/// assert_eq!(*printed.lock().unwrap(), "Hello");
/// # Ok::<(), ag_ui::client::PipelineError>(())
/// ```
///
/// A subscriber replaces the conversation's messages or state by returning a [`Mutation`] from
/// [`Subscriber::take_mutation`], which the pipeline asks for after each call it makes to the
/// subscriber; with `Callbacks`, [`on_change`](Callbacks::on_change) returns one.
#[derive(Default)]
pub struct Callbacks {
    event: Callback<dyn FnMut(&Event) -> Flow + Send>,
    text_delta: Callback<dyn FnMut(&str) -> Flow + Send>,
    reasoning_delta: Callback<dyn FnMut(&str) -> Flow + Send>,
    tool_call: Callback<dyn FnMut(&ToolCall) -> Flow + Send>,
    run_finished: Callback<dyn FnMut(&RunFinishedEvent) -> Flow + Send>,
    run_error: Callback<dyn FnMut(&RunErrorEvent) -> Flow + Send>,
    messages_changed: Callback<dyn FnMut(Messages<'_>) -> Flow + Send>,
    state_changed: Callback<dyn FnMut(&Value) -> Flow + Send>,
    warning: Callback<dyn FnMut(&Warning) -> Flow + Send>,
    change: Callback<ChangeFn>,
    mutation: Option<Mutation>,
}

impl fmt::Debug for Callbacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Callbacks")
            .field("event", &self.event.is_some())
            .field("text_delta", &self.text_delta.is_some())
            .field("reasoning_delta", &self.reasoning_delta.is_some())
            .field("tool_call", &self.tool_call.is_some())
            .field("run_finished", &self.run_finished.is_some())
            .field("run_error", &self.run_error.is_some())
            .field("messages_changed", &self.messages_changed.is_some())
            .field("state_changed", &self.state_changed.is_some())
            .field("warning", &self.warning.is_some())
            .field("change", &self.change.is_some())
            .finish()
    }
}

impl Callbacks {
    /// No callbacks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Called with every event (after chunk expansion and verification), before it is applied.
    #[must_use]
    pub fn on_event<R: Into<Flow>>(
        mut self,
        mut f: impl FnMut(&Event) -> R + Send + 'static,
    ) -> Self {
        self.event = Some(Box::new(move |e: &Event| f(e).into()));
        self
    }

    /// Called with the text of every `TEXT_MESSAGE_CONTENT` (chunks included), as it streams.
    #[must_use]
    pub fn on_text_delta<R: Into<Flow>>(
        mut self,
        mut f: impl FnMut(&str) -> R + Send + 'static,
    ) -> Self {
        self.text_delta = Some(Box::new(move |d: &str| f(d).into()));
        self
    }

    /// Called with the text of every `REASONING_MESSAGE_CONTENT`, as it streams.
    #[must_use]
    pub fn on_reasoning_delta<R: Into<Flow>>(
        mut self,
        mut f: impl FnMut(&str) -> R + Send + 'static,
    ) -> Self {
        self.reasoning_delta = Some(Box::new(move |d: &str| f(d).into()));
        self
    }

    /// Called with each tool call when its `TOOL_CALL_END` arrives: name and whole arguments.
    #[must_use]
    pub fn on_tool_call<R: Into<Flow>>(
        mut self,
        mut f: impl FnMut(&ToolCall) -> R + Send + 'static,
    ) -> Self {
        self.tool_call = Some(Box::new(move |c: &ToolCall| f(c).into()));
        self
    }

    /// Called with every `RUN_FINISHED`.
    #[must_use]
    pub fn on_run_finished<R: Into<Flow>>(
        mut self,
        mut f: impl FnMut(&RunFinishedEvent) -> R + Send + 'static,
    ) -> Self {
        self.run_finished = Some(Box::new(move |e: &RunFinishedEvent| f(e).into()));
        self
    }

    /// Called with every `RUN_ERROR`.
    #[must_use]
    pub fn on_run_error<R: Into<Flow>>(
        mut self,
        mut f: impl FnMut(&RunErrorEvent) -> R + Send + 'static,
    ) -> Self {
        self.run_error = Some(Box::new(move |e: &RunErrorEvent| f(e).into()));
        self
    }

    /// Called with the messages (a [`Messages`] view, read like a slice) after every event that
    /// changed them.
    #[must_use]
    pub fn on_messages_changed<R: Into<Flow>>(
        mut self,
        mut f: impl FnMut(Messages<'_>) -> R + Send + 'static,
    ) -> Self {
        self.messages_changed = Some(Box::new(move |m: Messages<'_>| f(m).into()));
        self
    }

    /// Called with the state after every event that changed it.
    #[must_use]
    pub fn on_state_changed<R: Into<Flow>>(
        mut self,
        mut f: impl FnMut(&Value) -> R + Send + 'static,
    ) -> Self {
        self.state_changed = Some(Box::new(move |s: &Value| f(s).into()));
        self
    }

    /// Called with each [`Warning`]: something the client left out of the stream, translated or
    /// reshaped, as it happens (a conformant stream gives none). The run's summary keeps them
    /// too ([`RunSummary::warnings`](crate::client::RunSummary::warnings)).
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use ag_ui::client::{Callbacks, Pipeline, Reducer};
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let sink = seen.clone();
    /// let mut callbacks = Callbacks::new()
    ///     .on_warning(move |w| sink.lock().unwrap().push(w.kind().as_str()));
    /// let mut pipeline = Pipeline::new(Reducer::new());
    /// let started = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","mood":"odd"}"#;
    /// pipeline.push_frame(started, &mut callbacks)?;
    /// assert_eq!(*seen.lock().unwrap(), ["strip.member"]);
    /// # Ok::<(), ag_ui::client::PipelineError>(())
    /// ```
    #[must_use]
    pub fn on_warning<R: Into<Flow>>(
        mut self,
        mut f: impl FnMut(&Warning) -> R + Send + 'static,
    ) -> Self {
        self.warning = Some(Box::new(move |w: &Warning| f(w).into()));
        self
    }

    /// Called after every event that changed messages or state, with the event and the
    /// conversation; a [`Mutation`] it returns replaces the messages or the state.
    ///
    /// ```
    /// use ag_ui::client::{Callbacks, Mutation, Pipeline, Reducer};
    /// use ag_ui::Event;
    /// use serde_json::json;
    ///
    /// // Keeps a counter in the state no matter what the agent sends.
    /// let mut callbacks = Callbacks::new().on_change(|_event, conversation| {
    ///     let mut state = conversation.state().clone();
    ///     state["seen"] = json!(true);
    ///     Some(Mutation::new().with_state(state))
    /// });
    /// let mut pipeline = Pipeline::new(Reducer::new());
    /// pipeline.push_event(Event::run_started("t", "r"), &mut callbacks)?;
    /// pipeline.push_event(Event::state_snapshot(json!({"a": 1})), &mut callbacks)?;
    /// assert_eq!(pipeline.reducer().state(), &json!({"a": 1, "seen": true}));
    /// # Ok::<(), ag_ui::client::PipelineError>(())
    /// ```
    #[must_use]
    pub fn on_change(
        mut self,
        f: impl FnMut(&Event, &Reducer) -> Option<Mutation> + Send + 'static,
    ) -> Self {
        self.change = Some(Box::new(f));
        self
    }
}

/// Runs an optional callback: [`Flow::Continue`] when there is none.
impl Callbacks {
    /// These callbacks with `later`'s set on top: each closure `later` sets replaces this
    /// one's of the same kind, the others are kept.
    pub(crate) fn overlaid(self, later: Callbacks) -> Callbacks {
        Callbacks {
            event: later.event.or(self.event),
            text_delta: later.text_delta.or(self.text_delta),
            reasoning_delta: later.reasoning_delta.or(self.reasoning_delta),
            tool_call: later.tool_call.or(self.tool_call),
            run_finished: later.run_finished.or(self.run_finished),
            run_error: later.run_error.or(self.run_error),
            messages_changed: later.messages_changed.or(self.messages_changed),
            state_changed: later.state_changed.or(self.state_changed),
            warning: later.warning.or(self.warning),
            change: later.change.or(self.change),
            mutation: later.mutation.or(self.mutation),
        }
    }
}

fn call<T: ?Sized>(callback: &mut Callback<dyn FnMut(&T) -> Flow + Send>, arg: &T) -> Flow {
    match callback {
        Some(f) => f(arg),
        None => Flow::Continue,
    }
}

impl Subscriber for Callbacks {
    fn on_event(&mut self, event: &Event, conversation: &Reducer) -> Flow {
        if call(&mut self.event, event) == Flow::Stop {
            return Flow::Stop;
        }
        match event {
            Event::TextMessageContent(e) => call(&mut self.text_delta, e.delta.as_str()),
            Event::ReasoningMessageContent(e) => call(&mut self.reasoning_delta, e.delta.as_str()),
            Event::ToolCallEnd(e) => match conversation.tool_call(e.tool_call_id.as_str()) {
                Some(tool_call) => call(&mut self.tool_call, tool_call),
                None => Flow::Continue,
            },
            Event::RunFinished(e) => call(&mut self.run_finished, e),
            Event::RunError(e) => call(&mut self.run_error, e),
            _ => Flow::Continue,
        }
    }

    fn on_applied(&mut self, event: &Event, applied: &Applied, conversation: &Reducer) -> Flow {
        if applied.messages.is_changed()
            && let Some(f) = &mut self.messages_changed
            && f(conversation.messages()) == Flow::Stop
        {
            return Flow::Stop;
        }
        if applied.state_changed
            && call(&mut self.state_changed, conversation.state()) == Flow::Stop
        {
            return Flow::Stop;
        }
        if let Some(change) = &mut self.change {
            self.mutation = change(event, conversation).filter(|m| !m.is_empty());
        }
        Flow::Continue
    }

    fn on_warning(&mut self, warning: &Warning) -> Flow {
        call(&mut self.warning, warning)
    }

    fn take_mutation(&mut self) -> Option<Mutation> {
        self.mutation.take()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::json;

    use super::*;
    use crate::client::conversation::{Conversation, RunEnd};
    use crate::client::middleware::{FilterToolCalls, Middleware, Stack, from_fn};
    use crate::client::transport::Replay;
    use crate::{EventType, Message, TextMessageRole};

    fn run_events() -> Vec<Event> {
        vec![
            Event::run_started("t", "r"),
            Event::text_message_start("m1", TextMessageRole::Assistant),
            Event::text_message_content("m1", "Hel"),
            Event::text_message_content("m1", "lo"),
            Event::text_message_end("m1"),
            Event::tool_call_start("c1", "search"),
            Event::tool_call_args("c1", r#"{"q":1}"#),
            Event::tool_call_end("c1"),
            Event::tool_call_start("c2", "rm"),
            Event::tool_call_args("c2", "{}"),
            Event::tool_call_end("c2"),
            Event::state_snapshot(json!({"n": 1})),
            Event::run_finished("t", "r"),
        ]
    }

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        futures::executor::block_on(f)
    }

    #[test]
    fn conversation_callbacks_see_text_and_tool_calls_and_the_middleware_filters() {
        let text = Arc::new(Mutex::new(String::new()));
        let calls = Arc::new(Mutex::new(Vec::new()));
        let (t, c) = (text.clone(), calls.clone());
        let mut conversation = Conversation::new("t")
            .with_middleware(Stack::new().with(FilterToolCalls::allow(["search"])))
            .with_callbacks(Callbacks::new().on_tool_call(move |call: &ToolCall| {
                c.lock().unwrap().push(call.function.name.clone());
            }))
            .on_text_delta(move |delta| t.lock().unwrap().push_str(delta));
        let summary = block_on(conversation.run(&Replay::new(run_events()), &mut ())).unwrap();
        assert_eq!(summary.end, RunEnd::Finished);
        assert_eq!(*text.lock().unwrap(), "Hello");
        assert_eq!(*calls.lock().unwrap(), ["search"]);
        let Message::Assistant(assistant) = &conversation.messages()[1] else {
            panic!("{:?}", conversation.messages())
        };
        let names: Vec<_> = assistant
            .tool_calls
            .iter()
            .flatten()
            .map(|c| c.function.name.as_str())
            .collect();
        assert_eq!(names, ["search"]);
        // The callbacks and the middleware are kept for the next run.
        block_on(conversation.run(&Replay::new(run_events()), &mut ())).unwrap();
        assert_eq!(*text.lock().unwrap(), "HelloHello");
    }

    #[test]
    fn a_stop_from_a_callback_ends_the_run_before_the_event_is_applied() {
        let mut callbacks = Callbacks::new().on_text_delta(|delta: &str| {
            if delta == "lo" {
                Flow::Stop
            } else {
                Flow::Continue
            }
        });
        let mut conversation = Conversation::new("t");
        let summary =
            block_on(conversation.run(&Replay::new(run_events()), &mut callbacks)).unwrap();
        assert_eq!(summary.end, RunEnd::Stopped);
        assert_eq!(conversation.messages()[0].text(), Some("Hel"));
        assert_eq!(conversation.state(), &json!({}));
    }

    #[test]
    fn a_stop_from_a_middleware_ends_the_run() {
        let stop_at_tools = from_fn(|event: Event, out: &mut Vec<Event>| {
            if event.event_type() == EventType::ToolCallStart {
                return Flow::Stop;
            }
            out.push(event);
            Flow::Continue
        });
        let mut conversation =
            Conversation::new("t").with_middleware(Stack::new().with(stop_at_tools));
        let summary = block_on(conversation.run(&Replay::new(run_events()), &mut ())).unwrap();
        assert_eq!(summary.end, RunEnd::Stopped);
        assert_eq!(conversation.messages().len(), 1);
    }

    #[test]
    fn callbacks_replace_state_and_messages() {
        let mut callbacks = Callbacks::new().on_change(|event, conversation| match event {
            Event::StateSnapshot(_) => {
                let mut state = conversation.state().clone();
                state["local"] = json!("kept");
                Some(Mutation::new().with_state(state))
            }
            Event::TextMessageEnd(_) => {
                Some(Mutation::new().with_messages(vec![Message::user("u-replaced", "replaced")]))
            }
            _ => None,
        });
        let mut conversation = Conversation::new("t");
        let events = vec![
            Event::run_started("t", "r"),
            Event::text_message_start("m1", TextMessageRole::Assistant),
            Event::text_message_content("m1", "Hi"),
            Event::text_message_end("m1"),
            Event::state_snapshot(json!({"n": 1})),
            Event::run_finished("t", "r"),
        ];
        block_on(conversation.run(&Replay::new(events), &mut callbacks)).unwrap();
        assert_eq!(conversation.state(), &json!({"n": 1, "local": "kept"}));
        // TEXT_MESSAGE_END changes nothing, so no replacement there: the replacement is asked
        // for only after a change.
        assert_eq!(conversation.messages()[0].text(), Some("Hi"));

        let mut replace = Callbacks::new().on_change(|event, _| match event {
            Event::TextMessageContent(_) => {
                Some(Mutation::new().with_messages(vec![Message::user("u-replaced", "replaced")]))
            }
            _ => None,
        });
        let mut conversation = Conversation::new("t");
        let events = vec![
            Event::run_started("t", "r"),
            Event::text_message_start("m1", TextMessageRole::Assistant),
            Event::text_message_content("m1", "Hi"),
            Event::text_message_end("m1"),
            Event::run_finished("t", "r"),
        ];
        block_on(conversation.run(&Replay::new(events), &mut replace)).unwrap();
        let ids: Vec<_> = conversation
            .messages()
            .iter()
            .map(|m| m.id().as_str())
            .collect();
        assert_eq!(ids, ["u-replaced"]);
    }

    /// The reference's order: m1 (added first) is outermost and sees the events last.
    #[test]
    fn middleware_order_in_a_conversation() {
        struct Suffix(&'static str);
        impl Middleware for Suffix {
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
        }
        let mut conversation = Conversation::new("t")
            .with_middleware(Stack::new().with(Suffix("[m1]")).with(Suffix("[m2]")));
        let events = vec![
            Event::run_started("t", "r"),
            Event::text_message_start("m1", TextMessageRole::Assistant),
            Event::text_message_content("m1", "x"),
            Event::text_message_end("m1"),
            Event::run_finished("t", "r"),
        ];
        block_on(conversation.run(&Replay::new(events), &mut ())).unwrap();
        assert_eq!(conversation.messages()[0].text(), Some("x[m2][m1]"));
    }
}
