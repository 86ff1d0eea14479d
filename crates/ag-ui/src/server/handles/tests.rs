use serde_json::json;

use crate::server::{Error, ErrorKind, RunContext};
use crate::{
    Event, EventType, MessageId, ReasoningEncryptedValueSubtype, RunAgentInput, TextMessageRole,
    ToolCallStartEvent,
};

fn ctx() -> (RunContext<()>, crate::server::Events) {
    RunContext::new(RunAgentInput::new("t", "r")).unwrap()
}

fn types(events: &[Event]) -> Vec<EventType> {
    events.iter().map(Event::event_type).collect()
}

#[test]
fn message_handle_streams_and_ends_once() {
    let (mut ctx, mut events) = ctx();
    let mut m = ctx.message(TextMessageRole::User).unwrap();
    assert_eq!(m.id().as_str(), "r-msg-1");
    assert_eq!(m.role(), TextMessageRole::User);
    m.delta("a").unwrap();
    m.delta("").unwrap();
    m.end().unwrap();
    assert_eq!(
        events.drain(),
        vec![
            Event::text_message_start("r-msg-1", TextMessageRole::User),
            Event::text_message_content("r-msg-1", "a"),
            Event::text_message_content("r-msg-1", ""),
            Event::text_message_end("r-msg-1"),
        ]
    );
}

#[test]
fn message_ids_count_up_and_custom_ids_are_kept() {
    let (mut ctx, mut events) = ctx();
    assert_eq!(ctx.say("one").unwrap(), "r-msg-1");
    assert_eq!(ctx.say("two").unwrap(), "r-msg-2");
    let m = ctx
        .message_with_id("mine", TextMessageRole::Assistant)
        .unwrap();
    assert_eq!(m.id(), &MessageId::new("mine"));
    drop(m);
    let events = events.drain();
    assert_eq!(events.len(), 8);
    assert_eq!(events[7], Event::text_message_end("mine"));
}

#[test]
fn message_dropped_on_question_mark_is_closed() {
    fn fails(ctx: &mut RunContext<()>) -> crate::server::Result<()> {
        let mut m = ctx.assistant_message()?;
        m.delta("half")?;
        Err(Error::agent("boom"))?;
        m.end()
    }
    let (mut ctx, mut events) = ctx();
    assert_eq!(fails(&mut ctx).unwrap_err().kind(), ErrorKind::Agent);
    assert_eq!(
        types(&events.drain()),
        [
            EventType::TextMessageStart,
            EventType::TextMessageContent,
            EventType::TextMessageEnd
        ]
    );
}

#[test]
fn message_dropped_during_a_panic_is_closed() {
    let (mut ctx, mut events) = ctx();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut m = ctx.assistant_message().unwrap();
        m.delta("x").unwrap();
        panic!("inside the message");
    }));
    assert!(result.is_err());
    assert_eq!(
        types(&events.drain()),
        [
            EventType::TextMessageStart,
            EventType::TextMessageContent,
            EventType::TextMessageEnd
        ]
    );
}

#[test]
fn reasoning_handle_brackets_four_events() {
    let (mut ctx, mut events) = ctx();
    let mut r = ctx.reasoning().unwrap();
    r.delta("hmm").unwrap();
    r.encrypted_value("blob").unwrap();
    drop(r);
    assert_eq!(
        events.drain(),
        vec![
            Event::reasoning_start("r-msg-1"),
            Event::reasoning_message_start("r-msg-1"),
            Event::reasoning_message_content("r-msg-1", "hmm"),
            Event::reasoning_encrypted_value(
                ReasoningEncryptedValueSubtype::Message,
                "r-msg-1",
                "blob"
            ),
            Event::reasoning_message_end("r-msg-1"),
            Event::reasoning_end("r-msg-1"),
        ]
    );
    assert_eq!(ctx.think("t").unwrap(), "r-msg-2");
    assert_eq!(events.drain().len(), 5);
}

