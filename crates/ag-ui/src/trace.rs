//! Tracing of runs: one `tracing` span per run, on the server and on the client, with the
//! attributes the .NET SDK gives its run activities.
//!
//! The axum endpoint (`axum::AgentEndpoint`, feature `axum`) and `client::Conversation::run`
//! (feature `client`) each open a span named
//! [`RUN`] (`agui.run`) for every run, at info level, target `ag_ui::trace`, with the fields:
//!
//! | field | value |
//! |---|---|
//! | [`THREAD_ID`] `agui.thread_id` | the run input's thread id |
//! | [`RUN_ID`] `agui.run_id` | the run input's run id |
//! | [`PARENT_RUN_ID`] `agui.parent_run_id` | its parent run id, when there is one |
//! | [`SIDE`] `agui.side` | `server` or `client` |
//! | [`OUTCOME`] `agui.run.outcome` | recorded at the end: a [`TraceOutcome`] (`success`, `interrupt`, `error`, `incomplete`, `cancelled`, `stopped`, or the kind of the client's error) |
//! | [`EVENTS`] `agui.events.count` | recorded at the end: events the agent emitted (server; before the endpoint's filter, coalescing or downgrade) or applied (client) |
//! | [`BYTES`] `agui.bytes` | recorded at the end: bytes written to the response (server) or of the encoded events (client) |
//! | `trace_id` | the W3C trace id (from `traceparent`) when the endpoint received one |
//!
//! Every event is a debug-level event `agui.event` inside the span, with its type and index.
//! With no subscriber, or with debug off, nothing is formatted: the cost is a level check per
//! event (the `axum` bench measures it). With the `otel` feature, `tracing-opentelemetry`
//! turns the spans into OpenTelemetry spans, and the W3C `traceparent` header joins the
//! client's span and the server's into one trace (see `trace::otel`).
//!
//! ```
//! use ag_ui::trace::{self, TraceOutcome};
//! assert_eq!(trace::RUN, "agui.run");
//! assert_eq!(TraceOutcome::of(None), TraceOutcome::Incomplete);
//! assert_eq!(TraceOutcome::of(Some(&ag_ui::Event::run_error("boom"))).as_str(), "error");
//! assert_eq!(TraceOutcome::of(Some(&ag_ui::Event::run_finished("t", "r"))).to_string(), "success");
//! ```

#[cfg(any(feature = "axum", all(feature = "client", feature = "sse")))]
use crate::RunAgentInput;
use crate::{Event, RunFinishedOutcome};
#[cfg(any(feature = "axum", all(feature = "client", feature = "sse")))]
use tracing::{Span, field::Empty};

/// The span name of a run.
pub const RUN: &str = "agui.run";
/// The thread id attribute.
pub const THREAD_ID: &str = "agui.thread_id";
/// The run id attribute.
pub const RUN_ID: &str = "agui.run_id";
/// The parent run id attribute.
pub const PARENT_RUN_ID: &str = "agui.parent_run_id";
/// How the run ended (a [`TraceOutcome`]).
pub const OUTCOME: &str = "agui.run.outcome";
/// How many events the run had.
pub const EVENTS: &str = "agui.events.count";
/// How many bytes its events took on the wire.
pub const BYTES: &str = "agui.bytes";
/// Which side traced the run: `server` or `client`.
pub const SIDE: &str = "agui.side";
/// The name of the span event recorded for each event.
pub const EVENT: &str = "agui.event";
/// The span target.
pub const TARGET: &str = "ag_ui::trace";

/// How a run ended, as its span's [`OUTCOME`] attribute (`agui.run.outcome`) says it:
/// [`as_str`](Self::as_str) (and `Display`) give the attribute's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TraceOutcome {
    /// `success`: the run ended with `RUN_FINISHED` (outcome success, or none).
    Success,
    /// `interrupt`: the run ended with `RUN_FINISHED` whose outcome is an interrupt.
    Interrupt,
    /// `error`: the run ended with `RUN_ERROR`.
    Error,
    /// `incomplete`: the stream ended without a terminal event.
    Incomplete,
    /// `cancelled`: the run was ended by the other side (the client left, the caller
    /// cancelled) before its stream ended.
    Cancelled,
    /// `stopped`: a client subscriber stopped the run.
    Stopped,
    /// The client's run failed: the attribute is the error's kind
    /// ([`RunErrorKind::as_str`](crate::client::RunErrorKind::as_str), `transport.http`,
    /// `run.verify`, …).
    #[cfg(all(feature = "client", feature = "sse"))]
    #[cfg_attr(docsrs, doc(cfg(all(feature = "client", feature = "sse"))))]
    Failed(crate::client::RunErrorKind),
}

