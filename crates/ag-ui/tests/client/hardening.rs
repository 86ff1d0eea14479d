//! `Conversation` and `HttpAgent` against hostile or broken agents: a run that fails, a
//! response that is not AG-UI, a stream that stops mid-run, servers that stall, redirects to
//! another origin, bad headers and URLs. The servers are scripted on raw TCP sockets on
//! 127.0.0.1, so every byte (and every silence) is the test's.
#![cfg(feature = "http")]

use std::future::Future;
use std::time::Duration;

use ag_ui::Timeouts;
use ag_ui::client::{
    Conversation, HttpAgent, PipelineErrorKind, Replay, RunEnd, RunError, RunErrorKind, Timeout,
    TransportError, TransportErrorKind,
};
use ag_ui::{Event, RunErrorEvent, TextMessageRole, ToolCallStartEvent};
use serde_json::Value;
use tokio::io::AsyncWriteExt;

use crate::support::scripted::{Request, SSE_HEADERS, Server, response, server, sse_of};

fn finished_run(run: &str) -> Vec<u8> {
    sse_of(&[
        Event::run_started("t", run),
        Event::text_message_start("a1", TextMessageRole::Assistant),
        Event::text_message_content("a1", "hi"),
        Event::text_message_end("a1"),
        Event::run_finished("t", run),
    ])
}

/// Runs a conversation once against `agent`, failing the test (instead of hanging) after 10 s.
async fn run_once(agent: &HttpAgent) -> (Conversation, Result<RunEnd, RunError>) {
    let mut conversation = Conversation::new("t");
    conversation.add_user_message("hello");
    let result = tokio::time::timeout(Duration::from_secs(10), conversation.run(agent, &mut ()))
        .await
        .expect("the run hung");
    (conversation, result.map(|s| s.end))
}

fn block_on<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

// ----- outcomes: RUN_ERROR and unterminated runs are errors -----

#[test]
fn run_error_is_an_err_with_its_message_and_code_and_keeps_what_came() {
    let agent = Replay::new(vec![
        Event::run_started("t", "r1"),
        Event::text_message_start("a1", TextMessageRole::Assistant),
        Event::text_message_content("a1", "partial"),
        RunErrorEvent::new("model overloaded")
            .with_code("overloaded")
            .into(),
    ]);
    let mut conversation = Conversation::new("t");
    conversation.add_user_message("hello");
    let err = block_on(conversation.run(&agent, &mut ())).unwrap_err();
    // The agent's failure, not a rejection: the stream was consumed.
    assert_eq!(err.kind(), RunErrorKind::Agent);
    assert_eq!(err.kind().as_str(), "agent.run-error");
    assert!(!err.kind().is_rejection() && err.pipeline().is_none());
    let Some(failure) = err.agent_error() else {
        panic!("{err}")
    };
    assert_eq!(failure.message(), "model overloaded");
    assert_eq!(failure.code(), Some("overloaded"));
    assert_eq!(
        err.to_string(),
        "the run failed: model overloaded (code overloaded)"
    );
    assert_eq!(err.summary().map(|s| s.events), Some(4));
    // What was received is kept.
    assert_eq!(conversation.messages()[1].text(), Some("partial"));
}

#[test]
fn a_run_error_after_a_finished_run_is_delivered_and_ends_the_response() {
    let agent = Replay::new(vec![
        Event::run_started("t", "r1"),
        Event::text_message_start("a1", TextMessageRole::Assistant),
        Event::text_message_content("a1", "kept"),
        Event::text_message_end("a1"),
        Event::run_finished("t", "r1"),
        Event::run_error("late"),
    ]);
    let mut conversation = Conversation::new("t");
    let err = block_on(conversation.run(&agent, &mut ())).unwrap_err();
    assert_eq!(err.kind(), RunErrorKind::Agent);
    let summary = err.summary().unwrap();
    assert_eq!(summary.events, 6);
    assert!(matches!(
        summary.outcome,
        Some(ag_ui::client::RunOutcome::Success { .. })
    ));
    assert_eq!(
        summary.run_error.as_ref().map(|e| e.message()),
        Some("late")
    );
    assert_eq!(conversation.messages()[0].text(), Some("kept"));
}

