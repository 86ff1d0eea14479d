//! Chunk normalization throughput on the shared chunked workload (`workload::chunked`, about
//! 201k events: 2,000 text messages of 100 chunks, 200 tool calls of 4 chunks).
//!
//! The reference figure comes from `interop/bench/chunks.mjs`, which times @ag-ui/client 1.0.0
//! `transformChunks` on the same events:
//!
//! ```text
//! cargo run --release -p ag-ui --example workload -- jsonl chunked > /tmp/chunked.jsonl
//! node interop/bench/chunks.mjs /tmp/chunked.jsonl
//! cargo bench -p ag-ui --bench chunks
//! ```
//!
//! Recorded 2026-11-30 on the 2-core development machine (load average 1.2–1.5): the reference
//! timed before, between and after two criterion runs (median / best of 10 rounds each).
//!
//! | | input events/s | ratio to the reference's median / best |
//! |---|---|---|
//! | reference `transformChunks` | 3.37–3.65 / 3.44–3.75 M | — |
//! | `push` | 24.5–24.7 M | 6.7–7.3× / 6.5–7.2× |
//! | `push_by_ref` | 26.5–26.6 M | 7.3–7.9× / 7.1–7.7× |
//! | `normalize_all` | 42.4–42.9 M | 11.6–12.7× / 11.3–12.5× |
//!
//! On 2026-11-29, with 336-byte events, ids copied per CONTENT and `normalize_all` growing its
//! vector once more at the end, `push` ran at 4.8–9.4 M/s and `normalize_all` at 2.7–5.4 M/s.
//! Earlier on 2026-11-30, before `ChunkNormalizer::push` was made small enough to inline (its
//! result went through memory, and a load of it stalled behind the frees of the previous
//! events), `push` ran at 17.7–18.5 M/s.
//!
//! Each iteration starts from a fresh copy of the input, cloned outside the measurement; the
//! emptied input buffer is freed outside it too (the reference's input array outlives its
//! rounds). `push` takes every output event by value and drops it inside the measurement, as
//! the reference's figure includes its garbage; `push_by_ref` reads them in place and lets the
//! buffer drop them; `normalize_all` returns its vector.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

#[path = "../tests/support/workload.rs"]
mod workload;

use std::hint::black_box;
use std::time::Duration;

use ag_ui::Event;
use ag_ui::client::chunks::{ChunkNormalizer, normalize_all};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};

fn chunks(c: &mut Criterion) {
    let events = workload::chunked(workload::MESSAGES);
    let mut group = c.benchmark_group("chunks");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Elements(events.len() as u64));

    group.bench_function("push", |b| {
        b.iter_batched(
            || events.clone(),
            |mut input: Vec<Event>| {
                let mut normalizer = ChunkNormalizer::new();
                let mut emitted = 0usize;
                for event in input.drain(..) {
                    for out in normalizer.push(event).expect("the workload is valid") {
                        black_box(&out);
                        emitted += 1;
                    }
                }
                emitted += normalizer.finish().count();
                // The emptied input buffer is freed outside the measurement.
                (input, emitted)
            },
            BatchSize::LargeInput,
        )
    });

    // A pipeline stage that reads the expanded events in place (a verifier, a reducer) and lets
    // them drop with the buffer.
    group.bench_function("push_by_ref", |b| {
        b.iter_batched(
            || events.clone(),
            |mut input: Vec<Event>| {
                let mut normalizer = ChunkNormalizer::new();
                let mut emitted = 0usize;
                for event in input.drain(..) {
                    let expanded = normalizer.push(event).expect("the workload is valid");
                    for out in expanded.as_slice() {
                        black_box(out);
                    }
                    emitted += expanded.len();
                }
                emitted += normalizer.finish().len();
                (input, emitted)
            },
            BatchSize::LargeInput,
        )
    });

    group.bench_function("normalize_all", |b| {
        b.iter_batched(
            || events.clone(),
            |mut input: Vec<Event>| {
                let out = normalize_all(input.drain(..)).expect("the workload is valid");
                (input, out)
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, chunks);
criterion_main!(benches);
