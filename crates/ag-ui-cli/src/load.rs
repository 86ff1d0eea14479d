//! `ag-ui load URL`: many concurrent runs against one AG-UI endpoint, each read through the
//! SDK's client pipeline, with latency, pace and (for a local server) memory and CPU figures.
//!
//! Each run is one [`Conversation`] turn through [`HttpAgent`] on a connection of its own (the
//! client keeps no idle connection, so no run reuses another's), so each stream is decoded,
//! chunk-normalized, verified and applied as `ag-ui run` does; what this module adds is a
//! stopwatch around it ([`Timed`], [`Recorder`]). Runs start evenly over `--ramp`; each is
//! bounded by `--timeout` (connecting, the response, the whole stream). No request leaves the
//! URL: redirects are not followed ([`HttpAgent::with_redirects`]), a redirect is a failed
//! run naming its target. At most `--runs` connections are ever open, and the process needs
//! one file descriptor per run: a `--runs` over the soft `ulimit -n` is refused up front.
//!
//! With `--pid` (a server on this machine: the URL's host must be a loopback address), the
//! server's resident memory is read from `/proc/PID/status` before the first run (the idle
//! process) and sampled every 20 ms while runs are open; the report gives the peak and the
//! memory per run above the idle process (peak − idle, over the most runs open at once), and
//! the CPU time the server spent (`utime + stime` of `/proc/PID/stat`, in Linux's fixed 100
//! ticks per second) per 1,000 runs.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use ag_ui::client::{
    Body, CancelToken, Conversation, Flow, HttpAgent, Piece, ReconnectPolicy, Reducer, Subscriber,
    Transport, TransportError,
};
use ag_ui::{Event, RunAgentInput};
use serde_json::{Value, json};

use crate::failure::Failure;
use crate::failure::chain;
use crate::ids::unique;

/// How many different failure reasons the report quotes (each with how many runs it ended).
const REASONS: usize = 5;

/// How often the server's memory is sampled while runs are open.
const SAMPLE_EVERY: Duration = Duration::from_millis(20);

/// File descriptors the process needs beside one per run (standard streams, the runtime).
const SPARE_FDS: u64 = 32;

/// Linux's `USER_HZ`: the unit of `utime` and `stime` in `/proc/PID/stat`, 100 on every
/// architecture the kernel supports.
const TICKS_PER_SECOND: f64 = 100.0;

/// What `load` does.
#[derive(Debug)]
pub(crate) struct LoadOptions {
    /// The endpoint (POST), checked by [`check_url`].
    pub(crate) url: String,
    /// How many runs, each on its own connection.
    pub(crate) runs: usize,
    /// The runs start evenly over this time (all at once when zero).
    pub(crate) ramp: Duration,
    /// The user message of every run.
    pub(crate) message: String,
    /// The bound on each run, from its start to its last byte.
    pub(crate) timeout: Duration,
    /// Print one JSON object instead of the text report.
    pub(crate) json: bool,
    /// The server's process, on this machine.
    pub(crate) pid: Option<u32>,
}

/// Checks the endpoint of `load`: an http(s) URL; with `--pid`, one on a loopback host
/// (127.0.0.1, localhost, ::1), since the process must be this machine's.
///
/// # Errors
/// What is wrong with the URL, as a usage message.
pub(crate) fn check_url(url: &str, pid: Option<u32>) -> Result<String, String> {
    let checked = crate::flags::parse_url(url)?;
    let parsed = reqwest::Url::parse(&checked).map_err(|e| format!("{url:?}: {e}"))?;
    let host = parsed.host_str().unwrap_or_default();
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    if pid.is_some() && !loopback {
        return Err(format!(
            "--pid reads a process of this machine: the URL's host must be 127.0.0.1, \
             localhost or ::1, not {host:?}"
        ));
    }
    Ok(checked)
}

