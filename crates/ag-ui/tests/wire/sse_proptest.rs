//! Properties of the SSE writer and reader over generated events of all 31 types.

#![cfg(feature = "sse")]

use crate::support as common;

use ag_ui::encoding::sse::{self, EventDecoder};
use ag_ui::{Event, EventType};
use common::strategies::{any_event, event_of};
use proptest::prelude::*;

fn encode_all(events: &[Event]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in events {
        sse::encode_into(e, &mut out);
    }
    out
}

/// Feeds `bytes` cut at `cuts` (positions, any order) and collects every result.
fn decode_in_pieces(bytes: &[u8], cuts: &[usize]) -> Vec<Event> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    cuts.sort_unstable();
    let mut decoder = EventDecoder::new();
    let mut events = Vec::new();
    let mut start = 0;
    for cut in cuts.into_iter().chain([bytes.len()]) {
        decoder.push(&bytes[start..cut]);
        start = cut;
        events.extend(decoder.by_ref().map(|r| r.expect("valid event")));
    }
    decoder.finish();
    events.extend(decoder.by_ref().map(|r| r.expect("valid event")));
    events
}

/// Feeds `input` cut at `cuts` to a decoder with a small limit and collects every result.
fn decode_results(input: &[u8], cuts: &[usize]) -> Vec<Result<Event, ag_ui::DecodeError>> {
    let mut decoder = EventDecoder::new().with_max_event_size(128);
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
    cuts.sort_unstable();
    let mut results = Vec::new();
    let mut start = 0;
    for cut in cuts.into_iter().chain([input.len()]) {
        decoder.push(&input[start..cut]);
        start = cut;
        results.extend(decoder.by_ref());
    }
    decoder.finish();
    results.extend(decoder.by_ref());
    results
}

#[test]
fn the_strategy_covers_every_event_type() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for &ty in EventType::ALL {
        let event = event_of(ty).new_tree(&mut runner).unwrap().current();
        assert_eq!(event.event_type(), ty);
    }
    assert_eq!(EventType::ALL.len(), 31);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn decode_of_encode_is_identity(event in any_event()) {
        let bytes = sse::encode(&event);
        prop_assert_eq!(sse::decode(&bytes).unwrap(), vec![event.clone()]);
        prop_assert_eq!(Event::from_slice(event.to_json().as_bytes()).unwrap(), event);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `write_json` takes a direct path for the common events; it must write exactly what the
    /// serde serializer writes.
    #[test]
    fn the_direct_writer_matches_serde(mut event in any_event()) {
        prop_assert_eq!(event.to_json(), serde_json::to_string(&event).unwrap());
        *event.raw_event_mut() = None;
        *event.metadata_mut() = None;
        prop_assert_eq!(event.to_json(), serde_json::to_string(&event).unwrap());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_split_and_any_line_ending_yield_the_same_events(
        events in prop::collection::vec(any_event(), 1..6),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
        ending in 0..3usize,
        comments in any::<bool>(),
    ) {
        let mut bytes = Vec::new();
        if comments {
            bytes.extend_from_slice(b"\xEF\xBB\xBF: opening comment\n\n");
        }
        for e in &events {
            sse::encode_into(e, &mut bytes);
            if comments {
                bytes.extend_from_slice(b": keep-alive\nid: 42\n\n");
            }
        }
        // The JSON holds no raw line breaks, so every LF is framing.
        let bytes: Vec<u8> = match ending {
            0 => bytes,
            1 => bytes.iter().flat_map(|&b| if b == b'\n' { vec![b'\r', b'\n'] } else { vec![b] }).collect(),
            _ => bytes.iter().map(|&b| if b == b'\n' { b'\r' } else { b }).collect(),
        };
        prop_assert_eq!(&decode_in_pieces(&bytes, &cuts), &events);
        // Without the last blank line, finish() still delivers the last event.
        let trimmed = bytes.strip_suffix(b"\r\n").or_else(|| bytes.strip_suffix(b"\r")).or_else(|| bytes.strip_suffix(b"\n")).unwrap();
        prop_assert_eq!(&decode_in_pieces(trimmed, &cuts), &events);
        prop_assert_eq!(encode_all(&events).len() <= bytes.len(), true);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..300),
        cuts in prop::collection::vec(any::<usize>(), 0..6),
    ) {
        let _ = Event::from_slice(&bytes);
        let mut framed = b"data: ".to_vec();
        framed.extend_from_slice(&bytes);
        for input in [&bytes[..], &framed[..]] {
            // Whatever comes out, pieces give exactly what the whole gives.
            let whole = decode_results(input, &[]);
            prop_assert_eq!(decode_results(input, &cuts), whole);
        }
    }

    #[test]
    fn mutated_events_never_panic(event in any_event(), at in any::<usize>(), byte in any::<u8>(), cut in any::<usize>()) {
        let mut json = event.to_json().into_bytes();
        let at = at % json.len();
        json[at] = byte;
        let _ = Event::from_slice(&json);
        let _ = Event::from_slice(&json[..cut % (json.len() + 1)]);
        let mut framed = b"data: ".to_vec();
        framed.extend_from_slice(&json);
        let _ = sse::decode(&framed);
    }
}
