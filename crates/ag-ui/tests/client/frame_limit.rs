//! One frame limit for every SSE stream `HttpAgent` reads: an oversized frame ends the run with
//! the same decode error whether the stream carries SSE ids (read by the reconnecting reader)
//! or not, never with a reconnect; the conversation's `PipelineLimits` (or its shortcut
//! `with_max_event_size`) reach both paths. The
//! reconnecting reader hands frames on decoded, parsed once.
#![cfg(feature = "http")]

use std::time::Duration;

use ag_ui::client::{
    Body, Conversation, HttpAgent, Limits, Piece, PipelineError, PipelineErrorKind, PipelineLimits,
    RunEnd, RunError, RunErrorKind, Transport,
};
use ag_ui::{DecodeErrorKind, Event, RunAgentInput, TextMessageRole};
use tokio::io::AsyncWriteExt;

use crate::support::scripted::{SSE_HEADERS, Server, server};

/// The events of a run whose text delta is `delta` bytes long.
fn events(delta: usize) -> Vec<Event> {
    vec![
        Event::run_started("t", "r"),
        Event::text_message_start("m", TextMessageRole::Assistant),
        Event::text_message_content("m", "x".repeat(delta)),
        Event::text_message_end("m"),
        Event::run_finished("t", "r"),
    ]
}

/// The bytes of the SSE frame of `event`, `id: r:<seq>` first when `ids`.
fn frame(event: &Event, seq: usize, ids: bool) -> String {
    let id = if ids {
        format!("id: r:{seq}\n")
    } else {
        String::new()
    };
    format!("{id}data: {}\n\n", serde_json::to_string(event).unwrap())
}

/// An agent that answers every request (the run's `POST`, a reconnect's `GET`) with the run
/// whose text delta is `delta` bytes, from the event after the reconnect's cursor.
async fn agent(delta: usize, ids: bool) -> Server {
    server(move |path, mut stream| async move {
        let after: usize = path
            .split_once("cursor=r%3A")
            .and_then(|(_, rest)| rest.split('&').next()?.parse().ok())
            .unwrap_or(0);
        let mut bytes = SSE_HEADERS.to_owned();
        for (seq, event) in events(delta).iter().enumerate().skip(after) {
            bytes.push_str(&frame(event, seq + 1, ids));
        }
        let _ = stream.write_all(bytes.as_bytes()).await;
    })
    .await
}

/// The size of the frame of the text delta as the limit counts it: its lines, without the
/// blank line that ends it.
fn delta_frame_size(delta: usize, ids: bool) -> usize {
    frame(&events(delta)[2], 3, ids).len() - 1
}

/// Runs a conversation limited to `limit`-byte frames against the agent; returns the result
/// and how many requests the agent received.
async fn run(delta: usize, ids: bool, limit: usize) -> (Result<RunEnd, RunError>, usize) {
    run_as(
        delta,
        ids,
        Conversation::new("t").with_max_event_size(limit),
    )
    .await
}

/// Runs `conversation` against the agent; returns the result and how many requests the agent
/// received.
async fn run_as(
    delta: usize,
    ids: bool,
    mut conversation: Conversation,
) -> (Result<RunEnd, RunError>, usize) {
    let mut server = agent(delta, ids).await;
    let agent = HttpAgent::new(server.url("/"));
    let result = tokio::time::timeout(Duration::from_secs(5), conversation.run(&agent, &mut ()))
        .await
        .expect("the run hung");
    (result.map(|s| s.end), server.received().len())
}

fn assert_too_large(result: Result<RunEnd, RunError>, limit: usize) {
    let err = result.unwrap_err();
    assert_eq!(
        err.kind(),
        RunErrorKind::Pipeline(PipelineErrorKind::Decode),
        "{err}"
    );
    let Some(decode) = err.pipeline().and_then(PipelineError::decode) else {
        panic!("{err}")
    };
    assert_eq!(decode.kind(), DecodeErrorKind::TooLarge, "{decode}");
    assert_eq!(decode.index(), Some(2), "{decode}");
    assert!(
        decode.to_string().contains(&format!(
            "SSE frame exceeds the maximum size of {limit} bytes"
        )),
        "{decode}"
    );
}

#[tokio::test]
async fn an_oversized_frame_is_the_same_error_with_or_without_ids_and_never_reconnects() {
    for ids in [false, true] {
        let (result, requests) = run(4000, ids, 1024).await;
        assert_too_large(result, 1024);
        assert_eq!(requests, 1, "ids: {ids}");
    }
}

