//! What reading an event leaves out, told to whoever collects it.
//!
//! A 1.0 reader tolerates what a newer producer may send: an undescribed member of an event, an
//! outcome of an unknown type, a content part of an unknown type, a message of an unknown role,
//! a JSON Patch operation naming no operation. Each is left out where serde reads it, deep in
//! a `deserialize_with` that cannot be handed a sink, so the record goes to a collector of the
//! current thread: [`collecting`] installs one for one read (the client pipeline reads every
//! event that way and turns each record into a `client::Warning`), and with none installed a
//! record is a `tracing` warning, as before.
//!
//! Members are checked at the event's own level ([`Members`], a wrapper around the deserializer
//! that sees each key as serde reads it, against the struct's field list), at no cost for an
//! event without one. The path of a record is a JSON Pointer from the event's root, built from
//! the segments the list readers push ([`within`], [`within_index`]).

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// What was left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StripKind {
    /// A member the schema does not describe.
    Member,
    /// An outcome of an unknown type.
    Outcome,
    /// A content part of an unknown type or source, or a legacy binary part with nothing to
    /// upgrade it from.
    Part,
    /// A message of an unknown role.
    Message,
    /// A JSON Patch operation naming no operation.
    PatchOperation,
}

impl StripKind {
    fn noun(self) -> &'static str {
        match self {
            StripKind::Member => "member",
            StripKind::Outcome => "outcome of unknown type",
            StripKind::Part => "content part of unknown type",
            StripKind::Message => "message of unknown role",
            StripKind::PatchOperation => "patch operation of unknown op",
        }
    }
}

/// One thing (or, for a list, the first of `count` things) left out of an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stripped {
    /// What it was.
    pub(crate) kind: StripKind,
    /// Its JSON Pointer from the event's root (`/futureProp`, `/messages/0/content/1`).
    pub(crate) path: String,
    /// Its name: the member's, or the unknown discriminator's value.
    pub(crate) name: String,
    /// How many of the list's members were left out (1 for a member).
    pub(crate) count: usize,
}

impl fmt::Display for Stripped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = crate::excerpt(&self.name, crate::EXCERPT_BYTES);
        match (self.kind, self.count) {
            (StripKind::Member, _) => write!(
                f,
                "dropped member {}, which AG-UI 1.0 does not describe",
                self.path
            ),
            (kind, 1) => write!(f, "dropped the {} {name:?} at {}", kind.noun(), self.path),
            (kind, n) => write!(
                f,
                "dropped {n} of the list's members, the first a {} {name:?} at {}",
                kind.noun(),
                self.path
            ),
        }
    }
}

/// At most this many records are kept for one event; a peer naming thousands of unknown members
/// costs the first few.
const MAX_PER_READ: usize = 16;

