//! Serde helpers shared by the wire model.

use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer};
use serde_json::Value;

/// Largest integer a JSON number may hold on the AG-UI wire (2^53 − 1).
pub(crate) const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// For an optional field on which an explicit `null` is an error, whatever the field's type
/// (for a `serde_json::Value` field too, where `null` would otherwise be a value).
pub(crate) fn non_null<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    match Option::<T>::deserialize(d)? {
        Some(value) => Ok(Some(value)),
        None => Err(de::Error::invalid_type(
            de::Unexpected::Unit,
            &"a value other than null",
        )),
    }
}

/// Marks an error text that carries the path, below the current position, of the field that
/// failed: `MARK path MARK message`. Deserializers that re-read buffered JSON (lenient arrays,
/// outcomes, content parts) lose the outer path tracking; this keeps the inner path so that
/// [`crate::DecodeError::field`] names the exact field.
const MARK: char = '\u{1}';

/// Joins two field paths (`a` + `b.c` → `a.b.c`; `a` + `[0].b` → `a[0].b`).
pub(crate) fn join_path(a: &str, b: &str) -> String {
    match (a, b) {
        ("" | ".", b) => b.to_owned(),
        (a, "" | ".") => a.to_owned(),
        (a, b) if b.starts_with('[') => format!("{a}{b}"),
        (a, b) => format!("{a}.{b}"),
    }
}

/// Splits an error text into the path it carries (see [`MARK`]) and the message. A
/// `missing field` message adds the field's name to the path.
pub(crate) fn split_path(text: &str) -> (String, &str) {
    if let Some((path, message)) = text
        .strip_prefix(MARK)
        .and_then(|rest| rest.split_once(MARK))
    {
        // Already complete, the missing field's name included.
        return (path.to_owned(), message);
    }
    // serde reports a missing field at its parent; lift the field's name out of the message.
    let missing = text
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next());
    (missing.unwrap_or_default().to_owned(), text)
}

/// Deserializes `T` from a buffered value; an error names the path of the failing field below
/// `prefix` (see [`MARK`]).
pub(crate) fn from_value_at<T: DeserializeOwned, E: de::Error>(
    prefix: &str,
    value: Value,
) -> Result<T, E> {
    serde_path_to_error::deserialize::<_, T>(value).map_err(|e| {
        let path = e.path().to_string();
        let text = e.into_inner().to_string();
        let (inner, message) = split_path(&text);
        let full = join_path(prefix, &join_path(&path, &inner));
        E::custom(format_args!("{MARK}{full}{MARK}{message}"))
    })
}

/// For `timestamp`: an integer within ±(2^53 − 1). Whole floats (`1e3`, `1.0`) are accepted, as
/// JavaScript reads them as integers; fractional values are rejected.
pub(crate) fn timestamp<'de, D>(d: D) -> Result<Option<i64>, D::Error>
where
    D: Deserializer<'de>,
{
    safe_integer(d, -MAX_SAFE_INTEGER).map(Some)
}

/// For token counts and other non-negative integers.
pub(crate) fn count<'de, D>(d: D) -> Result<Option<u64>, D::Error>
where
    D: Deserializer<'de>,
{
    safe_integer(d, 0).map(|n| Some(n as u64))
}

fn safe_integer<'de, D>(d: D, min: i64) -> Result<i64, D::Error>
where
    D: Deserializer<'de>,
{
    struct V(i64);
    impl de::Visitor<'_> for V {
        type Value = i64;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "an integer between {} and {MAX_SAFE_INTEGER}", self.0)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<i64, E> {
            if (self.0..=MAX_SAFE_INTEGER).contains(&v) {
                Ok(v)
            } else {
                Err(E::invalid_value(de::Unexpected::Signed(v), &self))
            }
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<i64, E> {
            match i64::try_from(v) {
                Ok(v) => self.visit_i64(v),
                Err(_) => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
            }
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<i64, E> {
            if v.fract() == 0.0 && v.abs() <= MAX_SAFE_INTEGER as f64 {
                self.visit_i64(v as i64)
            } else {
                Err(E::invalid_value(de::Unexpected::Float(v), &self))
            }
        }
    }
    d.deserialize_any(V(min))
}

/// Deserializes an array of a discriminated union, dropping (with a warning) the elements whose
/// discriminator names no known member, as the 1.0 client does. Elements with a known
/// discriminator but a malformed body are errors.
pub(crate) fn lenient_vec<'de, D, T>(
    d: D,
    tag: &'static str,
    known: &'static [&'static str],
) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let items = Vec::<Value>::deserialize(d)?;
    let mut out = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        if let Some(name) = unknown_member(&item, tag, known) {
            tracing::warn!(index, %name, "dropping a union member of unknown {tag}");
            continue;
        }
        out.push(from_value_at(&format!("[{index}]"), item)?);
    }
    Ok(out)
}

/// Returns the discriminator value when `item` is an object whose `tag` is a string naming no
/// known member.
pub(crate) fn unknown_member(item: &Value, tag: &str, known: &[&str]) -> Option<String> {
    match item.get(tag) {
        Some(Value::String(name)) if !known.contains(&name.as_str()) => Some(name.clone()),
        _ => None,
    }
}
