//! The JSON Patch reader of `STATE_DELTA.delta` and `ACTIVITY_DELTA.patch` (see the
//! [module above](super)).
//!
//! Each operation is read straight from the input: its four known members (`op`, `path`,
//! `from`, `value`) as they come, and the operation built from them; the members the built
//! operation does not define (a `value` on a `remove`, a vendor's own) are kept beside it, as
//! RFC 6902 keeps an operation open ([`PatchOps`]).
//! Before this reader, every operation was first parsed into a `serde_json::Value` object, then
//! converted into a [`PatchOperation`] through serde's buffering of internally tagged enums,
//! which copied the operation's `value` twice more.
//!
//! Only an operation that is not plainly valid (a missing or mistyped member, an invalid JSON
//! Pointer, a non-object element) is put back together as the `Value` it would have been and
//! read as serde's derived reading of [`PatchOperation`] read it (`SlowOp`, without that
//! reading's buffering), so that its error (or, for serde's odd acceptances, its reading) is
//! exactly what it was. An operation whose `op` is a string naming no operation is dropped, with one
//! warning per list, as the reference client does.

use std::fmt;

use json_patch::jsonptr::{self, PointerBuf};
use json_patch::{
    AddOperation, CopyOperation, MoveOperation, PatchOperation, RemoveOperation, ReplaceOperation,
    TestOperation,
};

use crate::PatchOps;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::decode::strip::{self, StripKind, Tail};
use crate::serde_util::{Tagged, VariantStruct, deserialize_element, unknown_member};

/// JSON Patch operation names, in the declaration order of [`PatchOperation`].
const PATCH_OPS: &[&str] = &["add", "remove", "replace", "move", "copy", "test"];

/// Reads a list of JSON Patch operations, dropping (recorded once, see `decode::strip`) those
/// whose `op` names no operation. An invalid operation is an error whose message starts with
/// its index (`[2]: missing field `value``), which [`crate::decode::locate`] folds into the field
/// path.
pub(crate) fn patch_ops<'de, D: Deserializer<'de>>(d: D) -> Result<PatchOps, D::Error> {
    d.deserialize_seq(OpsVisitor)
}

/// [`patch_ops`] of `STATE_DELTA.delta` (what it leaves out is recorded under `/delta`).
pub(crate) fn delta_ops<'de, D: Deserializer<'de>>(d: D) -> Result<PatchOps, D::Error> {
    strip::within("delta", || patch_ops(d))
}

/// [`patch_ops`] of `ACTIVITY_DELTA.patch` (what it leaves out is recorded under `/patch`).
pub(crate) fn activity_ops<'de, D: Deserializer<'de>>(d: D) -> Result<PatchOps, D::Error> {
    strip::within("patch", || patch_ops(d))
}

struct OpsVisitor;

impl<'de> Visitor<'de> for OpsVisitor {
    type Value = PatchOps;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // As `Vec<Value>` says it, which read these lists before.
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // At most 4096 up front, whatever the peer claims: the rest grows as it is read.
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        let mut extras = Vec::new();
        let mut dropped: Option<(usize, String, usize)> = None;
        let mut index = 0;
        while let Some(element) = seq.next_element_seed(ElementSeed)? {
            match element {
                Element::Op(op, extra) => {
                    if let Some(extra) = extra {
                        extras.push((out.len(), extra));
                    }
                    out.push(op);
                }
                Element::Unknown(name) => match &mut dropped {
                    Some((_, _, count)) => *count += 1,
                    None => dropped = Some((index, name, 1)),
                },
                Element::Other(value, extra) => {
                    if let Some(name) = unknown_member(&value, "op", PATCH_OPS) {
                        match &mut dropped {
                            Some((_, _, count)) => *count += 1,
                            None => dropped = Some((index, name, 1)),
                        }
                    } else {
                        // Which known members the operation leaves unused shows once it is read.
                        let read = match &value {
                            Value::Object(map) => Some(map.clone()),
                            _ => None,
                        };
                        match deserialize_element(value, index) {
                            Ok(SlowOp(op)) => {
                                let extra = unused(&op, read, extra);
                                if let Some(extra) = extra {
                                    extras.push((out.len(), extra));
                                }
                                out.push(op);
                            }
                            Err(message) => {
                                // The rest is still read, so that broken JSON after the bad
                                // operation is the syntax error it was when the whole list was
                                // parsed first.
                                while seq.next_element::<IgnoredAny>()?.is_some() {}
                                return Err(de::Error::custom(message));
                            }
                        }
                    }
                }
            }
            index += 1;
        }
        if let Some((first_index, first, count)) = dropped {
            strip::record(
                StripKind::PatchOperation,
                Some(Tail::Index(first_index)),
                &first,
                count,
            );
        }
        let mut ops = PatchOps::new();
        let mut extras = extras.into_iter().peekable();
        for (at, op) in out.into_iter().enumerate() {
            let extra = extras.next_if(|(i, _)| *i == at).map(|(_, extra)| extra);
            ops.push(op, extra);
        }
        Ok(ops)
    }
}

