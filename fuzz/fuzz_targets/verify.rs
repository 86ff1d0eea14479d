//! The verifier on arbitrary event sequences (JSON Lines in the fuzz input), in client and in
//! emission mode: nothing panics; in client mode the first violation names the index of the
//! event that broke the rule and every later event gets the same violation; `verify_all`
//! agrees with event-by-event checking.

#![no_main]

use ag_ui::Event;
use ag_ui::verify::{Verifier, verify_all};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let events: Vec<Event> = data
        .split(|&b| b == b'\n')
        .filter_map(|line| Event::from_slice(line).ok())
        .collect();
    let mut client = Verifier::new();
    let mut first = None;
    for (index, event) in events.iter().enumerate() {
        match (client.check(event), &first) {
            (Ok(()), None) => {}
            (Err(v), None) => {
                assert_eq!(v.index(), index, "{v}");
                first = Some(v);
            }
            (result, Some(v)) => assert_eq!(result.as_ref(), Err(v)),
        }
    }
    match (&first, verify_all(&events)) {
        (None, Ok(n)) => assert_eq!(n, events.len()),
        (Some(v), Err(w)) => assert_eq!(v, &w),
        (a, b) => panic!("check and verify_all disagree: {a:?} / {b:?}"),
    }
    let mut emission = Verifier::for_emission();
    for event in &events {
        let _ = emission.check(event);
    }
});
