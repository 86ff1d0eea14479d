//! Property: whatever an agent does with the server API — any mix of messages, reasoning,
//! tool calls, steps, state, subagents, early returns, drops, errors and panics — the stream
//! the runner produces is one the client verifier (`Verifier::new()`, the AG-UI 1.0 rules)
//! accepts, ends with exactly one terminal event, and any state deltas in it apply cleanly.
#![cfg(feature = "server")]

use ag_ui::server::{Agent, Error, Outcome, Result, RunContext, SubagentContext};
use ag_ui::verify::Verifier;
use ag_ui::{Event, EventType, Interrupt, MessageId, RunAgentInput, TextMessageRole};
use futures::StreamExt;
use proptest::prelude::*;
use serde_json::{Value, json};

#[derive(Clone, Debug)]
enum Op {
    Say,
    Think,
    /// Open a message, stream `deltas`, run `inner` while it is open, then end or drop it.
    Message {
        role: u8,
        deltas: u8,
        inner: Vec<Inner>,
        end: bool,
    },
    /// A message with an id of our own (may collide with an earlier one).
    MessageWithId {
        id: u8,
    },
    Reasoning {
        deltas: u8,
        encrypted: bool,
        end: bool,
    },
    /// `n` parallel tool calls, args interleaved, some ended explicitly, some dropped.
    ToolCalls {
        n: u8,
        args: u8,
        ended: u8,
    },
    CallTool,
    ToolResult,
    Step {
        name: u8,
        body: Vec<Op>,
        end: bool,
    },
    Mutate(u8),
    PublishState,
    PublishDelta,
    Custom,
    Chunk {
        id: u8,
    },
    /// An event `emit` must refuse.
    EmitBracketed,
    Subagent {
        body: Vec<Op>,
        close: u8,
    },
    /// `return Err(..)` from the current block.
    Fail,
}

#[derive(Clone, Debug)]
enum Inner {
    Delta,
    Mutate(u8),
    PublishState,
    PublishDelta,
    Custom,
    ToolCall { args: u8, end: bool },
    EmitSecondMessage,
    Fail,
}

fn inner() -> impl Strategy<Value = Inner> {
    prop_oneof![
        4 => Just(Inner::Delta),
        1 => any::<u8>().prop_map(Inner::Mutate),
        1 => Just(Inner::PublishState),
        1 => Just(Inner::PublishDelta),
        1 => Just(Inner::Custom),
        1 => (0..3u8, any::<bool>()).prop_map(|(args, end)| Inner::ToolCall { args, end }),
        1 => Just(Inner::EmitSecondMessage),
        1 => Just(Inner::Fail),
    ]
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    let leaf = prop_oneof![
        Just(Op::Say),
        Just(Op::Think),
        (
            0..4u8,
            0..4u8,
            prop::collection::vec(inner(), 0..4),
            any::<bool>()
        )
            .prop_map(|(role, deltas, inner, end)| Op::Message {
                role,
                deltas,
                inner,
                end
            }),
        (0..3u8).prop_map(|id| Op::MessageWithId { id }),
        (0..3u8, any::<bool>(), any::<bool>()).prop_map(|(deltas, encrypted, end)| Op::Reasoning {
            deltas,
            encrypted,
            end
        }),
        (1..4u8, 0..4u8, any::<u8>()).prop_map(|(n, args, ended)| Op::ToolCalls { n, args, ended }),
        Just(Op::CallTool),
        Just(Op::ToolResult),
        any::<u8>().prop_map(Op::Mutate),
        Just(Op::PublishState),
        Just(Op::PublishDelta),
        Just(Op::Custom),
        (0..3u8).prop_map(|id| Op::Chunk { id }),
        Just(Op::EmitBracketed),
        Just(Op::Fail),
    ];
    let op = leaf.prop_recursive(3, 24, 4, |op| {
        prop_oneof![
            (
                0..2u8,
                prop::collection::vec(op.clone(), 0..4),
                any::<bool>()
            )
                .prop_map(|(name, body, end)| Op::Step { name, body, end }),
            (prop::collection::vec(op, 0..4), 0..5u8)
                .prop_map(|(body, close)| Op::Subagent { body, close }),
        ]
    });
    prop::collection::vec(op, 0..8)
}

