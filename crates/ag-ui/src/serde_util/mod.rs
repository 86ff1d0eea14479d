//! Serde helpers shared by the wire model.

#[macro_use]
pub(crate) mod fields;

use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer};
use serde_json::Value;

use crate::decode::path;
use crate::decode::strip::{self, StripKind, Tail};

/// Largest integer a JSON number may hold on the AG-UI wire (2^53 − 1).
pub(crate) const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// For an optional field on which an explicit `null` is an error, whatever the field's type
/// (for a `serde_json::Value` field too, where `null` would otherwise be read as a value).
pub(crate) fn non_null<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    NonNull::deserialize(d).map(|NonNull(value)| Some(value))
}

/// A value that is not `null` ([`non_null`] as a type, for the event structs' reader).
pub(crate) struct NonNull<T>(pub(crate) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for NonNull<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Option::<T>::deserialize(d)? {
            Some(value) => Ok(NonNull(value)),
            None => Err(de::Error::invalid_type(
                de::Unexpected::Unit,
                &"a value other than null",
            )),
        }
    }
}

/// For `timestamp`: an integer within ±(2^53 − 1). Whole floats (`1e3`, `1.0`) are accepted, as
/// JavaScript reads them as integers; fractional values are rejected.
pub(crate) fn timestamp<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    safe_integer(d, -MAX_SAFE_INTEGER)
}

/// For token counts and other non-negative integers (a field of a derived `Deserialize`).
pub(crate) fn count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    safe_count(d).map(Some)
}

/// [`count`]'s integer.
pub(crate) fn safe_count<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    safe_integer(d, 0).map(|n| n as u64)
}

fn safe_integer<'de, D>(d: D, min: i64) -> Result<i64, D::Error>
where
    D: Deserializer<'de>,
{
    struct V(i64);
    impl de::Visitor<'_> for V {
        type Value = i64;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "an integer between {} and {MAX_SAFE_INTEGER}", self.0)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<i64, E> {
            if (self.0..=MAX_SAFE_INTEGER).contains(&v) {
                Ok(v)
            } else {
                Err(E::invalid_value(de::Unexpected::Signed(v), &self))
            }
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<i64, E> {
            match i64::try_from(v) {
                Ok(v) => self.visit_i64(v),
                Err(_) => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
            }
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<i64, E> {
            if v.fract() == 0.0 && v.abs() <= MAX_SAFE_INTEGER as f64 {
                self.visit_i64(v as i64)
            } else {
                Err(E::invalid_value(de::Unexpected::Float(v), &self))
            }
        }
    }
    d.deserialize_any(V(min))
}

/// Deserializes an array of a discriminated union, dropping the elements whose discriminator
/// names no known member (recorded as `kind`, see `decode::strip`), as the 1.0 client does. Elements with a known
/// discriminator but a malformed body are errors.
///
/// `convert` reads one element; [`deserialize_element`] suits any type whose errors carry their
/// own paths (internally tagged enums lose them, so they convert variant by variant).
pub(crate) fn lenient_vec<'de, D, T>(
    d: D,
    tag: &'static str,
    known: &'static [&'static str],
    kind: StripKind,
    convert: fn(Value, usize) -> Result<T, String>,
) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
{
    d.deserialize_seq(Lenient {
        tag,
        known,
        kind,
        convert,
    })
}

/// The visitor of [`lenient_vec`]: one element buffered as a [`Value`] at a time, converted
/// before the next is read, so a long array is never held twice (as values and as `T`s).
struct Lenient<T> {
    tag: &'static str,
    known: &'static [&'static str],
    kind: StripKind,
    convert: fn(Value, usize) -> Result<T, String>,
}

