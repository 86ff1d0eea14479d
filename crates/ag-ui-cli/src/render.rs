//! Rendering a live run in the terminal: streaming text, dimmed reasoning, tool calls with
//! their arguments and results, state changes, subagents grouped and labelled, the outcome.
//!
//! The renderer writes as events arrive and keeps only what it needs to label lines (which
//! stream is being written, subagent names, tool names); it never holds the conversation.

use std::collections::HashMap;
use std::io::{self, Write};

use ag_ui::{Event, RunFinishedOutcome, SubagentFinishedOutcome};

/// ANSI styles, or nothing when colours are off.
#[derive(Clone, Copy, Debug)]
struct Style {
    on: bool,
}

impl Style {
    fn paint(self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
    fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }
    fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }
    fn cyan(self, text: &str) -> String {
        self.paint("36", text)
    }
    fn green(self, text: &str) -> String {
        self.paint("32", text)
    }
    fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }
    fn red(self, text: &str) -> String {
        self.paint("31", text)
    }
    fn magenta(self, text: &str) -> String {
        self.paint("35", text)
    }
}

/// Which stream the current line belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Line {
    /// At the start of a line.
    Fresh,
    /// In the middle of a text, reasoning or tool-argument stream.
    Stream { kind: &'static str, id: String },
}

/// Renders events to a terminal (or any writer).
pub(crate) struct Renderer<W: Write> {
    out: W,
    style: Style,
    line: Line,
    subagents: HashMap<String, String>,
    tools: HashMap<String, String>,
    /// Streams that could not be written live because another stream held the line: their
    /// prefix and text so far, written as one line when they end (or take the line).
    pending: HashMap<(&'static str, String), String>,
    /// The URL the run went to, for the resume hint.
    url: String,
}

impl<W: Write> Renderer<W> {
    pub(crate) fn new(out: W, color: bool, url: impl Into<String>) -> Self {
        Self {
            out,
            style: Style { on: color },
            line: Line::Fresh,
            subagents: HashMap::new(),
            tools: HashMap::new(),
            pending: HashMap::new(),
            url: url.into(),
        }
    }

    fn label(&self, owner: Option<&str>) -> String {
        match owner {
            None => String::new(),
            Some(id) => {
                let name = self.subagents.get(id).map_or(id, String::as_str);
                format!("{} ", self.style.magenta(&format!("│ [{name}]")))
            }
        }
    }

    /// Ends the current stream's line if one is open.
    fn break_line(&mut self) -> io::Result<()> {
        if self.line != Line::Fresh {
            writeln!(self.out)?;
            self.line = Line::Fresh;
        }
        Ok(())
    }

    /// Writes a whole line of its own.
    fn say(&mut self, owner: Option<&str>, text: &str) -> io::Result<()> {
        self.break_line()?;
        let label = self.label(owner);
        writeln!(self.out, "{label}{text}")
    }

    /// Continues (or starts) the line of stream `id`, prefixing `head` when the line is new.
    /// While another stream holds the line, the text is kept and shown when this stream takes
    /// the line or ends, so concurrent streams never mix words on one line.
    fn stream(
        &mut self,
        owner: Option<&str>,
        kind: &'static str,
        id: &str,
        head: &str,
        piece: &str,
    ) -> io::Result<()> {
        let here = Line::Stream {
            kind,
            id: id.to_owned(),
        };
        if self.line == here {
            return write!(self.out, "{piece}");
        }
        let key = (kind, id.to_owned());
        if self.line == Line::Fresh {
            let start = match self.pending.remove(&key) {
                Some(buffered) => buffered,
                None => format!("{}{head}", self.label(owner)),
            };
            write!(self.out, "{start}{piece}")?;
            self.line = here;
            return Ok(());
        }
        let label = self.label(owner);
        self.pending
            .entry(key)
            .or_insert_with(|| format!("{label}{head}"))
            .push_str(piece);
        Ok(())
    }