#[test]
fn parallel_tool_calls_interleave() {
    let (ctx, mut events) = ctx();
    let mut a = ctx.tool_call("a").unwrap();
    let mut b = ctx.tool_call_with_id("provider-7", "b").unwrap();
    a.args("{").unwrap();
    b.args("{}").unwrap();
    b.encrypted_value("sig").unwrap();
    a.args("}").unwrap();
    drop(b);
    a.end().unwrap();
    assert_eq!(
        events.drain(),
        vec![
            Event::tool_call_start("r-call-1", "a"),
            Event::tool_call_start("provider-7", "b"),
            Event::tool_call_args("r-call-1", "{"),
            Event::tool_call_args("provider-7", "{}"),
            Event::reasoning_encrypted_value(
                ReasoningEncryptedValueSubtype::ToolCall,
                "provider-7",
                "sig"
            ),
            Event::tool_call_args("r-call-1", "}"),
            Event::tool_call_end("provider-7"),
            Event::tool_call_end("r-call-1"),
        ]
    );
}

#[test]
fn tool_calls_from_a_message_name_it_as_parent() {
    let (mut ctx, mut events) = ctx();
    let m = ctx.assistant_message().unwrap();
    let call = m.tool_call("search").unwrap();
    drop(call);
    let id = m.call_tool("weather", &json!({"city": "Oslo"})).unwrap();
    assert_eq!(id, "r-call-2");
    m.end().unwrap();
    let got = events.drain();
    assert_eq!(
        got[1],
        ToolCallStartEvent::new("r-call-1", "search")
            .with_parent_message_id("r-msg-1")
            .into()
    );
    assert_eq!(
        got[3],
        ToolCallStartEvent::new("r-call-2", "weather")
            .with_parent_message_id("r-msg-1")
            .into()
    );
    assert_eq!(
        got[4],
        Event::tool_call_args("r-call-2", r#"{"city":"Oslo"}"#)
    );
    assert_eq!(got[5], Event::tool_call_end("r-call-2"));
    assert_eq!(got[6], Event::text_message_end("r-msg-1"));
}

#[test]
fn tool_calls_belong_to_assistant_messages_only() {
    let (mut ctx, mut events) = ctx();
    let m = ctx.message(TextMessageRole::User).unwrap();
    assert_eq!(m.tool_call("x").unwrap_err().kind(), ErrorKind::Misuse);
    assert_eq!(m.call_tool("x", &()).unwrap_err().kind(), ErrorKind::Misuse);
    drop(m);
    assert_eq!(events.drain().len(), 2);
}

#[test]
fn one_shot_tool_call_and_result() {
    let (ctx, mut events) = ctx();
    let id = ctx.call_tool("add", &[1, 2]).unwrap();
    let msg = ctx.tool_result(&id, "3").unwrap();
    assert_eq!(msg, "r-msg-1");
    assert_eq!(
        events.drain(),
        vec![
            Event::tool_call_start("r-call-1", "add"),
            Event::tool_call_args("r-call-1", "[1,2]"),
            Event::tool_call_end("r-call-1"),
            Event::tool_call_result("r-msg-1", "r-call-1", "3"),
        ]
    );
}

#[test]
fn unserializable_tool_arguments_emit_nothing() {
    struct Bad;
    impl serde::Serialize for Bad {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("no"))
        }
    }
    let (ctx, mut events) = ctx();
    let err = ctx.call_tool("x", &Bad).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Serialize);
    assert!(events.drain().is_empty());
}

#[test]
fn step_handle_derefs_and_finishes_on_drop() {
    let (mut ctx, mut events) = ctx();
    {
        let mut outer = ctx.step("outer").unwrap();
        assert_eq!(outer.name(), "outer");
        let mut inner = outer.step("inner").unwrap();
        inner.say("hi").unwrap();
        inner.end().unwrap();
        // `outer` drops here.
    }
    assert_eq!(
        types(&events.drain()),
        [
            EventType::StepStarted,
            EventType::StepStarted,
            EventType::TextMessageStart,
            EventType::TextMessageContent,
            EventType::TextMessageEnd,
            EventType::StepFinished,
            EventType::StepFinished,
        ]
    );
}

