//! The client in the browser: crates/ag-ui-wasm's `HttpAgent`, built by `.ci/wasm` into
//! `crates/ag-ui-wasm/pkg/`, in headless Chromium (the harness of
//! `crates/ag-ui/tests/support/browser.rs`). The example page (`examples/browser/`) runs demo
//! turns against `ag-ui serve` (text, reasoning, a tool call, state deltas, subagents, an
//! interrupt and its resume) and aborts one mid-run; a non-AG-UI response, an error status, a
//! stream that ends before its run does and a connection cut mid-stream are rejected with the
//! messages the native client gives; the same streams through the wasm `HttpAgent` and the
//! reference `@ag-ui/client` 1.0.0 on one page (`crates/ag-ui-wasm/tests/browser/harness.html`)
//! end with deep-equal messages and state, the same subscribers on both see the same callbacks
//! in the same order with the same messages and state (promises awaited, `stopPropagation`,
//! returned messages and state, `agent`), both refuse to resume an expired interrupt
//! unless cancelled, and both resolve a failed run whose `onRunFailed` stops the failure's
//! propagation (and reject it otherwise); and the full pipeline on the benchmark workload is
//! timed in both, the ratio printed. Recorded (2 shared cores, debug test harness, release wasm
//! without wasm-opt, Chromium 156): the 97-message workload (9,996 events), best of 3, wasm
//! `HttpAgent` 30.6 ms against `@ag-ui/client` 3,969 ms (130x; 89x on a busier run). The wasm
//! client alone, with a subscriber of `onRunFinalized` only against none: 2.1x (38.2 ms
//! against 18.4 ms), where converting the conversation on every event made it 151x.
//!
//! Without `pkg/` (run `bash .ci/wasm --build-only`) or the reference packages (`npm ci
//! --prefix interop`), these tests skip saying so, except in CI, where that is a failure.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ag_ui::Event;
use ag_ui::client::{Conversation, HttpAgent};
use axum::Router;
use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::Value;

use crate::inspect::browser::{free_port, in_ci, js, skip_without_browser, with_browser};
use crate::inspect::wait_for;

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `true` (after saying why) when the wasm package or the reference packages are missing
/// outside CI; in CI their absence fails.
fn skip_without_pkg(suite: &str) -> bool {
    let needed = [
        (
            "crates/ag-ui-wasm/pkg/ag_ui_wasm.js",
            "bash .ci/wasm --build-only",
        ),
        (
            "interop/node_modules/@ag-ui/client/dist/index.mjs",
            "npm ci --prefix interop",
        ),
    ];
    for (file, how) in needed {
        if !root().join(file).is_file() {
            let reason = format!("{suite}: {file} is missing; build it with `{how}`");
            assert!(!in_ci(), "{reason} — CI=true, so this is a failure");
            eprintln!("SKIPPED {reason}");
            return true;
        }
    }
    skip_without_browser(suite)
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript",
        Some("wasm") => "application/wasm",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// A file of the repository (GET), trying `.js` and `/index.js` for the extensionless imports
/// of some packages' ES modules, and `index.html` for a directory.
async fn static_file(uri: axum::http::Uri) -> Response {
    let relative = uri.path().trim_start_matches('/');
    if relative.split('/').any(|part| part == "..") {
        return StatusCode::FORBIDDEN.into_response();
    }
    let base = root().join(relative);
    let candidates = [
        base.clone(),
        base.with_extension("js"),
        PathBuf::from(format!("{}.js", base.display())),
        base.join("index.js"),
        base.join("index.html"),
    ];
    for path in candidates {
        if path.is_file() {
            let bytes = tokio::fs::read(&path).await.unwrap();
            return ([(header::CONTENT_TYPE, content_type(&path))], bytes).into_response();
        }
    }
    StatusCode::NOT_FOUND.into_response()
}

fn sse(events: &[Event]) -> Vec<u8> {
    events
        .iter()
        .flat_map(ag_ui::encoding::sse::encode)
        .collect()
}

fn sse_response(bytes: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "text/event-stream")], bytes).into_response()
}

