//! How much a peer's events may make the reducer hold, and the cheap size measures that enforce
//! it.

use std::fmt;

use json_patch::PatchOperation;
use serde_json::Value;

use crate::json::measure::MAX_DEPTH;
pub(crate) use crate::json::measure::{Bounds, json_size, measure};

const MIB: usize = 1024 * 1024;

/// The reducer's resource limits: how large the documents and texts a peer builds may grow.
///
/// A JSON document (the state, or one activity's content) is measured by its compact JSON size,
/// estimated without serializing it: strings count their bytes plus quotes (escapes are not
/// counted), integers their digits, other numbers 24 bytes. The defaults:
///
/// | limit | default |
/// |---|---|
/// | [`max_document_bytes`](Self::max_document_bytes): the state, one activity's content | 64 MiB |
/// | [`max_growth_bytes`](Self::max_growth_bytes): what one `STATE_DELTA` / `ACTIVITY_DELTA` adds | 16 MiB |
/// | [`max_message_bytes`](Self::max_message_bytes): one message's text | 16 MiB |
/// | [`max_tool_call_args_bytes`](Self::max_tool_call_args_bytes): one tool call's arguments | 16 MiB |
/// | [`max_reasoning_bytes`](Self::max_reasoning_bytes): one reasoning message's text | 16 MiB |
/// | [`max_depth`](Self::max_depth): how deeply arrays and objects nest in the state or one activity's content | 100 levels |
/// | [`max_array_shifts`](Self::max_array_shifts): array items one `STATE_DELTA` / `ACTIVITY_DELTA` shifts | 4 Mi |
/// | [`max_run_array_shifts`](Self::max_run_array_shifts): array items the patches of one run shift in all | 64 Mi |
///
/// Depth counts nested arrays and objects: `{}` is one level, `{"a": [1]}` two. Patches can
/// nest a document one level per event (`add /b {}`, `move /a` to `/b/a`, `move /b` to `/a`)
/// without any event being large or deep; the limit stops that. The default keeps every
/// document the reducer holds readable again inside the event that carries it (serde_json's
/// parser stops at 128 levels) and keeps the code that clones, serializes, compares and drops a
/// document (recursive, one call per level) far from the stack's end: a larger limit needs a
/// larger stack.
///
/// A JSON Patch `add` or `remove` at index `i` of an array of `n` items shifts the `n − i`
/// items after it; front inserts and removes on a large array cost a shift of the whole array
/// each, so [`max_array_shifts`](Self::max_array_shifts) bounds the work one event may cause,
/// and [`max_run_array_shifts`](Self::max_run_array_shifts) the work of a run's events together
/// (100,000 front removes on a 100,000-item array sent one per event each fit the first, not
/// the second). The run's count starts again at each `RUN_STARTED` and counts every state and
/// activity patch; events outside any run count towards the one before (or the first).
///
/// An event over a limit is refused with an [`ApplyError`](super::ApplyError) of kind
/// [`Limit`](super::ApplyErrorKind::Limit); messages and state stay as they were.
///
/// ```
/// use ag_ui::client::{Limits, Reducer};
///
/// let limits = Limits::new().with_max_message_bytes(1024);
/// assert_eq!(limits.max_message_bytes, 1024);
/// assert_eq!(limits.max_document_bytes, 64 * 1024 * 1024);
/// let reducer = Reducer::new().with_limits(limits);
/// assert_eq!(reducer.limits(), &limits);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Limits {
    /// The largest state, or content of one activity message, in bytes of JSON.
    pub max_document_bytes: usize,
    /// How many bytes of JSON one `STATE_DELTA` or `ACTIVITY_DELTA` may add.
    pub max_growth_bytes: usize,
    /// The largest text of one message, in bytes.
    pub max_message_bytes: usize,
    /// The largest arguments of one tool call, in bytes.
    pub max_tool_call_args_bytes: usize,
    /// The largest text of one reasoning message, in bytes.
    pub max_reasoning_bytes: usize,
    /// How deeply arrays and objects may nest in the state or one activity's content.
    pub max_depth: usize,
    /// How many array items one `STATE_DELTA` or `ACTIVITY_DELTA` may shift (an `add` or
    /// `remove` at index `i` of an array of `n` items shifts `n − i`).
    pub max_array_shifts: usize,
    /// How many array items the `STATE_DELTA` and `ACTIVITY_DELTA` events of one run (from a
    /// `RUN_STARTED` to the next) may shift in all.
    pub max_run_array_shifts: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self::new()
    }
}

