//! One AG-UI run traced end to end with OpenTelemetry: an `HttpAgent` conversation against an
//! axum `AgentEndpoint` on 127.0.0.1, both traced through `tracing-opentelemetry`, the spans
//! exported to an in-memory exporter (swap in any exporter, e.g. OTLP, in a real service).
//!
//! The client's `agui.run` span sends its W3C `traceparent`; the server's `agui.run` span is
//! its child, so both land in one trace. See `ag_ui::trace` for the attributes.

use std::time::Duration;

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui::client::{Conversation, HttpAgent, RunError};
use ag_ui::{Event, RunAgentInput, TextMessageRole};
use futures::Stream;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use tracing_subscriber::layer::SubscriberExt as _;

/// The agent: says hello.
fn hello(input: RunAgentInput) -> impl Stream<Item = Event> + Send + 'static {
    let (t, r) = (input.thread_id, input.run_id);
    futures::stream::iter(vec![
        Event::run_started(t.clone(), r.clone()),
        Event::text_message_start("m1", TextMessageRole::Assistant),
        Event::text_message_content("m1", "Hello, traced world"),
        Event::text_message_end("m1"),
        Event::run_finished(t, r),
    ])
}

/// Tracing set up for this thread: `tracing` spans become OpenTelemetry spans exported to
/// `exporter`, and W3C trace context is what crosses HTTP. Keep the guard while tracing.
pub fn install(
    exporter: &InMemorySpanExporter,
) -> (SdkTracerProvider, tracing::subscriber::DefaultGuard) {
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("otel-trace-example")));
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    (provider, tracing::subscriber::set_default(subscriber))
}

/// Serves the agent on a free loopback port and runs one conversation turn against it;
/// returns the assistant's reply.
///
/// # Errors
/// The run's error, if it failed.
pub async fn run_one_turn(message: &str) -> Result<String, RunError> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("the port's address");
    let app = axum::Router::new().agent("/agent", AgentEndpoint::new(hello));
    tokio::spawn(async move { axum::serve(listener, app).await });
    let agent =
        HttpAgent::new(format!("http://{addr}/agent")).with_timeout(Duration::from_secs(20));
    let mut conversation = Conversation::new("thread-otel");
    conversation.add_user_message(message);
    conversation.run(&agent, &mut ()).await?;
    Ok(conversation
        .messages()
        .last()
        .and_then(|m| m.text())
        .unwrap_or_default()
        .to_owned())
}

/// Waits (up to a second) until `exporter` holds `count` run spans and returns them: the
/// server's span ends when its response body is dropped, just after the client read it.
pub async fn run_spans(exporter: &InMemorySpanExporter, count: usize) -> Vec<SpanData> {
    let mut runs = Vec::new();
    for _ in 0..100 {
        runs = exporter
            .get_finished_spans()
            .unwrap_or_default()
            .into_iter()
            .filter(|s| s.name == ag_ui::trace::RUN)
            .collect();
        if runs.len() >= count {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    runs
}

/// One line per span: trace id, span id, parent, and the `agui.*` attributes.
pub fn describe(span: &SpanData) -> String {
    let mut line = format!(
        "{} trace={} span={} parent={}",
        span.name,
        span.span_context.trace_id(),
        span.span_context.span_id(),
        span.parent_span_id
    );
    for kv in &span.attributes {
        if kv.key.as_str().starts_with("agui.") {
            line.push_str(&format!(" {}={}", kv.key, kv.value));
        }
    }
    line
}
