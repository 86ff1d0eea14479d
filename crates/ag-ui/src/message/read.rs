//! Reading messages: one by the struct its `role` names, and lists of them, dropping those of
//! an unknown role; and the source of a media part.

use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

use super::{Message, PartSource, Role, SOURCE_TYPES};
use crate::decode::strip::{self, StripKind};
use crate::serde_util::{
    BufferedError, Tagged, VariantStruct, from_buffered_by, lenient_vec, non_null, tag_of,
    unknown_tag,
};

/// Deserializes a list of messages, dropping those of unknown role (with a warning).
pub(crate) fn messages<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Message>, D::Error> {
    strip::within("messages", || {
        lenient_vec(d, "role", &Role::ALL, StripKind::Message, message_element)
    })
}

/// Reads one message, deserializing the struct of its role directly so that an error keeps the
/// path of the offending field.
fn message_element(item: Value, index: usize) -> Result<Message, String> {
    message_from(item).map_err(|e| e.within(&format!("[{index}]")))
}

/// The message `item` is: the struct its `role` names, read from it once. (serde's derived
/// reading of an internally tagged enum buffers the input again and instantiates every
/// variant's deserializer for that buffer: in the browser module, a second copy of each.)
fn message_from(item: Value) -> Result<Message, BufferedError> {
    let tag = tag_of(&item, "role", "Message")?;
    let Some(seed) = AsRole::of(tag) else {
        return Err(unknown_tag(tag, &Role::ALL));
    };
    from_buffered_by(item, seed)
}

/// Reads the struct of a role's message: one visitor for every role, handing the object's
/// members to the struct's reader (`read_members`), so the reading of the object around them
/// is in the code once (issue 40, the browser module).
#[derive(Clone, Copy)]
struct AsRole(Role);

macro_rules! role_structs {
    ($( $role:ident => $ty:ty ),* $(,)?) => {
        impl AsRole {
            /// The reader of the role whose wire string (`Role::as_str`) is `tag`.
            fn of(tag: &str) -> Option<Self> {
                $( if tag == Role::$role.as_str() { return Some(AsRole(Role::$role)); } )*
                None
            }
        }

        impl<'de> de::DeserializeSeed<'de> for AsRole {
            type Value = Message;

            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Message, D::Error> {
                d.deserialize_map(self)
            }
        }

        impl<'de> de::Visitor<'de> for AsRole {
            type Value = Message;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(match self.0 {
                    $( Role::$role => <$ty>::EXPECTING, )*
                })
            }

            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Message, A::Error> {
                match self.0 {
                    $( Role::$role => <$ty>::read_members(map).map(Message::$role), )*
                }
            }
        }
    };
}

role_structs! {
    Developer => super::DeveloperMessage,
    System => super::SystemMessage,
    Assistant => super::AssistantMessage,
    User => super::UserMessage,
    Tool => super::ToolMessage,
    Activity => super::ActivityMessage,
    Reasoning => super::ReasoningMessage,
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        message_from(Value::deserialize(d)?).map_err(|e| de::Error::custom(e.within("")))
    }
}

// A part's source, read as serde's derived reading of the tagged enum read it, without its
// buffering (see `serde_util::Tagged`).
impl<'de> Deserialize<'de> for PartSource {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const SOURCE: Tagged = Tagged {
            tag: "type",
            name: "PartSource",
            variants: SOURCE_TYPES,
        };
        SOURCE.deserialize(d, source_from)
    }
}

/// The struct of each source variant, in the order of [`SOURCE_TYPES`]; every field a string,
/// the first (`value`) without default, the others optional where they have none.
const SOURCE_STRUCTS: [VariantStruct; 3] = [
    VariantStruct {
        name: "struct variant PartSource::Data",
        fields: &["value", "mimeType"],
        required: 2,
    },
    VariantStruct {
        name: "struct variant PartSource::Url",
        fields: &["value", "mimeType"],
        required: 1,
    },
    VariantStruct {
        name: "struct variant PartSource::File",
        fields: &["value", "provider", "mimeType"],
        required: 1,
    },
];

