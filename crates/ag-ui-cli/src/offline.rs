//! The commands that work on recorded streams: `verify`, `normalize`, `apply`, `convert`.

use std::collections::HashMap;
use std::io::{BufWriter, Write};

use ag_ui::client::chunks::ChunkNormalizer;
use ag_ui::client::{ApplyErrorKind, Reducer};
use ag_ui::encoding::sse;
use ag_ui::verify::Verifier;
use ag_ui::{DecodeErrorKind, Event, EventType};
use serde_json::json;

use crate::failure::Failure;
use crate::input::{self, InputError, Position, Positioned};

/// The stages a recorded stream goes through before a command looks at it: chunk
/// normalization (unless raw) and verification (if asked), remembering where each event came
/// from.
struct Stages {
    normalizer: Option<ChunkNormalizer>,
    verifier: Option<Verifier>,
    buffer: Vec<Event>,
}

impl Stages {
    fn new(normalize: bool, verify: bool) -> Self {
        Self {
            normalizer: normalize.then(ChunkNormalizer::new),
            verifier: verify.then(Verifier::new),
            buffer: Vec::new(),
        }
    }

    /// Runs one input event through the stages and hands what comes out to `sink`.
    fn push(
        &mut self,
        item: Positioned,
        sink: &mut impl FnMut(Position, &Event) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        match &mut self.normalizer {
            Some(normalizer) => {
                normalizer
                    .push_into(item.event, &mut self.buffer)
                    .map_err(|e| Failure::chunk(item.position, &e))?;
            }
            None => self.buffer.push(item.event),
        }
        self.flush(item.position, sink)
    }

    /// Closes what chunk normalization still has open and sends it through. What it closes
    /// is at the end of the input, not at the last event: a violation by such an END (say,
    /// for a message an explicit END already closed) is reported there.
    fn finish(
        &mut self,
        sink: &mut impl FnMut(Position, &Event) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        if let Some(normalizer) = &mut self.normalizer {
            normalizer.finish_into(&mut self.buffer);
        }
        self.flush(Position::End, sink)
    }

    fn flush(
        &mut self,
        position: Position,
        sink: &mut impl FnMut(Position, &Event) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        for event in self.buffer.drain(..) {
            if let Some(verifier) = &mut self.verifier {
                verifier
                    .check(&event)
                    .map_err(|v| Failure::violation(position, &v))?;
            }
            sink(position, &event)?;
        }
        Ok(())
    }
}

/// Runs the stages over the input at `path`.
fn run_stages(
    path: Option<&str>,
    normalize: bool,
    verify: bool,
    sink: impl FnMut(Position, &Event) -> Result<(), Failure>,
) -> Result<usize, Failure> {
    run_stages_on(input::open(path)?, normalize, verify, sink)
}

/// Runs the stages over the bytes of `reader`.
fn run_stages_on(
    reader: impl std::io::Read,
    normalize: bool,
    verify: bool,
    mut sink: impl FnMut(Position, &Event) -> Result<(), Failure>,
) -> Result<usize, Failure> {
    let mut stages = Stages::new(normalize, verify);
    let mut read = 0;
    input::for_each_event(reader, |item| {
        read += 1;
        stages.push(item, &mut sink)
    })?;
    stages.finish(&mut sink)?;
    Ok(read)
}

/// What a verified stream still has open, so that a recording cut off mid-run is reported
/// rather than passed. The events reaching it have passed the verifier, so opening and closing
/// are already known to pair up; this only remembers the ids still open, in the order they
/// were opened, for the report. It holds no more than the verifier does: the open entities of
/// the current run.
#[derive(Debug, Default)]
struct Open {
    /// The active run's id.
    run: Option<String>,
    /// Open entities by category (see [`CATEGORIES`]) and id, with their opening order.
    entities: [HashMap<String, u64>; 6],
    /// Open steps by owner and name, with their opening order: the parent's `research` and a
    /// subagent's are two steps. (Reported in category 4.)
    steps: HashMap<(Option<String>, String), u64>,
    seq: u64,
}

/// How many open ids of one category the report names; the rest are counted.
const MAX_NAMED: usize = 10;

/// The categories [`Open`] tracks, in the order they are reported.
const CATEGORIES: [&str; 6] = [
    "text messages",
    "tool calls",
    "reasoning messages",
    "reasoning spans",
    "steps",
    "subagents",
];

