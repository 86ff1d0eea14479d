//! The error the verifier reports: [`Violation`] and its [`ViolationKind`].

use std::fmt;

use crate::EventType;

macro_rules! kinds {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, rules = [$($rule:literal),*]; )*) => {
        /// Which rule a [`Violation`] broke. The kind strings ([`ViolationKind::as_str`]) are
        /// the stable names of the protocol's rule catalogue (`rules.md`), plus the `emit.*`
        /// kinds of [emission mode](super::Verifier::for_emission). The catalogue's null and
        /// shape kinds (`attribution.null`, `subagent.missing-field`, `subagent.null-field`,
        /// `subagent.bad-outcome`) cannot be broken by a typed event: only
        /// [`Verifier::check_json`](super::Verifier::check_json), which reads the event's JSON,
        /// reports them. The `chunk.*` kinds belong to chunk expansion.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ViolationKind {
            $( $(#[$doc])* $variant, )*
        }

        impl ViolationKind {
            /// Every kind, in catalogue order.
            pub const ALL: &'static [ViolationKind] = &[ $( ViolationKind::$variant, )* ];

            /// The stable kind string, e.g. `"text.already-open"`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( ViolationKind::$variant => $name, )*
                }
            }

            /// The rule ids of the catalogue this kind reports (`["R16", "R17", …]`); empty
            /// for the emission-only kinds.
            pub fn rules(self) -> &'static [&'static str] {
                match self {
                    $( ViolationKind::$variant => &[$($rule),*], )*
                }
            }
        }
    };
}

kinds! {
    /// R1: the first event of a stream is neither `RUN_STARTED` nor `RUN_ERROR`.
    RunFirstEvent = "run.first-event", rules = ["R1"];
    /// R2: an event other than `RUN_STARTED` after `RUN_ERROR`.
    RunAfterError = "run.after-error", rules = ["R2"];
    /// R3: an event other than `RUN_STARTED` or `RUN_ERROR` after `RUN_FINISHED`.
    RunAfterFinished = "run.after-finished", rules = ["R3"];
    /// R4: `RUN_STARTED` while a run is active.
    RunAlreadyActive = "run.already-active", rules = ["R4"];
    /// R7: `RUN_FINISHED` with a step still open.
    RunUnclosedSteps = "run.unclosed-steps", rules = ["R7"];
    /// R8: `RUN_FINISHED` with a text message still open.
    RunUnclosedTextMessages = "run.unclosed-text-messages", rules = ["R8"];
    /// R9: `RUN_FINISHED` with a reasoning message still open.
    RunUnclosedReasoningMessages = "run.unclosed-reasoning-messages", rules = ["R9"];
    /// R10: `RUN_FINISHED` with a reasoning span still open.
    RunUnclosedReasoningSpans = "run.unclosed-reasoning-spans", rules = ["R10"];
    /// R11: `RUN_FINISHED` with a tool call still open.
    RunUnclosedToolCalls = "run.unclosed-tool-calls", rules = ["R11"];
    /// R12: `RUN_FINISHED` with a subagent still active.
    RunUnclosedSubagents = "run.unclosed-subagents", rules = ["R12"];
    /// R14: `TEXT_MESSAGE_START` for a message that is open.
    TextAlreadyOpen = "text.already-open", rules = ["R14"];
    /// R15: `TEXT_MESSAGE_CONTENT` / `_END` for a message that is not open.
    TextNotOpen = "text.not-open", rules = ["R15"];
    /// R18: `TOOL_CALL_START` for a call that is open.
    ToolAlreadyOpen = "tool.already-open", rules = ["R18"];
    /// R19: `TOOL_CALL_ARGS` / `_END` for a call that is not open.
    ToolNotOpen = "tool.not-open", rules = ["R19"];
    /// R25: `REASONING_START` for a span that is open.
    ReasoningSpanAlreadyOpen = "reasoning.span-already-open", rules = ["R25"];
    /// R26: `REASONING_MESSAGE_START` for a reasoning message that is open.
    ReasoningMessageAlreadyOpen = "reasoning.message-already-open", rules = ["R26"];
    /// R27: `REASONING_END` for a span that is not open.
    ReasoningSpanNotOpen = "reasoning.span-not-open", rules = ["R27"];
    /// R28: `REASONING_MESSAGE_CONTENT` / `_END` for a reasoning message that is not open.
    ReasoningMessageNotOpen = "reasoning.message-not-open", rules = ["R28"];
    /// R32: `STEP_STARTED` for a (owner, name) that is open.
    StepAlreadyOpen = "step.already-open", rules = ["R32"];
    /// R33: `STEP_FINISHED` for a step that only another owner has open.
    StepOwnerMismatch = "step.owner-mismatch", rules = ["R33"];
    /// R34: `STEP_FINISHED` for a step name nobody has open.
    StepNotOpen = "step.not-open", rules = ["R34"];
    /// R16, R17, R21, R23, R29–R31, R49: an event's `subagentRunId` disagrees with the
    /// recorded owner of the entity it names.
    OwnerMismatch = "owner.mismatch", rules = ["R16", "R17", "R21", "R23", "R29", "R30", "R31", "R49"];
    /// R20, R22: a `TOOL_CALL_START` disagrees with the owner of its `parentMessageId`.
    OwnerParentMessageMismatch = "owner.parent-message-mismatch", rules = ["R20", "R22"];
    /// R41: `SUBAGENT_STARTED` for an active subagent.
    SubagentAlreadyActive = "subagent.already-active", rules = ["R41"];
    /// R42: `SUBAGENT_STARTED` for an id that already finished or errored in this run.
    SubagentIdReused = "subagent.id-reused", rules = ["R42"];
    /// R43: `SUBAGENT_STARTED` whose `parentSubagentRunId` was never started in this run.
    SubagentUnknownParent = "subagent.unknown-parent", rules = ["R43"];
    /// R44: `SUBAGENT_FINISHED` / `SUBAGENT_ERROR` for a subagent that is not active.
    SubagentNotActive = "subagent.not-active", rules = ["R44"];
    /// R35, R36, R47: an explicit `subagentRunId: null` on an event, on a message inside
    /// `MESSAGES_SNAPSHOT.messages` or `RUN_STARTED.input.messages`, or on an interrupt of a
    /// `RUN_FINISHED` outcome (raw JSON only, see [`Verifier::check_json`](super::Verifier::check_json)).
    AttributionNull = "attribution.null", rules = ["R35", "R36", "R47"];
    /// R39: a `SUBAGENT_*` event without a string `subagentRunId` (or `name` on
    /// `SUBAGENT_STARTED`, `message` on `SUBAGENT_ERROR`) (raw JSON only).
    SubagentMissingField = "subagent.missing-field", rules = ["R39"];
    /// R40: an explicit `null` in an optional `SUBAGENT_*` field (raw JSON only).
    SubagentNullField = "subagent.null-field", rules = ["R40"];
    /// R45, R46: a subagent outcome that is not `{"type":"success"}` or
    /// `{"type":"suspended"}`, or whose `interruptIds` is `null` or holds a non-string (raw
    /// JSON only).
    SubagentBadOutcome = "subagent.bad-outcome", rules = ["R45", "R46"];
    /// D1, a rule of the next specification (draft): `RUN_FINISHED` names another `runId`
    /// than the `RUN_STARTED` of the run it closes.
    RunIdMismatch = "run.id-mismatch", rules = ["D1"];
    /// D2, a rule of the next specification (draft): every run of one stream is on one thread:
    /// `RUN_FINISHED` names another `threadId` than its run's `RUN_STARTED`, or a later
    /// `RUN_STARTED` another than the stream's first.
    RunThreadMismatch = "run.thread-mismatch", rules = ["D2"];
    /// D3, a rule of the next specification (draft): two interrupts of one `RUN_FINISHED`
    /// interrupt outcome carry the same id (a resume entry answers an interrupt by its id).
    InterruptDuplicateId = "interrupt.duplicate-id", rules = ["D3"];
    /// Emission mode: a second text message opened by an owner that has one open.
    EmitTextAlreadyOpen = "emit.text-already-open", rules = [];
    /// Emission mode: a second reasoning span (or reasoning message) opened by an owner that
    /// has one open.
    EmitReasoningAlreadyOpen = "emit.reasoning-already-open", rules = [];
    /// Emission mode: a chunk without its message or tool call id.
    EmitChunkMissingId = "emit.chunk-missing-id", rules = [];
    /// Emission mode: a `TOOL_CALL_CHUNK` that starts a call without `toolCallName`.
    EmitChunkMissingName = "emit.chunk-missing-name", rules = [];
    /// Emission mode: a chunk continuing a chunk stream changes a field its opener set (text
    /// `role` or `name`; tool `toolCallName` or `parentMessageId`).
    EmitChunkFieldMismatch = "emit.chunk-field-mismatch", rules = [];
}

