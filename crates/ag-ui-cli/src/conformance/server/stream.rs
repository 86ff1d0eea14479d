//! The stream checker of the server probes: a response's frames decoded (SSE or protobuf),
//! each event's JSON checked for the 1.0 shape, the events checked against every ordering
//! rule after chunk expansion, as the reference client does.
//!
//! An [`Analyzer`] reads a body as it arrives and keeps what the checks need, never the
//! events: a count, the first and last event, whether frames carry ids, and the first problem
//! of each kind. What a check wants of each event it takes through an observer as the event
//! goes by (the Dojo checks count `STATE_DELTA`s, the concurrent-runs check looks for other
//! runs' ids); the resume replay walks a kept body again with [`Events`]. So what a server
//! sends costs the tool its frame in flight, not a copy per event.

use ag_ui::client::chunks::ChunkNormalizer;
use ag_ui::encoding::{PROTO_MEDIA_TYPE, proto, sse};
use ag_ui::verify::Verifier;
use ag_ui::{DecodeErrorKind, EXCERPT_BYTES, Event, EventType, excerpt};
use serde_json::Value;

use super::probe::Reply;

/// The bytes handed to a decoder at a time when a whole body is read: its buffer then holds
/// the frame being read, not the body.
const PIECE: usize = 64 * 1024;

/// What a response held, and the first problem of each kind.
#[derive(Debug, Default)]
pub(crate) struct Analysis {
    /// How many events were read (chunks not expanded; unknown types not counted).
    pub(crate) events: usize,
    /// The first event.
    pub(crate) first: Option<Event>,
    /// The last event's type.
    pub(crate) last_type: Option<EventType>,
    /// The last event, when it ends a run (`RUN_FINISHED`, `RUN_ERROR`).
    pub(crate) ended: Option<Event>,
    /// Some event had an SSE `id:` in force.
    pub(crate) has_ids: bool,
    /// The first event with no id, or none of its own (an `id:` persists across frames, so a
    /// frame without its own repeats the last).
    pub(crate) id_problem: Option<String>,
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

/// An event as it goes by, for an observer.
pub(crate) struct Seen<'a> {
    /// Its index among the events read.
    pub(crate) index: usize,
    /// The event.
    pub(crate) event: &'a Event,
    /// Its JSON as sent (for protobuf: as decoded and written back).
    pub(crate) json: &'a str,
    /// The SSE id in force (none for protobuf).
    pub(crate) id: Option<&'a str>,
    /// Whether its frame set that id anew.
    pub(crate) fresh: bool,
}

