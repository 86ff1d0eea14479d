//! Unit tests of the parent module.

use super::*;
use crate::Event;
use crate::client::transport::Replay;
use crate::client::{PipelineError, PipelineErrorKind, TransportError};
use crate::{
    ResumeEntry, RunFinishedEvent, RunFinishedOutcome, TextMessageRole, ToolCallStartEvent,
};

use futures::executor::block_on;

#[test]
fn interrupts_must_be_answered() {
    let interrupted = Replay::new(vec![
        Event::run_started("t", "r1"),
        RunFinishedEvent::new("t", "r1")
            .with_outcome(RunFinishedOutcome::interrupt(vec![Interrupt::new(
                "i1", "approve",
            )]))
            .into(),
    ]);
    let mut c = Conversation::new("t");
    block_on(c.run(&interrupted, &mut ())).unwrap();
    assert_eq!(c.pending_interrupts().len(), 1);
    let err = block_on(c.run(&interrupted, &mut ())).unwrap_err();
    assert_eq!(err.kind(), RunErrorKind::UnansweredInterrupt);
    assert_eq!(err.interrupt_id(), Some("i1"));
    let done = Replay::new(vec![
        Event::run_started("t", "r2"),
        Event::run_finished("t", "r2"),
    ]);
    let summary = block_on(c.run_with(
        &done,
        Some(vec![ResumeEntry::resolved(
            "i1",
            serde_json::json!({"ok": true}),
        )]),
        &CancelToken::new(),
        &mut (),
    ))
    .unwrap();
    assert_eq!(summary.end, RunEnd::Finished);
    assert!(c.pending_interrupts().is_empty());
}

#[test]
fn limits_reach_the_reducer() {
    let endless = Replay::new(vec![
        Event::run_started("t", "r1"),
        Event::text_message_start("m", TextMessageRole::Assistant),
        Event::text_message_content("m", "0123456789"),
        Event::text_message_content("m", "0123456789"),
    ]);
    let mut c = Conversation::new("t").with_limits(PipelineLimits {
        reducer: crate::client::apply::Limits::new().with_max_message_bytes(15),
        ..PipelineLimits::default()
    });
    let err = block_on(c.run(&endless, &mut ())).unwrap_err();
    let Some(e) = err.pipeline().and_then(PipelineError::apply) else {
        panic!("{err}")
    };
    assert_eq!(e.index(), 3);
    assert_eq!(
        e.limit().map(|l| (l.kind, l.size, l.max)),
        Some((crate::client::apply::LimitKind::MessageBytes, 20, 15))
    );
}

#[test]
fn expired_interrupts_must_be_cancelled() {
    let expired = Interrupt::new("old", "approve").with_expires_at("2001-01-01T00:00:00Z");
    let future = Interrupt::new("new", "approve").with_expires_at("2999-01-01T00:00:00Z");
    let garbage = Interrupt::new("odd", "approve").with_expires_at("whenever");
    let stop = Replay::new(vec![
        Event::run_started("t", "r1"),
        RunFinishedEvent::new("t", "r1")
            .with_outcome(RunFinishedOutcome::interrupt(vec![
                expired, future, garbage,
            ]))
            .into(),
    ]);
    let mut c = Conversation::new("t");
    block_on(c.run(&stop, &mut ())).unwrap();
    let resolved = |id: &str| ResumeEntry::resolved(id, serde_json::json!(true));
    let all_resolved = vec![resolved("old"), resolved("new"), resolved("odd")];
    let err =
        block_on(c.run_with(&stop, Some(all_resolved), &CancelToken::new(), &mut ())).unwrap_err();
    assert!(
        err.kind() == RunErrorKind::ExpiredInterrupt && err.interrupt_id() == Some("old"),
        "{err}"
    );
    let answers = vec![
        ResumeEntry::cancelled("old"),
        resolved("new"),
        resolved("odd"),
    ];
    block_on(c.run_with(&stop, Some(answers), &CancelToken::new(), &mut ())).unwrap();
}

