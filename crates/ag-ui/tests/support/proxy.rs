//! A TCP proxy that cuts connections: the fault injection of the resume tests (this crate's
//! `tests/resume.rs` and the command's `tests/cli/resume.rs`, which includes this file).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How the proxy treats its `n`-th connection (from 0): closed after that many response bytes,
/// or (`None`) passed through.
pub type Cuts = Arc<dyn Fn(usize) -> Option<usize> + Send + Sync>;

/// Cuts from a list: connection `n` gets entry `n`, and connections past its end pass through.
pub fn cuts_from(list: Vec<Option<usize>>) -> Cuts {
    Arc::new(move |n| list.get(n).copied().flatten())
}

/// Serves a TCP proxy on a free port of 127.0.0.1 and returns its address: connection `n` goes
/// to `upstreams[n % len]` (round robin) and is closed after `cuts(n)` response bytes (the
/// request bytes always pass).
pub async fn cutting_proxy(upstreams: Vec<SocketAddr>, cuts: Cuts) -> SocketAddr {
    assert!(!upstreams.is_empty(), "a proxy needs an upstream");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let count = AtomicUsize::new(0);
    tokio::spawn(async move {
        loop {
            let Ok((client, _)) = listener.accept().await else {
                return;
            };
            let n = count.fetch_add(1, Ordering::Relaxed);
            let upstream = upstreams[n % upstreams.len()];
            let budget = cuts(n);
            tokio::spawn(async move {
                let Ok(server) = tokio::net::TcpStream::connect(upstream).await else {
                    return;
                };
                let (mut client_read, mut client_write) = client.into_split();
                let (mut server_read, mut server_write) = server.into_split();
                let up = tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut client_read, &mut server_write).await;
                });
                let mut left = budget.unwrap_or(usize::MAX);
                let mut buf = vec![0u8; 4096];
                while left > 0 {
                    let n = match server_read.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    let n = n.min(left);
                    if client_write.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                    left -= n;
                }
                up.abort();
            });
        }
    });
    addr
}
