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

/// A stream decoder's id cache shares ids equal to the last of their kind, and only those.
#[test]
fn equal_ids_are_shared_by_kind() {
    use crate::{Event, ToolCallStartEvent};

    let mut ids = IdCache::default();
    let mut read = |json: &str| {
        let mut event = Event::from_json(json).unwrap();
        ids.share(&mut event);
        event
    };
    let start: Event = read(
        r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"t","parentMessageId":"m","subagentRunId":"s"}"#,
    );
    let args =
        read(r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{}","subagentRunId":"s"}"#);
    let text = read(r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}"#);
    let other = read(r#"{"type":"TOOL_CALL_END","toolCallId":"d"}"#);
    let (Event::ToolCallStart(start), Event::ToolCallArgs(args)) = (&start, &args) else {
        panic!("{start:?} {args:?}");
    };
    let ToolCallStartEvent {
        tool_call_id,
        parent_message_id,
        subagent_run_id,
        ..
    } = start;
    let same = |a: &str, b: &str| std::ptr::eq(a.as_ptr(), b.as_ptr());
    assert!(same(tool_call_id.as_str(), args.tool_call_id.as_str()));
    assert!(same(
        subagent_run_id.as_ref().unwrap().as_str(),
        args.subagent_run_id.as_ref().unwrap().as_str()
    ));
    let Event::TextMessageContent(text) = &text else {
        panic!("{text:?}")
    };
    assert!(same(
        parent_message_id.as_ref().unwrap().as_str(),
        text.message_id.as_str()
    ));
    let Event::ToolCallEnd(other) = &other else {
        panic!("{other:?}")
    };
    assert_eq!(other.tool_call_id.as_str(), "d");
}
