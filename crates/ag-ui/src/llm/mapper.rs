//! [`ChunkMapper`]: the state machine from provider chunks to AG-UI events, and
//! [`ChunkDecoder`], provider SSE bytes to chunks.

use std::fmt;

use super::wire::{ChatChunk, ChatUsage, ChunkDelta, ToolCallDelta};
use super::{LlmError, LlmErrorKind};
use crate::encoding::sse::FrameDecoder;
use crate::server::StreamWriter;
use crate::{MessageId, TextMessageRole, TokenUsage, ToolCallId};

/// The default cap on what one turn may accumulate: 16 MiB of text, reasoning and arguments.
pub const DEFAULT_MAX_TURN_BYTES: usize = 16 * 1024 * 1024;

/// The default cap on tool calls in one turn.
pub const DEFAULT_MAX_TOOL_CALLS: usize = 128;

/// Why the model stopped (`finish_reason`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FinishReason {
    /// The answer is complete (`stop`).
    Stop,
    /// The model wants its tool calls run (`tool_calls`, or the legacy `function_call`).
    ToolCalls,
    /// The output token limit was reached (`length`): the answer is cut off.
    Length,
    /// The provider's filter stopped the answer (`content_filter`).
    ContentFilter,
    /// A reason this crate does not know, as the provider wrote it.
    Other(String),
}

impl FinishReason {
    /// Reads a `finish_reason`.
    pub fn parse(reason: &str) -> Self {
        match reason {
            "stop" | "end_turn" | "eos" => FinishReason::Stop,
            "tool_calls" | "function_call" => FinishReason::ToolCalls,
            "length" | "max_tokens" => FinishReason::Length,
            "content_filter" => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_owned()),
        }
    }
}

/// A tool call the model made in one turn, complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnToolCall {
    /// The AG-UI id it was streamed under (minted, `{run id}-call-{n}`).
    pub id: ToolCallId,
    /// The function's name.
    pub name: String,
    /// The arguments' JSON text, as the model wrote it (not validated here).
    pub arguments: String,
}

/// What one model turn produced, once its stream has ended.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Turn {
    /// The assistant message the text went to and the tool calls name as `parentMessageId`;
    /// `None` when the turn had neither.
    pub message_id: Option<MessageId>,
    /// The whole text.
    pub text: String,
    /// The whole reasoning.
    pub reasoning: String,
    /// The tool calls, in the order of their `index`.
    pub tool_calls: Vec<TurnToolCall>,
    /// Why the model stopped; `None` when the stream carried no reason.
    pub finish_reason: Option<FinishReason>,
    /// The provider's token counts, when it sent them ([`token_usage`](Self::token_usage)
    /// reads them).
    pub(crate) usage: Option<ChatUsage>,
    /// The model that answered, as the chunks named it.
    pub model: Option<String>,
}

impl Turn {
    /// The usage as AG-UI reports it on `RUN_FINISHED`, for `provider`.
    pub fn token_usage(&self, provider: &str, model: &str) -> Option<TokenUsage> {
        let usage = self.usage.as_ref()?;
        let mut out = TokenUsage::new(provider, self.model.as_deref().unwrap_or(model))
            .with_tokens(usage.prompt_tokens, usage.completion_tokens);
        if usage.total_tokens != 0 {
            out.total_tokens = Some(usage.total_tokens);
        }
        out.reasoning_tokens = usage
            .completion_tokens_details
            .as_ref()
            .and_then(|d| d.reasoning_tokens);
        out.cached_input_tokens = usage
            .prompt_tokens_details
            .as_ref()
            .and_then(|d| d.cached_tokens);
        Some(out)
    }
}

#[derive(Debug, PartialEq, Eq)]
enum CallState {
    /// Seen, name still arriving; `TOOL_CALL_START` not sent yet.
    Pending,
    Open,
    Closed,
}

#[derive(Debug)]
struct CallSlot {
    index: u32,
    id: ToolCallId,
    name: String,
    arguments: String,
    state: CallState,
}