impl<'de, T> de::Visitor<'de> for Lenient<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        // The hint is the peer's word (a length prefix in some formats): trust it only so far.
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        // One record per list, however many members it drops: a peer sending thousands must
        // not get thousands of warnings.
        let mut dropped: Option<(usize, String, usize)> = None;
        let mut index = 0;
        while let Some(item) = seq.next_element::<Value>()? {
            if let Some(name) = unknown_member(&item, self.tag, self.known) {
                match &mut dropped {
                    Some((_, _, count)) => *count += 1,
                    None => dropped = Some((index, name, 1)),
                }
            } else {
                match strip::within_index(index, || (self.convert)(item, index)) {
                    Ok(element) => out.push(element),
                    Err(error) => {
                        // The rest is read through (not kept), so that a list that is not even
                        // JSON is reported as such, as when the whole list was read first.
                        while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                        return Err(de::Error::custom(error));
                    }
                }
            }
            index += 1;
        }
        // The list is kept as long as the run that reads it: without the room of its growth.
        out.shrink_to_fit();
        if let Some((first_index, first, count)) = dropped {
            strip::record(self.kind, Some(Tail::Index(first_index)), &first, count);
        }
        Ok(out)
    }
}

/// Returns the discriminator value when `item` is an object whose `tag` is a string naming no
/// known member.
pub(crate) fn unknown_member(item: &Value, tag: &str, known: &[&str]) -> Option<String> {
    match item.get(tag) {
        Some(Value::String(name)) if !known.contains(&name.as_str()) => Some(name.clone()),
        _ => None,
    }
}

/// Deserializes one element of an array that was buffered as a [`Value`]. An error's text starts
/// with the element's path (`[3].content: missing field ...`), which
/// [`crate::decode::locate`] folds back into the field path of the outer error.
pub(crate) fn deserialize_element<T: DeserializeOwned>(
    item: Value,
    index: usize,
) -> Result<T, String> {
    from_buffered(item).map_err(|e| e.within(&format!("[{index}]")))
}

/// Why a buffered value is not a `T`: the path in it of the value at fault (`.` for itself)
/// and what is wrong, without a position (it would be in the value's text, not the input's).
#[derive(Debug)]
pub(crate) struct BufferedError {
    path: String,
    message: String,
}

impl BufferedError {
    /// An error about the value itself.
    pub(crate) fn new(message: impl Into<String>) -> Self {
        BufferedError {
            path: ".".into(),
            message: message.into(),
        }
    }

    /// The error's text, its path prefixed by `outer` (`[3]` for an array's element; empty
    /// for the value read alone): `[3].content: …`, or `[3]: …` for the value itself.
    pub(crate) fn within(&self, outer: &str) -> String {
        match (outer.is_empty(), self.path.as_str()) {
            (true, ".") => self.message.clone(),
            (true, path) => format!("{path}: {}", self.message),
            (false, ".") => format!("{outer}: {}", self.message),
            (false, path) => format!("{outer}.{path}: {}", self.message),
        }
    }
}

/// `item`, a value buffered from the input, read as a `T`.
pub(crate) fn from_buffered<T: DeserializeOwned>(item: Value) -> Result<T, BufferedError> {
    from_buffered_by(item, std::marker::PhantomData::<T>)
}

/// `item`, a value buffered from the input, read by `seed` (one seed can read several types,
/// as `message::read` reads every role's struct with one).
pub(crate) fn from_buffered_by<T, S>(item: Value, seed: S) -> Result<T, BufferedError>
where
    S: Copy + for<'de> de::DeserializeSeed<'de, Value = T>,
{
    // Natively, most values are valid: read them as they are; only one that fails is written
    // out and read again from its text, whose reader says where the error was raised (the
    // path of the field). On wasm32 every value takes that way, so each type's deserializer
    // is in the browser module once, for the reader over bytes (see
    // `Event::deserialize_event`).
    #[cfg(not(target_arch = "wasm32"))]
    if let Ok(value) = seed.deserialize(&item) {
        return Ok(value);
    }
    let bytes = serde_json::to_vec(&item).map_err(|e| BufferedError::new(e.to_string()))?;
    let read = |text: &[u8]| seed.deserialize(&mut serde_json::Deserializer::from_slice(text));
    read(&bytes).map_err(|e| BufferedError {
        path: path::error_path(&bytes, &e, &|text| read(text).map(drop)),
        message: path::message(&e),
    })
}

