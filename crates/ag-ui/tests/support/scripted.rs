//! Servers scripted on raw TCP sockets on 127.0.0.1, for clients against hostile or broken
//! agents: every byte (and every silence) is the test's.

use std::future::Future;

use ag_ui::Event;
use ag_ui::encoding::sse;
use serde_json::Value;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use super::request_head::parse_head;

/// A request as the server read it.
#[derive(Debug)]
pub struct Request {
    /// The request line and headers, as sent.
    pub head: String,
    /// The body.
    pub body: Vec<u8>,
}

impl Request {
    /// The value of a header (name compared case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|line| {
            let (k, v) = line.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

pub struct Server {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    requests: mpsc::UnboundedReceiver<Request>,
}

impl Server {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Every request received so far.
    pub fn received(&mut self) -> Vec<Request> {
        let mut all = Vec::new();
        while let Ok(r) = self.requests.try_recv() {
            all.push(r);
        }
        all
    }
}

pub async fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let (head_end, head, length) = loop {
        if let Some(parsed) = parse_head(&buf) {
            break parsed;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let mut body = buf[head_end..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Request { head, body })
}

/// A server on 127.0.0.1: every connection's request is recorded, then `respond` gets the
/// request's path and the socket to answer (or not) as it likes.
pub async fn server<F, Fut>(respond: F) -> Server
where
    F: Fn(String, TcpStream) -> Fut + Send + Sync + Clone + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (tx, requests) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let (tx, respond) = (tx.clone(), respond.clone());
            tokio::spawn(async move {
                let Some(request) = read_request(&mut stream).await else {
                    return;
                };
                let path = request
                    .head
                    .split(' ')
                    .nth(1)
                    .unwrap_or_default()
                    .to_owned();
                let _ = tx.send(request);
                respond(path, stream).await;
            });
        }
    });
    Server { base, requests }
}

/// A complete response with these headers (each `Name: value`) and body, connection closed.
pub fn response(status: &str, headers: &[&str], body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status}\r\nconnection: close\r\n");
    for h in headers {
        out.push_str(h);
        out.push_str("\r\n");
    }
    out.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
    let mut out = out.into_bytes();
    out.extend_from_slice(body);
    out
}

pub const SSE_HEADERS: &str =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";

/// `events` as SSE frames.
pub fn sse_of(events: &[Event]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in events {
        sse::encode_into(e, &mut out);
    }
    out
}