/// The members of an operation read as `read` (its known members) and `extra` (the others)
/// that `op` does not define: what stays beside it.
fn unused(
    op: &PatchOperation,
    read: Option<Map<String, Value>>,
    extra: Option<Map<String, Value>>,
) -> Option<Map<String, Value>> {
    let mut out = extra.unwrap_or_default();
    for (key, value) in read.into_iter().flatten() {
        if !defines(op, &key) {
            out.insert(key, value);
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Whether operation `op` defines the member `key`.
fn defines(op: &PatchOperation, key: &str) -> bool {
    match key {
        "op" | "path" => true,
        "value" => matches!(
            op,
            PatchOperation::Add(_) | PatchOperation::Replace(_) | PatchOperation::Test(_)
        ),
        "from" => matches!(op, PatchOperation::Move(_) | PatchOperation::Copy(_)),
        _ => false,
    }
}

/// One element of the list, as read.
enum Element {
    /// A valid operation, and the members it does not define.
    Op(PatchOperation, Option<Map<String, Value>>),
    /// An object whose `op` is a string naming no operation: dropped.
    Unknown(String),
    /// Anything else, as the `Value` it is (with its known members only: the others cannot
    /// change how it reads, and are beside it), for the conversion that reports what is wrong
    /// with it.
    Other(Value, Option<Map<String, Value>>),
}

struct ElementSeed;

impl<'de> DeserializeSeed<'de> for ElementSeed {
    type Value = Element;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Element, D::Error> {
        d.deserialize_any(ElementVisitor)
    }
}

/// The members an operation is built from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Op,
    Path,
    From,
    Value,
}

impl Key {
    fn name(self) -> &'static str {
        match self {
            Key::Op => "op",
            Key::Path => "path",
            Key::From => "from",
            Key::Value => "value",
        }
    }
}

/// A member name: one of [`Key`], or another (`Err`, its name), kept beside the operation.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Result<Key, String>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(KeySeed)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Result<Key, String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(match key {
            "op" => Ok(Key::Op),
            "path" => Ok(Key::Path),
            "from" => Ok(Key::From),
            "value" => Ok(Key::Value),
            other => Err(other.to_owned()),
        })
    }
}

/// The known members of an operation, each as it was read, and the order in which they first
/// appeared (which decides which error the conversion reports first).
#[derive(Default)]
struct Members {
    op: Option<Value>,
    path: Option<Value>,
    from: Option<Value>,
    value: Option<Value>,
    order: [Option<Key>; 4],
}

impl Members {
    fn slot(&mut self, key: Key) -> &mut Option<Value> {
        match key {
            Key::Op => &mut self.op,
            Key::Path => &mut self.path,
            Key::From => &mut self.from,
            Key::Value => &mut self.value,
        }
    }

    fn set(&mut self, key: Key, value: Value) {
        if let Some(free) = self.order.iter_mut().find(|k| k.is_none_or(|k| k == key)) {
            *free = Some(key);
        }
        // A repeated member: the last one counts, in the place of the first, as in a `Value`.
        *self.slot(key) = Some(value);
    }

    /// The operation, or `None` when it is not plainly valid (the members are left as read).
    fn build(&mut self) -> Option<PatchOperation> {
        let Some(Value::String(op)) = &self.op else {
            return None;
        };
        let index = PATCH_OPS.iter().position(|name| name == op)?;
        let needs_value = matches!(index, 0 | 2 | 5);
        let needs_from = matches!(index, 3 | 4);
        if !pointer(&self.path)
            || (needs_from && !pointer(&self.from))
            || (needs_value && self.value.is_none())
        {
            return None;
        }
        let path = take_pointer(&mut self.path)?;
        Some(match index {
            0 => PatchOperation::Add(AddOperation {
                path,
                value: self.value.take()?,
            }),
            1 => PatchOperation::Remove(RemoveOperation { path }),
            2 => PatchOperation::Replace(ReplaceOperation {
                path,
                value: self.value.take()?,
            }),
            3 => PatchOperation::Move(MoveOperation {
                from: take_pointer(&mut self.from)?,
                path,
            }),
            4 => PatchOperation::Copy(CopyOperation {
                from: take_pointer(&mut self.from)?,
                path,
            }),
            _ => PatchOperation::Test(TestOperation {
                path,
                value: self.value.take()?,
            }),
        })
    }

    /// The members as the object they came in (without its unknown members).
    fn into_value(mut self) -> Value {
        let mut map = Map::new();
        for key in self.order.into_iter().flatten() {
            if let Some(value) = self.slot(key).take() {
                map.insert(key.name().to_owned(), value);
            }
        }
        Value::Object(map)
    }
}

/// Whether `member` is a string holding a valid JSON Pointer.
fn pointer(member: &Option<Value>) -> bool {
    matches!(member, Some(Value::String(s)) if jsonptr::Pointer::parse(s.as_str()).is_ok())
}

/// The pointer in `member`, which [`pointer`] accepted: its string, moved.
fn take_pointer(member: &mut Option<Value>) -> Option<PointerBuf> {
    match member.take()? {
        Value::String(s) => PointerBuf::try_from(s).ok(),
        _ => None,
    }
}

