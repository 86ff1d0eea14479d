//! Completion of truncated JSON text: the argument text of a tool call that is still streaming.
//!
//! [`PartialJson`] scans the text incrementally (work per appended chunk is proportional to the
//! chunk) and can at any moment produce the text closed into a complete JSON document: open
//! strings are closed, literals (`tr` → `true`) and numbers (`1.` → `1.0`) finished, a dangling
//! key or trailing comma of the last collection item dropped, open arrays and objects closed.
//! The rules are those of the `untruncate-json` routine the reference client uses.

// Public through `client::apply`; the model bridge uses it without the client.
#![cfg_attr(not(feature = "client"), allow(unreachable_pub, dead_code))]

use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    TopLevel,
    String,
    StringEscaped,
    StringUnicode(u8),
    Number,
    NumberNeedsDigit,
    NumberNeedsExponent,
    Literal(&'static str, usize),
    ArrayNeedsValue,
    ArrayNeedsComma,
    ObjectNeedsKey,
    ObjectNeedsColon,
    ObjectNeedsValue,
    ObjectNeedsComma,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reason {
    StringEscape,
    CollectionItem,
}

/// An incremental scanner over JSON text that arrives in pieces.
///
/// ```
/// # #[cfg(feature = "client")]
/// # {
/// use ag_ui::client::PartialJson;
/// use serde_json::json;
///
/// let mut args = PartialJson::new();
/// args.push(r#"{"city": "Par"#);
/// assert_eq!(args.value(), json!({"city": "Par"}));
/// args.push(r#"is", "days": [1, 2, tr"#);
/// assert_eq!(args.value(), json!({"city": "Paris", "days": [1, 2, true]}));
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct PartialJson {
    text: String,
    stack: Vec<Ctx>,
    /// Byte position, stack length and reason of the earliest point the completion cuts back to.
    respawn: Option<(usize, usize, Reason)>,
}

impl Default for PartialJson {
    fn default() -> Self {
        Self::new()
    }
}

impl PartialJson {
    /// An empty scanner.
    pub fn new() -> Self {
        Self {
            text: String::new(),
            stack: vec![Ctx::TopLevel],
            respawn: None,
        }
    }

    /// A scanner that has seen `text`.
    pub fn from_text(text: &str) -> Self {
        let mut scanner = Self::new();
        scanner.push(text);
        scanner
    }

    /// The text seen so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Appends a chunk of text; work is proportional to the chunk.
    pub fn push(&mut self, chunk: &str) {
        let start = self.text.len();
        self.text.push_str(chunk);
        for (offset, byte) in chunk.bytes().enumerate() {
            self.step(start + offset, byte);
        }
    }

    fn set_respawn(&mut self, position: usize, reason: Reason) {
        if self.respawn.is_none() {
            self.respawn = Some((position, self.stack.len(), reason));
        }
    }

    fn clear_respawn(&mut self, reason: Reason) {
        if matches!(self.respawn, Some((_, _, r)) if r == reason) {
            self.respawn = None;
        }
    }

    fn top(&mut self) -> &mut Ctx {
        if self.stack.is_empty() {
            self.stack.push(Ctx::TopLevel);
        }
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    fn start_any(&mut self, byte: u8) {
        let ctx = match byte {
            b'0'..=b'9' => Ctx::Number,
            b'"' => Ctx::String,
            b'-' => Ctx::NumberNeedsDigit,
            b't' => Ctx::Literal("true", 1),
            b'f' => Ctx::Literal("false", 1),
            b'n' => Ctx::Literal("null", 1),
            b'[' => Ctx::ArrayNeedsValue,
            b'{' => Ctx::ObjectNeedsKey,
            _ => return,
        };
        self.stack.push(ctx);
    }

    fn step(&mut self, position: usize, byte: u8) {
        // A number or literal ends at a byte that is not part of it; that byte is then read
        // again in the enclosing context.
        loop {
            let ctx = *self.top();
            match ctx {
                Ctx::TopLevel => self.start_any(byte),
                Ctx::String => match byte {
                    b'"' => {
                        self.stack.pop();
                    }
                    b'\\' => {
                        self.set_respawn(position, Reason::StringEscape);
                        self.stack.push(Ctx::StringEscaped);
                    }
                    _ => {}
                },
                Ctx::StringEscaped => {
                    if byte == b'u' {
                        self.stack.push(Ctx::StringUnicode(0));
                    } else {
                        self.clear_respawn(Reason::StringEscape);
                        self.stack.pop();
                    }
                }
                Ctx::StringUnicode(seen) => {
                    if seen + 1 == 4 {
                        self.clear_respawn(Reason::StringEscape);
                        // Leaves the `\u` escape and the escaped state together.
                        self.stack.pop();
                        self.stack.pop();
                    } else {
                        *self.top() = Ctx::StringUnicode(seen + 1);
                    }
                }
                Ctx::Number => match byte {
                    b'.' => *self.top() = Ctx::NumberNeedsDigit,
                    b'e' | b'E' => *self.top() = Ctx::NumberNeedsExponent,
                    b'0'..=b'9' => {}
                    _ => {
                        self.stack.pop();
                        continue;
                    }
                },
                Ctx::NumberNeedsDigit => *self.top() = Ctx::Number,
                Ctx::NumberNeedsExponent => {
                    *self.top() = if byte == b'+' || byte == b'-' {
                        Ctx::NumberNeedsDigit
                    } else {
                        Ctx::Number
                    };
                }
                Ctx::Literal(word, typed) => {
                    if byte.is_ascii_lowercase() {
                        *self.top() = Ctx::Literal(word, typed + 1);
                    } else {
                        self.stack.pop();
                        continue;
                    }
                }
                Ctx::ArrayNeedsValue => {
                    if byte == b']' {
                        self.stack.pop();
                    } else if !is_whitespace(byte) {
                        self.clear_respawn(Reason::CollectionItem);
                        *self.top() = Ctx::ArrayNeedsComma;
                        self.start_any(byte);
                    }
                }
                Ctx::ArrayNeedsComma => {
                    if byte == b']' {
                        self.stack.pop();
                    } else if byte == b',' {
                        self.set_respawn(position, Reason::CollectionItem);
                        *self.top() = Ctx::ArrayNeedsValue;
                    }
                }
                Ctx::ObjectNeedsKey => {
                    if byte == b'}' {
                        self.stack.pop();
                    } else if byte == b'"' {
                        self.set_respawn(position, Reason::CollectionItem);
                        *self.top() = Ctx::ObjectNeedsColon;
                        self.stack.push(Ctx::String);
                    }
                }
                Ctx::ObjectNeedsColon => {
                    if byte == b':' {
                        *self.top() = Ctx::ObjectNeedsValue;
                    }
                }
                Ctx::ObjectNeedsValue => {
                    if !is_whitespace(byte) {
                        self.clear_respawn(Reason::CollectionItem);
                        *self.top() = Ctx::ObjectNeedsComma;
                        self.start_any(byte);
                    }
                }
                Ctx::ObjectNeedsComma => {
                    if byte == b'}' {
                        self.stack.pop();
                    } else if byte == b',' {
                        self.set_respawn(position, Reason::CollectionItem);
                        *self.top() = Ctx::ObjectNeedsKey;
                    }
                }
            }
            return;
        }
    }

    /// The text closed into a complete JSON document (not validated).
    pub fn completed(&self) -> String {
        let (prefix, depth) = match self.respawn {
            Some((position, depth, _)) => (&self.text[..position], depth),
            None => (self.text.as_str(), self.stack.len()),
        };
        let mut out = String::with_capacity(prefix.len() + depth);
        out.push_str(prefix);
        for ctx in self.stack[..depth.min(self.stack.len())].iter().rev() {
            match ctx {
                Ctx::String => out.push('"'),
                Ctx::NumberNeedsDigit | Ctx::NumberNeedsExponent => out.push('0'),
                Ctx::Literal(word, typed) => out.push_str(word.get(*typed..).unwrap_or("")),
                Ctx::ArrayNeedsValue | Ctx::ArrayNeedsComma => out.push(']'),
                Ctx::ObjectNeedsKey
                | Ctx::ObjectNeedsColon
                | Ctx::ObjectNeedsValue
                | Ctx::ObjectNeedsComma => out.push('}'),
                Ctx::TopLevel | Ctx::StringEscaped | Ctx::StringUnicode(_) | Ctx::Number => {}
            }
        }
        out
    }

    /// The completed text parsed as JSON; an empty object when it does not parse (garbage, or
    /// nothing seen yet).
    pub fn value(&self) -> Value {
        serde_json::from_str(&self.completed())
            .unwrap_or_else(|_| Value::Object(serde_json::Map::new()))
    }
}

fn is_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\r' | b'\n' | b'\t')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn complete(text: &str) -> String {
        PartialJson::from_text(text).completed()
    }

    #[test]
    fn closes_what_is_open() {
        assert_eq!(complete(""), "");
        assert_eq!(complete("{"), "{}");
        assert_eq!(complete(r#"{"a"#), "{}");
        assert_eq!(complete(r#"{"a":"#), "{}");
        assert_eq!(complete(r#"{"a": 1"#), r#"{"a": 1}"#);
        assert_eq!(complete(r#"{"a": 1,"#), r#"{"a": 1}"#);
        assert_eq!(complete(r#"{"a": "x\"#), r#"{"a": "x"}"#);
        assert_eq!(complete(r#"{"a": "x\u00"#), r#"{"a": "x"}"#);
        assert_eq!(complete(r#"{"a": "x\u00e9"#), r#"{"a": "x\u00e9"}"#);
        assert_eq!(complete("[1, -"), "[1, -0]");
        assert_eq!(complete("[1.5e"), "[1.5e0]");
        assert_eq!(complete("[fa"), "[false]");
        assert_eq!(complete("[nu"), "[null]");
        assert_eq!(complete("[[1], {\"b\": [tr"), "[[1], {\"b\": [true]}]");
        assert_eq!(complete(r#"{"k": "é"#), r#"{"k": "é"}"#);
    }

    #[test]
    fn incremental_equals_whole() {
        let text = r#"{"city": "Paris", "n": [1, 2.5e-3, true, null, {"x": "a\"b\u0041"}]}"#;
        for split in 0..=text.len() {
            if !text.is_char_boundary(split) {
                continue;
            }
            let mut scanner = PartialJson::new();
            scanner.push(&text[..split]);
            let whole = PartialJson::from_text(&text[..split]);
            assert_eq!(scanner.completed(), whole.completed(), "at {split}");
            // Every prefix completes into valid JSON.
            if split > 0 {
                assert!(
                    serde_json::from_str::<Value>(&scanner.completed()).is_ok(),
                    "prefix {:?} → {:?}",
                    &text[..split],
                    scanner.completed()
                );
            }
            scanner.push(&text[split..]);
            assert_eq!(
                scanner.value(),
                serde_json::from_str::<Value>(text).unwrap()
            );
        }
    }

    #[test]
    fn garbage_is_an_empty_object() {
        assert_eq!(PartialJson::from_text("not json").value(), json!({}));
        assert_eq!(PartialJson::new().value(), json!({}));
    }
}
