//! The server SDK end to end (without a transport): the runner's framing, the Drop paths
//! inside a real agent, cancellation, and subagents streaming from several tokio tasks.
#![cfg(feature = "server")]

use std::collections::BTreeMap;
use std::time::Duration;

use ag_ui::server::{Agent, Error, ErrorKind, Outcome, Result, RunContext, Runner, SubagentSpec};
use ag_ui::{
    Event, EventType, Interrupt, ResumeEntry, RunAgentInput, RunFinishedOutcome,
    SubagentFinishedOutcome, SubagentRunId, TextMessageRole,
};
use futures::StreamExt;
use serde_json::json;

fn types(events: &[Event]) -> Vec<EventType> {
    events.iter().map(Event::event_type).collect()
}

async fn collect(events: ag_ui::server::Events) -> Vec<Event> {
    tokio::time::timeout(Duration::from_secs(10), events.collect::<Vec<_>>())
        .await
        .expect("the run's stream ends")
}

struct Scripted<F>(F);

impl<F> Agent for Scripted<F>
where
    F: Fn(&mut RunContext<()>) -> Result<Outcome> + Send + Sync + 'static,
{
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        (self.0)(ctx)
    }
}

#[tokio::test]
async fn a_run_is_framed_by_run_started_and_run_finished() {
    let agent = Scripted(|ctx: &mut RunContext<()>| {
        ctx.say("hi")?;
        Ok(Outcome::success().with_result(json!({"ok": true})))
    });
    let input = RunAgentInput::new("t", "r").with_parent_run_id("r0");
    let events = collect(
        Runner::new(agent)
            .with_input_echo(true)
            .run(input.clone())
            .unwrap(),
    )
    .await;
    let Event::RunStarted(started) = &events[0] else {
        panic!("{:?}", events[0])
    };
    assert_eq!(started.protocol_version.as_deref(), Some("1.0"));
    assert_eq!(started.parent_run_id.as_ref().unwrap(), "r0");
    assert_eq!(started.input.as_deref(), Some(&input));
    let Event::RunFinished(finished) = events.last().unwrap() else {
        panic!()
    };
    assert_eq!(finished.result, Some(json!({"ok": true})));
    assert_eq!(finished.outcome, Some(RunFinishedOutcome::success()));
    assert_eq!(events.len(), 5);
}

#[tokio::test]
async fn an_agent_error_ends_the_run_with_run_error_after_closing_what_was_open() {
    let agent = Scripted(|ctx: &mut RunContext<()>| {
        let mut m = ctx.assistant_message()?;
        m.delta("Looking that up")?;
        Err(Error::agent("the weather service is down").with_code("upstream"))
    });
    let events = collect(ag_ui::server::run(agent, RunAgentInput::new("t", "r")).unwrap()).await;
    assert_eq!(
        types(&events),
        [
            EventType::RunStarted,
            EventType::TextMessageStart,
            EventType::TextMessageContent,
            EventType::TextMessageEnd,
            EventType::RunError
        ]
    );
    let Event::RunError(e) = &events[4] else {
        panic!()
    };
    assert_eq!(e.message, "the weather service is down");
    assert_eq!(e.code.as_deref(), Some("upstream"));
}

#[tokio::test]
async fn a_panicking_agent_ends_the_run_with_run_error() {
    let agent = Scripted(|ctx: &mut RunContext<()>| {
        let mut r = ctx.reasoning()?;
        r.delta("about to fail")?;
        panic!("kaboom");
    });
    let events = collect(ag_ui::server::run(agent, RunAgentInput::new("t", "r")).unwrap()).await;
    assert_eq!(
        types(&events),
        [
            EventType::RunStarted,
            EventType::ReasoningStart,
            EventType::ReasoningMessageStart,
            EventType::ReasoningMessageContent,
            EventType::ReasoningMessageEnd,
            EventType::ReasoningEnd,
            EventType::RunError
        ]
    );
    let Event::RunError(e) = events.last().unwrap() else {
        panic!()
    };
    assert_eq!(e.code.as_deref(), Some("panic"));
    assert!(e.message.contains("kaboom"), "{}", e.message);
}

#[tokio::test]
async fn interrupt_outcome_and_resume_entries() {
    let agent = Scripted(|ctx: &mut RunContext<()>| {
        if let Some(answer) = ctx.resume().first() {
            ctx.say(format!("resumed {}", answer.interrupt_id))?;
            return Ok(Outcome::success());
        }
        Ok(Outcome::interrupt(Interrupt::new("i1", "confirmation")))
    });
    let runner = Runner::new(agent);
    let first = collect(runner.run(RunAgentInput::new("t", "r1")).unwrap()).await;
    let Event::RunFinished(f) = first.last().unwrap() else {
        panic!()
    };
    assert_eq!(
        f.outcome,
        Some(RunFinishedOutcome::interrupt(vec![Interrupt::new(
            "i1",
            "confirmation"
        )]))
    );
    let input = RunAgentInput::new("t", "r2")
        .with_resume(vec![ResumeEntry::resolved("i1", json!({"ok": true}))]);
    let second = collect(runner.run(input).unwrap()).await;
    assert_eq!(
        second[2],
        Event::text_message_content("r2-msg-1", "resumed i1")
    );
}

