//! Server-Sent Events framing.

use crate::Event;

/// The media type of an SSE response.
pub const CONTENT_TYPE: &str = "text/event-stream";

/// Appends one SSE frame for `event` to `out`: `data: <json>\n\n`, byte-identical to the
/// reference encoder. Reuses the caller's buffer.
pub fn encode_into(event: &Event, out: &mut Vec<u8>) {
    out.extend_from_slice(b"data: ");
    event.write_json(out);
    out.extend_from_slice(b"\n\n");
}
