//! The AG-UI conformance corpus as data, for any client.
//!
//! The AG-UI project keeps its protocol's behaviour as a corpus of streams
//! (`spec/1.1/conformance/streams` of the ag-ui repository): each fixture is one stream replayed
//! into a client, with what the client must end with (`expect`). This crate holds:
//!
//! - the official 68 fixtures, verbatim ([`corpus::official`], `corpus/official/` with its
//!   `ORIGIN.md` and `MANIFEST.txt`), and this project's own scenarios written in the same
//!   format ([`corpus::ours`], `corpus/ours/`), compiled in;
//! - the reader of the format ([`Fixture::from_slice`], [`corpus::load_dir`]): bounded, every
//!   key checked (an unknown expectation key is an error, never a skipped assertion), typed
//!   errors ([`FixtureError`]);
//! - the check of what a client ended with ([`Observed`]) against a fixture's expectations
//!   ([`Expect::check`]), as the corpus's runners make it: subset matches, dotted paths into the
//!   delivered events, the request sent;
//! - what a client other than the two official ones is not held to ([`third_party`]).
//!
//! `ag-ui conformance client` serves both sets to any client; this workspace's Rust lane
//! (`crates/ag-ui/tests/client/conformance.rs`) runs every official fixture through `HttpAgent`
//! and `Conversation` over a real socket.
//!
//! This project's extensions of the format, in its own scenarios only: `tags` (`strict` where
//! this project's client is stricter than the reference one, `protobuf` where the kit serves
//! protobuf to a client asking for it), a `resume` block (a second run with its `resume`
//! entries and stream; the expectations hold after it), and raw SSE text as a string item of
//! `stream` (framing, comments, escapes a JSON value cannot hold).
//!
//! ```
//! use ag_ui_conformance::{Observed, Outcome, corpus};
//! use serde_json::json;
//!
//! let fixtures = corpus::official()?;
//! let quiet = fixtures.iter().find(|f| f.name == "run-error-first-run-continues").unwrap();
//! // What a client that delivered the RUN_ERROR and consumed the stream ends with.
//! let observed = Observed {
//!     outcome: Some(Outcome::Completed),
//!     run_error: Some("run-error-first: the agent was unreachable".into()),
//!     events: vec![json!({"type": "RUN_ERROR", "message": "…", "code": "UNAVAILABLE"})],
//!     ..Observed::default()
//! };
//! assert_eq!(quiet.expect.check(&observed), []);
//! // Rejecting it is a failure of the fixture.
//! let rejected = Observed { outcome: Some(Outcome::Failed), ..observed };
//! assert_eq!(quiet.expect.check(&rejected)[0].key, "outcome");
//! # Ok::<(), ag_ui_conformance::FixtureError>(())
//! ```

pub mod corpus;
mod error;
mod expect;
mod fixture;

pub use error::{FixtureError, FixtureErrorKind};
pub use expect::{Expect, KEYS, Mismatch, Observed, Outcome, RunErrorExpect, read_path, subset};
pub use fixture::{
    Fixture, Frame, Input, Item, MAX_FIXTURE_BYTES, MAX_NAME_BYTES, MAX_STREAM_ITEMS, Resume,
    frames, is_name,
};

use serde_json::{Value, json};

/// An expectation a lane does not hold a client to, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relaxed {
    /// The `expect` key.
    pub key: &'static str,
    /// Why.
    pub reason: &'static str,
}

/// The one fixture that asserts what the specification says should change (the corpus README's
/// admitted gap).
pub const ADMITTED_GAP: &str = "unknown-enum-value-role-fatal";

/// What a client other than the two official ones is held to, as the corpus README says to
/// relax it: the base expectations (no lane's `expectOverrides`), without the SHOULD-level
/// `warnings` and `noWarnings`, the `era-*` fixtures' translation results (everything but
/// `outcome`), the admitted gap's `outcome` and `errorContains`, and every `errorContains`
/// (its wording is the TypeScript client's; in this project's scenarios, this project's rule
/// kinds). What remains is conformance.
///
/// ```
/// use ag_ui_conformance::{corpus, third_party};
///
/// let fixtures = corpus::official()?;
/// let era = fixtures.iter().find(|f| f.name == "era-0-0-39-flattens-content").unwrap();
/// let (expect, relaxed) = third_party(era);
/// assert!(expect.has("outcome") && !expect.has("request"));
/// assert!(relaxed.iter().any(|r| r.key == "request"));
/// # Ok::<(), ag_ui_conformance::FixtureError>(())
/// ```
pub fn third_party(fixture: &Fixture) -> (Expect, Vec<Relaxed>) {
    let mut expect = fixture.expect.clone();
    let mut relaxed = Vec::new();
    let mut relax = |expect: &mut Expect, key: &'static str, reason: &'static str| {
        if expect.has(key) {
            expect.relax(key);
            relaxed.push(Relaxed { key, reason });
        }
    };
    if fixture.name.starts_with("era-") {
        for key in KEYS.iter().filter(|k| **k != "outcome") {
            relax(
                &mut expect,
                key,
                "an era shim's translation result: the specification permits it, it does not require it",
            );
        }
    }
    if fixture.name == ADMITTED_GAP {
        for key in ["outcome", "errorContains"] {
            relax(
                &mut expect,
                key,
                "the admitted gap: it asserts the TypeScript client's behaviour, which the specification says should change",
            );
        }
    }
    for key in ["warnings", "noWarnings"] {
        relax(
            &mut expect,
            key,
            "SHOULD-level: what a client says about what it strips is its own",
        );
    }
    relax(
        &mut expect,
        "errorContains",
        "the wording of a rejection is the client's own (the TypeScript client's in the official corpus, this project's rule kinds in its scenarios)",
    );
    // The corpus's client speaks protocol 1.1: the version a current client declares is its
    // own; that it declares one at all is still checked.
    if let Some(Value::Object(request)) = &mut expect.request
        && request.remove("protocolVersion").is_some()
    {
        relaxed.push(Relaxed {
            key: "request",
            reason: "protocolVersion: the version a current client declares is its own (the corpus's client speaks 1.1); that it declares one is checked",
        });
        if request.is_empty() {
            expect.request = None;
        }
        expect
            .request_present_paths
            .push("protocolVersion".to_owned());
    }
    (expect, relaxed)
}

