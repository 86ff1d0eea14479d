//! What ends a run otherwise: a provider error, nothing to answer, the client leaving, the
//! turn limit; and a call to a tool the run does not have.

use std::sync::Arc;

use ag_ui::server::Runner;
use ag_ui::server::bridge::{self, LoopConfig};
use ag_ui::{Content, Event, EventType, RunAgentInput};
use ag_ui_rig::RigAgent;
use futures::StreamExt;

use crate::script::{PROVIDERS, Part, Turn, run};
use crate::{Add, error, input, results, starts, text};

#[tokio::test]
async fn a_provider_error_is_run_error_with_its_message() {
    for provider in PROVIDERS {
        let (_, builder) = provider
            .serve(vec![provider.error(429, "slow down, please")])
            .await;
        let agent = Arc::new(RigAgent::new(builder.build()));
        let events = run(&agent, input()).await;
        let e = error(&events);
        assert_eq!(
            e.code.as_deref(),
            Some("rig_provider_error"),
            "{provider:?}"
        );
        assert!(
            e.message.contains("slow down, please"),
            "{provider:?}: {}",
            e.message
        );
    }
}

#[tokio::test]
async fn a_run_without_messages_is_a_clear_error() {
    for provider in PROVIDERS {
        let (mock, builder) = provider.serve(vec![]).await;
        let agent = Arc::new(RigAgent::new(builder.build()));
        let events = run(&agent, RunAgentInput::new("t", "r")).await;
        assert_eq!(error(&events).code.as_deref(), Some("rig_no_messages"));
        assert!(mock.requests.lock().unwrap().is_empty());
    }
}

#[tokio::test]
async fn cancelling_the_run_drops_the_provider_request() {
    for provider in PROVIDERS {
        let (dropped_tx, dropped_rx) = tokio::sync::oneshot::channel();
        let (_, builder) = provider.serve(vec![provider.hang("Hi", dropped_tx)]).await;
        let agent = RigAgent::new(builder.build());
        let events = Runner::new(agent).run(input()).unwrap();
        let seen = crate::openai_mock::cancel_at_first_content(events, dropped_rx).await;
        assert!(
            matches!(seen.last(), Some(Event::RunFinished(_))),
            "{provider:?}: {seen:?}"
        );
    }
}

/// A turn that calls `add` again.
fn again() -> Turn {
    Turn(
        vec![Part::Call("call_a", "add", &[r#"{"a":1,"b":1}"#])],
        (1, 1),
    )
}

#[tokio::test]
async fn the_turn_limit_ends_the_run_with_the_bridge_cores_code() {
    for provider in PROVIDERS {
        let (mock, builder) = provider
            .serve(vec![
                provider.turn(&again()),
                provider.turn(&again()),
                provider.turn(&again()),
            ])
            .await;
        let agent = Arc::new(RigAgent::new(builder.tool(Add).build()).with_max_turns(2));
        let events = run(&agent, input()).await;
        assert_eq!(
            error(&events).code.as_deref(),
            Some(bridge::MAX_TURNS_CODE),
            "{provider:?}"
        );
        assert_eq!(mock.requests.lock().unwrap().len(), 2, "{provider:?}");
    }
}

#[tokio::test]
async fn a_turn_limit_of_zero_set_on_the_field_still_asks_the_model_once() {
    for provider in PROVIDERS {
        let (mock, builder) = provider
            .serve(vec![provider.turn(&again()), provider.turn(&again())])
            .await;
        let mut config = LoopConfig::default();
        config.max_turns = 0;
        let agent = Arc::new(RigAgent::new(builder.tool(Add).build()).with_loop_config(config));
        let events = run(&agent, input()).await;
        assert_eq!(error(&events).code.as_deref(), Some(bridge::MAX_TURNS_CODE));
        assert_eq!(mock.requests.lock().unwrap().len(), 1, "{provider:?}");
    }
}

#[tokio::test]
async fn a_call_to_a_tool_the_run_does_not_have_is_answered_and_the_model_asked_again() {
    for provider in PROVIDERS {
        let (mock, builder) = provider
            .serve(vec![
                provider.turn(&Turn(
                    vec![Part::Call("call_x", "nope", &[r#"{"q":1}"#])],
                    (1, 1),
                )),
                provider.turn(&Turn(vec![Part::Text(&["Sorry."])], (1, 1))),
            ])
            .await;
        let agent = Arc::new(RigAgent::new(builder.tool(Add).build()));
        let events = run(&agent, input()).await;
        let said = bridge::unknown_tool_text("nope");
        assert_eq!(
            starts(&events),
            [("r-call-1".to_owned(), "nope".to_owned(), None)],
            "{provider:?}"
        );
        assert_eq!(
            results(&events),
            [("r-call-1".to_owned(), Content::Text(said.clone()))]
        );
        assert_eq!(text(&events), "Sorry.");
        assert_eq!(
            events.last().map(Event::event_type),
            Some(EventType::RunFinished)
        );
        let requests = mock.requests.lock().unwrap();
        assert_eq!(
            provider.results(&requests[1].1),
            [("call_x".to_owned(), said)],
            "{provider:?}"
        );
    }
}

#[tokio::test]
async fn a_disconnected_consumer_ends_the_run_quietly() {
    for provider in PROVIDERS {
        let (dropped_tx, dropped_rx) = tokio::sync::oneshot::channel();
        let (_, builder) = provider.serve(vec![provider.hang("Hi", dropped_tx)]).await;
        let agent = RigAgent::new(builder.build());
        let mut events = Runner::new(agent).run(input()).unwrap();
        // Read up to the first text, then drop the stream: the consumer went away.
        while let Some(event) = events.next().await {
            if event.event_type() == EventType::TextMessageContent {
                break;
            }
        }
        drop(events);
        tokio::time::timeout(std::time::Duration::from_secs(5), dropped_rx)
            .await
            .expect("the provider's response was dropped")
            .unwrap();
    }
}

#[tokio::test]
async fn arguments_that_are_not_a_json_object_are_answered_as_the_bridge_core_words_it() {
    for provider in PROVIDERS {
        let (mock, builder) = provider
            .serve(vec![
                provider.turn(&Turn(
                    vec![Part::Call("call_a", "add", &["[1, 2]"])],
                    (1, 1),
                )),
                provider.turn(&Turn(vec![Part::Text(&["Oops."])], (1, 1))),
            ])
            .await;
        let agent = Arc::new(RigAgent::new(builder.tool(Add).build()));
        let events = run(&agent, input()).await;
        let said = match &results(&events)[..] {
            [(call, Content::Text(said))] if call == "r-call-1" => said.clone(),
            other => panic!("{provider:?}: {other:?}"),
        };
        assert!(
            said.starts_with(&bridge::tool_error_text(&bridge::invalid_arguments(
                "add", ""
            ))),
            "{provider:?}: {said}"
        );
        assert_eq!(text(&events), "Oops.");
        let requests = mock.requests.lock().unwrap();
        assert_eq!(
            provider.results(&requests[1].1),
            [("call_a".to_owned(), said)],
            "{provider:?}"
        );
    }
}
