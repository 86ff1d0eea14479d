//! Writing SSE frames.

use crate::Event;

/// Appends one SSE frame for `event` to `out`: `data: <json>\n\n`, byte-identical to the
/// reference encoder. Reuses the caller's buffer.
pub fn encode_into(event: &Event, out: &mut Vec<u8>) {
    out.extend_from_slice(b"data: ");
    event.write_json(out);
    out.extend_from_slice(b"\n\n");
}

/// One SSE frame for `event` in a new buffer. Prefer [`encode_into`] in loops.
pub fn encode(event: &Event) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    encode_into(event, &mut out);
    out
}
