//! `ag-ui`: serve a demo agent, talk to any AG-UI agent, verify and transform event streams.
//!
//! Exit codes, the same for every command:
//!
//! | code | meaning |
//! |---|---|
//! | 0 | done |
//! | 1 | the stream, or the peer, failed: a protocol violation, a response that is not an event stream, a run cut off before its end, a time-out, an unreachable agent; a check that failed (`verify`, `load`, `conformance server`) |
//! | 2 | a usage error, or an input that cannot be read (a file, a flag's value) |
//! | 3 | `run`, `demo`: the agent reported that its run failed (`RUN_ERROR`, its code and message on standard error); the stream itself was fine |

mod conformance;
mod failure;
mod fetch;
mod flags;
mod hosting;
mod ids;
mod input;
mod inspect;
mod live;
mod load;
mod mcp;
mod offline;
mod render;
mod replay;
mod runlog;
mod serve;
mod terminal;

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use failure::Failure;
use offline::Encoding;

/// The AG-UI command: serve a demo agent, talk to any AG-UI agent, verify and transform
/// event streams (JSON Lines, JSON arrays, SSE or protobuf frames, detected).
#[derive(Debug, Parser)]
#[command(name = "ag-ui", version, about)]
struct Cli {
    /// When to colour the output.
    #[arg(long, value_enum, default_value_t = Color::Auto, global = true)]
    color: Color,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Color {
    /// On a terminal.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the built-in demo agent (no API keys, no configuration), or with --model an agent
    /// backed by an OpenAI-compatible model.
    Serve {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:8000")]
        addr: SocketAddr,
        /// Path of the endpoint.
        #[arg(long, default_value = "/")]
        path: String,
        /// Milliseconds between streamed words (between events with --replay), so the stream
        /// can be watched.
        #[arg(long, default_value_t = 30)]
        pace_ms: u64,
        /// Also serve a recorded stream (JSON Lines, a JSON array or SSE) as the agent `replay`,
        /// and at --path, each run's ids rewritten to the request's.
        #[arg(long, value_name = "FILE")]
        replay: Option<String>,
        /// Let browser pages from this origin call the agents (repeatable; `*` for any). Pages
        /// served from localhost / 127.0.0.1 always may.
        #[arg(long = "cors-origin", value_name = "ORIGIN")]
        cors_origins: Vec<String>,
        /// Serve an agent backed by this model of an OpenAI-compatible server instead of the
        /// demo agent; the key is read from OPENAI_API_KEY.
        #[arg(long, value_name = "NAME")]
        model: Option<String>,
        /// The model server's base URL (Ollama: http://127.0.0.1:11434/v1).
        #[arg(long, value_name = "URL", default_value = serve::DEFAULT_BASE_URL, requires = "model")]
        base_url: String,
        /// Give the model agent the tools of the MCP server this command line starts (split on
        /// whitespace; stdio; repeatable).
        #[arg(long = "mcp", value_name = "'COMMAND ARGS…'", requires = "model")]
        mcp: Vec<String>,
        /// Give the model agent the tools of the MCP server at this streamable HTTP URL
        /// (repeatable).
        #[arg(long = "mcp-url", value_name = "URL", requires = "model")]
        mcp_urls: Vec<String>,
        /// Join consecutive text, tool-argument and reasoning deltas of one message that arrive
        /// within this many milliseconds into one event (0: only those ready at once).
        #[arg(long, value_name = "MS")]
        coalesce_ms: Option<u64>,
        /// Make runs resumable: every event is logged and numbered, a run outlives its
        /// connection, and GET on the endpoint reconnects (Last-Event-ID). The log is in memory
        /// unless --redis is given.
        #[arg(long)]
        resumable: bool,
        /// Keep the event log on Redis (redis://HOST:PORT), so that several servers sharing it
        /// serve each other's runs.
        #[arg(long, value_name = "URL", requires = "resumable")]
        redis: Option<String>,
        /// The oldest @ag-ui/client the deployment serves, when all its pre-1.0 clients are
        /// known to be at least this release (they send no protocolVersion, so the server
        /// cannot tell): from 0.0.52 on their stream keeps reasoning as REASONING_* (what
        /// @copilotkit/runtime 1.75, on 0.0.59, shows), where any older client would fail;
        /// 1.0.0: no downgrade at all.
        #[arg(long, value_name = "VERSION")]
        old_clients: Option<ag_ui::server::downgrade::ClientVersion>,
        /// `json`: one JSON line per finished run on stderr (thread, run, outcome, events,
        /// bytes, trace id, duration) instead of text lines.
        #[arg(long, value_enum, default_value = "text")]
        log_format: runlog::LogFormat,
    },
    /// Run one turn against any AG-UI endpoint and show it live.
    Run {
        /// The endpoint (POST).
        url: String,
        /// The user's message.
        message: Option<String>,
        /// The starting state, as JSON.
        #[arg(long)]
        state: Option<String>,
        /// An extra request header, NAME:VALUE (repeatable).
        #[arg(long = "header", value_name = "NAME:VALUE")]
        headers: Vec<String>,
        /// The thread to continue (for example to answer an interrupt).
        #[arg(long)]
        thread: Option<String>,
        /// Answer an interrupt: ID (approve), ID=JSON (that payload) or ID=cancel (repeatable).
        #[arg(long = "resume", value_name = "ID[=JSON]")]
        resume: Vec<String>,
        /// Print the verified events as JSON Lines instead of rendering them.
        #[arg(long)]
        json: bool,
        /// Seconds allowed to connect to the agent.
        #[arg(long, value_name = "SECS", default_value = "10")]
        connect_timeout: String,
        /// Seconds the agent may send nothing (before the response headers, and between any
        /// two pieces of the stream; keep-alive comments count).
        #[arg(long, value_name = "SECS", default_value = "60")]
        idle_timeout: String,
        /// Seconds the whole run may take, reconnects included (no limit by default;
        /// keep-alive comments do not extend it).
        #[arg(long, value_name = "SECS")]
        timeout: Option<String>,
        /// Ask for the binary transport (protobuf frames) instead of SSE; an agent that cannot
        /// serve it answers SSE, which is read as well.
        #[arg(long)]
        proto: bool,
        /// The agent speaks this older AG-UI version (an SDK release such as 0.0.57, or a protocol
        /// version such as 1.0): requests are shaped for it and its stream read as the
        /// compatibility shims say (no protocolVersion before 1.0, subagents left out at 0.0.57
        /// or before, content flattened at 0.0.39 or before), each change a warning.
        #[arg(long, value_name = "V")]
        peer_version: Option<String>,
        /// Start from the conversation in FILE: the conformance corpus's `input` (messages,
        /// tools, context, forwardedProps) as JSON, or a whole fixture of the corpus (its input,
        /// and its client.maxProtocolVersion unless --peer-version says otherwise). MESSAGE, if
        /// given, is added after its messages.
        #[arg(long, value_name = "FILE")]
        input: Option<String>,
    },
    /// Serve the demo agent on a free local port and run one turn against it.
    Demo {
        /// The user's message.
        #[arg(default_value = "What is AG-UI?")]
        message: String,
        /// Print the verified events as JSON Lines instead of rendering them.
        #[arg(long)]
        json: bool,
    },
    /// Serve a web page that watches an agent run: timeline, messages, state, subagents,
    /// interrupts; also loads recordings.
    Inspect {
        /// The agent's endpoint; without it, the built-in demo agent runs in-process.
        url: Option<String>,
        /// Address the page is served on.
        #[arg(long, default_value = "127.0.0.1:8300")]
        addr: SocketAddr,
        /// An extra request header for the agent, NAME:VALUE (repeatable).
        #[arg(long = "header", value_name = "NAME:VALUE")]
        headers: Vec<String>,
        /// Milliseconds between the demo agent's streamed words.
        #[arg(long, default_value_t = 30)]
        pace_ms: u64,
        /// The largest recording the page may load, in MiB.
        #[arg(long, default_value_t = 512)]
        max_upload_mb: usize,
    },
    /// Check a stream against every ordering rule of AG-UI 1.0.
    Verify {
        /// A file, `-` for standard input, or an endpoint URL to run once and check.
        input: Option<String>,
        /// The user message sent when INPUT is a URL.
        #[arg(long, default_value = "hello")]
        message: String,
        /// Verify the events' JSON exactly as sent, as the reference verifier alone does:
        /// without expanding chunk events or converting legacy `THINKING_*` events first. The
        /// null and shape rules (`attribution.null`, `subagent.missing-field`, …) are checked
        /// on every event's JSON either way, as violations at their event.
        #[arg(long)]
        raw: bool,
        /// Accept a recording that ends inside a run (by default that is incomplete, exit 1).
        #[arg(long)]
        partial: bool,
    },
    /// Expand *_CHUNK events into explicit START / CONTENT / END events. Events are written in
    /// their schema shape: members the AG-UI 1.0 schema does not describe are dropped.
    Normalize {
        /// A file, or `-` for standard input.
        input: Option<String>,
        /// Write SSE frames instead of JSON Lines.
        #[arg(long)]
        sse: bool,
    },
    /// Rebuild the conversation a client would hold: messages, state, pending interrupts.
    Apply {
        /// A file, or `-` for standard input.
        input: Option<String>,
        /// Apply the events without verifying their order first.
        #[arg(long)]
        no_verify: bool,
    },
    /// Compact a stream for storage: each message's and tool call's deltas joined into one,
    /// state events folded into one snapshot per run boundary under the reducer's limits
    /// (the reference's `compactEvents`, but moving no message: the output builds the same
    /// conversation and verifies). Chunk events are expanded first; written as JSON Lines as
    /// it goes.
    Compact {
        /// A file, or `-` for standard input.
        input: Option<String>,
        /// Compact the events without verifying their order first.
        #[arg(long)]
        no_verify: bool,
    },
    /// Open many concurrent runs against an AG-UI endpoint, each read through the client
    /// pipeline and verifier, and report completed / failed runs, time to first byte and to
    /// first event, events per second and the gaps between events; with --pid (a local
    /// server) also its peak memory, memory per run and CPU time. Exit 1 when any run failed.
    Load {
        /// The endpoint (POST). Redirects are not followed.
        url: String,
        /// How many runs, each on its own connection (needs as many open files: `ulimit -n`).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        runs: u32,
        /// Start the runs evenly over this many seconds (0: all at once).
        #[arg(long, value_name = "SECS", default_value = "0")]
        ramp: String,
        /// The user message of every run.
        #[arg(long, value_name = "TEXT", default_value = "hello")]
        message: String,
        /// Seconds each run may take, connecting included.
        #[arg(long, value_name = "SECS", default_value = "60")]
        timeout: String,
        /// Print one JSON object instead of the text report.
        #[arg(long)]
        json: bool,
        /// The server's process id (on this machine; the URL's host must be loopback): report
        /// its peak resident memory, memory per run above the idle process and CPU time.
        #[arg(long, value_name = "PID")]
        pid: Option<u32>,
    },
    /// Check an AG-UI server or client against the protocol: `conformance server URL` probes an
    /// endpoint (a table, --json or --junit FILE; exit 0 when nothing failed, 1 otherwise);
    /// `conformance client` serves scenario streams with what a correct client ends with.
    Conformance {
        #[command(subcommand)]
        target: conformance::Target,
    },
    /// Re-encode a stream (in schema shape: members the schema does not describe are dropped).
    Convert {
        /// The output encoding.
        #[arg(long, value_enum)]
        to: Encoding,
        /// A file, or `-` for standard input.
        input: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let color = match cli.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let result = match cli.command {
        Command::Serve {
            addr,
            path,
            pace_ms,
            replay,
            cors_origins,
            model,
            base_url,
            mcp,
            mcp_urls,
            coalesce_ms,
            resumable,
            redis,
            old_clients,
            log_format,
        } => {
            runlog::init(log_format, color);
            let extra = serve::Extra {
                replay: replay.as_deref(),
                model: model.as_deref().map(|m| (m, base_url.as_str())),
                mcp: &mcp,
                mcp_urls: &mcp_urls,
                coalesce: coalesce_ms.map(Duration::from_millis),
                resumable: resumable.then_some(redis.as_deref()),
                oldest_client: old_clients,
            };
            runtime().and_then(|rt| {
                rt.block_on(serve::serve(
                    addr,
                    &path,
                    Duration::from_millis(pace_ms),
                    extra,
                    &cors_origins,
                ))
            })
        }
        Command::Run {
            url,
            message,
            state,
            headers,
            thread,
            resume,
            json,
            connect_timeout,
            idle_timeout,
            timeout,
            proto,
            peer_version,
            input,
        } => run_options(RunArgs {
            url,
            message,
            state,
            headers,
            thread,
            resume,
            json,
            color,
            connect_timeout,
            idle_timeout,
            timeout,
            proto,
            peer_version,
            input,
        })
        .and_then(|options| runtime().and_then(|rt| rt.block_on(live::run(options)))),
        Command::Demo { message, json } => {
            runtime().and_then(|rt| rt.block_on(live::demo(message, color, json)))
        }
        Command::Inspect {
            url,
            addr,
            headers,
            pace_ms,
            max_upload_mb,
        } => headers
            .iter()
            .map(|h| flags::parse_header(h))
            .collect::<Result<Vec<_>, _>>()
            .map_err(Failure::Usage)
            .and_then(|headers| {
                let options = inspect::InspectOptions {
                    url,
                    addr,
                    headers,
                    pace: Duration::from_millis(pace_ms),
                    max_upload: max_upload_mb.saturating_mul(1024 * 1024),
                };
                runtime().and_then(|rt| rt.block_on(inspect::inspect(options)))
            }),
        Command::Verify {
            input,
            message,
            raw,
            partial,
        } => match input.as_deref() {
            Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
                runtime().and_then(|rt| rt.block_on(fetch::verify_url(url, &message, raw, partial)))
            }
            path => offline::verify(path, raw, partial),
        }
        .and_then(|line| print_line(&line)),
        Command::Normalize { input, sse } => offline::normalize(
            input.as_deref(),
            if sse { Encoding::Sse } else { Encoding::Jsonl },
        ),
        Command::Apply { input, no_verify } => offline::apply(input.as_deref(), !no_verify)
            .and_then(|value| {
                print_line(&serde_json::to_string_pretty(&value).unwrap_or_default())
            }),
        Command::Compact { input, no_verify } => offline::compact(input.as_deref(), !no_verify),
        Command::Convert { to, input } => offline::convert(input.as_deref(), to),
        Command::Load {
            url,
            runs,
            ramp,
            message,
            timeout,
            json,
            pid,
        } => load_options(&url, runs, &ramp, message, &timeout, json, pid)
            .and_then(|options| runtime().and_then(|rt| rt.block_on(load::load(options)))),
        Command::Conformance { target } => return conformance::main(target, color),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that went away (`ag-ui normalize big.jsonl | head`) is not an error.
        Err(Failure::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(failure) => report(&failure),
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Usage(format!("cannot start the async runtime: {e}")))
}

/// The arguments of `run`, as typed.
struct RunArgs {
    url: String,
    message: Option<String>,
    state: Option<String>,
    headers: Vec<String>,
    thread: Option<String>,
    resume: Vec<String>,
    json: bool,
    color: bool,
    connect_timeout: String,
    idle_timeout: String,
    timeout: Option<String>,
    proto: bool,
    peer_version: Option<String>,
    input: Option<String>,
}

/// Checks the arguments of `run`; every mistake is a usage error (exit 2).
fn run_options(args: RunArgs) -> Result<live::RunOptions, Failure> {
    let url = flags::parse_url(&args.url).map_err(Failure::Usage)?;
    let state = args
        .state
        .map(|s| {
            serde_json::from_str(&s)
                .map_err(|e| Failure::Usage(format!("--state is not JSON: {e}")))
        })
        .transpose()?;
    let headers = args
        .headers
        .iter()
        .map(|h| flags::parse_header(h))
        .collect::<Result<_, _>>()
        .map_err(Failure::Usage)?;
    let resume = args
        .resume
        .iter()
        .map(|r| flags::parse_resume(r))
        .collect::<Result<_, _>>()
        .map_err(Failure::Usage)?;
    let timeout = |flag: &str, value: &str| {
        flags::parse_secs(value).map_err(|e| Failure::Usage(format!("{flag}: {e}")))
    };
    Ok(live::RunOptions {
        url,
        message: args.message,
        state,
        headers,
        thread: args.thread,
        resume,
        json: args.json,
        color: args.color,
        connect_timeout: timeout("--connect-timeout", &args.connect_timeout)?,
        idle_timeout: timeout("--idle-timeout", &args.idle_timeout)?,
        timeout: args
            .timeout
            .as_deref()
            .map(|value| timeout("--timeout", value))
            .transpose()?,
        proto: args.proto,
        peer_version: args
            .peer_version
            .as_deref()
            .map(|v| {
                v.parse()
                    .map_err(|e| Failure::Usage(format!("--peer-version: {e}")))
            })
            .transpose()?,
        input: args
            .input
            .as_deref()
            .map(|path| live::read_input(path).map_err(Failure::Usage))
            .transpose()?,
    })
}

/// Checks the arguments of `load`; every mistake is a usage error (exit 2).
fn load_options(
    url: &str,
    runs: u32,
    ramp: &str,
    message: String,
    timeout: &str,
    json: bool,
    pid: Option<u32>,
) -> Result<load::LoadOptions, Failure> {
    Ok(load::LoadOptions {
        url: load::check_url(url, pid).map_err(Failure::Usage)?,
        runs: runs as usize,
        ramp: load::parse_ramp(ramp).map_err(Failure::Usage)?,
        message,
        timeout: flags::parse_secs(timeout)
            .map_err(|e| Failure::Usage(format!("--timeout: {e}")))?,
        json,
        pid,
    })
}

fn print_line(line: &str) -> Result<(), Failure> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}")?;
    out.flush()?;
    Ok(())
}

fn report(failure: &Failure) -> ExitCode {
    // One line, and nothing from the input reaches the terminal as a control sequence.
    let text = terminal::visible(&failure.to_string(), false).into_owned();
    match failure {
        Failure::Stream { .. } => eprintln!("violation: {text}"),
        Failure::Incomplete(_) => eprintln!("incomplete: {text}"),
        Failure::RunError { .. } => eprintln!("run error: {text}"),
        _ => eprintln!("error: {text}"),
    }
    ExitCode::from(failure.exit_code())
}
