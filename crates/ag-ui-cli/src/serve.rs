//! `ag-ui serve`: the demo agent (or, with `--model`, an agent backed by an OpenAI-compatible
//! model) over SSE, with a log line per run, served by
//! `ag_ui::axum::serve` (header timeout, connection limit, bounded graceful shutdown on Ctrl-C).

use std::io::Write;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use ag_ui::axum::AgentRegistry;
use ag_ui::axum::{AgentEndpoint, EventStream, RouterExt, RunHandler, ServeConfig, StartError};
use ag_ui::llm::{LlmAgent, OpenAiClient};
use ag_ui::server::Runner;
use ag_ui::{Event, RunAgentInput, RunFinishedOutcome};
use ag_ui_demo_agent::DemoAgent;
use futures::Stream;

use crate::failure::Failure;
use crate::hosting;
use crate::replay::Replayed;

/// How long `serve` waits for open runs once interrupted before closing their connections.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(5);

/// Logs one line per run when its stream ends: run id, events, duration, outcome.
struct Logged<H> {
    inner: H,
}

struct LoggedStream {
    inner: EventStream,
    run_id: String,
    events: u64,
    started: Instant,
    /// How the run ended: "finished", "interrupted", "cancelled", "failed", or
    /// "disconnected" until a terminal event.
    outcome: &'static str,
}

/// The outcome a terminal event reports, for the log.
fn outcome_of(event: &Event) -> Option<&'static str> {
    match event {
        Event::RunFinished(e) => Some(match &e.outcome {
            Some(RunFinishedOutcome::Interrupt { .. }) => "interrupted",
            Some(RunFinishedOutcome::Cancelled) => "cancelled",
            _ => "finished",
        }),
        Event::RunError(_) => Some("failed"),
        _ => None,
    }
}

impl Stream for LoggedStream {
    type Item = Event;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        let next = self.inner.as_mut().poll_next(cx);
        if let Poll::Ready(Some(event)) = &next {
            self.events += 1;
            if let Some(outcome) = outcome_of(event) {
                self.outcome = outcome;
            }
        }
        next
    }
}

impl Drop for LoggedStream {
    fn drop(&mut self) {
        // Ids come from the client: logged with `?` (quoted, control characters escaped) so a
        // CR, LF or ESC in one cannot forge or colour a log line.
        tracing::info!(
            run = ?self.run_id,
            events = self.events,
            duration_ms = self.started.elapsed().as_millis() as u64,
            outcome = self.outcome,
            "run ended"
        );
    }
}

impl<H: RunHandler> RunHandler for Logged<H> {
    fn run(&self, input: RunAgentInput) -> Result<EventStream, StartError> {
        let run_id = input.run_id.to_string();
        tracing::info!(
            run = ?run_id,
            thread = ?input.thread_id.as_str(),
            messages = input.messages.len(),
            "run started"
        );
        let inner = self.inner.run(input)?;
        Ok(Box::pin(LoggedStream {
            inner,
            run_id,
            events: 0,
            started: Instant::now(),
            outcome: "disconnected",
        }))
    }
}

/// The router serving the demo agent at `path`.
pub(crate) fn demo_router(path: &str, pace: Duration) -> axum::Router {
    let runner = Runner::new(DemoAgent::new().with_pace(pace));
    axum::Router::new().agent(path, AgentEndpoint::new(Logged { inner: runner }))
}

