//! The chunk normalizer on arbitrary event sequences (JSON Lines in the fuzz input): nothing
//! panics, no `*_CHUNK` event comes out of it, and feeding the same events again gives the same
//! expansion (it holds no hidden state across normalizers).

#![no_main]

use ag_ui::client::chunks::ChunkNormalizer;
use ag_ui::{Event, EventType};
use libfuzzer_sys::fuzz_target;

fn expand(events: &[Event]) -> (Vec<Event>, Vec<String>) {
    let mut normalizer = ChunkNormalizer::new();
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for event in events {
        if let Err(e) = normalizer.push_into(event.clone(), &mut out) {
            errors.push(e.to_string());
        }
    }
    normalizer.finish_into(&mut out);
    assert_eq!(normalizer.open_streams(), 0, "finish leaves no stream open");
    (out, errors)
}

fuzz_target!(|data: &[u8]| {
    let events: Vec<Event> = data
        .split(|&b| b == b'\n')
        .filter_map(|line| Event::from_slice(line).ok())
        .collect();
    let (out, errors) = expand(&events);
    for event in &out {
        assert!(
            !matches!(
                event.event_type(),
                EventType::TextMessageChunk
                    | EventType::ToolCallChunk
                    | EventType::ReasoningMessageChunk
            ),
            "a chunk came out of the normalizer: {event:?}"
        );
    }
    assert_eq!(expand(&events), (out, errors));
});
