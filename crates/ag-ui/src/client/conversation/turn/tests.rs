//! Unit tests of the parent module.

use std::time::{Duration, UNIX_EPOCH};

use super::*;
use crate::client::RunErrorKind;
use crate::{
    ActivityMessage, RunErrorEvent, RunFinishedEvent, RunFinishedOutcome, TextMessageRole,
};

/// 2026-01-01T00:00:00Z.
fn now() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_767_225_600)
}

fn request() -> RunAgentInput {
    RunAgentInput::new("t", "").with_state(serde_json::json!({ "n": 1 }))
}

fn activity(id: &str) -> Message {
    Message::Activity(ActivityMessage::new(id, "progress", serde_json::Map::new()))
}

#[test]
fn the_input_carries_the_conversation_but_its_activities_and_a_fresh_run_id() {
    let mut messages = vec![
        Message::user("u1", "Hi"),
        activity("act1"),
        Message::user("u2", "Again"),
    ];
    let turn = Turn::new(request(), &mut messages, &mut Vec::new(), now()).unwrap();
    assert!(messages.is_empty(), "the turn took them");
    let input = turn.input();
    let ids: Vec<&str> = input.messages.iter().map(|m| m.id().as_str()).collect();
    assert_eq!(ids, ["u1", "u2"]);
    assert_eq!(input.protocol_version.as_deref(), Some(PROTOCOL_VERSION));
    assert_eq!(input.state, Some(serde_json::json!({ "n": 1 })));
    let run = input.run_id.to_string();
    assert!(run.starts_with("t-run-"), "{run}");
    // A second turn gets another run id; a given one is kept.
    let other = Turn::new(request(), &mut Vec::new(), &mut Vec::new(), now()).unwrap();
    assert_ne!(other.input().run_id.as_str(), run);
    let given = RunAgentInput::new("t", "r-mine");
    let kept = Turn::new(given, &mut Vec::new(), &mut Vec::new(), now()).unwrap();
    assert_eq!(kept.input().run_id.as_str(), "r-mine");

    // Unsent, the conversation comes back as it was, the activity in its place.
    let (back, interrupts) = turn.unsent();
    let ids: Vec<&str> = back.iter().map(|m| m.id().as_str()).collect();
    assert_eq!(ids, ["u1", "act1", "u2"]);
    assert!(interrupts.is_empty());
}

#[test]
fn every_open_interrupt_must_be_answered_and_nothing_is_taken_otherwise() {
    let mut messages = vec![Message::user("u1", "Hi")];
    let mut pending = vec![
        Interrupt::new("i1", "approve"),
        Interrupt::new("i2", "approve"),
        Interrupt::new("i3", "approve"),
    ];
    let partly = request().with_resume(vec![ResumeEntry::cancelled("i2")]);
    let err = Turn::new(partly, &mut messages, &mut pending, now()).unwrap_err();
    assert_eq!(err.kind(), RunErrorKind::UnansweredInterrupt);
    assert_eq!(err.interrupt_id(), Some("i1"));
    assert_eq!(
        err.to_string(),
        "Thread has 2 pending interrupt(s) not addressed by resume: i1, i3"
    );
    assert_eq!((messages.len(), pending.len()), (1, 3), "nothing was taken");

    let all = request().with_resume(
        ["i1", "i2", "i3"]
            .into_iter()
            .map(|id| ResumeEntry::resolved(id, serde_json::json!(true)))
            .collect(),
    );
    let turn = Turn::new(all, &mut messages, &mut pending, now()).unwrap();
    assert_eq!(turn.input().resume.as_ref().map(Vec::len), Some(3));
    assert!(pending.is_empty());
}

