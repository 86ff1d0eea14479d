//! The axum endpoint end to end, over a real socket on 127.0.0.1.
#![cfg(feature = "axum")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ag_ui::axum::{AgentEndpoint, RouterExt, StartError};
use ag_ui::{Event, RunAgentInput, TextMessageRole};
use axum::Router;
use futures::{Stream, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::support::http::spawn_url;

fn input_body(run: &str) -> String {
    json!({"threadId": "t1", "runId": run, "messages": [{"id": "u1", "role": "user", "content": "hi"}]}).to_string()
}

fn script(input: RunAgentInput) -> impl Stream<Item = Event> + Send + 'static {
    let (t, r) = (input.thread_id, input.run_id);
    let id = format!("{r}-msg");
    futures::stream::iter(vec![
        Event::run_started(t.clone(), r.clone()),
        Event::text_message_start(id.as_str(), TextMessageRole::Assistant),
        Event::text_message_content(id.as_str(), format!("hello {r}")),
        Event::text_message_end(id.as_str()),
        Event::run_finished(t, r),
    ])
}

async fn post(url: &str, body: String) -> reqwest::Response {
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(body)
        .send()
        .await
        .unwrap()
}

/// Splits an SSE body into its `data:` payloads as JSON values.
fn data_events(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter_map(|block| block.lines().find_map(|l| l.strip_prefix("data: ")))
        .map(|data| serde_json::from_str(data).unwrap())
        .collect()
}

async fn error_of(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    assert_eq!(response.headers()["content-type"], "application/json");
    (
        status,
        serde_json::from_str(&response.text().await.unwrap()).unwrap(),
    )
}

#[tokio::test]
async fn streams_the_events_with_anti_buffering_headers() {
    let url = spawn_url(Router::new().agent("/agent", AgentEndpoint::new(script))).await;
    let response = post(&format!("{url}/agent"), input_body("r1")).await;
    assert_eq!(response.status(), 200);
    let headers = response.headers();
    assert_eq!(headers["content-type"], "text/event-stream");
    assert_eq!(headers["cache-control"], "no-cache");
    assert_eq!(headers["x-accel-buffering"], "no");
    let body = response.text().await.unwrap();
    let expected: String = script(RunAgentInput::new("t1", "r1"))
        .collect::<Vec<_>>()
        .await
        .iter()
        .map(|e| format!("data: {}\n\n", e.to_json()))
        .collect();
    assert_eq!(body, expected);
}

#[tokio::test]
async fn numbers_events_with_sse_ids_when_asked() {
    let url = spawn_url(
        AgentEndpoint::new(script)
            .with_event_ids(true)
            .into_router(),
    )
    .await;
    let body = post(&url, input_body("r1")).await.text().await.unwrap();
    let ids: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .collect();
    assert_eq!(ids, ["1", "2", "3", "4", "5"]);
    assert_eq!(data_events(&body).len(), 5);
}

#[tokio::test]
async fn rejects_bad_requests_with_json_errors() {
    let url = spawn_url(
        AgentEndpoint::new(script)
            .with_body_limit(1024)
            .into_router(),
    )
    .await;
    let client = reqwest::Client::new();

    let (status, body) = error_of(post(&url, "{not json".to_owned()).await).await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (400, Some("malformed-json"))
    );

    let bad = json!({"threadId": "t", "runId": "r", "messages": [{"id": "u", "role": "user"}]})
        .to_string();
    let (status, body) = error_of(post(&url, bad).await).await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (400, Some("invalid-input"))
    );
    assert_eq!(body["error"]["field"], "messages[0].content");

    let (status, body) = error_of(post(&url, json!({"threadId": 7}).to_string()).await).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["field"], "threadId");

    let response = client
        .post(&url)
        .header("content-type", "text/plain")
        .body(input_body("r"))
        .send()
        .await
        .unwrap();
    let (status, body) = error_of(response).await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (415, Some("unsupported-media-type"))
    );

    let big =
        json!({"threadId": "t", "runId": "r", "messages": [], "state": {"pad": "x".repeat(4096)}})
            .to_string();
    let (status, body) = error_of(post(&url, big).await).await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (413, Some("payload-too-large"))
    );

    let response = client.get(&url).send().await.unwrap();
    assert_eq!(response.headers()["allow"], "POST");
    let (status, body) = error_of(response).await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (405, Some("method-not-allowed"))
    );

    let response = client
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .body(input_body("r"))
        .send()
        .await
        .unwrap();
    let (status, body) = error_of(response).await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (406, Some("not-acceptable"))
    );

    // No Accept header at all, or */*: SSE.
    for accept in [None, Some("*/*")] {
        let mut request = client
            .post(&url)
            .header("content-type", "application/json")
            .body(input_body("r"));
        if let Some(accept) = accept {
            request = request.header("accept", accept);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
    }
}

