//! The corpus as data: the official spec 1.1 streams and this project's scenarios, compiled in
//! ([`official`], [`ours`]), and any directory of fixtures read from disk, bounded
//! ([`load_dir`]).

use std::io::Read;
use std::path::Path;

use crate::error::{FixtureError, FixtureErrorKind};
use crate::fixture::{Fixture, MAX_FIXTURE_BYTES};

/// Which set a fixture belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Set {
    /// The official AG-UI corpus (`spec/1.1/conformance/streams` of the ag-ui repository).
    Official,
    /// This project's scenarios, in the corpus's format.
    Ours,
    /// Four fixtures of the next specification's draft: the rules this project's verifier
    /// enforces ahead of the reference (`corpus/draft/ORIGIN.md`).
    Draft,
}

impl Set {
    /// `official` or `ours`.
    pub fn as_str(self) -> &'static str {
        match self {
            Set::Official => "official",
            Set::Ours => "ours",
            Set::Draft => "draft",
        }
    }
}

/// The most fixture files [`load_dir`] reads.
pub const MAX_FILES: usize = 1000;

/// The most bytes [`load_dir`] reads in all.
pub const MAX_TOTAL_BYTES: u64 = 64 * 1024 * 1024;

/// The official corpus, compiled in: the 68 fixtures of `corpus/official/MANIFEST.txt`.
///
/// # Errors
/// None in practice (a test reads every fixture); a [`FixtureError`] naming the file if a copy
/// were broken.
pub fn official() -> Result<Vec<Fixture>, FixtureError> {
    read_embedded(OFFICIAL)
}

/// This project's scenarios, compiled in: `corpus/ours/MANIFEST.txt`.
///
/// # Errors
/// As [`official`].
pub fn ours() -> Result<Vec<Fixture>, FixtureError> {
    read_embedded(OURS)
}

/// The draft fixtures, compiled in: `corpus/draft/MANIFEST.txt`.
///
/// # Errors
/// As [`official`].
pub fn draft() -> Result<Vec<Fixture>, FixtureError> {
    read_embedded(DRAFT)
}

/// The names of the compiled-in fixtures of `set`, in order.
pub fn names(set: Set) -> impl Iterator<Item = &'static str> {
    match set {
        Set::Official => OFFICIAL,
        Set::Ours => OURS,
        Set::Draft => DRAFT,
    }
    .iter()
    .map(|(name, _)| *name)
}

fn read_embedded(list: &[(&str, &str)]) -> Result<Vec<Fixture>, FixtureError> {
    list.iter()
        .map(|(name, text)| {
            let fixture = Fixture::from_slice(text.as_bytes())
                .map_err(|e| e.with_file(format!("{name}.json")))?;
            if fixture.name != *name {
                return Err(FixtureError::new(
                    FixtureErrorKind::Shape,
                    "the fixture's name is not its file's",
                )
                .with_file(format!("{name}.json")));
            }
            Ok(fixture)
        })
        .collect()
}