macro_rules! common_ops {
    ($self:ident, $op:ident) => {
        match $op {
            Op::Say => {
                $self.say("hello")?;
            }
            Op::Think => {
                $self.think("hmm")?;
            }
            Op::Message { role, deltas, inner, end } => {
                let role = [
                    TextMessageRole::Assistant,
                    TextMessageRole::User,
                    TextMessageRole::System,
                    TextMessageRole::Developer,
                ][*role as usize % 4];
                let mut m = $self.message(role)?;
                for _ in 0..*deltas {
                    m.delta("w ")?;
                }
                for i in inner {
                    match i {
                        Inner::Delta => m.delta("x")?,
                        Inner::Custom => m.emit(Event::custom("c", json!(1)))?,
                        Inner::ToolCall { args, end } => {
                            if let Ok(mut call) = m.tool_call("inner") {
                                for _ in 0..*args {
                                    call.args("{}")?;
                                }
                                if *end {
                                    call.end()?;
                                }
                            }
                        }
                        Inner::EmitSecondMessage => {
                            assert!(
                                m.emit(Event::text_message_start("second", TextMessageRole::Assistant))
                                    .is_err()
                            );
                        }
                        Inner::Fail => return Err(Error::agent("failed inside a message")),
                        other => m.inner_state(other)?,
                    }
                }
                if *end {
                    m.end()?;
                }
            }
            Op::MessageWithId { id } => {
                let mut m = $self.message_with_id(format!("own-{id}"), TextMessageRole::Assistant)?;
                m.delta("mine")?;
            }
            Op::Reasoning { deltas, encrypted, end } => {
                let mut r = $self.reasoning()?;
                for _ in 0..*deltas {
                    r.delta("r")?;
                }
                if *encrypted {
                    r.encrypted_value("blob")?;
                }
                if *end {
                    r.end()?;
                }
            }
            Op::ToolCalls { n, args, ended } => {
                let mut calls = Vec::new();
                for i in 0..*n {
                    calls.push($self.tool_call(format!("tool-{i}"))?);
                }
                for round in 0..*args {
                    for call in &mut calls {
                        call.args(format!("{round}"))?;
                    }
                }
                for (i, call) in calls.into_iter().enumerate() {
                    if ended & (1 << i) != 0 {
                        call.end()?;
                    }
                }
            }
            Op::CallTool => {
                $self.call_tool("one-shot", &json!({"a": [1, 2]}))?;
            }
            Op::ToolResult => {
                let id = $self.call_tool("answered", &())?;
                $self.tool_result(id, "done")?;
            }
            Op::Custom => $self.emit(Event::custom("c", json!(null)))?,
            Op::Chunk { id } => $self.emit(Event::text_message_chunk(
                Some(MessageId::new(format!("chunk-{id}"))),
                Some("whole".to_owned()),
            ))?,
            Op::EmitBracketed => {
                assert!($self.emit(Event::step_started("by hand")).is_err());
                assert!($self.emit(Event::run_finished("t", "r")).is_err());
            }
            Op::Subagent { body, close } => {
                let mut sub = $self.subagent("helper")?;
                match sub.run_ops(body) {
                    Ok(()) => match close {
                        0 => sub.finish()?,
                        1 => {
                            sub.suspend(vec![Interrupt::new("i", "input_required")])?;
                        }
                        2 => sub.fail(&Error::agent("no"))?,
                        3 => sub.finish_with_result(&json!({"r": 1}))?,
                        _ => drop(sub),
                    },
                    Err(e) if close % 2 == 0 => sub.fail(&e)?,
                    Err(_) => drop(sub),
                }
            }
            Op::Fail => return Err(Error::agent("early return")),
            Op::Step { name, body, end } => {
                let mut step = $self.step(["plan", "act"][*name as usize % 2])?;
                step.run_ops(body)?;
                if *end {
                    step.end()?;
                }
            }
            Op::Mutate(_) | Op::PublishState | Op::PublishDelta => {}
        }
    };
}

/// The state operations an open message offers: with the run's state, or none in a subagent.
trait InnerState {
    fn inner_state(&mut self, op: &Inner) -> Result<()>;
}

impl InnerState for ag_ui::server::MessageHandle<'_, Value> {
    fn inner_state(&mut self, op: &Inner) -> Result<()> {
        match op {
            Inner::Mutate(n) => self.state_mut()[format!("k{}", n % 5)] = json!(n),
            Inner::PublishState => self.publish_state()?,
            Inner::PublishDelta => self.publish_state_delta()?,
            _ => {}
        }
        Ok(())
    }
}

impl InnerState for ag_ui::server::MessageHandle<'_, ag_ui::server::Detached> {
    fn inner_state(&mut self, _: &Inner) -> Result<()> {
        Ok(())
    }
}

trait RunOps {
    fn run_ops(&mut self, ops: &[Op]) -> Result<()>;
}

impl RunOps for RunContext<Value> {
    fn run_ops(&mut self, ops: &[Op]) -> Result<()> {
        for op in ops {
            match op {
                Op::Mutate(n) => self.state_mut()[format!("k{}", n % 5)] = json!(n),
                Op::PublishState => self.publish_state()?,
                Op::PublishDelta => self.publish_state_delta()?,
                _ => common_ops!(self, op),
            }
        }
        Ok(())
    }
}

