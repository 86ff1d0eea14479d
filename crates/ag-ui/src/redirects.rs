//! The one redirect policy of the crate's HTTP clients (`HttpAgent`'s and `OpenAiClient`'s own
//! reqwest clients): a redirect is followed within the request's origin (scheme, host, port),
//! at most [`MAX_REDIRECTS`] times; one to another origin is not followed but handed back as
//! the response, so no request body (a conversation) or header (a key) goes to a host the
//! caller did not name. `HttpAgent` may then follow it itself without its headers
//! (`with_cross_origin_redirects`); the model bridge reports it as the provider's answer.

/// How many redirects one request follows.
pub(crate) const MAX_REDIRECTS: usize = 10;

/// The policy: within the origin only, at most [`MAX_REDIRECTS`] times.
pub(crate) fn same_origin() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let cross = attempt
            .previous()
            .last()
            .is_some_and(|previous| previous.origin() != attempt.url().origin());
        if cross {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error("too many redirects")
        } else {
            attempt.follow()
        }
    })
}
