//! The protobuf transport: round trips, parity with SSE, interop with @ag-ui/proto, client and server over HTTP.
//!
//! One test binary for the area (each binary links on its own); each module was a test file.

#[path = "../support/mod.rs"]
mod support;

mod axum_proto;
mod client_proto;
mod interop;
mod parity;
mod roundtrip;
