//! A paced agent for load tests: every run streams one assistant message of `deltas` text
//! deltas, one every `every`, as a model would while its client waits. Most of a run is
//! waiting, which is what an agent server's memory per run is made of.
//!
//! Run with: `cargo run --release -p ag-ui-example-paced-agent -- 127.0.0.1:8002 --deltas 20
//! --every-ms 500 --max-connections 12000`, then `ag-ui load http://127.0.0.1:8002/ --runs 1000
//! --ramp 5 --pid PID`; `bench/load.sh` does both, at 1,000 and 10,000 runs, beside the same
//! workload on `@ag-ui/encoder` (`interop/bench/paced.mjs`).

use std::time::Duration;

use ag_ui::axum::{AgentEndpoint, RouterExt, ServeConfig};
use ag_ui::server::{Agent, Outcome, Result, RunContext};

/// The words the deltas cycle through (static: a delta costs the agent no formatting).
const WORDS: [&str; 8] = [
    "Streaming ",
    "one ",
    "delta ",
    "at ",
    "a ",
    "steady ",
    "pace. ",
    "\n",
];

/// Streams `deltas` text deltas, one every `every` (the first after one `every`).
#[derive(Debug, Clone, Copy)]
pub struct Paced {
    /// How many text deltas a run streams.
    pub deltas: usize,
    /// The time before each delta.
    pub every: Duration,
}

impl Default for Paced {
    /// The workload of the load benchmark: 20 deltas, one every 500 ms.
    fn default() -> Self {
        Self {
            deltas: 20,
            every: Duration::from_millis(500),
        }
    }
}

impl Agent for Paced {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        let mut message = ctx.assistant_message()?;
        for i in 0..self.deltas {
            tokio::time::sleep(self.every).await;
            message.delta(WORDS[i % WORDS.len()])?;
        }
        message.end()?;
        Ok(Outcome::success())
    }
}

/// The router: the agent at `/`.
pub fn app(paced: Paced) -> axum::Router {
    axum::Router::new().agent("/", AgentEndpoint::agent(paced))
}

/// The server's configuration: [`ServeConfig::default`] with room for `connections` at once
/// (the default, 1,024, would hold the rest of a 10,000-run load in the listener's backlog).
pub fn serve_config(connections: usize) -> ServeConfig {
    ServeConfig::default().with_max_connections(connections)
}
