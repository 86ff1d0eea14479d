//! The resume checks, for a server that makes runs resumable: ids on every frame, a replay
//! after `Last-Event-ID` that continues exactly, and a 4xx for a malformed cursor and for one
//! the server does not hold (an unknown or expired run).
//!
//! They run when the endpoint's `capabilities` (`{URL}/capabilities`) declare
//! `transport.resumable`, or when the plain run's frames carry ids (as `ag-ui serve
//! --resumable`'s do: `id: <runId>:<seq>`); otherwise they are skipped, saying so.

use ag_ui::encoding::SSE_MEDIA_TYPE;
use ag_ui::{EXCERPT_BYTES, excerpt};
use serde_json::Value;

use super::super::{Runner, Verdict};
use super::probe::Streamed;
use super::stream::{Events, Seen};
use super::{Answered, Target};

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
    runner.group(super::super::Group::Resume);
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
    let has_ids = main.analysis.has_ids;
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
    runner
        .check(
            "resume.ids-on-every-frame",
            ABOUT_IDS,
            std::future::ready(match &main.analysis.id_problem {
                Some(problem) => Verdict::Fail(problem.clone()),
                None => Verdict::Pass,
            }),
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
                format!("{}:1", crate::ids::unique("conformance-gone")),
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

/// Reconnects after the middle event of the plain run and compares what comes back, event by
/// event as it arrives, with the events that followed it (walked again in the plain run's
/// kept body: neither run's events are held).
async fn replay(target: &Target, main: &Answered) -> Verdict {
    let count = main.analysis.events;
    if count < 2 {
        return Verdict::Skip("the plain run has fewer than two events".to_owned());
    }
    let k = count / 2 - 1;
    let mut expected = Events::of(&main.reply);
    for _ in 0..=k {
        expected.next_json();
    }
    let Some(cursor) = expected.id().map(str::to_owned) else {
        return Verdict::Fail(format!("event {k} carries no id to resume after"));
    };
    let quoted = excerpt(&cursor, EXCERPT_BYTES).into_owned();
    // The first replayed event that differs from the one that followed (or has none to
    // compare with), and the ids in force at the first of each.
    let mut difference: Option<(usize, String)> = None;
    let mut first_ids: Option<(Option<String>, Option<String>)> = None;
    let mut observer = |seen: &Seen<'_>| {
        if difference.is_some() {
            return;
        }
        let original = expected.next_json();
        if seen.index == 0 {
            first_ids = Some((expected.id().map(str::to_owned), seen.id.map(str::to_owned)));
        }
        let same = original.is_some_and(|original| {
            serde_json::from_str::<Value>(&original).ok()
                == serde_json::from_str::<Value>(seen.json).ok()
        });
        if !same {
            difference = Some((seen.index, excerpt(seen.json, EXCERPT_BYTES).into_owned()));
        }
    };
    let replayed = target
        .get_streamed(
            &target.url,
            &[("accept", SSE_MEDIA_TYPE), ("last-event-id", &cursor)],
            super::probe::MAX_BODY,
            Some(Streamed {
                keep: false,
                observer: Some(&mut observer),
                tap: None,
            }),
        )
        .await;
    let (reply, again) = match replayed {
        Ok(replayed) => replayed,
        Err(e) => return Verdict::Fail(e),
    };
    let Some(again) = again else {
        return Verdict::Fail(format!("after {quoted:?}: {}", reply.describe()));
    };
    let followed = count - k - 1;
    if difference.is_some() || again.events != followed {
        let (at, shown) = difference.unwrap_or((again.events.min(followed), String::new()));
        return Verdict::Fail(format!(
            "after {quoted:?} the replay has {} events where {followed} followed; first \
             difference at replayed event {at}: {shown:?}",
            again.events,
        ));
    }
    match first_ids {
        Some((Some(original), Some(replayed))) if original != replayed => Verdict::Fail(format!(
            "the first replayed event has id {:?}; it had {:?}",
            excerpt(&replayed, EXCERPT_BYTES),
            excerpt(&original, EXCERPT_BYTES)
        )),
        _ => Verdict::Pass,
    }
}

/// A reconnect with `Last-Event-ID: cursor` must get a 4xx.
async fn cursor(target: &Target, cursor: String) -> Verdict {
    match target
        .get(
            &target.url,
            &[("accept", SSE_MEDIA_TYPE), ("last-event-id", &cursor)],
            // The status decides; the start of the answer is quoted.
            super::probe::HEAD,
        )
        .await
    {
        Ok(reply) if (400..500).contains(&reply.status) => Verdict::Pass,
        Ok(reply) => Verdict::Fail(format!("Last-Event-ID {cursor:?}: {}", reply.describe())),
        Err(e) => Verdict::Fail(format!("Last-Event-ID {cursor:?}: {e}")),
    }
}
