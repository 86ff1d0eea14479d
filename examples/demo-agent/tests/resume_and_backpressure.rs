//! The demo agent checks a resume against the interrupt it raised on the thread, and streams a
//! huge answer within the run's backlog bound.

use std::time::Duration;

use ag_ui::server::{Backpressure, Runner};
use ag_ui::verify::Verifier;
use ag_ui::{Event, Message, ResumeEntry, RunAgentInput, RunFinishedOutcome};
use ag_ui_demo_agent::{DemoAgent, interrupt_id};
use futures::StreamExt;
use serde_json::json;

async fn run(input: RunAgentInput) -> Vec<Event> {
    let events = Runner::new(DemoAgent::new()).run(input).unwrap();
    let events: Vec<Event> = tokio::time::timeout(Duration::from_secs(30), events.collect())
        .await
        .unwrap();
    let mut verifier = Verifier::new();
    for (i, event) in events.iter().enumerate() {
        verifier
            .check(event)
            .unwrap_or_else(|v| panic!("event {i}: {v}"));
    }
    events
}

#[tokio::test]
async fn a_resume_of_an_interrupt_it_did_not_raise_is_a_run_error() {
    // A new thread: no interrupt was raised on it.
    let input = RunAgentInput::new("fresh", "r2").with_resume(vec![ResumeEntry::resolved(
        "anything",
        json!({"approved": true}),
    )]);
    let events = run(input).await;
    assert_eq!(events.len(), 2, "{events:?}");
    let Event::RunError(error) = &events[1] else {
        panic!("{events:?}")
    };
    assert_eq!(error.code.as_deref(), Some("unknown-interrupt"));
    assert!(error.message.contains("\"anything\""), "{}", error.message);
    assert!(
        error.message.contains("confirm-save-fresh"),
        "{}",
        error.message
    );

    // The id of an interrupt raised on another thread is not this thread's.
    let input = RunAgentInput::new("fresh", "r3").with_resume(vec![ResumeEntry::resolved(
        interrupt_id("other"),
        json!({"approved": true}),
    )]);
    let events = run(input).await;
    assert!(
        matches!(events.last(), Some(Event::RunError(e)) if e.code.as_deref() == Some("unknown-interrupt"))
    );

    // A megabyte id, on a thread of a megabyte, is quoted as a bounded excerpt (it was echoed
    // whole, twice).
    let huge = "i".repeat(1 << 20);
    let input = RunAgentInput::new("t".repeat(1 << 20), "r4")
        .with_resume(vec![ResumeEntry::resolved(huge, json!({"approved": true}))]);
    let events = run(input).await;
    let Some(Event::RunError(error)) = events.last() else {
        panic!("{:?}", events.last())
    };
    assert!(error.message.len() < 1024, "{} bytes", error.message.len());
    assert!(
        error.message.contains("(1048576 bytes)"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn the_interrupt_it_raised_is_resumed() {
    let ask =
        RunAgentInput::new("t9", "r1").with_messages(vec![Message::user("u1", "please confirm")]);
    let events = run(ask).await;
    let Some(Event::RunFinished(finished)) = events.last() else {
        panic!("{:?}", events.last())
    };
    let Some(RunFinishedOutcome::Interrupt { interrupts }) = &finished.outcome else {
        panic!("{finished:?}")
    };
    assert_eq!(interrupts[0].id.as_str(), interrupt_id("t9"));

    let answer = RunAgentInput::new("t9", "r2").with_resume(vec![ResumeEntry::resolved(
        interrupts[0].id.clone(),
        json!({"approved": false}),
    )]);
    let events = run(answer).await;
    let Some(Event::RunFinished(finished)) = events.last() else {
        panic!("{:?}", events.last())
    };
    assert_eq!(finished.result, Some(json!({"saved": false})));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_question_at_full_speed_stays_within_the_backlog_bound() {
    let question = "word ".repeat(50_000);
    let limits = Backpressure::default()
        .with_high_water(64 * 1024)
        .with_hard_cap(4 * 1024 * 1024);
    let input = RunAgentInput::new("t", "r").with_messages(vec![Message::user("u1", question)]);
    let mut events = Runner::new(DemoAgent::new())
        .with_backpressure(limits)
        .run(input)
        .unwrap();
    // A reader that stalls first, then reads.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut last = None;
    while let Some(event) = tokio::time::timeout(Duration::from_secs(60), events.next())
        .await
        .unwrap()
    {
        last = Some(event);
    }
    assert!(
        matches!(last, Some(Event::RunFinished(_))),
        "the run did not finish: {last:?}"
    );
    // Above the mark only by the few single events that carry the whole question.
    let peak = events.peak_backlog_bytes();
    assert!(peak <= 2 * 1024 * 1024, "peak backlog {peak}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_question_is_echoed_as_an_excerpt() {
    // 250 KB: the reasoning, the tool call and result, the state, both subagents and the
    // answer each quoted it whole, streamed word by word: 19.3 MB of events for a resumable
    // endpoint to log (89 KB with the excerpt).
    let question = "word ".repeat(50_000);
    let input = RunAgentInput::new("t", "r").with_messages(vec![Message::user("u1", question)]);
    let events = run(input).await;
    assert!(matches!(events.last(), Some(Event::RunFinished(_))));
    let bytes: usize = events
        .iter()
        .map(|event| serde_json::to_string(event).unwrap().len())
        .sum();
    assert!(bytes < 128 * 1024, "{bytes} bytes of events");
}

#[tokio::test]
async fn a_turn_count_at_its_top_stays_there() {
    for (turns, after) in [(0, 1), (u32::MAX - 1, u32::MAX), (u32::MAX, u32::MAX)] {
        let input = RunAgentInput::new("t", "r")
            .with_messages(vec![Message::user("u1", "hi")])
            .with_state(json!({ "turns": turns }));
        let events = run(input).await;
        assert!(
            matches!(events.last(), Some(Event::RunFinished(_))),
            "{turns}: {:?}",
            events.last()
        );
        let mut state = json!({ "turns": turns });
        for event in &events {
            match event {
                Event::StateSnapshot(s) => state = s.snapshot.clone(),
                Event::StateDelta(d) => {
                    ag_ui::json_patch::patch(&mut state, &d.delta).unwrap();
                }
                _ => {}
            }
        }
        assert_eq!(state["turns"], after, "{turns}");
    }
}
