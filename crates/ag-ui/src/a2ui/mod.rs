//! Generative UI with A2UI v0.9: surfaces an agent composes from a client's component
//! catalog, painted by the client.
//!
//! A2UI describes a user interface as data: a *surface* holds a flat list of *components*
//! (each an `id`, a `component` type from the client's *catalog*, and properties; children
//! referenced by id), and a *data model* the components bind to with JSON Pointers. An agent
//! sends it as four operations ([`Operation`]): `createSurface`, `updateComponents`,
//! `updateDataModel`, `deleteSurface`.
//!
//! AG-UI carries A2UI two ways, and this module writes both:
//!
//! * **In tool results**, for `@ag-ui/a2ui-middleware` (what CopilotKit's runtime puts in front
//!   of an agent): a tool returns `{"a2ui_operations": [...]}` ([`Envelope`]) and the
//!   middleware paints it as an `a2ui-surface` activity; a `render_a2ui` call streamed by a
//!   sub-agent is painted as its arguments arrive.
//! * **As activity**, for clients without the middleware: `ACTIVITY_SNAPSHOT` /
//!   `ACTIVITY_DELTA` of type [`ACTIVITY_TYPE`] (`a2ui-surface`) whose content is
//!   `{"a2ui_operations": [...]}` ([`SurfaceActivity`]).
//!
//! A user's action on a surface (a button's event) comes back with the next run
//! ([`UserAction::from_input`]).

mod builder;
mod catalog;
mod error;
mod ops;
mod validate;

pub use builder::{Action, Dynamic, FunctionCall, Surface};
pub use catalog::{Catalog, ComponentSpec, RefField};
pub use error::{A2uiError, A2uiErrorKind, Finding, Rule};
pub use ops::{
    Component, ComponentId, CreateSurface, DeleteSurface, Envelope, Operation, SurfaceId,
    UpdateComponents, UpdateDataModel,
};
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

#[cfg(test)]
mod tests;
