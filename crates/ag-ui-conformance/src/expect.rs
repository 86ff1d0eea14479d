//! A fixture's expectations ([`Expect`]), what a client ended with ([`Observed`]), and the check
//! of one against the other ([`Expect::check`]), as the corpus's runners make it.

use serde_json::{Map, Value};

use crate::error::{FixtureError, FixtureErrorKind};

/// Whether the client consumed the stream or rejected it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The client consumed the stream (a producer's `RUN_ERROR` included: that is the run's
    /// failure, not the client's rejection).
    Completed,
    /// The client rejected the stream.
    Failed,
}

impl Outcome {
    /// `completed` or `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Failed => "failed",
        }
    }

    fn parse(value: &Value) -> Option<Self> {
        match value.as_str()? {
            "completed" => Some(Outcome::Completed),
            "failed" => Some(Outcome::Failed),
            _ => None,
        }
    }
}

/// What `runError` asks: that the run reported its own failure (`true`), that it did not
/// (`false`), or that it did with a message containing this text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunErrorExpect {
    /// `true` / `false`.
    Reported(bool),
    /// A substring of the `RUN_ERROR` message.
    Contains(String),
}

/// Every key of `expect`, in the corpus README's order.
pub const KEYS: &[&str] = &[
    "outcome",
    "errorContains",
    "runError",
    "eventTypes",
    "eventTypesAbsent",
    "eventPaths",
    "eventAbsentPaths",
    "warnings",
    "noWarnings",
    "messageCount",
    "messages",
    "state",
    "request",
    "requestAbsentPaths",
];

/// A fixture's expectations: each key is optional and asserts what the corpus README says.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Expect {
    /// `outcome`.
    pub outcome: Option<Outcome>,
    /// `errorContains`: a substring of the rejection's message (the TypeScript client's wording
    /// in the official corpus; this project's rule kinds in its own scenarios).
    pub error_contains: Option<String>,
    /// `runError`.
    pub run_error: Option<RunErrorExpect>,
    /// `eventTypes`: the exact list of event types delivered to the application.
    pub event_types: Option<Vec<String>>,
    /// `eventTypesAbsent`.
    pub event_types_absent: Vec<String>,
    /// `eventPaths`: `"<index>.<dotted path>"` → the value there.
    pub event_paths: Vec<(String, Value)>,
    /// `eventAbsentPaths`.
    pub event_absent_paths: Vec<String>,
    /// `warnings`: each must appear in some warning.
    pub warnings: Vec<String>,
    /// `noWarnings`.
    pub no_warnings: bool,
    /// `messageCount`.
    pub message_count: Option<u64>,
    /// `messages`: a subset match of the final messages.
    pub messages: Option<Value>,
    /// `state`: a subset match of the final state (which may be `null`).
    pub state: Option<Value>,
    /// `request`: a subset match of the `RunAgentInput` sent.
    pub request: Option<Value>,
    /// `requestAbsentPaths`.
    pub request_absent_paths: Vec<String>,
    /// Not a key of the corpus: dotted paths that must be present in the request sent, what a
    /// relaxed expectation keeps of a value it no longer compares ([`third_party`](
    /// crate::third_party)).
    pub request_present_paths: Vec<String>,
}

/// What a client ended with, as a lane observes it (a plain record a lane fills in).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Observed {
    /// Whether it consumed the stream.
    pub outcome: Option<Outcome>,
    /// The rejection's message, when it rejected the stream.
    pub error: Option<String>,
    /// The last `RUN_ERROR` message delivered, if any.
    pub run_error: Option<String>,
    /// The events delivered to the application, as JSON, in order.
    pub events: Vec<Value>,
    /// The warnings the client gave.
    pub warnings: Vec<String>,
    /// The messages it holds afterwards.
    pub messages: Vec<Value>,
    /// The state it holds afterwards.
    pub state: Value,
    /// The `RunAgentInput` it sent (`None` when the lane did not see it).
    pub request: Option<Value>,
}

