//! Emission through the server context: text deltas through the handle, the verifier and the
//! channel (no transport), and the memory an open run holds as it emits.
//!
//! `cargo bench -p ag-ui --bench server`
//!
//! `server/cpu` before and after the sink's emission was split into an inlined fast path and a
//! cold path (`Sink::push` / `Sink::push_slow`: a closed, abandoned or over-cap run, the
//! terminal event), recorded 2026-12-01 on the shared 2-core machine (load average 7.2, other
//! builds running), both binaries run alternately eight times in the same session, M text
//! deltas per CPU second:
//!
//! | build | best | median | worst |
//! |---|---|---|---|
//! | before (one `push` with every check inline) | 15.62 | 14.50 | 13.16 |
//! | after (fast path + `#[cold]` slow path) | 16.67 | 15.39 | 13.16 |
//!
//! About 6 % at the median: the profile of the earlier build already showed `push` inlined
//! into `emit_deltas`, so the split trims the inlined code rather than removing a call. The
//! remaining cost is the lock, the verifier's check, and allocating and dropping each delta's
//! `String`. The same session's `server/reference` line put rust at 6.6 M (before) and 8.3 M
//! (after) deltas/s of wall time (mean of eight, the wall figure follows the machine's load).
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use ag_ui::RunAgentInput;
use ag_ui::server::{Events, RunContext};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Deltas per measured iteration; the consumer drains every `BATCH` deltas, as a transport
/// reading the channel would.
const DELTAS: u64 = 100_000;
const BATCH: u64 = 1_000;

/// Reads what is queued one event at a time, as a transport would.
fn consume(events: &mut Events) {
    while let Some(event) = events.try_next() {
        black_box(event);
    }
}

fn emit_deltas(ctx: &mut RunContext<()>, events: &mut Events, n: u64) {
    let mut message = ctx.assistant_message().expect("open");
    for i in 0..n {
        message.delta(black_box("token ")).expect("delta");
        if i % BATCH == BATCH - 1 {
            consume(events);
        }
    }
    message.end().expect("end");
    consume(events);
}

fn text_deltas(c: &mut Criterion) {
    let mut group = c.benchmark_group("server");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(4));
    group.throughput(Throughput::Elements(DELTAS));
    let (mut ctx, mut events) =
        RunContext::<()>::new(RunAgentInput::new("thread", "run")).expect("context");
    group.bench_function("text_deltas", |b| {
        b.iter(|| emit_deltas(&mut ctx, &mut events, DELTAS));
    });
    let (parent, mut sub_events) =
        RunContext::<()>::new(RunAgentInput::new("thread", "run")).expect("context");
    let mut sub = parent.subagent("worker").expect("subagent");
    group.bench_function("subagent_text_deltas", |b| {
        b.iter(|| {
            let mut message = sub.assistant_message().expect("open");
            for i in 0..DELTAS {
                message.delta(black_box("token ")).expect("delta");
                if i % BATCH == BATCH - 1 {
                    consume(&mut sub_events);
                }
            }
            message.end().expect("end");
            consume(&mut sub_events);
        });
    });
    group.finish();
}

/// Resident memory of this process in KiB (Linux), `None` elsewhere.
fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// User + system CPU time of this process in seconds (Linux), `None` elsewhere: the figure
/// that holds when the machine is shared and wall time is not.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // Fields 14 and 15 of `stat` (utime, stime), counted from the state field (3).
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Prints the resident memory after 100 k and after 5 M more deltas through one open run: a
/// run keeps no history, so the second figure stays where the first one is.
fn memory_per_open_run(_: &mut Criterion) {
    let (mut ctx, mut events) =
        RunContext::<()>::new(RunAgentInput::new("thread", "run")).expect("context");
    emit_deltas(&mut ctx, &mut events, 100_000);
    let before = rss_kib();
    emit_deltas(&mut ctx, &mut events, 5_000_000);
    let after = rss_kib();
    let cpu = cpu_seconds();
    let start = Instant::now();
    emit_deltas(&mut ctx, &mut events, 5_000_000);
    if let (Some(cpu_before), Some(cpu_after)) = (cpu, cpu_seconds()) {
        let cpu = cpu_after - cpu_before;
        println!(
            "server/cpu: 5M deltas in {cpu:.2} s of CPU time ({:.2} M deltas per CPU second), \
             {:.2} s wall",
            5.0 / cpu,
            start.elapsed().as_secs_f64()
        );
    }
    if let (Some(before), Some(after)) = (before, after) {
        println!(
            "server/memory_per_open_run: RSS {before} KiB after 100k deltas, {after} KiB after \
             5.1M deltas (growth {} KiB)",
            after.saturating_sub(before)
        );
    }
}

/// Median wall time of three runs of `f`.
fn median_ns(mut f: impl FnMut()) -> u128 {
    let mut samples: Vec<u128> = (0..3)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_nanos()
        })
        .collect();
    samples.sort_unstable();
    samples[1]
}

/// The same workload through the reference (`@ag-ui/client`'s `verifyEvents` over an rxjs
/// Subject, `interop/server/emit_bench.mjs`), timed in this run, and the ratio.
fn against_the_reference(_: &mut Criterion) {
    const N: u64 = 1_000_000;
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let (mut ctx, mut events) =
        RunContext::<()>::new(RunAgentInput::new("thread", "run")).expect("context");
    emit_deltas(&mut ctx, &mut events, N); // warm-up
    let rust_ns = median_ns(|| emit_deltas(&mut ctx, &mut events, N));
    let rust_rate = N as f64 / rust_ns as f64 * 1e9;
    println!(
        "server/reference: rust {:.2} M deltas/s ({N} deltas in {rust_ns} ns)",
        rust_rate / 1e6
    );
    if !std::path::Path::new(root)
        .join("interop/node_modules")
        .exists()
    {
        println!(
            "server/reference: interop/node_modules is missing; run `npm ci --prefix interop`"
        );
        return;
    }
    let out = std::process::Command::new("node")
        .arg(std::path::Path::new(root).join("interop/server/emit_bench.mjs"))
        .arg(N.to_string())
        .current_dir(root)
        .output();
    match out {
        Ok(out) if out.status.success() => {
            let line = String::from_utf8_lossy(&out.stdout);
            let node_rate = line
                .split("\"deltas_per_s\":")
                .nth(1)
                .and_then(|rest| rest.trim().trim_end_matches('}').parse::<f64>().ok());
            match node_rate {
                Some(node_rate) => println!(
                    "server/reference: @ag-ui/client verifyEvents {:.2} M deltas/s; rust is {:.1}x",
                    node_rate / 1e6,
                    rust_rate / node_rate
                ),
                None => println!("server/reference: unreadable output {line}"),
            }
        }
        Ok(out) => println!(
            "server/reference: node failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => println!("server/reference: node could not be started: {e}"),
    }
}

criterion_group!(
    benches,
    text_deltas,
    memory_per_open_run,
    against_the_reference
);
criterion_main!(benches);
