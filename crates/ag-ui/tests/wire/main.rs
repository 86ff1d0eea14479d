//! The wire model and SSE: decoding hostile input, null omission, attribution, surrogate halves, SSE properties, byte identity with @ag-ui/encoder.
//!
//! One test binary for the area (each binary links on its own); each module was a test file.

#[path = "../support/mod.rs"]
mod support;

mod bad_input;
mod event_attribution;
mod interop_sse;
mod null_omission;
mod sse_proptest;
mod surrogates;
