#![allow(missing_docs)]

//! Resumable runs: what the event log costs.
//!
//! - `emit_to_wire/plain`, `emit_to_wire/plain_ids` and `emit_to_wire/resumable_memory`: the
//!   ~206k-event workload streamed by an `AgentEndpoint` in process (handler → SSE bytes of the
//!   response body, no socket): without ids, with the plain numeric ids of
//!   `with_event_ids(true)` and no log, and resumable on a `MemoryLog` (every frame
//!   `id: <runId>:<seq>`, every event kept in the log). Same process, one after the other.
//! - `emit_to_socket/plain` and `emit_to_socket/resumable_memory`: the same two endpoints
//!   served by `axum::serve` on loopback TCP, read by a client that only counts the bytes.
//! - `redis_append`: the workload's events appended to a `RedisLog` from one instance, timed
//!   until the last one (and the end marker) is stored in Redis.
//! - `reconnect_first_event`: a `GET` with `Last-Event-ID` over loopback, to the first byte of
//!   the first replayed event (memory log; Redis log).
//!
//! Redis: `AG_UI_BENCH_REDIS=redis://…`, else a `redis-server` spawned here.
//!
//! `AG_UI_BENCH_INTERLEAVE=N` runs the emit variants in turn instead, N rounds of three runs
//! each, and prints each one's median and its ratio to `plain`: on a machine whose speed
//! drifts, one after the other puts the drift into the ratios.
//!
//! Recorded 2026-12-01/02 on the 2-core machine (a VM; glibc malloc, 4 KiB pages), load
//! average 0.9. The workload is 16.25 MB of SSE without ids, 19.03 MB with `r<n>` run ids.
//! Interleaved (`AG_UI_BENCH_INTERLEAVE=60`: 180 runs of each, medians) and, for comparison,
//! criterion one after the other (`--warm-up-time 2 --measurement-time 8`, medians, one run
//! at load 1.1):
//!
//! | bench | interleaved | against `plain` | criterion | against `plain` |
//! |---|---|---|---|---|
//! | `emit_to_wire/plain` | 19.61 ms | 1 | 15.40 ms | 1 |
//! | `emit_to_wire/plain_ids` | 20.96 ms | 0.936 | 17.17 ms | 0.897 |
//! | `emit_to_wire/resumable_memory` | 22.39 ms | **0.876** | 18.33 ms | **0.840** |
//! | `emit_to_wire/resumable_memory_uuid` | 23.55 ms | 0.833 | | |
//! | `emit_to_socket/plain` | 27.66 ms | 1 | 21.71 ms | 1 |
//! | `emit_to_socket/resumable_memory` | 31.81 ms | **0.869** | 26.14 ms | **0.831** |
//!
//! Three more interleaved runs (40 rounds) gave `resumable_memory` 0.874, 0.879 and 0.885 of
//! `plain` in process, 0.871, 0.866 and 0.859 over the socket. Criterion's one-after-the-other
//! ratios swing more on this machine: four runs of the same build between 0.72 and 0.84. The
//! interleaved times are higher than criterion's because each variant runs after the others
//! have taken the caches.
//!
//! Earlier figures (same machine, same day): `redis_append/workload_one_instance` 434 ms
//! (475 k events/s from one instance); `reconnect_first_event/memory` 242 µs,
//! `reconnect_first_event/redis` 1.02 ms.
//!
//! What the in-memory log costs, and what it no longer does. It keeps the very buffers written
//! to the socket (`RunWriter::append_shared`), with each event's place in them; frame heads
//! are counted up in place; and a run whose batches come full writes them into buffers the
//! log hands back from writes it no longer holds (`RunWriter::spare_buffer`), so a busy
//! endpoint does not map new pages for every run (perf: 357 k page faults in 5 s of
//! `resumable_memory` before, 27 k after; criterion: 0.79 of `plain` before, 0.84 after). The
//! same endpoint with a log that keeps nothing (an `EventLog` whose writer drops what it is
//! given) ran at 0.97–1.0 of `plain`: the ids, the ranges, the flushes cost almost nothing.
//! What is left is keeping 19 MB per run: every write goes to memory that is not in the cache,
//! where `plain` reuses one hot buffer; perf shows it as stalls on the first atomic operation
//! after the writes (an `Arc` count in the event's drop) and as `memmove` into cold lines.
//! Writing into a hot buffer and copying each batch into the kept one was no faster, nor was
//! touching each buffer first; glibc's heap on transparent huge pages
//! (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`) gave 0.85–0.95 across four interleaved runs, not a
//! lever to count on. Over a socket the ids also add 17 % to the bytes sent, more with longer
//! run ids (a UUID makes the `id:` line 47 bytes: `resumable_memory_uuid`).
//! The aim, 90 % of the id-less stream, is not reached: 87.6 % in process, 86.9 % over
//! the socket.
//! Before this work (same machine, same day, criterion): the log copied each event into
//! blocks, 64 % of `plain`; copying into one buffer per write, 74 %; keeping the socket's
//! buffers, 78.5 %.