/// Parses `--ramp SECS`: zero or a positive number of seconds.
///
/// # Errors
/// A message naming the value.
pub(crate) fn parse_ramp(arg: &str) -> Result<Duration, String> {
    arg.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| *s >= 0.0)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("--ramp {arg:?} is not a number of seconds"))
}

/// When a run's response began, noted by its transport.
#[derive(Debug)]
struct Clock {
    started: Instant,
    first_byte: OnceLock<Instant>,
}

/// [`HttpAgent`], noting when the response's first byte came.
struct Timed<'a> {
    agent: &'a HttpAgent,
    clock: &'a Clock,
}

/// The body of a [`Timed`] run.
struct TimedBody<'a> {
    inner: <HttpAgent as Transport>::Body,
    clock: &'a Clock,
}

impl Body for TimedBody<'_> {
    async fn next(&mut self) -> Result<Option<Piece>, TransportError> {
        let piece = self.inner.next().await;
        if let Ok(Some(_)) = &piece {
            let _ = self.clock.first_byte.set(Instant::now());
        }
        piece
    }

    fn format(&self) -> ag_ui::encoding::Format {
        self.inner.format()
    }

    fn set_max_event_size(&mut self, bytes: usize) {
        self.inner.set_max_event_size(bytes);
    }
}

impl<'a> Transport for Timed<'a> {
    type Body = TimedBody<'a>;

    async fn open(&self, input: &RunAgentInput) -> Result<TimedBody<'a>, TransportError> {
        let inner = self.agent.open(input).await?;
        Ok(TimedBody {
            inner,
            clock: self.clock,
        })
    }
}

/// Latencies in microseconds, from 1 µs to an hour (longer ones count as an hour), to three
/// significant digits: a fixed footprint (about 200 KB) whatever the number of values, where a
/// list grew by 8 bytes per event.
#[derive(Debug)]
struct Latencies(hdrhistogram::Histogram<u64>);

impl Latencies {
    /// An hour, in microseconds.
    const HIGHEST: u64 = 3_600_000_000;

    fn new() -> Self {
        Self(
            hdrhistogram::Histogram::new_with_bounds(1, Self::HIGHEST, 3)
                .expect("the bounds are valid"),
        )
    }

    fn record(&mut self, micros: u64) {
        self.0.saturating_record(micros.clamp(1, Self::HIGHEST));
    }

    /// `p50`, `p99` and the largest value, in milliseconds (each to three significant
    /// digits); `None` when there are none.
    fn spread(&self) -> Option<[f64; 3]> {
        if self.0.is_empty() {
            return None;
        }
        let at = |q: f64| self.0.value_at_quantile(q) as f64 / 1000.0;
        Some([at(0.50), at(0.99), at(1.0)])
    }
}

/// The events of one run, as they passed the pipeline: when the first came; the gap before
/// each later one goes into the histogram all runs share.
#[derive(Debug)]
struct Recorder {
    first: Option<Instant>,
    last: Option<Instant>,
    gaps: Arc<std::sync::Mutex<Latencies>>,
    events: u64,
}

impl Subscriber for Recorder {
    fn on_event(&mut self, _: &Event, _: &Reducer) -> Flow {
        let now = Instant::now();
        if let Some(last) = self.last
            && let Ok(mut gaps) = self.gaps.lock()
        {
            gaps.record(micros(now - last));
        }
        self.first.get_or_insert(now);
        self.last = Some(now);
        self.events += 1;
        Flow::Continue
    }
}

/// What one run measured.
#[derive(Debug, Default)]
struct Record {
    /// Microseconds from the start of the run to the first byte of the response's body.
    first_byte: Option<u64>,
    /// Microseconds from the start of the run to its first event out of the pipeline.
    first_event: Option<u64>,
    events: u64,
    error: Option<String>,
}

fn micros(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX)
}

