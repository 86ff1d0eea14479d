//! The ordering verifier: checks that a stream of [`Event`]s comes in an order AG-UI 1.0
//! allows, one event at a time.
//!
//! An AG-UI stream is valid only if a message's content sits between its start and end, a
//! step is finished by whoever started it, every subagent ends before the run finishes, a
//! message never changes owner, and so on. [`Verifier`] checks all of it incrementally: feed
//! each event to [`Verifier::check`] and it either accepts the event or returns a
//! [`Violation`] naming the rule ([`ViolationKind`]), the event's index and the ids involved.
//! It accepts and rejects exactly what the reference client (`verifyEvents` of
//! `@ag-ui/client` 1.0.0) does, at the same event, but for three rules of the next
//! specification's draft (D1–D3 below), which it enforces ahead of the reference: there it is
//! stricter, and nowhere else.
//!
//! ```
//! use ag_ui::verify::{Verifier, ViolationKind};
//! use ag_ui::{Event, TextMessageRole};
//!
//! let mut verifier = Verifier::new();
//! verifier.check(&Event::run_started("t", "r")).unwrap();
//! verifier.check(&Event::text_message_start("m1", TextMessageRole::Assistant)).unwrap();
//! verifier.check(&Event::text_message_content("m1", "Hi")).unwrap();
//!
//! // The message is still open, so the run cannot finish.
//! let err = verifier.check(&Event::run_finished("t", "r")).unwrap_err();
//! assert_eq!(err.kind(), ViolationKind::RunUnclosedTextMessages);
//! assert_eq!(err.kind().as_str(), "run.unclosed-text-messages");
//! assert_eq!(err.index(), 3);
//! assert_eq!(err.ids(), ["m1"]);
//! assert_eq!(err.message(), "RUN_FINISHED while text messages are still open: m1");
//!
//! // Ownership: a subagent may not close a message the parent agent opened.
//! let events = [
//!     Event::run_started("t", "r"),
//!     Event::text_message_start("m1", TextMessageRole::Assistant).with_subagent_run_id("s1"),
//!     Event::text_message_end("m1").with_subagent_run_id("s2"),
//! ];
//! let err = ag_ui::verify::verify_all(&events).unwrap_err();
//! assert_eq!(err.kind(), ViolationKind::OwnerMismatch);
//! assert_eq!(
//!     err.to_string(),
//!     "event 2 (TEXT_MESSAGE_END): TEXT_MESSAGE_END for text message m1 owned by subagent s1 \
//!      was sent by subagent s2 [owner.mismatch]"
//! );
//! ```
//!
//! # State and memory
//!
//! The verifier never keeps events. It keeps, per run: one table per entity kind (text and
//! tool-result messages, tool calls, reasoning, activities) mapping an id to its owner and,
//! while it is open, the position of its opener; the open steps per (owner, name); the
//! subagents started in this run; and the run phase. Owners persist for the whole run (the
//! protocol judges a late continuation against them), so memory is bounded by the entities
//! of the current run and released by the next `RUN_STARTED`. Content events only look ids
//! up; they allocate nothing.
//!
//! # After a violation
//!
//! Checking is atomic: a rejected event changes nothing. What happens next depends on the
//! mode:
//!
//! * **Client mode** ([`Verifier::new`]): the event was received, so the stream is broken.
//!   The verifier is terminated, like the reference's stream: every later
//!   [`check`](Verifier::check) returns the first violation again.
//! * **Emission mode** ([`Verifier::for_emission`]): the event is checked *before* it is
//!   emitted, and a rejected event is not emitted, so the stream on the wire is still valid.
//!   The verifier carries on as if the rejected event had never been offered.
//!
//! # Rules
//!
//! The rule ids are those of the protocol's rule catalogue; the kind strings are stable.
//! Checks run in the catalogue's order: the run gates R2, R3, R1/R4 first, then the rules of
//! the event's family, so the first failing check wins.
//!
//! | rules | kind ([`ViolationKind`]) | what |
//! |---|---|---|
//! | R1 | `run.first-event` | the first event is neither `RUN_STARTED` nor `RUN_ERROR` |
//! | R2 | `run.after-error` | anything but `RUN_STARTED` after `RUN_ERROR` |
//! | R3 | `run.after-finished` | anything but `RUN_STARTED` / `RUN_ERROR` after `RUN_FINISHED` |
//! | R4 | `run.already-active` | `RUN_STARTED` inside a run |
//! | R5, R6 | — | a `RUN_STARTED` after a run ended starts a new run and empties every table; `RUN_ERROR` needs nothing closed |
//! | R7 … R12 | `run.unclosed-steps`, `-text-messages`, `-reasoning-messages`, `-reasoning-spans`, `-tool-calls`, `-subagents` | `RUN_FINISHED` with something open; checked in that order, every open id of the first failing category listed in opening order |
//! | R14 / R15 | `text.already-open` / `text.not-open` | text message brackets |
//! | R18 / R19 | `tool.already-open` / `tool.not-open` | tool call brackets |
//! | R25 … R28 | `reasoning.span-already-open`, `reasoning.message-already-open`, `reasoning.span-not-open`, `reasoning.message-not-open` | reasoning spans and reasoning messages are bracketed separately; one id may name both |
//! | R32 / R33 / R34 | `step.already-open` / `step.owner-mismatch` / `step.not-open` | steps are keyed by (owner, name) |
//! | R16, R17, R21, R23, R29, R30, R31, R49 | `owner.mismatch` | a tagged event disagrees with the recorded owner (absent tag = the parent agent, itself an owner) |
//! | R20, R22 | `owner.parent-message-mismatch` | a tool call disagrees with the owner of its `parentMessageId` |
//! | R24, R37, R38, R48 | — | owners recorded by `TOOL_CALL_RESULT` (last writer), `MESSAGES_SNAPSHOT` (authoritative), the `RUN_STARTED` input echo (first writer), `ACTIVITY_SNAPSHOT` (when new or replacing) |
//! | R41 … R44 | `subagent.already-active`, `subagent.id-reused`, `subagent.unknown-parent`, `subagent.not-active` | subagent lifecycle |
//! | R13, R50, R51 | — | a stream may stop anywhere; state, custom, raw and snapshot events have no order; chunk events pass untouched in client mode |
//! | D1 | `run.id-mismatch` | `RUN_FINISHED` names another `runId` than its run's `RUN_STARTED` (checked before R7–R12) |
//! | D2 | `run.thread-mismatch` | `RUN_FINISHED` names another `threadId` than its run's `RUN_STARTED`; a later `RUN_STARTED` names another thread than the stream's first (every run of one stream is on one thread) |
//! | D3 | `interrupt.duplicate-id` | two interrupts of one `RUN_FINISHED` interrupt outcome carry the same id (a resume entry answers an interrupt by its id); after D1 and D2, before R7–R12 |
//!
//! D1–D3 are the rules the corpus's `draft` folder adds (`run-finished-wrong-run-id-fatal`,
//! `run-finished-wrong-thread-id-fatal`, `second-run-on-another-thread-fatal`,
//! `duplicate-interrupt-id-fatal`), reported at the event that breaks them;
//! [`ViolationKind::is_draft`] tells them apart. `RUN_ERROR` carries no `threadId` or `runId`
//! (in 1.0 and in the draft alike), so nothing of it is compared. On the server the runner
//! frames every run with the input's ids and keeps an outcome's interrupt ids distinct, so an
//! agent built on this crate cannot break them.
//!
//! Rules about nulls and shapes cannot be broken by a typed [`Event`]: [`Event::from_json`]
//! and friends reject such input with [`DecodeErrorKind::InvalidField`] (`schema.invalid`),
//! or read a legacy form leniently, as the reference client's schema stage does. On an
//! event's JSON, [`Verifier::check_json`] checks them as the reference verifier fed undecoded
//! events does, after the run gates and in its order: R35 and R36 (`subagentRunId: null` on an
//! event or a message, `attribution.null`), R39 (`SUBAGENT_*` without `subagentRunId`, `name`
//! or `message`, `subagent.missing-field`), R40 (`null` in an optional lifecycle field,
//! `subagent.null-field`), R45 and R46 (a malformed subagent outcome, `subagent.bad-outcome`)
//! and R47 (an interrupt with `subagentRunId: null`, `attribution.null`); R0 (any other
//! schema failure) stays a decode error. The chunk rules R52–R56 belong to chunk expansion
//! (`client::chunks`), which runs before the verifier on the client side.
//!
//! # Deliberately not enforced (accepted, as by the reference)
//!
//! * A stream that ends without `RUN_FINISHED` or `RUN_ERROR`, or mid-message (R13).
//! * Any interleaving: any number of text messages, tool calls and reasoning blocks open at
//!   once, of any owners, with any other event in between (emission mode narrows this).
//! * A `subagentRunId` naming a subagent never announced, or one that already ended.
//! * Any tie between a child subagent's lifetime and its parent's; subagents left open at
//!   `RUN_ERROR`; a subagent's end closing its messages, tool calls or steps (it does not).
//! * `parentToolCallId` / `parentMessageId` on `SUBAGENT_STARTED` naming anything real.
//! * `TOOL_CALL_RESULT` without (or during) its call; `REASONING_ENCRYPTED_VALUE` for an entity
//!   that is closed or unknown; `ACTIVITY_DELTA` for an unknown activity.
//! * The `RUN_FINISHED` outcome beyond D3, the `RUN_STARTED` ids beyond D1 and D2 (the run id
//!   is not compared with the input's, nor the thread with the input's: the verifier sees the
//!   stream alone), pending tool call or interrupt bookkeeping, `expiresAt`.
//!
//! # Emission mode
//!
//! [`Verifier::for_emission`] is the server's verifier: it checks each event before the
//! server emits it. It applies every rule above, plus what the server's emit handles promise:
//!
//! * Within one owner (the parent agent, or one `subagentRunId`) at most one text message is
//!   open at a time: a second `TEXT_MESSAGE_START` while one is open is
//!   `emit.text-already-open`. Likewise at most one reasoning span and one reasoning message
//!   (the span may hold the message): `emit.reasoning-already-open`. Different owners stream
//!   in parallel, and parallel tool calls stay legal.
//! * Chunk events are self-contained units rather than brackets. A chunk must carry its id
//!   (`emit.chunk-missing-id`), a `TOOL_CALL_CHUNK` that starts a call must carry
//!   `toolCallName` (`emit.chunk-missing-name`), and a chunk that continues a chunk stream
//!   must keep its lane's owner (`owner.mismatch`) and repeat the opener's text `role` and
//!   `name`, tool `toolCallName` and `parentMessageId` unchanged, or leave them out
//!   (`emit.chunk-field-mismatch`). The chunk registers its id's owner like an
//!   opener and is checked like the `START` it expands to (owner agreement, parent message
//!   owner, not open as explicit events, one open block per owner). A chunk is never "open",
//!   so it needs no closing before `RUN_FINISHED`.
//! * While a lane (an owner) streams an id as chunks, the client's chunk expansion holds that
//!   id open until an event of the same lane arrives. So an explicit `START` for that id from
//!   another owner is rejected as already open, and a `TOOL_CALL_RESULT` from another owner
//!   may not re-own that message (`owner.mismatch`): the `END` the client synthesizes would
//!   disagree.
//! * The lanes, which lane a chunk belongs to, what a continuation must repeat and which events
//!   close a lane are not a second copy of those rules: emission mode and the chunk normalizer
//!   (`client::chunks::ChunkNormalizer`) hold the same crate-private lane model.
//!
//! Everything emission mode accepts is accepted by the reference client: the differential
//! tests feed emission-filtered streams through `transformChunks` and `verifyEvents` of
//! @ag-ui/client 1.0.0.
//!
//! The server feeds the `RUN_STARTED` it frames the run with to the verifier first, like any
//! other event.

