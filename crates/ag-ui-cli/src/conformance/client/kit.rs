//! The scenarios `conformance client` serves: the official corpus and this project's, or a
//! directory of fixtures, each with its listing entry and its stream on either transport.

use ag_ui::Event;
use ag_ui::encoding::{Format, PROTO_MEDIA_TYPE, proto};
use ag_ui_conformance::corpus::{self, Set};
use ag_ui_conformance::{Fixture, FixtureError, Frame, Item, frames};
use serde_json::{Value, json};

/// Which sets to serve (`--official`, `--ours`; both when neither is given) and where the
/// official one comes from (`--fixtures DIR`: a directory in its place, such as a newer checkout
/// of the corpus).
#[derive(Clone, Debug, Default)]
pub(crate) struct Choice {
    pub(crate) official: bool,
    pub(crate) ours: bool,
    pub(crate) fixtures: Option<std::path::PathBuf>,
}

/// One scenario: its set and fixture.
#[derive(Clone, Debug)]
pub(crate) struct Scenario {
    pub(crate) set: Set,
    pub(crate) fixture: Fixture,
}

/// The scenarios served, official first, each name once.
#[derive(Clone, Debug)]
pub(crate) struct Kit {
    pub(crate) scenarios: Vec<Scenario>,
}

impl Kit {
    /// The sets `choice` names.
    ///
    /// # Errors
    /// A fixture (of a `--fixtures` directory) that cannot be read, or a name used twice.
    pub(crate) fn load(choice: &Choice) -> Result<Self, String> {
        let (official, ours) = match (choice.official, choice.ours) {
            (false, false) => (true, true),
            both => both,
        };
        let mut scenarios = Vec::new();
        let mut add = |set: Set, fixtures: Result<Vec<Fixture>, FixtureError>| {
            for fixture in fixtures.map_err(|e| e.to_string())? {
                scenarios.push(Scenario { set, fixture });
            }
            Ok::<(), String>(())
        };
        if official {
            match &choice.fixtures {
                Some(dir) => add(Set::Official, corpus::load_dir(dir))?,
                None => add(Set::Official, corpus::official())?,
            }
        }
        if ours {
            add(Set::Ours, corpus::ours())?;
        }
        let mut names: Vec<&str> = scenarios.iter().map(|s| s.fixture.name.as_str()).collect();
        names.sort_unstable();
        if let Some(twice) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("two scenarios are named {:?}", twice[0]));
        }
        Ok(Kit { scenarios })
    }

    /// The kit of the default sets, from a directory: for the tests.
    #[cfg(test)]
    pub(crate) fn from_dir(dir: &std::path::Path) -> Result<Self, String> {
        Kit::load(&Choice {
            official: true,
            ours: false,
            fixtures: Some(dir.to_owned()),
        })
    }

    /// The scenario named `name`.
    pub(crate) fn find(&self, name: &str) -> Option<&Scenario> {
        self.scenarios.iter().find(|s| s.fixture.name == name)
    }
}

impl Scenario {
    /// Its listing entry (see the module documentation of `conformance client`).
    pub(crate) fn entry(&self) -> Value {
        let fixture = &self.fixture;
        let name = &fixture.name;
        let mut entry = json!({
            "name": name,
            "set": self.set.as_str(),
            "area": fixture.area,
            "description": fixture.description,
            "tags": fixture.tags,
            "path": format!("/scenarios/{name}"),
            "expected": format!("/scenarios/{name}/expected"),
            "fixture": format!("/scenarios/{name}/fixture"),
            "verdict": format!("/scenarios/{name}/verdict"),
            "threadId": fixture.thread_id(),
            "input": {
                "messages": fixture.input.messages,
                "tools": fixture.input.tools,
                "context": fixture.input.context,
            },
        });
        if let Some(props) = &fixture.input.forwarded_props {
            entry["input"]["forwardedProps"] = props.clone();
        }
        if let Some(version) = &fixture.max_protocol_version {
            entry["client"] = json!({ "maxProtocolVersion": version });
        }
        if let Some(resume) = &fixture.resume {
            entry["resume"] = Value::Array(resume.entries.clone());
        }
        entry
    }