/// Maps a model's streamed chunks onto a run, as AG-UI events, through a [`StreamWriter`].
///
/// A pure state machine: feed it parsed chunks with [`push`](Self::push), end it with
/// [`finish`](Self::finish) when the stream said `[DONE]`, and it emits:
///
/// * content deltas into one assistant message (`TEXT_MESSAGE_*`), opened on the first
///   non-empty delta; a refusal is shown as text;
/// * reasoning deltas (`reasoning_content` or `reasoning`; when a chunk carries both, as some
///   servers do with the same text, `reasoning_content` is taken) into a reasoning block,
///   closed before the text or tool call that follows it;
/// * tool-call fragments, routed by their `index`, into one tool call each
///   (`TOOL_CALL_START` once its name is complete — when its arguments begin, another call
///   begins, or the turn ends — then `TOOL_CALL_ARGS` per fragment, `TOOL_CALL_END` at the end
///   of the turn); parallel calls stream side by side, each naming the turn's assistant message
///   as `parentMessageId`, and the text message is closed before the first call opens;
/// * nothing for empty deltas, role-only deltas and choices other than the first.
///
/// The finish reason and the usage chunk (which comes with no choices) are kept for the
/// [`Turn`]. An `error` object inside the stream is an `Err` of kind
/// [`Provider`](LlmErrorKind::Provider). Whatever is open when the mapper is dropped — on an
/// error, on cancellation — is closed by its writer, so the stream stays valid and a
/// `RUN_ERROR` can follow.
///
/// Memory is bounded: the text, reasoning and arguments a turn accumulates (kept for the next
/// request of an agent loop) are capped by [`with_max_turn_bytes`](Self::with_max_turn_bytes),
/// and the number of calls by [`with_max_tool_calls`](Self::with_max_tool_calls). A text delta
/// costs the event and nothing else: the chunk's string moves into the event after it is
/// copied into the turn's reused buffer.
///
/// ```
/// use ag_ui::llm::ChunkMapper;
/// use ag_ui::llm::wire::{ChatChunk, ToolCallDelta};
/// use ag_ui::{Event, EventType, RunAgentInput};
/// use ag_ui::server::RunContext;
///
/// let (ctx, mut events) = RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap();
/// let mut mapper = ChunkMapper::new(ctx.stream_writer());
/// mapper.push(ChatChunk::text("Let me check.")).unwrap();
/// mapper
///     .push(ChatChunk::tool_calls(vec![ToolCallDelta::new(
///         0,
///         Some("weather"),
///         Some(r#"{"city":"Oslo"}"#),
///     )]))
///     .unwrap();
/// mapper.push(ChatChunk::finish("tool_calls")).unwrap();
/// let turn = mapper.finish().unwrap();
///
/// assert_eq!(turn.text, "Let me check.");
/// assert_eq!(turn.tool_calls[0].arguments, r#"{"city":"Oslo"}"#);
/// let types: Vec<EventType> = events.drain().iter().map(Event::event_type).collect();
/// assert_eq!(
///     types,
///     [
///         EventType::TextMessageStart,
///         EventType::TextMessageContent,
///         EventType::TextMessageEnd,
///         EventType::ToolCallStart,
///         EventType::ToolCallArgs,
///         EventType::ToolCallEnd,
///     ]
/// );
/// ```
pub struct ChunkMapper {
    writer: StreamWriter,
    message_id: Option<MessageId>,
    /// The open text segment; the first is `message_id`, a segment after reasoning gets its own.
    text_open: Option<MessageId>,
    text_segments: u32,
    reasoning_open: Option<MessageId>,
    calls: Vec<CallSlot>,
    text: String,
    reasoning: String,
    finish_reason: Option<FinishReason>,
    usage: Option<ChatUsage>,
    model: Option<String>,
    bytes: usize,
    max_bytes: usize,
    max_calls: usize,
}

impl fmt::Debug for ChunkMapper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkMapper")
            .field("message_id", &self.message_id)
            .field("calls", &self.calls.len())
            .field("bytes", &self.bytes)
            .finish_non_exhaustive()
    }
}

