//! Reading events from a file, standard input or an AG-UI endpoint, in any of the three
//! encodings people keep streams in: JSON Lines, a JSON array, or SSE (detected).

use std::fmt;
use std::io::{BufRead, BufReader, Read};

use ag_ui::encoding::sse::EventDecoder;
use ag_ui::{DecodeError, DecodeErrorKind, Event};

/// How a stream of events is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// One JSON object per line.
    Jsonl,
    /// One JSON array of event objects.
    Array,
    /// Server-Sent Events, `data: <json>` frames.
    Sse,
}

/// Where in the input something went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Position {
    /// A line of JSON Lines (1-based).
    Line(usize),
    /// An element of a JSON array or an SSE frame (0-based event index).
    Event(usize),
    /// The input as a whole.
    Input,
    /// The end of the input: what chunk normalization closes there.
    End,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Line(n) => write!(f, "line {n}"),
            Position::Event(n) => write!(f, "event {n}"),
            Position::Input => f.write_str("input"),
            Position::End => f.write_str("end of input"),
        }
    }
}

/// An input that could not be read as events.
#[derive(Debug)]
pub(crate) struct InputError {
    pub(crate) position: Position,
    pub(crate) message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.position, self.message)
    }
}

impl InputError {
    pub(crate) fn new(position: Position, message: impl Into<String>) -> Self {
        Self {
            position,
            message: message.into(),
        }
    }

    /// The decode error in words, without the index it may carry (the position says where).
    pub(crate) fn decode(position: Position, error: &DecodeError) -> Self {
        let message = match (error.event_type(), error.field()) {
            (Some(t), Some(field)) => format!("{t}: field `{field}`: {}", error.message()),
            (Some(t), None) => format!("{t}: {}", error.message()),
            (None, _) => error.message().to_owned(),
        };
        Self::new(position, message)
    }
}

/// An event and where it came from.
pub(crate) struct Positioned {
    pub(crate) position: Position,
    pub(crate) event: Event,
}

/// Opens `path` (`-` or absent for standard input).
pub(crate) fn open(path: Option<&str>) -> Result<Box<dyn Read>, InputError> {
    match path {
        None | Some("-") => Ok(Box::new(std::io::stdin().lock())),
        Some(path) => std::fs::File::open(path)
            .map(|f| Box::new(f) as Box<dyn Read>)
            .map_err(|e| InputError::new(Position::Input, format!("cannot open {path}: {e}"))),
    }
}

/// Reads every event of `reader`, detecting the format from the first bytes, and hands each to
/// `each` as it is read (the input is never held whole, except a JSON array). Events of an
/// unknown type are skipped with a warning on standard error, as AG-UI clients do.
pub(crate) fn for_each_event<E: From<InputError>>(
    reader: impl Read,
    mut each: impl FnMut(Positioned) -> Result<(), E>,
) -> Result<Format, E> {
    let mut reader = BufReader::with_capacity(1 << 16, reader);
    let format = detect(&mut reader)?;
    let mut skip_unknown = |position: Position, result: Result<Event, DecodeError>| match result {
        Ok(event) => each(Positioned { position, event }),
        Err(e) if e.kind() == DecodeErrorKind::UnknownEventType => {
            eprintln!(
                "warning: {position}: skipping an event of unknown type {:?}",
                e.event_type().unwrap_or("")
            );
            Ok(())
        }
        Err(e) => Err(E::from(InputError::decode(position, &e))),
    };
    match format {
        Format::Jsonl => {
            let mut line = Vec::new();
            let mut number = 0;
            loop {
                line.clear();
                let read = reader.read_until(b'\n', &mut line).map_err(|e| {
                    InputError::new(Position::Line(number + 1), format!("read error: {e}"))
                })?;
                if read == 0 {
                    break;
                }
                number += 1;
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                skip_unknown(Position::Line(number), Event::from_slice(&line))?;
            }
        }
        Format::Array => {
            let mut text = Vec::new();
            reader
                .read_to_end(&mut text)
                .map_err(|e| InputError::new(Position::Input, format!("read error: {e}")))?;
            let items: Vec<serde_json::Value> = serde_json::from_slice(&text).map_err(|e| {
                InputError::new(Position::Input, format!("not a JSON array of events: {e}"))
            })?;
            for (index, item) in items.iter().enumerate() {
                skip_unknown(Position::Event(index), Event::from_value(item))?;
            }
        }
        Format::Sse => {
            let mut decoder = EventDecoder::new();
            let mut index = 0;
            let mut drain = |decoder: &mut EventDecoder| -> Result<(), E> {
                for result in decoder {
                    skip_unknown(Position::Event(index), result)?;
                    index += 1;
                }
                Ok(())
            };
            loop {
                let chunk = reader
                    .fill_buf()
                    .map_err(|e| InputError::new(Position::Input, format!("read error: {e}")))?;
                if chunk.is_empty() {
                    break;
                }
                decoder.push(chunk);
                let n = chunk.len();
                reader.consume(n);
                drain(&mut decoder)?;
            }
            decoder.finish();
            drain(&mut decoder)?;
        }
    }
    Ok(format)
}

