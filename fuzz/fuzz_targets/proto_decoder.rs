//! The protobuf frame decoder on arbitrary bytes: never panics, feeding the bytes in pieces (cut
//! where the first byte says) gives exactly the results of feeding them at once, and every event
//! it reads encodes back to a frame that reads as the same event.

#![no_main]

use ag_ui::Event;
use ag_ui::encoding::proto::{self, EventDecoder, ProtoError};
use libfuzzer_sys::fuzz_target;

fn decode(data: &[u8], piece: usize) -> Vec<Result<Event, ProtoError>> {
    let mut decoder = EventDecoder::new().with_max_frame_size(4096);
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
    // Whatever one message holds, decoding it alone agrees with the stream decoder.
    let _ = proto::decode_message(rest);
    for event in whole.into_iter().flatten() {
        let again = proto::decode_message(&proto::encode_message(&event));
        assert_eq!(again.as_ref(), Ok(&event), "re-encoding changed {event:?}");
    }
});