impl TraceOutcome {
    /// The outcome of a run whose last terminal event is `last`: [`Success`](Self::Success),
    /// [`Interrupt`](Self::Interrupt) (a `RUN_FINISHED` with those outcomes),
    /// [`Error`](Self::Error) (`RUN_ERROR`), or [`Incomplete`](Self::Incomplete) (no terminal
    /// event). The other outcomes are known only to the caller.
    pub fn of(last: Option<&Event>) -> Self {
        match last {
            Some(Event::RunFinished(e)) => match &e.outcome {
                Some(RunFinishedOutcome::Interrupt { .. }) => TraceOutcome::Interrupt,
                _ => TraceOutcome::Success,
            },
            Some(Event::RunError(_)) => TraceOutcome::Error,
            _ => TraceOutcome::Incomplete,
        }
    }

    /// The value of the `agui.run.outcome` attribute.
    pub fn as_str(self) -> &'static str {
        match self {
            TraceOutcome::Success => "success",
            TraceOutcome::Interrupt => "interrupt",
            TraceOutcome::Error => "error",
            TraceOutcome::Incomplete => "incomplete",
            TraceOutcome::Cancelled => "cancelled",
            TraceOutcome::Stopped => "stopped",
            #[cfg(all(feature = "client", feature = "sse"))]
            TraceOutcome::Failed(kind) => kind.as_str(),
        }
    }
}

impl std::fmt::Display for TraceOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What one run's span is told, as the run goes.
#[cfg(any(feature = "axum", all(feature = "client", feature = "sse")))]
#[derive(Debug)]
pub(crate) struct RunTrace {
    span: Span,
    events: u64,
    bytes: u64,
    /// The outcome the stream told so far (`None`: no terminal event yet).
    outcome: Option<TraceOutcome>,
    /// Whether the outcome is fixed by the caller (cancelled, stopped).
    fixed: bool,
}

#[cfg(any(feature = "axum", all(feature = "client", feature = "sse")))]
impl RunTrace {
    /// A span for a run of `input`, on `side` (`"server"` or `"client"`).
    pub(crate) fn new(input: &RunAgentInput, side: &'static str) -> Self {
        let span = tracing::info_span!(
            target: "ag_ui::trace",
            "agui.run",
            agui.thread_id = %input.thread_id,
            agui.run_id = %input.run_id,
            agui.parent_run_id = Empty,
            agui.side = side,
            agui.run.outcome = Empty,
            agui.events.count = Empty,
            agui.bytes = Empty,
            trace_id = Empty,
            otel.kind = if side == "server" { "server" } else { "client" },
        );
        if let Some(parent) = &input.parent_run_id
            && !span.is_disabled()
        {
            span.record(PARENT_RUN_ID, tracing::field::display(parent));
        }
        Self {
            span,
            events: 0,
            bytes: 0,
            outcome: None,
            fixed: false,
        }
    }

    /// A trace that records nothing.
    #[cfg_attr(not(feature = "axum"), allow(dead_code))]
    pub(crate) fn disabled() -> Self {
        Self {
            span: Span::none(),
            events: 0,
            bytes: 0,
            outcome: None,
            fixed: false,
        }
    }

    #[cfg_attr(not(all(feature = "client", feature = "sse")), allow(dead_code))]
    /// The run's span.
    pub(crate) fn span(&self) -> &Span {
        &self.span
    }

