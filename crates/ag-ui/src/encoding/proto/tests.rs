use prost::Message as _;
use serde_json::json;

use super::*;
use crate::{Message, TextMessageRole};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn framed(message: &[u8]) -> Vec<u8> {
    let mut out = (message.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(message);
    out
}

/// Every result of decoding `bytes` pushed whole and finished.
fn results(bytes: &[u8]) -> Vec<Result<Event, ProtoError>> {
    let mut d = EventDecoder::new();
    d.push(bytes);
    d.finish();
    d.collect()
}

#[test]
fn the_reference_bytes_of_step_started() {
    // From the schema README: {"type":"STEP_STARTED","stepName":"s"}.
    assert_eq!(
        encode(&Event::step_started("s")),
        hex("000000097a070a02080e120173")
    );
    assert_eq!(
        encode_message(&Event::step_started("s")),
        hex("7a070a02080e120173")
    );
}

#[test]
fn the_envelope_rules_of_the_reference_decoder() {
    // The cases check.mjs runs against @ag-ui/proto's decode.
    assert_eq!(
        decode_message(&hex("0a060a0012026d31")).unwrap(),
        crate::TextMessageStartEvent::new("m1").into()
    );
    let kind = |h: &str| decode_message(&hex(h)).unwrap_err().kind();
    assert_eq!(kind("0a0412026d31"), ProtoErrorKind::MissingBaseEvent);
    assert_eq!(kind("0a080a02080112026d31"), ProtoErrorKind::TypeMismatch);
    // check.mjs's own mismatch case is cut one length short, so its tail reads as a second
    // arm (field 13); the reference refuses it too.
    assert_eq!(kind("0a060a02080112026d31"), ProtoErrorKind::TwoArms);
    assert_eq!(
        kind("0a060a0012026d31120a0a02080112026d3112"),
        ProtoErrorKind::TwoArms
    );
    assert_eq!(kind(""), ProtoErrorKind::NoArm);
    assert_eq!(kind("820202080a"), ProtoErrorKind::UnknownEventType);
    // An unknown arm whose body is not a message is broken bytes, not a future event.
    assert_eq!(kind("820201ff"), ProtoErrorKind::NoArm);
    // Only a scalar unknown field: no arm.
    assert_eq!(kind("c00201"), ProtoErrorKind::NoArm);
    // Garbage.
    assert_eq!(kind("0a"), ProtoErrorKind::Malformed);
    assert_eq!(kind("0aff"), ProtoErrorKind::Malformed);
    assert_eq!(kind("07"), ProtoErrorKind::Malformed);
    // The same arm twice merges, as protobuf (and the reference) merge a repeated message.
    let merged = decode_message(&hex("0a060a0012026d310a0412026d32")).unwrap();
    assert_eq!(merged, crate::TextMessageStartEvent::new("m2").into());
    // An unknown field beside a known arm is ignored.
    let extra = decode_message(&hex("0a060a0012026d31820202080a")).unwrap();
    assert_eq!(extra, crate::TextMessageStartEvent::new("m1").into());
}

#[test]
fn errors_name_the_frame_the_type_and_the_field() {
    let mut bytes = encode(&Event::step_started("a"));
    bytes.extend(framed(&hex("0a0412026d31"))); // no base_event
    bytes.extend([0, 0, 0, 0]); // empty
    // TEXT_MESSAGE_START with role "robot".
    bytes.extend(framed(&hex("0a0d0a0012026d311a05726f626f74")));
    bytes.extend(encode(&Event::step_finished("b")));
    bytes.extend([0, 0, 0, 9, 0x7a]); // cut short
    let got = results(&bytes);
    assert_eq!(got.len(), 6);
    assert_eq!(got[0], Ok(Event::step_started("a")));
    let e = got[1].clone().unwrap_err();
    assert_eq!(
        (e.kind(), e.index(), e.event_type()),
        (
            ProtoErrorKind::MissingBaseEvent,
            Some(1),
            Some(EventType::TextMessageStart)
        )
    );
    let e = got[2].clone().unwrap_err();
    assert_eq!((e.kind(), e.index()), (ProtoErrorKind::EmptyFrame, Some(2)));
    let e = got[3].clone().unwrap_err();
    assert_eq!(
        (e.kind(), e.index(), e.event_type(), e.field()),
        (
            ProtoErrorKind::InvalidField,
            Some(3),
            Some(EventType::TextMessageStart),
            Some("role")
        )
    );
    assert!(
        e.to_string()
            .starts_with("frame #3: TEXT_MESSAGE_START: field `role`"),
        "{e}"
    );
    assert_eq!(got[4], Ok(Event::step_finished("b")));
    let e = got[5].clone().unwrap_err();
    assert_eq!((e.kind(), e.index()), (ProtoErrorKind::Truncated, Some(5)));
    // As a DecodeError.
    let d: DecodeError = got[3].clone().unwrap_err().into();
    assert_eq!(
        (d.kind(), d.index(), d.event_type()),
        (
            DecodeErrorKind::InvalidField,
            Some(3),
            Some("TEXT_MESSAGE_START")
        )
    );
    assert!(d.message().contains("`role`"));
}

#[test]
fn a_truncated_length_is_reported_at_the_end() {
    let mut d = FrameDecoder::new();
    d.push(&[0, 0]);
    assert_eq!(d.next_frame(), Ok(None));
    d.finish();
    let e = d.next_frame().unwrap_err();
    assert_eq!((e.kind(), e.index()), (ProtoErrorKind::Truncated, Some(0)));
    assert_eq!(d.next_frame(), Ok(None));
}

#[test]
fn frames_are_rebuilt_across_every_chunk_boundary() {
    let events = [
        Event::run_started("t", "r"),
        Event::text_message_start("m", TextMessageRole::Assistant),
        Event::text_message_content("m", "héllo ✓"),
        Event::state_snapshot(json!({"z": [1, 2.5, null], "a": {"b": true}})),
        Event::messages_snapshot(vec![
            Message::user("u", "hi"),
            Message::assistant("a", "yo"),
        ]),
        Event::run_finished("t", "r"),
    ];
    let mut bytes = Vec::new();
    for e in &events {
        encode_into(e, &mut bytes);
    }
    for chunk in 1..bytes.len() {
        let mut d = EventDecoder::new();
        let mut got = Vec::new();
        for piece in bytes.chunks(chunk) {
            d.push(piece);
            got.extend(d.by_ref().map(Result::unwrap));
        }
        d.finish();
        assert!(d.next().is_none());
        assert_eq!(got, events, "chunk {chunk}");
    }
}

#[test]
fn an_oversized_frame_is_refused_without_buffering_it_and_reading_goes_on() {
    let mut d = EventDecoder::new().with_max_frame_size(64);
    let mut bytes = encode(&Event::step_started("a"));
    let big = Event::text_message_content("m", "x".repeat(1 << 20));
    encode_into(&big, &mut bytes);
    encode_into(&Event::step_started("b"), &mut bytes);
    let mut got = Vec::new();
    for piece in bytes.chunks(1000) {
        d.push(piece);
        got.extend(d.by_ref());
        assert!(
            d.frames().buf.capacity() < 4096,
            "{}",
            d.frames().buf.capacity()
        );
    }
    d.finish();
    got.extend(d.by_ref());
    assert_eq!(got.len(), 3);
    assert_eq!(got[0], Ok(Event::step_started("a")));
    let e = got[1].clone().unwrap_err();
    assert_eq!((e.kind(), e.index()), (ProtoErrorKind::TooLarge, Some(1)));
    assert_eq!(got[2], Ok(Event::step_started("b")));
}

#[test]
fn the_limit_counts_the_length_as_the_reference_does() {
    // 4 + N == max is accepted; 4 + N == max + 1 is not.
    let frame = encode(&Event::step_started("s")); // 13 bytes in all
    let mut d = FrameDecoder::new().with_max_frame_size(13);
    d.push(&frame);
    assert!(d.next_frame().unwrap().is_some());
    let mut d = FrameDecoder::new().with_max_frame_size(12);
    d.push(&frame);
    assert_eq!(d.next_frame().unwrap_err().kind(), ProtoErrorKind::TooLarge);
    assert_eq!(DEFAULT_MAX_FRAME_SIZE, 10 * 1024 * 1024);
}

#[test]
fn object_members_keep_their_order() {
    let mut meta = crate::Metadata::new();
    meta.insert("zeta".into(), json!(1));
    meta.insert("alpha".into(), json!({"y": 2, "b": 3}));
    let event = Event::custom("n", json!({"z": 1, "a": 2})).with_metadata(meta);
    let back = decode_message(&encode_message(&event)).unwrap();
    assert_eq!(back, event);
    let keys: Vec<_> = back.metadata().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["zeta", "alpha"]);
}

