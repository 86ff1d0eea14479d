//! A real `redis-server` for the tests and benchmarks that need one: the server an environment
//! variable names, or one spawned here on a free port, without persistence, killed on drop.
//! The tests, benchmarks and the CLI's tests that use it include this file alone (`#[path]`),
//! so it needs nothing but the standard library.

#![allow(dead_code, unreachable_pub)]

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A Redis server for one test: its URL, and the process when this test started it.
#[derive(Debug)]
pub struct RedisServer {
    /// `redis://127.0.0.1:<port>`, or what the environment variable named.
    pub url: String,
    /// The port of a server started here (0 for one the environment named).
    pub port: u16,
    child: Option<Child>,
}

impl RedisServer {
    /// The server `var` names (`AG_UI_TEST_REDIS`, `AG_UI_BENCH_REDIS`) when it is set and not
    /// empty, else one of this test's own.
    pub fn shared_or_own(var: &str) -> Self {
        match std::env::var(var) {
            Ok(url) if !url.is_empty() => Self {
                url,
                port: 0,
                child: None,
            },
            _ => Self::own(),
        }
    }

    /// A server of this test's own, on a free port.
    pub fn own() -> Self {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free local port")
            .port();
        Self::on(port)
    }

    /// A server of this test's own on `port` (a server that went away, back on its port),
    /// once it accepts connections (or after two seconds of trying).
    pub fn on(port: u16) -> Self {
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "Redis is needed: install redis-server, or name a running server in \
                     AG_UI_TEST_REDIS ({e})"
                )
            });
        for _ in 0..100 {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Self {
            url: format!("redis://127.0.0.1:{port}"),
            port,
            child: Some(child),
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