/// One run: a conversation turn through the pipeline, within `timeout`.
async fn one_run(
    agent: &HttpAgent,
    message: &str,
    timeout: Duration,
    gaps: Arc<std::sync::Mutex<Latencies>>,
) -> Record {
    let clock = Clock {
        started: Instant::now(),
        first_byte: OnceLock::new(),
    };
    let mut conversation = Conversation::new(unique("thread"));
    conversation.add_user_message(message);
    let mut recorder = Recorder {
        first: None,
        last: None,
        gaps,
        events: 0,
    };
    let transport = Timed {
        agent,
        clock: &clock,
    };
    let cancel = CancelToken::new();
    let result = tokio::time::timeout(
        timeout,
        conversation.run_with(&transport, None, &cancel, &mut recorder),
    )
    .await;
    let error = match result {
        Err(_) => Some(format!("the run took longer than {timeout:?} (--timeout)")),
        Ok(Err(error)) => Some(chain(&error)),
        Ok(Ok(_)) => None,
    };
    let since_start = |at: Instant| micros(at - clock.started);
    Record {
        first_byte: clock.first_byte.get().copied().map(since_start),
        first_event: recorder.first.map(since_start),
        events: recorder.events,
        error,
    }
}

/// A figure of `/proc/PID/status`, in KiB (`VmRSS`, `VmHWM`).
fn status_kib(pid: &str, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The CPU seconds a process has used (user + system), from `/proc/PID/stat`.
fn cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command name (which may hold spaces and parentheses): state is field 3, utime
    // field 14, stime field 15.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<u64>().ok();
    Some((ticks(11)? + ticks(12)?) as f64 / TICKS_PER_SECOND)
}

/// The soft limit on open files of this process (`ulimit -n`), when known.
fn open_file_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The server's figures around the load.
#[derive(Debug)]
struct Server {
    pid: String,
    idle_kib: u64,
    cpu_before: f64,
    /// The largest resident size sampled while runs were open.
    peak_kib: Arc<std::sync::atomic::AtomicU64>,
}

impl Server {
    fn open(pid: u32) -> Result<Self, Failure> {
        let pid = pid.to_string();
        let (Some(idle_kib), Some(cpu_before)) = (status_kib(&pid, "VmRSS"), cpu_seconds(&pid))
        else {
            return Err(Failure::Usage(format!(
                "--pid {pid}: no such process readable in /proc on this machine"
            )));
        };
        Ok(Self {
            pid,
            idle_kib,
            cpu_before,
            peak_kib: Arc::new(std::sync::atomic::AtomicU64::new(idle_kib)),
        })
    }

    /// Samples the resident size until `done` is set.
    fn sample(&self, done: Arc<std::sync::atomic::AtomicBool>) -> tokio::task::JoinHandle<()> {
        let (pid, peak) = (self.pid.clone(), Arc::clone(&self.peak_kib));
        tokio::spawn(async move {
            let mut every = tokio::time::interval(SAMPLE_EVERY);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                every.tick().await;
                if let Some(rss) = status_kib(&pid, "VmRSS") {
                    peak.fetch_max(rss, Ordering::Relaxed);
                }
                if done.load(Ordering::Relaxed) {
                    break;
                }
            }
        })
    }

    fn report(&self, runs: usize, most_open: usize) -> Value {
        let peak = self.peak_kib.load(Ordering::Relaxed);
        let cpu = cpu_seconds(&self.pid).map(|after| after - self.cpu_before);
        let per_run = (most_open > 0)
            .then(|| peak.saturating_sub(self.idle_kib) as f64 * 1024.0 / most_open as f64);
        json!({
            "pid": self.pid.parse::<u64>().unwrap_or_default(),
            "idle_rss_kib": self.idle_kib,
            "peak_rss_kib": peak,
            "hwm_kib": status_kib(&self.pid, "VmHWM"),
            "bytes_per_run": per_run.map(f64::round),
            "cpu_seconds": cpu,
            "cpu_seconds_per_1000_runs": cpu.map(|c| c * 1000.0 / runs as f64),
        })
    }
}

