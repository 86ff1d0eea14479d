//! The reducer's messages in conversation order, and [`Messages`], the read-only view of them.
//!
//! A `TOOL_CALL_RESULT` goes right after the assistant message holding its call (and the tool
//! messages already there), so messages are inserted anywhere, not only appended. Kept in one
//! `Vec` in order, each insertion moved every later message: 20,000 results among 20,000
//! messages took seconds. Here a message never moves once added:
//!
//! * the messages live in `slots`, in the order they were added; a message's slot index is its
//!   [`Key`], which the reducer's id index keeps;
//! * while every message was appended at the end, the conversation order is the slots' order
//!   and nothing else is kept (the common case costs what a `Vec` costs, and a position is a
//!   key);
//! * from the first insertion before the end on, the order is a balanced tree over the keys
//!   (a scapegoat tree: deterministic, no rotations, rebuilt locally when a path grows too
//!   long), each node counting its subtree's messages and tool messages. Inserting at a
//!   position, the position of a key, the key at a position, and the end of a run of tool
//!   messages each cost O(log n); iterating costs O(1) per message.
//!
//! A snapshot that replaces the list as a whole starts over in slot order.

use std::fmt;

use serde::ser::{Serialize, SerializeSeq, Serializer};

use crate::{Message, Role};

/// Where a message is kept: its index among the messages in the order they were added. It does
/// not change when messages are inserted before it.
pub(super) type Key = u32;

/// No node.
const NIL: u32 = u32::MAX;

/// The messages, in conversation order. See the [module documentation](self).
#[derive(Clone, Debug, Default)]
pub(super) struct Store {
    /// The messages by key.
    slots: Vec<Message>,
    /// The keys of the messages that are not tool messages, ascending, while the order is the
    /// slots' order (`tree` is `None`): where a run of tool messages ends.
    non_tools: Vec<Key>,
    /// The conversation order once a message was inserted before the end, or a message turned
    /// into or out of a tool message.
    tree: Option<Tree>,
}

fn is_tool(message: &Message) -> bool {
    message.role() == Role::Tool
}

fn key_of(index: usize) -> Key {
    Key::try_from(index)
        .ok()
        .filter(|&k| k != NIL)
        .expect("fewer than 2^32 - 1 messages")
}

impl Store {
    /// These messages, in this order.
    pub(super) fn from_vec(messages: Vec<Message>) -> Self {
        let mut store = Store::default();
        for message in messages {
            store.push(message);
        }
        store
    }

    /// The messages in order, given up.
    pub(super) fn into_vec(self) -> Vec<Message> {
        let Some(tree) = self.tree else {
            return self.slots;
        };
        let mut slots: Vec<Option<Message>> = self.slots.into_iter().map(Some).collect();
        tree.in_order()
            .filter_map(|key| slots[key as usize].take())
            .collect()
    }

    /// How many messages there are.
    pub(super) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Appends a message; returns its key.
    pub(super) fn push(&mut self, message: Message) -> Key {
        let key = key_of(self.slots.len());
        let tool = is_tool(&message);
        self.slots.push(message);
        match &mut self.tree {
            Some(tree) => {
                let end = tree.len();
                tree.insert(end, key, tool);
            }
            None if !tool => self.non_tools.push(key),
            None => {}
        }
        key
    }

    /// Inserts a message at `position` (at most [`len`](Self::len)), moving the messages from
    /// there on up by one; returns its key.
    pub(super) fn insert(&mut self, position: usize, message: Message) -> Key {
        if position >= self.slots.len() {
            return self.push(message);
        }
        let key = key_of(self.slots.len());
        let tool = is_tool(&message);
        self.tree_mut().insert(position, key, tool);
        self.slots.push(message);
        key
    }

    /// The message with this key.
    pub(super) fn by_key(&self, key: Key) -> &Message {
        &self.slots[key as usize]
    }

    /// The message with this key, to change in place. Changing whether it is a tool message
    /// goes through [`replace`](Self::replace) instead.
    pub(super) fn by_key_mut(&mut self, key: Key) -> &mut Message {
        &mut self.slots[key as usize]
    }

    /// Puts `message` where the message with this key is.
    pub(super) fn replace(&mut self, key: Key, message: Message) {
        let tool = is_tool(&message);
        let was_tool = is_tool(&self.slots[key as usize]);
        self.slots[key as usize] = message;
        if tool != was_tool {
            self.tree_mut().set_tool(key, tool);
        }
    }

