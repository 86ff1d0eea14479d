//! What `ag-ui serve` hosts: every agent in an [`AgentRegistry`] (`/agents`, `/agents/{id}`,
//! `/agents/{id}/capabilities`, `/health`), one of them also at the old path (`/` by default)
//! so existing clients keep working, behind a CORS layer for browser frontends.

use ag_ui::axum::{AgentInfo, AgentRegistry};
use std::time::Duration;

use ag_ui::axum::{AgentEndpoint, RouterExt, RunHandler};
use ag_ui::capabilities::{
    AgentCapabilities, HumanInTheLoopCapabilities, IdentityCapabilities, MultiAgentCapabilities,
    ReasoningCapabilities, StateCapabilities, ToolsCapabilities, TransportCapabilities,
};
use ag_ui::server::downgrade::{ClientVersion, DowngradeConfig};
use ag_ui::server::transform::DEFAULT_COALESCE_BYTES;
use axum::http::{HeaderValue, Method, header, request::Parts};
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::failure::Failure;

/// The demo agent's listing entry.
pub(crate) fn demo_info() -> AgentInfo {
    AgentInfo::new("demo")
        .with_description(
            "The built-in demo agent: reasoning, a tool call, state deltas, two concurrent \
             subagents, and an interrupt when asked to confirm",
        )
        .with_capabilities(AgentCapabilities {
            identity: Some(IdentityCapabilities {
                name: Some("ag-ui demo agent".to_owned()),
                version: Some(env!("CARGO_PKG_VERSION").to_owned()),
                ..Default::default()
            }),
            transport: Some(TransportCapabilities {
                streaming: Some(true),
                ..Default::default()
            }),
            tools: Some(ToolsCapabilities {
                supported: Some(true),
                ..Default::default()
            }),
            state: Some(StateCapabilities {
                snapshots: Some(true),
                deltas: Some(true),
                ..Default::default()
            }),
            multi_agent: Some(MultiAgentCapabilities {
                supported: Some(true),
                delegation: Some(true),
                ..Default::default()
            }),
            reasoning: Some(ReasoningCapabilities {
                supported: Some(true),
                streaming: Some(true),
                ..Default::default()
            }),
            human_in_the_loop: Some(HumanInTheLoopCapabilities {
                supported: Some(true),
                interrupts: Some(true),
                ..Default::default()
            }),
            ..Default::default()
        })
}

/// A recording's listing entry.
pub(crate) fn replay_info(file: &str, events: usize) -> AgentInfo {
    AgentInfo::new("replay")
        .with_description(format!(
            "A recording ({events} events, from {file}) replayed for every run, with the run's ids"
        ))
        .with_capabilities(AgentCapabilities {
            transport: Some(TransportCapabilities {
                streaming: Some(true),
                ..Default::default()
            }),
            ..Default::default()
        })
}

/// Which origins a browser page may call the agents from: pages served from this machine
/// (`http://localhost:*`, `http://127.0.0.1:*`, `http://[::1]:*`) always, and `extra` (`*` for
/// any). A page elsewhere gets no CORS headers, so its browser keeps it from calling.
pub(crate) fn cors(extra: &[String]) -> Result<CorsLayer, Failure> {
    let any = extra.iter().any(|o| o == "*");
    let mut listed = Vec::new();
    for origin in extra.iter().filter(|o| *o != "*") {
        listed.push(
            HeaderValue::from_str(origin.trim_end_matches('/')).map_err(|_| {
                Failure::Usage(format!("--cors-origin {origin:?} is not a valid origin"))
            })?,
        );
    }
    let origins = if any {
        AllowOrigin::any()
    } else {
        AllowOrigin::predicate(move |origin: &HeaderValue, _: &Parts| {
            local_origin(origin) || listed.contains(origin)
        })
    };
    Ok(CorsLayer::new()
        .allow_origin(origins)
        .allow_methods([Method::GET, Method::POST])
        .allow_headers([header::CONTENT_TYPE, header::ACCEPT, header::AUTHORIZATION]))
}

fn local_origin(origin: &HeaderValue) -> bool {
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let host = match rest.strip_prefix("[::1]") {
        Some(port) => return port.is_empty() || is_port(port),
        None => rest,
    };
    let (name, port) = match host.find(':') {
        Some(at) => (&host[..at], Some(&host[at..])),
        None => (host, None),
    };
    matches!(name, "localhost" | "127.0.0.1") && port.is_none_or(is_port)
}

