//! The JSON of the wire model: the direct writer behind [`crate::Event::write_json`] (and
//! `to_json`), which every encoder uses; the direct reader behind [`crate::Event::from_json`]
//! for the text and reasoning events that make up almost every stream; and the JSON Patch
//! reader of `STATE_DELTA.delta` and `ACTIVITY_DELTA.patch`. Everything else is serde.
//!
//! * `write`: produces exactly the bytes the serde serializer produces (same keys, same order,
//!   same string escapes) for the text, tool call, reasoning and step events, but skips serde's
//!   per-field machinery: keys are constants and strings are scanned eight bytes at a time.
//!   Other events are written by serde.
//! * `read`: takes compact JSON of the text and reasoning events with plain strings and
//!   integers and builds the event directly, sharing an id equal to the last one a stream
//!   decoder read; anything else (escapes, whitespace, `rawEvent`, `metadata`, unknown or
//!   duplicate keys, a bad value) is left to serde, which accepts or rejects it with a precise
//!   error.
//! * `patch`: reads each patch operation straight from the input into a
//!   [`json_patch::PatchOperation`], where serde would parse it into a `serde_json::Value` and
//!   convert that through its buffering of tagged unions (copying the operation's `value` twice
//!   more). An operation that is not plainly valid is rebuilt and read the old way, so errors
//!   are unchanged.
//!
//! Property tests hold each to serde: the writer on generated events of every type, the reader
//! on generated and mangled JSON, the patch reader on generated and mangled lists against the
//! reading it replaced.
//!
//! # Hand-written or serde: the A/B
//!
//! Hand-written JSON code stays only where it is at least 1.5× as fast as typed serde on the
//! same events. `benches/sse.rs` measures both per event family (20,000 events each):
//! `json_decode/{family}/{hand_written,serde_typed,serde_json_value}` reads each event from its
//! own slice (`Event::from_slice` against `serde_json::from_slice` of the family's struct),
//! `json_stream/{family}/…` reads the family's SSE stream (`EventDecoder`, where the reader
//! runs, against `FrameDecoder` plus typed serde per frame), and `json_encode/{family}/…`
//! writes them (`Event::write_json` against `serde_json::to_writer`). `decode/ours` reads the
//! whole 206k-event workload. Three sessions on 2026-12-01 on the shared 2-core build machine
//! under heavy load (load average 7–15: absolute figures are a third to a half of an idle
//! machine's, and a ratio is only as good as the two benchmarks that ran back to back), in
//! million events per second, ratio hand-written : typed serde:
//!
//! | family | code | session 1 | session 2 | session 3 (two rounds) | decision |
//! |---|---|---|---|---|---|
//! | text delta (70 B) | decode, per event | 4.54 : 4.74 (0.96×) | 2.60 : 1.95 (1.33×) | 0.72 : 0.51 (1.43×), 0.81 : 0.61 (1.33×) | |
//! | text delta | decode, stream | — | 2.03 : 1.77 (1.15×) | 0.60 : 0.26 (2.35×), 0.72 : 0.47 (1.53×) | hand-written |
//! | whole workload | decode, stream, against `Value` | | | with the reader 2.62×, 2.39× `Value`; reading text by serde 1.75×, 2.10× | hand-written |
//! | tool args (68 B) | decode, per event | (3.61 : 1.82, a load swing) | 1.93 : 1.87 (1.03×) | | serde |
//! | tool args | decode, stream | — | 1.49 : 1.58 (0.94×) | | serde |
//! | text delta | encode | 23.1 : 12.1 (1.9×) | 14.9 : 5.16 (2.9×) | | hand-written |
//! | tool args | encode | 10.1 : 4.34 (2.3×) | 11.3 : 4.89 (2.3×) | | hand-written |
//! | whole workload | encode | 15.3 : 7.78 (2.0×) | 13.6 : 5.34 (2.6×) | | hand-written |
//! | state delta, activity delta, state snapshot, messages snapshot, run started | encode, decode | serde in both columns | | | serde |
//!
//! The reader stays for text and reasoning events (reasoning fragments are read by the same
//! code as text deltas): in a stream, where it runs, it was 1.15–2.35× typed serde, and the
//! workload decoded at 2.4–2.6× `Value` speed with it against 1.75–2.10× without it, in
//! interleaved runs. Its tool call arms were removed: tool-call arguments are JSON fragments,
//! so nearly every one holds a `"` that the reader left to serde anyway, and the family measured
//! 0.94–1.03×. The writer stays everywhere it was: 1.9–2.9× on every run.
//!
//! Patch-carrying events and snapshots are serde in both columns; what made them slow was the
//! reading of patch lists, which `patch` replaced (figures in `benches/sse.rs`).

// The reducer (client) uses all of it, the server the depth.
#[cfg_attr(not(feature = "client"), allow(dead_code))]
pub(crate) mod measure;
pub(crate) mod partial;
mod patch;
mod read;
mod write;

pub(crate) use patch::{activity_ops, delta_ops};
pub(crate) use read::{IdCache, read_event};
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