#[test]
fn a_failed_run_followed_by_a_finished_one_is_a_success() {
    let agent = Replay::new(vec![
        Event::run_started("t", "r1"),
        Event::run_error("first try failed"),
        Event::run_started("t", "r2"),
        Event::run_finished("t", "r2"),
    ]);
    let summary = block_on(Conversation::new("t").run(&agent, &mut ())).unwrap();
    assert_eq!(summary.end, RunEnd::Finished);
    // The first run's failure was delivered and is reported.
    assert_eq!(
        summary.run_error.as_ref().map(|e| e.message()),
        Some("first try failed")
    );
}

#[test]
fn an_unterminated_run_names_what_was_still_open() {
    let agent = Replay::new(vec![
        Event::run_started("t", "r1"),
        Event::step_started("plan"),
        Event::text_message_start("a1", TextMessageRole::Assistant),
        Event::text_message_content("a1", "so far"),
        ToolCallStartEvent::new("c1", "search")
            .with_parent_message_id("a1")
            .into(),
        Event::subagent_started("s1", "researcher"),
    ]);
    let mut conversation = Conversation::new("t");
    let err = block_on(conversation.run(&agent, &mut ())).unwrap_err();
    assert_eq!(
        err.kind(),
        RunErrorKind::Pipeline(PipelineErrorKind::Incomplete)
    );
    let Some((run_id, Some(open))) = err.pipeline().map(|e| (e.run_id(), e.open())) else {
        panic!("{err}")
    };
    assert_eq!(run_id, Some("r1"));
    assert_eq!(open.steps, ["plan"]);
    assert_eq!(open.text_messages, ["a1"]);
    assert_eq!(open.tool_calls, ["c1"]);
    assert_eq!(open.subagents, ["s1"]);
    assert_eq!(
        err.to_string(),
        "the response ended in the middle of run r1 (no RUN_FINISHED or RUN_ERROR); still open: \
         steps plan; text messages a1; tool calls c1; subagents s1"
    );
    assert_eq!(conversation.messages()[0].text(), Some("so far"));

    // Nothing open, but no end either.
    let agent = Replay::new(vec![Event::run_started("t", "r2")]);
    let err = block_on(Conversation::new("t").run(&agent, &mut ())).unwrap_err();
    assert!(
        err.pipeline()
            .is_some_and(|e| e.run_id() == Some("r2") && e.open().is_some_and(|o| o.is_empty())),
        "{err}"
    );
}

#[test]
fn an_empty_response_is_incomplete() {
    let err = block_on(Conversation::new("t").run(&Replay::default(), &mut ())).unwrap_err();
    assert!(
        err.kind() == RunErrorKind::Pipeline(PipelineErrorKind::Incomplete)
            && err.pipeline().is_some_and(|e| e.run_id().is_none()),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "the response ended before any run started (no RUN_STARTED)"
    );
}

// ----- what is sent -----

