//! HTTP/1.1 keep-alive to the model, as the Dojo's mock model (node:http) and most providers'
//! edges do it: a connection a run left idle is taken by the next run, and a server may close
//! an idle connection just as the next request goes out on it (node closes one after five idle
//! seconds). Over a hand-written HTTP/1.1 server, so what it does with each connection is
//! exact.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ag_ui::Event;
use ag_ui::llm::{LlmAgent, LlmErrorKind, OpenAiClient};
use ag_ui::server::Runner;
use futures::StreamExt;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::support::openai_mock::{chunk, finish};
use super::{finished, input};

/// What the server does with a request that arrives on a connection it already answered on.
#[derive(Clone, Copy)]
enum Reused {
    /// Answers it.
    Answer,
    /// Closes the connection without a byte: its idle close crossed the request.
    Close,
    /// Resets the connection (what a close with the request unread in its buffer sends).
    Reset,
}

/// What the server saw: connections accepted, requests read.
#[derive(Default)]
struct Seen {
    connections: AtomicUsize,
    requests: AtomicUsize,
}

/// Reads one request (its head and its `content-length` body); `false` when the connection
/// closed first.
async fn read_request(socket: &mut TcpStream) -> bool {
    let mut buffer = Vec::new();
    let mut byte = [0u8; 1024];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        match socket.read(&mut byte).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => buffer.extend_from_slice(&byte[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .map_or(0, |value| value.trim().parse().unwrap());
    while buffer.len() < head_end + length {
        match socket.read(&mut byte).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => buffer.extend_from_slice(&byte[..n]),
        }
    }
    true
}

/// A streamed answer ("ok", then `[DONE]`), chunked, kept alive, in one write.
fn answer() -> Vec<u8> {
    let body = format!(
        "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        chunk(json!({"content": "ok"})),
        finish("stop")
    );
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: keep-alive\r\n\
         transfer-encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
        body.len()
    )
    .into_bytes()
}

/// An HTTP/1.1 model at 127.0.0.1: every first request of a connection is answered (unless
/// `first` is [`Reused::Close`] too), later ones as `reused` says. Its base URL and what it saw.
async fn model(first: Reused, reused: Reused) -> (String, Arc<Seen>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Seen::default());
    let counted = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counted.connections.fetch_add(1, Ordering::SeqCst);
            let counted = Arc::clone(&counted);
            tokio::spawn(async move {
                let mut answered = false;
                while read_request(&mut socket).await {
                    counted.requests.fetch_add(1, Ordering::SeqCst);
                    match if answered { reused } else { first } {
                        Reused::Answer => {}
                        Reused::Close => return,
                        Reused::Reset => {
                            socket.set_zero_linger().unwrap();
                            return;
                        }
                    }
                    socket.write_all(&answer()).await.unwrap();
                    answered = true;
                }
            });
        }
    });
    (format!("http://{addr}/v1"), seen)
}

/// Runs `runner` once on `input()`.
async fn run_once(runner: &Runner<LlmAgent<()>>) -> Vec<Event> {
    runner.run(input()).unwrap().collect().await
}

#[tokio::test]
async fn back_to_back_runs_share_one_connection() {
    let (base, seen) = model(Reused::Answer, Reused::Answer).await;
    let runner = Runner::new(LlmAgent::<()>::new(OpenAiClient::new(base), "mock-model"));
    for _ in 0..3 {
        let events = run_once(&runner).await;
        assert_eq!(events.last(), Some(&finished(None, None)), "{events:#?}");
    }
    assert_eq!(seen.connections.load(Ordering::SeqCst), 1);
    assert_eq!(seen.requests.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_run_whose_request_meets_the_servers_idle_close_asks_again_on_a_new_connection() {
    for close in [Reused::Close, Reused::Reset] {
        a_run_meets_the_idle_close(close).await;
    }
}

async fn a_run_meets_the_idle_close(close: Reused) {
    let (base, seen) = model(Reused::Answer, close).await;
    let runner = Runner::new(LlmAgent::<()>::new(OpenAiClient::new(base), "mock-model"));
    let first = run_once(&runner).await;
    assert_eq!(first.last(), Some(&finished(None, None)), "{first:#?}");
    // The second run's request goes out on the connection the first left idle, and the
    // server closes it unanswered: the run asks again, on a new connection, and gets its
    // answer rather than an error.
    let second = run_once(&runner).await;
    assert_eq!(second.last(), Some(&finished(None, None)), "{second:#?}");
    assert!(
        second
            .iter()
            .any(|e| matches!(e, Event::TextMessageContent(c) if c.delta == "ok")),
        "{second:#?}"
    );
    assert_eq!(seen.connections.load(Ordering::SeqCst), 2);
    assert_eq!(seen.requests.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_model_that_closes_every_connection_unanswered_is_asked_twice_then_an_error() {
    for close in [Reused::Close, Reused::Reset] {
        let (base, seen) = model(close, close).await;
        let client = OpenAiClient::new(base);
        let request = ag_ui::llm::wire::ChatRequest::new("mock-model", Vec::new());
        let error = client.stream(&request).await.unwrap_err();
        assert_eq!(error.kind(), LlmErrorKind::Connect, "{error}");
        assert!(error.to_string().contains("without answering"), "{error}");
        // Once, then once again on a new connection: no more.
        assert_eq!(seen.requests.load(Ordering::SeqCst), 2);
        assert_eq!(seen.connections.load(Ordering::SeqCst), 2);
    }
}

#[tokio::test]
async fn a_model_nobody_listens_for_is_asked_once() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let client = OpenAiClient::new(format!("http://{addr}/v1"));
    let request = ag_ui::llm::wire::ChatRequest::new("mock-model", Vec::new());
    let error = client.stream(&request).await.unwrap_err();
    assert_eq!(error.kind(), LlmErrorKind::Connect, "{error}");
    assert!(
        error.to_string().contains("could not be reached"),
        "{error}"
    );
}
