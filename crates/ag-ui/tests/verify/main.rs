//! The ordering verifier: each rule, properties, emission mode, and a differential run against @ag-ui/core.
//!
//! One test binary for the area (each binary links on its own); each module was a test file.

#[path = "../support/mod.rs"]
mod support;

mod closed_elsewhere;
mod differential;
mod emission;
mod props;
mod rules;
mod rules_draft;
mod rules_shape;
mod rules_subagents;