impl Limits {
    /// The default limits (see the table above).
    pub fn new() -> Self {
        Self {
            max_document_bytes: 64 * MIB,
            max_growth_bytes: 16 * MIB,
            max_message_bytes: 16 * MIB,
            max_tool_call_args_bytes: 16 * MIB,
            max_reasoning_bytes: 16 * MIB,
            max_depth: MAX_DEPTH,
            max_array_shifts: 4 * MIB,
            max_run_array_shifts: 64 * MIB,
        }
    }

    /// Sets the largest state, or content of one activity message, in bytes of JSON.
    #[must_use]
    pub fn with_max_document_bytes(mut self, bytes: usize) -> Self {
        self.max_document_bytes = bytes;
        self
    }

    /// Sets how many bytes of JSON one `STATE_DELTA` or `ACTIVITY_DELTA` may add.
    #[must_use]
    pub fn with_max_growth_bytes(mut self, bytes: usize) -> Self {
        self.max_growth_bytes = bytes;
        self
    }

    /// Sets the largest text of one message (text and tool messages), in bytes.
    #[must_use]
    pub fn with_max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// Sets the largest arguments of one tool call, in bytes.
    #[must_use]
    pub fn with_max_tool_call_args_bytes(mut self, bytes: usize) -> Self {
        self.max_tool_call_args_bytes = bytes;
        self
    }

    /// Sets the largest text of one reasoning message, in bytes.
    #[must_use]
    pub fn with_max_reasoning_bytes(mut self, bytes: usize) -> Self {
        self.max_reasoning_bytes = bytes;
        self
    }

    /// Sets how deeply arrays and objects may nest in the state or one activity's content.
    #[must_use]
    pub fn with_max_depth(mut self, levels: usize) -> Self {
        self.max_depth = levels;
        self
    }

    /// Sets how many array items one `STATE_DELTA` or `ACTIVITY_DELTA` may shift.
    #[must_use]
    pub fn with_max_array_shifts(mut self, items: usize) -> Self {
        self.max_array_shifts = items;
        self
    }

    /// Sets how many array items the `STATE_DELTA` and `ACTIVITY_DELTA` events of one run may
    /// shift in all.
    #[must_use]
    pub fn with_max_run_array_shifts(mut self, items: usize) -> Self {
        self.max_run_array_shifts = items;
        self
    }
}

/// Which of the [`Limits`] an event would have exceeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LimitKind {
    /// The state would be larger than [`Limits::max_document_bytes`].
    StateBytes,
    /// An activity's content would be larger than [`Limits::max_document_bytes`].
    ActivityBytes,
    /// A patch would add more than [`Limits::max_growth_bytes`].
    GrowthBytes,
    /// A message's text would be longer than [`Limits::max_message_bytes`].
    MessageBytes,
    /// A tool call's arguments would be longer than [`Limits::max_tool_call_args_bytes`].
    ToolCallArgsBytes,
    /// A reasoning message's text would be longer than [`Limits::max_reasoning_bytes`].
    ReasoningBytes,
    /// The state would nest deeper than [`Limits::max_depth`].
    StateDepth,
    /// An activity's content would nest deeper than [`Limits::max_depth`].
    ActivityDepth,
    /// A patch would shift more array items than [`Limits::max_array_shifts`].
    ArrayShifts,
    /// The patches of one run would shift more array items than
    /// [`Limits::max_run_array_shifts`].
    RunArrayShifts,
}

