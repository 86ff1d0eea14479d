//! The server of `conformance client`: `GET /scenarios`, `POST /scenarios/{name}`,
//! `GET /scenarios/{name}/expected`, `GET /scenarios/{name}/fixture`,
//! `POST /scenarios/{name}/verdict`.

use std::collections::HashMap;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ag_ui::axum::ServeConfig;
use ag_ui_conformance::{Observed, third_party_verdict};
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::kit::{Choice, Kit};

/// The largest run input, or observation, a request may carry.
const MAX_BODY: usize = 1024 * 1024;

/// The kit and the last request each scenario was run with (one per scenario: bounded by the
/// kit, each by [`MAX_BODY`]).
struct Served {
    kit: Kit,
    requests: Mutex<HashMap<String, Value>>,
}

type Shared = Arc<Served>;

/// The router of the scenario server.
pub(crate) fn router(kit: Kit) -> axum::Router {
    let shared: Shared = Arc::new(Served {
        kit,
        requests: Mutex::new(HashMap::new()),
    });
    axum::Router::new()
        .route("/scenarios", get(list))
        .route("/scenarios/{name}", post(play))
        .route("/scenarios/{name}/expected", get(expected))
        .route("/scenarios/{name}/fixture", get(fixture))
        .route("/scenarios/{name}/verdict", post(verdict))
        .with_state(shared)
}

/// Serves the scenarios `choice` names on `addr` until Ctrl-C.
///
/// # Errors
/// A fixture that cannot be read, the address cannot be listened on, or serving fails.
pub(crate) async fn serve(addr: SocketAddr, choice: &Choice) -> Result<(), String> {
    let kit = Kit::load(choice)?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    let count = |set: &str| {
        kit.scenarios
            .iter()
            .filter(|s| s.set.as_str() == set)
            .count()
    };
    let banner = format!(
        "ag-ui conformance scenarios: http://{local}/scenarios ({} official, {} ours)\n",
        count("official"),
        count("ours")
    );
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(banner.as_bytes()).and_then(|()| out.flush());
    drop(out);
    let config = ServeConfig::default().with_shutdown_timeout(Duration::from_secs(5));
    let interrupted = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    ag_ui::axum::serve(listener, router(kit), config, interrupted)
        .await
        .map_err(|e| e.to_string())
}

async fn list(State(shared): State<Shared>) -> Response {
    let entries: Vec<Value> = shared.kit.scenarios.iter().map(|s| s.entry()).collect();
    json_response(&Value::Array(entries))
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

/// The scenario's `expect`, in the corpus's vocabulary.
async fn expected(State(shared): State<Shared>, Path(name): Path<String>) -> Response {
    match shared.kit.find(&name) {
        Some(scenario) => json_response(&expect_json(&scenario.fixture)),
        None => unknown(),
    }
}

/// The expectations as the fixture states them (the keys of [`ag_ui_conformance::KEYS`] it
/// asserts).
fn expect_json(fixture: &ag_ui_conformance::Fixture) -> Value {
    let e = &fixture.expect;
    let mut out = serde_json::Map::new();
    let mut put = |key: &str, value: Value| {
        if e.has(key) {
            out.insert(key.to_owned(), value);
        }
    };
    put("outcome", json!(e.outcome.map(|o| o.as_str())));
    put("errorContains", json!(e.error_contains));
    put(
        "runError",
        match &e.run_error {
            Some(ag_ui_conformance::RunErrorExpect::Reported(b)) => json!(b),
            Some(ag_ui_conformance::RunErrorExpect::Contains(s)) => json!(s),
            _ => Value::Null,
        },
    );
    put("eventTypes", json!(e.event_types));
    put("eventTypesAbsent", json!(e.event_types_absent));
    put(
        "eventPaths",
        Value::Object(e.event_paths.iter().cloned().collect()),
    );
    put("eventAbsentPaths", json!(e.event_absent_paths));
    put("warnings", json!(e.warnings));
    put("noWarnings", json!(e.no_warnings));
    put("messageCount", json!(e.message_count));
    put("messages", e.messages.clone().unwrap_or_default());
    put("state", e.state.clone().unwrap_or_default());
    put("request", e.request.clone().unwrap_or_default());
    put("requestAbsentPaths", json!(e.request_absent_paths));
    Value::Object(out)
}

/// The whole fixture, as the corpus's format has it.
async fn fixture(State(shared): State<Shared>, Path(name): Path<String>) -> Response {
    let Some(scenario) = shared.kit.find(&name) else {
        return unknown();
    };
    let f = &scenario.fixture;
    let stream = |items: &[ag_ui_conformance::Item]| -> Vec<Value> {
        items
            .iter()
            .map(|item| match item {
                ag_ui_conformance::Item::Event(event) => Value::Object(event.clone()),
                ag_ui_conformance::Item::Raw(raw) => Value::String(raw.clone()),
            })
            .collect()
    };
    let mut body = json!({
        "name": f.name,
        "description": f.description,
        "stream": stream(&f.stream),
        "expect": expect_json(f),
    });
    let entry = scenario.entry();
    for key in ["area", "tags", "input", "client"] {
        if let Some(value) = entry.get(key) {
            body[key] = value.clone();
        }
    }
    if let Some(resume) = &f.resume {
        body["resume"] = json!({"entries": resume.entries, "stream": stream(&resume.stream)});
    }
    json_response(&body)
}

/// Reads a JSON object body of at most [`MAX_BODY`] bytes.
fn object_body(body: &Bytes, what: &str) -> Result<Value, Box<Response>> {
    if body.len() > MAX_BODY {
        return Err(Box::new(error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too-large",
            &format!("the {what} is over 1 MiB"),
        )));
    }
    // A JavaScript client's deltas may hold lone surrogate halves, which `JSON.stringify`
    // writes as escapes serde_json refuses: they read as U+FFFD, as the decoder reads them.
    let repaired = ag_ui::repair_lone_surrogates(body);
    match serde_json::from_slice(repaired.as_deref().unwrap_or(body)) {
        Ok(Value::Object(object)) => Ok(Value::Object(object)),
        _ => Err(Box::new(error(
            StatusCode::BAD_REQUEST,
            "invalid-input",
            &format!("the body is not a {what} JSON object"),
        ))),
    }
}

