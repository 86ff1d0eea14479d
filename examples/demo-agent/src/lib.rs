//! The ag-ui demo agent.
//!
//! One agent that shows most of AG-UI in a single turn, without an API key: it reasons about
//! the question, opens a step, calls a `search` tool and reports the result, updates the shared
//! state with JSON Patch deltas, runs two subagents (a researcher and a critic) that stream
//! concurrently from their own tasks, and streams its answer word by word. Ask it to
//! "confirm" (or "interrupt") and it ends the run with an interrupt instead, which the next run
//! answers with a `resume` entry. The interrupt's id is derived from the thread
//! ([`interrupt_id`]); a resume naming any other id ends the run with `RUN_ERROR` (code
//! `"unknown-interrupt"`) instead of going on. Between streamed words it waits for a slow
//! reader (`ready().await`), so the server's memory stays bounded whatever the pace.
//!
//! ```
//! use ag_ui::server::Runner;
//! use ag_ui::verify::Verifier;
//! use ag_ui::{Event, EventType, Message, RunAgentInput};
//! use ag_ui_demo_agent::DemoAgent;
//! use futures::StreamExt;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let input = RunAgentInput::new("t", "r").with_messages(vec![Message::user("u1", "What is AG-UI?")]);
//! let events: Vec<Event> = Runner::new(DemoAgent::new()).run(input).unwrap().collect().await;
//!
//! let mut verifier = Verifier::new();
//! assert!(events.iter().all(|e| verifier.check(e).is_ok()));
//! assert_eq!(events.last().unwrap().event_type(), EventType::RunFinished);
//! assert_eq!(events.iter().filter(|e| e.event_type() == EventType::SubagentStarted).count(), 2);
//! # }
//! ```
//!
//! Run with: `cargo run -p ag-ui-demo-agent` (serves it on <http://127.0.0.1:8000/>).

use std::time::Duration;

use ag_ui::server::{Agent, Error, Outcome, Result, RunContext, SubagentContext, SubagentSpec};
use ag_ui::{Content, Interrupt, Message, ResumeStatus};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The state the demo agent keeps in the conversation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DemoState {
    /// How many turns the agent has answered.
    #[serde(default)]
    pub turns: u32,
    /// The latest question.
    #[serde(default)]
    pub topic: Option<String>,
    /// What the subagents found.
    #[serde(default)]
    pub findings: Vec<String>,
}

/// The demo agent. See the [crate docs](crate).
#[derive(Clone, Debug, Default)]
pub struct DemoAgent {
    pace: Duration,
}

impl DemoAgent {
    /// A demo agent that streams as fast as it can.
    pub fn new() -> Self {
        Self::default()
    }

    /// Pauses `pace` between streamed words, so a person can watch the stream.
    #[must_use]
    pub fn with_pace(mut self, pace: Duration) -> Self {
        self.pace = pace;
        self
    }

    async fn pause(&self) {
        if !self.pace.is_zero() {
            tokio::time::sleep(self.pace).await;
        }
    }
}

/// The most of the user's question the demo quotes. Its reasoning, tool call and result,
/// state, subagents and answer each echo the question, so a longer one is quoted as an
/// excerpt (`ag_ui::excerpt`): a run holds the client's text once, in its input, not once per
/// echo, and its log holds echoes of a bounded size.
const QUOTED_QUESTION_BYTES: usize = 1024;

/// The text of the last user message (an excerpt of a long one), or a default question.
fn question(ctx: &RunContext<DemoState>) -> String {
    let quoted = |text: &str| ag_ui::excerpt(text, QUOTED_QUESTION_BYTES).into_owned();
    ctx.input()
        .messages
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::User(u) => Some(match &u.content {
                Content::Text(text) => quoted(text),
                parts => quoted(&parts.flatten()),
            }),
            _ => None,
        })
        .filter(|q| !q.trim().is_empty())
        .unwrap_or_else(|| "hello".to_owned())
}

/// Streams `text` word by word through an open message of `ctx`, waiting for a slow reader
/// (`ready().await`) between words, so a long answer never piles up in the server.
macro_rules! stream_words {
    ($agent:expr, $message:expr, $text:expr) => {{
        for (i, word) in $text.split(' ').enumerate() {
            $message.delta(if i == 0 {
                word.to_owned()
            } else {
                format!(" {word}")
            })?;
            $message.ready().await?;
            $agent.pause().await;
        }
    }};
}

/// The id of the interrupt the agent raises on `thread`: derived from the thread, so a resume
/// can be checked against it without the agent keeping any state.
pub fn interrupt_id(thread: &str) -> String {
    format!("confirm-save-{thread}")
}