/// Reads every `*.json` file of `dir` as a fixture, in name order, as hostile input: at most
/// [`MAX_FILES`] files of at most [`MAX_FIXTURE_BYTES`] each and [`MAX_TOTAL_BYTES`] in all,
/// each fixture named as its file.
///
/// # Errors
/// A [`FixtureError`] naming the file: [`Io`](FixtureErrorKind::Io) when the directory or a
/// file cannot be read, [`TooLarge`](FixtureErrorKind::TooLarge) past a bound, or the
/// fixture's own error.
pub fn load_dir(dir: &Path) -> Result<Vec<Fixture>, FixtureError> {
    let io = |e: std::io::Error, what: &str| {
        FixtureError::new(FixtureErrorKind::Io, "cannot be read")
            .with_file(what.to_owned())
            .with_source(e)
    };
    let shown = dir.display().to_string();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| io(e, &shown))? {
        let entry = entry.map_err(|e| io(e, &shown))?;
        let file_name = entry.file_name();
        let Some(name) = file_name.to_str().and_then(|n| n.strip_suffix(".json")) else {
            continue;
        };
        if files.len() == MAX_FILES {
            return Err(FixtureError::new(
                FixtureErrorKind::TooLarge,
                format!("more than {MAX_FILES} fixture files"),
            )
            .with_file(shown));
        }
        files.push((name.to_owned(), entry.path()));
    }
    files.sort();
    let mut total = 0u64;
    let mut fixtures = Vec::with_capacity(files.len());
    for (name, path) in files {
        let label = format!("{name}.json");
        let file = std::fs::File::open(&path).map_err(|e| io(e, &label))?;
        let mut bytes = Vec::new();
        // One byte past the limit tells a file over it from one exactly at it.
        file.take(MAX_FIXTURE_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| io(e, &label))?;
        total += bytes.len() as u64;
        if total > MAX_TOTAL_BYTES {
            return Err(FixtureError::new(
                FixtureErrorKind::TooLarge,
                format!("the fixtures are over {MAX_TOTAL_BYTES} bytes in all"),
            )
            .with_file(label));
        }
        let fixture = Fixture::from_slice(&bytes).map_err(|e| e.with_file(label.clone()))?;
        if fixture.name != name {
            return Err(FixtureError::new(
                FixtureErrorKind::Shape,
                format!(
                    "the fixture is named {:?}, not as its file",
                    crate::error::quote(&fixture.name)
                ),
            )
            .with_file(label));
        }
        fixtures.push(fixture);
    }
    Ok(fixtures)
}

