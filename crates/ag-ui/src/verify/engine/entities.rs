//! The entity rules of the [`Engine`]: ownership, text messages, tool calls, reasoning,
//! steps and subagents.

use super::*;

impl Engine {
    /// The ownership rule shared by R16, R17, R21, R23, R29–R31 and R49.
    pub(super) fn check_owner(
        &self,
        ty: EventType,
        what: &str,
        id: &str,
        owner: Owner,
        tag: Option<&str>,
    ) -> Check {
        if self.owners.disagrees(tag, owner) {
            return Err(Fail::new(
                ViolationKind::OwnerMismatch,
                vec![id.to_owned(), tag.unwrap_or_default().to_owned()],
                format!(
                    "{ty} for {what} {} owned by {} was sent by {}",
                    show(id),
                    self.owners.label(owner),
                    tag_label(tag)
                ),
            ));
        }
        Ok(())
    }

    pub(super) fn text_start(&mut self, id: &str, tag: Option<&str>) -> Check {
        self.chunk_pending_elsewhere(LaneKind::Text, EventType::TextMessageStart, id, tag)?;
        let existing = self.messages.get(id).map(|e| (e.owner, e.open.is_some()));
        if let Some((_, true)) = existing {
            return Err(Fail::new(
                ViolationKind::TextAlreadyOpen,
                vec![id.to_owned()],
                format!(
                    "TEXT_MESSAGE_START for text message {} which is already open: end it with TEXT_MESSAGE_END first",
                    show(id)
                ),
            ));
        }
        if let Some((owner, _)) = existing {
            self.check_owner(EventType::TextMessageStart, "message", id, owner, tag)?;
        }
        let owner = match existing {
            Some((owner, _)) => owner,
            None => self.owners.intern(tag),
        };
        // Emission mode: one open text message per owner.
        if let Some(emission) = &self.emission
            && let Some(open) = emission.text.get(&owner)
        {
            return Err(Fail::new(
                ViolationKind::EmitTextAlreadyOpen,
                vec![id.to_owned(), open.to_string()],
                format!(
                    "TEXT_MESSAGE_START for {} while {} still has text message {} open: an agent streams one text message at a time, end {} first",
                    show(id),
                    self.owners.label(owner),
                    show(open),
                    show(open)
                ),
            ));
        }
        let seq = self.next_seq();
        match self.messages.get_mut(id) {
            Some(entry) => entry.open = Some(seq),
            None => {
                self.messages.insert(
                    id.into(),
                    Entry {
                        owner,
                        open: Some(seq),
                    },
                );
            }
        }
        self.open_text += 1;
        if let Some(emission) = &mut self.emission {
            emission.text.insert(owner, id.into());
        }
        Ok(())
    }

    pub(super) fn text_continue(
        &mut self,
        ty: EventType,
        id: &str,
        tag: Option<&str>,
        end: bool,
    ) -> Check {
        if !end && let Some(owner) = self.recent_text.get(id) {
            self.check_owner(ty, "text message", id, owner, tag)?;
            return Ok(());
        }
        let owner = match self.messages.get(id) {
            Some(Entry {
                owner,
                open: Some(_),
            }) => *owner,
            _ => {
                return Err(Fail::new(
                    ViolationKind::TextNotOpen,
                    vec![id.to_owned()],
                    format!(
                        "{ty} for text message {} which is not open: send TEXT_MESSAGE_START first",
                        show(id)
                    ),
                ));
            }
        };
        self.check_owner(ty, "text message", id, owner, tag)?;
        if end {
            self.recent_text.forget(id);
            if let Some(entry) = self.messages.get_mut(id) {
                entry.open = None;
            }
            self.open_text -= 1;
            if let Some(emission) = &mut self.emission {
                emission.text.retain(|_, open| &**open != id);
            }
        } else {
            self.recent_text.set(id, owner);
        }
        Ok(())
    }

