//! `ag-ui verify --raw`: the verifier on the events' JSON as it was sent, without chunk
//! expansion and before decoding, so that the protocol's null and shape rules (a
//! `subagentRunId: null`, a `SUBAGENT_STARTED` without `subagentRunId`, a subagent outcome of an
//! unknown type, …) are reported like every other violation: their rule kind at the event's
//! position, exit 1, in the reference verifier's order (`ag_ui::verify::Verifier::check_json`).

use std::io::{BufRead, BufReader, Read};

use ag_ui::encoding::sse::FrameDecoder;
use ag_ui::verify::{CheckJsonError, Verifier};
use ag_ui::{DecodeErrorKind, EventType};

use crate::input::{self, Format, InputError, Position};
use crate::offline::Failure;

/// Counts of what was accepted.
#[derive(Default)]
struct Tally {
    events: usize,
    runs: usize,
}

/// Checks one event's JSON at `position`. An event of unknown type is skipped with a warning,
/// as clients skip it.
fn check(
    verifier: &mut Verifier,
    tally: &mut Tally,
    position: Position,
    json: &[u8],
) -> Result<(), Failure> {
    match verifier.check_json(json) {
        Ok(event) => {
            tally.events += 1;
            if event.event_type() == EventType::RunStarted {
                tally.runs += 1;
            }
            Ok(())
        }
        Err(CheckJsonError::Violation(v)) => Err(Failure::violation(position, &v)),
        Err(CheckJsonError::Decode(e)) if e.kind() == DecodeErrorKind::UnknownEventType => {
            eprintln!(
                "warning: {position}: skipping an event of unknown type {:?}",
                e.event_type().unwrap_or("")
            );
            Ok(())
        }
        Err(CheckJsonError::Decode(e)) => Err(InputError::decode(position, &e).into()),
        Err(other) => Err(Failure::Usage(other.to_string())),
    }
}

/// `ag-ui verify --raw` on `reader` (JSON Lines, a JSON array or SSE, detected).
pub(crate) fn verify_raw(reader: impl Read) -> Result<String, Failure> {
    let mut reader = BufReader::with_capacity(1 << 16, reader);
    let format = input::detect(&mut reader)?;
    let mut verifier = Verifier::new();
    let mut tally = Tally::default();
    let read_error =
        |position, e: std::io::Error| InputError::new(position, format!("read error: {e}"));
    match format {
        Format::Jsonl => {
            let mut line = Vec::new();
            let mut number = 0;
            loop {
                line.clear();
                if reader
                    .read_until(b'\n', &mut line)
                    .map_err(|e| read_error(Position::Line(number + 1), e))?
                    == 0
                {
                    break;
                }
                number += 1;
                let json = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line);
                if json.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                check(&mut verifier, &mut tally, Position::Line(number), json)?;
            }
        }
        Format::Array => {
            let mut text = Vec::new();
            reader
                .read_to_end(&mut text)
                .map_err(|e| read_error(Position::Input, e))?;
            let items: Vec<serde_json::Value> = serde_json::from_slice(&text).map_err(|e| {
                InputError::new(Position::Input, format!("not a JSON array of events: {e}"))
            })?;
            for (index, item) in items.iter().enumerate() {
                let json = serde_json::to_vec(item).unwrap_or_default();
                check(&mut verifier, &mut tally, Position::Event(index), &json)?;
            }
        }
        Format::Sse => {
            let mut frames = FrameDecoder::new();
            let mut drain = |frames: &mut FrameDecoder, tally: &mut Tally| -> Result<(), Failure> {
                while let Some(frame) = frames
                    .next_frame()
                    .map_err(|e| InputError::decode(Position::Input, &e))?
                {
                    let position =
                        Position::Event(usize::try_from(frame.index()).unwrap_or(usize::MAX));
                    check(&mut verifier, tally, position, frame.data())?;
                }
                Ok(())
            };
            loop {
                let chunk = reader
                    .fill_buf()
                    .map_err(|e| read_error(Position::Input, e))?;
                if chunk.is_empty() {
                    break;
                }
                frames.push(chunk);
                let n = chunk.len();
                reader.consume(n);
                drain(&mut frames, &mut tally)?;
            }
            frames.finish();
            drain(&mut frames, &mut tally)?;
        }
    }
    Ok(format!("ok: {} events, {} runs", tally.events, tally.runs))
}
