//! The report of `conformance server`: a table for the terminal, JSON (`--json`) and JUnit
//! XML (`--junit FILE`, one test case per check, so that any CI shows it); and [`quote`],
//! what a server sent as every failure quotes it.

use serde_json::json;

use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

use super::{Group, Report, Verdict};

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
    let [passed, failed, skipped] = report.counts();
    out.push_str(&format!(
        "\n{passed} passed, {failed} failed, {skipped} skipped"
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
                "group": c.group.as_str(),
                "about": c.about,
                "verdict": c.verdict.as_str(),
                "detail": c.verdict.detail(),
                "seconds": c.elapsed.as_secs_f64(),
            })
        })
        .collect();
    let [passed, failed, skipped] = report.counts();
    let value = json!({
        "url": report.url,
        "passed": passed,
        "failed": failed,
        "skipped": skipped,
        "checks": checks,
    });
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

/// The report as JUnit XML, written by `quick-junit`: one `<testsuite>` per group, one
/// `<testcase>` per check, with `<failure>` or `<skipped>` carrying the reason. What a server
/// sent is made XML text first ([`xml_text`]).
pub(crate) fn junit(report: &Report) -> String {
    let mut groups: Vec<Group> = Vec::new();
    for check in &report.checks {
        if !groups.contains(&check.group) {
            groups.push(check.group);
        }
    }
    let mut out = quick_junit::Report::new(xml_text(&format!("ag-ui conformance {}", report.url)));
    out.set_time(report.checks.iter().map(|c| c.elapsed).sum());
    for group in groups {
        let mut suite = TestSuite::new(group.as_str());
        let checks = || report.checks.iter().filter(move |c| c.group == group);
        suite.set_time(checks().map(|c| c.elapsed).sum());
        for check in checks() {
            let status = match &check.verdict {
                Verdict::Pass => TestCaseStatus::success(),
                Verdict::Fail(why) => {
                    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    status.set_message(xml_text(why));
                    status.set_description(xml_text(check.about));
                    status
                }
                Verdict::Skip(why) => {
                    let mut status = TestCaseStatus::skipped();
                    status.set_message(xml_text(why));
                    status
                }
            };
            let mut case = TestCase::new(xml_text(&check.name), status);
            case.set_classname(format!("conformance.{}", group.as_str()));
            case.set_time(check.elapsed);
            suite.add_test_case(case);
        }
        out.add_test_suite(suite);
    }
    out.to_string().unwrap_or_default()
}

/// `text` with every character XML 1.0 cannot hold (control characters but tab, line feed
/// and carriage return; U+FFFE and U+FFFF) written as `\u{…}`, so that what a server sent
/// reads in the report instead of being dropped or making the file ill-formed. (quick-junit
/// escapes markup and drops control characters, but passes U+FFFE and U+FFFF.)
fn xml_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
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
            group: Group::Core,
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

    /// Whatever a server's text holds, the report is well-formed XML that says it: parsed by
    /// an XML parser, the failure's message reads back (it was ill-formed with U+FFFE or
    /// U+FFFF).
    #[test]
    fn junit_is_well_formed_whatever_a_server_sent() {
        let mut hostile = report();
        let sent = "got \"<500>\" & \u{1b}[31m \u{FFFE}\u{FFFF}\u{1}\u{7f} ]]> end";
        hostile.checks[1].verdict = Verdict::Fail(sent.to_owned());
        let xml = junit(&hostile);
        let document = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}: {xml}"));
        let cases: Vec<_> = document
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        assert_eq!(cases.len(), 3);
        let failure = document
            .descendants()
            .find(|n| n.has_tag_name("failure"))
            .unwrap();
        assert_eq!(
            failure.attribute("message"),
            Some("got \"<500>\" & \\u{1b}[31m \\u{fffe}\\u{ffff}\\u{1}\\u{7f} ]]> end")
        );
        let suites = document.root_element();
        assert_eq!(suites.attribute("tests"), Some("3"));
        assert_eq!(suites.attribute("failures"), Some("1"));
        assert!(
            document
                .descendants()
                .any(|n| n.has_tag_name("skipped") && n.attribute("message") == Some("why"))
        );
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
