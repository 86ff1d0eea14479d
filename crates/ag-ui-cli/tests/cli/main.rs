//! The `ag-ui` command as a process: each module was a test file (one binary links once).
//!
//! - `offline`: verify, normalize, apply, convert on files and standard input;
//! - `live`: `serve` and `run` against each other, the demo command, interrupts, failures;
//! - `serve`, `serve_registry`: hosting, the registry, replays, CORS;
//! - `proto`: protobuf in and out of every command;
//! - `model`: `serve --model` against a mock OpenAI-compatible server;
//! - `inspect`: the browser inspector in Debian's chromium, over WebDriver.

mod inspect;
mod live;
mod model;
mod offline;
mod proto;
mod resume;
mod serve;
mod serve_registry;
