//! The printing subscriber against an agent served over a real socket.

use ag_ui::axum::AgentEndpoint;
use ag_ui::client::{Conversation, HttpAgent};
use ag_ui::server::{Agent, Outcome, Result, RunContext};
use ag_ui_example_stream_text::PrintText;

struct TwoMessages;

impl Agent for TwoMessages {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        ctx.think("not printed")?;
        let mut message = ctx.assistant_message()?;
        for word in ["One", " two", " three."] {
            message.delta(word)?;
        }
        message.end()?;
        ctx.say("Four.")?;
        Ok(Outcome::success())
    }
}

#[tokio::test]
async fn prints_each_message_as_it_streams_and_nothing_else() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let app = AgentEndpoint::agent(TwoMessages).into_router();
    tokio::spawn(async move { axum::serve(listener, app).await });

    let mut conversation = Conversation::new("t");
    conversation.add_user_message("count");
    let mut print = PrintText::new(Vec::new());
    conversation
        .run(&HttpAgent::new(url), &mut print)
        .await
        .unwrap();
    assert_eq!(
        String::from_utf8(print.into_inner()).unwrap(),
        "One two three.\nFour.\n"
    );
}
