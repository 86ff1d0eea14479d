//! Reading a struct of the wire model from a JSON object, field by field: the
//! `Deserialize` that [`read_fields!`] writes for the event structs, the messages and the
//! structs they hold.
//!
//! The generated `visit_map` reads each key once ([`Key`], borrowed when it has no escapes),
//! compares it with the struct's wire names (camelCase of the field names, made at compile time
//! by [`camel`], or given) and reads the value with [`put`], generic over the field's type
//! only. Serde's derive writes the same reading as a state machine per struct, with a key
//! visitor and a positional (`visit_seq`) reading each: in the browser module that was its
//! largest part (issue 40). The wording of every error is serde's (`missing field`,
//! `duplicate field`, `invalid type`) and so is where serde_json raises it, so errors and the
//! paths `decode::path` finds for them are unchanged. A struct is read from an object only
//! (serde's derive also took an array of its fields in order).
//!
//! A field is one of four kinds:
//! - `required`: must be present;
//! - `optional`: may be absent, and may not be `null` (`serde_util::non_null`);
//! - `lenient`: may be absent, and `null` reads as absent;
//! - `defaulted`: absent reads as the type's default.
//!
//! A field may name the type it is read as (`delta: PatchOps as DeltaOps`): a [`Reader`] that
//! calls one of the wire model's reading functions. A member the struct does not name is read
//! by the struct's [`Rest`]: [`Ignore`] skips it; for an event, `event::read::Common` reads the
//! members every event has (`timestamp`, `rawEvent`, `metadata`) in one function for all 31,
//! and skips any other, recording it while a collection is under way (`decode::strip`).
//!
//! The members are read by an inherent `read_members`, which the struct's `Deserialize` calls
//! from its visitor; `Event::deserialize_as` and `message::read` call it from one visitor for
//! all the events, or all the messages, so serde_json's reading of the object around the
//! members is not written out once per struct. A failure leaves the reading by one exit, and
//! the first absent required field is named by [`missing`].

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::NonNull;
use crate::decode::strip::{self, StripKind, Tail};

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

/// The wire name of field `$field`, a `&'static str` made at compile time; or `$wire`, given.
macro_rules! wire_name {
    ($field:ident) => {{
        const CAMEL: &([u8; $crate::serde_util::fields::MAX_NAME], usize) =
            &$crate::serde_util::fields::camel(stringify!($field));
        const NAME: &str = match ::core::str::from_utf8(CAMEL.0.split_at(CAMEL.1).0) {
            Ok(name) => name,
            Err(_) => panic!("a field name is ASCII"),
        };
        NAME
    }};
    ($field:ident $wire:literal) => {
        $wire
    };
}

/// The type a field is read as: `$ty`, or the reader named after `as`.
macro_rules! read_as {
    ($ty:ty) => {
        $ty
    };
    ($ty:ty, $read:ty) => {
        $read
    };
}

