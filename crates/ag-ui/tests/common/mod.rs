//! Helpers shared by the integration tests. Each test crate uses a part of them.

#![allow(dead_code, unreachable_pub)]

pub mod strategies;