#[tokio::test]
async fn a_stateless_agent_ignores_the_state_a_client_holds() {
    // `()` holds nothing: a client (a CopilotKit page, `@ag-ui/client`) sending back the state
    // it holds is not refused.
    struct Stateless;
    impl Agent for Stateless {
        type State = ();
        async fn run(&self, _: &mut RunContext<()>) -> Result<Outcome> {
            Ok(Outcome::success())
        }
    }
    for state in [json!({"document": "x"}), json!([1, 2]), json!("text")] {
        let input = RunAgentInput::new("t", "r").with_state(state);
        assert!(Runner::new(Stateless).run(input).is_ok());
    }
}

#[tokio::test]
async fn a_bad_state_fails_before_anything_is_streamed() {
    struct Typed;
    impl Agent for Typed {
        type State = Vec<u32>;
        async fn run(&self, _: &mut RunContext<Vec<u32>>) -> Result<Outcome> {
            Ok(Outcome::success())
        }
    }
    let input = RunAgentInput::new("t", "r").with_state(json!({"not": "a list"}));
    assert_eq!(
        Runner::new(Typed).run(input).unwrap_err().kind(),
        ErrorKind::State
    );
}

#[test]
fn running_outside_a_runtime_is_an_error() {
    let agent = Scripted(|_: &mut RunContext<()>| Ok(Outcome::success()));
    let err = ag_ui::server::run(agent, RunAgentInput::new("t", "r")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Runtime);
}

/// Streams until cancelled, then reports how it saw the cancellation.
struct UntilCancelled(tokio::sync::mpsc::UnboundedSender<&'static str>);

impl Agent for UntilCancelled {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        let cancelled = ctx.cancelled();
        let mut message = ctx.assistant_message()?;
        let work = async {
            loop {
                message.delta("tick")?;
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        };
        tokio::select! {
            result = work => {
                let result: Result<()> = result;
                let err = result.unwrap_err();
                let _ = self.0.send(if err.kind() == ErrorKind::Disconnected { "emit failed" } else { "other" });
                Err(err)
            }
            () = cancelled => {
                let _ = self.0.send("cancelled() resolved");
                Ok(Outcome::success())
            }
        }
    }
}

#[tokio::test]
async fn cancelling_while_reading_ends_with_the_cancelled_outcome() {
    let (tx, mut seen) = tokio::sync::mpsc::unbounded_channel();
    let mut events = Runner::new(UntilCancelled(tx))
        .run(RunAgentInput::new("t", "r"))
        .unwrap();
    let cancel = events.cancel_handle();
    // Read a few events, then ask the run to stop and keep reading.
    for _ in 0..3 {
        events.next().await.unwrap();
    }
    cancel.cancel();
    assert!(cancel.is_cancelled());
    let rest = collect(events).await;
    let Event::RunFinished(f) = rest.last().unwrap() else {
        panic!("{rest:?}")
    };
    assert_eq!(f.outcome, Some(RunFinishedOutcome::Cancelled));
    assert_eq!(rest[rest.len() - 2].event_type(), EventType::TextMessageEnd);
    assert_eq!(seen.recv().await, Some("cancelled() resolved"));
}

#[tokio::test]
async fn dropping_the_stream_is_seen_by_the_agent() {
    let (tx, mut seen) = tokio::sync::mpsc::unbounded_channel();
    let mut events = Runner::new(UntilCancelled(tx))
        .run(RunAgentInput::new("t", "r"))
        .unwrap();
    // Wait until the agent is inside its loop, then walk away.
    while events.next().await.unwrap().event_type() != EventType::TextMessageContent {}
    drop(events);
    let how = tokio::time::timeout(Duration::from_secs(5), seen.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(how, "cancelled() resolved" | "emit failed"),
        "{how}"
    );
}

#[test]
fn subagent_drop_paths_end_with_subagent_error() {
    let (ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap();
    fn early(ctx: &RunContext<()>) -> Result<()> {
        let mut sub = ctx.subagent("worker")?;
        let mut m = sub.assistant_message()?;
        m.delta("partial")?;
        Err(Error::agent("gave up"))
    }
    assert!(early(&ctx).is_err());
    let got = events.drain();
    assert_eq!(
        types(&got),
        [
            EventType::SubagentStarted,
            EventType::TextMessageStart,
            EventType::TextMessageContent,
            EventType::TextMessageEnd,
            EventType::SubagentError
        ]
    );
    let Event::SubagentError(e) = &got[4] else {
        panic!()
    };
    assert_eq!(e.code.as_deref(), Some("dropped"));

    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _sub = ctx.subagent("worker").unwrap();
        panic!("inside");
    }));
    assert!(panicked.is_err());
    let got = events.drain();
    let Event::SubagentError(e) = &got[1] else {
        panic!()
    };
    assert_eq!(e.code.as_deref(), Some("panic"));
}

