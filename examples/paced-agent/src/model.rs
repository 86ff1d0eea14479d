//! A paced model: an OpenAI-compatible Chat Completions endpoint that answers every request
//! with a stream of `deltas` content chunks, one every `every`, as a hosted model would while
//! the bridge waits. The model side of the bridge's load benchmark (the `paced-model` binary
//! serves it in a process of its own, so its memory is not counted as the bridge's), over
//! HTTP/1.1 or h2c (HTTP/2 with prior knowledge), as the bridge asks.

use std::convert::Infallible;

use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::Response;
use axum::routing::post;

use crate::{Paced, word};

/// The model name the bridge asks for and the chunks carry.
pub const MODEL: &str = "paced";

/// One `chat.completion.chunk` as an SSE frame: a content delta, or the end with `stop`.
fn chunk(content: Option<&str>) -> Bytes {
    let (delta, finish) = match content {
        Some(text) => (
            serde_json::json!({ "role": "assistant", "content": text }),
            serde_json::Value::Null,
        ),
        None => (serde_json::json!({}), serde_json::json!("stop")),
    };
    let chunk = serde_json::json!({
        "id": "chatcmpl-paced",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }],
    });
    Bytes::from(format!("data: {chunk}\n\n"))
}

/// The stream of one answer: `deltas` chunks one every `every`, the `stop` chunk, `[DONE]`.
fn answer(paced: Paced) -> Body {
    let frames = futures::stream::unfold(0, move |i| async move {
        if i < paced.deltas {
            tokio::time::sleep(paced.every).await;
            Some((Ok::<_, Infallible>(chunk(Some(word(i)))), i + 1))
        } else if i == paced.deltas {
            Some((Ok(chunk(None)), i + 1))
        } else if i == paced.deltas + 1 {
            Some((Ok(Bytes::from_static(b"data: [DONE]\n\n")), i + 1))
        } else {
            None
        }
    });
    Body::from_stream(frames)
}

/// The router: `POST /v1/chat/completions` (the request is read and not looked at).
pub fn router(paced: Paced) -> axum::Router {
    axum::Router::new().route(
        "/v1/chat/completions",
        post(move |_request: Bytes| async move {
            Response::builder()
                .header(header::CONTENT_TYPE, "text/event-stream")
                .body(answer(paced))
                .unwrap_or_default()
        }),
    )
}