impl Open {
    fn open(&mut self, category: usize, id: String) {
        self.seq += 1;
        self.entities[category].insert(id, self.seq);
    }

    fn close(&mut self, category: usize, id: &str) {
        self.entities[category].remove(id);
    }

    fn clear(&mut self) {
        self.run = None;
        self.entities.iter_mut().for_each(HashMap::clear);
        self.steps.clear();
    }

    fn see(&mut self, event: &Event) {
        let step = |owner: &Option<ag_ui::SubagentRunId>, name: &str| {
            (owner.as_ref().map(|o| o.to_string()), name.to_owned())
        };
        match event {
            Event::RunStarted(e) => {
                self.clear();
                self.run = Some(e.run_id.to_string());
            }
            Event::RunFinished(_) | Event::RunError(_) => self.clear(),
            Event::TextMessageStart(e) => self.open(0, e.message_id.to_string()),
            Event::TextMessageEnd(e) => self.close(0, e.message_id.as_str()),
            Event::ToolCallStart(e) => self.open(1, e.tool_call_id.to_string()),
            Event::ToolCallEnd(e) => self.close(1, e.tool_call_id.as_str()),
            Event::ReasoningMessageStart(e) => self.open(2, e.message_id.to_string()),
            Event::ReasoningMessageEnd(e) => self.close(2, e.message_id.as_str()),
            Event::ReasoningStart(e) => self.open(3, e.message_id.to_string()),
            Event::ReasoningEnd(e) => self.close(3, e.message_id.as_str()),
            Event::StepStarted(e) => {
                self.seq += 1;
                let key = step(&e.subagent_run_id, &e.step_name);
                self.steps.insert(key, self.seq);
            }
            Event::StepFinished(e) => {
                self.steps.remove(&step(&e.subagent_run_id, &e.step_name));
            }
            Event::SubagentStarted(e) => self.open(5, e.subagent_run_id.to_string()),
            Event::SubagentFinished(e) => self.close(5, e.subagent_run_id.as_str()),
            Event::SubagentError(e) => self.close(5, e.subagent_run_id.as_str()),
            _ => {}
        }
    }

    /// What is still open, category by category (`text messages [m1, m2]; steps [research]`),
    /// or `None` when no run is active.
    fn report(&self) -> Option<String> {
        let run = self.run.as_deref()?;
        let mut report = format!("run {run}");
        for (category, name) in CATEGORIES.iter().enumerate() {
            let mut ids: Vec<(String, u64)> = if category == 4 {
                self.steps
                    .iter()
                    .map(|((owner, step), &seq)| match owner {
                        None => (step.clone(), seq),
                        Some(owner) => (format!("{step} (subagent {owner})"), seq),
                    })
                    .collect()
            } else {
                self.entities[category]
                    .iter()
                    .map(|(id, &seq)| (id.clone(), seq))
                    .collect()
            };
            if ids.is_empty() {
                continue;
            }
            ids.sort_unstable_by_key(|&(_, seq)| seq);
            let more = ids.len().saturating_sub(MAX_NAMED);
            let mut ids: Vec<String> = ids.into_iter().take(MAX_NAMED).map(|(id, _)| id).collect();
            if more > 0 {
                ids.push(format!("and {more} more"));
            }
            report.push_str(&format!("; {name} [{}]", ids.join(", ")));
        }
        Some(report)
    }
}

/// `ag-ui verify` over events pushed one at a time, as a file or a response is read.
struct Verification {
    stages: Stages,
    open: Open,
    events: usize,
    runs: usize,
    /// Runs that ended with `RUN_ERROR` (valid, but not a success: the verdict says so).
    failed: usize,
}

impl Verification {
    /// In `raw` mode the events come already checked (by [`Verifier::check_json`]), so the
    /// stages neither expand chunks nor verify again.
    fn new(raw: bool) -> Self {
        Self {
            stages: Stages::new(!raw, !raw),
            open: Open::default(),
            events: 0,
            runs: 0,
            failed: 0,
        }
    }

    fn push(&mut self, item: Positioned) -> Result<(), Failure> {
        self.events += 1;
        let Self {
            stages,
            open,
            runs,
            failed,
            ..
        } = self;
        stages.push(item, &mut |_, event: &Event| {
            Self::see(open, runs, failed, event);
            Ok(())
        })
    }

