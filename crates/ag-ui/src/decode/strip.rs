//! What reading an event leaves out, told to whoever collects it.
//!
//! A 1.0 reader tolerates what a newer producer may send: an undescribed member of an event, an
//! outcome of an unknown type, a content part of an unknown type, a message of an unknown role,
//! a JSON Patch operation naming no operation. Each is left out where serde reads it, deep in
//! a `deserialize_with` that cannot be handed a sink, so the record goes to a collector of the
//! current thread: [`collecting`] installs one for one read (the client pipeline reads every
//! event that way and turns each record into a `client::Warning`), and with none installed a
//! record of a union member is a `tracing` warning, as before.
//!
//! Members are checked at the event's own level, by the event structs' reader (`event::read`),
//! which records each key it does not describe while a collection is under way, and only then
//! (with no collector, an undescribed member is skipped without a warning). The path of a record is a JSON Pointer from the event's root, built from
//! the segments the list readers push ([`within`], [`within_index`]).

use std::cell::RefCell;
use std::fmt;

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

/// Whether a collection is under way (a record would be kept, not logged).
pub(crate) fn active() -> bool {
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