mod engine;
mod raw;
mod violation;

pub use violation::{Violation, ViolationKind};

/// The kinds of [`CheckJsonError`]: a broken rule, or JSON that is not an event, each with
/// its own kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CheckJsonErrorKind {
    /// The event broke a rule ([`CheckJsonError::violation`]).
    Violation(ViolationKind),
    /// The JSON is not an event ([`CheckJsonError::decode`]).
    Decode(DecodeErrorKind),
}

impl CheckJsonErrorKind {
    /// The stable name: the violation's rule kind (`subagent.missing-field`, …) or the decode
    /// error's (`schema.invalid`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            CheckJsonErrorKind::Violation(kind) => kind.as_str(),
            CheckJsonErrorKind::Decode(kind) => kind.as_str(),
        }
    }
}

/// Why [`Verifier::check_json`] did not accept an event: the event broke a rule (an ordering
/// rule, or a null or shape rule of the catalogue), or the JSON is not an event (bad JSON, no
/// or an unknown `type`, an invalid field that no rule of the catalogue names).
///
/// Opaque, with a [`kind`](Self::kind); the [`Violation`] or the [`DecodeError`] is behind
/// [`violation`](Self::violation) or [`decode`](Self::decode), and `Display` and
/// [`source`](std::error::Error::source) are its own.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(transparent)]
pub struct CheckJsonError(CheckJsonFailure);

