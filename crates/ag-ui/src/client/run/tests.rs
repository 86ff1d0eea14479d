//! Unit tests of the client pipeline (`client/run/mod.rs`).

use super::*;
use crate::DecodeErrorKind;
use crate::client::apply::Applied;
use crate::encoding::sse;
use crate::{EventType, MessageId, TextMessageRole};

fn sse_of(events: &[Event]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in events {
        sse::encode_into(e, &mut out);
    }
    out
}

#[derive(Default)]
struct Log {
    events: Vec<EventType>,
    applied: usize,
    stop_at: Option<EventType>,
}

impl Subscriber for Log {
    fn on_event(&mut self, event: &Event, _: &Reducer) -> Flow {
        self.events.push(event.event_type());
        if Some(event.event_type()) == self.stop_at {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }
    fn on_applied(&mut self, _: &Event, _: &Applied, _: &Reducer) -> Flow {
        self.applied += 1;
        Flow::Continue
    }
}

#[test]
fn chunks_thinking_and_unknown_types_go_through() {
    let mut bytes = sse_of(&[
        Event::run_started("t", "r"),
        Event::text_message_chunk(Some(MessageId::new("m")), Some("a".into())),
        Event::text_message_chunk(None, Some("b".into())),
    ]);
    bytes.extend_from_slice(b"data: {\"type\":\"THINKING_TEXT_MESSAGE_START\"}\n\n");
    bytes.extend_from_slice(
        b"data: {\"type\":\"THINKING_TEXT_MESSAGE_CONTENT\",\"delta\":\"hm\"}\n\n",
    );
    bytes.extend_from_slice(b"data: {\"type\":\"THINKING_TEXT_MESSAGE_END\"}\n\n");
    bytes.extend_from_slice(b"data: {\"type\":\"SOMETHING_NEW\"}\n\n");
    bytes.extend(sse_of(&[Event::run_finished("t", "r")]));
    let mut log = Log::default();
    let mut pipeline = Pipeline::new(Reducer::new());
    for piece in bytes.chunks(5) {
        pipeline.push_bytes(piece, &mut log).unwrap();
    }
    pipeline.finish(&mut log).unwrap();
    let messages = pipeline.reducer().messages();
    assert_eq!(messages[0].text(), Some("ab"));
    assert_eq!(messages[1].text(), Some("hm"));
    assert_eq!(messages[1].id().as_str(), "thinking-1");
    assert_eq!(log.events.len(), 9);
    assert_eq!(log.events[1], EventType::TextMessageStart);
}

/// A protobuf event of a type 1.0 does not define is left out with a warning, as in SSE.
#[cfg(feature = "proto")]
#[test]
fn an_unknown_protobuf_event_is_a_warning() {
    use crate::client::warning::WarningKind;
    use crate::encoding::proto;
    let mut bytes = Vec::new();
    proto::encode_into(&Event::run_started("t", "r"), &mut bytes);
    // A frame whose only arm is an unknown one carrying a message: a future event.
    let unknown = [0x82, 0x02, 0x02, 0x08, 0x0a];
    bytes.extend_from_slice(&u32::try_from(unknown.len()).unwrap().to_be_bytes());
    bytes.extend_from_slice(&unknown);
    proto::encode_into(&Event::run_finished("t", "r"), &mut bytes);
    let mut pipeline = Pipeline::new(Reducer::new()).with_format(Format::Proto);
    pipeline.push_bytes(&bytes, &mut ()).unwrap();
    pipeline.finish(&mut ()).unwrap();
    assert!(pipeline.check_end().unwrap().agent_error().is_none());
    let warnings: Vec<_> = pipeline.warnings().iter().collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].kind(), WarningKind::UnknownEvent);
    assert_eq!(warnings[0].index(), Some(1));
}

#[test]
fn verifier_errors_stop_the_pipeline_with_what_was_applied() {
    let bytes = sse_of(&[
        Event::run_started("t", "r"),
        Event::text_message_start("m", TextMessageRole::Assistant),
        Event::text_message_content("m", "kept"),
        Event::text_message_content("other", "x"),
    ]);
    let mut pipeline = Pipeline::new(Reducer::new());
    let err = pipeline.push_bytes(&bytes, &mut ()).unwrap_err();
    assert_eq!(err.kind(), PipelineErrorKind::Verify);
    assert_eq!(pipeline.reducer().messages()[0].text(), Some("kept"));
}