#[test]
fn an_expired_interrupt_can_only_be_cancelled_as_of_the_time_given() {
    let expiring = || vec![Interrupt::new("i1", "approve").with_expires_at("2026-01-01T00:00:00Z")];
    let yes = || request().with_resume(vec![ResumeEntry::resolved("i1", serde_json::json!(1))]);
    let before = now() - Duration::from_secs(1);
    let after = now() + Duration::from_secs(1);
    assert!(Turn::new(yes(), &mut Vec::new(), &mut expiring(), before).is_ok());
    let err = Turn::new(yes(), &mut Vec::new(), &mut expiring(), after).unwrap_err();
    assert_eq!(err.kind(), RunErrorKind::ExpiredInterrupt);
    assert_eq!(err.interrupt_id(), Some("i1"));
    assert_eq!(
        err.to_string(),
        "Interrupt i1 expired at 2026-01-01T00:00:00Z and can no longer be answered. Cancel it \
         to continue the thread."
    );
    let cancel = request().with_resume(vec![ResumeEntry::cancelled("i1")]);
    assert!(Turn::new(cancel, &mut Vec::new(), &mut expiring(), after).is_ok());
}

#[test]
fn a_mutation_before_sending_changes_the_input_and_what_the_run_applies_to() {
    let mut messages = vec![Message::user("u1", "Hi")];
    let mut turn = Turn::new(request(), &mut messages, &mut Vec::new(), now()).unwrap();
    turn.apply_mutation(
        Mutation::new()
            .with_messages(vec![
                activity("act1"),
                Message::user("u1", "Hi"),
                Message::system("s1", "Be brief"),
            ])
            .with_state(serde_json::json!({ "n": 2 })),
    );
    let ids: Vec<&str> = turn
        .input()
        .messages
        .iter()
        .map(|m| m.id().as_str())
        .collect();
    assert_eq!(ids, ["u1", "s1"]);
    assert_eq!(turn.input().state, Some(serde_json::json!({ "n": 2 })));
    let running = turn.open(Pipeline::new);
    let ids: Vec<&str> = running
        .reducer()
        .messages()
        .iter()
        .map(|m| m.id().as_str())
        .collect();
    assert_eq!(ids, ["act1", "u1", "s1"]);
    assert_eq!(running.reducer().state(), &serde_json::json!({ "n": 2 }));
    // New are the messages the conversation did not hold when the turn began.
    assert!(running.is_new(&MessageId::new("s1")));
    assert!(!running.is_new(&MessageId::new("u1")));
}

/// A turn over `u1`, opened (events pushed one at a time through the whole pipeline).
fn running() -> RunningTurn {
    let mut messages = vec![Message::user("u1", "Hi")];
    let turn = Turn::new(request(), &mut messages, &mut Vec::new(), now()).unwrap();
    turn.open(Pipeline::new)
}

#[test]
fn a_deferred_pipeline_applies_what_it_verified_when_pushed() {
    let mut messages = vec![Message::user("u1", "Hi")];
    let turn = Turn::new(request(), &mut messages, &mut Vec::new(), now()).unwrap();
    let mut turn = turn.open(|reducer| Pipeline::new(reducer).deferred());
    let mut verified = Vec::new();
    for event in [
        Event::run_started("t", "r1"),
        Event::text_message_start("a1", TextMessageRole::Assistant),
        Event::text_message_end("a1"),
        Event::run_finished("t", "r1"),
    ] {
        turn.pipeline_mut().push_event(event, &mut ()).unwrap();
    }
    turn.pipeline_mut().finish(&mut ()).unwrap();
    turn.pipeline_mut().take_verified_into(&mut verified);
    assert_eq!(turn.reducer().messages().len(), 1, "nothing applied yet");
    let changed: Vec<Changed> = verified
        .into_iter()
        .map(|event| turn.push(event).unwrap())
        .collect();
    assert!(!changed[0].messages && changed[1].messages);
    let end = turn.finish(Ok(RunEnd::Finished), Warnings::new());
    assert_eq!(end.result.unwrap().new_messages, [MessageId::new("a1")]);
}

#[test]
fn each_event_says_what_it_changed() {
    let mut turn = running();
    let run_started = turn.push(Event::run_started("t", "r1")).unwrap();
    assert_eq!(run_started, Changed::default());
    let start = turn
        .push(Event::text_message_start("a1", TextMessageRole::Assistant))
        .unwrap();
    assert!(start.messages && !start.state);
    let snapshot = turn
        .push(Event::state_snapshot(serde_json::json!({ "n": 3 })))
        .unwrap();
    assert!(snapshot.state && !snapshot.messages);
    let mutated = turn.apply_mutation(Mutation::new().with_state(serde_json::json!({})));
    assert!(mutated.state && !mutated.messages);
    assert_eq!(turn.reducer().state(), &serde_json::json!({}));
}

