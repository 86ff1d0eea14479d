use std::fmt;
use std::sync::Arc;

use ::axum::Router;
use ::axum::extract::Path;
use ::axum::http::{HeaderValue, StatusCode, header};
use ::axum::response::{IntoResponse, Response};
use ::axum::routing::{any, get};
use serde_json::json;

use super::{AgentEndpoint, RunHandler, error_response};
use crate::capabilities::AgentCapabilities;

/// The longest agent id accepted, in bytes.
pub(crate) const MAX_ID_LEN: usize = 128;

/// What the registry says about an agent: its id (the last segment of its URL), a description
/// and its capabilities.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentInfo {
    id: String,
    description: Option<String>,
    capabilities: AgentCapabilities,
}

impl AgentInfo {
    /// An agent served at `/agents/{id}`, with no description and no declared capability.
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            description: None,
            capabilities: AgentCapabilities::default(),
        }
    }

    /// Sets the description shown in the listing.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the capabilities the agent declares.
    #[must_use]
    pub fn with_capabilities(mut self, capabilities: AgentCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// The id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The description.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The declared capabilities.
    pub fn capabilities(&self) -> &AgentCapabilities {
        &self.capabilities
    }

    fn listing(&self) -> serde_json::Value {
        let mut entry = json!({
            "id": self.id,
            "url": format!("/agents/{}", self.id),
            "capabilities": self.capabilities,
        });
        if let Some(description) = &self.description {
            entry["description"] = json!(description);
        }
        entry
    }
}

/// The kinds of [`RegistryError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RegistryErrorKind {
    /// The id is empty, too long, or holds a character other than ASCII letters, digits, `-`,
    /// `_`, `.` and `~` (so it is one URL path segment as it is).
    InvalidId,
    /// An agent with this id is registered already.
    DuplicateId,
}

/// An agent could not be registered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("agent id {id:?}: {message}")]
pub struct RegistryError {
    kind: RegistryErrorKind,
    id: String,
    message: &'static str,
}

impl RegistryError {
    /// What was wrong.
    pub fn kind(&self) -> RegistryErrorKind {
        self.kind
    }

    /// The id that was refused.
    pub fn id(&self) -> &str {
        &self.id
    }
}

/// Several agents behind one router. See the [`AgentRegistry`] docs.
///
/// Several agents on one server: an [`AgentRegistry`] serves each registered agent at
/// `POST /agents/{id}`, and says what it serves:
///
/// - `GET /agents`: `{"agents": [{"id", "description", "url", "capabilities"}, …]}`, in
///   registration order;
/// - `GET /agents/{id}/capabilities`: the agent's [`AgentCapabilities`];
/// - `GET /health`: `{"status": "ok", "agents": <count>}`;
/// - an unknown id is a `404` with a JSON body of kind `unknown-agent`, for runs and for
///   capabilities alike.
///
/// The registry is an axum [`Router`]: merge it with your own routes and add middleware as
/// usual. Browser frontends on another origin need CORS; tower-http's `CorsLayer` answers the
/// preflight `OPTIONS` requests and adds the headers:
///
/// ```
/// use ag_ui::axum::AgentEndpoint;
/// use ag_ui::axum::{AgentInfo, AgentRegistry};
/// use ag_ui::capabilities::{AgentCapabilities, TransportCapabilities};
/// use ag_ui::{Event, RunAgentInput};
/// use axum::http::{Method, Request, StatusCode, header};
/// use tower::ServiceExt as _;
/// use tower_http::cors::{Any, CorsLayer};
///
/// fn echo(input: RunAgentInput) -> impl futures::Stream<Item = Event> + Send + 'static {
///     futures::stream::iter([
///         Event::run_started(input.thread_id.clone(), input.run_id.clone()),
///         Event::run_finished(input.thread_id, input.run_id),
///     ])
/// }
///
/// let mut registry = AgentRegistry::new();
/// registry.register(
///     AgentInfo::new("echo")
///         .with_description("Answers every run at once")
///         .with_capabilities(AgentCapabilities {
///             transport: Some(TransportCapabilities { streaming: Some(true), ..Default::default() }),
///             ..Default::default()
///         }),
///     AgentEndpoint::new(echo),
/// )?;
/// let app: axum::Router = registry.into_router().layer(
///     CorsLayer::new()
///         .allow_origin(Any)
///         .allow_methods([Method::GET, Method::POST])
///         .allow_headers([header::CONTENT_TYPE, header::ACCEPT]),
/// );
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let listing = app
///     .clone()
///     .oneshot(Request::get("/agents").body(axum::body::Body::empty()).unwrap())
///     .await
///     .unwrap();
/// assert_eq!(listing.status(), StatusCode::OK);
/// let preflight = app
///     .oneshot(
///         Request::options("/agents/echo")
///             .header(header::ORIGIN, "http://localhost:5173")
///             .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
///             .body(axum::body::Body::empty())
///             .unwrap(),
///     )
///     .await
///     .unwrap();
/// assert_eq!(preflight.headers()[header::ACCESS_CONTROL_ALLOW_ORIGIN], "*");
/// # });
/// # Ok::<(), ag_ui::axum::RegistryError>(())
/// ```
#[derive(Default)]
pub struct AgentRegistry {
    agents: Vec<AgentInfo>,
    routes: Router,
}

