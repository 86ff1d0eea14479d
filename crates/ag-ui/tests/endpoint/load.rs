//! 200 concurrent streaming runs on loopback: every stream completes with every event in order.
#![cfg(feature = "axum")]

use crate::support::load;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_concurrent_runs_complete_in_order() {
    let events = 500;
    let url = load::serve(events).await;
    assert_eq!(load::load(&url, 200, events).await, 200 * events);
}