/// What a [`CheckJsonError`] holds.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum CheckJsonFailure {
    #[error(transparent)]
    Violation(Violation),
    #[error(transparent)]
    Decode(DecodeError),
}

impl From<Violation> for CheckJsonError {
    fn from(violation: Violation) -> Self {
        CheckJsonError(CheckJsonFailure::Violation(violation))
    }
}

impl From<DecodeError> for CheckJsonError {
    fn from(error: DecodeError) -> Self {
        CheckJsonError(CheckJsonFailure::Decode(error))
    }
}

impl CheckJsonError {
    /// What kind of failure this is, with the rule's or the decode error's own kind.
    pub fn kind(&self) -> CheckJsonErrorKind {
        match &self.0 {
            CheckJsonFailure::Violation(v) => CheckJsonErrorKind::Violation(v.kind()),
            CheckJsonFailure::Decode(e) => CheckJsonErrorKind::Decode(e.kind()),
        }
    }

    /// The rule the event broke.
    pub fn violation(&self) -> Option<&Violation> {
        match &self.0 {
            CheckJsonFailure::Violation(v) => Some(v),
            CheckJsonFailure::Decode(_) => None,
        }
    }

    /// Why the JSON is not an event.
    pub fn decode(&self) -> Option<&DecodeError> {
        match &self.0 {
            CheckJsonFailure::Decode(e) => Some(e),
            CheckJsonFailure::Violation(_) => None,
        }
    }
}

