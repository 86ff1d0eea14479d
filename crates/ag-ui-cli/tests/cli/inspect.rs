//! `ag-ui inspect` in a real browser: headless Chromium driven through WebDriver (chromedriver,
//! started by each test on a free port). The page is checked against the demo agent (messages,
//! the tool call, the state, both subagent lanes, an interrupt answered from the form), against
//! a deliberately broken stream (its violation shown at the right event), and with a recording
//! loaded from a file (rendered as the live run was; the ~210k-event workload renders
//! virtualised, with its time to first paint and the browser's heap reported).
//!
//! chromedriver and chromium are required (the harness: `crates/ag-ui/tests/support/browser.rs`): CI
//! installs them (`.ci/test`), and a machine without
//! them fails these tests with a message saying what to install. Screenshots of the main views
//! are written to `target/inspector-screenshots/` on every run.

#[path = "../../../ag-ui/tests/support/workload.rs"]
pub(crate) mod workload;

#[path = "../../../ag-ui/tests/support/browser.rs"]
pub(crate) mod browser;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui::verify::Verifier;
use ag_ui::{Event, RunAgentInput, TextMessageRole};
use browser::{Process, js, with_browser};
use fantoccini::{Client, Locator};
use serde_json::{Value, json};

/// `ag-ui inspect` on a free port; its page's URL.
fn inspector(args: &[&str]) -> (Process, String, BufReader<std::process::ChildStdout>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .arg("inspect")
        .args(["--addr", "127.0.0.1:0", "--pace-ms", "0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let url = first
        .trim()
        .strip_prefix("ag-ui inspector: ")
        .unwrap_or_else(|| panic!("inspect prints its URL first, got {first:?}"))
        .to_owned();
    (Process(child), url, stdout)
}

fn screenshots() -> PathBuf {
    // CARGO_TARGET_TMPDIR is `<target>/tmp`.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("inspector-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn screenshot(client: &Client, name: &str) {
    let png = client.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    std::fs::write(screenshots().join(format!("{name}.png")), png).unwrap();
}

/// Waits until the expression is truthy; fails naming it, with the page's status, otherwise.
pub(crate) async fn wait_for(client: &Client, expression: &str, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    loop {
        let value = js(client, &format!("!!({expression})")).await;
        if value == Value::Bool(true) {
            return;
        }
        if Instant::now() > deadline {
            let status = js(client, "document.getElementById('status').innerText").await;
            panic!("timed out waiting for {expression}; the page's status: {status}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn text(client: &Client, css: &str) -> String {
    client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .text()
        .await
        .unwrap()
}

async fn send(client: &Client, message: &str) {
    client
        .find(Locator::Id("message"))
        .await
        .unwrap()
        .send_keys(message)
        .await
        .unwrap();
    client
        .find(Locator::Id("send"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

const LONG: Duration = Duration::from_secs(30);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_run_shows_messages_tool_call_state_lanes_and_an_answered_interrupt() {
    let (_inspector, url, _out) = inspector(&[]);
    with_browser(|client| async move {
        client.goto(&url).await.unwrap();
        wait_for(&client, "document.getElementById('target').textContent.includes('demo')", LONG).await;
        send(&client, "Please confirm the plan").await;
        wait_for(&client, "document.getElementById('status').dataset.outcome === 'interrupt'", LONG)
            .await;

        // The messages: the question, the reasoning, the tool call with its arguments and its
        // result, the answer.
        let messages = text(&client, "#messages").await;
        assert!(messages.contains("Please confirm the plan"), "{messages}");
        assert!(messages.contains("I will search"), "{messages}");
        assert!(messages.contains("Here is what I found"), "{messages}");
        let call = text(&client, ".tool-call").await;
        assert!(call.contains("search()"), "{call}");
        assert!(call.contains(r#""query": "Please confirm the plan""#), "{call}");
        assert!(call.contains("3 results for"), "{call}");

        // The state, and each of its changes.
        let state: Value = serde_json::from_str(&text(&client, "#state").await).unwrap();
        assert_eq!(state["turns"], 1);
        assert_eq!(state["findings"].as_array().unwrap().len(), 2);
        let changes = js(&client, "document.querySelectorAll('#state-changes li').length").await;
        assert!(changes.as_u64().unwrap() >= 3, "{changes}");

        // Both subagent lanes, each with its own text, both finished.
        let lanes = js(
            &client,
            "[...document.querySelectorAll('.lane-box')].map(l => [l.dataset.name, l.querySelector('.lane-status').textContent, l.querySelector('.lane-text').textContent])",
        )
        .await;
        let lanes = lanes.as_array().unwrap();
        assert_eq!(lanes.len(), 2, "{lanes:?}");
        let names: Vec<&str> = lanes.iter().map(|l| l[0].as_str().unwrap()).collect();
        assert!(names.contains(&"researcher") && names.contains(&"critic"), "{names:?}");
        for lane in lanes {
            assert_eq!(lane[1], "finished", "{lane}");
        }
        let researcher = lanes.iter().find(|l| l[0] == "researcher").unwrap();
        assert!(researcher[2].as_str().unwrap().starts_with("the facts of"), "{researcher}");

        // The timeline numbers the events, with their times; the run in the thread's history
        // scrolls to its first event.
        client
            .find(Locator::Css("#threads li.current ol li"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_for(&client, "document.querySelector(\".row[data-row='0']\")", LONG).await;
        let first = text(&client, ".row[data-row='0']").await;
        assert!(first.contains("#0") && first.contains("RUN_STARTED") && first.contains("ms"), "{first}");
        screenshot(&client, "live-run-interrupted").await;

        // The interrupt, answered from its form: the run finishes.
        let form = text(&client, "#interrupts").await;
        assert!(form.contains("confirm-save") && form.contains("Shall I save"), "{form}");
        client.find(Locator::Id("resume-run")).await.unwrap().click().await.unwrap();
        wait_for(&client, "document.getElementById('status').dataset.outcome === 'success'", LONG)
            .await;
        let messages = text(&client, "#messages").await;
        assert!(messages.contains("Saved. Thanks for confirming."), "{messages}");
        assert_eq!(
            js(&client, "document.querySelectorAll('#interrupts form').length").await,
            0
        );
        let runs = js(&client, "document.querySelectorAll('#threads li.current ol li').length").await;
        assert_eq!(runs, 2, "the thread's history shows both runs");
        screenshot(&client, "live-run-resumed").await;
    })
    .await;
}

/// A stream whose fourth event breaks a rule: text for a message that was never started.
fn broken_events(input: &RunAgentInput) -> Vec<Event> {
    vec![
        Event::run_started(input.thread_id.clone(), input.run_id.clone()),
        Event::text_message_start("m1", TextMessageRole::Assistant),
        Event::text_message_content("m1", "fine so far"),
        Event::text_message_content("nobody", "broken"),
        Event::text_message_end("m1"),
        Event::run_finished(input.thread_id.clone(), input.run_id.clone()),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_stream_shows_its_violation_at_the_event_that_broke_it() {
    // The verifier's own verdict on these events is what the page must show.
    let input = RunAgentInput::new("t", "r");
    let mut verifier = Verifier::new();
    let violation = broken_events(&input)
        .iter()
        .find_map(|e| verifier.check(e).err())
        .expect("the stream is broken");
    assert_eq!(violation.index(), 3);

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let agent = format!("http://{}/agent", listener.local_addr().unwrap());
    let app = axum::Router::new().agent(
        "/agent",
        AgentEndpoint::new(|input: RunAgentInput| futures::stream::iter(broken_events(&input))),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });

    let (_inspector, url, _out) = inspector(&[&agent]);
    with_browser(|client| async move {
        client.goto(&url).await.unwrap();
        send(&client, "hello").await;
        wait_for(&client, "document.querySelector('.row.violation')", LONG).await;
        let row = client.find(Locator::Css(".row.violation")).await.unwrap();
        assert_eq!(row.attr("data-index").await.unwrap().as_deref(), Some("3"));
        assert_eq!(
            row.attr("data-kind").await.unwrap().as_deref(),
            Some(violation.kind().as_str())
        );
        // Right after the three good events, which are shown as they were.
        assert_eq!(row.attr("data-row").await.unwrap().as_deref(), Some("3"));
        let before = text(&client, ".row[data-row='2']").await;
        assert!(
            before.contains("TEXT_MESSAGE_CONTENT") && before.contains("fine so far"),
            "{before}"
        );
        let status = text(&client, "#status").await;
        assert!(
            status.contains("violation at event 3") && status.contains(violation.kind().as_str()),
            "{status}"
        );
        // What was applied before the violation is kept.
        let messages = text(&client, "#messages").await;
        assert!(messages.contains("fine so far"), "{messages}");
        screenshot(&client, "violation").await;
    })
    .await;
}

/// A run the agent ends with `RUN_ERROR` is the agent's failure: the status says `run-error`
/// (not a generic error) and carries the agent's message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_error_is_shown_as_the_agents_failure() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let agent = format!("http://{}/agent", listener.local_addr().unwrap());
    let app = axum::Router::new().agent(
        "/agent",
        AgentEndpoint::new(|input: RunAgentInput| {
            futures::stream::iter([
                Event::run_started(input.thread_id.clone(), input.run_id.clone()),
                Event::run_error("the model is unavailable"),
            ])
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });

    let (_inspector, url, _out) = inspector(&[&agent]);
    with_browser(|client| async move {
        client.goto(&url).await.unwrap();
        send(&client, "hello").await;
        wait_for(
            &client,
            "document.getElementById('status').dataset.outcome === 'run-error'",
            LONG,
        )
        .await;
        let status = text(&client, "#status").await;
        assert!(status.contains("the model is unavailable"), "{status}");
    })
    .await;
}

async fn load_file(client: &Client, path: &Path) {
    client
        .find(Locator::Id("load-file"))
        .await
        .unwrap()
        .send_keys(path.to_str().unwrap())
        .await
        .unwrap();
}

/// What a session renders, for comparing two of them.
async fn rendered(client: &Client) -> Value {
    js(
        client,
        "{messages: document.getElementById('messages').innerText, \
          state: document.getElementById('state').innerText, \
          changes: document.getElementById('state-changes').innerText, \
          lanes: document.getElementById('lanes').innerText, \
          events: window.inspector.current().rows.length}",
    )
    .await
}

/// What the page shows once it has drawn what it loaded: the views are redrawn on the next
/// animation frame after a load completes, so they are read until they match `expected` (or
/// the time runs out, when the last reading is returned for the assertion to show).
async fn rendered_as(client: &Client, expected: &Value) -> Value {
    let deadline = Instant::now() + LONG;
    loop {
        let now = rendered(client).await;
        if now == *expected || Instant::now() > deadline {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loaded_recording_renders_as_the_live_run_did() {
    let (_inspector, url, _out) = inspector(&[]);
    with_browser(|client| async move {
        client.goto(&url).await.unwrap();
        send(&client, "What is AG-UI?").await;
        wait_for(
            &client,
            "document.getElementById('status').dataset.outcome === 'success'",
            LONG,
        )
        .await;
        let live = rendered(&client).await;
        assert!(live["events"].as_u64().unwrap() > 50, "{live}");

        // The session as JSON Lines (what the download button saves), loaded back.
        let jsonl = js(&client, "window.inspector.sessionJsonl()").await;
        let jsonl = jsonl.as_str().unwrap();
        assert_eq!(
            jsonl.lines().count() as u64,
            live["events"].as_u64().unwrap()
        );
        let path = screenshots().join("../tmp/inspector-session.jsonl");
        std::fs::write(&path, jsonl).unwrap();
        load_file(&client, &path.canonicalize().unwrap()).await;
        wait_for(
            &client,
            "window.inspector.metrics.loads.length === 1 && window.inspector.metrics.loads[0].done",
            LONG,
        )
        .await;
        let loaded = rendered_as(&client, &live).await;
        assert_eq!(loaded, live);
        let status = text(&client, "#status").await;
        assert!(status.contains("Run finished"), "{status}");
        screenshot(&client, "recording").await;

        // The same recording as SSE renders the same too.
        let mut sse = Vec::new();
        for line in jsonl.lines() {
            writeln!(sse, "data: {line}\n").unwrap();
        }
        let path = screenshots().join("../tmp/inspector-session.sse");
        std::fs::write(&path, sse).unwrap();
        load_file(&client, &path.canonicalize().unwrap()).await;
        wait_for(
            &client,
            "window.inspector.metrics.loads.length === 2 && window.inspector.metrics.loads[1].done",
            LONG,
        )
        .await;
        assert_eq!(rendered_as(&client, &live).await, live);

        // And as protobuf frames.
        let mut frames = Vec::new();
        for line in jsonl.lines() {
            let event: Event = serde_json::from_str(line).unwrap();
            ag_ui::encoding::proto::encode_into(&event, &mut frames);
        }
        let path = screenshots().join("../tmp/inspector-session.pb");
        std::fs::write(&path, frames).unwrap();
        load_file(&client, &path.canonicalize().unwrap()).await;
        wait_for(
            &client,
            "window.inspector.metrics.loads.length === 3 && window.inspector.metrics.loads[2].done",
            LONG,
        )
        .await;
        assert_eq!(rendered_as(&client, &live).await, live);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_210k_event_workload_loads_virtualised_and_reports_paint_time_and_heap() {
    let events = workload::events(workload::MESSAGES);
    let path = screenshots().join("../tmp/inspector-workload.jsonl");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut line = Vec::new();
    for event in &events {
        line.clear();
        event.write_json(&mut line);
        line.push(b'\n');
        out.write_all(&line).unwrap();
    }
    out.flush().unwrap();
    drop(out);
    let bytes = std::fs::metadata(&path).unwrap().len();

    let (_inspector, url, _out) = inspector(&[]);
    with_browser(|client| async move {
        client.goto(&url).await.unwrap();
        load_file(&client, &path.canonicalize().unwrap()).await;
        wait_for(
            &client,
            "window.inspector.metrics.loads.length === 1 && window.inspector.metrics.loads[0].done",
            Duration::from_secs(300),
        )
        .await;
        let load = js(&client, "window.inspector.metrics.loads[0]").await;
        assert_eq!(load["events"].as_u64().unwrap(), events.len() as u64, "{load}");
        // Virtualised: only the rows in view are in the document.
        let rows = js(&client, "document.querySelectorAll('#timeline .row').length").await;
        assert!(rows.as_u64().unwrap() < 200, "{rows} rows in the document");
        // The page still answers: scrolling to the middle shows the rows there.
        js(
            &client,
            "(document.getElementById('timeline').scrollTop = 100000 * 22, 0)",
        )
        .await;
        wait_for(&client, "document.querySelector(\".row[data-row='100000']\")", LONG).await;
        screenshot(&client, "workload").await;
        eprintln!(
            "inspector, {} events ({} MiB of JSON Lines) loaded as a recording: first paint {:.0} ms, all loaded {:.0} ms, JS heap {:.1} MiB",
            events.len(),
            bytes / (1024 * 1024),
            load["firstPaintMs"].as_f64().unwrap_or(f64::NAN),
            load["loadedMs"].as_f64().unwrap_or(f64::NAN),
            load["heapBytes"].as_f64().unwrap_or(f64::NAN) / (1024.0 * 1024.0),
        );
        assert!(load["firstPaintMs"].as_f64().is_some(), "{load}");
        assert!(load["heapBytes"].as_f64().is_some(), "{load}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_shows_its_outcome_and_token_usage_and_a_bad_one_names_its_line() {
    let dir = screenshots().join("../tmp");
    let usage = dir.join("inspector-usage.jsonl");
    std::fs::write(
        &usage,
        concat!(
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            "\n",
            r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","role":"assistant","delta":"ok"}"#,
            "\n",
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","usage":[{"provider":"openai","model":"gpt-x","inputTokens":10,"outputTokens":5,"totalTokens":15}]}"#,
            "\n",
        ),
    )
    .unwrap();
    let bad = dir.join("inspector-bad.jsonl");
    std::fs::write(
        &bad,
        concat!(
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            "\n",
            r#"{"type":"TEXT_MESSAGE_START","role":"assistant"}"#,
            "\n",
        ),
    )
    .unwrap();
    let (_inspector, url, _out) = inspector(&[]);
    with_browser(|client| async move {
        client.goto(&url).await.unwrap();
        load_file(&client, &usage.canonicalize().unwrap()).await;
        wait_for(
            &client,
            "document.getElementById('status').dataset.outcome === 'success'",
            LONG,
        )
        .await;
        let status = text(&client, "#status").await;
        assert!(
            status.contains("tokens: openai/gpt-x: input 10, output 5, total 15"),
            "{status}"
        );
        // The chunk was expanded by the pipeline: START, CONTENT, END.
        let types = js(&client, "window.inspector.current().rows.map(r => r.type)").await;
        assert_eq!(
            types,
            json!([
                "RUN_STARTED",
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END",
                "RUN_FINISHED"
            ])
        );
        assert!(text(&client, "#messages").await.contains("ok"));

        load_file(&client, &bad.canonicalize().unwrap()).await;
        wait_for(
            &client,
            "document.getElementById('status').dataset.outcome === 'error'",
            LONG,
        )
        .await;
        let status = text(&client, "#status").await;
        assert!(
            status.contains("line 2") && status.contains("messageId"),
            "{status}"
        );
        // Both recordings are in the history, the bad one marked.
        let history = js(
            &client,
            "[...document.querySelectorAll('#threads li.thread')].map(t => t.innerText)",
        )
        .await;
        assert_eq!(history.as_array().unwrap().len(), 3, "{history}");
    })
    .await;
}

/// A request with two `Host` headers, the first the inspector's own, is refused (it was let
/// through on the first one); one `Host` is served. Over a raw socket: no client sends two.
#[test]
fn two_host_headers_are_refused() {
    use std::io::{Read, Write};
    let (_process, url, _stdout) = inspector(&[]);
    let authority = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let ask = |hosts: &[&str]| {
        let mut stream = std::net::TcpStream::connect(&authority).unwrap();
        let mut request = String::from("GET / HTTP/1.1\r\n");
        for host in hosts {
            request.push_str(&format!("Host: {host}\r\n"));
        }
        request.push_str("Connection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    };
    let one = ask(&[&authority]);
    assert!(
        one.starts_with("HTTP/1.1 200"),
        "{}",
        &one[..one.len().min(200)]
    );
    let two = ask(&[&authority, "evil.example"]);
    assert!(
        two.starts_with("HTTP/1.1 403"),
        "{}",
        &two[..two.len().min(300)]
    );
    assert!(two.contains("more than one Host header"), "{two}");
}