#[tokio::test]
async fn every_request_carries_protocol_version_and_a_fresh_run_id() {
    let mut server = server(|_, mut stream| async move {
        let mut bytes = SSE_HEADERS.as_bytes().to_vec();
        bytes.extend(finished_run("r"));
        let _ = stream.write_all(&bytes).await;
    })
    .await;
    let agent = HttpAgent::new(server.url("/"));
    let (mut first, result) = run_once(&agent).await;
    result.unwrap();
    first.add_user_message("again");
    first.run(&agent, &mut ()).await.unwrap();
    // A second conversation on the same thread, as `ag-ui run --thread t` in a new process.
    run_once(&agent).await.1.unwrap();
    // An input without a version (`RunAgentInput::new` declares one; this one was cleared),
    // sent through the transport directly, declares one too: a server would otherwise take us for a pre-1.0 client and downgrade the stream.
    let mut bare = ag_ui::RunAgentInput::new("t", "r-bare");
    bare.protocol_version = None;
    let body = ag_ui::client::Transport::open(&agent, &bare).await.unwrap();
    drop(body);
    let bodies: Vec<Value> = server.received().iter().map(Request::json).collect();
    assert_eq!(bodies.len(), 4);
    for body in &bodies {
        assert_eq!(body["protocolVersion"], "1.0", "{body}");
        assert_eq!(body["threadId"], "t");
    }
    let ids: std::collections::HashSet<&str> = bodies
        .iter()
        .map(|b| b["runId"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 4, "{ids:?}");
}

// ----- what comes back: only an event stream is AG-UI -----

#[tokio::test]
async fn a_success_that_is_not_an_event_stream_is_a_typed_error() {
    let server = server(|path, mut stream| async move {
        let bytes = match path.as_str() {
            "/json" => response(
                "200 OK",
                &["content-type: application/json"],
                br#"{"ok":true}"#,
            ),
            "/html" => response(
                "200 OK",
                &["content-type: text/html; charset=utf-8"],
                b"<html>login</html>",
            ),
            "/empty" => response("200 OK", &[], b""),
            "/204" => b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n".to_vec(),
            "/gzip" => response(
                "200 OK",
                &["content-type: text/event-stream", "content-encoding: gzip"],
                b"\x1f\x8b\x08\x00",
            ),
            _ => {
                // Upper case and a parameter: still an event stream.
                let mut bytes =
                    b"HTTP/1.1 200 OK\r\ncontent-type: Text/Event-Stream; charset=UTF-8\r\nconnection: close\r\n\r\n"
                        .to_vec();
                bytes.extend(finished_run("r"));
                bytes
            }
        };
        let _ = stream.write_all(&bytes).await;
    })
    .await;
    // (path, status, content type, content encoding, message)
    type Case = (
        &'static str,
        u16,
        Option<&'static str>,
        Option<&'static str>,
        &'static str,
    );
    let cases: [Case; 5] = [
        (
            "/json",
            200,
            Some("application/json"),
            None,
            "the response is not an AG-UI event stream: HTTP 200, content type \"application/json\"",
        ),
        (
            "/html",
            200,
            Some("text/html; charset=utf-8"),
            None,
            "the response is not an AG-UI event stream: HTTP 200, content type \"text/html; charset=utf-8\"",
        ),
        (
            "/empty",
            200,
            None,
            None,
            "the response is not an AG-UI event stream: HTTP 200, no content type",
        ),
        (
            "/204",
            204,
            None,
            None,
            "the response is not an AG-UI event stream: HTTP 204, no content type",
        ),
        (
            "/gzip",
            200,
            Some("text/event-stream"),
            Some("gzip"),
            "the response is not an AG-UI event stream: HTTP 200, content type \"text/event-stream\" \
             with content encoding \"gzip\"",
        ),
    ];
    for (path, want_status, want_type, want_encoding, text) in cases {
        let (conversation, result) = run_once(&HttpAgent::new(server.url(path))).await;
        let err = result.unwrap_err();
        assert_eq!(
            err.kind(),
            RunErrorKind::Transport(TransportErrorKind::NotAgUi),
            "{path}: {err}"
        );
        let Some(transport) = err.transport() else {
            panic!("{err}")
        };
        assert_eq!(transport.status(), Some(want_status), "{path}");
        assert_eq!(transport.content_type(), want_type, "{path}");
        assert_eq!(transport.content_encoding(), want_encoding, "{path}");
        assert!(!transport.is_empty_body(), "{path}");
        assert_eq!(err.to_string(), text);
        // The conversation is untouched.
        assert_eq!(conversation.messages().len(), 1);
    }
    let (conversation, result) = run_once(&HttpAgent::new(server.url("/sse"))).await;
    assert_eq!(result.unwrap(), RunEnd::Finished);
    assert_eq!(conversation.messages()[1].text(), Some("hi"));
}

#[tokio::test]
async fn an_event_stream_that_stops_mid_run_is_incomplete() {
    let server = server(|_, mut stream| async move {
        let mut bytes = SSE_HEADERS.as_bytes().to_vec();
        bytes.extend(sse_of(&[
            Event::run_started("t", "r1"),
            Event::text_message_start("a1", TextMessageRole::Assistant),
            Event::text_message_content("a1", "cut"),
        ]));
        let _ = stream.write_all(&bytes).await;
    })
    .await;
    let (conversation, result) = run_once(&HttpAgent::new(server.url("/"))).await;
    let err = result.unwrap_err();
    let Some((run_id, Some(open))) = err.pipeline().map(|e| (e.run_id(), e.open())) else {
        panic!("{err}")
    };
    assert_eq!(run_id, Some("r1"));
    assert_eq!(open.text_messages, ["a1"]);
    assert_eq!(conversation.messages()[1].text(), Some("cut"));
}

/// A body cut short in a way HTTP can see (a chunked body without its last chunk, fewer bytes
/// than `content-length`) is a transport error, not the end of the response: the carrier
/// broke, which a reconnecting client must be able to tell from a server that closed the
/// stream in the middle of a run (`Incomplete`, above).
#[tokio::test]
async fn a_body_cut_short_is_a_connection_error_that_keeps_what_came() {
    let events = sse_of(&[
        Event::run_started("t", "r1"),
        Event::text_message_start("a1", TextMessageRole::Assistant),
        Event::text_message_content("a1", "cut"),
    ]);
    let chunked = {
        let mut bytes = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
            transfer-encoding: chunked\r\nconnection: close\r\n\r\n"
            .to_vec();
        bytes.extend(format!("{:x}\r\n", events.len()).into_bytes());
        bytes.extend(&events);
        // No terminating `0` chunk: the connection closes mid-body.
        bytes.extend(b"\r\n");
        bytes
    };
    let short = {
        let mut bytes = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\
             content-length: {}\r\n\r\n",
            events.len() + 100
        )
        .into_bytes();
        bytes.extend(&events);
        bytes
    };
    for (name, reply) in [("chunked", chunked), ("content-length", short)] {
        let server = server(move |_, mut stream| {
            let reply = reply.clone();
            async move {
                let _ = stream.write_all(&reply).await;
                let _ = stream.shutdown().await;
            }
        })
        .await;
        let (conversation, result) = run_once(&HttpAgent::new(server.url("/"))).await;
        let err = result.unwrap_err();
        assert_eq!(
            err.kind(),
            RunErrorKind::Transport(TransportErrorKind::Connection),
            "{name}: {err}"
        );
        assert!(
            err.to_string()
                .starts_with("transport failed: reading the response"),
            "{name}: {err}"
        );
        assert!(
            std::error::Error::source(&err).is_some(),
            "{name}: the cause is kept"
        );
        assert_eq!(conversation.messages()[1].text(), Some("cut"), "{name}");
    }
}