/// The error of a decode that should have failed; a JSON reader that accepts what another
/// rejected is a bug, reported as a syntax error rather than a panic.
fn decode_error(result: Result<Event, DecodeError>) -> DecodeError {
    result.err().unwrap_or_else(|| {
        DecodeError::new(
            DecodeErrorKind::Syntax,
            "the event could not be read as JSON",
        )
    })
}

use crate::{DecodeError, DecodeErrorKind, Event, EventType};

use engine::Engine;

/// The incremental ordering verifier; see the [module docs](self).
///
/// Build one per stream: [`Verifier::new`] for a received stream (the 1.0 rules exactly),
/// [`Verifier::for_emission`] for a stream a server is producing.
#[derive(Clone, Debug)]
pub struct Verifier {
    engine: Engine,
    emission: bool,
    checked: usize,
    failed: Option<Violation>,
}

impl Default for Verifier {
    fn default() -> Self {
        Self::new()
    }
}

impl Verifier {
    /// A verifier in client mode: exactly the AG-UI 1.0 rules, as the reference client applies
    /// them. Chunk events pass through untouched (they are expanded before verification).
    pub fn new() -> Self {
        Self {
            engine: Engine::new(false),
            emission: false,
            checked: 0,
            failed: None,
        }
    }

    /// A verifier in emission mode: the same rules plus one open text message and one open
    /// reasoning block per owner, with chunks checked as self-contained units. A rejected
    /// event leaves the verifier as it was. See [Emission mode](self#emission-mode).
    pub fn for_emission() -> Self {
        Self {
            engine: Engine::new(true),
            emission: true,
            checked: 0,
            failed: None,
        }
    }

    /// Whether this verifier is in emission mode.
    pub fn is_emission(&self) -> bool {
        self.emission
    }