impl ChunkMapper {
    /// A mapper emitting through `writer` (from
    /// [`RunContext::stream_writer`](crate::server::RunContext::stream_writer)).
    pub fn new(writer: StreamWriter) -> Self {
        Self {
            writer,
            message_id: None,
            text_open: None,
            text_segments: 0,
            reasoning_open: None,
            calls: Vec::new(),
            text: String::new(),
            reasoning: String::new(),
            finish_reason: None,
            usage: None,
            model: None,
            bytes: 0,
            max_bytes: DEFAULT_MAX_TURN_BYTES,
            max_calls: DEFAULT_MAX_TOOL_CALLS,
        }
    }

    /// Caps the bytes of text, reasoning and arguments one turn may carry
    /// (default [`DEFAULT_MAX_TURN_BYTES`]).
    #[must_use]
    pub fn with_max_turn_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// Caps the tool calls of one turn (default [`DEFAULT_MAX_TOOL_CALLS`]).
    #[must_use]
    pub fn with_max_tool_calls(mut self, calls: usize) -> Self {
        self.max_calls = calls;
        self
    }

    /// The tool calls whose `TOOL_CALL_START` was sent so far, in order: their id, name and
    /// arguments' text as it has streamed. What a caller answers when the turn breaks off (the
    /// writer closes the calls when the mapper is dropped; their results are the caller's), and
    /// what it reads from arguments still being written.
    pub fn started_tool_calls(&self) -> impl Iterator<Item = (&ToolCallId, &str, &str)> {
        self.calls
            .iter()
            .filter(|c| c.state != CallState::Pending)
            .map(|c| (&c.id, c.name.as_str(), c.arguments.as_str()))
    }

    /// Maps one chunk.
    ///
    /// # Errors
    ///
    /// [`Provider`](LlmErrorKind::Provider) for an `error` object in the chunk;
    /// [`MalformedChunk`](LlmErrorKind::MalformedChunk) for a tool call without a name or
    /// whose name changes after its arguments began; [`TooLarge`](LlmErrorKind::TooLarge)
    /// past the limits; [`Emit`](LlmErrorKind::Emit) when the run refused an event (it is gone).
    pub fn push(&mut self, mut chunk: ChatChunk) -> Result<(), LlmError> {
        // The chunk's parts are taken out where they lie: moving the whole choice and its
        // delta (most of their fields empty) into each call costs more than the text itself.
        if let Some(error) = chunk.error.take() {
            let code = error
                .code
                .or(error.kind)
                .map(|c| format!(" ({c})"))
                .unwrap_or_default();
            return Err(LlmError::new(
                LlmErrorKind::Provider,
                format!(
                    "the provider reported an error mid-stream{code}: {}",
                    error.message
                ),
            ));
        }
        if self.model.is_none() && chunk.model.is_some() {
            self.model = chunk.model.take();
        }
        if chunk.usage.is_some() {
            self.usage = chunk.usage.take();
        }
        for choice in &mut chunk.choices {
            if choice.index != 0 {
                continue;
            }
            self.delta(&mut choice.delta)?;
            if let Some(reason) = choice.finish_reason.take() {
                self.close_all()?;
                self.finish_reason = Some(FinishReason::parse(&reason));
            }
        }
        Ok(())
    }

    fn count(&mut self, bytes: usize) -> Result<(), LlmError> {
        self.bytes += bytes;
        if self.bytes > self.max_bytes {
            return Err(LlmError::new(
                LlmErrorKind::TooLarge,
                format!(
                    "the model's turn exceeds the limit of {} bytes of text, reasoning and arguments",
                    self.max_bytes
                ),
            ));
        }
        Ok(())
    }

    fn message_id(&mut self) -> MessageId {
        self.message_id
            .get_or_insert_with(|| self.writer.next_message_id())
            .clone()
    }