#[test]
fn decode_errors_name_the_frame() {
    let mut bytes = sse_of(&[Event::run_started("t", "r")]);
    bytes.extend_from_slice(b"data: {\"type\":\"TEXT_MESSAGE_START\"}\n\n");
    let err = Pipeline::new(Reducer::new())
        .push_bytes(&bytes, &mut ())
        .unwrap_err();
    let Some(e) = err.decode() else {
        panic!("{err}")
    };
    assert_eq!(e.index(), Some(1));
    assert_eq!(err.kind().as_str(), "run.decode");
}

#[test]
fn decoded_frames_count_among_the_frames() {
    let mut pipeline = Pipeline::new(Reducer::new());
    pipeline
        .push_bytes(&sse_of(&[Event::run_started("t", "r")]), &mut ())
        .unwrap();
    let start =
        serde_json::to_string(&Event::text_message_start("m", TextMessageRole::Assistant)).unwrap();
    pipeline.push_frame(&start, &mut ()).unwrap();
    let err = pipeline
        .push_frame("{\"type\":\"TEXT_MESSAGE_END\"}", &mut ())
        .unwrap_err();
    let Some(e) = err.decode() else {
        panic!("{err}")
    };
    assert_eq!(e.index(), Some(2));
    assert_eq!(pipeline.reducer().messages()[0].id().as_str(), "m");
}

#[test]
fn frame_size_limit() {
    let bytes = sse_of(&[
        Event::run_started("t", "r"),
        Event::custom("big", serde_json::json!("x".repeat(1000))),
    ]);
    let err = Pipeline::new(Reducer::new())
        .with_max_event_size(200)
        .push_bytes(&bytes, &mut ())
        .unwrap_err();
    let Some(e) = err.decode() else { panic!() };
    assert_eq!(e.kind(), DecodeErrorKind::TooLarge);
}

#[test]
fn check_end_lists_everything_still_open_in_opening_order() {
    let mut pipeline = Pipeline::new(Reducer::new());
    for event in [
        Event::run_started("t", "r1"),
        Event::reasoning_start("think"),
        Event::reasoning_message_start("rm"),
        Event::subagent_started("s1", "helper"),
        Event::step_started("plan").with_subagent_run_id("s1"),
        Event::step_started("plan"),
        Event::text_message_start("m2", TextMessageRole::Assistant),
        Event::text_message_start("m1", TextMessageRole::Assistant),
        Event::text_message_start("done", TextMessageRole::Assistant),
        Event::text_message_end("done"),
        Event::tool_call_start("c1", "search"),
    ] {
        pipeline.push_event(event, &mut ()).unwrap();
    }
    pipeline.finish(&mut ()).unwrap();
    let err = pipeline.check_end().unwrap_err();
    let (Some(open), run_id) = (err.open(), err.run_id()) else {
        panic!("{err}")
    };
    assert_eq!(run_id, Some("r1"));
    assert_eq!(open.steps, ["plan (subagent s1)", "plan"]);
    assert_eq!(open.text_messages, ["m2", "m1"]);
    assert_eq!(open.reasoning_spans, ["think"]);
    assert_eq!(open.reasoning_messages, ["rm"]);
    assert_eq!(open.tool_calls, ["c1"]);
    assert_eq!(open.subagents, ["s1"]);
    assert_eq!(err.kind().as_str(), "run.incomplete");
    // After RUN_FINISHED nothing is open: a complete run passes.
    let mut done = Pipeline::new(Reducer::new());
    done.push_event(Event::run_started("t", "r"), &mut ())
        .unwrap();
    done.push_event(Event::run_finished("t", "r"), &mut ())
        .unwrap();
    done.finish(&mut ()).unwrap();
    assert_eq!(done.check_end().unwrap(), StreamEnd::Finished);
}

