//! The scenario model of `conformance client`: a scenario's frames, how they are written on
//! either transport, and what a correct client ends with (computed by this crate's client
//! pipeline, the reducer the tests hold to the reference `@ag-ui/client` 1.0.0).

use ag_ui::client::{Pipeline, PipelineError, Reducer};
use ag_ui::encoding::{Format, PROTO_MEDIA_TYPE, proto};
use ag_ui::{Event, Message};
use serde_json::{Value, json};

/// One piece of a scenario's stream.
#[derive(Clone, Debug)]
pub(crate) enum Frame {
    /// An event, written as one `data:` frame (one protobuf frame); `"$thread"` and `"$run"`
    /// as string values are replaced by the request's ids.
    Event(Value),
    /// Bytes written as they are (SSE only): comments, frames whose JSON a `Value` cannot
    /// hold (lone surrogate escapes), odd framing.
    Raw(&'static str),
}

/// One scenario of the battery.
#[derive(Clone, Debug)]
pub(crate) struct Scenario {
    /// Its name, also its path (`/scenarios/{name}`).
    pub(crate) name: &'static str,
    /// Its tags: what it exercises; `strict` where this crate is stricter than the reference
    /// client; `protobuf` where it is served in protobuf to a client that asks.
    pub(crate) tags: &'static [&'static str],
    /// The first run's stream.
    pub(crate) frames: Vec<Frame>,
    /// A second run: the `resume` entries the client sends, and that run's stream.
    pub(crate) resume: Option<(Value, Vec<Frame>)>,
}

impl Scenario {
    /// Whether it carries `tag`.
    pub(crate) fn has(&self, tag: &str) -> bool {
        self.tags.contains(&tag)
    }

    /// Its listing entry: `{name, path, expected, tags}` (and `resume` for two-run ones).
    pub(crate) fn entry(&self) -> Value {
        let mut entry = json!({
            "name": self.name,
            "path": format!("/scenarios/{}", self.name),
            "expected": format!("/scenarios/{}/expected", self.name),
            "tags": self.tags,
        });
        if let Some((resume, _)) = &self.resume {
            entry["resume"] = resume.clone();
        }
        entry
    }

    /// The frames of the run a request with `resume` entries asks for.
    pub(crate) fn frames_for(&self, resuming: bool) -> &[Frame] {
        match (&self.resume, resuming) {
            (Some((_, second)), true) => second,
            _ => &self.frames,
        }
    }

    /// What a correct client ends with: `{"messages", "state"}` (and `pendingInterrupts`,
    /// their ids, when the run left some), or `{"reject": KIND}` naming the rule (a verifier
    /// kind such as `text.not-open`) or the failure (`run.failed`, `run.incomplete`).
    pub(crate) fn expected(&self) -> Value {
        let mut reducer = Reducer::new();
        let mut runs = vec![&self.frames];
        if let Some((_, second)) = &self.resume {
            runs.push(second);
        }
        for frames in runs {
            let mut pipeline = Pipeline::new(reducer);
            let bytes = sse(frames, "t", "r");
            let fed = pipeline
                .push_bytes(&bytes, &mut ())
                .and_then(|_| pipeline.finish(&mut ()))
                .and_then(|_| pipeline.check_end());
            if let Err(e) = fed {
                return json!({"reject": reject_kind(&e)});
            }
            let done = pipeline.into_reducer();
            let pending = done.pending_interrupts().to_vec();
            let (messages, state) = done.into_parts();
            reducer = Reducer::new()
                .with_messages(messages)
                .with_state(state)
                .with_pending_interrupts(pending);
        }
        let pending: Vec<String> = reducer
            .pending_interrupts()
            .iter()
            .map(|i| i.id.to_string())
            .collect();
        let (messages, state) = reducer.into_parts();
        let mut expected = json!({"messages": messages_json(&messages), "state": state});
        if !pending.is_empty() {
            expected["pendingInterrupts"] = json!(pending);
        }
        expected
    }
}

/// The kind a client names for a refused run: the verifier's rule kind for an ordering
/// violation, the pipeline's kind otherwise.
pub(crate) fn reject_kind(e: &PipelineError) -> &'static str {
    match e.violation() {
        Some(v) => v.kind().as_str(),
        None => e.kind().as_str(),
    }
}

/// Messages as JSON, in their wire shape.
pub(crate) fn messages_json(messages: &[Message]) -> Value {
    Value::Array(
        messages
            .iter()
            .filter_map(|m| serde_json::to_value(m).ok())
            .collect(),
    )
}

