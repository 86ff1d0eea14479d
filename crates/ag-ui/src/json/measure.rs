//! Cheap measures of a JSON document, without recursion and without serializing it: its
//! estimated compact size and its depth. The reducer's limits and the server's state
//! publishing (which refuses to diff a state deeper than the reducer accepts) both use them.

use serde_json::{Number, Value};

/// The deepest document the reducer accepts by default (`client::Limits::max_depth`),
/// and the deepest state a server publishes: every document this deep reads back inside its
/// event (serde_json's parser stops at 128 levels), and the recursive code that clones,
/// serializes, compares, diffs and drops it stays far from a thread's stack end.
pub(crate) const MAX_DEPTH: usize = 100;

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

/// Upper bounds of a JSON document's compact size, in bytes, and of its depth, in levels of
/// nested arrays and objects (a scalar is 0 levels deep, `{}` 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub(crate) bytes: usize,
    pub(crate) depth: usize,
}

/// The estimated compact JSON size of `value`; once it passes `budget` the measuring stops and
/// a size over `budget` is returned. Costs at most what it measures, without recursion.
pub(crate) fn json_size(value: &Value, budget: usize) -> usize {
    measure(value, budget, usize::MAX).bytes
}

/// The estimated compact JSON size and the depth of `value`, without recursion. The measuring
/// stops once the size passes `max_bytes` (the depth is then given as `usize::MAX`: the rest
/// was not looked at) or the depth passes `max_depth` (the size is then what was counted so
/// far), so it costs at most what it measures.
pub(crate) fn measure(value: &Value, max_bytes: usize, max_depth: usize) -> Bounds {
    let scalar = |v: &Value| match v {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => number_size(n),
        Value::String(s) => s.len() + 2,
        Value::Array(_) | Value::Object(_) => 0,
    };
    if !matches!(value, Value::Array(_) | Value::Object(_)) {
        return Bounds {
            bytes: scalar(value),
            depth: 0,
        };
    }
    let (mut total, mut depth) = (0usize, 0usize);
    // Each value with the depth of the container holding it.
    let mut stack = vec![(value, 0usize)];
    while let Some((v, above)) = stack.pop() {
        match v {
            Value::Array(items) => {
                depth = depth.max(above + 1);
                // Brackets and a comma per item.
                total += 2 + items.len();
                stack.extend(items.iter().map(|item| (item, above + 1)));
            }
            Value::Object(members) => {
                depth = depth.max(above + 1);
                total += 2;
                for (key, item) in members {
                    // Quotes, colon and comma around the key.
                    total += key.len() + 4;
                    stack.push((item, above + 1));
                }
            }
            other => total += scalar(other),
        }
        if total > max_bytes {
            return Bounds {
                bytes: total,
                depth: usize::MAX,
            };
        }
        if depth > max_depth {
            return Bounds {
                bytes: total,
                depth,
            };
        }
    }
    Bounds {
        bytes: total,
        depth,
    }
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
}
