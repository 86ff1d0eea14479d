//! `ag-ui conformance`: checks any AG-UI server (`conformance server URL`) or client
//! (`conformance client`, a battery of scenario streams with what a correct client ends with)
//! against the protocol.
//!
//! - `server/`: the probes, one file per group (`core`, `transport`, `dojo`, `resume`) on one
//!   bounded HTTP helper and one stream checker (`server/probe.rs`, `server/stream.rs`);
//! - `client/`: the scenarios in the conformance corpus's format (`kit.rs`: the official set
//!   and this project's, from `crates/ag-ui-conformance`) and the server that plays and judges
//!   them (`serve.rs`);
//! - `report.rs`: the verdicts as a terminal table, JSON or JUnit XML.

mod client;
mod report;
mod server;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand, ValueEnum};

/// What `ag-ui conformance` checks.
#[derive(Debug, Subcommand)]
pub(crate) enum Target {
    /// Probe an AG-UI endpoint: core (framing, ordering, JSON shape, bad bodies, disconnects,
    /// concurrent runs, protocol versions), transport (protobuf negotiation, keep-alives),
    /// resume (when advertised) and, with --profile dojo, the Dojo feature routes. Each check
    /// passes, fails (with the offending event, status or body excerpt) or is skipped (with
    /// why). Exit 0 when nothing failed, 1 otherwise, 2 for usage errors.
    Server(ServerArgs),
    /// Serve the conformance corpus to a client under test: the 68 official AG-UI fixtures and
    /// this project's 44 scenarios, in the corpus's format. `GET /scenarios` lists them ({name,
    /// set ("official" or "ours"), tags, threadId, input, client, resume, path, expected,
    /// fixture, verdict}); `POST {path}` with a RunAgentInput streams one verbatim (its second
    /// run when the input carries `resume` entries; protobuf when Accept asks for it and the
    /// scenario is tagged `protobuf`); `GET {expected}` is its `expect` (outcome "completed"
    /// when the client consumed the stream, "failed" when it must reject it, runError for the
    /// agent's own failure, messages, state, eventTypes, ...); `GET {fixture}` the whole
    /// fixture; `POST {verdict}` with what the client ended with ({outcome, error, runError,
    /// events, warnings, messages, state}) answers {pass, failures, relaxed}, as the corpus
    /// holds a client other than the two official ones. Scenarios tagged `strict` are where
    /// this project is stricter than the reference client.
    Client(ClientArgs),
}

/// `ag-ui conformance server`.
#[derive(Debug, Args)]
pub(crate) struct ServerArgs {
    /// The endpoint (POST). Only its origin is contacted: the endpoint itself, its
    /// `/capabilities` and, with --profile dojo, the Dojo routes relative to it.
    pub(crate) url: String,
    /// Extra check groups: `dojo` probes the Dojo feature routes (`agentic_chat`, …) relative
    /// to URL.
    #[arg(long, value_enum)]
    pub(crate) profile: Option<Profile>,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
    /// Also write the report as JUnit XML (one test case per check) to FILE.
    #[arg(long, value_name = "FILE")]
    pub(crate) junit: Option<String>,
    /// Seconds one probe may take (its requests and reads; fractions allowed, at most an
    /// hour); the whole suite may take ten times as long.
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = parse_timeout)]
    pub(crate) timeout: Duration,
}

/// `--timeout`: positive seconds, at most an hour.
fn parse_timeout(arg: &str) -> Result<Duration, String> {
    crate::flags::parse_secs(arg).and_then(|d| {
        if d <= Duration::from_secs(3600) {
            Ok(d)
        } else {
            Err(format!("{arg:?} is more than an hour"))
        }
    })
}

/// Extra check groups of `conformance server`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Profile {
    /// The AG-UI Dojo's feature routes, relative to URL.
    Dojo,
}

/// `ag-ui conformance client`.
#[derive(Debug, Args)]
pub(crate) struct ClientArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8400")]
    pub(crate) addr: SocketAddr,
    /// Serve the official corpus (with --ours: both; neither: both).
    #[arg(long)]
    pub(crate) official: bool,
    /// Serve this project's scenarios (with --official: both; neither: both).
    #[arg(long)]
    pub(crate) ours: bool,
    /// Serve the fixtures of DIR (each `NAME.json` in the corpus's format, read bounded) in
    /// place of the compiled-in official corpus, e.g. a newer checkout of it.
    #[arg(long, value_name = "DIR")]
    pub(crate) fixtures: Option<std::path::PathBuf>,
}

/// A check's verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The server did what the protocol asks.
    Pass,
    /// It did not: what it did instead (an event, a status, a body excerpt).
    Fail(String),
    /// The check could not apply: why.
    Skip(String),
}

