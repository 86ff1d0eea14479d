//! Reading one event struct from a JSON object: the parts of the `Deserialize` that
//! `event_struct!` writes for each of the 31 structs.
//!
//! The generated `visit_map` reads each key once ([`Key`], borrowed when it has no escapes),
//! compares it with the struct's wire names (camelCase of the field names, made at compile time
//! by [`camel`]) and reads the value with [`put`], generic over the field's type only. Serde's
//! derive writes the same reading as a state machine per struct, with a key visitor and a
//! positional (`visit_seq`) reading each: in the browser module that was the largest part
//! (issue 40). The wording of every error is serde's (`missing field`, `duplicate field`,
//! `invalid type`), so errors and the paths `decode::path` finds for them are unchanged.
//!
//! A member the struct does not describe is skipped, and recorded when a collector is installed
//! (`decode::strip`); `type`, the tag of the enclosing [`Event`](super::Event), is skipped
//! silently.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::PatchOps;
use crate::decode::strip::{self, StripKind, Tail};
use crate::{Message, RunFinishedOutcome, SubagentFinishedOutcome};

/// Longest field name [`camel`] takes.
pub(crate) const MAX_NAME: usize = 32;

/// The camelCase of a snake_case field name, at compile time: the bytes and their length.
pub(crate) const fn camel(snake: &str) -> ([u8; MAX_NAME], usize) {
    let bytes = snake.as_bytes();
    let mut out = [0u8; MAX_NAME];
    let (mut i, mut len, mut upper) = (0, 0, false);
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'_' {
            upper = true;
        } else {
            out[len] = if upper { b.to_ascii_uppercase() } else { b };
            len += 1;
            upper = false;
        }
        i += 1;
    }
    (out, len)
}

/// The wire name of field `$field`, a `&'static str` made at compile time.
macro_rules! wire_name {
    ($field:ident) => {{
        const CAMEL: &([u8; $crate::event::read::MAX_NAME], usize) =
            &$crate::event::read::camel(stringify!($field));
        const NAME: &str = match ::core::str::from_utf8(CAMEL.0.split_at(CAMEL.1).0) {
            Ok(name) => name,
            Err(_) => panic!("a field name is ASCII"),
        };
        NAME
    }};
}

/// The type a field is read as: its own, or the reader named after `as` in `event_struct!`.
macro_rules! read_as {
    ($ty:ty) => {
        $ty
    };
    ($ty:ty, $read:ty) => {
        $read
    };
}

/// One key of an object, borrowed from the input when it has no escapes.
pub(crate) struct Key<'de>(pub(crate) Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// Reads the value of field `name` as an `R` into `slot` (as a `T`: the field's own type, or
/// what a reader gives); a second value for it is an error.
#[inline]
pub(crate) fn put<'de, A, R, T>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    R: Deserialize<'de> + Into<T>,
{
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value::<R>()?.into());
    Ok(())
}

/// The value of a required field, or the error naming it.
#[inline]
pub(crate) fn required<T, E: de::Error>(slot: Option<T>, name: &'static str) -> Result<T, E> {
    slot.ok_or_else(|| E::missing_field(name))
}

/// Skips the value of a member the struct does not describe, recording it when a collector is
/// installed (`type`, the event's tag, is not recorded).
pub(crate) fn skip<'de, A: MapAccess<'de>>(map: &mut A, key: &str) -> Result<(), A::Error> {
    if key != "type" && strip::active() {
        strip::record(StripKind::Member, Some(Tail::Member(key)), key, 1);
    }
    map.next_value::<IgnoredAny>().map(drop)
}

/// `timestamp`: an integer within ±(2^53 − 1) (`serde_util::timestamp`).
pub(crate) struct Timestamp(pub(crate) i64);

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::serde_util::timestamp(d).map(Timestamp)
    }
}

/// Declares a field reader that calls one of the wire model's reading functions.
macro_rules! reader {
    ($(#[$doc:meta])* $name:ident($read:path) -> $ty:ty) => {
        $(#[$doc])*
        pub(crate) struct $name($ty);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $read(d).map($name)
            }
        }

        impl From<$name> for $ty {
            fn from(r: $name) -> Self {
                r.0
            }
        }
    };
}

reader! {
    /// `STATE_DELTA.delta` (`json::delta_ops`).
    DeltaOps(crate::json::delta_ops) -> PatchOps
}
reader! {
    /// `ACTIVITY_DELTA.patch` (`json::activity_ops`).
    ActivityOps(crate::json::activity_ops) -> PatchOps
}
reader! {
    /// `MESSAGES_SNAPSHOT.messages`: messages of an unknown role dropped (`message::messages`).
    Messages(crate::message::messages) -> Vec<Message>
}
reader! {
    /// `RUN_FINISHED.outcome`: an unknown outcome dropped (`outcome::run_outcome`).
    RunOutcome(crate::outcome::run_outcome) -> Option<RunFinishedOutcome>
}
reader! {
    /// `SUBAGENT_FINISHED.outcome` (`outcome::subagent_outcome`).
    SubagentOutcome(crate::outcome::subagent_outcome) -> Option<SubagentFinishedOutcome>
}

#[cfg(test)]
mod tests {
    use crate::event::*;

    #[test]
    fn wire_names_are_the_camel_case_of_the_fields() {
        assert_eq!(wire_name!(message_id), "messageId");
        assert_eq!(wire_name!(parent_subagent_run_id), "parentSubagentRunId");
        assert_eq!(wire_name!(delta), "delta");
    }

    fn read<T: for<'de> serde::Deserialize<'de>>(json: &str) -> Result<T, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    /// The errors are worded as serde's derived reading words them.
    #[test]
    fn errors_are_worded_as_serdes() {
        assert_eq!(
            read::<TextMessageContentEvent>(r#"{"messageId":"m"}"#).unwrap_err(),
            "missing field `delta` at line 1 column 17"
        );
        assert_eq!(
            read::<TextMessageContentEvent>(r#"{"messageId":"m","delta":"a","delta":"b"}"#)
                .unwrap_err(),
            "duplicate field `delta` at line 1 column 36"
        );
        assert_eq!(
            read::<TextMessageStartEvent>(r#"{"messageId":"m","name":null}"#).unwrap_err(),
            "invalid type: null, expected a value other than null at line 1 column 29"
        );
        assert_eq!(
            // serde's derive also read a struct from an array of its fields in order; an
            // event is an object.
            read::<TextMessageStartEvent>(r#"["m"]"#).unwrap_err(),
            "invalid type: sequence, expected struct TextMessageStartEvent at line 1 column 0"
        );
        assert_eq!(
            read::<RunStartedEvent>(r#"{"threadId":"t","runId":1}"#).unwrap_err(),
            "invalid type: integer `1`, expected a string at line 1 column 25"
        );
    }

    #[test]
    fn lenient_fields_read_null_as_absent_and_unknown_members_are_skipped() {
        let e: ToolCallStartEvent = read(
            r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":null,"rawEvent":null,"future":[1,{"a":2}],"timestamp":1e3}"#,
        )
        .unwrap();
        assert_eq!(e.parent_message_id, None);
        assert_eq!(e.raw_event, None);
        assert_eq!(e.timestamp, Some(1000));
        assert_eq!(e.tool_call_id.as_str(), "c");
    }
}