    /// Checks the next event of the stream.
    ///
    /// # Errors
    ///
    /// A [`Violation`] when `event` breaks a rule; its index is the event's position in the
    /// stream. In client mode the verifier is then terminated and returns that violation for
    /// every later event; in emission mode the event counts as not emitted.
    #[inline]
    pub fn check(&mut self, event: &Event) -> Result<(), Violation> {
        if let Some(failed) = &self.failed {
            return Err(failed.clone());
        }
        match self.engine.step(event) {
            Ok(()) => {
                self.checked += 1;
                Ok(())
            }
            Err(fail) => self.fail(fail, event),
        }
    }

    /// Turns a failed rule into the violation, terminating a client-mode verifier.
    #[cold]
    fn fail(&mut self, fail: engine::Fail, event: &Event) -> Result<(), Violation> {
        Err(self.fail_as(fail, event.event_type()))
    }

    /// [`fail`](Self::fail) for an event known by its type.
    #[cold]
    fn fail_as(&mut self, fail: engine::Fail, ty: EventType) -> Violation {
        let violation = fail.into_violation(self.checked, ty);
        if !self.emission {
            self.failed = Some(violation.clone());
        }
        violation
    }

    /// Checks the next event of the stream given as JSON, as a verifier fed undecoded events
    /// (the reference's `verifyEvents` on its own) does: after the run-level gates (R1–R4),
    /// the null and shape rules a typed event cannot break (`attribution.null`,
    /// `subagent.null-field`, `subagent.bad-outcome`, `subagent.missing-field`; R35, R36,
    /// R39, R40, R45–R47), in the reference's order; then the event is decoded and
    /// [`check`](Self::check)ed. A shape the decoder would reject with a rule of its own is
    /// reported as that rule's violation at the event's index, not as a decode error; a
    /// shape the decoder reads leniently (a `subagentRunId: null` on `RUN_FINISHED`, a
    /// subagent outcome of unknown type) is a violation here all the same.
    ///
    /// ```
    /// use ag_ui::verify::{CheckJsonErrorKind, Verifier, ViolationKind};
    ///
    /// let mut verifier = Verifier::new();
    /// verifier.check_json(br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#).unwrap();
    /// let err = verifier
    ///     .check_json(br#"{"type":"SUBAGENT_STARTED","name":"helper"}"#)
    ///     .unwrap_err();
    /// assert_eq!(
    ///     err.kind(),
    ///     CheckJsonErrorKind::Violation(ViolationKind::SubagentMissingField)
    /// );
    /// assert_eq!(err.kind().as_str(), "subagent.missing-field");
    /// assert_eq!(err.violation().map(|v| v.index()), Some(1));
    /// ```
    ///
    /// # Errors
    ///
    /// A [`CheckJsonError`] with a [`violation`](CheckJsonError::violation) as
    /// [`check`](Self::check) (terminating a client-mode verifier), or with a
    /// [`decode`](CheckJsonError::decode) error when the JSON is not an event for another
    /// reason (which does not terminate it).
    pub fn check_json(&mut self, json: &[u8]) -> Result<Event, CheckJsonError> {
        if let Some(failed) = &self.failed {
            return Err(failed.clone().into());
        }
        let repaired = crate::decode::repair_surrogates(json, crate::decode::Lone::Replace);
        let Ok(value) =
            serde_json::from_slice::<serde_json::Value>(repaired.as_deref().unwrap_or(json))
        else {
            return Err(decode_error(Event::from_slice(json)).into());
        };
        let ty = match value
            .get("type")
            .and_then(serde_json::Value::as_str)
            .map(str::parse::<EventType>)
        {
            Some(Ok(ty)) => ty,
            _ => {
                return Err(decode_error(Event::from_value(&value)).into());
            }
        };
        if let Err(fail) = self.engine.gate_type(ty) {
            return Err(self.fail_as(fail, ty).into());
        }
        if let Some(map) = value.as_object()
            && let Some(fail) = raw::shape(ty, map)
        {
            return Err(self.fail_as(fail, ty).into());
        }
        let event = Event::from_value(&value)?;
        self.check(&event)?;
        Ok(event)
    }

