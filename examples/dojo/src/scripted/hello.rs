//! `POST /`: the plain server starter, one text message.

use ag_ui::server::{Agent, Outcome, Result, RunContext};

/// Answers every run with "Hello world!".
#[derive(Clone, Copy, Debug, Default)]
pub struct Hello;

/// What it says.
pub const TEXT: &str = "Hello world!";

impl Agent for Hello {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        ctx.say(TEXT)?;
        Ok(Outcome::success())
    }
}