    fn see(open: &mut Open, runs: &mut usize, failed: &mut usize, event: &Event) {
        match event.event_type() {
            EventType::RunStarted => *runs += 1,
            EventType::RunError => *failed += 1,
            _ => {}
        }
        open.see(event);
    }

    /// The verdict at the end of the input: `ok: N events, M runs`, or why not.
    fn finish(mut self, partial: bool) -> Result<String, Failure> {
        let Self {
            stages,
            open,
            runs,
            failed,
            ..
        } = &mut self;
        stages.finish(&mut |_, event: &Event| {
            Self::see(open, runs, failed, event);
            Ok(())
        })?;
        if self.events == 0 {
            return Err(Failure::NothingKnown);
        }
        let mut ok = format!("ok: {} events, {} runs", self.events, self.runs);
        if self.failed > 0 {
            ok.push_str(&format!(" ({} ended with RUN_ERROR)", self.failed));
        }
        match self.open.report() {
            None => Ok(ok),
            Some(open) if partial => Ok(format!("{ok} (partial: still open: {open})")),
            Some(open) => Err(Failure::Incomplete(open)),
        }
    }
}

/// `ag-ui verify`: prints `ok: N events, M runs`, or the violation; an input that ends inside
/// a run is incomplete unless `partial`.
pub(crate) fn verify(path: Option<&str>, raw: bool, partial: bool) -> Result<String, Failure> {
    verify_reader(input::open(path)?, raw, partial)
}

/// `ag-ui verify` on the bytes of `reader`, checked as they are read.
pub(crate) fn verify_reader(
    reader: impl std::io::Read,
    raw: bool,
    partial: bool,
) -> Result<String, Failure> {
    let mut verification = Verification::new(raw);
    if raw {
        // The verifier on each event's JSON as sent, so that the null and shape rules
        // (`attribution.null`, `subagent.missing-field`, …) are violations at their event, in
        // the reference verifier's order.
        let mut verifier = Verifier::new();
        let mut unknown = input::Unknown::default();
        input::for_each_json(reader, |position, json| match verifier.check_json(json) {
            Ok(event) => verification.push(Positioned { position, event }),
            Err(e) => match (e.violation(), e.decode()) {
                (Some(v), _) => Err(Failure::violation(position, v)),
                (_, Some(e)) if e.kind() == DecodeErrorKind::UnknownEventType => {
                    unknown.skip(position, e.event_type().unwrap_or_default());
                    Ok(())
                }
                (_, Some(e)) => Err(InputError::decode(position, e).into()),
                (None, None) => Err(Failure::Usage(e.to_string())),
            },
        })?;
        unknown.finish();
    } else {
        // Chunks are expanded and legacy events converted before the ordering rules, but the
        // null and shape rules typed decoding reads past (a `RUN_FINISHED` interrupt's
        // `subagentRunId: null`, …) are checked on each event's JSON as sent.
        let mut index = 0;
        input::for_each_event_checked(
            reader,
            |position, json| {
                let checked = ag_ui::verify::check_shape(json, index);
                index += 1;
                checked.map_err(|v| Failure::violation(position, &v))
            },
            |item| verification.push(item),
        )?;
    }
    verification.finish(partial)
}

/// Output encodings of `normalize` and `convert`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Encoding {
    /// One JSON object per line.
    Jsonl,
    /// Server-Sent Events frames.
    Sse,
    /// Length-prefixed protobuf frames (`application/vnd.ag-ui.event+proto`); never written
    /// to a terminal.
    Proto,
}

fn writer(encoding: Encoding) -> impl FnMut(Position, &Event) -> Result<(), Failure> {
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut buf = Vec::with_capacity(1024);
    move |_, event| {
        buf.clear();
        match encoding {
            Encoding::Jsonl => {
                event.write_json(&mut buf);
                buf.push(b'\n');
            }
            Encoding::Sse => sse::encode_into(event, &mut buf),
            Encoding::Proto => ag_ui::encoding::proto::encode_into(event, &mut buf),
        }
        out.write_all(&buf)?;
        Ok(())
    }
}

/// `ag-ui normalize`: chunk normalization, written as JSON Lines or SSE.
pub(crate) fn normalize(path: Option<&str>, encoding: Encoding) -> Result<(), Failure> {
    let mut write = writer(encoding);
    run_stages(path, true, false, &mut write)?;
    std::io::stdout().flush()?;
    Ok(())
}

