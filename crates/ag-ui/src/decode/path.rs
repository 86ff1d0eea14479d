//! The path of the field a serde_json error is about, found from where in the text it was
//! raised.
//!
//! serde_json's reader over bytes reports each error with its line and column: the point its
//! reader had reached. A data error is raised right after the value it is about (an invalid
//! type after the value, a missing field after the object's `}`, a bad element after the
//! array's `]`), or, for a value of the wrong kind of container, just before its `{` or `[`.
//! [`path_at`] reads the JSON up to that point, keeping the stack of open objects and arrays,
//! and names the value there in the notation of `serde_path_to_error` (`messages[1].content`,
//! `.` for the root). So one plain reading of an event names its bad field, with no
//! path-tracking wrapper around every deserializer: on wasm32 that wrapper was a third of the
//! browser module.
//!
//! Two points are ambiguous, both for an error serde_json did not raise itself (one a
//! `Deserialize` implementation makes after its value was read, such as a `null` refused by
//! `non_null`): such an error takes its position from the container around it, once that
//! container's reader has stopped, and that reader may have gone one step further. Past an
//! object's `}` or an array's `]`, the error is the container's own (a missing field, a bad
//! element of a list) or its last member's, whose reader passed the bracket; past a `,` in an
//! array and before an object or array, it is that next element's (of the wrong kind) or the
//! element before, whose reader passed the comma. [`error_path`] tells them apart by reading the
//! text again with one more `,` before that bracket or comma: the member before it is read as
//! before and fails the same way, while the other reading now ends in a syntax error. Only an
//! error at such a point costs that second reading.

/// One open container on the way to the point.
enum Frame {
    /// An object: its current member's name (its key, once read), and whether the next string
    /// is a key.
    Object { key: Option<String>, at_key: bool },
    /// An array and the index of its current element.
    Array { index: usize },
}

/// What the reader passed last before the point.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    /// Nothing yet: the point is at the root value.
    Start,
    /// The end of a value (a scalar, or the `}` / `]` of a container).
    Value,
    /// An object's key (with or without its `:`, see [`Last::Colon`]).
    Key,
    /// The `:` after a key: the point is at the member's value.
    Colon,
    /// An `{`, `[` or `,`: the point is at the container's next key or element.
    Open,
}

/// The path (`input.messages[0].content`; `.` for the root) of the value the error `err`,
/// which `read` returned for `json`, is about. At an ambiguous point (see the module docs),
/// `read` is called again, on the text with one more `,`.
pub(crate) fn error_path(
    json: &[u8],
    err: &serde_json::Error,
    read: &dyn Fn(&[u8]) -> Result<(), serde_json::Error>,
) -> String {
    let point = offset(json, err.line(), err.column());
    let (path, in_array) = scan(json, point);
    let Some(at) = json[..point].iter().rposition(|b| !is_space(*b)) else {
        return path;
    };
    let before = || scan(json, at).0;
    match json[at] {
        // An empty container has no member to blame.
        b'}' | b']'
            if matches!(
                json[..at].iter().rfind(|b| !is_space(**b)),
                Some(b'{' | b'[')
            ) =>
        {
            return path;
        }
        b'}' | b']' => {}
        // A reader stops after a scalar, and before an object or array of the wrong kind.
        b',' if in_array && !matches!(json.get(point), Some(b'{' | b'[')) => return before(),
        b',' if in_array => {}
        _ => return path,
    }
    let mut probe = Vec::with_capacity(json.len() + 1);
    probe.extend_from_slice(&json[..at]);
    probe.push(b',');
    probe.extend_from_slice(&json[at..]);
    // What the probe records of the event's dropped members, the caller's reading recorded.
    let mark = super::strip::mark();
    let again = read(&probe);
    super::strip::rollback(mark);
    match again {
        Err(e) if e.is_data() && message(&e) == message(err) => before(),
        _ => path,
    }
}

/// Whitespace, as JSON has it.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// An error's text without its position.
pub(crate) fn message(err: &serde_json::Error) -> String {
    let text = err.to_string();
    let position = format!(" at line {} column {}", err.line(), err.column());
    match text.strip_suffix(&position) {
        Some(message) => message.to_owned(),
        None => text,
    }
}

