//! [`Connections`]: how an [`OpenAiClient`](super::OpenAiClient) connects to its model — the
//! HTTP version, how many runs share one HTTP/2 connection, and how many idle connections it
//! keeps — and the pool of HTTP clients that carries it out.
//!
//! Each HTTP/2 connection is an HTTP client of its own: hyper (under reqwest) queues a request
//! past the server's `SETTINGS_MAX_CONCURRENT_STREAMS` on the one connection it has rather than
//! opening another (hyperium/hyper#2197), so a client that shared one connection among every
//! run would make the runs past the server's limit wait for others to finish. The pool counts
//! the requests in flight on each client and opens another client (so another connection)
//! when every one carries [`Connections::streams_per_connection`]. RFC 9113 (section 9.1)
//! asks a client for one connection per origin; past the server's stream limit the other
//! choice is a run waiting, its user looking at a stalled chat, for other runs to finish.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// Runs one HTTP/2 connection carries unless set: 100, the least a server should allow
/// (RFC 9113, section 6.5.2, recommends no fewer streams than that).
pub const DEFAULT_STREAMS_PER_CONNECTION: usize = 100;

/// Idle connections kept for the next runs unless set: 32.
pub const DEFAULT_MAX_IDLE_CONNECTIONS: usize = 32;

/// How long an idle connection is kept unless set: 90 seconds.
pub const DEFAULT_POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(90);

/// The HTTP version an [`OpenAiClient`](super::OpenAiClient) speaks to its model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum HttpVersion {
    /// HTTP/2 where TLS negotiates it (ALPN: the hosted APIs over `https`), HTTP/1.1 otherwise,
    /// plain `http` included (the default).
    #[default]
    Negotiate,
    /// HTTP/1.1 only: one connection per waiting run, kept alive for the next runs.
    Http1,
    /// HTTP/2 with prior knowledge, without negotiating it: over plain `http` that is h2c.
    /// Only for a server known to speak it (a server that does not fails every request).
    Http2,
}

/// How an [`OpenAiClient`](super::OpenAiClient) connects to its model: the HTTP version, how
/// many runs share one HTTP/2 connection, and how many idle connections it keeps and for how
/// long.
///
/// Over HTTP/2 (a hosted API over `https`, or [`HttpVersion::Http2`]) the runs waiting on the
/// model share connections, [`streams_per_connection`](Self::streams_per_connection) runs
/// each, and the client opens one more whenever all of its connections carry that many: a run
/// never waits for another to finish. Over HTTP/1.1 each waiting run holds a connection of its
/// own; a run that has finished leaves it for the next (keep-alive), up to
/// [`max_idle_connections`](Self::max_idle_connections).
///
/// ```
/// use std::time::Duration;
/// use ag_ui::llm::{Connections, HttpVersion, OpenAiClient};
///
/// let connections = Connections::default()
///     .with_version(HttpVersion::Http2)
///     .with_streams_per_connection(250)
///     .with_max_idle_connections(8);
/// let client = OpenAiClient::new("http://127.0.0.1:8000/v1").with_connections(connections);
/// assert_eq!(client.connections().streams_per_connection, 250);
/// assert_eq!(Connections::default().version, HttpVersion::Negotiate);
/// // At least one stream a connection.
/// assert_eq!(Connections::default().with_streams_per_connection(0).streams_per_connection, 1);
/// assert_eq!(Connections::default().idle_timeout, Duration::from_secs(90));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Connections {
    /// The HTTP version (default [`HttpVersion::Negotiate`]).
    pub version: HttpVersion,
    /// How many runs one HTTP/2 connection carries at once before the client opens another
    /// (at least 1; default [`DEFAULT_STREAMS_PER_CONNECTION`]). Keep it at most the
    /// provider's `SETTINGS_MAX_CONCURRENT_STREAMS`: a request past that limit on one
    /// connection waits for one of its streams to end. Over HTTP/1.1 it does not apply.
    pub streams_per_connection: usize,
    /// How many idle connections are kept for the next runs (default
    /// [`DEFAULT_MAX_IDLE_CONNECTIONS`]); the rest close when their run ends. Where HTTP/2 may
    /// be spoken ([`HttpVersion::Http2`], or a negotiating client over `https`) at least 1 is
    /// kept: hyper shares an HTTP/2 connection only through its idle pool, so 0 would open a
    /// connection a run.
    pub max_idle_connections: usize,
    /// How long an idle connection is kept (default [`DEFAULT_POOL_IDLE_TIMEOUT`]).
    pub idle_timeout: Duration,
}