/// One expectation that did not hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The `expect` key.
    pub key: &'static str,
    /// What was expected and what was there.
    pub detail: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.key, self.detail)
    }
}

fn shape(field: impl Into<String>, message: impl Into<String>) -> FixtureError {
    FixtureError::new(FixtureErrorKind::Shape, message).with_field(field)
}

fn strings(value: &Value, field: &str) -> Result<Vec<String>, FixtureError> {
    let Value::Array(items) = value else {
        return Err(shape(field, "not an array of strings"));
    };
    items
        .iter()
        .map(|item| {
            item.as_str()
                .map(str::to_owned)
                .ok_or_else(|| shape(field, "not an array of strings"))
        })
        .collect()
}

impl Expect {
    /// Reads an `expect` object (or an override block, whose `intentional` is its reason and
    /// not an expectation).
    ///
    /// # Errors
    /// A [`FixtureError`] of kind [`Shape`](FixtureErrorKind::Shape) naming the key that is not
    /// one of [`KEYS`] or holds the wrong type.
    pub fn from_map(map: &Map<String, Value>, at: &str) -> Result<Self, FixtureError> {
        let mut expect = Expect::default();
        for (key, value) in map {
            let field = format!("{at}.{key}");
            match key.as_str() {
                "intentional" => {}
                "outcome" => {
                    expect.outcome = Some(
                        Outcome::parse(value)
                            .ok_or_else(|| shape(&field, "not \"completed\" or \"failed\""))?,
                    );
                }
                "errorContains" => {
                    expect.error_contains = Some(
                        value
                            .as_str()
                            .ok_or_else(|| shape(&field, "not a string"))?
                            .to_owned(),
                    );
                }
                "runError" => {
                    expect.run_error = Some(match value {
                        Value::Bool(b) => RunErrorExpect::Reported(*b),
                        Value::String(s) => RunErrorExpect::Contains(s.clone()),
                        _ => return Err(shape(&field, "not a boolean or a string")),
                    });
                }
                "eventTypes" => expect.event_types = Some(strings(value, &field)?),
                "eventTypesAbsent" => expect.event_types_absent = strings(value, &field)?,
                "eventAbsentPaths" => expect.event_absent_paths = strings(value, &field)?,
                "requestAbsentPaths" => expect.request_absent_paths = strings(value, &field)?,
                "warnings" => expect.warnings = strings(value, &field)?,
                "eventPaths" => {
                    let Value::Object(paths) = value else {
                        return Err(shape(&field, "not an object"));
                    };
                    expect.event_paths =
                        paths.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                }
                "noWarnings" => {
                    expect.no_warnings = value
                        .as_bool()
                        .ok_or_else(|| shape(&field, "not a boolean"))?;
                }
                "messageCount" => {
                    expect.message_count =
                        Some(value.as_u64().ok_or_else(|| shape(&field, "not a count"))?);
                }
                "messages" => expect.messages = Some(value.clone()),
                "state" => expect.state = Some(value.clone()),
                "request" => expect.request = Some(value.clone()),
                _ => {
                    return Err(shape(
                        &field,
                        "not an expectation key this reader knows (it would be skipped, and a skipped expectation passes)",
                    ));
                }
            }
        }
        Ok(expect)
    }

    /// Drops the expectation `key` (one of [`KEYS`]): a lane that relaxes it.
    pub fn relax(&mut self, key: &str) {
        match key {
            "outcome" => self.outcome = None,
            "errorContains" => self.error_contains = None,
            "runError" => self.run_error = None,
            "eventTypes" => self.event_types = None,
            "eventTypesAbsent" => self.event_types_absent.clear(),
            "eventPaths" => self.event_paths.clear(),
            "eventAbsentPaths" => self.event_absent_paths.clear(),
            "warnings" => self.warnings.clear(),
            "noWarnings" => self.no_warnings = false,
            "messageCount" => self.message_count = None,
            "messages" => self.messages = None,
            "state" => self.state = None,
            "request" => self.request = None,
            "requestAbsentPaths" => self.request_absent_paths.clear(),
            _ => {}
        }
    }

