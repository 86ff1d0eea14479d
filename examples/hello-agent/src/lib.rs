//! The smallest useful AG-UI agent: it answers every run with one streamed assistant message
//! that greets the user by what they last said.
//!
//! Run with: `cargo run -p ag-ui-example-hello-agent` (serves `http://127.0.0.1:8001/`), then
//! `cargo run -p ag-ui-cli -- run http://127.0.0.1:8001/ "Ada"`.

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui::server::{Agent, Outcome, Result, RunContext};

/// Greets the user, word by word.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hello;

impl Agent for Hello {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        let name = ctx
            .input()
            .messages
            .last()
            .and_then(|m| m.text())
            .unwrap_or("there")
            .to_owned();
        let mut message = ctx.assistant_message()?;
        for word in ["Hello, ", name.as_str(), "!"] {
            message.delta(word)?;
        }
        message.end()?;
        Ok(Outcome::success())
    }
}

/// The router: the agent at `/`.
pub fn app() -> axum::Router {
    axum::Router::new().agent("/", AgentEndpoint::agent(Hello))
}