#[test]
fn frontend_tools_answer_pending_calls() {
    let calls = Replay::new(vec![
        Event::run_started("t", "r1"),
        Event::text_message_start("a", TextMessageRole::Assistant),
        Event::text_message_end("a"),
        ToolCallStartEvent::new("c1", "add")
            .with_parent_message_id("a")
            .into(),
        Event::tool_call_args("c1", r#"{"a":2,"b":3}"#),
        Event::tool_call_end("c1"),
        ToolCallStartEvent::new("c2", "unknown")
            .with_parent_message_id("a")
            .into(),
        Event::tool_call_end("c2"),
        Event::run_finished("t", "r1"),
    ]);
    let mut c = Conversation::new("t");
    c.register_tool(Tool::new("add", "adds"), |args| {
        Ok((args["a"].as_i64().unwrap() + args["b"].as_i64().unwrap()).to_string())
    });
    block_on(c.run(&calls, &mut ())).unwrap();
    assert_eq!(c.pending_tool_calls().len(), 2);
    assert_eq!(c.run_tools(), 1);
    assert_eq!(c.pending_tool_calls(), &[ToolCallId::new("c2")]);
    let last = c.messages().last().unwrap();
    assert_eq!(last.text(), Some("5"));
    assert_eq!(last.id().as_str(), "t-tool-1");
}

/// Every cause shows once in a report that walks the chain (no `{0}` next to a source).
#[test]
fn a_report_walking_the_chain_shows_each_cause_once() {
    fn report(error: &(dyn std::error::Error + 'static)) -> Vec<String> {
        let mut lines = vec![error.to_string()];
        let mut source = error.source();
        while let Some(cause) = source {
            lines.push(cause.to_string());
            source = cause.source();
        }
        lines
    }
    // Content for a message that was never started breaks a verifier rule.
    let broken = Replay::new(vec![
        Event::run_started("t", "r1"),
        Event::text_message_content("ghost", "boo"),
    ]);
    let err = block_on(Conversation::new("t").run(&broken, &mut ())).unwrap_err();
    assert_eq!(
        err.kind(),
        RunErrorKind::Pipeline(PipelineErrorKind::Verify)
    );
    let lines = report(&err);
    assert_eq!(lines[0], "the stream is invalid", "{lines:?}");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[1].contains("ghost"), "{lines:?}");
    for (i, line) in lines.iter().enumerate() {
        for later in &lines[i + 1..] {
            assert!(!line.contains(later.as_str()), "{line:?} repeats {later:?}");
        }
    }
    let transport = RunError::from(TransportError::connection(
        "reading the response",
        std::io::Error::other("reset by peer"),
    ));
    assert_eq!(
        report(&transport),
        ["transport failed: reading the response", "reset by peer"]
    );
    assert_eq!(transport.kind().as_str(), "transport.connection");
}

/// The text-delta shortcut and the callbacks reach the run in either order.
#[test]
fn callbacks_and_the_text_delta_shortcut_compose_in_either_order() {
    use std::sync::{Arc, Mutex};
    let agent = Replay::new(vec![
        Event::run_started("t", "r1"),
        Event::text_message_start("a", TextMessageRole::Assistant),
        Event::text_message_content("a", "hi"),
        Event::text_message_end("a"),
        Event::run_finished("t", "r1"),
    ]);
    for shortcut_first in [true, false] {
        let (text, events) = (Arc::new(Mutex::new(String::new())), Arc::new(Mutex::new(0)));
        let (t, e) = (text.clone(), events.clone());
        let shortcut =
            move |c: Conversation| c.on_text_delta(move |d: &str| t.lock().unwrap().push_str(d));
        let callbacks = Callbacks::new().on_event(move |_: &Event| *e.lock().unwrap() += 1);
        let mut c = if shortcut_first {
            shortcut(Conversation::new("t")).with_callbacks(callbacks)
        } else {
            shortcut(Conversation::new("t").with_callbacks(callbacks))
        };
        block_on(c.run(&agent, &mut ())).unwrap();
        assert_eq!(
            *text.lock().unwrap(),
            "hi",
            "shortcut first: {shortcut_first}"
        );
        assert_eq!(
            *events.lock().unwrap(),
            5,
            "shortcut first: {shortcut_first}"
        );
    }
}

#[test]
fn cancelled_before_open_sends_nothing_and_keeps_messages() {
    let cancel = CancelToken::new();
    cancel.cancel();
    let mut c = Conversation::new("t");
    c.add_user_message("hi");
    let s = block_on(c.run_with(&Replay::default(), None, &cancel, &mut ())).unwrap();
    assert_eq!(s.end, RunEnd::Cancelled);
    assert_eq!(c.messages().len(), 1);
}