/// Writes `impl Deserialize for $name`, reading its fields by kind (see the
/// [module](crate::serde_util::fields)); `$rest` reads the members its fields do not, and
/// gives the fields named after `=>`.
macro_rules! read_fields {
    (
        $name:ident, rest = $rest:ty $(=> ($($tfield:ident),* $(,)?))?,
        required { $( $rfield:ident $(= $rwire:literal)? : $rty:ty $(as $rread:ty)? ),* $(,)? }
        optional { $( $ofield:ident $(= $owire:literal)? : $oty:ty $(as $oread:ty)? ),* $(,)? }
        lenient { $( $lfield:ident $(= $lwire:literal)? : $lty:ty $(as $lread:ty)? ),* $(,)? }
        defaulted { $( $dfield:ident $(= $dwire:literal)? : $dty:ty $(as $dread:ty)? ),* $(,)? }
    ) => {
        impl $name {
            /// What a reader of this struct expects, in its errors (serde's words).
            pub(crate) const EXPECTING: &'static str = concat!("struct ", stringify!($name));

            /// Reads the struct from the members of an object. (`Deserialize` calls it from
            /// its visitor; `Event::deserialize_as` from one visitor for every event, so the
            /// reading of the object around the members is not written out once per event.)
            pub(crate) fn read_members<'de, A: serde::de::MapAccess<'de>>(
                mut map: A,
            ) -> Result<Self, A::Error> {
                use $crate::serde_util::fields::{Key, put};

                $( let mut $rfield: Option<$rty> = None; )*
                $( let mut $ofield: Option<$oty> = None; )*
                $( let mut $lfield: Option<Option<$lty>> = None; )*
                $( let mut $dfield: Option<$dty> = None; )*
                let mut rest = <$rest as ::core::default::Default>::default();
                // The members are read in a closure, so that a failure anywhere in
                // them leaves by one exit (one place that drops what was read).
                let mut members = || -> Result<(), A::Error> {
                    while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                        let key: &str = &key;
                        $(
                            if key == wire_name!($rfield $($rwire)?) {
                                put::<_, read_as!($rty $(, $rread)?), _>(
                                    &mut map, &mut $rfield, wire_name!($rfield $($rwire)?),
                                )?;
                                continue;
                            }
                        )*
                        $(
                            if key == wire_name!($ofield $($owire)?) {
                                put::<_, read_as!($crate::serde_util::NonNull<$oty> $(, $oread)?), _>(
                                    &mut map, &mut $ofield, wire_name!($ofield $($owire)?),
                                )?;
                                continue;
                            }
                        )*
                        $(
                            if key == wire_name!($lfield $($lwire)?) {
                                put::<_, read_as!(Option<$lty> $(, $lread)?), _>(
                                    &mut map, &mut $lfield, wire_name!($lfield $($lwire)?),
                                )?;
                                continue;
                            }
                        )*
                        $(
                            if key == wire_name!($dfield $($dwire)?) {
                                put::<_, read_as!($dty $(, $dread)?), _>(
                                    &mut map, &mut $dfield, wire_name!($dfield $($dwire)?),
                                )?;
                                continue;
                            }
                        )*
                        $crate::serde_util::fields::Rest::read(&mut rest, &mut map, key)?;
                    }
                    Ok(())
                };
                members()?;
                let absent = [$( ($rfield.is_none(), wire_name!($rfield $($rwire)?)) ),*];
                #[allow(irrefutable_let_patterns)] // a struct without required fields
                let ($(Some($rfield),)*) = ($($rfield,)*) else {
                    return Err($crate::serde_util::fields::missing(&absent));
                };
                let ($($($tfield,)*)?) = $crate::serde_util::fields::Rest::finish(rest);
                Ok($name {
                    $( $rfield, )*
                    $( $ofield, )*
                    $( $lfield: $lfield.flatten(), )*
                    $( $dfield: $dfield.unwrap_or_default(), )*
                    $($( $tfield, )*)?
                })
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct Fields;

                impl<'de> serde::de::Visitor<'de> for Fields {
                    type Value = $name;

                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str($name::EXPECTING)
                    }

                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        map: A,
                    ) -> Result<$name, A::Error> {
                        $name::read_members(map)
                    }
                }

                d.deserialize_map(Fields)
            }
        }
    };
}

/// What a field is read as gives the field's value: a type gives itself, a [`NonNull`] its
/// value, a reader declared with [`reader!`] what its function read.
pub(crate) trait Reader<T> {
    /// The field's value.
    fn into_field(self) -> T;
}

impl<T> Reader<T> for T {
    #[inline]
    fn into_field(self) -> T {
        self
    }
}

impl<T> Reader<T> for NonNull<T> {
    #[inline]
    fn into_field(self) -> T {
        self.0
    }
}

