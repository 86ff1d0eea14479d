//! An AG-UI agent that a browser page from another origin may call: tower-http's
//! [`CorsLayer`] around the endpoint answers the preflight and marks the streamed response as
//! readable by that origin.
//!
//! A browser sends `POST` with `Content-Type: application/json` and `Accept: text/event-stream`,
//! which is not a "simple" request, so it first sends an `OPTIONS` preflight. The layer answers
//! it for the allowed origin only: `Access-Control-Allow-Origin` always names that origin, so a
//! page from any other origin sees a mismatch and the browser refuses to hand it the response.
//!
//! Run with: `cargo run -p ag-ui-example-cors-agent -- [ADDR] [ORIGIN]` (defaults
//! `127.0.0.1:8002` and `http://localhost:3000`, where a frontend dev server usually runs).

use ag_ui::axum::{AgentEndpoint, RouterExt};
use ag_ui::server::{Agent, Outcome, Result, RunContext};
use axum::http::{HeaderValue, Method, header};
use tower_http::cors::CorsLayer;

/// Answers with one message.
#[derive(Debug, Clone, Copy, Default)]
pub struct Answer;

impl Agent for Answer {
    type State = ();

    async fn run(&self, ctx: &mut RunContext<()>) -> Result<Outcome> {
        ctx.say("Hello, browser.")?;
        Ok(Outcome::success())
    }
}

/// The agent at `/agent`, callable from pages served at `origin` (e.g. `http://localhost:3000`).
pub fn app(origin: HeaderValue) -> axum::Router {
    let cors = CorsLayer::new()
        .allow_origin(origin)
        .allow_methods([Method::POST])
        .allow_headers([header::CONTENT_TYPE, header::ACCEPT, header::AUTHORIZATION]);
    axum::Router::new()
        .agent("/agent", AgentEndpoint::agent(Answer))
        .layer(cors)
}
