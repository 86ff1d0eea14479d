//! `ag-ui serve` and `ag-ui run` as processes: the demo agent served on port 0, a run against
//! it in `--json` mode, an interrupt answered with `--resume`, and failures named.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};

use ag_ui::server::Runner;
use ag_ui::{Event, Message, RunAgentInput};
use ag_ui_demo_agent::DemoAgent;
use futures::StreamExt;

struct Server {
    child: Child,
    url: String,
    // Kept open so the server never writes to a closed pipe.
    _stdout: BufReader<std::process::ChildStdout>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve() -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--path",
            "/agent",
            "--pace-ms",
            "0",
            "--color",
            "never",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdout.read_line(&mut first).unwrap();
    let url = first
        .trim()
        .strip_prefix("ag-ui demo agent: ")
        .expect("serve prints its URL first")
        .to_owned();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/agent"),
        "{url}"
    );
    Server {
        child,
        url,
        _stdout: stdout,
    }
}

fn ag_ui(args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args(args)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
    output
}

/// Splits a run's events into the parent's and each subagent's, in order: concurrent subagents
/// interleave differently from run to run, but each one's own sequence is fixed.
fn by_owner(events: &[Event]) -> Vec<(String, Vec<Event>)> {
    let mut groups: Vec<(String, Vec<Event>)> = Vec::new();
    for event in events {
        // By the subagent an event is from, or (SUBAGENT_*) about.
        let owner = event
            .subagent_run_id()
            .map_or(String::new(), |s| s.to_string());
        match groups.iter_mut().find(|(o, _)| *o == owner) {
            Some((_, list)) => list.push(event.clone()),
            None => groups.push((owner, vec![event.clone()])),
        }
    }
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    groups
}

#[test]
fn run_json_prints_exactly_the_agents_events() {
    let server = serve();
    let out = ag_ui(&[
        "run",
        &server.url,
        "What is AG-UI?",
        "--json",
        "--thread",
        "t1",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Vec<Event> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| Event::from_json(l).unwrap())
        .collect();

    // The same agent, run in-process on the same input (a conversation names its runs after
    // the thread: the first run on t1 is t1-run-1).
    let input = RunAgentInput::new("t1", "t1-run-1")
        .with_messages(vec![Message::user("u", "What is AG-UI?")]);
    let expected: Vec<Event> = tokio::runtime::Runtime::new().unwrap().block_on(async {
        Runner::new(DemoAgent::new())
            .run(input)
            .unwrap()
            .collect()
            .await
    });
    assert_eq!(printed.len(), expected.len());
    assert_eq!(printed.first(), expected.first());
    assert_eq!(printed.last(), expected.last());
    assert_eq!(by_owner(&printed), by_owner(&expected));
}

#[test]
fn an_interrupt_is_shown_and_answered_with_resume() {
    let server = serve();
    let out = ag_ui(&[
        "run",
        &server.url,
        "please confirm",
        "--color",
        "never",
        "--thread",
        "t2",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("⏸ the run is waiting for you:\n  confirm-save-t2 (confirmation) Shall I save these findings?\n"), "{text}");
    let hint = format!(
        "  resume with: ag-ui run {} --thread t2 --resume confirm-save-t2='{{\"approved\":true}}'\n",
        server.url
    );
    assert!(text.ends_with(&hint), "{text}");

    let out = ag_ui(&[
        "run",
        &server.url,
        "--color",
        "never",
        "--thread",
        "t2",
        "--resume",
        "confirm-save-t2={\"approved\":false}",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("assistant: Understood, nothing was saved.\n"),
        "{text}"
    );
    assert!(text.ends_with("✓ done {\"saved\":false}\n"), "{text}");
}

#[test]
fn failures_are_named_with_a_non_zero_exit() {
    let server = serve();
    // The agent rejects a state that does not fit it, before streaming: an HTTP error.
    let out = ag_ui(&["run", &server.url, "hi", "--state", "[1,2]"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: HTTP 400: {\"error\":{\"kind\":\"invalid-state\""),
        "{err}"
    );

    let out = ag_ui(&["run", "http://127.0.0.1:9/", "hi"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .starts_with("error: cannot reach http://127.0.0.1:9/")
    );

    let out = ag_ui(&["run", &server.url, "hi", "--state", "{not json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .starts_with("error: --state is not JSON")
    );
}

#[test]
fn verify_runs_a_url_once_and_checks_the_stream() {
    let server = serve();
    let out = ag_ui(&["verify", &server.url, "--message", "What is AG-UI?"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(
        line.starts_with("ok: ") && line.ends_with(" events, 1 runs\n"),
        "{line}"
    );
}

#[test]
fn serve_logs_each_run_with_its_id_events_and_duration() {
    use std::sync::mpsc;
    use std::time::Duration;

    let mut child = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--pace-ms",
            "0",
            "--color",
            "never",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let url = first
        .trim()
        .strip_prefix("ag-ui demo agent: ")
        .unwrap()
        .to_owned();
    let (tx, rx) = mpsc::channel();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let out = ag_ui(&["run", &url, "hi", "--json", "--thread", "t3"]);
    assert_eq!(out.status.code(), Some(0));
    let events = String::from_utf8(out.stdout).unwrap().lines().count();
    let ended = loop {
        let line = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("serve logged no end of the run");
        if line.contains("run ended") {
            break line;
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    // Client ids are logged quoted, with control characters escaped.
    assert!(ended.contains("run=\"t3-run-1\""), "{ended}");
    assert!(ended.contains(&format!("events={events}")), "{ended}");
    assert!(ended.contains("duration_ms="), "{ended}");
    assert!(ended.contains("outcome=\"finished\""), "{ended}");
}
