//! The parsers of command-line values shared by the commands: `--resume`, `--header`, seconds
//! (`--connect-timeout`, `--idle-timeout`, `--timeout`, `--probe-timeout`) and endpoint URLs.
//! Each returns the message of a usage error (exit 2).

use std::time::Duration;

use ag_ui::ResumeEntry;

/// Parses `--resume ID[=JSON]`: a resolved entry with the JSON payload (`{"approved":true}`
/// when absent or empty), or `ID=cancel` for a cancelled one.
///
/// Interrupt ids may themselves contain `=`: the split is at the first `=` whose remainder is
/// a payload (empty, `cancel` or JSON), so `a=b=cancel` cancels `a=b`. With no `=` at all the
/// argument is the id; with `=` but no payload it is refused, naming the first split.
pub(crate) fn parse_resume(arg: &str) -> Result<ResumeEntry, String> {
    let approved = || serde_json::json!({ "approved": true });
    if arg.is_empty() || arg.starts_with('=') {
        return Err(format!("--resume {arg:?}: expected ID or ID=JSON"));
    }
    let mut first_error = None;
    for (at, _) in arg.match_indices('=') {
        let (id, payload) = (&arg[..at], &arg[at + 1..]);
        match payload {
            "" => return Ok(ResumeEntry::resolved(id, approved())),
            "cancel" => return Ok(ResumeEntry::cancelled(id)),
            json => match serde_json::from_str(json) {
                Ok(p) => return Ok(ResumeEntry::resolved(id, p)),
                Err(e) => {
                    first_error.get_or_insert_with(|| {
                        format!("--resume {id}: the payload is not JSON: {e}")
                    });
                }
            },
        }
    }
    match first_error {
        Some(error) => Err(error),
        None => Ok(ResumeEntry::resolved(arg, approved())),
    }
}

/// Parses `--header K:V`; a name or value that is not valid in HTTP is refused, naming the
/// header (not its value, which may be a secret).
pub(crate) fn parse_header(arg: &str) -> Result<(String, String), String> {
    use reqwest::header::{HeaderName, HeaderValue};
    match arg.split_once(':') {
        Some((k, v)) if !k.trim().is_empty() => {
            let (name, value) = (k.trim(), v.trim());
            HeaderName::from_bytes(name.as_bytes())
                .map_err(|e| format!("--header {name:?}: {e}"))?;
            HeaderValue::from_str(value).map_err(|e| format!("--header {name:?}: {e}"))?;
            Ok((name.to_owned(), value.to_owned()))
        }
        _ => Err(format!("--header {arg:?}: expected NAME:VALUE")),
    }
}

/// Parses `--connect-timeout` / `--idle-timeout SECS`: a positive number of seconds.
pub(crate) fn parse_secs(arg: &str) -> Result<Duration, String> {
    arg.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| *s > 0.0)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("{arg:?} is not a positive number of seconds"))
}

/// Checks the endpoint of `run`: an absolute http or https URL.
pub(crate) fn parse_url(arg: &str) -> Result<String, String> {
    match reqwest::Url::parse(arg) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => Ok(arg.to_owned()),
        Ok(url) => Err(format!(
            "{arg:?} is not an http or https URL (scheme {:?})",
            url.scheme()
        )),
        Err(e) => Err(format!("{arg:?} is not a valid URL: {e}")),
    }
}

#[cfg(test)]
mod resume_tests {
    use super::parse_resume;

    fn parts(arg: &str) -> (String, String) {
        let entry = parse_resume(arg).unwrap();
        let json = serde_json::to_value(&entry).unwrap();
        (
            json["interruptId"].as_str().unwrap().to_owned(),
            json.get("payload")
                .map(|p| p.to_string())
                .unwrap_or_default()
                + json["status"].as_str().unwrap(),
        )
    }

    #[test]
    fn ids_with_equals_signs_keep_them() {
        assert_eq!(
            parts("a"),
            ("a".into(), r#"{"approved":true}resolved"#.into())
        );
        assert_eq!(
            parts("a="),
            ("a".into(), r#"{"approved":true}resolved"#.into())
        );
        assert_eq!(parts("a=cancel"), ("a".into(), "cancelled".into()));
        assert_eq!(parts("a=b=cancel"), ("a=b".into(), "cancelled".into()));
        assert_eq!(
            parts(r#"a=b={"x":1}"#),
            ("a=b".into(), r#"{"x":1}resolved"#.into())
        );
        assert_eq!(
            parts("a=b="),
            ("a=b".into(), r#"{"approved":true}resolved"#.into())
        );
        assert_eq!(
            parts(r#"a={"k":"v=w"}"#),
            ("a".into(), r#"{"k":"v=w"}resolved"#.into())
        );
    }

    #[test]
    fn a_payload_that_is_not_json_is_refused_naming_the_first_split() {
        let error = parse_resume("a=tru").unwrap_err();
        assert!(
            error.starts_with("--resume a: the payload is not JSON"),
            "{error}"
        );
        assert!(parse_resume("").is_err());
        assert!(parse_resume("=x").is_err());
    }
}
