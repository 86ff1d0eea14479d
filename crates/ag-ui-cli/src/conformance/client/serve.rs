//! The server of `conformance client`: `GET /scenarios`, `POST /scenarios/{name}`,
//! `GET /scenarios/{name}/expected`.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use ag_ui::axum::ServeConfig;
use ag_ui::encoding::Format;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::battery::battery;
use super::scenarios::{self, Scenario};

/// The largest run input a scenario request may carry.
const MAX_INPUT: usize = 1024 * 1024;

type Battery = Arc<Vec<Scenario>>;

/// The router of the scenario server.
pub(crate) fn router() -> axum::Router {
    let battery: Battery = Arc::new(battery());
    axum::Router::new()
        .route("/scenarios", get(list))
        .route("/scenarios/{name}", post(play))
        .route("/scenarios/{name}/expected", get(expected))
        .with_state(battery)
}

/// Serves the battery on `addr` until Ctrl-C.
///
/// # Errors
/// The address cannot be listened on, or serving fails.
pub(crate) async fn serve(addr: SocketAddr) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    let banner = format!(
        "ag-ui conformance scenarios: http://{local}/scenarios ({} scenarios)\n",
        battery().len()
    );
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(banner.as_bytes()).and_then(|()| out.flush());
    drop(out);
    let config = ServeConfig::default().with_shutdown_timeout(Duration::from_secs(5));
    let interrupted = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    ag_ui::axum::serve(listener, router(), config, interrupted)
        .await
        .map_err(|e| e.to_string())
}

async fn list(State(battery): State<Battery>) -> Response {
    let entries: Vec<Value> = battery.iter().map(Scenario::entry).collect();
    json_response(&Value::Array(entries))
}

fn find<'a>(battery: &'a Battery, name: &str) -> Option<&'a Scenario> {
    battery.iter().find(|s| s.name == name)
}

fn unknown() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "unknown-scenario",
        "no scenario of that name; GET /scenarios lists them",
    )
}

fn error(status: StatusCode, kind: &str, message: &str) -> Response {
    let mut response = json_response(&json!({"error": {"kind": kind, "message": message}}));
    *response.status_mut() = status;
    response
}

/// A JSON body (`application/json`).
fn json_response(value: &Value) -> Response {
    Response::builder()
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(serde_json::to_vec(value).unwrap_or_default()))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

async fn expected(State(battery): State<Battery>, Path(name): Path<String>) -> Response {
    match find(&battery, &name) {
        Some(scenario) => json_response(&scenario.expected()),
        None => unknown(),
    }
}

/// Streams the scenario, with the request's `threadId` and `runId` in its run events; the
/// second run of a two-run scenario when the input carries `resume` entries.
async fn play(
    State(battery): State<Battery>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(scenario) = find(&battery, &name) else {
        return unknown();
    };
    if body.len() > MAX_INPUT {
        return error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too-large",
            "the run input is over 1 MiB",
        );
    }
    let input: Value = match serde_json::from_slice(&body) {
        Ok(Value::Object(input)) => Value::Object(input),
        _ => {
            return error(
                StatusCode::BAD_REQUEST,
                "invalid-input",
                "the body is not a RunAgentInput JSON object",
            );
        }
    };
    let (Some(thread), Some(run)) = (input["threadId"].as_str(), input["runId"].as_str()) else {
        return error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-input",
            "threadId and runId must be strings",
        );
    };
    let resuming = input["resume"].as_array().is_some_and(|r| !r.is_empty());
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let frames = scenario.frames_for(resuming);
    let format = scenarios::wire(scenario, accept);
    let bytes = match format {
        Format::Proto => scenarios::protobuf(frames, thread, run),
        _ => scenarios::sse(frames, thread, run),
    };
    Response::builder()
        .header(header::CONTENT_TYPE, format.media_type())
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from(bytes))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ag_ui::encoding::{proto, sse};

    #[test]
    fn protobuf_is_served_to_a_request_that_asks_for_it_and_only_for_protobuf_scenarios() {
        let all = battery();
        let binary = all.iter().find(|s| s.has("protobuf")).unwrap();
        let text = all.iter().find(|s| !s.has("protobuf")).unwrap();
        let asks = "application/vnd.ag-ui.event+proto, text/event-stream;q=0.5";
        assert_eq!(scenarios::wire(binary, asks), Format::Proto);
        assert_eq!(scenarios::wire(text, asks), Format::Sse);
        assert_eq!(scenarios::wire(binary, "text/event-stream"), Format::Sse);
        assert_eq!(
            scenarios::wire(binary, "application/vnd.ag-ui.event+proto;q=0.5"),
            Format::Proto
        );
        assert_eq!(
            scenarios::wire(binary, "application/vnd.ag-ui.event+proto;q=0"),
            Format::Sse
        );
        // The protobuf bytes decode to the SSE stream's events.
        let frames = binary.frames_for(false);
        let from_proto = proto::decode(&scenarios::protobuf(frames, "t", "r")).unwrap();
        let from_sse = sse::decode(&scenarios::sse(frames, "t", "r")).unwrap();
        assert_eq!(from_proto, from_sse);
    }

    #[test]
    fn the_battery_is_large_named_once_and_every_expectation_computes() {
        let all = battery();
        assert!(all.len() >= 30, "{} scenarios", all.len());
        let mut names: Vec<&str> = all.iter().map(|s| s.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len(), "a name is used twice");
        for scenario in &all {
            let expected = scenario.expected();
            assert!(
                expected.get("messages").is_some() || expected.get("reject").is_some(),
                "{}: {expected}",
                scenario.name
            );
            // A scenario the reference accepts but this crate refuses is tagged strict;
            // failures the reference shares are not.
            if scenario.has("strict") {
                assert!(expected.get("reject").is_some(), "{}", scenario.name);
            }
        }
    }
}