    fn delta(&mut self, delta: &mut ChunkDelta) -> Result<(), LlmError> {
        let reasoning = take_non_empty(&mut delta.reasoning_content)
            .or_else(|| take_non_empty(&mut delta.reasoning));
        if let Some(reasoning) = reasoning {
            self.close_text()?;
            self.close_calls()?;
            let id = match &self.reasoning_open {
                Some(id) => id.clone(),
                None => {
                    let id = self.writer.next_message_id();
                    self.writer.open_reasoning(id.clone())?;
                    self.reasoning_open = Some(id.clone());
                    id
                }
            };
            self.count(reasoning.len())?;
            self.reasoning.push_str(&reasoning);
            self.writer.reasoning_delta(&id, reasoning)?;
        }
        let text =
            take_non_empty(&mut delta.content).or_else(|| take_non_empty(&mut delta.refusal));
        if let Some(text) = text {
            if self.text_open.is_none() {
                self.close_reasoning()?;
                self.close_calls()?;
                let id = if self.text_segments == 0 {
                    self.message_id()
                } else {
                    self.writer.next_message_id()
                };
                self.text_segments += 1;
                self.writer
                    .open_message(id.clone(), TextMessageRole::Assistant)?;
                self.text_open = Some(id);
            }
            self.count(text.len())?;
            self.text.push_str(&text);
            if let Some(id) = &self.text_open {
                self.writer.message_delta(id, text)?;
            }
        }
        if !delta.tool_calls.is_empty() {
            for call in std::mem::take(&mut delta.tool_calls) {
                self.tool_call(call)?;
            }
        }
        Ok(())
    }

    fn tool_call(&mut self, call: ToolCallDelta) -> Result<(), LlmError> {
        self.close_reasoning()?;
        self.close_text()?;
        let at = match self.calls.iter().position(|c| c.index == call.index) {
            Some(at) => at,
            None => {
                if self.calls.len() >= self.max_calls {
                    return Err(LlmError::new(
                        LlmErrorKind::TooLarge,
                        format!(
                            "the model's turn has more than {} tool calls",
                            self.max_calls
                        ),
                    ));
                }
                // A new call: those before it have their whole names now.
                self.start_pending()?;
                self.calls.push(CallSlot {
                    index: call.index,
                    id: self.writer.next_tool_call_id(),
                    name: String::new(),
                    arguments: String::new(),
                    state: CallState::Pending,
                });
                self.calls.len() - 1
            }
        };
        let Some(function) = call.function else {
            return Ok(());
        };
        if let Some(name) = function.name.filter(|n| !n.is_empty()) {
            let slot = &mut self.calls[at];
            match slot.state {
                CallState::Pending => {
                    self.bytes += name.len();
                    slot.name.push_str(&name);
                    self.count(0)?;
                }
                // Some servers repeat the whole name on every fragment.
                _ if slot.name == name => {}
                _ => {
                    return Err(LlmError::new(
                        LlmErrorKind::MalformedChunk,
                        format!(
                            "tool call {} changed its name to `{name}` after its arguments began",
                            call.index
                        ),
                    ));
                }
            }
        }
        if let Some(arguments) = function.arguments.filter(|a| !a.is_empty()) {
            if self.calls[at].state == CallState::Pending {
                self.start(at)?;
            }
            if self.calls[at].state == CallState::Closed {
                return Err(LlmError::new(
                    LlmErrorKind::MalformedChunk,
                    format!(
                        "arguments for tool call {} arrived after the call ended",
                        call.index
                    ),
                ));
            }
            self.count(arguments.len())?;
            let slot = &mut self.calls[at];
            slot.arguments.push_str(&arguments);
            let id = slot.id.clone();
            self.writer.tool_call_args(&id, arguments)?;
        }
        Ok(())
    }

    fn start(&mut self, at: usize) -> Result<(), LlmError> {
        let parent = self.message_id();
        let slot = &mut self.calls[at];
        if slot.name.is_empty() {
            return Err(LlmError::new(
                LlmErrorKind::MalformedChunk,
                format!("tool call {} has no function name", slot.index),
            ));
        }
        self.writer
            .open_tool_call(slot.id.clone(), slot.name.as_str(), Some(&parent))?;
        slot.state = CallState::Open;
        Ok(())
    }

    fn start_pending(&mut self) -> Result<(), LlmError> {
        for at in 0..self.calls.len() {
            if self.calls[at].state == CallState::Pending {
                self.start(at)?;
            }
        }
        Ok(())
    }

    fn close_text(&mut self) -> Result<(), LlmError> {
        if let Some(id) = self.text_open.take() {
            self.writer.end_message(&id)?;
        }
        Ok(())
    }

    fn close_reasoning(&mut self) -> Result<(), LlmError> {
        if let Some(id) = self.reasoning_open.take() {
            self.writer.end_reasoning(&id)?;
        }
        Ok(())
    }

