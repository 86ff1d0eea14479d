//! Rendering a live run in the terminal: streaming text, dimmed reasoning, tool calls with
//! their arguments and results, state changes, subagents grouped and labelled, the outcome.
//!
//! The renderer writes each delta as it arrives and keeps only what it needs for its lines:
//! which stream holds the current line, the heading of each open stream, subagent and tool
//! names, and, for a stream whose text arrives while another holds the line, that text up to
//! about a line ([`WAITING_MAX`] bytes). It never holds a message. A waiting stream takes the
//! line when the line is free (at a line start, or when its holder ends), when it ends, or
//! when its waiting text reaches the bound; it resumes on a line of its own, labelled, with `… `
//! in place of its heading. So no line mixes two streams, and memory is bounded per stream.
//!
//! Everything that comes from the agent is shown harmlessly: control characters (other than
//! newline and tab in text) and the characters that reorder text are shown escaped
//! ([`visible`]), and the resume command is quoted for a POSIX shell ([`shell_quote`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{self, Write};

use ag_ui::{Event, RunFinishedOutcome, SubagentFinishedOutcome};

use crate::terminal::{shell_quote, visible};

/// ANSI styles, or nothing when colours are off.
#[derive(Clone, Copy, Debug)]
struct Style {
    on: bool,
}

const DIM: &str = "2";
const BOLD: &str = "1";
const CYAN: &str = "36";
const GREEN: &str = "32";
const YELLOW: &str = "33";
const RED: &str = "31";
const MAGENTA: &str = "35";

impl Style {
    fn paint(self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
    fn dim(self, text: &str) -> String {
        self.paint(DIM, text)
    }
    fn bold(self, text: &str) -> String {
        self.paint(BOLD, text)
    }
    fn cyan(self, text: &str) -> String {
        self.paint(CYAN, text)
    }
    fn green(self, text: &str) -> String {
        self.paint(GREEN, text)
    }
    fn yellow(self, text: &str) -> String {
        self.paint(YELLOW, text)
    }
    fn red(self, text: &str) -> String {
        self.paint(RED, text)
    }
    fn magenta(self, text: &str) -> String {
        self.paint(MAGENTA, text)
    }
}

/// A field of an event, shown on one line.
fn one_line(text: &str) -> Cow<'_, str> {
    visible(text, false)
}

/// An id the agent chose, for a line of prose: one line, at most [`ag_ui::EXCERPT_BYTES`] of
/// it (a 2 MB id is shown as its start and its length).
fn id_line(id: &str) -> String {
    one_line(&ag_ui::excerpt(id, ag_ui::EXCERPT_BYTES)).into_owned()
}

/// The kinds of streams: each has its own id space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Text = 0,
    Reasoning = 1,
    Tool = 2,
}

impl Kind {
    /// The style of the stream's heading and text.
    fn codes(self) -> (&'static str, Option<&'static str>) {
        match self {
            Kind::Text => (BOLD, None),
            Kind::Reasoning => (DIM, Some(DIM)),
            Kind::Tool => (CYAN, None),
        }
    }
}

/// How much of a stream's text may wait while another stream holds the line: about a line.
/// Past it, the waiting stream takes the line (the holder resumes on a line of its own later).
const WAITING_MAX: usize = 256;

/// An open stream.
#[derive(Debug)]
struct Open {
    /// Its heading, made visible, unstyled.
    head: String,
    /// Whether its heading was written (it then resumes with `… `).
    shown: bool,
    /// The subagent it belongs to, for its label.
    owner: Option<String>,
    /// Text that arrived while another stream held the line (made visible; at most about
    /// [`WAITING_MAX`] bytes).
    waiting: String,
    /// Opening order, so that waiting text is written in a stable order.
    seq: u64,
}

/// Renders events to a terminal (or any writer).
pub(crate) struct Renderer<W: Write> {
    out: W,
    style: Style,
    /// The stream holding the current line (its kind and id), if any.
    line: Option<Kind>,
    line_id: String,
    /// The current line of the stream is empty: its last piece ended with a newline.
    at_start: bool,
    /// Open streams by kind, then id.
    open: [HashMap<String, Open>; 3],
    seq: u64,
    /// Subagent names (made visible) by run id, for labels.
    subagents: HashMap<String, String>,
    /// Tool names (made visible) by call id, for results and pending calls.
    tools: HashMap<String, String>,
    /// The URL the run went to, for the resume hint.
    url: String,
}