/// `value` with the `"$thread"` / `"$run"` placeholders replaced.
fn with_ids(value: &Value, thread: &str, run: &str) -> Value {
    match value {
        Value::String(s) if s == "$thread" => Value::String(thread.to_owned()),
        Value::String(s) if s == "$run" => Value::String(run.to_owned()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), with_ids(v, thread, run)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The frames as SSE.
pub(crate) fn sse(frames: &[Frame], thread: &str, run: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for frame in frames {
        match frame {
            Frame::Event(value) => {
                // Writing JSON into a Vec cannot fail.
                ag_ui::encoding::sse::write_frame_with(&mut out, |out| {
                    let _ = serde_json::to_writer(out, &with_ids(value, thread, run));
                });
            }
            Frame::Raw(raw) => out.extend_from_slice(raw.as_bytes()),
        }
    }
    out
}

/// The frames as protobuf (raw frames, SSE-only, are left out; the battery's protobuf
/// scenarios have none).
pub(crate) fn protobuf(frames: &[Frame], thread: &str, run: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for frame in frames {
        if let Frame::Event(value) = frame
            && let Ok(event) = Event::from_value(&with_ids(value, thread, run))
        {
            proto::encode_into(&event, &mut out);
        }
    }
    out
}

/// The wire a scenario is served on for a request accepting `accept`.
pub(crate) fn wire(scenario: &Scenario, accept: &str) -> Format {
    // The protobuf type named with a q above 0 (`*/*` is not taken as asking: the battery
    // serves protobuf only to a client that names it).
    let asks = accept.split(',').any(|entry| {
        let mut parts = entry.split(';');
        let media = parts.next().unwrap_or("").trim();
        let q = parts
            .find_map(|p| p.trim().strip_prefix("q="))
            .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok());
        media.eq_ignore_ascii_case(PROTO_MEDIA_TYPE) && q.is_some_and(|q| q > 0.0)
    });
    if scenario.has("protobuf") && asks {
        Format::Proto
    } else {
        Format::Sse
    }
}

/// `RUN_STARTED` with the request's ids.
pub(crate) fn started() -> Frame {
    Frame::Event(json!({"type": "RUN_STARTED", "threadId": "$thread", "runId": "$run"}))
}

/// `RUN_FINISHED` with the request's ids.
pub(crate) fn finished() -> Frame {
    Frame::Event(json!({"type": "RUN_FINISHED", "threadId": "$thread", "runId": "$run"}))
}

/// An event frame.
pub(crate) fn ev(value: Value) -> Frame {
    Frame::Event(value)
}

/// A whole assistant text message: start, one content per delta, end.
pub(crate) fn text(id: &str, deltas: &[&str]) -> Vec<Frame> {
    let mut frames = vec![ev(
        json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"}),
    )];
    for delta in deltas {
        frames.push(ev(
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": delta}),
        ));
    }
    frames.push(ev(json!({"type": "TEXT_MESSAGE_END", "messageId": id})));
    frames
}

/// A whole tool call: start (under `parent`, if any), one args event per delta, end.
pub(crate) fn tool(id: &str, name: &str, parent: Option<&str>, deltas: &[&str]) -> Vec<Frame> {
    let mut start = json!({"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": name});
    if let Some(parent) = parent {
        start["parentMessageId"] = json!(parent);
    }
    let mut frames = vec![ev(start)];
    for delta in deltas {
        frames.push(ev(
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": delta}),
        ));
    }
    frames.push(ev(json!({"type": "TOOL_CALL_END", "toolCallId": id})));
    frames
}

/// A run: `RUN_STARTED`, the body, `RUN_FINISHED`.
pub(crate) fn run(body: Vec<Vec<Frame>>) -> Vec<Frame> {
    let mut frames = vec![started()];
    frames.extend(body.into_iter().flatten());
    frames.push(finished());
    frames
}

/// One state snapshot then one delta per patch, in a run.
pub(crate) fn patches(snapshot: Value, deltas: &[Value]) -> Vec<Frame> {
    let mut body = vec![vec![ev(
        json!({"type": "STATE_SNAPSHOT", "snapshot": snapshot}),
    )]];
    for delta in deltas {
        body.push(vec![ev(json!({"type": "STATE_DELTA", "delta": delta}))]);
    }
    run(body)
}
