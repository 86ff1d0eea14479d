//! End-to-end: `HttpAgent` and `Conversation` against our own axum endpoint, over a real socket
//! on 127.0.0.1: a conversation across runs, and an abort mid-stream that the server sees.
#![cfg(all(feature = "http", feature = "axum"))]

use std::time::Duration;

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui::client::{CancelToken, Conversation, Flow, HttpAgent, Reducer, RunEnd, Subscriber};
use ag_ui::{Event, Message, RunAgentInput, TextMessageRole};
use axum::Router;
use futures::{Stream, StreamExt};
use tokio::sync::oneshot;

use crate::support::http::spawn_url;

fn echo(input: RunAgentInput) -> impl Stream<Item = Event> + Send + 'static {
    let last = input
        .messages
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::User(_) => m.text().map(str::to_owned),
            _ => None,
        })
        .unwrap_or_default();
    let (t, r) = (input.thread_id, input.run_id);
    let id = format!("{r}-a");
    futures::stream::iter(vec![
        Event::run_started(t.clone(), r.clone()),
        Event::text_message_start(id.as_str(), TextMessageRole::Assistant),
        Event::text_message_content(id.as_str(), format!("echo: {last}")),
        Event::text_message_end(id.as_str()),
        Event::run_finished(t, r),
    ])
}

#[tokio::test]
async fn conversation_against_our_axum_endpoint() {
    let url = spawn_url(Router::new().agent("/agent", AgentEndpoint::new(echo))).await;
    let agent = HttpAgent::new(format!("{url}/agent")).with_timeout(Duration::from_secs(20));
    let mut conversation = Conversation::new("thread-axum");
    conversation.add_user_message("one");
    conversation.run(&agent, &mut ()).await.unwrap();
    conversation.add_user_message("two");
    let summary = conversation.run(&agent, &mut ()).await.unwrap();
    assert_eq!(summary.end, RunEnd::Finished);
    let texts: Vec<_> = conversation
        .messages()
        .iter()
        .map(|m| m.text().unwrap())
        .collect();
    assert_eq!(texts, ["one", "echo: one", "two", "echo: two"]);
}

/// Sends `()` when dropped: tells the test the server dropped the agent's stream.
struct DropSignal(Option<oneshot::Sender<()>>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        if let Some(tx) = self.0.take() {
            let _ = tx.send(());
        }
    }
}

struct CancelAfter(CancelToken, usize);

impl Subscriber for CancelAfter {
    fn on_event(&mut self, event: &Event, _: &Reducer) -> Flow {
        if matches!(event, Event::TextMessageContent(_)) {
            self.1 += 1;
            if self.1 == 3 {
                self.0.cancel();
            }
        }
        Flow::Continue
    }
}

#[tokio::test]
async fn abort_mid_stream_reaches_our_server() {
    let (tx, rx) = oneshot::channel();
    let signal = std::sync::Mutex::new(Some(tx));
    let slow = move |input: RunAgentInput| {
        let guard = DropSignal(signal.lock().unwrap().take());
        let (t, r) = (input.thread_id, input.run_id);
        let head = futures::stream::iter(vec![
            Event::run_started(t, r),
            Event::text_message_start("m", TextMessageRole::Assistant),
        ]);
        // At most 2,000 deltas 5 ms apart: bounded even if the abort never came.
        let body = futures::stream::unfold((0u32, guard), |(n, guard)| async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            (n < 2000).then(|| {
                (
                    Event::text_message_content("m", format!("{n} ")),
                    (n + 1, guard),
                )
            })
        });
        head.chain(body)
    };
    let url = spawn_url(Router::new().agent("/slow", AgentEndpoint::new(slow))).await;
    let agent = HttpAgent::new(format!("{url}/slow"));
    let mut conversation = Conversation::new("thread-slow");
    conversation.add_user_message("go");
    let handle = CancelToken::new();
    let summary = conversation
        .run_with(&agent, None, &handle, &mut CancelAfter(handle.clone(), 0))
        .await
        .unwrap();
    assert_eq!(summary.end, RunEnd::Cancelled);
    assert!(
        conversation.messages()[1]
            .text()
            .unwrap()
            .starts_with("0 1 2 ")
    );
    tokio::time::timeout(Duration::from_secs(10), rx)
        .await
        .expect("the server dropped the agent's stream after the client went away")
        .unwrap();
}

/// `AgentEndpoint::with_timestamps(true)` stamps every event with its emit time, in
/// milliseconds since the epoch; without it the agent's events carry none.
#[tokio::test]
async fn the_endpoint_stamps_emit_times_when_asked() {
    use std::sync::{Arc, Mutex};
    use std::time::{SystemTime, UNIX_EPOCH};

    let now = || {
        i64::try_from(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_millis(),
        )
        .unwrap()
    };
    let url = spawn_url(
        Router::new()
            .agent("/stamped", AgentEndpoint::new(echo).with_timestamps(true))
            .agent("/plain", AgentEndpoint::new(echo)),
    )
    .await;
    for (path, stamped) in [("stamped", true), ("plain", false)] {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let mut callbacks = ag_ui::client::Callbacks::new()
            .on_event(move |event: &Event| sink.lock().unwrap().push(event.timestamp()));
        let agent = HttpAgent::new(format!("{url}/{path}")).with_timeout(Duration::from_secs(20));
        let mut conversation = Conversation::new("thread-ts");
        conversation.add_user_message("x");
        let before = now();
        conversation.run(&agent, &mut callbacks).await.unwrap();
        let after = now();
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 5);
        if stamped {
            let stamps: Vec<i64> = seen.iter().map(|t| t.unwrap()).collect();
            assert!(stamps.windows(2).all(|w| w[0] <= w[1]), "{stamps:?}");
            assert!(stamps[0] >= before && stamps[4] <= after, "{stamps:?}");
        } else {
            assert!(seen.iter().all(Option::is_none), "{seen:?}");
        }
    }
}