/// Counts the runs open at once, and the most there were.
#[derive(Debug, Default)]
struct Open {
    now: AtomicUsize,
    most: AtomicUsize,
}

impl Open {
    fn enter(&self) {
        let now = self.now.fetch_add(1, Ordering::Relaxed) + 1;
        self.most.fetch_max(now, Ordering::Relaxed);
    }

    fn leave(&self) {
        self.now.fetch_sub(1, Ordering::Relaxed);
    }
}

/// `ag-ui load`: runs the load and prints the report (text, or one JSON object).
///
/// # Errors
/// A usage error (exit 2) before any run when the file-descriptor limit or `--pid` do not
/// allow it; [`Failure::Remote`] (exit 1), after the report, when any run failed.
pub(crate) async fn load(options: LoadOptions) -> Result<(), Failure> {
    if let Some(limit) = open_file_limit()
        && options.runs as u64 + SPARE_FDS > limit
    {
        return Err(Failure::Usage(format!(
            "--runs {} needs about {} open files and the limit is {limit}: raise it first \
             (ulimit -n {})",
            options.runs,
            options.runs as u64 + SPARE_FDS,
            options.runs as u64 + SPARE_FDS
        )));
    }
    let server = options.pid.map(Server::open).transpose()?;
    let client = reqwest::Client::builder()
        .connect_timeout(options.timeout.min(ag_ui::DEFAULT_CONNECT_TIMEOUT))
        .redirect(reqwest::redirect::Policy::none())
        // One connection per run: none is kept for another.
        .pool_max_idle_per_host(0)
        .referer(false)
        .build()
        .map_err(|e| Failure::Usage(format!("cannot build the HTTP client: {e}")))?;
    let agent = Arc::new(
        HttpAgent::new(options.url.as_str())
            .with_client(client)
            .with_redirects(false)
            .with_reconnect(ReconnectPolicy::never())
            .with_idle_timeout(options.timeout)
            .with_timeout(options.timeout),
    );
    let message: Arc<str> = options.message.as_str().into();
    let open = Arc::new(Open::default());
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = server.as_ref().map(|s| s.sample(Arc::clone(&done)));
    let client_cpu = cpu_seconds("self");

    let started = Instant::now();
    let start = tokio::time::Instant::from_std(started);
    let mut tasks = tokio::task::JoinSet::new();
    let mut records = Vec::with_capacity(options.runs);
    let gaps = Arc::new(std::sync::Mutex::new(Latencies::new()));
    for i in 0..options.runs {
        let offset = options.ramp.mul_f64(i as f64 / options.runs as f64);
        tokio::time::sleep_until(start + offset).await;
        let (agent, message, open) = (Arc::clone(&agent), Arc::clone(&message), Arc::clone(&open));
        let (timeout, gaps) = (options.timeout, Arc::clone(&gaps));
        tasks.spawn(async move {
            open.enter();
            let record = one_run(&agent, &message, timeout, gaps).await;
            open.leave();
            record
        });
        while let Some(done) = tasks.try_join_next() {
            records.push(joined(done));
        }
    }
    while let Some(done) = tasks.join_next().await {
        records.push(joined(done));
    }
    let elapsed = started.elapsed();
    done.store(true, Ordering::Relaxed);
    if let Some(sampler) = sampler {
        let _ = sampler.await;
    }
    let client_cpu = client_cpu.zip(cpu_seconds("self")).map(|(a, b)| b - a);

    let gaps = gaps.lock().map(|g| g.spread()).unwrap_or_default();
    let report = Report::new(
        &options,
        records,
        gaps,
        elapsed,
        open.most.load(Ordering::Relaxed),
    );
    let mut value = report.to_json(&options);
    value["client_cpu_seconds"] = json!(client_cpu);
    value["server"] = server.map_or(Value::Null, |s| s.report(options.runs, report.most_open));
    let text = if options.json {
        value.to_string()
    } else {
        render(&value)
    };
    crate::print_line(&text)?;
    if report.failed > 0 {
        return Err(Failure::Remote(format!(
            "{} of {} runs failed",
            report.failed, options.runs
        )));
    }
    Ok(())
}

