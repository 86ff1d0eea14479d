//! The client over protobuf: `HttpAgent::with_proto` asks for protobuf, the body is read in
//! the encoding its `Content-Type` names, and `Conversation::run` rebuilds the same
//! conversation over protobuf as over SSE for every recorded or generated stream of the suite
//! (the streams of `proto_parity.rs`), modulo the documented lossy points of the binary
//! transport (`proto_support::lossy`).
//!
//! The agent is a small HTTP/1.1 server on 127.0.0.1 that answers every run with a stream
//! encoded ahead of time by `encoding::sse` or `encoding::proto`, and records the `Accept`
//! header of each request.

#![cfg(all(feature = "proto", feature = "http", feature = "client"))]

use crate::support as common;
use crate::support::proto as proto_support;
use crate::support::workload;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ag_ui::client::{Conversation, HttpAgent, PipelineError, PipelineErrorKind, RunErrorKind};
use ag_ui::encoding::{proto, sse};
use ag_ui::{DecodeErrorKind, Event};
use proptest::collection::vec;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use proto_support::{lossy_messages, lossy_value};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What the server answers on `/{index}`: a content type and a body.
type Responses = Arc<Vec<(&'static str, Vec<u8>)>>;

/// Serves `responses` until the test ends; returns the base URL and the `Accept` headers seen.
async fn serve(responses: Responses) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let accepts = Arc::new(Mutex::new(Vec::new()));
    let seen = accepts.clone();
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            let responses = responses.clone();
            let seen = seen.clone();
            tokio::spawn(async move {
                // The request: headers, then a body of `content-length` bytes.
                let mut request = Vec::new();
                let mut buf = [0u8; 16 << 10];
                let head_end = loop {
                    let n = socket.read(&mut buf).await.unwrap();
                    assert!(n > 0, "the client closed before sending a request");
                    request.extend_from_slice(&buf[..n]);
                    if let Some(at) = request.windows(4).position(|w| w == b"\r\n\r\n") {
                        break at + 4;
                    }
                };
                let head = String::from_utf8_lossy(&request[..head_end]).into_owned();
                let header = |name: &str| {
                    head.lines().find_map(|line| {
                        let (key, value) = line.split_once(':')?;
                        key.eq_ignore_ascii_case(name)
                            .then(|| value.trim().to_owned())
                    })
                };
                let length: usize = header("content-length").map_or(0, |l| l.parse().unwrap());
                while request.len() < head_end + length {
                    let n = socket.read(&mut buf).await.unwrap();
                    assert!(n > 0, "the request body was cut short");
                    request.extend_from_slice(&buf[..n]);
                }
                let path = head.split_whitespace().nth(1).unwrap();
                // Only `POST /<index>` is served: the GET a client sends to try a body that
                // ended before its first frame as a resumable stream gets what a plain
                // endpoint answers, 405.
                let Ok(index) = path.trim_start_matches('/').parse::<usize>() else {
                    let refusal = "HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
                    socket.write_all(refusal.as_bytes()).await.unwrap();
                    return;
                };
                seen.lock()
                    .unwrap()
                    .push(header("accept").unwrap_or_default());
                let (content_type, body) = &responses[index];
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\nconnection: close\r\n\r\n"
                );
                socket.write_all(response.as_bytes()).await.unwrap();
                // In pieces, so that frames arrive cut at arbitrary places.
                for piece in body.chunks(1000) {
                    socket.write_all(piece).await.unwrap();
                }
                socket.shutdown().await.unwrap();
            });
        }
    });
    (base, accepts)
}

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Every event of a JSON array that this crate reads.
fn readable(events: &Value) -> Vec<Event> {
    events
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| Event::from_json(&e.to_string()).ok())
        .collect()
}

/// The streams of `proto_parity.rs`: the verifier's, the reducer's and the chunk normalizer's
/// corpora, the benchmark workload, and generated streams of every event type.
fn streams() -> Vec<(String, Vec<Event>)> {
    let mut out = Vec::new();
    let verify: Value =
        serde_json::from_str(include_str!("../data/verify_corpus.json")).expect("verify corpus");
    for s in verify["streams"].as_array().unwrap() {
        out.push((
            format!("verify/{}", s["name"].as_str().unwrap()),
            readable(&s["events"]),
        ));
    }
    let apply = std::fs::read_to_string(repo().join("interop/apply/corpus.jsonl")).unwrap();
    for line in apply.lines() {
        let s: Value = serde_json::from_str(line).unwrap();
        out.push((
            format!("apply/{}", s["name"].as_str().unwrap()),
            readable(&s["events"]),
        ));
    }
    let chunks = std::fs::read_to_string(repo().join("interop/chunks/corpus.jsonl")).unwrap();
    for (i, line) in chunks.lines().enumerate() {
        out.push((
            format!("chunks/{i}"),
            readable(&serde_json::from_str(line).unwrap()),
        ));
    }
    out.push(("workload/explicit".into(), workload::events(40)));
    out.push(("workload/chunked".into(), workload::chunked(40)));
    let mut runner = TestRunner::deterministic();
    let generated = vec(common::strategies::any_event(), 1..40);
    for i in 0..100 {
        out.push((
            format!("generated/{i}"),
            generated.new_tree(&mut runner).unwrap().current(),
        ));
    }
    out
}

