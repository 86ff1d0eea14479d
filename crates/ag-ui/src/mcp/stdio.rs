//! MCP servers over stdio: the child process, and a guard on what it writes that ends the
//! connection at once, naming why, when a message could never be read (longer than
//! [`MAX_MESSAGE_BYTES`], or nested deeper than serde's parser goes), instead of leaving the
//! request it answers to wait out its time-out.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// The longest message (one line) an MCP server may write: 16 MiB, the bound rmcp's own
/// stdio reader drops longer lines at.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// The nesting at which serde_json stops parsing (a message this deep never reads).
const SERDE_DEPTH: usize = 128;

/// Why a guarded stream was ended, once it was.
pub(super) type Cause = Arc<Mutex<Option<String>>>;

/// The cause recorded in `cause`, if any.
pub(super) fn cause_of(cause: &Cause) -> Option<String> {
    cause.lock().ok().and_then(|c| c.clone())
}

/// Starts `command` with `args`, its stdin and stdout piped (stderr inherited), killed when
/// dropped; its stdout guarded.
pub(super) fn spawn(
    command: &str,
    args: &[std::ffi::OsString],
) -> io::Result<(Child, Guarded<ChildStdout>, ChildStdin, Cause)> {
    let mut child = tokio::process::Command::new(command)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true)
        .spawn()?;
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err(io::Error::other("the child's stdio was not piped"));
    };
    let cause = Cause::default();
    Ok((
        child,
        Guarded::new(stdout, Arc::clone(&cause)),
        stdin,
        cause,
    ))
}

/// A reader passing a server's output through unchanged while it can be read, and failing
/// (with the cause recorded) at the first line longer than [`MAX_MESSAGE_BYTES`] or nested
/// deeper than serde's parser goes. It keeps four numbers, not the line.
#[derive(Debug)]
pub(super) struct Guarded<R> {
    inner: R,
    cause: Cause,
    line: usize,
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl<R> Guarded<R> {
    pub(super) fn new(inner: R, cause: Cause) -> Self {
        Self {
            inner,
            cause,
            line: 0,
            depth: 0,
            in_string: false,
            escaped: false,
        }
    }

    /// Follows `bytes`; the reason the stream cannot be read on, if it cannot.
    fn scan(&mut self, bytes: &[u8]) -> Option<String> {
        for &byte in bytes {
            if byte == b'\n' {
                (self.line, self.depth, self.in_string, self.escaped) = (0, 0, false, false);
                continue;
            }
            self.line += 1;
            if self.line > MAX_MESSAGE_BYTES {
                return Some(format!(
                    "it sent a message over {} MiB",
                    MAX_MESSAGE_BYTES >> 20
                ));
            }
            if self.in_string {
                match (self.escaped, byte) {
                    (true, _) => self.escaped = false,
                    (false, b'\\') => self.escaped = true,
                    (false, b'"') => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match byte {
                b'"' => self.in_string = true,
                b'[' | b'{' => {
                    self.depth += 1;
                    if self.depth >= SERDE_DEPTH {
                        return Some(format!(
                            "it sent a message nested {SERDE_DEPTH} levels deep, past what \
                             a JSON parser reads"
                        ));
                    }
                }
                b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
        }
        None
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Guarded<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if let Some(cause) = cause_of(&self.cause) {
            return Poll::Ready(Err(io::Error::other(cause)));
        }
        let before = buf.filled().len();
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if let Some(cause) = this.scan(&buf.filled()[before..]) {
                    if let Ok(mut slot) = this.cause.lock() {
                        *slot = Some(cause.clone());
                    }
                    return Poll::Ready(Err(io::Error::other(cause)));
                }
                Poll::Ready(Ok(()))
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &[u8]) -> Option<String> {
        Guarded::new((), Cause::default()).scan(text)
    }

    #[test]
    fn depth_counts_outside_strings_and_resets_per_line() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert_eq!(scan(deep(SERDE_DEPTH - 1).as_bytes()), None);
        assert!(
            scan(deep(SERDE_DEPTH).as_bytes())
                .unwrap()
                .contains("128 levels")
        );
        // Brackets in strings, escaped quotes included, are not nesting.
        let quoted = format!(r#"{{"a":"\"{}"}}"#, "[".repeat(300));
        assert_eq!(scan(quoted.as_bytes()), None);
        // Each line starts again.
        let lines = format!("{}\n{}", deep(100), deep(100));
        assert_eq!(scan(lines.as_bytes()), None);
        // What serde refuses, the guard refuses.
        let refused: Result<serde_json::Value, _> = serde_json::from_str(&deep(SERDE_DEPTH));
        assert!(refused.is_err());
        let read: Result<serde_json::Value, _> = serde_json::from_str(&deep(SERDE_DEPTH - 1));
        assert!(read.is_ok());
    }
}