    /// The position of the message with this key.
    pub(super) fn position(&self, key: Key) -> usize {
        match &self.tree {
            None => key as usize,
            Some(tree) => tree.position(key),
        }
    }

    /// The key of the message at `position` (less than [`len`](Self::len)).
    pub(super) fn key_at(&self, position: usize) -> Key {
        match &self.tree {
            None => key_of(position),
            Some(tree) => tree.key_at(position),
        }
    }

    /// The message at `position`.
    pub(super) fn get(&self, position: usize) -> Option<&Message> {
        if position >= self.slots.len() {
            return None;
        }
        Some(self.by_key(self.key_at(position)))
    }

    /// The first position at or after `position` that does not hold a tool message
    /// ([`len`](Self::len) when there is none): where a run of tool messages starting at
    /// `position` ends.
    pub(super) fn tool_run_end(&self, position: usize) -> usize {
        match &self.tree {
            None => {
                let at = self.non_tools.partition_point(|&k| (k as usize) < position);
                self.non_tools
                    .get(at)
                    .map_or(self.slots.len(), |&k| k as usize)
            }
            Some(tree) => tree.tool_run_end(position),
        }
    }

    /// The tree, built over the slots' order if there is none yet.
    fn tree_mut(&mut self) -> &mut Tree {
        if self.tree.is_none() {
            self.non_tools = Vec::new();
        }
        let slots = &self.slots;
        self.tree
            .get_or_insert_with(|| Tree::from_order(slots.iter().map(is_tool)))
    }

    /// The read-only view.
    pub(super) fn view(&self) -> Messages<'_> {
        Messages { store: self }
    }
}

/// One message's place in the tree.
#[derive(Clone, Copy, Debug)]
struct Node {
    left: u32,
    right: u32,
    parent: u32,
    /// Messages in this subtree.
    size: u32,
    /// Tool messages in this subtree.
    tools: u32,
    /// Whether this node's message is a tool message.
    tool: bool,
}

/// The conversation order as a scapegoat tree whose nodes are indexed by key, ordered by
/// position (in-order), with subtree sizes.
#[derive(Clone, Debug)]
struct Tree {
    nodes: Vec<Node>,
    root: u32,
    /// Reused while a subtree is rebuilt.
    scratch: Vec<u32>,
}

impl Tree {
    /// A balanced tree over keys `0..n` in key order; `tools` says, for each, whether it is a
    /// tool message.
    fn from_order(tools: impl ExactSizeIterator<Item = bool>) -> Tree {
        let mut tree = Tree {
            nodes: Vec::with_capacity(tools.len() + 1),
            root: NIL,
            scratch: Vec::new(),
        };
        tree.nodes.extend(tools.map(|tool| Node {
            left: NIL,
            right: NIL,
            parent: NIL,
            size: 1,
            tools: u32::from(tool),
            tool,
        }));
        let keys: Vec<u32> = (0..tree.nodes.len()).map(key_of).collect();
        tree.root = tree.build(&keys, NIL);
        tree
    }

    fn len(&self) -> usize {
        self.size(self.root) as usize
    }

    fn size(&self, node: u32) -> u32 {
        if node == NIL {
            0
        } else {
            self.nodes[node as usize].size
        }
    }

    fn non_tools(&self, node: u32) -> u32 {
        if node == NIL {
            0
        } else {
            let n = &self.nodes[node as usize];
            n.size - n.tools
        }
    }

    /// Builds a perfectly balanced subtree over `keys` (in order) under `parent`; returns its
    /// root. Recursion depth is log2 of the number of keys.
    fn build(&mut self, keys: &[u32], parent: u32) -> u32 {
        if keys.is_empty() {
            return NIL;
        }
        let mid = keys.len() / 2;
        let node = keys[mid];
        let left = self.build(&keys[..mid], node);
        let right = self.build(&keys[mid + 1..], node);
        let tools = {
            let count = |n: u32| {
                if n == NIL {
                    0
                } else {
                    self.nodes[n as usize].tools
                }
            };
            count(left) + count(right)
        };
        let n = &mut self.nodes[node as usize];
        n.left = left;
        n.right = right;
        n.parent = parent;
        n.size = u32::try_from(keys.len()).expect("fewer than 2^32 messages");
        n.tools = tools + u32::from(n.tool);
        node
    }

