//! The one HTTP helper of the server probes: requests to the endpoint's origin only (no
//! redirects followed, no proxy), every response read up to a byte bound.

use std::time::Duration;

use ag_ui::encoding::SSE_MEDIA_TYPE;
use reqwest::Url;
use serde_json::Value;

use super::super::report::excerpt;

/// The most bytes of one response a probe reads; a longer answer is cut there (and said so).
pub(crate) const MAX_BODY: usize = 16 * 1024 * 1024;

/// The endpoint under test and the client that talks to it.
pub(crate) struct Target {
    /// The endpoint.
    pub(crate) url: Url,
    client: reqwest::Client,
}

/// A response, read.
#[derive(Debug)]
pub(crate) struct Reply {
    /// Its status.
    pub(crate) status: u16,
    /// Its `content-type`, if any (lower case, as sent otherwise).
    pub(crate) content_type: Option<String>,
    /// Its body, at most [`MAX_BODY`] bytes.
    pub(crate) body: Vec<u8>,
    /// The body went on past [`MAX_BODY`].
    pub(crate) truncated: bool,
    /// The body broke off (a reset connection, a bad chunk): how.
    pub(crate) broken: Option<String>,
}

impl Reply {
    /// Whether the status is 2xx.
    pub(crate) fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// "HTTP 500, content-type …: <excerpt of the body>".
    pub(crate) fn describe(&self) -> String {
        format!(
            "HTTP {}, content-type {}: {:?}",
            self.status,
            self.content_type.as_deref().unwrap_or("(none)"),
            excerpt(&self.body)
        )
    }

    /// The media type of the content type, without parameters, in lower case.
    pub(crate) fn media_type(&self) -> String {
        self.content_type
            .as_deref()
            .unwrap_or("")
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    }
}

