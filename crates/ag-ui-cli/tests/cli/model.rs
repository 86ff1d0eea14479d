//! `ag-ui serve --model` as a process, against a mock OpenAI-compatible server: the key comes
//! from `OPENAI_API_KEY`, the model's stream reaches `ag-ui run` as verified events, and a
//! provider failure reaches it as `RUN_ERROR`.

use std::process::Command;
use std::sync::{Arc, Mutex};

use ag_ui::Event;
use axum::http::HeaderMap;

use crate::{Server, serve_command};

/// A mock model on a free port answering every request with `body` (status 200) or with a 500;
/// records the `authorization` header of each request.
fn mock_model(ok: bool) -> (String, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        axum::routing::post(move |headers: HeaderMap| {
            let record = Arc::clone(&record);
            async move {
                let auth = headers
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                record.lock().unwrap().push(auth);
                if !ok {
                    return axum::response::Response::builder()
                        .status(500)
                        .body(axum::body::Body::from(r#"{"error":{"message":"model crashed"}}"#))
                        .unwrap();
                }
                let body = concat!(
                    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello from \"}}]}\n\n",
                    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"the model.\"},\"finish_reason\":\"stop\"}]}\n\n",
                    "data: [DONE]\n\n"
                );
                axum::response::Response::builder()
                    .header("content-type", "text/event-stream")
                    .body(axum::body::Body::from(body))
                    .unwrap()
            }
        }),
    );
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    let addr = rx.recv().unwrap();
    (format!("http://{addr}/v1"), seen)
}

fn serve_model(base_url: &str) -> Server {
    let mut command = serve_command(&[
        "--model",
        "mock-model",
        "--base-url",
        base_url,
        "--path",
        "/agent",
    ]);
    command.env("OPENAI_API_KEY", "test-key");
    let server = Server::start(command);
    assert!(
        server.banner[0].starts_with("ag-ui model agent (mock-model at "),
        "{:?}",
        server.banner
    );
    server
}

/// `ag-ui run URL Hi --json`: its exit code and the events it printed.
pub(crate) fn run_json(url: &str) -> (Option<i32>, Vec<Event>) {
    let out = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args(["run", url, "Hi", "--json"])
        .output()
        .unwrap();
    let events = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| Event::from_json(l).unwrap())
        .collect();
    (out.status.code(), events)
}

#[test]
fn serve_model_streams_the_models_answer_with_the_key_from_the_environment() {
    let (base_url, seen) = mock_model(true);
    let server = serve_model(&base_url);
    let (code, events) = run_json(&server.base);
    assert_eq!(code, Some(0));
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            Event::TextMessageContent(c) => Some(c.delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "Hello from the model.");
    assert!(matches!(events.last(), Some(Event::RunFinished(_))));
    assert_eq!(*seen.lock().unwrap(), ["Bearer test-key"]);
}

#[test]
fn a_provider_failure_reaches_the_client_as_run_error() {
    let (base_url, _) = mock_model(false);
    let server = serve_model(&base_url);
    let (code, events) = run_json(&server.base);
    // The agent's own RUN_ERROR: exit 3, not the 1 of a broken stream.
    assert_eq!(code, Some(3));
    let Some(Event::RunError(error)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(error.code.as_deref(), Some("provider_http_error"));
    assert!(error.message.contains("model crashed"), "{}", error.message);
}

/// A plain `GET` over a fresh connection; the body of the answer.
fn get(url: &str) -> String {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let mut socket = std::net::TcpStream::connect(host).unwrap();
    write!(
        socket,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    socket.read_to_string(&mut answer).unwrap();
    answer
}

#[test]
fn the_model_agent_is_hosted_in_the_registry_beside_the_demo() {
    let (base_url, _) = mock_model(true);
    let server = serve_model(&base_url);
    let root = server.base.strip_suffix("/agent").unwrap();
    let listing = get(&format!("{root}/agents"));
    assert!(listing.contains("\"id\":\"model\""), "{listing}");
    assert!(listing.contains("\"id\":\"demo\""), "{listing}");
    let (code, events) = run_json(&format!("{root}/agents/model"));
    assert_eq!(code, Some(0));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::TextMessageContent(c) if c.delta.contains("Hello")))
    );
}