/// The official corpus: (name, file) for each fixture, in name order.
const OFFICIAL: &[(&str, &str)] = &[
    (
        "activity-delta-missing-target-tolerated",
        include_str!("../corpus/official/activity-delta-missing-target-tolerated.json"),
    ),
    (
        "activity-replace-false-preserves",
        include_str!("../corpus/official/activity-replace-false-preserves.json"),
    ),
    (
        "activity-snapshot-then-delta",
        include_str!("../corpus/official/activity-snapshot-then-delta.json"),
    ),
    (
        "chunk-conflicting-role-fatal",
        include_str!("../corpus/official/chunk-conflicting-role-fatal.json"),
    ),
    (
        "chunk-conflicting-tool-name-fatal",
        include_str!("../corpus/official/chunk-conflicting-tool-name-fatal.json"),
    ),
    (
        "chunk-expansion-assembles",
        include_str!("../corpus/official/chunk-expansion-assembles.json"),
    ),
    (
        "chunk-repeat-identical-accepted",
        include_str!("../corpus/official/chunk-repeat-identical-accepted.json"),
    ),
    (
        "conformant-run-is-quiet",
        include_str!("../corpus/official/conformant-run-is-quiet.json"),
    ),
    (
        "content-without-start-fatal",
        include_str!("../corpus/official/content-without-start-fatal.json"),
    ),
    (
        "current-peer-declares-protocol-version",
        include_str!("../corpus/official/current-peer-declares-protocol-version.json"),
    ),
    (
        "custom-closes-chunk-stream-fatal",
        include_str!("../corpus/official/custom-closes-chunk-stream-fatal.json"),
    ),
    (
        "encrypted-value-unknown-entity-tolerated",
        include_str!("../corpus/official/encrypted-value-unknown-entity-tolerated.json"),
    ),
    (
        "era-0-0-39-flattens-content",
        include_str!("../corpus/official/era-0-0-39-flattens-content.json"),
    ),
    (
        "era-0-0-45-thinking-translated",
        include_str!("../corpus/official/era-0-0-45-thinking-translated.json"),
    ),
    (
        "era-0-0-47-upgrades-binary-content",
        include_str!("../corpus/official/era-0-0-47-upgrades-binary-content.json"),
    ),
    (
        "era-0-0-57-subagent-dropped-with-warning",
        include_str!("../corpus/official/era-0-0-57-subagent-dropped-with-warning.json"),
    ),
    (
        "era-current-peer-keeps-modern-content",
        include_str!("../corpus/official/era-current-peer-keeps-modern-content.json"),
    ),
    (
        "era-pinned-peer-omits-protocol-version",
        include_str!("../corpus/official/era-pinned-peer-omits-protocol-version.json"),
    ),
    (
        "event-after-run-finished-fatal",
        include_str!("../corpus/official/event-after-run-finished-fatal.json"),
    ),
    (
        "first-chunk-missing-id-fatal",
        include_str!("../corpus/official/first-chunk-missing-id-fatal.json"),
    ),
    (
        "first-event-not-run-started-fatal",
        include_str!("../corpus/official/first-event-not-run-started-fatal.json"),
    ),
    (
        "first-tool-chunk-missing-name-fatal",
        include_str!("../corpus/official/first-tool-chunk-missing-name-fatal.json"),
    ),
    (
        "late-run-error-after-finished-run-continues",
        include_str!("../corpus/official/late-run-error-after-finished-run-continues.json"),
    ),
    (
        "malformed-known-field-fatal",
        include_str!("../corpus/official/malformed-known-field-fatal.json"),
    ),
    (
        "messages-snapshot-reconciles-by-id",
        include_str!("../corpus/official/messages-snapshot-reconciles-by-id.json"),
    ),
    (
        "metadata-merges-last-write-wins",
        include_str!("../corpus/official/metadata-merges-last-write-wins.json"),
    ),
    (
        "nested-run-started-fatal",
        include_str!("../corpus/official/nested-run-started-fatal.json"),
    ),
    (
        "open-message-at-run-finished-fatal",
        include_str!("../corpus/official/open-message-at-run-finished-fatal.json"),
    ),
    (
        "open-metadata-preserved",
        include_str!("../corpus/official/open-metadata-preserved.json"),
    ),
    (
        "open-object-patch-op-extras",
        include_str!("../corpus/official/open-object-patch-op-extras.json"),
    ),
    (
        "producer-declares-newer-version-warns",
        include_str!("../corpus/official/producer-declares-newer-version-warns.json"),
    ),
    (
        "producer-declares-same-version-quiet",
        include_str!("../corpus/official/producer-declares-same-version-quiet.json"),
    ),
    (
        "producer-declares-uninterpretable-version-warns",
        include_str!("../corpus/official/producer-declares-uninterpretable-version-warns.json"),
    ),
    (
        "raw-and-custom-pass-through",
        include_str!("../corpus/official/raw-and-custom-pass-through.json"),
    ),
    (
        "raw-does-not-close-chunk-stream",
        include_str!("../corpus/official/raw-does-not-close-chunk-stream.json"),
    ),
    (
        "reasoning-discipline-verified",
        include_str!("../corpus/official/reasoning-discipline-verified.json"),
    ),
    (
        "reasoning-message-wrong-role-fatal",
        include_str!("../corpus/official/reasoning-message-wrong-role-fatal.json"),
    ),
    (
        "reasoning-span-and-message",
        include_str!("../corpus/official/reasoning-span-and-message.json"),
    ),
    (
        "reopen-closed-message-appends",
        include_str!("../corpus/official/reopen-closed-message-appends.json"),
    ),
    (
        "run-error-first-run-continues",
        include_str!("../corpus/official/run-error-first-run-continues.json"),
    ),
    (
        "run-error-then-new-run-continues",
        include_str!("../corpus/official/run-error-then-new-run-continues.json"),
    ),
    (
        "run-finished-cancelled-outcome-accepted",
        include_str!("../corpus/official/run-finished-cancelled-outcome-accepted.json"),
    ),
    (
        "run-finished-interrupt-outcome-accepted",
        include_str!("../corpus/official/run-finished-interrupt-outcome-accepted.json"),
    ),
    (
        "run-finished-with-active-subagent-fatal",
        include_str!("../corpus/official/run-finished-with-active-subagent-fatal.json"),
    ),
    (
        "state-delta-applies",
        include_str!("../corpus/official/state-delta-applies.json"),
    ),
    (
        "state-delta-unappliable-warns-and-keeps",
        include_str!("../corpus/official/state-delta-unappliable-warns-and-keeps.json"),
    ),
    (
        "state-delta-unknown-op-dropped",
        include_str!("../corpus/official/state-delta-unknown-op-dropped.json"),
    ),
    (
        "state-falsy-snapshot-applies",
        include_str!("../corpus/official/state-falsy-snapshot-applies.json"),
    ),
    (
        "state-null-snapshot-applies",
        include_str!("../corpus/official/state-null-snapshot-applies.json"),
    ),
    (
        "state-snapshot-replaces",
        include_str!("../corpus/official/state-snapshot-replaces.json"),
    ),
    (
        "step-finished-without-start-fatal",
        include_str!("../corpus/official/step-finished-without-start-fatal.json"),
    ),
    (
        "subagent-attribution-mismatch-fatal",
        include_str!("../corpus/official/subagent-attribution-mismatch-fatal.json"),
    ),
    (
        "subagent-finished-unstarted-fatal",
        include_str!("../corpus/official/subagent-finished-unstarted-fatal.json"),
    ),
    (
        "subagent-started-missing-name-fatal",
        include_str!("../corpus/official/subagent-started-missing-name-fatal.json"),
    ),
    (
        "subagent-terminal-closes-open-chunk-stream",
        include_str!("../corpus/official/subagent-terminal-closes-open-chunk-stream.json"),
    ),
    (
        "subagent-unannounced-attribution-accepted",
        include_str!("../corpus/official/subagent-unannounced-attribution-accepted.json"),
    ),
    (
        "tool-call-metadata-lands-on-the-call",
        include_str!("../corpus/official/tool-call-metadata-lands-on-the-call.json"),
    ),
    (
        "tool-call-triad-assembles",
        include_str!("../corpus/official/tool-call-triad-assembles.json"),
    ),
    (
        "tool-result-file-source-passes-through",
        include_str!("../corpus/official/tool-result-file-source-passes-through.json"),
    ),
    (
        "tool-result-parts-mint-tool-message",
        include_str!("../corpus/official/tool-result-parts-mint-tool-message.json"),
    ),
    (
        "triad-assembles-message",
        include_str!("../corpus/official/triad-assembles-message.json"),
    ),
    (
        "two-sequential-runs-accumulate",
        include_str!("../corpus/official/two-sequential-runs-accumulate.json"),
    ),
    (
        "unknown-enum-value-role-fatal",
        include_str!("../corpus/official/unknown-enum-value-role-fatal.json"),
    ),
    (
        "unknown-event-dropped",
        include_str!("../corpus/official/unknown-event-dropped.json"),
    ),
    (
        "unknown-outcome-array-fatal",
        include_str!("../corpus/official/unknown-outcome-array-fatal.json"),
    ),
    (
        "unknown-outcome-stripped",
        include_str!("../corpus/official/unknown-outcome-stripped.json"),
    ),
    (
        "unknown-part-in-message-list",
        include_str!("../corpus/official/unknown-part-in-message-list.json"),
    ),
    (
        "unknown-property-stripped",
        include_str!("../corpus/official/unknown-property-stripped.json"),
    ),
];

