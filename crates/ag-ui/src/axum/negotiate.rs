//! Choosing the response's encoding from the request's `Accept` header (RFC 9110 q-values and
//! specificity): SSE by default, protobuf when asked for above it.

use ::axum::http::{HeaderMap, header};

use super::input::{InputRejection, RejectionKind};
use crate::encoding::{Format, PROTO_MEDIA_TYPE};

/// Chooses the encoding for an `Accept` header value (`None` when the header is absent), by
/// the rules of RFC 9110 §12.5.1.
///
/// * Each media range may carry a quality `q` (0 to 1, default 1); a `q` that is not a number
///   in that range counts as 0. Other parameters are ignored.
/// * For each encoding offered, the **most specific** range that matches it applies: the
///   exact type beats `type/*`, which beats `*/*`, whatever their order in the header (among
///   ranges equally specific, the first one). `text/event-stream;q=0, */*` therefore refuses
///   SSE.
/// * The offered encoding with the highest quality is chosen; a quality of 0 excludes it; on
///   equal quality SSE wins. So `*/*` (and an absent or empty header) gets SSE, and protobuf
///   is sent only when the client names it (or `application/*`) above everything that
///   matches SSE.
///
/// Protobuf ([`Format::Proto`](crate::encoding::Format::Proto)) is offered only with the `proto` feature; without it a
/// client asking only for protobuf gets the `406`, whose message says so.
///
/// # Errors
///
/// An [`InputRejection`] of kind [`RejectionKind::NotAcceptable`] when nothing this endpoint
/// produces is acceptable; the message names what is offered.
///
/// ```
/// use ag_ui::axum::negotiate;
/// use ag_ui::encoding::Format;
///
/// assert_eq!(negotiate(None).unwrap(), Format::Sse);
/// assert_eq!(negotiate(Some("text/event-stream")).unwrap(), Format::Sse);
/// assert_eq!(negotiate(Some("application/json, */*;q=0.1")).unwrap(), Format::Sse);
/// assert!(negotiate(Some("application/json")).is_err());
/// assert!(negotiate(Some("text/event-stream;q=0")).is_err());
/// ```
pub fn negotiate(accept: Option<&str>) -> Result<Format, InputRejection> {
    let Some(accept) = accept.map(str::trim).filter(|a| !a.is_empty()) else {
        return Ok(Format::Sse);
    };
    // Per format offered (`Format::ALL`, SSE first: on equal quality the earlier one wins):
    // (specificity of the applying range, its quality).
    let mut applying: [Option<(u8, f32)>; Format::ALL.len()] = [None; Format::ALL.len()];
    for range in split_unquoted(accept) {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or("").trim();
        let Some((kind, subtype)) = media.split_once('/') else {
            continue;
        };
        let (kind, subtype) = (kind.trim(), subtype.trim());
        let mut q = 1.0_f32;
        for param in parts {
            if let Some((k, v)) = param.split_once('=')
                && k.trim().eq_ignore_ascii_case("q")
            {
                q = v
                    .trim()
                    .parse::<f32>()
                    .ok()
                    .filter(|q| (0.0..=1.0).contains(q))
                    .unwrap_or(0.0);
                // What follows `q` are accept-extensions, not media type parameters.
                break;
            }
        }
        for (slot, offer) in applying.iter_mut().zip(Format::ALL) {
            let (offer_type, offer_subtype) =
                offer.media_type().split_once('/').unwrap_or_default();
            let specificity = if kind == "*" && subtype == "*" {
                1
            } else if !kind.eq_ignore_ascii_case(offer_type) {
                continue;
            } else if subtype == "*" {
                2
            } else if subtype.eq_ignore_ascii_case(offer_subtype) {
                3
            } else {
                continue;
            };
            if slot.is_none_or(|(s, _)| specificity > s) {
                *slot = Some((specificity, q));
            }
        }
    }
    let mut best: Option<(Format, f32)> = None;
    for (slot, &format) in applying.iter().zip(Format::ALL) {
        if let Some((_, q)) = *slot
            && q > 0.0
            && best.is_none_or(|(_, b)| q > b)
        {
            best = Some((format, q));
        }
    }
    if let Some((format, _)) = best {
        return Ok(format);
    }
    let offered = Format::ALL
        .iter()
        .map(|format| format.media_type())
        .collect::<Vec<_>>()
        .join(", ");
    let wants_proto = accept.to_ascii_lowercase().contains(PROTO_MEDIA_TYPE);
    let message = if wants_proto && !cfg!(feature = "proto") {
        format!(
            "Accept: {accept:?} asks for protobuf ({PROTO_MEDIA_TYPE}), which this server was built without; it produces {offered}"
        )
    } else {
        format!("Accept: {accept:?} accepts nothing this endpoint produces ({offered})")
    };
    Err(InputRejection::new(RejectionKind::NotAcceptable, message))
}

