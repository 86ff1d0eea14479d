//! The client: the reducer and the chunk normalizer against @ag-ui/client, HttpAgent hardening, over HTTP against our own server.
//!
//! One test binary for the area (each binary links on its own); each module was a test file.

#[path = "../support/mod.rs"]
mod support;

mod apply_differential;
mod axum;
mod chunks_interop;
mod chunks_roundtrip;
mod compact_props;
mod conformance;
mod documents;
mod frame_limit;
mod hardening;
mod hostile_agents;
mod hostile_echo;
mod http;
