//! `TEXT_MESSAGE_*`, `REASONING_*`: opening, appending to and closing text and reasoning messages.

use super::*;

impl Reducer {
    pub(super) fn text_start(&mut self, e: &TextMessageStartEvent) -> Applied {
        let (key, created) = match self.ix.message(&e.message_id) {
            Some(k) if self.messages.by_key(k).role() == Role::Activity => {
                return activity_id_warning(&e.message_id);
            }
            Some(k) => (k, false),
            None => {
                let role = e.role.unwrap_or(TextMessageRole::Assistant);
                let id = e.message_id.clone();
                let name = e.name.clone();
                let mut message = match role {
                    TextMessageRole::Assistant => {
                        let mut m = AssistantMessage::new(id).with_content("");
                        m.name = name;
                        Message::Assistant(m)
                    }
                    TextMessageRole::User => {
                        let mut m = UserMessage::new(id, "");
                        m.name = name;
                        Message::User(m)
                    }
                    TextMessageRole::System => {
                        let mut m = SystemMessage::new(id, "");
                        m.name = name;
                        Message::System(m)
                    }
                    TextMessageRole::Developer => {
                        let mut m = DeveloperMessage::new(id, "");
                        m.name = name;
                        Message::Developer(m)
                    }
                };
                *message.subagent_run_id_mut() = e.subagent_run_id.clone();
                (self.push(message), true)
            }
        };
        let merged = merge_metadata(
            self.messages.by_key_mut(key).metadata_mut(),
            e.metadata.as_deref(),
        );
        let position = self.messages.position(key);
        if created {
            Applied::messages(MessagesChange::Appended(position))
        } else {
            Applied::updated_if(merged, position)
        }
    }

    pub(super) fn reasoning_start(
        &mut self,
        id: &MessageId,
        tag: Option<&crate::SubagentRunId>,
        metadata: Option<&Metadata>,
    ) -> Applied {
        let (key, created) = match self.ix.message(id) {
            Some(k) if self.messages.by_key(k).role() == Role::Activity => {
                return activity_id_warning(id);
            }
            Some(k) => (k, false),
            None => {
                let mut message = ReasoningMessage::new(id.clone(), "");
                message.subagent_run_id = tag.cloned();
                (self.push(Message::Reasoning(message)), true)
            }
        };
        let merged = merge_metadata(self.messages.by_key_mut(key).metadata_mut(), metadata);
        let position = self.messages.position(key);
        if created {
            Applied::messages(MessagesChange::Appended(position))
        } else {
            Applied::updated_if(merged, position)
        }
    }

    pub(super) fn text_target(&self, id: &MessageId) -> Result<Key, Applied> {
        match self.ix.message(id) {
            None => Err(Applied {
                warning: Some(warn(
                    ApplyWarningKind::UnknownMessage,
                    format!("no message with id {:?}", id.as_str()),
                )),
                ..Applied::none()
            }),
            Some(k) if self.messages.by_key(k).role() == Role::Activity => {
                Err(activity_id_warning(id))
            }
            Some(k) => Ok(k),
        }
    }

    pub(super) fn append_text(
        &mut self,
        id: &MessageId,
        delta: &str,
        metadata: Option<&Metadata>,
    ) -> Result<Applied, LimitExceeded> {
        let key = match self.text_target(id) {
            Ok(k) => k,
            Err(applied) => return Ok(applied),
        };
        let message = self.messages.by_key_mut(key);
        let (kind, len, max) = match &*message {
            Message::Reasoning(m) => (
                LimitKind::ReasoningBytes,
                m.content.len(),
                self.limits.max_reasoning_bytes,
            ),
            other => (
                LimitKind::MessageBytes,
                other.text().map_or(0, str::len),
                self.limits.max_message_bytes,
            ),
        };
        LimitExceeded::check(kind, len.saturating_add(delta.len()), max)?;
        match message {
            Message::Developer(m) => m.content.push_str(delta),
            Message::System(m) => m.content.push_str(delta),
            Message::Reasoning(m) => m.content.push_str(delta),
            Message::Assistant(m) => m.content.get_or_insert_with(String::new).push_str(delta),
            Message::User(m) => append_content(&mut m.content, delta),
            Message::Tool(m) => append_content(&mut m.content, delta),
            Message::Activity(_) => unreachable!("text_target refuses activity messages"),
        }
        merge_metadata(message.metadata_mut(), metadata);
        Ok(Applied::messages(MessagesChange::Updated(
            self.messages.position(key),
        )))
    }

    pub(super) fn end_text(&mut self, id: &MessageId, metadata: Option<&Metadata>) -> Applied {
        let key = match self.text_target(id) {
            Ok(k) => k,
            Err(applied) => return applied,
        };
        let message = self.messages.by_key_mut(key);
        // The text grew by appending; give back the spare capacity now that it is complete.
        shrink_text(message);
        let merged = merge_metadata(message.metadata_mut(), metadata);
        let position = self.messages.position(key);
        Applied {
            new_message: Some(position),
            ..Applied::updated_if(merged, position)
        }
    }
}
