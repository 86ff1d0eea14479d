//! `@copilotkit/aimock`, the mock model of the AG-UI Dojo's end-to-end suite, with the Dojo's
//! fixtures (`interop/aimock/serve.mjs`): started once per test binary, on a free port, and
//! gone with the test process (it exits when its standard input closes). Used by the
//! model-driven Dojo's tests (`examples/dojo/tests/model/`); include it with
//! `#[path = ".../support/aimock.rs"]`.
//!
//! Needs `npm ci --prefix interop` (a failure naming it otherwise).

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use serde_json::Value;

/// The model the tests ask for: a reasoning model's name, so aimock streams the reasoning of
/// the fixtures that have some (it leaves it out for models that do not reason, like `gpt-4o`).
pub(crate) const MODEL: &str = "o4-mini";

/// The per-chunk latency of the mock's streams, in milliseconds: slow enough that a page shows
/// an argument or a text as it streams, as the Dojo's own setup does (5 ms) only faster.
pub(crate) const LATENCY_MS: u64 = 20;

/// A running mock: its base URL (`…/v1`).
pub(crate) struct Aimock {
    url: String,
    // Kept open: the mock exits when its standard input closes, i.e. with this process (a
    // static is never dropped, so it is not killed: it leaves on its own).
    _stdin: Mutex<ChildStdin>,
    _stdout: Mutex<BufReader<ChildStdout>>,
    _child: Mutex<Child>,
}

impl Aimock {
    /// The base URL, for `OPENAI_BASE_URL`.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// The bodies of the chat completion requests the mock has received, oldest first.
    pub(crate) async fn requests(&self) -> Vec<Value> {
        let body = reqwest::get(format!("{}/_requests", self.url))
            .await
            .expect("aimock answers its journal")
            .bytes()
            .await
            .expect("the journal arrives");
        let journal: Value = serde_json::from_slice(&body).expect("the journal is JSON");
        journal
            .as_array()
            .expect("the journal is an array")
            .iter()
            .filter(|entry| entry["path"] == "/v1/chat/completions")
            .map(|entry| entry["body"].clone())
            .collect()
    }
}

/// The mock of this test binary, started on first use.
pub(crate) fn aimock() -> &'static Aimock {
    static MOCK: OnceLock<Aimock> = OnceLock::new();
    MOCK.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../interop");
        assert!(
            dir.join("node_modules/@copilotkit/aimock").exists(),
            "aimock is not installed: run `npm ci --prefix interop` first (.ci/test does)"
        );
        let mut child = Command::new("node")
            .arg(dir.join("aimock/serve.mjs"))
            .args(["--latency", &LATENCY_MS.to_string(), "--exit-with-stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node runs");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        let url = first
            .trim()
            .strip_prefix("aimock: ")
            .unwrap_or_else(|| panic!("serve.mjs prints its URL first, got {first:?}"))
            .to_owned();
        Aimock {
            url,
            _stdin: Mutex::new(stdin),
            _stdout: Mutex::new(stdout),
            _child: Mutex::new(child),
        }
    })
}
