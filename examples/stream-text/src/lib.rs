//! An AG-UI client that prints the assistant's text as it streams: a [`Subscriber`] that writes
//! each `TEXT_MESSAGE_CONTENT` delta the moment it is verified, with a line break when a message
//! ends.
//!
//! Run with: `cargo run -p ag-ui-example-stream-text -- URL [MESSAGE]`, for example against
//! `cargo run -p ag-ui-cli -- serve` at `http://127.0.0.1:8000/`.

use std::io::Write;

use ag_ui::Event;
use ag_ui::client::{Flow, Reducer, Subscriber};

/// Writes assistant text to `out` as it arrives. A write error (a closed pipe) stops the run.
#[derive(Debug)]
pub struct PrintText<W> {
    out: W,
}

impl<W: Write> PrintText<W> {
    /// Prints to `out`.
    pub fn new(out: W) -> Self {
        Self { out }
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write + Send> Subscriber for PrintText<W> {
    fn on_event(&mut self, event: &Event, _: &Reducer) -> Flow {
        let written = match event {
            Event::TextMessageContent(content) => self
                .out
                .write_all(content.delta.as_bytes())
                .and_then(|()| self.out.flush()),
            Event::TextMessageEnd(_) => self.out.write_all(b"\n"),
            _ => Ok(()),
        };
        match written {
            Ok(()) => Flow::Continue,
            Err(_) => Flow::Stop,
        }
    }
}
