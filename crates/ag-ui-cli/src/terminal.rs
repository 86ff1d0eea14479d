//! Text from a peer, made safe for a terminal: [`visible`] escapes what a terminal would obey
//! (control characters, the characters that reorder text), [`shell_quote`] quotes a word for
//! a POSIX shell. Every command that prints what an agent or a file sent goes through them.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` is shown escaped: a control character (C0, DEL, C1; newline and tab are kept
/// when `keep_lines`), or a character that reorders the text after it (bidirectional
/// formatting).
fn hidden(c: char, keep_lines: bool) -> bool {
    match c {
        '\n' | '\t' => !keep_lines,
        '\u{061c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => true,
        c => c.is_control(),
    }
}

/// `text` safe to show on a terminal: each control character (other than newline and tab when
/// `keep_lines`) and each bidirectional formatting character is written as its escape, e.g.
/// ESC as `\u{1b}`. Borrowed when nothing needs escaping.
pub(crate) fn visible(text: &str, keep_lines: bool) -> Cow<'_, str> {
    // Every such character starts with one of these bytes in UTF-8: C0 and DEL are single
    // bytes, C1 starts with 0xC2, U+061C with 0xD8, the others with 0xE2.
    let suspect = |b: &u8| *b < 0x20 || *b == 0x7f || *b == 0xc2 || *b == 0xd8 || *b == 0xe2;
    if !text.as_bytes().iter().any(suspect) || !text.chars().any(|c| hidden(c, keep_lines)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if hidden(c, keep_lines) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `word` as one word of a POSIX shell command: unchanged when it holds only characters no
/// shell treats specially, else in single quotes (a quote inside written `'\\''`).
pub(crate) fn shell_quote(word: &str) -> Cow<'_, str> {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"@%+=:,./_-".contains(&b));
    if plain {
        Cow::Borrowed(word)
    } else {
        Cow::Owned(format!("'{}'", word.replace('\'', "'\\''")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_escapes_controls_and_keeps_plain_text_borrowed() {
        assert!(matches!(
            visible("plain ünïcode → text", false),
            Cow::Borrowed(_)
        ));
        assert_eq!(visible("a\nb\tc", true), "a\nb\tc");
        assert_eq!(visible("a\nb\tc", false), "a\\u{a}b\\u{9}c");
        assert_eq!(
            visible("\u{1b}[0m\u{7f}\u{9b}\u{61c}\u{200f}\u{2066}x", true),
            "\\u{1b}[0m\\u{7f}\\u{9b}\\u{61c}\\u{200f}\\u{2066}x"
        );
        assert_eq!(shell_quote("ok-1"), "ok-1");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("a'b"), "'a'\\''b'");
    }
}
