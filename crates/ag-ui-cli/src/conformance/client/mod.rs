//! `ag-ui conformance client`: the scenario battery a client under test runs, and the server
//! that plays it.

mod battery;
mod scenarios;
mod serve;

pub(crate) use serve::serve;