impl Default for Connections {
    fn default() -> Self {
        Self {
            version: HttpVersion::Negotiate,
            streams_per_connection: DEFAULT_STREAMS_PER_CONNECTION,
            max_idle_connections: DEFAULT_MAX_IDLE_CONNECTIONS,
            idle_timeout: DEFAULT_POOL_IDLE_TIMEOUT,
        }
    }
}

impl Connections {
    /// Sets [`version`](Self::version).
    #[must_use]
    pub fn with_version(mut self, version: HttpVersion) -> Self {
        self.version = version;
        self
    }

    /// Sets [`streams_per_connection`](Self::streams_per_connection) (0 is taken as 1).
    #[must_use]
    pub fn with_streams_per_connection(mut self, streams: usize) -> Self {
        self.streams_per_connection = streams.max(1);
        self
    }

    /// Sets [`max_idle_connections`](Self::max_idle_connections).
    #[must_use]
    pub fn with_max_idle_connections(mut self, connections: usize) -> Self {
        self.max_idle_connections = connections;
        self
    }

    /// Sets [`idle_timeout`](Self::idle_timeout).
    #[must_use]
    pub fn with_idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// Whether requests to a server at a `plain` (`http`) or `https` URL speak HTTP/1.1 only:
    /// set so, or negotiating where there is no TLS to negotiate with.
    fn http1(&self, plain: bool) -> bool {
        match self.version {
            HttpVersion::Http1 => true,
            HttpVersion::Http2 => false,
            HttpVersion::Negotiate => plain,
        }
    }

    /// Applies the version and the idle pool to a client under construction for a server at
    /// a `plain` (`http`) or `https` URL.
    pub(super) fn apply(
        &self,
        builder: reqwest::ClientBuilder,
        plain: bool,
    ) -> reqwest::ClientBuilder {
        let idle = if self.http1(plain) {
            self.max_idle_connections
        } else {
            // hyper's pool, disabled at 0, is what shares an HTTP/2 connection among requests.
            self.max_idle_connections.max(1)
        };
        let builder = builder
            .pool_max_idle_per_host(idle)
            .pool_idle_timeout(self.idle_timeout);
        match self.version {
            HttpVersion::Negotiate => builder,
            HttpVersion::Http1 => builder.http1_only(),
            HttpVersion::Http2 => builder.http2_prior_knowledge(),
        }
    }
}

/// The HTTP clients of one [`OpenAiClient`](super::OpenAiClient), each with its connection
/// to the model, and the requests in flight on each.
#[derive(Debug)]
pub(super) struct Pool {
    clients: Mutex<Vec<Arc<Slot>>>,
    /// The most requests in flight on one client before another is opened.
    streams: usize,
    /// The model speaks HTTP/1.1 (set, or seen in an answer): each request has a connection
    /// of its own in any case, so one client carries them all.
    http1: AtomicBool,
}

/// One HTTP client and its requests in flight.
#[derive(Debug)]
struct Slot {
    client: reqwest::Client,
    in_flight: AtomicUsize,
}

/// A request's place on one of the pool's clients, given back when dropped (when the
/// response, its body included, is done with).
#[derive(Debug)]
pub(super) struct Lease {
    pool: Arc<Pool>,
    slot: Arc<Slot>,
}

impl Pool {
    /// An empty pool for clients built with `connections`; over plain `http` (`plain`) a
    /// negotiating client speaks HTTP/1.1.
    pub(super) fn new(connections: &Connections, plain: bool) -> Arc<Self> {
        Arc::new(Self {
            clients: Mutex::new(Vec::new()),
            streams: connections.streams_per_connection.max(1),
            http1: AtomicBool::new(connections.http1(plain)),
        })
    }

    /// A place for one more request: on the first client with room, else on a new client
    /// made by `build`.
    ///
    /// # Errors
    ///
    /// `build`'s, when a new client is needed and cannot be built.
    pub(super) fn lease<E>(
        self: &Arc<Self>,
        build: impl FnOnce() -> Result<reqwest::Client, E>,
    ) -> Result<Lease, E> {
        let limit = if self.http1.load(Ordering::Relaxed) {
            usize::MAX
        } else {
            self.streams
        };
        let mut clients = self.clients.lock().unwrap_or_else(PoisonError::into_inner);
        let slot = match clients
            .iter()
            .find(|slot| slot.in_flight.load(Ordering::Relaxed) < limit)
        {
            Some(slot) => Arc::clone(slot),
            None => {
                let slot = Arc::new(Slot {
                    client: build()?,
                    in_flight: AtomicUsize::new(0),
                });
                clients.push(Arc::clone(&slot));
                slot
            }
        };
        // Counted under the lock, so a client being let go cannot be handed out meanwhile.
        slot.in_flight.fetch_add(1, Ordering::Relaxed);
        Ok(Lease {
            pool: Arc::clone(self),
            slot,
        })
    }

