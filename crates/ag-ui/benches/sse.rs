//! SSE encoding and decoding on the shared workload (~206k events), each next to plain
//! `serde_json` on the same data as the yardstick.
//!
//! * `encode/ours`: every event through `encoding::sse::encode_into` into one reused buffer.
//! * `encode/serde_json_value`: `serde_json::to_writer` of the same events pre-built as
//!   `serde_json::Value`s, into a reused buffer (no framing).
//! * `decode/ours`: the SSE bytes of the workload, fed in 64 KiB chunks to an `EventDecoder`,
//!   to typed events.
//! * `decode/serde_json_value`: the same bytes cut at blank lines, each frame's data read with
//!   `serde_json::from_slice::<serde_json::Value>`.
//!
//! The reference (@ag-ui/encoder and @ag-ui/client under Node) is timed on the same workload by
//! `interop/bench/sse.mjs`:
//!
//! ```text
//! cargo run --release -p ag-ui --example workload -- sse explicit > /tmp/w.sse
//! node interop/bench/sse.mjs /tmp/w.sse 7
//! cargo bench -p ag-ui --bench sse
//! ```
//!
//! Recorded 2026-11-30 on the 2-core build machine (load average 1.1–1.7), the reference timed
//! right before and right after the criterion run (best of 7 rounds each):
//!
//! | | ours (mean) | `serde_json::Value` | reference | ratio |
//! |---|---|---|---|---|
//! | encode | 42.5 M ev/s | 16.5 M ev/s | `encodeSSE` 2.61 / 2.75 M ev/s | 15–16× |
//! | decode | 7.29 M ev/s | 3.12 M ev/s | `transformHttpEventStream` + `enforceEvents` 0.297 / 0.299 M ev/s | 24× |
//!
//! Decoding reads the stream as UTF-8 once as it arrives, reads the common events straight into
//! their structs (`fast_json`), and shares an id equal to the last one of its kind; an `Event`
//! is 128 bytes.

// `criterion_group!` generates a public function without documentation.
#![allow(missing_docs)]

#[path = "workload.rs"]
mod workload;

use std::hint::black_box;
use std::time::Duration;

use ag_ui::encoding::sse::{self, EventDecoder};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;

fn encode(c: &mut Criterion) {
    let events = workload::events(workload::MESSAGES);
    let values: Vec<Value> = events
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    let mut group = c.benchmark_group("encode");
    group.throughput(Throughput::Elements(events.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(4));
    let mut buf = Vec::with_capacity(64 << 20);
    group.bench_function("ours", |b| {
        b.iter(|| {
            buf.clear();
            for event in &events {
                sse::encode_into(event, &mut buf);
            }
            black_box(buf.len())
        })
    });
    group.bench_function("serde_json_value", |b| {
        b.iter(|| {
            buf.clear();
            for value in &values {
                serde_json::to_writer(&mut buf, value).unwrap();
            }
            black_box(buf.len())
        })
    });
    group.finish();
}

fn decode(c: &mut Criterion) {
    let events = workload::events(workload::MESSAGES);
    let mut bytes = Vec::new();
    for event in &events {
        sse::encode_into(event, &mut bytes);
    }
    let mut group = c.benchmark_group("decode");
    group.throughput(Throughput::Elements(events.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(4));
    group.bench_function("ours", |b| {
        b.iter(|| {
            let mut decoder = EventDecoder::new();
            let mut n = 0usize;
            for chunk in bytes.chunks(64 << 10) {
                decoder.push(chunk);
                for event in decoder.by_ref() {
                    black_box(event.unwrap());
                    n += 1;
                }
            }
            decoder.finish();
            n += decoder.by_ref().count();
            assert_eq!(n, events.len());
            n
        })
    });
    group.bench_function("serde_json_value", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for frame in bytes.split(|&b| b == b'\n') {
                if let Some(data) = frame.strip_prefix(b"data: ") {
                    black_box(serde_json::from_slice::<Value>(data).unwrap());
                    n += 1;
                }
            }
            assert_eq!(n, events.len());
            n
        })
    });
    group.finish();
}

criterion_group!(benches, encode, decode);
criterion_main!(benches);
