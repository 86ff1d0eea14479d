//! The one home of the helpers shared by the integration tests, the benchmarks and the
//! examples of this crate. Each test binary includes this module once (`mod support;` in its
//! `main.rs`); benchmarks and examples include the single file they need.

#![allow(dead_code, unreachable_pub)]

#[cfg(feature = "http")]
pub mod corpus;
pub mod ev;
pub mod hostile;
#[cfg(feature = "axum")]
pub mod http;
#[cfg(feature = "axum")]
pub mod load;
#[cfg(feature = "mcp")]
pub mod mcp_pipe;
#[cfg(feature = "mcp")]
pub mod mcp_server;
pub mod node;
#[cfg(feature = "axum")]
pub mod openai_mock;
#[cfg(feature = "proto")]
pub mod proto;
pub mod request_head;
#[cfg(feature = "http")]
pub mod scripted;
pub mod strategies;
pub mod streams;
#[cfg(feature = "sse")]
pub mod workload;
