//! A paced agent for load tests: every run streams one assistant message of `deltas` text
//! deltas, one every `every`, as a model would while its client waits. Most of a run is
//! waiting, which is what an agent server's memory per run is made of.
//!
//! Run with: `cargo run --release -p ag-ui-example-paced-agent -- 127.0.0.1:8002 --deltas 20
//! --every-ms 500 --max-connections 12000`, then `ag-ui load http://127.0.0.1:8002/ --runs 1000
//! --ramp 5 --pid PID`; `bench/load.sh` does both, at 1,000 and 10,000 runs, beside the same
//! workload on `@ag-ui/encoder` (`interop/bench/paced.mjs`).
//!
//! Two more shapes of the same workload, for the memory a run holds beyond the plain
//! endpoint's: [`resumable_app`] (the same agent behind a resumable endpoint, its
//! [`MemoryLog`] bounded to the runs of the load) and [`model_app`] (the model bridge,
//! [`LlmAgent`], waiting on a model that streams the same deltas at the same pace:
//! [`model::router`], served by the `paced-model` binary, over h2c or HTTP/1.1). Each shape
//! is served with `ag_ui::axum::serve`, or with plain `axum::serve` (`--axum-serve`).

use std::time::Duration;

use ag_ui::axum::{AgentEndpoint, RouterExt, ServeConfig};
use ag_ui::llm::{Connections, HttpVersion, LlmAgent, OpenAiClient};
use ag_ui::server::log::{MemoryLog, MemoryLogConfig};
use ag_ui::server::{Agent, Outcome, Result, RunContext};

pub mod model;

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
            message.delta(word(i))?;
        }
        message.end()?;
        Ok(Outcome::success())
    }
}

/// The word of delta `i`, shared with the paced model.
pub fn word(i: usize) -> &'static str {
    WORDS[i % WORDS.len()]
}

/// The router: the agent at `/`.
pub fn app(paced: Paced) -> axum::Router {
    axum::Router::new().agent("/", AgentEndpoint::agent(paced))
}

/// The log of [`resumable_app`] for a load of `runs` runs: every run kept (and 64 more), each
/// run's events bounded to 64 KiB, the rest of [`MemoryLogConfig::default`]. What it keeps
/// is what the configuration lets it keep; [`MemoryLog::stats`] tells how much that is.
pub fn paced_log(runs: usize) -> MemoryLog {
    MemoryLog::new(
        MemoryLogConfig::default()
            .with_max_runs(runs + 64)
            .with_max_run_bytes(64 * 1024),
    )
}

/// The router of the resumable endpoint: the agent at `/`, its events kept in `log`.
pub fn resumable_app(paced: Paced, log: MemoryLog) -> axum::Router {
    axum::Router::new().agent("/", AgentEndpoint::agent(paced).with_resumable(log))
}

/// The router of the model bridge: an [`LlmAgent`] at `/` asking the OpenAI-compatible
/// server at `base_url` (for the benchmark, [`model::router`] served by `paced-model`, which
/// speaks HTTP/1.1 and h2c) in HTTP `version`, the rest of [`Connections::default`]: over
/// HTTP/2 a hundred runs share a connection.
pub fn model_app(base_url: &str, version: HttpVersion) -> axum::Router {
    let client =
        OpenAiClient::new(base_url).with_connections(Connections::default().with_version(version));
    let agent: LlmAgent<()> = LlmAgent::new(client, model::MODEL);
    axum::Router::new().agent("/", AgentEndpoint::agent(agent))
}

/// The server's configuration: [`ServeConfig::default`] with room for `connections` at once
/// (the default, 1,024, would hold the rest of a 10,000-run load in the listener's backlog).
pub fn serve_config(connections: usize) -> ServeConfig {
    ServeConfig::default().with_max_connections(connections)
}

/// The command line both binaries take: `[ADDR] [--deltas K] [--every-ms P]`, and for the
/// agent `[--max-connections N] [--resumable] [--model URL] [--model-http1] [--axum-serve]`.
#[derive(Debug, Clone)]
pub struct Args {
    /// Where to listen.
    pub addr: String,
    /// The pace.
    pub paced: Paced,
    /// Connections served at once.
    pub connections: usize,
    /// Serve [`resumable_app`].
    pub resumable: bool,
    /// Serve [`model_app`] against this base URL.
    pub model: Option<String>,
    /// The HTTP version the bridge asks the model in: HTTP/2 with prior knowledge (h2c) unless
    /// `--model-http1` (a connection per waiting run, kept alive for the next runs).
    pub model_version: HttpVersion,
    /// Serve with plain `axum::serve` (as most axum applications do) rather than
    /// `ag_ui::axum::serve`: no header time-out, no connection cap.
    pub axum_serve: bool,
}

impl Args {
    /// Reads the arguments after the program's name; `addr` is the default address.
    ///
    /// # Errors
    ///
    /// `InvalidInput` naming the flag that is unknown or lacks its value.
    pub fn parse(addr: &str, args: impl IntoIterator<Item = String>) -> std::io::Result<Self> {
        let usage = |problem: &str| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{problem}; usage: [ADDR] [--deltas K] [--every-ms P] [--max-connections N] \
                     [--resumable] [--model URL] [--model-http1] [--axum-serve]"
                ),
            )
        };
        let mut parsed = Self {
            addr: addr.to_owned(),
            paced: Paced::default(),
            connections: 12_000,
            resumable: false,
            model: None,
            model_version: HttpVersion::Http2,
            axum_serve: false,
        };
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| {
                args.next()
                    .ok_or_else(|| usage(&format!("{name} needs a value")))
            };
            let mut number = |name: &str| -> std::io::Result<u64> {
                value(name)?
                    .parse()
                    .map_err(|_| usage(&format!("{name} needs a number")))
            };
            match arg.as_str() {
                "--deltas" => parsed.paced.deltas = number("--deltas")? as usize,
                "--every-ms" => parsed.paced.every = Duration::from_millis(number("--every-ms")?),
                "--max-connections" => parsed.connections = number("--max-connections")? as usize,
                "--resumable" => parsed.resumable = true,
                "--model" => parsed.model = Some(value("--model")?),
                "--model-http1" => parsed.model_version = HttpVersion::Http1,
                "--axum-serve" => parsed.axum_serve = true,
                flag if flag.starts_with("--") => return Err(usage(&format!("unknown {flag}"))),
                other => other.clone_into(&mut parsed.addr),
            }
        }
        Ok(parsed)
    }
}