/// Streams the scenario verbatim (its second run when the input carries `resume` entries), in
/// protobuf when the request asks for it and the scenario is tagged `protobuf`; the request is
/// kept for the verdict's `request` expectations.
async fn play(
    State(shared): State<Shared>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(scenario) = shared.kit.find(&name) else {
        return unknown();
    };
    let input = match object_body(&body, "RunAgentInput") {
        Ok(input) => input,
        Err(response) => return *response,
    };
    if !(input["threadId"].is_string() && input["runId"].is_string()) {
        return error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-input",
            "threadId and runId must be strings",
        );
    }
    let resuming = input["resume"].as_array().is_some_and(|r| !r.is_empty());
    if let Ok(mut requests) = shared.requests.lock() {
        requests.insert(name, input);
    }
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let format = scenario.wire(accept);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let bytes = super::kit::Scenario::body(scenario.stream(resuming), format, now);
    Response::builder()
        .header(header::CONTENT_TYPE, format.media_type())
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from(bytes))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// Checks what a client says it ended with against the scenario's expectations, as a client
/// other than the two official ones is held to them (`ag_ui_conformance::third_party`), with
/// the request it last sent for that scenario.
async fn verdict(State(shared): State<Shared>, Path(name): Path<String>, body: Bytes) -> Response {
    let Some(scenario) = shared.kit.find(&name) else {
        return unknown();
    };
    let value = match object_body(&body, "observation") {
        Ok(value) => value,
        Err(response) => return *response,
    };
    let mut observed = match Observed::from_json(&value) {
        Ok(observed) => observed,
        Err(e) => {
            return error(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid-observation",
                &e.to_string(),
            );
        }
    };
    if observed.request.is_none() {
        observed.request = shared
            .requests
            .lock()
            .ok()
            .and_then(|requests| requests.get(&name).cloned());
    }
    json_response(&third_party_verdict(&scenario.fixture, &observed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expectations_are_served_as_the_fixture_states_them() {
        let kit = Kit::load(&Choice::default()).unwrap();
        for scenario in &kit.scenarios {
            let served = expect_json(&scenario.fixture);
            let read =
                ag_ui_conformance::Expect::from_map(served.as_object().unwrap(), "expect").unwrap();
            assert_eq!(read, scenario.fixture.expect, "{}", scenario.fixture.name);
        }
    }
}
