//! The error type of the server layer.

use std::fmt;

use crate::verify::Violation;

/// What went wrong, as [`Error::kind`] reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The agent failed ([`Error::agent`]); the run ends with `RUN_ERROR`.
    Agent,
    /// The event would have broken the stream; the ordering verifier refused it and nothing
    /// was queued.
    Protocol,
    /// The run's state could not be read from the input or written as JSON.
    State,
    /// A value (tool arguments, a result) could not be serialized as JSON.
    Serialize,
    /// The consumer of the event stream went away; nothing more will be read.
    Disconnected,
    /// The run (or the subagent) has already ended; nothing more can be emitted into it.
    Closed,
    /// The call is not allowed here: an event the runner or a handle owns, sent by hand.
    Misuse,
    /// No async runtime to run the agent on.
    Runtime,
    /// The run's backlog would have passed its hard cap (see
    /// [`Backpressure`](super::Backpressure)): the consumer reads slower than the agent emits
    /// and the agent did not wait with `ready().await`. Nothing more is accepted; the run ends
    /// with `RUN_ERROR` (code `"backpressure"`).
    Backpressure,
}

impl ErrorKind {
    /// A short stable name (`"agent"`, `"protocol"`, …), also used as the `RUN_ERROR` code
    /// when the error carries none of its own.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Agent => "agent",
            ErrorKind::Protocol => "protocol",
            ErrorKind::State => "state",
            ErrorKind::Serialize => "serialize",
            ErrorKind::Disconnected => "disconnected",
            ErrorKind::Closed => "closed",
            ErrorKind::Misuse => "misuse",
            ErrorKind::Runtime => "runtime",
            ErrorKind::Backpressure => "backpressure",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of the server layer: an emission that was refused, a state that did not fit, or a
/// failure the agent reports with [`Error::agent`].
///
/// ```
/// use ag_ui::server::{Error, ErrorKind};
///
/// let err = Error::agent("the weather service is down").with_code("upstream");
/// assert_eq!(err.kind(), ErrorKind::Agent);
/// assert_eq!(err.code(), Some("upstream"));
/// assert_eq!(err.to_string(), "the weather service is down");
/// ```
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    kind: ErrorKind,
    message: String,
    code: Option<String>,
    violation: Option<Box<Violation>>,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

/// `Result` with the server [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            code: None,
            violation: None,
            source: None,
        }
    }

    /// The event was refused by the ordering verifier.
    pub(crate) fn protocol(violation: Violation) -> Self {
        let mut error = Self::new(
            ErrorKind::Protocol,
            format!("the event was not emitted: {violation}"),
        );
        // The violation is in the message and behind `violation()`; it is not also the
        // `source`, which would print it twice in a report that walks the chain.
        error.violation = Some(Box::new(violation));
        error
    }

    /// For [`ErrorKind::Protocol`]: the rule the refused event would have broken.
    pub fn violation(&self) -> Option<&Violation> {
        self.violation.as_deref()
    }

    /// Keeps `source` as the cause of this error ([`std::error::Error::source`]), so that an
    /// agent reports its own error without flattening it into the message.
    ///
    /// ```
    /// use ag_ui::server::{Error, ErrorKind};
    /// use std::error::Error as _;
    ///
    /// let io = std::io::Error::other("connection reset");
    /// let err = Error::agent("the weather service failed").with_source(io);
    /// assert_eq!(err.kind(), ErrorKind::Agent);
    /// assert_eq!(err.to_string(), "the weather service failed");
    /// assert_eq!(err.source().unwrap().to_string(), "connection reset");
    /// ```
    #[must_use]
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// A failure of the agent itself. Returned from an agent, it ends the run with `RUN_ERROR`
    /// carrying this message (and the code set with [`Error::with_code`]).
    pub fn agent(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Agent, message)
    }

    /// Sets the machine-readable code that `RUN_ERROR` (or `SUBAGENT_ERROR`) carries.
    #[must_use]
    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// What kind of error this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The code set with [`Error::with_code`], if any.
    pub fn code(&self) -> Option<&str> {
        self.code.as_deref()
    }

    /// The human-readable message.
    pub fn message(&self) -> &str {
        &self.message
    }

    pub(crate) fn misuse(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Misuse, message)
    }

    pub(crate) fn closed() -> Self {
        Self::new(
            ErrorKind::Closed,
            "the run has ended; nothing more can be emitted into it",
        )
    }

    pub(crate) fn backpressure(message: String) -> Self {
        Self::new(ErrorKind::Backpressure, message)
    }

    pub(crate) fn disconnected() -> Self {
        Self::new(
            ErrorKind::Disconnected,
            "the consumer of the event stream went away",
        )
    }

    pub(crate) fn serialize(what: &str, source: serde_json::Error) -> Self {
        Self::new(
            ErrorKind::Serialize,
            format!("{what} could not be serialized as JSON: {source}"),
        )
        .with_source(source)
    }

    /// The code `RUN_ERROR` carries for this error: its own, or the kind name.
    pub(crate) fn wire_code(&self) -> String {
        self.code
            .clone()
            .unwrap_or_else(|| self.kind.as_str().to_owned())
    }
}