impl RunOps for SubagentContext {
    fn run_ops(&mut self, ops: &[Op]) -> Result<()> {
        for op in ops {
            common_ops!(self, op);
        }
        Ok(())
    }
}

impl<C: RunOps> RunOps for ag_ui::server::StepHandle<'_, C> {
    fn run_ops(&mut self, ops: &[Op]) -> Result<()> {
        (**self).run_ops(ops)
    }
}

struct Scripted {
    ops: Vec<Op>,
    ending: u8,
}

impl Agent for Scripted {
    type State = Value;

    async fn run(&self, ctx: &mut RunContext<Value>) -> Result<Outcome> {
        ctx.run_ops(&self.ops)?;
        match self.ending % 5 {
            0 => Ok(Outcome::success()),
            1 => Ok(Outcome::interrupt(Interrupt::new("i1", "confirmation"))),
            2 => Ok(Outcome::cancelled()),
            3 => Err(Error::agent("failed at the end")),
            _ => panic!("the agent panics"),
        }
    }
}

fn run(ops: Vec<Op>, ending: u8) -> Vec<Event> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let input = RunAgentInput::new("t", "r").with_state(json!({"k0": 0}));
        ag_ui::server::run(Scripted { ops, ending }, input)
            .expect("run")
            .collect()
            .await
    })
}

/// Blocks opened and not closed, as `kind:owner:id` strings.
fn open_blocks(events: &[Event]) -> Vec<String> {
    use std::collections::BTreeMap;
    let mut open: BTreeMap<String, i32> = BTreeMap::new();
    for e in events {
        let owner = e.attribution().map(|s| s.to_string()).unwrap_or_default();
        let (key, delta) = match e {
            Event::TextMessageStart(x) => (format!("text:{owner}:{}", x.message_id), 1),
            Event::TextMessageEnd(x) => (format!("text:{owner}:{}", x.message_id), -1),
            Event::ToolCallStart(x) => (format!("tool:{owner}:{}", x.tool_call_id), 1),
            Event::ToolCallEnd(x) => (format!("tool:{owner}:{}", x.tool_call_id), -1),
            Event::ReasoningStart(x) => (format!("span:{owner}:{}", x.message_id), 1),
            Event::ReasoningEnd(x) => (format!("span:{owner}:{}", x.message_id), -1),
            Event::ReasoningMessageStart(x) => (format!("rmsg:{owner}:{}", x.message_id), 1),
            Event::ReasoningMessageEnd(x) => (format!("rmsg:{owner}:{}", x.message_id), -1),
            Event::StepStarted(x) => (format!("step:{owner}:{}", x.step_name), 1),
            Event::StepFinished(x) => (format!("step:{owner}:{}", x.step_name), -1),
            Event::SubagentStarted(x) => (format!("sub:{}", x.subagent_run_id), 1),
            Event::SubagentFinished(x) => (format!("sub:{}", x.subagent_run_id), -1),
            Event::SubagentError(x) => (format!("sub:{}", x.subagent_run_id), -1),
            _ => continue,
        };
        *open.entry(key).or_default() += delta;
    }
    open.into_iter()
        .filter(|(_, n)| *n != 0)
        .map(|(k, _)| k)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_api_sequence_yields_a_valid_stream(ops in ops(), ending in any::<u8>()) {
        let events = run(ops, ending);
        let mut verifier = Verifier::new();
        for (i, event) in events.iter().enumerate() {
            if let Err(v) = verifier.check(event) {
                panic!("event {i} rejected: {v}\n{events:#?}");
            }
        }
        prop_assert_eq!(events[0].event_type(), EventType::RunStarted);
        let terminal = events.iter().filter(|e| matches!(e.event_type(), EventType::RunFinished | EventType::RunError)).count();
        prop_assert_eq!(terminal, 1);
        prop_assert!(matches!(events.last().unwrap().event_type(), EventType::RunFinished | EventType::RunError));
        // Nothing is left open on any path — not only at RUN_FINISHED, also before RUN_ERROR
        // (an error or a panic): every handle closed what it opened on the way out.
        prop_assert_eq!(open_blocks(&events), Vec::<String>::new());
        if let Event::RunError(e) = events.last().unwrap() {
            prop_assert_ne!(e.code.as_deref(), Some("unclosed"));
        }
        // State deltas apply, in order, to the input's state.
        let mut state = json!({"k0": 0});
        for event in &events {
            match event {
                Event::StateSnapshot(e) => state = e.snapshot.clone(),
                Event::StateDelta(e) => json_patch::patch(&mut state, &e.delta).expect("delta applies"),
                _ => {}
            }
        }
    }
}