/// What is told of each event read.
pub(crate) type Observer<'o> = &'o mut dyn FnMut(&Seen<'_>);

/// The frame decoder of a body, chosen by its content type.
enum Frames {
    Sse(Box<sse::FrameDecoder>),
    Proto(proto::FrameDecoder),
}

impl Frames {
    fn for_media(media_type: &str) -> Self {
        if media_type == PROTO_MEDIA_TYPE {
            Frames::Proto(proto::FrameDecoder::new())
        } else {
            Frames::Sse(Box::default())
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        match self {
            Frames::Sse(frames) => frames.push(bytes),
            Frames::Proto(frames) => frames.push(bytes),
        }
    }

    fn finish(&mut self) {
        match self {
            Frames::Sse(frames) => frames.finish(),
            Frames::Proto(frames) => frames.finish(),
        }
    }
}

/// Reads a body as an AG-UI stream, piece by piece, and checks it. See the [module
/// documentation](self).
pub(crate) struct Analyzer<'o> {
    analysis: Analysis,
    checker: Checker,
    frames: Option<Frames>,
    observer: Option<Observer<'o>>,
    /// [`sse::Frame::ids_set`] at the last frame.
    ids_set: Option<u64>,
    /// The next byte starts a line (for counting comments).
    line_start: bool,
    /// A frame could not be read: nothing after it is.
    stopped: bool,
}

impl<'o> Analyzer<'o> {
    /// An analyzer for a body of `media_type` (protobuf when it says so, SSE otherwise).
    pub(crate) fn new(media_type: &str) -> Self {
        let frames = Frames::for_media(media_type);
        Self {
            analysis: Analysis {
                protobuf: matches!(frames, Frames::Proto(_)),
                ..Analysis::default()
            },
            checker: Checker::default(),
            frames: Some(frames),
            observer: None,
            ids_set: None,
            line_start: true,
            stopped: false,
        }
    }

    /// Tells `observer` of each event read.
    pub(crate) fn with_observer(mut self, observer: Observer<'o>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// Reads the next bytes of the body.
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        for piece in bytes.chunks(PIECE) {
            if !self.analysis.protobuf {
                self.count_comments(piece);
            }
            if self.stopped {
                continue;
            }
            if let Some(frames) = &mut self.frames {
                frames.push(piece);
            }
            self.drain();
        }
    }

    /// The end of the body: whole, or cut off (by the size bound: `truncated`; or a broken
    /// connection), in which case its last, partial frame is not read as a frame and the cut
    /// is the ordering problem named.
    pub(crate) fn finish(mut self, truncated: bool, broken: Option<&str>) -> Analysis {
        let complete = !truncated && broken.is_none();
        if complete && !self.stopped {
            if let Some(frames) = &mut self.frames {
                frames.finish();
            }
            self.drain();
        }
        if let Some(broken) = broken {
            self.analysis.order_problem = Some(format!("the body broke off: {broken}"));
        }
        if truncated {
            self.analysis.order_problem = Some(format!(
                "the body went on past {} MiB (read no further)",
                super::probe::MAX_BODY >> 20
            ));
        }
        self.checker.finish(&mut self.analysis);
        self.analysis
    }

    fn count_comments(&mut self, piece: &[u8]) {
        for &byte in piece {
            if self.line_start && byte == b':' {
                self.analysis.comments += 1;
            }
            self.line_start = byte == b'\n';
        }
    }

    /// Reads every whole frame buffered.
    fn drain(&mut self) {
        let Self {
            analysis,
            checker,
            frames: Some(frames),
            observer,
            ids_set: last_ids_set,
            stopped,
            ..
        } = self
        else {
            return;
        };
        loop {
            match frames {
                Frames::Sse(decoder) => match decoder.next_frame() {
                    Ok(Some(frame)) => {
                        // Whether this frame set its id, against the frame before it (of
                        // whatever type): an id is judged by its count, never compared.
                        let ids_set = frame.ids_set();
                        let fresh = *last_ids_set != Some(ids_set);
                        *last_ids_set = Some(ids_set);
                        if let Some(event) = checker.read(analysis, frame.text()) {
                            let index =
                                record(analysis, observer, &event, frame.text(), frame.id(), fresh);
                            checker.order(analysis, event, frame.text(), index);
                        }
                    }
                    Ok(None) => return,
                    Err(e) => {
                        analysis
                            .json_problem
                            .get_or_insert(format!("an SSE frame is unreadable: {e}"));
                        *stopped = true;
                        return;
                    }
                },
                Frames::Proto(decoder) => match decoder.next_frame() {
                    Ok(Some(frame)) => match proto::decode_message(frame.message()) {
                        Ok(event) => {
                            let mut json = Vec::new();
                            event.write_json(&mut json);
                            let json = String::from_utf8_lossy(&json);
                            if let Some(event) = checker.read(analysis, &json) {
                                let index = record(analysis, observer, &event, &json, None, false);
                                checker.order(analysis, event, &json, index);
                            }
                        }
                        Err(e) => {
                            analysis.json_problem.get_or_insert(format!(
                                "protobuf frame {} does not decode: {e}",
                                frame.index()
                            ));
                            *stopped = true;
                            return;
                        }
                    },
                    Ok(None) => return,
                    Err(e) => {
                        analysis
                            .order_problem
                            .get_or_insert(format!("the protobuf stream is broken: {e}"));
                        *stopped = true;
                        return;
                    }
                },
            }
        }
    }
}

/// Notes an event read (its id, the first and last, the observer); its index.
fn record(
    analysis: &mut Analysis,
    observer: &mut Option<Observer<'_>>,
    event: &Event,
    json: &str,
    id: Option<&str>,
    fresh: bool,
) -> usize {
    let index = analysis.events;
    analysis.events += 1;
    analysis.has_ids |= id.is_some();
    if analysis.id_problem.is_none() && !analysis.protobuf {
        analysis.id_problem = match id {
            None => Some(format!("event {index} carries no id")),
            Some(id) if index > 0 && !fresh => Some(format!(
                "event {index} carries no id of its own (the last id was {:?})",
                excerpt(id, EXCERPT_BYTES)
            )),
            Some(_) => None,
        };
    }
    if let Some(observer) = observer {
        observer(&Seen {
            index,
            event,
            json,
            id,
            fresh,
        });
    }
    if index == 0 {
        analysis.first = Some(event.clone());
    }
    let ends = matches!(event, Event::RunFinished(_) | Event::RunError(_));
    analysis.last_type = Some(event.event_type());
    analysis.ended = ends.then(|| event.clone());
    index
}

/// The events of a whole body, walked again as the analysis counted them (frames whose data
/// read as an event; unknown types and unreadable JSON passed over; nothing after a frame
/// that cannot be read): each one's JSON, one at a time.
pub(crate) struct Events<'b> {
    body: &'b [u8],
    fed: usize,
    complete: bool,
    frames: Frames,
}

