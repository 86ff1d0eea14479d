//! The request side of the endpoint: reading and parsing the `RunAgentInput` body within its
//! limits, and the JSON rejections (`{"error": {"kind", "message", "field"}}`) of requests that
//! never start a run.

use std::fmt;

use ::axum::extract::{FromRequest, Request};
use ::axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use ::axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::json;

use super::limits::InputPermit;
#[cfg(doc)]
use super::{DEFAULT_BODY_LIMIT, DEFAULT_BODY_TIMEOUT};
use crate::RunAgentInput;

pub(crate) fn error_response(
    status: StatusCode,
    kind: &str,
    message: &str,
    field: Option<&str>,
) -> Response {
    // What a message quotes (a run id, a header, a query parameter) is the client's: bounded.
    let message = crate::excerpt(message, crate::EXCERPT_LIST_BYTES);
    let mut error = json!({ "kind": kind, "message": message });
    if let Some(field) = field {
        error["field"] = json!(field);
    }
    let body = json!({ "error": error }).to_string();
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// Why a request body was not accepted as a [`RunAgentInput`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RejectionKind {
    /// The `Content-Type` is not `application/json` (`415`).
    UnsupportedMediaType,
    /// The body exceeds the limit (`413`).
    PayloadTooLarge,
    /// The body could not be read (`400`).
    UnreadableBody,
    /// The body is not JSON (`400`).
    MalformedJson,
    /// The JSON is not a valid `RunAgentInput` (`400`, with the field's path).
    InvalidInput,
    /// The body was not read in time (`408`).
    BodyTimeout,
    /// The method is not `POST` (`405`).
    MethodNotAllowed,
    /// The client accepts no encoding this endpoint produces (`406`).
    NotAcceptable,
    /// The endpoint holds as much input in open runs as its
    /// [`max_input_bytes`](super::EndpointLimits::max_input_bytes) allows (`503`, with
    /// `Retry-After`).
    Overloaded,
}

impl RejectionKind {
    /// The kind's name in the JSON error body.
    pub fn as_str(self) -> &'static str {
        match self {
            RejectionKind::UnsupportedMediaType => "unsupported-media-type",
            RejectionKind::PayloadTooLarge => "payload-too-large",
            RejectionKind::UnreadableBody => "unreadable-body",
            RejectionKind::MalformedJson => "malformed-json",
            RejectionKind::InvalidInput => "invalid-input",
            RejectionKind::BodyTimeout => "body-timeout",
            RejectionKind::MethodNotAllowed => "method-not-allowed",
            RejectionKind::NotAcceptable => "not-acceptable",
            RejectionKind::Overloaded => "overloaded",
        }
    }

    /// The HTTP status sent for it.
    pub fn status(self) -> StatusCode {
        match self {
            RejectionKind::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            RejectionKind::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            RejectionKind::UnreadableBody
            | RejectionKind::MalformedJson
            | RejectionKind::InvalidInput => StatusCode::BAD_REQUEST,
            RejectionKind::BodyTimeout => StatusCode::REQUEST_TIMEOUT,
            RejectionKind::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            RejectionKind::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
            RejectionKind::Overloaded => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

/// A request rejected before any run started. Renders as a JSON error body with the kind's
/// status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputRejection {
    kind: RejectionKind,
    message: String,
    field: Option<String>,
}

impl InputRejection {
    pub(crate) fn new(kind: RejectionKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            field: None,
        }
    }

    /// What was wrong.
    pub fn kind(&self) -> RejectionKind {
        self.kind
    }

    /// A message for a person.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The path of the offending field (`messages[0].role`), for [`RejectionKind::InvalidInput`].
    pub fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }
}

impl fmt::Display for InputRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(
                f,
                "{}: field `{field}`: {}",
                self.kind.as_str(),
                self.message
            ),
            None => write!(f, "{}: {}", self.kind.as_str(), self.message),
        }
    }
}

impl std::error::Error for InputRejection {}

impl IntoResponse for InputRejection {
    fn into_response(self) -> Response {
        let mut response = error_response(
            self.kind.status(),
            self.kind.as_str(),
            &self.message,
            self.field.as_deref(),
        );
        if self.kind == RejectionKind::Overloaded {
            response.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(super::limits::RETRY_AFTER_SECS),
            );
        }
        response
    }
}

/// Extracts a [`RunAgentInput`] from a JSON request body (up to [`DEFAULT_BODY_LIMIT`], read
/// within [`DEFAULT_BODY_TIMEOUT`]), rejecting with an [`InputRejection`].
///
/// ```
/// use ag_ui::axum::AgentInput;
///
/// async fn handler(AgentInput(input): AgentInput) -> String {
///     format!("run {} on thread {}", input.run_id, input.thread_id)
/// }
/// let _app: axum::Router = axum::Router::new().route("/", axum::routing::post(handler));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct AgentInput(pub RunAgentInput);

impl<S: Send + Sync> FromRequest<S> for AgentInput {
    type Rejection = InputRejection;

    async fn from_request(req: Request, _state: &S) -> Result<Self, Self::Rejection> {
        let limits = super::EndpointLimits::default();
        read_input(req, &limits, &mut InputPermit::unbounded())
            .await
            .map(AgentInput)
    }
}

