//! [`StreamWriter`]: bracketed blocks opened, streamed and closed by id, for bridges whose
//! blocks outlive one borrow of the context.

use std::fmt;
use std::sync::Arc;

use super::Result;
use super::scope::{Emitter, Mint, attribute, emit_unordered};
use super::sink::Sink;
use crate::{Event, MessageId, SubagentRunId, TextMessageRole, ToolCallId, ToolCallStartEvent};

/// What a [`StreamWriter`] has open, closed again by `Drop`.
#[derive(Debug, PartialEq)]
enum Block {
    Text(MessageId),
    Reasoning(MessageId),
    ToolCall(ToolCallId),
}

/// Opens, streams and closes text messages, reasoning blocks and tool calls by id, without
/// borrowing the context it came from.
///
/// The handles of [`RunContext`](crate::server::RunContext) borrow it, which is right for an
/// agent written as straight-line code but does not fit a state machine that learns, one
/// provider chunk at a time, when a message ends and a tool call begins (a model bridge such
/// as `ag_ui::llm`'s `ChunkMapper`). The writer is that lower level: it owns a handle on the
/// run's sink, so it can live in a struct across `await`s while the context stays free.
///
/// The guarantees are those of the handles: every event passes the ordering verifier before it
/// is queued (a wrong id is an `Err`, never a broken stream), events are attributed to the
/// subagent the writer came from, ids are minted from the same counters as the context's, and
/// whatever is still open when the writer is dropped is closed then, in reverse order of
/// opening. [`close_all`](Self::close_all) does the same and reports errors.
///
/// ```
/// use ag_ui::{Event, RunAgentInput, TextMessageRole};
/// use ag_ui::server::RunContext;
///
/// let (ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap();
/// let mut writer = ctx.stream_writer();
/// let message = writer.next_message_id();
/// writer.open_message(message.clone(), TextMessageRole::Assistant).unwrap();
/// writer.message_delta(&message, "Hi").unwrap();
/// let call = writer.next_tool_call_id();
/// writer.open_tool_call(call.clone(), "search", Some(&message)).unwrap();
/// // A delta for a call that is not open is refused, and nothing is queued.
/// assert!(writer.tool_call_args(&"nope".into(), "{}").is_err());
/// drop(writer); // closes the tool call, then the message
///
/// let events = events.drain();
/// assert_eq!(events.len(), 5);
/// assert_eq!(events[3], Event::tool_call_end("r-call-1"));
/// assert_eq!(events[4], Event::text_message_end("r-msg-1"));
/// ```
pub struct StreamWriter {
    sink: Sink,
    attribution: Option<SubagentRunId>,
    mint: Arc<Mint>,
    open: Vec<Block>,
}

impl fmt::Debug for StreamWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamWriter")
            .field("attribution", &self.attribution)
            .field("open", &self.open)
            .finish_non_exhaustive()
    }
}

impl StreamWriter {
    pub(crate) fn new(emitter: &Emitter) -> Self {
        Self {
            sink: emitter.sink.clone(),
            attribution: emitter.attribution.clone(),
            mint: Arc::clone(&emitter.mint),
            open: Vec::new(),
        }
    }

    #[inline]
    fn send(&self, event: Event) -> Result<()> {
        self.sink.send(attribute(event, self.attribution.as_ref()))
    }

    fn opened(&mut self, block: Block, event: Event) -> Result<()> {
        self.send(event)?;
        self.open.push(block);
        Ok(())
    }

    fn closed(&mut self, block: &Block, event: Event) -> Result<()> {
        self.send(event)?;
        if let Some(at) = self.open.iter().rposition(|b| b == block) {
            self.open.remove(at);
        }
        Ok(())
    }

    /// A fresh message id from the context's counter (`{run id}-msg-{n}`).
    pub fn next_message_id(&self) -> MessageId {
        self.mint.next_message_id()
    }

    /// A fresh tool call id from the context's counter (`{run id}-call-{n}`).
    pub fn next_tool_call_id(&self) -> ToolCallId {
        self.mint.next_tool_call_id()
    }

    /// Another writer on the same run and owner (same attribution, same id counters), with
    /// nothing open: for a second stream of blocks that closes on its own, as a sub-call's.
    pub fn sibling(&self) -> StreamWriter {
        Self {
            sink: self.sink.clone(),
            attribution: self.attribution.clone(),
            mint: Arc::clone(&self.mint),
            open: Vec::new(),
        }
    }

