//! What a peer sent is quoted in errors as a bounded excerpt: a 2 MB id, a 2 MB patch path,
//! thousands of open ids or an unknown type of 2 MB make a message of at most about 1 KB that
//! still names the field and says how long the original was.

use ag_ui::client::{Pipeline, Reducer};
use ag_ui::verify::Verifier;
use ag_ui::{Event, TextMessageRole};

const HUGE: usize = 2_000_000;

fn bounded(message: &str, needles: &[&str]) {
    assert!(message.len() < 1024 + 200, "{} bytes", message.len());
    for needle in needles {
        assert!(message.contains(needle), "{needle:?} not in {message}");
    }
}

#[test]
fn a_huge_id_is_quoted_as_an_excerpt_with_its_length() {
    let id = "m".repeat(HUGE);
    let mut verifier = Verifier::new();
    verifier.check(&Event::run_started("t", "r")).unwrap();
    let violation = verifier
        .check(&Event::text_message_end(id.as_str()))
        .unwrap_err();
    bounded(
        &violation.to_string(),
        &["TEXT_MESSAGE_END", "text message", "(2000000 bytes)"],
    );
    // The ids themselves are kept whole for programs.
    assert_eq!(violation.ids()[0].len(), HUGE);
}

#[test]
fn thousands_of_open_ids_are_listed_as_an_excerpt() {
    let mut verifier = Verifier::new();
    verifier.check(&Event::run_started("t", "r")).unwrap();
    for i in 0..5000 {
        let id = format!("message-{i:06}-{}", "x".repeat(100));
        verifier
            .check(&Event::text_message_start(
                id.as_str(),
                TextMessageRole::Assistant,
            ))
            .unwrap();
    }
    let violation = verifier.check(&Event::run_finished("t", "r")).unwrap_err();
    bounded(
        &violation.to_string(),
        &["still open", "message-000000", "bytes)"],
    );
    assert_eq!(violation.ids().len(), 5000);
    // The pipeline's report of a response cut inside the run says the same, bounded.
    let mut pipeline = Pipeline::new(Reducer::new());
    pipeline
        .push_event(Event::run_started("t", "r"), &mut ())
        .unwrap();
    for i in 0..5000 {
        let id = format!("message-{i:06}-{}", "x".repeat(100));
        pipeline
            .push_event(
                Event::text_message_start(id.as_str(), TextMessageRole::Assistant),
                &mut (),
            )
            .unwrap();
    }
    let incomplete = pipeline.check_end().unwrap_err();
    bounded(&incomplete.to_string(), &["still open", "message-000000"]);
}

#[test]
fn a_huge_patch_path_is_quoted_as_an_excerpt() {
    let path = format!("/{}", "p".repeat(HUGE));
    let delta: Vec<ag_ui::JsonPatchOperation> =
        serde_json::from_value(serde_json::json!([{ "op": "remove", "path": path }])).unwrap();
    let mut reducer = Reducer::new();
    reducer.apply(&Event::run_started("t", "r")).unwrap();
    let applied = reducer.apply(&Event::state_delta(delta)).unwrap();
    let warning = applied.warning.expect("the patch fails");
    bounded(&warning.message, &["state patch failed", "bytes)"]);
}

#[test]
fn a_huge_type_or_field_is_quoted_as_an_excerpt() {
    let unknown = format!(r#"{{"type":"{}"}}"#, "T".repeat(HUGE));
    let err = Event::from_slice(unknown.as_bytes()).unwrap_err();
    bounded(&err.to_string(), &["unknown event type", "(2000000 bytes)"]);
    // A field of the wrong type whose value is quoted by the decoder.
    let bad = format!(
        r#"{{"type":"TEXT_MESSAGE_START","messageId":"m","role":"{}"}}"#,
        "r".repeat(HUGE)
    );
    let err = Event::from_slice(bad.as_bytes()).unwrap_err();
    bounded(&err.to_string(), &["TEXT_MESSAGE_START", "role"]);
}

#[test]
fn a_huge_run_error_or_run_id_is_quoted_as_an_excerpt() {
    let mut pipeline = Pipeline::new(Reducer::new());
    pipeline
        .push_event(Event::run_started("t", "r".repeat(HUGE)), &mut ())
        .unwrap();
    let incomplete = pipeline.check_end().unwrap_err();
    bounded(
        &incomplete.to_string(),
        &["in the middle of run", "(2000000 bytes)"],
    );
    let mut pipeline = Pipeline::new(Reducer::new());
    pipeline
        .push_event(Event::run_started("t", "r"), &mut ())
        .unwrap();
    pipeline
        .push_event(Event::run_error("e".repeat(HUGE)), &mut ())
        .unwrap();
    let end = pipeline.check_end().unwrap();
    let message = end.agent_error().unwrap().to_string();
    assert!(message.len() < 4 * 1024 + 100, "{} bytes", message.len());
    assert!(
        message.starts_with("the run failed: eee"),
        "{}",
        &message[..40]
    );
    assert!(
        message.ends_with("(2000000 bytes)"),
        "{}",
        &message[message.len() - 40..]
    );
}