/// `ag-ui compact`: the input read (chunks expanded, verified unless told not to), compacted
/// and written as JSON Lines as it goes: what is held is what may still change (open messages
/// and tool calls, the current state window), not the whole input. State is folded under the
/// reducer's limits.
pub(crate) fn compact(path: Option<&str>, verify: bool) -> Result<(), Failure> {
    let mut compactor = ag_ui::client::Compactor::new();
    let mut write = writer(Encoding::Jsonl);
    run_stages(path, true, verify, |position, event| {
        compactor.push(event.clone()).map_err(|e| Failure::Limit {
            position,
            message: e.to_string(),
        })?;
        for event in compactor.ready() {
            write(position, &event)?;
        }
        Ok(())
    })?;
    for event in compactor.finish() {
        write(Position::End, &event)?;
    }
    std::io::stdout().flush()?;
    Ok(())
}

/// `ag-ui convert`: re-encodes the events, unchanged. Binary output (`--to proto`) is refused
/// when standard output is a terminal, before any input is read.
pub(crate) fn convert(path: Option<&str>, encoding: Encoding) -> Result<(), Failure> {
    refuse_binary_to_terminal(
        encoding,
        std::io::IsTerminal::is_terminal(&std::io::stdout()),
    )?;
    let mut write = writer(encoding);
    run_stages(path, false, false, &mut write)?;
    std::io::stdout().flush()?;
    Ok(())
}

/// Binary output is not for a terminal: it would show as garbage, and its bytes could drive
/// the terminal.
fn refuse_binary_to_terminal(encoding: Encoding, terminal: bool) -> Result<(), Failure> {
    if encoding == Encoding::Proto && terminal {
        return Err(Failure::Usage(
            "--to proto writes binary frames and standard output is a terminal: redirect it to a file or a pipe"
                .to_owned(),
        ));
    }
    Ok(())
}

/// `ag-ui apply`: the reducer's messages, state, pending interrupts and tool calls, as JSON.
pub(crate) fn apply(path: Option<&str>, verify: bool) -> Result<serde_json::Value, Failure> {
    let mut reducer = Reducer::new();
    run_stages(path, true, verify, |position, event| {
        let applied = reducer.apply(event).map_err(|e| match e.kind() {
            ApplyErrorKind::Limit => Failure::Limit {
                position,
                message: e.to_string(),
            },
            _ => Failure::Stream {
                position,
                kind: e.kind().as_str(),
                ids: Vec::new(),
                message: e.to_string(),
            },
        })?;
        if let Some(warning) = &applied.warning {
            let warning = crate::terminal::visible(&warning.to_string(), false).into_owned();
            eprintln!("warning: {position}: {warning}");
        }
        Ok(())
    })?;
    Ok(json!({
        "messages": reducer.messages(),
        "state": reducer.state(),
        "pendingInterrupts": reducer.pending_interrupts(),
        "pendingToolCallIds": reducer.pending_tool_call_ids(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_output_is_refused_on_a_terminal_only() {
        let err = refuse_binary_to_terminal(Encoding::Proto, true).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("terminal"), "{err}");
        assert!(refuse_binary_to_terminal(Encoding::Proto, false).is_ok());
        assert!(refuse_binary_to_terminal(Encoding::Sse, true).is_ok());
        assert!(refuse_binary_to_terminal(Encoding::Jsonl, true).is_ok());
    }

    #[test]
    fn open_steps_are_told_apart_by_owner_whatever_their_names() {
        let mut open = Open::default();
        for event in [
            Event::run_started("t", "r"),
            Event::step_started("plan (subagent s1)"),
            Event::step_started("plan").with_subagent_run_id("s1"),
            Event::step_finished("plan").with_subagent_run_id("s1"),
        ] {
            open.see(&event);
        }
        assert_eq!(
            open.report().as_deref(),
            Some("run r; steps [plan (subagent s1)]")
        );
        open.see(&Event::step_finished("plan (subagent s1)"));
        assert_eq!(open.report().as_deref(), Some("run r"));
        for i in 0..25 {
            open.see(&Event::tool_call_start(format!("c{i}"), "f"));
        }
        assert_eq!(
            open.report().as_deref(),
            Some("run r; tool calls [c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, and 15 more]")
        );
        open.see(&Event::run_finished("t", "r"));
        assert_eq!(open.report(), None);
    }
}
