//! [`serve`]: serving a router over HTTP/1.1 with a header time-out, a cap on the request head,
//! a connection limit and a bounded graceful shutdown ([`ServeConfig`]).

use std::sync::Arc;
use std::time::Duration;

use ::axum::Router;

#[cfg(doc)]
use super::AgentEndpoint;
use super::{
    DEFAULT_HEADER_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_HEADER_BYTES,
    DEFAULT_SHUTDOWN_TIMEOUT,
};

/// How [`serve`] treats connections: the time allowed to send a request head, the largest
/// head, how many connections are served at once, and how long a graceful shutdown may take.
///
/// A `max_header_bytes` below 8192 counts as 8192 and a `max_connections` of 0 as 1, however
/// the fields were set ([`serve`] applies both).
///
/// ```
/// use std::time::Duration;
/// use ag_ui::axum::{ServeConfig, DEFAULT_HEADER_TIMEOUT};
///
/// let config = ServeConfig::default()
///     .with_header_timeout(Duration::from_secs(5))
///     .with_max_connections(256);
/// assert_eq!(config.header_timeout, Duration::from_secs(5));
/// assert_eq!(config.max_connections, 256);
/// assert_eq!(ServeConfig::default().header_timeout, DEFAULT_HEADER_TIMEOUT);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServeConfig {
    /// The time a connection has to send a whole request head once the server waits for one
    /// (also between requests on a kept-alive connection); a connection that has not done so
    /// is closed (default [`DEFAULT_HEADER_TIMEOUT`]).
    pub header_timeout: Duration,
    /// The largest request head, in bytes (default [`DEFAULT_MAX_HEADER_BYTES`]; below 8192
    /// counts as 8192); a larger one is answered `431`.
    pub max_header_bytes: usize,
    /// The most connections served at once (default [`DEFAULT_MAX_CONNECTIONS`]; 0 counts as
    /// 1); further ones wait in the listener's backlog.
    pub max_connections: usize,
    /// How long a graceful shutdown waits for open connections to finish before closing them
    /// (default [`DEFAULT_SHUTDOWN_TIMEOUT`]).
    pub shutdown_timeout: Duration,
}

impl Default for ServeConfig {
    fn default() -> Self {
        Self {
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            max_header_bytes: DEFAULT_MAX_HEADER_BYTES,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
        }
    }
}

impl ServeConfig {
    /// Sets [`header_timeout`](Self::header_timeout).
    #[must_use]
    pub fn with_header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// Sets [`max_header_bytes`](Self::max_header_bytes).
    #[must_use]
    pub fn with_max_header_bytes(mut self, bytes: usize) -> Self {
        self.max_header_bytes = bytes;
        self
    }

    /// Sets [`max_connections`](Self::max_connections).
    #[must_use]
    pub fn with_max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections;
        self
    }

    /// Sets [`shutdown_timeout`](Self::shutdown_timeout).
    #[must_use]
    pub fn with_shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// The configuration [`serve`] holds to: the one place the fields' floors are applied.
    fn effective(self) -> Self {
        Self {
            max_header_bytes: self.max_header_bytes.max(8192),
            max_connections: self.max_connections.max(1),
            ..self
        }
    }
}

/// A hyper service whose response futures are boxed. hyper's HTTP/1 dispatcher holds the
/// in-flight future in a `Box<Option<S::Future>>` allocated with the connection and kept for
/// its life, sized for `S::Future` even while no request is in flight (a streaming run's
/// whole life); boxing the future makes that a pointer.
#[derive(Clone, Debug)]
struct Boxed<S>(S);

type BoxedFuture<R, E> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<R, E>> + Send + 'static>>;

impl<S, R> hyper::service::Service<R> for Boxed<S>
where
    S: hyper::service::Service<R>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxedFuture<S::Response, S::Error>;

    fn call(&self, request: R) -> Self::Future {
        Box::pin(self.0.call(request))
    }
}

