//! The reference packages' scripts (`interop/`) run under Node: the one place that finds the
//! folder, checks that `npm ci --prefix interop` ran, runs a script to its end and reads what it
//! prints. Test binaries of this crate reach it as `support::node`; the CLI's tests and the
//! examples include this file alone (`#[path]`), so it needs nothing but `serde_json`.

#![allow(dead_code, unreachable_pub)]

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

/// The workspace's `interop/` folder (every crate of the workspace sits two levels below it).
pub fn interop() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../interop")
}

/// A `node interop/<script>` command, run in `interop/`. Panics with the fix when the reference
/// packages are not installed.
pub fn command(script: &str) -> Command {
    let dir = interop();
    assert!(
        dir.join("node_modules/@ag-ui/client").is_dir(),
        "the reference packages are missing: run `npm ci --prefix interop` first"
    );
    let mut command = Command::new("node");
    command.arg(dir.join(script)).current_dir(dir);
    command
}

/// Runs `interop/<script> args…`, writing `stdin` to its standard input, and returns its
/// standard output. Panics, quoting its standard error, when Node cannot start or the script
/// fails.
pub fn run(script: &str, args: &[impl AsRef<OsStr>], stdin: &[u8]) -> Vec<u8> {
    let mut child = command(script)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("running node (is Node.js installed?): {e}"));
    let mut input = child.stdin.take().expect("piped stdin");
    let stdin = stdin.to_vec();
    // A writer of its own, so a script that prints before it has read all its input cannot
    // block both sides.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let output = child.wait_with_output().expect("node's output");
    writer.join().expect("the stdin writer");
    assert!(
        output.status.success(),
        "{script} failed: {}\n{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    output.stdout
}

/// What [`run`] printed (no input), read as one JSON value: the whole output, or else its last
/// non-empty line (for scripts that log before their verdict).
pub fn json(script: &str, args: &[impl AsRef<OsStr>]) -> Value {
    last_json(script, &run(script, args, b""))
}

/// What [`run`] printed with `stdin` as its input, read as [`json`] reads it.
pub fn json_with_input(script: &str, args: &[impl AsRef<OsStr>], stdin: &[u8]) -> Value {
    last_json(script, &run(script, args, stdin))
}

/// What [`run`] printed (no input), one JSON value per non-empty line.
pub fn json_lines(script: &str, args: &[impl AsRef<OsStr>]) -> Vec<Value> {
    let out = run(script, args, b"");
    String::from_utf8(out)
        .unwrap_or_else(|e| panic!("{script} printed invalid UTF-8: {e}"))
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| {
                panic!("{script} printed a line that is not JSON ({e}): {line}")
            })
        })
        .collect()
}

fn last_json(script: &str, out: &[u8]) -> Value {
    if let Ok(value) = serde_json::from_slice(out) {
        return value;
    }
    let text = String::from_utf8_lossy(out);
    let line = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    serde_json::from_str(line)
        .unwrap_or_else(|e| panic!("{script} did not end with a JSON line ({e}): {text}"))
}