/// Declares a field reader: a type whose `Deserialize` calls one of the wire model's reading
/// functions (`fn(D) -> Result<$ty, D::Error>`), for `field: Type as $name`.
macro_rules! reader {
    ($(#[$doc:meta])* $vis:vis $name:ident($read:path) -> $ty:ty) => {
        $(#[$doc])*
        $vis struct $name($ty);

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $read(d).map($name)
            }
        }

        impl $crate::serde_util::fields::Reader<$ty> for $name {
            fn into_field(self) -> $ty {
                self.0
            }
        }
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

/// Reads the value of field `name` as an `R` into `slot`; a second value for it is an error.
#[inline]
pub(crate) fn put<'de, A, R, T>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    R: Deserialize<'de> + Reader<T>,
{
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value::<R>()?.into_field());
    Ok(())
}

/// The error naming the first required field that is absent (`(absent, wire name)` in the
/// struct's order), as serde's derived reading names it.
pub(crate) fn missing<E: de::Error>(fields: &[(bool, &'static str)]) -> E {
    let name = fields
        .iter()
        .find(|(absent, _)| *absent)
        .map_or("", |(_, name)| name);
    E::missing_field(name)
}

/// What reads the members of an object that a struct's own fields do not: [`Ignore`], or
/// fields every struct of a family shares (the events' `timestamp`, `rawEvent` and `metadata`,
/// `event::read::Common`), read by one function for the whole family rather than once in each
/// struct's reader.
pub(crate) trait Rest: Default {
    /// The shared fields, as the struct literal takes them (`()` when there are none).
    type Fields;

    /// Reads the value of member `key`.
    fn read<'de, A: MapAccess<'de>>(&mut self, map: &mut A, key: &str) -> Result<(), A::Error>;

    /// The shared fields read.
    fn finish(self) -> Self::Fields;
}

/// Skips every member the struct does not describe.
#[derive(Default)]
pub(crate) struct Ignore;

impl Rest for Ignore {
    type Fields = ();

    fn read<'de, A: MapAccess<'de>>(&mut self, map: &mut A, _key: &str) -> Result<(), A::Error> {
        map.next_value::<IgnoredAny>().map(drop)
    }

    fn finish(self) {}
}

/// Skips the value of a member an event does not describe, recording it while a collection is
/// under way (`type`, the event's tag, is not recorded).
pub(crate) fn record<'de, A: MapAccess<'de>>(map: &mut A, key: &str) -> Result<(), A::Error> {
    if key != "type" && strip::active() {
        strip::record(StripKind::Member, Some(Tail::Member(key)), key, 1);
    }
    Ignore.read(map, key)
}

#[cfg(test)]
mod tests {
    #[test]
    fn wire_names_are_the_camel_case_of_the_fields_or_given() {
        assert_eq!(wire_name!(message_id), "messageId");
        assert_eq!(wire_name!(parent_subagent_run_id), "parentSubagentRunId");
        assert_eq!(wire_name!(delta), "delta");
        assert_eq!(wire_name!(call_type "type"), "type");
    }

    /// With several required fields absent, the first in the struct's order is named, as
    /// serde's derive names it; the events' shared members (`event::read::Common`) keep their
    /// kinds: `timestamp` may not be `null`, `rawEvent` may, and neither may come twice.
    #[test]
    fn the_first_absent_field_is_named_and_shared_members_keep_their_kinds() {
        let read = |json: &str| crate::Event::from_json(json).map_err(|e| e.message().to_owned());
        assert_eq!(
            read(r#"{"type":"TOOL_CALL_START"}"#).unwrap_err(),
            "missing field `toolCallId`"
        );
        assert_eq!(
            read(r#"{"type":"TOOL_CALL_START","toolCallId":"c"}"#).unwrap_err(),
            "missing field `toolCallName`"
        );
        assert_eq!(
            read(r#"{"type":"STEP_STARTED","stepName":"s","timestamp":null}"#).unwrap_err(),
            "invalid type: null, expected an integer between -9007199254740991 and \
             9007199254740991"
        );
        let event = read(r#"{"type":"STEP_STARTED","stepName":"s","rawEvent":null}"#).unwrap();
        assert_eq!(event.raw_event(), None);
        assert_eq!(
            read(r#"{"type":"STEP_STARTED","stepName":"s","rawEvent":1,"rawEvent":2}"#)
                .unwrap_err(),
            "duplicate field `rawEvent`"
        );
    }

    /// The errors of nested structs read by this reader, each with its path: the same texts
    /// and paths as serde's derived reading gave (compared on these cases before the change).
    #[test]
    fn nested_errors_keep_their_paths_and_serdes_words() {
        let cases = [
            (
                r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f"}}]}]}"#,
                "messages[0].toolCalls[0].function.arguments",
                "missing field `arguments`",
            ),
            (
                r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"user","content":[{"type":"text","text":"a","id":null}]}]}"#,
                "messages[0].content[0].id",
                "invalid type: null, expected a value other than null",
            ),
            (
                r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"tools":[{"name":"n"}]}}"#,
                "input.tools[0].description",
                "missing field `description`",
            ),
            (
                r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i","status":"maybe"}]}}"#,
                "input.resume[0].status",
                "unknown variant `maybe`, expected `resolved` or `cancelled`",
            ),
            (
                r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","usage":[{"inputTokens":-1}]}"#,
                "usage[0].inputTokens",
                "invalid value: integer `-1`, expected an integer between 0 and 9007199254740991",
            ),
        ];
        for (json, field, message) in cases {
            for err in [
                crate::Event::from_json(json).unwrap_err(),
                crate::Event::from_value(&serde_json::from_str(json).unwrap()).unwrap_err(),
            ] {
                assert_eq!(err.field(), Some(field), "{json}");
                assert_eq!(err.message(), message, "{json}");
            }
        }
        // Lenient and defaulted fields, and undescribed members of nested structs.
        let event = crate::Event::from_json(
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"state":null,"forwardedProps":null,"tools":[{"name":"n","description":"d","parameters":null,"x":1}]}}"#,
        )
        .unwrap();
        assert_eq!(
            event.to_json(),
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"tools":[{"name":"n","description":"d"}],"context":[]}}"#
        );
    }
}
