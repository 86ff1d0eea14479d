//! The model bridge against a mock OpenAI-compatible server (axum on 127.0.0.1:0) replaying
//! streams shaped like real providers'. Every AG-UI stream produced passes the verifier and
//! equals the expected event list. `run_tools`: tools that work on the run (state published
//! while they work, the turn handed to the page) and predicted state.

use std::sync::Arc;
use std::time::Duration;

use ag_ui::Timeouts;
use ag_ui::llm::{
    BackendTool, ChatOptions, Connections, HttpVersion, LlmAgent, OpenAiClient, ToolError,
    ToolOutput, from_chat_messages, to_chat_messages,
};
use ag_ui::server::Runner;
use ag_ui::{
    Content, ContentPart, Context, Event, MediaPart, Message, MessageId, PartSource, RunAgentInput,
    RunErrorEvent, RunFinishedEvent, RunFinishedOutcome, RunStartedEvent, TextMessageRole,
    TokenUsage, Tool, ToolCall, ToolCallStartEvent, verify,
};
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[path = "../support/mod.rs"]
mod support;

mod keep_alive;
mod run_tools;
use support::openai_mock::{self, Mock, Reply, chunk, finish, sse, usage};

async fn mock(replies: Vec<Reply>) -> (Arc<Mock>, OpenAiClient) {
    let (mock, base) = openai_mock::serve(replies).await;
    (mock, OpenAiClient::new(base).with_api_key("test-key"))
}

fn input() -> RunAgentInput {
    RunAgentInput::new("t", "r").with_messages(vec![Message::user("u1", "Hi")])
}

async fn run<S>(agent: LlmAgent<S>, input: RunAgentInput) -> Vec<Event>
where
    S: Default + Serialize + serde::de::DeserializeOwned + Clone + Send + Sync + 'static,
{
    let events: Vec<Event> = Runner::new(agent).run(input).unwrap().collect().await;
    verify::verify_all(&events).unwrap_or_else(|v| panic!("{v}\n{events:#?}"));
    events
}

fn started() -> Event {
    RunStartedEvent::new("t", "r")
        .with_protocol_version("1.0")
        .into()
}

fn finished(usage: Option<TokenUsage>, pending: Option<Vec<&str>>) -> Event {
    let mut event = RunFinishedEvent::new("t", "r").with_outcome(RunFinishedOutcome::Success {
        pending_tool_call_ids: pending.map(|p| p.into_iter().map(Into::into).collect()),
    });
    event.usage = usage.map(|u| vec![u]);
    event.into()
}

fn mock_usage(input: u64, output: u64) -> TokenUsage {
    TokenUsage::new("openai", "mock-model").with_tokens(input, output)
}

fn text(id: &str, deltas: &[&str]) -> Vec<Event> {
    let mut events = vec![Event::text_message_start(id, TextMessageRole::Assistant)];
    events.extend(deltas.iter().map(|d| Event::text_message_content(id, *d)));
    events.push(Event::text_message_end(id));
    events
}

fn call_start(id: &str, name: &str, parent: &str) -> Event {
    ToolCallStartEvent::new(id, name)
        .with_parent_message_id(parent)
        .into()
}

fn error(events: &[Event]) -> &RunErrorEvent {
    match events.last() {
        Some(Event::RunError(e)) => e,
        other => panic!("the run did not end with RUN_ERROR: {other:?}"),
    }
}

#[tokio::test]
async fn plain_text_with_usage_in_a_final_chunk_without_choices() {
    let (mock, client) = mock(vec![Reply::Sse(sse(&[
        chunk(json!({"role": "assistant", "content": ""})),
        chunk(json!({"content": "Hello"})),
        chunk(json!({"content": " there."})),
        finish("stop"),
        usage(12, 3),
    ]))])
    .await;
    let agent = LlmAgent::<()>::new(client, "mock-model").with_system_prompt("Be brief.");
    let events = run(agent, input()).await;

    let mut expected = vec![started()];
    expected.extend(text("r-msg-1", &["Hello", " there."]));
    expected.push(finished(Some(mock_usage(12, 3)), None));
    assert_eq!(events, expected);

    let requests = mock.requests.lock().unwrap();
    let (headers, body) = &requests[0];
    assert_eq!(headers["authorization"], "Bearer test-key");
    assert_eq!(body["model"], "mock-model");
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(
        body["messages"],
        json!([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}])
    );
    assert!(body.get("tools").is_none());
}

