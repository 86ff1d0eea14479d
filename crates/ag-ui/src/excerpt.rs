//! Bounded excerpts of text a peer sent, for error messages.
//!
//! An error that quotes what it refused (an id, a field path, a query parameter) must not grow
//! with it: a 2 MB id would otherwise be a 2 MB message, printed on a terminal or sent back in
//! an HTTP body. Every such echo goes through [`excerpt`].

use std::borrow::Cow;

/// The longest excerpt most error messages quote, in bytes of the original text: 120.
pub const EXCERPT_BYTES: usize = 120;

/// The longest excerpt of a list (open ids joined with commas) an error message quotes, in
/// bytes: 1024.
pub const EXCERPT_LIST_BYTES: usize = 1024;

/// `text` with control characters (terminal escapes, line breaks) written as `\u{…}` escapes:
/// what a peer sent is shown, never obeyed by a terminal.
#[cfg_attr(not(feature = "client"), allow(dead_code))]
pub(crate) fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` when it is at most `max` bytes long; otherwise its first `max` bytes or fewer (cut at
/// a character boundary), an ellipsis, and the original length, as in
/// `abcd… (2000000 bytes)`. The result is at most `max` plus 30 bytes long.
///
/// The one way this crate's errors quote text a peer sent (an id, a tool name, a field path),
/// public so that code built on it (a tool, a server, the `ag-ui` command) quotes the same way:
/// a message never grows with what it refused. [`EXCERPT_BYTES`] is the usual bound.
///
/// ```
/// use ag_ui::excerpt;
///
/// assert_eq!(excerpt("short", 10), "short");
/// assert_eq!(excerpt("ééé", 3), "é… (6 bytes)");
/// let id = "x".repeat(2_000_000);
/// let quoted = excerpt(&id, 16);
/// assert!(quoted.len() < 50 && quoted.ends_with("(2000000 bytes)"));
/// ```
pub fn excerpt(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}… ({} bytes)", &text[..end], text.len()))
}

/// `items` joined with `, ` and quoted as one bounded excerpt of at most
/// [`EXCERPT_LIST_BYTES`]: the same text as `excerpt(&items.join(", "), EXCERPT_LIST_BYTES)`,
/// without building more of the joined list than it shows (40,000 subagent names cost the
/// excerpt, not the list).
///
/// ```
/// use ag_ui::{EXCERPT_LIST_BYTES, excerpt, excerpt_list};
///
/// assert_eq!(excerpt_list(["m1", "m2"]), "m1, m2");
/// let ids: Vec<String> = (0..40_000).map(|i| format!("lane-{i}")).collect();
/// let quoted = excerpt_list(&ids);
/// assert_eq!(quoted, excerpt(&ids.join(", "), EXCERPT_LIST_BYTES));
/// assert!(quoted.len() < EXCERPT_LIST_BYTES + 30);
/// ```
pub fn excerpt_list<I>(items: I) -> String
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    let max = EXCERPT_LIST_BYTES;
    // A prefix of the joined list, at least `max + 1` bytes long when the list is longer (less
    // at most a character's tail), and the joined list's whole length.
    let mut shown = String::new();
    let mut total = 0usize;
    let mut full = false;
    for (i, item) in items.into_iter().enumerate() {
        for part in [if i == 0 { "" } else { ", " }, item.as_ref()] {
            total += part.len();
            if full {
                continue;
            }
            let room = max + 1 - shown.len();
            if part.len() <= room {
                shown.push_str(part);
            } else {
                let mut end = room;
                while !part.is_char_boundary(end) {
                    end -= 1;
                }
                shown.push_str(&part[..end]);
                full = true;
            }
        }
    }
    if total <= max {
        return shown;
    }
    let mut end = max.min(shown.len());
    while !shown.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({total} bytes)", &shown[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_at_a_boundary_with_its_length() {
        assert!(matches!(excerpt("", 0), Cow::Borrowed("")));
        assert_eq!(excerpt("abc", 3), "abc");
        assert_eq!(excerpt("abcd", 3), "abc… (4 bytes)");
        assert_eq!(excerpt("abcd", 0), "… (4 bytes)");
        // Never inside a character.
        for max in 0..12 {
            let cut = excerpt("日本語のテキスト", max);
            assert!(cut.len() <= max + 30, "{cut}");
        }
        assert_eq!(excerpt("日本語", 4), "日… (9 bytes)");
        let long = "€".repeat(1_000_000);
        assert!(excerpt(&long, EXCERPT_BYTES).len() <= EXCERPT_BYTES + 30);
    }

    #[test]
    fn a_list_excerpt_is_the_excerpt_of_the_joined_list() {
        let cases: Vec<Vec<String>> = vec![
            vec![],
            vec!["a".into()],
            vec!["x".repeat(EXCERPT_LIST_BYTES)],
            vec!["x".repeat(EXCERPT_LIST_BYTES + 1)],
            vec!["x".repeat(EXCERPT_LIST_BYTES - 1), "y".into()],
            vec!["é".repeat(600), "日本".repeat(300)],
            (0..5_000).map(|i| format!("ü{i}")).collect(),
            vec!["x".repeat(2_000_000)],
        ];
        for items in cases {
            assert_eq!(
                excerpt_list(&items),
                excerpt(&items.join(", "), EXCERPT_LIST_BYTES),
                "{} items",
                items.len()
            );
        }
    }
}