    /// Counts one event that took `bytes` on the wire (0 when unknown), and records it as a
    /// debug span event.
    #[inline]
    pub(crate) fn on_event(&mut self, event: &Event, bytes: usize) {
        let index = self.events;
        self.events += 1;
        self.bytes += bytes as u64;
        if !self.fixed {
            match event {
                Event::RunFinished(_) | Event::RunError(_) => {
                    self.outcome = Some(TraceOutcome::of(Some(event)));
                }
                Event::RunStarted(_) => self.outcome = None,
                _ => {}
            }
        }
        if tracing::enabled!(target: "ag_ui::trace", tracing::Level::DEBUG)
            && !self.span.is_disabled()
        {
            tracing::event!(
                target: "ag_ui::trace",
                parent: &self.span,
                tracing::Level::DEBUG,
                { agui.event.r#type = event.event_type().as_str(), agui.event.index = index },
                "agui.event"
            );
        }
    }

    /// Counts bytes that came in pieces not matched to events (the client's response body).
    pub(crate) fn add_bytes(&mut self, bytes: usize) {
        self.bytes += bytes as u64;
    }

    #[cfg_attr(not(all(feature = "client", feature = "sse")), allow(dead_code))]
    /// Fixes the outcome, whatever the stream said (cancelled, stopped, or an error).
    pub(crate) fn set_outcome(&mut self, outcome: TraceOutcome) {
        self.outcome = Some(outcome);
        self.fixed = true;
    }

    /// The stream ended: a run that told no terminal event is `incomplete`.
    #[cfg_attr(not(feature = "axum"), allow(dead_code))]
    pub(crate) fn set_outcome_from_end(&mut self) {
        if self.outcome.is_none() {
            self.outcome = Some(TraceOutcome::Incomplete);
        }
    }

    /// Records the trace id the run belongs to.
    #[cfg_attr(not(feature = "axum"), allow(dead_code))]
    pub(crate) fn record_trace_id(&self, trace_id: &str) {
        self.span.record("trace_id", trace_id);
    }
}

/// What a request says about the trace it belongs to: its `traceparent` header.
#[cfg(feature = "axum")]
#[derive(Debug)]
pub(crate) struct RemoteParent {
    trace_id: Option<String>,
    #[cfg(feature = "otel")]
    context: opentelemetry::Context,
}

#[cfg(feature = "axum")]
impl RemoteParent {
    /// Reads the W3C trace context of a request.
    pub(crate) fn from_headers(headers: &axum::http::HeaderMap) -> Self {
        let trace_id = headers
            .get("traceparent")
            .and_then(|v| v.to_str().ok())
            .and_then(traceparent_trace_id)
            .map(str::to_owned);
        Self {
            trace_id,
            #[cfg(feature = "otel")]
            context: otel::extract(headers),
        }
    }

    /// The server's span of a run of `input`, child of this parent.
    pub(crate) fn server_trace(self, input: &RunAgentInput) -> RunTrace {
        let trace = RunTrace::new(input, "server");
        #[cfg(feature = "otel")]
        {
            use tracing_opentelemetry::OpenTelemetrySpanExt as _;
            let _ = trace.span().set_parent(self.context);
        }
        if let Some(id) = &self.trace_id {
            trace.record_trace_id(id);
        }
        trace
    }
}

#[cfg(any(feature = "axum", all(feature = "client", feature = "sse")))]
impl Drop for RunTrace {
    fn drop(&mut self) {
        if self.span.is_disabled() {
            return;
        }
        // As i64: OpenTelemetry's integer attribute (a u64 would be exported as a string).
        let int = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        self.span
            .record(
                OUTCOME,
                self.outcome.unwrap_or(TraceOutcome::Cancelled).as_str(),
            )
            .record(EVENTS, int(self.events))
            .record(BYTES, int(self.bytes));
    }
}

/// The trace id of a W3C `traceparent` header value (`00-<32 hex>-<16 hex>-<2 hex>`), when it
/// is well formed and not all zeros.
///
/// ```
/// use ag_ui::trace::traceparent_trace_id;
/// let header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
/// assert_eq!(traceparent_trace_id(header), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
/// assert_eq!(traceparent_trace_id("00-00000000000000000000000000000000-00f067aa0ba902b7-01"), None);
/// assert_eq!(traceparent_trace_id("garbage"), None);
/// ```
pub fn traceparent_trace_id(header: &str) -> Option<&str> {
    let mut parts = header.trim().split('-');
    let (version, trace, parent, flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let hex = |s: &str, len: usize| {
        s.len() == len && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    };
    let ok = hex(version, 2)
        && version != "ff"
        && hex(trace, 32)
        && hex(parent, 16)
        && hex(flags, 2)
        && trace.bytes().any(|b| b != b'0')
        && parent.bytes().any(|b| b != b'0')
        && (version != "00" || parts.next().is_none());
    ok.then_some(trace)
}

/// The current time in milliseconds since the Unix epoch, as event timestamps carry it.
#[cfg(feature = "axum")]
pub(crate) fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(any(feature = "axum", all(feature = "client", feature = "sse")))]
    fn outcomes() {
        use crate::Interrupt;

        let interrupted = Event::from(crate::RunFinishedEvent::new("t", "r").with_outcome(
            RunFinishedOutcome::Interrupt {
                interrupts: vec![Interrupt::new("i1", "approve")],
            },
        ));
        assert_eq!(
            TraceOutcome::of(Some(&interrupted)),
            TraceOutcome::Interrupt
        );
        let mut trace = RunTrace::disabled();
        trace.on_event(&Event::run_started("t", "r"), 10);
        trace.on_event(&Event::run_error("x"), 5);
        assert_eq!((trace.events, trace.bytes), (2, 15));
        assert_eq!(trace.outcome, Some(TraceOutcome::Error));
        trace.set_outcome(TraceOutcome::Stopped);
        trace.on_event(&Event::run_finished("t", "r"), 0);
        assert_eq!(trace.outcome, Some(TraceOutcome::Stopped));
    }