    /// Whether the expectation `key` asserts anything.
    pub fn has(&self, key: &str) -> bool {
        match key {
            "outcome" => self.outcome.is_some(),
            "errorContains" => self.error_contains.is_some(),
            "runError" => self.run_error.is_some(),
            "eventTypes" => self.event_types.is_some(),
            "eventTypesAbsent" => !self.event_types_absent.is_empty(),
            "eventPaths" => !self.event_paths.is_empty(),
            "eventAbsentPaths" => !self.event_absent_paths.is_empty(),
            "warnings" => !self.warnings.is_empty(),
            "noWarnings" => self.no_warnings,
            "messageCount" => self.message_count.is_some(),
            "messages" => self.messages.is_some(),
            "state" => self.state.is_some(),
            "request" => self.request.is_some(),
            "requestAbsentPaths" => !self.request_absent_paths.is_empty(),
            _ => false,
        }
    }

    /// Checks `observed` against every expectation, as the corpus's runners do; the ones that
    /// did not hold, in [`KEYS`] order. `request` expectations on a lane that did not see the
    /// request fail (they are not skipped).
    pub fn check(&self, observed: &Observed) -> Vec<Mismatch> {
        let mut out = Vec::new();
        self.check_outcome(observed, &mut out);
        self.check_events(observed, &mut out);
        self.check_warnings(observed, &mut out);
        self.check_client(observed, &mut out);
        self.check_request(observed, &mut out);
        out
    }

    /// `outcome`, `errorContains` and `runError`: how the run ended.
    fn check_outcome(&self, observed: &Observed, out: &mut Vec<Mismatch>) {
        let mut fail = |key: &'static str, detail: String| out.push(Mismatch { key, detail });
        if let Some(want) = self.outcome
            && observed.outcome != Some(want)
        {
            let got = observed.outcome.map_or("nothing", Outcome::as_str);
            let why = observed
                .error
                .as_deref()
                .map(|e| format!(" (it failed with: {e})"))
                .unwrap_or_default();
            fail(
                "outcome",
                format!("expected {}, got {got}{why}", want.as_str()),
            );
        }
        if let Some(want) = &self.error_contains {
            let got = observed.error.as_deref().unwrap_or("");
            if !got.contains(want.as_str()) {
                fail(
                    "errorContains",
                    format!("{want:?} is not in the error {got:?}"),
                );
            }
        }
        match (&self.run_error, &observed.run_error) {
            (Some(RunErrorExpect::Reported(false)), Some(got)) => {
                fail(
                    "runError",
                    format!("the run must not report a failure; it did: {got:?}"),
                );
            }
            (Some(RunErrorExpect::Reported(true) | RunErrorExpect::Contains(_)), None) => {
                fail(
                    "runError",
                    "the run was expected to report its own failure".into(),
                );
            }
            (Some(RunErrorExpect::Contains(want)), Some(got)) if !got.contains(want.as_str()) => {
                fail(
                    "runError",
                    format!("{want:?} is not in the run's error {got:?}"),
                );
            }
            _ => {}
        }
    }

