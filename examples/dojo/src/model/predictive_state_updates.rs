//! `POST /predictive_state_updates`: the model writes a document through
//! `write_document_local`, the document fills the state as the model writes it, and the person
//! confirms the change.
//!
//! The agent predicts the state's `document` from `write_document_local`'s argument
//! `document` ([`LlmAgent::with_predicted_state`]): the run begins with the `CUSTOM`
//! `PredictState` event, and each provider chunk of the call's arguments is published as
//! `STATE_DELTA` of the document written so far, which the page's editor shows. The tool then
//! runs — the document becomes the state — and hands the turn to the person with a call of the
//! page's `confirm_changes` ([`ToolOutput::with_frontend_call`]): the run ends with that call
//! pending, and the next run, carrying the person's answer, lets the model reply.

use ag_ui::llm::{BackendTool, LlmAgent, ToolOutput};
use ag_ui::server::PredictState;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::ModelConfig;
pub use crate::scripted::predictive_state_updates::DocumentState;

/// The system prompt.
pub const SYSTEM_PROMPT: &str = "You are a writing assistant working on the document in the \
application's state. To write or change it, call write_document_local with the whole document \
in Markdown (headings, lists, bold; no italics or strike-through), even for a small change, \
which you keep small. Keep stories short. Do not repeat the document as a message; the user \
confirms the change, then say in at most two sentences what you changed.";

/// What `write_document_local` tells the model.
pub const DOCUMENT_WRITTEN: &str = "Document written.";

/// The page's confirmation tool, called once the document is written.
pub const CONFIRM_CHANGES: &str = "confirm_changes";

/// The arguments of `write_document_local`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct WriteDocument {
    /// The whole document, in Markdown.
    pub document: String,
}

/// Which state key follows which argument while the model writes.
pub fn predict_state() -> PredictState {
    PredictState::new("document", "write_document_local").with_tool_argument("document")
}

/// The `write_document_local` tool: the document into the state, then the page's
/// `confirm_changes`.
pub fn write_document_local() -> BackendTool<DocumentState> {
    BackendTool::new(
        "write_document_local",
        "Write the whole document, in Markdown.",
        |args: WriteDocument, _state: DocumentState| async move {
            Ok(ToolOutput::text(DOCUMENT_WRITTEN)
                .with_state(DocumentState {
                    document: args.document,
                })
                .with_frontend_call(CONFIRM_CHANGES, json!({})))
        },
    )
}

/// The agent: the model, the prompt, `write_document_local` and the predicted document.
pub fn agent(model: &ModelConfig) -> LlmAgent<DocumentState> {
    model
        .agent(SYSTEM_PROMPT)
        .with_tool(write_document_local())
        .with_predicted_state(predict_state())
}