    pub(super) fn tool_start(
        &mut self,
        id: &str,
        parent: Option<&str>,
        tag: Option<&str>,
    ) -> Check {
        self.chunk_pending_elsewhere(LaneKind::Tool, EventType::ToolCallStart, id, tag)?;
        let existing = self.tool_calls.get(id).map(|e| (e.owner, e.open.is_some()));
        if let Some((_, true)) = existing {
            return Err(Fail::new(
                ViolationKind::ToolAlreadyOpen,
                vec![id.to_owned()],
                format!(
                    "TOOL_CALL_START for tool call {} which is already open: end it with TOOL_CALL_END first",
                    show(id)
                ),
            ));
        }
        let inherited = self.owner_check_for_tool(id, parent, tag, existing.map(|e| e.0))?;
        let seq = self.next_seq();
        match self.tool_calls.get_mut(id) {
            Some(entry) => entry.open = Some(seq),
            None => {
                let owner = match tag {
                    Some(_) => self.owners.intern(tag),
                    None => inherited.unwrap_or(Owner::PARENT),
                };
                self.tool_calls.insert(
                    id.into(),
                    Entry {
                        owner,
                        open: Some(seq),
                    },
                );
            }
        }
        self.open_tools += 1;
        Ok(())
    }

    /// R20, R21, R22 for a new tool call (explicit or chunk); returns the owner inherited from
    /// the parent message, if any.
    pub(super) fn owner_check_for_tool(
        &self,
        id: &str,
        parent: Option<&str>,
        tag: Option<&str>,
        existing: Option<Owner>,
    ) -> Result<Option<Owner>, Fail> {
        let inherited = parent.and_then(|p| self.messages.get(p).map(|e| e.owner));
        if let (Some(parent), Some(parent_owner)) = (parent, inherited)
            && self.owners.disagrees(tag, parent_owner)
        {
            return Err(Fail::new(
                ViolationKind::OwnerParentMessageMismatch,
                vec![
                    id.to_owned(),
                    parent.to_owned(),
                    tag.unwrap_or_default().to_owned(),
                ],
                format!(
                    "TOOL_CALL_START for tool call {} was sent by {} but its parent message {} is owned by {}: a tool call belongs to the message that carries it",
                    show(id),
                    tag_label(tag),
                    show(parent),
                    self.owners.label(parent_owner)
                ),
            ));
        }
        if let Some(owner) = existing {
            self.check_owner(EventType::ToolCallStart, "tool call", id, owner, tag)?;
            if let (None, Some(parent), Some(parent_owner)) = (tag, parent, inherited)
                && parent_owner != owner
            {
                return Err(Fail::new(
                    ViolationKind::OwnerParentMessageMismatch,
                    vec![id.to_owned(), parent.to_owned()],
                    format!(
                        "TOOL_CALL_START reopens tool call {} owned by {} under parent message {} owned by {}: a tool call belongs to the message that carries it",
                        show(id),
                        self.owners.label(owner),
                        show(parent),
                        self.owners.label(parent_owner)
                    ),
                ));
            }
        }
        Ok(inherited)
    }

    pub(super) fn tool_continue(
        &mut self,
        ty: EventType,
        id: &str,
        tag: Option<&str>,
        end: bool,
    ) -> Check {
        if !end && let Some(owner) = self.recent_tool.get(id) {
            self.check_owner(ty, "tool call", id, owner, tag)?;
            return Ok(());
        }
        let owner = match self.tool_calls.get(id) {
            Some(Entry {
                owner,
                open: Some(_),
            }) => *owner,
            _ => {
                return Err(Fail::new(
                    ViolationKind::ToolNotOpen,
                    vec![id.to_owned()],
                    format!(
                        "{ty} for tool call {} which is not open: send TOOL_CALL_START first",
                        show(id)
                    ),
                ));
            }
        };
        self.check_owner(ty, "tool call", id, owner, tag)?;
        if end {
            self.recent_tool.forget(id);
            if let Some(entry) = self.tool_calls.get_mut(id) {
                entry.open = None;
            }
            self.open_tools -= 1;
        } else {
            self.recent_tool.set(id, owner);
        }
        Ok(())
    }

