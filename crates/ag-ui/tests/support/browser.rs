//! Headless Chromium driven through WebDriver: chromedriver started on a free port, a session
//! opened with Debian's chromium, closed whatever the test does. Shared by the inspector's
//! browser tests (`crates/ag-ui-cli/tests/cli/inspect.rs`) and the CopilotKit suite
//! (`examples/dojo/tests/copilotkit.rs`); include it with `#[path = ".../support/browser.rs"]`.
//!
//! Both programs are found on `PATH`, in `/usr/bin` or `/usr/lib/chromium`, or named by
//! `$CHROMEDRIVER`. [`browser`] fails when they are missing; [`skip_without_browser`] lets a
//! suite skip instead, outside CI only (`CI=true` makes a missing piece a failure).

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder};
use futures::FutureExt;
use serde_json::{Value, json};

/// A child process killed when dropped.
pub(crate) struct Process(pub(crate) Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A port nobody listens on right now.
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The first of `names` found on `PATH`, in `/usr/bin` or in `/usr/lib/chromium`.
pub(crate) fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([
            PathBuf::from("/usr/bin"),
            PathBuf::from("/usr/lib/chromium"),
        ])
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

const CHROMIUMS: &[&str] = &["chromium", "chromium-browser", "google-chrome"];

fn chromedriver() -> Option<PathBuf> {
    std::env::var_os("CHROMEDRIVER")
        .map(PathBuf::from)
        .or_else(|| find_program(&["chromedriver"]))
}

/// Whether `CI` is set to something other than `false`/`0` (GitHub Actions and most CI
/// services set `CI=true`).
pub(crate) fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// `true` (after printing why) when chromedriver or chromium is missing on a machine that is
/// not CI, so `suite` should return without testing anything.
///
/// # Panics
///
/// In CI ([`in_ci`]), when either is missing: CI must run the browser suites.
pub(crate) fn skip_without_browser(suite: &str) -> bool {
    let mut missing = Vec::new();
    if chromedriver().is_none() {
        missing.push("chromedriver (PATH, /usr/bin, $CHROMEDRIVER)");
    }
    if find_program(CHROMIUMS).is_none() {
        missing.push("chromium (PATH, /usr/bin)");
    }
    if missing.is_empty() {
        return false;
    }
    let reason = format!(
        "{suite}: {} not found; install them with `apt-get install -y chromium chromium-driver` \
         (.ci/test does)",
        missing.join(" and ")
    );
    assert!(
        !in_ci(),
        "{reason} — CI=true, so this is a failure, not a skip"
    );
    eprintln!("SKIPPED {reason}");
    true
}

/// Starts chromedriver on a free port and opens a headless Chromium session.
///
/// # Panics
///
/// When chromedriver is missing, does not listen, or cannot open a session.
pub(crate) async fn browser() -> (Process, Client) {
    let driver = chromedriver().unwrap_or_else(|| {
        panic!(
            "chromedriver was not found (PATH, /usr/bin, $CHROMEDRIVER): the browser tests need \
             it; install it with `apt-get install -y chromium chromium-driver` (.ci/test does)"
        )
    });
    let port = free_port();
    let child = Command::new(&driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", driver.display()));
    let process = Process(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "chromedriver did not listen on port {port}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut options = json!({
        "args": [
            "--headless=new",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--disable-gpu",
            "--window-size=1500,950",
            "--enable-precise-memory-info",
        ]
    });
    if let Some(chromium) = find_program(CHROMIUMS) {
        options["binary"] = json!(chromium);
    }
    let mut caps = serde_json::Map::new();
    caps.insert("goog:chromeOptions".to_owned(), options);
    let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .unwrap_or_else(|e| {
            panic!(
                "cannot open a Chromium session through chromedriver (is chromium installed?): {e}"
            )
        });
    (process, client)
}

/// Runs `test` with a browser, closing the session whatever happens.
pub(crate) async fn with_browser<F, Fut>(test: F)
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let (_driver, client) = browser().await;
    let outcome = std::panic::AssertUnwindSafe(test(client.clone()))
        .catch_unwind()
        .await;
    let _ = client.close().await;
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// Evaluates a JavaScript expression in the page.
pub(crate) async fn js(client: &Client, expression: &str) -> Value {
    client
        .execute(&format!("return ({expression});"), Vec::new())
        .await
        .unwrap_or_else(|e| panic!("{expression}: {e}"))
}