#[path = "../tests/support/workload.rs"]
mod workload;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ag_ui::axum::AgentEndpoint;
use ag_ui::server::log::{EventLog, MemoryLog, MemoryLogConfig};
use ag_ui::server::log::{RedisLog, RedisLogConfig};
use ag_ui::{Event, RunAgentInput};
use axum::body::Body;
use axum::http::Request;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use tower::ServiceExt;

#[path = "../tests/support/redis_server.rs"]
mod redis_server;
use redis_server::RedisServer;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn emit_to_wire(c: &mut Criterion) {
    let rt = runtime();
    let events = Arc::new(workload::events(workload::MESSAGES));
    let total = events.len();
    let [plain, plain_ids, resumable] = emit_endpoints(&events);
    // Over loopback TCP: each endpoint served by `axum::serve`, read by a client that only
    // counts the bytes (HTTP/1.1, `connection: close`, read to the end).
    let servers = serve_on_loopback(&rt, &[&plain, &resumable]);
    let runs = AtomicU64::new(0);
    let drive_as = |app: &axum::Router, uuid: bool| {
        let run = runs.fetch_add(1, Ordering::Relaxed);
        // A UUID-shaped run id, as most clients make them: 36 bytes in every `id:` line.
        let run = if uuid {
            format!("6f1c2a9e-3b7d-4e8a-9c51-{run:012x}")
        } else {
            format!("r{run}")
        };
        let body = serde_json::to_string(&RunAgentInput::new("t", run)).unwrap();
        post_in_process(&rt, app, body)
    };
    let drive = |app: &axum::Router| drive_as(app, false);
    let socket = |addr: SocketAddr| {
        let run = runs.fetch_add(1, Ordering::Relaxed);
        let body = serde_json::to_string(&RunAgentInput::new("t", format!("r{run}"))).unwrap();
        post_over_socket(&rt, addr, body)
    };
    if let Some(rounds) = std::env::var("AG_UI_BENCH_INTERLEAVE")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
    {
        let variants: Vec<(&str, Run<'_>)> = vec![
            ("emit_to_wire/plain", Box::new(|| drive(&plain))),
            ("emit_to_wire/plain_ids", Box::new(|| drive(&plain_ids))),
            (
                "emit_to_wire/resumable_memory",
                Box::new(|| drive(&resumable)),
            ),
            (
                "emit_to_wire/resumable_memory_uuid",
                Box::new(|| drive_as(&resumable, true)),
            ),
            ("emit_to_socket/plain", Box::new(|| socket(servers[0]))),
            (
                "emit_to_socket/resumable_memory",
                Box::new(|| socket(servers[1])),
            ),
        ];
        interleave(rounds, &variants);
        return;
    }
    let mut group = c.benchmark_group("emit_to_wire");
    group.sample_size(10);
    group.throughput(Throughput::Elements(total as u64));
    group.bench_function("plain", |b| b.iter(|| drive(&plain)));
    group.bench_function("plain_ids", |b| b.iter(|| drive(&plain_ids)));
    group.bench_function("resumable_memory", |b| b.iter(|| drive(&resumable)));
    group.bench_function("resumable_memory_uuid", |b| {
        b.iter(|| drive_as(&resumable, true))
    });
    group.finish();
    let mut group = c.benchmark_group("emit_to_socket");
    group.sample_size(10);
    group.throughput(Throughput::Elements(total as u64));
    group.bench_function("plain", |b| b.iter(|| socket(servers[0])));
    group.bench_function("resumable_memory", |b| b.iter(|| socket(servers[1])));
    group.finish();
}