/// A segment of the current path.
#[derive(Clone, Copy, Debug)]
enum Segment {
    Field(&'static str),
    Index(usize),
}

#[derive(Debug)]
struct Collector {
    /// Whether a read is being collected.
    active: bool,
    path: Vec<Segment>,
    found: Vec<Stripped>,
}

thread_local! {
    // `const`: no lazy initialisation to check, on a path every event of a pipeline takes.
    static COLLECTOR: RefCell<Collector> = const {
        RefCell::new(Collector { active: false, path: Vec::new(), found: Vec::new() })
    };
}

/// Runs `read` with a collector installed and moves what it left out to the end of `found`.
/// Nested calls collect into the outer one.
#[cfg_attr(not(feature = "client"), allow(dead_code))]
#[inline]
pub(crate) fn collecting<R>(found: &mut Vec<Stripped>, read: impl FnOnce() -> R) -> R {
    let outer = COLLECTOR.with(|c| std::mem::replace(&mut c.borrow_mut().active, true));
    let result = read();
    if !outer {
        COLLECTOR.with(|c| {
            let mut c = c.borrow_mut();
            c.active = false;
            c.path.clear();
            if !c.found.is_empty() {
                found.append(&mut c.found);
            }
        });
    }
    result
}

/// How many records the current collection holds (for [`rollback`]).
pub(crate) fn mark() -> usize {
    COLLECTOR.with(|c| c.borrow().found.len())
}

/// Forgets the records made since `mark`: a read that failed and is tried again must not leave
/// them twice.
pub(crate) fn rollback(mark: usize) {
    COLLECTOR.with(|c| {
        let mut c = c.borrow_mut();
        c.found.truncate(mark);
        // A failed read may have left its segments behind.
        c.path.clear();
    });
}

fn active() -> bool {
    COLLECTOR.with(|c| c.borrow().active)
}

fn push(segment: Segment) -> bool {
    COLLECTOR.with(|c| {
        let mut c = c.borrow_mut();
        if c.active {
            c.path.push(segment);
        }
        c.active
    })
}

fn pop(pushed: bool) {
    if pushed {
        COLLECTOR.with(|c| {
            c.borrow_mut().path.pop();
        });
    }
}

/// Runs `read` with `field` appended to the current path (only while collecting).
pub(crate) fn within<R>(field: &'static str, read: impl FnOnce() -> R) -> R {
    let pushed = push(Segment::Field(field));
    let result = read();
    pop(pushed);
    result
}

/// Runs `read` with list index `index` appended to the current path (only while collecting).
pub(crate) fn within_index<R>(index: usize, read: impl FnOnce() -> R) -> R {
    let pushed = push(Segment::Index(index));
    let result = read();
    pop(pushed);
    result
}

/// Records that `count` members of `kind` were left out, the first named `name`, at the current
/// path followed by `tail` (the member's name, or the list index of the first). With no
/// collector installed it is a `tracing` warning.
pub(crate) fn record(kind: StripKind, tail: Option<Tail<'_>>, name: &str, count: usize) {
    let recorded = COLLECTOR.with(|c| {
        let mut c = c.borrow_mut();
        if !c.active {
            return false;
        }
        if c.found.len() < MAX_PER_READ {
            let mut path = String::new();
            for segment in &c.path {
                path.push('/');
                match segment {
                    Segment::Field(field) => path.push_str(field),
                    Segment::Index(index) => path.push_str(&index.to_string()),
                }
            }
            match tail {
                Some(Tail::Member(member)) => {
                    path.push('/');
                    // A JSON Pointer escapes `~` and `/` in a member name.
                    path.push_str(&member.replace('~', "~0").replace('/', "~1"));
                }
                Some(Tail::Index(index)) => {
                    path.push('/');
                    path.push_str(&index.to_string());
                }
                None => {}
            }
            c.found.push(Stripped {
                kind,
                path,
                name: crate::excerpt(name, crate::EXCERPT_BYTES).into_owned(),
                count,
            });
        }
        true
    });
    if !recorded {
        // `?`: the name comes from the peer; Debug quotes it and escapes control characters.
        tracing::warn!(kind = kind.noun(), name = ?name, count, "dropped what AG-UI 1.0 does not describe");
    }
}

/// The last segment of a record's path.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Tail<'a> {
    /// A member's name.
    Member(&'a str),
    /// A list index.
    Index(usize),
}

/// Forwards each listed `deserialize_*` method to the wrapped deserializer.
macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
                self.0.$method($($arg,)* visitor)
            }
        )*
    };
}

