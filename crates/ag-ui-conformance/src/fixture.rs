//! [`Fixture`]: one stream of the corpus with what a client must end with, read from its JSON
//! as hostile input (bounded, every key checked, typed errors).

use serde_json::{Map, Value};

use crate::error::{FixtureError, FixtureErrorKind};
use crate::expect::Expect;

/// The largest fixture file read, in bytes.
pub const MAX_FIXTURE_BYTES: usize = 1024 * 1024;

/// The most stream items a fixture may hold.
pub const MAX_STREAM_ITEMS: usize = 10_000;

/// The longest fixture name, in bytes.
pub const MAX_NAME_BYTES: usize = 100;

/// One item of a fixture's `stream`.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// An event, sent as the JSON of one SSE frame (a `timestamp` filled in when it has none
    /// or `null`, as the TypeScript lane's replay server does).
    Event(Map<String, Value>),
    /// This project's extension: SSE text written as it is (comments, framing, escapes a JSON
    /// value cannot hold, such as a lone surrogate half).
    Raw(String),
}

/// What the run starts from (`input`): the corpus's messages and tools, and the context and
/// forwarded props the TypeScript lane also passes; each as the JSON it is.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Input {
    /// `messages`.
    pub messages: Vec<Value>,
    /// `tools`.
    pub tools: Vec<Value>,
    /// `context`.
    pub context: Vec<Value>,
    /// `forwardedProps`.
    pub forwarded_props: Option<Value>,
}

/// This project's extension: a second run, sent with these `resume` entries, answered with its
/// own stream. The expectations hold after it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Resume {
    /// The `resume` entries the client sends.
    pub entries: Vec<Value>,
    /// The second run's stream.
    pub stream: Vec<Item>,
}

/// A fixture of the corpus (`spec/1.1/conformance/README.md` has the format), with this
/// project's extensions: `tags`, `resume` and raw SSE items in `stream`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Fixture {
    /// Its name (the file's, without `.json`).
    pub name: String,
    /// The area it groups under.
    pub area: Option<String>,
    /// What it proves.
    pub description: String,
    /// The specification page.
    pub spec_page: Option<String>,
    /// The change to a client that must make it fail.
    pub kill: Option<String>,
    /// This project's tags: what it exercises; `strict` where this project's client is stricter
    /// than the reference one; `protobuf` where it is served as protobuf to a client asking.
    pub tags: Vec<String>,
    /// `client.maxProtocolVersion`: the peer version the client is pinned to.
    pub max_protocol_version: Option<String>,
    /// `input`.
    pub input: Input,
    /// `stream`.
    pub stream: Vec<Item>,
    /// `resume` (this project's extension).
    pub resume: Option<Resume>,
    /// `expect`.
    pub expect: Expect,
    /// `expectOverrides`, each lane's expectations with its keys in place of the base's.
    pub overrides: Vec<(String, Expect)>,
}

fn shape(field: impl Into<String>, message: impl Into<String>) -> FixtureError {
    FixtureError::new(FixtureErrorKind::Shape, message).with_field(field)
}

fn opt_string(map: &Map<String, Value>, key: &str) -> Result<Option<String>, FixtureError> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(shape(key, "not a string")),
    }
}

fn array<'a>(value: &'a Value, field: &str) -> Result<&'a Vec<Value>, FixtureError> {
    value.as_array().ok_or_else(|| shape(field, "not an array"))
}

fn items(value: &Value, field: &str) -> Result<Vec<Item>, FixtureError> {
    let list = array(value, field)?;
    if list.len() > MAX_STREAM_ITEMS {
        return Err(FixtureError::new(
            FixtureErrorKind::TooLarge,
            format!("{} items, over {MAX_STREAM_ITEMS}", list.len()),
        )
        .with_field(field));
    }
    list.iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::Object(event) => match event.get("type") {
                Some(Value::String(_)) => Ok(Item::Event(event.clone())),
                _ => Err(shape(
                    format!("{field}[{i}]"),
                    "an event without a string type",
                )),
            },
            Value::String(raw) => Ok(Item::Raw(raw.clone())),
            _ => Err(shape(
                format!("{field}[{i}]"),
                "not an event object (or raw SSE text)",
            )),
        })
        .collect()
}

