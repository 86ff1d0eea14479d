//! The run's backlog is bounded (without a transport): `ready()` waits above the high-water
//! mark and lets go once the consumer drained it, the runner holds the agent back at its own
//! awaits, and an agent that never waits hits the hard cap and the run ends with `RUN_ERROR`.
#![cfg(feature = "server")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ag_ui::server::{Agent, Backpressure, ErrorKind, Events, Outcome, Result, RunContext, Runner};
use ag_ui::verify::Verifier;
use ag_ui::{Event, EventType, RunAgentInput};
use futures::StreamExt;

fn input() -> RunAgentInput {
    RunAgentInput::new("t", "r")
}

/// What one delta of `len` bytes of text counts for in the backlog, at most.
fn delta_cost(len: usize) -> usize {
    len + std::mem::size_of::<Event>() + 64
}

#[tokio::test]
async fn ready_resolves_at_once_under_the_mark_and_waits_above_it_until_drained() {
    let limits = Backpressure::default()
        .with_high_water(4096)
        .with_hard_cap(1 << 20);
    let (mut ctx, mut events) = RunContext::<()>::new_with_backpressure(input(), limits).unwrap();
    ctx.ready().await.unwrap();
    let mut message = ctx.assistant_message().unwrap();
    message.delta("x".repeat(8192)).unwrap();
    assert!(events.backlog_bytes() >= 8192);

    let wait = message.ready();
    let mut wait = std::pin::pin!(wait);
    // Over the mark: it waits.
    assert!(
        tokio::time::timeout(Duration::from_millis(50), wait.as_mut())
            .await
            .is_err()
    );
    // The consumer drains: it lets go.
    assert_eq!(events.drain().len(), 2);
    assert_eq!(events.backlog_bytes(), 0);
    tokio::time::timeout(Duration::from_secs(5), wait)
        .await
        .expect("ready() resolves once drained")
        .unwrap();
}

#[tokio::test]
async fn ready_lets_go_as_the_stream_is_read_event_by_event() {
    let limits = Backpressure::default()
        .with_high_water(4096)
        .with_hard_cap(1 << 20);
    let (mut ctx, mut events) = RunContext::<()>::new_with_backpressure(input(), limits).unwrap();
    let mut message = ctx.assistant_message().unwrap();
    for _ in 0..16 {
        message.delta("y".repeat(1024)).unwrap();
    }
    let waiter = tokio::spawn(message.ready());
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(!waiter.is_finished());
    // Reading through the stream, one event at a time, reports progress to the waiter.
    let mut read = 0;
    while !waiter.is_finished() {
        assert!(events.next().await.is_some());
        read += 1;
        assert!(
            read <= 17,
            "the waiter was not let go after the backlog drained"
        );
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    waiter.await.unwrap().unwrap();
    // Let go at half the mark, not before.
    assert!(events.backlog_bytes() <= 2048, "{}", events.backlog_bytes());
    assert!(read >= 12, "let go after {read} events");
}

#[tokio::test]
async fn ready_fails_once_the_consumer_is_gone_and_resolves_when_it_asks_to_stop() {
    let limits = Backpressure::default()
        .with_high_water(1024)
        .with_hard_cap(1 << 20);
    let (mut ctx, events) = RunContext::<()>::new_with_backpressure(input(), limits).unwrap();
    ctx.say("z".repeat(4096)).unwrap();
    let waiter = tokio::spawn(ctx.ready());
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(!waiter.is_finished());
    events.cancel_handle().cancel();
    tokio::time::timeout(Duration::from_secs(5), waiter)
        .await
        .unwrap()
        .unwrap()
        .unwrap();

    let waiter = tokio::spawn(ctx.ready());
    // Cancel requested: no waiting.
    tokio::time::timeout(Duration::from_secs(5), waiter)
        .await
        .unwrap()
        .unwrap()
        .unwrap();

    let (mut ctx, events) = RunContext::<()>::new_with_backpressure(input(), limits).unwrap();
    ctx.say("z".repeat(4096)).unwrap();
    let waiter = tokio::spawn(ctx.ready());
    tokio::time::sleep(Duration::from_millis(20)).await;
    drop(events);
    let err = tokio::time::timeout(Duration::from_secs(5), waiter)
        .await
        .unwrap()
        .unwrap()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Disconnected);
}

