//! The endpoint's limits on what requests may cost: [`EndpointLimits`], and the endpoint-wide
//! budget of input bytes held by open runs.
//!
//! A run holds its input (the parsed `RunAgentInput`) for as long as it is open, and a
//! resumable run goes on detached after its client left: the number of open runs is not a
//! bound on memory when each may bring megabytes of messages. So the endpoint counts what the
//! inputs of the runs it holds open take, from the first byte read until the run ends (its
//! response finished or dropped, or its detached life over), and refuses a request that would
//! take the count past [`EndpointLimits::max_input_bytes`] with a JSON `503` (`overloaded`)
//! and `Retry-After`, before reading more of it. While a body is read its bytes are counted;
//! once it is parsed, what the parsed input holds on the heap takes their place (walked, see
//! `held.rs`): a body's length is no measure of its input, since two bytes of JSON can become
//! an 80-byte `serde_json::Value` (a state of `[0,0,…]` held about 75 times its JSON in a run
//! of a [`Runner`](crate::server::Runner), measured by the test `input_alloc`, which the byte
//! count let through). An input that alone would hold more than the budget is `413`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::input::{InputRejection, RejectionKind};
use super::{DEFAULT_BODY_LIMIT, DEFAULT_BODY_TIMEOUT};

/// The default budget of input bytes held by the open runs of one endpoint: 256 MiB (about
/// ten bodies of short messages at the default limit, each holding some six times its JSON).
pub const DEFAULT_MAX_INPUT_BYTES: usize = 256 * 1024 * 1024;

/// The seconds a client refused for the input budget is told to wait (`Retry-After`).
pub(crate) const RETRY_AFTER_SECS: u64 = 1;

/// What one endpoint accepts from requests: the size of a body, the time to read it, and the
/// input bytes all its open runs may hold. Every bound is configuration, never what a client
/// sends.
///
/// ```
/// use std::time::Duration;
/// use ag_ui::axum::{AgentEndpoint, EndpointLimits};
/// # use ag_ui::{Event, RunAgentInput};
/// # fn echo(input: RunAgentInput) -> impl futures::Stream<Item = Event> + Send + 'static {
/// #     futures::stream::iter([Event::run_finished(input.thread_id, input.run_id)])
/// # }
///
/// let limits = EndpointLimits::default()
///     .with_body_limit(1024 * 1024)
///     .with_max_input_bytes(32 * 1024 * 1024);
/// let endpoint = AgentEndpoint::new(echo).with_limits(limits);
/// assert_eq!(endpoint.limits().body_timeout, Duration::from_secs(30));
/// // The endpoint's one shortcut sets one field, in any order.
/// let endpoint = endpoint.with_body_limit(2048);
/// assert_eq!(endpoint.limits().body_limit, 2048);
/// assert_eq!(endpoint.limits().max_input_bytes, 32 * 1024 * 1024);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct EndpointLimits {
    /// The largest request body, in bytes; more is `413` (default [`DEFAULT_BODY_LIMIT`]).
    pub body_limit: usize,
    /// The time allowed to read a whole request body; more is `408` (default
    /// [`DEFAULT_BODY_TIMEOUT`]).
    pub body_timeout: Duration,
    /// The most bytes the inputs of the endpoint's open runs may hold together, detached
    /// resumable runs too: a body's bytes while it is read, then what its parsed input holds
    /// on the heap (its strings, messages and JSON values, the state twice); a request that
    /// would pass it is answered `503` (`overloaded`, `Retry-After: 1`) at once, and accepted
    /// again as runs end; an input that alone would hold more is `413` (default
    /// [`DEFAULT_MAX_INPUT_BYTES`]). A value below `body_limit` caps the body size too.
    pub max_input_bytes: usize,
}

impl Default for EndpointLimits {
    fn default() -> Self {
        Self {
            body_limit: DEFAULT_BODY_LIMIT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
        }
    }
}