impl LimitKind {
    /// A stable name, e.g. `max-state-bytes`.
    pub fn as_str(self) -> &'static str {
        match self {
            LimitKind::StateBytes => "max-state-bytes",
            LimitKind::ActivityBytes => "max-activity-bytes",
            LimitKind::GrowthBytes => "max-growth-bytes",
            LimitKind::MessageBytes => "max-message-bytes",
            LimitKind::ToolCallArgsBytes => "max-tool-call-args-bytes",
            LimitKind::ReasoningBytes => "max-reasoning-bytes",
            LimitKind::StateDepth => "max-state-depth",
            LimitKind::ActivityDepth => "max-activity-depth",
            LimitKind::ArrayShifts => "max-array-shifts",
            LimitKind::RunArrayShifts => "max-run-array-shifts",
        }
    }

    /// What the sizes of this limit count.
    fn unit(self) -> &'static str {
        match self {
            LimitKind::StateDepth | LimitKind::ActivityDepth => " levels deep,",
            LimitKind::ArrayShifts => " array items shifted,",
            LimitKind::RunArrayShifts => " array items shifted in the run,",
            LimitKind::GrowthBytes => " bytes added,",
            _ => " bytes,",
        }
    }
}

/// A limit an event would have exceeded, with the sizes involved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct LimitExceeded {
    /// Which limit.
    pub kind: LimitKind,
    /// The size the event would have reached (at least; measuring stops once over the limit).
    pub size: usize,
    /// The limit.
    pub max: usize,
}

impl LimitExceeded {
    pub(crate) fn new(kind: LimitKind, size: usize, max: usize) -> Self {
        Self { kind, size, max }
    }

    /// `Err` when `size` is over `max`.
    pub(crate) fn check(kind: LimitKind, size: usize, max: usize) -> Result<(), Self> {
        if size > max {
            Err(Self::new(kind, size, max))
        } else {
            Ok(())
        }
    }
}

impl fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} exceeded: {}{} over the limit of {}",
            self.kind.as_str(),
            self.size,
            self.kind.unit(),
            self.max
        )
    }
}

/// What a member or item adds beside its value: its key, quotes, colon and comma.
fn slot_size(path: &str) -> usize {
    path.rsplit('/').next().map_or(0, str::len) + 4
}

/// Whether an earlier operation on `changed` may have changed what `from` points at: it is
/// inside `from` or above it, or it is an array item and `from` is inside its array (whose
/// items after it shifted).
fn may_change(changed: &str, from: &str) -> bool {
    let within = |inner: &str, outer: &str| {
        inner == outer
            || (inner.len() > outer.len()
                && inner.starts_with(outer)
                && inner.as_bytes()[outer.len()] == b'/')
    };
    let (parent, token) = changed.rsplit_once('/').unwrap_or(("", changed));
    let item = token == "-" || (!token.is_empty() && token.bytes().all(|b| b.is_ascii_digit()));
    within(changed, from) || within(from, changed) || (item && within(from, parent))
}

/// How many reference tokens a JSON pointer has: how many levels below the root it points.
fn levels(pointer: &str) -> usize {
    pointer.bytes().filter(|&b| b == b'/').count()
}

/// Whether an operation before `ops[i]` may have changed what `from` points at.
fn changed_before(ops: &[PatchOperation], i: usize, from: &str) -> bool {
    ops[..i].iter().any(|earlier| match earlier {
        PatchOperation::Add(e) => may_change(e.path.as_str(), from),
        PatchOperation::Replace(e) => may_change(e.path.as_str(), from),
        PatchOperation::Remove(e) => may_change(e.path.as_str(), from),
        PatchOperation::Copy(e) => may_change(e.path.as_str(), from),
        PatchOperation::Move(e) => {
            may_change(e.path.as_str(), from) || may_change(e.from.as_str(), from)
        }
        PatchOperation::Test(_) => false,
    })
}