#[test]
fn the_end_gives_the_conversation_back_with_its_new_messages() {
    let mut turn = running();
    for event in [
        Event::run_started("t", "r1"),
        Event::text_message_start("a1", TextMessageRole::Assistant),
        Event::text_message_content("a1", "Hello"),
        Event::text_message_end("a1"),
        RunFinishedEvent::new("t", "r1")
            .with_result(serde_json::json!({ "ok": true }))
            .into(),
    ] {
        turn.push(event).unwrap();
    }
    let end = turn.finish(Ok(RunEnd::Finished), Warnings::new());
    let summary = end.result.as_ref().unwrap();
    assert_eq!(summary.end, RunEnd::Finished);
    assert_eq!(summary.new_messages, [MessageId::new("a1")]);
    let new: Vec<&str> = end.new_messages().map(|m| m.id().as_str()).collect();
    assert_eq!(new, ["a1"]);
    assert_eq!(end.messages.len(), 2);
    assert!(matches!(
        &end.outcome,
        Some(RunOutcome::Success { result: Some(r), .. }) if r == &serde_json::json!({ "ok": true })
    ));
}

#[test]
fn the_end_of_a_response_decides_between_finished_failed_cut_off_and_interrupted() {
    // The agent's RUN_ERROR: an error of kind Agent, with what the run did.
    let mut failed = running();
    failed.push(Event::run_started("t", "r1")).unwrap();
    failed
        .push(RunErrorEvent::new("overloaded").into())
        .unwrap();
    let end = failed.finish(Ok(RunEnd::Finished), Warnings::new());
    let err = end.result.unwrap_err();
    assert_eq!(err.kind(), RunErrorKind::Agent);
    assert_eq!(err.summary().unwrap().events, 2);

    // Cut off in the middle of its run: the pipeline's Incomplete; what came is kept.
    let mut cut = running();
    cut.push(Event::run_started("t", "r1")).unwrap();
    cut.push(Event::text_message_start("a1", TextMessageRole::Assistant))
        .unwrap();
    let end = cut.finish(Ok(RunEnd::Finished), Warnings::new());
    assert!(end.result.as_ref().unwrap_err().kind().is_rejection());
    assert_eq!(end.new_messages().count(), 1);

    // Stopped mid-run: no error; the tool calls are left pending only for a finished run.
    let mut stopped = running();
    stopped.push(Event::run_started("t", "r1")).unwrap();
    stopped
        .push(Event::tool_call_start("c1", "search"))
        .unwrap();
    let end = stopped.finish(Ok(RunEnd::Stopped), Warnings::new());
    assert_eq!(end.result.unwrap().end, RunEnd::Stopped);
    assert!(end.pending_tool_calls.is_empty());

    // Interrupted: the interrupts are left open for the next turn.
    let mut interrupted = running();
    interrupted.push(Event::run_started("t", "r1")).unwrap();
    interrupted
        .push(
            RunFinishedEvent::new("t", "r1")
                .with_outcome(RunFinishedOutcome::interrupt(vec![Interrupt::new(
                    "i1", "approve",
                )]))
                .into(),
        )
        .unwrap();
    let end = interrupted.finish(Ok(RunEnd::Finished), Warnings::new());
    assert!(end.result.is_ok());
    assert_eq!(end.pending_interrupts.len(), 1);
    let next = Turn::new(
        request(),
        &mut Vec::new(),
        &mut end.pending_interrupts.clone(),
        now(),
    );
    assert_eq!(next.unwrap_err().kind(), RunErrorKind::UnansweredInterrupt);
}

#[test]
fn a_non_deferred_pipeline_verifies_what_is_pushed() {
    let mut messages = Vec::new();
    let turn = Turn::new(request(), &mut messages, &mut Vec::new(), now()).unwrap();
    let mut turn = turn.open(Pipeline::new);
    turn.push(Event::run_started("t", "r1")).unwrap();
    let err = turn
        .push(Event::text_message_content("ghost", "boo"))
        .unwrap_err();
    assert_eq!(
        err.violation().map(|v| v.kind().as_str()),
        Some("text.not-open")
    );
    assert!(turn.reducer().messages().is_empty());
}