    fn close_calls(&mut self) -> Result<(), LlmError> {
        self.start_pending()?;
        for at in 0..self.calls.len() {
            if self.calls[at].state == CallState::Open {
                let id = self.calls[at].id.clone();
                self.writer.end_tool_call(&id)?;
                self.calls[at].state = CallState::Closed;
            }
        }
        Ok(())
    }

    fn close_all(&mut self) -> Result<(), LlmError> {
        self.close_reasoning()?;
        self.close_text()?;
        self.close_calls()
    }

    /// Ends the turn (the stream said `[DONE]`): starts the calls still waiting for their
    /// arguments, closes what is open, and returns what the turn produced.
    ///
    /// # Errors
    ///
    /// As [`push`](Self::push): a call without a name, or the run refused an event.
    pub fn finish(mut self) -> Result<Turn, LlmError> {
        self.close_all()?;
        let calls = std::mem::take(&mut self.calls);
        Ok(Turn {
            message_id: self.message_id.take(),
            text: std::mem::take(&mut self.text),
            reasoning: std::mem::take(&mut self.reasoning),
            tool_calls: calls
                .into_iter()
                .map(|c| TurnToolCall {
                    id: c.id,
                    name: c.name,
                    arguments: c.arguments,
                })
                .collect(),
            finish_reason: self.finish_reason.take(),
            usage: self.usage.take(),
            model: self.model.take(),
        })
    }
}

/// What [`ChunkDecoder::next_chunk`] reads.
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum Decoded {
    /// A chunk.
    Chunk(ChatChunk),
    /// `data: [DONE]`: the stream is complete.
    Done,
}

/// The default cap on one SSE frame of a provider stream: 1 MiB.
pub const DEFAULT_MAX_CHUNK_SIZE: usize = 1024 * 1024;

/// Reads a Chat Completions SSE body — `data: {chunk}` frames and the final `data: [DONE]` —
/// incrementally, on this crate's bounded SSE decoder.
///
/// ```
/// use ag_ui::llm::wire::ChatChunk;
/// use ag_ui::llm::{ChunkDecoder, Decoded};
///
/// let mut decoder = ChunkDecoder::new();
/// decoder.push(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DO");
/// let Some(Decoded::Chunk(chunk)) = decoder.next_chunk().unwrap() else { panic!() };
/// assert_eq!(chunk, ChatChunk::text("Hi"));
/// assert_eq!(decoder.next_chunk().unwrap(), None); // more input needed
/// decoder.push(b"NE]\n\n");
/// assert_eq!(decoder.next_chunk().unwrap(), Some(Decoded::Done));
/// ```
#[derive(Debug)]
pub struct ChunkDecoder {
    frames: FrameDecoder,
    done: bool,
}

impl Default for ChunkDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl ChunkDecoder {
    /// A decoder accepting frames up to [`DEFAULT_MAX_CHUNK_SIZE`].
    pub fn new() -> Self {
        Self {
            frames: FrameDecoder::new().with_max_event_size(DEFAULT_MAX_CHUNK_SIZE),
            done: false,
        }
    }

    /// Sets the largest frame accepted, in bytes.
    #[must_use]
    pub fn with_max_chunk_size(mut self, bytes: usize) -> Self {
        self.frames = FrameDecoder::new().with_max_event_size(bytes);
        self
    }

    /// Appends bytes of the body.
    pub fn push(&mut self, bytes: &[u8]) {
        self.frames.push(bytes);
    }

    /// Marks the end of the body, so a last frame without its blank line is read too.
    pub fn finish(&mut self) {
        self.frames.finish();
    }

