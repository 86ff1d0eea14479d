//! rig's multi-turn stream items → AG-UI events on a run.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rig_core::agent::MultiTurnStreamItem;
use rig_core::completion::Usage;
use rig_core::streaming::{StreamedAssistantContent, StreamedUserContent, ToolCallDeltaContent};

use super::convert::tool_result_content;
use crate::server::{Result, RunContext, StreamWriter};
use crate::{MessageId, TextMessageRole, ToolCallId};

/// What is open on the run, so each item lands in the right block.
enum Open {
    None,
    Text(MessageId),
    Reasoning(MessageId),
}

/// Maps one rig run's stream items to AG-UI events, keeping blocks balanced: a text message
/// or reasoning block closes when something else begins, a tool call opens on its first delta
/// (or on the complete call, for providers that do not stream arguments) and ends on the
/// complete call, and each model request's end closes whatever is still open.
pub(crate) struct ItemMapper {
    writer: StreamWriter,
    open: Open,
    /// The text message the next tool calls belong to.
    parent: Option<MessageId>,
    /// rig's internal call id → the AG-UI call id, and whether it is still open.
    calls: HashMap<String, (ToolCallId, bool)>,
    /// Whether this model request streamed reasoning deltas (its whole block then repeats).
    streamed_reasoning: bool,
    /// The frontend calls made, `(internal id, call id)`: the client answers them.
    frontend: Arc<Mutex<Vec<(String, String)>>>,
    usage: Usage,
    saw_usage: bool,
}

