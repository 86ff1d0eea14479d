//! Measures the client pipeline's peak memory against the size of what it builds.
//!
//! Reads an SSE stream from stdin in 64 KiB pieces (as from a socket), runs it through the full
//! client pipeline, and prints the peak resident set size growth during the run (Linux
//! `VmHWM` minus the resident size before the first byte) next to the size of the final
//! messages and state serialized as JSON.
//!
//! ```text
//! cargo run --release -p ag-ui --example workload -- sse explicit 2000 > /tmp/wl.sse
//! cargo run --release -p ag-ui --example client_memory < /tmp/wl.sse
//! ```

use std::io::Read;

use ag_ui::client::Pipeline;
use ag_ui::client::Reducer;

/// A `kB` field of `/proc/self/status`, in bytes (0 where there is no such file).
fn status_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kb| kb * 1024)
}

/// Runs every stage once on a small stream, so that the code they run is resident before the
/// baseline is taken and does not count as memory the run used.
fn warm_up() -> Result<(), Box<dyn std::error::Error>> {
    use ag_ui::{Event, TextMessageRole, ToolCallStartEvent};
    let events = [
        Event::run_started("t", "r"),
        Event::text_message_start("m", TextMessageRole::Assistant),
        Event::text_message_content("m", "x"),
        Event::text_message_end("m"),
        ToolCallStartEvent::new("c", "f")
            .with_parent_message_id("m")
            .into(),
        Event::tool_call_args("c", "{}"),
        Event::tool_call_end("c"),
        Event::tool_call_result("r1", "c", "ok"),
        Event::state_delta(vec![serde_json::from_value(
            serde_json::json!({"op": "add", "path": "/a", "value": 1}),
        )?]),
        Event::reasoning_start("s"),
        Event::reasoning_message_start("s"),
        Event::reasoning_message_content("s", "x"),
        Event::reasoning_message_end("s"),
        Event::reasoning_end("s"),
        Event::run_finished("t", "r"),
    ];
    let mut bytes = Vec::new();
    for event in &events {
        ag_ui::encoding::sse::encode_into(event, &mut bytes);
    }
    let mut pipeline = Pipeline::new(Reducer::new());
    pipeline.push_bytes(&bytes, &mut ())?;
    pipeline.finish(&mut ())?;
    let reducer = pipeline.into_reducer();
    serde_json::to_vec(reducer.messages())?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut stdin = std::io::stdin().lock();
    let mut buf = vec![0u8; 64 * 1024];
    warm_up()?;
    let before = status_kb("VmRSS:");
    let mut pipeline = Pipeline::new(Reducer::new());
    let mut bytes = 0usize;
    loop {
        let n = stdin.read(&mut buf)?;
        if n == 0 {
            break;
        }
        bytes += n;
        pipeline.push_bytes(&buf[..n], &mut ())?;
    }
    pipeline.finish(&mut ())?;
    let peak = status_kb("VmHWM:");
    let reducer = pipeline.into_reducer();
    let json =
        serde_json::to_vec(reducer.messages())?.len() + serde_json::to_vec(reducer.state())?.len();
    let growth = peak.saturating_sub(before);
    println!(
        "input {bytes} B, {} events, {} messages; final messages+state as JSON {json} B; \
         peak RSS growth {growth} B ({:.2}x)",
        reducer.events_applied(),
        reducer.messages().len(),
        growth as f64 / json as f64
    );
    Ok(())
}