#[tokio::test]
async fn a_run_that_cannot_start_is_a_json_5xx() {
    struct Refuses;
    impl ag_ui::axum::RunHandler for Refuses {
        fn run(&self, _: RunAgentInput) -> Result<ag_ui::axum::EventStream, StartError> {
            Err(StartError::new("the model is not configured")
                .with_status(axum::http::StatusCode::SERVICE_UNAVAILABLE))
        }
    }
    let url = spawn_url(AgentEndpoint::new(Refuses).into_router()).await;
    let (status, body) = error_of(post(&url, input_body("r")).await).await;
    assert_eq!(status, 503);
    assert_eq!(body["error"]["message"], "the model is not configured");
}

#[tokio::test]
async fn quiet_streams_get_keep_alive_comments() {
    let slow = |input: RunAgentInput| {
        futures::stream::once(async move {
            tokio::time::sleep(Duration::from_millis(400)).await;
            Event::run_started(input.thread_id, input.run_id)
        })
    };
    let url = spawn_url(
        AgentEndpoint::new(slow)
            .with_keep_alive(Some(Duration::from_millis(50)))
            .into_router(),
    )
    .await;
    let body = post(&url, input_body("r")).await.text().await.unwrap();
    let before_data = body.split("data: ").next().unwrap();
    assert!(
        before_data.matches(": keep-alive\n\n").count() >= 2,
        "{body:?}"
    );
    assert_eq!(data_events(&body).len(), 1);
}

#[tokio::test]
async fn each_event_is_flushed_as_it_is_emitted() {
    // The handler sends its second event only after the client has received the first: if the
    // server held events back, this would never finish.
    let (ack_tx, ack_rx) = mpsc::unbounded_channel::<()>();
    let ack_rx = Arc::new(tokio::sync::Mutex::new(Some(ack_rx)));
    let handler = move |input: RunAgentInput| {
        let ack_rx = Arc::clone(&ack_rx);
        futures::stream::unfold(0, move |step| {
            let ack_rx = Arc::clone(&ack_rx);
            let (t, r) = (input.thread_id.clone(), input.run_id.clone());
            async move {
                match step {
                    0 => Some((Event::run_started(t, r), 1)),
                    1 => {
                        let mut guard = ack_rx.lock().await;
                        guard.as_mut()?.recv().await?;
                        Some((Event::run_finished(t, r), 2))
                    }
                    _ => None,
                }
            }
        })
    };
    let url = spawn_url(AgentEndpoint::new(handler).into_router()).await;
    let mut body = post(&url, input_body("r")).await.bytes_stream();
    let run = async {
        let mut seen = String::new();
        while let Some(chunk) = body.next().await {
            seen.push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
            let count = data_events(&seen).len();
            if count == 1 && seen.ends_with("\n\n") {
                ack_tx.send(()).unwrap();
            }
            if count == 2 {
                return seen;
            }
        }
        seen
    };
    let seen = tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .expect("the first event was held back");
    assert_eq!(data_events(&seen).len(), 2);
}

