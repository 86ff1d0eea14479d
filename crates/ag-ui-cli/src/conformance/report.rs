//! The report of `conformance server`: a table for the terminal, JSON (`--json`) and JUnit
//! XML (`--junit FILE`, one test case per check, so that any CI shows it); and [`quote`],
//! what a server sent as every failure quotes it.

use serde_json::json;

use super::{Report, Verdict};

/// Bytes a peer sent, as text (invalid UTF-8 as U+FFFD), quoted through [`ag_ui::excerpt`]
/// (the one way the crate quotes peer text: bounded, with the original length). Failures
/// print it with `{:?}`, which writes control characters as escapes, so nothing a server sends
/// reaches a terminal as a control sequence.
pub(crate) fn quote(bytes: &[u8]) -> String {
    ag_ui::excerpt(&String::from_utf8_lossy(bytes), ag_ui::EXCERPT_BYTES).into_owned()
}

/// The report as a table: one line per check (verdict, name, time), the failure's or
/// skip's reason under it, and a summary line.
pub(crate) fn table(report: &Report, color: bool) -> String {
    let paint = |verdict: &Verdict| {
        let word = verdict.as_str().to_uppercase();
        if !color {
            return word;
        }
        let code = match verdict {
            Verdict::Pass => "32",
            Verdict::Fail(_) => "31",
            Verdict::Skip(_) => "33",
        };
        format!("\x1b[{code}m{word}\x1b[0m")
    };
    let width = report
        .checks
        .iter()
        .map(|c| c.name.len())
        .max()
        .unwrap_or(0);
    let mut out = format!(
        "conformance of {}\n\n",
        visible(&quote(report.url.as_bytes()))
    );
    for check in &report.checks {
        out.push_str(&format!(
            "{}  {:width$}  {:>6.2}s  {}\n",
            paint(&check.verdict),
            check.name,
            check.elapsed.as_secs_f64(),
            check.about,
        ));
        let detail = check.verdict.detail();
        if !detail.is_empty() {
            out.push_str(&format!("      {:width$}  └ {}\n", "", visible(detail)));
        }
    }
    out.push_str(&format!(
        "\n{} passed, {} failed, {} skipped",
        report.count("pass"),
        report.count("fail"),
        report.count("skip")
    ));
    out
}

/// The report as one JSON document:
/// `{"url", "passed", "failed", "skipped", "checks": [{"name", "group", "about", "verdict",
/// "detail", "seconds"}]}`.
pub(crate) fn json(report: &Report) -> String {
    let checks: Vec<_> = report
        .checks
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "group": c.group,
                "about": c.about,
                "verdict": c.verdict.as_str(),
                "detail": c.verdict.detail(),
                "seconds": c.elapsed.as_secs_f64(),
            })
        })
        .collect();
    let value = json!({
        "url": report.url,
        "passed": report.count("pass"),
        "failed": report.count("fail"),
        "skipped": report.count("skip"),
        "checks": checks,
    });
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

/// The report as JUnit XML: one `<testsuite>` per group, one `<testcase>` per check, with
/// `<failure>` or `<skipped>` carrying the reason.
pub(crate) fn junit(report: &Report) -> String {
    let mut groups: Vec<&str> = Vec::new();
    for check in &report.checks {
        if !groups.contains(&check.group) {
            groups.push(check.group);
        }
    }
    let total: f64 = report.checks.iter().map(|c| c.elapsed.as_secs_f64()).sum();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"ag-ui conformance {}\" \
         tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{total:.3}\">\n",
        xml(&report.url),
        report.checks.len(),
        report.count("fail"),
        report.count("skip"),
    );
    for group in groups {
        let checks: Vec<_> = report.checks.iter().filter(|c| c.group == group).collect();
        let count = |kind: &str| checks.iter().filter(|c| c.verdict.as_str() == kind).count();
        let time: f64 = checks.iter().map(|c| c.elapsed.as_secs_f64()).sum();
        out.push_str(&format!(
            "  <testsuite name=\"{group}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" \
             time=\"{time:.3}\">\n",
            checks.len(),
            count("fail"),
            count("skip"),
        ));
        for check in checks {
            out.push_str(&format!(
                "    <testcase classname=\"conformance.{group}\" name=\"{}\" time=\"{:.3}\"",
                xml(&check.name),
                check.elapsed.as_secs_f64()
            ));
            match &check.verdict {
                Verdict::Pass => out.push_str("/>\n"),
                Verdict::Fail(why) => out.push_str(&format!(
                    ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n",
                    xml(why),
                    xml(check.about)
                )),
                Verdict::Skip(why) => out.push_str(&format!(
                    ">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                    xml(why)
                )),
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// Text escaped for an XML attribute or element; characters XML 1.0 cannot hold at all
/// (most control characters) are written as `\u{…}`.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// A detail with its control characters escaped (details quote servers).
fn visible(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                format!("\\u{{{:x}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::Check;
    use super::*;

    fn report() -> Report {
        let check = |name: &str, verdict| Check {
            group: "core",
            name: name.to_owned(),
            about: "about",
            verdict,
            elapsed: Duration::from_millis(5),
        };
        Report {
            url: "http://h/<x>".to_owned(),
            checks: vec![
                check("core.a", Verdict::Pass),
                check(
                    "core.b",
                    Verdict::Fail("got \"<500>\" & \u{1b}[31m".to_owned()),
                ),
                check("core.c", Verdict::Skip("why".to_owned())),
            ],
        }
    }

    #[test]
    fn quotes_are_bounded_and_printable() {
        let long = vec![b'a'; 10_000];
        let text = quote(&long);
        assert!(text.len() < ag_ui::EXCERPT_BYTES + 30, "{text}");
        assert!(text.ends_with("… (10000 bytes)"), "{text}");
        assert_eq!(
            format!("{:?}", quote(b"a\x1b[2Jb\n")),
            "\"a\\u{1b}[2Jb\\n\""
        );
        assert_eq!(quote(b"\xff"), "\u{fffd}");
    }

    #[test]
    fn junit_has_one_escaped_testcase_per_check() {
        let xml = junit(&report());
        assert_eq!(xml.matches("<testcase ").count(), 3);
        assert!(xml.contains("tests=\"3\" failures=\"1\" skipped=\"1\""));
        assert!(xml.contains("got &quot;&lt;500&gt;&quot; &amp; \\u{1b}[31m"));
        assert!(xml.contains("<skipped message=\"why\"/>"));
        assert!(!xml.contains('\u{1b}'));
    }

    #[test]
    fn json_and_table_count_the_verdicts() {
        let value: serde_json::Value = serde_json::from_str(&json(&report())).unwrap();
        assert_eq!(
            (&value["passed"], &value["failed"], &value["skipped"]),
            (&json!(1), &json!(1), &json!(1))
        );
        assert_eq!(value["checks"][1]["verdict"], "fail");
        let text = table(&report(), false);
        assert!(text.ends_with("1 passed, 1 failed, 1 skipped"), "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");
    }
}
