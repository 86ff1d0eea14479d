use serde_json::Value;

use crate::client::warning::{Warning, WarningKind};
use crate::decode::strip::{self, StripKind, Stripped};
use crate::decode::{Lone, SURROGATE_MARK, repair_surrogates};
use crate::json::IdCache;
use crate::{
    DecodeError, DecodeErrorKind, Event, MessageId, ReasoningMessageChunkEvent,
    ReasoningMessageContentEvent, TextMessageChunkEvent, TextMessageContentEvent,
    ToolCallArgsEvent, ToolCallChunkEvent, ToolCallId,
};

/// Reads event JSON with the compatibility rules above. Keeps the current `THINKING_*` ids, and
/// the halves of UTF-16 surrogate pairs waiting for their other half, so use one per stream.
///
/// The compatibility stage of the client pipeline: reads one event's JSON as a 1.0 event,
/// accepting what pre-1.0 producers still send.
///
/// * Legacy `null`s (`parentMessageId: null`, `outcome: null`, `rawEvent: null`, …) are already
///   read as absent by [`Event::from_slice`].
/// * The deprecated `THINKING_*` events become their `REASONING_*` successors, as the reference
///   client's compatibility boundary translates them: `THINKING_START` → `REASONING_START` and
///   `THINKING_TEXT_MESSAGE_START` → `REASONING_MESSAGE_START` with freshly minted ids (from a
///   counter: `thinking-1`, `thinking-2`, …; `title` is dropped), content and ends continue the
///   current id (a continuation with no opener gets a fresh id of its own, and the verifier will
///   name it).
/// * An event of unknown type is skipped, never fatal. What is left out or translated is a
///   `tracing` warning here; read by a [`Pipeline`](crate::client::Pipeline), a
///   [`Warning`] told to its subscriber.
///
/// ```
/// use ag_ui::client::Compat;
/// use ag_ui::{Event, EventType};
///
/// let mut compat = Compat::new();
/// let start = compat.decode(br#"{"type":"THINKING_TEXT_MESSAGE_START"}"#).unwrap().unwrap();
/// let content = compat
///     .decode(br#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"hmm"}"#)
///     .unwrap()
///     .unwrap();
/// assert_eq!(start.event_type(), EventType::ReasoningMessageStart);
/// let (Event::ReasoningMessageStart(s), Event::ReasoningMessageContent(c)) = (&start, &content) else {
///     panic!("translated")
/// };
/// assert_eq!(s.message_id, c.message_id);
/// assert_eq!(c.delta, "hmm");
///
/// assert_eq!(compat.decode(br#"{"type":"FUTURE_EVENT"}"#).unwrap(), None);
/// assert_eq!(compat.skipped(), 1);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Compat {
    reasoning: Option<MessageId>,
    message: Option<MessageId>,
    minted: u64,
    skipped: u64,
    translated: u64,
    /// Entities whose last delta ended in the first half of a surrogate pair, oldest first.
    pending: Vec<Pending>,
    /// The ids the last text, reasoning and tool call chunks named, for chunks that name none.
    text_chunk: Option<MessageId>,
    reasoning_chunk: Option<MessageId>,
    tool_chunk: Option<ToolCallId>,
    /// The last ids read, shared by the next events that repeat them (as
    /// [`EventDecoder`](crate::encoding::sse::EventDecoder) shares them).
    ids: IdCache,
    /// Where what was left out or translated goes, when a pipeline reads through this stage
    /// (`reporting`); otherwise it is a `tracing` warning.
    notes: Option<Vec<Warning>>,
    /// The `THINKING_*` types already told about (a legacy stream is told once per type).
    legacy_told: u8,
}

/// At most this many entities wait with the first half of a surrogate pair at once; past it the
/// oldest is given up as U+FFFD. Memory is bounded here, not by what a peer sends.
pub(crate) const MAX_PENDING_SURROGATES: usize = 64;

/// The kind of text a delta extends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stream {
    Text,
    Reasoning,
    Tool,
}

