//! The Rust lane of the official AG-UI conformance corpus (`spec/1.1/conformance/streams`, in
//! `crates/ag-ui-conformance/corpus/official/`): every fixture's stream served as SSE frames
//! over a real socket on 127.0.0.1 (a `timestamp` filled in where absent or `null`, as the
//! TypeScript lane's replay server does) into `HttpAgent` + `Conversation`, and every `expect`
//! key checked on what the client delivered, holds and sent.
//!
//! The corpus is written for the TypeScript client at protocol 1.1. Where this client is held to
//! something else, it is named below with its reason, as the corpus names a lane's differences
//! (`expectOverrides`):
//!
//! - [`VERSION`]: this client speaks protocol 1.0. A fixture's own version (`"1.1"`, declared
//!   by its producer and expected in the request) is read as this client's; `1.2` stays newer.
//! - [`REASONS`]: `errorContains` is the TypeScript client's wording (the corpus README says
//!   so); this client's rejection names its rule kind or the field at fault instead.
//! - [`WARNING_WORDING`]: `warnings` likewise, where the text is prose rather than a JSON
//!   Pointer or an event type.
//! - The `typescript` overrides apply (this client expands chunks as the TypeScript one does, so
//!   the order they pin is observable here too); the `dotnet` ones do not.
//!
//! Everything else is held as written: `noWarnings` (a conformant stream makes this client say
//! nothing), the `era-*` fixtures' translations (the peer shims of `client::peer`), and the
//! admitted gap `unknown-enum-value-role-fatal` (this client refuses an unknown role too).
#![cfg(all(feature = "http", feature = "axum"))]

use std::sync::{Arc, Mutex};

use ag_ui_conformance::{Expect, Fixture, Frame, Item, Observed, Outcome, corpus, frames};
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::response::IntoResponse;
use serde_json::{Value, json};

use crate::support::corpus::run_fixture;
use crate::support::http::spawn_url;

/// The protocol version the corpus's client speaks, read as this client's
/// ([`ag_ui::PROTOCOL_VERSION`]).
const VERSION: &str = "1.1";

/// Fixtures whose `errorContains` is the TypeScript client's message: what this client's
/// rejection says instead (its rule kind, or the decode error's kind and field). A fixture whose
/// `errorContains` names an id or a field this client names too is not here.
const REASONS: &[(&str, &str)] = &[
    ("chunk-conflicting-role-fatal", "chunk.field-mismatch"),
    ("chunk-conflicting-tool-name-fatal", "chunk.field-mismatch"),
    ("content-without-start-fatal", "text.not-open"),
    ("custom-closes-chunk-stream-fatal", "chunk.missing-id"),
    ("event-after-run-finished-fatal", "run.after-finished"),
    ("first-chunk-missing-id-fatal", "chunk.missing-id"),
    ("first-event-not-run-started-fatal", "run.first-event"),
    ("first-tool-chunk-missing-name-fatal", "chunk.missing-name"),
    ("nested-run-started-fatal", "run.already-active"),
    (
        "open-message-at-run-finished-fatal",
        "run.unclosed-text-messages",
    ),
    (
        "reasoning-discipline-verified",
        "reasoning.message-not-open",
    ),
    ("reasoning-message-wrong-role-fatal", "schema.invalid role"),
    ("step-finished-without-start-fatal", "step.not-open"),
    ("subagent-attribution-mismatch-fatal", "owner.mismatch"),
    ("unknown-outcome-array-fatal", "schema.invalid outcome"),
];

/// Warnings the corpus words in the TypeScript client's prose: the words of this client's.
const WARNING_WORDING: &[(&str, &str)] =
    &[("Failed to apply state patch", "apply.state-patch-failed")];

/// What the replay server saw and serves.
#[derive(Clone)]
struct Replay {
    frames: Arc<Vec<Vec<u8>>>,
    request: Arc<Mutex<Option<Value>>>,
}

async fn replay(State(replay): State<Replay>, body: Bytes) -> impl IntoResponse {
    *replay.request.lock().unwrap() = serde_json::from_slice(&body).ok();
    let mut out = Vec::new();
    for frame in replay.frames.iter() {
        out.extend_from_slice(frame);
    }
    ([("content-type", "text/event-stream")], out)
}

/// Serves `stream` as SSE frames, one per event.
async fn serve(stream: &[Item]) -> (String, Arc<Mutex<Option<Value>>>) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let frames: Vec<Vec<u8>> = frames(stream, now)
        .into_iter()
        .map(|frame| match frame {
            Frame::Json(json) => {
                let mut out = Vec::new();
                ag_ui::encoding::sse::write_frame_with(&mut out, |o| o.extend_from_slice(&json));
                out
            }
            Frame::Raw(raw) => raw.as_bytes().to_vec(),
        })
        .collect();
    let request = Arc::new(Mutex::new(None));
    let app = Router::new()
        .route("/", axum::routing::post(replay))
        .with_state(Replay {
            frames: Arc::new(frames),
            request: Arc::clone(&request),
        });
    (format!("{}/", spawn_url(app).await), request)
}