/// What `ag-ui serve` hosts beside the demo agent.
#[derive(Debug, Default)]
pub(crate) struct Extra<'a> {
    /// A recording replayed as an agent (`--replay FILE`).
    pub(crate) replay: Option<&'a str>,
    /// A model agent: the model's name and the base URL of its OpenAI-compatible server
    /// (`--model NAME --base-url URL`); the key comes from `OPENAI_API_KEY`.
    pub(crate) model: Option<(&'a str, &'a str)>,
    /// MCP servers whose tools the model agent gets: command lines (`--mcp`) and streamable
    /// HTTP URLs (`--mcp-url`).
    pub(crate) mcp: &'a [String],
    /// See `mcp`.
    pub(crate) mcp_urls: &'a [String],
    /// Join the deltas that arrive within this window (`--coalesce-ms`).
    pub(crate) coalesce: Option<Duration>,
    /// Resumable runs (`--resumable`), on Redis at this URL (`--redis URL`) or in memory.
    pub(crate) resumable: Option<Option<&'a str>>,
    /// The oldest pre-1.0 client served (`--old-clients VERSION`).
    pub(crate) oldest_client: Option<ag_ui::server::downgrade::ClientVersion>,
}

/// The event log of `--resumable`: Redis when a URL is given, else in memory; with a label
/// for the banner.
async fn event_log(redis: Option<&str>) -> Result<(hosting::Log, String), Failure> {
    match redis {
        None => Ok((
            std::sync::Arc::new(ag_ui::server::log::MemoryLog::default()),
            "resumable, event log in memory".to_owned(),
        )),
        Some(url) => {
            let log = ag_ui::server::log::RedisLog::connect(url)
                .await
                .map_err(|e| Failure::Usage(format!("--redis {url}: {e}")))?;
            Ok((
                std::sync::Arc::new(log),
                format!("resumable, event log on Redis at {url}"),
            ))
        }
    }
}

/// `ag-ui serve`: the demo agent, and the recording and the model agent when given, in a
/// registry at `/agents` (`/agents/demo`, `/agents/replay`, `/agents/model`); the model agent
/// when there is one, else the recording, else the demo also at `path` for existing clients;
/// on `addr`, until interrupted (Ctrl-C, SIGINT).
pub(crate) async fn serve(
    addr: SocketAddr,
    path: &str,
    pace: Duration,
    extra: Extra<'_>,
    cors_origins: &[String],
) -> Result<(), Failure> {
    hosting::check_path(path)?;
    let cors = hosting::cors(cors_origins)?;
    let (log, log_label) = match extra.resumable {
        Some(redis) => {
            let (log, label) = event_log(redis).await?;
            (Some(log), Some(label))
        }
        None => (None, None),
    };
    let options = hosting::Options {
        coalesce: extra.coalesce,
        log,
        oldest_client: extra.oldest_client,
    };
    let demo = Runner::new(DemoAgent::new().with_pace(pace));
    let mut registry = AgentRegistry::new();
    let mut agents = vec!["demo"];
    hosting::host(
        &mut registry,
        hosting::demo_info(),
        Logged {
            inner: demo.clone(),
        },
        &options,
    )?;
    // The recording is read before anything listens: a bad one is refused at once.
    let replayed = extra
        .replay
        .map(|file| Replayed::read(file, pace))
        .transpose()?;
    if let (Some(file), Some(replayed)) = (extra.replay, &replayed) {
        let info = hosting::replay_info(file, replayed.len());
        let handler = Logged {
            inner: replayed.clone(),
        };
        hosting::host(&mut registry, info, handler, &options)?;
        agents.push("replay");
    }
    // MCP servers start before anything listens: one that cannot is refused at once.
    let mut mcp_tools = crate::mcp::connect(extra.mcp, extra.mcp_urls).await?;
    let model = extra.model.map(|(model, base_url)| {
        let key = std::env::var("OPENAI_API_KEY").ok();
        if key.is_none() {
            tracing::warn!("OPENAI_API_KEY is not set; requests go to {base_url} without a key");
        }
        let mut agent = model_agent(model, base_url, key);
        // The agent refuses runs whose frontend tools reuse an MCP tool's name.
        for tool in mcp_tools.take().iter().flat_map(|t| t.backend_tools()) {
            agent = agent.with_tool(tool);
        }
        (Runner::new(agent), model, base_url)
    });
    if let Some((runner, name, base_url)) = &model {
        let handler = Logged {
            inner: runner.clone(),
        };
        hosting::host(
            &mut registry,
            hosting::model_info(name, base_url),
            handler,
            &options,
        )?;
        agents.push("model");
    }
    let agents = agents.join(", ");
    let labelled = |label: &str| match &log_label {
        Some(resumable) => format!("{label} ({resumable})"),
        None => label.to_owned(),
    };
    match (model, replayed) {
        (Some((runner, name, base_url)), _) => {
            let label = labelled(&format!("model agent ({name} at {base_url})"));
            let app = hosting::router(path, Logged { inner: runner }, registry, cors, &options)?;
            serve_router(addr, path, &label, Some(&agents), app).await
        }
        (None, Some(replayed)) => {
            let app = hosting::router(path, Logged { inner: replayed }, registry, cors, &options)?;
            serve_router(addr, path, &labelled("replay agent"), Some(&agents), app).await
        }
        (None, None) => {
            let app = hosting::router(path, Logged { inner: demo }, registry, cors, &options)?;
            serve_router(addr, path, &labelled("demo agent"), Some(&agents), app).await
        }
    }
}

