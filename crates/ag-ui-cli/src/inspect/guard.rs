//! Who may talk to the inspector: its own page, and nothing a web page elsewhere can reach.
//!
//! The inspector listens on a local port, so any page the user visits can send requests to it,
//! and a page under a DNS name that an attacker points at 127.0.0.1 (DNS rebinding) even reads
//! the answers. Three checks, on every route, stop that:
//!
//! - the `Host` header must name the address the inspector listens on: the bound IP with its
//!   port, or, when bound to a loopback or unspecified address, `localhost`, `127.0.0.1` or
//!   `[::1]` with the port. A rebinding page's requests carry its own DNS name and are refused;
//! - an `Origin` header, when present, must be `http://` with such a host: a cross-site
//!   `fetch` or form post always carries its origin;
//! - every request that changes something (any method but `GET` and `HEAD`) must carry the
//!   session token in [`TOKEN_HEADER`]. The token is random, drawn at start, and embedded in the
//!   page the inspector serves (which only a request passing the `Host` check gets, and which a
//!   cross-origin page cannot read).
//!
//! A refused request gets `403` with a JSON error body naming what was wrong.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use super::error;
use crate::failure::Failure;

/// The request header that carries the session token.
pub(crate) const TOKEN_HEADER: &str = "x-ag-ui-inspector-token";

/// The placeholder in the page's HTML that is replaced by the session token.
const TOKEN_PLACEHOLDER: &str = "{{AG_UI_INSPECTOR_TOKEN}}";

/// The longest `Host` or `Origin` value quoted back in a refusal.
const QUOTED: usize = 80;

/// The checks of one inspector session.
#[derive(Debug)]
pub(crate) struct Guard {
    /// The address the inspector listens on.
    bound: SocketAddr,
    /// The session token, 32 hex digits.
    token: String,
}

impl Guard {
    /// A guard for a server bound to `bound`, with a fresh random token.
    ///
    /// # Errors
    ///
    /// When the system's random source cannot be read.
    pub(crate) fn new(bound: SocketAddr) -> Result<Self, Failure> {
        Ok(Self::with_token(bound, random_token()?))
    }

    /// A guard with a given token (tests).
    pub(crate) fn with_token(bound: SocketAddr, token: String) -> Self {
        Self { bound, token }
    }

    /// The page's HTML with the session token in place.
    pub(crate) fn page(&self, html: &str) -> String {
        html.replace(TOKEN_PLACEHOLDER, &self.token)
    }

    /// Whether `authority` (a `Host` value, or an origin without its scheme) names this server.
    fn is_own_authority(&self, authority: &str) -> bool {
        let (host, port) = match authority.rsplit_once(':') {
            // `[::1]` alone has a colon inside its brackets, but no port after them.
            Some((host, port)) if !port.ends_with(']') => match port.parse::<u16>() {
                Ok(port) => (host, port),
                Err(_) => return false,
            },
            _ => (authority, 80),
        };
        if port != self.bound.port() {
            return false;
        }
        let bound = self.bound.ip();
        let local = bound.is_loopback() || bound.is_unspecified();
        if host.eq_ignore_ascii_case("localhost") {
            return local;
        }
        let literal = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        // A DNS name other than localhost is refused: a rebinding page's requests carry one.
        let Ok(ip) = literal.parse::<IpAddr>() else {
            return false;
        };
        ip == bound || bound.is_unspecified() || (bound.is_loopback() && ip.is_loopback())
    }