#[test]
fn subagent_outcomes_nesting_and_attribution() {
    let (ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap();
    let parent = ctx
        .subagent(
            SubagentSpec::new("planner")
                .with_description("plans")
                .with_parent_tool_call_id("call-1")
                .with_parent_message_id("m-1"),
        )
        .unwrap();
    let mut child = parent.subagent("searcher").unwrap();
    child.emit(Event::custom("progress", json!(1))).unwrap();
    assert_eq!(
        child.emit(Event::run_error("no")).unwrap_err().kind(),
        ErrorKind::Misuse
    );
    let step = child.step("look").unwrap();
    let call = step.call_tool("search", &json!({"q": "x"})).unwrap();
    step.tool_result(&call, "found").unwrap();
    drop(step);
    let interrupts = child
        .suspend(vec![Interrupt::new("i1", "input_required")])
        .unwrap();
    assert_eq!(
        interrupts[0].subagent_run_id.as_ref().unwrap(),
        "r-sub-1-sub-1"
    );
    parent.finish_with_result(&json!({"plan": 1})).unwrap();

    let got = events.drain();
    let Event::SubagentStarted(s) = &got[0] else {
        panic!()
    };
    assert_eq!(s.subagent_run_id, "r-sub-1");
    assert_eq!(s.description.as_deref(), Some("plans"));
    assert_eq!(s.parent_tool_call_id.as_ref().unwrap(), "call-1");
    assert_eq!(s.parent_message_id.as_ref().unwrap(), "m-1");
    assert_eq!(s.parent_subagent_run_id, None);
    let Event::SubagentStarted(c) = &got[1] else {
        panic!()
    };
    assert_eq!(c.subagent_run_id, "r-sub-1-sub-1");
    assert_eq!(c.parent_subagent_run_id.as_ref().unwrap(), "r-sub-1");
    for e in &got[2..got.len() - 2] {
        assert_eq!(e.attribution().unwrap(), "r-sub-1-sub-1", "{e:?}");
    }
    assert!(
        got.contains(
            &Event::tool_call_result("r-sub-1-sub-1-msg-1", "r-sub-1-sub-1-call-1", "found")
                .with_subagent_run_id("r-sub-1-sub-1")
        )
    );
    let Event::SubagentFinished(f) = &got[got.len() - 2] else {
        panic!()
    };
    assert_eq!(
        f.outcome,
        Some(SubagentFinishedOutcome::Suspended {
            interrupt_ids: Some(vec!["i1".into()])
        })
    );
    let Event::SubagentFinished(f) = got.last().unwrap() else {
        panic!()
    };
    assert_eq!(f.result, Some(json!({"plan": 1})));
}

/// What one subagent emits, deterministic in its index.
/// One round of helper `i`'s work: a message, and every fifth round a tool call and a thought.
fn work_round(sub: &mut ag_ui::server::SubagentContext, i: usize, round: usize) -> Result<()> {
    let mut m = sub.assistant_message()?;
    for word in 0..5 {
        m.delta(format!("s{i} r{round} w{word} "))?;
    }
    drop(m);
    if round.is_multiple_of(5) {
        let mut call = sub.tool_call("lookup")?;
        call.args(format!("{{\"i\":{i}}}"))?;
        drop(call);
        sub.think("checking")?;
    }
    Ok(())
}

const ROUNDS: usize = 20;

fn work(sub: &mut ag_ui::server::SubagentContext, i: usize) -> Result<()> {
    (0..ROUNDS).try_for_each(|round| work_round(sub, i, round))
}

struct Fanout;

impl Agent for Fanout {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        ctx.say("Spawning helpers")?;
        let mut tasks = Vec::new();
        // Every helper finishes a round before any starts the next, so the four lanes are
        // certain to interleave on the wire, however the threads are scheduled.
        let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(4));
        for i in 0..4 {
            let mut sub = ctx.subagent(format!("helper-{i}"))?;
            let barrier = std::sync::Arc::clone(&barrier);
            tasks.push(tokio::spawn(async move {
                for round in 0..ROUNDS {
                    work_round(&mut sub, i, round)?;
                    barrier.wait().await;
                }
                if i == 3 {
                    sub.fail(&Error::agent("helper 3 always fails"))
                } else {
                    sub.finish()
                }
            }));
        }
        for task in tasks {
            task.await.map_err(|e| Error::agent(e.to_string()))??;
        }
        ctx.say("All done")?;
        Ok(Outcome::success())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_subagents_regroup_into_their_exact_output() {
    let events = collect(
        Runner::new(Fanout)
            .run(RunAgentInput::new("t", "r"))
            .unwrap(),
    )
    .await;
    assert_eq!(events.last().unwrap().event_type(), EventType::RunFinished);
    // The interleaved stream is one the client verifier accepts.
    assert_eq!(ag_ui::verify::verify_all(&events).unwrap(), events.len());

    // Regroup the interleaved stream by subagentRunId.
    let mut lanes: BTreeMap<SubagentRunId, Vec<Event>> = BTreeMap::new();
    for e in &events {
        if let Some(id) = e.subagent_run_id() {
            lanes.entry(id.clone()).or_default().push(e.clone());
        }
    }
    assert_eq!(lanes.len(), 4);
    for i in 0..4 {
        // The exact output of helper i, produced alone through the harness.
        let (ctx, mut expected) = RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap();
        for _ in 0..i {
            ctx.subagent("skip").unwrap().finish().unwrap();
        }
        let mut sub = ctx.subagent(format!("helper-{i}")).unwrap();
        work(&mut sub, i).unwrap();
        if i == 3 {
            sub.fail(&Error::agent("helper 3 always fails")).unwrap();
        } else {
            sub.finish().unwrap();
        }
        let expected: Vec<Event> = expected.drain().split_off(2 * i);
        let id = SubagentRunId::new(format!("r-sub-{}", i + 1));
        assert_eq!(lanes[&id], expected, "helper {i}");
    }
    let interleaved = events
        .windows(2)
        .filter(|w| w[0].subagent_run_id() != w[1].subagent_run_id())
        .count();
    assert!(
        interleaved >= ROUNDS,
        "the lanes should interleave ({interleaved} switches)"
    );
}

#[test]
fn message_roles_from_a_subagent() {
    let (ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap();
    let mut sub = ctx.subagent("s").unwrap();
    drop(sub.message(TextMessageRole::System).unwrap());
    sub.finish().unwrap();
    let got = events.drain();
    assert_eq!(
        got[1],
        Event::text_message_start("r-sub-1-msg-1", TextMessageRole::System)
            .with_subagent_run_id("r-sub-1")
    );
}

#[test]
fn what_a_transport_and_a_task_need_is_send_and_static() {
    fn send_static<T: Send + 'static>() {}
    fn stream<T: futures::Stream<Item = Event> + Send + Unpin + 'static>() {}
    send_static::<ag_ui::server::SubagentContext>();
    send_static::<ag_ui::server::CancelHandle>();
    stream::<ag_ui::server::Events>();
    send_static::<Runner<Fanout>>();
}

struct Leaky(std::sync::Mutex<Option<tokio::sync::oneshot::Receiver<()>>>);

impl Agent for Leaky {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        let mut sub = ctx.subagent("slow")?;
        let go = self.0.lock().unwrap().take().unwrap();
        tokio::spawn(async move {
            let _ = go.await;
            // The run ended while this subagent was still active.
            assert_eq!(sub.say("late").unwrap_err().kind(), ErrorKind::Closed);
        });
        // Returns while the subagent still runs elsewhere.
        Ok(Outcome::success())
    }
}

#[tokio::test]
async fn a_run_that_cannot_finish_ends_with_run_error_naming_why() {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let events = Runner::new(Leaky(std::sync::Mutex::new(Some(rx))))
        .run(RunAgentInput::new("t", "r"))
        .unwrap();
    let events = collect(events).await;
    tx.send(()).unwrap();
    assert_eq!(
        types(&events),
        [
            EventType::RunStarted,
            EventType::SubagentStarted,
            EventType::RunError
        ]
    );
    let Event::RunError(e) = &events[2] else {
        panic!()
    };
    assert_eq!(e.code.as_deref(), Some("unclosed"));
    assert!(e.message.contains("r-sub-1"), "{}", e.message);
    ag_ui::verify::verify_all(&events).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_interleaved_stream_of_concurrent_subagents_passes_the_client_verifier() {
    let events = collect(
        Runner::new(Fanout)
            .run(RunAgentInput::new("t", "r"))
            .unwrap(),
    )
    .await;
    assert_eq!(ag_ui::verify::verify_all(&events).unwrap(), events.len());
}