impl Verdict {
    /// `pass`, `fail` or `skip`.
    pub(crate) fn as_str(&self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail(_) => "fail",
            Verdict::Skip(_) => "skip",
        }
    }

    /// The failure's or skip's explanation ("" for a pass).
    pub(crate) fn detail(&self) -> &str {
        match self {
            Verdict::Pass => "",
            Verdict::Fail(why) | Verdict::Skip(why) => why,
        }
    }
}

/// The group a check belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Group {
    Core,
    Transport,
    Resume,
    Dojo,
}

impl Group {
    /// `core`, `transport`, `resume` or `dojo`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Group::Core => "core",
            Group::Transport => "transport",
            Group::Resume => "resume",
            Group::Dojo => "dojo",
        }
    }
}

/// One check of the report.
#[derive(Clone, Debug)]
pub(crate) struct Check {
    /// Its group.
    pub(crate) group: Group,
    /// Its stable name, `group.what` (`core.run-framing`).
    pub(crate) name: String,
    /// What it checks, in a sentence.
    pub(crate) about: &'static str,
    /// The verdict.
    pub(crate) verdict: Verdict,
    /// How long it took.
    pub(crate) elapsed: Duration,
}

/// The report of one `conformance server` run.
#[derive(Clone, Debug)]
pub(crate) struct Report {
    /// The endpoint probed.
    pub(crate) url: String,
    /// The checks, in the order they ran.
    pub(crate) checks: Vec<Check>,
}

impl Report {
    /// How many checks passed, failed and were skipped.
    pub(crate) fn counts(&self) -> [usize; 3] {
        let mut counts = [0; 3];
        for check in &self.checks {
            counts[match check.verdict {
                Verdict::Pass => 0,
                Verdict::Fail(_) => 1,
                Verdict::Skip(_) => 2,
            }] += 1;
        }
        counts
    }
}

/// Runs checks one after the other, each under the per-probe time-out, none started after the
/// total time-out (those are skipped, saying so).
pub(crate) struct Runner {
    /// The group of the checks run now.
    group: Group,
    per_probe: Duration,
    deadline: Instant,
    total: Duration,
    checks: Vec<Check>,
}

impl Runner {
    fn new(per_probe: Duration) -> Self {
        let total = per_probe.saturating_mul(10);
        Self {
            group: Group::Core,
            per_probe,
            deadline: Instant::now() + total,
            total,
            checks: Vec::new(),
        }
    }

    /// The time the next probe may take: the per-probe time-out, or what is left of the
    /// total if that is less.
    pub(crate) fn budget(&self) -> Duration {
        self.per_probe
            .min(self.deadline.saturating_duration_since(Instant::now()))
    }

    /// Records the checks that follow in `group`.
    pub(crate) fn group(&mut self, group: Group) {
        self.group = group;
    }

    /// Runs one check and records its verdict.
    pub(crate) async fn check<F>(&mut self, name: &str, about: &'static str, probe: F)
    where
        F: std::future::Future<Output = Verdict>,
    {
        let group = self.group;
        let start = Instant::now();
        let verdict = if start >= self.deadline {
            Verdict::Skip(format!(
                "the suite's total time-out ({:.1}s) was reached",
                self.total.as_secs_f64()
            ))
        } else {
            let limit = self.per_probe.min(self.deadline - start);
            match tokio::time::timeout(limit, probe).await {
                Ok(verdict) => verdict,
                Err(_) => Verdict::Fail(format!(
                    "no verdict within {:.1}s (the server kept the probe waiting)",
                    limit.as_secs_f64()
                )),
            }
        };
        self.checks.push(Check {
            group,
            name: name.to_owned(),
            about,
            verdict,
            elapsed: start.elapsed(),
        });
    }

    /// Records a check that was not run.
    pub(crate) fn skip(&mut self, name: &str, about: &'static str, why: String) {
        self.checks.push(Check {
            group: self.group,
            name: name.to_owned(),
            about,
            verdict: Verdict::Skip(why),
            elapsed: Duration::ZERO,
        });
    }
}

/// `ag-ui conformance …`: the exit code (0 nothing failed, 1 a check failed, 2 usage).
pub(crate) fn main(target: Target, color: bool) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match target {
        Target::Server(args) => {
            let target = match server::Target::new(&args.url, args.timeout) {
                Ok(target) => target,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let mut runner = Runner::new(args.timeout);
            runtime.block_on(server::run(&target, args.profile, &mut runner));
            let report = Report {
                url: args.url.clone(),
                checks: runner.checks,
            };
            if let Some(path) = &args.junit
                && let Err(e) = std::fs::write(path, report::junit(&report))
            {
                eprintln!("error: cannot write {path}: {e}");
                return ExitCode::from(2);
            }
            let text = if args.json {
                report::json(&report)
            } else {
                report::table(&report, color)
            };
            println!("{text}");
            if report.counts()[1] == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Target::Client(args) => match runtime.block_on(client::serve(
            args.addr,
            &client::Choice {
                official: args.official,
                ours: args.ours,
                fixtures: args.fixtures,
            },
        )) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        },
    }
}