    /// How many clients (so connections, over HTTP/2) the pool holds.
    #[cfg(test)]
    fn clients(&self) -> usize {
        self.clients
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

impl Lease {
    /// The client to send the request with.
    pub(super) fn client(&self) -> &reqwest::Client {
        &self.slot.client
    }

    /// Notes the HTTP version the model answered in: an answer over HTTP/1.x means the model
    /// does not speak HTTP/2 (TLS did not negotiate it), so one client carries every request.
    pub(super) fn answered_in(&self, version: reqwest::Version) {
        if version < reqwest::Version::HTTP_2 {
            self.pool.http1.store(true, Ordering::Relaxed);
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if self.slot.in_flight.fetch_sub(1, Ordering::Relaxed) != 1 {
            return;
        }
        // The client has no request left: let it go (closing its connection) unless it is the
        // first, which stays for the next requests with its idle connections.
        let mut clients = self
            .pool
            .clients
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if self.slot.in_flight.load(Ordering::Relaxed) == 0
            && let Some(at) = clients
                .iter()
                .skip(1)
                .position(|slot| Arc::ptr_eq(slot, &self.slot))
        {
            clients.remove(at + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Connections, HttpVersion, Pool};

    fn build() -> Result<reqwest::Client, std::convert::Infallible> {
        Ok(reqwest::Client::new())
    }

    #[test]
    fn a_client_carries_its_streams_then_another_is_opened_and_let_go_when_done() {
        let pool = Pool::new(
            &Connections::default()
                .with_version(HttpVersion::Http2)
                .with_streams_per_connection(2),
            true,
        );
        let leases: Vec<_> = (0..5).map(|_| pool.lease(build).unwrap()).collect();
        assert_eq!(pool.clients(), 3);
        // Which client each lease is on: two, two, one.
        let on = |a: usize, b: usize| std::ptr::eq(leases[a].client(), leases[b].client());
        assert!(on(0, 1) && on(2, 3) && !on(1, 2) && !on(3, 4));
        let mut leases = leases;
        // The last client's request ends: it is let go.
        drop(leases.pop());
        assert_eq!(pool.clients(), 2);
        // One stream frees on the first client: the next request goes there, no new client.
        drop(leases.remove(0));
        let again = pool.lease(build).unwrap();
        assert!(std::ptr::eq(again.client(), leases[0].client()));
        assert_eq!(pool.clients(), 2);
        // Everything ends: the first client stays, with its idle connections.
        drop((leases, again));
        assert_eq!(pool.clients(), 1);
    }

    #[test]
    fn over_http1_one_client_carries_every_request() {
        let negotiate = Connections::default().with_streams_per_connection(1);
        // Plain http: HTTP/1.1 from the start.
        let plain = Pool::new(&negotiate, true);
        let leases: Vec<_> = (0..3).map(|_| plain.lease(build).unwrap()).collect();
        assert_eq!(plain.clients(), 1);
        drop(leases);
        // TLS that negotiated HTTP/1.1: learned from the first answer.
        let tls = Pool::new(&negotiate, false);
        let first = tls.lease(build).unwrap();
        let second = tls.lease(build).unwrap();
        assert_eq!(tls.clients(), 2);
        first.answered_in(reqwest::Version::HTTP_11);
        let third = tls.lease(build).unwrap();
        assert!(std::ptr::eq(third.client(), first.client()));
        assert_eq!(tls.clients(), 2);
        drop((first, second, third));
        // Prior knowledge of HTTP/2 keeps the limit whatever the scheme.
        let h2 = Pool::new(&negotiate.with_version(HttpVersion::Http2), true);
        let leases: Vec<_> = (0..3).map(|_| h2.lease(build).unwrap()).collect();
        assert_eq!(h2.clients(), 3);
        drop(leases);
    }

    #[test]
    fn a_client_that_cannot_be_built_is_an_error_and_leaves_nothing_behind() {
        let pool = Pool::new(
            &Connections::default().with_version(HttpVersion::Http2),
            true,
        );
        let failed = pool.lease(|| Err::<reqwest::Client, _>("no TLS"));
        assert_eq!(failed.unwrap_err(), "no TLS");
        assert_eq!(pool.clients(), 0);
        assert!(pool.lease(build).is_ok());
    }
}