#[tokio::test]
async fn http_errors_show_a_short_sanitized_excerpt() {
    let long_page = format!(
        "<!DOCTYPE html><html><head><title>404 Not Found</title></head><body>{}</body></html>",
        "<p>lots of markup</p>".repeat(2000)
    );
    let server = server(move |path, mut stream| {
        let long_page = long_page.clone();
        async move {
            let bytes = match path.as_str() {
                "/html" => response(
                    "404 Not Found",
                    &["content-type: text/html"],
                    long_page.as_bytes(),
                ),
                "/detail" => response(
                    "501 Not Implemented",
                    &["content-type: application/json"],
                    br#"{"detail":"Method not implemented"}"#,
                ),
                "/nested" => response(
                    "400 Bad Request",
                    &["content-type: application/json"],
                    br#"{"error":{"kind":"invalid-state","message":"state must be an object"}}"#,
                ),
                _ => response(
                    "500 Internal Server Error",
                    &["content-type: text/plain"],
                    format!("\x1b[31mboom\x1b[0m\r\n{}", "x".repeat(500)).as_bytes(),
                ),
            };
            let _ = stream.write_all(&bytes).await;
        }
    })
    .await;
    let shown = |result: Result<RunEnd, RunError>| {
        let err = result.unwrap_err();
        assert_eq!(
            err.kind(),
            RunErrorKind::Transport(TransportErrorKind::Http)
        );
        err.to_string()
    };
    let (_, result) = run_once(&HttpAgent::new(server.url("/html"))).await;
    let err = result.unwrap_err();
    let Some(transport) = err.transport() else {
        panic!("{err}")
    };
    assert_eq!(transport.kind(), TransportErrorKind::Http);
    let (Some(status), Some(body)) = (transport.status(), transport.body()) else {
        panic!("{err}")
    };
    assert_eq!(status, 404);
    assert!(body.len() > 1000, "the body is kept for the caller");
    assert_eq!(err.to_string(), "HTTP 404: 404 Not Found");
    assert_eq!(
        shown(run_once(&HttpAgent::new(server.url("/detail"))).await.1),
        "HTTP 501: Method not implemented"
    );
    assert_eq!(
        shown(run_once(&HttpAgent::new(server.url("/nested"))).await.1),
        "HTTP 400: invalid-state: state must be an object"
    );
    let text = shown(run_once(&HttpAgent::new(server.url("/text"))).await.1);
    assert!(text.starts_with("HTTP 500: [31mboom [0m xxx"), "{text}");
    assert!(!text.contains('\x1b') && !text.contains('\n'), "{text:?}");
    assert!(text.ends_with("x…"), "{text}");
    assert_eq!(text.chars().count(), "HTTP 500: ".len() + 201);
}

