//! The core checks: what every AG-UI endpoint must do with a run, a bad body, a client that
//! goes away, several runs at once, and either protocol version.

use std::time::Duration;

use ag_ui::encoding::SSE_MEDIA_TYPE;
use ag_ui::{EXCERPT_BYTES, Event, excerpt};
use serde_json::{Value, json};

use super::super::report::quote;
use super::super::{Runner, Verdict};
use super::probe::{Padded, Streamed};
use super::stream::Seen;
use super::{Answered, Target, answer, framing, input, on_main, valid, valid_run};

/// How much of an answer a check that quotes it and nothing more reads.
const EXCERPT_READ: usize = 64 * 1024;

/// How many runs `core.concurrent-runs` starts at once.
const CONCURRENT: usize = 4;

/// The size of the body `core.body-too-large` sends: above any sensible limit for a run input
/// (this crate's endpoints take 4 MiB), small enough to send over loopback at once.
const TOO_LARGE: usize = 16 * 1024 * 1024;

/// Runs the core checks; returns the plain run (for the other groups; its body kept for the
/// resume replay), `None` if it did not answer in time.
pub(crate) async fn checks(
    target: &Target,
    runner: &mut Runner,
) -> Option<Result<Answered, String>> {
    runner.group(super::super::Group::Core);
    let main = tokio::time::timeout(runner.budget(), answer(target, input("hello"), true, None))
        .await
        .ok();
    let view = |check: fn(&Answered) -> Verdict| std::future::ready(on_main(main.as_ref(), check));
    runner
        .check(
            "core.content-type",
            "a run is answered 2xx with content type text/event-stream",
            view(|a| match a.reply.media_type().as_str() {
                SSE_MEDIA_TYPE => Verdict::Pass,
                _ => Verdict::Fail(a.reply.describe()),
            }),
        )
        .await;
    runner
        .check(
            "core.ordering",
            "a plain user message gets a stream that passes every ordering rule and ends the run",
            view(|a| match &a.analysis.order_problem {
                None => Verdict::Pass,
                Some(problem) => Verdict::Fail(problem.clone()),
            }),
        )
        .await;
    runner
        .check(
            "core.run-framing",
            "the run is framed by RUN_STARTED and RUN_FINISHED|RUN_ERROR echoing threadId and runId",
            view(|a| framing(&a.analysis, &a.input.thread, &a.input.run)),
        )
        .await;
    runner
        .check(
            "core.event-json",
            "every event is valid AG-UI 1.0 JSON (optional members left out, not null; camelCase)",
            view(|a| match &a.analysis.json_problem {
                None => Verdict::Pass,
                Some(problem) => Verdict::Fail(problem.clone()),
            }),
        )
        .await;
    checks_rest(target, runner).await;
    main
}