    /// Whether `[DONE]` was read.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The next chunk, [`Decoded::Done`] once for `[DONE]`, or `None` when more input is
    /// needed. Frames after `[DONE]` and empty frames are skipped.
    ///
    /// # Errors
    ///
    /// [`MalformedChunk`](LlmErrorKind::MalformedChunk) for a frame that is not a chunk
    /// (naming the frame's index and what serde said); [`TooLarge`](LlmErrorKind::TooLarge)
    /// for a frame over the limit.
    pub fn next_chunk(&mut self) -> Result<Option<Decoded>, LlmError> {
        loop {
            let frame = match self.frames.next_frame() {
                Ok(Some(frame)) => frame,
                Ok(None) => return Ok(None),
                Err(e) => {
                    return Err(LlmError::new(
                        LlmErrorKind::TooLarge,
                        format!("a provider chunk is too large: {e}"),
                    ));
                }
            };
            let data = frame.data().trim_ascii();
            if self.done || data.is_empty() {
                continue;
            }
            if data == b"[DONE]" {
                self.done = true;
                return Ok(Some(Decoded::Done));
            }
            return match serde_json::from_slice::<ChatChunk>(data) {
                Ok(chunk) => Ok(Some(Decoded::Chunk(chunk))),
                Err(e) => {
                    let shown = String::from_utf8_lossy(&data[..data.len().min(80)]).into_owned();
                    Err(LlmError::new(
                        LlmErrorKind::MalformedChunk,
                        format!(
                            "provider chunk {} is not a chat completion chunk ({e}): {shown}",
                            frame.index()
                        ),
                    )
                    .with_source(e))
                }
            };
        }
    }
}

