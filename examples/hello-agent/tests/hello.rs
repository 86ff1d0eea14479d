//! The hello agent over a real socket, read by the crate's own client.

use ag_ui::client::{Conversation, HttpAgent};

#[tokio::test]
async fn greets_by_the_last_user_message() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, ag_ui_example_hello_agent::app()).await });

    let mut conversation = Conversation::new("t");
    conversation.add_user_message("Ada");
    let summary = conversation
        .run(&HttpAgent::new(url), &mut ())
        .await
        .unwrap();
    assert_eq!(summary.new_messages.len(), 1);
    assert_eq!(
        conversation.messages().last().unwrap().text(),
        Some("Hello, Ada!")
    );
}