    /// Why a request is refused, if it is: `(kind, message)`.
    fn refusal(&self, method: &Method, headers: &HeaderMap) -> Option<(&'static str, String)> {
        // Two Host headers name two authorities: which one a proxy or the router believes is
        // not this guard's to guess.
        if headers.get_all(header::HOST).iter().nth(1).is_some() {
            return Some((
                "forbidden-host",
                "the request has more than one Host header".into(),
            ));
        }
        let host = headers.get(header::HOST).map(|v| v.to_str().unwrap_or(""));
        match host {
            Some(host) if self.is_own_authority(host) => {}
            Some(host) => {
                return Some((
                    "forbidden-host",
                    format!(
                        "Host {} is not this inspector's address ({})",
                        ag_ui::excerpt(host, QUOTED),
                        self.bound
                    ),
                ));
            }
            None => return Some(("forbidden-host", "the request has no Host header".into())),
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            let own = origin
                .strip_prefix("http://")
                .is_some_and(|authority| self.is_own_authority(authority));
            if !own {
                return Some((
                    "forbidden-origin",
                    format!(
                        "requests from origin {} are refused: only the inspector's own page may \
                         use it",
                        ag_ui::excerpt(origin, QUOTED)
                    ),
                ));
            }
        }
        if method != Method::GET && method != Method::HEAD {
            let given = headers.get(TOKEN_HEADER).map(|v| v.as_bytes());
            if !given.is_some_and(|given| same(given, self.token.as_bytes())) {
                return Some((
                    "missing-token",
                    format!(
                        "this request changes something and needs the session token in \
                         {TOKEN_HEADER}, as the inspector's page sends it"
                    ),
                ));
            }
        }
        None
    }
}

/// The middleware: a refused request never reaches a route.
pub(crate) async fn check(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    match guard.refusal(request.method(), request.headers()) {
        Some((kind, message)) => error(StatusCode::FORBIDDEN, kind, message),
        None => next.run(request).await,
    }
}

/// Compares without stopping at the first difference, so the time taken says nothing of how
/// much of a guess was right.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// 128 random bits from the system's source, as 32 hex digits.
fn random_token() -> Result<String, Failure> {
    use std::io::Read as _;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| {
            Failure::Usage(format!(
                "cannot draw the inspector's session token from /dev/urandom: {e}"
            ))
        })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn hosts_and_origins_must_name_the_bound_address() {
        let guard = Guard::with_token("127.0.0.1:4000".parse().unwrap(), "t".repeat(32));
        for own in [
            "127.0.0.1:4000",
            "localhost:4000",
            "LOCALHOST:4000",
            "[::1]:4000",
        ] {
            assert!(guard.is_own_authority(own), "{own}");
        }
        for foreign in [
            "127.0.0.1:4001",
            "evil.example:4000",
            "localhost",
            "127.0.0.1",
            "[::1]",
            "10.0.0.1:4000",
            "localhost:x",
            "",
        ] {
            assert!(!guard.is_own_authority(foreign), "{foreign}");
        }
        let public = Guard::with_token("10.1.2.3:80".parse().unwrap(), "t".repeat(32));
        assert!(public.is_own_authority("10.1.2.3"));
        assert!(public.is_own_authority("10.1.2.3:80"));
        assert!(!public.is_own_authority("localhost:80"));
        assert!(!public.is_own_authority("127.0.0.1:80"));
        let get = Method::GET;
        assert!(
            guard
                .refusal(&get, &headers(&[("host", "localhost:4000")]))
                .is_none()
        );
        let (kind, message) = guard
            .refusal(
                &get,
                &headers(&[("host", "localhost:4000"), ("origin", "null")]),
            )
            .unwrap();
        assert_eq!(kind, "forbidden-origin", "{message}");
        let long = format!("{}:4000", "a".repeat(10_000));
        let (kind, message) = guard.refusal(&get, &headers(&[("host", &long)])).unwrap();
        assert_eq!(kind, "forbidden-host");
        assert!(message.len() < 400, "{message}");
    }

    #[test]
    fn the_token_is_random_and_compared_whole() {
        let a = random_token().unwrap();
        let b = random_token().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"abcd"));
        let guard = Guard::with_token("127.0.0.1:4000".parse().unwrap(), a.clone());
        let post = Method::POST;
        let host = ("host", "127.0.0.1:4000");
        assert_eq!(
            guard.refusal(&post, &headers(&[host])).unwrap().0,
            "missing-token"
        );
        assert_eq!(
            guard
                .refusal(&post, &headers(&[host, (TOKEN_HEADER, &b)]))
                .unwrap()
                .0,
            "missing-token"
        );
        assert!(
            guard
                .refusal(&post, &headers(&[host, (TOKEN_HEADER, &a)]))
                .is_none()
        );
        assert!(
            guard
                .page("<meta content=\"{{AG_UI_INSPECTOR_TOKEN}}\">")
                .contains(&a)
        );
    }
}