impl<W: Write> Renderer<W> {
    pub(crate) fn new(out: W, color: bool, url: impl Into<String>) -> Self {
        Self {
            out,
            style: Style { on: color },
            line: None,
            line_id: String::new(),
            at_start: false,
            open: Default::default(),
            seq: 0,
            subagents: HashMap::new(),
            tools: HashMap::new(),
            url: url.into(),
        }
    }

    fn label(&self, owner: Option<&str>) -> String {
        match owner {
            None => String::new(),
            Some(id) => {
                let name = match self.subagents.get(id) {
                    Some(name) => Cow::Borrowed(name.as_str()),
                    None => one_line(id),
                };
                format!("{} ", self.style.magenta(&format!("│ [{name}]")))
            }
        }
    }

    fn holds(&self, kind: Kind, id: &str) -> bool {
        self.line == Some(kind) && self.line_id == id
    }

    /// Ends the current stream's line if one is open.
    fn break_line(&mut self) -> io::Result<()> {
        if self.line.take().is_some() && !self.at_start {
            writeln!(self.out)?;
        }
        Ok(())
    }

    /// Writes `text` (made visible by the caller) as lines of their own, each labelled, after
    /// any text still waiting.
    fn say(&mut self, owner: Option<&str>, text: &str) -> io::Result<()> {
        self.flush_waiting()?;
        self.break_line()?;
        let label = self.label(owner);
        for line in text.split('\n') {
            writeln!(self.out, "{label}{line}")?;
        }
        Ok(())
    }

    /// Writes `piece` of the stream holding the line, labelling each new line of it.
    fn write_piece(
        &mut self,
        owner: Option<&str>,
        code: Option<&str>,
        piece: &str,
    ) -> io::Result<()> {
        let piece = visible(piece, true);
        for part in piece.split_inclusive('\n') {
            if self.at_start {
                let label = self.label(owner);
                self.out.write_all(label.as_bytes())?;
            }
            let (text, newline) = match part.strip_suffix('\n') {
                Some(text) => (text, true),
                None => (part, false),
            };
            match code {
                Some(code) if self.style.on && !text.is_empty() => {
                    write!(self.out, "\x1b[{code}m{text}\x1b[0m")?
                }
                _ => self.out.write_all(text.as_bytes())?,
            }
            if newline {
                self.out.write_all(b"\n")?;
            }
            self.at_start = newline;
        }
        Ok(())
    }

    /// Opens stream `id` with its heading; nothing is shown until it has something to show.
    fn start(&mut self, kind: Kind, id: &str, owner: Option<&str>, head: String) {
        self.seq += 1;
        self.open[kind as usize].insert(
            id.to_owned(),
            Open {
                head,
                shown: false,
                owner: owner.map(str::to_owned),
                waiting: String::new(),
                seq: self.seq,
            },
        );
    }

    /// Gives the line to stream `id` (open): the holder's line ends, and `id` starts a line,
    /// labelled, with its heading the first time and `… ` after, then what was waiting.
    fn take_line(&mut self, kind: Kind, id: &str) -> io::Result<()> {
        self.break_line()?;
        let Some(open) = self.open[kind as usize].get_mut(id) else {
            return Ok(());
        };
        let shown = std::mem::replace(&mut open.shown, true);
        let waiting = std::mem::take(&mut open.waiting);
        let owner = open.owner.clone();
        let head = if shown {
            self.style.dim("… ")
        } else {
            self.style.paint(kind.codes().0, &open.head)
        };
        let label = self.label(owner.as_deref());
        write!(self.out, "{label}{head}")?;
        self.line = Some(kind);
        self.line_id.clear();
        self.line_id.push_str(id);
        self.at_start = false;
        self.write_piece(owner.as_deref(), kind.codes().1, &waiting)
    }

    /// Continues stream `id` with `piece`: written at once if the stream holds the line or the
    /// line is free (at a line start). Otherwise it waits, up to about a line, so that no line
    /// mixes two streams; past that the stream takes the line.
    fn stream(&mut self, owner: Option<&str>, kind: Kind, id: &str, piece: &str) -> io::Result<()> {
        if !self.holds(kind, id) {
            let free = self.line.is_none() || self.at_start;
            let waited = {
                let Some(open) = self.open[kind as usize].get_mut(id) else {
                    return Ok(());
                };
                if !free {
                    open.waiting.push_str(&visible(piece, true));
                }
                open.waiting.len()
            };
            if free || waited > WAITING_MAX {
                self.take_line(kind, id)?;
            }
            if !free {
                return Ok(());
            }
        }
        self.write_piece(owner, kind.codes().1, piece)
    }