/// The first half of a surrogate pair that ended an entity's delta.
#[derive(Clone, Debug)]
struct Pending {
    stream: Stream,
    id: Option<String>,
    high: u16,
    /// A delta of U+FFFD for the same entity, sent if the other half never comes.
    flush: Event,
}

/// Lone surrogates at the edges of a delta as its raw JSON spelled them.
#[derive(Clone, Copy, Debug, Default)]
struct Edges {
    first_low: Option<u16>,
    last_high: Option<u16>,
}

/// Which lone surrogates begin and end the `delta` of the event JSON `data`, given the delta
/// as read (where each lone surrogate is U+FFFD): reading again with each one marked by its
/// value tells a lone half from a U+FFFD the producer sent.
fn surrogate_edges(data: &[u8], read: &str) -> Edges {
    let Some(marked) = repair_surrogates(data, Lone::Mark) else {
        return Edges::default();
    };
    let Ok(value) = serde_json::from_slice::<Value>(&marked) else {
        return Edges::default();
    };
    let Some(marked) = value.get("delta").and_then(Value::as_str) else {
        return Edges::default();
    };
    let unit = |marked: Option<char>, read: Option<char>, range: std::ops::RangeInclusive<u16>| {
        if read != Some(char::REPLACEMENT_CHARACTER) {
            return None;
        }
        let offset = u32::from(marked?).checked_sub(SURROGATE_MARK)?;
        u16::try_from(0xD800 + offset)
            .ok()
            .filter(|unit| range.contains(unit))
    };
    Edges {
        first_low: unit(marked.chars().next(), read.chars().next(), 0xDC00..=0xDFFF),
        last_high: unit(
            marked.chars().next_back(),
            read.chars().next_back(),
            0xD800..=0xDBFF,
        ),
    }
}

/// The character a high and a low surrogate make together.
fn join(high: u16, low: u16) -> char {
    let code = 0x1_0000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
    char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
}

impl Compat {
    /// A fresh stage.
    pub fn new() -> Self {
        Self::default()
    }

    /// A stage that keeps what it leaves out or translates as [`Warning`]s (without their
    /// event index, which the pipeline knows), for [`take_notes`](Self::take_notes).
    #[cfg_attr(not(feature = "sse"), allow(dead_code))]
    pub(crate) fn reporting() -> Self {
        Self {
            notes: Some(Vec::new()),
            ..Self::default()
        }
    }

    /// Moves the warnings of the events read since the last call to the end of `out`.
    #[cfg_attr(not(feature = "sse"), allow(dead_code))]
    pub(crate) fn take_notes(&mut self, out: &mut Vec<Warning>) {
        if let Some(notes) = &mut self.notes {
            out.append(notes);
        }
    }

    /// Tells what was left out or translated: a note when reporting, a `tracing` warning
    /// otherwise.
    fn note(&mut self, warning: Warning) {
        match &mut self.notes {
            Some(notes) => notes.push(warning),
            // `?`: what the message quotes comes from the peer; Debug escapes it.
            None => tracing::warn!(kind = warning.kind().as_str(), message = ?warning.message()),
        }
    }

    /// How many events of unknown type were skipped.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// How many `THINKING_*` events were translated.
    pub fn translated(&self) -> u64 {
        self.translated
    }

    /// Reads one event's JSON. `Ok(None)` when the event was of an unknown type and skipped.
    ///
    /// # Errors
    /// The [`DecodeError`] of [`Event::from_slice`] for anything else that is not a valid event
    /// (including a `THINKING_*` event whose fields are invalid).
    pub fn decode(&mut self, data: &[u8]) -> Result<Option<Event>, DecodeError> {
        match std::str::from_utf8(data) {
            Ok(json) => self.decode_str(json),
            // Invalid UTF-8: the slow path names the problem.
            Err(_) => self.decode_read(data, Event::from_slice(data)),
        }
    }