/// Serves `router` on `listener` over HTTP/1.1 until `shutdown` resolves, with the limits of
/// `config`; use it instead of `axum::serve`, which has no header timeout and holds about 11
/// KB more per connection ([Serving](super#serving)).
///
/// * A connection must send each request head within the header timeout, or it is closed:
///   clients trickling their headers (slowloris) do not hold connections for ever.
/// * At most `max_connections` connections are served at once; more wait in the listener's
///   backlog until one closes.
/// * Once `shutdown` resolves, no connection is accepted; open ones finish their current
///   request (a streaming run included) and close, and whatever is still open when the
///   shutdown timeout has passed is closed, so the function returns within that bound.
///
/// # Memory per connection
///
/// What hyper holds for each open connection, most of what a run waiting on its model costs
/// (figures in the README's Performance section):
///
/// * a write buffer of 8 KiB for response heads, allocated with the connection. Body chunks
///   are queued and written with `writev`, never copied into it (set here, not left to
///   hyper's guess), so it does not grow with a burst of events;
/// * a box sized for the service's future, which hyper keeps for the connection's life:
///   the router's future is boxed here on its own (freed once the response head is out), so
///   what stays is a pointer, not the router's future (about 500 bytes less per connection);
/// * a read buffer of 8 KiB from the first read, kept for the connection's life (a waiting
///   run holds it too), grown while reads fill it up to `max_header_bytes`: a large run
///   input can leave it that large for the rest of the connection, which a lower
///   [`ServeConfig::with_max_header_bytes`] bounds (down to 8 KiB). Not reading while a
///   response streams (hyper's `half_close`) would not release it, and would leave a client
///   that hangs up unnoticed until the next write, so the connection is read.
///
/// * the response's header map, emptied and kept to be reused for the next request:
///   [`AgentEndpoint`] sizes it for the three headers it sets (about 310 bytes, not the 620
///   of the default growth).
///
/// Request bodies are an endpoint's to time out: [`AgentEndpoint`] answers `408` when a body
/// is not read within its body timeout ([`EndpointLimits::body_timeout`](super::EndpointLimits::body_timeout)).
///
/// # Errors
///
/// Never once serving: a failed `accept` (for instance, too many open files) is logged and
/// retried after a short pause, and a failed connection only ends that connection. The
/// `Result` is kept for failures of the listener itself.
///
/// ```no_run
/// use ag_ui::axum::{AgentEndpoint, RouterExt, ServeConfig, serve};
/// # use ag_ui::{Event, RunAgentInput};
/// # fn echo(input: RunAgentInput) -> impl futures::Stream<Item = Event> + Send + 'static {
/// #     futures::stream::iter([Event::run_finished(input.thread_id, input.run_id)])
/// # }
///
/// # #[tokio::main] async fn main() -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
/// let app = axum::Router::new().agent("/", AgentEndpoint::new(echo));
/// // In a binary, `tokio::signal::ctrl_c()` is the usual trigger.
/// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
/// # drop(stop);
/// serve(listener, app, ServeConfig::default(), async {
///     let _ = stopped.await;
/// })
/// .await?;
/// # Ok(()) }
/// ```
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    config: ServeConfig,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::service::TowerToHyperService;

    let config = config.effective();
    let permits = Arc::new(tokio::sync::Semaphore::new(config.max_connections));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&permits).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        // Reap the connections that ended.
        while connections.try_join_next().is_some() {}
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) => {
                // Out of file descriptors and the like: wait a little rather than spin.
                tracing::warn!(%error, "accepting a connection failed");
                drop(permit);
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_millis(100)) => continue,
                    () = &mut shutdown => break,
                }
            }
        };
        let service = Boxed(TowerToHyperService::new(router.clone()));
        let mut stop = stop_rx.clone();
        connections.spawn(async move {
            let _permit = permit;
            // Built in a block: a builder in scope would be kept in the task, for nothing.
            let connection = {
                let mut builder = hyper::server::conn::http1::Builder::new();
                builder
                    .timer(TokioTimer::new())
                    .header_read_timeout(config.header_timeout)
                    // The exact cap on the head; the buffer cap alone let a head through up to
                    // the read buffer's spare capacity (about 114 KB for 64 KiB).
                    .max_header_size(config.max_header_bytes)
                    .max_buf_size(config.max_header_bytes)
                    // Body chunks queued, not copied into the head buffer (which never shrinks).
                    .writev(true);
                builder.serve_connection(TokioIo::new(stream), service)
            };
            let mut connection = std::pin::pin!(connection);
            let stopping = async move {
                let _ = stop.wait_for(|stop| *stop).await;
            };
            let result = tokio::select! {
                result = connection.as_mut() => result,
                () = stopping => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = result {
                tracing::debug!(%error, "connection closed with an error");
            }
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    let drained = tokio::time::timeout(config.shutdown_timeout, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        let open = connections.len();
        connections.abort_all();
        while connections.join_next().await.is_some() {}
        tracing::warn!(
            open,
            "connections still open when the shutdown timeout passed were closed"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use hyper::body::Incoming;
    use hyper::service::Service;
    use hyper_util::service::TowerToHyperService;

    use super::{Boxed, Router};

    type Plain = TowerToHyperService<Router>;
    type Request = ::axum::http::Request<Incoming>;

    /// hyper keeps a box of `size_of::<S::Future>()` per connection: the boxed service's is a
    /// pointer, where the router's own future is hundreds of bytes.
    #[test]
    fn the_future_hyper_keeps_per_connection_is_a_pointer() {
        let plain = std::mem::size_of::<<Plain as Service<Request>>::Future>();
        let boxed = std::mem::size_of::<<Boxed<Plain> as Service<Request>>::Future>();
        assert_eq!(boxed, 2 * std::mem::size_of::<usize>());
        assert!(plain > 8 * boxed, "the router's future is {plain} bytes");
    }
}
