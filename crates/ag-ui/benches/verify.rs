//! The ordering verifier on the shared ~206k-event workload: `Verifier::check` on every event,
//! in client and emission mode. Compare with `interop/bench/verify.mjs`, which times the
//! reference `verifyEvents` of @ag-ui/client 1.0.0 on the same events.

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