    /// Inserts `key` (the next key: the number of nodes) at `position`.
    fn insert(&mut self, position: usize, key: u32, tool: bool) {
        debug_assert_eq!(key as usize, self.nodes.len());
        self.nodes.push(Node {
            left: NIL,
            right: NIL,
            parent: NIL,
            size: 1,
            tools: u32::from(tool),
            tool,
        });
        if self.root == NIL {
            self.root = key;
            return;
        }
        let mut rest = position.min(self.len());
        let mut node = self.root;
        let mut depth = 1usize;
        loop {
            let n = &mut self.nodes[node as usize];
            n.size += 1;
            n.tools += u32::from(tool);
            let (left, right) = (n.left, n.right);
            let left_size = self.size(left) as usize;
            depth += 1;
            if rest <= left_size {
                if left == NIL {
                    self.nodes[node as usize].left = key;
                    break;
                }
                node = left;
            } else {
                rest -= left_size + 1;
                if right == NIL {
                    self.nodes[node as usize].right = key;
                    break;
                }
                node = right;
            }
        }
        self.nodes[key as usize].parent = node;
        if depth > max_depth(self.len()) {
            self.rebalance_above(key);
        }
    }

    /// After an insertion made the path to `node` too long: rebuilds the subtree of the lowest
    /// ancestor whose larger child holds more than two thirds of it (one exists on such a path).
    fn rebalance_above(&mut self, node: u32) {
        let mut child = node;
        let mut at = self.nodes[node as usize].parent;
        while at != NIL {
            if 3 * u64::from(self.size(child)) > 2 * u64::from(self.size(at)) {
                break;
            }
            child = at;
            at = self.nodes[at as usize].parent;
        }
        let scapegoat = if at == NIL { self.root } else { at };
        let parent = self.nodes[scapegoat as usize].parent;
        let mut keys = std::mem::take(&mut self.scratch);
        keys.clear();
        keys.extend(self.in_order_from(scapegoat));
        let rebuilt = self.build(&keys, parent);
        self.scratch = keys;
        if parent == NIL {
            self.root = rebuilt;
        } else if self.nodes[parent as usize].left == scapegoat {
            self.nodes[parent as usize].left = rebuilt;
        } else {
            self.nodes[parent as usize].right = rebuilt;
        }
    }

    /// The position of `key`.
    fn position(&self, key: u32) -> usize {
        let mut position = self.size(self.nodes[key as usize].left) as usize;
        let mut node = key;
        loop {
            let parent = self.nodes[node as usize].parent;
            if parent == NIL {
                return position;
            }
            if self.nodes[parent as usize].right == node {
                position += self.size(self.nodes[parent as usize].left) as usize + 1;
            }
            node = parent;
        }
    }

    /// The key at `position` (less than [`len`](Self::len)).
    fn key_at(&self, position: usize) -> u32 {
        let mut rest = position;
        let mut node = self.root;
        loop {
            let n = &self.nodes[node as usize];
            let left_size = self.size(n.left) as usize;
            if rest < left_size {
                node = n.left;
            } else if rest == left_size {
                return node;
            } else {
                rest -= left_size + 1;
                node = n.right;
            }
        }
    }

    /// See [`Store::tool_run_end`].
    fn tool_run_end(&self, position: usize) -> usize {
        // The non-tool messages before `position`...
        let mut before = 0u32;
        let mut rest = position;
        let mut node = self.root;
        while node != NIL {
            let n = &self.nodes[node as usize];
            let left_size = self.size(n.left) as usize;
            if rest <= left_size {
                node = n.left;
            } else {
                before += self.non_tools(n.left) + u32::from(!n.tool);
                rest -= left_size + 1;
                node = n.right;
            }
        }
        // ...and where the next one is.
        if before >= self.non_tools(self.root) {
            return self.len();
        }
        let mut rank = before;
        let mut position = 0usize;
        let mut node = self.root;
        loop {
            let n = &self.nodes[node as usize];
            let left = self.non_tools(n.left);
            if rank < left {
                node = n.left;
            } else if rank == left && !n.tool {
                return position + self.size(n.left) as usize;
            } else {
                rank -= left + u32::from(!n.tool);
                position += self.size(n.left) as usize + 1;
                node = n.right;
            }
        }
    }