impl ViolationKind {
    /// Whether the kind exists only in [emission mode](super::Verifier::for_emission).
    pub fn is_emission_only(self) -> bool {
        self.rules().is_empty()
    }

    /// Whether the kind is a rule of the next specification (its draft, `D1`–`D3`), which the
    /// reference client 1.0 does not enforce: where this verifier is stricter than the
    /// reference.
    pub fn is_draft(self) -> bool {
        self.rules().iter().any(|rule| rule.starts_with('D'))
    }
}

impl fmt::Display for ViolationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An event broke an ordering rule.
///
/// Carries the [kind](Self::kind) of rule, the [index](Self::index) of the offending event in
/// the stream (0-based), its [type](Self::event_type), the [ids](Self::ids) involved and a
/// [message](Self::message) that says what happened in terms of those ids, e.g.
/// `TEXT_MESSAGE_END for text message msg-2 owned by subagent s1 was sent by subagent s2`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("event {index} ({event_type}): {message} [{kind}]")]
pub struct Violation {
    kind: ViolationKind,
    index: usize,
    event_type: EventType,
    ids: Vec<String>,
    message: String,
}

impl Violation {
    pub(crate) fn new(
        kind: ViolationKind,
        index: usize,
        event_type: EventType,
        ids: Vec<String>,
        message: String,
    ) -> Self {
        Self {
            kind,
            index,
            event_type,
            ids,
            message,
        }
    }

    /// Which rule was broken.
    pub fn kind(&self) -> ViolationKind {
        self.kind
    }

    /// The 0-based position of the offending event in the stream.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The type of the offending event.
    pub fn event_type(&self) -> EventType {
        self.event_type
    }

    /// The ids involved: the entity the event names (message, tool call, reasoning, activity
    /// or subagent id, or step name), followed by the subagent ids that disagree, if any. For
    /// the `RUN_FINISHED` closure kinds, every id still open in the failing category, in the
    /// order they were opened.
    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// The human-readable explanation, without the index and kind prefix/suffix that
    /// `Display` adds.
    pub fn message(&self) -> &str {
        &self.message
    }
}
