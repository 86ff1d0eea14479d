//! Backpressure end to end over 127.0.0.1: a raw TCP client reading 10 KB/s while an agent
//! streams a multi-megabyte message as fast as it can (taking `ready().await` between deltas)
//! holds the run's backlog under its configured bound, and then gets a complete, valid stream;
//! an agent that never waits hits the hard cap and the stream ends with `RUN_ERROR` naming it.
#![cfg(feature = "axum")]

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use ag_ui::axum::{AgentEndpoint, EventStream, RouterExt, RunHandler, StartError};
use ag_ui::encoding::sse;
use ag_ui::server::{Agent, Backpressure, Events, Outcome, Result, RunContext, Runner};
use ag_ui::verify::Verifier;
use ag_ui::{Event, RunAgentInput};
use futures::Stream;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const HIGH_WATER: usize = 64 * 1024;
const HARD_CAP: usize = 512 * 1024;
const DELTA: usize = 4096;

/// Streams `total` bytes of text in `DELTA`-byte deltas, as fast as the run allows.
struct Streamer {
    total: usize,
    emitted: Arc<AtomicUsize>,
    /// Whether to take `ready().await` between deltas.
    wait: bool,
}

impl Agent for Streamer {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        let mut message = ctx.assistant_message()?;
        let chunk = "x".repeat(DELTA);
        for _ in 0..self.total / DELTA {
            if self.wait {
                message.ready().await?;
            }
            message.delta(chunk.as_str())?;
            self.emitted.fetch_add(DELTA, Ordering::SeqCst);
        }
        message.end()?;
        Ok(Outcome::success())
    }
}

/// The runner's event stream, recording its peak backlog where the test can read it.
struct Observed {
    events: Events,
    peak: Arc<AtomicUsize>,
}

impl Stream for Observed {
    type Item = Event;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        let next = Pin::new(&mut self.events).poll_next(cx);
        let peak = self.events.peak_backlog_bytes();
        self.peak.fetch_max(peak, Ordering::SeqCst);
        next
    }
}

struct Observe {
    runner: Runner<Streamer>,
    peak: Arc<AtomicUsize>,
}

impl RunHandler for Observe {
    fn run(&self, input: RunAgentInput) -> std::result::Result<EventStream, StartError> {
        let events = self
            .runner
            .run(input)
            .map_err(|e| StartError::new(e.to_string()))?;
        Ok(Box::pin(Observed {
            events,
            peak: Arc::clone(&self.peak),
        }))
    }
}

async fn start(agent: Streamer, peak: Arc<AtomicUsize>) -> SocketAddr {
    let runner = Runner::new(agent).with_backpressure(
        Backpressure::default()
            .with_high_water(HIGH_WATER)
            .with_hard_cap(HARD_CAP),
    );
    let app = axum::Router::new().agent("/", AgentEndpoint::new(Observe { runner, peak }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// Connects with a small receive buffer (so the kernel does not soak up the stream) and sends
/// the request.
async fn request(addr: SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(8 * 1024).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    let body = r#"{"threadId":"t","runId":"r","messages":[]}"#;
    let head = format!(
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream
}

/// The body of a chunked HTTP/1.1 response.
fn dechunk(response: &[u8]) -> Vec<u8> {
    let start = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head")
        + 4;
    let head = String::from_utf8_lossy(&response[..start]).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("transfer-encoding: chunked"), "{head}");
    let mut rest = &response[start..];
    let mut body = Vec::new();
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n").unwrap();
        let size =
            usize::from_str_radix(std::str::from_utf8(&rest[..line_end]).unwrap(), 16).unwrap();
        rest = &rest[line_end + 2..];
        if size == 0 {
            break;
        }
        body.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
    body
}

fn verified(body: &[u8]) -> Vec<Event> {
    let events = sse::decode(body).expect("valid SSE");
    let mut verifier = Verifier::new();
    for (i, event) in events.iter().enumerate() {
        verifier
            .check(event)
            .unwrap_or_else(|v| panic!("event {i}: {v}"));
    }
    events
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_at_10_kb_per_second_keeps_the_backlog_under_its_bound() {
    const TOTAL: usize = 16 * 1024 * 1024;
    let emitted = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let addr = start(
        Streamer {
            total: TOTAL,
            emitted: Arc::clone(&emitted),
            wait: true,
        },
        Arc::clone(&peak),
    )
    .await;
    let mut stream = request(addr).await;

    // Two seconds at 10 KB/s: 1 KiB every 100 ms.
    let mut response = Vec::new();
    let mut buf = vec![0u8; 1024];
    for _ in 0..20 {
        let n = stream.read(&mut buf).await.unwrap();
        assert!(n > 0, "the stream ended early");
        response.extend_from_slice(&buf[..n]);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let bound = HIGH_WATER + DELTA + 1024;
    let held_back = emitted.load(Ordering::SeqCst);
    assert!(
        peak.load(Ordering::SeqCst) <= bound,
        "backlog peaked at {} bytes, over {bound}",
        peak.load(Ordering::SeqCst)
    );
    // What the agent emitted and the reader did not take sits in the kernel's socket buffers
    // (up to a few MB on loopback, `tcp_wmem`) and hyper's write buffer, not in the run's
    // queue; without backpressure the agent would have emitted everything by now.
    assert!(
        held_back < TOTAL / 2,
        "the agent emitted {held_back} of {TOTAL} bytes for a reader that took {}",
        response.len()
    );

    // Now read at full speed: the whole stream arrives, valid.
    tokio::time::timeout(Duration::from_secs(60), stream.read_to_end(&mut response))
        .await
        .expect("the stream completes")
        .unwrap();
    let events = verified(&dechunk(&response));
    let text: usize = events
        .iter()
        .map(|e| match e {
            Event::TextMessageContent(c) => c.delta.len(),
            _ => 0,
        })
        .sum();
    assert_eq!(text, TOTAL);
    assert!(matches!(events.last(), Some(Event::RunFinished(_))));
    assert!(peak.load(Ordering::SeqCst) <= bound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_never_waits_hits_the_hard_cap_and_the_stream_ends_with_run_error() {
    let emitted = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let addr = start(
        Streamer {
            total: 64 * 1024 * 1024,
            emitted: Arc::clone(&emitted),
            wait: false,
        },
        Arc::clone(&peak),
    )
    .await;
    let mut stream = request(addr).await;
    // A stalled reader.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(60), stream.read_to_end(&mut response))
        .await
        .expect("the stream ends")
        .unwrap();
    let events = verified(&dechunk(&response));
    let Some(Event::RunError(error)) = events.last() else {
        panic!("the stream did not end with RUN_ERROR: {:?}", events.last())
    };
    assert_eq!(error.code.as_deref(), Some("backpressure"));
    assert!(
        error.message.contains(&HARD_CAP.to_string()),
        "{}",
        error.message
    );
    assert!(peak.load(Ordering::SeqCst) <= HARD_CAP);
    assert!(emitted.load(Ordering::SeqCst) < 64 * 1024 * 1024);
}
