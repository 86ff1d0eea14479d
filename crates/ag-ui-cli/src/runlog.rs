//! `ag-ui serve --log-format json`: one JSON line per finished run on stderr, built from the
//! library's run span (`agui.run`, target `ag_ui::trace`): its attributes, the run's duration
//! and the trace id (the request's `traceparent` one, or a fresh one when it had none).
//! Warnings and errors still go to stderr as text lines; other text logs are off.

use std::fmt;
use std::io::Write as _;
use std::time::Instant;

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt as _;

/// How `ag-ui serve` logs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LogFormat {
    /// Text lines, one per run and per notable thing.
    #[default]
    Text,
    /// One JSON object per finished run (and warnings as text).
    Json,
}

/// Installs the process's logger for `serve`.
pub(crate) fn init(format: LogFormat, color: bool) {
    let filter = || {
        tracing_subscriber::EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"))
    };
    match format {
        LogFormat::Text => tracing_subscriber::fmt()
            .with_env_filter(filter())
            .with_ansi(color)
            .with_writer(std::io::stderr)
            .init(),
        LogFormat::Json => tracing_subscriber::registry()
            .with(
                RunLog.with_filter(
                    tracing_subscriber::filter::Targets::new()
                        .with_target(ag_ui::trace::TARGET, tracing::Level::INFO),
                ),
            )
            .with(
                tracing_subscriber::fmt::layer()
                    .with_ansi(color)
                    .with_writer(std::io::stderr)
                    .with_filter(tracing_subscriber::filter::LevelFilter::WARN),
            )
            .init(),
    }
}

/// The fields of a run span, as JSON.
struct Fields {
    map: Map<String, Value>,
    started: Instant,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.map.insert(field.name().into(), value.into());
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.map.insert(field.name().into(), value.into());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.map.insert(field.name().into(), value.into());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.map.insert(field.name().into(), value.into());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        // `%value` fields arrive here, written with their Display.
        self.map
            .insert(field.name().into(), format!("{value:?}").into());
    }
}

/// The layer writing a JSON line when a run span closes.
struct RunLog;

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for RunLog {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().name() != ag_ui::trace::RUN {
            return;
        }
        let mut fields = Fields {
            map: Map::new(),
            started: Instant::now(),
        };
        attrs.record(&mut fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(fields);
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(fields) = span.extensions_mut().get_mut::<Fields>()
        {
            values.record(fields);
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let Some(fields) = span.extensions_mut().remove::<Fields>() else {
            return;
        };
        let mut line = Map::new();
        line.insert("span".into(), ag_ui::trace::RUN.into());
        line.insert(
            "trace_id".into(),
            fields
                .map
                .get("trace_id")
                .cloned()
                .unwrap_or_else(|| fresh_trace_id().into()),
        );
        for (key, value) in fields.map {
            line.entry(key).or_insert(value);
        }
        let millis = u64::try_from(fields.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        line.insert("duration_ms".into(), millis.into());
        // serde_json escapes control characters: a client's ids cannot break the line.
        let mut text = Value::Object(line).to_string();
        text.push('\n');
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }
}

/// 32 hex digits that no other run of this process has had (the W3C trace id form).
fn fresh_trace_id() -> String {
    use std::hash::{BuildHasher as _, RandomState};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    // Randomly keyed hashers: ids differ across processes; the counter keeps them apart within one.
    let a = RandomState::new().hash_one(n);
    format!("{a:016x}{n:016x}")
}