/// The three endpoints the emit benches compare, each streaming `events` on every run:
/// without ids, with the plain numeric ids of `with_event_ids(true)`, and resumable on a
/// `MemoryLog`.
fn emit_endpoints(events: &Arc<Vec<Event>>) -> [axum::Router; 3] {
    let handler = {
        let events = Arc::clone(events);
        move |_: RunAgentInput| {
            let events = Arc::clone(&events);
            futures::stream::iter(0..events.len()).map(move |i| events[i].clone())
        }
    };
    // Room for the whole run; finished runs are forgotten at once.
    let log = MemoryLog::new(
        MemoryLogConfig::default()
            .with_max_run_bytes(256 << 20)
            .with_max_total_bytes(512 << 20)
            .with_retention(Duration::ZERO),
    );
    let plain = AgentEndpoint::new(handler.clone())
        .with_keep_alive(None)
        .into_router::<()>();
    let plain_ids = AgentEndpoint::new(handler.clone())
        .with_keep_alive(None)
        .with_event_ids(true)
        .into_router::<()>();
    let resumable = AgentEndpoint::new(handler)
        .with_keep_alive(None)
        .with_resumable(log)
        .into_router::<()>();
    [plain, plain_ids, resumable]
}

/// Serves each of `apps` with `axum::serve` on its own loopback port; their addresses, in
/// order.
fn serve_on_loopback(rt: &tokio::runtime::Runtime, apps: &[&axum::Router]) -> Vec<SocketAddr> {
    rt.block_on(async {
        let mut addrs = Vec::new();
        for app in apps {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            addrs.push(listener.local_addr().unwrap());
            let app = (*app).clone();
            tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        }
        addrs
    })
}

/// Posts `body` to `app` in process (no socket) and reads the response body to its end; the
/// bytes read.
fn post_in_process(rt: &tokio::runtime::Runtime, app: &axum::Router, body: String) -> usize {
    let app = app.clone();
    rt.block_on(async move {
        let request = Request::post("/")
            .header("content-type", "application/json")
            .body(Body::from(body))
            .unwrap();
        let mut stream = app
            .oneshot(request)
            .await
            .unwrap()
            .into_body()
            .into_data_stream();
        let mut bytes = 0usize;
        while let Some(chunk) = stream.next().await {
            bytes += chunk.unwrap().len();
        }
        bytes
    })
}

/// Posts `body` to `addr` over loopback TCP (HTTP/1.1, `connection: close`) and reads the
/// response to its end, only counting it; the bytes read.
fn post_over_socket(rt: &tokio::runtime::Runtime, addr: SocketAddr, body: String) -> usize {
    rt.block_on(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "POST / HTTP/1.1\r\nhost: bench\r\ncontent-type: application/json\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        tcp.write_all(head.as_bytes()).await.unwrap();
        tcp.write_all(body.as_bytes()).await.unwrap();
        let mut buffer = vec![0u8; 256 * 1024];
        let mut bytes = 0usize;
        loop {
            match tcp.read(&mut buffer).await.unwrap() {
                0 => break bytes,
                n => bytes += n,
            }
        }
    })
}

/// One run of a variant of the interleaved emit benches; the bytes it read.
type Run<'a> = Box<dyn Fn() -> usize + 'a>;

