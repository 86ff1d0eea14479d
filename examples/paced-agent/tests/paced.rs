//! The paced agent over a real socket, read by the crate's own client: every delta arrives,
//! none before its time.

use std::time::{Duration, Instant};

use ag_ui::client::{Conversation, HttpAgent};
use ag_ui_example_paced_agent::{Paced, app, serve_config};

#[tokio::test]
async fn streams_every_delta_at_its_pace() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let paced = Paced {
        deltas: 4,
        every: Duration::from_millis(50),
    };
    tokio::spawn(ag_ui::axum::serve(
        listener,
        app(paced),
        serve_config(16),
        std::future::pending(),
    ));

    let started = Instant::now();
    let mut conversation = Conversation::new("t");
    conversation.add_user_message("go");
    let summary = conversation
        .run(&HttpAgent::new(url), &mut ())
        .await
        .unwrap();
    assert!(started.elapsed() >= Duration::from_millis(200));
    assert_eq!(summary.new_messages.len(), 1);
    assert_eq!(
        conversation.messages().last().unwrap().text(),
        Some("Streaming one delta at ")
    );
}
