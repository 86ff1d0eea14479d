//! Id sharing for stream decoders (see the [module above](super)).

use crate::Event;

/// The last ids a stream decoder read, by kind. A stream names the same message, tool call and
/// subagent run in event after event; an id equal to the last one of its kind is replaced by a
/// reference to it, so that the events a consumer keeps hold one copy of the id between them.
#[derive(Clone, Debug, Default)]
pub(crate) struct IdCache {
    message: Option<crate::MessageId>,
    tool_call: Option<crate::ToolCallId>,
    subagent: Option<crate::SubagentRunId>,
}

impl IdCache {
    /// Shares the ids of a streaming event (text, tool call and reasoning events, and the
    /// attribution of any event) with the last ones of their kind, and remembers them.
    pub(crate) fn share(&mut self, event: &mut Event) {
        use Event::*;
        match event {
            TextMessageStart(e) => share(&mut self.message, &mut e.message_id),
            TextMessageContent(e) => share(&mut self.message, &mut e.message_id),
            TextMessageEnd(e) => share(&mut self.message, &mut e.message_id),
            TextMessageChunk(e) => {
                if let Some(id) = &mut e.message_id {
                    share(&mut self.message, id);
                }
            }
            ToolCallStart(e) => {
                share(&mut self.tool_call, &mut e.tool_call_id);
                if let Some(id) = &mut e.parent_message_id {
                    share(&mut self.message, id);
                }
            }
            ToolCallArgs(e) => share(&mut self.tool_call, &mut e.tool_call_id),
            ToolCallEnd(e) => share(&mut self.tool_call, &mut e.tool_call_id),
            ReasoningStart(e) => share(&mut self.message, &mut e.message_id),
            ReasoningMessageStart(e) => share(&mut self.message, &mut e.message_id),
            ReasoningMessageContent(e) => share(&mut self.message, &mut e.message_id),
            ReasoningMessageEnd(e) => share(&mut self.message, &mut e.message_id),
            ReasoningEnd(e) => share(&mut self.message, &mut e.message_id),
            _ => {}
        }
        if let Some(Some(id)) = event.attribution_mut() {
            share(&mut self.subagent, id);
        }
    }
}

/// `id`, replaced by the one in `slot` when equal, else remembered in `slot`.
#[inline]
fn share<T: Clone + AsRef<str>>(slot: &mut Option<T>, id: &mut T) {
    match slot {
        Some(last) if last.as_ref() == id.as_ref() => *id = last.clone(),
        _ => *slot = Some(id.clone()),
    }
}