/// Whether `name` is a fixture name: lower-case letters, digits and dashes, at most
/// [`MAX_NAME_BYTES`] (it is a path segment of the kit's URLs and a file name).
pub fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_BYTES
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The fixture's `name`: present, a string, and a fixture name.
fn read_name(map: &Map<String, Value>) -> Result<String, FixtureError> {
    let name = opt_string(map, "name")?.ok_or_else(|| shape("name", "missing"))?;
    if !is_name(&name) {
        return Err(shape(
            "name",
            format!(
                "{:?} is not a fixture name (lower-case letters, digits and dashes, at most {MAX_NAME_BYTES} bytes)",
                crate::error::quote(&name)
            ),
        ));
    }
    Ok(name)
}

/// The fixture's `tags`: an array of strings.
fn read_tags(tags: &Value) -> Result<Vec<String>, FixtureError> {
    array(tags, "tags")?
        .iter()
        .map(|t| {
            t.as_str()
                .map(str::to_owned)
                .ok_or_else(|| shape("tags", "not an array of strings"))
        })
        .collect()
}

/// The fixture's `client` block: its `maxProtocolVersion`, the only key it may hold.
fn read_client(client: &Value) -> Result<Option<String>, FixtureError> {
    let Value::Object(client) = client else {
        return Err(shape("client", "not an object"));
    };
    for key in client.keys() {
        if key != "maxProtocolVersion" {
            return Err(shape(
                format!("client.{key}"),
                "not a key of the fixture format",
            ));
        }
    }
    opt_string(client, "maxProtocolVersion").map_err(|e| e.with_field("client.maxProtocolVersion"))
}

/// The fixture's `input` block: its messages, tools, context and forwarded props.
fn read_input(input: &Value) -> Result<Input, FixtureError> {
    let Value::Object(input) = input else {
        return Err(shape("input", "not an object"));
    };
    let list = |key: &str| -> Result<Vec<Value>, FixtureError> {
        match input.get(key) {
            None => Ok(Vec::new()),
            Some(v) => Ok(array(v, &format!("input.{key}"))?.clone()),
        }
    };
    for key in input.keys() {
        if !matches!(
            key.as_str(),
            "messages" | "tools" | "context" | "forwardedProps"
        ) {
            return Err(shape(
                format!("input.{key}"),
                "not a key of the fixture format",
            ));
        }
    }
    Ok(Input {
        messages: list("messages")?,
        tools: list("tools")?,
        context: list("context")?,
        forwarded_props: input.get("forwardedProps").cloned(),
    })
}

/// The fixture's `resume` block: the resume entries and the stream the resumed run sends.
fn read_resume(resume: &Value) -> Result<Resume, FixtureError> {
    let Value::Object(resume) = resume else {
        return Err(shape("resume", "not an object"));
    };
    Ok(Resume {
        entries: array(
            resume
                .get("entries")
                .ok_or_else(|| shape("resume.entries", "missing"))?,
            "resume.entries",
        )?
        .clone(),
        stream: items(
            resume
                .get("stream")
                .ok_or_else(|| shape("resume.stream", "missing"))?,
            "resume.stream",
        )?,
    })
}

/// The fixture's `expectOverrides`: per lane, its block merged over the base `expect`, each
/// block stating the `intentional` reason it differs.
fn read_overrides(
    base: &Map<String, Value>,
    lanes: &Value,
) -> Result<Vec<(String, Expect)>, FixtureError> {
    let Value::Object(lanes) = lanes else {
        return Err(shape("expectOverrides", "not an object"));
    };
    let mut overrides = Vec::new();
    for (lane, block) in lanes {
        let Value::Object(block) = block else {
            return Err(shape(format!("expectOverrides.{lane}"), "not an object"));
        };
        if !block.contains_key("intentional") {
            return Err(shape(
                format!("expectOverrides.{lane}"),
                "an override without its `intentional` reason",
            ));
        }
        let mut merged = base.clone();
        for (key, value) in block {
            merged.insert(key.clone(), value.clone());
        }
        let at = format!("expectOverrides.{lane}");
        overrides.push((lane.clone(), Expect::from_map(&merged, &at)?));
    }
    Ok(overrides)
}