/// A deserializer of an event's struct that records every member the struct does not declare
/// (its field list is what serde passes to `deserialize_struct`), apart from `type`. Only the
/// keys are looked at; the values are read by the struct as they would be without it. Nothing
/// is checked when no collector is installed.
pub(crate) struct Members<D>(pub(crate) D);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Members<D> {
    type Error = D::Error;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        if active() {
            self.0.deserialize_struct(
                name,
                fields,
                FieldsVisitor {
                    inner: visitor,
                    fields,
                },
            )
        } else {
            self.0.deserialize_struct(name, fields, visitor)
        }
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }

    forward! {
        deserialize_any(), deserialize_bool(), deserialize_i8(), deserialize_i16(),
        deserialize_i32(), deserialize_i64(), deserialize_i128(), deserialize_u8(),
        deserialize_u16(), deserialize_u32(), deserialize_u64(), deserialize_u128(),
        deserialize_f32(), deserialize_f64(), deserialize_char(), deserialize_str(),
        deserialize_string(), deserialize_bytes(), deserialize_byte_buf(), deserialize_option(),
        deserialize_unit(), deserialize_unit_struct(name: &'static str),
        deserialize_newtype_struct(name: &'static str), deserialize_seq(),
        deserialize_tuple(len: usize), deserialize_tuple_struct(name: &'static str, len: usize),
        deserialize_map(), deserialize_enum(name: &'static str, variants: &'static [&'static str]),
        deserialize_identifier(), deserialize_ignored_any(),
    }
}

/// The struct's visitor, given the map with its keys checked.
struct FieldsVisitor<V> {
    inner: V,
    fields: &'static [&'static str],
}

impl<'de, V: Visitor<'de>> Visitor<'de> for FieldsVisitor<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(FieldsMap {
            map,
            fields: self.fields,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(seq)
    }
}

struct FieldsMap<A> {
    map: A,
    fields: &'static [&'static str],
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for FieldsMap<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.map.next_key_seed(KeySeed {
            seed,
            fields: self.fields,
        })
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        self.map.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

struct KeySeed<K> {
    seed: K,
    fields: &'static [&'static str],
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<K> {
    type Value = K::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<K::Value, D::Error> {
        self.seed.deserialize(KeyDeserializer {
            inner: d,
            fields: self.fields,
        })
    }
}

/// The deserializer of one key: what serde derive asks of it is an identifier.
struct KeyDeserializer<D> {
    inner: D,
    fields: &'static [&'static str],
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for KeyDeserializer<D> {
    type Error = D::Error;

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_identifier(KeyVisitor {
            inner: visitor,
            fields: self.fields,
        })
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(KeyVisitor {
            inner: visitor,
            fields: self.fields,
        })
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_str(KeyVisitor {
            inner: visitor,
            fields: self.fields,
        })
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_string(KeyVisitor {
            inner: visitor,
            fields: self.fields,
        })
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum ignored_any
    }
}

/// Sees a key as it is read and records it when the struct does not declare it.
struct KeyVisitor<V> {
    inner: V,
    fields: &'static [&'static str],
}

impl<V> KeyVisitor<V> {
    fn check(&self, key: &str) {
        if key != "type" && !self.fields.contains(&key) {
            record(StripKind::Member, Some(Tail::Member(key)), key, 1);
        }
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVisitor<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.check(v);
        self.inner.visit_str(v)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.check(v);
        self.inner.visit_borrowed_str(v)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.check(&v);
        self.inner.visit_string(v)
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V::Value, E> {
        self.inner.visit_bytes(v)
    }

    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<V::Value, E> {
        self.inner.visit_borrowed_bytes(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.inner.visit_u64(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Event;

    fn read(json: &str) -> (Result<Event, crate::DecodeError>, Vec<Stripped>) {
        let mut found = Vec::new();
        let event = collecting(&mut found, || Event::from_json(json));
        (event, found)
    }

    #[test]
    fn undescribed_members_are_recorded_at_the_events_level() {
        let (event, found) = read(
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","futureProp":{"a":1},"a/b~":2}"#,
        );
        assert!(event.is_ok());
        let paths: Vec<&str> = found.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(paths, ["/futureProp", "/a~1b~0"]);
        assert_eq!(
            found[0].to_string(),
            "dropped member /futureProp, which AG-UI 1.0 does not describe"
        );
        // A conformant event records nothing, and reading without a collector records nothing.
        let (_, found) =
            read(r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":1}"#);
        assert!(found.is_empty());
        assert!(
            Event::from_json(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","x":1}"#).is_ok()
        );
        assert_eq!(mark(), 0);
    }

    #[test]
    fn union_members_are_recorded_with_their_paths() {
        let (_, found) = read(
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":[{"type":"text","text":"a"},{"type":"hologram"},{"type":"text","text":"b"}]},{"id":"x","role":"narrator","content":"?"}]}"#,
        );
        let got: Vec<(StripKind, &str, &str)> = found
            .iter()
            .map(|s| (s.kind, s.path.as_str(), s.name.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (StripKind::Part, "/messages/0/content/1", "hologram"),
                (StripKind::Message, "/messages/1", "narrator"),
            ]
        );
        let (_, found) = read(
            r#"{"type":"STATE_DELTA","delta":[{"op":"increment","path":"/n"},{"op":"add","path":"/n","value":1}]}"#,
        );
        assert_eq!(found[0].path, "/delta/0");
        assert_eq!(found[0].kind, StripKind::PatchOperation);
        let (_, found) = read(
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"future"}}"#,
        );
        assert_eq!(
            (found[0].kind, found[0].path.as_str()),
            (StripKind::Outcome, "/outcome")
        );
    }
}
