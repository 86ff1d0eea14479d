//! The streaming events written straight into the output buffer, and the commonest read straight
//! from it, without the generated message in between: those events are almost the whole of a
//! stream, and building their message would copy every id into a new `String` first.
//!
//! Only events made of strings and the base fields go this way. Writing gives the bytes the
//! generated code writes (the tests compare them on every event type this covers); reading
//! takes only the plain case (each field once, the base with no `rawEvent` or `metadata`) and
//! leaves everything else, errors included, to the generated decoder.

use prost::encoding::{WireType, encode_key, encode_varint, encoded_len_varint};

use super::convert::{Ids, text_role};
use super::generated as pb;
use super::json::{object_len, value_len, write_object, write_value};
use crate::Event;
use crate::event::*;

/// A string field of an event message.
#[derive(Clone, Copy)]
enum Field<'a> {
    /// A plain proto3 string: left out when empty.
    Plain(&'a str),
    /// An `optional` string: written when present, even empty.
    Optional(Option<&'a str>),
}

impl<'a> Field<'a> {
    fn get(self) -> Option<&'a str> {
        match self {
            Field::Plain("") => None,
            Field::Plain(s) => Some(s),
            Field::Optional(s) => s,
        }
    }
}

fn len_delimited(tag: u32, len: usize) -> usize {
    encoded_len_varint(u64::from(tag << 3)) + encoded_len_varint(len as u64) + len
}

fn put_len_delimited(tag: u32, len: usize, out: &mut Vec<u8>) {
    encode_key(tag, WireType::LengthDelimited, out);
    encode_varint(len as u64, out);
}

/// The base fields of an event.
struct Base<'a> {
    ty: pb::EventType,
    timestamp: Option<i64>,
    raw_event: Option<&'a serde_json::Value>,
    metadata: Option<&'a crate::Metadata>,
}

impl Base<'_> {
    fn len(&self) -> usize {
        let mut n = 0;
        if self.ty as i32 != 0 {
            n += 1 + encoded_len_varint(self.ty as i32 as u64);
        }
        if let Some(t) = self.timestamp {
            n += 1 + encoded_len_varint(t as u64);
        }
        if let Some(v) = self.raw_event {
            n += len_delimited(3, value_len(v));
        }
        if let Some(m) = self.metadata {
            n += len_delimited(4, object_len(m));
        }
        n
    }

    fn write(&self, out: &mut Vec<u8>) {
        if self.ty as i32 != 0 {
            encode_key(1, WireType::Varint, out);
            encode_varint(self.ty as i32 as u64, out);
        }
        if let Some(t) = self.timestamp {
            encode_key(2, WireType::Varint, out);
            encode_varint(t as u64, out);
        }
        if let Some(v) = self.raw_event {
            put_len_delimited(3, value_len(v), out);
            write_value(v, out);
        }
        if let Some(m) = self.metadata {
            put_len_delimited(4, object_len(m), out);
            write_object(m, out);
        }
    }
}

/// Writes the framed `ag_ui.Event` for `arm` holding `base` (field 1) and `fields` (each with
/// its field number), in field order.
fn write(arm: u32, base: &Base<'_>, fields: &[(u32, Field<'_>)], out: &mut Vec<u8>) {
    let base_len = base.len();
    let mut body = len_delimited(1, base_len);
    for &(tag, field) in fields {
        if let Some(s) = field.get() {
            body += len_delimited(tag, s.len());
        }
    }
    let message = len_delimited(arm, body);
    out.reserve(4 + message);
    // No event this crate can hold in memory comes near 4 GiB of protobuf.
    out.extend_from_slice(&u32::try_from(message).unwrap_or(u32::MAX).to_be_bytes());
    put_len_delimited(arm, body, out);
    put_len_delimited(1, base_len, out);
    base.write(out);
    for &(tag, field) in fields {
        if let Some(s) = field.get() {
            put_len_delimited(tag, s.len(), out);
            out.extend_from_slice(s.as_bytes());
        }
    }
}

/// An optional id as a string.
fn id<T: AsRef<str>>(id: &Option<T>) -> Option<&str> {
    id.as_ref().map(AsRef::as_ref)
}

