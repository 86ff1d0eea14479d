//! The stream checker of the server probes: a response's frames decoded (SSE or protobuf),
//! each event's JSON checked for the 1.0 shape, the events checked against every ordering
//! rule after chunk expansion, as the reference client does.

use ag_ui::client::chunks::ChunkNormalizer;
use ag_ui::encoding::{PROTO_MEDIA_TYPE, proto, sse};
use ag_ui::verify::Verifier;
use ag_ui::{DecodeErrorKind, Event, EventType};
use serde_json::Value;

use super::super::report::excerpt;
use super::probe::Reply;

/// What a response held, and the first problem of each kind.
#[derive(Debug, Default)]
pub(crate) struct Analysis {
    /// The events, as decoded (chunks not expanded), in order.
    pub(crate) events: Vec<Event>,
    /// Each event's JSON as sent (for protobuf: as decoded and written back).
    pub(crate) values: Vec<Value>,
    /// The SSE `id:` in force at each event (none for protobuf).
    pub(crate) ids: Vec<Option<String>>,
    /// SSE comment lines (keep-alives) seen.
    pub(crate) comments: usize,
    /// The first frame that is not valid 1.0 event JSON (not JSON, unknown member spelt in
    /// snake_case, an optional member sent as `null`, a field of the wrong type).
    pub(crate) json_problem: Option<String>,
    /// The first ordering problem (a rule kind at an event), or a stream that ended inside a
    /// run or broke off.
    pub(crate) order_problem: Option<String>,
    /// Whether the answer was protobuf.
    pub(crate) protobuf: bool,
}

impl Analysis {
    /// The first problem of either kind.
    pub(crate) fn problem(&self) -> Option<&str> {
        self.json_problem
            .as_deref()
            .or(self.order_problem.as_deref())
    }
}

/// Reads a response's body as an AG-UI stream (protobuf when its content type says so, SSE
/// otherwise) and checks it.
pub(crate) fn analyze(reply: &Reply) -> Analysis {
    let mut analysis = Analysis::default();
    let mut checker = Checker::default();
    // A body cut off (by the size bound or a broken connection) says so first, and its last,
    // partial frame is not read as a frame.
    let complete = !reply.truncated && reply.broken.is_none();
    if let Some(broken) = &reply.broken {
        analysis.order_problem = Some(format!("the body broke off: {broken}"));
    }
    if reply.truncated {
        analysis.order_problem = Some(format!(
            "the body went on past {} MiB (read no further)",
            super::probe::MAX_BODY >> 20
        ));
    }
    if reply.media_type() == PROTO_MEDIA_TYPE {
        analysis.protobuf = true;
        let mut frames = proto::FrameDecoder::new();
        frames.push(&reply.body);
        if complete {
            frames.finish();
        }
        loop {
            match frames.next_frame() {
                Ok(Some(frame)) => match proto::decode_message(frame.message()) {
                    Ok(event) => {
                        let mut json = Vec::new();
                        event.write_json(&mut json);
                        checker.frame(&mut analysis, &json, None);
                    }
                    Err(e) => {
                        analysis.json_problem.get_or_insert(format!(
                            "protobuf frame {} does not decode: {e}",
                            frame.index()
                        ));
                        break;
                    }
                },
                Ok(None) => break,
                Err(e) => {
                    analysis
                        .order_problem
                        .get_or_insert(format!("the protobuf stream is broken: {e}"));
                    break;
                }
            }
        }
    } else {
        analysis.comments = reply
            .body
            .split(|b| *b == b'\n')
            .filter(|line| line.first() == Some(&b':'))
            .count();
        let mut frames = sse::FrameDecoder::new();
        frames.push(&reply.body);
        if complete {
            frames.finish();
        }
        loop {
            match frames.next_frame() {
                Ok(Some(frame)) => {
                    let id = frame.id().map(str::to_owned);
                    let data = frame.data().to_vec();
                    checker.frame(&mut analysis, &data, id);
                }
                Ok(None) => break,
                Err(e) => {
                    analysis
                        .json_problem
                        .get_or_insert(format!("an SSE frame is unreadable: {e}"));
                    break;
                }
            }
        }
    }
    checker.finish(&mut analysis);
    analysis
}

