//! The SSE decoder on arbitrary bytes: never panics, and feeding the bytes in pieces (cut where
//! the first byte says) gives exactly the results of feeding them at once.

#![no_main]

use ag_ui::encoding::sse::EventDecoder;
use ag_ui::{DecodeError, Event};
use libfuzzer_sys::fuzz_target;

fn decode(data: &[u8], piece: usize) -> Vec<Result<Event, DecodeError>> {
    let mut decoder = EventDecoder::new().with_max_event_size(256);
    let mut results = Vec::new();
    for chunk in data.chunks(piece) {
        decoder.push(chunk);
        results.extend(decoder.by_ref());
    }
    decoder.finish();
    results.extend(decoder.by_ref());
    results
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let piece = usize::from(first % 16) + 1;
    let whole = decode(rest, rest.len().max(1));
    let pieces = decode(rest, piece);
    assert_eq!(whole, pieces, "piece size {piece}");
});