impl Target {
    /// The target at `url`, with requests bounded by `timeout`.
    ///
    /// # Errors
    /// `url` is not an http(s) URL, or the HTTP client cannot be built.
    pub(crate) fn new(url: &str, timeout: Duration) -> Result<Self, String> {
        let parsed = Url::parse(url).map_err(|e| format!("{url:?} is not a valid URL: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
            return Err(format!("{url:?} is not an http or https URL"));
        }
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .timeout(timeout)
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(Self {
            url: parsed,
            client,
        })
    }

    /// A URL relative to the endpoint's (the endpoint read as a directory), on the same
    /// origin; `None` if the relative part would leave it.
    pub(crate) fn relative(&self, path: &str) -> Option<Url> {
        let mut base = self.url.clone();
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        base.set_query(None);
        let joined = base.join(path).ok()?;
        (joined.origin() == self.url.origin()).then_some(joined)
    }

    /// POSTs `body` (sent as `application/json`) with `accept`, and reads the response.
    ///
    /// # Errors
    /// The request failed before a status came (connection refused, time-out, …).
    pub(crate) async fn post(
        &self,
        url: &Url,
        body: Vec<u8>,
        accept: &str,
    ) -> Result<Reply, String> {
        let response = self
            .client
            .post(url.clone())
            .header("content-type", "application/json")
            .header("accept", accept)
            .body(body)
            .send()
            .await
            .map_err(|e| format!("the request failed: {}", crate::live::chain(&e)))?;
        Ok(read(response, MAX_BODY).await)
    }

    /// POSTs `body` to the endpoint reading the answer while the body is still being written,
    /// so that a server that answers (`413`) before reading a body it will not take, and
    /// closes, is heard. Over `http` on a socket of its own; `https` goes through
    /// [`post`](Self::post).
    ///
    /// # Errors
    /// No status came back.
    pub(crate) async fn post_early_answer(&self, body: Vec<u8>) -> Result<Reply, String> {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};

        let host = self.url.host_str().unwrap_or_default().to_owned();
        if self.url.scheme() != "http" {
            return self.post(&self.url, body, SSE_MEDIA_TYPE).await;
        }
        let port = self.url.port_or_known_default().unwrap_or(80);
        let stream = tokio::net::TcpStream::connect(format!("{host}:{port}"))
            .await
            .map_err(|e| format!("cannot connect to {host}:{port}: {e}"))?;
        let path = match self.url.query() {
            Some(query) => format!("{}?{query}", self.url.path()),
            None => self.url.path().to_owned(),
        };
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n\
             Accept: {SSE_MEDIA_TYPE}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let (mut reader, mut writer) = stream.into_split();
        let write = tokio::spawn(async move {
            writer.write_all(head.as_bytes()).await?;
            writer.write_all(&body).await?;
            writer.flush().await?;
            Ok::<_, std::io::Error>(writer)
        });
        let mut answer = Vec::new();
        let mut piece = vec![0; 16 * 1024];
        while answer.len() < 64 * 1024 && !answer.windows(4).any(|w| w == b"\r\n\r\n") {
            match reader.read(&mut piece).await {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&piece[..n]),
            }
        }
        let written = if answer.is_empty() {
            write.await.ok()
        } else {
            write.abort();
            None
        };
        let text = String::from_utf8_lossy(&answer);
        let status = text
            .strip_prefix("HTTP/1.")
            .and_then(|rest| rest.get(2..5))
            .and_then(|code| code.parse().ok());
        let Some(status) = status else {
            return Err(match written {
                Some(Err(e)) => {
                    format!("the connection closed with no status while the body was sent: {e}")
                }
                _ => format!("no HTTP status came back: {:?}", excerpt(&answer)),
            });
        };
        let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let content_type = head.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-type")
                .then(|| value.trim().to_owned())
        });
        Ok(Reply {
            status,
            content_type,
            body: rest.as_bytes().to_vec(),
            truncated: false,
            broken: None,
        })
    }

    /// POSTs a run input (JSON) asking for SSE.
    ///
    /// # Errors
    /// As [`post`](Self::post).
    pub(crate) async fn run(&self, input: &Value) -> Result<Reply, String> {
        let body = serde_json::to_vec(input).unwrap_or_default();
        self.post(&self.url, body, SSE_MEDIA_TYPE).await
    }

    /// GETs `url` with `headers`, reading at most `limit` bytes of the body.
    ///
    /// # Errors
    /// As [`post`](Self::post).
    pub(crate) async fn get(
        &self,
        url: &Url,
        headers: &[(&str, &str)],
        limit: usize,
    ) -> Result<Reply, String> {
        let mut request = self.client.get(url.clone());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request
            .send()
            .await
            .map_err(|e| format!("the request failed: {}", crate::live::chain(&e)))?;
        Ok(read(response, limit).await)
    }

    /// POSTs a run input and hangs up after the first piece of the body: its status.
    ///
    /// # Errors
    /// As [`post`](Self::post).
    pub(crate) async fn run_and_hang_up(&self, input: &Value) -> Result<u16, String> {
        let mut response = self
            .client
            .post(self.url.clone())
            .header("content-type", "application/json")
            .header("accept", SSE_MEDIA_TYPE)
            .body(serde_json::to_vec(input).unwrap_or_default())
            .send()
            .await
            .map_err(|e| format!("the request failed: {}", crate::live::chain(&e)))?;
        let status = response.status().as_u16();
        let _ = response.chunk().await;
        drop(response);
        Ok(status)
    }
}

/// Reads a response's body up to `limit` bytes.
async fn read(mut response: reqwest::Response, limit: usize) -> Reply {
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let mut body = Vec::new();
    let mut truncated = false;
    let mut broken = None;
    loop {
        match response.chunk().await {
            Ok(Some(piece)) => {
                let room = limit - body.len();
                if piece.len() > room {
                    body.extend_from_slice(&piece[..room]);
                    truncated = true;
                    break;
                }
                body.extend_from_slice(&piece);
            }
            Ok(None) => break,
            Err(e) => {
                broken = Some(crate::live::chain(&e));
                break;
            }
        }
    }
    Reply {
        status,
        content_type,
        body,
        truncated,
        broken,
    }
}
