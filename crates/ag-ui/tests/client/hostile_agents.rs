//! `HttpAgent` against agents that try to make it wait: a `retry:` of an hour, a redirect loop,
//! an empty `200`. Each fails (or carries on) promptly, over a real socket.
#![cfg(feature = "http")]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ag_ui::client::ReconnectPolicy;
use ag_ui::client::{
    Body, HttpAgent, Piece, Timeout, Transport, TransportError, TransportErrorKind,
};
use ag_ui::{Event, RunAgentInput};
use tokio::io::AsyncWriteExt;

use crate::support::scripted::{SSE_HEADERS, Server, response, server};

/// One SSE frame of a resumable stream: `id: r:<seq>`.
fn frame(seq: u64, event: &Event) -> String {
    format!(
        "id: r:{seq}\ndata: {}\n\n",
        serde_json::to_string(event).unwrap()
    )
}

/// A resumable agent that asks for a reconnect delay of 54 minutes, then cuts the stream after
/// its first event; the reconnect (`GET`) gets the rest.
async fn slow_retry_agent() -> Server {
    server(|path, mut stream| async move {
        let mut bytes = SSE_HEADERS.to_owned();
        if path.contains("runId=") {
            bytes.push_str(&frame(2, &Event::run_finished("t", "r")));
        } else {
            bytes.push_str("retry: 3240000\n");
            bytes.push_str(&frame(1, &Event::run_started("t", "r")));
        }
        let _ = stream.write_all(bytes.as_bytes()).await;
    })
    .await
}

/// Reads the whole body of a run, or its error; fails the test after 5 s.
async fn read_all(agent: &HttpAgent) -> Result<String, TransportError> {
    let input = RunAgentInput::new("t", "r");
    tokio::time::timeout(Duration::from_secs(5), async {
        let mut body = agent.open(&input).await?;
        let mut text = String::new();
        while let Some(piece) = body.next().await? {
            match piece {
                Piece::Bytes(bytes) => text.push_str(&String::from_utf8_lossy(&bytes)),
                Piece::Frame(data) => text.push_str(&data),
                other => panic!("{other:?}"),
            }
        }
        Ok(text)
    })
    .await
    .expect("the run hung")
}

#[tokio::test]
async fn a_servers_retry_is_capped() {
    let server = slow_retry_agent().await;
    let delays = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&delays);
    let agent = HttpAgent::new(server.url("/"))
        .with_reconnect(ReconnectPolicy::default().with_max_retry(Duration::from_millis(50)))
        .with_on_reconnect(move |r| seen.lock().unwrap().push(r.delay));
    let started = Instant::now();
    let text = read_all(&agent).await.unwrap();
    assert!(text.contains("RUN_FINISHED"), "{text}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let delays = delays.lock().unwrap();
    assert_eq!(delays.len(), 1);
    assert!(delays[0] <= Duration::from_millis(50), "{delays:?}");
}

#[tokio::test]
async fn a_reconnect_wait_longer_than_the_idle_timeout_is_an_idle_timeout() {
    let server = slow_retry_agent().await;
    // The default cap (30 s) is above the idle timeout: the wait is not made.
    let agent = HttpAgent::new(server.url("/")).with_idle_timeout(Duration::from_millis(200));
    let started = Instant::now();
    let err = read_all(&agent).await.unwrap_err();
    assert!(
        matches!(err.timeout(), Some(Timeout::Idle(d)) if d == Duration::from_millis(200)),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_redirect_loop_fails_at_once() {
    let mut server = server(|_, mut stream| async move {
        let answer = response("307 Temporary Redirect", &["location: /loop"], b"");
        let _ = stream.write_all(&answer).await;
    })
    .await;
    let agent = HttpAgent::new(server.url("/"));
    let started = Instant::now();
    let err = read_all(&agent).await.unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(err.kind(), TransportErrorKind::Redirect, "{err}");
    assert!(
        err.redirects() == Some(10) && err.location().is_some_and(|l| l.ends_with("/loop")),
        "{err}"
    );
    assert!(err.to_string().contains("more than 10 times"), "{err}");
    // The redirects of one request, not retried as a resumable stream.
    assert!(server.received().len() <= 12);
}

#[tokio::test]
async fn an_empty_event_stream_fails_at_once() {
    let mut server = server(|_, mut stream| async move {
        let answer = response("200 OK", &["content-type: text/event-stream"], b"");
        let _ = stream.write_all(&answer).await;
    })
    .await;
    let agent = HttpAgent::new(server.url("/"));
    let started = Instant::now();
    let err = read_all(&agent).await.unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(err.kind(), TransportErrorKind::NotAgUi, "{err}");
    assert!(err.is_empty_body() && err.status() == Some(200), "{err}");
    assert_eq!(
        err.to_string(),
        "the response is not an AG-UI event stream: HTTP 200 with an empty body"
    );
    assert_eq!(server.received().len(), 1);
}

/// An SSE id persists across frames: frames after an id that set none of their own are passed
/// on (they were taken for replays of the id's event and dropped), and the id, a megabyte long
/// here, is read once when set, not once per frame that follows it.
#[tokio::test]
async fn frames_that_set_no_id_are_passed_on_and_a_long_id_is_read_once() {
    let run = "r".repeat(1 << 20);
    let mut bytes = format!(
        "{SSE_HEADERS}id: {run}:1\ndata: {}\n\n",
        serde_json::to_string(&Event::run_started("t", "r")).unwrap()
    );
    for i in 0..200 {
        let event = Event::custom("tick", serde_json::json!(i));
        bytes.push_str(&format!(
            "data: {}\n\n",
            serde_json::to_string(&event).unwrap()
        ));
    }
    bytes.push_str(&format!(
        "id: {run}:2\ndata: {}\n\n",
        serde_json::to_string(&Event::run_finished("t", "r")).unwrap()
    ));
    let mut server = server(move |_, mut stream| {
        let bytes = bytes.clone();
        async move {
            let _ = stream.write_all(bytes.as_bytes()).await;
        }
    })
    .await;
    let agent = HttpAgent::new(server.url("/"));
    let text = read_all(&agent).await.unwrap();
    assert_eq!(text.matches("\"tick\"").count(), 200);
    assert!(
        text.ends_with(r#""type":"RUN_FINISHED","threadId":"t","runId":"r"}"#),
        "…{}",
        &text[text.len() - 80..]
    );
    assert_eq!(server.received().len(), 1);
}