#[tokio::test]
async fn reasoning_content_then_text_closes_the_reasoning_first() {
    let (_, client) = mock(vec![Reply::Sse(sse(&[
        chunk(json!({"role": "assistant", "content": null, "reasoning_content": "The user"})),
        chunk(json!({"content": null, "reasoning_content": " greets me."})),
        chunk(json!({"content": "Hi!", "reasoning_content": null})),
        finish("stop"),
    ]))])
    .await;
    let events = run(LlmAgent::<()>::new(client, "mock-model"), input()).await;

    let mut expected = vec![
        started(),
        Event::reasoning_start("r-msg-1"),
        Event::reasoning_message_start("r-msg-1"),
        Event::reasoning_message_content("r-msg-1", "The user"),
        Event::reasoning_message_content("r-msg-1", " greets me."),
        Event::reasoning_message_end("r-msg-1"),
        Event::reasoning_end("r-msg-1"),
    ];
    expected.extend(text("r-msg-2", &["Hi!"]));
    expected.push(finished(None, None));
    assert_eq!(events, expected);
}

#[tokio::test]
async fn openrouter_style_reasoning_field_survives() {
    let (_, client) = mock(vec![Reply::Sse(sse(&[
        chunk(json!({"reasoning": "Thinking"})),
        chunk(json!({"content": "Done"})),
        finish("stop"),
    ]))])
    .await;
    let events = run(LlmAgent::<()>::new(client, "mock-model"), input()).await;
    assert_eq!(
        events[3],
        Event::reasoning_message_content("r-msg-1", "Thinking")
    );
    assert_eq!(
        events[6],
        Event::text_message_start("r-msg-2", TextMessageRole::Assistant)
    );
}

/// A frontend tool the client runs.
fn frontend_tool(name: &str) -> Tool {
    Tool::new(name, format!("{name} on the client")).with_parameters(json!({"type": "object"}))
}

#[tokio::test]
async fn parallel_tool_calls_split_across_chunks_end_the_run_with_pending_calls() {
    let (mock, client) = mock(vec![Reply::Sse(sse(&[
        chunk(json!({"role": "assistant", "content": "Checking."})),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_a", "type": "function",
                                     "function": {"name": "get_wea", "arguments": ""}}]}),
        ),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"name": "ther"}}]})),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\":"}}]})),
        chunk(
            json!({"tool_calls": [{"index": 1, "id": "call_b", "type": "function",
                                     "function": {"name": "get_time", "arguments": ""}}]}),
        ),
        chunk(
            json!({"tool_calls": [{"index": 1, "function": {"arguments": "{\"zone\":\"CET\"}"}}]}),
        ),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"Oslo\"}"}}]})),
        finish("tool_calls"),
        usage(40, 20),
    ]))])
    .await;
    let input = input().with_tools(vec![
        frontend_tool("get_weather"),
        frontend_tool("get_time"),
    ]);
    let events = run(LlmAgent::<()>::new(client, "mock-model"), input).await;

    let mut expected = vec![started()];
    expected.extend(text("r-msg-1", &["Checking."]));
    expected.extend([
        call_start("r-call-1", "get_weather", "r-msg-1"),
        Event::tool_call_args("r-call-1", "{\"city\":"),
        call_start("r-call-2", "get_time", "r-msg-1"),
        Event::tool_call_args("r-call-2", "{\"zone\":\"CET\"}"),
        Event::tool_call_args("r-call-1", "\"Oslo\"}"),
        Event::tool_call_end("r-call-1"),
        Event::tool_call_end("r-call-2"),
        finished(Some(mock_usage(40, 20)), Some(vec!["r-call-1", "r-call-2"])),
    ]);
    assert_eq!(events, expected);

    let requests = mock.requests.lock().unwrap();
    assert_eq!(
        requests[0].1["tools"][1],
        json!({"type": "function", "function": {"name": "get_time",
               "description": "get_time on the client", "parameters": {"type": "object"}}})
    );
}