/// Writes the frame of `event` when it is one of the streaming events; `false` otherwise.
#[inline]
pub(crate) fn encode_into(event: &Event, out: &mut Vec<u8>) -> bool {
    use Field::{Optional as O, Plain as P};
    macro_rules! base {
        ($ty:ident, $e:expr) => {
            Base {
                ty: pb::EventType::$ty,
                timestamp: $e.timestamp,
                raw_event: $e.raw_event.as_deref(),
                metadata: $e.metadata.as_deref(),
            }
        };
    }
    match event {
        Event::TextMessageContent(e) => write(
            2,
            &base!(TextMessageContent, e),
            &[
                (2, P(e.message_id.as_str())),
                (3, P(&e.delta)),
                (4, O(id(&e.subagent_run_id))),
            ],
            out,
        ),
        Event::TextMessageStart(e) => write(
            1,
            &base!(TextMessageStart, e),
            &[
                (2, P(e.message_id.as_str())),
                (3, O(e.role.map(|r| r.as_str()))),
                (4, O(e.name.as_deref())),
                (5, O(id(&e.subagent_run_id))),
            ],
            out,
        ),
        Event::TextMessageEnd(e) => write(
            3,
            &base!(TextMessageEnd, e),
            &[
                (2, P(e.message_id.as_str())),
                (3, O(id(&e.subagent_run_id))),
            ],
            out,
        ),
        Event::TextMessageChunk(e) => write(
            17,
            &base!(TextMessageChunk, e),
            &[
                (2, O(id(&e.message_id))),
                (3, O(e.role.map(|r| r.as_str()))),
                (4, O(e.delta.as_deref())),
                (5, O(e.name.as_deref())),
                (6, O(id(&e.subagent_run_id))),
            ],
            out,
        ),
        Event::ToolCallStart(e) => write(
            4,
            &base!(ToolCallStart, e),
            &[
                (2, P(e.tool_call_id.as_str())),
                (3, P(&e.tool_call_name)),
                (4, O(id(&e.parent_message_id))),
                (5, O(id(&e.subagent_run_id))),
            ],
            out,
        ),
        Event::ToolCallArgs(e) => write(
            5,
            &base!(ToolCallArgs, e),
            &[
                (2, P(e.tool_call_id.as_str())),
                (3, P(&e.delta)),
                (4, O(id(&e.subagent_run_id))),
            ],
            out,
        ),
        Event::ToolCallEnd(e) => write(
            6,
            &base!(ToolCallEnd, e),
            &[
                (2, P(e.tool_call_id.as_str())),
                (3, O(id(&e.subagent_run_id))),
            ],
            out,
        ),
        Event::ToolCallChunk(e) => write(
            18,
            &base!(ToolCallChunk, e),
            &[
                (2, O(id(&e.tool_call_id))),
                (3, O(e.tool_call_name.as_deref())),
                (4, O(id(&e.parent_message_id))),
                (5, O(e.delta.as_deref())),
                (6, O(id(&e.subagent_run_id))),
            ],
            out,
        ),
        Event::StepStarted(e) => write(
            15,
            &base!(StepStarted, e),
            &[(2, P(&e.step_name)), (3, O(id(&e.subagent_run_id)))],
            out,
        ),
        Event::StepFinished(e) => write(
            16,
            &base!(StepFinished, e),
            &[(2, P(&e.step_name)), (3, O(id(&e.subagent_run_id)))],
            out,
        ),
        Event::ReasoningStart(e) => write(
            25,
            &base!(ReasoningStart, e),
            &[
                (2, O(id(&e.subagent_run_id))),
                (3, P(e.message_id.as_str())),
            ],
            out,
        ),
        Event::ReasoningMessageStart(e) => write(
            26,
            &base!(ReasoningMessageStart, e),
            &[
                (2, O(id(&e.subagent_run_id))),
                (3, P(e.message_id.as_str())),
                (4, P("reasoning")),
            ],
            out,
        ),
        Event::ReasoningMessageContent(e) => write(
            27,
            &base!(ReasoningMessageContent, e),
            &[
                (2, O(id(&e.subagent_run_id))),
                (3, P(e.message_id.as_str())),
                (4, P(&e.delta)),
            ],
            out,
        ),
        Event::ReasoningMessageEnd(e) => write(
            28,
            &base!(ReasoningMessageEnd, e),
            &[
                (2, O(id(&e.subagent_run_id))),
                (3, P(e.message_id.as_str())),
            ],
            out,
        ),
        Event::ReasoningMessageChunk(e) => write(
            29,
            &base!(ReasoningMessageChunk, e),
            &[
                (2, O(id(&e.subagent_run_id))),
                (3, O(id(&e.message_id))),
                (4, O(e.delta.as_deref())),
            ],
            out,
        ),
        Event::ReasoningEnd(e) => write(
            30,
            &base!(ReasoningEnd, e),
            &[
                (2, O(id(&e.subagent_run_id))),
                (3, P(e.message_id.as_str())),
            ],
            out,
        ),
        _ => return false,
    }
    true
}