/// How a run over `agent` ended and the conversation it left, in the lossy form that both
/// transports give.
async fn run(agent: &HttpAgent) -> String {
    let mut conversation = Conversation::new("thread-proto");
    let result = conversation.run(agent, &mut ()).await;
    let result = match result {
        Ok(summary) => format!("ok {:?} {}", summary.end, summary.events),
        Err(e) => format!("error {:?}", e.kind()),
    };
    format!(
        "{result}\n{:?}\n{}",
        lossy_messages(conversation.messages()),
        lossy_value(conversation.state())
    )
}

fn agent(base: &str, index: usize) -> HttpAgent {
    HttpAgent::new(format!("{base}/{index}")).with_timeout(Duration::from_secs(20))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_stream_gives_the_same_conversation_over_sse_and_protobuf() {
    let streams = streams();
    assert!(streams.len() > 500, "{} streams", streams.len());
    let mut responses = Vec::new();
    for (_, events) in &streams {
        let (mut over_sse, mut over_proto) = (Vec::new(), Vec::new());
        for event in events {
            sse::encode_into(event, &mut over_sse);
            proto::encode_into(event, &mut over_proto);
        }
        responses.push(("text/event-stream", over_sse));
        responses.push((ag_ui::encoding::PROTO_MEDIA_TYPE, over_proto));
    }
    let (base, accepts) = serve(Arc::new(responses)).await;
    let mut finished = 0;
    for (i, (name, _)) in streams.iter().enumerate() {
        let over_sse = run(&agent(&base, 2 * i)).await;
        let over_proto = run(&agent(&base, 2 * i + 1).with_proto(true)).await;
        assert_eq!(over_proto, over_sse, "{name}");
        finished += usize::from(over_sse.starts_with("ok Finished"));
    }
    // The corpora hold many whole runs, not only streams the pipeline refuses.
    assert!(finished > 100, "{finished} finished runs");
    let accepts = accepts.lock().unwrap();
    assert_eq!(accepts.len(), 2 * streams.len());
    for pair in accepts.chunks(2) {
        assert_eq!(pair[0], "text/event-stream");
        assert_eq!(
            pair[1],
            "application/vnd.ag-ui.event+proto, text/event-stream;q=0.5"
        );
    }
}

#[tokio::test]
async fn the_body_is_read_as_its_content_type_says() {
    let events = workload::events(3);
    let (mut over_sse, mut over_proto) = (Vec::new(), Vec::new());
    for event in &events {
        sse::encode_into(event, &mut over_sse);
        proto::encode_into(event, &mut over_proto);
    }
    // A truncated protobuf stream: the last frame is cut short.
    let cut = over_proto[..over_proto.len() - 3].to_vec();
    let (base, _) = serve(Arc::new(vec![
        ("text/event-stream", over_sse.clone()),
        (
            "application/vnd.ag-ui.event+proto; charset=binary",
            over_proto,
        ),
        (ag_ui::encoding::PROTO_MEDIA_TYPE, cut),
        (ag_ui::encoding::PROTO_MEDIA_TYPE, over_sse),
    ]))
    .await;
    // Asked for protobuf, answered with SSE: read as SSE.
    let expected = run(&agent(&base, 0)).await;
    assert!(expected.starts_with("ok Finished"), "{expected}");
    assert_eq!(run(&agent(&base, 0).with_proto(true)).await, expected);
    // Not asked for protobuf, answered with it: still read by its content type.
    assert_eq!(run(&agent(&base, 1)).await, expected);
    // A protobuf body cut short is a decode error naming the frame, not a short run.
    let mut conversation = Conversation::new("t");
    let err = conversation
        .run(&agent(&base, 2).with_proto(true), &mut ())
        .await
        .unwrap_err();
    assert_eq!(
        err.kind(),
        RunErrorKind::Pipeline(PipelineErrorKind::Decode)
    );
    let Some(decode) = err.pipeline().and_then(PipelineError::decode) else {
        panic!("{err:?}")
    };
    assert_eq!(decode.kind(), DecodeErrorKind::Framing);
    assert!(decode.index().is_some(), "{decode:?}");
    // SSE bytes labelled as protobuf are not read as events.
    let mut conversation = Conversation::new("t");
    let err = conversation
        .run(&agent(&base, 3).with_proto(true), &mut ())
        .await
        .unwrap_err();
    assert_eq!(
        err.kind(),
        RunErrorKind::Pipeline(PipelineErrorKind::Decode),
        "{err}"
    );
}
