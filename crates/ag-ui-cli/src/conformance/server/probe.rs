//! The one HTTP helper of the server probes: requests to the endpoint's origin only (no
//! redirects followed, no proxy), every response read up to a byte bound ([`MAX_BODY`]), and
//! a run's answer read as a stream through the checker as it arrives, kept only when a later
//! check reads it again.

use std::time::Duration;

use ag_ui::encoding::SSE_MEDIA_TYPE;
use reqwest::Url;
use serde_json::Value;

use super::super::report::quote;
use super::stream::{Analysis, Analyzer, Observer};

/// The most bytes of one response a probe reads; a longer answer is cut there (and said so).
pub(crate) const MAX_BODY: usize = 16 * 1024 * 1024;

/// How much of an answer read as a stream, and not kept, is kept to quote.
pub(crate) const HEAD: usize = 64 * 1024;

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
    /// Its body, at most [`MAX_BODY`] bytes; of a 2xx body read as a stream and not kept, its
    /// first [`HEAD`] bytes.
    pub(crate) body: Vec<u8>,
    /// How many bytes of the body were read.
    pub(crate) read: usize,
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
        let mut text = format!(
            "HTTP {}, content-type {}: {:?}",
            self.status,
            quote(self.content_type.as_deref().unwrap_or("(none)").as_bytes()),
            quote(&self.body)
        );
        if self.body.len() < self.read {
            text.push_str(&format!(" ({} bytes read)", self.read));
        }
        text
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

/// What is handed each piece of a body as it arrives.
pub(crate) type Tap<'o> = &'o mut dyn FnMut(&[u8]);

/// How a 2xx answer is read as a stream: kept or not, who is told of each event, and who is
/// handed each piece of it.
pub(crate) struct Streamed<'o> {
    /// Keep the body too (for a check that walks it again).
    pub(crate) keep: bool,
    /// Told of each event.
    pub(crate) observer: Option<Observer<'o>>,
    /// Handed each piece of the body as it arrives.
    pub(crate) tap: Option<Tap<'o>>,
}

impl Streamed<'_> {
    /// Read as a stream, not kept, nobody told.
    pub(crate) fn plain() -> Self {
        Self {
            keep: false,
            observer: None,
            tap: None,
        }
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

    /// POSTs `body` (sent as `application/json`) with `accept`, and reads at most `limit`
    /// bytes of the answer.
    ///
    /// # Errors
    /// The request failed before a status came (connection refused, time-out, …).
    pub(crate) async fn post_limited(
        &self,
        url: &Url,
        body: Vec<u8>,
        accept: &str,
        limit: usize,
    ) -> Result<Reply, String> {
        let Pending(response) = self.send(url, body, accept).await?;
        Ok(read(response, limit.min(MAX_BODY), None).await.0)
    }

    /// POSTs `body` to the endpoint reading the answer while the body is still being written,
    /// so that a server that answers (`413`) before reading a body it will not take, and
    /// closes, is heard. Over `http` on a socket of its own; `https` through the client. The
    /// body is written piece by piece, never held whole.
    ///
    /// # Errors
    /// No status came back.
    pub(crate) async fn post_early_answer(&self, body: Padded) -> Result<Reply, String> {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};

        let host = self.url.host_str().unwrap_or_default().to_owned();
        if self.url.scheme() != "http" {
            let length = body.len();
            let pieces = futures::stream::iter(body.pieces().map(Ok::<_, std::io::Error>));
            let response = self
                .client
                .post(self.url.clone())
                .header("content-type", "application/json")
                .header("content-length", length)
                .header("accept", SSE_MEDIA_TYPE)
                .body(reqwest::Body::wrap_stream(pieces))
                .send()
                .await
                .map_err(|e| format!("the request failed: {}", crate::failure::chain(&e)))?;
            return Ok(read(response, HEAD, None).await.0);
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
            for piece in body.pieces() {
                writer.write_all(&piece).await?;
            }
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
                _ => format!("no HTTP status came back: {:?}", quote(&answer)),
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
            read: rest.len(),
            truncated: false,
            broken: None,
        })
    }

    /// POSTs a run input to the endpoint asking for SSE, and reads a 2xx answer as a stream
    /// (`how`), with its analysis; any other answer is read whole, with none.
    ///
    /// # Errors
    /// As [`post_limited`](Self::post_limited).
    pub(crate) async fn run_streamed(
        &self,
        input: &Value,
        how: Streamed<'_>,
    ) -> Result<(Reply, Option<Analysis>), String> {
        let body = serde_json::to_vec(input).unwrap_or_default();
        self.post_streamed(&self.url, body, SSE_MEDIA_TYPE, how)
            .await
    }

    /// POSTs `body` with `accept` and reads a 2xx answer as a stream (`how`), with its
    /// analysis; any other answer is read whole, with none.
    ///
    /// # Errors
    /// As [`post_limited`](Self::post_limited).
    pub(crate) async fn post_streamed(
        &self,
        url: &Url,
        body: Vec<u8>,
        accept: &str,
        how: Streamed<'_>,
    ) -> Result<(Reply, Option<Analysis>), String> {
        Ok(self.send(url, body, accept).await?.read(how).await)
    }

    /// POSTs `body` with `accept`: the answer, its body still to read.
    ///
    /// # Errors
    /// As [`post_limited`](Self::post_limited).
    pub(crate) async fn send(
        &self,
        url: &Url,
        body: Vec<u8>,
        accept: &str,
    ) -> Result<Pending, String> {
        let response = self
            .client
            .post(url.clone())
            .header("content-type", "application/json")
            .header("accept", accept)
            .body(body)
            .send()
            .await
            .map_err(|e| format!("the request failed: {}", crate::failure::chain(&e)))?;
        Ok(Pending(response))
    }

    /// GETs `url` with `headers`, reading at most `limit` bytes of the body.
    ///
    /// # Errors
    /// As [`post_limited`](Self::post_limited).
    pub(crate) async fn get(
        &self,
        url: &Url,
        headers: &[(&str, &str)],
        limit: usize,
    ) -> Result<Reply, String> {
        Ok(self.get_streamed(url, headers, limit, None).await?.0)
    }

    /// GETs `url` with `headers`, reading at most `limit` bytes of the body: a 2xx body as a
    /// stream (`how`, with its analysis) when `how` is given, any other whole.
    ///
    /// # Errors
    /// As [`post_limited`](Self::post_limited).
    pub(crate) async fn get_streamed(
        &self,
        url: &Url,
        headers: &[(&str, &str)],
        limit: usize,
        how: Option<Streamed<'_>>,
    ) -> Result<(Reply, Option<Analysis>), String> {
        let mut request = self.client.get(url.clone());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request
            .send()
            .await
            .map_err(|e| format!("the request failed: {}", crate::failure::chain(&e)))?;
        Ok(read(response, limit, how).await)
    }

    /// POSTs a run input and hangs up after the first piece of the body: its status.
    ///
    /// # Errors
    /// As [`post_limited`](Self::post_limited).
    pub(crate) async fn run_and_hang_up(&self, input: &Value) -> Result<u16, String> {
        let mut response = self
            .client
            .post(self.url.clone())
            .header("content-type", "application/json")
            .header("accept", SSE_MEDIA_TYPE)
            .body(serde_json::to_vec(input).unwrap_or_default())
            .send()
            .await
            .map_err(|e| format!("the request failed: {}", crate::failure::chain(&e)))?;
        let status = response.status().as_u16();
        let _ = response.chunk().await;
        drop(response);
        Ok(status)
    }
}