    /// `eventTypes`, `eventTypesAbsent`, `eventPaths` and `eventAbsentPaths`: the events the
    /// application received.
    fn check_events(&self, observed: &Observed, out: &mut Vec<Mismatch>) {
        let mut fail = |key: &'static str, detail: String| out.push(Mismatch { key, detail });
        let types: Vec<&str> = observed
            .events
            .iter()
            .map(|e| e.get("type").and_then(Value::as_str).unwrap_or(""))
            .collect();
        if let Some(want) = &self.event_types
            && types != *want
        {
            fail(
                "eventTypes",
                format!("expected {want:?}, delivered {types:?}"),
            );
        }
        for absent in &self.event_types_absent {
            if types.contains(&absent.as_str()) {
                fail(
                    "eventTypesAbsent",
                    format!("{absent} reached the application"),
                );
            }
        }
        let events = Value::Array(observed.events.clone());
        for (path, want) in &self.event_paths {
            match read_path(&events, path) {
                Some(got) if got == want => {}
                Some(got) => fail("eventPaths", format!("{path}: expected {want}, got {got}")),
                None => fail(
                    "eventPaths",
                    format!("{path} does not exist in the delivered events"),
                ),
            }
        }
        for path in &self.event_absent_paths {
            if read_path(&events, path).is_some() {
                fail(
                    "eventAbsentPaths",
                    format!("{path} exists in the delivered events"),
                );
            }
        }
    }

    /// `warnings` and `noWarnings`: what the client warned about.
    fn check_warnings(&self, observed: &Observed, out: &mut Vec<Mismatch>) {
        let mut fail = |key: &'static str, detail: String| out.push(Mismatch { key, detail });
        for want in &self.warnings {
            if !observed.warnings.iter().any(|w| w.contains(want.as_str())) {
                fail(
                    "warnings",
                    format!("no warning contains {want:?}; saw {:?}", observed.warnings),
                );
            }
        }
        if self.no_warnings && !observed.warnings.is_empty() {
            fail(
                "noWarnings",
                format!(
                    "a conformant stream made the client warn: {:?}",
                    observed.warnings
                ),
            );
        }
    }

    /// `messageCount`, `messages` and `state`: what the client holds after the run.
    fn check_client(&self, observed: &Observed, out: &mut Vec<Mismatch>) {
        let mut fail = |key: &'static str, detail: String| out.push(Mismatch { key, detail });
        if let Some(want) = self.message_count
            && observed.messages.len() as u64 != want
        {
            fail(
                "messageCount",
                format!(
                    "expected {want} messages, the client holds {}",
                    observed.messages.len()
                ),
            );
        }
        let messages = Value::Array(observed.messages.clone());
        if let Some(want) = &self.messages
            && !subset(&messages, want)
        {
            fail(
                "messages",
                format!("expected a subset {want}, the client holds {messages}"),
            );
        }
        if let Some(want) = &self.state
            && !subset(&observed.state, want)
        {
            fail(
                "state",
                format!(
                    "expected a subset {want}, the client holds {}",
                    observed.state
                ),
            );
        }
    }

    /// `request`, `requestPresentPaths` and `requestAbsentPaths`: the request the client sent;
    /// failing when the lane did not see it.
    fn check_request(&self, observed: &Observed, out: &mut Vec<Mismatch>) {
        let mut fail = |key: &'static str, detail: String| out.push(Mismatch { key, detail });
        if let Some(want) = &self.request {
            match &observed.request {
                Some(got) if subset(got, want) => {}
                Some(got) => fail(
                    "request",
                    format!("expected a subset {want}, the client sent {got}"),
                ),
                None => fail("request", "the request was not seen".into()),
            }
        }
        for path in &self.request_present_paths {
            match &observed.request {
                Some(got) if read_path(got, path).is_some() => {}
                Some(_) => fail("request", format!("{path} is not in the request sent")),
                None => fail("request", "the request was not seen".into()),
            }
        }
        for path in &self.request_absent_paths {
            match &observed.request {
                Some(got) if read_path(got, path).is_none() => {}
                Some(_) => fail(
                    "requestAbsentPaths",
                    format!("{path} is in the request sent"),
                ),
                None => fail("requestAbsentPaths", "the request was not seen".into()),
            }
        }
    }
}