impl Fixture {
    /// Reads a fixture from the bytes of its file.
    ///
    /// # Errors
    /// A [`FixtureError`]: [`TooLarge`](FixtureErrorKind::TooLarge) over
    /// [`MAX_FIXTURE_BYTES`] or [`MAX_STREAM_ITEMS`], [`Json`](FixtureErrorKind::Json) for bytes
    /// that are not JSON, [`Shape`](FixtureErrorKind::Shape) naming the key that is missing,
    /// mistyped or unknown.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, FixtureError> {
        if bytes.len() > MAX_FIXTURE_BYTES {
            return Err(FixtureError::new(
                FixtureErrorKind::TooLarge,
                format!("{} bytes, over {MAX_FIXTURE_BYTES}", bytes.len()),
            ));
        }
        let value: Value = serde_json::from_slice(bytes)
            .map_err(|e| FixtureError::new(FixtureErrorKind::Json, "not JSON").with_source(e))?;
        Self::from_value(&value)
    }

    /// Reads a fixture from its JSON.
    ///
    /// # Errors
    /// As [`from_slice`](Self::from_slice), without the size and JSON checks.
    pub fn from_value(value: &Value) -> Result<Self, FixtureError> {
        let Value::Object(map) = value else {
            return Err(shape("", "the fixture is not a JSON object"));
        };
        for key in map.keys() {
            if !matches!(
                key.as_str(),
                "name"
                    | "area"
                    | "description"
                    | "specPage"
                    | "kill"
                    | "client"
                    | "input"
                    | "stream"
                    | "expect"
                    | "expectOverrides"
                    | "tags"
                    | "resume"
            ) {
                return Err(shape(key.as_str(), "not a key of the fixture format"));
            }
        }
        let name = read_name(map)?;
        let tags = match map.get("tags") {
            None => Vec::new(),
            Some(tags) => read_tags(tags)?,
        };
        let max_protocol_version = match map.get("client") {
            None => None,
            Some(client) => read_client(client)?,
        };
        let input = match map.get("input") {
            None => Input::default(),
            Some(input) => read_input(input)?,
        };
        let stream = items(
            map.get("stream")
                .ok_or_else(|| shape("stream", "missing"))?,
            "stream",
        )?;
        let resume = match map.get("resume") {
            None => None,
            Some(resume) => Some(read_resume(resume)?),
        };
        let Some(Value::Object(base)) = map.get("expect") else {
            return Err(shape("expect", "missing, or not an object"));
        };
        let expect = Expect::from_map(base, "expect")?;
        let overrides = match map.get("expectOverrides") {
            None => Vec::new(),
            Some(lanes) => read_overrides(base, lanes)?,
        };
        Ok(Fixture {
            name,
            area: opt_string(map, "area")?,
            description: opt_string(map, "description")?.unwrap_or_default(),
            spec_page: opt_string(map, "specPage")?,
            kill: opt_string(map, "kill")?,
            tags,
            max_protocol_version,
            input,
            stream,
            resume,
            expect,
            overrides,
        })
    }

    /// Whether it carries `tag`.
    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t == tag)
    }

    /// The expectations of `lane` (its `expectOverrides` block over the base), or the base's.
    pub fn expect_for(&self, lane: &str) -> &Expect {
        self.overrides
            .iter()
            .find(|(l, _)| l == lane)
            .map_or(&self.expect, |(_, e)| e)
    }

    /// The thread the stream's first `RUN_STARTED` names: the one a client replaying the fixture
    /// asks about, as the TypeScript lane does.
    pub fn thread_id(&self) -> Option<&str> {
        self.stream.iter().find_map(|item| match item {
            Item::Event(e) if e.get("type").and_then(Value::as_str) == Some("RUN_STARTED") => {
                e.get("threadId").and_then(Value::as_str)
            }
            _ => None,
        })
    }
}

