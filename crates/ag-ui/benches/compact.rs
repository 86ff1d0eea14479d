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
//! Recorded 2026-12-01 on the 2-core development machine shared with four other builds (load
//! average 11–12, so every figure is noisy): the reference timed before and after the criterion
//! run (best / median of 10 rounds each).
//!
//! | | quarter (51,502 events) | full (206,002 events) | events/s, full |
//! |---|---|---|---|
//! | reference `compactEvents`, best | 7.4 / 2.4 ms | 12.9 / 10.1 ms | 16.0 / 20.4 M |
//! | reference `compactEvents`, median | 37.7 / 27.3 ms | 33.5 / 44.9 ms | 6.2 / 4.6 M |
//! | `compact` (criterion median) | 9.90 ms | 39.27 ms | 5.25 M |
//!
//! `compact` is linear: four times the events take 3.97 times as long (5.20 M events/s on the
//! quarter, 5.25 M on the full workload). Against the reference's median it runs at 0.85–1.14×
//! its time; against its best rounds, 3–4× slower (the reference's input objects are shared
//! into its output, `compact` builds an owned output from a borrowed input).
//!
//! The input is borrowed (`compact(&[Event])`), so each iteration measures the whole output
//! built and dropped, as the reference's figure includes its garbage.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

#[path = "../tests/support/workload.rs"]
mod workload;

use std::hint::black_box;
use std::time::Duration;

use ag_ui::client::compact::compact;
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
