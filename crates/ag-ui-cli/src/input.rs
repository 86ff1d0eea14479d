//! Reading events from a file, standard input or an AG-UI endpoint, in any of the four
//! encodings people keep streams in: JSON Lines, a JSON array, SSE, or the framed protobuf
//! stream of `application/vnd.ag-ui.event+proto` (detected).
//!
//! Detecting protobuf: a protobuf stream is a run of frames, each a 4-byte big-endian length
//! then the message. Frames are at most 10 MiB (the decoder's limit, as the reference
//! client's), so the length's first byte is always `0x00`; text (JSON, SSE, after an optional
//! byte order mark and blanks) never starts with NUL. The rule is therefore: **the first byte
//! is `0x00`** (before any byte order mark or blank is skipped). Anything else that starts
//! with NUL (UTF-16 text, say) is then read as protobuf and fails on its first frame, with an
//! error naming frame 0.

use std::fmt;
use std::io::{BufRead, BufReader, Read};

use ag_ui::client::Compat;
use ag_ui::encoding::proto::{EventDecoder, ProtoErrorKind};
use ag_ui::encoding::sse::FrameDecoder;
use ag_ui::{DecodeError, Event};

/// The longest JSON Lines line accepted, its `\n` excluded: the SSE frame limit.
pub(crate) const MAX_LINE: usize = ag_ui::encoding::sse::DEFAULT_MAX_EVENT_SIZE;

/// How many skipped events are named one by one on standard error; the rest are counted.
const MAX_WARNINGS: usize = 10;

/// The UTF-8 byte order mark some editors put at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How a stream of events is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// One JSON object per line.
    Jsonl,
    /// One JSON array of event objects.
    Array,
    /// Server-Sent Events, `data: <json>` frames.
    Sse,
    /// Length-prefixed protobuf frames (`application/vnd.ag-ui.event+proto`).
    Proto,
}

/// Where in the input something went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Position {
    /// A line of JSON Lines (1-based).
    Line(usize),
    /// An element of a JSON array, an SSE frame or a protobuf frame (0-based event index).
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
/// `each` as it is read: only the event being read is held, at most [`MAX_LINE`] bytes (a JSON
/// Lines line, a JSON array element, an SSE frame or a protobuf frame).
///
/// Event JSON goes through the same compatibility stage as a live run
/// ([`Compat`](ag_ui::client::Compat), as `HttpAgent`'s pipeline reads it): pre-1.0
/// `THINKING_*` events become `REASONING_*` ones, and UTF-16 surrogate halves split across an
/// entity's deltas are rejoined. Events of an unknown type are skipped with a warning on
/// standard error (the first [`MAX_WARNINGS`], then a count), as AG-UI clients do.
pub(crate) fn for_each_event<E: From<InputError>>(
    reader: impl Read,
    each: impl FnMut(Positioned) -> Result<(), E>,
) -> Result<Format, E> {
    for_each_event_checked(reader, |_, _| Ok(()), each)
}

/// [`for_each_event`], with `check` given each event's JSON as sent before it is decoded (not
/// called for protobuf input).
pub(crate) fn for_each_event_checked<E: From<InputError>>(
    reader: impl Read,
    mut check: impl FnMut(Position, &[u8]) -> Result<(), E>,
    mut each: impl FnMut(Positioned) -> Result<(), E>,
) -> Result<Format, E> {
    let mut reader = BufReader::with_capacity(1 << 16, reader);
    let format = detect(&mut reader)?;
    let mut unknown = Unknown::default();
    if format == Format::Proto {
        read_proto(&mut reader, &mut unknown, |position, event| {
            each(Positioned { position, event })
        })?;
    } else {
        let mut compat = Compat::new();
        let mut out = Vec::new();
        json_items(&mut reader, format, |position, json| -> Result<(), E> {
            check(position, json)?;
            let skipped = compat.skipped();
            compat
                .decode_into(json, &mut out)
                .map_err(|e| E::from(InputError::decode(position, &e)))?;
            if compat.skipped() > skipped {
                unknown.skip(position, &type_name(json));
            }
            for event in out.drain(..) {
                each(Positioned { position, event })?;
            }
            Ok(())
        })?;
        // A surrogate half still waiting at the end is given up as U+FFFD, as a live run does.
        compat.finish_into(&mut out);
        for event in out.drain(..) {
            each(Positioned {
                position: Position::End,
                event,
            })?;
        }
    }
    unknown.finish();
    Ok(format)
}