    /// Sends one event of a family that needs no bracket (`TOOL_CALL_RESULT`, `ACTIVITY_*`,
    /// `STATE_*`, `CUSTOM`, …), attributed like the writer's other events: the same as
    /// [`RunContext::emit`](crate::server::RunContext::emit).
    ///
    /// # Errors
    ///
    /// As [`RunContext::emit`](crate::server::RunContext::emit): a bracketed or lifecycle type
    /// is [`ErrorKind::Misuse`](crate::server::ErrorKind::Misuse), an event the verifier refuses
    /// is [`ErrorKind::Protocol`](crate::server::ErrorKind::Protocol), and the run may be gone.
    ///
    /// ```
    /// use ag_ui::{Event, RunAgentInput};
    /// use ag_ui::server::{ErrorKind, RunContext};
    ///
    /// let (ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap();
    /// let writer = ctx.stream_writer();
    /// let id = writer.next_message_id();
    /// writer.emit(Event::custom("progress", 1.into())).unwrap();
    /// let err = writer.emit(Event::text_message_end(id)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Protocol); // no such message is open
    /// assert_eq!(events.drain().len(), 1);
    /// ```
    pub fn emit(&self, event: impl Into<Event>) -> Result<()> {
        emit_unordered(&self.sink, self.attribution.as_ref(), event.into())
    }

    /// Waits while the run's backlog is at or above its high-water mark, as
    /// [`RunContext::ready`](crate::server::RunContext::ready) does; the future borrows
    /// nothing.
    ///
    /// # Errors
    ///
    /// As [`RunContext::ready`](crate::server::RunContext::ready).
    pub fn ready(&self) -> impl std::future::Future<Output = Result<()>> + Send + 'static {
        self.sink.ready()
    }

    /// Whether anything opened through this writer is still open.
    pub fn has_open(&self) -> bool {
        !self.open.is_empty()
    }

    /// `TEXT_MESSAGE_START`.
    ///
    /// # Errors
    ///
    /// The verifier refused it (the id is open) or the run is gone; see
    /// [`RunContext::emit`](crate::server::RunContext::emit).
    pub fn open_message(&mut self, id: MessageId, role: TextMessageRole) -> Result<()> {
        let event = Event::text_message_start(id.clone(), role);
        self.opened(Block::Text(id), event)
    }

    /// `TEXT_MESSAGE_CONTENT`.
    ///
    /// # Errors
    ///
    /// The message is not open, or the run is gone.
    #[inline]
    pub fn message_delta(&mut self, id: &MessageId, text: impl Into<String>) -> Result<()> {
        self.send(Event::text_message_content(id.clone(), text))
    }

    /// `TEXT_MESSAGE_END`.
    ///
    /// # Errors
    ///
    /// The message is not open, or the run is gone.
    pub fn end_message(&mut self, id: &MessageId) -> Result<()> {
        self.closed(
            &Block::Text(id.clone()),
            Event::text_message_end(id.clone()),
        )
    }

    /// `REASONING_START` and `REASONING_MESSAGE_START`, one id for the span and its message.
    ///
    /// # Errors
    ///
    /// The verifier refused it, or the run is gone. A span opened before a refused message is
    /// closed again.
    pub fn open_reasoning(&mut self, id: MessageId) -> Result<()> {
        self.send(Event::reasoning_start(id.clone()))?;
        if let Err(e) = self.send(Event::reasoning_message_start(id.clone())) {
            let _ = self.send(Event::reasoning_end(id));
            return Err(e);
        }
        self.open.push(Block::Reasoning(id));
        Ok(())
    }

    /// `REASONING_MESSAGE_CONTENT`.
    ///
    /// # Errors
    ///
    /// The reasoning block is not open, or the run is gone.
    #[inline]
    pub fn reasoning_delta(&mut self, id: &MessageId, text: impl Into<String>) -> Result<()> {
        self.send(Event::reasoning_message_content(id.clone(), text))
    }

    /// `REASONING_MESSAGE_END` and `REASONING_END`.
    ///
    /// # Errors
    ///
    /// The reasoning block is not open, or the run is gone.
    pub fn end_reasoning(&mut self, id: &MessageId) -> Result<()> {
        let message = self.send(Event::reasoning_message_end(id.clone()));
        let span = self.closed(
            &Block::Reasoning(id.clone()),
            Event::reasoning_end(id.clone()),
        );
        message.and(span)
    }

    /// `TOOL_CALL_START`, naming `parent` as `parentMessageId`.
    ///
    /// # Errors
    ///
    /// The verifier refused it (the id is open), or the run is gone.
    pub fn open_tool_call(
        &mut self,
        id: ToolCallId,
        name: impl Into<String>,
        parent: Option<&MessageId>,
    ) -> Result<()> {
        let mut start = ToolCallStartEvent::new(id.clone(), name);
        start.parent_message_id = parent.cloned();
        self.opened(Block::ToolCall(id), start.into())
    }

    /// `TOOL_CALL_ARGS`.
    ///
    /// # Errors
    ///
    /// The call is not open, or the run is gone.
    #[inline]
    pub fn tool_call_args(&mut self, id: &ToolCallId, delta: impl Into<String>) -> Result<()> {
        self.send(Event::tool_call_args(id.clone(), delta))
    }

    /// `TOOL_CALL_END`.
    ///
    /// # Errors
    ///
    /// The call is not open, or the run is gone.
    pub fn end_tool_call(&mut self, id: &ToolCallId) -> Result<()> {
        self.closed(
            &Block::ToolCall(id.clone()),
            Event::tool_call_end(id.clone()),
        )
    }

    /// Closes everything still open, most recent first.
    ///
    /// # Errors
    ///
    /// The first refused emission; the others are still attempted.
    pub fn close_all(&mut self) -> Result<()> {
        let mut result = Ok(());
        while let Some(block) = self.open.pop() {
            let closed = match block {
                Block::Text(id) => self.send(Event::text_message_end(id)),
                Block::Reasoning(id) => self
                    .send(Event::reasoning_message_end(id.clone()))
                    .and(self.send(Event::reasoning_end(id))),
                Block::ToolCall(id) => self.send(Event::tool_call_end(id)),
            };
            if result.is_ok() {
                result = closed;
            }
        }
        result
    }
}

