//! `compact` on the shared workload (`workload::events`, about 210k events: 2,000 text messages
//! of 100 deltas, 200 tool calls, 40 state deltas and reasoning spans), and on a quarter of it
//! to show the time per event does not grow with the input (linear time).
//!
//! The reference figure comes from `interop/bench/compact.mjs`, which times @ag-ui/client
//! 1.0.0 `compactEvents` on the same events:
//!
//! ```text
//! cargo run --release -p ag-ui --example workload -- jsonl > /tmp/workload.jsonl
//! node interop/bench/compact.mjs /tmp/workload.jsonl
//! cargo bench -p ag-ui --bench compact
//! ```
//!
//! Recorded 2026-12-01 on the 2-core machine at load average 1.3 (the first recording, under
//! load 11–12, had `compact` at 39 ms against a reference median of 34–45 ms): the reference
//! timed right before and after the criterion run (best / median of 10 rounds each).
//!
//! | | quarter (51,502 events) | full (206,002 events) | events/s, full |
//! |---|---|---|---|
//! | reference `compactEvents`, best | 2.4 / 2.1 ms | 9.3 / 8.5 ms | 22.2 / 24.2 M |
//! | reference `compactEvents`, median | 7.5 / 6.7 ms | 9.9 / 9.5 ms | 20.9 / 21.7 M |
//! | `compact` (criterion median) | 2.11 ms | 7.81 ms | 26.4 M |
//!
//! `compact` is linear: four times the events take 3.70 times as long (24.4 M events/s on the
//! quarter, 26.4 M on the full workload). It runs in 0.79–0.82× the reference's median time
//! and 0.84–0.92× its best rounds, although it builds an owned output from a borrowed input
//! where the reference shares its input objects into its output.
//!
//! The input is borrowed (`compact(&[Event])`), so each iteration measures the whole output
//! built and dropped, as the reference's figure includes its garbage.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

#[path = "../tests/support/workload.rs"]
mod workload;

use std::hint::black_box;
use std::time::Duration;

use ag_ui::client::compact;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("compact");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, messages) in [
        ("quarter", workload::MESSAGES / 4),
        ("full", workload::MESSAGES),
    ] {
        let events = workload::events(messages);
        group.throughput(Throughput::Elements(events.len() as u64));
        group.bench_function(name, |b| b.iter(|| black_box(compact(black_box(&events)))));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