/// The verdict of a fixture on a client other than the two official ones: `{"pass", "failures",
/// "relaxed"}`, each failure `{"key", "detail"}`, each relaxation `{"key", "reason"}`.
pub fn third_party_verdict(fixture: &Fixture, observed: &Observed) -> Value {
    let (expect, relaxed) = third_party(fixture);
    let failures = expect.check(observed);
    json!({
        "pass": failures.is_empty(),
        "failures": failures.iter().map(|m| json!({"key": m.key, "detail": m.detail})).collect::<Vec<_>>(),
        "relaxed": relaxed.iter().map(|r| json!({"key": r.key, "reason": r.reason})).collect::<Vec<_>>(),
    })
}

impl Observed {
    /// Reads what a client reports it ended with: `{"outcome": "completed" | "failed", "error",
    /// "runError", "events", "warnings", "messages", "state", "request"}` (each optional but
    /// `outcome`).
    ///
    /// # Errors
    /// A [`FixtureError`] of kind [`Shape`](FixtureErrorKind::Shape) naming the member that is
    /// missing or of the wrong type.
    pub fn from_json(value: &Value) -> Result<Self, FixtureError> {
        let shape = |field: &str, message: &str| {
            FixtureError::new(FixtureErrorKind::Shape, message).with_field(field)
        };
        let Value::Object(map) = value else {
            return Err(shape("", "the observation is not a JSON object"));
        };
        let text = |key: &str| -> Result<Option<String>, FixtureError> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(shape(key, "not a string")),
            }
        };
        let list = |key: &str| -> Result<Vec<Value>, FixtureError> {
            match map.get(key) {
                None => Ok(Vec::new()),
                Some(Value::Array(items)) => Ok(items.clone()),
                Some(_) => Err(shape(key, "not an array")),
            }
        };
        let outcome = match map.get("outcome").and_then(Value::as_str) {
            Some("completed") => Outcome::Completed,
            Some("failed") => Outcome::Failed,
            _ => return Err(shape("outcome", "not \"completed\" or \"failed\"")),
        };
        let warnings = list("warnings")?
            .into_iter()
            .map(|w| match w {
                Value::String(s) => Ok(s),
                _ => Err(shape("warnings", "not an array of strings")),
            })
            .collect::<Result<_, _>>()?;
        Ok(Observed {
            outcome: Some(outcome),
            error: text("error")?,
            run_error: text("runError")?,
            events: list("events")?,
            warnings,
            messages: list("messages")?,
            state: map.get("state").cloned().unwrap_or(Value::Null),
            request: map.get("request").cloned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The corpus README's relaxations, each with its reason, and nothing else relaxed.
    #[test]
    fn a_third_party_is_relaxed_as_the_readme_says() {
        let fixtures = corpus::official().unwrap();
        let find = |name: &str| fixtures.iter().find(|f| f.name == name).unwrap();
        let keys = |name: &str| -> Vec<&'static str> {
            third_party(find(name)).1.iter().map(|r| r.key).collect()
        };
        assert_eq!(keys("conformant-run-is-quiet"), ["noWarnings"]);
        assert_eq!(keys(ADMITTED_GAP), ["outcome", "errorContains"]);
        assert_eq!(keys("content-without-start-fatal"), ["errorContains"]);
        assert_eq!(keys("era-0-0-39-flattens-content"), ["warnings", "request"]);
        // The version a current client declares is its own, but it must declare one.
        let (expect, relaxed) = third_party(find("current-peer-declares-protocol-version"));
        assert_eq!(
            relaxed.iter().map(|r| r.key).collect::<Vec<_>>(),
            ["noWarnings", "request"]
        );
        assert!(expect.request.is_none());
        let sent = |request: Value| Observed {
            outcome: Some(Outcome::Completed),
            request: Some(request),
            ..Observed::default()
        };
        assert_eq!(expect.check(&sent(json!({"protocolVersion": "1.0"}))), []);
        assert_eq!(
            expect.check(&sent(json!({"threadId": "t"})))[0].key,
            "request"
        );
        // Each relaxation of a fixture has a reason.
        for fixture in &fixtures {
            for relaxed in third_party(fixture).1 {
                assert!(
                    relaxed.reason.len() > 20,
                    "{}: {}",
                    fixture.name,
                    relaxed.key
                );
            }
        }
    }

    #[test]
    fn an_observation_is_read_as_hostile_input() {
        let observed =
            Observed::from_json(&json!({"outcome": "failed", "error": "x", "state": null}))
                .unwrap();
        assert_eq!(
            (observed.outcome, observed.error.as_deref()),
            (Some(Outcome::Failed), Some("x"))
        );
        for (bad, field) in [
            (json!([]), ""),
            (json!({}), "outcome"),
            (json!({"outcome": "completed", "events": {}}), "events"),
            (json!({"outcome": "completed", "warnings": [1]}), "warnings"),
            (json!({"outcome": "completed", "runError": 3}), "runError"),
        ] {
            let err = Observed::from_json(&bad).unwrap_err();
            assert_eq!(
                (err.kind(), err.field()),
                (FixtureErrorKind::Shape, Some(field)),
                "{bad}"
            );
        }
    }
}