/// The `type` of an event's JSON, for a warning about skipping it.
fn type_name(json: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct Type {
        #[serde(rename = "type")]
        name: String,
    }
    serde_json::from_slice::<Type>(json)
        .map(|t| t.name)
        .unwrap_or_default()
}

/// Reads a protobuf stream (after detection) frame by frame, handing each event to `each` with
/// its frame index; only the frame being read is held (at most the decoder's 10 MiB limit).
/// Frames holding only event types unknown to AG-UI 1.0 are skipped with a warning, as the
/// reference client does; any other bad frame is an error naming its index.
fn read_proto<R: Read, E: From<InputError>>(
    reader: &mut BufReader<R>,
    unknown: &mut Unknown,
    mut each: impl FnMut(Position, Event) -> Result<(), E>,
) -> Result<(), E> {
    let mut decoder = EventDecoder::new();
    let mut drain = |decoder: &mut EventDecoder| -> Result<(), E> {
        while let Some(result) = decoder.next_event() {
            match result {
                Ok(event) => {
                    // The event came from the last frame cut.
                    let index = decoder.frames().frames().saturating_sub(1);
                    let index = usize::try_from(index).unwrap_or(usize::MAX);
                    each(Position::Event(index), event)?;
                }
                Err(e) => {
                    let position = e.index().map_or(Position::Input, |i| {
                        Position::Event(usize::try_from(i).unwrap_or(usize::MAX))
                    });
                    if e.kind() == ProtoErrorKind::UnknownEventType {
                        unknown.skip_frame(position);
                        continue;
                    }
                    // The position names the frame; the error's own text would repeat it.
                    let field = e
                        .field()
                        .map(|f| format!("field `{f}`: "))
                        .unwrap_or_default();
                    return Err(E::from(InputError::new(
                        position,
                        format!("protobuf frame: {field}{} ({})", e.message(), e.kind()),
                    )));
                }
            }
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
    drain(&mut decoder)
}

/// Warns about events of unknown types as they are skipped: the first [`MAX_WARNINGS`], then a
/// count at the end.
#[derive(Debug, Default)]
pub(crate) struct Unknown {
    skipped: usize,
}

impl Unknown {
    /// Skips the event at `position`, of the unknown type `name`.
    pub(crate) fn skip(&mut self, position: Position, name: &str) {
        self.skipped += 1;
        if self.skipped <= MAX_WARNINGS {
            eprintln!(
                "warning: {position}: skipping an event of unknown type {}",
                crate::terminal::visible(
                    &format!("{:?}", ag_ui::excerpt(name, ag_ui::EXCERPT_BYTES)),
                    false
                )
            );
        }
    }

    /// Skips the protobuf frame at `position`, which holds only event types unknown to AG-UI
    /// 1.0 (a protobuf frame names no type string).
    pub(crate) fn skip_frame(&mut self, position: Position) {
        self.skipped += 1;
        if self.skipped <= MAX_WARNINGS {
            eprintln!(
                "warning: {position}: skipping a protobuf frame holding no event type of AG-UI 1.0"
            );
        }
    }

    /// Says how many more were skipped than were named.
    pub(crate) fn finish(self) {
        if self.skipped > MAX_WARNINGS {
            eprintln!(
                "warning: {} more events of unknown types skipped",
                self.skipped - MAX_WARNINGS
            );
        }
    }
}

/// Reads every item of `reader` (a JSON Lines line, a JSON array element or an SSE frame's
/// data), detecting the format from the first bytes, and hands its JSON to `each` with its
/// position, as it is read: only the item being read is held, at most [`MAX_LINE`] bytes.
///
/// A protobuf stream has no JSON of its own: each frame is decoded to its event, whose JSON
/// (written into one reused buffer) is handed on; so a frame that is no valid event is an
/// error here already, and frames of event types unknown to AG-UI 1.0 are skipped with a
/// warning.
pub(crate) fn for_each_json<E: From<InputError>>(
    reader: impl Read,
    each: impl FnMut(Position, &[u8]) -> Result<(), E>,
) -> Result<Format, E> {
    let mut reader = BufReader::with_capacity(1 << 16, reader);
    let format = detect(&mut reader)?;
    json_items(&mut reader, format, each)?;
    Ok(format)
}

/// [`for_each_json`] for a format already detected.
fn json_items<R: Read, E: From<InputError>>(
    reader: &mut BufReader<R>,
    format: Format,
    mut each: impl FnMut(Position, &[u8]) -> Result<(), E>,
) -> Result<(), E> {
    match format {
        Format::Jsonl => {
            let mut line = Vec::new();
            let mut number = 0;
            while read_line(reader, &mut line, number + 1)? {
                number += 1;
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                each(Position::Line(number), &line)?;
            }
        }
        Format::Array => {
            let mut elements = Elements::default();
            loop {
                let chunk = reader
                    .fill_buf()
                    .map_err(|e| InputError::new(Position::Input, format!("read error: {e}")))?;
                if chunk.is_empty() {
                    break;
                }
                let n = chunk.len();
                elements.push(chunk, |index, element| {
                    each(Position::Event(index), element)
                })?;
                reader.consume(n);
            }
            elements.finish()?;
        }
        Format::Sse => {
            let mut frames = FrameDecoder::new();
            let mut drain = |frames: &mut FrameDecoder| -> Result<(), E> {
                while let Some(frame) = frames.next_frame().map_err(|e| {
                    let position = e.index().map_or(Position::Input, |i| {
                        Position::Event(usize::try_from(i).unwrap_or(usize::MAX))
                    });
                    E::from(InputError::decode(position, &e))
                })? {
                    let index = usize::try_from(frame.index()).unwrap_or(usize::MAX);
                    each(Position::Event(index), frame.data())?;
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
                frames.push(chunk);
                let n = chunk.len();
                reader.consume(n);
                drain(&mut frames)?;
            }
            frames.finish();
            drain(&mut frames)?;
        }
        Format::Proto => {
            let mut unknown = Unknown::default();
            let mut json = Vec::new();
            read_proto(reader, &mut unknown, |position, event| {
                json.clear();
                serde_json::to_writer(&mut json, &event).map_err(|e| {
                    InputError::new(
                        position,
                        format!("the event cannot be written as JSON: {e}"),
                    )
                })?;
                each(position, &json)
            })?;
            unknown.finish();
        }
    }
    Ok(())
}

/// Where [`Elements`] is in the array.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum ArrayPhase {
    /// Before the opening `[`.
    #[default]
    Before,
    /// Inside the array, reading an element (or the blanks before one).
    Inside,
    /// After the closing `]`: only blanks may follow.
    After,
}

/// Splits a JSON array into its elements as its bytes arrive, so that an array of events is
/// read one event at a time: only the element being read is held, at most [`MAX_LINE`] bytes.
/// It tracks only what it needs to find the commas between elements (nesting depth, strings);
/// each element is then read as an event, which checks it fully.
#[derive(Debug, Default)]
struct Elements {
    phase: ArrayPhase,
    element: Vec<u8>,
    /// Nesting inside the current element.
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// A comma was read and no element has followed it yet.
    after_comma: bool,
    index: usize,
}

impl Elements {
    fn error(&self, message: &str) -> InputError {
        InputError::new(
            Position::Input,
            format!("not a JSON array of events: {message}"),
        )
    }

    /// Reads `bytes`, handing each complete element and its index to `each`.
    fn push<E: From<InputError>>(
        &mut self,
        bytes: &[u8],
        mut each: impl FnMut(usize, &[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        // `bytes[start..i]` belongs to the current element and is not yet in `self.element`.
        let mut start = 0;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            match self.phase {
                ArrayPhase::Before | ArrayPhase::After => {
                    if b.is_ascii_whitespace() {
                    } else if b == b'[' && self.phase == ArrayPhase::Before {
                        self.phase = ArrayPhase::Inside;
                    } else if self.phase == ArrayPhase::Before {
                        return Err(E::from(self.error("it does not start with '['")));
                    } else {
                        return Err(E::from(self.error("more input after its closing ']'")));
                    }
                    i += 1;
                    start = i;
                    continue;
                }
                ArrayPhase::Inside => {}
            }
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
            } else {
                match b {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' if self.depth > 0 => self.depth -= 1,
                    b',' | b']' if self.depth == 0 => {
                        self.take(&bytes[start..i])?;
                        let blank = self.element.iter().all(u8::is_ascii_whitespace);
                        if blank && (b == b',' || self.after_comma) {
                            return Err(E::from(self.error(&format!(
                                "no event before the '{}' after event {}",
                                b as char, self.index
                            ))));
                        }
                        if !blank {
                            each(self.index, &self.element)?;
                            self.index += 1;
                        }
                        self.element.clear();
                        self.after_comma = b == b',';
                        if b == b']' {
                            self.phase = ArrayPhase::After;
                        }
                        i += 1;
                        start = i;
                        continue;
                    }
                    _ => {}
                }
            }
            i += 1;
        }
        if self.phase == ArrayPhase::Inside {
            self.take(&bytes[start..])?;
        }
        Ok(())
    }

    /// Adds `part` to the current element, within the limit.
    fn take(&mut self, part: &[u8]) -> Result<(), InputError> {
        if self.element.len() + part.len() > MAX_LINE {
            return Err(InputError::new(
                Position::Event(self.index),
                format!("the event is longer than the limit of {MAX_LINE} bytes"),
            ));
        }
        self.element.extend_from_slice(part);
        Ok(())
    }

    /// The end of the input: the array must have been closed.
    fn finish(&self) -> Result<(), InputError> {
        match self.phase {
            ArrayPhase::After => Ok(()),
            _ => Err(self.error("the input ends before its closing ']'")),
        }
    }
}

/// Reads the next line of JSON Lines (terminator included) into `line`, at most
/// [`MAX_LINE`] bytes. Returns `false` at the end of the input.
fn read_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    number: usize,
) -> Result<bool, InputError> {
    line.clear();
    loop {
        let buf = reader
            .fill_buf()
            .map_err(|e| InputError::new(Position::Line(number), format!("read error: {e}")))?;
        if buf.is_empty() {
            return Ok(!line.is_empty());
        }
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(end) => (end + 1, true),
            None => (buf.len(), false),
        };
        if line.len() + take > MAX_LINE + usize::from(done) {
            return Err(InputError::new(
                Position::Line(number),
                format!("the line is longer than the limit of {MAX_LINE} bytes"),
            ));
        }
        line.extend_from_slice(&buf[..take]);
        reader.consume(take);
        if done {
            return Ok(true);
        }
    }
}

