//! What abandoned runs of a resumable endpoint hold besides their log: N clients each start a
//! run of an agent that streams for ever and leave at its first bytes, against the default
//! bounds (a `MemoryLog` of 256 MiB, `ResumeConfig::default()`, `EndpointLimits::default()`),
//! served by `ag_ui::axum::serve` over loopback and counted with dhat.
//!
//! Prints, a few times while the detached runs go on, the heap above the idle server, what
//! the log counts (events and spare buffers), and the rest: what the detached runs hold
//! besides their log (their inputs, agents, queues, tasks), with what the endpoint counts of
//! it (`AgentEndpoint::detached_stats`). Figures (2026-12-05, debug build, one run): with
//! small inputs the rest is about 0.13 of the log's count, nearly all of it the log's own
//! bookkeeping (a detached run holds about 4 KB besides its log and input); with 60 KB states
//! (400 runs) it was 1,175 MB before `ResumeConfig::max_detached_bytes` and the parsed-input
//! count, and is 64 MB (0.055).
//!
//! ```text
//! cargo run --release -p ag-ui --features axum --example detached_memory -- 1100
//! cargo run --release -p ag-ui --features axum --example detached_memory -- 1100 60000
//! ```
//!
//! The second argument pads each request with a state of that many bytes of JSON (`[0,0,…]`,
//! the shape that takes the most memory per byte of JSON): what a client makes a detached
//! run hold with its input alone.

use std::time::Duration;

use ag_ui::axum::{AgentEndpoint, RouterExt, ServeConfig};
use ag_ui::server::log::MemoryLog;
use ag_ui::server::{Agent, Outcome, Result, RunContext};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Streams a 100-byte delta every 5 ms until cancelled.
struct Endless;

impl Agent for Endless {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        let mut message = ctx.assistant_message()?;
        let word = "x".repeat(100);
        loop {
            message.delta(word.as_str())?;
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

/// The request of run `run`, its state `state_bytes` of `[0,0,…]`.
fn request(run: usize, state_bytes: usize) -> Vec<u8> {
    let mut state = String::with_capacity(state_bytes + 2);
    state.push('[');
    while state.len() + 2 < state_bytes {
        state.push_str("0,");
    }
    state.push('0');
    state.push(']');
    let body = format!(
        r#"{{"threadId":"t","runId":"run-{run}","protocolVersion":"1.0","messages":[{{"id":"m","role":"user","content":"hi"}}],"state":{state}}}"#
    );
    let mut out = format!(
        "POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n\
         accept: text/event-stream\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// Starts run `run`, reads its first bytes and leaves; `false` when it was refused.
async fn abandon(addr: std::net::SocketAddr, run: usize, state_bytes: usize) -> bool {
    let mut stream = TcpStream::connect(addr).await.expect("connects");
    stream
        .write_all(&request(run, state_bytes))
        .await
        .expect("sends");
    let mut head = [0u8; 1024];
    let n = stream.read(&mut head).await.expect("reads");
    head[..n].starts_with(b"HTTP/1.1 200")
}

fn heap() -> u64 {
    dhat::HeapStats::get().curr_bytes as u64
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .map_or(1100, |n| n.parse().expect("RUNS is a number"));
    let state_bytes: usize = std::env::args()
        .nth(2)
        .map_or(0, |n| n.parse().expect("STATE_BYTES is a number"));
    let _profiler = dhat::Profiler::new_heap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let log = MemoryLog::default();
        let endpoint = AgentEndpoint::agent(Endless).with_resumable(log.clone());
        let counted = endpoint.clone();
        let app = axum::Router::new().agent("/", endpoint);
        tokio::spawn(ag_ui::axum::serve(
            listener,
            app,
            ServeConfig::default(),
            std::future::pending(),
        ));
        tokio::time::sleep(Duration::from_millis(100)).await;
        let idle = heap();
        let mut refused = 0;
        for run in 0..runs {
            if !abandon(addr, run, state_bytes).await {
                refused += 1;
            }
        }
        println!("{runs} runs started and abandoned ({refused} refused)");
        for wait in [1, 5, 10, 20] {
            tokio::time::sleep(Duration::from_secs(wait)).await;
            let stats = log.stats();
            let above = heap().saturating_sub(idle);
            let logged = (stats.bytes + stats.spare_bytes) as u64;
            let detached = counted.detached_stats();
            println!(
                "heap above idle {:.1} MB: the log counts {:.1} MB ({} runs), the rest {:.1} MB \
                 ({} runs detached, counted for {:.1} MB)",
                above as f64 / 1e6,
                logged as f64 / 1e6,
                stats.runs,
                above.saturating_sub(logged) as f64 / 1e6,
                detached.runs,
                detached.bytes as f64 / 1e6,
            );
        }
    });
}
