//! The compatibility stage of the client pipeline: reads one event's JSON as a 1.0 event,
//! accepting what pre-1.0 producers still send.
//!
//! * Legacy `null`s (`parentMessageId: null`, `outcome: null`, `rawEvent: null`, …) are already
//!   read as absent by [`Event::from_slice`].
//! * The deprecated `THINKING_*` events become their `REASONING_*` successors, as the reference
//!   client's compatibility boundary translates them: `THINKING_START` → `REASONING_START` and
//!   `THINKING_TEXT_MESSAGE_START` → `REASONING_MESSAGE_START` with freshly minted ids (from a
//!   counter: `thinking-1`, `thinking-2`, …; `title` is dropped), content and ends continue the
//!   current id (a continuation with no opener gets a fresh id of its own, and the verifier will
//!   name it).
//! * An event of unknown type is skipped with a `tracing` warning, never fatal.
//!
//! ```
//! use ag_ui::client::compat::Compat;
//! use ag_ui::{Event, EventType};
//!
//! let mut compat = Compat::new();
//! let start = compat.decode(br#"{"type":"THINKING_TEXT_MESSAGE_START"}"#).unwrap().unwrap();
//! let content = compat
//!     .decode(br#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"hmm"}"#)
//!     .unwrap()
//!     .unwrap();
//! assert_eq!(start.event_type(), EventType::ReasoningMessageStart);
//! let (Event::ReasoningMessageStart(s), Event::ReasoningMessageContent(c)) = (&start, &content) else {
//!     panic!("translated")
//! };
//! assert_eq!(s.message_id, c.message_id);
//! assert_eq!(c.delta, "hmm");
//!
//! assert_eq!(compat.decode(br#"{"type":"FUTURE_EVENT"}"#).unwrap(), None);
//! assert_eq!(compat.skipped(), 1);
//! ```

use serde_json::Value;

use crate::{DecodeError, DecodeErrorKind, Event, MessageId};

/// Reads event JSON with the compatibility rules above. Keeps the current `THINKING_*` ids, so use
/// one per stream.
#[derive(Clone, Debug, Default)]
pub struct Compat {
    reasoning: Option<MessageId>,
    message: Option<MessageId>,
    minted: u64,
    skipped: u64,
    translated: u64,
}

impl Compat {
    /// A fresh stage.
    pub fn new() -> Self {
        Self::default()
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
        match Event::from_slice(data) {
            Ok(event) => Ok(Some(event)),
            Err(e) if e.kind() == DecodeErrorKind::UnknownEventType => {
                let name = e.event_type().unwrap_or_default();
                if name.starts_with("THINKING_") {
                    let value: Value = serde_json::from_slice(data).map_err(|_| e.clone())?;
                    if let Some(event) = self.translate(value)? {
                        return Ok(Some(event));
                    }
                }
                self.skipped += 1;
                tracing::warn!(event_type = name, "skipping an event of unknown type");
                Ok(None)
            }
            Err(e) => Err(e),
        }
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
                if let Some(title) = map.remove("title") {
                    tracing::warn!(%title, "dropping THINKING_START.title: REASONING_START has no title");
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
        tracing::warn!(from = %name, to = new_type, "translating a deprecated THINKING event");
        map.insert("type".into(), Value::from(new_type));
        map.insert("messageId".into(), Value::from(id.into_string()));
        self.translated += 1;
        Event::from_value(&Value::Object(map)).map(Some)
    }
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
}
