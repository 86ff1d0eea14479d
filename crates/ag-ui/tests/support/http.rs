//! Serving a router on 127.0.0.1 and reading its answers: the helpers of the endpoint and
//! resume tests.

use std::net::SocketAddr;

use axum::Router;
use serde_json::Value;

/// Serves `app` on a free port of 127.0.0.1 (with `axum::serve`) and returns the address.
pub async fn spawn(app: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// [`spawn`], returning the base URL (`http://127.0.0.1:<port>`).
pub async fn spawn_url(app: Router) -> String {
    format!("http://{}", spawn(app).await)
}

/// A `RunAgentInput` of run `run`, no messages, protocol 1.0.
pub fn input_json(run: &str) -> String {
    format!(r#"{{"threadId":"t","runId":"{run}","messages":[],"protocolVersion":"1.0"}}"#)
}

/// `POST`s `body` as JSON to `http://{addr}{path}`.
pub async fn post_json(
    addr: SocketAddr,
    path: &str,
    body: impl Into<reqwest::Body>,
) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("http://{addr}{path}"))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap()
}

/// `(id, data)` of each frame of an SSE text.
pub fn frames(text: &str) -> Vec<(String, String)> {
    text.split("\n\n")
        .filter(|f| f.contains("data: "))
        .map(|frame| {
            let mut id = String::new();
            let mut data = String::new();
            for line in frame.lines() {
                if let Some(v) = line.strip_prefix("id: ") {
                    id = v.to_owned();
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data = v.to_owned();
                }
            }
            (id, data)
        })
        .collect()
}

/// Asserts `response` is a JSON error of `status` and `kind` with a message; returns the body.
pub async fn json_error(response: reqwest::Response, status: u16, kind: &str) -> Value {
    assert_eq!(response.status(), status);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "application/json"
    );
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(body["error"]["kind"], kind, "{body}");
    assert!(body["error"]["message"].as_str().unwrap().len() > 5);
    body
}

/// The text of `GET http://{addr}{path_and_query}`, which must answer `200`.
pub async fn get_text(addr: SocketAddr, path_and_query: &str) -> String {
    let response = reqwest::get(format!("http://{addr}{path_and_query}"))
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{path_and_query}");
    response.text().await.unwrap()
}

/// Serves `app` on a free port of 127.0.0.1 over HTTP/1.1 and HTTP/2 (h2c with prior
/// knowledge), letting at most `max_streams` streams open on each HTTP/2 connection
/// (`SETTINGS_MAX_CONCURRENT_STREAMS`); returns the base URL and the count of connections
/// accepted so far.
pub async fn spawn_counted(
    app: Router,
    max_streams: u32,
) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use hyper_util::rt::{TokioExecutor, TokioIo};
    use hyper_util::server::conn::auto::Builder;
    use hyper_util::service::TowerToHyperService;

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = std::sync::Arc::clone(&accepted);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let service = TowerToHyperService::new(app.clone());
            tokio::spawn(async move {
                let mut builder = Builder::new(TokioExecutor::new());
                builder.http2().max_concurrent_streams(max_streams);
                let _ = builder
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (format!("http://{addr}"), accepted)
}
