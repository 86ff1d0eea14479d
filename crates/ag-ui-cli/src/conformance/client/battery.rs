//! The battery of `conformance client`: every scenario, by family (text, tools, reasoning,
//! subagents, surrogates, state and JSON Patch, interrupts, failures, order, transport).

use serde_json::json;

use super::scenarios::{Frame, Scenario, ev, finished, patches, run, started, text, tool};

fn scenario(name: &'static str, tags: &'static [&'static str], frames: Vec<Frame>) -> Scenario {
    Scenario {
        name,
        tags,
        frames,
        resume: None,
    }
}

/// Every scenario, in listing order.
pub(crate) fn battery() -> Vec<Scenario> {
    let mut all = vec![
        // Text.
        scenario(
            "text-basic",
            &["text"],
            run(vec![text("m1", &["Hello", ", ", "world"])]),
        ),
        scenario(
            "text-two-messages",
            &["text"],
            run(vec![text("m1", &["one"]), text("m2", &["two"])]),
        ),
        scenario(
            "text-empty-deltas",
            &["text"],
            run(vec![text("m1", &["", "a", ""])]),
        ),
        scenario(
            "text-chunks",
            &["text", "chunks"],
            run(vec![vec![
                ev(
                    json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "assistant", "delta": "Hel"}),
                ),
                ev(json!({"type": "TEXT_MESSAGE_CHUNK", "delta": "lo"})),
            ]]),
        ),
        scenario(
            "text-chunks-new-id",
            &["text", "chunks", "lanes"],
            run(vec![vec![
                ev(json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "first"})),
                ev(json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m2", "delta": "second"})),
                ev(json!({"type": "TEXT_MESSAGE_CHUNK", "delta": " more"})),
            ]]),
        ),
        // Tools.
        scenario(
            "tool-call",
            &["tool"],
            run(vec![
                text("m1", &["Let me look."]),
                tool(
                    "tc1",
                    "get_weather",
                    Some("m1"),
                    &["{\"city\":", "\"Paris\"}"],
                ),
            ]),
        ),
        scenario(
            "tool-call-no-parent",
            &["tool"],
            run(vec![tool("tc1", "search", None, &["{}"])]),
        ),
        scenario(
            "tool-call-result",
            &["tool"],
            run(vec![
                text("m1", &["Checking."]),
                tool("tc1", "get_weather", Some("m1"), &["{\"city\":\"Oslo\"}"]),
                vec![ev(
                    json!({"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "tc1", "content": "sunny"}),
                )],
                text("m2", &["It is sunny."]),
            ]),
        ),
        scenario(
            "tool-calls-interleaved",
            &["tool", "lanes"],
            run(vec![
                text("m1", &["Two at once."]),
                vec![
                    ev(
                        json!({"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "one", "parentMessageId": "m1"}),
                    ),
                    ev(
                        json!({"type": "TOOL_CALL_START", "toolCallId": "b", "toolCallName": "two", "parentMessageId": "m1"}),
                    ),
                    ev(json!({"type": "TOOL_CALL_ARGS", "toolCallId": "b", "delta": "{\"y\":"})),
                    ev(json!({"type": "TOOL_CALL_ARGS", "toolCallId": "a", "delta": "{\"x\":1}"})),
                    ev(json!({"type": "TOOL_CALL_ARGS", "toolCallId": "b", "delta": "2}"})),
                    ev(json!({"type": "TOOL_CALL_END", "toolCallId": "a"})),
                    ev(json!({"type": "TOOL_CALL_END", "toolCallId": "b"})),
                ],
            ]),
        ),
        scenario(
            "tool-call-chunks",
            &["tool", "chunks"],
            run(vec![vec![
                ev(
                    json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "tc1", "toolCallName": "lookup", "delta": "{\"q\":"}),
                ),
                ev(json!({"type": "TOOL_CALL_CHUNK", "delta": "\"ag-ui\"}"})),
            ]]),
        ),
        // Reasoning.
        scenario(
            "reasoning",
            &["reasoning"],
            run(vec![
                vec![
                    ev(json!({"type": "REASONING_START", "messageId": "rs1"})),
                    ev(
                        json!({"type": "REASONING_MESSAGE_START", "messageId": "rm1", "role": "reasoning"}),
                    ),
                    ev(
                        json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "rm1", "delta": "Thinking"}),
                    ),
                    ev(
                        json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "rm1", "delta": " hard"}),
                    ),
                    ev(json!({"type": "REASONING_MESSAGE_END", "messageId": "rm1"})),
                    ev(json!({"type": "REASONING_END", "messageId": "rs1"})),
                ],
                text("m1", &["Answer."]),
            ]),
        ),
        scenario(
            "reasoning-chunks",
            &["reasoning", "chunks"],
            run(vec![
                vec![
                    ev(
                        json!({"type": "REASONING_MESSAGE_CHUNK", "messageId": "rm1", "delta": "step 1"}),
                    ),
                    ev(json!({"type": "REASONING_MESSAGE_CHUNK", "delta": ", step 2"})),
                ],
                text("m1", &["Done."]),
            ]),
        ),
        // Subagents.
        scenario(
            "subagents-concurrent",
            &["subagents", "lanes"],
            run(vec![vec![
                ev(
                    json!({"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "researcher"}),
                ),
                ev(json!({"type": "SUBAGENT_STARTED", "subagentRunId": "s2", "name": "writer"})),
                ev(
                    json!({"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant", "subagentRunId": "s1"}),
                ),
                ev(
                    json!({"type": "TEXT_MESSAGE_START", "messageId": "b1", "role": "assistant", "subagentRunId": "s2"}),
                ),
                ev(
                    json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "b1", "delta": "draft", "subagentRunId": "s2"}),
                ),
                ev(
                    json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "facts", "subagentRunId": "s1"}),
                ),
                ev(json!({"type": "TEXT_MESSAGE_END", "messageId": "a1", "subagentRunId": "s1"})),
                ev(json!({"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"})),
                ev(json!({"type": "TEXT_MESSAGE_END", "messageId": "b1", "subagentRunId": "s2"})),
                ev(json!({"type": "SUBAGENT_FINISHED", "subagentRunId": "s2"})),
            ]]),
        ),
        scenario(
            "subagent-chunks",
            &["subagents", "chunks", "lanes"],
            run(vec![vec![
                ev(json!({"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "helper"})),
                ev(json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "p1", "delta": "parent "})),
                ev(
                    json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "c1", "delta": "child ", "subagentRunId": "s1"}),
                ),
                ev(json!({"type": "TEXT_MESSAGE_CHUNK", "delta": "again", "subagentRunId": "s1"})),
                ev(json!({"type": "TEXT_MESSAGE_CHUNK", "delta": "too"})),
                ev(json!({"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"})),
            ]]),
        ),
        // Surrogate pairs split across deltas (U+1F600 as \ud83d + \ude00).
        scenario(
            "surrogates-text",
            &["text", "surrogates"],
            vec![
                started(),
                ev(json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"})),
                Frame::Raw(
                    "data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m1\",\"delta\":\"smile \\ud83d\"}\n\n",
                ),
                Frame::Raw(
                    "data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m1\",\"delta\":\"\\ude00!\"}\n\n",
                ),
                ev(json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"})),
                finished(),
            ],
        ),
        scenario(
            "surrogates-tool-args",
            &["tool", "surrogates"],
            vec![
                started(),
                ev(
                    json!({"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "emoji"}),
                ),
                Frame::Raw(
                    "data: {\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"tc1\",\"delta\":\"{\\\"e\\\":\\\"\\ud83d\"}\n\n",
                ),
                Frame::Raw(
                    "data: {\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"tc1\",\"delta\":\"\\ude00\\\"}\"}\n\n",
                ),
                ev(json!({"type": "TOOL_CALL_END", "toolCallId": "tc1"})),
                finished(),
            ],
        ),
        // State and JSON Patch.
        scenario(
            "state-snapshot",
            &["state"],
            patches(
                json!({"count": 1, "tags": ["a"], "nested": {"on": true}}),
                &[],
            ),
        ),
        scenario(
            "state-delta-add-replace-remove",
            &["state", "patch"],
            patches(
                json!({"a": 1, "b": 2}),
                &[json!([
                    {"op": "add", "path": "/c", "value": {"d": [1]}},
                    {"op": "replace", "path": "/a", "value": "one"},
                    {"op": "remove", "path": "/b"},
                ])],
            ),
        ),
        scenario(
            "patch-move-copy",
            &["state", "patch"],
            patches(
                json!({"from": {"x": 1}, "list": [1, 2]}),
                &[json!([
                    {"op": "copy", "from": "/from", "path": "/copied"},
                    {"op": "move", "from": "/from/x", "path": "/moved"},
                    {"op": "move", "from": "/list/0", "path": "/list/1"},
                ])],
            ),
        ),
        scenario(
            "patch-test-passes",
            &["state", "patch"],
            patches(
                json!({"version": 3, "obj": {"k": [1, {"z": null}]}}),
                &[json!([
                    {"op": "test", "path": "/version", "value": 3},
                    {"op": "test", "path": "/obj", "value": {"k": [1, {"z": null}]}},
                    {"op": "replace", "path": "/version", "value": 4},
                ])],
            ),
        ),
        scenario(
            "patch-array-end-and-index",
            &["state", "patch"],
            patches(
                json!({"items": ["a", "c"]}),
                &[
                    json!([{"op": "add", "path": "/items/-", "value": "d"}]),
                    json!([{"op": "add", "path": "/items/1", "value": "b"}]),
                    json!([{"op": "remove", "path": "/items/0"}]),
                ],
            ),
        ),
        scenario(
            "patch-escaped-pointers",
            &["state", "patch"],
            patches(
                json!({"a/b": 1, "m~n": 2, "": 3}),
                &[json!([
                    {"op": "replace", "path": "/a~1b", "value": 10},
                    {"op": "replace", "path": "/m~0n", "value": 20},
                    {"op": "replace", "path": "/", "value": 30},
                ])],
            ),
        ),
        scenario(
            "patch-null-values",
            &["state", "patch"],
            patches(
                json!({"a": 1, "list": [1]}),
                &[json!([
                    {"op": "replace", "path": "/a", "value": null},
                    {"op": "add", "path": "/b", "value": null},
                    {"op": "add", "path": "/list/0", "value": null},
                ])],
            ),
        ),
        scenario(
            "patch-whole-document",
            &["state", "patch"],
            patches(
                json!({"old": true}),
                &[json!([{"op": "replace", "path": "", "value": {"new": [1, 2]}}])],
            ),
        ),
        scenario(
            "state-snapshots-replace",
            &["state"],
            run(vec![vec![
                ev(json!({"type": "STATE_SNAPSHOT", "snapshot": {"a": 1, "b": 2}})),
                ev(json!({"type": "STATE_SNAPSHOT", "snapshot": {"c": 3}})),
            ]]),
        ),
        // Messages and activities.
        scenario(
            "messages-snapshot",
            &["messages"],
            run(vec![vec![ev(
                json!({"type": "MESSAGES_SNAPSHOT", "messages": [
                    {"id": "s1", "role": "assistant", "content": "from the snapshot"},
                    {"id": "s2", "role": "assistant", "toolCalls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
                    {"id": "s3", "role": "tool", "toolCallId": "c1", "content": "ok"},
                ]}),
            )]]),
        ),
        scenario(
            "activity",
            &["activity", "patch"],
            run(vec![vec![
                ev(
                    json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act1", "activityType": "PLAN", "content": {"steps": ["a"], "done": false}}),
                ),
                ev(
                    json!({"type": "ACTIVITY_DELTA", "messageId": "act1", "activityType": "PLAN", "patch": [
                        {"op": "add", "path": "/steps/-", "value": "b"},
                        {"op": "replace", "path": "/done", "value": true},
                    ]}),
                ),
            ]]),
        ),
        scenario(
            "steps-custom-raw",
            &["steps", "custom"],
            run(vec![
                vec![
                    ev(json!({"type": "STEP_STARTED", "stepName": "plan"})),
                    ev(json!({"type": "CUSTOM", "name": "progress", "value": {"pct": 50}})),
                    ev(json!({"type": "RAW", "event": {"provider": "x"}, "source": "model"})),
                ],
                text("m1", &["done"]),
                vec![ev(json!({"type": "STEP_FINISHED", "stepName": "plan"}))],
            ]),
        ),
        // Interrupts.
        scenario("interrupt", &["interrupt"], interrupted()),
    ];
    all.extend(more());
    all
}

/// A run that asks for approval: a text, then `RUN_FINISHED` with an interrupt outcome.
fn interrupted() -> Vec<Frame> {
    let mut frames = vec![started()];
    frames.extend(text("m1", &["May I send it?"]));
    frames.push(ev(json!({"type": "RUN_FINISHED", "threadId": "$thread", "runId": "$run", "outcome": {
        "type": "interrupt",
        "interrupts": [{"id": "approve-1", "reason": "confirmation", "message": "Send the email?"}],
    }})));
    frames
}

/// Interrupts resumed, failures, order violations, transport shapes.
fn more() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "interrupt-resume",
            tags: &["interrupt", "resume"],
            frames: interrupted(),
            resume: Some((
                json!([{"interruptId": "approve-1", "status": "resolved", "payload": {"approved": true}}]),
                run(vec![
                    text("m2", &["Sent."]),
                    vec![ev(
                        json!({"type": "STATE_SNAPSHOT", "snapshot": {"sent": true}}),
                    )],
                ]),
            )),
        },
        // Failures: a correct client fails these runs.
        scenario(
            "run-error",
            &["error"],
            vec![
                started(),
                ev(json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"})),
                ev(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "partial"})),
                ev(
                    json!({"type": "RUN_ERROR", "message": "the model is overloaded", "code": "overloaded"}),
                ),
            ],
        ),
        scenario(
            "cut-mid-run",
            &["cut", "strict"],
            vec![
                started(),
                ev(json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"})),
                ev(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "and then"})),
            ],
        ),
        scenario(
            "cut-before-finish",
            &["cut", "strict"],
            vec![
                started(),
                ev(json!({"type": "STATE_SNAPSHOT", "snapshot": {"a": 1}})),
            ],
        ),
        // Out of order: a correct client refuses these at the event.
        scenario(
            "order-content-before-run",
            &["order"],
            vec![
                ev(json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"})),
                started(),
                finished(),
            ],
        ),
        scenario(
            "order-content-before-start",
            &["order"],
            run(vec![vec![ev(
                json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "orphan"}),
            )]]),
        ),
        scenario("order-after-finish", &["order"], {
            let mut frames = run(vec![text("m1", &["done"])]);
            frames.extend(text("m2", &["late"]));
            frames
        }),
        scenario(
            "order-unclosed-at-finish",
            &["order"],
            run(vec![vec![ev(
                json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
            )]]),
        ),
        scenario(
            "order-tool-end-unopened",
            &["order", "tool"],
            run(vec![vec![ev(
                json!({"type": "TOOL_CALL_END", "toolCallId": "nope"}),
            )]]),
        ),
        scenario(
            "order-subagent-owner-mismatch",
            &["order", "subagents"],
            run(vec![vec![
                ev(json!({"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "a"})),
                ev(
                    json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant", "subagentRunId": "s1"}),
                ),
                ev(json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"})),
                ev(json!({"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"})),
            ]]),
        ),
        // Transport shapes.
        scenario(
            "sse-comments-and-framing",
            &["sse"],
            vec![
                Frame::Raw(": keep-alive\n\n"),
                started(),
                Frame::Raw(": still here\n\n"),
                Frame::Raw(
                    "data:{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m1\",\"role\":\"assistant\"}\n\n",
                ),
                Frame::Raw("data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\n"),
                Frame::Raw("data: \"messageId\":\"m1\",\"delta\":\"two lines\"}\n\n"),
                Frame::Raw(
                    "event: ignored\nid: 7\ndata: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m1\"}\n\n",
                ),
                finished(),
            ],
        ),
        scenario(
            "unknown-event-type",
            &["sse", "compat"],
            run(vec![
                vec![ev(json!({"type": "SOMETHING_NEW", "payload": 1}))],
                text("m1", &["still fine"]),
            ]),
        ),
        scenario(
            "protobuf-text",
            &["protobuf", "text"],
            run(vec![text("m1", &["binary ", "transport"])]),
        ),
        scenario(
            "protobuf-tools-state",
            &["protobuf", "tool", "state", "patch"],
            run(vec![
                vec![ev(json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}}))],
                text("m1", &["calling"]),
                tool("tc1", "f", Some("m1"), &["{\"a\":", "1}"]),
                vec![
                    ev(
                        json!({"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "tc1", "content": "ok"}),
                    ),
                    ev(
                        json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/n", "value": 2}]}),
                    ),
                ],
            ]),
        ),
        scenario(
            "protobuf-reasoning-subagent",
            &["protobuf", "reasoning", "subagents"],
            run(vec![vec![
                ev(json!({"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "thinker"})),
                ev(json!({"type": "REASONING_START", "messageId": "rs1", "subagentRunId": "s1"})),
                ev(
                    json!({"type": "REASONING_MESSAGE_START", "messageId": "rm1", "role": "reasoning", "subagentRunId": "s1"}),
                ),
                ev(
                    json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "rm1", "delta": "hmm", "subagentRunId": "s1"}),
                ),
                ev(
                    json!({"type": "REASONING_MESSAGE_END", "messageId": "rm1", "subagentRunId": "s1"}),
                ),
                ev(json!({"type": "REASONING_END", "messageId": "rs1", "subagentRunId": "s1"})),
                ev(json!({"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"})),
            ]]),
        ),
    ]
}