// ----- timeouts -----

/// A server that sends `first` and then nothing, holding the connection open.
async fn stalling(first: Vec<u8>) -> Server {
    server(move |_, mut stream| {
        let first = first.clone();
        async move {
            let _ = stream.write_all(&first).await;
            tokio::time::sleep(Duration::from_secs(30)).await;
        }
    })
    .await
}

#[tokio::test]
async fn a_server_that_stalls_before_the_headers_times_out() {
    let server = stalling(Vec::new()).await;
    let agent = HttpAgent::new(server.url("/")).with_idle_timeout(Duration::from_millis(300));
    let started = std::time::Instant::now();
    let err = run_once(&agent).await.1.unwrap_err();
    assert_eq!(
        err.kind(),
        RunErrorKind::Transport(TransportErrorKind::Timeout)
    );
    assert!(
        matches!(err.transport().and_then(TransportError::timeout), Some(Timeout::Headers(d)) if d == Duration::from_millis(300)),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "no response headers within 300ms of sending the request (idle timeout)"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_server_that_stalls_after_the_headers_times_out() {
    let server = stalling(SSE_HEADERS.as_bytes().to_vec()).await;
    let agent = HttpAgent::new(server.url("/")).with_idle_timeout(Duration::from_millis(300));
    let err = run_once(&agent).await.1.unwrap_err();
    assert!(
        matches!(err.transport().and_then(TransportError::timeout), Some(Timeout::Idle(d)) if d == Duration::from_millis(300)),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "the agent sent nothing for 300ms (idle timeout)"
    );
}

#[tokio::test]
async fn a_server_that_stalls_after_run_started_times_out_and_keeps_what_came() {
    let mut first = SSE_HEADERS.as_bytes().to_vec();
    first.extend(sse_of(&[
        Event::run_started("t", "r1"),
        Event::text_message_start("a1", TextMessageRole::Assistant),
        Event::text_message_content("a1", "thinking"),
    ]));
    let server = stalling(first).await;
    let agent = HttpAgent::new(server.url("/")).with_idle_timeout(Duration::from_millis(300));
    let (conversation, result) = run_once(&agent).await;
    assert!(
        matches!(
            result
                .as_ref()
                .map_err(|e| e.transport().and_then(TransportError::timeout)),
            Err(Some(Timeout::Idle(_)))
        ),
        "{result:?}"
    );
    assert_eq!(conversation.messages()[1].text(), Some("thinking"));
}

#[tokio::test]
async fn keep_alive_comments_reset_the_idle_timer() {
    let server = server(|_, mut stream| async move {
        let _ = stream.write_all(SSE_HEADERS.as_bytes()).await;
        let _ = stream
            .write_all(&sse_of(&[Event::run_started("t", "r1")]))
            .await;
        // 1.2 s of silence but for a comment every 100 ms: longer than the idle timeout.
        for _ in 0..12 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let _ = stream.write_all(b": keep-alive\n\n").await;
        }
        let _ = stream
            .write_all(&sse_of(&[Event::run_finished("t", "r1")]))
            .await;
    })
    .await;
    let agent = HttpAgent::new(server.url("/")).with_idle_timeout(Duration::from_millis(400));
    assert_eq!(run_once(&agent).await.1.unwrap(), RunEnd::Finished);
}

#[tokio::test]
async fn the_total_timeout_names_itself() {
    let server = server(|_, mut stream| async move {
        let _ = stream.write_all(SSE_HEADERS.as_bytes()).await;
        let _ = stream
            .write_all(&sse_of(&[Event::run_started("t", "r1")]))
            .await;
        for _ in 0..50 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let _ = stream.write_all(b": keep-alive\n\n").await;
        }
    })
    .await;
    let agent = HttpAgent::new(server.url("/")).with_timeout(Duration::from_millis(500));
    let err = run_once(&agent).await.1.unwrap_err();
    assert!(
        matches!(err.transport().and_then(TransportError::timeout), Some(Timeout::Total(d)) if d == Duration::from_millis(500)),
        "{err}"
    );
}

