//! The example's run gives a client span and a server span in one trace.

use ag_ui_example_otel_trace::{describe, install, run_one_turn, run_spans};
use opentelemetry_sdk::trace::InMemorySpanExporter;

#[tokio::test]
async fn one_run_one_trace_two_spans() {
    let exporter = InMemorySpanExporter::default();
    let (_provider, _guard) = install(&exporter);
    assert_eq!(run_one_turn("hi").await.unwrap(), "Hello, traced world");
    let spans = run_spans(&exporter, 2).await;
    assert_eq!(spans.len(), 2);
    assert_eq!(
        spans[0].span_context.trace_id(),
        spans[1].span_context.trace_id()
    );
    let lines: Vec<String> = spans.iter().map(describe).collect();
    assert!(
        lines.iter().any(|l| l.contains("agui.side=client")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("agui.side=server")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .all(|l| l.contains("agui.run.outcome=success") && l.contains("agui.events.count=5")),
        "{lines:?}"
    );
}
