//! The resume checks, for a server that makes runs resumable: ids on every frame, a replay
//! after `Last-Event-ID` that continues exactly, and a 4xx for a malformed cursor and for one
//! the server does not hold (an unknown or expired run).
//!
//! They run when the endpoint's `capabilities` (`{URL}/capabilities`) declare
//! `transport.resumable`, or when the plain run's frames carry ids (as `ag-ui serve
//! --resumable`'s do: `id: <runId>:<seq>`); otherwise they are skipped, saying so.

use ag_ui::encoding::SSE_MEDIA_TYPE;
use serde_json::Value;

use super::super::report::excerpt;
use super::super::{Runner, Verdict};
use super::{Answered, Target, stream};

/// The capabilities document is small; more is not read.
const CAPABILITIES_LIMIT: usize = 64 * 1024;

const ABOUT_IDS: &str = "every frame of a resumable run carries its own id";
const ABOUT_REPLAY: &str = "a reconnect with Last-Event-ID replays exactly the events after it";
const ABOUT_BAD: &str = "a malformed Last-Event-ID gets a 4xx";
const ABOUT_EXPIRED: &str =
    "a cursor of a run the server does not hold (unknown, expired) gets a 4xx";

/// Runs the resume checks; `main` is the core group's plain run.
pub(crate) async fn checks(
    target: &Target,
    runner: &mut Runner,
    main: Option<&Result<Answered, String>>,
) {
    let advertised = tokio::time::timeout(runner.budget(), advertised(target))
        .await
        .unwrap_or(false);
    let main = match main {
        Some(Ok(main)) => main,
        _ => {
            for (name, about) in names() {
                runner.skip(name, about, "the plain run failed".to_owned());
            }
            return;
        }
    };
    let has_ids = main.analysis.ids.iter().any(Option::is_some);
    if !advertised && !has_ids {
        for (name, about) in names() {
            runner.skip(
                name,
                about,
                "resumability is not advertised: capabilities declare no transport.resumable \
                 and the run's frames carry no id"
                    .to_owned(),
            );
        }
        return;
    }
    let ids = &main.analysis.ids;
    runner
        .check(
            "resume.ids-on-every-frame",
            ABOUT_IDS,
            std::future::ready(every_frame(ids)),
        )
        .await;
    runner
        .check("resume.replay", ABOUT_REPLAY, replay(target, main))
        .await;
    runner
        .check(
            "resume.bad-cursor",
            ABOUT_BAD,
            cursor(target, "not a cursor".to_owned()),
        )
        .await;
    runner
        .check(
            "resume.expired-cursor",
            ABOUT_EXPIRED,
            cursor(
                target,
                format!("{}:1", crate::live::unique("conformance-gone")),
            ),
        )
        .await;
}

fn names() -> [(&'static str, &'static str); 4] {
    [
        ("resume.ids-on-every-frame", ABOUT_IDS),
        ("resume.replay", ABOUT_REPLAY),
        ("resume.bad-cursor", ABOUT_BAD),
        ("resume.expired-cursor", ABOUT_EXPIRED),
    ]
}

/// Whether `{URL}/capabilities` declares `transport.resumable: true`.
async fn advertised(target: &Target) -> bool {
    let Some(url) = target.relative("capabilities") else {
        return false;
    };
    match target
        .get(&url, &[("accept", "application/json")], CAPABILITIES_LIMIT)
        .await
    {
        Ok(reply) if reply.ok() => serde_json::from_slice::<Value>(&reply.body)
            .ok()
            .and_then(|v| v.pointer("/transport/resumable").and_then(Value::as_bool))
            .unwrap_or(false),
        _ => false,
    }
}

/// Every event has an id, and no two consecutive events the same (an `id:` persists across
/// frames, so a frame without its own repeats the last).
fn every_frame(ids: &[Option<String>]) -> Verdict {
    for (index, id) in ids.iter().enumerate() {
        match id {
            None => return Verdict::Fail(format!("event {index} carries no id")),
            Some(id) if index > 0 && ids[index - 1].as_deref() == Some(id) => {
                return Verdict::Fail(format!(
                    "event {index} carries no id of its own (the last id was {:?})",
                    excerpt(id.as_bytes())
                ));
            }
            Some(_) => {}
        }
    }
    Verdict::Pass
}

/// Reconnects after the middle event of the plain run and compares what comes back with the
/// events that followed it.
async fn replay(target: &Target, main: &Answered) -> Verdict {
    let values = &main.analysis.values;
    let ids = &main.analysis.ids;
    if values.len() < 2 {
        return Verdict::Skip("the plain run has fewer than two events".to_owned());
    }
    let k = values.len() / 2 - 1;
    let Some(cursor) = &ids[k] else {
        return Verdict::Fail(format!("event {k} carries no id to resume after"));
    };
    let reply = match target
        .get(
            &target.url,
            &[("accept", SSE_MEDIA_TYPE), ("last-event-id", cursor)],
            super::probe::MAX_BODY,
        )
        .await
    {
        Ok(reply) => reply,
        Err(e) => return Verdict::Fail(e),
    };
    if !reply.ok() {
        return Verdict::Fail(format!("after {cursor:?}: {}", reply.describe()));
    }
    let again = stream::analyze(&reply);
    let expected = &values[k + 1..];
    if again.values.as_slice() != expected {
        let at = again
            .values
            .iter()
            .zip(expected)
            .position(|(a, b)| a != b)
            .unwrap_or(again.values.len().min(expected.len()));
        return Verdict::Fail(format!(
            "after {cursor:?} the replay has {} events where {} followed; first difference at \
             replayed event {at}: {:?}",
            again.values.len(),
            expected.len(),
            again
                .values
                .get(at)
                .map(|v| excerpt(v.to_string().as_bytes()))
                .unwrap_or_default()
        ));
    }
    match (ids.get(k + 1), again.ids.first()) {
        (Some(Some(original)), Some(Some(replayed))) if original != replayed => Verdict::Fail(
            format!("the first replayed event has id {replayed:?}; it had {original:?}"),
        ),
        _ => Verdict::Pass,
    }
}

/// A reconnect with `Last-Event-ID: cursor` must get a 4xx.
async fn cursor(target: &Target, cursor: String) -> Verdict {
    match target
        .get(
            &target.url,
            &[("accept", SSE_MEDIA_TYPE), ("last-event-id", &cursor)],
            super::probe::MAX_BODY,
        )
        .await
    {
        Ok(reply) if (400..500).contains(&reply.status) => Verdict::Pass,
        Ok(reply) => Verdict::Fail(format!("Last-Event-ID {cursor:?}: {}", reply.describe())),
        Err(e) => Verdict::Fail(format!("Last-Event-ID {cursor:?}: {e}")),
    }
}
