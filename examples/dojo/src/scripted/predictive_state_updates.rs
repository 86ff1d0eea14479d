//! `POST /predictive_state_updates`: a document the page fills while a tool call's arguments
//! stream, then a confirmation.
//!
//! - last message a tool result (the person confirmed or rejected) → the text [`DONE`];
//! - otherwise → `CUSTOM` `PredictState` ([`predict_state`]: the state key `document` follows
//!   the argument `document` of `write_document_local`), then a call of `write_document_local`
//!   whose arguments stream as `{"document":"`, one delta per word of [`story`] (the word and a
//!   space, each followed by a 200 ms pause), then `"}`; then a call of `confirm_changes` with
//!   `{}`, which the page answers with the person's choice.
//!
//! The state is [`DocumentState`]: a client that honours `PredictState` (`@ag-ui/client` 1.0.0
//! does) holds the streamed `document` in its state and sends it back with the answer to
//! `confirm_changes`, so the route accepts it there (a unit state would refuse that follow-up
//! with a 400, as it did straight from a CopilotKit page).

use std::time::Duration;

use ag_ui::server::{Agent, Outcome, PredictState, Result, RunContext};
use serde::{Deserialize, Serialize};

use super::Pace;
use super::answered_a_tool;

/// The text once the person answered `confirm_changes`.
pub const DONE: &str = "Ok!";
/// The reference's pause after each streamed word.
pub const WORD_PAUSE: Duration = Duration::from_millis(200);
/// The dogs a story can be about.
pub const DOG_NAMES: [&str; 4] = ["Rex", "Buddy", "Max", "Charlie"];

/// The `PredictState` value this route sends: the state key `document` follows the argument
/// `document` of `write_document_local`.
pub fn predict_state() -> PredictState {
    PredictState::new("document", "write_document_local").with_tool_argument("document")
}

/// The dog of a run: picked from the run id (the reference picks at random; a client sends a
/// fresh run id per run, so the stories vary, and a replayed run tells the same one).
pub fn dog_name(run_id: &str) -> &'static str {
    let sum = run_id
        .bytes()
        .fold(0usize, |sum, b| sum.wrapping_mul(31).wrapping_add(b.into()));
    DOG_NAMES[sum % DOG_NAMES.len()]
}

/// The story about `name`.
pub fn story(name: &str) -> String {
    format!("Once upon a time, there was a dog named {name}. {name} was a very good dog.")
}

/// The state this route's clients hold: the document predicted from `write_document_local`'s
/// arguments (empty until one streamed). Read, never published: the route sends no snapshot.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentState {
    /// The document, as the client predicted it.
    #[serde(default)]
    pub document: String,
}

/// The predictive state updates agent.
#[derive(Clone, Copy, Debug, Default)]
pub struct PredictiveStateUpdates {
    /// The factor on the pauses between words.
    pub pace: Pace,
}

impl Agent for PredictiveStateUpdates {
    type State = DocumentState;

    async fn run(&self, ctx: &mut RunContext<DocumentState>) -> Result<Outcome> {
        if answered_a_tool(ctx) {
            ctx.say(DONE)?;
            return Ok(Outcome::success());
        }
        ctx.emit(PredictState::event(&[predict_state()]))?;

        let story = story(dog_name(ctx.run_id().as_str()));
        let mut write = ctx.tool_call("write_document_local")?;
        write.args(r#"{"document":""#)?;
        for word in story.split(' ') {
            write.args(format!("{word} "))?;
            self.pace.pause(WORD_PAUSE).await;
        }
        write.args(r#""}"#)?;
        write.end()?;

        let mut confirm = ctx.tool_call("confirm_changes")?;
        confirm.args("{}")?;
        confirm.end()?;
        Ok(Outcome::success())
    }
}
