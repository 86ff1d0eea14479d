//! [`PatchOps`]: the JSON Patch an event carries (`STATE_DELTA.delta`, `ACTIVITY_DELTA.patch`).

use std::ops::Deref;

use json_patch::PatchOperation;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

/// The operations of a JSON Patch (RFC 6902) as an event carries them, with the members an
/// operation carried that RFC 6902 does not define for it.
///
/// A patch operation is an open object: the RFC says members an operation does not define are
/// ignored, not rejected, and the protocol's schema keeps them. So a
/// `{"op":"remove","path":"/a","value":1}` is the removal of `/a`, and the `value` it carried
/// stays with it when the event is delivered, written or relayed; only protobuf, whose message
/// has no place for them, leaves such members out.
///
/// It reads like the slice of its operations (`Deref<Target = [PatchOperation]>`), and is built
/// from a `Vec<PatchOperation>`.
///
/// ```
/// use ag_ui::{Event, PatchOps};
///
/// let event = Event::from_json(
///     r#"{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/items/1","value":"drop-me"}]}"#,
/// )
/// .unwrap();
/// let Event::StateDelta(delta) = &event else { unreachable!() };
/// assert_eq!(delta.delta.len(), 1);
/// assert_eq!(delta.delta.extra(0).unwrap()["value"], "drop-me");
/// assert_eq!(
///     event.to_json(),
///     r#"{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/items/1","value":"drop-me"}]}"#
/// );
/// let plain: PatchOps = vec![].into();
/// assert!(plain.is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PatchOps {
    ops: Vec<PatchOperation>,
    /// The extra members of the operations that had some: (index, members), by index; `None`
    /// when there are none (never an empty list). Boxed: they are rare, and every `Event` is as
    /// large as its largest variant.
    extras: Option<Box<Extras>>,
}

/// The extra members of a patch's operations: (index, members), by index.
type Extras = Vec<(usize, Map<String, Value>)>;

impl PatchOps {
    /// No operation.
    pub fn new() -> Self {
        Self::default()
    }

    /// The operations.
    pub fn ops(&self) -> &[PatchOperation] {
        &self.ops
    }

    /// The members operation `index` carried beyond what RFC 6902 defines for it, if any.
    pub fn extra(&self, index: usize) -> Option<&Map<String, Value>> {
        let extras = self.extras.as_deref()?;
        extras
            .binary_search_by_key(&index, |(i, _)| *i)
            .ok()
            .map(|at| &extras[at].1)
    }

    /// Appends an operation, with the members it carried beyond RFC 6902 (`None`: none).
    pub fn push(&mut self, op: PatchOperation, extra: Option<Map<String, Value>>) {
        if let Some(extra) = extra.filter(|e| !e.is_empty()) {
            let at = self.ops.len();
            self.extras.get_or_insert_default().push((at, extra));
        }
        self.ops.push(op);
    }

    /// The operations, without their extra members.
    pub fn into_vec(self) -> Vec<PatchOperation> {
        self.ops
    }
}

impl Deref for PatchOps {
    type Target = [PatchOperation];

    fn deref(&self) -> &[PatchOperation] {
        &self.ops
    }
}

impl From<Vec<PatchOperation>> for PatchOps {
    fn from(ops: Vec<PatchOperation>) -> Self {
        Self { ops, extras: None }
    }
}

impl FromIterator<PatchOperation> for PatchOps {
    fn from_iter<I: IntoIterator<Item = PatchOperation>>(iter: I) -> Self {
        Vec::from_iter(iter).into()
    }
}

impl<'a> IntoIterator for &'a PatchOps {
    type Item = &'a PatchOperation;
    type IntoIter = std::slice::Iter<'a, PatchOperation>;

    fn into_iter(self) -> Self::IntoIter {
        self.ops.iter()
    }
}

impl PartialEq<Vec<PatchOperation>> for PatchOps {
    fn eq(&self, other: &Vec<PatchOperation>) -> bool {
        self.extras.is_none() && &self.ops == other
    }
}

impl Serialize for PatchOps {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.ops.len()))?;
        let mut extras = self.extras.iter().flat_map(|e| e.iter()).peekable();
        for (index, op) in self.ops.iter().enumerate() {
            match extras.next_if(|(i, _)| *i == index) {
                None => seq.serialize_element(op)?,
                Some((_, extra)) => seq.serialize_element(&WithExtra { op, extra })?,
            }
        }
        seq.end()
    }
}

/// An operation written with its extra members after its own (an extra member never replaces
/// one the operation defines).
struct WithExtra<'a> {
    op: &'a PatchOperation,
    extra: &'a Map<String, Value>,
}

impl Serialize for WithExtra<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let own = match serde_json::to_value(self.op) {
            Ok(Value::Object(own)) => own,
            _ => Map::new(),
        };
        let mut map = serializer.serialize_map(Some(own.len() + self.extra.len()))?;
        for (key, value) in &own {
            map.serialize_entry(key, value)?;
        }
        for (key, value) in self.extra {
            if !own.contains_key(key) {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    /// Every event is as large as the largest variant, and moves through the pipeline by value:
    /// a patch's rare extra members must not make all of them larger.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn patch_ops_keep_the_event_at_128_bytes() {
        assert_eq!(std::mem::size_of::<super::PatchOps>(), 32);
        assert!(std::mem::size_of::<crate::Event>() <= 128);
    }
}
