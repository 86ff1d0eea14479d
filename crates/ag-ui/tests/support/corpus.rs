//! Running a fixture of the conformance corpus through this crate's client: `HttpAgent` +
//! `Conversation` over the fixture's input (and its second run, for a scenario with `resume`),
//! observing what the corpus's runners observe. Used by the Rust lane
//! (`tests/client/conformance.rs`) and, included by path, by the command's tests against
//! `ag-ui conformance client`.

use ag_ui::client::{
    Conversation, Flow, HttpAgent, PeerVersion, Reducer, RunError, RunErrorKind, Subscriber,
    Warning,
};
use ag_ui::{Context, Event, Message, ResumeEntry, Tool};
use ag_ui_conformance::{Fixture, Observed, Outcome};
use serde_json::{Value, json};

/// What reaches the application: every event delivered, every warning, the last `RUN_ERROR`.
#[derive(Default)]
pub struct Seen {
    pub events: Vec<Value>,
    pub warnings: Vec<String>,
    pub run_error: Option<String>,
}

impl Subscriber for Seen {
    fn on_event(&mut self, event: &Event, _: &Reducer) -> Flow {
        if let Event::RunError(e) = event {
            self.run_error = Some(e.message.clone());
        }
        self.events.push(serde_json::to_value(event).unwrap());
        Flow::Continue
    }

    fn on_warning(&mut self, warning: &Warning) -> Flow {
        self.warnings.push(warning.to_string());
        Flow::Continue
    }
}

/// The reason this client's rejection gives: its rule kind, or the decode error's kind and
/// field, then the whole error with its causes.
pub fn reason(error: &RunError) -> String {
    let kind = match error.pipeline() {
        Some(p) if p.violation().is_some() => p.violation().unwrap().kind().as_str().to_owned(),
        Some(p) if p.chunk().is_some() => p.chunk().unwrap().kind().as_str().to_owned(),
        Some(p) if p.decode().is_some() => {
            let d = p.decode().unwrap();
            format!("{} {}", d.kind().as_str(), d.field().unwrap_or(""))
        }
        _ => error.kind().as_str().to_owned(),
    };
    let mut text = format!("{kind}: {error}");
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The conversation a fixture starts from: its input, on the thread its stream answers about.
pub fn conversation(fixture: &Fixture) -> Conversation {
    let list = |items: &[Value]| Value::Array(items.to_vec());
    let messages: Vec<Message> = serde_json::from_value(list(&fixture.input.messages)).unwrap();
    let tools: Vec<Tool> = serde_json::from_value(list(&fixture.input.tools)).unwrap();
    let context: Vec<Context> = serde_json::from_value(list(&fixture.input.context)).unwrap();
    let mut conversation = Conversation::new(fixture.thread_id().unwrap_or("t-conformance"))
        .with_messages(messages)
        .with_tools(tools)
        .with_context(context);
    if let Some(props) = &fixture.input.forwarded_props {
        conversation = conversation.with_forwarded_props(props.clone());
    }
    conversation
}

/// Runs `fixture` through `agent` (pinned to the fixture's peer version, if it names one), its
/// second run too when it has one and the first did not fail: what the client ended with (the
/// request aside: the server saw it). The run's report holds the warnings the subscriber was
/// told.
pub async fn run_fixture(fixture: &Fixture, agent: HttpAgent) -> Observed {
    let peer: Option<PeerVersion> = fixture
        .max_protocol_version
        .as_deref()
        .map(|v| v.parse().unwrap());
    let agent = agent.with_peer_version(peer);
    let mut conversation = conversation(fixture);
    let mut seen = Seen::default();
    let mut result = conversation.run(&agent, &mut seen).await;
    if let (Ok(_), Some(resume)) = (&result, &fixture.resume) {
        let entries: Vec<ResumeEntry> =
            serde_json::from_value(Value::Array(resume.entries.clone())).unwrap();
        let cancel = ag_ui::client::CancelToken::new();
        result = conversation
            .run_with(&agent, Some(entries), &cancel, &mut seen)
            .await;
    }
    let (outcome, error) = match &result {
        Ok(_) => (Outcome::Completed, None),
        // The agent's own RUN_ERROR: the stream was consumed (the corpus's `runError`).
        Err(e) if e.kind() == RunErrorKind::Agent => (Outcome::Completed, None),
        Err(e) => (Outcome::Failed, Some(reason(e))),
    };
    let summary = match &result {
        Ok(summary) => Some(summary),
        Err(e) => e.summary(),
    };
    if let (Some(summary), None) = (summary, &fixture.resume) {
        let reported: Vec<String> = summary.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            reported, seen.warnings,
            "{}: the run report's warnings",
            fixture.name
        );
    }
    Observed {
        outcome: Some(outcome),
        error,
        run_error: seen.run_error,
        events: seen.events,
        warnings: seen.warnings,
        messages: conversation
            .messages()
            .iter()
            .map(|m| serde_json::to_value(m).unwrap())
            .collect(),
        state: conversation.state().clone(),
        request: None,
    }
}

/// `observed` as the kit's verdict endpoint reads it.
pub fn observed_json(observed: &Observed) -> Value {
    json!({
        "outcome": observed.outcome.map(Outcome::as_str),
        "error": observed.error,
        "runError": observed.run_error,
        "events": observed.events,
        "warnings": observed.warnings,
        "messages": observed.messages,
        "state": observed.state,
    })
}