/// Runs `variants` in turn, three runs each per round for `rounds` rounds, so that the
/// machine's drift (other tenants on a VM) falls on all of them alike; prints the medians of
/// all the runs and each one's ratio to `plain` (the first variant in process, the fifth over
/// the socket).
fn interleave(rounds: usize, variants: &[(&str, Run<'_>)]) {
    for (_, run) in variants {
        run();
    }
    let mut times = vec![Vec::new(); variants.len()];
    for _ in 0..rounds {
        for (i, (_, run)) in variants.iter().enumerate() {
            for _ in 0..3 {
                let started = Instant::now();
                run();
                times[i].push(started.elapsed().as_secs_f64() * 1e3);
            }
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let medians: Vec<f64> = times.into_iter().map(median).collect();
    eprintln!("interleaved, {rounds} rounds of 3 runs each; medians:");
    for (i, (name, _)) in variants.iter().enumerate() {
        let base = if name.starts_with("emit_to_socket") {
            medians[4]
        } else {
            medians[0]
        };
        eprintln!(
            "{name:40} {:8.2} ms  {:.3} of plain",
            medians[i],
            base / medians[i]
        );
    }
}

fn redis_append(c: &mut Criterion) {
    let rt = runtime();
    let redis = RedisServer::shared_or_own("AG_UI_BENCH_REDIS");
    let jsons: Vec<Vec<u8>> = workload::events(workload::MESSAGES)
        .iter()
        .map(|e: &Event| serde_json::to_vec(e).unwrap())
        .collect();
    let total = jsons.len() as u64;
    let config = RedisLogConfig::default()
        .with_prefix("bench:")
        .with_max_len(1 << 20)
        .with_max_queued(1 << 20)
        .with_retention(Duration::from_secs(5));
    let log = rt
        .block_on(RedisLog::connect_with(&redis.url, config))
        .unwrap();
    let runs = AtomicU64::new(0);
    let mut group = c.benchmark_group("redis_append");
    group.sample_size(10);
    group.throughput(Throughput::Elements(total));
    group.bench_function("workload_one_instance", |b| {
        b.iter(|| {
            let run = format!(
                "r{}-{}",
                std::process::id(),
                runs.fetch_add(1, Ordering::Relaxed)
            );
            rt.block_on(async {
                let mut writer = log.open(&run).await.unwrap();
                for json in &jsons {
                    writer.append(json);
                }
                writer.finish();
                // Resolves once the last event and the end marker are in Redis.
                let mut tail = log.read(&run, total).await.unwrap();
                assert!(tail.next().await.is_none());
            })
        })
    });
    group.finish();
    drop(log);
    rt.block_on(async {
        let client = redis::Client::open(redis.url.as_str()).unwrap();
        let mut conn = client.get_multiplexed_async_connection().await.unwrap();
        let _: () = redis::cmd("FLUSHALL").query_async(&mut conn).await.unwrap();
    });
}

fn reconnect_first_event(c: &mut Criterion) {
    let rt = runtime();
    let redis = RedisServer::shared_or_own("AG_UI_BENCH_REDIS");
    let handler = |input: RunAgentInput| {
        let (t, r) = (input.thread_id, input.run_id);
        let mut events = vec![Event::run_started(t.clone(), r.clone())];
        events.extend((0..1000).map(|i| Event::custom("tick", serde_json::json!(i))));
        events.push(Event::run_finished(t, r));
        futures::stream::iter(events)
    };
    let redis_log = rt
        .block_on(RedisLog::connect_with(
            &redis.url,
            RedisLogConfig::default().with_prefix("bench-reconnect:"),
        ))
        .unwrap();
    let (memory_url, redis_url) = rt.block_on(async {
        let mut urls = Vec::new();
        for log in [
            Arc::new(MemoryLog::default()) as Arc<dyn EventLog>,
            Arc::new(redis_log) as Arc<dyn EventLog>,
        ] {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let app = AgentEndpoint::new(handler)
                .with_resumable_log(log)
                .into_router();
            tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
            let url = format!("http://{addr}/");
            // One finished run to reconnect to.
            reqwest::Client::new()
                .post(&url)
                .header("content-type", "application/json")
                .body(serde_json::to_string(&RunAgentInput::new("t", "run")).unwrap())
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            urls.push(url);
        }
        (urls[0].clone(), urls[1].clone())
    });
    let client = reqwest::Client::new();
    let mut group = c.benchmark_group("reconnect_first_event");
    group.sample_size(50);
    for (name, url) in [("memory", memory_url), ("redis", redis_url)] {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let mut spent = Duration::ZERO;
                    for _ in 0..iters {
                        let started = Instant::now();
                        let mut response = client
                            .get(&url)
                            .header("last-event-id", "run:500")
                            .send()
                            .await
                            .unwrap();
                        let first = response.chunk().await.unwrap().unwrap();
                        spent += started.elapsed();
                        assert!(first.starts_with(b"retry: "));
                    }
                    spent
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, emit_to_wire, redis_append, reconnect_first_event);
criterion_main!(benches);
