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
//! FIGURES
//!
//! The input is borrowed (`compact(&[Event])`), so each iteration measures the whole output
//! built and dropped, as the reference's figure includes its garbage.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

#[path = "workload.rs"]
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