/// Upper bounds of what `ops` do to `doc`, whose size and depth are at most `before`: the bytes
/// they add, and the depth of the document after them.
///
/// What a value adds is measured from the operation; a `copy` adds its source, measured in
/// `doc` — or, when an earlier operation of the same patch may have changed the source, counted
/// as the whole document as it may be by then. A value placed at a path of `k` levels makes the
/// document at most `k` plus the value's depth deep; the depth of a `copy` or `move` source is
/// taken as the document's depth less the source's levels, or, when `precise` and no earlier
/// operation may have changed it, measured in `doc` (costing up to the source's size).
///
/// Stops once the growth is over `budget` or the depth over `max_depth`, returning bounds over
/// them. Operations that fail add nothing (the patch then fails as a whole).
pub(crate) fn patch_bounds(
    doc: &Value,
    ops: &[PatchOperation],
    before: Bounds,
    budget: usize,
    max_depth: usize,
    precise: bool,
) -> (usize, usize) {
    let mut growth = 0usize;
    let mut depth = before.depth;
    // A `copy` or `move` source; `max_bytes` is how far its size is measured (a `move` adds
    // nothing, so its size is not needed).
    let source = |i: usize, from: &str, depth: usize, growth: usize, max_bytes: usize| {
        if changed_before(ops, i, from) {
            Bounds {
                bytes: before.bytes.saturating_add(growth),
                depth: depth.saturating_sub(levels(from)),
            }
        } else {
            match doc.pointer(from) {
                None => Bounds::default(),
                Some(v) if precise => measure(v, max_bytes, max_depth),
                Some(v) => Bounds {
                    bytes: json_size(v, max_bytes),
                    depth: depth.saturating_sub(levels(from)),
                },
            }
        }
    };
    for (i, op) in ops.iter().enumerate() {
        let (added, placed) = match op {
            PatchOperation::Add(op) => {
                let value = measure(&op.value, budget.saturating_sub(growth), max_depth);
                let path = op.path.as_str();
                (slot_size(path) + value.bytes, levels(path) + value.depth)
            }
            PatchOperation::Replace(op) => {
                let value = measure(&op.value, budget.saturating_sub(growth), max_depth);
                let path = op.path.as_str();
                (slot_size(path) + value.bytes, levels(path) + value.depth)
            }
            PatchOperation::Move(op) => {
                let path = op.path.as_str();
                let moved = if precise {
                    source(i, op.from.as_str(), depth, growth, usize::MAX).depth
                } else {
                    depth.saturating_sub(levels(op.from.as_str()))
                };
                (slot_size(path), levels(path).saturating_add(moved))
            }
            PatchOperation::Copy(op) => {
                let path = op.path.as_str();
                let copied = source(
                    i,
                    op.from.as_str(),
                    depth,
                    growth,
                    budget.saturating_sub(growth),
                );
                (
                    slot_size(path).saturating_add(copied.bytes),
                    levels(path).saturating_add(copied.depth),
                )
            }
            PatchOperation::Remove(_) | PatchOperation::Test(_) => (0, 0),
        };
        growth = growth.saturating_add(added);
        depth = depth.max(placed);
        if growth > budget || depth > max_depth {
            break;
        }
    }
    (growth, depth)
}

