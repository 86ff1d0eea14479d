//! Reading messages: one by the struct its `role` names, and lists of them, dropping those of
//! an unknown role.

use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

use super::{Message, Role};
use crate::decode::strip::{self, StripKind};
use crate::serde_util::{BufferedError, from_buffered, lenient_vec, tag_of, unknown_tag};

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
    match tag_of(&item, "role", "Message")? {
        "developer" => from_buffered(item).map(Message::Developer),
        "system" => from_buffered(item).map(Message::System),
        "assistant" => from_buffered(item).map(Message::Assistant),
        "user" => from_buffered(item).map(Message::User),
        "tool" => from_buffered(item).map(Message::Tool),
        "activity" => from_buffered(item).map(Message::Activity),
        "reasoning" => from_buffered(item).map(Message::Reasoning),
        other => Err(unknown_tag(other, &Role::ALL)),
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        message_from(Value::deserialize(d)?).map_err(|e| de::Error::custom(e.within("")))
    }
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
