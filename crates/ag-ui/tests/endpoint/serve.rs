//! `ag_ui::axum::serve` against hostile clients over 127.0.0.1: trickled headers are cut off,
//! a normal request is served beside them, a graceful shutdown keeps its bound, oversized
//! heads get `431`, and a trickled body gets a JSON `408`.
#![cfg(feature = "axum")]

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use ag_ui::axum::{AgentEndpoint, EndpointLimits, RouterExt, ServeConfig, serve};
use ag_ui::{Event, RunAgentInput};
use axum::Router;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

fn echo(input: RunAgentInput) -> impl futures::Stream<Item = Event> + Send + 'static {
    futures::stream::iter([
        Event::run_started(input.thread_id.clone(), input.run_id.clone()),
        Event::run_finished(input.thread_id, input.run_id),
    ])
}

fn app() -> Router {
    Router::new().agent(
        "/",
        AgentEndpoint::new(echo)
            .with_limits(EndpointLimits::default().with_body_timeout(Duration::from_millis(300))),
    )
}

/// Starts `serve` with `config`; returns the address, the trigger of its shutdown, and the
/// task (which ends when `serve` returns).
async fn start(
    config: ServeConfig,
) -> (
    SocketAddr,
    oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(serve(listener, app(), config, async move {
        let _ = stopped.await;
    }));
    (addr, stop, task)
}

/// A connection that sends the start of a request head one byte every `every`, for ever (until
/// the server closes it); resolves with how long the server kept it open.
async fn trickle(addr: SocketAddr, every: Duration) -> Duration {
    let start = Instant::now();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = b"POST / HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let mut buf = [0u8; 256];
    for byte in head.iter().cycle() {
        if stream.write_all(&[*byte]).await.is_err() {
            break;
        }
        // The server closing shows as a read of 0 bytes (or an error).
        match tokio::time::timeout(every, stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(_)) => break,
            Err(_) => {}
        }
    }
    start.elapsed()
}