/// Looks at the first non-blank bytes: `[` is a JSON array, `{` JSON Lines, anything that
/// starts an SSE line (`data:`, `:`, `event:`, `id:`, `retry:`) SSE.
pub(crate) fn detect(reader: &mut impl BufRead) -> Result<Format, InputError> {
    loop {
        let buf = reader
            .fill_buf()
            .map_err(|e| InputError::new(Position::Input, format!("read error: {e}")))?;
        if buf.is_empty() {
            return Err(InputError::new(
                Position::Input,
                "the input is empty: expected JSON Lines, a JSON array or SSE",
            ));
        }
        let bom = if buf.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        let skip = buf[bom..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        if bom + skip == buf.len() {
            // All blank so far: drop it and look further.
            let n = buf.len();
            reader.consume(n);
            continue;
        }
        let rest = &buf[bom + skip..];
        return match rest[0] {
            b'[' => Ok(Format::Array),
            b'{' => Ok(Format::Jsonl),
            b':' => Ok(Format::Sse),
            _ if ["data", "event", "id", "retry"]
                .iter()
                .any(|f| rest.starts_with(f.as_bytes())) =>
            {
                Ok(Format::Sse)
            }
            _ => Err(InputError::new(
                Position::Input,
                "not JSON Lines, a JSON array or SSE (the input starts with neither '{', '[' nor an SSE field)",
            )),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &[u8]) -> Result<(Format, Vec<Event>), InputError> {
        let mut events = Vec::new();
        let format = for_each_event(text, |p| {
            events.push(p.event);
            Ok(())
        })?;
        Ok((format, events))
    }

    #[test]
    fn detects_the_three_encodings() {
        let jsonl = b"\n{\"type\":\"STEP_STARTED\",\"stepName\":\"a\"}\n\n{\"type\":\"STEP_FINISHED\",\"stepName\":\"a\"}\n";
        assert_eq!(read(jsonl).unwrap().0, Format::Jsonl);
        assert_eq!(read(jsonl).unwrap().1.len(), 2);
        let array = b"  [{\"type\":\"STEP_STARTED\",\"stepName\":\"a\"}]";
        assert_eq!(
            read(array).unwrap(),
            (Format::Array, vec![Event::step_started("a")])
        );
        let sse =
            b"\xEF\xBB\xBF: hello\n\ndata: {\"type\":\"STEP_STARTED\",\"stepName\":\"a\"}\n\n";
        assert_eq!(
            read(sse).unwrap(),
            (Format::Sse, vec![Event::step_started("a")])
        );
    }

    #[test]
    fn errors_name_the_position() {
        let err =
            read(b"{\"type\":\"STEP_STARTED\",\"stepName\":\"a\"}\n{\"type\":\"STEP_STARTED\"}\n")
                .unwrap_err();
        assert_eq!(err.position, Position::Line(2));
        assert!(err.message.contains("stepName"), "{err}");
        assert_eq!(read(b"").unwrap_err().position, Position::Input);
        assert_eq!(
            read(b"\x00\x01garbage").unwrap_err().position,
            Position::Input
        );
        let err =
            read(b"[{\"type\":\"STEP_STARTED\",\"stepName\":\"a\"},{\"type\":7}]").unwrap_err();
        assert_eq!(err.position, Position::Event(1));
        let err = read(b"{\"type\":\"STEP_STARTED\",\"stepName\"").unwrap_err();
        assert_eq!(err.position, Position::Line(1));
    }

    #[test]
    fn unknown_event_types_are_skipped() {
        let (_, events) =
            read(b"{\"type\":\"FUTURE\"}\n{\"type\":\"STEP_STARTED\",\"stepName\":\"a\"}\n")
                .unwrap();
        assert_eq!(events, vec![Event::step_started("a")]);
    }
}
