//! `TOOL_CALL_*`: tool calls on assistant messages, their arguments and their results.

use super::*;

impl Reducer {
    /// The tool call with this id, and the position of the message holding it.
    pub(super) fn tool_call_mut(&mut self, id: &str) -> Option<(usize, &mut ToolCall)> {
        let (m, t) = self.ix.tool_call(id)?;
        let position = self.messages.position(m);
        match self.messages.by_key_mut(m) {
            Message::Assistant(a) => a.tool_calls.as_mut()?.get_mut(t).map(|c| (position, c)),
            _ => None,
        }
    }

    pub(super) fn tool_call_start(&mut self, e: &ToolCallStartEvent) -> Applied {
        if self.run_tool_call_set.insert(e.tool_call_id.clone()) {
            self.run_tool_call_ids.push(e.tool_call_id.clone());
        }
        if let Some((m, call)) = self.tool_call_mut(e.tool_call_id.as_str()) {
            // A replay: the call stays where it is, with its arguments.
            let renamed = call.function.name != e.tool_call_name;
            let warning = renamed.then(|| {
                let w = warn(
                    ApplyWarningKind::ToolCallRenamed,
                    format!(
                        "tool call {:?} already exists with name {:?}; renamed to {:?}",
                        e.tool_call_id.as_str(),
                        call.function.name,
                        e.tool_call_name
                    ),
                );
                call.function.name.clone_from(&e.tool_call_name);
                w
            });
            let merged = merge_metadata(&mut call.metadata, e.metadata.as_deref());
            return Applied {
                warning,
                ..Applied::updated_if(renamed || merged, m)
            };
        }
        let mut warning = None;
        let existing = match &e.parent_message_id {
            Some(parent) => match self.ix.message(parent) {
                Some(p) if self.messages.by_key(p).role() == Role::Assistant => Some(p),
                Some(p) => {
                    warning = Some(warn(
                        ApplyWarningKind::ParentNotAssistant,
                        format!(
                            "parentMessageId {:?} names a {} message; the tool call gets a new \
                             assistant message {:?}",
                            parent.as_str(),
                            self.messages.by_key(p).role().as_str(),
                            e.tool_call_id.as_str()
                        ),
                    ));
                    None
                }
                None => None,
            },
            None => None,
        };
        let (key, change) = match existing {
            Some(p) => (p, MessagesChange::Updated(self.messages.position(p))),
            None => {
                let id = match (&e.parent_message_id, &warning) {
                    (Some(parent), None) => parent.clone(),
                    _ => MessageId::new(e.tool_call_id.as_str()),
                };
                let mut message = AssistantMessage::new(id).with_tool_calls(Vec::new());
                message.subagent_run_id = e.subagent_run_id.clone();
                let p = self.push(Message::Assistant(message));
                (p, MessagesChange::Appended(self.messages.position(p)))
            }
        };
        let Message::Assistant(message) = self.messages.by_key_mut(key) else {
            unreachable!("the parent is an assistant message")
        };
        let calls = message.tool_calls.get_or_insert_with(Vec::new);
        let mut call = ToolCall::new(e.tool_call_id.clone(), e.tool_call_name.clone(), "");
        merge_metadata(&mut call.metadata, e.metadata.as_deref());
        calls.push(call);
        self.ix
            .add_tool_call(e.tool_call_id.clone(), key, calls.len() - 1);
        self.partial_args
            .insert(e.tool_call_id.clone(), PartialJson::new());
        Applied {
            warning,
            ..Applied::messages(change)
        }
    }

    pub(super) fn tool_call_args(
        &mut self,
        id: &ToolCallId,
        delta: &str,
        e: &crate::ToolCallArgsEvent,
    ) -> Result<Applied, LimitExceeded> {
        let max = self.limits.max_tool_call_args_bytes;
        let Some((m, call)) = self.tool_call_mut(id.as_str()) else {
            return Ok(unknown_tool_call(id));
        };
        LimitExceeded::check(
            LimitKind::ToolCallArgsBytes,
            call.function.arguments.len().saturating_add(delta.len()),
            max,
        )?;
        call.function.arguments.push_str(delta);
        merge_metadata(&mut call.metadata, e.metadata.as_deref());
        if let Some(scanner) = self.partial_args.get_mut(id) {
            scanner.push(delta);
        }
        Ok(Applied::messages(MessagesChange::Updated(m)))
    }

    pub(super) fn tool_call_end(
        &mut self,
        id: &ToolCallId,
        metadata: Option<&Metadata>,
    ) -> Applied {
        let Some((m, call)) = self.tool_call_mut(id.as_str()) else {
            return unknown_tool_call(id);
        };
        call.function.arguments.shrink_to_fit();
        let merged = merge_metadata(&mut call.metadata, metadata);
        self.partial_args.remove(id);
        Applied {
            new_tool_call: Some(id.clone()),
            ..Applied::updated_if(merged, m)
        }
    }

    pub(super) fn tool_call_result(&mut self, e: &ToolCallResultEvent) -> Applied {
        self.answered.insert(e.tool_call_id.clone());
        let mut message = ToolMessage::new(
            e.message_id.clone(),
            e.tool_call_id.clone(),
            e.content.clone(),
        );
        message.subagent_run_id = e.subagent_run_id.clone();
        merge_metadata(&mut message.metadata, e.metadata.as_deref());
        let message = Message::Tool(message);
        match self.ix.tool_call(&e.tool_call_id) {
            Some((call_at, _)) => {
                // After the call's message and the tool messages that follow it.
                let position = self
                    .messages
                    .tool_run_end(self.messages.position(call_at) + 1);
                let appended = position == self.messages.len();
                self.insert(position, message);
                Applied {
                    new_message: Some(position),
                    ..Applied::messages(if appended {
                        MessagesChange::Appended(position)
                    } else {
                        MessagesChange::Inserted(position)
                    })
                }
            }
            None => {
                let key = self.push(message);
                let position = self.messages.position(key);
                Applied {
                    new_message: Some(position),
                    ..Applied::messages(MessagesChange::Appended(position))
                }
            }
        }
    }
}
