//! Where each message and tool call is, by id, kept right as messages are inserted.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;

use crate::{Message, MessageId, ToolCallId};

/// The first message of each id and the first message holding each tool call. Entries name a
/// message by a key that stays with it while insertions move it; `positions` says where each
/// key is, so that an insertion updates one number per moved message instead of rehashing
/// their ids.
#[derive(Clone, Debug, Default)]
pub(super) struct Index {
    /// Message id → key of the first message with that id.
    ids: HashMap<MessageId, u32>,
    /// Tool call id → (key of the first message holding it, index in its `toolCalls`).
    calls: HashMap<ToolCallId, (u32, usize)>,
    /// The key of the message at each position.
    keys: Vec<u32>,
    /// The position of each key's message.
    positions: Vec<usize>,
}

impl Index {
    /// The position of the first message with this id.
    pub(super) fn message<Q>(&self, id: &Q) -> Option<usize>
    where
        MessageId: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.ids.get(id).map(|&key| self.positions[key as usize])
    }

    /// The position of the first message holding this tool call, and the call's index in it.
    pub(super) fn tool_call<Q>(&self, id: &Q) -> Option<(usize, usize)>
    where
        ToolCallId: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.calls
            .get(id)
            .map(|&(key, t)| (self.positions[key as usize], t))
    }

    /// Indexes `messages` afresh.
    pub(super) fn rebuild(&mut self, messages: &[Message]) {
        self.ids.clear();
        self.calls.clear();
        self.keys.clear();
        self.positions.clear();
        for (position, message) in messages.iter().enumerate() {
            self.pushed(position, message);
        }
    }

    fn new_key(&mut self, position: usize) -> u32 {
        let key = u32::try_from(self.positions.len()).expect("fewer than 2^32 messages");
        self.positions.push(position);
        key
    }

    /// `message` was appended at `position` (the end).
    pub(super) fn pushed(&mut self, position: usize, message: &Message) {
        let key = self.new_key(position);
        self.keys.push(key);
        self.ids.entry(message.id().clone()).or_insert(key);
        if let Message::Assistant(a) = message {
            for (t, call) in a.tool_calls.iter().flatten().enumerate() {
                self.calls.entry(call.id.clone()).or_insert((key, t));
            }
        }
    }

    /// `message` was inserted at `position`, before the end; the messages after it moved up
    /// by one. Costs one store per moved message.
    pub(super) fn inserted(&mut self, position: usize, message: &Message) {
        let key = self.new_key(position);
        self.keys.insert(position, key);
        for (moved, &k) in self.keys.iter().enumerate().skip(position + 1) {
            self.positions[k as usize] = moved;
        }
        match self.ids.get_mut(message.id()) {
            Some(first) if self.positions[*first as usize] > position => *first = key,
            Some(_) => {}
            None => {
                self.ids.insert(message.id().clone(), key);
            }
        }
        if let Message::Assistant(a) = message {
            for (t, call) in a.tool_calls.iter().flatten().enumerate() {
                match self.calls.get_mut(&call.id) {
                    Some(entry) if self.positions[entry.0 as usize] > position => {
                        *entry = (key, t);
                    }
                    Some(_) => {}
                    None => {
                        self.calls.insert(call.id.clone(), (key, t));
                    }
                }
            }
        }
    }

    /// A tool call was added at index `t` of the message at `position`, and is the first with
    /// its id.
    pub(super) fn add_tool_call(&mut self, id: ToolCallId, position: usize, t: usize) {
        self.calls.insert(id, (self.keys[position], t));
    }
}
