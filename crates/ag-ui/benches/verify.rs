//! The ordering verifier on the shared ~206k-event workload: `Verifier::check` on every event,
//! in client and emission mode. Compare with `interop/bench/verify.mjs`, which times the
//! reference `verifyEvents` of @ag-ui/client 1.0.0 on the same events.
//!
//! Recorded 2026-11-29 on the 2-core build machine under load (load average 9–10; the process
//! got about a third of a core), each pair measured back to back, 206,002 events:
//!
//! | run | `check/client` (mean) | `check/emission` | reference `verifyEvents` (median / best) | ratio (median / mean) |
//! |---|---|---|---|---|
//! | 1 | 9.57 ms (21.5 M ev/s) | 13.8 ms | 174 ms / 59 ms (1.18 M ev/s) | 18× |
//! | 2 | 13.4 ms (15.4 M ev/s) | 13.3 ms | 112 ms / 44 ms (1.83 M ev/s) | 8.4× |
//! | 3 | 11.7 ms (17.6 M ev/s) | 11.6 ms | 199 ms / 174 ms (1.03 M ev/s) | 17× |
//! | 4 | 7.75 ms (26.6 M ev/s) | 7.15 ms | 140 ms / 123 ms (1.48 M ev/s) | 18× |
//! | 5 | 5.92 ms (34.8 M ev/s) | 5.91 ms | 92.8 ms / 76.5 ms (2.22 M ev/s) | 16× |
//!
//! (Runs 1–2 before `check` was inlined and its failure path made cold; 3–5 after.)
//!
//! Best cases: ours 3.4–4.0 ms (best of 30–40 passes, 52–61 M ev/s) against the reference's best 44 ms
//! (4.7 M ev/s): 11×. Ours is bound by memory: reading each event's discriminant, id and tag
//! from a 336-byte `Event` costs 3.4 ms on its own (best case) for this workload; the check
//! itself on a cache-hot event is about 3.5 ns.

// `criterion_group!` generates an undocumented function.
#![allow(missing_docs)]

#[path = "workload.rs"]
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