    /// Ends stream `id`, writing what was waiting and `closing` (styled as its heading). A
    /// stream never shown is shown now, heading and closing on one line.
    fn end(&mut self, kind: Kind, id: &str, closing: &str) -> io::Result<()> {
        let Some(open) = self.open[kind as usize].get(id) else {
            return Ok(());
        };
        let write = !closing.is_empty() || !open.shown || !open.waiting.is_empty();
        if write {
            if !self.holds(kind, id) {
                self.take_line(kind, id)?;
            }
            let closing = self.style.paint(kind.codes().0, closing);
            write!(self.out, "{closing}")?;
        }
        self.open[kind as usize].remove(id);
        if self.holds(kind, id) {
            self.break_line()?;
        }
        Ok(())
    }

    /// Writes the text of every stream still waiting, each on lines of its own, in the order
    /// the streams were opened.
    fn flush_waiting(&mut self) -> io::Result<()> {
        let mut waiting: Vec<(u64, Kind, String)> = Vec::new();
        for kind in [Kind::Text, Kind::Reasoning, Kind::Tool] {
            for (id, open) in &self.open[kind as usize] {
                if !open.waiting.is_empty() {
                    waiting.push((open.seq, kind, id.clone()));
                }
            }
        }
        waiting.sort_unstable_by_key(|&(seq, _, _)| seq);
        for (_, kind, id) in waiting {
            self.take_line(kind, &id)?;
        }
        Ok(())
    }

    fn tool_name<'a>(&'a self, id: &'a str) -> Cow<'a, str> {
        match self.tools.get(id) {
            Some(name) => Cow::Borrowed(name.as_str()),
            None => one_line(id),
        }
    }

    /// Renders one event: a piece of a streamed message, tool call or reasoning
    /// ([`streamed`](Self::streamed)), the start or end of a run or subagent
    /// ([`lifecycle`](Self::lifecycle)), or a line of its own ([`note`](Self::note)).
    pub(crate) fn event(&mut self, event: &Event) -> io::Result<()> {
        let owner = event.attribution().map(|s| s.as_str());
        match event {
            Event::RunStarted(_)
            | Event::RunFinished(_)
            | Event::RunError(_)
            | Event::SubagentStarted(_)
            | Event::SubagentFinished(_)
            | Event::SubagentError(_) => self.lifecycle(event)?,
            Event::TextMessageStart(_)
            | Event::TextMessageContent(_)
            | Event::TextMessageEnd(_)
            | Event::ReasoningMessageStart(_)
            | Event::ReasoningMessageContent(_)
            | Event::ReasoningMessageEnd(_)
            | Event::ToolCallStart(_)
            | Event::ToolCallArgs(_)
            | Event::ToolCallEnd(_) => self.streamed(event, owner)?,
            _ => self.note(event, owner)?,
        }
        self.out.flush()
    }

    /// A piece of a streamed text message, reasoning message or tool call: it opens, extends
    /// or closes its stream (a piece whose start was not seen opens it).
    fn streamed(&mut self, event: &Event, owner: Option<&str>) -> io::Result<()> {
        match event {
            Event::TextMessageStart(e) => {
                let head = format!("{}: ", e.effective_role().as_str());
                self.start(Kind::Text, e.message_id.as_str(), owner, head);
            }
            Event::TextMessageContent(e) => {
                let id = e.message_id.as_str();
                if !self.open[Kind::Text as usize].contains_key(id) {
                    self.start(Kind::Text, id, owner, "assistant: ".to_owned());
                }
                self.stream(owner, Kind::Text, id, &e.delta)?
            }
            Event::TextMessageEnd(e) => self.end(Kind::Text, e.message_id.as_str(), "")?,
            Event::ReasoningMessageStart(e) => self.start(
                Kind::Reasoning,
                e.message_id.as_str(),
                owner,
                "thinking: ".to_owned(),
            ),
            Event::ReasoningMessageContent(e) => {
                let id = e.message_id.as_str();
                if !self.open[Kind::Reasoning as usize].contains_key(id) {
                    self.start(Kind::Reasoning, id, owner, "thinking: ".to_owned());
                }
                self.stream(owner, Kind::Reasoning, id, &e.delta)?
            }
            Event::ReasoningMessageEnd(e) => {
                self.end(Kind::Reasoning, e.message_id.as_str(), "")?
            }
            Event::ToolCallStart(e) => {
                let name = one_line(&e.tool_call_name).into_owned();
                let id = e.tool_call_id.as_str();
                self.start(Kind::Tool, id, owner, format!("→ {name}("));
                self.tools.insert(id.to_owned(), name);
            }
            Event::ToolCallArgs(e) => {
                let id = e.tool_call_id.as_str();
                if !self.open[Kind::Tool as usize].contains_key(id) {
                    let head = format!("→ {}(", self.tool_name(id));
                    self.start(Kind::Tool, id, owner, head);
                }
                self.stream(owner, Kind::Tool, id, &e.delta)?
            }
            Event::ToolCallEnd(e) => {
                let id = e.tool_call_id.as_str();
                if !self.open[Kind::Tool as usize].contains_key(id) {
                    let head = format!("→ {}(", self.tool_name(id));
                    self.start(Kind::Tool, id, owner, head);
                }
                self.end(Kind::Tool, id, ")")?
            }
            _ => {}
        }
        Ok(())
    }

