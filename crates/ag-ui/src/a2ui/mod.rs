//! Generative UI with A2UI v0.9: surfaces an agent composes from a client's component
//! catalog, painted by the client.
//!
//! A2UI describes a user interface as data. A *surface* holds a flat list of *components* —
//! each an `id`, a `component` type from the client's *catalog*, and properties, children
//! named by id — and a *data model* the components bind to with JSON Pointers
//! (`{"path": "/user/name"}`). An agent sends it as four operations ([`Operation`]):
//! `createSurface`, `updateComponents`, `updateDataModel`, `deleteSurface`.
//!
//! AG-UI carries A2UI two ways, and this module writes both:
//!
//! * **in tool results**, for `@ag-ui/a2ui-middleware` (what CopilotKit's runtime puts in front
//!   of an agent): a tool's result is `{"a2ui_operations": [...]}` ([`Envelope`]) and the
//!   middleware paints it; a `render_a2ui` call is painted as its arguments stream;
//! * **as activity**, for clients that render A2UI without the middleware:
//!   `ACTIVITY_SNAPSHOT` / `ACTIVITY_DELTA` of type [`ACTIVITY_TYPE`] (`a2ui-surface`), content
//!   `{"a2ui_operations": [...]}` ([`SurfaceActivity`]).
//!
//! | you want | use |
//! |---|---|
//! | a surface whose layout you write (the agent fills in data) | [`Surface`], [`Component`], returned as [`Surface::tool_result`] |
//! | a surface a model designs from the page's catalog | [`GenerateA2ui`] (with `openai`), or [`Generation`] for another model framework |
//! | to check a surface | [`Catalog`], [`validate_components`], [`Envelope::validate`], [`Surface::validate`] |
//! | to show a surface yourself | [`SurfaceActivity`] |
//! | what the user did on it | [`UserAction::from_input`] |
//!
//! ## Fixed schema: your layout, the model's data
//!
//! A backend tool builds the surface and returns it; the middleware paints it from the
//! `TOOL_CALL_RESULT`. The layout is Rust, checked by the compiler and by
//! [`Surface::validate`]; the model only supplies the data.
//!
//! ```
//! use ag_ui::a2ui::{Action, Component, Dynamic, Surface};
//! use serde_json::{Value, json};
//!
//! fn flight_results(flights: Value) -> Surface {
//!     Surface::new("flight-search-results", "https://a2ui.org/demos/dojo/fixed_catalog.json")
//!         // One FlightCard per item of /flights; inside it, paths are the item's.
//!         .with_component(Component::new("root", "Row").with_template("flight-card", "/flights"))
//!         .with_component(
//!             Component::new("flight-card", "FlightCard")
//!                 .with_path("airline", "airline")
//!                 .with_path("price", "price")
//!                 .with_action(
//!                     Action::event("book_flight")
//!                         .with_context("flightNumber", Dynamic::path("flightNumber")),
//!                 ),
//!         )
//!         .with_data(json!({"flights": flights}))
//! }
//!
//! let surface = flight_results(json!([{"airline": "United", "price": "$289", "flightNumber": "UA 123"}]));
//! surface.validate(None).unwrap();
//! // What the tool returns (`ToolOutput::text(surface.tool_result())` in an `LlmAgent`):
//! let result: Value = serde_json::from_str(&surface.tool_result()).unwrap();
//! assert_eq!(
//!     result["a2ui_operations"][0],
//!     json!({"version": "v0.9", "createSurface": {
//!         "surfaceId": "flight-search-results",
//!         "catalogId": "https://a2ui.org/demos/dojo/fixed_catalog.json"}})
//! );
//! assert_eq!(result["a2ui_operations"][1]["updateComponents"]["components"][0]["children"],
//!            json!({"componentId": "flight-card", "path": "/flights"}));
//! ```
//!
//! A child is a component id, never a value: the builder does not take one for the other.
//!
//! ```compile_fail,E0277
//! use ag_ui::a2ui::{Component, Dynamic};
//! let card = Component::new("card", "Card").with_child(Dynamic::path("/title"));
//! ```
//!
//! ## Dynamic schema: a model designs the surface
//!
//! [`GenerateA2ui`] is a backend tool, `generate_a2ui`, for
//! [`LlmAgent`](crate::llm::LlmAgent). When the planning model calls it, a sub-agent given only
//! `render_a2ui` designs the surface; its call streams on the run (the middleware paints it as
//! it arrives), is checked against the catalog the page sent with the run
//! ([`SCHEMA_CONTEXT_DESCRIPTION`]), and is asked again with what was wrong, up to
//! [`max_attempts`](GenerateConfig::max_attempts) (3) times. The tool's result is the
//! surface's operations, or `{"error", "code": "a2ui_recovery_exhausted", "attempts"}`, the
//! failure the middleware shows. Here a scripted model (an OpenAI-compatible server playing
//! back canned answers) designs a surface whose first attempt forgot a component:
//!
//! ```
//! # #[cfg(all(feature = "openai", feature = "axum"))]
//! # fn main() {
//! # use std::sync::{Arc, Mutex};
//! # let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! # runtime.block_on(async {
//! use ag_ui::a2ui::{GenerateA2ui, SCHEMA_CONTEXT_DESCRIPTION};
//! use ag_ui::llm::{LlmAgent, OpenAiClient};
//! use ag_ui::server::Runner;
//! use ag_ui::{Context, Event, Message, RunAgentInput};
//! use futures::StreamExt;
//! use serde_json::{Value, json};
//!
//! // The model's answers, in order: the planner calls generate_a2ui; the sub-agent renders a
//! // Row repeating a `card` it forgot to define, then the whole surface; the planner closes.
//! let call = |name: &str, args: Value| json!({"tool_calls": [{"index": 0, "id": "c", "type": "function",
//!     "function": {"name": name, "arguments": args.to_string()}}]});
//! let root = json!({"id": "root", "component": "Row", "children": {"componentId": "card", "path": "/items"}});
//! let card = json!({"id": "card", "component": "HotelCard", "name": {"path": "name"}});
//! let data = json!({"items": [{"name": "The Ritz"}]});
//! let answers = vec![
//!     call("generate_a2ui", json!({})),
//!     call("render_a2ui", json!({"surfaceId": "hotels", "components": [root], "data": data})),
//!     call("render_a2ui", json!({"surfaceId": "hotels", "components": [root, card], "data": data})),
//!     json!({"content": "Here are the hotels."}),
//! ];
//! # let answers = Arc::new(Mutex::new(answers.into_iter()));
//! # let app = axum::Router::new().route("/v1/chat/completions", axum::routing::post(move || {
//! #     let delta = answers.lock().unwrap().next().unwrap();
//! #     async move {
//! #         let chunk = json!({"choices": [{"index": 0, "delta": delta, "finish_reason": "stop"}]});
//! #         ([("content-type", "text/event-stream")], format!("data: {chunk}\n\ndata: [DONE]\n\n"))
//! #     }
//! # }));
//! # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
//! # let base = format!("http://{}/v1", listener.local_addr().unwrap());
//! # tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
//!
//! let client = OpenAiClient::new(base);
//! let agent = LlmAgent::<()>::new(client.clone(), "any-model")
//!     .with_tool(GenerateA2ui::new(client, "any-model").tool());
//! // The page's catalog, as CopilotKit sends it with every run.
//! let catalog = json!({"catalogId": "https://example.com/hotels.json",
//!     "components": {"Row": {"required": ["children"]}, "HotelCard": {"required": ["name"]}}});
//! let input = RunAgentInput::new("t", "r")
//!     .with_messages(vec![Message::user("u1", "Compare hotels")])
//!     .with_context(vec![Context::new(SCHEMA_CONTEXT_DESCRIPTION, catalog.to_string())]);
//! let events: Vec<Event> = Runner::new(agent).run(input).unwrap().collect().await;
//!
//! let results: Vec<String> = events.iter().filter_map(|e| match e {
//!     Event::ToolCallResult(r) => Some(r.content.flatten()),
//!     _ => None,
//! }).collect();
//! // Attempt 1 answered as invalid, attempt 2 as rendered, then generate_a2ui's result.
//! assert!(results[0].starts_with(r#"{"status":"invalid","errors":[{"code":"unresolved_child""#));
//! assert_eq!(results[1], r#"{"status":"rendered"}"#);
//! let envelope: Value = serde_json::from_str(&results[2]).unwrap();
//! assert_eq!(envelope["a2ui_operations"][0]["createSurface"]["catalogId"], "https://example.com/hotels.json");
//! # });
//! # }
//! # #[cfg(not(all(feature = "openai", feature = "axum")))]
//! # fn main() {}
//! ```
//!
//! [`Generation`] is the same loop without the model call, for an agent on another framework
//! (a rig agent's tool asks its own model with [`render_tool`] forced, and records each
//! answer).
//!
//! ## Without the middleware: the surface as activity
//!
//! A client that renders A2UI itself (CopilotKit's renderer with no middleware in its runtime,
//! an application of your own) reads `a2ui-surface` activity messages. [`SurfaceActivity`]
//! shows a surface and grows it: a snapshot with its operations, then deltas appending
//! more. (`GenerateConfig::emit_activity` makes `generate_a2ui` do the same.)
//!
//! ```
//! use ag_ui::a2ui::{Component, Surface, SurfaceActivity, UpdateDataModel};
//! use ag_ui::server::{Agent, Outcome, RunContext, Runner};
//! use ag_ui::{Event, Message, RunAgentInput};
//! use futures::StreamExt;
//! use serde_json::json;
//!
//! struct Clock;
//!
//! impl Agent for Clock {
//!     type State = ();
//!     async fn run(&self, ctx: &mut RunContext<()>) -> ag_ui::server::Result<Outcome> {
//!         let surface = Surface::new("clock", "https://example.com/catalog.json")
//!             .with_component(Component::new("root", "Text").with_path("text", "/time"))
//!             .with_data(json!({"time": "12:00"}));
//!         let mut shown = SurfaceActivity::show(ctx, surface.operations())?;
//!         shown.append(ctx, vec![UpdateDataModel::new("clock", "/time", json!("12:01")).into()])?;
//!         Ok(Outcome::success())
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let events: Vec<Event> = Runner::new(Clock).run(RunAgentInput::new("t", "r")).unwrap().collect().await;
//! ag_ui::verify::verify_all(&events).unwrap();
//! // A client's reducer holds the activity: four operations, the last the new time.
//! let mut reducer = ag_ui::client::Reducer::new();
//! for event in &events {
//!     reducer.apply(event).unwrap();
//! }
//! let Some(Message::Activity(activity)) = reducer.messages().last() else { panic!() };
//! assert_eq!(activity.activity_type, "a2ui-surface");
//! let ops = activity.content["a2ui_operations"].as_array().unwrap();
//! assert_eq!(ops.len(), 4);
//! assert_eq!(ops[3]["updateDataModel"]["value"], "12:01");
//! # }
//! ```
//!
//! ## A user's action
//!
//! A button's `action` event comes back with the next run: CopilotKit sends it as
//! `forwardedProps.a2uiAction`, and the middleware also writes it into the messages as a
//! `log_a2ui_event` call. [`UserAction::from_input`] reads either.
//!
//! ```
//! use ag_ui::a2ui::UserAction;
//! use ag_ui::{AssistantMessage, Message, RunAgentInput, ToolCall};
//!
//! // What the middleware appends: the call, then its result.
//! let action = r#"{"name": "book_flight", "surfaceId": "flight-search-results",
//!                  "sourceComponentId": "flight-card", "context": {"flightNumber": "UA 123"}}"#;
//! let call = ToolCall::new("a1", "log_a2ui_event", action);
//! let input = RunAgentInput::new("t", "r2").with_messages(vec![
//!     Message::user("u1", "Find flights"),
//!     Message::Assistant(AssistantMessage::new("m1").with_tool_calls(vec![call])),
//!     Message::tool("m2", "a1", "User performed action book_flight"),
//! ]);
//! let action = UserAction::from_input(&input).unwrap().unwrap();
//! assert_eq!(action.name, "book_flight");
//! assert_eq!(action.context["flightNumber"], "UA 123");
//! ```