/// The repository's files, and test agents under `/agent/`: recorded streams
/// (`/agent/stream/N`) and misbehaving ones. Its base URL.
async fn site(streams: Vec<Vec<u8>>) -> String {
    let streams = std::sync::Arc::new(streams);
    let run_start = sse(&[
        Event::run_started("thread-diff", "run-diff"),
        Event::text_message_start("m1", ag_ui::TextMessageRole::Assistant),
        Event::text_message_content("m1", "Half an ans"),
    ]);
    let cut = run_start.clone();
    let app = Router::new()
        .route(
            "/agent/html",
            post(|| async {
                (
                    [(header::CONTENT_TYPE, "text/html")],
                    "<html><title>Sign in</title></html>",
                )
            }),
        )
        .route(
            "/agent/status",
            post(|| async {
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    [(header::CONTENT_TYPE, "application/json")],
                    r#"{"error":{"message":"the model is overloaded"}}"#,
                )
            }),
        )
        .route(
            "/agent/ends-early",
            post(move || {
                let bytes = run_start.clone();
                async move { sse_response(bytes) }
            }),
        )
        .route(
            "/agent/cut",
            post(move || {
                let bytes = cut.clone();
                async move {
                    // The body breaks after its first piece: the chunked response stops short.
                    let pieces: Vec<Result<Vec<u8>, std::io::Error>> = vec![
                        Ok(bytes),
                        Err(std::io::Error::other("the connection broke")),
                    ];
                    (
                        [(header::CONTENT_TYPE, "text/event-stream")],
                        Body::from_stream(futures::stream::iter(pieces)),
                    )
                }
            }),
        )
        .route(
            "/agent/stream/{n}",
            post(move |axum::extract::Path(n): axum::extract::Path<usize>| {
                let streams = std::sync::Arc::clone(&streams);
                async move {
                    match streams.get(n) {
                        Some(bytes) => sse_response(bytes.clone()),
                        None => StatusCode::NOT_FOUND.into_response(),
                    }
                }
            }),
        )
        .fallback(static_file);
    let port = free_port();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://127.0.0.1:{port}")
}

const LONG: Duration = Duration::from_secs(120);

/// Opens `url` and waits until its page says `ready` (the wasm module loaded).
async fn open_ready(client: &fantoccini::Client, url: &str) {
    client.goto(url).await.unwrap();
    wait_for(
        client,
        "document.getElementById('status').textContent === 'ready'",
        LONG,
    )
    .await;
}

/// The differential harness page, served by `site`.
fn harness_url(site: &str) -> String {
    format!("{site}/crates/ag-ui-wasm/tests/browser/harness.html")
}

/// Runs `script` (a promise-valued expression) in the page; waits for and returns its value.
async fn await_js(client: &fantoccini::Client, script: &str, timeout: Duration) -> Value {
    js(
        client,
        &format!(
            "(window.__done = false, Promise.resolve().then(() => {script}).then(\
             (v) => {{ window.__value = v; window.__done = true; }}, \
             (e) => {{ window.__value = {{ rejected: String(e && e.message || e), kind: e && e.kind }}; window.__done = true; }}), true)"
        ),
    )
    .await;
    wait_for(client, "window.__done", timeout).await;
    js(client, "window.__value").await
}