/// A piece of the SSE body of a stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frame<'a> {
    /// The JSON of one event, to be written as one `data:` frame.
    Json(Vec<u8>),
    /// SSE text written as it is.
    Raw(&'a str),
}

/// The frames of `stream`, each event's `timestamp` set to `now_ms` when it has none or `null`
/// (as the TypeScript lane's replay server fills it; a present, wrong one is sent as it is).
pub fn frames(stream: &[Item], now_ms: i64) -> Vec<Frame<'_>> {
    stream
        .iter()
        .map(|item| match item {
            Item::Raw(raw) => Frame::Raw(raw),
            Item::Event(event) => {
                let filled;
                let event = match event.get("timestamp") {
                    None | Some(Value::Null) => {
                        let mut with = event.clone();
                        with.insert("timestamp".into(), Value::from(now_ms));
                        filled = with;
                        &filled
                    }
                    Some(_) => event,
                };
                // A map of JSON values always serializes.
                Frame::Json(serde_json::to_vec(event).unwrap_or_default())
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hostile_fixtures_are_typed_errors() {
        let cases: [(&[u8], FixtureErrorKind, Option<&str>); 7] = [
            (b"{", FixtureErrorKind::Json, None),
            (b"[]", FixtureErrorKind::Shape, Some("")),
            (br#"{"name":"A B","stream":[],"expect":{}}"#, FixtureErrorKind::Shape, Some("name")),
            (br#"{"name":"a","stream":[1],"expect":{}}"#, FixtureErrorKind::Shape, Some("stream[0]")),
            (br#"{"name":"a","stream":[],"expect":{"outcome":"maybe"}}"#, FixtureErrorKind::Shape, Some("expect.outcome")),
            (br#"{"name":"a","stream":[],"expect":{},"expectOverrides":{"x":{"noWarnings":true}}}"#, FixtureErrorKind::Shape, Some("expectOverrides.x")),
            (br#"{"name":"a","stream":[],"expect":{},"novel":1}"#, FixtureErrorKind::Shape, Some("novel")),
        ];
        for (bytes, kind, field) in cases {
            let err = Fixture::from_slice(bytes).unwrap_err();
            assert_eq!((err.kind(), err.field()), (kind, field), "{err}");
        }
        let huge = vec![b' '; MAX_FIXTURE_BYTES + 1];
        assert_eq!(
            Fixture::from_slice(&huge).unwrap_err().kind(),
            FixtureErrorKind::TooLarge
        );
        let long =
            json!({"name": "a", "stream": vec![json!("x"); MAX_STREAM_ITEMS + 1], "expect": {}});
        assert_eq!(
            Fixture::from_value(&long).unwrap_err().kind(),
            FixtureErrorKind::TooLarge
        );
    }

    #[test]
    fn timestamps_are_filled_where_absent_or_null_only() {
        let stream = items(
            &json!([{"type": "A"}, {"type": "B", "timestamp": null}, {"type": "C", "timestamp": "x"}, "raw"]),
            "stream",
        )
        .unwrap();
        let frames = frames(&stream, 7);
        let text = |f: &Frame<'_>| match f {
            Frame::Json(bytes) => String::from_utf8(bytes.clone()).unwrap(),
            Frame::Raw(raw) => (*raw).to_owned(),
        };
        let got: Vec<String> = frames.iter().map(text).collect();
        assert_eq!(
            got,
            [
                r#"{"type":"A","timestamp":7}"#,
                r#"{"type":"B","timestamp":7}"#,
                r#"{"type":"C","timestamp":"x"}"#,
                "raw"
            ]
        );
    }
}
