//! Where each message and tool call is, by id: the [`Key`] of its message in the [`Store`],
//! which stays with the message while insertions move it.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;

use super::store::{Key, Store};
use crate::{Message, MessageId, ToolCallId};

/// The first message of each id and the first message holding each tool call.
#[derive(Clone, Debug, Default)]
pub(super) struct Index {
    /// Message id → key of the first message with that id.
    ids: HashMap<MessageId, Key>,
    /// Tool call id → (key of the first message holding it, index in its `toolCalls`).
    calls: HashMap<ToolCallId, (Key, usize)>,
}

impl Index {
    /// The key of the first message with this id.
    pub(super) fn message<Q>(&self, id: &Q) -> Option<Key>
    where
        MessageId: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.ids.get(id).copied()
    }

    /// The key of the first message holding this tool call, and the call's index in it.
    pub(super) fn tool_call<Q>(&self, id: &Q) -> Option<(Key, usize)>
    where
        ToolCallId: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.calls.get(id).copied()
    }

    /// Indexes the messages of `store` afresh.
    pub(super) fn rebuild(&mut self, store: &Store) {
        self.ids.clear();
        self.calls.clear();
        for position in 0..store.len() {
            let key = store.key_at(position);
            self.pushed(key, store.by_key(key));
        }
    }

    /// `message` was appended with this key (it is the last message).
    pub(super) fn pushed(&mut self, key: Key, message: &Message) {
        self.ids.entry(message.id().clone()).or_insert(key);
        if let Message::Assistant(a) = message {
            for (t, call) in a.tool_calls.iter().flatten().enumerate() {
                self.calls.entry(call.id.clone()).or_insert((key, t));
            }
        }
    }

    /// `message` was inserted with this key before the end of `store`: it becomes the first of
    /// its id (and of its tool calls) when it is before the one indexed.
    pub(super) fn inserted(&mut self, key: Key, message: &Message, store: &Store) {
        let position = store.position(key);
        match self.ids.get_mut(message.id()) {
            Some(first) if store.position(*first) > position => *first = key,
            Some(_) => {}
            None => {
                self.ids.insert(message.id().clone(), key);
            }
        }
        if let Message::Assistant(a) = message {
            for (t, call) in a.tool_calls.iter().flatten().enumerate() {
                match self.calls.get_mut(&call.id) {
                    Some(entry) if store.position(entry.0) > position => *entry = (key, t),
                    Some(_) => {}
                    None => {
                        self.calls.insert(call.id.clone(), (key, t));
                    }
                }
            }
        }
    }

    /// A tool call was added at index `t` of the message with this key, and is the first with
    /// its id.
    pub(super) fn add_tool_call(&mut self, id: ToolCallId, key: Key, t: usize) {
        self.calls.insert(id, (key, t));
    }
}