/// A request body written piece by piece, never held whole: `before`, `filler` bytes of
/// `fill`, `after`.
pub(crate) struct Padded {
    pub(crate) before: Vec<u8>,
    pub(crate) fill: u8,
    pub(crate) filler: usize,
    pub(crate) after: Vec<u8>,
}

impl Padded {
    /// Its length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.before.len() + self.filler + self.after.len()
    }

    /// Its pieces, in order: the filler in pieces of [`HEAD`] bytes.
    pub(crate) fn pieces(self) -> impl Iterator<Item = Vec<u8>> + Send {
        let Padded {
            before,
            fill,
            filler,
            after,
        } = self;
        let fillers =
            (0..filler.div_ceil(HEAD)).map(move |i| vec![fill; HEAD.min(filler - i * HEAD)]);
        std::iter::once(before)
            .chain(fillers)
            .chain(std::iter::once(after))
    }
}

/// An answer whose body is still to read (the server's writes wait in the connection until
/// it is).
pub(crate) struct Pending(reqwest::Response);

impl Pending {
    /// Reads the body as [`Target::post_streamed`] does.
    pub(crate) async fn read(self, how: Streamed<'_>) -> (Reply, Option<Analysis>) {
        read(self.0, MAX_BODY, Some(how)).await
    }
}

/// Makes room in `body` for `more` bytes, doubling as a `Vec` does but never past `limit`
/// (a `Vec` left to itself would double a body just under the bound to twice the bound).
pub(crate) fn grow_within(body: &mut Vec<u8>, more: usize, limit: usize) {
    let needed = body.len() + more;
    if needed > body.capacity() {
        let room = body
            .capacity()
            .saturating_mul(2)
            .max(needed)
            .min(limit.max(needed));
        body.reserve_exact(room - body.len());
    }
}

/// Reads a response's body up to `limit` bytes: whole, or, when `how` is given and the status
/// is 2xx, through an [`Analyzer`] piece by piece (kept only when `how` says so, its first
/// [`HEAD`] bytes otherwise).
async fn read(
    mut response: reqwest::Response,
    limit: usize,
    how: Option<Streamed<'_>>,
) -> (Reply, Option<Analysis>) {
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let mut reply = Reply {
        status,
        content_type,
        body: Vec::new(),
        read: 0,
        truncated: false,
        broken: None,
    };
    let (keep, mut analyzer, mut tap) = match how {
        Some(how) if reply.ok() => {
            let mut analyzer = Analyzer::new(&reply.media_type());
            if let Some(observer) = how.observer {
                analyzer = analyzer.with_observer(observer);
            }
            (how.keep, Some(analyzer), how.tap)
        }
        _ => (true, None, None),
    };
    if keep {
        // The announced length (within the bound) at once, not grown by doubling.
        let announced = response.content_length().unwrap_or(0);
        reply
            .body
            .reserve(usize::try_from(announced).unwrap_or(limit).min(limit));
    }
    loop {
        match response.chunk().await {
            Ok(Some(piece)) => {
                let room = limit - reply.read;
                let piece = if piece.len() > room {
                    reply.truncated = true;
                    piece.slice(..room)
                } else {
                    piece
                };
                reply.read += piece.len();
                if let Some(analyzer) = &mut analyzer {
                    analyzer.push(&piece);
                }
                if let Some(tap) = &mut tap {
                    tap(&piece);
                }
                if keep {
                    grow_within(&mut reply.body, piece.len(), limit);
                    reply.body.extend_from_slice(&piece);
                } else if reply.body.len() < HEAD {
                    let take = piece.len().min(HEAD - reply.body.len());
                    reply.body.extend_from_slice(&piece[..take]);
                }
                if reply.truncated {
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => {
                reply.broken = Some(crate::failure::chain(&e));
                break;
            }
        }
    }
    let analysis =
        analyzer.map(|analyzer| analyzer.finish(reply.truncated, reply.broken.as_deref()));
    (reply, analysis)
}