impl ItemMapper {
    pub(crate) fn new<S: Send + 'static>(
        ctx: &RunContext<S>,
        frontend: Arc<Mutex<Vec<(String, String)>>>,
    ) -> Self {
        Self {
            writer: ctx.stream_writer(),
            open: Open::None,
            parent: None,
            calls: HashMap::new(),
            streamed_reasoning: false,
            frontend,
            usage: Usage::new(),
            saw_usage: false,
        }
    }

    fn close_block(&mut self) -> Result<()> {
        match std::mem::replace(&mut self.open, Open::None) {
            Open::None => Ok(()),
            Open::Text(id) => self.writer.end_message(&id),
            Open::Reasoning(id) => self.writer.end_reasoning(&id),
        }
    }

    /// Streams `delta` into the open text message, opening one first when needed; the delta's
    /// string moves into the event.
    fn text(&mut self, delta: String) -> Result<()> {
        if delta.is_empty() {
            return Ok(());
        }
        if !matches!(self.open, Open::Text(_)) {
            self.close_block()?;
            let id = self.writer.next_message_id();
            self.writer
                .open_message(id.clone(), TextMessageRole::Assistant)?;
            self.parent = Some(id.clone());
            self.open = Open::Text(id);
        }
        match &self.open {
            Open::Text(id) => self.writer.message_delta(id, delta),
            _ => Ok(()),
        }
    }

    /// Streams `delta` into the open reasoning block, opening one first when needed.
    fn reasoning(&mut self, delta: String) -> Result<()> {
        if delta.is_empty() {
            return Ok(());
        }
        if !matches!(self.open, Open::Reasoning(_)) {
            self.close_block()?;
            let id = self.writer.next_message_id();
            self.writer.open_reasoning(id.clone())?;
            self.open = Open::Reasoning(id);
        }
        match &self.open {
            Open::Reasoning(id) => self.writer.reasoning_delta(id, delta),
            _ => Ok(()),
        }
    }

    /// Opens the call `internal` (as `id`, or as `internal` when the provider gave none).
    fn open_call(&mut self, internal: &str, id: &str, name: &str) -> Result<ToolCallId> {
        if let Some((call, _)) = self.calls.get(internal) {
            return Ok(call.clone());
        }
        self.close_block()?;
        let call: ToolCallId = if id.is_empty() { internal } else { id }.into();
        self.writer
            .open_tool_call(call.clone(), name, self.parent.as_ref())?;
        self.calls.insert(internal.to_owned(), (call.clone(), true));
        Ok(call)
    }

    /// Maps one item; returns `true` when the item was the run's final response.
    pub(crate) fn push<S: Send + 'static, R>(
        &mut self,
        ctx: &RunContext<S>,
        item: MultiTurnStreamItem<R>,
    ) -> Result<bool> {
        match item {
            MultiTurnStreamItem::StreamAssistantItem(content) => match content {
                StreamedAssistantContent::Text(text) => self.text(text.text)?,
                StreamedAssistantContent::ReasoningDelta { reasoning, .. } => {
                    self.streamed_reasoning = true;
                    self.reasoning(reasoning)?;
                }
                // Providers that stream reasoning send the whole block again at the end; only
                // a block that was not streamed is shown.
                StreamedAssistantContent::Reasoning(block) if !self.streamed_reasoning => {
                    self.reasoning(block.display_text())?;
                }
                StreamedAssistantContent::ToolCallDelta {
                    id,
                    internal_call_id,
                    content,
                } => match content {
                    ToolCallDeltaContent::Name(name) => {
                        self.open_call(&internal_call_id, &id, &name)?;
                    }
                    ToolCallDeltaContent::Delta(delta) => {
                        // Arguments before a name cannot open a call; rig sends the name first.
                        if let Some((call, true)) = self.calls.get(&internal_call_id) {
                            let call = call.clone();
                            if !delta.is_empty() {
                                self.writer.tool_call_args(&call, delta)?;
                            }
                        }
                    }
                },
                StreamedAssistantContent::ToolCall {
                    tool_call,
                    internal_call_id,
                } => {
                    let streamed = self.calls.contains_key(&internal_call_id);
                    let call =
                        self.open_call(&internal_call_id, &tool_call.id, &tool_call.function.name)?;
                    if !streamed {
                        let args = tool_call.function.arguments.to_string();
                        self.writer.tool_call_args(&call, args)?;
                    }
                    if let Some(entry) = self.calls.get_mut(&internal_call_id)
                        && entry.1
                    {
                        entry.1 = false;
                        self.writer.end_tool_call(&call)?;
                    }
                }
                _ => {}
            },
            MultiTurnStreamItem::StreamUserItem(StreamedUserContent::ToolResult {
                tool_result,
                internal_call_id,
            }) => {
                // A frontend call is answered by the client, not by rig's placeholder.
                let frontend = self
                    .frontend
                    .lock()
                    .map_or(true, |f| f.iter().any(|(i, _)| *i == internal_call_id));
                if let Some((call, open)) = self.calls.get_mut(&internal_call_id) {
                    let call = call.clone();
                    if *open {
                        *open = false;
                        self.writer.end_tool_call(&call)?;
                    }
                    self.close_block()?;
                    if frontend {
                        return Ok(false);
                    }
                    ctx.tool_result(call, tool_result_content(&tool_result))?;
                }
            }
            MultiTurnStreamItem::CompletionCall(call) => {
                self.end_turn()?;
                if call.usage.has_values() {
                    self.saw_usage = true;
                    self.usage += call.usage;
                }
            }
            MultiTurnStreamItem::FinalResponse(_) => {
                self.end_turn()?;
                return Ok(true);
            }
            _ => {}
        }
        Ok(false)
    }

    /// Closes what a model request left open, and starts the next one without a parent.
    pub(crate) fn end_turn(&mut self) -> Result<()> {
        self.close_block()?;
        for (call, open) in self.calls.values_mut() {
            if *open {
                *open = false;
                self.writer.end_tool_call(call)?;
            }
        }
        self.parent = None;
        self.streamed_reasoning = false;
        Ok(())
    }

    /// Whether the frontend call `internal` was shown; the call id the client answers.
    pub(crate) fn call_id(&self, internal: &str) -> Option<&ToolCallId> {
        self.calls.get(internal).map(|(id, _)| id)
    }

    /// The usage summed over the run's model requests, when the provider reported any.
    pub(crate) fn usage(&self) -> Option<Usage> {
        self.saw_usage.then_some(self.usage)
    }

    /// Closes everything still open, reporting errors.
    pub(crate) fn finish(mut self) -> Result<()> {
        self.end_turn()?;
        self.writer.close_all()
    }
}