#[test]
fn what_a_peer_sent_is_shown_without_control_characters() {
    let mut pipeline = Pipeline::new(Reducer::new());
    pipeline
        .push_event(Event::run_started("t", "r\u{1b}[2J"), &mut ())
        .unwrap();
    let shown = pipeline.check_end().unwrap_err().to_string();
    assert!(shown.contains("run r\\u{1b}[2J "), "{shown}");
    assert!(!shown.contains('\u{1b}'));
    pipeline
        .push_event(Event::run_error("bad\nnews\u{7}"), &mut ())
        .unwrap();
    let StreamEnd::Failed(error) = pipeline.check_end().unwrap() else {
        panic!("the run failed")
    };
    assert_eq!(error.to_string(), "the run failed: bad\\u{a}news\\u{7}");
}

/// A `RUN_ERROR` is delivered, not refused: the stream goes on (a `RUN_STARTED` begins a new
/// run in it), and how it ended is said by its last run.
#[test]
fn a_run_error_is_delivered_and_the_last_run_decides_the_end() {
    let ended = |events: Vec<Event>| {
        let mut log = Log::default();
        let mut pipeline = Pipeline::new(Reducer::new());
        for event in events {
            pipeline.push_event(event, &mut log).unwrap();
        }
        pipeline.finish(&mut log).unwrap();
        let run_error = pipeline.run_error().map(|e| e.message().to_owned());
        (pipeline.check_end().unwrap(), log.events, run_error)
    };
    // A new run after a failed one: the stream ends finished, the failure still reported.
    let (end, events, run_error) = ended(vec![
        Event::run_started("t", "r1"),
        Event::run_error("first"),
        Event::run_started("t", "r2"),
        Event::run_finished("t", "r2"),
    ]);
    assert_eq!(end, StreamEnd::Finished);
    assert_eq!(events.len(), 4);
    assert_eq!(run_error.as_deref(), Some("first"));
    // A failure after a finished run is the stream's end.
    let (end, _, _) = ended(vec![
        Event::run_started("t", "r1"),
        Event::run_finished("t", "r1"),
        Event::run_error("late"),
    ]);
    let StreamEnd::Failed(error) = end else {
        panic!("{end:?}")
    };
    assert_eq!(
        (error.message(), error.run_id().map(|r| r.as_str())),
        ("late", Some("r1"))
    );
    // A stream may open with RUN_ERROR: a run that failed before it began.
    let (end, events, _) = ended(vec![Event::run_error("unreachable")]);
    assert_eq!(end.agent_error().and_then(AgentError::run_id), None);
    assert_eq!(events, [EventType::RunError]);
}

#[test]
fn reducer_limits_stop_the_pipeline_naming_the_event() {
    let bytes = sse_of(&[
        Event::run_started("t", "r"),
        Event::text_message_start("m", TextMessageRole::Assistant),
        Event::text_message_content("m", "kept"),
        Event::text_message_content("m", "x".repeat(100)),
    ]);
    let mut pipeline = Pipeline::new(Reducer::new()).with_limits(PipelineLimits {
        reducer: Limits::new().with_max_message_bytes(50),
        ..PipelineLimits::default()
    });
    let err = pipeline.push_bytes(&bytes, &mut ()).unwrap_err();
    let Some(e) = err.apply() else {
        panic!("{err}")
    };
    assert_eq!(e.kind(), crate::client::apply::ApplyErrorKind::Limit);
    assert_eq!(
        (e.index(), e.event_type()),
        (3, EventType::TextMessageContent)
    );
    assert_eq!(pipeline.reducer().messages()[0].text(), Some("kept"));
}

#[test]
fn a_subscriber_can_stop_the_run() {
    let bytes = sse_of(&[
        Event::run_started("t", "r"),
        Event::text_message_start("m", TextMessageRole::Assistant),
        Event::text_message_content("m", "x"),
        Event::text_message_end("m"),
    ]);
    let mut log = Log {
        stop_at: Some(EventType::TextMessageContent),
        ..Log::default()
    };
    let mut pipeline = Pipeline::new(Reducer::new());
    assert_eq!(pipeline.push_bytes(&bytes, &mut log).unwrap(), Flow::Stop);
    assert!(pipeline.is_stopped());
    assert_eq!(pipeline.reducer().messages()[0].text(), Some(""));
    assert_eq!(log.events.len(), 3);
    assert_eq!(pipeline.finish(&mut log).unwrap(), Flow::Stop);
}
