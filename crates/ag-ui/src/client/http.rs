//! [`HttpAgent`]: the [`Transport`] for an AG-UI endpoint over HTTP.
//!
//! Each run is a `POST` of the [`RunAgentInput`] as JSON with `Accept: text/event-stream`; the
//! response streams SSE, read incrementally (nothing is buffered beyond the event being read,
//! which is bounded by the pipeline's event size limit). A non-success status is a
//! [`RunError::Http`] carrying the status and (the first 64 KiB of) the body.
//!
//! ```no_run
//! use ag_ui::client::conversation::Conversation;
//! use ag_ui::client::http::HttpAgent;
//! use std::time::Duration;
//!
//! # async fn demo() -> Result<(), ag_ui::client::run::RunError> {
//! let agent = HttpAgent::new("http://127.0.0.1:8000/agent")
//!     .with_bearer_token("secret")
//!     .with_header("x-tenant", "acme")
//!     .with_timeout(Duration::from_secs(120));
//! let mut conversation = Conversation::new("thread-1");
//! conversation.add_user_message("What is the weather in Paris?");
//! let summary = conversation.run(&agent, &mut ()).await?;
//! // The messages the run added are in the conversation, after the question.
//! assert!(!summary.new_messages.is_empty());
//! let added = &conversation.messages()[conversation.messages().len() - summary.new_messages.len()..];
//! assert!(added.iter().map(|m| m.id()).eq(&summary.new_messages));
//! # Ok(())
//! # }
//! ```

use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use crate::RunAgentInput;
use crate::client::conversation::{Body, Chunk, Transport};
use crate::client::run::RunError;

/// How much of an error response's body is kept.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// An AG-UI agent behind an HTTP endpoint.
#[derive(Clone, Debug)]
pub struct HttpAgent {
    url: String,
    client: reqwest::Client,
    headers: HeaderMap,
    bearer: Option<String>,
    timeout: Option<Duration>,
}

impl HttpAgent {
    /// An agent at `url`, with a default client (rustls).
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            client: reqwest::Client::new(),
            headers: HeaderMap::new(),
            bearer: None,
            timeout: None,
        }
    }

    /// Uses this client (connection pool, proxies, TLS roots, connect and read timeouts).
    #[must_use]
    pub fn with_client(mut self, client: reqwest::Client) -> Self {
        self.client = client;
        self
    }

    /// Sends this header with every run. A name or value that is not valid in HTTP is ignored
    /// with a warning.
    #[must_use]
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        match (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) {
            (Ok(name), Ok(value)) => {
                self.headers.insert(name, value);
            }
            _ => tracing::warn!(name, "ignoring a header that is not valid in HTTP"),
        }
        self
    }

    /// Sends `Authorization: Bearer <token>` with every run.
    #[must_use]
    pub fn with_bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(token.into());
        self
    }

    /// Limits a whole run (connecting, sending, and streaming the response) to `timeout`.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The endpoint.
    pub fn url(&self) -> &str {
        &self.url
    }
}

fn transport_error(e: reqwest::Error) -> RunError {
    RunError::Transport(e.to_string())
}

/// The streaming response of an [`HttpAgent`] run. Dropping it closes the request.
#[derive(Debug)]
pub struct HttpBody(reqwest::Response);

impl Body for HttpBody {
    async fn next(&mut self) -> Result<Option<Chunk>, RunError> {
        match self.0.chunk().await {
            Ok(Some(bytes)) => Ok(Some(Chunk::Bytes(bytes.to_vec()))),
            Ok(None) => Ok(None),
            Err(e) => Err(transport_error(e)),
        }
    }
}

impl Transport for HttpAgent {
    type Body = HttpBody;

    async fn open(&self, input: &RunAgentInput) -> Result<HttpBody, RunError> {
        let body = serde_json::to_vec(input).map_err(|e| RunError::Transport(e.to_string()))?;
        let mut request = self
            .client
            .post(&self.url)
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "text/event-stream")
            .body(body);
        if let Some(token) = &self.bearer {
            request = request.bearer_auth(token);
        }
        if let Some(timeout) = self.timeout {
            request = request.timeout(timeout);
        }
        let mut response = request.send().await.map_err(transport_error)?;
        let status = response.status();
        if !status.is_success() {
            let mut body = Vec::new();
            while body.len() < ERROR_BODY_LIMIT {
                match response.chunk().await {
                    Ok(Some(bytes)) => body.extend_from_slice(&bytes),
                    _ => break,
                }
            }
            body.truncate(ERROR_BODY_LIMIT);
            return Err(RunError::Http {
                status: status.as_u16(),
                body: String::from_utf8_lossy(&body).into_owned(),
            });
        }
        Ok(HttpBody(response))
    }
}
