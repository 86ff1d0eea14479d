//! End-to-end: `HttpAgent` and `Conversation` against a Node server that streams with the
//! official @ag-ui/encoder 1.0.0 (`interop/client/server.mjs`), over a real socket on 127.0.0.1.
#![cfg(feature = "http")]

use std::io::{BufRead, BufReader, Lines};
use std::process::{Child, ChildStdout, Stdio};
use std::time::Duration;

use ag_ui::client::{
    CancelToken, Conversation, Flow, HttpAgent, RunEnd, RunErrorKind, RunOutcome, Subscriber,
    TransportErrorKind,
};
use ag_ui::{Event, ResumeEntry, Tool};
use serde_json::json;

struct Server {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
    base: String,
}

impl Server {
    fn start() -> Self {
        let mut child = crate::support::node::command("client/server.mjs")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("cannot start `node` (needed for the end-to-end client tests)");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        let port = first
            .strip_prefix("port ")
            .expect("the server prints its port");
        Self {
            child,
            lines,
            base: format!("http://127.0.0.1:{port}"),
        }
    }

    fn agent(&self, path: &str) -> HttpAgent {
        HttpAgent::new(format!("{}{path}", self.base)).with_timeout(Duration::from_secs(20))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn conversation_across_runs() {
    let server = Server::start();
    let agent = server.agent("/chat");
    let mut conversation = Conversation::new("thread-e2e");
    conversation.add_user_message("first");
    let summary = conversation.run(&agent, &mut ()).await.unwrap();
    assert_eq!(summary.end, RunEnd::Finished);
    assert_eq!(summary.new_messages.len(), 1);
    assert!(matches!(summary.outcome, Some(RunOutcome::Success { .. })));
    conversation.add_user_message("second");
    conversation.run(&agent, &mut ()).await.unwrap();
    let texts: Vec<_> = conversation
        .messages()
        .iter()
        .map(|m| m.text().unwrap())
        .collect();
    assert_eq!(texts, ["first", "echo: first", "second", "echo: second"]);
    assert_eq!(conversation.state(), &json!({"turns": 2}));
}

#[tokio::test]
async fn interrupt_then_resume() {
    let server = Server::start();
    let agent = server.agent("/interrupt");
    let mut conversation = Conversation::new("thread-int");
    conversation.add_user_message("send it");
    let summary = conversation.run(&agent, &mut ()).await.unwrap();
    assert!(matches!(
        summary.outcome,
        Some(RunOutcome::Interrupt { .. })
    ));
    assert_eq!(
        conversation.pending_interrupts()[0].id.as_str(),
        "approve-1"
    );
    // Not answered: refused before anything is sent.
    let err = conversation.run(&agent, &mut ()).await.unwrap_err();
    assert_eq!(err.kind(), RunErrorKind::UnansweredInterrupt);
    let summary = conversation
        .run_with(
            &agent,
            Some(vec![ResumeEntry::resolved(
                "approve-1",
                json!({"ok": true}),
            )]),
            &CancelToken::new(),
            &mut (),
        )
        .await
        .unwrap();
    let Some(RunOutcome::Success { result, .. }) = summary.outcome else {
        panic!("{:?}", summary.outcome)
    };
    assert_eq!(result, Some(json!({"sent": true})));
    assert!(conversation.pending_interrupts().is_empty());
    assert_eq!(
        conversation.messages().last().unwrap().text(),
        Some(r#"resumed: resolved {"ok":true}"#)
    );
}

#[tokio::test]
async fn frontend_tool_round_trip() {
    let server = Server::start();
    let agent = server.agent("/tool");
    let mut conversation = Conversation::new("thread-tool");
    conversation.register_tool(Tool::new("get_weather", "The weather in a city"), |args| {
        Ok(format!("sunny in {}", args["city"].as_str().unwrap_or("?")))
    });
    conversation.add_user_message("weather?");
    conversation.run(&agent, &mut ()).await.unwrap();
    assert_eq!(
        conversation.messages()[1].text(),
        Some("tools offered: get_weather")
    );
    assert_eq!(conversation.pending_tool_calls().len(), 1);
    assert_eq!(conversation.run_tools(), 1);
    assert!(conversation.pending_tool_calls().is_empty());
    conversation.run(&agent, &mut ()).await.unwrap();
    assert_eq!(
        conversation.messages().last().unwrap().text(),
        Some("The weather: sunny in Paris")
    );
}

/// Cancels the run once enough text arrived.
struct CancelAfter {
    handle: CancelToken,
    deltas: usize,
}

impl Subscriber for CancelAfter {
    fn on_event(&mut self, event: &Event, _: &ag_ui::client::Reducer) -> Flow {
        if let Event::TextMessageContent(_) = event {
            self.deltas += 1;
            if self.deltas == 5 {
                self.handle.cancel();
            }
        }
        Flow::Continue
    }
}

#[tokio::test]
async fn abort_mid_stream() {
    let mut server = Server::start();
    let agent = server.agent("/slow");
    let mut conversation = Conversation::new("thread-slow");
    conversation.add_user_message("talk forever");
    let handle = CancelToken::new();
    let mut subscriber = CancelAfter {
        handle: handle.clone(),
        deltas: 0,
    };
    let summary = conversation
        .run_with(&agent, None, &handle, &mut subscriber)
        .await
        .unwrap();
    assert_eq!(summary.end, RunEnd::Cancelled);
    let text = conversation.messages()[1].text().unwrap().to_owned();
    assert!(text.starts_with("0 1 2 3 4 "), "{text}");
    // The server saw the request go away.
    let line = tokio::task::spawn_blocking(move || server.lines.next().unwrap().unwrap())
        .await
        .unwrap();
    assert_eq!(line, "aborted /slow");
}

#[tokio::test]
async fn http_errors_headers_and_compat() {
    let server = Server::start();
    let mut conversation = Conversation::new("thread-misc");
    let err = conversation
        .run(&server.agent("/error"), &mut ())
        .await
        .unwrap_err();
    let Some(transport) = err.transport() else {
        panic!("{err}")
    };
    assert_eq!(transport.kind(), TransportErrorKind::Http);
    let (Some(status), Some(body)) = (transport.status(), transport.body()) else {
        panic!("{err}")
    };
    assert_eq!(status, 401);
    assert_eq!(body, r#"{"error":"no token"}"#);
    assert_eq!(err.to_string(), "HTTP 401: no token");

    let agent = server
        .agent("/auth")
        .with_bearer_token("secret")
        .with_header("x-test", "yes");
    conversation.run(&agent, &mut ()).await.unwrap();
    assert_eq!(
        conversation.messages().last().unwrap().text(),
        Some("Bearer secret yes text/event-stream")
    );

    conversation
        .run(&server.agent("/chunks"), &mut ())
        .await
        .unwrap();
    let n = conversation.messages().len();
    assert_eq!(conversation.messages()[n - 2].text(), Some("Hello"));
    assert_eq!(conversation.messages()[n - 1].text(), Some("mm"));

    let unreachable = HttpAgent::new("http://127.0.0.1:1/nothing");
    let err = conversation.run(&unreachable, &mut ()).await.unwrap_err();
    assert_eq!(
        err.kind(),
        RunErrorKind::Transport(TransportErrorKind::Connection)
    );
}
