//! The readers of the event structs' fields that call one of the wire model's reading
//! functions (`field: Type as Reader` in `event_struct!`, see `serde_util::fields`).

use serde::de::MapAccess;
use serde_json::Value;

use super::PatchOps;
use crate::serde_util::NonNull;
use crate::serde_util::fields::{Rest, put, record};
use crate::{Message, Metadata, RunFinishedOutcome, SubagentFinishedOutcome};

/// The members every event has, `timestamp`, `rawEvent` and `metadata`, read by one function
/// for all the events (each event's own reader compares only its own fields); any other member
/// is skipped and recorded ([`record`]).
#[derive(Default)]
pub(crate) struct Common {
    timestamp: Option<i64>,
    /// Lenient: `null` reads as absent.
    raw_event: Option<Option<Box<Value>>>,
    metadata: Option<Box<Metadata>>,
}

impl Rest for Common {
    type Fields = (Option<i64>, Option<Box<Value>>, Option<Box<Metadata>>);

    fn read<'de, A: MapAccess<'de>>(&mut self, map: &mut A, key: &str) -> Result<(), A::Error> {
        match key {
            "timestamp" => put::<_, Timestamp, _>(map, &mut self.timestamp, "timestamp"),
            "rawEvent" => put::<_, Option<Box<Value>>, _>(map, &mut self.raw_event, "rawEvent"),
            "metadata" => put::<_, NonNull<Box<Metadata>>, _>(map, &mut self.metadata, "metadata"),
            _ => record(map, key),
        }
    }

    fn finish(self) -> Self::Fields {
        (self.timestamp, self.raw_event.flatten(), self.metadata)
    }
}

reader! {
    /// `timestamp`: an integer within ±(2^53 − 1) (`serde_util::timestamp`).
    pub(crate) Timestamp(crate::serde_util::timestamp) -> i64
}
reader! {
    /// `STATE_DELTA.delta` (`json::delta_ops`).
    pub(crate) DeltaOps(crate::json::delta_ops) -> PatchOps
}
reader! {
    /// `ACTIVITY_DELTA.patch` (`json::activity_ops`).
    pub(crate) ActivityOps(crate::json::activity_ops) -> PatchOps
}
reader! {
    /// `MESSAGES_SNAPSHOT.messages`: messages of an unknown role dropped (`message::messages`).
    pub(crate) Messages(crate::message::messages) -> Vec<Message>
}
reader! {
    /// `RUN_FINISHED.outcome`: an unknown outcome dropped (`outcome::run_outcome`).
    pub(crate) RunOutcome(crate::outcome::run_outcome) -> Option<RunFinishedOutcome>
}
reader! {
    /// `SUBAGENT_FINISHED.outcome` (`outcome::subagent_outcome`).
    pub(crate) SubagentOutcome(crate::outcome::subagent_outcome) -> Option<SubagentFinishedOutcome>
}

#[cfg(test)]
mod tests {
    use crate::event::*;

    fn read<T: for<'de> serde::Deserialize<'de>>(json: &str) -> Result<T, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    /// The errors are worded as serde's derived reading words them.
    #[test]
    fn errors_are_worded_as_serdes() {
        assert_eq!(
            read::<TextMessageContentEvent>(r#"{"messageId":"m"}"#).unwrap_err(),
            "missing field `delta` at line 1 column 17"
        );
        assert_eq!(
            read::<TextMessageContentEvent>(r#"{"messageId":"m","delta":"a","delta":"b"}"#)
                .unwrap_err(),
            "duplicate field `delta` at line 1 column 36"
        );
        assert_eq!(
            read::<TextMessageStartEvent>(r#"{"messageId":"m","name":null}"#).unwrap_err(),
            "invalid type: null, expected a value other than null at line 1 column 29"
        );
        assert_eq!(
            // serde's derive also read a struct from an array of its fields in order; an
            // event is an object.
            read::<TextMessageStartEvent>(r#"["m"]"#).unwrap_err(),
            "invalid type: sequence, expected struct TextMessageStartEvent at line 1 column 0"
        );
        assert_eq!(
            read::<RunStartedEvent>(r#"{"threadId":"t","runId":1}"#).unwrap_err(),
            "invalid type: integer `1`, expected a string at line 1 column 25"
        );
    }

    #[test]
    fn lenient_fields_read_null_as_absent_and_unknown_members_are_skipped() {
        let e: ToolCallStartEvent = read(
            r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":null,"rawEvent":null,"future":[1,{"a":2}],"timestamp":1e3}"#,
        )
        .unwrap();
        assert_eq!(e.parent_message_id, None);
        assert_eq!(e.raw_event, None);
        assert_eq!(e.timestamp, Some(1000));
        assert_eq!(e.tool_call_id.as_str(), "c");
    }
}
