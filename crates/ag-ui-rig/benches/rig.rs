//! The rig bridge's cost per model chunk against `LlmAgent`'s, on the same mock stream: one
//! turn of `CHUNKS` text chunks served by the mock OpenAI-compatible server
//! (`crates/ag-ui/tests/support/openai_mock.rs`) on 127.0.0.1, read by each agent through its
//! own client (rig's OpenAI provider on the Chat Completions API; `ag_ui::llm::OpenAiClient`),
//! mapped to AG-UI events and drained from the run; the body comes in one piece per chunk, as a
//! provider flushes them (group `rig`), or in one piece (group `rig_one_piece`, as from a
//! buffering proxy). Both pay the same HTTP framing; the difference is rig's client, SSE
//! parsing and agent loop plus the bridge's mapping.
//!
//! `cargo bench -p ag-ui-rig --bench rig`
//!
//! The figures, and the profile naming where the time goes, are in the README's rig section.
#![allow(missing_docs)]

#[path = "../../ag-ui/tests/support/openai_mock.rs"]
#[allow(dead_code, unreachable_pub)]
mod openai_mock;

use std::time::Duration;

use ag_ui::llm::{LlmAgent, OpenAiClient};
use ag_ui::server::{Agent, Runner};
use ag_ui::{Event, Message, RunAgentInput};
use ag_ui_rig::RigAgent;
use ag_ui_rig::rig_agent::AgentBuilder;
use ag_ui_rig::rig_core::providers::openai::OpenAIConfig;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use serde_json::json;

/// Text chunks per model turn.
const CHUNKS: usize = 20_000;
/// Turns the mock has queued (one per run; more than criterion asks for).
const TURNS: usize = 400;

/// One model turn's SSE body: one piece per chunk, as a provider flushes them, or the whole
/// body as one piece (as a proxy that buffers delivers it).
fn turn(one_piece: bool) -> Vec<Vec<u8>> {
    let mut chunks = vec![openai_mock::chunk(
        json!({"role": "assistant", "content": ""}),
    )];
    chunks.extend((1..CHUNKS).map(|_| openai_mock::chunk(json!({"content": "token "}))));
    chunks.push(openai_mock::finish("stop"));
    let pieces = openai_mock::sse(&chunks);
    if one_piece {
        vec![pieces.concat()]
    } else {
        pieces
    }
}

fn input() -> RunAgentInput {
    RunAgentInput::new("t", "r").with_messages(vec![Message::user("u1", "Hi")])
}

async fn run<A: Agent>(runner: &Runner<A>) -> usize {
    let events: Vec<Event> = runner.run(input()).expect("run").collect().await;
    assert!(
        matches!(events.last(), Some(Event::RunFinished(_))),
        "{:?}",
        events.last()
    );
    events.len()
}

fn rig(c: &mut Criterion) {
    bench(c, "rig", false);
    bench(c, "rig_one_piece", true);
}

fn bench(c: &mut Criterion, group: &str, one_piece: bool) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let body = turn(one_piece);
    let replies = || {
        (0..TURNS)
            .map(|_| openai_mock::Reply::Sse(body.clone()))
            .collect::<Vec<_>>()
    };
    let (llm, rig) = rt.block_on(async {
        let (_, llm_base) = openai_mock::serve(replies()).await;
        let (_, rig_base) = openai_mock::serve(replies()).await;
        let llm = Runner::new(LlmAgent::<()>::new(OpenAiClient::new(llm_base), "m"));
        let model = OpenAIConfig::new("k")
            .with_base_url(rig_base)
            .client()
            .chat("m");
        let rig = Runner::new(RigAgent::new(AgentBuilder::new(model).build()));
        (llm, rig)
    });
    // Both produce the same events: START, CHUNKS - 1 deltas, END, and the run's two.
    assert_eq!(rt.block_on(run(&llm)), rt.block_on(run(&rig)));

    let mut group = c.benchmark_group(group);
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(8));
    group.throughput(Throughput::Elements(CHUNKS as u64));
    group.bench_function("llm_agent_text_turn", |b| b.iter(|| rt.block_on(run(&llm))));
    group.bench_function("rig_agent_text_turn", |b| b.iter(|| rt.block_on(run(&rig))));
    group.finish();
}

criterion_group!(benches, rig);
criterion_main!(benches);