    /// Marks `key` as a tool message or not.
    fn set_tool(&mut self, key: u32, tool: bool) {
        if self.nodes[key as usize].tool == tool {
            return;
        }
        self.nodes[key as usize].tool = tool;
        let mut node = key;
        while node != NIL {
            let n = &mut self.nodes[node as usize];
            if tool {
                n.tools += 1;
            } else {
                n.tools -= 1;
            }
            node = n.parent;
        }
    }

    fn leftmost(&self, mut node: u32) -> u32 {
        while node != NIL && self.nodes[node as usize].left != NIL {
            node = self.nodes[node as usize].left;
        }
        node
    }

    fn rightmost(&self, mut node: u32) -> u32 {
        while node != NIL && self.nodes[node as usize].right != NIL {
            node = self.nodes[node as usize].right;
        }
        node
    }

    /// The key after `node` in order (`NIL` after the last).
    fn next(&self, node: u32) -> u32 {
        let right = self.nodes[node as usize].right;
        if right != NIL {
            return self.leftmost(right);
        }
        let mut node = node;
        loop {
            let parent = self.nodes[node as usize].parent;
            if parent == NIL || self.nodes[parent as usize].left == node {
                return parent;
            }
            node = parent;
        }
    }

    /// The key before `node` in order (`NIL` before the first).
    fn prev(&self, node: u32) -> u32 {
        let left = self.nodes[node as usize].left;
        if left != NIL {
            return self.rightmost(left);
        }
        let mut node = node;
        loop {
            let parent = self.nodes[node as usize].parent;
            if parent == NIL || self.nodes[parent as usize].right == node {
                return parent;
            }
            node = parent;
        }
    }

    /// The keys of the subtree under `top`, in order.
    fn in_order_from(&self, top: u32) -> impl Iterator<Item = u32> + '_ {
        let mut node = self.leftmost(top);
        let mut left = self.size(top);
        std::iter::from_fn(move || {
            if left == 0 {
                return None;
            }
            left -= 1;
            let key = node;
            node = self.next(node);
            Some(key)
        })
    }

    /// Every key, in order.
    fn in_order(&self) -> impl Iterator<Item = u32> + '_ {
        self.in_order_from(self.root)
    }
}

/// The deepest a node may be (the root at depth 1) before the path to it is rebuilt: the
/// scapegoat bound for α = 2/3, log base 3/2 of the node count.
fn max_depth(n: usize) -> usize {
    // n < 2^32: at most 55.
    let mut depth = 1;
    let mut reach = 1.0f64;
    while reach < n as f64 {
        reach *= 1.5;
        depth += 1;
    }
    depth
}

/// The reducer's messages, in conversation order: a read-only view of what
/// [`Reducer::messages`](super::Reducer::messages) holds, without copying it.
///
/// It reads like a slice: [`len`](Self::len), [`get`](Self::get), indexing, [`iter`](Self::iter)
/// and `for` loops, comparison with slices, arrays and vectors, and it serializes as a JSON
/// array. [`get`](Self::get) and indexing cost O(log n) once a message was inserted before the
/// end (a `TOOL_CALL_RESULT` after its call), O(1) before; iterating costs O(1) per message.
/// [`to_vec`](Self::to_vec) copies the messages out.
///
/// ```
/// use ag_ui::client::Reducer;
/// use ag_ui::{Event, Message};
///
/// let mut reducer = Reducer::new();
/// for event in [
///     Event::run_started("t", "r"),
///     Event::tool_call_start("c1", "search"),
///     Event::tool_call_end("c1"),
///     Event::text_message_start("m2", ag_ui::TextMessageRole::Assistant),
///     Event::text_message_content("m2", "Searching."),
///     Event::text_message_end("m2"),
///     // The result goes right after its call, before `m2`.
///     Event::tool_call_result("r1", "c1", "found"),
/// ] {
///     reducer.apply(&event).unwrap();
/// }
/// let messages = reducer.messages();
/// assert_eq!(messages.len(), 3);
/// let ids: Vec<&str> = messages.iter().map(|m| m.id().as_str()).collect();
/// assert_eq!(ids, ["c1", "r1", "m2"]);
/// assert_eq!(messages[1].text(), Some("found"));
/// assert_eq!(messages.last().unwrap().text(), Some("Searching."));
/// assert_eq!(messages, messages.to_vec());
/// assert_eq!(serde_json::to_value(messages).unwrap().as_array().unwrap().len(), 3);
/// ```
#[derive(Clone, Copy)]
pub struct Messages<'a> {
    store: &'a Store,
}

