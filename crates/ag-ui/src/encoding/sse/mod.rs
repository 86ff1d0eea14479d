//! Server-Sent Events: the writer every AG-UI server uses and an incremental, bounded reader.
//!
//! On the wire each event is one frame, `data: <compact JSON>\n\n`, exactly as the reference
//! encoder writes it ([`encode_into`], [`encode`]); a frame of any other data is written by
//! [`write_frame`] (one `data:` line per line) or [`write_frame_with`] (the payload written in
//! place). Reading goes through two layers:
//!
//! * [`FrameDecoder`] turns bytes, fed in chunks of any size, into [`Frame`]s following the SSE
//!   rules: LF, CRLF and CR line endings, several `data:` lines joined by `\n`, one optional
//!   space after the colon, comments, `event:`/`id:`/`retry:` fields (the last event id is kept
//!   for resuming), a leading byte order mark, and a final frame without its blank line once
//!   [`FrameDecoder::finish`] says the input ended. A frame larger than the configured maximum
//!   (10 MiB by default, as the reference client) is an error of kind
//!   [`DecodeErrorKind::TooLarge`](crate::DecodeErrorKind::TooLarge) instead of a buffer that grows without bound.
//! * [`EventDecoder`] reads each frame's data as an [`Event`](crate::Event). An event type this crate does not
//!   know is reported as [`DecodeErrorKind::UnknownEventType`](crate::DecodeErrorKind::UnknownEventType), so a reader can skip it with a
//!   warning as the reference client does; [`decode`] does exactly that.
//!
//! Errors carry the zero-based index of the frame they concern ([`DecodeError::index`](crate::DecodeError::index)).
//!
//! ```
//! use ag_ui::encoding::sse::{self, EventDecoder};
//! use ag_ui::{DecodeErrorKind, Event, TextMessageRole};
//!
//! let mut bytes = sse::encode(&Event::text_message_start("m1", TextMessageRole::Assistant));
//! assert_eq!(
//!     bytes,
//!     b"data: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m1\",\"role\":\"assistant\"}\n\n"
//! );
//! sse::encode_into(&Event::text_message_content("m1", "Hi"), &mut bytes);
//! bytes.extend_from_slice(b": keep-alive\r\n\r\ndata: {\"type\":\"FUTURE\"}\r\n\r\n");
//! bytes.extend_from_slice(b"data: {\"type\":\"TEXT_MESSAGE_END\",\n");
//! bytes.extend_from_slice(b"data: \"messageId\":\"m1\"}"); // no blank line at the end
//!
//! // Feed the bytes in awkward pieces; the events come out the same.
//! let mut decoder = EventDecoder::new();
//! let mut events = Vec::new();
//! let mut unknown = 0;
//! for piece in bytes.chunks(7) {
//!     decoder.push(piece);
//!     for result in &mut decoder {
//!         match result {
//!             Ok(event) => events.push(event),
//!             Err(e) if e.kind() == DecodeErrorKind::UnknownEventType => unknown += 1,
//!             Err(e) => panic!("{e}"),
//!         }
//!     }
//! }
//! decoder.finish();
//! events.extend(decoder.by_ref().map(Result::unwrap));
//!
//! assert_eq!(events, [
//!     Event::text_message_start("m1", TextMessageRole::Assistant),
//!     Event::text_message_content("m1", "Hi"),
//!     Event::text_message_end("m1"),
//! ]);
//! assert_eq!(unknown, 1);
//! assert_eq!(sse::decode(&bytes).unwrap(), events);
//! ```

mod decode;
#[cfg(test)]
mod tests;
mod write;

pub use decode::{EventDecoder, Frame, FrameDecoder, decode};
#[cfg(feature = "axum")]
pub(crate) use write::{FrameHead, KEEP_ALIVE, write_cursor_id, write_data, write_id, write_retry};
pub use write::{encode, encode_into, write_frame, write_frame_with};

/// The default largest frame a decoder accepts: 10 MiB, the reference client's limit.
pub const DEFAULT_MAX_EVENT_SIZE: usize = 10 * 1024 * 1024;
