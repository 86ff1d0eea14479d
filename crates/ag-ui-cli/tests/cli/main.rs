//! The `ag-ui` command as a process: each module was a test file (one binary links once).
//!
//! - `offline`: verify, normalize, apply, convert on files and standard input;
//! - `live`: `serve` and `run` against each other, the demo command, interrupts, failures;
//! - `serve`, `serve_registry`: hosting, the registry, replays, CORS;
//! - `proto`: protobuf in and out of every command;
//! - `load`: `load` against `serve`, a failing server, what it refuses;
//! - `model`: `serve --model` against a mock OpenAI-compatible server;
//! - `inspect`: the browser inspector in Debian's chromium, over WebDriver;
//! - `conformance`: `conformance server` against real and broken servers, the client battery
//!   run by this crate's client and the reference's;
//! - `wasm`: the wasm `HttpAgent` (crates/ag-ui-wasm) in Chromium: the example page, bad
//!   responses, the differential against @ag-ui/client and the benchmark.

mod conformance;
#[path = "../../../ag-ui/tests/support/hostile.rs"]
mod hostile;
mod inspect;
mod live;
mod load;
mod mcp;
mod model;
#[path = "../../../ag-ui/tests/support/node.rs"]
mod node;
mod offline;
mod proto;
#[path = "../../../ag-ui/tests/support/proxy.rs"]
#[allow(dead_code, unreachable_pub)]
mod proxy;
#[path = "../../../ag-ui/tests/support/redis_server.rs"]
mod redis_server;
#[path = "../../../ag-ui/tests/support/request_head.rs"]
#[allow(unreachable_pub)]
mod request_head;
mod resume;
mod serve;
mod serve_registry;
mod wasm;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::SocketAddr;
use std::process::{Child, Command, Output, Stdio};

/// Runs the `ag-ui` binary with `args`, `stdin` written to its standard input (from a thread,
/// so a large input cannot deadlock against a full output pipe), and fails the test if it
/// panicked.
pub(crate) fn ag_ui(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ag-ui"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the ag-ui binary runs");
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("panicked"),
        "ag-ui {args:?} panicked: {stderr}"
    );
    output
}

/// Runs the `ag-ui` binary with `args` under an address-space limit of `limit` bytes (so that
/// a regression fails the test instead of exhausting the machine), and returns its output and
/// its peak resident memory in bytes (`VmHWM`, read from /proc every 10 ms while it runs: the
/// peak of a run is never in its last milliseconds, which print the report).
pub(crate) fn ag_ui_peak(args: &[&str], limit: u64) -> (Output, u64) {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {} && exec \"$0\" \"$@\"", limit / 1024))
        .arg(env!("CARGO_BIN_EXE_ag-ui"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh runs");
    let status = format!("/proc/{}/status", child.id());
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut all = Vec::new();
            let _ = pipe.read_to_end(&mut all);
            all
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        let kib = std::fs::read_to_string(&status).ok().and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        });
        peak = peak.max(kib.unwrap_or(0) * 1024);
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let output = Output {
        status: child.wait().unwrap(),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    };
    assert!(
        !String::from_utf8_lossy(&output.stderr).contains("panicked"),
        "ag-ui {args:?} panicked: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (output, peak)
}

/// An `ag-ui serve` process on a free port, killed when dropped.
pub(crate) struct Server {
    pub(crate) child: Child,
    /// The agent's URL as the banner prints it, without a trailing `/`.
    pub(crate) base: String,
    /// The banner's lines: the agent's URL, the registry's when it has one, the `try:` line.
    pub(crate) banner: Vec<String>,
    /// Its standard error read to the end, when its command piped it.
    stderr: Option<std::thread::JoinHandle<String>>,
    // Kept open so the server never writes to a closed pipe.
    _stdout: BufReader<std::process::ChildStdout>,
}

impl Server {
    /// Starts `command` (an `ag-ui serve` command whose standard output is piped, as
    /// [`serve_command`] makes it) and reads its banner.
    pub(crate) fn start(mut command: Command) -> Server {
        let mut child = command.spawn().expect("the ag-ui binary runs");
        let stderr = child.stderr.take().map(|mut stderr| {
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = stderr.read_to_string(&mut text);
                text
            })
        });
        let mut stdout = BufReader::new(child.stdout.take().expect("a piped standard output"));
        let mut banner = Vec::new();
        loop {
            let mut line = String::new();
            let read = stdout.read_line(&mut line).unwrap();
            assert!(read > 0, "serve ended before its banner: {banner:?}");
            banner.push(line.trim().to_owned());
            if line.starts_with("try: ") {
                break;
            }
        }
        // The label may hold ": " (a Redis URL), the URL comes last.
        let url = banner[0]
            .rsplit_once(": http://")
            .map(|(_, rest)| format!("http://{rest}"))
            .unwrap_or_else(|| panic!("serve prints its URL first: {banner:?}"));
        Server {
            child,
            base: url.trim_end_matches('/').to_owned(),
            banner,
            stderr,
            _stdout: stdout,
        }
    }

    /// The address it listens on.
    pub(crate) fn addr(&self) -> SocketAddr {
        let host = self.base.trim_start_matches("http://");
        host.split('/').next().unwrap().parse().unwrap()
    }

    /// Its standard error, once it has exited (a command that piped it; see [`Server::start`]).
    pub(crate) fn stderr(&mut self) -> String {
        let reader = self
            .stderr
            .take()
            .expect("the command piped standard error");
        reader.join().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `ag-ui serve --addr 127.0.0.1:0 --color never` with `args`: standard output piped (for the
/// banner), standard error discarded; change either before [`Server::start`].
pub(crate) fn serve_command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ag-ui"));
    command
        .args(["serve", "--addr", "127.0.0.1:0", "--color", "never"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    command
}

/// Starts `ag-ui serve --addr 127.0.0.1:0` with `args` and reads its banner.
pub(crate) fn serve_process(args: &[&str]) -> Server {
    Server::start(serve_command(args))
}

/// A server on 127.0.0.1 that answers every request with `reply`, then holds the connection
/// `hold` before closing it. Each request (its head, a blank line, its body) is sent on the
/// channel.
pub(crate) fn scripted(
    reply: Vec<u8>,
    hold: std::time::Duration,
) -> (String, std::sync::mpsc::Receiver<String>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/agent", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let (tx, reply) = (tx.clone(), reply.clone());
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                let (head_end, head, length) = loop {
                    if let Some(parsed) = request_head::parse_head(&buf) {
                        break parsed;
                    }
                    match stream.read(&mut chunk) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                };
                while buf.len() - head_end < length {
                    match stream.read(&mut chunk) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let body = String::from_utf8_lossy(&buf[head_end..]);
                let _ = tx.send(format!("{head}\r\n\r\n{body}"));
                let _ = stream.write_all(&reply);
                let _ = stream.flush();
                std::thread::sleep(hold);
            });
        }
    });
    (url, rx)
}

pub(crate) fn sse_response(events: &[ag_ui::Event]) -> Vec<u8> {
    let mut out =
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n".to_vec();
    for e in events {
        ag_ui::encoding::sse::encode_into(e, &mut out);
    }
    out
}

pub(crate) fn plain_response(status: &str, content_type: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}
