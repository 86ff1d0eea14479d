//! [`StartError`]: a run that could not start, answered as a JSON error body.

use std::fmt;

use ::axum::http::StatusCode;
use ::axum::response::{IntoResponse, Response};

use super::error_response;

/// The kinds of [`StartError`], sent as the `kind` of the JSON error body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StartErrorKind {
    /// The run could not start (the default).
    RunFailed,
    /// The input's state does not fit the agent.
    InvalidState,
    /// The input is not one the agent can run (a missing message, an unknown tool, …).
    InvalidInput,
    /// The agent cannot take the run now (a dependency is down, it is at capacity).
    Unavailable,
}

impl StartErrorKind {
    /// A stable name, the `kind` of the JSON error body: `run-failed`, `invalid-state`,
    /// `invalid-input`, `unavailable`.
    pub fn as_str(self) -> &'static str {
        match self {
            StartErrorKind::RunFailed => "run-failed",
            StartErrorKind::InvalidState => "invalid-state",
            StartErrorKind::InvalidInput => "invalid-input",
            StartErrorKind::Unavailable => "unavailable",
        }
    }
}

/// A run could not start. Sent to the client as a JSON error body
/// (`{"error": {"kind": …, "message": …}}`); the status is `500` and the kind
/// [`StartErrorKind::RunFailed`] unless set otherwise.
///
/// ```
/// use ag_ui::axum::{StartError, StartErrorKind};
/// use axum::http::StatusCode;
///
/// let err = StartError::new("the model is not configured")
///     .with_status(StatusCode::SERVICE_UNAVAILABLE)
///     .with_kind(StartErrorKind::Unavailable);
/// assert_eq!(err.kind(), StartErrorKind::Unavailable);
/// assert_eq!(err.kind().as_str(), "unavailable");
/// assert_eq!(err.status(), StatusCode::SERVICE_UNAVAILABLE);
/// assert_eq!(err.to_string(), "the model is not configured (503 Service Unavailable)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartError {
    status: StatusCode,
    kind: StartErrorKind,
    message: String,
}

impl StartError {
    /// A `500 Internal Server Error` with the given message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            kind: StartErrorKind::RunFailed,
            message: message.into(),
        }
    }

    /// Sets the status (for example `400` when the input's state does not fit the agent).
    #[must_use]
    pub fn with_status(mut self, status: StatusCode) -> Self {
        self.status = status;
        self
    }

    /// Sets the machine-readable kind (default [`StartErrorKind::RunFailed`]).
    #[must_use]
    pub fn with_kind(mut self, kind: StartErrorKind) -> Self {
        self.kind = kind;
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> StartErrorKind {
        self.kind
    }

    /// The status sent.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The message sent.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.status)
    }
}

impl std::error::Error for StartError {}

impl IntoResponse for StartError {
    fn into_response(self) -> Response {
        error_response(self.status, self.kind.as_str(), &self.message, None)
    }
}
