//! `ag-ui conformance client`: the scenarios a client under test runs, in the conformance
//! corpus's format (the official corpus and this project's, `crates/ag-ui-conformance`), and
//! the server that plays them and judges what the client ended with.
//!
//! - `kit.rs`: the scenarios served (the sets chosen, or a directory of fixtures in place of
//!   the official one), each one's listing entry and its stream on SSE or protobuf;
//! - `serve.rs`: the routes.

mod kit;
mod serve;

pub(crate) use kit::Choice;
pub(crate) use serve::serve;