/// Reads and parses the body of `req` as a `RunAgentInput`, refusing a body over
/// `limits.body_limit` bytes as soon as it is known to be too large (from `Content-Length`, or
/// while reading), a body not read whole within `limits.body_timeout`, and a body `permit`
/// cannot count (the endpoint's input budget is spent: the declared length is counted before
/// anything is read, the bytes read as they come, and once parsed, what the input holds in
/// their place).
pub(crate) async fn read_input(
    req: Request,
    limits: &super::EndpointLimits,
    permit: &mut InputPermit,
) -> Result<RunAgentInput, InputRejection> {
    check_content_type(req.headers())?;
    let limit = limits.body_limit;
    let timeout = limits.body_timeout;
    let too_large = || {
        InputRejection::new(
            RejectionKind::PayloadTooLarge,
            format!("the request body exceeds the limit of {limit} bytes"),
        )
    };
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    // Within the limit, so within usize.
    let declared = declared.map_or(0, |n| n as usize);
    permit.grow(declared)?;
    let read = async {
        let mut body = Vec::with_capacity(declared);
        let mut chunks = req.into_body().into_data_stream();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.map_err(|e| {
                InputRejection::new(
                    RejectionKind::UnreadableBody,
                    format!("the request body could not be read: {e}"),
                )
            })?;
            let len = body.len() + chunk.len();
            if len > limit {
                return Err(too_large());
            }
            if len > permit.bytes() {
                permit.grow(len - permit.bytes())?;
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    };
    let body = tokio::time::timeout(timeout, read).await.map_err(|_| {
        InputRejection::new(
            RejectionKind::BodyTimeout,
            format!(
                "the request body was not received within {} ms",
                timeout.as_millis()
            ),
        )
    })??;
    let input = parse_input(&body)?;
    drop(body);
    // From here the run holds what was parsed, not the body.
    permit.resize(super::held::input(&input))?;
    Ok(input)
}

pub(crate) fn check_content_type(headers: &HeaderMap) -> Result<(), InputRejection> {
    let value = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = value.split(';').next().unwrap_or("").trim();
    let json = essence.eq_ignore_ascii_case("application/json")
        || (essence.len() > 5
            && essence[..essence.len() - 5].contains('/')
            && essence.to_ascii_lowercase().ends_with("+json"));
    if json {
        Ok(())
    } else if value.is_empty() {
        Err(InputRejection::new(
            RejectionKind::UnsupportedMediaType,
            "expected Content-Type: application/json, found none",
        ))
    } else {
        Err(InputRejection::new(
            RejectionKind::UnsupportedMediaType,
            format!("expected Content-Type: application/json, found {value:?}"),
        ))
    }
}

pub(crate) fn parse_input(body: &[u8]) -> Result<RunAgentInput, InputRejection> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let result: Result<RunAgentInput, _> = serde_path_to_error::deserialize(&mut de);
    if result.is_ok()
        && let Err(e) = de.end()
    {
        return Err(InputRejection::new(
            RejectionKind::MalformedJson,
            format!("the body is not valid JSON: {e}"),
        ));
    }
    result.map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            return InputRejection::new(
                RejectionKind::MalformedJson,
                format!("the body is not valid JSON: {inner}"),
            );
        }
        let (field, message) = crate::decode::locate(&path, &inner.to_string());
        InputRejection {
            kind: RejectionKind::InvalidInput,
            message,
            field,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types() {
        let mut h = HeaderMap::new();
        assert_eq!(
            check_content_type(&h).unwrap_err().kind(),
            RejectionKind::UnsupportedMediaType
        );
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        );
        assert!(check_content_type(&h).is_ok());
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/vnd.api+json"),
        );
        assert!(check_content_type(&h).is_ok());
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        assert_eq!(
            check_content_type(&h).unwrap_err().kind(),
            RejectionKind::UnsupportedMediaType
        );
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static("+json"));
        assert!(check_content_type(&h).is_err());
    }

    #[test]
    fn input_errors_name_the_field() {
        let err =
            parse_input(br#"{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user"}]}"#)
                .unwrap_err();
        assert_eq!(err.kind(), RejectionKind::InvalidInput);
        assert_eq!(err.field(), Some("messages[0].content"), "{err}");
        let err = parse_input(br#"{"threadId":"t","messages":[]}"#).unwrap_err();
        assert_eq!(err.field(), Some("runId"));
        let err = parse_input(br#"{"threadId":1,"runId":"r","messages":[]}"#).unwrap_err();
        assert_eq!(err.field(), Some("threadId"));
        let err = parse_input(br#"{"threadId":"t","runId":"r","messages":[]"#).unwrap_err();
        assert_eq!(err.kind(), RejectionKind::MalformedJson);
        let err = parse_input(br#"{"threadId":"t","runId":"r","messages":[]} x"#).unwrap_err();
        assert_eq!(err.kind(), RejectionKind::MalformedJson);
        assert!(parse_input(br#"{"threadId":"t","runId":"r","messages":[]}"#).is_ok());
    }
}
