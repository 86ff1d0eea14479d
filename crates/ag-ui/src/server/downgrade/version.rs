//! Which clients are downgraded: the request's `protocolVersion`, and the oldest client a
//! deployment says it serves.

use std::fmt;
use std::str::FromStr;

/// Whether a client declaring `protocol_version` (the `protocolVersion` of its
/// `RunAgentInput`) needs the downgraded stream: yes when the version is absent or numeric and
/// below 1.0; no for 1.0, later versions, and versions outside the `major.minor` grammar
/// (which the protocol reads as newer ones).
pub fn needs_downgrade(protocol_version: Option<&str>) -> bool {
    let Some(version) = protocol_version else {
        return true;
    };
    let mut parts = version.split('.');
    let major = parts.next().and_then(numeric);
    let Some(major) = major else {
        return false;
    };
    if major > 0 {
        return false;
    }
    // Major 0: below 1.0 whatever follows, as long as the rest is numeric too.
    parts.all(|p| numeric(p).is_some())
}

fn numeric(part: &str) -> Option<u64> {
    if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    part.parse().ok()
}

/// A release of `@ag-ui/client` (or of a client that reads what it reads): `0.0.57`, `1.0.0`.
///
/// Pre-1.0 clients send no `protocolVersion`, so a server cannot tell them apart; a deployment
/// that knows the oldest one it serves names it, and the downgrade keeps what that client
/// already reads (see [`DowngradeConfig::oldest_client`](super::DowngradeConfig::oldest_client)).
/// Ordered by release.
///
/// ```
/// use ag_ui::server::downgrade::ClientVersion;
///
/// let v: ClientVersion = "0.0.57".parse().unwrap();
/// assert_eq!(v, ClientVersion::new(0, 0, 57));
/// assert!(v > "0.0.52".parse().unwrap());
/// assert_eq!(v.to_string(), "0.0.57");
/// assert!("0.0".parse::<ClientVersion>().is_err());
/// assert!("v0.0.57".parse::<ClientVersion>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClientVersion {
    major: u32,
    minor: u32,
    patch: u32,
}

impl ClientVersion {
    /// Version `major.minor.patch`.
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        Self {
            major,
            minor,
            patch,
        }
    }

    /// Whether this is a 1.0 client or later (one that sends `protocolVersion`).
    pub const fn is_1_0_or_later(self) -> bool {
        self.major >= 1
    }
}

impl fmt::Display for ClientVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl FromStr for ClientVersion {
    type Err = ClientVersionError;

    /// Reads `major.minor.patch`, three decimal numbers.
    fn from_str(s: &str) -> Result<Self, ClientVersionError> {
        let error = || ClientVersionError {
            excerpt: crate::excerpt(s, 40).into_owned(),
        };
        let mut parts = s.split('.').map(|p| {
            if p.is_empty() || p.len() > 9 || !p.bytes().all(|b| b.is_ascii_digit()) {
                None
            } else {
                p.parse::<u32>().ok()
            }
        });
        let mut next = || parts.next().flatten().ok_or_else(error);
        let version = ClientVersion::new(next()?, next()?, next()?);
        if parts.next().is_some() {
            return Err(error());
        }
        Ok(version)
    }
}

/// A client version that is not `major.minor.patch` (three decimal numbers, such as `0.0.57`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a client version is three numbers, such as 0.0.57, not {excerpt}")]
pub struct ClientVersionError {
    excerpt: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        for legacy in [None, Some("0.9"), Some("0.0.42"), Some("0"), Some("0.0")] {
            assert!(needs_downgrade(legacy), "{legacy:?}");
        }
        for current in [
            Some("1.0"),
            Some("1.1"),
            Some("2.0"),
            Some("next"),
            Some(""),
            Some("0.x"),
            Some("-1.0"),
        ] {
            assert!(!needs_downgrade(current), "{current:?}");
        }
    }

    #[test]
    fn client_versions_parse_strictly_and_order_by_release() {
        assert_eq!(
            "0.0.9".parse::<ClientVersion>().unwrap(),
            ClientVersion::new(0, 0, 9)
        );
        assert!(ClientVersion::new(0, 0, 9) < ClientVersion::new(0, 0, 10));
        assert!(ClientVersion::new(0, 0, 59) < ClientVersion::new(1, 0, 0));
        assert!(ClientVersion::new(1, 0, 0).is_1_0_or_later());
        assert!(!ClientVersion::new(0, 9, 9).is_1_0_or_later());
        for bad in [
            "",
            "0",
            "0.0",
            "0.0.57.1",
            "0..57",
            "0.0.-1",
            "0.0.57-alpha",
            " 0.0.57",
            "0.0.9999999999",
            "x.y.z",
        ] {
            let error = bad.parse::<ClientVersion>().unwrap_err();
            assert!(error.to_string().contains("three numbers"), "{bad:?}");
        }
    }
}