/// Checks that every resume entry answers the interrupt this agent raised on this thread;
/// an entry it does not recognise is an error (`RUN_ERROR` code `"unknown-interrupt"`).
fn check_resume(ctx: &RunContext<DemoState>) -> Result<()> {
    let expected = interrupt_id(ctx.thread_id().as_str());
    let unknown: Vec<&str> = ctx
        .resume()
        .iter()
        .map(|entry| entry.interrupt_id.as_str())
        .filter(|id| *id != expected)
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    // The ids are the client's: quoted as bounded excerpts, whatever their size.
    let quoted: Vec<String> = unknown
        .iter()
        .map(|id| format!("{:?}", ag_ui::excerpt(id, ag_ui::EXCERPT_BYTES)))
        .collect();
    Err(Error::agent(format!(
        "unknown interrupt {}: the only interrupt this agent raises on thread {:?} is {:?}",
        ag_ui::excerpt_list(&quoted),
        ag_ui::excerpt(ctx.thread_id().as_str(), ag_ui::EXCERPT_BYTES),
        ag_ui::excerpt(&expected, ag_ui::EXCERPT_BYTES)
    ))
    .with_code("unknown-interrupt"))
}

impl DemoAgent {
    async fn subagent(
        self,
        sub: SubagentContext,
        topic: String,
        angle: &'static str,
    ) -> Result<String> {
        let mut sub = sub;
        let finding = format!(
            "the {angle} of {topic:?}: it streams typed events, so every client sees the same thing"
        );
        {
            let mut reasoning = sub.reasoning()?;
            stream_words!(
                self,
                reasoning,
                format!("Looking at the {angle} of the question.")
            );
            reasoning.end()?;
        }
        let mut message = sub.assistant_message()?;
        stream_words!(self, message, finding);
        message.end()?;
        sub.finish_with_result(&json!({ "finding": finding }))?;
        Ok(finding)
    }
}

impl Agent for DemoAgent {
    type State = DemoState;

    async fn run(&self, ctx: &mut RunContext<DemoState>) -> Result<Outcome> {
        // A resumed run: answer the interrupt and stop.
        check_resume(ctx)?;
        if let Some(entry) = ctx.resume().first().cloned() {
            let approved = entry.status == ResumeStatus::Resolved
                && entry
                    .payload
                    .as_ref()
                    .and_then(|p| p.get("approved"))
                    .and_then(|a| a.as_bool())
                    .unwrap_or(true);
            let reply = if approved {
                "Saved. Thanks for confirming."
            } else {
                "Understood, nothing was saved."
            };
            let mut message = ctx.assistant_message()?;
            stream_words!(self, message, reply);
            message.end()?;
            return Ok(Outcome::success().with_result(json!({ "saved": approved })));
        }

        let question = question(ctx);
        {
            let mut reasoning = ctx.reasoning()?;
            stream_words!(
                self,
                reasoning,
                format!(
                    "The user asked {question:?}. I will search, then ask a researcher and a critic."
                )
            );
            reasoning.end()?;
        }

        {
            let mut step = ctx.step("research")?;
            let call = step.call_tool("search", &json!({ "query": question }))?;
            step.tool_result(call, format!("3 results for {question:?}"))?;

            // A client sends the state back: its count may be at the top already.
            step.state_mut().turns = step.state().turns.saturating_add(1);
            step.state_mut().topic = Some(question.clone());
            step.publish_state_delta()?;

            // Two subagents stream at once, each from its own task.
            let researcher =
                step.subagent(SubagentSpec::new("researcher").with_description("Finds the facts"))?;
            let critic =
                step.subagent(SubagentSpec::new("critic").with_description("Looks for the catch"))?;
            let a = tokio::spawn(self.clone().subagent(researcher, question.clone(), "facts"));
            let b = tokio::spawn(self.clone().subagent(critic, question.clone(), "catch"));
            for task in [a, b] {
                match task.await {
                    Ok(finding) => step.state_mut().findings.push(finding?),
                    Err(join) => {
                        return Err(ag_ui::server::Error::agent(format!(
                            "a subagent task failed: {join}"
                        )));
                    }
                }
                // A JSON Patch that adds the finding, not the whole state again.
                step.publish_state_delta()?;
            }
            step.end()?;
        }

        let mut message = ctx.assistant_message()?;
        let answer = format!(
            "Here is what I found about {question:?}: {} findings, from two subagents that worked at the same time.",
            ctx_findings(&message)
        );
        stream_words!(self, message, answer);
        message.end()?;

        let lower = question.to_lowercase();
        if lower.contains("confirm") || lower.contains("interrupt") {
            return Ok(Outcome::interrupt(
                Interrupt::new(interrupt_id(ctx.thread_id().as_str()), "confirmation")
                    .with_message("Shall I save these findings?")
                    .with_response_schema(
                        json!({"type": "object", "properties": {"approved": {"type": "boolean"}}})
                            .as_object()
                            .cloned()
                            .unwrap_or_default(),
                    ),
            ));
        }
        Ok(Outcome::success().with_result(json!({ "answer": answer })))
    }
}

fn ctx_findings(message: &ag_ui::server::MessageHandle<'_, DemoState>) -> usize {
    message.state().findings.len()
}