impl<'a> Messages<'a> {
    /// How many messages there are.
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.store.len() == 0
    }

    /// The message at `index`, `None` past the end.
    pub fn get(&self, index: usize) -> Option<&'a Message> {
        self.store.get(index)
    }

    /// The first message.
    pub fn first(&self) -> Option<&'a Message> {
        self.get(0)
    }

    /// The last message.
    pub fn last(&self) -> Option<&'a Message> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// The messages in order.
    pub fn iter(&self) -> MessagesIter<'a> {
        let store = self.store;
        match &store.tree {
            None => MessagesIter {
                store,
                front: 0,
                back: NIL,
                left: store.len(),
            },
            Some(tree) => MessagesIter {
                store,
                front: tree.leftmost(tree.root),
                back: tree.rightmost(tree.root),
                left: store.len(),
            },
        }
    }

    /// The messages, copied into a vector.
    pub fn to_vec(&self) -> Vec<Message> {
        self.iter().cloned().collect()
    }
}

impl fmt::Debug for Messages<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl std::ops::Index<usize> for Messages<'_> {
    type Output = Message;

    /// The message at `index`.
    ///
    /// # Panics
    ///
    /// When `index` is not less than [`len`](Messages::len), as a slice would.
    fn index(&self, index: usize) -> &Message {
        match self.get(index) {
            Some(message) => message,
            None => panic!(
                "index out of bounds: there are {} messages but the index is {index}",
                self.len()
            ),
        }
    }
}

impl<'a> IntoIterator for Messages<'a> {
    type Item = &'a Message;
    type IntoIter = MessagesIter<'a>;

    fn into_iter(self) -> MessagesIter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &Messages<'a> {
    type Item = &'a Message;
    type IntoIter = MessagesIter<'a>;

    fn into_iter(self) -> MessagesIter<'a> {
        self.iter()
    }
}

impl PartialEq<Messages<'_>> for Messages<'_> {
    fn eq(&self, other: &Messages<'_>) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl PartialEq<[Message]> for Messages<'_> {
    fn eq(&self, other: &[Message]) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl PartialEq<&[Message]> for Messages<'_> {
    fn eq(&self, other: &&[Message]) -> bool {
        *self == **other
    }
}

impl PartialEq<Vec<Message>> for Messages<'_> {
    fn eq(&self, other: &Vec<Message>) -> bool {
        *self == **other
    }
}

impl<const N: usize> PartialEq<[Message; N]> for Messages<'_> {
    fn eq(&self, other: &[Message; N]) -> bool {
        *self == other[..]
    }
}

impl<const N: usize> PartialEq<&[Message; N]> for Messages<'_> {
    fn eq(&self, other: &&[Message; N]) -> bool {
        *self == other[..]
    }
}

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for message in self.iter() {
            seq.serialize_element(message)?;
        }
        seq.end()
    }
}

/// The iterator of [`Messages::iter`]: the messages in order, from either end.
#[derive(Clone)]
pub struct MessagesIter<'a> {
    store: &'a Store,
    /// The next key from the front (a position while there is no tree).
    front: u32,
    /// The next key from the back (unused while there is no tree).
    back: u32,
    /// How many messages are still to come.
    left: usize,
}

impl fmt::Debug for MessagesIter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MessagesIter")
            .field("left", &self.left)
            .finish_non_exhaustive()
    }
}

impl<'a> Iterator for MessagesIter<'a> {
    type Item = &'a Message;

    fn next(&mut self) -> Option<&'a Message> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let key = self.front;
        self.front = match &self.store.tree {
            None => key + 1,
            Some(tree) => tree.next(key),
        };
        Some(self.store.by_key(key))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<'a> DoubleEndedIterator for MessagesIter<'a> {
    fn next_back(&mut self) -> Option<&'a Message> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        match &self.store.tree {
            None => Some(self.store.by_key(key_of(self.front as usize + self.left))),
            Some(tree) => {
                let key = self.back;
                self.back = tree.prev(key);
                Some(self.store.by_key(key))
            }
        }
    }
}

