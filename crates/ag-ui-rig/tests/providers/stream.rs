//! What a run streams: text, reasoning, the agent's tool calls and their results, usage, and
//! the context and state the model is shown.

use std::sync::Arc;

use ag_ui::server::bridge;
use ag_ui::{Content, Context, Event, EventType as T};
use ag_ui_rig::RigAgent;
use serde_json::json;

use crate::script::{PROVIDERS, Part, Turn, run};
use crate::{Add, arguments, finished, input, results, starts, text, types};

#[tokio::test]
async fn text_and_reasoning_stream_with_usage() {
    for provider in PROVIDERS {
        let turn = Turn(
            vec![
                Part::Reasoning(&["Think", "ing."]),
                Part::Text(&["Hel", "lo"]),
            ],
            (7, 3),
        );
        let (mock, builder) = provider.serve(vec![provider.turn(&turn)]).await;
        let agent = Arc::new(RigAgent::new(builder.preamble("Be brief.").build()));
        let events = run(&agent, input()).await;
        assert_eq!(
            types(&events),
            vec![
                T::RunStarted,
                T::ReasoningStart,
                T::ReasoningMessageStart,
                T::ReasoningMessageContent,
                T::ReasoningMessageContent,
                T::ReasoningMessageEnd,
                T::ReasoningEnd,
                T::TextMessageStart,
                T::TextMessageContent,
                T::TextMessageContent,
                T::TextMessageEnd,
                T::RunFinished,
            ],
            "{provider:?}"
        );
        assert!(events.contains(&Event::text_message_content("r-msg-2", "lo")));
        let usage = &finished(&events).usage.as_ref().unwrap()[0];
        assert_eq!(
            (usage.input_tokens, usage.output_tokens),
            (Some(7), Some(3)),
            "{provider:?}"
        );
        assert_eq!(
            (usage.provider.as_deref(), usage.model.as_deref()),
            (Some("rig"), Some("unknown"))
        );
        let request = &mock.requests.lock().unwrap()[0].1;
        assert_eq!(provider.system(request), ["Be brief."], "{provider:?}");
        assert_eq!(provider.last_text(request), "Hi");
        assert_eq!(request["stream"], true);
    }
}

#[tokio::test]
async fn a_tool_call_streams_its_arguments_and_result_then_the_model_answers() {
    for provider in PROVIDERS {
        let (mock, builder) = provider
            .serve(vec![
                provider.turn(&Turn(
                    vec![
                        Part::Text(&["Adding."]),
                        Part::Call("call_a", "add", &["{\"a\":", "2,\"b\":", "3}"]),
                    ],
                    (10, 5),
                )),
                provider.turn(&Turn(vec![Part::Text(&["It is 5."])], (20, 4))),
            ])
            .await;
        let agent = Arc::new(RigAgent::new(builder.tool(Add).build()));
        let events = run(&agent, input()).await;
        let calls = starts(&events);
        assert_eq!(
            calls,
            [(
                "r-call-1".to_owned(),
                "add".to_owned(),
                Some("r-msg-1".to_owned())
            )],
            "{provider:?}"
        );
        assert_eq!(arguments(&events, "r-call-1"), r#"{"a":2,"b":3}"#);
        assert!(
            events
                .iter()
                .filter(|e| matches!(e, Event::ToolCallArgs(_)))
                .count()
                >= 2,
            "{provider:?}: the arguments stream"
        );
        assert_eq!(
            results(&events),
            [("r-call-1".to_owned(), Content::Text("5.0".into()))]
        );
        assert_eq!(text(&events), "Adding.It is 5.");
        let usage = &finished(&events).usage.as_ref().unwrap()[0];
        assert_eq!(
            (usage.input_tokens, usage.output_tokens),
            (Some(30), Some(9)),
            "{provider:?}: summed over both requests"
        );
        // The second request carries the call and its result, under the provider's id.
        let requests = mock.requests.lock().unwrap();
        assert_eq!(
            provider.results(&requests[1].1),
            [("call_a".to_owned(), "5.0".to_owned())],
            "{provider:?}"
        );
    }
}

#[tokio::test]
async fn two_tools_in_one_turn() {
    for provider in PROVIDERS {
        let (_, builder) = provider
            .serve(vec![
                provider.turn(&Turn(
                    vec![
                        Part::Call("call_a", "add", &[r#"{"a":1,"b":2}"#]),
                        Part::Call("call_b", "add", &[r#"{"a":3,"b":4}"#]),
                    ],
                    (1, 1),
                )),
                provider.turn(&Turn(vec![Part::Text(&["3 and 7."])], (1, 1))),
            ])
            .await;
        let agent = Arc::new(RigAgent::new(builder.tool(Add).build()));
        let events = run(&agent, input()).await;
        assert_eq!(
            results(&events),
            [
                ("r-call-1".to_owned(), Content::Text("3.0".into())),
                ("r-call-2".to_owned(), Content::Text("7.0".into())),
            ],
            "{provider:?}"
        );
        assert_eq!(text(&events), "3 and 7.");
    }
}

#[tokio::test]
async fn the_model_is_shown_the_context_and_state_as_the_bridge_core_writes_them() {
    for provider in PROVIDERS {
        let (mock, builder) = provider
            .serve(vec![
                provider.turn(&Turn(vec![Part::Text(&["Noted."])], (1, 1))),
            ])
            .await;
        let agent = Arc::new(RigAgent::new(builder.preamble("Be brief.").build()));
        let context = vec![Context::new("city", "Oslo")];
        let state = json!({"todos": ["milk"]});
        let run_input = input()
            .with_context(context.clone())
            .with_state(state.clone());
        let events = run(&agent, run_input).await;
        finished(&events);
        let expected = bridge::context_text(&context, Some(&state)).unwrap();
        let request = &mock.requests.lock().unwrap()[0].1;
        assert_eq!(
            provider.system(request),
            ["Be brief.".to_owned(), expected],
            "{provider:?}"
        );
    }
}
