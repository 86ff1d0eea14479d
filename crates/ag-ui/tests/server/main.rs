//! The server SDK: RunContext, the runner, backpressure, and the property that anything emitted verifies.
//!
//! One test binary for the area (each binary links on its own); each module was a test file.

#[path = "../support/mod.rs"]
mod support;

mod backpressure;
mod basics;
mod props;
