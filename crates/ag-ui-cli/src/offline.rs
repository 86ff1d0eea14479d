//! The commands that work on recorded streams: `verify`, `normalize`, `apply`, `convert`.

use std::fmt;
use std::io::{BufWriter, Write};

use ag_ui::client::apply::Reducer;
use ag_ui::client::chunks::{ChunkError, ChunkNormalizer};
use ag_ui::encoding::sse;
use ag_ui::verify::{Verifier, Violation};
use ag_ui::{Event, EventType};
use serde_json::json;

use crate::input::{self, InputError, Position, Positioned};

/// Why a command failed: bad input (exit 2) or a stream that breaks the protocol (exit 1).
#[derive(Debug)]
pub(crate) enum Failure {
    /// The input could not be read as events.
    Input(InputError),
    /// The events break a rule.
    Stream {
        position: Position,
        kind: &'static str,
        ids: Vec<String>,
        message: String,
    },
    /// Writing the output failed.
    Output(std::io::Error),
    /// A command-line value was wrong.
    Usage(String),
    /// The agent could not be reached, answered with an error status, or sent bytes that are
    /// not events.
    Remote(String),
    /// The run ended with `RUN_ERROR`.
    RunError(String),
}

impl Failure {
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            Failure::Stream { .. } | Failure::Remote(_) | Failure::RunError(_) => 1,
            Failure::Input(_) | Failure::Output(_) | Failure::Usage(_) => 2,
        }
    }

    pub(crate) fn violation(position: Position, v: &Violation) -> Self {
        Failure::Stream {
            position,
            kind: v.kind().as_str(),
            ids: v.ids().to_vec(),
            message: v.message().to_owned(),
        }
    }

    fn chunk(position: Position, e: &ChunkError) -> Self {
        Failure::Stream {
            position,
            kind: e.kind().as_str(),
            ids: e.id().map(str::to_owned).into_iter().collect(),
            message: e.to_string(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Input(e) => write!(f, "{e}"),
            Failure::Stream {
                position,
                kind,
                ids,
                message,
            } => {
                write!(f, "{position}: {kind}")?;
                if !ids.is_empty() {
                    write!(f, " [{}]", ids.join(", "))?;
                }
                write!(f, ": {message}")
            }
            Failure::Output(e) => write!(f, "{e}"),
            Failure::Usage(message) | Failure::Remote(message) => f.write_str(message),
            Failure::RunError(message) => write!(f, "the run failed: {message}"),
        }
    }
}

impl From<InputError> for Failure {
    fn from(e: InputError) -> Self {
        Failure::Input(e)
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Output(e)
    }
}

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

/// `ag-ui verify`: prints `ok: N events, M runs`, or the violation.
pub(crate) fn verify(path: Option<&str>, raw: bool) -> Result<String, Failure> {
    verify_reader(input::open(path)?, raw)
}

/// `ag-ui verify` on bytes already fetched (a URL's response).
pub(crate) fn verify_reader(reader: impl std::io::Read, raw: bool) -> Result<String, Failure> {
    if raw {
        return crate::raw::verify_raw(reader);
    }
    let mut runs = 0;
    let events = run_stages_on(reader, !raw, true, |_, event| {
        if event.event_type() == EventType::RunStarted {
            runs += 1;
        }
        Ok(())
    })?;
    Ok(format!("ok: {events} events, {runs} runs"))
}

/// Output encodings of `normalize` and `convert`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Encoding {
    /// One JSON object per line.
    Jsonl,
    /// Server-Sent Events frames.
    Sse,
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

/// `ag-ui convert`: re-encodes the events, unchanged.
pub(crate) fn convert(path: Option<&str>, encoding: Encoding) -> Result<(), Failure> {
    let mut write = writer(encoding);
    run_stages(path, false, false, &mut write)?;
    std::io::stdout().flush()?;
    Ok(())
}

/// `ag-ui apply`: the reducer's messages, state, pending interrupts and tool calls, as JSON.
pub(crate) fn apply(path: Option<&str>, verify: bool) -> Result<serde_json::Value, Failure> {
    let mut reducer = Reducer::new();
    run_stages(path, true, verify, |position, event| {
        let applied = reducer.apply(event).map_err(|e| Failure::Stream {
            position,
            kind: e.kind().as_str(),
            ids: Vec::new(),
            message: e.to_string(),
        })?;
        if let Some(warning) = &applied.warning {
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