/// The string fields (by number, up to 6) and the base event of a streaming event's message;
/// `None` for anything but one length-delimited field each, in valid UTF-8.
type Fields<'a> = (Option<&'a [u8]>, [Option<&'a str>; 7]);

fn read_fields(mut body: &[u8]) -> Option<Fields<'_>> {
    let mut base = None;
    let mut fields = [None; 7];
    while !body.is_empty() {
        let key = prost::encoding::decode_varint(&mut body).ok()?;
        let (tag, wire_type) = (key >> 3, key & 7);
        if wire_type != 2 {
            return None;
        }
        let len = usize::try_from(prost::encoding::decode_varint(&mut body).ok()?).ok()?;
        let value = body.get(..len)?;
        body = &body[len..];
        match tag {
            1 if base.is_none() => base = Some(value),
            2..=6 if fields[tag as usize].is_none() => {
                fields[tag as usize] = Some(std::str::from_utf8(value).ok()?);
            }
            _ => return None,
        }
    }
    Some((base, fields))
}

/// The timestamp of a base event holding only its type (`expected`) and timestamp.
fn read_base(base: Option<&[u8]>, expected: pb::EventType) -> Option<Option<i64>> {
    const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;
    let mut body = base?;
    let (mut ty, mut timestamp) = (0u64, None);
    while !body.is_empty() {
        let key = prost::encoding::decode_varint(&mut body).ok()?;
        let value = match key {
            0x08 | 0x10 => prost::encoding::decode_varint(&mut body).ok()?,
            _ => return None,
        };
        if key == 0x08 {
            ty = value;
        } else {
            timestamp = Some(value as i64);
        }
    }
    let in_range = timestamp.is_none_or(|t| (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&t));
    (ty == expected as i32 as u64 && in_range).then_some(timestamp)
}

/// Reads the commonest streaming events straight from the body of their arm (`arm` is its
/// field number, found once). `None` hands the message to the generated decoder. A field
/// number the event does not define is ignored, as the generated decoder ignores it.
#[inline]
pub(crate) fn decode(arm: u32, body: &[u8], ids: &mut Ids) -> Option<Event> {
    let (base, f) = read_fields(body)?;
    let s = |i: usize| f[i].unwrap_or_default();
    let mut event: Event = match arm {
        2 => {
            let timestamp = read_base(base, pb::EventType::TextMessageContent)?;
            let mut e = TextMessageContentEvent::new(ids.message_str(s(2)), s(3));
            e.subagent_run_id = ids.subagent_str(f[4]);
            e.timestamp = timestamp;
            return Some(e.into());
        }
        1 => {
            let mut e = TextMessageStartEvent::new(ids.message_str(s(2)));
            e.role = text_role(f[3].map(str::to_owned), "role").ok()?;
            e.name = f[4].map(str::to_owned);
            e.subagent_run_id = ids.subagent_str(f[5]);
            e.into()
        }
        3 => {
            let mut e = TextMessageEndEvent::new(ids.message_str(s(2)));
            e.subagent_run_id = ids.subagent_str(f[3]);
            e.into()
        }
        4 => {
            let mut e = ToolCallStartEvent::new(ids.tool_call_str(s(2)), s(3));
            e.parent_message_id = f[4].map(|m| ids.message_str(m));
            e.subagent_run_id = ids.subagent_str(f[5]);
            e.into()
        }
        5 => {
            let mut e = ToolCallArgsEvent::new(ids.tool_call_str(s(2)), s(3));
            e.subagent_run_id = ids.subagent_str(f[4]);
            e.into()
        }
        6 => {
            let mut e = ToolCallEndEvent::new(ids.tool_call_str(s(2)));
            e.subagent_run_id = ids.subagent_str(f[3]);
            e.into()
        }
        27 => {
            let mut e = ReasoningMessageContentEvent::new(ids.message_str(s(3)), s(4));
            e.subagent_run_id = ids.subagent_str(f[2]);
            e.into()
        }
        _ => return None,
    };
    let expected = match arm {
        1 => pb::EventType::TextMessageStart,
        3 => pb::EventType::TextMessageEnd,
        4 => pb::EventType::ToolCallStart,
        5 => pb::EventType::ToolCallArgs,
        6 => pb::EventType::ToolCallEnd,
        _ => pb::EventType::ReasoningMessageContent,
    };
    *event.timestamp_mut() = read_base(base, expected)?;
    Some(event)
}
