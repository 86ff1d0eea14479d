//! The CopilotKit app of `interop/copilotkit` (the page bundled once per test binary, the
//! runtime on node:http in front of an agent base URL) and what a test does on its page, as a
//! person does: open a feature, type and send, click, wait for what shows. Shared by the Dojo's
//! browser suites (`examples/dojo/tests/copilotkit.rs`, `examples/dojo/tests/model/`); include it
//! with `#[path = ".../support/copilotkit.rs"]` beside `browser.rs` (as `mod browser`).
//!
//! Needs `npm ci --prefix interop/copilotkit` (a failure naming it otherwise). Screenshots go to
//! `target/copilotkit-screenshots/`.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{ChildStdout, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};
use serde_json::Value;

use super::browser::{Process, js};

/// The app's directory, with its packages installed.
pub(crate) fn app_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../interop/copilotkit");
    assert!(
        dir.join("node_modules/@copilotkit/runtime").exists(),
        "the CopilotKit app's packages are not installed: run `npm ci --prefix interop/copilotkit` \
         first (.ci/test does)"
    );
    dir
}

/// Whether the bundle in `out` is newer than everything it is built from (the page, the build
/// script, the lockfile): then the test binaries after the first reuse it.
fn fresh(out: &Path, dir: &Path) -> bool {
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let Some(built) = modified(&out.join("app.js")) else {
        return false;
    };
    ["app.jsx", "a2ui.jsx", "build.mjs", "package-lock.json"]
        .iter()
        .all(|source| modified(&dir.join(source)).is_some_and(|m| m <= built))
}

/// The page, bundled into `target/tmp/copilotkit-page` once (again when a source changed).
pub(crate) fn page() -> &'static Path {
    static PAGE: OnceLock<PathBuf> = OnceLock::new();
    PAGE.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("copilotkit-page");
        let dir = app_dir();
        if fresh(&out, &dir) {
            return out;
        }
        let status = Command::new("node")
            .arg(dir.join("build.mjs"))
            .arg(&out)
            .current_dir(&dir)
            .status()
            .expect("node runs");
        assert!(status.success(), "building the page failed: {status}");
        out
    })
}

/// The CopilotKit app (`server.mjs`: the runtime and the page) in front of an agent base URL.
pub(crate) struct App {
    _process: Process,
    /// Where the page is served (`http://127.0.0.1:PORT`).
    pub(crate) url: String,
    // Kept open so the server never writes to a closed pipe.
    _stdout: BufReader<ChildStdout>,
}