    pub(super) fn reasoning_start(&mut self, ty: EventType, id: &str, tag: Option<&str>) -> Check {
        let span = ty == EventType::ReasoningStart;
        if !span {
            self.chunk_pending_elsewhere(LaneKind::Reasoning, ty, id, tag)?;
        }
        let existing = self
            .reasoning
            .get(id)
            .map(|e| (e.owner, if span { e.span } else { e.message }.is_some()));
        if let Some((_, true)) = existing {
            let (kind, what, end) = if span {
                (
                    ViolationKind::ReasoningSpanAlreadyOpen,
                    "reasoning span",
                    "REASONING_END",
                )
            } else {
                (
                    ViolationKind::ReasoningMessageAlreadyOpen,
                    "reasoning message",
                    "REASONING_MESSAGE_END",
                )
            };
            return Err(Fail::new(
                kind,
                vec![id.to_owned()],
                format!(
                    "{ty} for {what} {} which is already open: close it with {end} first",
                    show(id)
                ),
            ));
        }
        if let Some((owner, _)) = existing {
            self.check_owner(ty, "reasoning", id, owner, tag)?;
        }
        let owner = match existing {
            Some((owner, _)) => owner,
            None => self.owners.intern(tag),
        };
        if let Some(emission) = &self.emission {
            let slots = if span {
                &emission.span
            } else {
                &emission.reasoning_message
            };
            if let Some(open) = slots.get(&owner) {
                let what = if span {
                    "reasoning span"
                } else {
                    "reasoning message"
                };
                return Err(Fail::new(
                    ViolationKind::EmitReasoningAlreadyOpen,
                    vec![id.to_owned(), open.to_string()],
                    format!(
                        "{ty} for {} while {} still has {what} {} open: an agent reasons in one block at a time, close {} first",
                        show(id),
                        self.owners.label(owner),
                        show(open),
                        show(open)
                    ),
                ));
            }
        }
        let seq = self.next_seq();
        if !self.reasoning.contains_key(id) {
            self.reasoning.insert(
                id.into(),
                ReasoningEntry {
                    owner,
                    span: None,
                    message: None,
                },
            );
        }
        let Some(entry) = self.reasoning.get_mut(id) else {
            return Ok(());
        };
        if span {
            entry.span = Some(seq);
            self.open_spans += 1;
        } else {
            entry.message = Some(seq);
            self.open_reasoning_messages += 1;
        }
        if let Some(emission) = &mut self.emission {
            let slots = if span {
                &mut emission.span
            } else {
                &mut emission.reasoning_message
            };
            slots.insert(owner, id.into());
        }
        Ok(())
    }

    pub(super) fn reasoning_continue(
        &mut self,
        ty: EventType,
        id: &str,
        tag: Option<&str>,
    ) -> Check {
        let content = ty == EventType::ReasoningMessageContent;
        if content && let Some(owner) = self.recent_reasoning.get(id) {
            self.check_owner(ty, "reasoning", id, owner, tag)?;
            return Ok(());
        }
        let span = ty == EventType::ReasoningEnd;
        let owner = match self.reasoning.get(id) {
            Some(entry) if if span { entry.span } else { entry.message }.is_some() => entry.owner,
            _ => {
                let (kind, what, start) = if span {
                    (
                        ViolationKind::ReasoningSpanNotOpen,
                        "reasoning span",
                        "REASONING_START",
                    )
                } else {
                    (
                        ViolationKind::ReasoningMessageNotOpen,
                        "reasoning message",
                        "REASONING_MESSAGE_START",
                    )
                };
                return Err(Fail::new(
                    kind,
                    vec![id.to_owned()],
                    format!(
                        "{ty} for {what} {} which is not open: send {start} first",
                        show(id)
                    ),
                ));
            }
        };
        self.check_owner(ty, "reasoning", id, owner, tag)?;
        if content {
            self.recent_reasoning.set(id, owner);
        } else {
            if !span {
                self.recent_reasoning.forget(id);
            }
            if let Some(entry) = self.reasoning.get_mut(id) {
                if span {
                    entry.span = None;
                    self.open_spans -= 1;
                } else {
                    entry.message = None;
                    self.open_reasoning_messages -= 1;
                }
            }
            if let Some(emission) = &mut self.emission {
                let slots = if span {
                    &mut emission.span
                } else {
                    &mut emission.reasoning_message
                };
                slots.retain(|_, open| &**open != id);
            }
        }
        Ok(())
    }