/// Source `variant` (an index in [`SOURCE_TYPES`]) from the `body` [`Tagged::read`] returned,
/// read as serde's derived reading of its fields read them: a required field a string, an
/// optional one absent or a string (`null` refused).
fn source_from(variant: usize, body: Value) -> Result<PartSource, serde_json::Error> {
    use serde::de::Error as _;
    let shape = &SOURCE_STRUCTS[variant];
    let mut read: [Option<String>; 3] = [None, None, None];
    shape.members(body, &mut |at, member| {
        read[at] = if at < shape.required {
            Some(String::deserialize(member)?)
        } else {
            non_null(member)?
        };
        Ok(())
    })?;
    let [value, second, third] = read;
    let value = value.ok_or_else(|| serde_json::Error::missing_field("value"))?;
    Ok(match variant {
        0 => PartSource::Data {
            value,
            mime_type: second.ok_or_else(|| serde_json::Error::missing_field("mimeType"))?,
        },
        1 => PartSource::Url {
            value,
            mime_type: second,
        },
        _ => PartSource::File {
            value,
            provider: second,
            mime_type: third,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Result<Message, String> {
        serde_json::from_str::<Message>(json).map_err(|e| e.to_string())
    }

    /// A key given twice reads as its last value, as `JSON.parse` reads it, in a message read
    /// alone as in a list (serde's derived reading of the tagged enum refused it as a duplicate
    /// field).
    #[test]
    fn a_repeated_key_reads_as_its_last_value() {
        let json = r#"{"id":"a","role":"user","content":"x","content":"y"}"#;
        assert_eq!(read(json).unwrap().text(), Some("y"));
        let list: Vec<Message> = messages(&mut serde_json::Deserializer::from_str(&format!(
            "[{json}]"
        )))
        .unwrap();
        assert_eq!(list[0].text(), Some("y"));
    }

    #[test]
    fn errors_name_the_role_or_the_field() {
        assert_eq!(
            read(r#"{"id":"a","role":"robot"}"#).unwrap_err(),
            "unknown variant `robot`, expected one of `developer`, `system`, `assistant`, `user`, \
             `tool`, `activity`, `reasoning`"
        );
        assert_eq!(read(r#"{"id":"a"}"#).unwrap_err(), "missing field `role`");
        assert_eq!(
            read(r#"{"id":"a","role":5}"#).unwrap_err(),
            "invalid type: a number, expected variant identifier"
        );
        assert_eq!(
            read(r#""a""#).unwrap_err(),
            "invalid type: string \"a\", expected internally tagged enum Message"
        );
        assert_eq!(
            read(r#"{"id":"a","role":"user","content":[{"type":"text","text":1}]}"#).unwrap_err(),
            "content: [0].text: invalid type: integer `1`, expected a string"
        );
        assert_eq!(
            read(r#"{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function"}]}"#)
                .unwrap_err(),
            "toolCalls[0]: missing field `function`"
        );
    }
}

/// Reading a part's `source` (`PartSource`): its errors, alone and within an event.
#[cfg(test)]
mod source_tests {
    use crate::{Event, PartSource};

    fn read(json: &str) -> Result<PartSource, String> {
        serde_json::from_str::<PartSource>(json).map_err(|e| e.to_string())
    }

    /// The field and message of the error reading a user message whose one part is an image
    /// from `source`.
    fn in_event(source: &str) -> (Option<String>, String) {
        let json = format!(
            r#"{{"type":"MESSAGES_SNAPSHOT","messages":[{{"id":"a","role":"user","content":[{{"type":"image","source":{source}}}]}}]}}"#
        );
        let err = Event::from_json(&json).unwrap_err();
        (err.field().map(str::to_owned), err.message().to_owned())
    }

    #[test]
    fn each_source_reads_the_struct_its_type_names() {
        assert_eq!(
            read(r#"{"type":"data","value":"AA==","mimeType":"image/png"}"#).unwrap(),
            PartSource::Data {
                value: "AA==".into(),
                mime_type: "image/png".into()
            }
        );
        assert_eq!(
            read(r#"{"value":"u","type":"url","extra":1}"#).unwrap(),
            PartSource::Url {
                value: "u".into(),
                mime_type: None
            }
        );
        assert_eq!(
            read(r#"{"type":"file","value":"f","provider":"openai","mimeType":"a/b"}"#).unwrap(),
            PartSource::File {
                value: "f".into(),
                provider: Some("openai".into()),
                mime_type: Some("a/b".into())
            }
        );
    }

    #[test]
    fn errors_name_the_type_or_the_field() {
        assert_eq!(
            read(r#"{"type":"blob","value":"x"}"#).unwrap_err(),
            "unknown variant `blob`, expected one of `data`, `url`, `file` at line 1 column 14"
        );
        assert_eq!(
            read(r#"{"value":"x"}"#).unwrap_err(),
            "missing field `type` at line 1 column 13"
        );
        assert_eq!(
            read(r#"{"type":5}"#).unwrap_err(),
            "invalid type: integer `5`, expected variant identifier at line 1 column 9"
        );
        assert_eq!(
            read(r#"{"type":"data","type":"url"}"#).unwrap_err(),
            "duplicate field `type` at line 1 column 21"
        );
        assert_eq!(
            read(r#""x""#).unwrap_err(),
            "invalid type: string \"x\", expected internally tagged enum PartSource at line 1 column 3"
        );
        assert_eq!(
            read(r#"{"type":"data","value":"x"}"#).unwrap_err(),
            "missing field `mimeType`"
        );
        assert_eq!(
            read(r#"{"type":"url","value":1}"#).unwrap_err(),
            "invalid type: integer `1`, expected a string"
        );
        assert_eq!(
            read(r#"{"type":"file","value":"f","provider":null}"#).unwrap_err(),
            "invalid type: null, expected a value other than null"
        );
    }

    /// `[type, members…]`, which serde's reading of a tagged enum takes as well.
    #[test]
    fn a_source_as_an_array() {
        assert_eq!(
            read(r#"["url","u"]"#).unwrap(),
            PartSource::Url {
                value: "u".into(),
                mime_type: None
            }
        );
        assert_eq!(
            read(r#"["data","x"]"#).unwrap_err(),
            "invalid length 1, expected struct variant PartSource::Data with 2 elements"
        );
        assert_eq!(
            read(r#"["file","f","p","m","extra"]"#).unwrap_err(),
            "invalid length 4, expected 3 elements in sequence"
        );
        assert_eq!(
            read("[]").unwrap_err(),
            "missing field `type` at line 1 column 2"
        );
    }

    #[test]
    fn errors_within_an_event_name_the_source() {
        let source = "messages[0].content[0].source";
        for (json, field, message) in [
            (
                r#"{"type":"data","value":"x"}"#,
                format!("{source}.mimeType"),
                "missing field `mimeType`",
            ),
            (
                r#"{"type":"url","value":1}"#,
                source.to_owned(),
                "invalid type: integer `1`, expected a string",
            ),
            (
                r#"{"value":"x"}"#,
                format!("{source}.type"),
                "missing field `type`",
            ),
            (
                r#"{"type":true,"value":"x"}"#,
                format!("{source}.type"),
                "invalid type: boolean `true`, expected variant identifier",
            ),
            (
                r#"7"#,
                source.to_owned(),
                "invalid type: integer `7`, expected internally tagged enum PartSource",
            ),
        ] {
            assert_eq!(in_event(json), (Some(field), message.to_owned()), "{json}");
        }
    }

    /// A source of an unknown type drops its part, with a record, as before.
    #[test]
    fn an_unknown_source_type_drops_its_part() {
        let json = r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"user","content":[{"type":"image","source":{"type":"blob","value":"x"}},{"type":"text","text":"t"}]}]}"#;
        let mut stripped = Vec::new();
        let event = crate::decode::strip::collecting(&mut stripped, || Event::from_json(json));
        let Event::MessagesSnapshot(snapshot) = event.unwrap() else {
            panic!("not a snapshot")
        };
        assert_eq!(
            serde_json::to_value(&snapshot.messages[0]).unwrap()["content"],
            serde_json::json!([{ "type": "text", "text": "t" }])
        );
        assert_eq!(
            stripped.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["dropped the content part of unknown type \"blob\" at /messages/0/content/0"]
        );
    }
}
