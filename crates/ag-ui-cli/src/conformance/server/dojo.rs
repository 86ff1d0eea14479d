//! The Dojo checks (`--profile dojo`): each feature route of the AG-UI Dojo's
//! server-starter-all-features backend, relative to the URL, behaves as that reference
//! backend does: a valid, framed run that leaves a client holding the reference's messages
//! and state.

use ag_ui::client::{Pipeline, Reducer};
use ag_ui::encoding::SSE_MEDIA_TYPE;
use ag_ui::{EXCERPT_BYTES, Event, Message, excerpt};
use serde_json::{Value, json};

use super::super::{Runner, Verdict};
use super::probe::Streamed;
use super::stream::Seen;
use super::{Target, framing, input};

/// What a client holds after a route's run: the messages the run added, and the state; and
/// what the checks want of the events, counted as they went by (the events are not kept).
struct Held {
    messages: Vec<Value>,
    state: Value,
    /// How many `STATE_DELTA` events the run sent.
    state_deltas: usize,
    /// The value of the first `CUSTOM` `PredictState` event.
    predict_state: Option<Value>,
}

type Expect = fn(&Held) -> Result<(), String>;

/// What a check sends: the conversation the route's run starts from.
#[derive(Clone, Copy)]
enum Sent {
    /// One user message with this text.
    User(&'static str),
    /// A conversation whose last message is the result of a frontend tool call with this
    /// name.
    AfterTool(&'static str),
}

impl Sent {
    fn messages(self) -> Value {
        match self {
            Sent::User(text) => json!([{"id": "u1", "role": "user", "content": text}]),
            Sent::AfterTool(name) => json!([
                {"id": "u1", "role": "user", "content": "go"},
                {"id": "a1", "role": "assistant", "toolCalls": [
                    {"id": "c1", "type": "function", "function": {"name": name, "arguments": "{}"}}
                ]},
                {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "done"}
            ]),
        }
    }
}

/// One Dojo check: a feature route, what is sent to it, and what a client must hold after
/// its run.
struct DojoCheck {
    /// The check's name in the report (`dojo.…`).
    name: &'static str,
    /// The route, relative to the endpoint's URL.
    route: &'static str,
    /// What the check wants, as the report says it.
    about: &'static str,
    /// The conversation sent.
    sent: Sent,
    /// What the client must hold after the run.
    expect: Expect,
}

/// The Dojo checks, in the order they run: each route of the reference backend, and what its
/// run leaves a client holding.
const CHECKS: &[DojoCheck] = &[
    DojoCheck {
        name: "dojo.agentic_chat",
        route: "agentic_chat",
        about: "agentic_chat: a countdown text, 10 to 1 then ✓",
        sent: Sent::User("hi"),
        expect: |h| text_is(h, "counting down: 10  9  8  7  6  5  4  3  2  1  ✓"),
    },
    DojoCheck {
        name: "dojo.agentic_chat-frontend-tool",
        route: "agentic_chat",
        about: "agentic_chat \"tool\": a change_background call",
        sent: Sent::User("tool"),
        expect: |h| {
            let args = tool_call(h, "change_background")?;
            expect(
                args["background"]
                    .as_str()
                    .is_some_and(|b| b.starts_with("linear-gradient(")),
                "a background gradient",
                &args,
            )
        },
    },
    DojoCheck {
        name: "dojo.agentic_chat-backend-tool",
        route: "agentic_chat",
        about: "agentic_chat \"backend_tool\": lookup_weather and its result in a snapshot",
        sent: Sent::User("backend_tool"),
        expect: |h| {
            tool_call(h, "lookup_weather")?;
            tool_result(h, |c| c == "The weather in San Francisco is sunny.")
        },
    },
    DojoCheck {
        name: "dojo.agentic_chat-tool-result",
        route: "agentic_chat",
        about: "agentic_chat after a tool result: \"background changed ✓\"",
        sent: Sent::AfterTool("change_background"),
        expect: |h| text_is(h, "background changed ✓"),
    },
    DojoCheck {
        name: "dojo.backend_tool_rendering",
        route: "backend_tool_rendering",
        about: "backend_tool_rendering: get_weather and its result in a snapshot",
        sent: Sent::User("weather?"),
        expect: |h| {
            let args = tool_call(h, "get_weather")?;
            expect(args["city"] == "San Francisco", "city San Francisco", &args)?;
            tool_result(h, |c| {
                serde_json::from_str::<Value>(c).is_ok_and(|v| v["conditions"] == "sunny")
            })
        },
    },
    DojoCheck {
        name: "dojo.backend_tool_rendering-tool-result",
        route: "backend_tool_rendering",
        about: "backend_tool_rendering after a tool result: its text",
        sent: Sent::AfterTool("get_weather"),
        expect: |h| text_is(h, "Retrieved weather information!"),
    },
    DojoCheck {
        name: "dojo.human_in_the_loop",
        route: "human_in_the_loop",
        about: "human_in_the_loop: generate_task_steps with ten enabled steps",
        sent: Sent::User("plan"),
        expect: |h| {
            let args = tool_call(h, "generate_task_steps")?;
            let steps = args["steps"].as_array().cloned().unwrap_or_default();
            let good = steps.len() == 10
                && steps.iter().enumerate().all(|(i, s)| {
                    s["description"] == format!("Step {}", i + 1) && s["status"] == "enabled"
                });
            expect(good, "ten steps \"Step N\", enabled", &args)
        },
    },
    DojoCheck {
        name: "dojo.human_in_the_loop-tool-result",
        route: "human_in_the_loop",
        about: "human_in_the_loop after a tool result: its text",
        sent: Sent::AfterTool("generate_task_steps"),
        expect: |h| text_is(h, "Ok! I'm working on it."),
    },
    DojoCheck {
        name: "dojo.agentic_generative_ui",
        route: "agentic_generative_ui",
        about: "agentic_generative_ui: ten pending steps completed one by one in the state",
        sent: Sent::User("go"),
        expect: |h| {
            let deltas = h.state_deltas;
            let steps = h.state["steps"].as_array().cloned().unwrap_or_default();
            let done = steps.len() == 10 && steps.iter().all(|s| s["status"] == "completed");
            expect(
                done && deltas == 10,
                "ten STATE_DELTAs leaving ten completed steps",
                &json!({"deltas": deltas, "state": h.state}),
            )
        },
    },
    DojoCheck {
        name: "dojo.tool_based_generative_ui",
        route: "tool_based_generative_ui",
        about: "tool_based_generative_ui: a generate_haiku call in a snapshot",
        sent: Sent::User("a haiku"),
        expect: |h| {
            let args = tool_call(h, "generate_haiku")?;
            expect(
                args["japanese"][0] == "エーアイの" && args["english"][2] == "CopilotKit.",
                "the reference haiku",
                &args,
            )
        },
    },
    DojoCheck {
        name: "dojo.tool_based_generative_ui-thanks",
        route: "tool_based_generative_ui",
        about: "tool_based_generative_ui \"thanks\": \"Haiku created\"",
        sent: Sent::User("thanks"),
        expect: |h| text_is(h, "Haiku created"),
    },
    DojoCheck {
        name: "dojo.shared_state",
        route: "shared_state",
        about: "shared_state: the reference recipe as the state",
        sent: Sent::User("a recipe"),
        expect: |h| {
            let recipe = &h.state["recipe"];
            let good = recipe["skill_level"] == "Advanced"
                && recipe["ingredients"]
                    .as_array()
                    .is_some_and(|i| i.len() == 4)
                && recipe["instructions"]
                    .as_array()
                    .is_some_and(|i| i.len() == 3);
            expect(
                good,
                "the recipe (Advanced, 4 ingredients, 3 instructions)",
                &h.state,
            )
        },
    },
    DojoCheck {
        name: "dojo.predictive_state_updates",
        route: "predictive_state_updates",
        about: "predictive_state_updates: PredictState, the document streamed, confirm_changes",
        sent: Sent::User("write"),
        expect: |h| {
            let predict = h
                .predict_state
                .as_ref()
                .ok_or("no CUSTOM PredictState event")?;
            expect(
                predict[0]["state_key"] == "document"
                    && predict[0]["tool"] == "write_document_local",
                "PredictState for document/write_document_local",
                predict,
            )?;
            let args = tool_call(h, "write_document_local")?;
            let document = args["document"].as_str().unwrap_or("");
            expect(
                document.starts_with("Once upon a time, there was a dog named ")
                    && document.trim_end().ends_with("was a very good dog."),
                "the reference story",
                &args,
            )?;
            tool_call(h, "confirm_changes").map(drop)
        },
    },
    DojoCheck {
        name: "dojo.predictive_state_updates-tool-result",
        route: "predictive_state_updates",
        about: "predictive_state_updates after a tool result: \"Ok!\"",
        sent: Sent::AfterTool("confirm_changes"),
        expect: |h| text_is(h, "Ok!"),
    },
];

/// Runs the Dojo checks.
pub(crate) async fn checks(target: &Target, runner: &mut Runner) {
    runner.group(super::super::Group::Dojo);
    for check in CHECKS {
        let run = route_check(target, check.route, check.sent.messages(), check.expect);
        runner.check(check.name, check.about, run).await;
    }
}

/// One route's run, checked as a run, reduced as a client would, then held to `expect`.
async fn route_check(target: &Target, route: &str, messages: Value, expect: Expect) -> Verdict {
    let Some(url) = target.relative(route) else {
        return Verdict::Skip(format!("{route} is not on the endpoint's origin"));
    };
    let mut run = input("");
    run.value["messages"] = messages.clone();
    let body = serde_json::to_vec(&run.value).unwrap_or_default();
    let sent: Vec<Message> = match serde_json::from_value(messages) {
        Ok(sent) => sent,
        Err(e) => return Verdict::Fail(format!("the probe's own messages do not read: {e}")),
    };
    let known = sent.len();
    // The run is checked, counted and applied as it arrives; its body is not kept.
    let (mut state_deltas, mut predict_state) = (0, None);
    let mut observer = |seen: &Seen<'_>| match seen.event {
        Event::StateDelta(_) => state_deltas += 1,
        Event::Custom(c) if c.name == "PredictState" && predict_state.is_none() => {
            predict_state = Some(c.value.clone());
        }
        _ => {}
    };
    let mut pipeline = Pipeline::new(Reducer::new().with_messages(sent));
    let mut applied = Ok(());
    let mut tap = |bytes: &[u8]| {
        if applied.is_ok() {
            applied = pipeline.push_bytes(bytes, &mut ()).map(drop);
        }
    };
    let how = Streamed {
        keep: false,
        observer: Some(&mut observer),
        tap: Some(&mut tap),
    };
    let analysis = match target.post_streamed(&url, body, SSE_MEDIA_TYPE, how).await {
        Ok((_, Some(analysis))) => analysis,
        Ok((reply, None)) => return Verdict::Fail(format!("POST {url}: {}", reply.describe())),
        Err(e) => return Verdict::Fail(format!("POST {url}: {e}")),
    };
    if let Some(problem) = analysis.problem() {
        return Verdict::Fail(problem.to_owned());
    }
    if let Verdict::Fail(why) = framing(&analysis, &run.thread, &run.run) {
        return Verdict::Fail(why);
    }
    if let Err(e) = applied.and_then(|()| pipeline.finish(&mut ()).map(drop)) {
        return Verdict::Fail(format!(
            "a client cannot apply the run: {}",
            crate::failure::chain(&e)
        ));
    }
    let (messages, state) = pipeline.into_reducer().into_parts();
    let held = Held {
        messages: messages
            .iter()
            .skip(known)
            .filter_map(|m| serde_json::to_value(m).ok())
            .collect(),
        state,
        state_deltas,
        predict_state,
    };
    match expect(&held) {
        Ok(()) => Verdict::Pass,
        Err(why) => Verdict::Fail(why),
    }
}

fn expect(good: bool, what: &str, got: &Value) -> Result<(), String> {
    if good {
        Ok(())
    } else {
        Err(format!(
            "expected {what}; got {:?}",
            excerpt(&got.to_string(), EXCERPT_BYTES)
        ))
    }
}

/// The last new message is an assistant text equal to `text`.
fn text_is(held: &Held, text: &str) -> Result<(), String> {
    let last = held.messages.last().cloned().unwrap_or(Value::Null);
    expect(
        last["role"] == "assistant" && last["content"] == text,
        &format!("an assistant message {text:?}"),
        &last,
    )
}

/// The arguments (parsed) of the new tool call named `name`.
fn tool_call(held: &Held, name: &str) -> Result<Value, String> {
    let call = held
        .messages
        .iter()
        .filter_map(|m| m["toolCalls"].as_array())
        .flatten()
        .find(|c| c["function"]["name"] == name)
        .ok_or_else(|| {
            format!(
                "no tool call {name} among the new messages: {:?}",
                excerpt(
                    &Value::Array(held.messages.clone()).to_string(),
                    EXCERPT_BYTES
                )
            )
        })?;
    let arguments = call["function"]["arguments"].as_str().unwrap_or("");
    serde_json::from_str(arguments).map_err(|e| {
        format!(
            "the arguments of {name} are not JSON ({e}): {:?}",
            excerpt(arguments, EXCERPT_BYTES)
        )
    })
}

/// A new tool message whose content passes `check`.
fn tool_result(held: &Held, check: fn(&str) -> bool) -> Result<(), String> {
    let found = held
        .messages
        .iter()
        .any(|m| m["role"] == "tool" && m["content"].as_str().is_some_and(check));
    expect(
        found,
        "the tool's result",
        &Value::Array(held.messages.clone()),
    )
}
