//! # ag-ui-wasm
//!
//! The `ag-ui` client for JavaScript, on WebAssembly: an `HttpAgent` shaped like
//! `@ag-ui/client`'s for its common subset, running this crate's client pipeline (SSE or
//! protobuf decoding, chunk expansion, verification, the reducer) in the page, on the browser's
//! `fetch` ([`ag_ui::client::BrowserAgent`]).
//!
//! ```js
//! import init, { HttpAgent } from "./pkg/ag_ui_wasm.js";
//! await init();
//! const agent = new HttpAgent({ url: "http://127.0.0.1:8000/", threadId: "t1" });
//! agent.addMessage({ id: "u1", role: "user", content: "Hi" });
//! const { newMessages, result } = await agent.runAgent({}, {
//!   onTextMessageContentEvent: ({ event }) => console.log(event.delta),
//! });
//! ```
//!
//! Messages, state and events are plain JavaScript objects in the AG-UI 1.0 JSON shape (what
//! `@ag-ui/client` 1.0.0 holds on the same stream). Subscribers are called as `@ag-ui/client`
//! calls them: one after the other, a returned promise awaited before the next callback or
//! event, with `{ event, messages, state, agent, input }`; a returned `messages` or `state`
//! replaces the conversation's, and `stopPropagation: true` skips the later subscribers (and,
//! from an event's callback, the event). `agent.messages` and `agent.state` show each event as
//! it is applied. Built for the browser by `.ci/wasm` (`wasm-bindgen --target web` into
//! `crates/ag-ui-wasm/pkg/`); natively this crate compiles but has nothing to call.

mod agent;
mod subscriber;

pub use agent::HttpAgent;

use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** An AG-UI message (AG-UI 1.0 JSON: `{ id, role, content, ... }`). */
export type Message = { id: string; role: string; [key: string]: any };

/** An AG-UI event (AG-UI 1.0 JSON: `{ type, ... }`). */
export type BaseEvent = { type: string; [key: string]: any };

/** The options of `new HttpAgent(...)`. */
export interface HttpAgentConfig {
  /** The agent's endpoint (absolute, or relative to the page). */
  url: string;
  /** Sent with every run. */
  headers?: Record<string, string>;
  /** The thread; a fresh one when absent. */
  threadId?: string;
  /** A name for the agent. */
  agentId?: string;
  /** What the agent does. */
  description?: string;
  initialMessages?: Message[];
  initialState?: any;
  /** How long the agent may send nothing, in milliseconds (default 60000). */
  idleTimeoutMs?: number;
}

/** The parameters of one run. */
export interface RunAgentParameters {
  runId?: string;
  tools?: any[];
  context?: any[];
  forwardedProps?: any;
  /** Answers to the open interrupts (`{ interruptId, status, payload? }`). */
  resume?: any[];
}

/** What a finished run resolves to. */
export interface RunAgentResult {
  /** The run's result (`RUN_FINISHED` with outcome success), if any. */
  result: any;
  /** The messages the run added. */
  newMessages: Message[];
}

/** What each callback gets. */
export interface AgentSubscriberParams {
  messages: Message[];
  state: any;
  /** The agent running. */
  agent: HttpAgent;
  input: any;
}

/** A callback's answer (or a promise of it, awaited before the next callback): replacement
 * messages or state, and whether the later subscribers (and, from an event's callback, the
 * event itself) are skipped. */
export type AgentStateMutation =
  | { messages?: Message[]; state?: any; stopPropagation?: boolean }
  | void
  | Promise<{ messages?: Message[]; state?: any; stopPropagation?: boolean } | void>;

export interface HttpAgent {
  /** Runs the agent once: resolves to `{ newMessages, result }`; rejects with an `Error` (its
   * `kind` a stable name such as `transport.http` or `verify`) when the run cannot be carried
   * or read. */
  runAgent(parameters?: RunAgentParameters, subscriber?: AgentSubscriber): Promise<RunAgentResult>;
}

/** Callbacks of a run; every one is optional. Per-event callbacks are named after the event
 * type: `on<Type>Event` (`onTextMessageStartEvent`, `onToolCallResultEvent`, …). */
export interface AgentSubscriber {
  onRunInitialized?(params: AgentSubscriberParams): AgentStateMutation;
  onRunFailed?(params: AgentSubscriberParams & { error: Error }): AgentStateMutation;
  onRunFinalized?(params: AgentSubscriberParams): AgentStateMutation;
  onEvent?(params: AgentSubscriberParams & { event: BaseEvent }): AgentStateMutation;
  onRunStartedEvent?(params: AgentSubscriberParams & { event: BaseEvent }): AgentStateMutation;
  onRunFinishedEvent?(params: AgentSubscriberParams & { event: BaseEvent; result: any }): AgentStateMutation;
  onRunErrorEvent?(params: AgentSubscriberParams & { event: BaseEvent }): AgentStateMutation;
  onTextMessageStartEvent?(params: AgentSubscriberParams & { event: BaseEvent }): AgentStateMutation;
  onTextMessageContentEvent?(params: AgentSubscriberParams & { event: BaseEvent; textMessageBuffer: string }): AgentStateMutation;
  onTextMessageEndEvent?(params: AgentSubscriberParams & { event: BaseEvent; textMessageBuffer: string }): AgentStateMutation;
  onToolCallStartEvent?(params: AgentSubscriberParams & { event: BaseEvent }): AgentStateMutation;
  onToolCallArgsEvent?(params: AgentSubscriberParams & { event: BaseEvent; toolCallBuffer: string; toolCallName: string; partialToolCallArgs: any }): AgentStateMutation;
  onToolCallEndEvent?(params: AgentSubscriberParams & { event: BaseEvent; toolCallName: string; toolCallArgs: any }): AgentStateMutation;
  onToolCallResultEvent?(params: AgentSubscriberParams & { event: BaseEvent }): AgentStateMutation;
  onStateSnapshotEvent?(params: AgentSubscriberParams & { event: BaseEvent }): AgentStateMutation;
  onStateDeltaEvent?(params: AgentSubscriberParams & { event: BaseEvent }): AgentStateMutation;
  onMessagesSnapshotEvent?(params: AgentSubscriberParams & { event: BaseEvent }): AgentStateMutation;
  onMessagesChanged?(params: AgentSubscriberParams): void;
  onStateChanged?(params: AgentSubscriberParams): void;
  onNewMessage?(params: AgentSubscriberParams & { message: Message }): void;
  onNewToolCall?(params: AgentSubscriberParams & { toolCall: any }): void;
  [callback: string]: ((params: any) => any) | undefined;
}
"#;
