//! unit tests of the parent module

use super::*;
use crate::{ContentPart, Interrupt, MediaPart, PartSource, RunFinishedOutcome, TextMessageRole};

fn run(events: Vec<Event>) -> Vec<String> {
    run_with(Downgrade::new(), events).0
}

fn run_with(mut downgrade: Downgrade, events: Vec<Event>) -> (Vec<String>, Downgrade) {
    let mut frames = Vec::new();
    for event in events {
        downgrade.push(event, &mut frames);
    }
    let json = frames
        .iter()
        .map(|f| {
            let mut out = Vec::new();
            f.write_json(&mut out);
            String::from_utf8(out).unwrap()
        })
        .collect();
    (json, downgrade)
}

#[test]
fn what_the_old_schema_rejects_is_dropped_or_rewritten() {
    let interrupted = Event::from(crate::RunFinishedEvent::new("t", "r").with_outcome(
        RunFinishedOutcome::interrupt(vec![Interrupt::new("i1", "confirmation")]),
    ));
    let mut user = Message::user(
        "u1",
        Content::Parts(vec![
            ContentPart::text("look"),
            ContentPart::Image(MediaPart::new(PartSource::Url {
                value: "https://x/y.png".into(),
                mime_type: None,
            })),
            ContentPart::text("here"),
        ]),
    );
    *user.subagent_run_id_mut() = Some("sub-1".into());
    let out = run(vec![
        Event::run_started("t", "r"),
        Event::subagent_started("sub-1", "critic"),
        Event::step_started("think").with_subagent_run_id("sub-1"),
        Event::text_message_start("m1", TextMessageRole::Assistant).with_subagent_run_id("sub-1"),
        Event::text_message_content("m1", ""),
        Event::text_message_content("m1", "hi"),
        Event::text_message_end("m1"),
        Event::step_finished("think").with_subagent_run_id("sub-1"),
        Event::step_started("top"),
        Event::step_finished("top"),
        Event::reasoning_encrypted_value(
            crate::ReasoningEncryptedValueSubtype::Message,
            "m1",
            "opaque",
        ),
        Event::subagent_finished("sub-1"),
        Event::messages_snapshot(vec![user, Message::reasoning("r1", "thought")]),
        interrupted,
    ]);
    assert_eq!(
        out,
        [
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            // The attribution is kept: 0.0.42 strips it, 0.0.52 ignores it, 0.0.59 reads it.
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","subagentRunId":"sub-1"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
            r#"{"type":"STEP_STARTED","stepName":"top"}"#,
            r#"{"type":"STEP_FINISHED","stepName":"top"}"#,
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"role":"user","id":"u1","content":"look\nhere","subagentRunId":"sub-1"}]}"#,
            // The pause, as a message every client shows, then the outcome 0.0.59 reads.
            r#"{"type":"TEXT_MESSAGE_START","messageId":"r-interrupt","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"r-interrupt","delta":"Paused, waiting for your answer (confirmation): interrupt i1"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"r-interrupt"}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"confirmation"}]}}"#,
        ]
    );
}

/// 0.0.59 reads the outcome with `.strict()` schemas of `success` and `interrupt` alone.
#[test]
fn outcomes_are_kept_in_the_shapes_every_client_accepts() {
    let finished = |outcome: RunFinishedOutcome| {
        Event::from(crate::RunFinishedEvent::new("t", "r").with_outcome(outcome))
    };
    let out = run(vec![
        finished(RunFinishedOutcome::Success {
            pending_tool_call_ids: Some(vec!["c1".into()]),
        }),
        finished(RunFinishedOutcome::success()),
        finished(RunFinishedOutcome::Cancelled),
    ]);
    assert_eq!(
        out,
        [
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"}}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"}}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
        ]
    );
}

/// Text parts are read by every client; only media parts make a user message text.
#[test]
fn text_parts_stay_parts_and_resume_stays_in_the_echoed_input() {
    let parts = Content::Parts(vec![ContentPart::text("a"), ContentPart::text("b")]);
    let input = crate::RunAgentInput::new("t", "r")
        .with_messages(vec![
            Message::user("u1", parts),
            Message::reasoning("r1", "thought"),
        ])
        .with_resume(vec![crate::ResumeEntry::resolved("i1", Value::Bool(true))]);
    let mut started = crate::RunStartedEvent::new("t", "r");
    started.input = Some(Box::new(input));
    let out = run(vec![started.into()]);
    let event: Value = serde_json::from_str(&out[0]).unwrap();
    assert_eq!(
        event["input"]["messages"],
        serde_json::json!([{"role": "user", "id": "u1", "content": [
            {"type": "text", "text": "a"}, {"type": "text", "text": "b"}
        ]}])
    );
    assert_eq!(event["input"]["resume"][0]["interruptId"], "i1");
}

