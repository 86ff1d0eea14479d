//! A rig agent with one rig tool, `add`, built on rig's OpenAI provider through the Chat
//! Completions API (what Ollama, vLLM and LiteLLM speak), for [`ag_ui_rig::RigAgent`].

use ag_ui::server::bridge::LoopConfig;
use ag_ui_rig::RigAgent;
use ag_ui_rig::rig_agent::AgentBuilder;
use ag_ui_rig::rig_core::providers::openai::OpenAIConfig;
use ag_ui_rig::rig_core::tool::PortableTool;
use serde::Deserialize;
use serde_json::{Value, json};

/// Arguments of [`Add`].
#[derive(Debug, Deserialize)]
pub struct AddArgs {
    /// The first number.
    pub a: f64,
    /// The second number.
    pub b: f64,
}

/// The rig tool `add`: `{"a": number, "b": number}` → their sum.
#[derive(Debug)]
pub struct Add;

/// `add` never fails; rig's tool trait needs an error type.
#[derive(Debug, thiserror::Error)]
#[error("add failed")]
pub struct AddError;

impl PortableTool for Add {
    const NAME: &'static str = "add";
    type Args = AddArgs;
    type Output = f64;
    type Error = AddError;

    fn description(&self) -> String {
        "Adds two numbers and returns their sum.".to_owned()
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "number", "description": "The first number."},
                "b": {"type": "number", "description": "The second number."}
            },
            "required": ["a", "b"]
        })
    }

    async fn call(&self, args: AddArgs) -> Result<f64, AddError> {
        Ok(args.a + args.b)
    }
}

/// The served agent: `model` at `base_url` (including its `/v1`), with `api_key` when the
/// server needs one; the frontend's tools are offered beside `add` on every run.
pub fn rig_agent(base_url: &str, api_key: &str, model: &str) -> RigAgent {
    let model_handle = OpenAIConfig::new(api_key)
        .with_base_url(base_url)
        .client()
        .chat(model);
    let agent = AgentBuilder::new(model_handle)
        .preamble("You are a helpful assistant. Use `add` for arithmetic.")
        .tool(Add)
        .build();
    RigAgent::new(agent).with_loop_config(
        LoopConfig::default()
            .with_usage_provider("openai")
            .with_usage_model(model),
    )
}