struct ElementVisitor;

impl<'de> Visitor<'de> for ElementVisitor {
    type Value = Element;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Element, A::Error> {
        let mut members = Members::default();
        let mut extra: Option<Map<String, Value>> = None;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match key {
                Ok(key) => members.set(key, map.next_value()?),
                Err(name) => {
                    let value = map.next_value()?;
                    extra.get_or_insert_with(Map::new).insert(name, value);
                }
            }
        }
        if let Some(op) = members.build() {
            // What `build` left in place the operation does not define.
            let left = [
                (Key::From, members.from.take()),
                (Key::Value, members.value.take()),
            ];
            for (key, value) in left {
                if let Some(value) = value {
                    extra
                        .get_or_insert_with(Map::new)
                        .insert(key.name().to_owned(), value);
                }
            }
            return Ok(Element::Op(op, extra));
        }
        if let Some(Value::String(name)) = &members.op
            && !PATCH_OPS.contains(&name.as_str())
        {
            return Ok(Element::Unknown(name.clone()));
        }
        Ok(Element::Other(members.into_value(), extra))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Element, A::Error> {
        Value::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(other)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Element, E> {
        Ok(other(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Element, E> {
        Ok(other(Value::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Element, E> {
        Ok(other(Value::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Element, E> {
        Ok(other(
            serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
        ))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Element, E> {
        Ok(other(Value::String(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Element, E> {
        Ok(other(Value::String(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Element, E> {
        Ok(other(Value::Null))
    }

    fn visit_none<E: de::Error>(self) -> Result<Element, E> {
        Ok(other(Value::Null))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Element, D::Error> {
        Value::deserialize(d).map(other)
    }
}

/// An operation that is not plainly valid, read as serde's derived reading of
/// [`PatchOperation`] (an internally tagged enum) reads it, so that its error is the one that
/// reading gave, or for serde's odd acceptances (`["remove","/a"]`) its operation; without
/// serde's buffering of tagged enums (see [`Tagged`]), which the browser module then leaves
/// out.
struct SlowOp(PatchOperation);

impl<'de> Deserialize<'de> for SlowOp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const OP: Tagged = Tagged {
            tag: "op",
            name: "PatchOperation",
            variants: PATCH_OPS,
        };
        OP.deserialize(d, op_from).map(SlowOp)
    }
}

/// The struct of each operation, in the order of [`PATCH_OPS`] (`value` any JSON value, the
/// other fields JSON Pointers).
const OP_STRUCTS: [VariantStruct; 6] = [
    op_struct("struct AddOperation", &["path", "value"]),
    op_struct("struct RemoveOperation", &["path"]),
    op_struct("struct ReplaceOperation", &["path", "value"]),
    op_struct("struct MoveOperation", &["from", "path"]),
    op_struct("struct CopyOperation", &["from", "path"]),
    op_struct("struct TestOperation", &["path", "value"]),
];

const fn op_struct(name: &'static str, fields: &'static [&'static str]) -> VariantStruct {
    VariantStruct {
        name,
        fields,
        required: fields.len(),
    }
}

/// Operation `variant` (an index in [`PATCH_OPS`]) from the `body` [`Tagged::read`] returned,
/// read as serde's derived reading of its struct reads it (one function for the six structs,
/// where serde's derive has one reader each).
fn op_from(variant: usize, body: Value) -> Result<PatchOperation, serde_json::Error> {
    use serde::de::Error as _;
    let shape = &OP_STRUCTS[variant];
    let mut path = None;
    let mut from = None;
    let mut value = None;
    shape.members(body, &mut |at, member| {
        match shape.fields[at] {
            "path" => path = Some(PointerBuf::deserialize(member)?),
            "from" => from = Some(PointerBuf::deserialize(member)?),
            _ => value = Some(member),
        }
        Ok(())
    })?;
    let missing = |field| serde_json::Error::missing_field(field);
    let take = |slot: &mut Option<PointerBuf>, field| slot.take().ok_or_else(|| missing(field));
    Ok(match variant {
        0 | 2 | 5 => {
            let path = take(&mut path, "path")?;
            let value = value.ok_or_else(|| missing("value"))?;
            match variant {
                0 => PatchOperation::Add(AddOperation { path, value }),
                2 => PatchOperation::Replace(ReplaceOperation { path, value }),
                _ => PatchOperation::Test(TestOperation { path, value }),
            }
        }
        1 => PatchOperation::Remove(RemoveOperation {
            path: take(&mut path, "path")?,
        }),
        _ => {
            let from = take(&mut from, "from")?;
            let path = take(&mut path, "path")?;
            match variant {
                3 => PatchOperation::Move(MoveOperation { from, path }),
                _ => PatchOperation::Copy(CopyOperation { from, path }),
            }
        }
    })
}

/// An element that is not an object.
fn other(value: Value) -> Element {
    Element::Other(value, None)
}

#[cfg(test)]
mod tests;
