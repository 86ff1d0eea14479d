//! rig's stream items → AG-UI events on a run.

use std::collections::{HashMap, HashSet};

use ag_ui::server::bridge::{self, LoopConfig};
use ag_ui::server::{Result, RunContext, StreamWriter};
use ag_ui::{Content, MessageId, TextMessageRole, TokenUsage, ToolCallId};
use rig_agent::agent::MultiTurnStreamItem;
use rig_core::completion::Usage;
use rig_core::message::{AssistantContent, ToolCall, ToolResult};
use rig_core::streaming::{Item, PartKind, StreamEvent};

use crate::convert::tool_result_content;
use crate::hook::HeldCall;

/// The one block open on the run, so each item lands in the right one.
enum Open {
    None,
    Text(MessageId),
    Reasoning(MessageId),
}

/// A tool call of this turn that is open on the run.
struct OpenCall {
    id: ToolCallId,
    /// Whether any argument fragment was streamed (a provider that sends the arguments whole
    /// has them written at the call's end).
    streamed: bool,
}

/// Maps one run's stream items to AG-UI events, keeping blocks balanced: text and reasoning
/// open at their first fragment and close when their part ends or something else begins; a
/// tool call opens when its part starts (named, with an id of the run's minting: rig names a
/// call's id only at its end) and ends with its part; each model request's end closes
/// whatever is still open.
pub(crate) struct ItemMapper {
    writer: StreamWriter,
    open: Open,
    /// The text message the next tool calls belong to.
    parent: Option<MessageId>,
    /// The reasoning parts of this model request that streamed fragments (their end repeats
    /// the whole text, shown only for a part that streamed none).
    streamed_reasoning: HashSet<usize>,
    /// The open tool calls of this model request, by part.
    calls: HashMap<usize, OpenCall>,
    /// rig's id of each call shown (the provider's, or rig's own) → the AG-UI id, for its result.
    ids: HashMap<String, ToolCallId>,
    /// The frontend calls shown, for the client to answer.
    pending: Vec<ToolCallId>,
    usage: Option<TokenUsage>,
}

impl ItemMapper {
    pub(crate) fn new<S: Send + 'static>(ctx: &RunContext<S>) -> Self {
        Self {
            writer: ctx.stream_writer(),
            open: Open::None,
            parent: None,
            streamed_reasoning: HashSet::new(),
            calls: HashMap::new(),
            ids: HashMap::new(),
            pending: Vec::new(),
            usage: None,
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

    /// Opens a call to `name` under the current text message, with a fresh id.
    fn open_call(&mut self, name: &str) -> Result<ToolCallId> {
        self.close_block()?;
        let id = self.writer.next_tool_call_id();
        self.writer
            .open_tool_call(id.clone(), name, self.parent.as_ref())?;
        Ok(id)
    }

    /// Ends the call of `part`, writing the arguments of `call` first when none streamed; a
    /// call without an open part (`None`, or a part whose start was not shown) is shown whole.
    fn end_call(&mut self, part: Option<usize>, call: &ToolCall) -> Result<()> {
        let open = match part.and_then(|part| self.calls.remove(&part)) {
            Some(open) => open,
            None => OpenCall {
                id: self.open_call(call.function.name.as_str())?,
                streamed: false,
            },
        };
        if !open.streamed {
            self.writer.tool_call_args(&open.id, arguments(call))?;
        }
        self.writer.end_tool_call(&open.id)?;
        self.ids.insert(call.id.wire().into_owned(), open.id);
        Ok(())
    }

    fn event(&mut self, event: StreamEvent) -> Result<()> {
        match event {
            StreamEvent::Text { text, .. } => self.text(text),
            StreamEvent::Reasoning { part, text } => {
                self.streamed_reasoning.insert(part.index());
                self.reasoning(text)
            }
            StreamEvent::Start {
                part,
                kind: PartKind::ToolCall,
                name: Some(name),
            } => {
                let id = self.open_call(name.as_str())?;
                let open = OpenCall {
                    id,
                    streamed: false,
                };
                self.calls.insert(part.index(), open);
                Ok(())
            }
            StreamEvent::Arguments { part, json } => match self.calls.get_mut(&part.index()) {
                Some(open) if !json.is_empty() => {
                    open.streamed = true;
                    self.writer.tool_call_args(&open.id, json)
                }
                _ => Ok(()),
            },
            StreamEvent::End { part, content } => match content {
                AssistantContent::Text(_) if matches!(self.open, Open::Text(_)) => {
                    self.close_block()
                }
                AssistantContent::Reasoning(reasoning) => {
                    // A provider that does not stream its reasoning sends it whole here.
                    if !self.streamed_reasoning.contains(&part.index()) {
                        self.reasoning(reasoning.text)?;
                    }
                    match self.open {
                        Open::Reasoning(_) => self.close_block(),
                        _ => Ok(()),
                    }
                }
                AssistantContent::ToolCall(call) => self.end_call(Some(part.index()), &call),
                _ => Ok(()),
            },
            StreamEvent::Start { .. } => Ok(()),
        }
    }

    /// Shows the calls rig held back: a frontend call for the client to answer, or a call to a
    /// tool the run does not have, with what the model was told.
    pub(crate) fn held<S: Send + 'static>(
        &mut self,
        ctx: &RunContext<S>,
        calls: Vec<HeldCall>,
    ) -> Result<()> {
        for call in calls {
            let id = self.open_call(&call.name)?;
            self.writer.tool_call_args(&id, call.arguments)?;
            self.writer.end_tool_call(&id)?;
            match call.answer {
                Some(text) => {
                    ctx.tool_result(id, Content::Text(text))?;
                }
                None => self.pending.push(id),
            }
        }
        Ok(())
    }

