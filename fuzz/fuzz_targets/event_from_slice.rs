//! `Event::from_slice` on arbitrary bytes: never panics, and whatever it accepts re-encodes to
//! JSON that decodes again to an event of the same type.

#![no_main]

use ag_ui::Event;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(event) = Event::from_slice(data) {
        let json = event.to_json();
        let back = Event::from_json(&json)
            .unwrap_or_else(|e| panic!("re-encoded event does not decode: {e}\n{json}"));
        assert_eq!(back.event_type(), event.event_type());
    }
});