#[test]
fn reasoning_of_two_owners_is_serialized() {
    let a = |e: Event| e.with_subagent_run_id("a");
    let b = |e: Event| e.with_subagent_run_id("b");
    let out = run(vec![
        a(Event::reasoning_start("sa")),
        b(Event::reasoning_start("sb")),
        a(Event::reasoning_message_start("ma")),
        b(Event::reasoning_message_start("mb")),
        b(Event::reasoning_message_content("mb", "B")),
        a(Event::reasoning_message_content("ma", "A")),
        b(Event::reasoning_message_end("mb")),
        b(Event::reasoning_end("sb")),
        Event::custom("between", Value::Null),
        a(Event::reasoning_message_end("ma")),
        a(Event::reasoning_end("sa")),
    ]);
    let kinds: Vec<String> = out
        .iter()
        .map(|j| {
            let v: Value = serde_json::from_str(j).unwrap();
            match v.get("delta") {
                Some(d) => format!("{}:{}", v["type"].as_str().unwrap(), d.as_str().unwrap()),
                None => v["type"].as_str().unwrap().to_owned(),
            }
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "THINKING_START",
            "THINKING_TEXT_MESSAGE_START",
            "THINKING_TEXT_MESSAGE_CONTENT:A",
            "CUSTOM",
            "THINKING_TEXT_MESSAGE_END",
            "THINKING_END",
            // b's reasoning, held until a's ended
            "THINKING_START",
            "THINKING_TEXT_MESSAGE_START",
            "THINKING_TEXT_MESSAGE_CONTENT:B",
            "THINKING_TEXT_MESSAGE_END",
            "THINKING_END",
        ]
    );
}

#[test]
fn held_reasoning_is_bounded_and_the_rest_of_it_ignored() {
    let b = |e: Event| e.with_subagent_run_id("b");
    let mut events = vec![
        Event::reasoning_start("sa"),
        b(Event::reasoning_start("sb")),
        b(Event::reasoning_message_start("mb")),
    ];
    for _ in 0..10 {
        events.push(b(Event::reasoning_message_content("mb", "x")));
    }
    events.push(b(Event::reasoning_message_end("mb")));
    events.push(b(Event::reasoning_end("sb")));
    events.push(Event::reasoning_end("sa"));
    // b starts again after its dropped span closed: held again, and sent.
    events.push(b(Event::reasoning_message_chunk(
        Some("mc".into()),
        Some("again".into()),
    )));
    let (out, downgrade) = run_with(Downgrade::new().with_max_held(4), events);
    assert_eq!(downgrade.dropped(), 14);
    assert_eq!(
        out,
        [
            r#"{"type":"THINKING_START"}"#,
            r#"{"type":"THINKING_END"}"#,
            r#"{"type":"THINKING_START"}"#,
            r#"{"type":"THINKING_TEXT_MESSAGE_START"}"#,
            r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"again"}"#,
            r#"{"type":"THINKING_TEXT_MESSAGE_END"}"#,
            r#"{"type":"THINKING_END"}"#,
        ]
    );
}

#[test]
fn open_reasoning_is_closed_before_the_run_ends() {
    let out = run(vec![
        Event::reasoning_start("s"),
        Event::reasoning_message_start("m"),
        Event::reasoning_message_content("m", "x").with_timestamp(7),
        Event::run_error("boom"),
    ]);
    assert_eq!(
        out,
        [
            r#"{"type":"THINKING_START"}"#,
            r#"{"type":"THINKING_TEXT_MESSAGE_START"}"#,
            r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"x","timestamp":7}"#,
            r#"{"type":"THINKING_TEXT_MESSAGE_END"}"#,
            r#"{"type":"THINKING_END"}"#,
            r#"{"type":"RUN_ERROR","message":"boom"}"#,
        ]
    );
}