impl<'b> Events<'b> {
    /// The events of `reply`'s body.
    pub(crate) fn of(reply: &'b Reply) -> Self {
        Self {
            body: &reply.body,
            fed: 0,
            complete: !reply.truncated && reply.broken.is_none(),
            frames: Frames::for_media(&reply.media_type()),
        }
    }

    /// The next event's JSON (for protobuf: as decoded and written back).
    pub(crate) fn next_json(&mut self) -> Option<String> {
        loop {
            let json = match &mut self.frames {
                Frames::Sse(decoder) => match decoder.next_frame() {
                    Ok(Some(frame)) => Some(frame.text().to_owned()),
                    Ok(None) => None,
                    Err(_) => return None,
                },
                Frames::Proto(decoder) => match decoder.next_frame() {
                    Ok(Some(frame)) => {
                        let event = proto::decode_message(frame.message()).ok()?;
                        let mut json = Vec::new();
                        event.write_json(&mut json);
                        Some(String::from_utf8_lossy(&json).into_owned())
                    }
                    Ok(None) => None,
                    Err(_) => return None,
                },
            };
            match json {
                Some(json) => {
                    if Event::from_slice(json.as_bytes()).is_ok() {
                        return Some(json);
                    }
                }
                None if self.fed < self.body.len() => {
                    let end = (self.fed + PIECE).min(self.body.len());
                    self.frames.push(&self.body[self.fed..end]);
                    self.fed = end;
                }
                None if self.complete => {
                    self.complete = false;
                    self.frames.finish();
                }
                None => return None,
            }
        }
    }

