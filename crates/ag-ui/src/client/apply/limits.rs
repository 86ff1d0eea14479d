//! How much a peer's events may make the reducer hold, and the cheap size measures that enforce
//! it.

use std::fmt;

use json_patch::PatchOperation;
use serde_json::{Number, Value};

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
///
/// An event over a limit is refused with an [`ApplyError`](super::ApplyError) of kind
/// [`Limit`](super::ApplyErrorKind::Limit); messages and state stay as they were.
///
/// ```
/// use ag_ui::client::apply::{Limits, Reducer};
///
/// let limits = Limits::new().with_max_message_bytes(1024);
/// assert_eq!(limits.max_message_bytes(), 1024);
/// assert_eq!(limits.max_document_bytes(), 64 * 1024 * 1024);
/// let reducer = Reducer::new().with_limits(limits);
/// assert_eq!(reducer.limits(), &limits);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    max_document_bytes: usize,
    max_growth_bytes: usize,
    max_message_bytes: usize,
    max_tool_call_args_bytes: usize,
    max_reasoning_bytes: usize,
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

    /// The largest state, or content of one activity message, in bytes of JSON.
    pub fn max_document_bytes(&self) -> usize {
        self.max_document_bytes
    }

    /// How many bytes of JSON one `STATE_DELTA` or `ACTIVITY_DELTA` may add.
    pub fn max_growth_bytes(&self) -> usize {
        self.max_growth_bytes
    }

    /// The largest text of one message, in bytes.
    pub fn max_message_bytes(&self) -> usize {
        self.max_message_bytes
    }

    /// The largest arguments of one tool call, in bytes.
    pub fn max_tool_call_args_bytes(&self) -> usize {
        self.max_tool_call_args_bytes
    }

    /// The largest text of one reasoning message, in bytes.
    pub fn max_reasoning_bytes(&self) -> usize {
        self.max_reasoning_bytes
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
            "{} exceeded: {} bytes{} over the limit of {}",
            self.kind.as_str(),
            self.size,
            if self.kind == LimitKind::GrowthBytes {
                " added,"
            } else {
                ","
            },
            self.max
        )
    }
}

fn number_size(n: &Number) -> usize {
    if let Some(u) = n.as_u64() {
        u.checked_ilog10().map_or(1, |d| d as usize + 1)
    } else if let Some(i) = n.as_i64() {
        // Negative (a non-negative one is a u64): the sign and the digits.
        i.unsigned_abs()
            .checked_ilog10()
            .map_or(1, |d| d as usize + 2)
    } else {
        24
    }
}

/// The estimated compact JSON size of `value`; once it passes `budget` the measuring stops and
/// a size over `budget` is returned. Costs at most what it measures, without recursion.
pub(crate) fn json_size(value: &Value, budget: usize) -> usize {
    let scalar = |v: &Value| match v {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => number_size(n),
        Value::String(s) => s.len() + 2,
        Value::Array(_) | Value::Object(_) => 0,
    };
    if !matches!(value, Value::Array(_) | Value::Object(_)) {
        return scalar(value);
    }
    let mut total = 0usize;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => {
                // Brackets and a comma per item.
                total += 2 + items.len();
                stack.extend(items.iter());
            }
            Value::Object(members) => {
                total += 2;
                for (key, item) in members {
                    // Quotes, colon and comma around the key.
                    total += key.len() + 4;
                    stack.push(item);
                }
            }
            other => total += scalar(other),
        }
        if total > budget {
            return total;
        }
    }
    total
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

/// An upper bound of the bytes `ops` add to `doc`, whose size is at most `size`. What a value
/// adds is measured from the operation; a `copy` adds its source, measured in `doc` — or, when
/// an earlier operation of the same patch may have changed the source, counted as the whole
/// document as it may be by then. Stops once over `budget`, returning a bound over it.
/// Operations that fail add nothing (the patch then fails as a whole).
pub(crate) fn patch_growth(
    doc: &Value,
    ops: &[PatchOperation],
    size: usize,
    budget: usize,
) -> usize {
    let mut growth = 0usize;
    for (i, op) in ops.iter().enumerate() {
        growth = growth.saturating_add(match op {
            PatchOperation::Add(op) => {
                slot_size(op.path.as_str()) + json_size(&op.value, budget.saturating_sub(growth))
            }
            PatchOperation::Replace(op) => {
                slot_size(op.path.as_str()) + json_size(&op.value, budget.saturating_sub(growth))
            }
            PatchOperation::Move(op) => slot_size(op.path.as_str()),
            PatchOperation::Copy(op) => {
                let from = op.from.as_str();
                let changed = ops[..i].iter().any(|earlier| match earlier {
                    PatchOperation::Add(e) => may_change(e.path.as_str(), from),
                    PatchOperation::Replace(e) => may_change(e.path.as_str(), from),
                    PatchOperation::Remove(e) => may_change(e.path.as_str(), from),
                    PatchOperation::Copy(e) => may_change(e.path.as_str(), from),
                    PatchOperation::Move(e) => {
                        may_change(e.path.as_str(), from) || may_change(e.from.as_str(), from)
                    }
                    PatchOperation::Test(_) => false,
                });
                let source = if changed {
                    size.saturating_add(growth)
                } else {
                    doc.pointer(from)
                        .map_or(0, |v| json_size(v, budget.saturating_sub(growth)))
                };
                slot_size(op.path.as_str()).saturating_add(source)
            }
            PatchOperation::Remove(_) | PatchOperation::Test(_) => 0,
        });
        if growth > budget {
            return growth;
        }
    }
    growth
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_size_matches_compact_json_for_plain_values() {
        for value in [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(1234),
            json!(-56),
            json!("abc"),
            json!([]),
            json!({}),
            json!({"a": [1, 2, {"bc": "d"}], "e": null}),
        ] {
            let compact = serde_json::to_string(&value).unwrap().len();
            let estimate = json_size(&value, usize::MAX);
            // Exact for scalars; containers count one comma more than they have.
            assert!(estimate >= compact, "{value}: {estimate} < {compact}");
            assert!(estimate <= compact + 8, "{value}: {estimate} >> {compact}");
        }
    }

    #[test]
    fn json_size_stops_once_over_budget() {
        let big = json!((0..10_000).map(|i| format!("item {i}")).collect::<Vec<_>>());
        let full = json_size(&big, usize::MAX);
        let stopped = json_size(&big, 100);
        assert!(stopped > 100 && stopped < full);
    }

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
