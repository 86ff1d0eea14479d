// The shims and the version check are the pipeline's and the conversation's (feature `sse`).
#![cfg_attr(not(feature = "sse"), allow(dead_code))]

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use crate::client::warning::{Warning, WarningKind};
use crate::{Content, ContentPart, Event, Message, RunAgentInput};

/// The newest AG-UI version the agent behind a transport speaks: a release of the SDK before
/// 1.0 (`0.0.57`) or a protocol version (`1.0`). See the [`PeerVersion`] docs.
///
/// Talking to an older agent: [`PeerVersion`], and the request and stream shims a pinned peer
/// gets.
///
/// A client speaks this crate's protocol version (1.0). An agent built on an older release of
/// an AG-UI SDK knows less of it; a transport pinned to that agent's version
/// ([`HttpAgent::with_peer_version`](crate::client::HttpAgent::with_peer_version), `ag-ui run
/// --peer-version`) reshapes what is sent to it and what it sends back, as the reference
/// client's compatibility shims do (`maxProtocolVersion`):
///
/// | peer | request | stream |
/// |---|---|---|
/// | before 1.0 | no `protocolVersion` (an older agent does not know it) | |
/// | 0.0.57 or before | no `subagentRunId` on the messages sent | `SUBAGENT_*` events left out, each with a warning; `subagentRunId` left out of every event, of the messages of `MESSAGES_SNAPSHOT` and of the `RUN_STARTED` echo, and of each interrupt (the subagents' work reads as the parent's) |
/// | 0.0.39 or before | each message's content parts flattened into its text (a warning names the non-text parts that could not go); no `parentRunId` | |
///
/// Legacy `binary` content parts are read as the 1.0 part their MIME type names whoever the
/// peer is, and pre-1.0 `THINKING_*` events as `REASONING_*` ([`Compat`](super::Compat)).
/// What a shim leaves out or reshapes is a [`Warning`] of kind
/// [`PeerDowngrade`](WarningKind::PeerDowngrade).
///
/// ```
/// use ag_ui::client::PeerVersion;
///
/// let peer: PeerVersion = "0.0.57".parse().unwrap();
/// assert!(peer.is_pre_1_0() && peer.predates_subagents() && !peer.flattens_content());
/// assert_eq!(peer.to_string(), "0.0.57");
/// assert!("0.0.39".parse::<PeerVersion>().unwrap().flattens_content());
/// assert!(!"1.0".parse::<PeerVersion>().unwrap().is_pre_1_0());
/// assert!("latest".parse::<PeerVersion>().is_err());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PeerVersion {
    parts: [u32; 3],
    /// Whether it was written with three components (`0.0.57`) rather than two (`1.0`).
    three: bool,
}

impl PeerVersion {
    const LAST_FLAT_CONTENT: PeerVersion = PeerVersion::new(0, 0, 39);
    const LAST_WITHOUT_SUBAGENTS: PeerVersion = PeerVersion::new(0, 0, 57);

    const fn new(major: u32, minor: u32, patch: u32) -> Self {
        PeerVersion {
            parts: [major, minor, patch],
            three: true,
        }
    }

    /// Whether the peer predates 1.0: it is sent no `protocolVersion`.
    pub fn is_pre_1_0(self) -> bool {
        self.parts[0] == 0
    }

    /// Whether the peer predates subagents (0.0.57 or before).
    pub fn predates_subagents(self) -> bool {
        self <= Self::LAST_WITHOUT_SUBAGENTS
    }

    /// Whether the peer reads only text content (0.0.39 or before).
    pub fn flattens_content(self) -> bool {
        self <= Self::LAST_FLAT_CONTENT
    }

    /// Reshapes a run's input for this peer, telling what it changed in `warnings`.
    pub(crate) fn shape_input(self, input: &mut RunAgentInput, warnings: &mut Vec<Warning>) {
        if self.is_pre_1_0() {
            input.protocol_version = None;
        }
        if self.predates_subagents() {
            for message in &mut input.messages {
                *message.subagent_run_id_mut() = None;
            }
        }
        if self.flattens_content() {
            input.parent_run_id = None;
            for message in &mut input.messages {
                if let Some(dropped) = flatten(message) {
                    warnings.push(Warning::new(
                        WarningKind::PeerDowngrade,
                        None,
                        format!(
                            "flattening message {}'s content for a peer at {self} (0.0.39 or before) DROPS non-text parts: {dropped}",
                            crate::excerpt(message.id().as_str(), crate::EXCERPT_BYTES)
                        ),
                    ));
                }
            }
        }
    }