impl ExactSizeIterator for MessagesIter<'_> {}

impl std::iter::FusedIterator for MessagesIter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(i: usize) -> Message {
        Message::user(format!("u{i}"), "")
    }

    fn tool(i: usize) -> Message {
        Message::Tool(crate::ToolMessage::new(
            format!("t{i}"),
            format!("c{i}"),
            "",
        ))
    }

    fn ids(store: &Store) -> Vec<String> {
        store
            .view()
            .iter()
            .map(|m| m.id().as_str().to_owned())
            .collect()
    }

    /// A deterministic sequence of pseudo-random numbers (xorshift).
    fn rng(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |below| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % below as u64) as usize
        }
    }

    /// Every operation, against a `Vec` doing the same, after every step.
    #[test]
    fn the_store_keeps_the_order_a_vec_keeps() {
        for seed in 1..=20u64 {
            let mut next = rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut store = Store::default();
            let mut model: Vec<Message> = Vec::new();
            let mut keys: Vec<Key> = Vec::new();
            for i in 0..400 {
                let message = if next(3) == 0 { user(i) } else { tool(i) };
                let key = match next(4) {
                    0 => {
                        model.push(message.clone());
                        store.push(message)
                    }
                    _ => {
                        let at = next(model.len() + 1);
                        model.insert(at, message.clone());
                        store.insert(at, message)
                    }
                };
                keys.push(key);
                if next(10) == 0 {
                    // Turn a message into or out of a tool message.
                    let k = keys[next(keys.len())];
                    let at = store.position(k);
                    let swapped = if is_tool(&model[at]) {
                        user(1000 + i)
                    } else {
                        tool(1000 + i)
                    };
                    model[at] = swapped.clone();
                    store.replace(k, swapped);
                }
                assert_eq!(store.view(), model, "seed {seed}, step {i}");
                let rev: Vec<&Message> = store.view().iter().rev().collect();
                assert!(rev.into_iter().eq(model.iter().rev()));
                for (at, message) in model.iter().enumerate() {
                    assert_eq!(store.get(at), Some(message));
                }
                for &k in &keys {
                    assert_eq!(store.get(store.position(k)), Some(store.by_key(k)));
                }
                let p = next(model.len() + 1);
                let end = (p..model.len())
                    .find(|&q| !is_tool(&model[q]))
                    .unwrap_or(model.len());
                assert_eq!(store.tool_run_end(p), end, "seed {seed}, step {i}");
            }
            assert_eq!(store.clone().into_vec(), model);
        }
    }

    #[test]
    fn without_insertions_there_is_no_tree() {
        let mut store = Store::from_vec(vec![user(0), tool(1), tool(2), user(3)]);
        store.push(tool(4));
        assert!(store.tree.is_none());
        assert_eq!(store.tool_run_end(1), 3);
        assert_eq!(store.tool_run_end(4), 5);
        assert_eq!(store.position(3), 3);
        store.insert(1, tool(5));
        assert!(store.tree.is_some());
        assert_eq!(ids(&store), ["u0", "t5", "t1", "t2", "u3", "t4"]);
        assert_eq!(store.tool_run_end(1), 4);
    }

    /// Appending only, or inserting always at the same place, keeps the paths short.
    #[test]
    fn paths_stay_logarithmic() {
        let mut store = Store::from_vec(vec![user(0), user(1)]);
        for i in 0..20_000 {
            store.insert(1, tool(i));
        }
        for i in 0..20_000 {
            store.push(user(i));
        }
        let tree = store.tree.as_ref().unwrap();
        let depth = |mut k: u32| {
            let mut d = 1;
            while tree.nodes[k as usize].parent != NIL {
                k = tree.nodes[k as usize].parent;
                d += 1;
            }
            d
        };
        let deepest = (0..store.len()).map(|k| depth(key_of(k))).max().unwrap();
        assert!(deepest <= max_depth(store.len()), "depth {deepest}");
        assert_eq!(store.view()[0].id().as_str(), "u0");
        assert_eq!(store.view()[1].id().as_str(), "t19999");
        assert_eq!(store.view()[20_000].id().as_str(), "t0");
        assert_eq!(store.view()[20_001].id().as_str(), "u1");
    }
}
