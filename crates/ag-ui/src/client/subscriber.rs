use serde_json::Value;

use crate::client::apply::{Applied, Reducer};
use crate::client::warning::Warning;
use crate::{Event, Message};

/// Whether the run goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Go on.
    Continue,
    /// End the run now; the current event is not applied (when said from
    /// [`Subscriber::on_event`]) and nothing after it is read.
    Stop,
}

/// Observes a run: every event, and what each one changed. Every method has a default that does
/// nothing and continues.
///
/// How a run is observed: [`Subscriber`], the [`Flow`] its calls return, and the [`Mutation`]
/// it may ask for.
///
/// A [`Pipeline`](crate::client::Pipeline) (and a [`Conversation`](crate::client::Conversation)
/// through it) tells a subscriber about every event before it is applied and about every
/// change it made; each call returns a [`Flow`], and [`Flow::Stop`] ends the run. After each
/// call that continued, the pipeline asks [`Subscriber::take_mutation`]: a [`Mutation`]
/// returned there replaces the conversation's messages or state at once.
/// [`Callbacks`](crate::client::Callbacks) is a subscriber made of closures; the middleware
/// of [`middleware`](crate::client::middleware) returns a [`Flow`] too.
///
/// ```
/// use ag_ui::client::{Flow, Mutation, Subscriber};
/// use ag_ui::client::{Pipeline, Reducer};
/// use ag_ui::Event;
///
/// /// Replaces the state with `{"seen": true}` at the first event, then stops at the second.
/// #[derive(Default)]
/// struct Once(usize, Option<Mutation>);
/// impl Subscriber for Once {
///     fn on_event(&mut self, _: &Event, _: &Reducer) -> Flow {
///         self.0 += 1;
///         if self.0 == 1 {
///             self.1 = Some(Mutation::new().with_state(serde_json::json!({"seen": true})));
///         }
///         if self.0 == 2 { Flow::Stop } else { Flow::Continue }
///     }
///     fn take_mutation(&mut self) -> Option<Mutation> {
///         self.1.take()
///     }
/// }
///
/// let mut pipeline = Pipeline::new(Reducer::new());
/// let mut once = Once::default();
/// pipeline.push_event(Event::run_started("t", "r"), &mut once)?;
/// pipeline.push_event(Event::run_finished("t", "r"), &mut once)?;
/// assert!(pipeline.is_stopped());
/// assert_eq!(pipeline.reducer().state(), &serde_json::json!({"seen": true}));
/// # Ok::<(), ag_ui::client::PipelineError>(())
/// ```
pub trait Subscriber {
    /// Called for every event (after chunk expansion and verification), before it is applied.
    fn on_event(&mut self, event: &Event, conversation: &Reducer) -> Flow {
        let _ = (event, conversation);
        Flow::Continue
    }

    /// Called after every event that changed messages or state, or that the reducer warned
    /// about; `conversation` shows the result.
    fn on_applied(&mut self, event: &Event, applied: &Applied, conversation: &Reducer) -> Flow {
        let _ = (event, applied, conversation);
        Flow::Continue
    }

    /// Called for every [`Warning`] as it happens: something the client left out of what the
    /// peer sent (an unknown event, member, outcome, part, message or patch operation),
    /// translated (a pre-1.0 event), reshaped for a pinned peer, or could not apply. A
    /// conformant stream produces none.
    fn on_warning(&mut self, warning: &Warning) -> Flow {
        let _ = warning;
        Flow::Continue
    }

    /// Asked after every call to [`on_event`](Self::on_event) or [`on_applied`](
    /// Self::on_applied) that continued: a [`Mutation`] returned here replaces the
    /// conversation's messages or state at once. `None` by default.
    fn take_mutation(&mut self) -> Option<Mutation> {
        None
    }
}

/// A subscriber that observes nothing.
impl Subscriber for () {}

impl<S: Subscriber + ?Sized> Subscriber for &mut S {
    fn on_event(&mut self, event: &Event, conversation: &Reducer) -> Flow {
        (**self).on_event(event, conversation)
    }

    fn on_applied(&mut self, event: &Event, applied: &Applied, conversation: &Reducer) -> Flow {
        (**self).on_applied(event, applied, conversation)
    }

    fn on_warning(&mut self, warning: &Warning) -> Flow {
        (**self).on_warning(warning)
    }

    fn take_mutation(&mut self) -> Option<Mutation> {
        (**self).take_mutation()
    }
}

/// A replacement of the conversation's messages, state, or both, asked for by a subscriber.
/// The pipeline applies it at once; the next events apply to the result.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Mutation {
    /// The messages to hold from now on.
    pub messages: Option<Vec<Message>>,
    /// The state to hold from now on.
    pub state: Option<Value>,
}

impl Mutation {
    /// A mutation that replaces nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces the messages.
    #[must_use]
    pub fn with_messages(mut self, messages: Vec<Message>) -> Self {
        self.messages = Some(messages);
        self
    }

    /// Replaces the state.
    #[must_use]
    pub fn with_state(mut self, state: Value) -> Self {
        self.state = Some(state);
        self
    }

    /// Whether it replaces nothing.
    pub fn is_empty(&self) -> bool {
        self.messages.is_none() && self.state.is_none()
    }

    /// Applies it to `reducer`.
    pub(crate) fn apply_to(self, reducer: &mut Reducer) {
        if let Some(messages) = self.messages {
            *reducer = std::mem::take(reducer).with_messages(messages);
        }
        if let Some(state) = self.state {
            *reducer = std::mem::take(reducer).with_state(state);
        }
    }
}

impl From<()> for Flow {
    fn from((): ()) -> Self {
        Flow::Continue
    }
}
