//! The direct patch reader against the reading it replaced (every operation parsed into a
//! `Value`, then converted), on generated and mangled lists: the same operations, or the same
//! error, whatever the input.

use json_patch::PatchOperation;
use proptest::prelude::*;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::{PATCH_OPS, patch_ops};
use crate::serde_util::{deserialize_element, lenient_vec};
use crate::{DecodeErrorKind, Event};

/// The list as read by [`patch_ops`].
#[derive(Debug, PartialEq)]
struct Direct(Vec<PatchOperation>);

impl<'de> Deserialize<'de> for Direct {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        patch_ops(d).map(|ops| Direct(ops.into_vec()))
    }
}

/// The list as it was read before: a `Vec<Value>`, then each element converted.
#[derive(Debug, PartialEq)]
struct Buffered(Vec<PatchOperation>);

impl<'de> Deserialize<'de> for Buffered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        lenient_vec(
            d,
            "op",
            PATCH_OPS,
            crate::decode::strip::StripKind::PatchOperation,
            deserialize_element,
        )
        .map(Buffered)
    }
}

/// An error's text without the position serde_json adds to errors raised inside a sequence
/// (which [`crate::decode::locate`] strips from every decode error).
fn text(e: serde_json::Error) -> String {
    let text = e.to_string();
    text.split(" at line ")
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// Both readings of `json`, from the text and from a parsed `Value`, agree: the same
/// operations, or errors with the same text.
fn agree(json: &str) -> Result<(), TestCaseError> {
    let direct = serde_json::from_str::<Direct>(json).map_err(text);
    let buffered = serde_json::from_str::<Buffered>(json).map_err(text);
    prop_assert_eq!(direct.map(|d| d.0), buffered.map(|b| b.0), "{}", json);
    if let Ok(value) = serde_json::from_str::<Value>(json) {
        let direct = Direct::deserialize(&value).map_err(text);
        let buffered = Buffered::deserialize(&value).map_err(text);
        prop_assert_eq!(direct.map(|d| d.0), buffered.map(|b| b.0), "{}", json);
    }
    Ok(())
}

const KEYS: &[&str] = &["op", "path", "from", "value", "extra", "pa\\u0074h"];
const VALUES: &[&str] = &[
    "\"add\"",
    "\"remove\"",
    "\"replace\"",
    "\"move\"",
    "\"copy\"",
    "\"test\"",
    "\"frob\"",
    "\"ADD\"",
    "\"\"",
    "\"/a\"",
    "\"/a~1b/0\"",
    "\"a\"",
    "\"/~2\"",
    "0",
    "3",
    "7",
    "-1",
    "1.5",
    "null",
    "true",
    "{\"x\":[1,{\"y\":null}]}",
    "[]",
    "[\"add\",\"/a\"]",
    // `[op, members…]`, which serde's reading of a tagged union takes as the operation.
    "[\"remove\",\"/a\"]",
    "[\"move\",\"/b\",\"/a\",0]",
    "[\"test\",\"/a\",null]",
    "[\"copy\",\"a\",\"/a\"]",
    "[\"replace\",7]",
    "[\"frob\"]",
    "[5,\"/a\"]",
    "{}",
];

fn member() -> impl Strategy<Value = String> {
    (prop::sample::select(KEYS), prop::sample::select(VALUES))
        .prop_map(|(k, v)| format!("\"{k}\":{v}"))
}

fn element() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::collection::vec(member(), 0..6).prop_map(|m| format!("{{{}}}", m.join(","))),
        1 => prop::sample::select(VALUES).prop_map(str::to_owned),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn the_direct_reader_reads_what_the_buffered_one_did(
        elements in prop::collection::vec(element(), 0..5),
        tail in prop::sample::select(vec!["]", "", ",]", "]]", ",{"]),
    ) {
        agree(&format!("[{}{tail}", elements.join(",")))?;
    }

    /// Plain operations, the shape every producer sends, in any member order.
    #[test]
    fn plain_operations_read_alike(
        ops in prop::collection::vec(
            (0..6usize, prop::sample::select(vec!["/a", "/a/0", "", "/x~0y"]), any::<bool>()),
            0..6,
        )
    ) {
        let elements: Vec<String> = ops
            .iter()
            .map(|&(op, path, reversed)| {
                let mut members = vec![format!("\"op\":\"{}\"", PATCH_OPS[op])];
                members.push(format!("\"path\":\"{path}\""));
                match op {
                    0 | 2 | 5 => members.push("\"value\":{\"n\":[1,2.5,\"s\"]}".to_owned()),
                    3 | 4 => members.push("\"from\":\"/b\"".to_owned()),
                    _ => {}
                }
                if reversed {
                    members.reverse();
                }
                format!("{{{}}}", members.join(","))
            })
            .collect();
        let json = format!("[{}]", elements.join(","));
        agree(&json)?;
        prop_assert_eq!(serde_json::from_str::<Direct>(&json).unwrap().0.len(), ops.len());
    }
}