    pub(super) fn step_started(&mut self, name: &str, tag: Option<&str>) -> Check {
        if let (Some(owner), Some(open)) = (self.owners.find(tag), self.steps.get(name))
            && open.iter().any(|&(o, _)| o == owner)
        {
            let whose = match tag {
                Some(_) => format!(" by {}", tag_label(tag)),
                None => String::new(),
            };
            return Err(Fail::new(
                ViolationKind::StepAlreadyOpen,
                vec![name.to_owned()],
                format!(
                    "STEP_STARTED for step {} which is already open{whose}: finish it with STEP_FINISHED first",
                    show(name)
                ),
            ));
        }
        let owner = self.owners.intern(tag);
        let seq = self.next_seq();
        match self.steps.get_mut(name) {
            Some(open) => open.push((owner, seq)),
            None => {
                self.steps.insert(name.into(), vec![(owner, seq)]);
            }
        }
        self.open_steps += 1;
        Ok(())
    }

    pub(super) fn step_finished(&mut self, name: &str, tag: Option<&str>) -> Check {
        let owner = self.owners.find(tag);
        let Some(open) = self.steps.get_mut(name) else {
            return Err(Fail::new(
                ViolationKind::StepNotOpen,
                vec![name.to_owned()],
                format!(
                    "STEP_FINISHED for step {} which is not open: send STEP_STARTED first",
                    show(name)
                ),
            ));
        };
        match open.iter().position(|&(o, _)| Some(o) == owner) {
            Some(at) => {
                open.remove(at);
                if open.is_empty() {
                    self.steps.remove(name);
                }
            }
            None => {
                let other = open[0].0;
                return Err(Fail::new(
                    ViolationKind::StepOwnerMismatch,
                    vec![
                        name.to_owned(),
                        tag.unwrap_or_default().to_owned(),
                        self.owners.name(other).unwrap_or_default().to_owned(),
                    ],
                    format!(
                        "STEP_FINISHED for step {} was sent by {} but the step is open under {}: a step must be finished by whoever started it",
                        show(name),
                        tag_label(tag),
                        self.owners.label(other)
                    ),
                ));
            }
        }
        self.open_steps -= 1;
        Ok(())
    }

    pub(super) fn subagent_started(&mut self, id: &str, parent: Option<&str>) -> Check {
        match self.subagents.get(id) {
            Some(Subagent::Active(_)) => {
                return Err(Fail::new(
                    ViolationKind::SubagentAlreadyActive,
                    vec![id.to_owned()],
                    format!(
                        "SUBAGENT_STARTED for subagent {} which is already active: finish it with SUBAGENT_FINISHED or SUBAGENT_ERROR first",
                        show(id)
                    ),
                ));
            }
            Some(Subagent::Closed) => {
                return Err(Fail::new(
                    ViolationKind::SubagentIdReused,
                    vec![id.to_owned()],
                    format!(
                        "SUBAGENT_STARTED for subagent {} which already ended in this run: subagent run ids name one invocation, use a new id",
                        show(id)
                    ),
                ));
            }
            None => {}
        }
        if let Some(parent) = parent
            && !self.subagents.contains_key(parent)
        {
            return Err(Fail::new(
                ViolationKind::SubagentUnknownParent,
                vec![id.to_owned(), parent.to_owned()],
                format!(
                    "SUBAGENT_STARTED for subagent {} names parent subagent {} which was not started in this run",
                    show(id),
                    show(parent)
                ),
            ));
        }
        let seq = self.next_seq();
        self.subagents.insert(id.into(), Subagent::Active(seq));
        self.active_subagents += 1;
        Ok(())
    }

    pub(super) fn subagent_ended(&mut self, ty: EventType, id: &str) -> Check {
        match self.subagents.get_mut(id) {
            Some(state @ Subagent::Active(_)) => *state = Subagent::Closed,
            _ => {
                return Err(Fail::new(
                    ViolationKind::SubagentNotActive,
                    vec![id.to_owned()],
                    format!(
                        "{ty} for subagent {} which is not active: it was never started, or already ended",
                        show(id)
                    ),
                ));
            }
        }
        self.active_subagents -= 1;
        Ok(())
    }
}
