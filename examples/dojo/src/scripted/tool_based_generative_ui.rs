//! `POST /tool_based_generative_ui`: a haiku the page renders from a tool call's arguments.
//!
//! - last message `"thanks"` → `MESSAGES_SNAPSHOT`: the conversation and an assistant message
//!   [`DONE`];
//! - otherwise → `MESSAGES_SNAPSHOT`: the conversation, an assistant call of `generate_haiku`
//!   with [`Haiku::reference`], and its tool message [`DONE`]. No `TOOL_CALL_*` events.

use ag_ui::server::{Agent, Outcome, Result, RunContext};
use ag_ui::{Event, Message};
use serde::{Deserialize, Serialize};

use super::{json_text, run_scoped_id};
use super::{last_text, snapshot_with_tool_result};

/// The tool's result, and the answer to "thanks".
pub const DONE: &str = "Haiku created";

/// The arguments of `generate_haiku` (the page's optional `image_name` and `gradient` are
/// left out, as the reference leaves them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Haiku {
    /// Three lines in Japanese.
    pub japanese: Vec<String>,
    /// The same three lines in English.
    pub english: Vec<String>,
}

impl Haiku {
    /// The reference's haiku.
    pub fn reference() -> Self {
        let lines = |lines: [&str; 3]| lines.map(str::to_owned).to_vec();
        Haiku {
            japanese: lines(["エーアイの", "橋つなぐ道", "コパキット"]),
            english: lines([
                "From AI's realm",
                "A bridge-road linking us—",
                "CopilotKit.",
            ]),
        }
    }
}

/// The tool-based generative UI agent.
#[derive(Clone, Copy, Debug, Default)]
pub struct ToolBasedGenerativeUi;

impl Agent for ToolBasedGenerativeUi {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        if last_text(ctx).as_deref() == Some("thanks") {
            let mut messages = ctx.input().messages.clone();
            messages.push(Message::assistant(
                run_scoped_id(ctx.run_id(), "msg-1"),
                DONE,
            ));
            ctx.emit(Event::messages_snapshot(messages))?;
        } else {
            let arguments = json_text(&Haiku::reference())?;
            snapshot_with_tool_result(ctx, "generate_haiku", arguments, DONE.to_owned())?;
        }
        Ok(Outcome::success())
    }
}