#[tokio::test]
async fn the_conversations_limit_reaches_the_reconnecting_reader() {
    for ids in [false, true] {
        let size = delta_frame_size(2000, ids);
        // A frame of exactly the limit passes; one byte less of limit refuses it.
        let (result, requests) = run(2000, ids, size).await;
        assert_eq!(result.unwrap(), RunEnd::Finished, "ids: {ids}");
        assert_eq!(requests, 1);
        let (result, requests) = run(2000, ids, size - 1).await;
        assert_too_large(result, size - 1);
        assert_eq!(requests, 1, "ids: {ids}");
    }
}

/// The limit set in `PipelineLimits` reaches both paths as the shortcut does, and the shortcut
/// sets one field: before or after the struct, the other fields stay.
#[tokio::test]
async fn the_limits_struct_reaches_both_paths_like_the_shortcut() {
    let reducer = Limits::new().with_max_depth(8);
    let whole = PipelineLimits::default()
        .with_max_event_size(1024)
        .with_reducer(reducer);
    let shortcut_after = Conversation::new("t")
        .with_limits(
            PipelineLimits::default()
                .with_max_event_size(5)
                .with_reducer(reducer),
        )
        .with_max_event_size(1024);
    assert_eq!(shortcut_after.limits(), whole);
    for ids in [false, true] {
        for conversation in [
            Conversation::new("t").with_limits(whole),
            Conversation::new("t")
                .with_max_event_size(1024)
                .with_limits(whole),
            Conversation::new("t")
                .with_limits(
                    PipelineLimits::default()
                        .with_max_event_size(5)
                        .with_reducer(reducer),
                )
                .with_max_event_size(1024),
        ] {
            let (result, requests) = run_as(4000, ids, conversation).await;
            assert_too_large(result, 1024);
            assert_eq!(requests, 1, "ids: {ids}");
        }
    }
}

#[tokio::test]
async fn the_reconnecting_reader_hands_on_an_oversized_frame_as_its_last_piece() {
    let mut server = agent(4000, true).await;
    let agent = HttpAgent::new(server.url("/"));
    let pieces = tokio::time::timeout(Duration::from_secs(5), async {
        let mut body = agent.open(&RunAgentInput::new("t", "r")).await.unwrap();
        body.set_max_event_size(1024);
        let mut pieces = Vec::new();
        while let Some(piece) = body.next().await.unwrap() {
            pieces.push(piece);
        }
        pieces
    })
    .await
    .expect("the read hung");
    let Some((Piece::Refused(error), before)) = pieces.split_last() else {
        panic!("{pieces:?}")
    };
    assert_eq!(error.kind(), DecodeErrorKind::TooLarge, "{error}");
    assert_eq!(error.index(), Some(2), "{error}");
    // The two frames before it, decoded once, and nothing after it: no reconnect.
    let expected: Vec<Piece> = events(4000)[..2]
        .iter()
        .map(|event| Piece::Frame(serde_json::to_string(event).unwrap()))
        .collect();
    assert_eq!(before, expected);
    assert_eq!(server.received().len(), 1);
}

/// Issue 41's reproducer, over a real socket: `retry: 100`, then frames with ids numbered from
/// `r:0`, the third one's delta 11 MiB, then the connection closed. With ids, with `retry:`
/// alone and with neither, the default limits end the run with the same decode error at the
/// third frame, after the first two events, and nothing is asked again. (The first id was taken
/// for one already passed, so `RUN_STARTED` was dropped and the verifier named
/// `TEXT_MESSAGE_START` the first event.)
#[tokio::test]
async fn the_issue_41_stream_ends_in_the_same_decode_error_with_ids_from_zero_or_without() {
    use crate::support::hostile::oversized_frame_response;
    for (retry, ids) in [(true, true), (true, false), (false, false)] {
        let reply = oversized_frame_response(retry, ids);
        let mut server = server(move |_, mut stream| {
            let reply = reply.clone();
            async move {
                let _ = stream.write_all(&reply).await;
            }
        })
        .await;
        let agent = HttpAgent::new(server.url("/"));
        let mut conversation = Conversation::new("t");
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = seen.clone();
        let mut record = ag_ui::client::Callbacks::new()
            .on_event(move |event: &Event| sink.lock().unwrap().push(event.event_type()));
        let result = tokio::time::timeout(
            Duration::from_secs(10),
            conversation.run(&agent, &mut record),
        )
        .await
        .expect("the run hung");
        let err = result.map(|s| s.end).unwrap_err();
        assert_eq!(
            err.kind().as_str(),
            "run.decode",
            "retry {retry}, ids {ids}: {err}"
        );
        assert_too_large(Err(err), 10 * 1024 * 1024);
        assert_eq!(
            *seen.lock().unwrap(),
            [
                ag_ui::EventType::RunStarted,
                ag_ui::EventType::TextMessageStart
            ],
            "retry {retry}, ids {ids}"
        );
        assert_eq!(server.received().len(), 1, "retry {retry}, ids {ids}");
    }
}