/// The time-outs set together as a struct reach where they act, as the shortcuts do.
#[tokio::test]
async fn timeouts_set_as_a_struct_fire() {
    let stalled = stalling(SSE_HEADERS.as_bytes().to_vec()).await;
    let idle = HttpAgent::new(stalled.url("/")).with_timeouts(
        Timeouts::default()
            .with_idle(Duration::from_millis(300))
            .with_total(Duration::from_secs(20)),
    );
    let err = run_once(&idle).await.1.unwrap_err();
    assert!(
        matches!(err.transport().and_then(TransportError::timeout), Some(Timeout::Idle(d)) if d == Duration::from_millis(300)),
        "{err}"
    );
    let chatty = server(|_, mut stream| async move {
        let _ = stream.write_all(SSE_HEADERS.as_bytes()).await;
        for _ in 0..50 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let _ = stream.write_all(b": keep-alive\n\n").await;
        }
    })
    .await;
    let total = HttpAgent::new(chatty.url("/")).with_timeouts(
        Timeouts::default()
            .with_idle(Duration::from_secs(20))
            .with_total(Duration::from_millis(500)),
    );
    let err = run_once(&total).await.1.unwrap_err();
    assert!(
        matches!(err.transport().and_then(TransportError::timeout), Some(Timeout::Total(d)) if d == Duration::from_millis(500)),
        "{err}"
    );
    // The shortcuts set one field each: either order ends with the same time-outs.
    let a = HttpAgent::new(chatty.url("/"))
        .with_timeout(Duration::from_millis(500))
        .with_idle_timeout(Duration::from_secs(20));
    let b = HttpAgent::new(chatty.url("/"))
        .with_idle_timeout(Duration::from_secs(20))
        .with_timeout(Duration::from_millis(500));
    assert_eq!(a.timeouts(), total.timeouts());
    assert_eq!(b.timeouts(), total.timeouts());
}

// ----- redirects -----

/// A server that answers every request with `307` to `target`.
async fn redirecting(status: &'static str, target: String) -> Server {
    server(move |_, mut stream| {
        let target = target.clone();
        async move {
            let location = format!("location: {target}");
            let _ = stream.write_all(&response(status, &[&location], b"")).await;
        }
    })
    .await
}

