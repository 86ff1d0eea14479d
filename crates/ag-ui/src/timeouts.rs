//! [`Timeouts`]: the time-outs of a streaming HTTP request, one set of knobs for every client
//! this crate makes — an `HttpAgent`'s runs and an `OpenAiClient`'s model requests — with
//! their defaults, at the crate root (`ag_ui::Timeouts`), shared by both.

use std::time::Duration;

/// The connect time-out unless set: 10 seconds.
#[cfg(any(feature = "http", feature = "openai"))]
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The idle time-out unless set: 60 seconds.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// The time-outs of a streaming HTTP request: an `HttpAgent`'s run, an `OpenAiClient`'s
/// model request. Each one that fires is an error naming it (a `TransportError` of kind
/// `Timeout`, an `LlmError` of kind `Timeout`).
///
/// Set all of them at once with the client's `with_timeouts`, or one at a time with its
/// `with_idle_timeout` and `with_timeout` shortcuts, in any order.
///
/// ```
/// # #[cfg(any(feature = "http", feature = "openai"))]
/// # {
/// use ag_ui::Timeouts;
/// use std::time::Duration;
///
/// let timeouts = Timeouts::default()
///     .with_idle(Duration::from_secs(30))
///     .with_total(Duration::from_secs(120));
/// assert_eq!(timeouts.connect, Duration::from_secs(10));
/// assert_eq!(timeouts.total, Some(Duration::from_secs(120)));
/// # }
/// ```
#[cfg(any(feature = "http", feature = "openai"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Timeouts {
    /// Establishing a connection (default [`DEFAULT_CONNECT_TIMEOUT`]); applies to the client
    /// the agent or model client builds for itself, not to one given with its `with_client`.
    pub connect: Duration,
    /// How long the peer may send nothing (default [`DEFAULT_IDLE_TIMEOUT`]): from sending
    /// the request to the response headers (connecting included), then between any two
    /// pieces of the body. Any byte resets it, so a peer that sends SSE keep-alive comments
    /// while it thinks is never idle. An `HttpAgent`'s waits before reconnecting a resumable
    /// stream count too. `Duration::MAX` waits forever.
    pub idle: Duration,
    /// A whole request: connecting, sending, and streaming the response (`None`, the
    /// default: no limit). An `OpenAiClient`'s waits before retrying a `429` count too.
    pub total: Option<Duration>,
}

#[cfg(any(feature = "http", feature = "openai"))]
impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect: DEFAULT_CONNECT_TIMEOUT,
            idle: DEFAULT_IDLE_TIMEOUT,
            total: None,
        }
    }
}

#[cfg(any(feature = "http", feature = "openai"))]
impl Timeouts {
    /// These time-outs with connecting bounded by `timeout`.
    #[must_use]
    pub fn with_connect(mut self, timeout: Duration) -> Self {
        self.connect = timeout;
        self
    }

    /// These time-outs with the peer allowed to send nothing for `timeout`
    /// (`Duration::MAX`: forever).
    #[must_use]
    pub fn with_idle(mut self, timeout: Duration) -> Self {
        self.idle = timeout;
        self
    }

    /// These time-outs with a whole request bounded by `timeout`.
    #[must_use]
    pub fn with_total(mut self, timeout: Duration) -> Self {
        self.total = Some(timeout);
        self
    }
}