async fn checks_rest(target: &Target, runner: &mut Runner) {
    runner
        .check(
            "core.state-and-tools",
            "a run input carrying a state, tools and context is accepted",
            valid_run(target, {
                let mut run = input("what is the weather?");
                run.value["state"] = json!({});
                run.value["tools"] = json!([{
                    "name": "get_weather",
                    "description": "The weather in a city",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
                }]);
                run.value["context"] = json!([{"description": "user locale", "value": "en"}]);
                run
            }),
        )
        .await;
    runner
        .check(
            "core.foreign-state",
            "a state the agent does not model is served, or refused with a JSON 4xx naming it",
            foreign_state(target),
        )
        .await;
    runner
        .check(
            "core.unknown-fields",
            "members the input schema does not know are tolerated",
            valid_run(target, {
                let mut run = input("hello");
                run.value["x-conformance-extra"] = json!({"nested": [1, 2]});
                run.value["messages"][0]["x-extra"] = json!(true);
                run
            }),
        )
        .await;
    // The 16 MiB body is written when its check runs (`None` here), not held through the
    // others.
    let bad_bodies: [(&str, &'static str, Option<Vec<u8>>); 4] = [
        ("core.body-not-json", "a body that is not JSON gets a 4xx", Some(b"{\"threadId\": \"t\", \"runId".to_vec())),
        ("core.body-not-object", "a JSON body that is not an object gets a 4xx", Some(b"[\"threadId\", \"runId\"]".to_vec())),
        (
            "core.body-wrong-types",
            "a body with members of the wrong type gets a 4xx",
            Some(br#"{"threadId": 7, "runId": ["r"], "messages": "hello", "tools": {}, "state": {}, "context": [], "forwardedProps": {}}"#.to_vec()),
        ),
        ("core.body-too-large", "a body of 16 MiB gets a 4xx (413)", None),
    ];
    for (name, about, body) in bad_bodies {
        runner.check(name, about, bad_body(target, body)).await;
    }
    runner
        .check(
            "core.disconnect",
            "a client that hangs up mid-run leaves the server serving: the next run works",
            disconnect(target),
        )
        .await;
    runner
        .check(
            "core.concurrent-runs",
            "four runs at once each get a valid stream with their own ids",
            concurrent(target),
        )
        .await;
    runner
        .check(
            "core.protocol-version-1.0",
            "a run declaring protocolVersion \"1.0\" is served",
            valid_run(target, input("hello")),
        )
        .await;
    runner
        .check(
            "core.protocol-version-absent",
            "a run without protocolVersion (a pre-1.0 client) is served a framed run",
            without_version(target),
        )
        .await;
}

/// A run input whose user message alone is [`TOO_LARGE`] bytes, as a body written piece by
/// piece (held whole, it would be one more read bound held).
fn too_large() -> Padded {
    const MARK: &str = "too-large";
    let mut run = input("");
    run.value["messages"][0]["content"] = Value::String(MARK.to_owned());
    let text = serde_json::to_string(&run.value).unwrap_or_default();
    let (before, after) = text.split_once(MARK).unwrap_or((text.as_str(), ""));
    Padded {
        before: before.as_bytes().to_vec(),
        fill: b'x',
        filler: TOO_LARGE,
        after: after.as_bytes().to_vec(),
    }
}

/// A state of keys no agent models: a valid run passes; a JSON 4xx (an agent with a typed
/// state refusing what it cannot hold) is reported as a skip, saying so; anything else fails.
async fn foreign_state(target: &Target) -> Verdict {
    let mut run = input("hello");
    run.value["state"] = json!({"x-conformance": {"items": ["a", null], "count": 1}});
    match target.run_streamed(&run.value, Streamed::plain()).await {
        Err(e) => Verdict::Fail(e),
        Ok((_, Some(analysis))) => valid(&analysis, &run),
        Ok((reply, None))
            if (400..500).contains(&reply.status)
                && reply.media_type() == "application/json"
                && String::from_utf8_lossy(&reply.body).contains("state") =>
        {
            Verdict::Skip(format!(
                "the agent refuses a state it does not model: {}",
                reply.describe()
            ))
        }
        Ok((reply, None)) => Verdict::Fail(reply.describe()),
    }
}

/// A bad body (`None`: [`too_large`]) must get a 4xx: a 2xx, a 5xx, or no status at all
/// fails. Only the status and the start of the answer matter: no more than [`EXCERPT_READ`]
/// of it is read.
async fn bad_body(target: &Target, body: Option<Vec<u8>>) -> Verdict {
    // A server may answer a body it will not take before reading it, and close: the status is
    // read while the body is still being written.
    let reply = match body {
        None => target.post_early_answer(too_large()).await,
        Some(body) => {
            target
                .post_limited(&target.url, body, SSE_MEDIA_TYPE, EXCERPT_READ)
                .await
        }
    };
    match reply {
        Ok(reply) if (400..500).contains(&reply.status) => Verdict::Pass,
        Ok(reply) if reply.ok() => {
            Verdict::Fail(format!("the body was accepted: {}", reply.describe()))
        }
        Ok(reply) => Verdict::Fail(reply.describe()),
        Err(e) => Verdict::Fail(format!("no status came back: {e}")),
    }
}

/// A run left after its first bytes, then a run that must work.
async fn disconnect(target: &Target) -> Verdict {
    let run = input("please tell a long story");
    match target.run_and_hang_up(&run.value).await {
        Ok(status) if (200..300).contains(&status) => {}
        Ok(status) => return Verdict::Fail(format!("the first run was answered HTTP {status}")),
        Err(e) => return Verdict::Fail(format!("the first run: {e}")),
    }
    // Let the server notice the hang-up.
    tokio::time::sleep(Duration::from_millis(100)).await;
    match valid_run(target, input("hello again")).await {
        Verdict::Fail(why) => Verdict::Fail(format!("the run after the hang-up: {why}")),
        other => other,
    }
}

/// [`CONCURRENT`] runs at once: each valid, each framed by its own ids, none carrying another's
/// run id (in an event or a frame's id). The runs are started together; their answers are
/// read one after the other (the others wait in their connections), each checked as it
/// arrives and not kept, so the check holds one run's frame in flight, not four.
async fn concurrent(target: &Target) -> Verdict {
    let inputs: Vec<_> = (0..CONCURRENT)
        .map(|i| input(&format!("run {i}")))
        .collect();
    let runs: Vec<String> = inputs.iter().map(|i| i.run.clone()).collect();
    let started = futures::future::join_all(inputs.iter().map(|input| {
        let body = serde_json::to_vec(&input.value).unwrap_or_default();
        target.send(&target.url, body, SSE_MEDIA_TYPE)
    }))
    .await;
    for (n, (input, pending)) in inputs.into_iter().zip(started).enumerate() {
        let pending = match pending {
            Ok(pending) => pending,
            Err(e) => return Verdict::Fail(format!("run {n} of {CONCURRENT}: {e}")),
        };
        let mut foreign: Option<(String, String)> = None;
        let mut observer = |seen: &Seen<'_>| {
            if foreign.is_some() {
                return;
            }
            let id = if seen.fresh { seen.id } else { None };
            foreign = runs
                .iter()
                .find(|r| {
                    **r != input.run
                        && (seen.json.contains(r.as_str())
                            || id.is_some_and(|id| id.contains(r.as_str())))
                })
                .map(|r| (r.clone(), excerpt(seen.json, EXCERPT_BYTES).into_owned()));
        };
        let how = Streamed {
            keep: false,
            observer: Some(&mut observer),
            tap: None,
        };
        let analysis = match pending.read(how).await {
            (_, Some(analysis)) => analysis,
            (reply, None) => {
                return Verdict::Fail(format!("run {n} of {CONCURRENT}: {}", reply.describe()));
            }
        };
        if let Some(problem) = analysis.problem() {
            return Verdict::Fail(format!("run {n} of {CONCURRENT}: {problem}"));
        }
        if let Verdict::Fail(why) = framing(&analysis, &input.thread, &input.run) {
            return Verdict::Fail(format!("run {n} of {CONCURRENT}: {why}"));
        }
        if let Some((other, json)) = foreign.take() {
            return Verdict::Fail(format!(
                "run {n} of {CONCURRENT} carries the id of another run ({other}): {json:?}"
            ));
        }
    }
    Verdict::Pass
}

/// A run without `protocolVersion`: a 2xx event stream whose first event is `RUN_STARTED`
/// with the run's ids and whose last ends the run. (The server may downgrade the stream for
/// a pre-1.0 client, so the events are not held to the 1.0 rules.)
async fn without_version(target: &Target) -> Verdict {
    let mut run = input("hello");
    if let Some(object) = run.value.as_object_mut() {
        object.remove("protocolVersion");
    }
    let (reply, analysis) = match target.run_streamed(&run.value, Streamed::plain()).await {
        Ok((reply, Some(analysis))) if reply.media_type() == SSE_MEDIA_TYPE => (reply, analysis),
        Ok((reply, _)) => return Verdict::Fail(reply.describe()),
        Err(e) => return Verdict::Fail(e),
    };
    if let Some(broken) = &reply.broken {
        return Verdict::Fail(format!("the body broke off: {broken}"));
    }
    let first = analysis.first.as_ref();
    match (first, &analysis.ended) {
        (Some(Event::RunStarted(e)), Some(_))
            if e.thread_id.as_str() == run.thread && e.run_id.as_str() == run.run =>
        {
            Verdict::Pass
        }
        _ => Verdict::Fail(format!(
            "not a framed run ({} events, first {:?}, last {:?}): {:?}",
            analysis.events,
            first.map(|e| e.event_type().to_string()),
            analysis.last_type.map(|t| t.to_string()),
            quote(&reply.body)
        )),
    }
}
