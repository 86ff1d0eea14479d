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
//! their structs (the `json` module), and shares an id equal to the last one of its kind; an `Event`
//! is 128 bytes.

// `criterion_group!` generates a public function without documentation.
#![allow(missing_docs)]

#[path = "../tests/support/workload.rs"]
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

/// Encoding A/B on the workload: the hand-written writer (`Event::write_json`, what `sse`
/// uses) against typed serde (`serde_json::to_writer` of the same `Event`s, the derived
/// `Serialize`), both into one reused buffer, no framing.
fn json_ab(c: &mut Criterion) {
    let events = workload::events(workload::MESSAGES);
    let mut group = c.benchmark_group("json_encode");
    group.throughput(Throughput::Elements(events.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(4));
    let mut buf = Vec::with_capacity(64 << 20);
    group.bench_function("hand_written", |b| {
        b.iter(|| {
            buf.clear();
            for event in &events {
                event.write_json(&mut buf);
            }
            black_box(buf.len())
        })
    });
    group.bench_function("serde_typed", |b| {
        b.iter(|| {
            buf.clear();
            for event in &events {
                serde_json::to_writer(&mut buf, event).unwrap();
            }
            black_box(buf.len())
        })
    });
    group.finish();
}

/// The 20k-delta workload: `STATE_DELTA` events of about 250 bytes, each a few patch
/// operations, decoded by `EventDecoder` and, as the bar, parsed as `serde_json::Value`.
fn state_deltas(c: &mut Criterion) {
    let mut bytes = Vec::new();
    let n = 20_000;
    for i in 0..n {
        let patch: Vec<json_patch::PatchOperation> = serde_json::from_value(serde_json::json!([
            {"op": "replace", "path": "/counter", "value": i},
            {"op": "add", "path": format!("/items/{}", i % 50), "value": {"id": format!("item-{i}"), "done": i % 2 == 0}},
            {"op": "remove", "path": "/scratch/last"},
            {"op": "replace", "path": "/status/text", "value": "working on step"},
        ]))
        .unwrap();
        sse::encode_into(&ag_ui::Event::state_delta(patch), &mut bytes);
    }
    let mut group = c.benchmark_group("state_delta");
    group.throughput(Throughput::Elements(n));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(4));
    eprintln!("state_delta: {} bytes per event", bytes.len() as u64 / n);
    group.bench_function("ours", |b| {
        b.iter(|| {
            let mut decoder = EventDecoder::new();
            decoder.push(&bytes);
            decoder.finish();
            let mut count = 0_u64;
            for event in decoder.by_ref() {
                black_box(event.unwrap());
                count += 1;
            }
            assert_eq!(count, n);
            count
        })
    });
    group.bench_function("serde_json_value", |b| {
        b.iter(|| {
            let mut count = 0u64;
            for frame in bytes.split(|&b| b == b'\n') {
                if let Some(data) = frame.strip_prefix(b"data: ") {
                    black_box(serde_json::from_slice::<Value>(data).unwrap());
                    count += 1;
                }
            }
            assert_eq!(count, n);
            count
        })
    });
    group.finish();
}

/// One 8 MiB frame arriving in 1 KiB pieces: the decoder searches each piece once for a line
/// end, not the whole pending line again (which made this quadratic).
fn big_frame(c: &mut Criterion) {
    let mut bytes = b"data: ".to_vec();
    bytes.resize(8 << 20, b'x');
    bytes.extend_from_slice(b"\n\n");
    let mut group = c.benchmark_group("frame");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(4));
    group.bench_function("8mib_in_1kib_pieces", |b| {
        b.iter(|| {
            let mut frames = sse::FrameDecoder::new();
            let mut len = 0;
            for piece in bytes.chunks(1024) {
                frames.push(piece);
                if let Some(frame) = frames.next_frame().unwrap() {
                    len = frame.data().len();
                }
            }
            assert_eq!(len, (8 << 20) - 6);
            len
        })
    });
    group.finish();
}

criterion_group!(benches, encode, decode, json_ab, state_deltas, big_frame);
criterion_main!(benches);