/// Looks at the first non-blank bytes: `[` is a JSON array, `{` JSON Lines, anything that
/// starts an SSE line (`data:`, `:`, `event:`, `id:`, `retry:`) SSE. A leading UTF-8 byte order
/// mark is dropped.
pub(crate) fn detect(reader: &mut impl BufRead) -> Result<Format, InputError> {
    let mut first = true;
    loop {
        let buf = reader
            .fill_buf()
            .map_err(|e| InputError::new(Position::Input, format!("read error: {e}")))?;
        if buf.is_empty() {
            return Err(InputError::new(
                Position::Input,
                "the input is empty: expected JSON Lines, a JSON array, SSE or protobuf frames",
            ));
        }
        if first && buf[0] == 0 {
            // A frame's 4-byte length: frames are under 16 MiB, so it starts with NUL.
            return Ok(Format::Proto);
        }
        if std::mem::take(&mut first) && buf.starts_with(BOM) {
            reader.consume(BOM.len());
            continue;
        }
        let skip = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if skip == buf.len() {
            // All blank so far: drop it and look further.
            reader.consume(skip);
            continue;
        }
        let rest = &buf[skip..];
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
                "not JSON Lines, a JSON array, SSE or protobuf (the input starts with neither '{', '[', an SSE field nor a NUL byte)",
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
            read(b"\x01\x00garbage").unwrap_err().position,
            Position::Input
        );
        // A leading NUL is a protobuf frame length: this one promises more than there is.
        let err = read(b"\x00\x01garbage").unwrap_err();
        assert_eq!(err.position, Position::Event(0));
        assert!(err.message.contains("truncated"), "{err}");
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

    #[test]
    fn a_leading_byte_order_mark_is_dropped_in_every_encoding() {
        let step = Event::step_started("a");
        for (text, format) in [
            (
                &b"\xEF\xBB\xBF{\"type\":\"STEP_STARTED\",\"stepName\":\"a\"}\n"[..],
                Format::Jsonl,
            ),
            (
                &b"\xEF\xBB\xBF\n {\"type\":\"STEP_STARTED\",\"stepName\":\"a\"}"[..],
                Format::Jsonl,
            ),
            (
                &b"\xEF\xBB\xBF[{\"type\":\"STEP_STARTED\",\"stepName\":\"a\"}]"[..],
                Format::Array,
            ),
            (
                &b"\xEF\xBB\xBFdata: {\"type\":\"STEP_STARTED\",\"stepName\":\"a\"}\n\n"[..],
                Format::Sse,
            ),
        ] {
            assert_eq!(read(text).unwrap(), (format, vec![step.clone()]));
        }
        // Only at the very start: elsewhere it is not blank.
        assert!(read(b" \xEF\xBB\xBF{}").is_err());
    }

    #[test]
    fn a_json_lines_line_is_bounded() {
        let event = b"{\"type\":\"STEP_STARTED\",\"stepName\":\"a\"}";
        // A line of exactly the limit (padded with blanks) is read, terminator and all.
        let mut fits = event.to_vec();
        fits.resize(MAX_LINE, b' ');
        fits.push(b'\n');
        fits.extend_from_slice(event);
        assert_eq!(read(&fits).unwrap().1.len(), 2);
        // One byte more, on line 2, is an error naming the line and the limit.
        let mut over = event.to_vec();
        over.push(b'\n');
        over.extend_from_slice(event);
        over.resize(event.len() + 1 + MAX_LINE + 1, b' ');
        over.extend_from_slice(b"\n");
        let err = read(&over).unwrap_err();
        assert_eq!(err.position, Position::Line(2));
        assert_eq!(
            err.message,
            format!("the line is longer than the limit of {MAX_LINE} bytes")
        );
    }

    #[test]
    fn an_array_is_read_one_element_at_a_time_however_it_is_split() {
        let text = br#" [ {"type":"CUSTOM","name":"a]\"[,{","value":[1,{"b":"}"}]} ,
            {"type":"STEP_STARTED","stepName":"s"}
          ] "#;
        let expected = read(text).unwrap();
        assert_eq!(expected.0, Format::Array);
        assert_eq!(expected.1.len(), 2);
        assert_eq!(expected.1[1], Event::step_started("s"));
        // Every split of the input into two pushes reads the same.
        for cut in 0..text.len() {
            let mut elements = Elements::default();
            let mut events = Vec::new();
            for part in [&text[..cut], &text[cut..]] {
                elements
                    .push(part, |_, element| {
                        events.push(Event::from_slice(element).unwrap());
                        Ok::<_, InputError>(())
                    })
                    .unwrap();
            }
            elements.finish().unwrap();
            assert_eq!(events, expected.1, "cut at {cut}");
        }
        assert_eq!(read(b"[]").unwrap(), (Format::Array, vec![]));
        assert_eq!(read(b"[ \n ]\n").unwrap(), (Format::Array, vec![]));
    }

    #[test]
    fn a_malformed_array_is_an_error_naming_where() {
        let step = "{\"type\":\"STEP_STARTED\",\"stepName\":\"a\"}";
        for (text, position, message) in [
            (
                format!("[{step},]"),
                Position::Input,
                "no event before the ']' after event 1",
            ),
            (
                format!("[{step},,{step}]"),
                Position::Input,
                "no event before the ',' after event 1",
            ),
            (
                "[,]".to_owned(),
                Position::Input,
                "no event before the ',' after event 0",
            ),
            (
                format!("[{step}"),
                Position::Input,
                "the input ends before its closing ']'",
            ),
            (
                format!("[{step}] x"),
                Position::Input,
                "more input after its closing ']'",
            ),
            (
                format!("[{step}] []"),
                Position::Input,
                "more input after its closing ']'",
            ),
            (
                format!("[{step} {step}]"),
                Position::Event(0),
                "invalid JSON",
            ),
            (format!("[{step}, 7]"), Position::Event(1), ""),
        ] {
            let err = read(text.as_bytes()).unwrap_err();
            assert_eq!(err.position, position, "{text}: {err}");
            assert!(err.message.contains(message), "{text}: {err}");
        }
        // An element over the limit is refused as it is read, naming it.
        let mut big =
            format!("[{step},{{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":\"").into_bytes();
        big.resize(big.len() + MAX_LINE, b'x');
        big.extend_from_slice(b"\"}]");
        let err = read(&big).unwrap_err();
        assert_eq!(err.position, Position::Event(1));
        assert_eq!(
            err.message,
            format!("the event is longer than the limit of {MAX_LINE} bytes")
        );
    }

    fn frames(events: &[Event]) -> Vec<u8> {
        let mut out = Vec::new();
        for event in events {
            ag_ui::encoding::proto::encode_into(event, &mut out);
        }
        out
    }

    #[test]
    fn protobuf_frames_are_detected_and_read_with_frame_indexes() {
        let events = [
            Event::run_started("t", "r"),
            Event::step_started("a"),
            Event::step_finished("a"),
            Event::run_finished("t", "r"),
        ];
        let mut bytes = frames(&events[..2]);
        // A frame holding only an arm unknown to AG-UI 1.0 (field 32) is skipped.
        bytes.extend_from_slice(&[0, 0, 0, 5, 0x82, 0x02, 2, 0x08, 0x0a]);
        bytes.extend(frames(&events[2..]));
        let mut positions = Vec::new();
        let mut read_events = Vec::new();
        let format = for_each_event(&bytes[..], |p| {
            positions.push(p.position);
            read_events.push(p.event);
            Ok::<_, InputError>(())
        })
        .unwrap();
        assert_eq!(format, Format::Proto);
        assert_eq!(read_events, events);
        let at = |i| Position::Event(i);
        assert_eq!(positions, [at(0), at(1), at(3), at(4)]);

        // The JSON reader hands on each event's JSON.
        let mut json = Vec::new();
        let format = for_each_json(&bytes[..], |position, item| {
            json.push((position, Event::from_slice(item).unwrap()));
            Ok::<_, InputError>(())
        })
        .unwrap();
        assert_eq!(format, Format::Proto);
        assert_eq!(json.len(), 4);
        assert_eq!(json[2], (at(3), Event::step_finished("a")));
    }

    #[test]
    fn a_bad_protobuf_frame_is_an_error_naming_its_index() {
        let good = frames(&[Event::step_started("a"), Event::step_finished("a")]);
        // An empty frame after two good ones.
        let mut bytes = good.clone();
        bytes.extend_from_slice(&[0, 0, 0, 0]);
        let err = read(&bytes).unwrap_err();
        assert_eq!(err.position, Position::Event(2), "{err}");
        // A frame that is not an Event message.
        let mut bytes = good.clone();
        bytes.extend_from_slice(&[0, 0, 0, 2, 0xff, 0xff]);
        let err = read(&bytes).unwrap_err();
        assert_eq!(err.position, Position::Event(2), "{err}");
        assert!(err.message.starts_with("protobuf frame"), "{err}");
        // A stream cut inside its second frame.
        let err = read(&good[..good.len() - 1]).unwrap_err();
        assert_eq!(err.position, Position::Event(1), "{err}");
        // A length over the 10 MiB limit is refused without reading (or holding) the frame.
        let err = read(&[0, 0xa0, 0, 0, 1, 2, 3]).unwrap_err();
        assert_eq!(err.position, Position::Event(0), "{err}");
        assert!(
            err.message.contains("too-large") || err.message.contains("large"),
            "{err}"
        );
    }
}