/// This project's scenarios: (name, file) for each, in name order.
const OURS: &[(&str, &str)] = &[
    ("activity", include_str!("../corpus/ours/activity.json")),
    (
        "cut-before-finish",
        include_str!("../corpus/ours/cut-before-finish.json"),
    ),
    (
        "cut-mid-run",
        include_str!("../corpus/ours/cut-mid-run.json"),
    ),
    ("interrupt", include_str!("../corpus/ours/interrupt.json")),
    (
        "interrupt-resume",
        include_str!("../corpus/ours/interrupt-resume.json"),
    ),
    (
        "messages-snapshot",
        include_str!("../corpus/ours/messages-snapshot.json"),
    ),
    (
        "order-after-finish",
        include_str!("../corpus/ours/order-after-finish.json"),
    ),
    (
        "order-content-before-run",
        include_str!("../corpus/ours/order-content-before-run.json"),
    ),
    (
        "order-content-before-start",
        include_str!("../corpus/ours/order-content-before-start.json"),
    ),
    (
        "order-subagent-owner-mismatch",
        include_str!("../corpus/ours/order-subagent-owner-mismatch.json"),
    ),
    (
        "order-tool-end-unopened",
        include_str!("../corpus/ours/order-tool-end-unopened.json"),
    ),
    (
        "order-unclosed-at-finish",
        include_str!("../corpus/ours/order-unclosed-at-finish.json"),
    ),
    (
        "patch-array-end-and-index",
        include_str!("../corpus/ours/patch-array-end-and-index.json"),
    ),
    (
        "patch-escaped-pointers",
        include_str!("../corpus/ours/patch-escaped-pointers.json"),
    ),
    (
        "patch-move-copy",
        include_str!("../corpus/ours/patch-move-copy.json"),
    ),
    (
        "patch-null-values",
        include_str!("../corpus/ours/patch-null-values.json"),
    ),
    (
        "patch-test-passes",
        include_str!("../corpus/ours/patch-test-passes.json"),
    ),
    (
        "patch-whole-document",
        include_str!("../corpus/ours/patch-whole-document.json"),
    ),
    (
        "protobuf-reasoning-subagent",
        include_str!("../corpus/ours/protobuf-reasoning-subagent.json"),
    ),
    (
        "protobuf-text",
        include_str!("../corpus/ours/protobuf-text.json"),
    ),
    (
        "protobuf-tools-state",
        include_str!("../corpus/ours/protobuf-tools-state.json"),
    ),
    ("reasoning", include_str!("../corpus/ours/reasoning.json")),
    (
        "reasoning-chunks",
        include_str!("../corpus/ours/reasoning-chunks.json"),
    ),
    ("run-error", include_str!("../corpus/ours/run-error.json")),
    (
        "sse-comments-and-framing",
        include_str!("../corpus/ours/sse-comments-and-framing.json"),
    ),
    (
        "state-delta-add-replace-remove",
        include_str!("../corpus/ours/state-delta-add-replace-remove.json"),
    ),
    (
        "state-snapshot",
        include_str!("../corpus/ours/state-snapshot.json"),
    ),
    (
        "state-snapshots-replace",
        include_str!("../corpus/ours/state-snapshots-replace.json"),
    ),
    (
        "steps-custom-raw",
        include_str!("../corpus/ours/steps-custom-raw.json"),
    ),
    (
        "subagent-chunks",
        include_str!("../corpus/ours/subagent-chunks.json"),
    ),
    (
        "subagents-concurrent",
        include_str!("../corpus/ours/subagents-concurrent.json"),
    ),
    (
        "surrogates-text",
        include_str!("../corpus/ours/surrogates-text.json"),
    ),
    (
        "surrogates-tool-args",
        include_str!("../corpus/ours/surrogates-tool-args.json"),
    ),
    ("text-basic", include_str!("../corpus/ours/text-basic.json")),
    (
        "text-chunks",
        include_str!("../corpus/ours/text-chunks.json"),
    ),
    (
        "text-chunks-new-id",
        include_str!("../corpus/ours/text-chunks-new-id.json"),
    ),
    (
        "text-empty-deltas",
        include_str!("../corpus/ours/text-empty-deltas.json"),
    ),
    (
        "text-two-messages",
        include_str!("../corpus/ours/text-two-messages.json"),
    ),
    ("tool-call", include_str!("../corpus/ours/tool-call.json")),
    (
        "tool-call-chunks",
        include_str!("../corpus/ours/tool-call-chunks.json"),
    ),
    (
        "tool-call-no-parent",
        include_str!("../corpus/ours/tool-call-no-parent.json"),
    ),
    (
        "tool-call-result",
        include_str!("../corpus/ours/tool-call-result.json"),
    ),
    (
        "tool-calls-interleaved",
        include_str!("../corpus/ours/tool-calls-interleaved.json"),
    ),
    (
        "unknown-event-type",
        include_str!("../corpus/ours/unknown-event-type.json"),
    ),
];

