//! Transports' byte formats.
//!
//! `sse` (feature `sse`) is the Server-Sent Events framing every AG-UI client understands;
//! `proto` (feature `proto`) is the binary transport, length-prefixed protobuf frames (`application/vnd.ag-ui.event+proto`).
//! [`Format`] names the two, with their media types: the server's content negotiation
//! (`ag_ui::axum::negotiate`) answers one, the client's `client::Pipeline`
//! reads one, chosen from the response's `Content-Type` by [`Format::from_content_type`].
//!
//! ```
//! use ag_ui::encoding::{Format, SSE_MEDIA_TYPE};
//!
//! assert_eq!(Format::Sse.media_type(), SSE_MEDIA_TYPE);
//! assert_eq!(Format::from_content_type("text/event-stream; charset=utf-8"), Some(Format::Sse));
//! assert_eq!(Format::from_content_type("application/json"), None);
//! ```

#[cfg(feature = "proto")]
#[cfg_attr(docsrs, doc(cfg(feature = "proto")))]
pub mod proto;
#[cfg(feature = "sse")]
#[cfg_attr(docsrs, doc(cfg(feature = "sse")))]
pub mod sse;

/// The media types as literals, for `concat!` (an `Accept` header built at compile time).
#[allow(unused_macros)]
macro_rules! media_type {
    (sse) => {
        "text/event-stream"
    };
    (proto) => {
        "application/vnd.ag-ui.event+proto"
    };
}
#[allow(unused_imports)]
pub(crate) use media_type;

/// The media type of an SSE event stream, [`Format::Sse`].
pub const SSE_MEDIA_TYPE: &str = media_type!(sse);

/// The media type of the protobuf transport, `Format::Proto`: the body is length-prefixed
/// `ag_ui.Event` frames. Named in every build (a server built without the `proto` feature says
/// why it refuses a request for it).
///
/// The reference client reads a response as protobuf only when its `Content-Type` is exactly
/// this string (a parameter makes it SSE).
pub const PROTO_MEDIA_TYPE: &str = media_type!(proto);

/// The `Accept` header of a client that asks for protobuf first, SSE still welcome (the native
/// and the browser HTTP agents alike).
#[cfg(all(feature = "proto", any(feature = "http", feature = "browser")))]
pub(crate) const ACCEPT_PROTO_FIRST: &str =
    concat!(media_type!(proto), ", ", media_type!(sse), ";q=0.5");

/// An encoding of AG-UI events on the wire: what a server answers and a client reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Server-Sent Events whose data are JSON events ([`SSE_MEDIA_TYPE`], `text/event-stream`).
    #[default]
    Sse,
    /// Length-prefixed protobuf events ([`PROTO_MEDIA_TYPE`],
    /// `application/vnd.ag-ui.event+proto`), see [`encoding::proto`](crate::encoding::proto).
    #[cfg(feature = "proto")]
    #[cfg_attr(docsrs, doc(cfg(feature = "proto")))]
    Proto,
}

impl Format {
    /// The formats this build offers, SSE first (with the `proto` feature, protobuf after it).
    pub const ALL: &'static [Format] = &[
        Format::Sse,
        #[cfg(feature = "proto")]
        Format::Proto,
    ];

    /// The media type, the `Content-Type` of a response in this format.
    pub const fn media_type(self) -> &'static str {
        match self {
            Format::Sse => SSE_MEDIA_TYPE,
            #[cfg(feature = "proto")]
            Format::Proto => PROTO_MEDIA_TYPE,
        }
    }

    /// The format a `Content-Type` declares: its media type compared case-insensitively,
    /// parameters (`; charset=utf-8`) ignored. `None` for any other media type, and for
    /// protobuf without the `proto` feature.
    pub fn from_content_type(content_type: &str) -> Option<Format> {
        let essence = content_type.split(';').next().unwrap_or("").trim();
        Format::ALL
            .iter()
            .copied()
            .find(|format| essence.eq_ignore_ascii_case(format.media_type()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_name_their_format() {
        for accepted in [
            "text/event-stream",
            "Text/Event-Stream",
            "text/event-stream; charset=utf-8",
            " text/event-stream ;charset=UTF-8",
        ] {
            assert_eq!(
                Format::from_content_type(accepted),
                Some(Format::Sse),
                "{accepted}"
            );
        }
        for proto in [
            "application/vnd.ag-ui.event+proto",
            "Application/Vnd.AG-UI.Event+Proto; x=1",
        ] {
            #[cfg(feature = "proto")]
            assert_eq!(Format::from_content_type(proto), Some(Format::Proto));
            #[cfg(not(feature = "proto"))]
            assert_eq!(Format::from_content_type(proto), None);
        }
        for refused in [
            "application/json",
            "text/html",
            "text/event-streamx",
            "text/plain; x=text/event-stream",
            "",
        ] {
            assert_eq!(Format::from_content_type(refused), None, "{refused}");
        }
    }

    #[test]
    fn media_types() {
        assert_eq!(SSE_MEDIA_TYPE, "text/event-stream");
        assert_eq!(PROTO_MEDIA_TYPE, "application/vnd.ag-ui.event+proto");
        assert_eq!(Format::default(), Format::Sse);
        assert_eq!(Format::Sse.media_type(), SSE_MEDIA_TYPE);
        #[cfg(feature = "proto")]
        assert_eq!(Format::Proto.media_type(), PROTO_MEDIA_TYPE);
        assert_eq!(Format::ALL[0], Format::Sse);
    }
}
