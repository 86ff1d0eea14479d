//! The JSON reader and writer of the wire model: [`crate::Event::write_json`] (and
//! `to_json`), which every encoder uses, and the direct reader behind
//! [`crate::Event::from_json`], for the events that make up almost every stream (text, tool
//! call and reasoning fragments, their starts and ends, steps).
//!
//! * `write`: produces exactly the bytes the serde serializer produces (same keys, same order,
//!   same string escapes) but skips serde's per-field machinery: keys are constants and strings
//!   are scanned eight bytes at a time. Other events are written by serde.
//! * `read`: takes compact JSON of the covered events with plain strings and integers and builds
//!   the event directly; anything else (escapes, whitespace, `rawEvent`, `metadata`, unknown or
//!   duplicate keys, a bad value) is left to serde, which accepts or rejects it with a precise
//!   error.
//!
//! Property tests hold both to serde: the writer on generated events of every type, the reader
//! on generated and mangled JSON. The hand-written paths are measured against typed serde on
//! the same `Event`s in `benches/sse.rs` (`json_encode/hand_written` against
//! `json_encode/serde_typed`; decoding: `decode/ours` against `decode/serde_json_value`).

mod ids;
mod patch;
mod write;

pub(crate) use ids::IdCache;
pub(crate) use patch::patch_ops;
pub(crate) use write::write_event;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Whether any of the eight bytes is a control character, `"` or `\`.
#[inline]
pub(super) fn word_needs_escape(w: u64) -> bool {
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    let q = w ^ (ONES * u64::from(b'"'));
    let quote = q.wrapping_sub(ONES) & !q;
    let b = w ^ (ONES * u64::from(b'\\'));
    let backslash = b.wrapping_sub(ONES) & !b;
    (control | quote | backslash) & HIGH != 0
}

#[inline]
fn byte_needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The position of the next byte at or after `from` that needs an escape.
#[inline]
pub(super) fn next_escape(bytes: &[u8], mut from: usize) -> Option<usize> {
    while from + 8 <= bytes.len() {
        let mut word = [0; 8];
        word.copy_from_slice(&bytes[from..from + 8]);
        if word_needs_escape(u64::from_le_bytes(word)) {
            break;
        }
        from += 8;
    }
    bytes[from..]
        .iter()
        .position(|&b| byte_needs_escape(b))
        .map(|at| from + at)
}

#[cfg(test)]
mod tests;