/// An upper bound of the array items `ops` shift in `doc`, whose size is at most `bytes` after
/// them, and whether it is exact: an insert or remove at index `i` of an array of `n` items
/// shifts `n − i`. An array's length is taken from `doc` plus one per earlier operation, or,
/// when an earlier operation may have replaced the array, as the most items `bytes` of JSON
/// can hold. The bound is exact when no earlier operation wrote or removed the array, one of
/// its items, or anything above it. Stops once over `budget`, returning a bound over it.
pub(crate) fn patch_shifts(
    doc: &Value,
    ops: &[PatchOperation],
    bytes: usize,
    budget: usize,
) -> (usize, bool) {
    let mut total = 0usize;
    let mut exact = true;
    for (i, op) in ops.iter().enumerate() {
        for path in array_targets(op).into_iter().flatten() {
            let Some((parent, index)) = item_index(path) else {
                continue;
            };
            exact = exact && !touched_before(ops, i, parent);
            let replaced = ops[..i].iter().any(|earlier| {
                let written = match earlier {
                    PatchOperation::Add(e) => e.path.as_str(),
                    PatchOperation::Replace(e) => e.path.as_str(),
                    PatchOperation::Copy(e) => e.path.as_str(),
                    PatchOperation::Move(e) => e.path.as_str(),
                    PatchOperation::Remove(_) | PatchOperation::Test(_) => return false,
                };
                parent == written
                    || (parent.starts_with(written) && parent.as_bytes()[written.len()] == b'/')
            });
            let len = if replaced {
                // Each item takes at least two bytes: itself and a comma.
                bytes / 2 + 1
            } else {
                doc.pointer(parent)
                    .and_then(Value::as_array)
                    .map_or(0, |items| items.len() + i)
            };
            total = total.saturating_add(len.saturating_sub(index));
        }
        if total > budget {
            break;
        }
    }
    (total, exact)
}

/// Whether an operation before `ops[i]` wrote or removed the array at `parent`, one of its
/// items, or something above it (so its length at `ops[i]` is not its length in the document).
fn touched_before(ops: &[PatchOperation], i: usize, parent: &str) -> bool {
    let above = |written: &str| {
        parent == written
            || (parent.starts_with(written) && parent.as_bytes()[written.len()] == b'/')
    };
    // An item inserted or removed (a replaced item leaves the length as it was).
    let touches = |written: &str| {
        above(written) || written.rsplit_once('/').is_some_and(|(up, _)| up == parent)
    };
    ops[..i].iter().any(|earlier| match earlier {
        PatchOperation::Add(e) => touches(e.path.as_str()),
        PatchOperation::Replace(e) => above(e.path.as_str()),
        PatchOperation::Remove(e) => touches(e.path.as_str()),
        PatchOperation::Copy(e) => touches(e.path.as_str()),
        PatchOperation::Move(e) => touches(e.path.as_str()) || touches(e.from.as_str()),
        PatchOperation::Test(_) => false,
    })
}

/// The array items `op` shifts in `doc` as it is just before `op`.
pub(crate) fn op_shifts(doc: &Value, op: &PatchOperation) -> usize {
    array_targets(op)
        .into_iter()
        .flatten()
        .filter_map(item_index)
        .map(|(parent, index)| {
            doc.pointer(parent)
                .and_then(Value::as_array)
                .map_or(0, |items| items.len().saturating_sub(index))
        })
        .fold(0usize, usize::saturating_add)
}

/// The paths where `op` inserts or removes an item (a `move` removes one and inserts one).
fn array_targets(op: &PatchOperation) -> [Option<&str>; 2] {
    match op {
        PatchOperation::Add(op) => [Some(op.path.as_str()), None],
        PatchOperation::Remove(op) => [Some(op.path.as_str()), None],
        PatchOperation::Copy(op) => [Some(op.path.as_str()), None],
        PatchOperation::Move(op) => [Some(op.from.as_str()), Some(op.path.as_str())],
        PatchOperation::Replace(_) | PatchOperation::Test(_) => [None, None],
    }
}

/// The parent and index of a path ending in an array index (not `-`, which appends).
fn item_index(path: &str) -> Option<(&str, usize)> {
    let (parent, token) = path.rsplit_once('/')?;
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((parent, token.parse().unwrap_or(usize::MAX)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn may_change_covers_inside_above_and_siblings() {
        assert!(may_change("/a/b", "/a")); // inside the source
        assert!(may_change("/a", "/a/b")); // above it
        assert!(may_change("/arr/0", "/arr/1")); // an array item shifted
        assert!(may_change("", "/x")); // the whole document replaced
        assert!(may_change("/x", "")); // copying the whole document
        assert!(!may_change("/a/b", "/c"));
        assert!(!may_change("/arr/x", "/arr/1"));
        assert!(!may_change("/ab", "/a"));
        assert!(!may_change("/a/b/c", "/a/x"));
    }
}