impl fmt::Debug for AgentRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentRegistry")
            .field("agents", &self.agents)
            .finish_non_exhaustive()
    }
}

impl AgentRegistry {
    /// A registry with no agent.
    pub fn new() -> Self {
        Self::default()
    }

    /// Serves `endpoint` at `POST /agents/{id}` and lists it.
    ///
    /// # Errors
    ///
    /// A [`RegistryError`] when the id is not a plain path segment
    /// ([`RegistryErrorKind::InvalidId`]) or is taken ([`RegistryErrorKind::DuplicateId`]).
    pub fn register<H: RunHandler>(
        &mut self,
        info: AgentInfo,
        endpoint: AgentEndpoint<H>,
    ) -> Result<&mut Self, RegistryError> {
        let refuse = |kind, message| RegistryError {
            kind,
            id: info.id.clone(),
            message,
        };
        let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~');
        if info.id.is_empty()
            || info.id.len() > MAX_ID_LEN
            || !info.id.chars().all(plain)
            || info.id == "."
            || info.id == ".."
        {
            return Err(refuse(
                RegistryErrorKind::InvalidId,
                "an id is 1 to 128 ASCII letters, digits, '-', '_', '.' or '~' (not . or ..)",
            ));
        }
        if self.agents.iter().any(|a| a.id == info.id) {
            return Err(refuse(
                RegistryErrorKind::DuplicateId,
                "an agent with this id is registered already",
            ));
        }
        let mut info = info;
        if endpoint.is_resumable() {
            // A resumable endpoint says so, whatever was declared.
            info.capabilities
                .transport
                .get_or_insert_with(Default::default)
                .resumable = Some(true);
        }
        let routes = std::mem::take(&mut self.routes);
        self.routes = routes.route(
            &format!("/agents/{}", info.id),
            endpoint.into_method_router(),
        );
        self.agents.push(info);
        Ok(self)
    }

    /// The agents, in registration order.
    pub fn agents(&self) -> &[AgentInfo] {
        &self.agents
    }

    /// The router: the agents, the listing, their capabilities, the health route.
    pub fn into_router<S: Clone + Send + Sync + 'static>(self) -> Router<S> {
        let agents: Arc<[AgentInfo]> = self.agents.into();
        let listing = {
            let agents = Arc::clone(&agents);
            move || async move {
                json_ok(
                    &json!({ "agents": agents.iter().map(AgentInfo::listing).collect::<Vec<_>>() }),
                )
            }
        };
        let capabilities = {
            let agents = Arc::clone(&agents);
            move |Path(id): Path<String>| async move {
                match agents.iter().find(|a| a.id == id) {
                    Some(agent) => json_ok(&json!(agent.capabilities)),
                    None => unknown(&agents, &id),
                }
            }
        };
        let health = {
            let count = agents.len();
            move || async move { json_ok(&json!({ "status": "ok", "agents": count })) }
        };
        let missing = {
            let agents = Arc::clone(&agents);
            move |Path(id): Path<String>| async move { unknown(&agents, &id) }
        };
        Router::new()
            .route("/agents", get(listing))
            .route("/agents/{id}/capabilities", get(capabilities))
            .route("/agents/{id}", any(missing))
            .route("/health", get(health))
            .merge(self.routes)
            .with_state(())
    }
}

fn json_ok(body: &serde_json::Value) -> Response {
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body.to_string(),
    )
        .into_response()
}

fn unknown(agents: &[AgentInfo], id: &str) -> Response {
    let known: Vec<&str> = agents.iter().map(|a| a.id.as_str()).collect();
    let message = if known.is_empty() {
        format!("there is no agent {id:?}; this server has none")
    } else {
        format!(
            "there is no agent {id:?}; this server has {}",
            known.join(", ")
        )
    };
    error_response(StatusCode::NOT_FOUND, "unknown-agent", &message, None)
}