/// Whether `actual` matches `expected` as a subset: objects on the keys `expected` names
/// (meeting objects, never arrays), arrays of the same length element by element, anything
/// else equal.
pub fn subset(actual: &Value, expected: &Value) -> bool {
    match (expected, actual) {
        (Value::Array(want), Value::Array(got)) => {
            want.len() == got.len() && want.iter().zip(got).all(|(w, g)| subset(g, w))
        }
        (Value::Array(_), _) => false,
        (Value::Object(want), Value::Object(got)) => want
            .iter()
            .all(|(key, w)| got.get(key).is_some_and(|g| subset(g, w))),
        (Value::Object(_), _) => false,
        (want, got) => want == got,
    }
}

/// The value at a dotted path (`"2.delta.0.value"`): object members by name, array elements by
/// a decimal index; `None` when it does not exist (an explicit `null` exists).
pub fn read_path<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    let mut node = value;
    for key in path.split('.') {
        node = match node {
            Value::Array(items) => {
                // Only a plain decimal index addresses an element ("01" does not).
                if key.is_empty()
                    || !key.bytes().all(|b| b.is_ascii_digit())
                    || (key.len() > 1 && key.starts_with('0'))
                {
                    return None;
                }
                items.get(key.parse::<usize>().ok()?)?
            }
            Value::Object(map) => map.get(key)?,
            _ => return None,
        };
    }
    Some(node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn subset_matches_as_the_runners_do() {
        assert!(subset(&json!({"a": 1, "b": [1, 2]}), &json!({"b": [1, 2]})));
        assert!(!subset(&json!({"b": [1, 2, 3]}), &json!({"b": [1, 2]})));
        assert!(!subset(&json!([{"a": 1}]), &json!({"0": {"a": 1}})));
        assert!(subset(&json!(null), &json!(null)));
        assert!(!subset(&json!({}), &json!(null)));
        assert!(subset(&json!(["x"]), &json!(["x"])));
    }

    #[test]
    fn paths_read_objects_and_array_indexes_only() {
        let events = json!([{"type": "A", "delta": [{"value": null}]}]);
        assert_eq!(read_path(&events, "0.delta.0.value"), Some(&Value::Null));
        assert_eq!(read_path(&events, "0.delta.00.value"), None);
        assert_eq!(read_path(&events, "0.delta.length"), None);
        assert_eq!(read_path(&events, "1.type"), None);
    }

    #[test]
    fn unknown_keys_are_refused_not_skipped() {
        let map = json!({"outcome": "completed", "futureKey": 1});
        let err = Expect::from_map(map.as_object().unwrap(), "expect").unwrap_err();
        assert_eq!(err.kind(), FixtureErrorKind::Shape);
        assert_eq!(err.field(), Some("expect.futureKey"));
    }

    #[test]
    fn every_key_is_checked() {
        let map = json!({
            "outcome": "completed", "runError": "boom", "eventTypes": ["RUN_ERROR"],
            "eventPaths": {"0.code": "X"}, "noWarnings": true, "messageCount": 0, "state": null,
            "request": {"threadId": "t"}, "requestAbsentPaths": ["protocolVersion"]
        });
        let expect = Expect::from_map(map.as_object().unwrap(), "expect").unwrap();
        let good = Observed {
            outcome: Some(Outcome::Completed),
            run_error: Some("a boom".into()),
            events: vec![json!({"type": "RUN_ERROR", "code": "X"})],
            state: Value::Null,
            request: Some(json!({"threadId": "t"})),
            ..Observed::default()
        };
        assert_eq!(expect.check(&good), []);
        let bad = Observed {
            outcome: Some(Outcome::Failed),
            warnings: vec!["w".into()],
            state: json!({}),
            request: Some(json!({"threadId": "t", "protocolVersion": "1.0"})),
            ..Observed::default()
        };
        let keys: Vec<&str> = expect.check(&bad).iter().map(|m| m.key).collect();
        assert_eq!(
            keys,
            [
                "outcome",
                "runError",
                "eventTypes",
                "eventPaths",
                "noWarnings",
                "state",
                "requestAbsentPaths"
            ]
        );
    }
}
