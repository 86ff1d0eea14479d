//! The frontend's tools: offered for the run, a call to one ends the run with it pending, the
//! next run carries the client's answer; and the name clash rule.

use std::sync::Arc;

use ag_ui::{AssistantMessage, Content, Event, Message, RunAgentInput, Tool, ToolCall};
use ag_ui_rig::RigAgent;

use crate::script::{PROVIDERS, Part, Turn, run};
use crate::{Add, arguments, confirm, error, input, pending, results, starts, text};

/// The next run: the client's answer `yes` to the call `r-call-1` of the first.
fn answered() -> RunAgentInput {
    RunAgentInput::new("t", "r2")
        .with_tools(vec![confirm()])
        .with_messages(vec![
            Message::user("u1", "Hi"),
            Message::Assistant(
                AssistantMessage::new("a1").with_tool_calls(vec![ToolCall::new(
                    "r-call-1",
                    "confirm",
                    r#"{"question":"ok?"}"#,
                )]),
            ),
            Message::tool("t1", "r-call-1", "yes"),
        ])
}

#[tokio::test]
async fn a_frontend_tool_ends_the_run_and_the_next_run_continues() {
    for provider in PROVIDERS {
        let (mock, builder) = provider
            .serve(vec![
                provider.turn(&Turn(
                    vec![
                        Part::Text(&["Let me ask."]),
                        Part::Call("call_f", "confirm", &[r#"{"question":"#, r#""ok?"}"#]),
                    ],
                    (1, 1),
                )),
                provider.turn(&Turn(vec![Part::Text(&["Confirmed."])], (1, 1))),
            ])
            .await;
        let agent = Arc::new(RigAgent::new(builder.tool(Add).build()));
        let first = run(&agent, input().with_tools(vec![confirm()])).await;
        assert_eq!(
            starts(&first),
            [(
                "r-call-1".to_owned(),
                "confirm".to_owned(),
                Some("r-msg-1".to_owned())
            )],
            "{provider:?}"
        );
        assert_eq!(arguments(&first, "r-call-1"), r#"{"question":"ok?"}"#);
        assert_eq!(pending(&first), ["r-call-1"], "{provider:?}");
        assert!(results(&first).is_empty(), "the client answers it");
        {
            let requests = mock.requests.lock().unwrap();
            assert_eq!(
                requests.len(),
                1,
                "{provider:?}: the run stopped for the client"
            );
            assert_eq!(provider.tools(&requests[0].1), ["add", "confirm"]);
        }

        let second = run(&agent, answered()).await;
        assert_eq!(text(&second), "Confirmed.", "{provider:?}");
        let requests = mock.requests.lock().unwrap();
        assert_eq!(
            provider.results(&requests[1].1),
            [("r-call-1".to_owned(), "yes".to_owned())],
            "{provider:?}"
        );
    }
}

#[tokio::test]
async fn a_frontend_call_beside_an_agent_tool_call_runs_the_agent_tool_first() {
    for provider in PROVIDERS {
        let (mock, builder) = provider
            .serve(vec![provider.turn(&Turn(
                vec![
                    Part::Call("call_a", "add", &[r#"{"a":1,"b":2}"#]),
                    Part::Call("call_f", "confirm", &[r#"{"question":"3?"}"#]),
                ],
                (1, 1),
            ))])
            .await;
        let agent = Arc::new(RigAgent::new(builder.tool(Add).build()));
        let events = run(&agent, input().with_tools(vec![confirm()])).await;
        let names: Vec<_> = starts(&events).into_iter().map(|(_, n, _)| n).collect();
        assert_eq!(names, ["add", "confirm"], "{provider:?}");
        assert_eq!(
            results(&events),
            [("r-call-1".to_owned(), Content::Text("3.0".into()))]
        );
        assert_eq!(pending(&events), ["r-call-2"], "{provider:?}");
        assert_eq!(
            mock.requests.lock().unwrap().len(),
            1,
            "{provider:?}: not asked again"
        );
        // The agent tool's result comes before the run ends.
        let result_at = events
            .iter()
            .position(|e| matches!(e, Event::ToolCallResult(_)))
            .unwrap();
        assert!(result_at < events.len() - 1);
    }
}

#[tokio::test]
async fn a_frontend_tool_with_a_rig_tools_name_is_refused_before_the_model_is_asked() {
    for provider in PROVIDERS {
        let (mock, builder) = provider.serve(vec![]).await;
        let agent = Arc::new(RigAgent::new(builder.tool(Add).build()));
        let events = run(
            &agent,
            input().with_tools(vec![confirm(), Tool::new("add", "the client's add")]),
        )
        .await;
        let e = error(&events);
        assert_eq!(e.code.as_deref(), Some("tool_name_clash"));
        assert!(e.message.contains("`add`"), "{}", e.message);
        assert!(mock.requests.lock().unwrap().is_empty());
    }
}

#[tokio::test]
async fn an_agent_without_tools_of_its_own_offers_the_frontends() {
    for provider in PROVIDERS {
        let (mock, builder) = provider
            .serve(vec![
                provider.turn(&Turn(
                    vec![Part::Call("call_f", "confirm", &[r#"{"question":"ok?"}"#])],
                    (1, 1),
                )),
                provider.turn(&Turn(vec![Part::Text(&["Confirmed."])], (1, 1))),
            ])
            .await;
        let agent = Arc::new(RigAgent::new(builder.build()));
        let first = run(&agent, input().with_tools(vec![confirm()])).await;
        assert_eq!(pending(&first), ["r-call-1"], "{provider:?}");
        let second = run(&agent, answered()).await;
        assert_eq!(text(&second), "Confirmed.", "{provider:?}");
        let requests = mock.requests.lock().unwrap();
        assert_eq!(provider.tools(&requests[0].1), ["confirm"]);
        assert_eq!(provider.tools(&requests[1].1), ["confirm"]);
        assert_eq!(
            provider.results(&requests[1].1),
            [("r-call-1".to_owned(), "yes".to_owned())],
            "{provider:?}: the history's call and result, as the provider's own"
        );
    }
}

#[tokio::test]
async fn a_frontend_call_in_the_last_turn_the_limit_allows_ends_the_run_pending() {
    for provider in PROVIDERS {
        let (mock, builder) = provider
            .serve(vec![provider.turn(&Turn(
                vec![
                    Part::Call("call_a", "add", &[r#"{"a":1,"b":2}"#]),
                    Part::Call("call_f", "confirm", &[r#"{"question":"3?"}"#]),
                ],
                (1, 1),
            ))])
            .await;
        let agent = Arc::new(RigAgent::new(builder.tool(Add).build()).with_max_turns(1));
        let events = run(&agent, input().with_tools(vec![confirm()])).await;
        assert_eq!(pending(&events), ["r-call-2"], "{provider:?}");
        assert_eq!(mock.requests.lock().unwrap().len(), 1);
    }
}