    /// [`decode`](Self::decode) of text already read as UTF-8 (an SSE frame's data), without
    /// checking it again. Ids equal to the last ones of their kind share them.
    ///
    /// # Errors
    /// As [`decode`](Self::decode).
    #[inline]
    pub(crate) fn decode_str(&mut self, json: &str) -> Result<Option<Event>, DecodeError> {
        if self.notes.is_none() {
            let read = Event::from_json_sharing(json, &mut self.ids);
            return self.decode_read(json.as_bytes(), read);
        }
        let mut stripped = Vec::new();
        let read = strip::collecting(&mut stripped, || {
            let read = Event::from_json_sharing(json, &mut self.ids);
            self.decode_read(json.as_bytes(), read)
        });
        if let Ok(Some(event)) = &read {
            for record in stripped {
                self.note(stripped_warning(event.event_type().as_str(), record));
            }
        }
        read
    }

    /// Deals with what reading `data` gave: translates or skips an unknown type.
    #[inline]
    fn decode_read(
        &mut self,
        data: &[u8],
        read: Result<Event, DecodeError>,
    ) -> Result<Option<Event>, DecodeError> {
        match read {
            Ok(event) => Ok(Some(event)),
            Err(e) if e.kind() == DecodeErrorKind::UnknownEventType => {
                let name = e.event_type().unwrap_or_default();
                if name.starts_with("THINKING_") {
                    let repaired = repair_surrogates(data, Lone::Replace);
                    let value: Value = serde_json::from_slice(repaired.as_deref().unwrap_or(data))
                        .map_err(|_| e.clone())?;
                    if let Some(event) = self.translate(value)? {
                        return Ok(Some(event));
                    }
                }
                self.skipped += 1;
                let warning = Warning::new(
                    WarningKind::UnknownEvent,
                    None,
                    format!(
                        "dropped an event of type {:?}, which AG-UI 1.0 does not define",
                        crate::excerpt(name, crate::EXCERPT_BYTES)
                    ),
                )
                .with_event_type(name);
                self.note(warning);
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Reads one event's JSON into `out`, as [`decode`](Self::decode) reads it, and rejoins the
    /// halves of UTF-16 surrogate pairs that a producer cutting text by code units split
    /// across an entity's deltas (text, reasoning, tool call arguments, and their chunks): a
    /// delta ending in a lone high half is passed on without it, and the half waits, keyed by
    /// the entity, for that entity's next delta. If that delta starts with the low half the
    /// character is complete there; otherwise, and at the entity's end, at a run boundary or
    /// at [`finish_into`](Self::finish_into), the half becomes U+FFFD, as concatenating the
    /// deltas and encoding the text as UTF-8 renders it in the reference client. A lone low
    /// half with nothing waiting is U+FFFD. Usually one event is appended; none for a skipped
    /// event; a U+FFFD delta comes first when an end gives up a waiting half.
    ///
    /// ```
    /// use ag_ui::Event;
    /// use ag_ui::client::Compat;
    ///
    /// let mut compat = Compat::new();
    /// let mut out = Vec::new();
    /// compat.decode_into(br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi \ud83d"}"#, &mut out).unwrap();
    /// compat.decode_into(br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ude00!"}"#, &mut out).unwrap();
    /// let text: String = out
    ///     .iter()
    ///     .map(|e| match e {
    ///         Event::TextMessageContent(c) => c.delta.as_str(),
    ///         _ => "",
    ///     })
    ///     .collect();
    /// assert_eq!(text, "hi \u{1F600}!");
    /// ```
    ///
    /// # Errors
    /// As [`decode`](Self::decode).
    pub fn decode_into(&mut self, data: &[u8], out: &mut Vec<Event>) -> Result<(), DecodeError> {
        if let Some(mut event) = self.decode(data)? {
            self.rejoin(data, &mut event, out);
            out.push(event);
        }
        Ok(())
    }

    /// [`decode_into`](Self::decode_into) of text already read as UTF-8, as
    /// [`decode_str`](Self::decode_str) reads it. The client pipeline reads each SSE frame's
    /// data with it.
    ///
    /// # Errors
    /// As [`decode`](Self::decode).
    #[inline]
    #[cfg_attr(not(feature = "sse"), allow(dead_code))]
    pub(crate) fn decode_str_into(
        &mut self,
        json: &str,
        out: &mut Vec<Event>,
    ) -> Result<(), DecodeError> {
        if let Some(mut event) = self.decode_str(json)? {
            self.rejoin(json.as_bytes(), &mut event, out);
            out.push(event);
        }
        Ok(())
    }

    /// Ends the stream: a half still waiting becomes a U+FFFD delta for its entity, appended to
    /// `out`.
    pub fn finish_into(&mut self, out: &mut Vec<Event>) {
        out.extend(self.pending.drain(..).map(|p| p.flush));
    }

    /// Gives up the half waiting for `stream`'s entity `id`, if any.
    fn flush(&mut self, stream: Stream, id: &str, out: &mut Vec<Event>) {
        if let Some(at) = self
            .pending
            .iter()
            .position(|p| p.stream == stream && p.id.as_deref() == Some(id))
        {
            out.push(self.pending.remove(at).flush);
        }
    }

    fn rejoin(&mut self, data: &[u8], event: &mut Event, out: &mut Vec<Event>) {
        match event {
            Event::TextMessageEnd(e) => self.flush(Stream::Text, e.message_id.as_str(), out),
            Event::ReasoningMessageEnd(e) => {
                self.flush(Stream::Reasoning, e.message_id.as_str(), out);
            }
            Event::ToolCallEnd(e) => self.flush(Stream::Tool, e.tool_call_id.as_str(), out),
            Event::RunStarted(_) | Event::RunFinished(_) | Event::RunError(_) => {
                self.finish_into(out);
            }
            _ => {}
        }
        let (stream, id, delta) = match event {
            Event::TextMessageContent(e) => {
                (Stream::Text, Some(e.message_id.as_str()), &mut e.delta)
            }
            Event::ReasoningMessageContent(e) => {
                (Stream::Reasoning, Some(e.message_id.as_str()), &mut e.delta)
            }
            Event::ToolCallArgs(e) => (Stream::Tool, Some(e.tool_call_id.as_str()), &mut e.delta),
            Event::TextMessageChunk(e) => {
                if e.message_id.is_some() {
                    self.text_chunk.clone_from(&e.message_id);
                }
                let Some(delta) = e.delta.as_mut() else {
                    return;
                };
                (
                    Stream::Text,
                    self.text_chunk.as_ref().map(MessageId::as_str),
                    delta,
                )
            }
            Event::ReasoningMessageChunk(e) => {
                if e.message_id.is_some() {
                    self.reasoning_chunk.clone_from(&e.message_id);
                }
                let Some(delta) = e.delta.as_mut() else {
                    return;
                };
                (
                    Stream::Reasoning,
                    self.reasoning_chunk.as_ref().map(MessageId::as_str),
                    delta,
                )
            }
            Event::ToolCallChunk(e) => {
                if e.tool_call_id.is_some() {
                    self.tool_chunk.clone_from(&e.tool_call_id);
                }
                let Some(delta) = e.delta.as_mut() else {
                    return;
                };
                (
                    Stream::Tool,
                    self.tool_chunk.as_ref().map(ToolCallId::as_str),
                    delta,
                )
            }
            _ => return,
        };
        let replaced = delta.contains(char::REPLACEMENT_CHARACTER);
        if self.pending.is_empty() && !replaced {
            return;
        }
        let waiting = self
            .pending
            .iter()
            .position(|p| p.stream == stream && p.id.as_deref() == id);
        if waiting.is_none() && !replaced {
            return;
        }
        let edges = if replaced {
            surrogate_edges(data, delta)
        } else {
            Edges::default()
        };
        if let Some(at) = waiting {
            let high = self.pending.remove(at).high;
            match edges.first_low {
                Some(low) => {
                    let ch = join(high, low);
                    delta.replace_range(
                        ..char::REPLACEMENT_CHARACTER.len_utf8(),
                        ch.encode_utf8(&mut [0; 4]),
                    );
                }
                None => delta.insert(0, char::REPLACEMENT_CHARACTER),
            }
        }
        let Some(high) = edges.last_high else { return };
        delta.truncate(delta.len() - char::REPLACEMENT_CHARACTER.len_utf8());
        let id = id.map(str::to_owned);
        let Some(flush) = replacement_delta(event) else {
            return;
        };
        if self.pending.len() == MAX_PENDING_SURROGATES {
            out.push(self.pending.remove(0).flush);
        }
        self.pending.push(Pending {
            stream,
            id,
            high,
            flush,
        });
    }

    fn mint(&mut self) -> MessageId {
        self.minted += 1;
        MessageId::new(format!("thinking-{}", self.minted))
    }

    fn continuation(&mut self, current: Option<MessageId>, name: &str) -> MessageId {
        current.unwrap_or_else(|| {
            let id = self.mint();
            tracing::warn!(
                event_type = name,
                minted = id.as_str(),
                "no THINKING opener preceded this event; minted a message id for it"
            );
            id
        })
    }

    /// Translates a `THINKING_*` event; `Ok(None)` for a `THINKING_` name that is no such event.
    fn translate(&mut self, value: Value) -> Result<Option<Event>, DecodeError> {
        let Value::Object(mut map) = value else {
            return Ok(None);
        };
        let name = map
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let (new_type, id) = match name.as_str() {
            "THINKING_START" => {
                if map.remove("title").is_some() {
                    self.note(
                        Warning::new(
                            WarningKind::LegacyEvent,
                            None,
                            "dropped THINKING_START.title: REASONING_START has no title",
                        )
                        .with_event_type("THINKING_START")
                        .with_path("/title"),
                    );
                }
                let id = self.mint();
                self.reasoning = Some(id.clone());
                ("REASONING_START", id)
            }
            "THINKING_TEXT_MESSAGE_START" => {
                let id = self.mint();
                self.message = Some(id.clone());
                map.insert("role".into(), Value::from("reasoning"));
                ("REASONING_MESSAGE_START", id)
            }
            "THINKING_TEXT_MESSAGE_CONTENT" => {
                let current = self.message.clone();
                (
                    "REASONING_MESSAGE_CONTENT",
                    self.continuation(current, &name),
                )
            }
            "THINKING_TEXT_MESSAGE_END" => {
                let current = self.message.take();
                ("REASONING_MESSAGE_END", self.continuation(current, &name))
            }
            "THINKING_END" => {
                let current = self.reasoning.take();
                ("REASONING_END", self.continuation(current, &name))
            }
            _ => return Ok(None),
        };
        // Told once per type: a legacy stream is one finding, not one per delta.
        let bit = 1u8 << LEGACY_TYPES.iter().position(|t| *t == name).unwrap_or(0);
        if self.legacy_told & bit == 0 {
            self.legacy_told |= bit;
            self.note(
                Warning::new(
                    WarningKind::LegacyEvent,
                    None,
                    format!("read the pre-1.0 event {name} as {new_type}"),
                )
                .with_event_type(name.as_str()),
            );
        }
        map.insert("type".into(), Value::from(new_type));
        map.insert("messageId".into(), Value::from(id.into_string()));
        self.translated += 1;
        Event::from_value(&Value::Object(map)).map(Some)
    }
}

/// The pre-1.0 event types read as their 1.0 successors.
const LEGACY_TYPES: [&str; 5] = [
    "THINKING_START",
    "THINKING_TEXT_MESSAGE_START",
    "THINKING_TEXT_MESSAGE_CONTENT",
    "THINKING_TEXT_MESSAGE_END",
    "THINKING_END",
];

/// The warning of what decoding an event of type `event_type` left out.
fn stripped_warning(event_type: &str, record: Stripped) -> Warning {
    let kind = match record.kind {
        StripKind::Member => WarningKind::UnknownMember,
        StripKind::Outcome => WarningKind::UnknownOutcome,
        StripKind::Part => WarningKind::UnknownPart,
        StripKind::Message => WarningKind::UnknownMessage,
        StripKind::PatchOperation => WarningKind::UnknownPatchOperation,
    };
    Warning::new(kind, None, record.to_string())
        .with_event_type(event_type)
        .with_path(record.path)
}

/// A delta of U+FFFD for the entity of the delta event `event`: a copy without its timestamp,
/// or for a chunk, a chunk naming only the entity; `None` for any other event. (Each struct is
/// copied by itself: a copy of the whole `Event` would put the copying of all 31 event types in
/// the browser module, issue 40.)
fn replacement_delta(event: &Event) -> Option<Event> {
    let text = String::from(char::REPLACEMENT_CHARACTER);
    let mut flush: Event = match event {
        Event::TextMessageContent(e) => TextMessageContentEvent::clone(e).into(),
        Event::ReasoningMessageContent(e) => ReasoningMessageContentEvent::clone(e).into(),
        Event::ToolCallArgs(e) => ToolCallArgsEvent::clone(e).into(),
        Event::TextMessageChunk(e) => {
            let mut chunk = TextMessageChunkEvent::new();
            chunk.message_id.clone_from(&e.message_id);
            chunk.subagent_run_id.clone_from(&e.subagent_run_id);
            chunk.into()
        }
        Event::ReasoningMessageChunk(e) => {
            let mut chunk = ReasoningMessageChunkEvent::new();
            chunk.message_id.clone_from(&e.message_id);
            chunk.subagent_run_id.clone_from(&e.subagent_run_id);
            chunk.into()
        }
        Event::ToolCallChunk(e) => {
            let mut chunk = ToolCallChunkEvent::new();
            chunk.tool_call_id.clone_from(&e.tool_call_id);
            chunk.subagent_run_id.clone_from(&e.subagent_run_id);
            chunk.into()
        }
        _ => return None,
    };
    *flush.timestamp_mut() = None;
    match &mut flush {
        Event::TextMessageContent(e) => e.delta = text,
        Event::ReasoningMessageContent(e) => e.delta = text,
        Event::ToolCallArgs(e) => e.delta = text,
        Event::TextMessageChunk(e) => e.delta = Some(text),
        Event::ReasoningMessageChunk(e) => e.delta = Some(text),
        Event::ToolCallChunk(e) => e.delta = Some(text),
        _ => {}
    }
    Some(flush)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EventType;

    fn types(compat: &mut Compat, lines: &[&str]) -> Vec<Option<(EventType, String)>> {
        lines
            .iter()
            .map(|l| {
                compat.decode(l.as_bytes()).unwrap().map(|e| {
                    let id = serde_json::to_value(&e).unwrap()["messageId"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned();
                    (e.event_type(), id)
                })
            })
            .collect()
    }

    #[test]
    fn thinking_span_translates_with_counter_ids() {
        let mut compat = Compat::new();
        let out = types(
            &mut compat,
            &[
                r#"{"type":"THINKING_START","title":"plan","timestamp":5}"#,
                r#"{"type":"THINKING_TEXT_MESSAGE_START"}"#,
                r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"a"}"#,
                r#"{"type":"THINKING_TEXT_MESSAGE_END"}"#,
                r#"{"type":"THINKING_END"}"#,
                r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"orphan"}"#,
                r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"orphan 2"}"#,
            ],
        );
        let expect = |t, id: &str| Some((t, id.to_owned()));
        assert_eq!(
            out,
            [
                expect(EventType::ReasoningStart, "thinking-1"),
                expect(EventType::ReasoningMessageStart, "thinking-2"),
                expect(EventType::ReasoningMessageContent, "thinking-2"),
                expect(EventType::ReasoningMessageEnd, "thinking-2"),
                expect(EventType::ReasoningEnd, "thinking-1"),
                expect(EventType::ReasoningMessageContent, "thinking-3"),
                expect(EventType::ReasoningMessageContent, "thinking-4"),
            ]
        );
        assert_eq!(compat.translated(), 7);
        let start = Compat::new()
            .decode(br#"{"type":"THINKING_START","title":"plan","timestamp":5}"#)
            .unwrap()
            .unwrap();
        assert_eq!(start.timestamp(), Some(5));
        assert_eq!(
            start.to_json(),
            r#"{"type":"REASONING_START","messageId":"thinking-1","timestamp":5}"#
        );
    }

    #[test]
    fn unknown_types_are_skipped_other_errors_are_not() {
        let mut compat = Compat::new();
        assert_eq!(
            compat.decode(br#"{"type":"NEW_THING","x":1}"#).unwrap(),
            None
        );
        assert_eq!(
            compat.decode(br#"{"type":"THINKING_SOMETHING"}"#).unwrap(),
            None
        );
        assert_eq!(compat.skipped(), 2);
        let err = compat
            .decode(br#"{"type":"THINKING_TEXT_MESSAGE_CONTENT"}"#)
            .unwrap_err();
        assert_eq!(err.kind(), DecodeErrorKind::InvalidField);
        let err = compat.decode(b"{nope").unwrap_err();
        assert_eq!(err.kind(), DecodeErrorKind::Syntax);
        let ok = compat
            .decode(br#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":null}"#)
            .unwrap()
            .unwrap();
        assert_eq!(ok.event_type(), EventType::ToolCallStart);
    }

    /// The deltas `decode_into` produced, per event, as (type, text).
    fn deltas(lines: &[&str]) -> Vec<(EventType, String)> {
        let mut compat = Compat::new();
        let mut out = Vec::new();
        for line in lines {
            compat.decode_into(line.as_bytes(), &mut out).unwrap();
        }
        compat.finish_into(&mut out);
        out.iter()
            .map(|e| {
                let text = match e {
                    Event::TextMessageContent(c) => c.delta.clone(),
                    Event::ReasoningMessageContent(c) => c.delta.clone(),
                    Event::ToolCallArgs(c) => c.delta.clone(),
                    Event::TextMessageChunk(c) => c.delta.clone().unwrap_or_default(),
                    _ => String::new(),
                };
                (e.event_type(), text)
            })
            .collect()
    }

    #[test]
    fn thinking_deltas_rejoin_surrogate_halves_too() {
        let out = deltas(&[
            r#"{"type":"THINKING_TEXT_MESSAGE_START"}"#,
            r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"a\ud83d"}"#,
            r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"\ude00b"}"#,
            r#"{"type":"THINKING_TEXT_MESSAGE_END"}"#,
        ]);
        let text: String = out.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(text, "a\u{1F600}b");
        assert_eq!(out.len(), 4);
    }

    #[test]
    fn a_waiting_half_is_given_up_before_an_end_or_a_run_boundary() {
        use EventType::*;
        let out = deltas(&[
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"x\ud83d"}"#,
            r#"{"type":"TOOL_CALL_END","toolCallId":"c"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\udbff","timestamp":3}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
        ]);
        assert_eq!(
            out,
            [
                (ToolCallArgs, "x".to_owned()),
                (ToolCallArgs, "\u{FFFD}".to_owned()),
                (ToolCallEnd, String::new()),
                (TextMessageContent, String::new()),
                (TextMessageContent, "\u{FFFD}".to_owned()),
                (RunFinished, String::new()),
            ]
        );
    }

    #[test]
    fn waiting_halves_are_bounded() {
        let lines: Vec<String> = (0..MAX_PENDING_SURROGATES + 3)
            .map(|i| {
                format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m{i}","delta":"\ud800"}}"#)
            })
            .collect();
        let mut compat = Compat::new();
        let mut out = Vec::new();
        for line in &lines {
            compat.decode_into(line.as_bytes(), &mut out).unwrap();
        }
        assert_eq!(compat.pending.len(), MAX_PENDING_SURROGATES);
        // The three oldest were given up as U+FFFD, in order.
        let flushed: Vec<String> = out
            .iter()
            .filter_map(|e| match e {
                Event::TextMessageContent(c) if !c.delta.is_empty() => {
                    Some(c.message_id.to_string())
                }
                _ => None,
            })
            .collect();
        assert_eq!(flushed, ["m0", "m1", "m2"]);
    }
}