#[tokio::test]
async fn the_next_run_carries_the_frontend_result_to_the_model() {
    let (mock, client) = mock(vec![Reply::Sse(sse(&[
        chunk(json!({"content": "It is sunny."})),
        finish("stop"),
    ]))])
    .await;
    let assistant = ag_ui::AssistantMessage::new("r-msg-1")
        .with_content("Checking.")
        .with_tool_calls(vec![ToolCall::new(
            "r-call-1",
            "get_weather",
            r#"{"city":"Oslo"}"#,
        )]);
    let input = RunAgentInput::new("t", "r")
        .with_tools(vec![frontend_tool("get_weather")])
        .with_messages(vec![
            Message::user("u1", "Weather?"),
            Message::Assistant(assistant),
            Message::tool("tool-1", "r-call-1", "sunny"),
        ]);
    let events = run(LlmAgent::<()>::new(client, "mock-model"), input).await;
    assert_eq!(events.last(), Some(&finished(None, None)));

    let requests = mock.requests.lock().unwrap();
    assert_eq!(
        requests[0].1["messages"],
        json!([
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": "Checking.", "tool_calls": [
                {"id": "r-call-1", "type": "function",
                 "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}]},
            {"role": "tool", "content": "sunny", "tool_call_id": "r-call-1"},
        ])
    );
}

#[tokio::test]
async fn a_429_is_retried_after_retry_after_and_then_succeeds() {
    let (mock, client) = mock(vec![
        Reply::Status(
            429,
            vec![("retry-after", "0")],
            json!({"error": {"message": "slow down", "type": "rate_limit"}}).to_string(),
        ),
        Reply::Sse(sse(&[chunk(json!({"content": "ok"})), finish("stop")])),
    ])
    .await;
    let events = run(LlmAgent::<()>::new(client, "mock-model"), input()).await;
    let mut expected = vec![started()];
    expected.extend(text("r-msg-1", &["ok"]));
    expected.push(finished(None, None));
    assert_eq!(events, expected);
    assert_eq!(mock.requests.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_429_past_the_retries_is_a_rate_limit_error_naming_retry_after() {
    let (mock, client) = mock(vec![Reply::Status(
        429,
        vec![("retry-after", "7")],
        json!({"error": {"message": "slow down", "code": "rate_limit_exceeded"}}).to_string(),
    )])
    .await;
    let agent = LlmAgent::<()>::new(client.with_max_retries(0), "mock-model");
    let events = run(agent, input()).await;
    assert_eq!(events.len(), 2);
    let e = error(&events);
    assert_eq!(e.code.as_deref(), Some("provider_rate_limited"));
    assert!(e.message.contains("retry after 7s"), "{}", e.message);
    assert!(
        e.message.contains("slow down (rate_limit_exceeded)"),
        "{}",
        e.message
    );
    assert_eq!(mock.requests.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn an_http_error_carries_the_providers_message() {
    let (_, client) = mock(vec![Reply::Status(
        401,
        vec![],
        json!({"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}})
            .to_string(),
    )])
    .await;
    let events = run(LlmAgent::<()>::new(client, "mock-model"), input()).await;
    let e = error(&events);
    assert_eq!(e.code.as_deref(), Some("provider_http_error"));
    assert_eq!(
        e.message,
        "the provider answered 401 Unauthorized: Incorrect API key provided (invalid_api_key)"
    );
}

/// A `307` to another origin is not followed: the conversation is not posted there (it was,
/// with Authorization stripped), and the run ends with the provider's answer, as `HttpAgent`
/// refuses such a redirect.
#[tokio::test]
async fn a_redirect_to_another_origin_is_not_followed() {
    let (elsewhere_mock, elsewhere) = openai_mock::serve(vec![Reply::Sse(sse(&[
        chunk(json!({"content": "stolen"})),
        finish("stop"),
    ]))])
    .await;
    let location: &'static str =
        Box::leak(format!("{elsewhere}/chat/completions").into_boxed_str());
    let (mock, client) = mock(vec![Reply::Status(
        307,
        vec![("location", location)],
        String::new(),
    )])
    .await;
    let events = run(LlmAgent::<()>::new(client, "mock-model"), input()).await;
    let e = error(&events);
    assert_eq!(
        e.code.as_deref(),
        Some("provider_http_error"),
        "{}",
        e.message
    );
    assert!(e.message.contains("307"), "{}", e.message);
    assert_eq!(mock.requests.lock().unwrap().len(), 1);
    assert!(elsewhere_mock.requests.lock().unwrap().is_empty());
}

#[tokio::test]
async fn an_error_object_mid_stream_closes_the_message_and_ends_with_run_error() {
    let mut body = sse(&[
        chunk(json!({"content": "Partial"})),
        json!({"error": {"message": "The server is overloaded", "type": "server_error",
                         "code": 503}}),
    ]);
    body.pop(); // no [DONE] after an error
    let (_, client) = mock(vec![Reply::Sse(body)]).await;
    let events = run(LlmAgent::<()>::new(client, "mock-model"), input()).await;

    let mut expected = vec![started()];
    expected.extend(text("r-msg-1", &["Partial"]));
    expected.push(
        RunErrorEvent::new(
            "the provider reported an error mid-stream (503): The server is overloaded",
        )
        .with_code("provider_error")
        .into(),
    );
    assert_eq!(events, expected);
}

#[tokio::test]
async fn a_garbage_chunk_is_a_malformed_chunk_error_naming_the_chunk() {
    let mut body = sse(&[chunk(json!({"content": "Hi"}))]);
    body.insert(1, b"data: {\"choices\": [oops\n\n".to_vec());
    let (_, client) = mock(vec![Reply::Sse(body)]).await;
    let events = run(LlmAgent::<()>::new(client, "mock-model"), input()).await;
    assert_eq!(&events[1..4], &text("r-msg-1", &["Hi"])[..]);
    let e = error(&events);
    assert_eq!(e.code.as_deref(), Some("provider_malformed_chunk"));
    assert!(
        e.message
            .starts_with("provider chunk 1 is not a chat completion chunk"),
        "{}",
        e.message
    );
}

#[tokio::test]
async fn a_stream_without_done_is_incomplete_not_success() {
    let mut body = sse(&[chunk(json!({"content": "Hi"})), finish("stop")]);
    body.pop();
    let (_, client) = mock(vec![Reply::Sse(body)]).await;
    let events = run(LlmAgent::<()>::new(client, "mock-model"), input()).await;
    let e = error(&events);
    assert_eq!(e.code.as_deref(), Some("provider_incomplete_stream"));
    assert_eq!(events.len(), 5);
}

#[tokio::test]
async fn multi_byte_characters_split_across_deltas_and_bytes_arrive_whole() {
    // "Grüße 👋" in deltas cut between characters, and the body cut inside them.
    let body: Vec<u8> = sse(&[
        chunk(json!({"content": "Grü"})),
        chunk(json!({"content": "ße 👋"})),
        finish("stop"),
    ])
    .concat();
    let cut_in_u = body.windows(2).position(|w| w == "ü".as_bytes()).unwrap() + 1;
    let wave = "👋".as_bytes();
    let cut_in_wave = body.windows(4).position(|w| w == wave).unwrap() + 2;
    let pieces = vec![
        body[..cut_in_u].to_vec(),
        body[cut_in_u..cut_in_wave].to_vec(),
        body[cut_in_wave..].to_vec(),
    ];
    let (_, client) = mock(vec![Reply::Sse(pieces)]).await;
    let events = run(LlmAgent::<()>::new(client, "mock-model"), input()).await;
    let mut expected = vec![started()];
    expected.extend(text("r-msg-1", &["Grü", "ße 👋"]));
    expected.push(finished(None, None));
    assert_eq!(events, expected);
}

#[tokio::test]
async fn a_silent_provider_times_out() {
    let (tx, _rx) = tokio::sync::oneshot::channel();
    let (_, client) = mock(vec![Reply::Hang(
        vec![format!("data: {}\n\n", chunk(json!({"content": "Hi"}))).into_bytes()],
        tx,
    )])
    .await;
    let client = client.with_idle_timeout(Duration::from_millis(300));
    let events = run(LlmAgent::<()>::new(client, "mock-model"), input()).await;
    assert_eq!(&events[1..4], &text("r-msg-1", &["Hi"])[..]);
    let e = error(&events);
    assert_eq!(e.code.as_deref(), Some("provider_timeout"));
    assert!(e.message.contains("(idle time-out)"), "{}", e.message);
}

#[tokio::test]
async fn a_request_past_its_total_timeout_is_stopped_there_though_never_idle_that_long() {
    let (tx, _rx) = tokio::sync::oneshot::channel();
    let (_, client) = mock(vec![Reply::Hang(
        vec![format!("data: {}\n\n", chunk(json!({"content": "Hi"}))).into_bytes()],
        tx,
    )])
    .await;
    let client = client.with_timeouts(
        Timeouts::default()
            .with_idle(Duration::from_secs(30))
            .with_total(Duration::from_millis(400)),
    );
    let started = std::time::Instant::now();
    let events = run(LlmAgent::<()>::new(client, "mock-model"), input()).await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(&events[1..4], &text("r-msg-1", &["Hi"])[..]);
    let e = error(&events);
    assert_eq!(e.code.as_deref(), Some("provider_timeout"));
    assert!(
        e.message
            .contains("took longer than 400ms (total time-out)"),
        "{}",
        e.message
    );
}

#[tokio::test]
async fn a_429_asking_to_wait_past_the_total_timeout_is_not_waited_for() {
    let (mock, client) = mock(vec![
        Reply::Status(429, vec![("retry-after", "2")], String::new()),
        Reply::Sse(sse(&[chunk(json!({"content": "late"})), finish("stop")])),
    ])
    .await;
    // Two seconds is within the retry budget (30 s) but not within the total time-out.
    let client = client.with_timeout(Duration::from_secs(1));
    let started = std::time::Instant::now();
    let events = run(LlmAgent::<()>::new(client, "mock-model"), input()).await;
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    let e = error(&events);
    assert_eq!(e.code.as_deref(), Some("provider_rate_limited"));
    assert!(e.message.contains("retry after 2s"), "{}", e.message);
    assert_eq!(mock.requests.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn requests_go_through_the_client_given() {
    let (mock, client) = mock(vec![Reply::Sse(sse(&[
        chunk(json!({"content": "ok"})),
        finish("stop"),
    ]))])
    .await;
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("x-pool", "mine".parse().unwrap());
    let given = reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap();
    // The given client is kept whatever the time-outs set after it; the widest total
    // time-out is no limit, not an overflow.
    let client = client.with_client(given).with_timeouts(
        Timeouts::default()
            .with_connect(Duration::from_secs(1))
            .with_total(Duration::MAX),
    );
    let events = run(LlmAgent::<()>::new(client, "mock-model"), input()).await;
    assert_eq!(events.last(), Some(&finished(None, None)));
    let requests = mock.requests.lock().unwrap();
    assert_eq!(requests[0].0.get("x-pool").unwrap(), "mine");
    assert_eq!(
        requests[0].0.get("authorization").unwrap(),
        "Bearer test-key"
    );
}

#[tokio::test]
async fn cancelling_the_run_drops_the_provider_request_at_once() {
    let (dropped_tx, dropped_rx) = tokio::sync::oneshot::channel();
    let (_, client) = mock(vec![Reply::Hang(
        vec![format!("data: {}\n\n", chunk(json!({"content": "Hi"}))).into_bytes()],
        dropped_tx,
    )])
    .await;
    let events = Runner::new(LlmAgent::<()>::new(client, "mock-model"))
        .run(input())
        .unwrap();
    let seen = openai_mock::cancel_at_first_content(events, dropped_rx).await;
    assert_eq!(seen[3], Event::text_message_end("r-msg-1"));
    let Some(Event::RunFinished(done)) = seen.last() else {
        panic!("{seen:?}")
    };
    assert_eq!(done.outcome, Some(RunFinishedOutcome::Cancelled));
}

/// A model (served over HTTP/2 only) whose every answer streams a first chunk, then holds its
/// end until `runs` requests have come in: the runs end only if all of them stream at once.
/// Also the count of requests that came in.
fn holding_model(runs: usize) -> (axum::Router, tokio::sync::watch::Receiver<usize>) {
    use axum::body::{Body, Bytes};

    let (arrived, seen) = tokio::sync::watch::channel(0usize);
    let arrived = Arc::new(arrived);
    let answer = move |_request: Bytes| {
        let arrived = Arc::clone(&arrived);
        async move {
            arrived.send_modify(|n| *n += 1);
            let mut all_in = arrived.subscribe();
            let first = format!("data: {}\n\n", chunk(json!({"content": "Hi"})));
            let rest = format!("data: {}\n\ndata: [DONE]\n\n", finish("stop"));
            let pieces = futures::stream::once(async move { Bytes::from(first) }).chain(
                futures::stream::once(async move {
                    let _ = all_in.wait_for(|n| *n >= runs).await;
                    Bytes::from(rest)
                }),
            );
            axum::response::Response::builder()
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(
                    pieces.map(Ok::<_, std::convert::Infallible>),
                ))
                .unwrap()
        }
    };
    let router = axum::Router::new().route("/v1/chat/completions", axum::routing::post(answer));
    (router, seen)
}

/// `runs` concurrent runs of the bridge asking `client`, each with its own run id.
fn concurrent_runs(
    client: OpenAiClient,
    runs: usize,
) -> impl std::future::Future<Output = Vec<Vec<Event>>> {
    let runner = Runner::new(LlmAgent::<()>::new(client, "mock-model"));
    futures::future::join_all((0..runs).map(|i| {
        let input =
            RunAgentInput::new("t", format!("r{i}")).with_messages(vec![Message::user("u1", "Hi")]);
        runner.run(input).unwrap().collect::<Vec<Event>>()
    }))
}

#[tokio::test]
async fn past_the_models_stream_limit_runs_open_another_connection_and_none_waits() {
    const RUNS: usize = 6;
    // The model lets two streams open on a connection.
    let h2 = Connections::default().with_version(HttpVersion::Http2);

    // Without the pool (one connection carries every run), the runs past the limit wait for
    // a stream: two requests reach the model, the rest are queued by hyper (hyper#2197).
    let (router, arrived) = holding_model(RUNS);
    let (origin, connections) = support::http::spawn_counted(router, 2).await;
    let client = OpenAiClient::new(format!("{origin}/v1"))
        .with_connections(h2.with_streams_per_connection(RUNS));
    let queued = tokio::spawn(concurrent_runs(client, RUNS));
    let mut seen = arrived.clone();
    tokio::time::timeout(Duration::from_secs(10), seen.wait_for(|n| *n >= 2))
        .await
        .expect("two requests reach the model")
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(*arrived.borrow(), 2, "the model's stream limit holds");
    assert_eq!(connections.load(std::sync::atomic::Ordering::SeqCst), 1);
    queued.abort();

    // With two streams a connection, every run streams at once, three connections for six.
    let (router, arrived) = holding_model(RUNS);
    let (origin, connections) = support::http::spawn_counted(router, 2).await;
    let client = OpenAiClient::new(format!("{origin}/v1"))
        .with_connections(h2.with_streams_per_connection(2));
    let all = tokio::time::timeout(Duration::from_secs(20), concurrent_runs(client, RUNS))
        .await
        .unwrap_or_else(|_| {
            panic!(
                "a run waited for another: {} of {RUNS} requests reached the model",
                *arrived.borrow()
            )
        });
    for events in &all {
        verify::verify_all(events).unwrap_or_else(|v| panic!("{v}\n{events:#?}"));
        let Some(Event::RunFinished(done)) = events.last() else {
            panic!("{events:#?}")
        };
        assert!(
            matches!(done.outcome, Some(RunFinishedOutcome::Success { .. })),
            "{events:#?}"
        );
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::TextMessageContent(c) if c.delta == "Hi"))
        );
    }
    assert_eq!(
        connections.load(std::sync::atomic::Ordering::SeqCst),
        RUNS / 2
    );
}

#[tokio::test]
async fn over_http2_runs_share_a_connection_even_with_no_idle_connections_kept() {
    const RUNS: usize = 4;
    // hyper shares an HTTP/2 connection through its idle pool: 0 idle is taken as 1 there.
    let (router, _arrived) = holding_model(RUNS);
    let (origin, connections) = support::http::spawn_counted(router, 100).await;
    let client = OpenAiClient::new(format!("{origin}/v1")).with_connections(
        Connections::default()
            .with_version(HttpVersion::Http2)
            .with_max_idle_connections(0),
    );
    let all = tokio::time::timeout(Duration::from_secs(20), concurrent_runs(client, RUNS))
        .await
        .expect("every run streams at once");
    assert!(all.iter().all(|events| matches!(
        events.last(),
        Some(Event::RunFinished(done)) if matches!(done.outcome, Some(RunFinishedOutcome::Success { .. }))
    )));
    assert_eq!(connections.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test]
async fn over_http1_runs_that_finished_leave_their_connection_to_the_next_up_to_the_idle_bound() {
    for (idle, expected) in [(1, 1), (0, 3)] {
        let replies = (0..3)
            .map(|_| Reply::Sse(sse(&[chunk(json!({"content": "ok"})), finish("stop")])))
            .collect();
        let (origin, connections) =
            support::http::spawn_counted(openai_mock::router(Mock::new(replies)), 100).await;
        let client = OpenAiClient::new(format!("{origin}/v1"))
            .with_connections(Connections::default().with_max_idle_connections(idle));
        let agent = LlmAgent::<()>::new(client, "mock-model");
        let runner = Runner::new(agent);
        for _ in 0..3 {
            let events: Vec<Event> = runner.run(input()).unwrap().collect().await;
            assert_eq!(events.last(), Some(&finished(None, None)));
        }
        assert_eq!(
            connections.load(std::sync::atomic::Ordering::SeqCst),
            expected,
            "{idle} idle connections kept"
        );
    }
}

/// The typed state of the tool-loop agent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Todos {
    items: Vec<String>,
}

/// Arguments of `add_todo`.
#[derive(Deserialize, schemars::JsonSchema)]
struct AddTodo {
    /// What to do.
    item: String,
}

fn todo_agent(client: OpenAiClient) -> LlmAgent<Todos> {
    LlmAgent::new(client, "mock-model").with_tool(BackendTool::new(
        "add_todo",
        "Adds an item to the list",
        |args: AddTodo, mut state: Todos| async move {
            if args.item.is_empty() {
                return Err(ToolError::new("the item is empty"));
            }
            state.items.push(args.item.clone());
            Ok(ToolOutput::text(format!("added {}", args.item)).with_state(state))
        },
    ))
}

fn call(index: u32, name: &str, arguments: &str) -> Value {
    chunk(
        json!({"tool_calls": [{"index": index, "id": format!("call_{index}"), "type": "function",
                                 "function": {"name": name, "arguments": arguments}}]}),
    )
}

#[tokio::test]
async fn the_loop_runs_backend_tools_updates_state_and_feeds_results_back() {
    let (mock, client) = mock(vec![
        Reply::Sse(sse(&[
            call(0, "add_todo", r#"{"item":"milk"}"#),
            call(1, "add_todo", r#"{"thing":1}"#),
            finish("tool_calls"),
            usage(10, 5),
        ])),
        Reply::Sse(sse(&[
            chunk(json!({"content": "Added milk."})),
            finish("stop"),
            usage(30, 4),
        ])),
    ])
    .await;
    let input = input()
        .with_context(vec![Context::new("today", "Monday")])
        .with_state(
            json!({"items": ["eggs", "a longer item, so a patch is smaller than a snapshot"]}),
        );
    let events = run(todo_agent(client), input).await;

    let patch: Vec<ag_ui::JsonPatchOperation> =
        serde_json::from_value(json!([{"op": "add", "path": "/items/2", "value": "milk"}]))
            .unwrap();
    let invalid =
        "Error: invalid arguments for tool `add_todo`: missing field `item` at line 1 column 11";
    let mut expected = vec![
        started(),
        call_start("r-call-1", "add_todo", "r-msg-1"),
        Event::tool_call_args("r-call-1", r#"{"item":"milk"}"#),
        call_start("r-call-2", "add_todo", "r-msg-1"),
        Event::tool_call_args("r-call-2", r#"{"thing":1}"#),
        Event::tool_call_end("r-call-1"),
        Event::tool_call_end("r-call-2"),
        Event::state_delta(patch),
        Event::tool_call_result("r-msg-2", "r-call-1", "added milk"),
        Event::tool_call_result("r-msg-3", "r-call-2", invalid),
    ];
    expected.extend(text("r-msg-4", &["Added milk."]));
    expected.push(finished(Some(mock_usage(40, 9)), None));
    assert_eq!(events, expected);

    let requests = mock.requests.lock().unwrap();
    let first = &requests[0].1;
    assert_eq!(
        first["messages"][0]["content"],
        "Context from the application:\n- today: Monday\n\nThe application's current state (JSON):\n{\"items\":[\"eggs\",\"a longer item, so a patch is smaller than a snapshot\"]}"
    );
    let schema = &first["tools"][0]["function"]["parameters"];
    assert_eq!(schema["properties"]["item"]["type"], "string");
    assert_eq!(schema["properties"]["item"]["description"], "What to do.");
    let second = &requests[1].1["messages"];
    assert_eq!(
        second[0]["content"],
        "Context from the application:\n- today: Monday\n\nThe application's current state (JSON):\n{\"items\":[\"eggs\",\"a longer item, so a patch is smaller than a snapshot\",\"milk\"]}",
        "the model sees the state as the tool left it"
    );
    assert_eq!(
        second[3],
        json!({"role": "tool", "content": "added milk", "tool_call_id": "r-call-1"})
    );
    assert_eq!(
        second[4],
        json!({"role": "tool", "content": invalid, "tool_call_id": "r-call-2"})
    );
}

#[tokio::test]
async fn the_loop_stops_at_its_turn_limit_with_an_error() {
    let again = || {
        Reply::Sse(sse(&[
            call(0, "add_todo", r#"{"item":"x"}"#),
            finish("tool_calls"),
        ]))
    };
    let (mock, client) = mock(vec![again(), again(), again()]).await;
    let events = run(todo_agent(client).with_max_turns(2), input()).await;
    assert_eq!(error(&events).code.as_deref(), Some("max_turns"));
    assert_eq!(mock.requests.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_turn_limit_of_zero_set_on_the_field_still_asks_the_model_once() {
    let again = || {
        Reply::Sse(sse(&[
            call(0, "add_todo", r#"{"item":"x"}"#),
            finish("tool_calls"),
        ]))
    };
    let (mock, client) = mock(vec![again(), again()]).await;
    let mut config = ag_ui::server::bridge::LoopConfig::default();
    config.max_turns = 0;
    let events = run(todo_agent(client).with_loop_config(config), input()).await;
    assert_eq!(error(&events).code.as_deref(), Some("max_turns"));
    assert_eq!(mock.requests.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn an_unknown_tool_and_a_truncated_answer() {
    let (_, client) = mock(vec![
        Reply::Sse(sse(&[call(0, "nope", "{}"), finish("tool_calls")])),
        Reply::Sse(sse(&[chunk(json!({"content": "Sor"})), finish("length")])),
    ])
    .await;
    let events = run(todo_agent(client), input()).await;
    assert!(events.contains(&Event::tool_call_result(
        "r-msg-2",
        "r-call-1",
        "Error: there is no tool named `nope`"
    )));
    assert_eq!(error(&events).code.as_deref(), Some("model_length"));
}

#[test]
fn message_conversion_round_trips_every_role_and_content_part() {
    let media = |source| MediaPart::new(source);
    let mut document = media(PartSource::Data {
        value: "JVBERi0=".into(),
        mime_type: "application/pdf".into(),
    });
    document.metadata = Some(json!({"filename": "a.pdf"}));
    let user = Content::Parts(vec![
        ContentPart::text("Look:"),
        ContentPart::Image(media(PartSource::Url {
            value: "https://example.com/a.png".into(),
            mime_type: None,
        })),
        ContentPart::Image(media(PartSource::Data {
            value: "iVBORw0=".into(),
            mime_type: "image/png".into(),
        })),
        ContentPart::Document(document),
        ContentPart::Document(media(PartSource::File {
            value: "file-123".into(),
            provider: None,
            mime_type: None,
        })),
        ContentPart::Audio(media(PartSource::Data {
            value: "UklGRg==".into(),
            mime_type: "audio/wav".into(),
        })),
    ]);
    let messages = vec![
        Message::system("m1", "Be brief."),
        Message::developer("m2", "Use tools."),
        Message::user("m3", user),
        Message::reasoning("m4", "They want a look."),
        Message::Assistant(
            ag_ui::AssistantMessage::new("m5")
                .with_content("Looking.")
                .with_tool_calls(vec![ToolCall::new("c1", "zoom", r#"{"x":1}"#)]),
        ),
        Message::tool("m6", "c1", "zoomed"),
        Message::tool("m7", "c1", Content::Parts(vec![ContentPart::text("part")])),
        Message::assistant("m8", "Done."),
        Message::reasoning("m9", "Trailing thought."),
    ];
    let options = ChatOptions::default().with_replay_reasoning(true);
    let chat = to_chat_messages(&messages, options).unwrap();
    assert_eq!(
        chat.len(),
        8,
        "the reasoning rides on the assistant message after it"
    );
    let mut n = 0;
    let back = from_chat_messages(&chat, || {
        n += 1;
        MessageId::new(format!("m{n}"))
    });
    assert_eq!(back, messages);
    // And the chat form survives the way back.
    assert_eq!(to_chat_messages(&back, options).unwrap(), chat);
    // As JSON, in the provider's shape.
    let json = serde_json::to_value(&chat).unwrap();
    assert_eq!(
        json[2]["content"][2]["image_url"]["url"],
        "data:image/png;base64,iVBORw0="
    );
    assert_eq!(
        json[2]["content"][3],
        json!({"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"}})
    );
    assert_eq!(
        json[2]["content"][5],
        json!({"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}})
    );
    assert_eq!(json[3]["reasoning_content"], "They want a look.");

    // Without replay, reasoning is not sent; activity never is.
    let plain = to_chat_messages(&messages, ChatOptions::default()).unwrap();
    assert_eq!(plain.len(), 7);
    assert!(
        !serde_json::to_string(&plain)
            .unwrap()
            .contains("reasoning_content")
    );
}

#[test]
fn content_the_chat_format_cannot_carry_is_a_typed_error_naming_where() {
    let video = Message::user(
        "u",
        Content::Parts(vec![
            ContentPart::text("see"),
            ContentPart::Video(MediaPart::new(PartSource::Url {
                value: "https://example.com/v.mp4".into(),
                mime_type: None,
            })),
        ]),
    );
    let err =
        to_chat_messages(&[Message::system("s", "x"), video], ChatOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ag_ui::llm::LlmErrorKind::Unsupported);
    assert!(
        err.message()
            .starts_with("message 1, content part 1: video"),
        "{}",
        err.message()
    );
}

#[tokio::test]
async fn unsupported_content_ends_the_run_with_run_error_before_any_request() {
    let (mock, client) = mock(vec![]).await;
    let input = RunAgentInput::new("t", "r").with_messages(vec![Message::user(
        "u",
        Content::Parts(vec![ContentPart::Video(MediaPart::new(PartSource::Url {
            value: "v".into(),
            mime_type: None,
        }))]),
    )]);
    let events = run(LlmAgent::<()>::new(client, "mock-model"), input).await;
    assert_eq!(error(&events).code.as_deref(), Some("unsupported_content"));
    assert!(mock.requests.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_frontend_tool_with_a_backend_tools_name_is_refused_before_the_model_is_asked() {
    let (mock, client) = mock(vec![]).await;
    let input = input().with_tools(vec![frontend_tool("add_todo")]);
    let events = run(todo_agent(client), input).await;
    let e = error(&events);
    assert_eq!(e.code.as_deref(), Some("tool_name_clash"));
    assert!(e.message.contains("`add_todo`"), "{}", e.message);
    assert!(mock.requests.lock().unwrap().is_empty());
}