fn is_port(text: &str) -> bool {
    text.strip_prefix(':')
        .is_some_and(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// A model agent's listing entry.
pub(crate) fn model_info(model: &str, base_url: &str) -> AgentInfo {
    AgentInfo::new("model")
        .with_description(format!(
            "{model} at {base_url}, through the OpenAI-compatible model bridge; its tools are the \
             frontend's"
        ))
        .with_capabilities(AgentCapabilities {
            transport: Some(TransportCapabilities {
                streaming: Some(true),
                ..Default::default()
            }),
            tools: Some(ToolsCapabilities {
                supported: Some(true),
                ..Default::default()
            }),
            reasoning: Some(ReasoningCapabilities {
                supported: Some(true),
                streaming: Some(true),
                ..Default::default()
            }),
            ..Default::default()
        })
}

/// Refuses a `path` that the registry itself uses.
///
/// # Errors
///
/// A usage failure when `path` does not start with `/`, or is `/agents…` or `/health`.
pub(crate) fn check_path(path: &str) -> Result<(), Failure> {
    if !path.starts_with('/')
        || path == "/agents"
        || path.starts_with("/agents/")
        || path == "/health"
    {
        return Err(Failure::Usage(format!(
            "--path {path:?}: a path starts with / and is not /agents… or /health, which list the agents"
        )));
    }
    Ok(())
}

/// Adds an agent to `registry`; on a resumable server its capabilities say so
/// (`transport.resumable`), since every endpoint it hosts keeps its runs in the log.
///
/// # Errors
///
/// A usage failure when the registry refuses its id.
pub(crate) fn host<H: RunHandler>(
    registry: &mut AgentRegistry,
    info: AgentInfo,
    handler: H,
    options: &Options,
) -> Result<(), Failure> {
    let info = if options.log.is_some() {
        let mut capabilities = info.capabilities().clone();
        capabilities
            .transport
            .get_or_insert_with(Default::default)
            .resumable = Some(true);
        info.with_capabilities(capabilities)
    } else {
        info
    };
    registry
        .register(info, endpoint(handler, options))
        .map(|_| ())
        .map_err(|e| Failure::Usage(e.to_string()))
}

/// The router: the agents of `registry`, `root` also at `path`, and CORS.
///
/// # Errors
///
/// A usage failure when `path` is one of the registry's own paths.
pub(crate) fn router<T: RunHandler>(
    path: &str,
    root: T,
    registry: AgentRegistry,
    cors: CorsLayer,
    options: &Options,
) -> Result<axum::Router, Failure> {
    check_path(path)?;
    Ok(registry
        .into_router()
        .agent(path, endpoint(root, options))
        .with_json_errors()
        .layer(cors))
}

/// The event log of a resumable server (`serve --resumable`), shared by all its endpoints.
pub(crate) type Log = std::sync::Arc<dyn ag_ui::server::log::EventLog>;

/// How `serve` builds each endpoint it hosts.
#[derive(Clone, Default)]
pub(crate) struct Options {
    /// Join deltas that arrive within this window of each other (`--coalesce-ms`).
    pub(crate) coalesce: Option<Duration>,
    /// Make runs resumable on this event log (`--resumable`).
    pub(crate) log: Option<Log>,
    /// The oldest pre-1.0 client served (`--old-clients`).
    pub(crate) oldest_client: Option<ClientVersion>,
}

/// An endpoint for `handler`, with the options given.
fn endpoint<H: RunHandler>(handler: H, options: &Options) -> AgentEndpoint<H> {
    let mut endpoint = AgentEndpoint::new(handler)
        .with_downgrade(DowngradeConfig::default().with_oldest_client(options.oldest_client));
    if let Some(window) = options.coalesce {
        endpoint = endpoint.with_coalescing(DEFAULT_COALESCE_BYTES, window);
    }
    match &options.log {
        Some(log) => endpoint.with_resumable_log(std::sync::Arc::clone(log)),
        None => endpoint,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_origins_are_recognised_and_others_are_not() {
        for origin in [
            "http://localhost",
            "http://localhost:5173",
            "http://127.0.0.1:3000",
            "https://localhost:8443",
            "http://[::1]:8080",
        ] {
            assert!(local_origin(&HeaderValue::from_static(origin)), "{origin}");
        }
        for origin in [
            "http://localhost.evil.example",
            "http://127.0.0.1.nip.io",
            "http://evil.example",
            "http://localhost:",
            "http://localhost:99999999",
            "http://localhost:80/path",
            "file://",
            "null",
        ] {
            assert!(!local_origin(&HeaderValue::from_static(origin)), "{origin}");
        }
    }

    #[test]
    fn a_path_that_the_registry_uses_is_refused() {
        for path in ["/agents", "/agents/demo", "/health", "agent"] {
            let mut registry = AgentRegistry::new();
            let demo = ag_ui::server::Runner::new(ag_ui_demo_agent::DemoAgent::new());
            host(
                &mut registry,
                demo_info(),
                demo.clone(),
                &Options::default(),
            )
            .unwrap();
            let result = router(
                path,
                demo,
                registry,
                cors(&[]).unwrap(),
                &Options::default(),
            );
            assert!(matches!(result, Err(Failure::Usage(_))), "{path}");
            assert!(matches!(check_path(path), Err(Failure::Usage(_))), "{path}");
        }
        assert!(cors(&["not an origin\n".to_owned()]).is_err());
    }
}