    /// The start or end of a run or of a subagent.
    fn lifecycle(&mut self, event: &Event) -> io::Result<()> {
        let s = self.style;
        match event {
            Event::RunStarted(e) => {
                // What a run opened and named is forgotten with it.
                self.tools.clear();
                self.subagents.clear();
                self.open.iter_mut().for_each(HashMap::clear);
                self.say(
                    None,
                    &s.dim(&format!(
                        "● run {} on thread {}",
                        id_line(e.run_id.as_str()),
                        id_line(e.thread_id.as_str())
                    )),
                )?
            }
            Event::SubagentStarted(e) => {
                let name = one_line(&e.name).into_owned();
                let about = e
                    .description
                    .as_deref()
                    .map(|d| format!(" — {}", one_line(d)))
                    .unwrap_or_default();
                let line = s.magenta(&format!("┌ subagent {name} started{about}"));
                self.subagents
                    .insert(e.subagent_run_id.as_str().to_owned(), name);
                self.say(None, &line)?
            }
            Event::SubagentFinished(e) => {
                let name = self.subagent_name(e.subagent_run_id.as_str());
                let how = match &e.outcome {
                    Some(SubagentFinishedOutcome::Suspended { .. }) => "suspended",
                    _ => "finished",
                };
                self.say(None, &s.magenta(&format!("└ subagent {name} {how}")))?
            }
            Event::SubagentError(e) => {
                let name = self.subagent_name(e.subagent_run_id.as_str());
                self.say(
                    None,
                    &s.red(&format!(
                        "└ subagent {name} failed: {}",
                        visible(&e.message, true)
                    )),
                )?
            }
            Event::RunFinished(e) => self.finished(e)?,
            Event::RunError(e) => {
                let code = e
                    .code
                    .as_deref()
                    .map(|c| format!(" ({})", one_line(c)))
                    .unwrap_or_default();
                self.say(
                    None,
                    &s.red(&format!(
                        "✗ run failed: {}{code}",
                        visible(&e.message, true)
                    )),
                )?
            }
            _ => {}
        }
        Ok(())
    }

    /// An event shown on a line of its own: state, messages snapshots, activity, steps, custom
    /// events, encrypted reasoning, tool results; future events by type.
    fn note(&mut self, event: &Event, owner: Option<&str>) -> io::Result<()> {
        let s = self.style;
        match event {
            // The span around reasoning messages shows nothing of its own.
            Event::ReasoningStart(_) | Event::ReasoningEnd(_) => {}
            Event::ReasoningEncryptedValue(e) => self.say(
                owner,
                &s.dim(&format!(
                    "(encrypted reasoning for {})",
                    one_line(e.entity_id.as_str())
                )),
            )?,
            Event::ToolCallResult(e) => {
                let name = self.tool_name(e.tool_call_id.as_str()).into_owned();
                self.say(
                    owner,
                    &format!(
                        "{} {}",
                        s.cyan(&format!("← {name}:")),
                        visible(&e.content.flatten(), true)
                    ),
                )?
            }
            Event::StateSnapshot(e) => self.say(
                owner,
                &s.yellow(&format!("state = {}", one_line(&e.snapshot.to_string()))),
            )?,
            Event::StateDelta(e) => {
                let ops: Vec<String> = e
                    .delta
                    .iter()
                    .map(|op| serde_json::to_string(op).unwrap_or_default())
                    .collect();
                self.say(
                    owner,
                    &s.yellow(&format!("state Δ {}", one_line(&ops.join(" ")))),
                )?
            }
            Event::MessagesSnapshot(e) => self.say(
                None,
                &s.dim(&format!(
                    "(messages snapshot: {} messages)",
                    e.messages.len()
                )),
            )?,
            Event::ActivitySnapshot(e) => {
                let content = serde_json::Value::Object(e.content.clone()).to_string();
                self.say(
                    owner,
                    &s.dim(&format!(
                        "activity {} {}: {}",
                        one_line(&e.activity_type),
                        one_line(e.message_id.as_str()),
                        one_line(&content)
                    )),
                )?
            }
            Event::ActivityDelta(e) => self.say(
                owner,
                &s.dim(&format!(
                    "activity {} {} Δ",
                    one_line(&e.activity_type),
                    one_line(e.message_id.as_str())
                )),
            )?,
            Event::StepStarted(e) => {
                self.say(owner, &s.dim(&format!("▸ {}", one_line(&e.step_name))))?
            }
            Event::StepFinished(e) => {
                self.say(owner, &s.dim(&format!("✓ {}", one_line(&e.step_name))))?
            }
            Event::Custom(e) => self.say(
                owner,
                &s.dim(&format!(
                    "custom {}: {}",
                    one_line(&e.name),
                    one_line(&e.value.to_string())
                )),
            )?,
            Event::Raw(_) => {}
            // Chunks never reach the renderer (they are normalized first); future events are
            // shown by type.
            other => self.say(owner, &s.dim(&format!("({})", other.event_type())))?,
        }
        Ok(())
    }

