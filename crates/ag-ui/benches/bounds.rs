//! The sizes at which the client's work used to grow with the square of the input (issue 11):
//!
//! * `tool_results`: 20,000 tool calls, each in its own assistant message, then their 20,000
//!   `TOOL_CALL_RESULT`s through the [`Reducer`]; each result goes right after its call, among
//!   the messages that follow it.
//! * `subagent_lanes`: 40,000 subagents each streaming a text message as chunks, all open at
//!   once (`SUBAGENT_STARTED` each, two chunks each, `SUBAGENT_FINISHED` each): through
//!   [`normalize_all`], through a client-mode [`Verifier`] (the expanded stream), and through an
//!   emission-mode one (the chunks as they were sent).
//!
//! ```text
//! cargo bench -p ag-ui --bench bounds
//! ```
//!
//! Figures are in the crate's CHANGELOG entry for issue 11.
//!
//! `tool_results`, before and after the reducer kept its messages in an order tree instead of
//! one `Vec` (`client/apply/store.rs`: a result is inserted in O(log n), no message moves),
//! both binaries built from the same bench and run back to back, 2026-12-01 on the shared
//! 2-core machine at load average 15 (other builds and a fuzzer running), criterion median of
//! 10 samples, 60,002 events per iteration:
//!
//! | bench | `Vec` (before) | order tree (after) | ratio |
//! |---|---|---|---|
//! | `tool_results/20k` | 3.91 s | 0.270 s | 14.5x |
//! | `tool_results/20k/read_each` | 4.15 s | 0.631 s | 6.6x |
//!
//! The `Vec` moved every later message on each insertion (O(n²) over the run); the tree
//! costs O(log n) per insertion and per position asked, so the run is O(n log n). The
//! wall-clock figures are inflated by the machine's load (two cores shared by about fifteen
//! runnable jobs); the ratio is what the same run shows.

//! Again on 2026-12-01 at load average 1.3 (one run, criterion medians): `tool_results/20k`
//! 39.9 ms (60,002 events), `tool_results/40k` 97.3 ms, `tool_results/20k/read_each`
//! 28.9 ms; `subagent_lanes/40k`: `normalize_all` 65.5 ms, `verify_emission` 80.9 ms,
//! `verify_expanded` 34.3 ms (160,002 events each). Before issue 11 the same sizes took 25 s
//! (tool results), 16 s (normalize) and 23 s (verify).

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use ag_ui::client::Reducer;
use ag_ui::client::chunks::normalize_all;
use ag_ui::verify::Verifier;
use ag_ui::{Event, MessageId};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};

const RESULTS: usize = 20_000;
const SUBAGENTS: usize = 40_000;

fn tool_results(n: usize) -> Vec<Event> {
    let mut events = vec![Event::run_started("t", "r")];
    for i in 0..n {
        events.push(Event::tool_call_start(format!("c{i}"), "lookup"));
        events.push(Event::tool_call_end(format!("c{i}")));
    }
    for i in 0..n {
        events.push(Event::tool_call_result(
            format!("r{i}"),
            format!("c{i}"),
            "done",
        ));
    }
    events.push(Event::run_finished("t", "r"));
    events
}

fn subagent_lanes(n: usize) -> Vec<Event> {
    let mut events = vec![Event::run_started("t", "r")];
    events.extend((0..n).map(|i| Event::subagent_started(format!("s{i}"), "worker")));
    for delta in ["a", "b"] {
        events.extend((0..n).map(|i| {
            Event::text_message_chunk(Some(MessageId::new(format!("m{i}"))), Some(delta.into()))
                .with_subagent_run_id(format!("s{i}"))
        }));
    }
    events.extend((0..n).map(|i| Event::subagent_finished(format!("s{i}"))));
    events.push(Event::run_finished("t", "r"));
    events
}

fn bounds(c: &mut Criterion) {
    let mut group = c.benchmark_group("bounds");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));

    let results = tool_results(RESULTS);
    group.throughput(Throughput::Elements(results.len() as u64));
    group.bench_function("tool_results/20k", |b| {
        b.iter_batched(
            Reducer::new,
            |mut reducer| {
                for event in &results {
                    black_box(reducer.apply(event).expect("the workload applies"));
                }
                assert_eq!(reducer.messages().len(), 2 * RESULTS);
                reducer
            },
            BatchSize::LargeInput,
        )
    });

    // Twice the size: linear work takes about twice as long, quadratic four times.
    let doubled = tool_results(2 * RESULTS);
    group.throughput(Throughput::Elements(doubled.len() as u64));
    group.bench_function("tool_results/40k", |b| {
        b.iter_batched(
            Reducer::new,
            |mut reducer| {
                for event in &doubled {
                    black_box(reducer.apply(event).expect("the workload applies"));
                }
                assert_eq!(reducer.messages().len(), 4 * RESULTS);
                reducer
            },
            BatchSize::LargeInput,
        )
    });
    drop(doubled);
    group.throughput(Throughput::Elements(results.len() as u64));

    // The same, reading each new or changed message through `messages()` as a UI redrawing
    // it would.
    group.bench_function("tool_results/20k/read_each", |b| {
        b.iter_batched(
            Reducer::new,
            |mut reducer| {
                for event in &results {
                    let applied = reducer.apply(event).expect("the workload applies");
                    if let Some(at) = applied.new_message {
                        black_box(reducer.messages().get(at).expect("the message is there"));
                    }
                }
                assert_eq!(reducer.messages().len(), 2 * RESULTS);
                reducer
            },
            BatchSize::LargeInput,
        )
    });

    let lanes = subagent_lanes(SUBAGENTS);
    let expanded = normalize_all(lanes.clone()).expect("the workload is valid");
    group.throughput(Throughput::Elements(lanes.len() as u64));
    group.bench_function("subagent_lanes/40k/normalize_all", |b| {
        b.iter_batched(
            || lanes.clone(),
            |input| normalize_all(input).expect("the workload is valid"),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("subagent_lanes/40k/verify_emission", |b| {
        b.iter_batched(
            Verifier::for_emission,
            |mut verifier| {
                for event in &lanes {
                    verifier.check(event).expect("the workload is valid");
                }
                verifier
            },
            BatchSize::LargeInput,
        )
    });
    group.throughput(Throughput::Elements(expanded.len() as u64));
    group.bench_function("subagent_lanes/40k/verify_expanded", |b| {
        b.iter_batched(
            Verifier::new,
            |mut verifier| {
                for event in &expanded {
                    verifier.check(event).expect("the workload is valid");
                }
                verifier
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bounds);
criterion_main!(benches);