#[test]
fn open_handles_publish_state_and_emit_unordered_events() {
    #[derive(Default, serde::Serialize, serde::Deserialize)]
    struct St {
        n: u32,
    }
    let (mut ctx, mut events) = RunContext::<St>::new(RunAgentInput::new("t", "r")).unwrap();
    let mut r = ctx.reasoning().unwrap();
    r.state_mut().n = 2;
    assert_eq!(r.state().n, 2);
    r.publish_state_delta().unwrap();
    r.emit(Event::custom("progress", json!(50))).unwrap();
    assert_eq!(
        r.emit(Event::text_message_start("x", TextMessageRole::Assistant))
            .unwrap_err()
            .kind(),
        ErrorKind::Misuse
    );
    r.end().unwrap();
    let got = events.drain();
    assert_eq!(got[2], Event::state_snapshot(json!({"n": 2})));
    assert_eq!(got[3], Event::custom("progress", json!(50)));
    assert_eq!(got.len(), 6);
}

#[test]
fn the_verifier_refuses_at_the_call_and_queues_nothing() {
    use crate::verify::ViolationKind;
    let (mut ctx, mut events) = ctx();
    // A second tool call under an id that is still open.
    let open = ctx.tool_call_with_id("same", "a").unwrap();
    let err = ctx.tool_call_with_id("same", "b").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Protocol);
    assert_eq!(
        err.violation().unwrap().kind(),
        ViolationKind::ToolAlreadyOpen
    );
    // The violation is told once: in the message, not again as the source.
    assert_eq!(
        err.to_string(),
        format!("the event was not emitted: {}", err.violation().unwrap())
    );
    assert!(std::error::Error::source(&err).is_none());
    drop(open);
    assert_eq!(
        types(&events.drain()),
        [EventType::ToolCallStart, EventType::ToolCallEnd]
    );

    // A step of a name already open in this owner.
    let mut step = ctx.step("s").unwrap();
    assert_eq!(step.step("s").unwrap_err().kind(), ErrorKind::Protocol);
    drop(step);
    assert_eq!(
        types(&events.drain()),
        [EventType::StepStarted, EventType::StepFinished]
    );

    // A message id that is still open, through `emit` on the open handle.
    let mut m = ctx.assistant_message().unwrap();
    let err = m
        .emit(Event::text_message_start(
            "other",
            TextMessageRole::Assistant,
        ))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err}");
    assert_eq!(
        err.violation().unwrap().kind(),
        ViolationKind::EmitTextAlreadyOpen
    );
    // A chunk without an id.
    assert_eq!(
        m.emit(Event::text_message_chunk(None, Some("x".into())))
            .unwrap_err()
            .kind(),
        ErrorKind::Protocol
    );
    m.end().unwrap();
    assert_eq!(events.drain().len(), 2);
}

#[test]
fn a_subagent_cannot_take_over_a_message_id_of_the_parent() {
    let (mut ctx, mut events) = ctx();
    ctx.message_with_id("shared", TextMessageRole::Assistant)
        .unwrap()
        .end()
        .unwrap();
    let mut sub = ctx.subagent("s").unwrap();
    // The parent owns `shared`; a subagent-tagged reopen disagrees (owner.mismatch).
    let err = sub
        .message_with_id("shared", TextMessageRole::Assistant)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Protocol);
    assert_eq!(
        err.violation().unwrap().kind(),
        crate::verify::ViolationKind::OwnerMismatch
    );
    sub.finish().unwrap();
    assert_eq!(
        types(&events.drain()),
        [
            EventType::TextMessageStart,
            EventType::TextMessageEnd,
            EventType::SubagentStarted,
            EventType::SubagentFinished
        ]
    );
}

#[test]
fn emitting_after_the_consumer_left_is_disconnected() {
    let (mut ctx, events) = ctx();
    drop(events);
    assert!(ctx.is_cancelled());
    assert_eq!(
        ctx.say("anyone?").unwrap_err().kind(),
        ErrorKind::Disconnected
    );
}
