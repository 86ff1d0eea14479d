//! Client-side throughput on the shared workload at about 10k, 50k and 206k events: the
//! reducer alone, decoding JSON lines + reducing, and the full pipeline (SSE bytes in 64 KiB
//! pieces → frames → compatibility → chunk expansion → verifier → reducer). Flat per-event cost across the three sizes is
//! the linearity claim; compare with `node interop/bench/client.mjs` for the reference.

//!
//! Recorded on the 2-core shared machine, 2026-11-29, in one run (`node interop/bench/client.mjs`
//! then `cargo bench --bench client`), events/s:
//!
//! | events | reducer (ours) | `defaultApplyEvents` | pipeline from SSE bytes (ours) | `HttpAgent.runAgent` (local HTTP) |
//! |---|---|---|---|---|
//! | 9,996 | 13.2 M | 5,050 | 1.05 M | 5,426 |
//! | 49,965 | 11.7 M | 1,738 | 1.29 M | 1,781 |
//! | 206,002 | 11.0 M | 411 | 1.31 M | 454 |
//!
//! And on 2026-11-30, after ids became shared, `Event` shrank to 128 bytes and the SSE decoder
//! stopped checking each frame's UTF-8 again (the reference skipped at 206k: over budget):
//!
//! | events | reducer (ours) | `defaultApplyEvents` | pipeline from SSE bytes (ours) | `HttpAgent.runAgent` (local HTTP) |
//! |---|---|---|---|---|
//! | 9,996 | 31.3 M | 17,921 | 3.59 M | 12,829 (280×) |
//! | 49,965 | 25.3 M | 4,160 | 3.48 M | 4,590 (758×) |
//! | 206,002 | 23.7 M | — | 3.53 M | — |
//!
//! And on 2026-12-01 at load average 1.3 (one run, the reference right before):
//!
//! | events | reducer (ours) | `defaultApplyEvents` | pipeline from SSE bytes (ours) | `HttpAgent.runAgent` (local HTTP) |
//! |---|---|---|---|---|
//! | 9,996 | 20.4 M | 16,981 (1,201×) | 3.96 M | 13,249 (299×) |
//! | 49,965 | 19.5 M | 3,642 (5,346×) | 3.81 M | 3,863 (987×) |
//! | 206,002 | 18.3 M | — | 3.83 M | — |
//!
//! (Lower reducer figures than on 11-30, on another machine: the same bench at the commit
//! before the reducer's order tree, run right after, gave 19.7 M, 17.5 M and 18.2 M, so the
//! tree costs nothing here.)
//!
//! Peak memory (`examples/client_memory.rs`, growth of peak RSS over the run, 64 KiB reads):
//! 2.78 MB for 206k events whose final messages and state are 1.47 MB as JSON (1.89×); on
//! 2026-11-30, 2.61–2.74 MB (1.78–1.86×, three runs).

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

#[path = "../tests/support/workload.rs"]
mod workload;

use std::hint::black_box;
use std::time::Duration;

use ag_ui::Event;
use ag_ui::client::Pipeline;
use ag_ui::client::Reducer;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// Message counts giving about 10k, 50k and 206k events.
const SIZES: [usize; 3] = [97, 485, workload::MESSAGES];

fn reducer(c: &mut Criterion) {
    let mut group = c.benchmark_group("client/reducer");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for messages in SIZES {
        let events = workload::events(messages);
        group.throughput(Throughput::Elements(events.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(events.len()),
            &events,
            |b, events| {
                b.iter(|| {
                    let mut reducer = Reducer::new();
                    for event in events {
                        reducer.apply(black_box(event)).expect("expanded events");
                    }
                    reducer
                });
            },
        );
    }
    group.finish();
}

fn decode_and_reduce(c: &mut Criterion) {
    let mut group = c.benchmark_group("client/decode+reducer");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for messages in SIZES {
        let events = workload::events(messages);
        let mut jsonl = Vec::new();
        for event in &events {
            event.write_json(&mut jsonl);
            jsonl.push(b'\n');
        }
        group.throughput(Throughput::Elements(events.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(events.len()),
            &jsonl,
            |b, jsonl| {
                b.iter(|| {
                    let mut reducer = Reducer::new();
                    for line in jsonl.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                        let event = Event::from_slice(line).expect("valid JSON");
                        reducer.apply(&event).expect("expanded events");
                    }
                    reducer
                });
            },
        );
    }
    group.finish();
}

fn pipeline(c: &mut Criterion) {
    let mut group = c.benchmark_group("client/pipeline");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for messages in SIZES {
        let events = workload::events(messages);
        let mut bytes = Vec::new();
        for event in &events {
            ag_ui::encoding::sse::encode_into(event, &mut bytes);
        }
        group.throughput(Throughput::Elements(events.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(events.len()),
            &bytes,
            |b, bytes| {
                b.iter(|| {
                    // As from a socket: 64 KiB at a time.
                    let mut pipeline = Pipeline::new(Reducer::new());
                    for piece in bytes.chunks(64 * 1024) {
                        pipeline.push_bytes(piece, &mut ()).expect("a valid stream");
                    }
                    pipeline.finish(&mut ()).expect("a valid stream");
                    pipeline
                });
            },
        );
    }
    group.finish();
}

criterion_group!(benches, reducer, decode_and_reduce, pipeline);
criterion_main!(benches);