/// The path of the value at byte `point` of `json`, and whether the innermost container there
/// is an array.
fn scan(json: &[u8], point: usize) -> (String, bool) {
    let mut stack: Vec<Frame> = Vec::new();
    let mut last = Last::Start;
    let mut i = 0;
    while i < point {
        match json[i] {
            b'{' => {
                stack.push(Frame::Object {
                    key: None,
                    at_key: true,
                });
                last = Last::Open;
                i += 1;
            }
            b'[' => {
                stack.push(Frame::Array { index: 0 });
                last = Last::Open;
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                last = Last::Value;
                i += 1;
            }
            b',' => {
                match stack.last_mut() {
                    Some(Frame::Array { index }) => *index += 1,
                    Some(Frame::Object { at_key, .. }) => *at_key = true,
                    None => {}
                }
                last = Last::Open;
                i += 1;
            }
            b':' => {
                last = Last::Colon;
                i += 1;
            }
            b'"' => {
                let end = string_end(json, i);
                match stack.last_mut() {
                    Some(Frame::Object { key, at_key }) if *at_key => {
                        *key = Some(unescape(&json[i..end.min(json.len())]));
                        *at_key = false;
                        last = Last::Key;
                    }
                    _ => last = Last::Value,
                }
                i = end;
            }
            b if is_space(b) => i += 1,
            _ => {
                // A number or a literal: up to the next delimiter.
                while i < point && !b" \t\n\r,:]}[{\"".contains(&json[i]) {
                    i += 1;
                }
                last = Last::Value;
            }
        }
    }
    // At the end of a value, after a member's `:` or at an array's element, the path names
    // that value; at a key, or where an object's next key would be, it names the object.
    let depth = match (last, stack.last()) {
        (Last::Key, _) | (Last::Open, Some(Frame::Object { .. })) => stack.len().saturating_sub(1),
        _ => stack.len(),
    };
    let mut path = String::new();
    for frame in &stack[..depth] {
        match frame {
            Frame::Object { key: Some(key), .. } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::Object { key: None, .. } => {}
            Frame::Array { index } => {
                path.push('[');
                path.push_str(&index.to_string());
                path.push(']');
            }
        }
    }
    if path.is_empty() {
        path.push('.');
    }
    (path, matches!(stack.last(), Some(Frame::Array { .. })))
}

/// The byte offset of `line` (from 1) and `column` (bytes into the line), at most the length.
fn offset(json: &[u8], line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match json[start..].iter().position(|&b| b == b'\n') {
            Some(newline) => start += newline + 1,
            None => return json.len(),
        }
    }
    start.saturating_add(column).min(json.len())
}