/// The discriminator `tag` of `item`, a buffered member of the internally tagged enum `name`;
/// an error worded as serde's derived reading words it otherwise.
pub(crate) fn tag_of<'a>(
    item: &'a Value,
    tag: &'static str,
    name: &'static str,
) -> Result<&'a str, BufferedError> {
    use serde::de::Error as _;
    let error = match item.get(tag) {
        Some(Value::String(value)) => return Ok(value),
        Some(other) => serde_json::Error::invalid_type(unexpected(other), &"variant identifier"),
        None if item.is_object() => serde_json::Error::missing_field(tag),
        None => serde_json::Error::invalid_type(
            unexpected(item),
            &format!("internally tagged enum {name}").as_str(),
        ),
    };
    Err(BufferedError::new(error.to_string()))
}

/// The error of a discriminator naming none of `known`, worded as serde's.
pub(crate) fn unknown_tag(value: &str, known: &'static [&'static str]) -> BufferedError {
    use serde::de::Error as _;
    BufferedError::new(serde_json::Error::unknown_variant(value, known).to_string())
}

/// How serde's derived reading of an internally tagged enum (`#[serde(tag = "…")]`) takes a
/// member apart, without its `Content` buffering (a second copy of the reading of every
/// variant's struct, one for each input it is read from): the tag is read from the input as
/// serde reads it (with the same errors, at the same place), the other members are buffered as
/// a [`Value`], whose members [`VariantStruct::members`] gives to the reading of the struct of
/// the variant the tag names. Like serde's, it takes `[tag, fields…]` too.
pub(crate) struct Tagged {
    /// The name of the tag member.
    pub(crate) tag: &'static str,
    /// The enum's name, as serde's error about a value that is neither object nor array says it.
    pub(crate) name: &'static str,
    /// The tags of the variants, in declaration order.
    pub(crate) variants: &'static [&'static str],
}

impl Tagged {
    /// Reads a member: the index in [`variants`](Self::variants) of the variant its tag names,
    /// and its body: the object of its other members (a member given twice counts once, with
    /// its last value, as in a [`Value`]), or for `[tag, fields…]` the array of the fields.
    fn read<'de, D: Deserializer<'de>>(&self, d: D) -> Result<(usize, Value), D::Error> {
        d.deserialize_any(TaggedVisitor(self))
    }

    /// A member [`read`](Self::read) from `d`, built by `from` from its variant and body; an
    /// error of `from` is a custom error of `d` (its text, without a position), as serde's
    /// derived reading reported an error of the variant's struct.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>, T>(
        &self,
        d: D,
        from: fn(usize, Value) -> Result<T, serde_json::Error>,
    ) -> Result<T, D::Error> {
        let (variant, body) = self.read(d)?;
        from(variant, body).map_err(de::Error::custom)
    }

    /// [`read`](Self::read) of an object already buffered as `members`: the same errors, without
    /// reading its members once more.
    pub(crate) fn read_members(
        &self,
        mut members: serde_json::Map<String, Value>,
    ) -> Result<(usize, Value), serde_json::Error> {
        use de::{DeserializeSeed, Error as _};
        // `shift_remove`: the others keep their order, which decides which error comes first.
        let tag = (members.shift_remove(self.tag))
            .ok_or_else(|| serde_json::Error::missing_field(self.tag))?;
        let variant = VariantSeed(self).deserialize(tag)?;
        Ok((variant, Value::Object(members)))
    }
}

struct TaggedVisitor<'a>(&'a Tagged);

