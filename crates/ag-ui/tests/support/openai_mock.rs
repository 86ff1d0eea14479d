//! A mock model provider (axum on 127.0.0.1:0) replaying canned answers: an OpenAI-compatible
//! Chat Completions server (`serve`, and the chunk builders below), or any other provider's
//! route (`serve_at`, with `anthropic_mock.rs`'s Messages API events). Shared by the model
//! bridges' tests and benchmarks: this crate's, and crates/ag-ui-rig's, which include this
//! file by path.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::{Value, json};

/// One canned answer of the mock.
pub enum Reply {
    /// `200`, an SSE body sent in these pieces (split anywhere, even inside a character).
    Sse(Vec<Vec<u8>>),
    /// `200`, these pieces, then nothing ever again; `dropped` fires when the client hangs up.
    Hang(Vec<Vec<u8>>, tokio::sync::oneshot::Sender<()>),
    /// An error status with headers and a body.
    Status(u16, Vec<(&'static str, &'static str)>, String),
}

#[derive(Default)]
pub struct Mock {
    pub replies: Mutex<VecDeque<Reply>>,
    pub requests: Mutex<Vec<(HeaderMap, Value)>>,
}

impl Mock {
    /// A mock that answers with `replies`, in order.
    pub fn new(replies: Vec<Reply>) -> Arc<Self> {
        Arc::new(Self {
            replies: Mutex::new(replies.into()),
            requests: Mutex::default(),
        })
    }
}

/// Fires its sender when dropped, i.e. when the server drops the response body.
struct OnDrop(Option<tokio::sync::oneshot::Sender<()>>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        if let Some(tx) = self.0.take() {
            let _ = tx.send(());
        }
    }
}

async fn completions(State(mock): State<Arc<Mock>>, headers: HeaderMap, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).expect("the request is JSON");
    mock.requests.lock().unwrap().push((headers, body));
    let reply = mock.replies.lock().unwrap().pop_front();
    let sse = |body: Body| {
        Response::builder()
            .header("content-type", "text/event-stream")
            .body(body)
            .unwrap()
    };
    match reply {
        Some(Reply::Sse(pieces)) => sse(Body::from_stream(futures::stream::iter(
            pieces
                .into_iter()
                .map(|p| Ok::<_, std::convert::Infallible>(Bytes::from(p))),
        ))),
        Some(Reply::Hang(pieces, dropped)) => {
            let guard = OnDrop(Some(dropped));
            let stream = futures::stream::iter(pieces)
                .chain(futures::stream::pending())
                .map(move |p| {
                    let _ = &guard;
                    Ok::<_, std::convert::Infallible>(Bytes::from(p))
                });
            sse(Body::from_stream(stream))
        }
        Some(Reply::Status(status, headers, body)) => {
            let mut response =
                (StatusCode::from_u16(status).unwrap(), body.clone()).into_response();
            for (name, value) in headers {
                response.headers_mut().insert(name, value.parse().unwrap());
            }
            response
        }
        None => (StatusCode::INTERNAL_SERVER_ERROR, "no reply left").into_response(),
    }
}

/// Serves `replies` in order on `POST /v1/chat/completions` at 127.0.0.1:0; returns the mock
/// (its recorded requests) and the base URL, `/v1` included.
pub async fn serve(replies: Vec<Reply>) -> (Arc<Mock>, String) {
    let (mock, origin) = serve_at("/v1/chat/completions", replies).await;
    (mock, format!("{origin}/v1"))
}

/// Serves `replies` in order on `POST {path}` at 127.0.0.1:0; returns the mock (its recorded
/// requests) and the server's origin (`http://127.0.0.1:PORT`).
pub async fn serve_at(path: &str, replies: Vec<Reply>) -> (Arc<Mock>, String) {
    let mock = Mock::new(replies);
    let app = router_at(path, Arc::clone(&mock));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (mock, format!("http://{addr}"))
}

/// The mock's router: `mock`'s replies on `POST /v1/chat/completions`, to serve as a test needs.
pub fn router(mock: Arc<Mock>) -> axum::Router {
    router_at("/v1/chat/completions", mock)
}

/// `mock`'s replies on `POST {path}`.
fn router_at(path: &str, mock: Arc<Mock>) -> axum::Router {
    axum::Router::new()
        .route(path, axum::routing::post(completions))
        .with_state(mock)
}

/// An SSE body: one `data:` frame per chunk, then `[DONE]`.
pub fn sse(chunks: &[Value]) -> Vec<Vec<u8>> {
    let mut pieces: Vec<Vec<u8>> = chunks
        .iter()
        .map(|c| format!("data: {c}\n\n").into_bytes())
        .collect();
    pieces.push(b"data: [DONE]\n\n".to_vec());
    pieces
}

pub fn chunk(delta: Value) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "mock-model",
           "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
}

pub fn finish(reason: &str) -> Value {
    json!({"id": "chatcmpl-1", "model": "mock-model",
           "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
}

pub fn usage(prompt: u64, completion: u64) -> Value {
    json!({"id": "chatcmpl-1", "model": "mock-model", "choices": [],
           "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                     "total_tokens": prompt + completion}})
}

/// Reads a run's `events` up to its first text content, cancels the run, waits (5 s at most)
/// for the mock to see the provider's response dropped (`dropped`, the receiving end of a
/// [`Reply::Hang`]), and returns every event the run sent, verified.
pub async fn cancel_at_first_content(
    mut events: ag_ui::server::Events,
    dropped: tokio::sync::oneshot::Receiver<()>,
) -> Vec<ag_ui::Event> {
    let mut seen = Vec::new();
    while let Some(event) = events.next().await {
        let is_content = event.event_type() == ag_ui::EventType::TextMessageContent;
        seen.push(event);
        if is_content {
            break;
        }
    }
    events.cancel_handle().cancel();
    tokio::time::timeout(std::time::Duration::from_secs(5), dropped)
        .await
        .expect("the provider's response was dropped")
        .unwrap();
    seen.extend(events.collect::<Vec<_>>().await);
    ag_ui::verify::verify_all(&seen).unwrap();
    seen
}