    fn subagent_name(&self, id: &str) -> String {
        match self.subagents.get(id) {
            Some(name) => name.clone(),
            None => id_line(id),
        }
    }

    /// `RUN_FINISHED`: done (with the result), cancelled, waiting for interrupts to be answered
    /// (with the command that answers them), or waiting for frontend tool results.
    fn finished(&mut self, e: &ag_ui::RunFinishedEvent) -> io::Result<()> {
        let s = self.style;
        match &e.outcome {
            Some(RunFinishedOutcome::Interrupt { interrupts }) => {
                self.say(None, &s.yellow("⏸ the run is waiting for you:"))?;
                for i in interrupts {
                    let message = i.message.as_deref().map(|m| visible(m, true));
                    self.say(
                        None,
                        &format!(
                            "  {} ({}) {}",
                            s.bold(&id_line(i.id.as_str())),
                            one_line(&i.reason),
                            message.unwrap_or_default()
                        ),
                    )?;
                }
                let ids = std::iter::once(e.thread_id.as_str())
                    .chain(interrupts.iter().map(|i| i.id.as_str()));
                if ids.into_iter().any(|id| id.len() > ag_ui::EXCERPT_BYTES) {
                    // A command with the ids cut would resume nothing: say where they are.
                    return self.say(
                        None,
                        &s.dim(&format!(
                            "  resume with --thread and --resume (an id is over {} bytes; \
                             --json shows it whole)",
                            ag_ui::EXCERPT_BYTES
                        )),
                    );
                }
                let command = [
                    "ag-ui".to_owned(),
                    "run".to_owned(),
                    self.url.clone(),
                    "--thread".to_owned(),
                    e.thread_id.to_string(),
                ];
                let mut command: Vec<String> = command
                    .iter()
                    .map(|word| shell_quote(word).into_owned())
                    .collect();
                for i in interrupts {
                    // ID='PAYLOAD': two quoted parts of one word.
                    command.push("--resume".to_owned());
                    command.push(format!(
                        "{}={}",
                        shell_quote(i.id.as_str()),
                        shell_quote("{\"approved\":true}")
                    ));
                }
                let hint = format!("  resume with: {}", one_line(&command.join(" ")));
                self.say(None, &s.dim(&hint))
            }
            Some(RunFinishedOutcome::Cancelled) => self.say(None, &s.yellow("■ cancelled")),
            outcome => {
                let result = e
                    .result
                    .as_ref()
                    .map(|r| format!(" {}", s.dim(&one_line(&r.to_string()))))
                    .unwrap_or_default();
                self.say(None, &format!("{}{result}", s.green("✓ done")))?;
                let pending = match outcome {
                    Some(RunFinishedOutcome::Success {
                        pending_tool_call_ids: Some(ids),
                    }) => ids.as_slice(),
                    _ => &[],
                };
                if pending.is_empty() {
                    return Ok(());
                }
                self.say(
                    None,
                    &s.yellow("⧗ waiting for the results of frontend tool calls:"),
                )?;
                for id in pending {
                    let line = format!(
                        "  {} ({})",
                        s.cyan(&self.tool_name(id.as_str())),
                        one_line(id.as_str())
                    );
                    self.say(None, &line)?;
                }
                Ok(())
            }
        }
    }

