//! What an agent declares about itself (`AgentCapabilities`). Discovery only: nothing here is
//! sent in a run. Every field is optional; absent means "not declared", not "unsupported".
//!
//! ```
//! use ag_ui::capabilities::{AgentCapabilities, TransportCapabilities};
//!
//! let caps = AgentCapabilities {
//!     transport: Some(TransportCapabilities { streaming: Some(true), ..Default::default() }),
//!     ..Default::default()
//! };
//! assert_eq!(serde_json::to_string(&caps).unwrap(), r#"{"transport":{"streaming":true}}"#);
//! ```

use serde::{Deserialize, Serialize};

use crate::serde_util::{count, non_null};
use crate::{Metadata, Tool};

macro_rules! capability_struct {
    ($(#[$doc:meta])* $name:ident { $( $(#[$fdoc:meta])* $field:ident : $ty:ty ),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            $(
                $(#[$fdoc])*
                #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "non_null")]
                pub $field: Option<$ty>,
            )*
        }
    };
}

capability_struct! {
    /// Everything an agent may declare.
    AgentCapabilities {
        /// Who the agent is.
        identity: IdentityCapabilities,
        /// Which transports it speaks.
        transport: TransportCapabilities,
        /// Tool support.
        tools: ToolsCapabilities,
        /// Output formats.
        output: OutputCapabilities,
        /// State support.
        state: StateCapabilities,
        /// Subagents and delegation.
        multi_agent: MultiAgentCapabilities,
        /// Reasoning support.
        reasoning: ReasoningCapabilities,
        /// Multimodal input and output.
        multimodal: MultimodalCapabilities,
        /// Execution limits.
        execution: ExecutionCapabilities,
        /// Human-in-the-loop support.
        human_in_the_loop: HumanInTheLoopCapabilities,
        /// Open by key.
        custom: Metadata,
    }
}

capability_struct! {
    /// Identity of the agent.
    IdentityCapabilities {
        /// Name.
        name: String,
        /// Framework, e.g. `"langgraph"`.
        r#type: String,
        /// Description.
        description: String,
        /// Version.
        version: String,
        /// Provider.
        provider: String,
        /// Documentation URL.
        documentation_url: String,
        /// Open-by-key extra information.
        metadata: Metadata,
    }
}

capability_struct! {
    /// Transports.
    TransportCapabilities {
        /// SSE streaming.
        streaming: bool,
        /// WebSocket.
        websocket: bool,
        /// Protobuf over HTTP.
        http_binary: bool,
        /// Push notifications.
        push_notifications: bool,
        /// Resumable streams.
        resumable: bool,
    }
}

capability_struct! {
    /// Tools.
    ToolsCapabilities {
        /// Tools are supported.
        supported: bool,
        /// Tools the agent brings itself.
        items: Vec<Tool>,
        /// Parallel tool calls.
        parallel_calls: bool,
        /// Client-provided tools.
        client_provided: bool,
    }
}

capability_struct! {
    /// Output formats.
    OutputCapabilities {
        /// Structured output.
        structured_output: bool,
        /// Media types the agent can produce.
        supported_mime_types: Vec<String>,
    }
}

capability_struct! {
    /// State handling.
    StateCapabilities {
        /// STATE_SNAPSHOT.
        snapshots: bool,
        /// STATE_DELTA.
        deltas: bool,
        /// Memory across runs.
        memory: bool,
        /// Persistent state.
        persistent_state: bool,
    }
}

capability_struct! {
    /// Multi-agent features.
    MultiAgentCapabilities {
        /// Supported at all.
        supported: bool,
        /// Delegation.
        delegation: bool,
        /// Hand-offs.
        handoffs: bool,
        /// Subagents the agent may invoke.
        subagents: Vec<SubagentInfo>,
    }
}

/// A subagent an agent may invoke.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SubagentInfo {
    /// Its name.
    pub name: String,
    /// What it does.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "non_null"
    )]
    pub description: Option<String>,
}

capability_struct! {
    /// Reasoning.
    ReasoningCapabilities {
        /// Supported.
        supported: bool,
        /// Streamed.
        streaming: bool,
        /// Encrypted values.
        encrypted: bool,
    }
}

capability_struct! {
    /// Multimodal support.
    MultimodalCapabilities {
        /// Input kinds.
        input: MultimodalInputCapabilities,
        /// Output kinds.
        output: MultimodalOutputCapabilities,
    }
}

capability_struct! {
    /// Multimodal input kinds.
    MultimodalInputCapabilities {
        /// Images.
        image: bool,
        /// Audio.
        audio: bool,
        /// Video.
        video: bool,
        /// PDFs.
        pdf: bool,
        /// Provider files.
        file: bool,
    }
}

capability_struct! {
    /// Multimodal output kinds.
    MultimodalOutputCapabilities {
        /// Images.
        image: bool,
        /// Audio.
        audio: bool,
    }
}

/// Execution limits.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ExecutionCapabilities {
    /// Runs code.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "non_null"
    )]
    pub code_execution: Option<bool>,
    /// In a sandbox.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "non_null"
    )]
    pub sandboxed: Option<bool>,
    /// Iteration limit.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "count"
    )]
    pub max_iterations: Option<u64>,
    /// Time limit in milliseconds.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "count"
    )]
    pub max_execution_time: Option<u64>,
}

capability_struct! {
    /// Human-in-the-loop features.
    HumanInTheLoopCapabilities {
        /// Supported.
        supported: bool,
        /// Approvals.
        approvals: bool,
        /// Interventions.
        interventions: bool,
        /// Feedback.
        feedback: bool,
        /// Interrupt outcomes and `resume`.
        interrupts: bool,
        /// Tool interrupts accept `editedArgs`.
        approve_with_edits: bool,
    }
}