#[test]
fn a_decoder_shares_repeated_ids() {
    let mut bytes = encode(&Event::text_message_content("m1", "a"));
    encode_into(&Event::text_message_content("m1", "b"), &mut bytes);
    let events = decode(&bytes).unwrap();
    let (Event::TextMessageContent(a), Event::TextMessageContent(b)) = (&events[0], &events[1])
    else {
        panic!("{events:?}")
    };
    assert_eq!(
        a.message_id.as_str().as_ptr(),
        b.message_id.as_str().as_ptr()
    );
}

/// The generated decoder's reading of one message, bypassing the direct reader.
fn generic(message: &[u8]) -> Event {
    let decoded = generated::Event::decode(message).unwrap();
    convert::from_arm(decoded.event.unwrap(), &mut convert::Ids::default()).unwrap()
}

#[test]
fn the_direct_reader_agrees_with_the_generated_decoder() {
    let events = [
        Event::text_message_start("m", TextMessageRole::User),
        crate::TextMessageStartEvent::new("m")
            .with_name("n")
            .with_subagent_run_id("s")
            .into(),
        Event::text_message_content("m", "d").with_timestamp(-5),
        Event::text_message_content("", "").with_subagent_run_id(""),
        Event::text_message_end("m").with_timestamp(1_700_000_000_000),
        crate::ToolCallStartEvent::new("c", "f")
            .with_parent_message_id("m")
            .with_subagent_run_id("s")
            .into(),
        Event::tool_call_args("c", "{\"a\":"),
        Event::tool_call_end("c").with_subagent_run_id("s"),
        Event::reasoning_message_content("r", "hmm").with_subagent_run_id("s"),
    ];
    for event in &events {
        let message = encode_message(event);
        let Ok(Envelope::Arm(arm, Some(body))) = scan(&message) else {
            panic!("{event:?}")
        };
        let mut ids = convert::Ids::default();
        let direct = direct::decode(arm, body, &mut ids).expect("taken by the direct reader");
        assert_eq!(&direct, event);
        assert_eq!(direct, generic(&message));
    }
    // What the direct reader leaves to the generated decoder.
    let left = |event: &Event| {
        let message = encode_message(event);
        let Ok(Envelope::Arm(arm, Some(body))) = scan(&message) else {
            panic!("{event:?}")
        };
        direct::decode(arm, body, &mut convert::Ids::default()).is_none()
    };
    assert!(left(
        &Event::text_message_content("m", "d").with_metadata(Default::default())
    ));
    assert!(left(
        &Event::text_message_content("m", "d").with_raw_event(json!(1))
    ));
    assert!(left(&Event::step_started("s")));
    // A bad role or a contradicting type is reported by the generated path.
    let bad_role = hex("0a0d0a0012026d311a05726f626f74");
    assert_eq!(decode_message(&bad_role).unwrap_err().field(), Some("role"));
    // TEXT_MESSAGE_CONTENT whose base says TEXT_MESSAGE_END.
    let e = decode_message(&hex("12070a020802120161")).unwrap_err();
    assert_eq!(e.kind(), ProtoErrorKind::TypeMismatch);
    // A timestamp beyond ±(2^53 - 1) is refused by the generated path too.
    let far = Event::text_message_content("m", "d").with_timestamp(1 << 60);
    let e = decode_message(&encode_message(&far)).unwrap_err();
    assert_eq!(e.field(), Some("timestamp"));
}
