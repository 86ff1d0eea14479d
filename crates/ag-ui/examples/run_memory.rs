//! Where the heap of a waiting run goes: N runs of an agent that has streamed its first delta
//! and waits (as on its model), served by `ag_ui::axum::serve` (or with `plain`, by
//! `axum::serve`) over loopback, counted with dhat.
//!
//! Prints the heap bytes and blocks per waiting run above the idle server (the clients' own
//! sockets measured apart and taken off), and writes `dhat-heap.json` (the allocation sites at
//! the peak, which is when every run waits: open it in dhat's viewer, or sort its program
//! points by `tgb`).
//!
//! ```text
//! cargo run --release -p ag-ui --features axum --example run_memory -- 1000
//! cargo run --release -p ag-ui --features axum --example run_memory -- 1000 resumable
//! cargo run --release -p ag-ui --features axum,openai --example run_memory -- 1000 model
//! cargo run --release -p ag-ui --features axum,openai --example run_memory -- 1000 model-http1
//! cargo run --release -p ag-ui --features axum --example run_memory -- 1000 plain
//! ```
//!
//! With `resumable`, the endpoint keeps its runs in a `MemoryLog` (room for every run): the
//! bytes per run then include what the log holds of each run (its first events), which the
//! output names apart. With `model`, the agent is the model bridge (`LlmAgent`) waiting on a
//! model in the same process that streamed its first chunk, asked over h2c (a hundred runs a
//! connection; `model-http1`: over HTTP/1.1, a connection a run): the bytes per run then
//! include the model server's side of each stream or connection (the load benchmark measures
//! the bridge alone, with the model in a process of its own); `dhat-heap.json` tells the two
//! apart by their stacks (`ag_ui::llm`, `reqwest` and hyper's client for the bridge). With
//! `plain` (after the mode, or alone), the endpoint is served by plain `axum::serve`, as most
//! axum applications are.

use std::time::Duration;

use ag_ui::axum::{AgentEndpoint, RouterExt, ServeConfig};
use ag_ui::server::log::{MemoryLog, MemoryLogConfig};
use ag_ui::server::{Agent, Outcome, Result, RunContext};
use ag_ui::{Message, RunAgentInput};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Streams one delta, then waits (a model that has not answered yet), then ends.
struct Waiting;

impl Agent for Waiting {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        let mut message = ctx.assistant_message()?;
        message.delta("Thinking ")?;
        tokio::time::sleep(Duration::from_secs(3600)).await;
        message.delta("done.")?;
        message.end()?;
        Ok(Outcome::success())
    }
}

/// The request a client of `ag-ui load` sends: one user message.
fn request(run: usize) -> Vec<u8> {
    let input = RunAgentInput::new(format!("thread-{run}"), format!("run-{run}"))
        .with_protocol_version(ag_ui::PROTOCOL_VERSION)
        .with_messages(vec![Message::user(format!("user-{run}"), "hello")]);
    let body = serde_json::to_string(&input).expect("the input serializes");
    let mut out = format!(
        "POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n\
         accept: text/event-stream\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// Opens run `run` and reads until its first delta came: the run is then waiting.
async fn open(addr: std::net::SocketAddr, run: usize, buf: &mut Vec<u8>) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.expect("connects");
    stream.write_all(&request(run)).await.expect("sends");
    buf.clear();
    while !buf.windows(9).any(|w| w == b"Thinking ") {
        let mut chunk = [0u8; 1024];
        let n = stream.read(&mut chunk).await.expect("reads");
        assert!(
            n > 0,
            "the run ended early: {}",
            String::from_utf8_lossy(buf)
        );
        buf.extend_from_slice(&chunk[..n]);
    }
    stream
}

/// The model bridge before a model (served here, over HTTP/1.1 and h2c) that streams
/// "Thinking " and then waits; the bridge asks over h2c, or HTTP/1.1 when `http1`.
#[cfg(feature = "openai")]
async fn bridge(http1: bool) -> ag_ui::llm::LlmAgent<()> {
    use ag_ui::llm::HttpVersion;
    use axum::body::{Body, Bytes};
    use futures::StreamExt;

    let first = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":0,\
                 \"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\
                 \"content\":\"Thinking \"},\"finish_reason\":null}]}\n\n";
    let model = axum::Router::new().route(
        "/v1/chat/completions",
        axum::routing::post(move |_request: Bytes| async move {
            let chunks = futures::stream::once(async move {
                Ok::<_, std::convert::Infallible>(Bytes::from_static(first.as_bytes()))
            })
            .chain(futures::stream::pending());
            axum::response::Response::builder()
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(chunks))
                .expect("a response")
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, model).await });
    let version = if http1 {
        HttpVersion::Http1
    } else {
        HttpVersion::Http2
    };
    let connections = ag_ui::llm::Connections::default().with_version(version);
    ag_ui::llm::LlmAgent::new(
        ag_ui::llm::OpenAiClient::new(base).with_connections(connections),
        "m",
    )
}