async fn finishing() -> Server {
    server(|_, mut stream| async move {
        let mut bytes = SSE_HEADERS.as_bytes().to_vec();
        bytes.extend(finished_run("r"));
        let _ = stream.write_all(&bytes).await;
    })
    .await
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_not_followed_by_default() {
    let mut other = finishing().await;
    let first = redirecting("307 Temporary Redirect", other.url("/agent")).await;
    let agent = HttpAgent::new(first.url("/"))
        .with_header("x-api-key", "secret-key")
        .with_bearer_token("secret-token");
    let err = run_once(&agent).await.1.unwrap_err();
    assert_eq!(
        err.kind(),
        RunErrorKind::Transport(TransportErrorKind::Redirect)
    );
    assert_eq!(
        err.to_string(),
        format!(
            "HTTP 307: the agent redirected to another origin ({}), which is not followed",
            other.url("/agent")
        )
    );
    assert!(
        other.received().is_empty(),
        "nothing reached the other origin"
    );
}

#[tokio::test]
async fn an_allowed_cross_origin_redirect_carries_no_credentials() {
    let mut other = finishing().await;
    let mut first = redirecting("307 Temporary Redirect", other.url("/agent")).await;
    let agent = HttpAgent::new(first.url("/"))
        .with_header("x-api-key", "secret-key")
        .with_bearer_token("secret-token")
        .with_cross_origin_redirects(true);
    assert_eq!(run_once(&agent).await.1.unwrap(), RunEnd::Finished);
    let sent = first.received();
    assert_eq!(sent[0].header("x-api-key"), Some("secret-key"));
    assert_eq!(sent[0].header("authorization"), Some("Bearer secret-token"));
    let received = other.received();
    assert_eq!(received.len(), 1);
    let request = &received[0];
    assert!(request.head.starts_with("POST /agent "), "{}", request.head);
    assert_eq!(request.header("x-api-key"), None, "{}", request.head);
    assert_eq!(request.header("authorization"), None, "{}", request.head);
    assert_eq!(request.header("referer"), None, "{}", request.head);
    // The run input itself does go there.
    assert_eq!(request.json()["protocolVersion"], "1.0");

    // A 302 would turn the POST into a GET: not followed across origins even when allowed.
    let found = redirecting("302 Found", other.url("/agent")).await;
    let agent = HttpAgent::new(found.url("/")).with_cross_origin_redirects(true);
    assert_eq!(
        run_once(&agent).await.1.unwrap_err().kind(),
        RunErrorKind::Transport(TransportErrorKind::Redirect)
    );
}

#[tokio::test]
async fn a_redirect_within_the_origin_is_followed_with_the_headers() {
    let mut server = server(|path, mut stream| async move {
        let bytes = if path == "/old" {
            response("307 Temporary Redirect", &["location: /new"], b"")
        } else {
            let mut bytes = SSE_HEADERS.as_bytes().to_vec();
            bytes.extend(finished_run("r"));
            bytes
        };
        let _ = stream.write_all(&bytes).await;
    })
    .await;
    let agent = HttpAgent::new(server.url("/old")).with_header("x-api-key", "k");
    assert_eq!(run_once(&agent).await.1.unwrap(), RunEnd::Finished);
    let received = server.received();
    assert_eq!(received.len(), 2);
    assert!(received[1].head.starts_with("POST /new "));
    assert_eq!(received[1].header("x-api-key"), Some("k"));

    // A client that follows nothing itself: the agent follows within the origin.
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let agent = agent.with_client(client);
    assert_eq!(run_once(&agent).await.1.unwrap(), RunEnd::Finished);
    let received = server.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[1].header("x-api-key"), Some("k"));
}

#[tokio::test]
async fn with_redirects_false_follows_none_even_within_the_origin() {
    let mut server = server(|path, mut stream| async move {
        let bytes = if path == "/old" {
            response("307 Temporary Redirect", &["location: /new"], b"")
        } else {
            let mut bytes = SSE_HEADERS.as_bytes().to_vec();
            bytes.extend(finished_run("r"));
            bytes
        };
        let _ = stream.write_all(&bytes).await;
    })
    .await;
    let agent = HttpAgent::new(server.url("/old")).with_redirects(false);
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    for agent in [agent.clone(), agent.with_client(client)] {
        let error = run_once(&agent).await.1.unwrap_err();
        assert_eq!(
            error.kind(),
            RunErrorKind::Transport(TransportErrorKind::Redirect)
        );
        assert!(error.to_string().contains("/new"), "{error}");
        let received = server.received();
        assert_eq!(received.len(), 1, "only the first request went out");
        assert!(received[0].head.starts_with("POST /old "));
    }
}