    /// Reshapes one event this peer sent; `None` when it is left out (with a warning in
    /// `warnings`).
    pub(crate) fn shape_event(
        self,
        mut event: Event,
        warnings: &mut Vec<Warning>,
    ) -> Option<Event> {
        if !self.predates_subagents() {
            return Some(event);
        }
        if matches!(
            event,
            Event::SubagentStarted(_) | Event::SubagentFinished(_) | Event::SubagentError(_)
        ) {
            let ty = event.event_type().as_str();
            warnings.push(
                Warning::new(
                    WarningKind::PeerDowngrade,
                    None,
                    format!(
                        "dropping {ty}: the peer ({self}) predates subagents, so their work reads as the parent agent's"
                    ),
                )
                .with_event_type(ty),
            );
            return None;
        }
        if let Some(slot) = event.attribution_mut() {
            *slot = None;
        }
        match &mut event {
            Event::MessagesSnapshot(e) => strip_messages(&mut e.messages),
            Event::RunStarted(e) => {
                if let Some(input) = &mut e.input {
                    strip_messages(&mut input.messages);
                }
            }
            Event::RunFinished(e) => {
                if let Some(crate::RunFinishedOutcome::Interrupt { interrupts }) = &mut e.outcome {
                    for interrupt in interrupts {
                        interrupt.subagent_run_id = None;
                    }
                }
            }
            _ => {}
        }
        Some(event)
    }
}

fn strip_messages(messages: &mut [Message]) {
    for message in messages {
        *message.subagent_run_id_mut() = None;
    }
}

/// Flattens a user or tool message's parts into their text; the types of the parts that could
/// not go, when there were some.
fn flatten(message: &mut Message) -> Option<String> {
    let content = match message {
        Message::User(m) => &mut m.content,
        Message::Tool(m) => &mut m.content,
        _ => return None,
    };
    let Content::Parts(parts) = content else {
        return None;
    };
    let mut text = String::new();
    let mut dropped = Vec::new();
    for part in parts.iter() {
        match part {
            ContentPart::Text(t) => text.push_str(&t.text),
            other => dropped.push(part_type(other)),
        }
    }
    *content = Content::Text(text);
    (!dropped.is_empty()).then(|| dropped.join(", "))
}

fn part_type(part: &ContentPart) -> &'static str {
    match part {
        ContentPart::Text(_) => "text",
        ContentPart::Image(_) => "image",
        ContentPart::Audio(_) => "audio",
        ContentPart::Video(_) => "video",
        ContentPart::Document(_) => "document",
        #[allow(unreachable_patterns)]
        _ => "a part",
    }
}

impl PartialEq for PeerVersion {
    /// By value: `1.0` equals `1.0.0`.
    fn eq(&self, other: &Self) -> bool {
        self.parts == other.parts
    }
}

impl Eq for PeerVersion {}

impl std::hash::Hash for PeerVersion {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.parts.hash(state);
    }
}

impl PartialOrd for PeerVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for PeerVersion {
    /// By value: `1.0` equals `1.0.0`.
    fn cmp(&self, other: &Self) -> Ordering {
        self.parts.cmp(&other.parts)
    }
}

impl fmt::Display for PeerVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [major, minor, patch] = self.parts;
        if self.three {
            write!(f, "{major}.{minor}.{patch}")
        } else {
            write!(f, "{major}.{minor}")
        }
    }
}

/// A peer version that is not two or three dot-separated numbers.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a version: expected MAJOR.MINOR (a protocol, 1.0) or MAJOR.MINOR.PATCH (an SDK release, 0.0.57)"
)]
pub struct PeerVersionError(String);

impl FromStr for PeerVersion {
    type Err = PeerVersionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let error = || PeerVersionError(crate::excerpt(s, crate::EXCERPT_BYTES).into_owned());
        let mut parts = [0u32; 3];
        let mut count = 0;
        for piece in s.split('.') {
            if count == 3 || piece.is_empty() || !piece.bytes().all(|b| b.is_ascii_digit()) {
                return Err(error());
            }
            parts[count] = piece.parse().map_err(|_| error())?;
            count += 1;
        }
        if count < 2 {
            return Err(error());
        }
        Ok(PeerVersion {
            parts,
            three: count == 3,
        })
    }
}

/// How a producer's declared protocol version (`RUN_STARTED.protocolVersion`) compares with
/// this client's: `None` when it is not `MAJOR.MINOR` (two numbers, nothing else).
pub(crate) fn compare_declared(declared: &str) -> Option<Ordering> {
    let numbers = |v: &str| -> Option<(u64, u64)> {
        let (major, minor) = v.split_once('.')?;
        let number = |s: &str| {
            (!s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<u64>().ok())
                .flatten()
        };
        Some((number(major)?, number(minor)?))
    };
    let ours = numbers(crate::PROTOCOL_VERSION)?;
    Some(numbers(declared)?.cmp(&ours))
}