mod action;
mod activity;
mod builder;
mod catalog;
mod error;
mod generation;
mod ops;
mod pointer;
mod prompt;
#[cfg(feature = "openai")]
mod tool;
mod validate;

pub use action::{ACTION_TOOL_NAME, UserAction};
pub use activity::{ActivitySink, SurfaceActivity, activity_content};
pub use builder::{Action, Dynamic, FunctionCall, Surface};
pub use catalog::{Catalog, ComponentSpec, RefField};
pub use error::{A2uiError, A2uiErrorKind, Finding, Rule};
pub use generation::{
    Attempt, DEFAULT_MAX_ATTEMPTS, GenerateArgs, GenerateConfig, Generation, GenerationOutcome,
    Intent,
};
pub use ops::{
    Component, ComponentId, CreateSurface, DeleteSurface, Envelope, Operation, SurfaceId,
    UpdateComponents, UpdateDataModel,
};
pub use prompt::{generate_tool, render_tool};
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub use tool::GenerateA2ui;
pub use validate::{
    DEFAULT_MAX_COMPONENTS, DEFAULT_MAX_FINDINGS, ValidateConfig, validate_components,
};

/// The A2UI version this module speaks, stamped on every operation: `v0.9`.
pub const VERSION: &str = "v0.9";