/// Starts the app in front of `agent_base`, with `extra` arguments for `server.mjs`.
pub(crate) fn app(agent_base: &str, extra: &[&str]) -> App {
    let dir = app_dir();
    let mut child = Command::new("node")
        .arg(dir.join("server.mjs"))
        .args(["--agent", agent_base, "--port", "0", "--page"])
        .arg(page())
        .args(extra)
        .current_dir(&dir)
        .env("COPILOTKIT_TELEMETRY_DISABLED", "true")
        .env("DO_NOT_TRACK", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node runs");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let process = Process(child);
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let url = first
        .trim()
        .strip_prefix("copilotkit app: ")
        .unwrap_or_else(|| panic!("server.mjs prints its URL first, got {first:?}"))
        .to_owned();
    App {
        _process: process,
        url,
        _stdout: stdout,
    }
}

fn screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("copilotkit-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Saves a screenshot of the page as `name.png` (best effort).
pub(crate) async fn screenshot(client: &Client, name: &str) {
    if let Ok(png) = client.screenshot().await {
        let _ = std::fs::write(screenshots().join(format!("{name}.png")), png);
    }
}

/// How long anything may take to show.
pub(crate) const WAIT: Duration = Duration::from_secs(20);

/// Waits until `expression` is truthy; fails naming `what`, with the page's text, otherwise.
pub(crate) async fn wait_for(client: &Client, what: &str, expression: &str) {
    let deadline = Instant::now() + WAIT;
    loop {
        if js(client, &format!("!!({expression})")).await == Value::Bool(true) {
            return;
        }
        if Instant::now() > deadline {
            let text = js(client, "document.body.innerText").await;
            screenshot(client, "timed-out").await;
            panic!("timed out waiting for {what} ({expression}); the page shows: {text}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The assistant messages of the chat, as the page shows them (whitespace runs as one space).
pub(crate) const REPLIES: &str = "[...document.querySelectorAll('[data-testid=\"copilot-assistant-message\"]')]\
     .map(e => e.innerText.replace(/\\s+/g, ' ').trim())";

/// Waits until the chat shows `count` assistant messages reading `text` (whitespace runs
/// read as one space, as the browser renders them).
pub(crate) async fn wait_for_reply(client: &Client, text: &str, count: usize) {
    let quoted = serde_json::to_string(text).unwrap();
    wait_for(
        client,
        &format!("the reply {quoted} (#{count})"),
        &format!("{REPLIES}.filter(t => t === {quoted}).length === {count}"),
    )
    .await;
}

/// The texts of the elements marked `data-testid="{id}"`.
pub(crate) async fn texts(client: &Client, id: &str) -> Vec<String> {
    let value = js(
        client,
        &format!("[...document.querySelectorAll('[data-testid=\"{id}\"]')].map(e => e.innerText)"),
    )
    .await;
    serde_json::from_value(value).unwrap()
}

/// Clicks the element marked `data-testid="{id}"`, once it shows.
pub(crate) async fn click(client: &Client, id: &str) {
    let css = format!("[data-testid=\"{id}\"]");
    wait_for(client, id, &format!("document.querySelector('{css}')")).await;
    client
        .find(Locator::Css(&css))
        .await
        .unwrap()
        .click()
        .await
        .unwrap_or_else(|e| panic!("clicking {id}: {e}"));
}

/// Waits until no chat on the page is running a turn (CopilotChat marks its view
/// `data-copilot-running="true"` from the run's start until its stream ends).
///
/// A person waits for the answer before acting again; a test has to as well. While a run is
/// still streaming (its last text shown, its `RUN_FINISHED` not yet read), CopilotChat's send
/// button stops the run instead of sending, and a new run on the thread (an A2UI card's action)
/// detaches the page from the running one while the runtime refuses it ("Thread already
/// running"). On a loaded machine that gap is long enough for a test to fall into.
pub(crate) async fn idle(client: &Client) {
    wait_for(
        client,
        "the chat to finish its run",
        "!document.querySelector('[data-copilot-running=\"true\"]')",
    )
    .await;
}

/// Types `message` into CopilotChat's input and sends it, as a person does: once the chat has
/// finished its previous run ([`idle`]).
pub(crate) async fn send(client: &Client, message: &str) {
    idle(client).await;
    let input = "[data-testid=\"copilot-chat-textarea\"]";
    wait_for(
        client,
        "the chat's input",
        &format!("document.querySelector('{input}')"),
    )
    .await;
    client
        .find(Locator::Css(input))
        .await
        .unwrap()
        .send_keys(message)
        .await
        .unwrap();
    click(client, "copilot-send-button").await;
}

/// Answers the document page's `confirm_changes` with `button` (`confirm-changes` or
/// `reject-changes`) and waits for the page to show the `outcome` (`Accepted` or `Rejected`) of
/// its `round`-th answer (from 0).
pub(crate) async fn answer_changes(client: &Client, button: &str, outcome: &str, round: usize) {
    click(client, button).await;
    wait_for(
        client,
        outcome,
        &format!(
            "document.querySelectorAll('[data-testid=\"changes-outcome\"]').length === {}",
            round + 1
        ),
    )
    .await;
    assert_eq!(
        texts(client, "changes-outcome")
            .await
            .last()
            .map(String::as_str),
        Some(outcome)
    );
}

/// Opens the page of `feature`.
pub(crate) async fn open(client: &Client, page: &str, feature: &str) {
    let separator = if page.contains('?') { '&' } else { '?' };
    client
        .goto(&format!("{page}{separator}feature={feature}"))
        .await
        .unwrap();
}
