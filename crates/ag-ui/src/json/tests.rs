use super::write::write_str;
use super::*;

#[test]
fn strings_escape_like_serde_json() {
    let mut all = String::new();
    for c in (0u32..0x80).chain([0xe9, 0x2028, 0x1f389]) {
        all.push(char::from_u32(c).unwrap());
    }
    let samples = [
        "",
        "plain",
        "exactly8",
        "sixteen bytes ok",
        "quote\" at 6",
        "a longer string with a \\ backslash after eight",
        all.as_str(),
    ];
    for s in samples {
        let mut ours = Vec::new();
        write_str(&mut ours, s);
        assert_eq!(
            String::from_utf8(ours).unwrap(),
            serde_json::to_string(s).unwrap()
        );
    }
    for b in 0u8..=255 {
        let w = u64::from_le_bytes([b'a', b'b', b'c', b, b'd', b'e', b'f', b'g']);
        assert_eq!(word_needs_escape(w), byte_needs_escape(b), "{b}");
    }
}

mod reader {
    use super::super::{IdCache, read_event};
    use crate::{Event, EventType};
    use proptest::prelude::*;

    const TYPES: &[&str] = &[
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TEXT_MESSAGE_CHUNK",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "STEP_STARTED",
    ];
    const KEYS: &[&str] = &[
        "messageId",
        "delta",
        "role",
        "name",
        "subagentRunId",
        "timestamp",
        "toolCallId",
        "toolCallName",
        "parentMessageId",
        "type",
        "extra",
        "rawEvent",
        "message\\u0049d",
    ];
    const VALUES: &[&str] = &[
        "\"m1\"",
        "\"\"",
        "\"héllo ✓\"",
        "\"a\\\"b\"",
        "\"tab\there\"",
        "\"assistant\"",
        "\"user\"",
        "\"reasoning\"",
        "\"tool\"",
        "0",
        "-0",
        "17",
        "-42",
        "007",
        "1.5",
        "1e3",
        "9007199254740991",
        "9007199254740992",
        "-9007199254740991",
        "null",
        "true",
        "{}",
        "[]",
    ];

    fn member() -> impl Strategy<Value = String> {
        (prop::sample::select(KEYS), prop::sample::select(VALUES))
            .prop_map(|(k, v)| format!(",\"{k}\":{v}"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// Whatever the direct reader accepts, serde reads to the same event.
        #[test]
        fn the_direct_reader_agrees_with_serde(
            ty in prop::sample::select(TYPES),
            members in prop::collection::vec(member(), 0..5),
            tail in prop::sample::select(vec!["}", "} ", "", ",}", "}}"]),
        ) {
            let json = format!("{{\"type\":\"{ty}\"{}{tail}", members.concat());
            let ty: EventType = ty.parse().unwrap();
            let at = 9 + ty.as_str().len() + 1;
            let mut ids = IdCache::default();
            if let Some(fast) = read_event(&json, at, ty, &mut ids) {
                let mut de = serde_json::Deserializer::from_str(&json);
                let slow = Event::deserialize_as(ty, &mut de).and_then(|e| de.end().map(|()| e));
                prop_assert_eq!(Some(&fast), slow.as_ref().ok(), "{}", json);
                // Read again, now sharing the ids of the first reading: the same event.
                prop_assert_eq!(read_event(&json, at, ty, &mut ids), Some(fast), "{}", json);
            }
        }
    }

    #[test]
    fn the_direct_reader_takes_the_common_shapes() {
        for json in [
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","subagentRunId":"s","timestamp":-5}"#,
            r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"r","delta":"d","subagentRunId":"s"}"#,
            r#"{"type":"REASONING_MESSAGE_START","messageId":"m","role":"reasoning"}"#,
            r#"{"type":"TEXT_MESSAGE_CHUNK"}"#,
        ] {
            let ty: EventType = json[9..].split('"').next().unwrap().parse().unwrap();
            let fast = read_event(json, 9 + ty.as_str().len() + 1, ty, &mut IdCache::default());
            assert!(fast.is_some(), "{json}");
            assert_eq!(fast.unwrap().to_json(), json);
        }
        for json in [
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\nb"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","metadata":{}}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","extra":1}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m"}"#,
        ] {
            let ty = EventType::TextMessageContent;
            assert!(
                read_event(json, 9 + ty.as_str().len() + 1, ty, &mut IdCache::default()).is_none(),
                "{json}"
            );
        }
        // The tool call events are read by serde: the reader was no faster on them (the A/B in
        // the module doc).
        for (json, ty) in [
            (
                r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"n"}"#,
                EventType::ToolCallStart,
            ),
            (
                r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"x"}"#,
                EventType::ToolCallArgs,
            ),
        ] {
            let at = 9 + ty.as_str().len() + 1;
            assert!(
                read_event(json, at, ty, &mut IdCache::default()).is_none(),
                "{json}"
            );
            assert_eq!(Event::from_json(json).unwrap().to_json(), json);
        }
    }
}