    /// Writes what is still waiting and ends any open line.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.flush_waiting()?;
        self.break_line()?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ag_ui::{Interrupt, TextMessageRole, ToolCallStartEvent};

    fn render(events: &[Event]) -> String {
        let mut out = Vec::new();
        let mut renderer = Renderer::new(&mut out, false, "http://127.0.0.1:8000/");
        for e in events {
            renderer.event(e).unwrap();
        }
        renderer.finish().unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn renders_a_run_without_colours() {
        let events = [
            Event::run_started("t", "r"),
            Event::reasoning_start("rs"),
            Event::reasoning_message_start("rs"),
            Event::reasoning_message_content("rs", "Let me"),
            Event::reasoning_message_content("rs", " think."),
            Event::reasoning_message_end("rs"),
            Event::reasoning_end("rs"),
            Event::step_started("research"),
            ToolCallStartEvent::new("c1", "search").into(),
            Event::tool_call_args("c1", "{\"q\":"),
            Event::tool_call_args("c1", "\"x\"}"),
            Event::tool_call_end("c1"),
            Event::tool_call_result("tr", "c1", "3 results"),
            Event::state_delta(vec![
                serde_json::from_value(serde_json::json!({"op":"add","path":"/n","value":1}))
                    .unwrap(),
            ]),
            Event::subagent_started("s1", "researcher"),
            Event::subagent_started("s2", "critic"),
            Event::text_message_start("a", TextMessageRole::Assistant).with_subagent_run_id("s1"),
            Event::text_message_start("b", TextMessageRole::Assistant).with_subagent_run_id("s2"),
            Event::text_message_content("a", "Facts").with_subagent_run_id("s1"),
            Event::text_message_content("b", "Catch").with_subagent_run_id("s2"),
            Event::text_message_content("a", " here").with_subagent_run_id("s1"),
            Event::text_message_end("a").with_subagent_run_id("s1"),
            Event::text_message_end("b").with_subagent_run_id("s2"),
            Event::subagent_finished("s1"),
            Event::subagent_finished("s2"),
            Event::step_finished("research"),
            Event::text_message_start("m", TextMessageRole::Assistant),
            Event::text_message_content("m", "Hello"),
            Event::text_message_content("m", " world"),
            Event::text_message_end("m"),
            ag_ui::RunFinishedEvent::new("t", "r")
                .with_outcome(RunFinishedOutcome::interrupt(vec![
                    Interrupt::new("ok-1", "confirmation").with_message("Save?"),
                ]))
                .into(),
        ];
        assert_eq!(
            render(&events),
            "\
● run r on thread t
thinking: Let me think.
▸ research
→ search({\"q\":\"x\"})
← search: 3 results
state Δ {\"op\":\"add\",\"path\":\"/n\",\"value\":1}
┌ subagent researcher started
┌ subagent critic started
│ [researcher] assistant: Facts here
│ [critic] assistant: Catch
└ subagent researcher finished
└ subagent critic finished
✓ research
assistant: Hello world
⏸ the run is waiting for you:
  ok-1 (confirmation) Save?
  resume with: ag-ui run http://127.0.0.1:8000/ --thread t --resume ok-1='{\"approved\":true}'
"
        );
    }

    #[test]
    fn renders_errors_and_results() {
        let done =
            ag_ui::RunFinishedEvent::new("t", "r").with_result(serde_json::json!({"ok": true}));
        assert_eq!(render(&[done.into()]), "✓ done {\"ok\":true}\n");
        let failed = ag_ui::RunErrorEvent::new("boom").with_code("agent");
        assert_eq!(render(&[failed.into()]), "✗ run failed: boom (agent)\n");
        let coloured = {
            let mut out = Vec::new();
            Renderer::new(&mut out, true, "u")
                .event(&Event::run_error("x"))
                .unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(coloured, "\x1b[31m✗ run failed: x\x1b[0m\n");
    }

    fn events(jsonl: &str) -> Vec<Event> {
        jsonl
            .lines()
            .map(|line| Event::from_json(line).unwrap())
            .collect()
    }

    /// Ids of a megabyte are shown as bounded excerpts, once each (a 2 MB id was printed
    /// whole, in the run line and again in the resume command).
    #[test]
    fn huge_ids_are_quoted_as_excerpts() {
        let huge = "i".repeat(2 << 20);
        let out = render(&[
            Event::run_started(huge.as_str(), huge.as_str()),
            ag_ui::RunFinishedEvent::new(huge.as_str(), huge.as_str())
                .with_outcome(RunFinishedOutcome::interrupt(vec![Interrupt::new(
                    huge.as_str(),
                    "confirmation",
                )]))
                .into(),
        ]);
        assert!(out.len() < 2048, "{} bytes", out.len());
        assert_eq!(out.matches("(2097152 bytes)").count(), 3, "{out}");
        assert!(out.contains("--json shows it whole"), "{out}");
    }

    #[test]
    fn a_tool_call_is_shown_once_when_another_event_interleaves() {
        let out = render(&events(
            r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search"}
{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"q\":"}
{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}
{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"\"x\"}"}
{"type":"TOOL_CALL_END","toolCallId":"c1"}
{"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"fetch"}
{"type":"STEP_STARTED","stepName":"s"}
{"type":"TOOL_CALL_ARGS","toolCallId":"c2","delta":"{}"}
{"type":"TOOL_CALL_END","toolCallId":"c2"}
{"type":"TOOL_CALL_START","toolCallId":"c3","toolCallName":"now"}
{"type":"TOOL_CALL_END","toolCallId":"c3"}"#,
        ));
        assert_eq!(
            out,
            "→ search({\"q\":\nstate = {\"n\":1}\n… \"x\"})\n▸ s\n→ fetch({})\n→ now()\n"
        );
    }

    #[test]
    fn concurrent_subagents_never_share_a_line_and_every_line_is_labelled() {
        let out = render(&events(
            r#"{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"researcher"}
{"type":"SUBAGENT_STARTED","subagentRunId":"s2","name":"critic"}
{"type":"TEXT_MESSAGE_START","messageId":"a","role":"assistant","subagentRunId":"s1"}
{"type":"TEXT_MESSAGE_START","messageId":"b","role":"assistant","subagentRunId":"s2"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"one\ntw","subagentRunId":"s1"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"b","delta":"Catch","subagentRunId":"s2"}
{"type":"TEXT_MESSAGE_END","messageId":"b","subagentRunId":"s2"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"o\n","subagentRunId":"s1"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"three","subagentRunId":"s1"}
{"type":"TEXT_MESSAGE_END","messageId":"a","subagentRunId":"s1"}"#,
        ));
        assert_eq!(
            out,
            "┌ subagent researcher started\n┌ subagent critic started\n\
             │ [researcher] assistant: one\n│ [researcher] tw\n\
             │ [critic] assistant: Catch\n\
             │ [researcher] … o\n│ [researcher] three\n"
        );
    }

    #[test]
    fn pending_frontend_tool_calls_are_shown_at_the_end() {
        let out = render(&events(
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"confirm"}
{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}
{"type":"TOOL_CALL_END","toolCallId":"c1"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success","pendingToolCallIds":["c1","c9"]}}"#,
        ));
        assert_eq!(
            out,
            "● run r on thread t\n→ confirm({})\n✓ done\n\
             ⧗ waiting for the results of frontend tool calls:\n  confirm (c1)\n  c9 (c9)\n"
        );
    }

    #[test]
    fn escapes_from_the_agent_are_shown_harmlessly() {
        let out = render(&events(
            r#"{"type":"RUN_STARTED","threadId":"t\u001b[2J","runId":"r\u009b31m"}
{"type":"TEXT_MESSAGE_START","messageId":"m"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi \u001b]0;pwned\u0007 there\r\n\tok \u202eevil"}
{"type":"TEXT_MESSAGE_END","messageId":"m"}
{"type":"TOOL_CALL_START","toolCallId":"c\u001b[1m","toolCallName":"x\u001b[31m"}
{"type":"TOOL_CALL_END","toolCallId":"c\u001b[1m"}
{"type":"TOOL_CALL_RESULT","messageId":"tr","toolCallId":"c\u001b[1m","content":"\u001b[5mblink"}
{"type":"SUBAGENT_STARTED","subagentRunId":"s\u001b","name":"n\u001b[8m"}
{"type":"STEP_STARTED","stepName":"st\u001b","subagentRunId":"s\u001b"}
{"type":"SUBAGENT_ERROR","subagentRunId":"s\u001b","message":"bad\u001b[0m"}
{"type":"RUN_ERROR","message":"boom\u001b]8;;http://evil\u0007","code":"c\u001b"}"#,
        ));
        for c in ['\u{1b}', '\u{9b}', '\u{7}', '\r', '\u{202e}'] {
            assert!(!out.contains(c), "{c:?} reached the terminal: {out:?}");
        }
        assert_eq!(
            out,
            "● run r\\u{9b}31m on thread t\\u{1b}[2J\n\
             assistant: hi \\u{1b}]0;pwned\\u{7} there\\u{d}\n\tok \\u{202e}evil\n\
             → x\\u{1b}[31m()\n\
             ← x\\u{1b}[31m: \\u{1b}[5mblink\n\
             ┌ subagent n\\u{1b}[8m started\n\
             │ [n\\u{1b}[8m] ▸ st\\u{1b}\n\
             └ subagent n\\u{1b}[8m failed: bad\\u{1b}[0m\n\
             ✗ run failed: boom\\u{1b}]8;;http://evil\\u{7} (c\\u{1b})\n"
        );
    }

    #[test]
    fn the_resume_command_is_quoted_for_the_shell() {
        let out = render(&events(
            r#"{"type":"RUN_FINISHED","threadId":"t x","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"a b","reason":"r"},{"id":"it's","reason":"r"},{"id":"$(touch pwned)`id`","reason":"r"},{"id":"e\u001b[2J","reason":"r"}]}}"#,
        ));
        let hint = out
            .lines()
            .find_map(|l| l.strip_prefix("  resume with: "))
            .unwrap();
        assert_eq!(
            hint,
            "ag-ui run http://127.0.0.1:8000/ --thread 't x' \
             --resume 'a b'='{\"approved\":true}' \
             --resume 'it'\\''s'='{\"approved\":true}' \
             --resume '$(touch pwned)`id`'='{\"approved\":true}' \
             --resume 'e\\u{1b}[2J'='{\"approved\":true}'"
        );
        // A POSIX shell reads back exactly the words: nothing is expanded or run.
        let words = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("printf '%s\\n' {hint}"))
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(words.stdout).unwrap(),
            "ag-ui\nrun\nhttp://127.0.0.1:8000/\n--thread\nt x\n\
             --resume\na b={\"approved\":true}\n--resume\nit's={\"approved\":true}\n\
             --resume\n$(touch pwned)`id`={\"approved\":true}\n\
             --resume\ne\\u{1b}[2J={\"approved\":true}\n"
        );
    }

    #[test]
    fn waiting_text_is_bounded_and_every_delta_is_shown_on_its_streams_lines() {
        let mut renderer = Renderer::new(Vec::new(), false, "u");
        for event in [
            Event::subagent_started("s1", "researcher"),
            Event::subagent_started("s2", "critic"),
            Event::text_message_start("a", TextMessageRole::Assistant).with_subagent_run_id("s1"),
            Event::text_message_start("b", TextMessageRole::Assistant).with_subagent_run_id("s2"),
        ] {
            renderer.event(&event).unwrap();
        }
        let (mut a_text, mut b_text) = (String::new(), String::new());
        for i in 0..2000 {
            let (id, owner, text) = if i % 7 == 0 {
                ("a", "s1", &mut a_text)
            } else {
                ("b", "s2", &mut b_text)
            };
            let delta = format!("<{id}{i:04}>");
            text.push_str(&delta);
            renderer
                .event(&Event::text_message_content(id, delta.as_str()).with_subagent_run_id(owner))
                .unwrap();
            // What waits is about a line per stream, never a message.
            for open in renderer.open[Kind::Text as usize].values() {
                assert!(open.waiting.len() <= WAITING_MAX + delta.len());
            }
        }
        for event in [
            Event::text_message_end("a").with_subagent_run_id("s1"),
            Event::text_message_end("b").with_subagent_run_id("s2"),
        ] {
            renderer.event(&event).unwrap();
        }
        renderer.finish().unwrap();
        let out = String::from_utf8(renderer.out).unwrap();
        // Each line is one stream's, labelled; joined, each stream's lines are its text.
        let (mut a_shown, mut b_shown) = (String::new(), String::new());
        for line in out.lines().skip(2) {
            let (shown, rest) = match line.strip_prefix("│ [researcher] ") {
                Some(rest) => (&mut a_shown, rest),
                None => (&mut b_shown, line.strip_prefix("│ [critic] ").unwrap()),
            };
            let text = rest
                .strip_prefix("assistant: ")
                .or_else(|| rest.strip_prefix("… "))
                .unwrap();
            shown.push_str(text);
        }
        assert_eq!(a_shown, a_text);
        assert_eq!(b_shown, b_text);
    }
}