/// The member of a tool result that carries A2UI operations: `a2ui_operations`.
pub const OPERATIONS_KEY: &str = "a2ui_operations";

/// The activity type of A2UI surfaces: `a2ui-surface`.
pub const ACTIVITY_TYPE: &str = "a2ui-surface";

/// The id of the A2UI v0.9 basic catalog, the catalog used when nothing names another.
pub const BASIC_CATALOG_ID: &str = "https://a2ui.org/specification/v0_9/basic_catalog.json";

/// The description of the run context entry carrying the page's catalog (its value is the
/// catalog's JSON text), as CopilotKit's A2UI renderer and `@ag-ui/a2ui-middleware` write it.
/// The match is exact, so it is copied byte for byte.
pub const SCHEMA_CONTEXT_DESCRIPTION: &str = "A2UI Component Schema — available components for generating UI surfaces. Use these component names and properties when creating A2UI operations.";

/// The planner's tool: `generate_a2ui`.
pub const GENERATE_TOOL_NAME: &str = "generate_a2ui";

/// The sub-agent's tool, whose streamed arguments the middleware paints: `render_a2ui`.
pub const RENDER_TOOL_NAME: &str = "render_a2ui";

/// The `code` of the result a generation ends with when every attempt failed:
/// `a2ui_recovery_exhausted` (the middleware shows it as a failed surface).
pub const RECOVERY_EXHAUSTED_CODE: &str = "a2ui_recovery_exhausted";

/// The surface id of a generated surface whose model gave none: `dynamic-surface`.
pub const DEFAULT_SURFACE_ID: &str = "dynamic-surface";

#[cfg(test)]
mod tests;