impl<'de> de::Visitor<'de> for TaggedVisitor<'_> {
    type Value = (usize, Value);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "internally tagged enum {}", self.0.name)
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut variant = None;
        let mut body = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == self.0.tag {
                if variant.is_some() {
                    return Err(de::Error::duplicate_field(self.0.tag));
                }
                variant = Some(map.next_value_seed(VariantSeed(self.0))?);
            } else {
                body.insert(key, map.next_value()?);
            }
        }
        match variant {
            Some(variant) => Ok((variant, Value::Object(body))),
            None => Err(de::Error::missing_field(self.0.tag)),
        }
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let Some(variant) = seq.next_element_seed(VariantSeed(self.0))? else {
            return Err(de::Error::missing_field(self.0.tag));
        };
        let mut fields = Vec::new();
        while let Some(field) = seq.next_element()? {
            fields.push(field);
        }
        Ok((variant, Value::Array(fields)))
    }
}

/// A tag: the index of the variant it names.
struct VariantSeed<'a>(&'a Tagged);

impl<'de> de::DeserializeSeed<'de> for VariantSeed<'_> {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl de::Visitor<'_> for VariantSeed<'_> {
    type Value = usize;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("variant identifier")
    }

    fn visit_str<E: de::Error>(self, tag: &str) -> Result<usize, E> {
        let variants = self.0.variants;
        (variants.iter().position(|name| *name == tag))
            .ok_or_else(|| E::unknown_variant(tag, variants))
    }
}

/// The struct of a variant, as serde's derived reading of it names it in an error
/// (`struct variant PartSource::Data`, `struct AddOperation`), and its fields in declaration
/// order, the first `required` of them without a default (the others have one).
pub(crate) struct VariantStruct {
    /// The struct as serde's errors name it.
    pub(crate) name: &'static str,
    /// Its fields' member names, in declaration order.
    pub(crate) fields: &'static [&'static str],
    /// How many of the first fields have no default.
    pub(crate) required: usize,
}

impl VariantStruct {
    /// Gives the members of `body` (as [`Tagged::read`] returned it) to `read` with the index
    /// of their field, as serde's derived reading of the struct reads them: an object's members
    /// in their order, those the struct does not have ignored; an array's elements as the fields
    /// in declaration order, then the error of an array too short (a field without default
    /// missing) or too long. The first error `read` returns stops it. A member missing from an
    /// object is the caller's to report ([`missing_field`](de::Error::missing_field), in
    /// declaration order, once every member was read).
    pub(crate) fn members(
        &self,
        body: Value,
        read: &mut dyn FnMut(usize, Value) -> Result<(), serde_json::Error>,
    ) -> Result<(), serde_json::Error> {
        use serde::de::Error as _;
        match body {
            Value::Object(members) => {
                for (key, member) in members {
                    if let Some(at) = self.fields.iter().position(|f| *f == key) {
                        read(at, member)?;
                    }
                }
            }
            Value::Array(items) => {
                let (n, len) = (self.fields.len(), items.len());
                let mut items = items.into_iter();
                for at in 0..n {
                    match items.next() {
                        Some(member) => read(at, member)?,
                        None if at < self.required => {
                            let plural = if n == 1 { "" } else { "s" };
                            let expected = format!("{} with {n} element{plural}", self.name);
                            return Err(serde_json::Error::invalid_length(at, &expected.as_str()));
                        }
                        None => break,
                    }
                }
                if len > n {
                    let expected = match n {
                        1 => "1 element in sequence".to_owned(),
                        n => format!("{n} elements in sequence"),
                    };
                    return Err(serde_json::Error::invalid_length(len, &expected.as_str()));
                }
            }
            // `Tagged::read` gives an object or an array.
            _ => {}
        }
        Ok(())
    }
}

/// What serde calls the kind of a JSON value, for `invalid_type` errors.
pub(crate) fn unexpected(v: &Value) -> de::Unexpected<'_> {
    match v {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(_) => de::Unexpected::Other("a number"),
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}