/// The warning about a producer's declared protocol version, if it needs one: newer than this
/// client's, or unreadable. The same, an older one or none is quiet.
pub(crate) fn declared_version_warning(declared: &str) -> Option<Warning> {
    let shown = crate::excerpt(declared, crate::EXCERPT_BYTES);
    let (kind, message) = match compare_declared(declared) {
        Some(Ordering::Greater) => (
            WarningKind::NewerProtocol,
            format!(
                "the agent speaks protocol {shown}, newer than this client's {}: what it sends that {} does not define is left out",
                crate::PROTOCOL_VERSION,
                crate::PROTOCOL_VERSION
            ),
        ),
        Some(_) => return None,
        None => (
            WarningKind::UnreadableProtocol,
            format!(
                "cannot interpret the agent's protocol version {shown:?} (expected MAJOR.MINOR); read as {}",
                crate::PROTOCOL_VERSION
            ),
        ),
    };
    Some(
        Warning::new(kind, None, message)
            .with_event_type("RUN_STARTED")
            .with_path("/protocolVersion"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_versions_compare_numerically_in_the_published_grammar() {
        assert_eq!(compare_declared("1.0"), Some(Ordering::Equal));
        assert_eq!(compare_declared("0.9"), Some(Ordering::Less));
        assert_eq!(compare_declared("1.10"), Some(Ordering::Greater));
        for unreadable in [
            "1",
            "1.0.0",
            "1.x",
            "draft",
            "v1.0",
            "",
            "1.",
            ".1",
            "1.99999999999",
        ] {
            assert_eq!(compare_declared(unreadable), None, "{unreadable}");
        }
        assert!(declared_version_warning("1.0").is_none());
        assert!(declared_version_warning("0.9").is_none());
        let newer = declared_version_warning("1.2").unwrap();
        assert_eq!(newer.kind(), WarningKind::NewerProtocol);
        assert!(newer.message().contains("speaks protocol 1.2"), "{newer}");
        let odd = declared_version_warning("draft").unwrap();
        assert!(odd.message().contains("cannot interpret"), "{odd}");
    }

    #[test]
    fn versions_parse_compare_and_show_as_written() {
        let v = |s: &str| s.parse::<PeerVersion>().unwrap();
        assert!(v("0.0.57") < v("0.0.58") && v("0.0.58") < v("1.0"));
        assert_eq!(v("1.0"), v("1.0.0"));
        assert_eq!(v("1.0").to_string(), "1.0");
        for bad in [
            "",
            "1",
            "1.",
            "1..0",
            "1.0.0.0",
            "a.b",
            "-1.0",
            "1.0 ",
            "99999999999.0",
        ] {
            assert!(bad.parse::<PeerVersion>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn an_old_peer_gets_flat_content_and_no_attribution_or_version() {
        use crate::{AssistantMessage, MediaPart, TextPart};
        let image: MediaPart = serde_json::from_value(
            serde_json::json!({"source": {"type": "url", "value": "https://x/cat.png"}}),
        )
        .unwrap();
        let mut input = RunAgentInput::new("t", "r").with_messages(vec![
            Message::user(
                "u1",
                Content::Parts(vec![
                    ContentPart::Text(TextPart::new("What is ")),
                    ContentPart::Image(image),
                    ContentPart::Text(TextPart::new("this?")),
                ]),
            ),
            Message::Assistant(
                AssistantMessage::new("a1")
                    .with_content("a cat")
                    .with_subagent_run_id("s1"),
            ),
        ]);

        let mut warnings = Vec::new();
        v39().shape_input(&mut input, &mut warnings);
        assert_eq!(input.protocol_version, None);
        assert_eq!(input.messages[0].text(), Some("What is this?"));
        assert!(
            matches!(&input.messages[0], Message::User(u) if matches!(u.content, Content::Text(_)))
        );
        assert_eq!(input.messages[1].subagent_run_id(), None);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0]
                .message()
                .contains("DROPS non-text parts: image"),
            "{}",
            warnings[0]
        );
        // A current peer's input is untouched.
        let mut current = RunAgentInput::new("t", "r");
        "1.0"
            .parse::<PeerVersion>()
            .unwrap()
            .shape_input(&mut current, &mut warnings);
        assert_eq!(current.protocol_version.as_deref(), Some("1.0"));
    }

    fn v39() -> PeerVersion {
        "0.0.39".parse().unwrap()
    }

    #[test]
    fn a_peer_before_subagents_has_its_subagent_events_left_out() {
        let peer: PeerVersion = "0.0.57".parse().unwrap();
        let mut warnings = Vec::new();
        assert!(
            peer.shape_event(Event::subagent_started("s1", "helper"), &mut warnings)
                .is_none()
        );
        assert!(
            warnings[0]
                .message()
                .starts_with("dropping SUBAGENT_STARTED")
        );
        let content = peer
            .shape_event(
                Event::text_message_content("m", "x").with_subagent_run_id("s1"),
                &mut warnings,
            )
            .unwrap();
        assert_eq!(content.attribution(), None);
        assert_eq!(warnings.len(), 1);
    }
}
