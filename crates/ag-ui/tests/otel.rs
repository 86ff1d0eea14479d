//! One trace across client and server: `HttpAgent` (through `Conversation`) sends the W3C
//! `traceparent` of its run span, the axum endpoint makes its run span a child of it, and an
//! in-memory OpenTelemetry exporter receives both spans in one trace with the run attributes.

use std::time::Duration;

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui::client::{Conversation, HttpAgent};
use ag_ui::{Event, RunAgentInput, TextMessageRole};
use axum::Router;
use futures::Stream;
use opentelemetry::Value;
use opentelemetry::trace::{SpanKind, TracerProvider as _};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use tracing_subscriber::layer::SubscriberExt as _;

fn agent(input: RunAgentInput) -> impl Stream<Item = Event> + Send + 'static {
    let (t, r) = (input.thread_id, input.run_id);
    futures::stream::iter(vec![
        Event::run_started(t.clone(), r.clone()),
        Event::text_message_start("m1", TextMessageRole::Assistant),
        Event::text_message_content("m1", "traced"),
        Event::text_message_end("m1"),
        Event::run_finished(t, r),
    ])
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a Value> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| &kv.value)
}

#[tokio::test]
async fn client_and_server_run_spans_form_one_trace() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("ag-ui-test")));
    // A current-thread runtime: the server's tasks run on this thread, under this subscriber.
    let _guard = tracing::subscriber::set_default(subscriber);
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new().agent("/agent", AgentEndpoint::new(agent));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let http = HttpAgent::new(format!("http://{addr}/agent")).with_timeout(Duration::from_secs(20));
    let mut conversation = Conversation::new("thread-otel");
    conversation.add_user_message("hi");
    conversation.run(&http, &mut ()).await.unwrap();
    // The server's span ends when the response body is dropped, just after the client read it.
    let mut spans = Vec::new();
    for _ in 0..200 {
        spans = exporter.get_finished_spans().unwrap();
        if spans.iter().filter(|s| s.name == "agui.run").count() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let runs: Vec<_> = spans.iter().filter(|s| s.name == "agui.run").collect();
    assert_eq!(runs.len(), 2, "{spans:#?}");
    let side = |s: &SpanData| attribute(s, "agui.side").map(|v| v.as_str().into_owned());
    let client = runs
        .iter()
        .find(|s| side(s).as_deref() == Some("client"))
        .unwrap();
    let server = runs
        .iter()
        .find(|s| side(s).as_deref() == Some("server"))
        .unwrap();

    assert_eq!(
        client.span_context.trace_id(),
        server.span_context.trace_id(),
        "one trace"
    );
    assert_eq!(server.parent_span_id, client.span_context.span_id());
    assert!(server.parent_span_is_remote);
    assert_eq!(client.span_kind, SpanKind::Client);
    assert_eq!(server.span_kind, SpanKind::Server);

    for span in [client, server] {
        assert_eq!(
            attribute(span, "agui.thread_id")
                .map(|v| v.as_str().into_owned())
                .as_deref(),
            Some("thread-otel")
        );
        let run_id = attribute(span, "agui.run_id")
            .unwrap()
            .as_str()
            .into_owned();
        assert!(run_id.starts_with("thread-otel-run-"), "{run_id}");
        assert_eq!(
            attribute(span, "agui.run.outcome")
                .map(|v| v.as_str().into_owned())
                .as_deref(),
            Some("success")
        );
        assert_eq!(attribute(span, "agui.events.count"), Some(&Value::I64(5)));
        let Some(Value::I64(bytes)) = attribute(span, "agui.bytes") else {
            panic!("{span:#?}")
        };
        assert!(*bytes > 100, "{bytes}");
    }
    // The same run on both sides, and the same bytes.
    assert_eq!(
        attribute(client, "agui.run_id"),
        attribute(server, "agui.run_id")
    );
    assert_eq!(
        attribute(client, "agui.bytes"),
        attribute(server, "agui.bytes")
    );
    // The server knows the trace id from the header too (for logs without OpenTelemetry).
    assert_eq!(
        attribute(server, "trace_id").map(|v| v.as_str().into_owned()),
        Some(server.span_context.trace_id().to_string())
    );
    // Events are span events at debug level; the subscriber here takes every level.
    assert_eq!(server.events.events.len(), 5);
}
