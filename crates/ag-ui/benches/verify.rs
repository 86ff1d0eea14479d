//! The ordering verifier on the shared ~206k-event workload: `Verifier::check` on every event,
//! in client and emission mode. Compare with `interop/bench/verify.mjs`, which times the
//! reference `verifyEvents` of @ag-ui/client 1.0.0 on the same events.
//!
//! ```text
//! cargo run --release -p ag-ui --example workload -- jsonl explicit > /tmp/w.jsonl
//! node interop/bench/verify.mjs /tmp/w.jsonl 20
//! cargo bench -p ag-ui --bench verify
//! ```
//!
//! Recorded 2026-11-30 on the 2-core build machine (load average 1.1–1.7), 206,002 events, the
//! reference timed right before and right after the criterion run (20 rounds each):
//!
//! | run | `check/client` (mean) | `check/emission` | reference best / median | ratio to best / median |
//! |---|---|---|---|---|
//! | 1 | 116.0 M ev/s | 106.8 M ev/s | 4.42 / 4.21 M ev/s (after) | 26× / 28× |
//! | 2 | 103.3 M ev/s | 102.0 M ev/s | 4.63 / 4.15 M ev/s | 22× / 25× |
//! | 2026-12-01 (load 1.3, medians, the reference right before) | 110.5 M ev/s | 103.3 M ev/s | 3.84 / 3.72 M ev/s | 29× / 30× |
//!
//! The check itself is a few nanoseconds on a cache-hot event; the rest is reading 128 bytes
//! per event from memory (an `Event` was 336 bytes on 2026-11-29, then 208, when this ran at
//! 35–83 M ev/s).

// `criterion_group!` generates an undocumented function.
#![allow(missing_docs)]

#[path = "../tests/support/workload.rs"]
mod workload;

use std::hint::black_box;

use ag_ui::verify::Verifier;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn verify(c: &mut Criterion) {
    let events = workload::events(workload::MESSAGES);
    let mut group = c.benchmark_group("verify");
    group.sample_size(10);
    group.throughput(Throughput::Elements(events.len() as u64));
    group.bench_function("check/client", |b| {
        b.iter(|| {
            let mut verifier = Verifier::new();
            for event in &events {
                verifier.check(black_box(event)).unwrap();
            }
            verifier.events_checked()
        })
    });
    group.bench_function("check/emission", |b| {
        b.iter(|| {
            let mut verifier = Verifier::for_emission();
            for event in &events {
                verifier.check(black_box(event)).unwrap();
            }
            verifier.events_checked()
        })
    });
    group.finish();
}

criterion_group!(benches, verify);
criterion_main!(benches);