/// The offset just past the string starting with the `"` at `start` (the length when it is
/// not closed).
fn string_end(json: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < json.len() {
        match json[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    json.len()
}

/// A key's text: the JSON string `quoted` (quotes included) with its escapes read; as it is
/// written, when it cannot be read.
fn unescape(quoted: &[u8]) -> String {
    let inner = quoted
        .get(1..quoted.len().saturating_sub(1))
        .unwrap_or_default();
    if !inner.contains(&b'\\') {
        return String::from_utf8_lossy(inner).into_owned();
    }
    serde_json::from_slice::<String>(quoted)
        .unwrap_or_else(|_| String::from_utf8_lossy(inner).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`error_path`] of reading `json` as `T`.
    fn fails_at<T: serde::de::DeserializeOwned + std::fmt::Debug>(json: &str) -> String {
        let read = |text: &[u8]| serde_json::from_slice::<T>(text).map(drop);
        let err = read(json.as_bytes()).unwrap_err();
        error_path(json.as_bytes(), &err, &read)
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        name: String,
        #[serde(default)]
        tags: Vec<u8>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Outer {
        id: String,
        #[serde(default)]
        inner: Option<Inner>,
        #[serde(default)]
        list: Vec<Inner>,
    }

    #[test]
    fn names_the_value_the_error_is_about() {
        assert_eq!(fails_at::<Outer>(r#"{"id":1}"#), "id");
        assert_eq!(
            fails_at::<Outer>(r#"{"id":"a","inner":{"name":null}}"#),
            "inner.name"
        );
        assert_eq!(
            fails_at::<Outer>(r#"{"id":"a","inner":{"name":{}}}"#),
            "inner.name"
        );
        assert_eq!(
            fails_at::<Outer>(r#"{"id":"a","inner":{"name":"n","tags":[1,300]}}"#),
            "inner.tags[1]"
        );
        assert_eq!(
            fails_at::<Outer>(r#"{"id":"a","list":[{"name":"n"},{"name":[]}]}"#),
            "list[1].name"
        );
        assert_eq!(
            fails_at::<Outer>(r#"{"id":"a","list":[{"name":"n"},3]}"#),
            "list[1]"
        );
        // A missing field is raised at its object's end: the object's path.
        assert_eq!(
            fails_at::<Outer>(r#"{"id":"a","inner":{"tags":[]}}"#),
            "inner"
        );
        assert_eq!(fails_at::<Outer>(r#"{"inner":null}"#), ".");
        // A duplicate key is raised at the key: the object's path.
        assert_eq!(
            fails_at::<Outer>(r#"{"id":"a","inner":{"name":"n","name":"m"}}"#),
            "inner"
        );
        assert_eq!(fails_at::<Outer>("1"), ".");
        assert_eq!(fails_at::<Outer>("[1]"), "[0]");
        // Whitespace, line breaks and escaped keys.
        assert_eq!(
            fails_at::<Outer>("{\n  \"id\": \"a\",\n  \"inn\\u0065r\" :\n {\"name\": 5 } }"),
            "inner.name"
        );
        assert_eq!(
            fails_at::<Outer>(r#"{"id":"a\"}","inner":{"name":true}}"#),
            "inner.name"
        );
    }

    /// Refuses `null`, after the value was read (as `serde_util::non_null` does): serde_json
    /// gives such an error the position of the container around it.
    #[derive(Debug, Default)]
    struct NotNull;

    impl<'de> serde::Deserialize<'de> for NotNull {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            match serde_json::Value::deserialize(d)? {
                serde_json::Value::Null => Err(serde::de::Error::custom("null refused")),
                _ => Ok(NotNull),
            }
        }
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Holder {
        #[serde(default)]
        first: NotNull,
        #[serde(default)]
        inner: Option<Box<Holder>>,
        #[serde(default)]
        list: Vec<NotNull>,
        #[serde(default)]
        last: NotNull,
        must: u8,
    }

    #[test]
    fn an_error_at_a_closing_bracket_is_the_containers_or_its_last_members() {
        // Not last: the position is right after the value.
        assert_eq!(fails_at::<Holder>(r#"{"first":null,"must":1}"#), "first");
        assert_eq!(
            fails_at::<Holder>(r#"{"list":[1,null,2],"must":1}"#),
            "list[1]"
        );
        assert_eq!(
            fails_at::<Holder>(r#"{"list":[1,null, {}],"must":1}"#),
            "list[1]"
        );
        assert_eq!(
            fails_at::<Holder>(r#"{"list":[1,null,[]],"must":1}"#),
            "list[1]"
        );
        assert_eq!(
            fails_at::<Outer>(r#"{"id":"a","inner":{"name":"n","tags":[1, {}]}}"#),
            "inner.tags[1]"
        );
        assert_eq!(
            fails_at::<Outer>(r#"{"id":"a","inner":{"name":"n","tags":[[]]}}"#),
            "inner.tags[0]"
        );
        // Last: the position is past the container's bracket.
        assert_eq!(fails_at::<Holder>(r#"{"must":1,"last":null}"#), "last");
        assert_eq!(
            fails_at::<Holder>(r#"{"must":1,"list":[1,null]}"#),
            "list[1]"
        );
        assert_eq!(
            fails_at::<Holder>(r#"{"must":1,"inner":{"must":2,"last":null}}"#),
            "inner.last"
        );
        assert_eq!(
            fails_at::<Holder>(r#"{"must":1,"inner":{"must":2,"first":null },"last":{}}"#),
            "inner.first"
        );
        // The container's own errors stay the container's.
        assert_eq!(fails_at::<Holder>(r#"{"first":{}}"#), ".");
        assert_eq!(
            fails_at::<Holder>(r#"{"must":1,"inner":{"last":{}}}"#),
            "inner"
        );
        assert_eq!(fails_at::<Holder>(r#"{"must":1,"inner":{}}"#), "inner");
        assert_eq!(fails_at::<Holder>(r#"{}"#), ".");
    }
}
