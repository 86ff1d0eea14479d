//! `ag-ui conformance server URL`: the probes, by group, on one bounded HTTP helper
//! ([`probe`]) and one stream checker ([`stream`]).
//!
//! Memory: a response is read up to [`probe::MAX_BODY`] (16 MiB); a run's answer goes through
//! the checker as it arrives, which keeps a few facts and the frame in flight, never the
//! events. Only the plain run's body is kept (the resume replay walks it again); the four
//! concurrent runs are started together and read one after another; answers a check only
//! quotes are read up to 64 KiB; a Dojo route is applied as it arrives, so the conversation a
//! client holds is at most what one read brought. What a server sends makes the tool hold a
//! few read bounds at most (README, "Hostile input").

mod core;
mod dojo;
mod probe;
mod resume;
mod stream;
mod transport;

use ag_ui::{EXCERPT_BYTES, Event, PROTOCOL_VERSION, excerpt};
use serde_json::{Value, json};

pub(crate) use probe::Target;
use probe::{Reply, Streamed};
use stream::{Analysis, Observer};

use super::{Profile, Runner, Verdict};

/// Runs every group of checks that applies against `target`.
pub(crate) async fn run(target: &Target, profile: Option<Profile>, runner: &mut Runner) {
    let main = core::checks(target, runner).await;
    transport::checks(target, runner, main.as_ref()).await;
    resume::checks(target, runner, main.as_ref()).await;
    if profile == Some(Profile::Dojo) {
        dojo::checks(target, runner).await;
    }
}

/// A run input of the probes: its JSON and the ids it carries.
pub(crate) struct Input {
    pub(crate) value: Value,
    pub(crate) thread: String,
    pub(crate) run: String,
}

/// A run input with one user message `text` (and `protocolVersion` "1.0").
pub(crate) fn input(text: &str) -> Input {
    let thread = crate::ids::unique("conformance-thread");
    let run = crate::ids::unique("conformance-run");
    let value = json!({
        "threadId": thread,
        "runId": run,
        "protocolVersion": PROTOCOL_VERSION,
        "state": {},
        "messages": [{"id": crate::ids::unique("user"), "role": "user", "content": text}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    });
    Input { value, thread, run }
}

/// A run that answered: its reply (the body only when kept) and what its stream held.
pub(crate) struct Answered {
    pub(crate) input: Input,
    pub(crate) reply: Reply,
    pub(crate) analysis: Analysis,
}

/// Sends `input` and reads the answer as a stream, keeping its body when `keep`, telling
/// `observer` of each event.
///
/// # Errors
/// The request failed, or the status is not 2xx (the reply's excerpt).
pub(crate) async fn answer(
    target: &Target,
    input: Input,
    keep: bool,
    observer: Option<Observer<'_>>,
) -> Result<Answered, String> {
    let (reply, analysis) = target
        .run_streamed(
            &input.value,
            Streamed {
                keep,
                observer,
                tap: None,
            },
        )
        .await?;
    match analysis {
        Some(analysis) if reply.ok() => Ok(Answered {
            input,
            reply,
            analysis,
        }),
        _ => Err(reply.describe()),
    }
}

/// Sends `input` and checks that its answer is a valid stream framed by the run's ids.
pub(crate) async fn valid_run(target: &Target, input: Input) -> Verdict {
    match target.run_streamed(&input.value, Streamed::plain()).await {
        Err(e) => Verdict::Fail(e),
        Ok((_, Some(analysis))) => valid(&analysis, &input),
        Ok((reply, None)) => Verdict::Fail(reply.describe()),
    }
}

/// The verdict on a run's stream: valid and framed by the run's ids.
pub(crate) fn valid(analysis: &Analysis, input: &Input) -> Verdict {
    match analysis.problem() {
        Some(problem) => Verdict::Fail(problem.to_owned()),
        None => framing(analysis, &input.thread, &input.run),
    }
}

/// The run is framed by `RUN_STARTED` (first) and `RUN_FINISHED` or `RUN_ERROR` (last), both
/// echoing the request's `threadId` and `runId` (`RUN_ERROR` carries no ids).
pub(crate) fn framing(analysis: &Analysis, thread: &str, run: &str) -> Verdict {
    let echo = |name: &str, t: &str, r: &str, index: usize| {
        if t == thread && r == run {
            None
        } else {
            Some(Verdict::Fail(format!(
                "event {index} ({name}) has threadId {:?} and runId {:?}; the request's are \
                 {:?} and {:?}",
                excerpt(t, EXCERPT_BYTES),
                excerpt(r, EXCERPT_BYTES),
                thread,
                run
            )))
        }
    };
    match &analysis.first {
        Some(Event::RunStarted(e)) => {
            if let Some(fail) = echo("RUN_STARTED", e.thread_id.as_str(), e.run_id.as_str(), 0) {
                return fail;
            }
        }
        Some(other) => {
            return Verdict::Fail(format!(
                "the first event is {}, not RUN_STARTED",
                other.event_type()
            ));
        }
        None => return Verdict::Fail("the stream held no event".to_owned()),
    }
    let last = analysis.events - 1;
    match (analysis.last_type, &analysis.ended) {
        (_, Some(Event::RunFinished(e))) => echo(
            "RUN_FINISHED",
            e.thread_id.as_str(),
            e.run_id.as_str(),
            last,
        )
        .unwrap_or(Verdict::Pass),
        (_, Some(_)) => Verdict::Pass,
        (Some(other), None) => Verdict::Fail(format!(
            "the last event is {other}, not RUN_FINISHED or RUN_ERROR"
        )),
        (None, None) => Verdict::Fail("the stream held no event".to_owned()),
    }
}

/// The verdict of a check that looks at the main run, or that run's failure.
pub(crate) fn on_main(
    main: Option<&Result<Answered, String>>,
    check: impl FnOnce(&Answered) -> Verdict,
) -> Verdict {
    match main {
        Some(Ok(answered)) => check(answered),
        Some(Err(e)) => Verdict::Fail(format!("the plain run failed: {e}")),
        None => Verdict::Skip("the plain run did not complete in time".to_owned()),
    }
}
