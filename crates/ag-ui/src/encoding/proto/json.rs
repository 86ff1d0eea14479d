//! `google.protobuf.Value`, `Struct` and `ListValue`, read and written straight from and to
//! `serde_json` values.
//!
//! The generated code refers to these types instead of generated ones (see the
//! `ag-ui-proto-gen` crate), so a JSON payload goes onto the wire without an intermediate tree,
//! and an object's members keep their order, as the reference encoder writes them (insertion
//! order).
//!
//! Reading follows the reference decoder: a number is a double, so an integral one within
//! ±2^64 reads as a JSON integer and a non-finite one as `null`; a `Value` with no kind set is
//! absent (left out of an object, `null` inside a list); a `Value` naming two kinds is
//! malformed.

use prost::bytes::{Buf, BufMut};
use prost::encoding::{
    self, DecodeContext, WireType, check_wire_type, decode_varint, encode_key, encode_varint,
    encoded_len_varint,
};
use serde_json::{Map, Number, Value};

/// A `google.protobuf.Value`: `None` when no kind is set.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct JsonValue(pub(crate) Option<Value>);

/// A `google.protobuf.Struct`: a JSON object.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct JsonObject(pub(crate) Map<String, Value>);

/// A `google.protobuf.ListValue`: a JSON array.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct JsonList(pub(crate) Vec<Value>);

// prost offers no other way for a hand-written `Message` to report malformed input; the
// constructor is deprecated only because prost means to hide it in a later major version.
#[allow(deprecated)]
fn malformed(what: &'static str) -> prost::DecodeError {
    prost::DecodeError::new(what)
}

/// The length of a `Value` message holding `value`, without its own key and length.
pub(crate) fn value_len(value: &Value) -> usize {
    match value {
        Value::Null => 2,
        Value::Number(_) => 9,
        Value::String(s) => 1 + encoded_len_varint(s.len() as u64) + s.len(),
        Value::Bool(_) => 2,
        Value::Object(map) => nested_len(object_len(map)),
        Value::Array(items) => nested_len(list_len(items)),
    }
}

/// A length-delimited field of tag < 16 holding `len` bytes.
fn nested_len(len: usize) -> usize {
    1 + encoded_len_varint(len as u64) + len
}

fn entry_len(key: &str, value: &Value) -> usize {
    let key = if key.is_empty() {
        0
    } else {
        1 + encoded_len_varint(key.len() as u64) + key.len()
    };
    key + nested_len(value_len(value))
}

/// The length of a `Struct` holding `map`.
pub(crate) fn object_len(map: &Map<String, Value>) -> usize {
    map.iter().map(|(k, v)| nested_len(entry_len(k, v))).sum()
}

/// The length of a `ListValue` holding `items`.
pub(crate) fn list_len(items: &[Value]) -> usize {
    items.iter().map(|v| nested_len(value_len(v))).sum()
}

/// Writes the fields of a `Value` message holding `value`.
pub(crate) fn write_value(value: &Value, buf: &mut impl BufMut) {
    match value {
        Value::Null => {
            encode_key(1, WireType::Varint, buf);
            encode_varint(0, buf);
        }
        Value::Number(n) => {
            encode_key(2, WireType::SixtyFourBit, buf);
            buf.put_f64_le(n.as_f64().unwrap_or(f64::NAN));
        }
        Value::String(s) => {
            encode_key(3, WireType::LengthDelimited, buf);
            encode_varint(s.len() as u64, buf);
            buf.put_slice(s.as_bytes());
        }
        Value::Bool(b) => {
            encode_key(4, WireType::Varint, buf);
            encode_varint(u64::from(*b), buf);
        }
        Value::Object(map) => {
            encode_key(5, WireType::LengthDelimited, buf);
            encode_varint(object_len(map) as u64, buf);
            write_object(map, buf);
        }
        Value::Array(items) => {
            encode_key(6, WireType::LengthDelimited, buf);
            encode_varint(list_len(items) as u64, buf);
            write_list(items, buf);
        }
    }
}