    /// The stream of the run a request with (`resuming`) or without `resume` entries asks for.
    pub(crate) fn stream(&self, resuming: bool) -> &[Item] {
        match (&self.fixture.resume, resuming) {
            (Some(resume), true) => &resume.stream,
            _ => &self.fixture.stream,
        }
    }

    /// The wire it is served on for a request accepting `accept`: protobuf when the scenario is
    /// tagged `protobuf` and the protobuf type is named with a q above 0 (`*/*` is not taken as
    /// asking); SSE otherwise.
    pub(crate) fn wire(&self, accept: &str) -> Format {
        let asks = accept.split(',').any(|entry| {
            let mut parts = entry.split(';');
            let media = parts.next().unwrap_or("").trim();
            let q = parts
                .find_map(|p| p.trim().strip_prefix("q="))
                .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok());
            media.eq_ignore_ascii_case(PROTO_MEDIA_TYPE) && q.is_some_and(|q| q > 0.0)
        });
        if self.fixture.has_tag("protobuf") && asks {
            Format::Proto
        } else {
            Format::Sse
        }
    }

    /// The body of `stream` on `wire`: one SSE frame per event (raw items as they are), or one
    /// protobuf frame per event (raw items, SSE only, left out); a `timestamp` filled in where
    /// an event has none or `null`, as the TypeScript lane's replay server does.
    pub(crate) fn body(stream: &[Item], wire: Format, now_ms: i64) -> Vec<u8> {
        let mut out = Vec::new();
        for frame in frames(stream, now_ms) {
            match (frame, wire) {
                (Frame::Raw(raw), Format::Sse) => out.extend_from_slice(raw.as_bytes()),
                (Frame::Json(json), Format::Sse) => {
                    ag_ui::encoding::sse::write_frame_with(&mut out, |o| {
                        o.extend_from_slice(&json)
                    });
                }
                (Frame::Json(json), _) => {
                    // An event this crate cannot read cannot be encoded either: SSE carries it.
                    if let Ok(event) = Event::from_slice(&json) {
                        proto::encode_into(&event, &mut out);
                    }
                }
                (Frame::Raw(_), _) => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sets_load_each_name_once_and_protobuf_is_served_only_when_asked() {
        let kit = Kit::load(&Choice::default()).unwrap();
        let official = kit
            .scenarios
            .iter()
            .filter(|s| s.set == Set::Official)
            .count();
        assert_eq!((official, kit.scenarios.len() - official), (68, 44));
        let only_ours = Kit::load(&Choice {
            ours: true,
            ..Choice::default()
        })
        .unwrap();
        assert_eq!(only_ours.scenarios.len(), 44);
        let binary = kit.find("protobuf-text").unwrap();
        let text = kit.find("text-basic").unwrap();
        let asks = "application/vnd.ag-ui.event+proto, text/event-stream;q=0.5";
        assert_eq!(binary.wire(asks), Format::Proto);
        assert_eq!(text.wire(asks), Format::Sse);
        assert_eq!(binary.wire("text/event-stream"), Format::Sse);
        assert_eq!(
            binary.wire("application/vnd.ag-ui.event+proto;q=0"),
            Format::Sse
        );
        // The protobuf bytes decode to the SSE stream's events.
        let stream = binary.stream(false);
        let from_proto = proto::decode(&Scenario::body(stream, Format::Proto, 1)).unwrap();
        let from_sse =
            ag_ui::encoding::sse::decode(&Scenario::body(stream, Format::Sse, 1)).unwrap();
        assert_eq!(from_proto, from_sse);
    }

    #[test]
    fn a_directory_of_fixtures_replaces_the_official_set_and_a_bad_one_is_named() {
        let dir = std::env::temp_dir().join(format!("ag-ui-kit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("mine.json"),
            br#"{"name":"mine","stream":[{"type":"RUN_ERROR","message":"x"}],"expect":{"outcome":"completed"}}"#,
        )
        .unwrap();
        let kit = Kit::from_dir(&dir).unwrap();
        assert_eq!(kit.scenarios.len(), 1);
        std::fs::write(dir.join("broken.json"), b"{\"name\":").unwrap();
        let err = Kit::from_dir(&dir).unwrap_err();
        assert!(err.starts_with("broken.json: not JSON"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