/// Splits a header value on commas that are not inside double quotes.
fn split_unquoted(value: &str) -> impl Iterator<Item = &str> {
    let mut quoted = false;
    let mut start = 0;
    let mut pieces = Vec::new();
    for (i, c) in value.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => {
                pieces.push(&value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces.push(&value[start..]);
    pieces.into_iter()
}

/// The value of the request's `Accept` header(s): several header lines are one list (RFC 9110
/// §5.3); a value that is not visible ASCII is left out. `None` when there is none.
pub(crate) fn accept_header(headers: &HeaderMap) -> Option<String> {
    let mut values = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok());
    let first = values.next()?;
    let mut joined = first.to_owned();
    for value in values {
        joined.push_str(", ");
        joined.push_str(value);
    }
    Some(joined)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::axum::http::HeaderValue;

    #[test]
    fn negotiation_follows_specificity_and_quality() {
        assert_eq!(negotiate(Some("")).unwrap(), Format::Sse);
        assert_eq!(negotiate(Some("*/*")).unwrap(), Format::Sse);
        assert_eq!(negotiate(Some("text/*")).unwrap(), Format::Sse);
        assert_eq!(
            negotiate(Some("TEXT/EVENT-STREAM; charset=utf-8")).unwrap(),
            Format::Sse
        );
        // The exact range wins over the wildcard, whatever their order.
        // (With the `proto` feature, that `*/*` still admits protobuf.)
        assert_eq!(
            negotiate(Some("*/*, text/event-stream;q=0")).is_ok(),
            cfg!(feature = "proto")
        );
        assert!(negotiate(Some("text/*, text/event-stream;q=0")).is_err());
        assert_eq!(
            negotiate(Some("text/event-stream;q=0.2, */*;q=0")).unwrap(),
            Format::Sse
        );
        assert!(negotiate(Some("application/json, text/html")).is_err());
        // Invalid or out-of-range qualities exclude their range.
        assert!(negotiate(Some("text/event-stream;q=x")).is_err());
        assert!(negotiate(Some("text/event-stream;q=2")).is_err());
        assert!(negotiate(Some("text/event-stream;q=-0.5")).is_err());
        assert!(negotiate(Some("event-stream, ;q=1, /")).is_err());
        // Among equally specific ranges, the first applies.
        assert!(negotiate(Some("text/*;q=0, text/*;q=1")).is_err());
        let err = negotiate(Some("application/json")).unwrap_err();
        assert_eq!(err.kind(), RejectionKind::NotAcceptable);
        assert!(err.message().contains("text/event-stream"), "{err}");
        assert_eq!(
            negotiate(Some(r#"text/plain;x="a,b", text/event-stream"#)).unwrap(),
            Format::Sse
        );
    }

    #[cfg(not(feature = "proto"))]
    #[test]
    fn without_the_proto_feature_a_request_for_protobuf_only_is_refused() {
        let err = negotiate(Some("application/vnd.ag-ui.event+proto")).unwrap_err();
        assert_eq!(err.kind(), RejectionKind::NotAcceptable);
        assert!(err.message().contains("protobuf"), "{err}");
        assert!(err.message().contains("text/event-stream"), "{err}");
        assert_eq!(
            negotiate(Some("application/vnd.ag-ui.event+proto, */*;q=0.1")).unwrap(),
            Format::Sse
        );
    }

    #[cfg(feature = "proto")]
    #[test]
    fn protobuf_is_chosen_when_asked_for_above_sse() {
        const P: &str = "application/vnd.ag-ui.event+proto";
        let table: &[(&str, Option<Format>)] = &[
            (P, Some(Format::Proto)),
            ("APPLICATION/VND.AG-UI.EVENT+PROTO", Some(Format::Proto)),
            ("application/*", Some(Format::Proto)),
            ("*/*", Some(Format::Sse)),
            ("", Some(Format::Sse)),
            // A tie favours SSE, whatever the order.
            (&format!("{P}, text/event-stream"), Some(Format::Sse)),
            (&format!("text/event-stream, {P}"), Some(Format::Sse)),
            (
                &format!("{P};q=0.9, text/event-stream;q=0.9"),
                Some(Format::Sse),
            ),
            // The higher quality wins.
            (
                &format!("text/event-stream;q=0.5, {P}"),
                Some(Format::Proto),
            ),
            (&format!("text/event-stream, {P};q=0.5"), Some(Format::Sse)),
            (&format!("{P}, */*;q=0.1"), Some(Format::Proto)),
            // The exact range applies, not the wildcard that also matches.
            (&format!("*/*, {P};q=0"), Some(Format::Sse)),
            (&format!("{P};q=0, application/*"), None),
            ("*/*, text/event-stream;q=0", Some(Format::Proto)),
            (&format!("{P}, text/*;q=0.3"), Some(Format::Proto)),
            ("application/*;q=0.2, text/*;q=0.1", Some(Format::Proto)),
            (
                &format!("{P}; charset=utf-8; q=0.8, text/event-stream;q=0.7"),
                Some(Format::Proto),
            ),
            // q=0 excludes.
            (&format!("{P};q=0"), None),
            (&format!("{P};q=0, text/event-stream;q=0"), None),
            ("application/json", None),
        ];
        for (accept, expected) in table {
            let got = negotiate(Some(accept));
            match expected {
                Some(encoding) => assert_eq!(got.as_ref().ok(), Some(encoding), "{accept}"),
                None => {
                    let err = got.unwrap_err();
                    assert_eq!(err.kind(), RejectionKind::NotAcceptable, "{accept}");
                    assert!(err.message().contains(P), "{err}");
                    assert!(err.message().contains("text/event-stream"), "{err}");
                }
            }
        }
        assert_eq!(Format::Proto.media_type(), P);
    }

    #[test]
    fn several_accept_lines_are_one_list() {
        let mut h = HeaderMap::new();
        assert_eq!(accept_header(&h), None);
        h.append(header::ACCEPT, HeaderValue::from_static("application/json"));
        h.append(
            header::ACCEPT,
            HeaderValue::from_static("text/event-stream;q=0.5"),
        );
        let joined = accept_header(&h).unwrap();
        assert_eq!(joined, "application/json, text/event-stream;q=0.5");
        assert_eq!(negotiate(Some(&joined)).unwrap(), Format::Sse);
    }
}
