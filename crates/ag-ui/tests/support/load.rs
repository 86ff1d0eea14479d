//! A load run shared by the `axum_load` test and the `load` example: `runs` concurrent streaming
//! runs of `events` events each against one `AgentEndpoint` on loopback, every stream checked to
//! arrive complete and in order.

#![allow(dead_code, unreachable_pub)]

use ag_ui::axum::AgentEndpoint;
use ag_ui::encoding::sse::EventDecoder;
use ag_ui::{Event, EventType, RunAgentInput, TextMessageRole};
use futures::StreamExt;

/// The events of run `run`: a message whose deltas count from 0, produced lazily so a run holds
/// no history.
pub fn run_events(
    input: RunAgentInput,
    events: usize,
) -> impl futures::Stream<Item = Event> + Send + 'static {
    let (t, r) = (input.thread_id, input.run_id);
    let id = format!("{r}-m");
    let deltas = events.saturating_sub(4);
    let head = [
        Event::run_started(t.clone(), r.clone()),
        Event::text_message_start(id.as_str(), TextMessageRole::Assistant),
    ];
    let body = (0..deltas).map({
        let id = id.clone();
        move |i| Event::text_message_content(id.as_str(), i.to_string())
    });
    let tail = [
        Event::text_message_end(id.as_str()),
        Event::run_finished(t, r),
    ];
    futures::stream::iter(head.into_iter().chain(body).chain(tail))
}

/// Serves `events`-long runs on 127.0.0.1:0 and returns the URL.
pub async fn serve(events: usize) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = AgentEndpoint::new(move |input| run_events(input, events)).into_router();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/")
}

/// Runs `runs` concurrent clients; panics unless every stream is complete and in order.
/// Returns the total number of events received.
pub async fn load(url: &str, runs: usize, events: usize) -> usize {
    let client = reqwest::Client::new();
    let tasks: Vec<_> = (0..runs)
        .map(|i| {
            let (client, url) = (client.clone(), url.to_owned());
            tokio::spawn(async move {
                let run = format!("run-{i}");
                let body = serde_json::to_string(&RunAgentInput::new("t", run.as_str())).unwrap();
                let response = client
                    .post(&url)
                    .header("content-type", "application/json")
                    .body(body)
                    .send()
                    .await
                    .unwrap();
                assert_eq!(response.status(), 200);
                let mut stream = response.bytes_stream();
                let mut decoder = EventDecoder::new();
                // Counters only: the check itself must not hold the stream.
                let mut received = Received::default();
                let message = format!("{run}-m");
                let check = |event: Event, received: &mut Received| {
                    if let Event::TextMessageContent(e) = &event {
                        assert_eq!(e.message_id.as_str(), message);
                        assert_eq!(
                            e.delta,
                            received.deltas.to_string(),
                            "{run}: delta out of order"
                        );
                        received.deltas += 1;
                    }
                    received.first.get_or_insert(event.event_type());
                    received.last = Some(event.event_type());
                    received.count += 1;
                };
                while let Some(chunk) = stream.next().await {
                    decoder.push(&chunk.unwrap());
                    for event in &mut decoder {
                        check(event.unwrap(), &mut received);
                    }
                }
                decoder.finish();
                for event in &mut decoder {
                    check(event.unwrap(), &mut received);
                }
                assert_eq!(received.count, events, "{run}: stream incomplete");
                assert_eq!(received.first, Some(EventType::RunStarted));
                assert_eq!(received.last, Some(EventType::RunFinished));
                received.count
            })
        })
        .collect();
    let mut total = 0;
    for task in tasks {
        total += task.await.unwrap();
    }
    total
}

#[derive(Default)]
struct Received {
    count: usize,
    deltas: usize,
    first: Option<EventType>,
    last: Option<EventType>,
}

/// Peak resident memory of this process in KiB (Linux), if known.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}
