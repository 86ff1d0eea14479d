//! Delta coalescing (`server::transform::Coalescer`) on the shared workload
//! (`workload::events`, about 210k events: 2,000 text messages of 100 deltas, 200 tool calls of
//! 4 argument fragments, 40 reasoning messages of 10 fragments), encoded as SSE: the frames and
//! bytes on the wire before and after, and the time coalescing and encoding take.
//!
//! ```text
//! cargo bench -p ag-ui --bench coalesce
//! ```
//!
//! Recorded 2026-12-01 on the 2-core development machine shared with four other builds (load
//! average 11–12; times are noisy, the frame and byte counts exact):
//!
//! | | frames | SSE bytes | time (criterion median) |
//! |---|---|---|---|
//! | plain (no coalescing) | 206,002 | 16,252,296 | 106.5 ms |
//! | coalesced, all ready | 7,042 (29× fewer) | 1,838,166 (−88.7 %) | 92.4 ms |
//! | coalesced, flushed every 8 events | 31,862 (6.5× fewer) | 3,636,371 (−77.6 %) | 75.7 ms |
//!
//! Coalescing and encoding together take no longer than encoding alone: the joined deltas are
//! appended in place, and there are far fewer frames to write.
//!
//! "all ready" is the bound: every event is ready when the endpoint writes (an agent faster
//! than its reader). "every 8" flushes the held delta after every 8 events, as when the reader
//! keeps up and only a few events are ready at each write; the figure in between depends on the
//! agent's pace and the window given to `AgentEndpoint::with_coalescing`.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

#[path = "../tests/support/workload.rs"]
mod workload;

use std::hint::black_box;
use std::time::Duration;

use ag_ui::Event;
use ag_ui::encoding::sse;
use ag_ui::server::transform::{Coalescer, DEFAULT_COALESCE_BYTES};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};

/// The SSE bytes and frame count of `events`, coalesced with a flush every `every` events
/// (`None`: no coalescing).
fn wire(events: Vec<Event>, every: Option<usize>, out: &mut Vec<u8>) -> usize {
    out.clear();
    let Some(every) = every else {
        for event in &events {
            sse::encode_into(event, out);
        }
        return events.len();
    };
    let mut coalescer = Coalescer::new(DEFAULT_COALESCE_BYTES);
    let mut staged = Vec::new();
    let mut frames = 0;
    for (i, event) in events.into_iter().enumerate() {
        coalescer.push(event, &mut staged);
        if (i + 1) % every == 0 {
            coalescer.flush(&mut staged);
        }
        for event in staged.drain(..) {
            sse::encode_into(&event, out);
            frames += 1;
        }
    }
    coalescer.flush(&mut staged);
    for event in staged.drain(..) {
        sse::encode_into(&event, out);
        frames += 1;
    }
    frames
}

fn bench(c: &mut Criterion) {
    let events = workload::events(workload::MESSAGES);
    let mut out = Vec::new();
    for (name, every) in [
        ("plain", None),
        ("all ready", Some(usize::MAX)),
        ("every 8", Some(8)),
    ] {
        let frames = wire(events.clone(), every, &mut out);
        eprintln!(
            "coalesce {name}: {} events -> {frames} frames, {} bytes",
            events.len(),
            out.len()
        );
    }
    let mut group = c.benchmark_group("coalesce");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Elements(events.len() as u64));
    for (name, every) in [
        ("plain", None),
        ("all_ready", Some(usize::MAX)),
        ("every_8", Some(8)),
    ] {
        // Each iteration takes its own copy of the events (the endpoint owns what the agent
        // sends), made outside the measurement.
        group.bench_function(name, |b| {
            b.iter_batched(
                || events.clone(),
                |events| black_box(wire(events, every, &mut out)),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