#[test]
fn unknown_operations_are_dropped_and_bad_ones_named() {
    let event = Event::from_json(
        r#"{"type":"STATE_DELTA","delta":[{"op":"frob","path":3},{"path":"/a","op":"remove"},{"op":"increment"}]}"#,
    )
    .unwrap();
    let Event::StateDelta(delta) = event else {
        panic!("{event:?}")
    };
    assert_eq!(
        delta.delta.ops(),
        [PatchOperation::Remove(json_patch::RemoveOperation {
            path: json_patch::jsonptr::PointerBuf::parse("/a").unwrap()
        })]
    );

    let cases = [
        (
            r#"{"type":"ACTIVITY_DELTA","messageId":"m","activityType":"PLAN","patch":[{"op":"move","path":"/a"}]}"#,
            "patch[0].from",
        ),
        (
            r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":1},{"op":"add","path":"a","value":1}]}"#,
            "delta[1]",
        ),
        // Serde's reading of the tagged union loses the member's name; so did the old reader.
        (
            r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":1},{"op":"test","path":7}]}"#,
            "delta[1]",
        ),
        (r#"{"type":"STATE_DELTA","delta":[1]}"#, "delta[0]"),
        (r#"{"type":"STATE_DELTA","delta":{}}"#, "delta"),
    ];
    for (json, field) in cases {
        let err = Event::from_json(json).unwrap_err();
        assert_eq!(err.kind(), DecodeErrorKind::InvalidField, "{json}: {err}");
        assert_eq!(err.field(), Some(field), "{json}: {err}");
    }
}

/// Broken JSON after an invalid operation is a syntax error, as it was when the whole list was
/// parsed before any operation was converted.
#[test]
fn broken_json_after_a_bad_operation_is_a_syntax_error() {
    for json in [
        r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a"},{"op":"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a"},]}"#,
        r#"{"type":"STATE_DELTA","delta":[7,{"op":"add","path":"/a","value":tru}]}"#,
    ] {
        let err = Event::from_json(json).unwrap_err();
        assert_eq!(err.kind(), DecodeErrorKind::Syntax, "{json}: {err}");
    }
}

/// RFC 6902 keeps an operation open: what an operation carries beyond its own members stays
/// beside it, and is written back after them (the members no operation defines first, then the
/// known ones it does not use), on the fast path and on the slow one alike.
#[test]
fn members_an_operation_does_not_define_are_kept() {
    let cases = [
        // A value on a remove, a from on an add, a vendor's member.
        (
            r#"[{"op":"remove","path":"/a","value":"drop-me"},{"op":"add","path":"/b","value":1,"from":"/x","x-trace":{"id":7}}]"#,
            r#"[{"op":"remove","path":"/a","value":"drop-me"},{"op":"add","path":"/b","value":1,"x-trace":{"id":7},"from":"/x"}]"#,
        ),
        // Members in another order (the slow path reads a repeated member once, as a Value).
        (
            r#"[{"value":2,"path":"/c","op":"replace","note":"n"},{"op":"test","path":"/d","value":null}]"#,
            r#"[{"op":"replace","path":"/c","value":2,"note":"n"},{"op":"test","path":"/d","value":null}]"#,
        ),
    ];
    for (json, written) in cases {
        let ops = patch_ops(&mut serde_json::Deserializer::from_str(json)).unwrap();
        assert_eq!(serde_json::to_string(&ops).unwrap(), written, "{json}");
        let from_value = patch_ops(&serde_json::from_str::<Value>(json).unwrap()).unwrap();
        assert_eq!(from_value, ops, "{json}");
    }
    let ops = patch_ops(&mut serde_json::Deserializer::from_str(
        r#"[{"op":"remove","path":"/a"},{"op":"copy","from":"/a","path":"/b","value":3}]"#,
    ))
    .unwrap();
    assert_eq!(ops.extra(0), None);
    assert_eq!(ops.extra(1).unwrap()["value"], 3);
}

/// What an operation that is not plainly valid reads as, or the error it is, alone in a list:
/// serde's reading of the tagged union, kept.
#[test]
fn invalid_operations_read_as_serde_read_them() {
    let read = |element: &str| {
        serde_json::from_str::<Direct>(&format!("[{element}]"))
            .map(|d| serde_json::to_string(&d.0).unwrap())
            .map_err(text)
    };
    let ok =
        |element: &str, written: &str| assert_eq!(read(element), Ok(written.into()), "{element}");
    let err =
        |element: &str, message: &str| assert_eq!(read(element), Err(message.into()), "{element}");
    ok(r#"["remove","/a"]"#, r#"[{"op":"remove","path":"/a"}]"#);
    ok(
        r#"["add","/a",{"b":1}]"#,
        r#"[{"op":"add","path":"/a","value":{"b":1}}]"#,
    );
    ok(
        r#"["move","/a","/b"]"#,
        r#"[{"op":"move","from":"/a","path":"/b"}]"#,
    );
    err(r#"{"path":"/a"}"#, "[0]: missing field `op`");
    err(
        r#"{"op":3,"path":"/a"}"#,
        "[0].op: invalid type: integer `3`, expected variant identifier",
    );
    err(
        r#"{"op":[],"path":"/a"}"#,
        "[0].op: invalid type: sequence, expected variant identifier",
    );
    err(r#"{"op":"add","path":"/a"}"#, "[0]: missing field `value`");
    err(r#"{"op":"move","path":"/a"}"#, "[0]: missing field `from`");
    err(
        r#"{"op":"test","path":7}"#,
        "[0]: invalid type: integer `7`, expected a string",
    );
    err(
        r#"{"op":"copy","from":"a","path":"/b"}"#,
        "[0]: json pointer failed to parse; does not start with a slash ('/') and is not empty",
    );
    err(
        "null",
        "[0]: invalid type: null, expected internally tagged enum PatchOperation",
    );
    err(
        r#""add""#,
        "[0]: invalid type: string \"add\", expected internally tagged enum PatchOperation",
    );
    err("[]", "[0]: missing field `op`");
    err(
        r#"["frob"]"#,
        "[0].[0]: unknown variant `frob`, expected one of `add`, `remove`, `replace`, `move`, `copy`, `test`",
    );
    err(
        r#"[1.5]"#,
        "[0].[0]: invalid type: floating point `1.5`, expected variant identifier",
    );
    err(
        r#"["add","/a"]"#,
        "[0]: invalid length 1, expected struct AddOperation with 2 elements",
    );
    err(
        r#"["remove","/a",1]"#,
        "[0]: invalid length 2, expected 1 element in sequence",
    );
    err(
        r#"["copy",1,"/a",1]"#,
        "[0]: invalid type: integer `1`, expected a string",
    );
}
