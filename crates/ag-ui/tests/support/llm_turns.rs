//! Provider chunks of a model turn, shared by the model bridge's allocation test and its
//! bench.

use ag_ui::llm::wire::{ChatChunk, ToolCallDelta};

/// Chunk `i` of a turn of `chunks`: reasoning for the first quarter, text for the second,
/// then two parallel tool calls streaming their arguments, and the finish.
pub(crate) fn mixed_chunk(i: usize, chunks: usize) -> ChatChunk {
    let quarter = chunks / 4;
    match i {
        i if i < quarter => ChatChunk::reasoning("hmm "),
        i if i < 2 * quarter => ChatChunk::text("token "),
        i if i == 2 * quarter => ChatChunk::tool_calls(vec![ToolCallDelta::new(
            0,
            Some("search"),
            Some("{\"q\":\""),
        )]),
        i if i == 2 * quarter + 1 => ChatChunk::tool_calls(vec![ToolCallDelta::new(
            1,
            Some("lookup"),
            Some("{\"id\":\""),
        )]),
        i if i == chunks - 1 => ChatChunk::finish("tool_calls"),
        i => ChatChunk::tool_calls(vec![ToolCallDelta::new((i % 2) as u32, None, Some("abc"))]),
    }
}
