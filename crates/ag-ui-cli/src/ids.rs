//! Fresh ids for what the commands make up themselves: threads, runs, messages.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A fresh id, `PREFIX-NANOS-N`: the clock in nanoseconds (hex) and a per-process counter, so
/// two ids made in one process never collide and ids of different runs rarely do.
pub(crate) fn unique(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{prefix}-{nanos:x}-{}",
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}