#[tokio::test]
async fn a_disconnect_drops_the_run() {
    struct Dropped(Option<oneshot::Sender<()>>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            if let Some(tx) = self.0.take() {
                let _ = tx.send(());
            }
        }
    }
    let (dropped_tx, dropped_rx) = oneshot::channel();
    let dropped_tx = Arc::new(std::sync::Mutex::new(Some(dropped_tx)));
    let handler = move |input: RunAgentInput| {
        let guard = Dropped(dropped_tx.lock().unwrap().take());
        // One event, then an endless trickle of keep-alive-free silence.
        futures::stream::once(async move { Event::run_started(input.thread_id, input.run_id) })
            .chain(futures::stream::pending())
            .map(move |event| {
                let _ = &guard;
                event
            })
    };
    let url = spawn_url(AgentEndpoint::new(handler).into_router()).await;
    let response = post(&url, input_body("r")).await;
    let mut body = response.bytes_stream();
    let first = body.next().await.unwrap().unwrap();
    assert!(first.starts_with(b"data: "));
    drop(body);
    tokio::time::timeout(Duration::from_secs(5), dropped_rx)
        .await
        .expect("the run was not dropped within 5 s of the disconnect")
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_concurrent_runs_each_get_their_own_stream() {
    let started = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&started);
    let handler = move |input: RunAgentInput| {
        counter.fetch_add(1, Ordering::Relaxed);
        script(input)
    };
    let url = spawn_url(AgentEndpoint::new(handler).into_router()).await;
    let runs = (0..100).map(|i| {
        let url = url.clone();
        tokio::spawn(async move {
            let run = format!("run-{i}");
            let body = post(&url, input_body(&run)).await.text().await.unwrap();
            (run, data_events(&body))
        })
    });
    for handle in runs.collect::<Vec<_>>() {
        let (run, events) = handle.await.unwrap();
        let expected: Vec<Value> = script(RunAgentInput::new("t1", run.as_str()))
            .map(|e| serde_json::to_value(&e).unwrap())
            .collect()
            .await;
        assert_eq!(events, expected, "{run}");
    }
    assert_eq!(started.load(Ordering::Relaxed), 100);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_ignores_cancellation_is_dropped_with_the_response() {
    use ag_ui::server::{Agent, Outcome, RunContext};

    struct Stubborn(Arc<std::sync::Mutex<Option<oneshot::Sender<()>>>>);
    struct Guard(Option<oneshot::Sender<()>>);
    impl Drop for Guard {
        fn drop(&mut self) {
            if let Some(tx) = self.0.take() {
                let _ = tx.send(());
            }
        }
    }
    impl Agent for Stubborn {
        type State = ();
        async fn run(&self, ctx: &mut RunContext<()>) -> ag_ui::server::Result<Outcome> {
            let _guard = Guard(self.0.lock().unwrap().take());
            ctx.say("working")?;
            // Never looks at ctx.cancelled(), never emits again.
            loop {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
    let (tx, dropped) = oneshot::channel();
    let agent = Stubborn(Arc::new(std::sync::Mutex::new(Some(tx))));
    let url = spawn_url(AgentEndpoint::agent(agent).into_router()).await;
    let mut body = post(&url, input_body("r")).await.bytes_stream();
    let mut seen = String::new();
    while !seen.contains("TEXT_MESSAGE_END") {
        seen.push_str(std::str::from_utf8(&body.next().await.unwrap().unwrap()).unwrap());
    }
    drop(body);
    tokio::time::timeout(Duration::from_secs(5), dropped)
        .await
        .expect("the agent kept running 5 s after the client left")
        .unwrap();
}

#[tokio::test]
async fn endpoints_live_beside_other_routes_behind_the_users_middleware() {
    use axum::extract::Request;
    use axum::http::StatusCode;
    use axum::middleware::{self, Next};
    use axum::response::{IntoResponse, Response};

    async fn require_token(req: Request, next: Next) -> Response {
        match req
            .headers()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
        {
            Some("Bearer secret") => next.run(req).await,
            _ => StatusCode::UNAUTHORIZED.into_response(),
        }
    }
    let echo_a = |input: RunAgentInput| {
        script(RunAgentInput::new(
            input.thread_id,
            format!("a-{}", input.run_id),
        ))
    };
    let echo_b = |input: RunAgentInput| {
        script(RunAgentInput::new(
            input.thread_id,
            format!("b-{}", input.run_id),
        ))
    };
    let app = Router::new()
        .agent("/agents/a", AgentEndpoint::new(echo_a))
        .agent("/agents/b", AgentEndpoint::new(echo_b))
        .route("/health", axum::routing::get(|| async { "ok" }))
        .layer(middleware::from_fn(require_token));
    let url = spawn_url(app).await;
    let client = reqwest::Client::new();
    let run = |path: &'static str, token: Option<&'static str>| {
        let mut request = client
            .post(format!("{url}{path}"))
            .header("content-type", "application/json")
            .body(input_body("r"));
        if let Some(token) = token {
            request = request.header("authorization", token);
        }
        request.send()
    };
    assert_eq!(run("/agents/a", None).await.unwrap().status(), 401);
    for (path, run_id) in [("/agents/a", "a-r"), ("/agents/b", "b-r")] {
        let body = run(path, Some("Bearer secret"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(data_events(&body)[0]["runId"], run_id, "{path}");
    }
    let health = client
        .get(format!("{url}/health"))
        .header("authorization", "Bearer secret")
        .send()
        .await
        .unwrap();
    assert_eq!(health.text().await.unwrap(), "ok");
}

#[tokio::test]
async fn a_chunked_body_over_the_limit_is_refused_while_reading() {
    let url = spawn_url(
        AgentEndpoint::new(script)
            .with_body_limit(1024)
            .into_router(),
    )
    .await;
    // No Content-Length: the limit is enforced as the chunks arrive.
    let pieces: Vec<Result<Vec<u8>, std::io::Error>> =
        (0..8).map(|_| Ok(vec![b' '; 300])).collect();
    let response = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .body(reqwest::Body::wrap_stream(futures::stream::iter(pieces)))
        .send()
        .await
        .unwrap();
    let (status, body) = error_of(response).await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (413, Some("payload-too-large"))
    );

    // A chunked body under the limit is read whole.
    let pieces: Vec<Result<Vec<u8>, std::io::Error>> = input_body("r")
        .into_bytes()
        .chunks(7)
        .map(|c| Ok(c.to_vec()))
        .collect();
    let response = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .body(reqwest::Body::wrap_stream(futures::stream::iter(pieces)))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(data_events(&response.text().await.unwrap()).len(), 5);
}

/// A run with what a pre-1.0 client cannot read: reasoning, a subagent, an empty delta, an
/// interrupt outcome.
fn modern(input: RunAgentInput) -> impl Stream<Item = Event> + Send + 'static {
    let (t, r) = (input.thread_id, input.run_id);
    futures::stream::iter(vec![
        Event::run_started(t.clone(), r.clone()),
        Event::reasoning_start("s1"),
        Event::reasoning_message_start("rm1"),
        Event::reasoning_message_content("rm1", "thinking"),
        Event::reasoning_message_end("rm1"),
        Event::reasoning_end("s1"),
        Event::subagent_started("sub-1", "critic"),
        Event::text_message_start("m1", TextMessageRole::Assistant).with_subagent_run_id("sub-1"),
        Event::text_message_content("m1", "").with_subagent_run_id("sub-1"),
        Event::text_message_content("m1", "hi").with_subagent_run_id("sub-1"),
        Event::text_message_end("m1").with_subagent_run_id("sub-1"),
        Event::subagent_finished("sub-1"),
        ag_ui::RunFinishedEvent::new(t, r)
            .with_outcome(ag_ui::RunFinishedOutcome::interrupt(vec![
                ag_ui::Interrupt::new("i1", "confirmation"),
            ]))
            .into(),
    ])
}

fn versioned_body(version: Option<&str>) -> String {
    let mut body: Value = serde_json::from_str(&input_body("r1")).unwrap();
    if let Some(version) = version {
        body["protocolVersion"] = json!(version);
    }
    body.to_string()
}

#[tokio::test]
async fn a_1_0_client_gets_the_stream_untouched_and_a_pre_1_0_client_a_downgraded_one() {
    let url = spawn_url(
        Router::new()
            .agent("/agent", AgentEndpoint::new(modern).with_event_ids(true))
            .agent(
                "/plain",
                AgentEndpoint::new(modern).with_version_downgrade(false),
            ),
    )
    .await;
    let events: Vec<Event> = modern(RunAgentInput::new("t1", "r1")).collect().await;
    let untouched: String = events
        .iter()
        .map(|e| format!("data: {}\n\n", e.to_json()))
        .collect();

    // protocolVersion "1.0" (and later): byte for byte what the agent sent.
    for version in ["1.0", "1.1"] {
        let body = post(&format!("{url}/plain"), versioned_body(Some(version)))
            .await
            .text()
            .await
            .unwrap();
        assert_eq!(body, untouched, "{version}");
    }
    let body = post(&format!("{url}/agent"), versioned_body(Some("1.0")))
        .await
        .text()
        .await
        .unwrap();
    let numbered: String = events
        .iter()
        .enumerate()
        .map(|(i, e)| format!("id: {}\ndata: {}\n\n", i + 1, e.to_json()))
        .collect();
    assert_eq!(body, numbered);
    // Downgrade turned off: untouched even without a version.
    let body = post(&format!("{url}/plain"), versioned_body(None))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(body, untouched);

    // No version, or one below 1.0: what 0.0.42, 0.0.52 and 0.0.59 all accept.
    for version in [None, Some("0.9")] {
        let body = post(&format!("{url}/agent"), versioned_body(version))
            .await
            .text()
            .await
            .unwrap();
        let ids: Vec<&str> = body
            .lines()
            .filter_map(|l| l.strip_prefix("id: "))
            .collect();
        assert_eq!(
            ids,
            [
                "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13"
            ]
        );
        assert_eq!(
            data_events(&body),
            vec![
                json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"}),
                json!({"type": "THINKING_START"}),
                json!({"type": "THINKING_TEXT_MESSAGE_START"}),
                json!({"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "thinking"}),
                json!({"type": "THINKING_TEXT_MESSAGE_END"}),
                json!({"type": "THINKING_END"}),
                json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant", "subagentRunId": "sub-1"}),
                json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi", "subagentRunId": "sub-1"}),
                json!({"type": "TEXT_MESSAGE_END", "messageId": "m1", "subagentRunId": "sub-1"}),
                json!({"type": "TEXT_MESSAGE_START", "messageId": "r1-interrupt", "role": "assistant"}),
                json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "r1-interrupt",
                       "delta": "Paused, waiting for your answer (confirmation): interrupt i1"}),
                json!({"type": "TEXT_MESSAGE_END", "messageId": "r1-interrupt"}),
                json!({"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1",
                       "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "confirmation"}]}}),
            ],
            "{version:?}"
        );
    }
}

/// 200 text deltas, all ready at once.
fn chatty(input: RunAgentInput) -> impl Stream<Item = Event> + Send + 'static {
    let (t, r) = (input.thread_id, input.run_id);
    let mut events = vec![
        Event::run_started(t.clone(), r.clone()),
        Event::text_message_start("m", TextMessageRole::Assistant),
    ];
    events.extend((0..200).map(|i| Event::text_message_content("m", format!("w{i} "))));
    events.push(Event::text_message_end("m"));
    events.push(Event::run_finished(t, r));
    futures::stream::iter(events)
}

/// 20 text deltas 5 ms apart.
fn trickle(input: RunAgentInput) -> impl Stream<Item = Event> + Send + 'static {
    let (t, r) = (input.thread_id, input.run_id);
    let head = futures::stream::iter(vec![
        Event::run_started(t.clone(), r.clone()),
        Event::text_message_start("m", TextMessageRole::Assistant),
    ]);
    let deltas = futures::stream::iter(0..20).then(|i| async move {
        tokio::time::sleep(Duration::from_millis(5)).await;
        Event::text_message_content("m", format!("w{i} "))
    });
    let tail = futures::stream::iter(vec![
        Event::text_message_end("m"),
        Event::run_finished(t, r),
    ]);
    head.chain(deltas).chain(tail)
}

fn text_of(events: &[Value]) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn coalescing_sends_fewer_frames_with_the_same_text() {
    let url = spawn_url(
        Router::new()
            .agent("/plain", AgentEndpoint::new(chatty))
            .agent(
                "/joined",
                AgentEndpoint::new(chatty).with_coalescing(16 * 1024, Duration::ZERO),
            )
            .agent(
                "/small",
                AgentEndpoint::new(chatty).with_coalescing(100, Duration::ZERO),
            )
            .agent(
                "/trickle",
                AgentEndpoint::new(trickle).with_coalescing(16 * 1024, Duration::ZERO),
            )
            .agent(
                "/window",
                AgentEndpoint::new(trickle).with_coalescing(16 * 1024, Duration::from_millis(40)),
            ),
    )
    .await;
    let body = |path: &'static str| {
        let url = url.clone();
        async move {
            let body = post(&format!("{url}{path}"), versioned_body(Some("1.0")))
                .await
                .text()
                .await
                .unwrap();
            (body.len(), data_events(&body))
        }
    };
    let (plain_bytes, plain) = body("/plain").await;
    let (joined_bytes, joined) = body("/joined").await;
    let (_, small) = body("/small").await;
    assert_eq!(plain.len(), 204);
    assert_eq!(joined.len(), 5, "{joined:?}");
    assert!(
        joined_bytes * 10 < plain_bytes,
        "{joined_bytes} vs {plain_bytes}"
    );
    assert_eq!(text_of(&joined), text_of(&plain));
    // At most 100 bytes of text per event.
    assert!(small.len() > 5 && small.len() < 30, "{}", small.len());
    assert!(
        small
            .iter()
            .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
            .all(|e| e["delta"].as_str().unwrap().len() <= 100)
    );
    assert_eq!(text_of(&small), text_of(&plain));

    // Deltas 5 ms apart: without a window each goes as it comes; a 40 ms window joins them.
    let (_, trickled) = body("/trickle").await;
    let (_, windowed) = body("/window").await;
    assert_eq!(text_of(&trickled), text_of(&windowed));
    let deltas = |events: &[Value]| {
        events
            .iter()
            .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
            .count()
    };
    assert!(deltas(&trickled) >= 15, "{}", deltas(&trickled));
    assert!(deltas(&windowed) <= 8, "{}", deltas(&windowed));
}

#[tokio::test]
async fn a_filter_redacts_and_drops_without_breaking_the_stream() {
    let endpoint = AgentEndpoint::new(modern).with_filter(|event: &Event| match event {
        Event::TextMessageContent(e) => ag_ui::server::transform::Verdict::Replace(
            Event::text_message_content(e.message_id.clone(), "[redacted]")
                .with_subagent_run_id("sub-1"),
        ),
        // Reasoning goes, with its messages; a drop of RUN_FINISHED is refused.
        Event::ReasoningStart(_) | Event::ReasoningMessageStart(_) | Event::RunFinished(_) => {
            ag_ui::server::transform::Verdict::Drop
        }
        _ => ag_ui::server::transform::Verdict::Keep,
    });
    let url = spawn_url(endpoint.into_router()).await;
    let body = post(&url, versioned_body(Some("1.0")))
        .await
        .text()
        .await
        .unwrap();
    let events: Vec<Event> = data_events(&body)
        .iter()
        .map(|v| Event::from_value(v).unwrap())
        .collect();
    ag_ui::verify::verify_all(&events).unwrap();
    let types: Vec<&str> = events.iter().map(|e| e.event_type().as_str()).collect();
    assert_eq!(
        types,
        [
            "RUN_STARTED",
            "SUBAGENT_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "SUBAGENT_FINISHED",
            "RUN_FINISHED",
        ]
    );
    assert_eq!(
        events[3],
        Event::text_message_content("m1", "[redacted]").with_subagent_run_id("sub-1")
    );
}
