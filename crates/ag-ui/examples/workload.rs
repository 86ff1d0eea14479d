//! Writes the benchmark workload to stdout, for measuring the reference packages on the same
//! events.
//!
//! Run with: `cargo run --release -p ag-ui --example workload -- [jsonl|sse] [explicit|chunked] [MESSAGES]`

#[path = "../tests/support/workload.rs"]
mod workload;

use std::io::Write;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let format = args.first().map(String::as_str).unwrap_or("jsonl");
    let shape = args.get(1).map(String::as_str).unwrap_or("explicit");
    let messages = args
        .get(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(workload::MESSAGES);
    let events = match shape {
        "chunked" => workload::chunked(messages),
        _ => workload::events(messages),
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut buf = Vec::new();
    for event in &events {
        buf.clear();
        if format == "sse" {
            ag_ui::encoding::sse::encode_into(event, &mut buf);
        } else {
            event.write_json(&mut buf);
            buf.push(b'\n');
        }
        out.write_all(&buf)?;
    }
    out.flush()
}
