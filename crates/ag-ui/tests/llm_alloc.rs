//! The model bridge allocates nothing per provider chunk beyond the event it becomes: the
//! chunk's strings move into the events, and the mapper's buffers are reused across chunks.
//! Counted with dhat's heap statistics in its own binary (one global allocator, one test).

use ag_ui::RunAgentInput;
use ag_ui::llm::ChunkMapper;
use ag_ui::llm::wire::ChatChunk;
use ag_ui::server::{Events, RunContext};

#[path = "support/llm_turns.rs"]
mod llm_turns;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

const CHUNKS: usize = 20_000;
const BATCH: usize = 1_000;

fn drain(events: &mut Events) {
    while let Some(event) = events.try_next() {
        drop(event);
    }
}

/// Allocations made while mapping `chunks` (built beforehand, as a parser hands them over).
fn allocations(ctx: &RunContext<()>, events: &mut Events, chunks: Vec<ChatChunk>) -> u64 {
    let before = dhat::HeapStats::get().total_blocks;
    let mut mapper = ChunkMapper::new(ctx.stream_writer());
    for (i, chunk) in chunks.into_iter().enumerate() {
        mapper.push(chunk).expect("push");
        if i % BATCH == BATCH - 1 {
            drain(events);
        }
    }
    mapper.finish().expect("finish");
    drain(events);
    dhat::HeapStats::get().total_blocks - before
}

fn text_turn(chunks: usize) -> Vec<ChatChunk> {
    (0..chunks).map(|_| ChatChunk::text("token ")).collect()
}

/// Reasoning, then text, then two parallel tool calls streaming their arguments.
fn mixed_turn(chunks: usize) -> Vec<ChatChunk> {
    (0..chunks)
        .map(|i| llm_turns::mixed_chunk(i, chunks))
        .collect()
}

#[test]
fn mapping_a_chunk_allocates_nothing_beyond_its_event() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let (ctx, mut events) =
        RunContext::<()>::new(RunAgentInput::new("thread", "run")).expect("context");
    // A first turn sizes the queue and the buffers that later turns reuse.
    allocations(&ctx, &mut events, mixed_turn(CHUNKS));

    // A turn opens a few blocks (ids, the tool-call table), and a buffer that keeps growing
    // with a turn (a tool call's arguments) doubles: four times the chunks may take a few
    // more, never a number that grows with them.
    for (name, turn) in [
        ("text", text_turn as fn(usize) -> Vec<ChatChunk>),
        ("mixed", mixed_turn),
    ] {
        let short = allocations(&ctx, &mut events, turn(CHUNKS));
        let long = allocations(&ctx, &mut events, turn(4 * CHUNKS));
        println!(
            "{name} turn: {short} allocations for {CHUNKS} chunks, {long} for {}",
            4 * CHUNKS
        );
        assert!(
            short < 100,
            "{name}: {short} allocations for {CHUNKS} chunks"
        );
        assert!(
            long <= short + 16,
            "{name}: {long} allocations for {} chunks, {short} for {CHUNKS}",
            4 * CHUNKS
        );
    }
}