/// Sends `text` from the example page and waits until the run is over.
async fn send(client: &fantoccini::Client, text: &str) -> String {
    js(
        client,
        &format!(
            "(document.getElementById('message').value = {}, document.getElementById('status').textContent = 'sending', document.getElementById('send').click(), true)",
            serde_json::to_string(text).unwrap()
        ),
    )
    .await;
    wait_for(
        client,
        "/^(done|failed)/.test(document.getElementById('status').textContent)",
        LONG,
    )
    .await;
    js(client, "document.getElementById('status').textContent")
        .await
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_page_runs_demo_turns_against_ag_ui_serve() {
    if skip_without_pkg("wasm example page") {
        return;
    }
    let server = crate::serve_process(&["--pace-ms", "0"]);
    let site = site(Vec::new()).await;
    let page = format!("{site}/examples/browser/?agent={}/", server.base);
    with_browser(|client| async move {
        open_ready(&client, &page).await;

        let status = send(&client, "What is AG-UI?").await;
        assert!(status.starts_with("done"), "{status}");
        let messages = js(&client, "agent.messages").await;
        let messages = messages.as_array().unwrap();
        let roles: Vec<&str> = messages
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles.first(), Some(&"user"), "{roles:?}");
        assert!(
            roles.contains(&"reasoning"),
            "a reasoning message: {roles:?}"
        );
        assert!(roles.contains(&"tool"), "a tool result: {roles:?}");
        let called = messages.iter().any(|m| {
            m["toolCalls"]
                .as_array()
                .is_some_and(|calls| calls.iter().any(|c| c["function"]["name"] == "search"))
        });
        assert!(called, "the search tool call: {messages:?}");
        let answer = messages.last().unwrap();
        assert_eq!(answer["role"], "assistant");
        assert!(
            !answer["content"].as_str().unwrap_or("").is_empty(),
            "{answer}"
        );
        let state = js(&client, "agent.state").await;
        assert_eq!(state["turns"], 1, "{state}");
        assert!(
            !state["findings"].as_array().unwrap().is_empty(),
            "the subagents' findings: {state}"
        );
        // The page shows the conversation and the state.
        let shown = js(&client, "document.getElementById('log').textContent").await;
        assert!(
            shown.as_str().unwrap().contains("user: What is AG-UI?"),
            "{shown}"
        );

        // An interrupt, answered by the next message.
        let status = send(&client, "Please confirm the plan").await;
        assert!(status.contains("interrupted: confirmation"), "{status}");
        assert_eq!(js(&client, "agent.pendingInterrupts.length").await, 1);
        let status = send(&client, "yes, go ahead").await;
        assert!(status.starts_with("done"), "{status}");
        assert_eq!(js(&client, "agent.pendingInterrupts.length").await, 0);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_aborted_mid_stream_resolves_with_what_was_applied() {
    if skip_without_pkg("wasm abort") {
        return;
    }
    // Paced, so the run is still streaming when it is aborted.
    let server = crate::serve_process(&["--pace-ms", "40"]);
    let site = site(Vec::new()).await;
    let page = format!("{site}/examples/browser/?agent={}/", server.base);
    with_browser(|client| async move {
        open_ready(&client, &page).await;
        let script = "(() => {
            agent.addMessage({ id: 'u-abort', role: 'user', content: 'Tell me about AG-UI' });
            let deltas = 0;
            const run = agent.runAgent({}, {
              onTextMessageContentEvent: () => { if (++deltas === 3) agent.abortRun(); },
            });
            return run.then(async (r) => {
              const after = agent.messages.length;
              await new Promise((ok) => setTimeout(ok, 500));
              return { newMessages: r.newMessages.length, deltas, running: agent.isRunning,
                       stable: agent.messages.length === after, messages: agent.messages };
            });
        })()";
        let outcome = await_js(&client, script, LONG).await;
        assert!(outcome.get("rejected").is_none(), "{outcome}");
        assert_eq!(outcome["deltas"], 3, "no delta after the abort: {outcome}");
        assert_eq!(outcome["running"], false);
        assert_eq!(outcome["stable"], true, "nothing applied after the abort");
        let last = outcome["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert_eq!(
            last["role"], "assistant",
            "the answer so far is kept: {last}"
        );
    })
    .await;
}

/// What the native client says about the response at `url`.
async fn native_error(url: &str) -> String {
    let mut conversation = Conversation::new("thread-diff");
    match conversation.run(&HttpAgent::new(url), &mut ()).await {
        Ok(summary) => panic!("the native client accepted {url}: {summary:?}"),
        Err(e) => match (e.transport(), e.pipeline()) {
            (Some(transport), _) => transport.to_string(),
            (_, Some(pipeline)) => pipeline.to_string(),
            _ => e.to_string(),
        },
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_responses_are_rejected_as_the_native_client_rejects_them() {
    if skip_without_pkg("wasm bad responses") {
        return;
    }
    let site = site(Vec::new()).await;
    let cases = [
        ("html", "transport.not-ag-ui"),
        ("status", "transport.http"),
        ("ends-early", "run.incomplete"),
        ("cut", "transport.connection"),
    ];
    let mut expected = Vec::new();
    for (path, _) in cases {
        expected.push(native_error(&format!("{site}/agent/{path}")).await);
    }
    let harness = harness_url(&site);
    with_browser(|client| async move {
        open_ready(&client, &harness).await;
        for ((path, kind), native) in cases.iter().zip(&expected) {
            let outcome = await_js(
                &client,
                &format!("harness.runOnce('wasm', '{site}/agent/{path}')"),
                LONG,
            )
            .await;
            assert_eq!(outcome["error"], native.as_str(), "{path}: {outcome}");
            assert_eq!(outcome["kind"], *kind, "{path}: {outcome}");
        }
    })
    .await;
}

/// The demo agent's turn as SSE, recorded from `ag-ui serve`.
async fn demo_stream(server: &crate::Server, question: &str) -> Vec<u8> {
    let input = ag_ui::RunAgentInput::new("thread-diff", "run-diff")
        .with_messages(vec![ag_ui::Message::user("u1", question)]);
    let response = reqwest::Client::new()
        .post(format!("{}/", server.base))
        .header("accept", "text/event-stream")
        .header("content-type", "application/json")
        .body(serde_json::to_vec(&input).unwrap())
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success());
    response.bytes().await.unwrap().to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wasm_agent_ends_with_the_reference_clients_messages_and_state() {
    if skip_without_pkg("wasm differential") {
        return;
    }
    let server = crate::serve_process(&["--pace-ms", "0"]);
    let streams = vec![
        demo_stream(&server, "What is AG-UI?").await,
        demo_stream(&server, "Please confirm").await,
        sse(&crate::inspect::workload::chunked(40)),
        sse(&crate::inspect::workload::events(97)),
    ];
    let count = streams.len();
    let site = site(streams).await;
    let harness = harness_url(&site);
    with_browser(|client| async move {
        open_ready(&client, &harness).await;
        let urls: Vec<String> = (0..count)
            .map(|n| format!("{site}/agent/stream/{n}"))
            .collect();
        let report = await_js(
            &client,
            &format!(
                "harness.differential({})",
                serde_json::to_string(&urls).unwrap()
            ),
            Duration::from_secs(300),
        )
        .await;
        for entry in report.as_array().unwrap() {
            assert_eq!(entry["wasmError"], Value::Null, "{entry}");
            assert_eq!(entry["referenceError"], Value::Null, "{entry}");
            assert!(entry["count"].as_u64().unwrap() > 1, "{entry}");
            for key in ["messages", "state", "newMessages"] {
                assert_eq!(entry[key], true, "{key} differ: {entry}");
            }
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn benchmark_the_full_pipeline_in_the_browser_against_the_reference() {
    if skip_without_pkg("wasm benchmark") {
        return;
    }
    // The shared benchmark workload at its small size: 97 messages, about 10k events.
    let events = crate::inspect::workload::events(97);
    let site = site(vec![sse(&events)]).await;
    let harness = harness_url(&site);
    with_browser(|client| async move {
        open_ready(&client, &harness).await;
        let times = await_js(
            &client,
            &format!("harness.benchmark('{site}/agent/stream/0', 3)"),
            Duration::from_secs(600),
        )
        .await;
        assert!(times.get("rejected").is_none(), "{times}");
        let (wasm, reference) = (
            times["wasm"].as_f64().unwrap(),
            times["reference"].as_f64().unwrap(),
        );
        eprintln!(
            "browser benchmark, workload of {} events ({} messages), best of 3: wasm HttpAgent \
             {:.1} ms, @ag-ui/client {:.1} ms: {:.1}x",
            events.len(),
            times["messages"],
            wasm * 1000.0,
            reference * 1000.0,
            reference / wasm
        );
        // A subscriber that only listens to `onRunFinalized` costs no per-event conversion.
        let times = await_js(
            &client,
            &format!("harness.benchmarkFinalizedOnly('{site}/agent/stream/0', 3)"),
            Duration::from_secs(600),
        )
        .await;
        assert!(times.get("rejected").is_none(), "{times}");
        let (bare, finalized) = (
            times["bare"].as_f64().unwrap(),
            times["finalizedOnly"].as_f64().unwrap(),
        );
        eprintln!(
            "browser benchmark, same workload, wasm HttpAgent, best of 3: no subscriber {:.1} \
             ms, a subscriber of onRunFinalized only {:.1} ms: {:.2}x",
            bare * 1000.0,
            finalized * 1000.0,
            finalized / bare
        );
    })
    .await;
}

/// A short run for the subscriber differential: text in three deltas, a tool call with its
/// result, a state snapshot and a delta, a result.
fn callback_stream() -> Vec<u8> {
    let lines = [
        r#"{"type":"RUN_STARTED","threadId":"thread-diff","runId":"run-diff"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"one "}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"two "}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"three"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
        r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search","parentMessageId":"m1"}"#,
        r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"q\":\"ag-ui\"}"}"#,
        r#"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#,
        r#"{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"c1","content":"found"}"#,
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"count":1}}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/count","value":2}]}"#,
        r#"{"type":"RUN_FINISHED","threadId":"thread-diff","runId":"run-diff","result":{"ok":true}}"#,
    ];
    let events: Vec<Event> = lines
        .iter()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    sse(&events)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribers_are_called_as_the_reference_client_calls_them() {
    if skip_without_pkg("wasm subscribers") {
        return;
    }
    let site = site(vec![callback_stream()]).await;
    let harness = harness_url(&site);
    with_browser(|client| async move {
        open_ready(&client, &harness).await;
        let report = await_js(
            &client,
            &format!("harness.callbacks('{site}/agent/stream/0')"),
            LONG,
        )
        .await;
        let (wasm, reference) = (&report["wasm"], &report["reference"]);
        assert_eq!(wasm.get("error"), None, "{wasm}");
        assert_eq!(reference.get("error"), None, "{reference}");
        let (ours, theirs) = (
            wasm["log"].as_array().unwrap(),
            reference["log"].as_array().unwrap(),
        );
        // Entry by entry first, for a readable failure.
        for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
            assert_eq!(a, b, "callback {i} differs");
        }
        assert_eq!(ours.len(), theirs.len(), "{wasm}\n{reference}");
        assert_eq!(wasm["messages"], reference["messages"]);
        assert_eq!(wasm["state"], reference["state"]);
        assert_eq!(wasm["newMessages"], reference["newMessages"]);
        assert_eq!(report["same"], true);

        // What the log must show, so that agreeing is not agreeing on nothing.
        let names: Vec<String> = ours
            .iter()
            .map(|e| {
                format!(
                    "{}.{}",
                    e["who"].as_str().unwrap(),
                    e["name"].as_str().unwrap()
                )
            })
            .collect();
        // The timer of the first subscriber's content callback ends before the second
        // subscriber's content callback starts: the promise was awaited.
        let timer = names.iter().position(|n| n == "first.timer").unwrap();
        let second = names
            .iter()
            .position(|n| n == "second.onTextMessageContentEvent")
            .unwrap();
        assert!(timer < second, "{names:?}");
        // Two of three deltas reached the second subscriber; the dropped one was not applied.
        assert_eq!(
            names
                .iter()
                .filter(|n| *n == "second.onTextMessageContentEvent")
                .count(),
            2
        );
        assert_eq!(wasm["messages"][2]["content"], "one three", "{wasm}");
        // The stopped STATE_DELTA reached neither the second subscriber nor the state.
        assert!(!names.contains(&"second.onStateDeltaEvent".to_owned()));
        // The state onToolCallEndEvent returned was kept (until the snapshot replaced it).
        assert_eq!(wasm["state"], serde_json::json!({ "count": 1 }), "{wasm}");
        assert!(
            ours.iter()
                .any(|e| e["name"] == "onStateChanged" && e["state"]["ended"] == "search"),
            "the returned state: {wasm}"
        );
        // The returned messages (a system message) were kept.
        assert_eq!(wasm["messages"][1]["id"], "s1", "{wasm}");
        // Every callback got the running agent, whose messages and state were current.
        for entry in ours.iter().filter(|e| e.get("agentIsRunning").is_some()) {
            assert_eq!(entry["agentIsRunning"], true, "{entry}");
            assert_eq!(entry["input"], "run-diff", "{entry}");
        }
        let changed = ours
            .iter()
            .filter(|e| e["name"] == "onMessagesChanged" || e["name"] == "onStateChanged");
        let mut count = 0;
        for entry in changed {
            assert_eq!(entry["agentCurrent"], true, "{entry}");
            count += 1;
        }
        assert!(count >= 6, "{names:?}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_interrupt_can_only_be_cancelled_as_with_the_reference_client() {
    if skip_without_pkg("wasm interrupt expiry") {
        return;
    }
    let lines = [
        r#"{"type":"RUN_STARTED","threadId":"thread-diff","runId":"run-1"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"thread-diff","runId":"run-1","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"confirmation","expiresAt":"2001-01-01T00:00:00Z"}]}}"#,
    ];
    let events: Vec<Event> = lines
        .iter()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let site = site(vec![sse(&events)]).await;
    let harness = harness_url(&site);
    with_browser(|client| async move {
        open_ready(&client, &harness).await;
        let report = await_js(
            &client,
            &format!("harness.expiry('{site}/agent/stream/0')"),
            LONG,
        )
        .await;
        let (wasm, reference) = (&report["wasm"], &report["reference"]);
        assert_eq!(wasm["pending"], serde_json::json!(["i1"]), "{report}");
        assert_eq!(
            wasm["resolved"]["error"],
            "Interrupt i1 expired at 2001-01-01T00:00:00Z and can no longer be answered. \
             Cancel it to continue the thread.",
            "{report}"
        );
        assert_eq!(wasm["cancelled"]["sent"], true, "{report}");
        assert_eq!(wasm, reference, "{report}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failure_stopped_by_on_run_failed_resolves_the_run_as_with_the_reference_client() {
    if skip_without_pkg("wasm onRunFailed stopPropagation") {
        return;
    }
    let site = site(Vec::new()).await;
    let harness = harness_url(&site);
    with_browser(|client| async move {
        open_ready(&client, &harness).await;
        // A refused response (nothing applied) and a connection cut in the middle of the run
        // (a message applied before the failure). (A response that ends in the middle of its
        // run is no failure for the reference, which resolves it; this client rejects it.)
        for path in ["status", "cut"] {
            for stop in [true, false] {
                let report = await_js(
                    &client,
                    &format!("harness.failure('{site}/agent/{path}', {stop})"),
                    LONG,
                )
                .await;
                let (wasm, reference) = (&report["wasm"], &report["reference"]);
                assert_eq!(wasm["resolved"], stop, "{path}, stop {stop}: {report}");
                assert_eq!(
                    wasm["calls"],
                    serde_json::json!(["onRunFailed", "onRunFinalized"]),
                    "{path}, stop {stop}: {report}"
                );
                assert_eq!(wasm, reference, "{path}, stop {stop}: {report}");
            }
        }
    })
    .await;
}