#[test]
fn the_hard_cap_refuses_the_emission_that_would_pass_it_and_every_later_one() {
    let limits = Backpressure::default()
        .with_high_water(1024)
        .with_hard_cap(16 * 1024);
    let (mut ctx, mut events) = RunContext::<()>::new_with_backpressure(input(), limits).unwrap();
    let mut message = ctx.assistant_message().unwrap();
    let mut sent = 0;
    let err = loop {
        match message.delta("w".repeat(1000)) {
            Ok(()) => sent += 1,
            Err(err) => break err,
        }
        assert!(sent < 100, "the cap never hit");
    };
    assert_eq!(err.kind(), ErrorKind::Backpressure);
    assert!(err.message().contains("16384"), "{err}");
    assert!(err.message().contains("hard cap"), "{err}");
    assert!(events.peak_backlog_bytes() <= 16 * 1024);
    // Draining does not bring the run back: events were lost.
    assert_eq!(events.drain().len(), sent + 1);
    let again = message.delta("w").unwrap_err();
    assert_eq!(again.kind(), ErrorKind::Backpressure);
    drop(message);
    assert!(events.drain().is_empty(), "the terminator is refused too");
}

/// Emits `count` deltas of `size` bytes, without ever waiting, and returns success whatever
/// the emissions said.
struct Firehose {
    count: usize,
    size: usize,
}

impl Agent for Firehose {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        let mut message = ctx.assistant_message()?;
        for _ in 0..self.count {
            // Swallows the error: the run must still not read as a success.
            let _ = message.delta("f".repeat(self.size));
        }
        Ok(Outcome::success())
    }
}

#[tokio::test]
async fn an_agent_that_never_waits_hits_the_hard_cap_and_the_run_ends_with_run_error() {
    let limits = Backpressure::default()
        .with_high_water(8 * 1024)
        .with_hard_cap(64 * 1024);
    let events = Runner::new(Firehose {
        count: 1000,
        size: 1000,
    })
    .with_backpressure(limits)
    .run(input())
    .unwrap();
    // Nobody reads until the agent has long finished.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let events: Vec<Event> = tokio::time::timeout(Duration::from_secs(10), events.collect())
        .await
        .unwrap();
    let mut verifier = Verifier::new();
    for (i, event) in events.iter().enumerate() {
        verifier
            .check(event)
            .unwrap_or_else(|v| panic!("event {i}: {v}"));
    }
    let Some(Event::RunError(error)) = events.last() else {
        panic!("the run did not end with RUN_ERROR: {:?}", events.last())
    };
    assert_eq!(error.code.as_deref(), Some("backpressure"));
    assert!(error.message.contains("65536"), "{}", error.message);
    let deltas = events
        .iter()
        .filter(|e| e.event_type() == EventType::TextMessageContent)
        .count();
    assert!(deltas < 70, "{deltas} deltas queued past a 64 KiB cap");
}

/// Streams `count` deltas of `size` bytes, awaiting something unrelated to the sink between
/// them (as an agent awaiting its model's stream does), never calling `ready()`.
struct Awaiting {
    count: usize,
    size: usize,
    emitted: Arc<AtomicUsize>,
}

impl Agent for Awaiting {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        let mut message = ctx.assistant_message()?;
        for _ in 0..self.count {
            message.delta("a".repeat(self.size))?;
            self.emitted.fetch_add(1, Ordering::SeqCst);
            tokio::task::yield_now().await;
        }
        message.end()?;
        Ok(Outcome::success())
    }
}

async fn read_slowly(mut events: Events) -> (Vec<Event>, usize) {
    let mut out = Vec::new();
    while let Some(event) = tokio::time::timeout(Duration::from_secs(10), events.next())
        .await
        .unwrap()
    {
        out.push(event);
        tokio::time::sleep(Duration::from_micros(200)).await;
    }
    let peak = events.peak_backlog_bytes();
    (out, peak)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runner_holds_an_agent_back_at_its_awaits_while_the_backlog_is_high() {
    let high = 8 * 1024;
    let emitted = Arc::new(AtomicUsize::new(0));
    let events = Runner::new(Awaiting {
        count: 300,
        size: 1024,
        emitted: Arc::clone(&emitted),
    })
    .with_backpressure(
        Backpressure::default()
            .with_high_water(high)
            .with_hard_cap(1 << 20),
    )
    .run(input())
    .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    // Nothing read yet: the agent stopped around the mark, not at the end.
    let before = emitted.load(Ordering::SeqCst);
    assert!(before <= 10, "{before} deltas emitted with nobody reading");
    let (events, peak) = read_slowly(events).await;
    assert_eq!(events.last().unwrap().event_type(), EventType::RunFinished);
    assert_eq!(emitted.load(Ordering::SeqCst), 300);
    assert!(
        peak <= high + delta_cost(1024),
        "peak backlog {peak} over the mark {high}"
    );
}