#[cfg(not(feature = "openai"))]
async fn bridge(_http1: bool) -> Waiting {
    panic!("the model mode needs the openai feature: --features axum,openai");
}

fn heap() -> (u64, u64) {
    let stats = dhat::HeapStats::get();
    (stats.curr_bytes as u64, stats.curr_blocks as u64)
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .map_or(100, |n| n.parse().expect("RUNS is a number"));
    let mode = std::env::args().nth(2).filter(|m| m != "plain");
    let plain = std::env::args().skip(2).any(|a| a == "plain");
    let resumable = mode.as_deref() == Some("resumable");
    let _profiler = dhat::Profiler::new_heap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let log = MemoryLog::new(MemoryLogConfig::default().with_max_runs(runs + 16));
        let app = match mode.as_deref() {
            Some("resumable") => axum::Router::new().agent(
                "/",
                AgentEndpoint::agent(Waiting).with_resumable(log.clone()),
            ),
            Some(model @ ("model" | "model-http1")) => axum::Router::new().agent(
                "/",
                AgentEndpoint::agent(bridge(model == "model-http1").await),
            ),
            _ => axum::Router::new().agent("/", AgentEndpoint::agent(Waiting)),
        };
        if plain {
            tokio::spawn(async move { axum::serve(listener, app).await });
        } else {
            let config = ServeConfig::default().with_max_connections(runs + 16);
            tokio::spawn(ag_ui::axum::serve(
                listener,
                app,
                config,
                std::future::pending(),
            ));
        }

        // What the clients' sockets cost, counted apart: connections a plain listener holds.
        let plain = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let plain_addr = plain.local_addr().unwrap();
        let before = heap();
        let mut held = Vec::with_capacity(runs);
        let mut accepted = Vec::with_capacity(runs);
        for _ in 0..runs {
            held.push(TcpStream::connect(plain_addr).await.unwrap());
            accepted.push(plain.accept().unwrap().0);
        }
        let sockets = heap().0.saturating_sub(before.0);
        drop((held, accepted));

        let mut buf = Vec::with_capacity(64 * 1024);
        // A warm-up run (code paths, the runtime's and the allocator's first blocks).
        drop(open(addr, usize::MAX, &mut buf).await);
        tokio::time::sleep(Duration::from_millis(200)).await;
        let mut clients = Vec::with_capacity(runs);
        let idle = heap();
        for run in 0..runs {
            clients.push(open(addr, run, &mut buf).await);
        }
        // Let every task settle into its wait.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let waiting = heap();
        let per_run = |now: u64, then: u64, less: u64| {
            (now.saturating_sub(then).saturating_sub(less)) as f64 / runs as f64
        };
        println!(
            "{runs} waiting runs: {:.0} heap bytes and {:.1} blocks per run above the idle \
             server (the clients' sockets, {:.0} bytes per run, taken off)",
            per_run(waiting.0, idle.0, sockets),
            per_run(waiting.1, idle.1, 0),
            sockets as f64 / runs as f64,
        );
        if resumable {
            println!(
                "the log holds {:.0} bytes of events per run by its count",
                log.stats().bytes as f64 / runs as f64
            );
        }
        drop(clients);
    });
}