    /// The attribute's values are the strings exported before the enum (dashboards and the
    /// CLI's `serve --trace` output read them).
    #[test]
    fn outcomes_render_as_the_attribute_values() {
        let table = [
            (TraceOutcome::Success, "success"),
            (TraceOutcome::Interrupt, "interrupt"),
            (TraceOutcome::Error, "error"),
            (TraceOutcome::Incomplete, "incomplete"),
            (TraceOutcome::Cancelled, "cancelled"),
            (TraceOutcome::Stopped, "stopped"),
        ];
        for (outcome, value) in table {
            assert_eq!(outcome.as_str(), value);
            assert_eq!(outcome.to_string(), value);
        }
        assert_eq!(TraceOutcome::of(None), TraceOutcome::Incomplete);
        assert_eq!(
            TraceOutcome::of(Some(&Event::run_error("x"))),
            TraceOutcome::Error
        );
        assert_eq!(
            TraceOutcome::of(Some(&Event::run_finished("t", "r"))),
            TraceOutcome::Success
        );
        #[cfg(all(feature = "client", feature = "sse"))]
        {
            use crate::client::{PipelineErrorKind, RunErrorKind, TransportErrorKind};
            let failed = |kind| TraceOutcome::Failed(kind).to_string();
            assert_eq!(
                failed(RunErrorKind::Transport(TransportErrorKind::Http)),
                "transport.http"
            );
            assert_eq!(
                failed(RunErrorKind::Pipeline(PipelineErrorKind::Verify)),
                "run.verify"
            );
            assert_eq!(
                failed(RunErrorKind::UnansweredInterrupt),
                "run.unanswered-interrupt"
            );
        }
    }

    #[test]
    fn traceparent_checks_every_part() {
        let good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        assert!(traceparent_trace_id(good).is_some());
        assert!(traceparent_trace_id(&good.to_uppercase()).is_none());
        assert!(traceparent_trace_id(&format!("{good}-extra")).is_none());
        assert!(
            traceparent_trace_id("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                .is_none()
        );
        assert!(
            traceparent_trace_id("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01")
                .is_none()
        );
    }
}

/// W3C trace context over HTTP (feature `otel`): `HttpAgent` sends the `traceparent` of its run
/// span, and the axum endpoint makes its run span a child of the one it receives, so that
/// `tracing-opentelemetry` exports both spans in one trace.
///
/// Headers are written and read by the propagator set with
/// `opentelemetry::global::set_text_map_propagator` (for W3C `traceparent`, opentelemetry_sdk's
/// `TraceContextPropagator`); OpenTelemetry's default propagator writes nothing.
#[cfg(feature = "otel")]
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
pub mod otel {
    /// Writes propagation fields into an HTTP header map.
    #[cfg(feature = "http")]
    struct Injector<'a>(&'a mut reqwest::header::HeaderMap);

    #[cfg(feature = "http")]
    impl opentelemetry::propagation::Injector for Injector<'_> {
        fn set(&mut self, key: &str, value: String) {
            if let (Ok(name), Ok(value)) = (
                reqwest::header::HeaderName::from_bytes(key.as_bytes()),
                reqwest::header::HeaderValue::from_str(&value),
            ) {
                self.0.insert(name, value);
            }
        }
    }

    /// The propagation headers (e.g. `traceparent`) of the current span's OpenTelemetry
    /// context, as the global propagator writes them.
    #[cfg(feature = "http")]
    pub(crate) fn current_headers() -> reqwest::header::HeaderMap {
        use tracing_opentelemetry::OpenTelemetrySpanExt as _;
        let mut headers = reqwest::header::HeaderMap::new();
        let context = tracing::Span::current().context();
        opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.inject_context(&context, &mut Injector(&mut headers));
        });
        headers
    }

    /// Reads propagation fields from an HTTP header map.
    #[cfg(feature = "axum")]
    struct Extractor<'a>(&'a axum::http::HeaderMap);

    #[cfg(feature = "axum")]
    impl opentelemetry::propagation::Extractor for Extractor<'_> {
        fn get(&self, key: &str) -> Option<&str> {
            self.0.get(key).and_then(|v| v.to_str().ok())
        }

        fn keys(&self) -> Vec<&str> {
            self.0.keys().map(|k| k.as_str()).collect()
        }
    }

    /// The OpenTelemetry context a request's headers carry, as the global propagator reads
    /// them (an empty context when they carry none).
    #[cfg(feature = "axum")]
    pub(crate) fn extract(headers: &axum::http::HeaderMap) -> opentelemetry::Context {
        opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.extract(&Extractor(headers))
        })
    }
}