/// A deployment that serves 0.0.52 and later keeps reasoning as `REASONING_*`, byte for byte,
/// and reasoning messages in snapshots; every other rule still applies.
#[test]
fn naming_a_client_that_reads_reasoning_keeps_it_and_nothing_else() {
    let reasoning = [
        Event::reasoning_start("s1"),
        Event::reasoning_message_start("m1"),
        Event::reasoning_message_content("m1", "hmm"),
        Event::reasoning_message_end("m1"),
        Event::reasoning_message_chunk(Some("m2".into()), Some("chunked".into())),
        Event::reasoning_encrypted_value(
            crate::ReasoningEncryptedValueSubtype::Message,
            "m1",
            "opaque",
        ),
        Event::reasoning_end("s1"),
    ];
    let one_point_oh: Vec<String> = reasoning
        .iter()
        .map(|e| {
            let mut out = Vec::new();
            e.write_json(&mut out);
            String::from_utf8(out).unwrap()
        })
        .collect();
    for oldest in ["0.0.52", "0.0.57", "0.0.59"] {
        let version: ClientVersion = oldest.parse().unwrap();
        let mut events = vec![Event::run_started("t", "r")];
        events.extend(reasoning.iter().cloned());
        events.extend([
            Event::subagent_started("sub-1", "critic"),
            Event::text_message_start("t1", TextMessageRole::Assistant),
            Event::text_message_content("t1", ""),
            Event::text_message_end("t1"),
            Event::messages_snapshot(vec![Message::reasoning("r1", "thought")]),
            Event::from(crate::RunFinishedEvent::new("t", "r").with_outcome(
                RunFinishedOutcome::Success {
                    pending_tool_call_ids: Some(vec!["c1".into()]),
                },
            )),
        ]);
        let (out, _) = run_with(Downgrade::new().with_oldest_client(Some(version)), events);
        let mut expected = vec![r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_owned()];
        expected.extend(one_point_oh.iter().cloned());
        expected.extend([
            r#"{"type":"TEXT_MESSAGE_START","messageId":"t1","role":"assistant"}"#.to_owned(),
            r#"{"type":"TEXT_MESSAGE_END","messageId":"t1"}"#.to_owned(),
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"role":"reasoning","id":"r1","content":"thought"}]}"#.to_owned(),
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"}}"#.to_owned(),
        ]);
        assert_eq!(out, expected, "oldest client {oldest}");
    }
}

/// A client named that does not read `REASONING_*`, or none named, gets `THINKING_*`.
#[test]
fn naming_an_older_client_keeps_the_thinking_frames() {
    let events = || {
        vec![
            Event::reasoning_message_start("m1"),
            Event::reasoning_message_content("m1", "hmm"),
            Event::reasoning_message_end("m1"),
            Event::messages_snapshot(vec![Message::reasoning("r1", "thought")]),
        ]
    };
    let expected = [
        r#"{"type":"THINKING_START"}"#,
        r#"{"type":"THINKING_TEXT_MESSAGE_START"}"#,
        r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"hmm"}"#,
        r#"{"type":"THINKING_TEXT_MESSAGE_END"}"#,
        r#"{"type":"THINKING_END"}"#,
        r#"{"type":"MESSAGES_SNAPSHOT","messages":[]}"#,
    ];
    for oldest in [
        None,
        Some(ClientVersion::new(0, 0, 42)),
        Some(ClientVersion::new(0, 0, 51)),
    ] {
        let (out, _) = run_with(Downgrade::new().with_oldest_client(oldest), events());
        assert_eq!(out, expected, "oldest client {oldest:?}");
    }
}

/// Who gets the downgraded stream, by the endpoint's settings and the request's version.
#[test]
fn the_settings_decide_who_is_downgraded() {
    let v = |s: &str| Some(s.parse::<ClientVersion>().unwrap());
    let cases: [(DowngradeConfig, Option<&str>, bool); 9] = [
        (DowngradeConfig::default(), None, true),
        (DowngradeConfig::default(), Some("0.9"), true),
        (DowngradeConfig::default(), Some("1.0"), false),
        (DowngradeConfig::default().with_enabled(false), None, false),
        (
            DowngradeConfig::default().with_oldest_client(v("0.0.57")),
            None,
            true,
        ),
        (
            DowngradeConfig::default().with_oldest_client(v("0.0.57")),
            Some("1.0"),
            false,
        ),
        // Every client is 1.0: a request without a version left it out.
        (
            DowngradeConfig::default().with_oldest_client(v("1.0.0")),
            None,
            false,
        ),
        (
            DowngradeConfig::default().with_oldest_client(v("1.0.0")),
            Some("0.9"),
            false,
        ),
        (
            DowngradeConfig::default().with_oldest_client(v("0.0.42")),
            None,
            true,
        ),
    ];
    for (config, version, downgraded) in cases {
        assert_eq!(
            config.applies_to(version),
            downgraded,
            "{config:?} {version:?}"
        );
    }
    for (oldest, keeps) in [
        (None, false),
        (v("0.0.51"), false),
        (v("0.0.52"), true),
        (v("0.0.59"), true),
    ] {
        assert_eq!(
            DowngradeConfig::default()
                .with_oldest_client(oldest)
                .keeps_reasoning(),
            keeps,
            "{oldest:?}"
        );
    }
}