/// The draft fixtures: (name, file) for each, in name order.
const DRAFT: &[(&str, &str)] = &[
    (
        "duplicate-interrupt-id-fatal",
        include_str!("../corpus/draft/duplicate-interrupt-id-fatal.json"),
    ),
    (
        "run-finished-wrong-run-id-fatal",
        include_str!("../corpus/draft/run-finished-wrong-run-id-fatal.json"),
    ),
    (
        "run-finished-wrong-thread-id-fatal",
        include_str!("../corpus/draft/run-finished-wrong-thread-id-fatal.json"),
    ),
    (
        "second-run-on-another-thread-fatal",
        include_str!("../corpus/draft/second-run-on-another-thread-fatal.json"),
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The compiled-in lists, the directories and the manifests agree, in both directions: a
    /// fixture that disappears, or one added without being listed, is a failure.
    #[test]
    fn the_lists_are_the_directories_and_the_manifests() {
        for (set, dir) in [
            (Set::Official, "official"),
            (Set::Ours, "ours"),
            (Set::Draft, "draft"),
        ] {
            let root = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("corpus")
                .join(dir);
            let on_disk: Vec<String> = load_dir(&root)
                .unwrap_or_else(|e| panic!("{e}"))
                .into_iter()
                .map(|f| f.name)
                .collect();
            let listed: Vec<&str> = names(set).collect();
            assert_eq!(
                on_disk, listed,
                "{dir}: the directory and the compiled-in list"
            );
            let manifest = std::fs::read_to_string(root.join("MANIFEST.txt")).unwrap();
            let in_manifest: Vec<&str> = manifest
                .lines()
                .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
                .map(|l| l.trim().trim_end_matches(".json"))
                .collect();
            assert_eq!(in_manifest, listed, "{dir}: MANIFEST.txt");
        }
        assert_eq!(official().unwrap().len(), 68);
        assert_eq!(ours().unwrap().len(), 44);
        assert_eq!(draft().unwrap().len(), 4);
    }

    #[test]
    fn a_directory_is_read_bounded_and_named() {
        let dir = std::env::temp_dir().join(format!("ag-ui-corpus-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("b.json"),
            br#"{"name":"b","stream":[],"expect":{}}"#,
        )
        .unwrap();
        std::fs::write(dir.join("notes.txt"), b"ignored").unwrap();
        assert_eq!(load_dir(&dir).unwrap().len(), 1);
        std::fs::write(
            dir.join("a.json"),
            br#"{"name":"not-a","stream":[],"expect":{}}"#,
        )
        .unwrap();
        let err = load_dir(&dir).unwrap_err();
        assert_eq!(
            (err.kind(), err.file()),
            (FixtureErrorKind::Shape, Some("a.json"))
        );
        std::fs::write(dir.join("a.json"), vec![b' '; MAX_FIXTURE_BYTES + 10]).unwrap();
        let err = load_dir(&dir).unwrap_err();
        assert_eq!(err.kind(), FixtureErrorKind::TooLarge, "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
        let err = load_dir(&dir).unwrap_err();
        assert_eq!(err.kind(), FixtureErrorKind::Io);
    }
}