impl EndpointLimits {
    /// Sets [`body_limit`](Self::body_limit).
    #[must_use]
    pub fn with_body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// Sets [`body_timeout`](Self::body_timeout).
    #[must_use]
    pub fn with_body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// Sets [`max_input_bytes`](Self::max_input_bytes).
    #[must_use]
    pub fn with_max_input_bytes(mut self, bytes: usize) -> Self {
        self.max_input_bytes = bytes;
        self
    }
}

/// The input bytes the open runs of one endpoint hold (shared by its clones).
#[derive(Debug)]
pub(crate) struct InputBudget {
    used: AtomicUsize,
    limit: usize,
}

impl InputBudget {
    pub(crate) fn new(limit: usize) -> Arc<Self> {
        Arc::new(Self {
            used: AtomicUsize::new(0),
            limit,
        })
    }

    /// The bytes held now.
    #[cfg(test)]
    pub(crate) fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// An empty permit, grown as the body is read.
    pub(crate) fn permit(self: &Arc<Self>) -> InputPermit {
        InputPermit {
            budget: Some(Arc::clone(self)),
            bytes: 0,
        }
    }
}

/// The input bytes of one request, counted in its endpoint's budget until dropped (with the
/// run that holds them).
#[derive(Debug, Default)]
pub(crate) struct InputPermit {
    budget: Option<Arc<InputBudget>>,
    bytes: usize,
}

impl InputPermit {
    /// A permit that counts nothing (the [`AgentInput`](super::AgentInput) extractor's).
    pub(crate) fn unbounded() -> Self {
        Self::default()
    }

    /// The bytes counted.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Counts `bytes` in all: more (or refuses, as [`grow`](Self::grow); an input that would
    /// take more than the whole budget is too large, not a reason to retry) or fewer.
    pub(crate) fn resize(&mut self, bytes: usize) -> Result<(), InputRejection> {
        if let Some(budget) = &self.budget
            && bytes > budget.limit
        {
            return Err(InputRejection::new(
                RejectionKind::PayloadTooLarge,
                format!(
                    "the parsed input would hold {bytes} bytes, more than the endpoint's input budget of {} bytes",
                    budget.limit
                ),
            ));
        }
        if bytes > self.bytes {
            return self.grow(bytes - self.bytes);
        }
        if let Some(budget) = &self.budget {
            budget.used.fetch_sub(self.bytes - bytes, Ordering::AcqRel);
            self.bytes = bytes;
        }
        Ok(())
    }

    /// Counts `bytes` more, or refuses when the budget cannot take them (the permit is
    /// unchanged then).
    pub(crate) fn grow(&mut self, bytes: usize) -> Result<(), InputRejection> {
        let Some(budget) = &self.budget else {
            return Ok(());
        };
        let taken = budget
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes)
                    .filter(|&total| total <= budget.limit)
            });
        match taken {
            Ok(_) => {
                self.bytes += bytes;
                Ok(())
            }
            Err(_) => Err(InputRejection::new(
                RejectionKind::Overloaded,
                format!(
                    "the endpoint holds as much input as it may ({} bytes in open runs); retry later",
                    budget.limit
                ),
            )),
        }
    }
}

impl Drop for InputPermit {
    fn drop(&mut self) {
        if let Some(budget) = &self.budget {
            budget.used.fetch_sub(self.bytes, Ordering::AcqRel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permits_count_until_dropped_and_refuse_past_the_budget() {
        let budget = InputBudget::new(100);
        let mut a = budget.permit();
        a.grow(60).unwrap();
        let mut b = budget.permit();
        let refused = b.grow(41).unwrap_err();
        assert_eq!(refused.kind(), RejectionKind::Overloaded);
        assert_eq!(budget.used(), 60);
        b.grow(40).unwrap();
        assert_eq!(budget.used(), 100);
        drop(a);
        assert_eq!(budget.used(), 40);
        b.grow(usize::MAX).unwrap_err();
        drop(b);
        assert_eq!(budget.used(), 0);
        InputPermit::unbounded().grow(usize::MAX).unwrap();
    }
}
