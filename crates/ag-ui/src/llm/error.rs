//! The error type of the model bridge.

use std::fmt;
use std::time::Duration;

/// What went wrong, as [`LlmError::kind`] reports it. [`as_str`](Self::as_str) is the
/// `RUN_ERROR` code a run ends with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LlmErrorKind {
    /// The provider could not be reached (connection refused, TLS, DNS).
    Connect,
    /// The provider answered with an HTTP error status.
    Http,
    /// The provider answered `429 Too Many Requests`, and the retries allowed are spent.
    RateLimited,
    /// No byte arrived within the idle timeout, or the request took longer than allowed.
    Timeout,
    /// A chunk was not valid JSON of the chunk shape.
    MalformedChunk,
    /// The stream ended before `data: [DONE]`.
    IncompleteStream,
    /// The provider reported an error inside the stream.
    Provider,
    /// The turn outgrew the configured limit (text, arguments, or number of tool calls).
    TooLarge,
    /// The model stopped at its output token limit (`finish_reason: "length"`).
    Length,
    /// The provider's content filter stopped the answer.
    ContentFilter,
    /// The agent loop reached its cap on model requests
    /// ([`LoopConfig::max_turns`](crate::server::bridge::LoopConfig::max_turns)).
    MaxTurns,
    /// A message of the conversation has content the chat format cannot carry.
    Unsupported,
    /// The AG-UI stream refused an event (the run is gone, or a bug in the bridge).
    Emit,
}

impl LlmErrorKind {
    /// A short stable name, used as the `RUN_ERROR` code.
    pub fn as_str(self) -> &'static str {
        match self {
            LlmErrorKind::Connect => "provider_unreachable",
            LlmErrorKind::Http => "provider_http_error",
            LlmErrorKind::RateLimited => "provider_rate_limited",
            LlmErrorKind::Timeout => "provider_timeout",
            LlmErrorKind::MalformedChunk => "provider_malformed_chunk",
            LlmErrorKind::IncompleteStream => "provider_incomplete_stream",
            LlmErrorKind::Provider => "provider_error",
            LlmErrorKind::TooLarge => "provider_too_large",
            LlmErrorKind::Length => "model_length",
            LlmErrorKind::ContentFilter => "model_content_filter",
            LlmErrorKind::MaxTurns => crate::server::bridge::MAX_TURNS_CODE,
            LlmErrorKind::Unsupported => "unsupported_content",
            LlmErrorKind::Emit => "emit",
        }
    }
}

impl fmt::Display for LlmErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of the model bridge: a provider failure, a bad chunk, a limit reached.
///
/// ```
/// use ag_ui::llm::{LlmError, LlmErrorKind};
///
/// let err = LlmError::new(LlmErrorKind::IncompleteStream, "the stream ended without [DONE]");
/// assert_eq!(err.kind().as_str(), "provider_incomplete_stream");
/// let run_error = ag_ui::server::Error::from(err);
/// assert_eq!(run_error.code(), Some("provider_incomplete_stream"));
/// ```
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct LlmError {
    kind: LlmErrorKind,
    message: String,
    status: Option<u16>,
    retry_after: Option<Duration>,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl LlmError {
    /// An error of `kind`.
    pub fn new(kind: LlmErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            status: None,
            retry_after: None,
            source: None,
        }
    }

    #[must_use]
    pub(crate) fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    #[must_use]
    pub(crate) fn with_retry_after(mut self, wait: Option<Duration>) -> Self {
        self.retry_after = wait;
        self
    }

    #[must_use]
    pub(crate) fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> LlmErrorKind {
        self.kind
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The HTTP status, for [`LlmErrorKind::Http`] and [`LlmErrorKind::RateLimited`].
    pub fn status(&self) -> Option<u16> {
        self.status
    }

    /// How long the provider asked to wait (`Retry-After`), for
    /// [`LlmErrorKind::RateLimited`].
    pub fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }
}

impl From<LlmError> for crate::server::Error {
    /// An emission the run refused stays that error (so a consumer gone away still reads as
    /// cancelled); anything else becomes an agent error whose code is the kind's name.
    fn from(error: LlmError) -> Self {
        if error.kind == LlmErrorKind::Emit
            && let Some(source) = error.source
        {
            match source.downcast::<crate::server::Error>() {
                Ok(inner) => return *inner,
                Err(_) => {
                    return crate::server::Error::agent(error.message)
                        .with_code(error.kind.as_str());
                }
            }
        }
        crate::server::Error::agent(error.message).with_code(error.kind.as_str())
    }
}

impl From<crate::server::Error> for LlmError {
    fn from(error: crate::server::Error) -> Self {
        // The server's error is the source; the message does not repeat it.
        LlmError::new(LlmErrorKind::Emit, "the run refused an event").with_source(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn an_emit_error_keeps_the_servers_error_as_source_without_repeating_it() {
        let server = crate::server::Error::agent("the consumer went away");
        let error = LlmError::from(server);
        assert_eq!(error.kind(), LlmErrorKind::Emit);
        assert_eq!(error.to_string(), "the run refused an event");
        assert_eq!(
            error.source().unwrap().to_string(),
            "the consumer went away"
        );
        // And back: the server's own error, unchanged.
        let back = crate::server::Error::from(error);
        assert_eq!(back.to_string(), "the consumer went away");
    }
}
