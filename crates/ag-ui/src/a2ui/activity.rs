//! Surfaces as AG-UI activity: `ACTIVITY_SNAPSHOT` / `ACTIVITY_DELTA` of type
//! [`ACTIVITY_TYPE`] (`a2ui-surface`), whose content is `{"a2ui_operations": [...]}` — what
//! `@ag-ui/a2ui-middleware` emits for the client, written by the agent itself for clients that
//! render A2UI without the middleware.

use super::error::A2uiError;
use super::ops::Operation;
use super::{ACTIVITY_TYPE, OPERATIONS_KEY};
use crate::server::{RunContext, StreamWriter, SubagentContext};
use crate::{Event, JsonPatchOperation, MessageId, Metadata};

mod sealed {
    pub trait Sealed {}
}

/// Where activity events go: a run's [`RunContext`], a [`SubagentContext`] (its events are
/// attributed to it), or a [`StreamWriter`]. Implemented by those three only.
pub trait ActivitySink: sealed::Sealed {
    /// Sends one event of a family that needs no bracket.
    ///
    /// # Errors
    ///
    /// The run refused it (see [`RunContext::emit`]).
    fn send_event(&self, event: Event) -> crate::server::Result<()>;

    /// A fresh message id from the owner's counter.
    fn new_message_id(&self) -> MessageId;
}

impl<S> sealed::Sealed for RunContext<S> {}
impl<S> ActivitySink for RunContext<S> {
    fn send_event(&self, event: Event) -> crate::server::Result<()> {
        self.emit(event)
    }
    fn new_message_id(&self) -> MessageId {
        self.emitter.next_message_id()
    }
}

impl sealed::Sealed for SubagentContext {}
impl ActivitySink for SubagentContext {
    fn send_event(&self, event: Event) -> crate::server::Result<()> {
        self.emit(event)
    }
    fn new_message_id(&self) -> MessageId {
        self.emitter.next_message_id()
    }
}

impl sealed::Sealed for StreamWriter {}
impl ActivitySink for StreamWriter {
    fn send_event(&self, event: Event) -> crate::server::Result<()> {
        self.emit(event)
    }
    fn new_message_id(&self) -> MessageId {
        self.next_message_id()
    }
}

/// The content of an `a2ui-surface` activity: `{"a2ui_operations": [...]}`.
pub fn activity_content(operations: &[Operation]) -> Metadata {
    let mut content = Metadata::new();
    content.insert(
        OPERATIONS_KEY.to_owned(),
        serde_json::to_value(operations).expect("operations serialize"),
    );
    content
}

/// One `a2ui-surface` activity message on a run: shown with a snapshot, grown with deltas
/// that append operations (`add /a2ui_operations/-`), or replaced.
///
/// A client's reducer (this crate's [`client::apply`](crate::client), `@ag-ui/client`) keeps
/// the content; an A2UI renderer (CopilotKit's `@copilotkit/a2ui-renderer`) applies the
/// operations in order, so a delta that appends an `updateDataModel` updates the surface in
/// place.
///
/// ```
/// use ag_ui::a2ui::{Component, SurfaceActivity, Surface, UpdateDataModel};
/// use ag_ui::{Event, RunAgentInput};
/// use ag_ui::server::RunContext;
/// use serde_json::json;
///
/// let (ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap();
/// let surface = Surface::new("clock", "https://example.com/catalog.json")
///     .with_component(Component::new("root", "Text").with_path("text", "/time"))
///     .with_data(json!({"time": "12:00"}));
/// let mut activity = SurfaceActivity::show(&ctx, surface.operations()).unwrap();
/// activity
///     .append(&ctx, vec![UpdateDataModel::new("clock", "/time", json!("12:01")).into()])
///     .unwrap();
///
/// let events = events.drain();
/// let Event::ActivitySnapshot(snapshot) = &events[0] else { panic!() };
/// assert_eq!(snapshot.activity_type, "a2ui-surface");
/// assert_eq!(snapshot.content["a2ui_operations"].as_array().unwrap().len(), 3);
/// let Event::ActivityDelta(delta) = &events[1] else { panic!() };
/// assert_eq!(
///     serde_json::to_value(&delta.patch).unwrap()[0]["path"],
///     "/a2ui_operations/-"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SurfaceActivity {
    message_id: MessageId,
    operations: usize,
}

impl SurfaceActivity {
    /// Shows `operations` as a new `a2ui-surface` activity (`ACTIVITY_SNAPSHOT`, a minted
    /// message id).
    ///
    /// # Errors
    ///
    /// [`Emit`](super::A2uiErrorKind::Emit) when the run refused the event.
    pub fn show(sink: &impl ActivitySink, operations: Vec<Operation>) -> Result<Self, A2uiError> {
        let id = sink.new_message_id();
        Self::show_with_id(sink, id, operations)
    }

    /// Shows `operations` under the message id `id` (the A2UI middleware names its
    /// activities `a2ui-surface-{tool call id}`).
    ///
    /// # Errors
    ///
    /// [`Emit`](super::A2uiErrorKind::Emit) when the run refused the event.
    pub fn show_with_id(
        sink: &impl ActivitySink,
        id: impl Into<MessageId>,
        operations: Vec<Operation>,
    ) -> Result<Self, A2uiError> {
        let message_id = id.into();
        let count = operations.len();
        sink.send_event(snapshot(message_id.clone(), activity_content(&operations)))?;
        Ok(Self {
            message_id,
            operations: count,
        })
    }

    /// Appends `operations` to the activity (`ACTIVITY_DELTA`, one `add` per operation).
    /// Nothing is sent for none.
    ///
    /// # Errors
    ///
    /// [`Emit`](super::A2uiErrorKind::Emit) when the run refused the event.
    pub fn append(
        &mut self,
        sink: &impl ActivitySink,
        operations: Vec<Operation>,
    ) -> Result<(), A2uiError> {
        if operations.is_empty() {
            return Ok(());
        }
        let count = operations.len();
        let patch: Vec<JsonPatchOperation> = operations
            .into_iter()
            .map(|op| {
                serde_json::from_value(serde_json::json!({
                    "op": "add",
                    "path": format!("/{OPERATIONS_KEY}/-"),
                    "value": op,
                }))
                .expect("an add operation reads")
            })
            .collect();
        sink.send_event(Event::activity_delta(
            self.message_id.clone(),
            ACTIVITY_TYPE,
            patch,
        ))?;
        self.operations += count;
        Ok(())
    }

    /// Replaces the activity's operations with `operations` (`ACTIVITY_SNAPSHOT`, same id).
    ///
    /// # Errors
    ///
    /// [`Emit`](super::A2uiErrorKind::Emit) when the run refused the event.
    pub fn replace(
        &mut self,
        sink: &impl ActivitySink,
        operations: Vec<Operation>,
    ) -> Result<(), A2uiError> {
        let count = operations.len();
        sink.send_event(snapshot(
            self.message_id.clone(),
            activity_content(&operations),
        ))?;
        self.operations = count;
        Ok(())
    }

    /// The activity's message id.
    pub fn message_id(&self) -> &MessageId {
        &self.message_id
    }

    /// How many operations it holds.
    pub fn len(&self) -> usize {
        self.operations
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.operations == 0
    }
}

/// `ACTIVITY_SNAPSHOT` of an `a2ui-surface` with `content`, replacing what the id held.
pub(crate) fn snapshot(id: MessageId, content: Metadata) -> Event {
    crate::ActivitySnapshotEvent::new(id, ACTIVITY_TYPE, content)
        .with_replace(true)
        .into()
}