impl Drop for StreamWriter {
    fn drop(&mut self) {
        let _ = self.close_all();
    }
}

#[cfg(test)]
mod tests {
    use crate::server::{ErrorKind, RunContext};
    use crate::{Event, EventType, RunAgentInput, TextMessageRole, verify};

    #[test]
    fn blocks_close_in_reverse_order_on_drop_and_the_stream_verifies() {
        let (ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap();
        let mut writer = ctx.stream_writer();
        let thought = writer.next_message_id();
        writer.open_reasoning(thought.clone()).unwrap();
        writer.reasoning_delta(&thought, "hmm").unwrap();
        writer.end_reasoning(&thought).unwrap();
        let message = writer.next_message_id();
        writer
            .open_message(message.clone(), TextMessageRole::Assistant)
            .unwrap();
        let a = writer.next_tool_call_id();
        let b = writer.next_tool_call_id();
        writer
            .open_tool_call(a.clone(), "x", Some(&message))
            .unwrap();
        writer
            .open_tool_call(b.clone(), "y", Some(&message))
            .unwrap();
        writer.tool_call_args(&b, "{}").unwrap();
        writer.end_tool_call(&a).unwrap();
        assert!(writer.has_open());
        drop(writer);
        // The context's own counters continue after the writer's.
        assert_eq!(ctx.tool_call("z").unwrap().id().as_str(), "r-call-3");

        let mut all = vec![Event::run_started("t", "r")];
        all.extend(events.drain());
        verify::verify_all(&all).unwrap();
        let tail: Vec<EventType> = all[all.len() - 5..].iter().map(Event::event_type).collect();
        assert_eq!(
            tail,
            [
                EventType::ToolCallEnd,
                EventType::ToolCallEnd,
                EventType::TextMessageEnd,
                EventType::ToolCallStart,
                EventType::ToolCallEnd,
            ]
        );
        assert_eq!(all[all.len() - 4], Event::tool_call_end("r-call-2"));
    }

    #[test]
    fn a_wrong_id_is_refused_and_nothing_is_queued() {
        let (ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap();
        let mut writer = ctx.stream_writer();
        let err = writer.message_delta(&"m".into(), "x").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Protocol);
        let err = writer.end_tool_call(&"c".into()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Protocol);
        assert!(!writer.has_open());
        drop(writer);
        assert!(events.drain().is_empty());
    }

    #[test]
    fn a_subagent_writer_attributes_what_it_emits() {
        let (ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap();
        let sub = ctx.subagent("worker").unwrap();
        let mut writer = sub.stream_writer();
        let id = writer.next_message_id();
        assert_eq!(id.as_str(), "r-sub-1-msg-1");
        writer
            .open_message(id.clone(), TextMessageRole::Assistant)
            .unwrap();
        drop(writer);
        let events = events.drain();
        assert_eq!(events.len(), 3);
        for event in &events[1..] {
            assert_eq!(event.subagent_run_id().map(|s| s.as_str()), Some("r-sub-1"));
        }
    }
}
