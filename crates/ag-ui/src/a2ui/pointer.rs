//! Data paths: A2UI's JSON Pointers (RFC 6901, and the relative form templates use), read,
//! looked up in a data model, and written into one.

use serde_json::{Map, Value};

/// A data path read: absolute (`/a/b`) or relative (`a/b`), its unescaped segments.
pub(crate) struct Pointer {
    pub(crate) absolute: bool,
    pub(crate) segments: Vec<String>,
}

/// Reads a JSON Pointer (RFC 6901), or A2UI's relative form without the leading `/`; `/`
/// alone, like the empty pointer, is the whole document here, as A2UI writes it.
pub(crate) fn parse_pointer(path: &str) -> Result<Pointer, &'static str> {
    let (absolute, rest) = match path.strip_prefix('/') {
        Some(rest) => (true, rest),
        None => (false, path),
    };
    if rest.is_empty() {
        return Ok(Pointer {
            absolute,
            segments: Vec::new(),
        });
    }
    let mut segments = Vec::new();
    for raw in rest.split('/') {
        let mut segment = String::with_capacity(raw.len());
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if c == '~' {
                match chars.next() {
                    Some('0') => segment.push('~'),
                    Some('1') => segment.push('/'),
                    _ => return Err("`~` must be followed by `0` or `1`"),
                }
            } else {
                segment.push(c);
            }
        }
        segments.push(segment);
    }
    Ok(Pointer { absolute, segments })
}

/// The value at `segments` in `model`.
pub(crate) fn resolve<'a>(model: &'a Value, segments: &[String]) -> Option<&'a Value> {
    let mut cursor = model;
    for segment in segments {
        cursor = match cursor {
            Value::Object(map) => map.get(segment)?,
            Value::Array(items) => items.get(array_index(segment)?)?,
            _ => return None,
        };
    }
    Some(cursor)
}

/// An array index as RFC 6901 writes it: `0`, or digits without a leading zero.
pub(crate) fn array_index(segment: &str) -> Option<usize> {
    let canonical = segment == "0"
        || (!segment.is_empty()
            && !segment.starts_with('0')
            && segment.bytes().all(|b| b.is_ascii_digit()));
    canonical.then(|| segment.parse().ok()).flatten()
}

/// Writes `value` at `segments` (creating objects on the way), or removes the key there.
pub(crate) fn write(model: &mut Value, segments: &[String], value: Option<Value>) {
    let Some((last, parents)) = segments.split_last() else {
        *model = value.unwrap_or(Value::Null);
        return;
    };
    let mut cursor = model;
    for segment in parents {
        if !cursor.is_object() && !cursor.is_array() {
            *cursor = Value::Object(Map::new());
        }
        cursor = match cursor {
            Value::Object(map) => map
                .entry(segment.clone())
                .or_insert_with(|| Value::Object(Map::new())),
            Value::Array(items) => match array_index(segment).and_then(|i| items.get_mut(i)) {
                Some(item) => item,
                None => return,
            },
            _ => return,
        };
    }
    match (cursor, value) {
        (Value::Object(map), Some(value)) => {
            map.insert(last.clone(), value);
        }
        (Value::Object(map), None) => {
            map.remove(last);
        }
        (Value::Array(items), value) => {
            if let Some(i) = array_index(last)
                && i < items.len()
            {
                match value {
                    Some(value) => items[i] = value,
                    None => {
                        items.remove(i);
                    }
                }
            }
        }
        (cursor, Some(value)) => {
            let mut map = Map::new();
            map.insert(last.clone(), value);
            *cursor = Value::Object(map);
        }
        (_, None) => {}
    }
}
