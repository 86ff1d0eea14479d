//! The axum endpoint over real sockets: end to end, load, backpressure, the registry, serve.
//!
//! One test binary for the area (each binary links on its own); each module was a test file.

#[path = "../support/mod.rs"]
mod support;

mod backpressure;
mod detached;
mod downgrade_schemas;
mod e2e;
mod limits;
mod load;
mod registry;
mod serve;