/// A run's record, or a failed one when its task panicked.
fn joined(result: Result<Record, tokio::task::JoinError>) -> Record {
    result.unwrap_or_else(|e| Record {
        error: Some(format!("the run's task stopped: {e}")),
        ..Record::default()
    })
}

/// The figures of all the runs.
#[derive(Debug)]
struct Report {
    completed: usize,
    failed: usize,
    reasons: Vec<String>,
    first_byte: Option<[f64; 3]>,
    first_event: Option<[f64; 3]>,
    gaps: Option<[f64; 3]>,
    events: u64,
    elapsed: Duration,
    most_open: usize,
}

impl Report {
    fn new(
        options: &LoadOptions,
        records: Vec<Record>,
        gaps: Option<[f64; 3]>,
        elapsed: Duration,
        most_open: usize,
    ) -> Self {
        let (mut first_byte, mut first_event) = (Latencies::new(), Latencies::new());
        let (mut failed, mut events, mut reasons) = (0, 0, Vec::new());
        for record in records {
            if let Some(micros) = record.first_byte {
                first_byte.record(micros);
            }
            if let Some(micros) = record.first_event {
                first_event.record(micros);
            }
            events += record.events;
            if let Some(error) = record.error {
                failed += 1;
                let error = ag_ui::excerpt(&error, 300).into_owned();
                if let Some((_, count)) = reasons.iter_mut().find(|(reason, _)| *reason == error) {
                    *count += 1;
                } else if reasons.len() < REASONS {
                    reasons.push((error, 1));
                }
            }
        }
        let reasons = reasons
            .into_iter()
            .map(|(reason, count)| format!("{count} × {reason}"))
            .collect();
        Self {
            completed: options.runs - failed,
            failed,
            reasons,
            first_byte: first_byte.spread(),
            first_event: first_event.spread(),
            gaps,
            events,
            elapsed,
            most_open,
        }
    }

    fn to_json(&self, options: &LoadOptions) -> Value {
        let spread = |s: Option<[f64; 3]>| {
            s.map_or(
                Value::Null,
                |[p50, p99, max]| json!({ "p50": p50, "p99": p99, "max": max }),
            )
        };
        let seconds = self.elapsed.as_secs_f64();
        json!({
            "url": options.url,
            "runs": options.runs,
            "completed": self.completed,
            "failed": self.failed,
            "reasons": self.reasons,
            "ramp_seconds": options.ramp.as_secs_f64(),
            "seconds": seconds,
            "most_open": self.most_open,
            "first_byte_ms": spread(self.first_byte),
            "first_event_ms": spread(self.first_event),
            "events": self.events,
            "events_per_second": if seconds > 0.0 { self.events as f64 / seconds } else { 0.0 },
            "gap_ms": spread(self.gaps),
        })
    }
}