/// Writes the fields of a `Struct` holding `map`, members in their order.
pub(crate) fn write_object(map: &Map<String, Value>, buf: &mut impl BufMut) {
    for (key, value) in map {
        encode_key(1, WireType::LengthDelimited, buf);
        encode_varint(entry_len(key, value) as u64, buf);
        if !key.is_empty() {
            encode_key(1, WireType::LengthDelimited, buf);
            encode_varint(key.len() as u64, buf);
            buf.put_slice(key.as_bytes());
        }
        encode_key(2, WireType::LengthDelimited, buf);
        encode_varint(value_len(value) as u64, buf);
        write_value(value, buf);
    }
}

/// Writes the fields of a `ListValue` holding `items`.
pub(crate) fn write_list(items: &[Value], buf: &mut impl BufMut) {
    for value in items {
        encode_key(1, WireType::LengthDelimited, buf);
        encode_varint(value_len(value) as u64, buf);
        write_value(value, buf);
    }
}

/// A double as the reference reads it into JSON: integral values as integers.
fn number(f: f64) -> Value {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f.is_finite() && f.fract() == 0.0 {
        if (0.0..2.0 * TWO_63).contains(&f) {
            return Value::Number(Number::from(f as u64));
        }
        if (-TWO_63..0.0).contains(&f) {
            return Value::Number(Number::from(f as i64));
        }
    }
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

fn read_string(wire_type: WireType, buf: &mut impl Buf) -> Result<String, prost::DecodeError> {
    let mut s = String::new();
    encoding::string::merge(wire_type, &mut s, buf, DecodeContext::default())?;
    Ok(s)
}

impl JsonValue {
    /// Sets the kind, refusing a second, different kind.
    fn set(&mut self, field: u32, value: Value) -> Result<(), prost::DecodeError> {
        if let Some(old) = &self.0
            && kind_field(old) != field
        {
            return Err(malformed("google.protobuf.Value carries two kinds"));
        }
        self.0 = Some(value);
        Ok(())
    }
}

fn kind_field(value: &Value) -> u32 {
    match value {
        Value::Null => 1,
        Value::Number(_) => 2,
        Value::String(_) => 3,
        Value::Bool(_) => 4,
        Value::Object(_) => 5,
        Value::Array(_) => 6,
    }
}

impl prost::Message for JsonValue {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        if let Some(value) = &self.0 {
            write_value(value, buf);
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        match tag {
            1 => {
                check_wire_type(WireType::Varint, wire_type)?;
                decode_varint(buf)?;
                self.set(1, Value::Null)
            }
            2 => {
                check_wire_type(WireType::SixtyFourBit, wire_type)?;
                if buf.remaining() < 8 {
                    return Err(malformed("truncated double"));
                }
                let f = buf.get_f64_le();
                self.set(2, number(f))
            }
            3 => {
                let s = read_string(wire_type, buf)?;
                self.set(3, Value::String(s))
            }
            4 => {
                check_wire_type(WireType::Varint, wire_type)?;
                let b = decode_varint(buf)? != 0;
                self.set(4, Value::Bool(b))
            }
            5 => {
                // A repeated message field merges into the one before it.
                let mut object = match self.0.take() {
                    Some(Value::Object(map)) => JsonObject(map),
                    Some(other) => {
                        self.0 = Some(other);
                        return Err(malformed("google.protobuf.Value carries two kinds"));
                    }
                    None => JsonObject::default(),
                };
                encoding::message::merge(wire_type, &mut object, buf, ctx)?;
                self.0 = Some(Value::Object(object.0));
                Ok(())
            }
            6 => {
                let mut list = match self.0.take() {
                    Some(Value::Array(items)) => JsonList(items),
                    Some(other) => {
                        self.0 = Some(other);
                        return Err(malformed("google.protobuf.Value carries two kinds"));
                    }
                    None => JsonList::default(),
                };
                encoding::message::merge(wire_type, &mut list, buf, ctx)?;
                self.0 = Some(Value::Array(list.0));
                Ok(())
            }
            _ => encoding::skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        self.0.as_ref().map_or(0, value_len)
    }

    fn clear(&mut self) {
        self.0 = None;
    }
}

/// One `Struct.fields` entry while it is read.
#[derive(Debug, Default)]
struct Entry {
    key: String,
    value: JsonValue,
}

impl prost::Message for Entry {
    fn encode_raw(&self, _buf: &mut impl BufMut) {
        unreachable!("entries are written by write_object")
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        match tag {
            1 => encoding::string::merge(wire_type, &mut self.key, buf, ctx),
            2 => encoding::message::merge(wire_type, &mut self.value, buf, ctx),
            _ => encoding::skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        unreachable!("entries are measured by object_len")
    }

    fn clear(&mut self) {
        self.key.clear();
        self.value.0 = None;
    }
}

impl prost::Message for JsonObject {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        write_object(&self.0, buf);
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        if tag != 1 {
            return encoding::skip_field(wire_type, tag, buf, ctx);
        }
        let mut entry = Entry::default();
        encoding::message::merge(wire_type, &mut entry, buf, ctx)?;
        match entry.value.0 {
            // An entry whose value has no kind reads as a missing member, as in the reference.
            None => {
                self.0.remove(&entry.key);
            }
            Some(value) => {
                // A repeated key keeps its first position and takes the last value.
                self.0.insert(entry.key, value);
            }
        }
        Ok(())
    }

    fn encoded_len(&self) -> usize {
        object_len(&self.0)
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}

impl prost::Message for JsonList {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        write_list(&self.0, buf);
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        if tag != 1 {
            return encoding::skip_field(wire_type, tag, buf, ctx);
        }
        let mut value = JsonValue::default();
        encoding::message::merge(wire_type, &mut value, buf, ctx)?;
        self.0.push(value.0.unwrap_or(Value::Null));
        Ok(())
    }

    fn encoded_len(&self) -> usize {
        list_len(&self.0)
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;
    use serde_json::json;

    fn round_trip(value: Value) -> Value {
        let bytes = JsonValue(Some(value)).encode_to_vec();
        JsonValue::decode(bytes.as_slice()).unwrap().0.unwrap()
    }

    #[test]
    fn values_round_trip_keeping_key_order() {
        let value =
            json!({"z": 1, "a": [true, null, "s", 2.5, -3, {"": {}}], "m": {"y": [], "b": false}});
        let back = round_trip(value.clone());
        assert_eq!(back, value);
        let keys: Vec<&String> = back.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["z", "a", "m"]);
    }

    #[test]
    fn numbers_are_doubles() {
        // u64::MAX is 2^64 as a double: beyond every integer type, so it stays a float.
        assert_eq!(
            round_trip(json!(u64::MAX)),
            json!(18_446_744_073_709_551_616.0)
        );
        assert_eq!(round_trip(json!(i64::MIN)), json!(i64::MIN));
        assert_eq!(
            round_trip(json!(9_007_199_254_740_993u64)),
            json!(9_007_199_254_740_992u64)
        );
        assert_eq!(round_trip(json!(-0.0)), json!(0));
        assert_eq!(round_trip(json!(1e300)), json!(1e300));
    }

    #[test]
    fn the_reference_bytes_of_a_small_value() {
        // {"a":1} as @ag-ui/proto writes a Value: struct_value { fields { key "a" value { number_value 1 } } }
        let bytes = JsonValue(Some(json!({"a": 1}))).encode_to_vec();
        assert_eq!(
            bytes,
            [
                0x2a, 0x10, 0x0a, 0x0e, 0x0a, 0x01, b'a', 0x12, 0x09, 0x11, 0, 0, 0, 0, 0, 0, 0xf0,
                0x3f
            ]
        );
    }

    #[test]
    fn two_kinds_are_malformed_and_no_kind_is_absent() {
        assert!(JsonValue::decode(&[0x08, 0x00, 0x20, 0x01][..]).is_err());
        assert_eq!(JsonValue::decode(&[][..]).unwrap().0, None);
        // {"a": <no kind>} reads as {}; [<no kind>] reads as [null].
        let object = JsonValue::decode(&[0x2a, 0x05, 0x0a, 0x03, 0x0a, 0x01, b'a'][..]).unwrap();
        assert_eq!(object.0, Some(json!({})));
        let list = JsonValue::decode(&[0x32, 0x02, 0x0a, 0x00][..]).unwrap();
        assert_eq!(list.0, Some(json!([null])));
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let mut bytes: Vec<u8> = vec![0x08, 0x00];
        for _ in 0..200 {
            let mut outer = vec![0x32];
            let item_len = bytes.len();
            let mut item = vec![0x0a];
            encode_varint(item_len as u64, &mut item);
            item.extend_from_slice(&bytes);
            encode_varint(item.len() as u64, &mut outer);
            outer.extend_from_slice(&item);
            bytes = outer;
        }
        assert!(JsonValue::decode(bytes.as_slice()).is_err());
    }
}