    /// Maps one item; returns `true` when the item was the run's final response.
    pub(crate) fn push<S: Send + 'static>(
        &mut self,
        ctx: &RunContext<S>,
        item: MultiTurnStreamItem,
        config: &LoopConfig,
    ) -> Result<bool> {
        match item {
            MultiTurnStreamItem::StreamAssistantItem(Item::Event(event)) => self.event(event)?,
            // Reported again when the turn commits; shown here only if it never streamed.
            MultiTurnStreamItem::ToolCall { tool_call }
                if !self.ids.contains_key(tool_call.id.wire().as_ref()) =>
            {
                self.end_call(None, &tool_call)?;
            }
            MultiTurnStreamItem::ToolResult { tool_result } => self.result(ctx, tool_result)?,
            MultiTurnStreamItem::CompletionCall(call) => {
                self.end_turn()?;
                if let Some(usage) = token_usage(&call.usage, config) {
                    bridge::add_usage(&mut self.usage, usage);
                }
            }
            // A hook rejected the turn: what streamed stays shown (AG-UI has no retraction);
            // the retry's answer follows.
            MultiTurnStreamItem::ModelTurnRetried { .. } => self.end_turn()?,
            MultiTurnStreamItem::FinalResponse(_) => {
                self.end_turn()?;
                return Ok(true);
            }
            _ => {}
        }
        Ok(false)
    }

    fn result<S: Send + 'static>(&mut self, ctx: &RunContext<S>, result: ToolResult) -> Result<()> {
        let Some(id) = self.ids.get(result.call.wire().as_ref()).cloned() else {
            // A result for a call that was not shown (none is expected).
            return Ok(());
        };
        self.close_block()?;
        ctx.tool_result(id, tool_result_content(result.content))?;
        Ok(())
    }

    /// Closes what a model request left open, and starts the next one without a parent.
    fn end_turn(&mut self) -> Result<()> {
        self.close_block()?;
        for (_, open) in self.calls.drain() {
            self.writer.end_tool_call(&open.id)?;
        }
        self.parent = None;
        self.streamed_reasoning.clear();
        Ok(())
    }

    /// Closes everything still open, reporting errors; the frontend calls for the client to
    /// answer, and the usage summed over the run's model requests, when the provider reported
    /// any.
    pub(crate) fn finish(mut self) -> Result<(Vec<ToolCallId>, Option<TokenUsage>)> {
        self.end_turn()?;
        self.writer.close_all()?;
        Ok((self.pending, self.usage))
    }
}

/// One model request's usage as AG-UI reports it; `None` when the provider reported none.
fn token_usage(usage: &Usage, config: &LoopConfig) -> Option<TokenUsage> {
    let counters = [
        usage.input_tokens,
        usage.output_tokens,
        usage.total_tokens,
        usage.reasoning_tokens,
        usage.cached_input_tokens,
        usage.cache_creation_input_tokens,
    ];
    if counters.iter().all(Option::is_none) {
        return None;
    }
    let mut out = config.usage("rig", "unknown");
    out.input_tokens = usage.input_tokens;
    out.output_tokens = usage.output_tokens;
    out.total_tokens = usage.total_tokens;
    out.reasoning_tokens = usage.reasoning_tokens;
    out.cached_input_tokens = usage.cached_input_tokens;
    out.cache_write_input_tokens = usage.cache_creation_input_tokens;
    Some(out)
}

/// A call's arguments as the model sent them: its text when they were not a JSON object, else
/// the object.
fn arguments(call: &ToolCall) -> String {
    match &call.function.invalid_arguments {
        Some(text) => text.clone(),
        None => serde_json::to_string(&call.function.arguments).unwrap_or_default(),
    }
}