/// The text report, from the JSON one (one source for both).
fn render(value: &Value) -> String {
    let ms = |v: &Value| {
        if v.is_null() {
            "none".to_owned()
        } else {
            format!(
                "p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
                v["p50"].as_f64().unwrap_or_default(),
                v["p99"].as_f64().unwrap_or_default(),
                v["max"].as_f64().unwrap_or_default()
            )
        }
    };
    let mut out = format!(
        "{}: {} runs, {} completed, {} failed in {:.2} s (ramp {} s, at most {} open at once)\n\
         time to first byte:  {}\n\
         time to first event: {}\n\
         events: {} ({:.0} per second)\n\
         gap between events:  {}\n\
         load generator CPU: {}",
        value["url"].as_str().unwrap_or_default(),
        value["runs"],
        value["completed"],
        value["failed"],
        value["seconds"].as_f64().unwrap_or_default(),
        value["ramp_seconds"],
        value["most_open"],
        ms(&value["first_byte_ms"]),
        ms(&value["first_event_ms"]),
        value["events"],
        value["events_per_second"].as_f64().unwrap_or_default(),
        ms(&value["gap_ms"]),
        value["client_cpu_seconds"]
            .as_f64()
            .map_or("unknown".to_owned(), |c| format!("{c:.2} s")),
    );
    let server = &value["server"];
    if !server.is_null() {
        let kib = |v: &Value| {
            v.as_f64()
                .map_or("?".to_owned(), |k| format!("{:.1} MB", k / 1024.0))
        };
        out.push_str(&format!(
            "\nserver (pid {}): idle {}, peak {}; {} per run above idle; CPU {}, {} per 1,000 runs",
            server["pid"],
            kib(&server["idle_rss_kib"]),
            kib(&server["peak_rss_kib"]),
            server["bytes_per_run"]
                .as_f64()
                .map_or("?".to_owned(), |b| format!("{:.1} KB", b / 1000.0)),
            server["cpu_seconds"]
                .as_f64()
                .map_or("?".to_owned(), |c| format!("{c:.2} s")),
            server["cpu_seconds_per_1000_runs"]
                .as_f64()
                .map_or("?".to_owned(), |c| format!("{c:.3} s")),
        ));
    }
    if let Some(reasons) = value["reasons"].as_array()
        && !reasons.is_empty()
    {
        out.push_str("\nfirst failures:");
        for reason in reasons {
            out.push_str("\n  ");
            out.push_str(&crate::terminal::visible(
                reason.as_str().unwrap_or_default(),
                false,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_are_ranks_in_milliseconds_in_a_fixed_footprint() {
        let mut latencies = Latencies::new();
        assert_eq!(latencies.spread(), None);
        for v in 1..=100 {
            latencies.record(v * 1000);
        }
        // Within the three significant digits kept.
        let close = |got: Option<[f64; 3]>, want: [f64; 3]| {
            let got = got.unwrap();
            assert!(
                got.iter()
                    .zip(want)
                    .all(|(g, w)| (g - w).abs() <= w * 0.001),
                "{got:?} against {want:?}"
            );
        };
        close(latencies.spread(), [50.0, 99.0, 100.0]);
        let mut one = Latencies::new();
        one.record(7000);
        close(one.spread(), [7.0, 7.0, 7.0]);
        // A million more values, and a day, take no more room than the first hundred.
        let room = latencies.0.distinct_values();
        for v in 0..1_000_000 {
            latencies.record(v % 5_000);
        }
        latencies.record(86_400_000_000);
        assert_eq!(latencies.0.distinct_values(), room);
        assert_eq!(latencies.0.len(), 1_000_101);
        close(latencies.spread(), [2.5, 4.95, 3_600_000.0]);
    }

    #[test]
    fn pid_needs_a_loopback_host() {
        for url in [
            "http://127.0.0.1:1/",
            "http://localhost:1/a",
            "http://[::1]:1/",
        ] {
            assert!(check_url(url, Some(1)).is_ok(), "{url}");
        }
        let error = check_url("http://example.com/", Some(1)).unwrap_err();
        assert!(error.contains("\"example.com\""), "{error}");
        assert!(check_url("http://example.com/", None).is_ok());
        assert!(check_url("ftp://127.0.0.1/", None).is_err());
    }

    #[test]
    fn ramp_takes_zero_but_not_negatives() {
        assert_eq!(parse_ramp("0"), Ok(Duration::ZERO));
        assert_eq!(parse_ramp("2.5"), Ok(Duration::from_millis(2500)));
        assert!(parse_ramp("-1").is_err());
        assert!(parse_ramp("x").is_err());
    }

    #[test]
    fn this_process_has_a_cpu_time_and_a_resident_size() {
        assert!(cpu_seconds("self").is_some());
        assert!(status_kib("self", "VmRSS").is_some_and(|k| k > 0));
        assert!(open_file_limit().is_some_and(|n| n > 0));
    }
}