    /// How many events were accepted so far (the index the next event will have).
    pub fn events_checked(&self) -> usize {
        self.checked
    }

    /// Whether a run is in progress: a `RUN_STARTED` was accepted and no `RUN_FINISHED` or
    /// `RUN_ERROR` after it. A stream that stops here stopped in the middle of a run.
    pub fn in_run(&self) -> bool {
        self.engine.in_run()
    }

    /// Whether any event was accepted (a stream's first event starts or fails a run).
    pub fn has_started(&self) -> bool {
        self.engine.started()
    }

    /// What the current run has open (empty when no run is in progress).
    ///
    /// ```
    /// use ag_ui::verify::Verifier;
    /// use ag_ui::{Event, TextMessageRole};
    ///
    /// let mut verifier = Verifier::new();
    /// verifier.check(&Event::run_started("t", "r")).unwrap();
    /// verifier.check(&Event::text_message_start("m1", TextMessageRole::Assistant)).unwrap();
    /// verifier.check(&Event::tool_call_start("c1", "search")).unwrap();
    /// assert!(verifier.in_run());
    /// let open = verifier.open();
    /// assert_eq!(open.text_messages, ["m1"]);
    /// assert_eq!(open.tool_calls, ["c1"]);
    /// assert_eq!(open.to_string(), "text messages m1; tool calls c1");
    /// ```
    pub fn open(&self) -> OpenEntities {
        self.engine.open()
    }

    /// The violation that terminated a client-mode verifier, if any.
    pub fn violation(&self) -> Option<&Violation> {
        self.failed.as_ref()
    }
}

/// What a run still has open when its stream stops: ids of open steps (a subagent's step is
/// shown as `name (subagent id)`), text messages, reasoning messages, reasoning spans, tool
/// calls and active subagents, each in the order they were opened. See [`Verifier::open`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct OpenEntities {
    /// Open steps.
    pub steps: Vec<String>,
    /// Open text (and tool-result) messages.
    pub text_messages: Vec<String>,
    /// Open reasoning messages.
    pub reasoning_messages: Vec<String>,
    /// Open reasoning spans.
    pub reasoning_spans: Vec<String>,
    /// Open tool calls.
    pub tool_calls: Vec<String>,
    /// Subagents started and not ended.
    pub subagents: Vec<String>,
}

impl OpenEntities {
    /// Whether nothing is open.
    pub fn is_empty(&self) -> bool {
        self.categories().all(|(_, ids)| ids.is_empty())
    }

    /// Each category with its name (`"text messages"`, `"tool calls"`, …), in the order the
    /// `RUN_FINISHED` closure rules check them.
    pub fn categories(&self) -> impl Iterator<Item = (&'static str, &[String])> {
        [
            ("steps", &self.steps[..]),
            ("text messages", &self.text_messages[..]),
            ("reasoning messages", &self.reasoning_messages[..]),
            ("reasoning spans", &self.reasoning_spans[..]),
            ("tool calls", &self.tool_calls[..]),
            ("subagents", &self.subagents[..]),
        ]
        .into_iter()
    }
}

impl std::fmt::Display for OpenEntities {
    /// `text messages m1, m2; tool calls c1`, or `nothing` when empty.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for (name, ids) in self.categories().filter(|(_, ids)| !ids.is_empty()) {
            if !first {
                f.write_str("; ")?;
            }
            first = false;
            let shown = crate::excerpt_list(
                ids.iter()
                    .map(|id| crate::excerpt(id, crate::EXCERPT_BYTES)),
            );
            write!(f, "{name} {shown}")?;
        }
        if first {
            f.write_str("nothing")?;
        }
        Ok(())
    }
}