/// Where `--base-url` points by default.
pub(crate) const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// An agent backed by `model` at `base_url` (the key, if any, as a bearer token). Its state is
/// whatever JSON the frontend keeps; its tools are the frontend's (and the MCP servers').
pub(crate) fn model_agent(
    model: &str,
    base_url: &str,
    key: Option<String>,
) -> LlmAgent<serde_json::Value> {
    let mut client = OpenAiClient::new(base_url);
    if let Some(key) = key.filter(|k| !k.is_empty()) {
        client = client.with_api_key(key);
    }
    LlmAgent::<serde_json::Value>::new(client, model)
}

/// Serves `router` until interrupted, after a banner naming `label` at `path` (and the
/// registry's listing when it hosts `registry`).
async fn serve_router(
    addr: SocketAddr,
    path: &str,
    label: &str,
    registry: Option<&str>,
    router: axum::Router,
) -> Result<(), Failure> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Failure::Usage(format!("cannot listen on {addr}: {e}")))?;
    let local = listener.local_addr().map_err(Failure::Output)?;
    // One write; a reader that has gone away (stdout closed) does not stop the server.
    let listing = registry.map_or(String::new(), |agents| {
        format!("agents ({agents}): http://{local}/agents; health: http://{local}/health\n")
    });
    let banner = format!(
        "ag-ui {label}: http://{local}{path}\n{listing}try: ag-ui run http://{local}{path} \"hello\"\n"
    );
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(banner.as_bytes()).and_then(|()| out.flush());
    drop(out);
    let config = ServeConfig::default().with_shutdown_timeout(SHUTDOWN_TIMEOUT);
    let interrupted = async {
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("interrupted; closing open connections");
    };
    ag_ui::axum::serve(listener, router, config, interrupted)
        .await
        .map_err(Failure::Output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ag_ui::Interrupt;

    #[test]
    fn the_outcome_names_interrupts_and_cancellations() {
        let finished = Event::run_finished("t", "r");
        assert_eq!(outcome_of(&finished), Some("finished"));
        let interrupted: Event = ag_ui::RunFinishedEvent::new("t", "r")
            .with_outcome(RunFinishedOutcome::interrupt(vec![Interrupt::new(
                "i",
                "confirmation",
            )]))
            .into();
        assert_eq!(outcome_of(&interrupted), Some("interrupted"));
        let cancelled: Event = ag_ui::RunFinishedEvent::new("t", "r")
            .with_outcome(RunFinishedOutcome::Cancelled)
            .into();
        assert_eq!(outcome_of(&cancelled), Some("cancelled"));
        assert_eq!(
            outcome_of(&Event::RunError(ag_ui::RunErrorEvent::new("boom"))),
            Some("failed")
        );
        assert_eq!(outcome_of(&Event::text_message_end("m")), None);
    }
}