async fn normal_request(addr: SocketAddr) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("http://{addr}/"))
        .header("content-type", "application/json")
        .body(r#"{"threadId":"t","runId":"r","messages":[]}"#)
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_that_trickle_their_headers_are_closed_after_the_header_timeout() {
    let (addr, _stop, _task) =
        start(ServeConfig::default().with_header_timeout(Duration::from_millis(500))).await;
    let held = tokio::time::timeout(
        Duration::from_secs(10),
        trickle(addr, Duration::from_millis(50)),
    )
    .await
    .expect("the server closed the trickling connection");
    assert!(held >= Duration::from_millis(400), "closed after {held:?}");
    assert!(held < Duration::from_secs(3), "closed after {held:?}");
    // A connection that sends nothing at all is closed too.
    let mut idle = TcpStream::connect(addr).await.unwrap();
    let mut buf = [0u8; 16];
    let n = tokio::time::timeout(Duration::from_secs(5), idle.read(&mut buf))
        .await
        .expect("the idle connection was closed")
        .unwrap_or(0);
    assert_eq!(n, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_normal_request_is_served_while_fifty_connections_trickle() {
    let (addr, _stop, _task) =
        start(ServeConfig::default().with_header_timeout(Duration::from_secs(60))).await;
    let slow: Vec<_> = (0..50)
        .map(|_| tokio::spawn(trickle(addr, Duration::from_millis(200))))
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let response = tokio::time::timeout(Duration::from_secs(5), normal_request(addr))
        .await
        .expect("served beside the trickling connections");
    assert_eq!(response.status(), 200);
    let body = response.text().await.unwrap();
    assert!(body.contains("RUN_FINISHED"), "{body}");
    assert!(started.elapsed() < Duration::from_secs(5));
    for task in &slow {
        assert!(
            !task.is_finished(),
            "a trickling connection was closed early"
        );
    }
    for task in slow {
        task.abort();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graceful_shutdown_keeps_its_bound_while_a_connection_trickles() {
    let (addr, stop, task) = start(
        ServeConfig::default()
            .with_header_timeout(Duration::from_secs(60))
            .with_shutdown_timeout(Duration::from_millis(500)),
    )
    .await;
    let slow = tokio::spawn(trickle(addr, Duration::from_millis(100)));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("serve returned within its bound")
        .unwrap()
        .unwrap();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(2), "shutdown took {took:?}");
    // The trickling connection was closed by the shutdown.
    tokio::time::timeout(Duration::from_secs(5), slow)
        .await
        .expect("the trickling connection was closed")
        .unwrap();
    // Nothing listens any more.
    assert!(TcpStream::connect(addr).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_head_is_answered_431_by_hyper_with_an_empty_body() {
    let (addr, _stop, _task) = start(ServeConfig::default().with_max_header_bytes(8192)).await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let big = "b".repeat(20_000);
    let request = format!("POST / HTTP/1.1\r\nHost: x\r\nX-Big: {big}\r\n\r\n");
    let _ = stream.write_all(request.as_bytes()).await;
    let mut reply = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut reply))
        .await
        .unwrap()
        .unwrap();
    let reply = String::from_utf8_lossy(&reply);
    assert!(reply.starts_with("HTTP/1.1 431 "), "{reply}");
    // Documented: hyper answers before any handler runs, without a body.
    assert!(
        reply.contains("content-length: 0\r\n") || reply.ends_with("\r\n\r\n"),
        "{reply}"
    );
    // A head within the limit is served.
    assert_eq!(normal_request(addr).await.status(), 200);
}

/// The status line of the answer to a request head of exactly `bytes` bytes.
async fn status_of_a_head_of(addr: SocketAddr, bytes: usize) -> String {
    let frame = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Pad: \r\n\r\n";
    let pad = "p".repeat(bytes - frame.len());
    let request = format!("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Pad: {pad}\r\n\r\n");
    assert_eq!(request.len(), bytes);
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let _ = stream.write_all(request.as_bytes()).await;
    let mut reply = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut reply))
        .await
        .unwrap()
        .unwrap();
    let reply = String::from_utf8_lossy(&reply);
    reply.lines().next().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_head_cap_is_exactly_the_configured_size() {
    let (addr, _stop, _task) = start(ServeConfig::default()).await;
    let cap = ag_ui::axum::DEFAULT_MAX_HEADER_BYTES;
    // At the cap: served (a GET of an agent endpoint is a JSON 405).
    let at = status_of_a_head_of(addr, cap).await;
    assert!(at.starts_with("HTTP/1.1 405"), "{at}");
    // One byte over, and well over (hyper used to take about 114 KB): 431.
    for over in [cap + 1, cap + cap / 2] {
        let status = status_of_a_head_of(addr, over).await;
        assert!(status.starts_with("HTTP/1.1 431"), "{over}: {status}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trickled_body_is_answered_with_a_json_408() {
    let (addr, _stop, _task) = start(ServeConfig::default()).await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(
            b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
        )
        .await
        .unwrap();
    let reader = async {
        let mut reply = Vec::new();
        let mut buf = [0u8; 1024];
        loop {
            let n = stream.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                break;
            }
            reply.extend_from_slice(&buf[..n]);
            if let Some(end) = reply.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&reply[..end]).to_ascii_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length: "))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0);
                if reply.len() >= end + 4 + length {
                    break;
                }
            }
        }
        reply
    };
    let reply = tokio::time::timeout(Duration::from_secs(5), reader)
        .await
        .expect("answered before the client finished the body");
    let reply = String::from_utf8(reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 408 "), "{reply}");
    let body: Value = serde_json::from_str(reply.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["error"]["kind"], "body-timeout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_over_the_limit_wait_for_a_free_slot() {
    let (addr, _stop, _task) = start(
        ServeConfig::default()
            .with_max_connections(2)
            .with_header_timeout(Duration::from_secs(60)),
    )
    .await;
    let first = TcpStream::connect(addr).await.unwrap();
    let second = TcpStream::connect(addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Both slots are taken by connections that send nothing: the request waits.
    let request = tokio::spawn(normal_request(addr));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!request.is_finished(), "served past the connection limit");
    drop(first);
    let response = tokio::time::timeout(Duration::from_secs(5), request)
        .await
        .expect("served once a slot was free")
        .unwrap();
    assert_eq!(response.status(), 200);
    drop(second);
}

/// hyper keeps a response's header map for the connection's life (to reuse it): the
/// endpoint's map is sized for the headers it sets, not grown to the default room for six.
#[tokio::test]
async fn the_streaming_response_header_map_holds_no_spare_room() {
    use tower::ServiceExt;
    let input = RunAgentInput::new("t", "r");
    let request = axum::http::Request::post("/")
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(axum::body::Body::from(serde_json::to_vec(&input).unwrap()))
        .unwrap();
    let response = app().oneshot(request).await.unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers();
    assert_eq!(headers.len(), 3, "{headers:?}");
    assert_eq!(headers.capacity(), headers.len());
}