    /// Ends stream `id`: its line ends, or its kept text is written as a line of its own.
    fn end_stream(&mut self, kind: &'static str, id: &str) -> io::Result<()> {
        if self.line
            == (Line::Stream {
                kind,
                id: id.to_owned(),
            })
        {
            return self.break_line();
        }
        if let Some(buffered) = self.pending.remove(&(kind, id.to_owned())) {
            self.break_line()?;
            writeln!(self.out, "{buffered}")?;
        }
        Ok(())
    }

    /// Renders one event. Returns whether it ends the run.
    pub(crate) fn event(&mut self, event: &Event) -> io::Result<()> {
        let owner = event.attribution().map(|s| s.as_str().to_owned());
        let owner = owner.as_deref();
        let s = self.style;
        match event {
            Event::RunStarted(e) => self.say(
                None,
                &s.dim(&format!("● run {} on thread {}", e.run_id, e.thread_id)),
            )?,
            Event::TextMessageStart(e) => {
                let who = format!("{}: ", e.effective_role().as_str());
                self.stream(owner, "text", e.message_id.as_str(), &s.bold(&who), "")?;
            }
            Event::TextMessageContent(e) => self.stream(
                owner,
                "text",
                e.message_id.as_str(),
                &s.bold("assistant: "),
                &e.delta,
            )?,
            Event::TextMessageEnd(e) => self.end_stream("text", e.message_id.as_str())?,
            Event::ReasoningMessageStart(e) => self.stream(
                owner,
                "reasoning",
                e.message_id.as_str(),
                &s.dim("thinking: "),
                "",
            )?,
            Event::ReasoningMessageContent(e) => {
                let piece = s.dim(&e.delta);
                self.stream(
                    owner,
                    "reasoning",
                    e.message_id.as_str(),
                    &s.dim("thinking: "),
                    &piece,
                )?
            }
            Event::ReasoningMessageEnd(e) => self.end_stream("reasoning", e.message_id.as_str())?,
            // The span around reasoning messages shows nothing of its own.
            Event::ReasoningStart(_) | Event::ReasoningEnd(_) => {}
            Event::ReasoningEncryptedValue(e) => self.say(
                owner,
                &s.dim(&format!("(encrypted reasoning for {})", e.entity_id)),
            )?,
            Event::ToolCallStart(e) => {
                self.tools
                    .insert(e.tool_call_id.as_str().to_owned(), e.tool_call_name.clone());
                let head = s.cyan(&format!("→ {}(", e.tool_call_name));
                self.stream(owner, "tool", e.tool_call_id.as_str(), &head, "")?;
            }
            Event::ToolCallArgs(e) => {
                let name = self
                    .tools
                    .get(e.tool_call_id.as_str())
                    .cloned()
                    .unwrap_or_default();
                let head = s.cyan(&format!("→ {name}("));
                self.stream(owner, "tool", e.tool_call_id.as_str(), &head, &e.delta)?;
            }
            Event::ToolCallEnd(e) => {
                let name = self
                    .tools
                    .get(e.tool_call_id.as_str())
                    .cloned()
                    .unwrap_or_default();
                let head = s.cyan(&format!("→ {name}("));
                self.stream(owner, "tool", e.tool_call_id.as_str(), &head, &s.cyan(")"))?;
                self.end_stream("tool", e.tool_call_id.as_str())?;
            }
            Event::ToolCallResult(e) => {
                let name = self
                    .tools
                    .get(e.tool_call_id.as_str())
                    .cloned()
                    .unwrap_or_else(|| e.tool_call_id.to_string());
                self.say(
                    owner,
                    &format!("{} {}", s.cyan(&format!("← {name}:")), e.content.flatten()),
                )?
            }
            Event::StateSnapshot(e) => {
                self.say(owner, &s.yellow(&format!("state = {}", e.snapshot)))?
            }
            Event::StateDelta(e) => {
                let ops: Vec<String> = e
                    .delta
                    .iter()
                    .map(|op| serde_json::to_string(op).unwrap_or_default())
                    .collect();
                self.say(owner, &s.yellow(&format!("state Δ {}", ops.join(" "))))?
            }
            Event::MessagesSnapshot(e) => self.say(
                None,
                &s.dim(&format!(
                    "(messages snapshot: {} messages)",
                    e.messages.len()
                )),
            )?,
            Event::ActivitySnapshot(e) => self.say(
                owner,
                &s.dim(&format!(
                    "activity {} {}: {}",
                    e.activity_type,
                    e.message_id,
                    serde_json::Value::Object(e.content.clone())
                )),
            )?,
            Event::ActivityDelta(e) => self.say(
                owner,
                &s.dim(&format!("activity {} {} Δ", e.activity_type, e.message_id)),
            )?,
            Event::StepStarted(e) => self.say(owner, &s.dim(&format!("▸ {}", e.step_name)))?,
            Event::StepFinished(e) => self.say(owner, &s.dim(&format!("✓ {}", e.step_name)))?,
            Event::Custom(e) => {
                self.say(owner, &s.dim(&format!("custom {}: {}", e.name, e.value)))?
            }
            Event::Raw(_) => {}
            Event::SubagentStarted(e) => {
                self.subagents
                    .insert(e.subagent_run_id.as_str().to_owned(), e.name.clone());
                let about = e
                    .description
                    .as_deref()
                    .map(|d| format!(" — {d}"))
                    .unwrap_or_default();
                self.say(
                    None,
                    &s.magenta(&format!("┌ subagent {} started{about}", e.name)),
                )?
            }
            Event::SubagentFinished(e) => {
                let name = self
                    .subagents
                    .get(e.subagent_run_id.as_str())
                    .cloned()
                    .unwrap_or_else(|| e.subagent_run_id.to_string());
                let how = match &e.outcome {
                    Some(SubagentFinishedOutcome::Suspended { .. }) => "suspended",
                    _ => "finished",
                };
                self.say(None, &s.magenta(&format!("└ subagent {name} {how}")))?
            }
            Event::SubagentError(e) => {
                let name = self
                    .subagents
                    .get(e.subagent_run_id.as_str())
                    .cloned()
                    .unwrap_or_else(|| e.subagent_run_id.to_string());
                self.say(
                    None,
                    &s.red(&format!("└ subagent {name} failed: {}", e.message)),
                )?
            }
            Event::RunFinished(e) => match &e.outcome {
                Some(RunFinishedOutcome::Interrupt { interrupts }) => {
                    self.say(None, &s.yellow("⏸ the run is waiting for you:"))?;
                    for i in interrupts {
                        let message = i.message.as_deref().unwrap_or("");
                        self.say(
                            None,
                            &format!("  {} ({}) {message}", s.bold(i.id.as_str()), i.reason),
                        )?;
                    }
                    let ids: Vec<String> = interrupts
                        .iter()
                        .map(|i| format!("--resume {}='{{\"approved\":true}}'", i.id))
                        .collect();
                    let hint = format!(
                        "  resume with: ag-ui run {} --thread {} {}",
                        self.url,
                        e.thread_id,
                        ids.join(" ")
                    );
                    self.say(None, &s.dim(&hint))?
                }
                Some(RunFinishedOutcome::Cancelled) => self.say(None, &s.yellow("■ cancelled"))?,
                _ => {
                    let result = e
                        .result
                        .as_ref()
                        .map(|r| format!(" {}", s.dim(&r.to_string())))
                        .unwrap_or_default();
                    self.say(None, &format!("{}{result}", s.green("✓ done")))?
                }
            },
            Event::RunError(e) => {
                let code = e
                    .code
                    .as_deref()
                    .map(|c| format!(" ({c})"))
                    .unwrap_or_default();
                self.say(None, &s.red(&format!("✗ run failed: {}{code}", e.message)))?
            }
            // Chunks never reach the renderer (they are normalized first); future events are
            // shown by type.
            other => self.say(owner, &s.dim(&format!("({})", other.event_type())))?,
        }
        self.out.flush()
    }

    /// Ends any open line.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
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
}