/// Checks one event's JSON against the null and shape rules alone — the rules a typed
/// [`Event`] cannot break because decoding reads past them (`attribution.null`,
/// `subagent.null-field`, `subagent.bad-outcome`, `subagent.missing-field`; R35, R36, R39, R40,
/// R45–R47) — as [`Verifier::check_json`] checks them, without the ordering rules. For a
/// pipeline that decodes events leniently (expanding chunks, converting legacy events) and
/// verifies them typed, but must still refuse what the reference's schema refuses, such as a
/// `RUN_FINISHED` interrupt's `subagentRunId: null`. JSON that is not an object with a known
/// `type` passes: the decoder reports it.
///
/// ```
/// use ag_ui::verify::{ViolationKind, check_shape};
///
/// let finished = br#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":
///     {"type":"interrupt","interrupts":[{"id":"i1","reason":"x","subagentRunId":null}]}}"#;
/// let v = check_shape(finished, 7).unwrap_err();
/// assert_eq!((v.kind(), v.index()), (ViolationKind::AttributionNull, 7));
/// assert!(check_shape(br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#, 0).is_ok());
/// // A type spelled with an escape is read as the decoder reads it.
/// let escaped = br#"{"type":"\u0053UBAGENT_STARTED","name":"n"}"#;
/// let v = check_shape(escaped, 1).unwrap_err();
/// assert_eq!(v.kind(), ViolationKind::SubagentMissingField);
/// ```
///
/// # Errors
/// The [`Violation`] of the first rule broken, at `index` (the event's index in its stream).
pub fn check_shape(json: &[u8], index: usize) -> Result<(), Violation> {
    // Every rule is about a `null` or a `SUBAGENT_*` event, whose type can only be spelled
    // otherwise with a `\u` escape: JSON with none of the three (most text deltas) passes
    // without being parsed.
    let has = |needle: &[u8]| json.windows(needle.len()).any(|w| w == needle);
    if !has(b"null") && !has(b"SUBAGENT_") && !has(b"\\u") {
        return Ok(());
    }
    let repaired = crate::decode::repair_surrogates(json, crate::decode::Lone::Replace);
    let Ok(serde_json::Value::Object(map)) =
        serde_json::from_slice::<serde_json::Value>(repaired.as_deref().unwrap_or(json))
    else {
        return Ok(());
    };
    let Some(Ok(ty)) = map
        .get("type")
        .and_then(serde_json::Value::as_str)
        .map(str::parse::<EventType>)
    else {
        return Ok(());
    };
    match raw::shape(ty, &map) {
        Some(fail) => Err(fail.into_violation(index, ty)),
        None => Ok(()),
    }
}

/// Checks a whole stream with a client-mode [`Verifier`] and returns the number of events.
///
/// ```
/// use ag_ui::Event;
///
/// let events = vec![Event::run_started("t", "r"), Event::run_finished("t", "r")];
/// assert_eq!(ag_ui::verify::verify_all(&events).unwrap(), 2);
/// ```
///
/// # Errors
///
/// The first [`Violation`].
pub fn verify_all<'a>(events: impl IntoIterator<Item = &'a Event>) -> Result<usize, Violation> {
    let mut verifier = Verifier::new();
    for event in events {
        verifier.check(event)?;
    }
    Ok(verifier.events_checked())
}

/// Wraps an iterator of events so that each is verified as it passes: yields `Ok(event)` for
/// accepted events, then the first `Err(violation)`, then ends.
///
/// ```
/// use ag_ui::Event;
/// use ag_ui::verify::{verified, ViolationKind};
///
/// let events = vec![Event::text_message_end("m1")];
/// let out: Vec<_> = verified(events).collect();
/// assert_eq!(out.len(), 1);
/// assert_eq!(out[0].as_ref().unwrap_err().kind(), ViolationKind::RunFirstEvent);
/// ```
pub fn verified<I>(events: I) -> Verified<I::IntoIter>
where
    I: IntoIterator,
    I::Item: std::borrow::Borrow<Event>,
{
    Verified {
        inner: events.into_iter(),
        verifier: Verifier::new(),
        done: false,
    }
}

/// The iterator returned by [`verified`].
#[derive(Debug)]
pub struct Verified<I> {
    inner: I,
    verifier: Verifier,
    done: bool,
}

impl<I> Iterator for Verified<I>
where
    I: Iterator,
    I::Item: std::borrow::Borrow<Event>,
{
    type Item = Result<I::Item, Violation>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let event = self.inner.next()?;
        match self.verifier.check(std::borrow::Borrow::borrow(&event)) {
            Ok(()) => Some(Ok(event)),
            Err(violation) => {
                self.done = true;
                Some(Err(violation))
            }
        }
    }
}