/// The verifiers of one stream.
struct Checker {
    /// `check_json` on the frames as sent, for the null and shape rules; dropped at the first
    /// chunk event, whose expansion it cannot see.
    raw: Option<Verifier>,
    chunks: ChunkNormalizer,
    order: Verifier,
    expanded: Vec<Event>,
}

impl Default for Checker {
    fn default() -> Self {
        Self {
            raw: Some(Verifier::new()),
            chunks: ChunkNormalizer::new(),
            order: Verifier::new(),
            expanded: Vec::new(),
        }
    }
}

impl Checker {
    fn frame(&mut self, analysis: &mut Analysis, json: &[u8], id: Option<String>) {
        let index = analysis.events.len();
        let event = match Event::from_slice(json) {
            Ok(event) => event,
            Err(e) if e.kind() == DecodeErrorKind::UnknownEventType => return,
            Err(e) => {
                analysis.json_problem.get_or_insert(format!(
                    "event {index} is not valid AG-UI 1.0 JSON: {e}: {:?}",
                    excerpt(json)
                ));
                return;
            }
        };
        let value: Value = serde_json::from_slice(json).unwrap_or(Value::Null);
        if analysis.json_problem.is_none() {
            let mut written = Vec::new();
            event.write_json(&mut written);
            let written: Value = serde_json::from_slice(&written).unwrap_or(Value::Null);
            if let Some(problem) = shape_problem(&value, &written, "") {
                analysis.json_problem = Some(format!(
                    "event {index} ({}): {problem}: {:?}",
                    event.event_type(),
                    excerpt(json)
                ));
            }
        }
        let chunk = matches!(
            event.event_type(),
            EventType::TextMessageChunk
                | EventType::ToolCallChunk
                | EventType::ReasoningMessageChunk
        );
        if chunk {
            self.raw = None;
        }
        if let Some(raw) = &mut self.raw
            && let Err(error) = raw.check_json(json)
            && let Some(v) = error.violation()
            && analysis.json_problem.is_none()
            && matches!(
                v.kind().as_str(),
                "attribution.null"
                    | "subagent.missing-field"
                    | "subagent.null-field"
                    | "subagent.bad-outcome"
            )
        {
            analysis.json_problem = Some(format!("{v}: {:?}", excerpt(json)));
        }
        if analysis.order_problem.is_none() {
            self.expanded.clear();
            match self.chunks.push_into(event.clone(), &mut self.expanded) {
                Ok(()) => self.check_expanded(analysis, json),
                Err(e) => {
                    analysis.order_problem =
                        Some(format!("event {index}: chunk expansion failed: {e}"));
                }
            }
        }
        analysis.events.push(event);
        analysis.values.push(value);
        analysis.ids.push(id);
    }

    fn check_expanded(&mut self, analysis: &mut Analysis, json: &[u8]) {
        for event in &self.expanded {
            if let Err(v) = self.order.check(event) {
                analysis.order_problem =
                    Some(format!("{v} (after chunk expansion): {:?}", excerpt(json)));
                return;
            }
        }
    }

    fn finish(&mut self, analysis: &mut Analysis) {
        if analysis.order_problem.is_some() {
            return;
        }
        self.expanded.clear();
        self.expanded.extend(self.chunks.finish());
        self.check_expanded(analysis, b"(end of stream)");
        if analysis.order_problem.is_none() && self.order.in_run() {
            let open = self.order.open();
            analysis.order_problem = Some(if open.is_empty() {
                "the stream ended inside a run (no RUN_FINISHED or RUN_ERROR)".to_owned()
            } else {
                format!("the stream ended inside a run, with open: {open}")
            });
        }
        if analysis.order_problem.is_none() && analysis.events.is_empty() {
            analysis.order_problem = Some("the stream held no event".to_owned());
        }
    }
}

