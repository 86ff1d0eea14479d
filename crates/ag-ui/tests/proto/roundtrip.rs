//! Properties of the protobuf codec on generated events of every type: the direct writer of the
//! streaming events gives the generated code's bytes, every event reads back as itself modulo
//! the documented lossy points, and what was read encodes to the same bytes again.

#![cfg(feature = "proto")]

use crate::support as common;
use crate::support::proto as proto_support;

use ag_ui::Event;
use ag_ui::encoding::proto::{self, EventDecoder};
use common::strategies::any_event;
use proptest::prelude::*;
use proto_support::lossy;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn events_round_trip_modulo_the_lossy_points(event in any_event()) {
        let framed = proto::encode(&event);
        let message = proto::encode_message(&event);
        // The frame is the message after its length, whichever writer made it.
        prop_assert_eq!(&framed[..4], &(message.len() as u32).to_be_bytes()[..]);
        prop_assert_eq!(&framed[4..], &message[..]);
        let back = proto::decode_message(&message).unwrap();
        prop_assert_eq!(&back, &lossy(&event));
        // What was read is a fixed point.
        prop_assert_eq!(proto::encode_message(&back), proto::encode(&back)[4..].to_vec());
        prop_assert_eq!(proto::decode_message(&proto::encode_message(&back)).unwrap(), back);
    }

    #[test]
    fn streams_read_the_same_in_any_pieces(
        events in proptest::collection::vec(any_event(), 1..20),
        piece in 1usize..64,
    ) {
        let mut bytes = Vec::new();
        for e in &events {
            proto::encode_into(e, &mut bytes);
        }
        let mut d = EventDecoder::new();
        let mut got = Vec::new();
        for chunk in bytes.chunks(piece) {
            d.push(chunk);
            got.extend(d.by_ref().map(Result::unwrap));
        }
        d.finish();
        prop_assert!(d.next().is_none());
        let expected: Vec<Event> = events.iter().map(lossy).collect();
        prop_assert_eq!(got, expected);
    }

    #[test]
    fn any_bytes_give_results_not_panics(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let mut d = EventDecoder::new().with_max_frame_size(128);
        d.push(&bytes);
        d.finish();
        for result in d.by_ref() {
            if let Err(e) = result {
                prop_assert!(e.index().is_some());
            }
        }
        let _ = proto::decode_message(&bytes);
    }
}