    /// The SSE id in force at the last event returned.
    pub(crate) fn id(&self) -> Option<&str> {
        match &self.frames {
            Frames::Sse(decoder) => decoder.last_event_id(),
            Frames::Proto(_) => None,
        }
    }
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
    /// Reads one frame's data and checks its JSON; the event, when it is one of a known type.
    fn read(&mut self, analysis: &mut Analysis, json: &str) -> Option<Event> {
        let index = analysis.events;
        let event = match Event::from_slice(json.as_bytes()) {
            Ok(event) => event,
            Err(e) if e.kind() == DecodeErrorKind::UnknownEventType => return None,
            Err(e) => {
                analysis.json_problem.get_or_insert(format!(
                    "event {index} is not valid AG-UI 1.0 JSON: {e}: {:?}",
                    excerpt(json, EXCERPT_BYTES)
                ));
                return None;
            }
        };
        if analysis.json_problem.is_none() {
            let value: Value = serde_json::from_str(json).unwrap_or(Value::Null);
            // The event as this crate writes it (serde's shape, straight into a value).
            let written = serde_json::to_value(&event).unwrap_or(Value::Null);
            if let Some(problem) = shape_problem(&value, &written, "") {
                analysis.json_problem = Some(format!(
                    "event {index} ({}): {problem}: {:?}",
                    event.event_type(),
                    excerpt(json, EXCERPT_BYTES)
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
            && let Err(error) = raw.check_json(json.as_bytes())
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
            analysis.json_problem = Some(format!("{v}: {:?}", excerpt(json, EXCERPT_BYTES)));
        }
        Some(event)
    }

    /// Checks event `index` (`json` as sent) against the ordering rules, after chunk
    /// expansion.
    fn order(&mut self, analysis: &mut Analysis, event: Event, json: &str, index: usize) {
        if analysis.order_problem.is_none() {
            self.expanded.clear();
            match self.chunks.push_into(event, &mut self.expanded) {
                Ok(()) => self.check_expanded(analysis, json),
                Err(e) => {
                    analysis.order_problem =
                        Some(format!("event {index}: chunk expansion failed: {e}"));
                }
            }
        }
    }

    fn check_expanded(&mut self, analysis: &mut Analysis, json: &str) {
        for event in &self.expanded {
            if let Err(v) = self.order.check(event) {
                analysis.order_problem = Some(format!(
                    "{v} (after chunk expansion): {:?}",
                    excerpt(json, EXCERPT_BYTES)
                ));
                return;
            }
        }
        self.expanded.clear();
    }

    fn finish(&mut self, analysis: &mut Analysis) {
        if analysis.order_problem.is_some() {
            return;
        }
        self.expanded.clear();
        self.expanded.extend(self.chunks.finish());
        self.check_expanded(analysis, "(end of stream)");
        if analysis.order_problem.is_none() && self.order.in_run() {
            let open = self.order.open();
            analysis.order_problem = Some(if open.is_empty() {
                "the stream ended inside a run (no RUN_FINISHED or RUN_ERROR)".to_owned()
            } else {
                format!("the stream ended inside a run, with open: {open}")
            });
        }
        if analysis.order_problem.is_none() && analysis.events == 0 {
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
                            "the optional member {} is sent as null (1.0 leaves it out)",
                            excerpt(&here, EXCERPT_BYTES)
                        ));
                    }
                    None if key.contains('_') => {
                        return Some(format!(
                            "the member {} is snake_case, not a 1.0 member (AG-UI members \
                             are camelCase: {})",
                            excerpt(&here, EXCERPT_BYTES),
                            excerpt(&camel(key), EXCERPT_BYTES)
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

    /// A whole body read as the probes read one.
    fn analyze(reply: &Reply) -> Analysis {
        let mut analyzer = Analyzer::new(&reply.media_type());
        analyzer.push(&reply.body);
        analyzer.finish(reply.truncated, reply.broken.as_deref())
    }

    fn reply(body: &[u8], truncated: bool, broken: Option<&str>) -> Reply {
        Reply {
            status: 200,
            content_type: Some("text/event-stream".to_owned()),
            body: body.to_vec(),
            read: body.len(),
            truncated,
            broken: broken.map(str::to_owned),
        }
    }

    #[test]
    fn a_body_cut_off_is_named_and_its_partial_frame_is_not_read() {
        let body = b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MES";
        let cut = analyze(&reply(body, true, None));
        assert_eq!(cut.json_problem, None);
        assert_eq!(
            cut.order_problem.as_deref(),
            Some("the body went on past 16 MiB (read no further)")
        );
        assert_eq!(cut.events, 1);
        let broken = analyze(&reply(body, false, Some("reset")));
        assert_eq!(
            broken.order_problem.as_deref(),
            Some("the body broke off: reset")
        );
        // Whole, the same bytes end in a frame that is not JSON.
        let whole = analyze(&reply(body, false, None));
        assert!(
            whole
                .json_problem
                .unwrap()
                .starts_with("event 1 is not valid")
        );
    }

    /// Read in any pieces, a body gives the same analysis; the events are walked again as
    /// counted; ids are judged per frame without being kept.
    #[test]
    fn pieces_events_and_ids() {
        let run = |events: &[Value], ids: &[Option<&str>]| {
            let mut body = String::from(": keep-alive\n\n");
            for (event, id) in events.iter().zip(ids) {
                if let Some(id) = id {
                    body.push_str(&format!("id: {id}\n"));
                }
                body.push_str(&format!("data: {event}\n\n"));
            }
            body
        };
        let events = [
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "NOT_A_TYPE"}),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
        ];
        let body = run(&events, &[Some("r:1"), Some("r:2"), None]);
        let whole = analyze(&reply(body.as_bytes(), false, None));
        let mut analyzer = Analyzer::new("text/event-stream");
        for byte in body.as_bytes() {
            analyzer.push(std::slice::from_ref(byte));
        }
        let pieces = analyzer.finish(false, None);
        for analysis in [&whole, &pieces] {
            assert_eq!((analysis.events, analysis.comments), (2, 1));
            assert_eq!(analysis.problem(), None);
            assert!(analysis.has_ids);
            // The unknown event set the id the last one repeats.
            assert_eq!(
                analysis.id_problem.as_deref(),
                Some("event 1 carries no id of its own (the last id was \"r:2\")")
            );
            assert_eq!(analysis.last_type, Some(EventType::RunFinished));
            assert!(matches!(analysis.ended, Some(Event::RunFinished(_))));
        }
        let whole_reply = reply(body.as_bytes(), false, None);
        let mut walked = Events::of(&whole_reply);
        assert!(walked.next_json().unwrap().contains("RUN_STARTED"));
        assert_eq!(walked.id(), Some("r:1"));
        assert!(walked.next_json().unwrap().contains("RUN_FINISHED"));
        assert_eq!(walked.next_json(), None);
        let body = run(&events, &[None, None, Some("r:3")]);
        let analysis = analyze(&reply(body.as_bytes(), false, None));
        assert_eq!(
            analysis.id_problem.as_deref(),
            Some("event 0 carries no id")
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