/// What the JSON as sent (`sent`) has that the same event written in its schema shape
/// (`written`) does not: an optional member sent as `null` (the null-omission rule), or a
/// member in snake_case that the schema spells in camelCase. Opaque payloads are written back
/// as they came, so nothing inside them is flagged; members the schema does not know are
/// tolerated unless they look like a misspelt known one.
fn shape_problem(sent: &Value, written: &Value, path: &str) -> Option<String> {
    match (sent, written) {
        (Value::Object(sent), Value::Object(written)) => {
            for (key, value) in sent {
                let here = format!("{path}/{key}");
                match written.get(key) {
                    Some(w) => {
                        if let Some(problem) = shape_problem(value, w, &here) {
                            return Some(problem);
                        }
                    }
                    None if value.is_null() => {
                        return Some(format!(
                            "the optional member {here} is sent as null (1.0 leaves it out)"
                        ));
                    }
                    None if key.contains('_') => {
                        return Some(format!(
                            "the member {here} is snake_case, not a 1.0 member (AG-UI members \
                             are camelCase: {})",
                            camel(key)
                        ));
                    }
                    None => {}
                }
            }
            None
        }
        (Value::Array(sent), Value::Array(written)) if sent.len() == written.len() => sent
            .iter()
            .zip(written)
            .enumerate()
            .find_map(|(i, (s, w))| shape_problem(s, w, &format!("{path}/{i}"))),
        _ => None,
    }
}

/// `snake_case` → `camelCase`.
fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_body_cut_off_is_named_and_its_partial_frame_is_not_read() {
        let body = b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MES".to_vec();
        let reply = |truncated, broken: Option<&str>| Reply {
            status: 200,
            content_type: Some("text/event-stream".to_owned()),
            body: body.clone(),
            truncated,
            broken: broken.map(str::to_owned),
        };
        let cut = analyze(&reply(true, None));
        assert_eq!(cut.json_problem, None);
        assert_eq!(
            cut.order_problem.as_deref(),
            Some("the body went on past 16 MiB (read no further)")
        );
        assert_eq!(cut.events.len(), 1);
        let broken = analyze(&reply(false, Some("reset")));
        assert_eq!(
            broken.order_problem.as_deref(),
            Some("the body broke off: reset")
        );
        // Whole, the same bytes end in a frame that is not JSON.
        let whole = analyze(&reply(false, None));
        assert!(
            whole
                .json_problem
                .unwrap()
                .starts_with("event 1 is not valid")
        );
    }

    #[test]
    fn shape_problems_name_nulls_and_snake_case_but_not_opaque_payloads() {
        let check = |sent: Value| {
            let event = Event::from_value(&sent).unwrap();
            let mut written = Vec::new();
            event.write_json(&mut written);
            shape_problem(&sent, &serde_json::from_slice(&written).unwrap(), "")
        };
        // The decoder refuses most optional nulls itself; those it reads leniently (the
        // reference's compatibility list) are still named.
        let sent = json!({"type": "TOOL_CALL_START", "toolCallId": "t", "toolCallName": "n", "parentMessageId": null});
        let written = json!({"type": "TOOL_CALL_START", "toolCallId": "t", "toolCallName": "n"});
        let null = shape_problem(&sent, &written, "");
        assert!(null.unwrap().contains("/parentMessageId is sent as null"));
        let snake = check(
            json!({"type": "TOOL_CALL_START", "toolCallId": "t", "toolCallName": "n", "parent_message_id": "m"}),
        );
        assert!(snake.unwrap().contains("camelCase: parentMessageId"));
        let opaque = check(json!({"type": "STATE_SNAPSHOT", "snapshot": {"skill_level": null}}));
        assert_eq!(opaque, None);
    }
}