/// Takes the text out of `slot` unless it is empty.
#[inline]
fn take_non_empty(slot: &mut Option<String>) -> Option<String> {
    match slot {
        Some(text) if !text.is_empty() => slot.take(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::wire::ProviderError;
    use crate::server::{Events, RunContext};
    use crate::{Event, EventType, RunAgentInput, verify};

    fn context() -> (RunContext<()>, Events) {
        RunContext::<()>::new(RunAgentInput::new("t", "r")).unwrap()
    }

    /// The events so far, checked as a run of their own.
    fn verified(events: &mut Events) -> Vec<Event> {
        let mut all = vec![Event::run_started("t", "r")];
        all.extend(events.drain());
        verify::verify_all(&all).unwrap();
        all.remove(0);
        all
    }

    fn types(events: &[Event]) -> Vec<EventType> {
        events.iter().map(Event::event_type).collect()
    }

    #[test]
    fn text_after_reasoning_after_text_opens_a_new_message() {
        let (ctx, mut events) = context();
        let mut mapper = ChunkMapper::new(ctx.stream_writer());
        mapper.push(ChatChunk::text("a")).unwrap();
        mapper.push(ChatChunk::reasoning("r")).unwrap();
        mapper.push(ChatChunk::text("b")).unwrap();
        let turn = mapper.finish().unwrap();
        assert_eq!(turn.text, "ab");
        assert_eq!(turn.reasoning, "r");
        assert_eq!(turn.message_id.unwrap().as_str(), "r-msg-1");
        let events = verified(&mut events);
        assert_eq!(events[2], Event::text_message_end("r-msg-1"));
        assert_eq!(events[3], Event::reasoning_start("r-msg-2"));
        assert_eq!(
            events[8],
            Event::text_message_start("r-msg-3", TextMessageRole::Assistant)
        );
        assert_eq!(events.len(), 11);
    }

    #[test]
    fn empty_and_role_only_deltas_and_other_choices_emit_nothing() {
        let (ctx, mut events) = context();
        let mut mapper = ChunkMapper::new(ctx.stream_writer());
        mapper.push(ChatChunk::text("")).unwrap();
        mapper.push(ChatChunk::default()).unwrap();
        let mut other = ChatChunk::text("second choice");
        other.choices[0].index = 1;
        mapper.push(other).unwrap();
        let turn = mapper.finish().unwrap();
        assert!(events.drain().is_empty());
        assert_eq!(turn.message_id, None);
        assert_eq!(turn.finish_reason, None);
    }

    #[test]
    fn a_name_repeated_on_every_fragment_is_not_doubled_and_a_changed_one_is_refused() {
        let (ctx, mut events) = context();
        let mut mapper = ChunkMapper::new(ctx.stream_writer());
        for args in ["{\"a\":", "1}"] {
            mapper
                .push(ChatChunk::tool_calls(vec![ToolCallDelta::new(
                    0,
                    Some("f"),
                    Some(args),
                )]))
                .unwrap();
        }
        let err = mapper
            .push(ChatChunk::tool_calls(vec![ToolCallDelta::new(
                0,
                Some("g"),
                None,
            )]))
            .unwrap_err();
        assert_eq!(err.kind(), LlmErrorKind::MalformedChunk);
        drop(mapper);
        let events = verified(&mut events);
        assert_eq!(
            types(&events),
            [
                EventType::ToolCallStart,
                EventType::ToolCallArgs,
                EventType::ToolCallArgs,
                EventType::ToolCallEnd,
            ]
        );
        let Event::ToolCallStart(start) = &events[0] else {
            panic!()
        };
        assert_eq!(start.tool_call_name, "f");
    }

    #[test]
    fn a_call_that_never_gets_a_name_is_malformed_and_the_stream_stays_valid() {
        let (ctx, mut events) = context();
        let mut mapper = ChunkMapper::new(ctx.stream_writer());
        mapper.push(ChatChunk::text("x")).unwrap();
        let err = mapper
            .push(ChatChunk::tool_calls(vec![ToolCallDelta::new(
                0,
                None,
                Some("{}"),
            )]))
            .unwrap_err();
        assert_eq!(err.kind(), LlmErrorKind::MalformedChunk);
        assert_eq!(err.message(), "tool call 0 has no function name");
        drop(mapper);
        assert_eq!(verified(&mut events).len(), 3);
    }

    #[test]
    fn a_call_with_a_name_and_no_arguments_is_started_at_the_end_of_the_turn() {
        let (ctx, mut events) = context();
        let mut mapper = ChunkMapper::new(ctx.stream_writer());
        mapper
            .push(ChatChunk::tool_calls(vec![ToolCallDelta::new(
                0,
                Some("now"),
                None,
            )]))
            .unwrap();
        assert!(events.is_empty(), "the name may still grow");
        mapper.push(ChatChunk::finish("tool_calls")).unwrap();
        let turn = mapper.finish().unwrap();
        assert_eq!(turn.finish_reason, Some(FinishReason::ToolCalls));
        assert_eq!(turn.tool_calls[0].arguments, "");
        assert_eq!(
            types(&verified(&mut events)),
            [EventType::ToolCallStart, EventType::ToolCallEnd]
        );
    }

    #[test]
    fn a_turn_is_bounded_by_configuration_not_by_the_provider() {
        let (ctx, mut events) = context();
        let mut mapper = ChunkMapper::new(ctx.stream_writer()).with_max_turn_bytes(8);
        mapper.push(ChatChunk::text("12345")).unwrap();
        let err = mapper.push(ChatChunk::text("6789")).unwrap_err();
        assert_eq!(err.kind(), LlmErrorKind::TooLarge);
        drop(mapper);
        assert_eq!(verified(&mut events).len(), 3);

        let mut mapper = ChunkMapper::new(ctx.stream_writer()).with_max_tool_calls(2);
        for index in 0..2 {
            mapper
                .push(ChatChunk::tool_calls(vec![ToolCallDelta::new(
                    index,
                    Some("f"),
                    Some("{}"),
                )]))
                .unwrap();
        }
        let err = mapper
            .push(ChatChunk::tool_calls(vec![ToolCallDelta::new(
                u32::MAX,
                Some("f"),
                None,
            )]))
            .unwrap_err();
        assert_eq!(err.kind(), LlmErrorKind::TooLarge);
        drop(mapper);
        verified(&mut events);
    }

    #[test]
    fn an_error_chunk_is_a_provider_error() {
        let (ctx, _events) = context();
        let mut mapper = ChunkMapper::new(ctx.stream_writer());
        let chunk = ChatChunk {
            error: Some(ProviderError {
                message: "boom".into(),
                kind: Some("server_error".into()),
                code: None,
            }),
            ..ChatChunk::default()
        };
        let err = mapper.push(chunk).unwrap_err();
        assert_eq!(err.kind(), LlmErrorKind::Provider);
        assert_eq!(
            err.message(),
            "the provider reported an error mid-stream (server_error): boom"
        );
    }

    #[test]
    fn usage_maps_onto_token_usage() {
        let chunk: ChatChunk = serde_json::from_str(
            r#"{"choices":null,"model":"m1","usage":{"prompt_tokens":10,"completion_tokens":4,"total_tokens":14,
                "prompt_tokens_details":{"cached_tokens":6},"completion_tokens_details":{"reasoning_tokens":3}}}"#,
        )
        .unwrap();
        let (ctx, _events) = context();
        let mut mapper = ChunkMapper::new(ctx.stream_writer());
        mapper.push(chunk).unwrap();
        let usage = mapper
            .finish()
            .unwrap()
            .token_usage("deepseek", "x")
            .unwrap();
        assert_eq!(usage.provider.as_deref(), Some("deepseek"));
        assert_eq!(usage.model.as_deref(), Some("m1"));
        assert_eq!(
            (usage.input_tokens, usage.output_tokens, usage.total_tokens),
            (Some(10), Some(4), Some(14))
        );
        assert_eq!(usage.cached_input_tokens, Some(6));
        assert_eq!(usage.reasoning_tokens, Some(3));
    }

    #[test]
    fn reasoning_sent_in_both_fields_is_taken_once() {
        let chunk: ChatChunk = serde_json::from_str(
            r#"{"choices":[{"index":0,"delta":{"reasoning_content":"hm","reasoning":"hm"}}]}"#,
        )
        .unwrap();
        let (ctx, mut events) = context();
        let mut mapper = ChunkMapper::new(ctx.stream_writer());
        mapper.push(chunk).unwrap();
        assert_eq!(mapper.finish().unwrap().reasoning, "hm");
        let events = verified(&mut events);
        assert_eq!(events[2], Event::reasoning_message_content("r-msg-1", "hm"));
        assert_eq!(events.len(), 5);
    }

    #[test]
    fn a_deltas_string_moves_into_its_event_without_a_copy() {
        let (ctx, mut events) = context();
        let mut mapper = ChunkMapper::new(ctx.stream_writer());
        let text = String::from("token ");
        let reasoning = String::from("hmm ");
        let args = String::from("{}");
        let pointers = [reasoning.as_ptr(), text.as_ptr(), args.as_ptr()];
        mapper.push(ChatChunk::reasoning(reasoning)).unwrap();
        mapper.push(ChatChunk::text(text)).unwrap();
        let mut call = ToolCallDelta::new(0, Some("f"), None);
        if let Some(function) = call.function.as_mut() {
            function.arguments = Some(args);
        }
        mapper.push(ChatChunk::tool_calls(vec![call])).unwrap();
        let events = events.drain();
        let moved: Vec<*const u8> = events
            .iter()
            .filter_map(|e| match e {
                Event::ReasoningMessageContent(e) => Some(e.delta.as_ptr()),
                Event::TextMessageContent(e) => Some(e.delta.as_ptr()),
                Event::ToolCallArgs(e) => Some(e.delta.as_ptr()),
                _ => None,
            })
            .collect();
        assert_eq!(moved, pointers);
    }

    #[test]
    fn finish_reasons() {
        assert_eq!(FinishReason::parse("stop"), FinishReason::Stop);
        assert_eq!(
            FinishReason::parse("function_call"),
            FinishReason::ToolCalls
        );
        assert_eq!(FinishReason::parse("length"), FinishReason::Length);
        assert_eq!(
            FinishReason::parse("content_filter"),
            FinishReason::ContentFilter
        );
        assert_eq!(
            FinishReason::parse("recitation"),
            FinishReason::Other("recitation".into())
        );
    }

    #[test]
    fn the_decoder_bounds_frames_and_ignores_what_follows_done() {
        let mut decoder = ChunkDecoder::new().with_max_chunk_size(64);
        decoder.push(format!("data: {}\n\n", "x".repeat(100)).as_bytes());
        let err = decoder.next_chunk().unwrap_err();
        assert_eq!(err.kind(), LlmErrorKind::TooLarge);
        decoder.push(b": keep-alive\n\ndata: [DONE]\n\ndata: {\"late\":1}\n\n");
        assert_eq!(decoder.next_chunk().unwrap(), Some(Decoded::Done));
        assert!(decoder.is_done());
        decoder.finish();
        assert_eq!(decoder.next_chunk().unwrap(), None);
    }
}