/// `fixture` read as this client's version (see [`VERSION`]).
fn at_our_version(mut fixture: Fixture) -> Fixture {
    let ours = Value::from(ag_ui::PROTOCOL_VERSION);
    for item in &mut fixture.stream {
        if let Item::Event(event) = item
            && event.get("protocolVersion") == Some(&Value::from(VERSION))
        {
            event.insert("protocolVersion".into(), ours.clone());
        }
    }
    let expect = |e: &mut Expect| {
        if let Some(Value::Object(request)) = &mut e.request
            && request.get("protocolVersion") == Some(&Value::from(VERSION))
        {
            request.insert("protocolVersion".into(), ours.clone());
        }
        for warning in &mut e.warnings {
            if warning == VERSION {
                *warning = ag_ui::PROTOCOL_VERSION.to_owned();
            }
        }
    };
    expect(&mut fixture.expect);
    for (_, e) in &mut fixture.overrides {
        expect(e);
    }
    fixture
}

/// Runs `fixture` through `HttpAgent` + `Conversation` over a socket: what the client ended
/// with, and the request it sent.
async fn run(fixture: &Fixture) -> Observed {
    let (url, request) = serve(&fixture.stream).await;
    let mut observed = run_fixture(fixture, ag_ui::client::HttpAgent::new(url)).await;
    observed.request = request.lock().unwrap().clone();
    observed
}

/// The expectations this lane holds `fixture` to: the `typescript` lane's, with this client's
/// reasons and warning wording in place of the TypeScript client's.
fn expectations(fixture: &Fixture) -> Expect {
    let mut expect = fixture.expect_for("typescript").clone();
    if let Some((_, ours)) = REASONS.iter().find(|(name, _)| *name == fixture.name) {
        expect.error_contains = Some((*ours).to_owned());
    }
    for warning in &mut expect.warnings {
        if let Some((_, ours)) = WARNING_WORDING.iter().find(|(theirs, _)| theirs == warning) {
            *warning = (*ours).to_owned();
        }
    }
    expect
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_official_fixture_passes_on_this_client() {
    let fixtures = corpus::official().unwrap();
    assert_eq!(fixtures.len(), 68);
    let mut failures = Vec::new();
    for fixture in fixtures {
        let fixture = at_our_version(fixture);
        let observed = run(&fixture).await;
        for mismatch in expectations(&fixture).check(&observed) {
            failures.push(format!("{}: {mismatch}", fixture.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Each named difference is needed: the TypeScript wording is not what this client says (so
/// the entry is not stale), and it names a fixture of the corpus that expects a failure.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_named_difference_is_still_one() {
    let fixtures = corpus::official().unwrap();
    for (name, _) in REASONS {
        let fixture = fixtures
            .iter()
            .find(|f| f.name == *name)
            .unwrap_or_else(|| panic!("{name}"));
        let theirs = fixture.expect.error_contains.as_deref().unwrap();
        let observed = run(&at_our_version(fixture.clone())).await;
        let ours = observed.error.unwrap_or_default();
        assert!(
            !ours.contains(theirs),
            "{name}: {theirs:?} is in our error, drop the entry"
        );
    }
    for (theirs, _) in WARNING_WORDING {
        assert!(
            fixtures
                .iter()
                .any(|f| f.expect.warnings.iter().any(|w| w == theirs)),
            "{theirs}"
        );
    }
    // The version substitution changes something: most fixtures declare the corpus's version.
    let declaring = fixtures
        .iter()
        .filter(|f| f.stream.iter().any(|i| matches!(i, Item::Event(e) if e.get("protocolVersion") == Some(&json!(VERSION)))))
        .count();
    assert!(declaring > 30, "{declaring}");
}

/// The corpus's `draft` fixtures (`corpus/draft`): rules no official client enforces yet, which
/// this client's verifier does (D1–D3 of `ag_ui::verify`). Each is rejected, with the draft
/// rule's kind in place of the draft's wording.
const DRAFT_REASONS: &[(&str, &str)] = &[
    ("duplicate-interrupt-id-fatal", "interrupt.duplicate-id"),
    ("run-finished-wrong-run-id-fatal", "run.id-mismatch"),
    ("run-finished-wrong-thread-id-fatal", "run.thread-mismatch"),
    ("second-run-on-another-thread-fatal", "run.thread-mismatch"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_draft_fixture_is_rejected_by_its_draft_rule() {
    let fixtures = corpus::draft().unwrap();
    assert_eq!(fixtures.len(), DRAFT_REASONS.len());
    let mut failures = Vec::new();
    for fixture in fixtures {
        let (_, kind) = DRAFT_REASONS
            .iter()
            .find(|(name, _)| *name == fixture.name)
            .unwrap_or_else(|| panic!("{}: no draft rule named", fixture.name));
        let mut expect = fixture.expect.clone();
        assert_eq!(expect.outcome, Some(Outcome::Failed), "{}", fixture.name);
        expect.error_contains = Some((*kind).to_owned());
        let observed = run(&at_our_version(fixture.clone())).await;
        for mismatch in expect.check(&observed) {
            failures.push(format!("{}: {mismatch}", fixture.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