#[tokio::test]
async fn credentials_stay_behind_once_the_origin_changed() {
    // first → (307) other → (307, same origin) other/final: nothing of the first's headers
    // reaches either hop of the other origin.
    let mut other = server(|path, mut stream| async move {
        let bytes = if path == "/hop" {
            response("307 Temporary Redirect", &["location: /final"], b"")
        } else {
            let mut bytes = SSE_HEADERS.as_bytes().to_vec();
            bytes.extend(finished_run("r"));
            bytes
        };
        let _ = stream.write_all(&bytes).await;
    })
    .await;
    let first = redirecting("308 Permanent Redirect", other.url("/hop")).await;
    let agent = HttpAgent::new(first.url("/"))
        .with_header("x-api-key", "secret-key")
        .with_cross_origin_redirects(true);
    assert_eq!(run_once(&agent).await.1.unwrap(), RunEnd::Finished);
    let received = other.received();
    assert_eq!(received.len(), 2);
    for request in &received {
        assert_eq!(request.header("x-api-key"), None, "{}", request.head);
    }
}

// ----- errors say what and why -----

#[tokio::test]
async fn a_transport_error_keeps_its_cause() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    drop(listener);
    let err = run_once(&HttpAgent::new(url.as_str())).await.1.unwrap_err();
    assert_eq!(
        err.kind(),
        RunErrorKind::Transport(TransportErrorKind::Connection)
    );
    let mut chain = err.to_string();
    let mut source = std::error::Error::source(&err);
    assert!(source.is_some(), "the cause is kept");
    while let Some(cause) = source {
        chain.push_str(": ");
        chain.push_str(&cause.to_string());
        source = cause.source();
    }
    assert!(
        chain.starts_with(&format!("transport failed: cannot reach {url}")),
        "{chain}"
    );
    assert!(
        chain.to_lowercase().contains("connection refused"),
        "{chain}"
    );
}

#[tokio::test]
async fn invalid_urls_and_headers_fail_before_anything_is_sent() {
    for (url, text) in [
        (
            "not a url",
            "invalid request: URL \"not a url\": relative URL without a base",
        ),
        (
            "ftp://127.0.0.1/",
            "invalid request: URL \"ftp://127.0.0.1/\": the scheme must be http or https",
        ),
    ] {
        let err = run_once(&HttpAgent::new(url)).await.1.unwrap_err();
        assert_eq!(
            err.kind(),
            RunErrorKind::Transport(TransportErrorKind::InvalidRequest)
        );
        assert_eq!(err.to_string(), text);
    }
    let mut server = finishing().await;
    let agent = HttpAgent::new(server.url("/")).with_header("x-api-key", "bad\nvalue");
    let err = run_once(&agent).await.1.unwrap_err();
    assert_eq!(
        err.kind(),
        RunErrorKind::Transport(TransportErrorKind::InvalidRequest)
    );
    assert_eq!(
        err.to_string(),
        "invalid request: header \"x-api-key\": failed to parse header value"
    );
    assert!(!err.to_string().contains("bad"), "the value is not shown");
    assert!(server.received().is_empty());
}

#[tokio::test]
async fn a_connection_that_cannot_be_made_in_time_is_a_connect_timeout() {
    // A listener that never accepts, its accept queue filled: the kernel leaves further
    // connection attempts unanswered, as a host that drops packets would.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let mut filler = Vec::new();
    let filled = loop {
        let attempt = tokio::time::timeout(
            Duration::from_millis(200),
            tokio::net::TcpStream::connect(addr),
        )
        .await;
        match attempt {
            Ok(Ok(stream)) if filler.len() < 4096 => filler.push(stream),
            Ok(_) => break false,
            Err(_) => break true,
        }
    };
    assert!(filled, "the accept queue never filled");
    let agent = HttpAgent::new(format!("http://{addr}/")).with_timeouts(
        Timeouts::default()
            .with_connect(Duration::from_millis(300))
            .with_idle(Duration::from_secs(20)),
    );
    let started = std::time::Instant::now();
    let err = run_once(&agent).await.1.unwrap_err();
    assert!(
        matches!(err.transport().and_then(TransportError::timeout), Some(Timeout::Connect(d)) if d == Duration::from_millis(300)),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "connecting took longer than 300ms (connect timeout)"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    drop(listener);
}
