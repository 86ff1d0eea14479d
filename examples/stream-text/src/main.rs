//! Prints an agent's answer as it streams.
//! Run with: `cargo run -p ag-ui-example-stream-text -- URL [MESSAGE]`.

use ag_ui::client::{Conversation, HttpAgent};
use ag_ui_example_stream_text::PrintText;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let url = args.next().ok_or("usage: stream-text URL [MESSAGE]")?;
    let message = args.next().unwrap_or_else(|| "Hello".to_owned());

    let mut conversation = Conversation::new("stream-text");
    conversation.add_user_message(message);
    let mut print = PrintText::new(std::io::stdout());
    conversation.run(&HttpAgent::new(url), &mut print).await?;
    Ok(())
}
