//! Traces one run across client and server and prints the spans. Run with:
//! `cargo run -p ag-ui-example-otel-trace`.

use ag_ui_example_otel_trace::{describe, install, run_one_turn, run_spans};
use opentelemetry_sdk::trace::InMemorySpanExporter;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let exporter = InMemorySpanExporter::default();
    let (provider, _guard) = install(&exporter);
    let reply = run_one_turn("hi").await?;
    println!("assistant: {reply}");
    for span in run_spans(&exporter, 2).await {
        println!("{}", describe(&span));
    }
    provider.shutdown()?;
    Ok(())
}
