//! [`A2uiError`], the one error of the module, and [`Finding`]: one rule a surface breaks.

use std::fmt;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::ComponentId;
use crate::{EXCERPT_BYTES, excerpt};

/// What went wrong, as [`A2uiError::kind`] reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum A2uiErrorKind {
    /// JSON that does not have the shape the A2UI v0.9 schema (or the AG-UI convention
    /// around it) gives it: an operation, an envelope, a catalog, a user action.
    Decode,
    /// A surface that breaks the rules of A2UI or of its catalog; [`A2uiError::findings`]
    /// says which, each naming its component and rule.
    Invalid,
    /// The run refused an event (it is gone, or an event was out of order).
    Emit,
}

impl A2uiErrorKind {
    /// A short stable name.
    pub fn as_str(self) -> &'static str {
        match self {
            A2uiErrorKind::Decode => "a2ui_decode",
            A2uiErrorKind::Invalid => "a2ui_invalid",
            A2uiErrorKind::Emit => "a2ui_emit",
        }
    }
}

impl fmt::Display for A2uiErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The rule a [`Finding`] names. [`as_str`](Self::as_str) is the code the other AG-UI SDKs'
/// A2UI toolkits use (`@ag-ui/a2ui-toolkit`, the .NET `AGUI.A2UI.Toolkit`), so a retry prompt
/// and a recovery-exhausted result read the same whichever SDK wrote them; the last four are
/// this crate's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// There is no component at all (or the model did not call the render tool).
    EmptyComponents,
    /// A component has no string `id`.
    MissingId,
    /// A component has no string `component` (its type).
    MissingComponentType,
    /// Two components share an id.
    DuplicateId,
    /// No component has the id `root`.
    NoRoot,
    /// A component's type is not in the catalog.
    UnknownComponent,
    /// A component lacks a property its catalog entry requires.
    MissingRequiredProp,
    /// A child reference names no component of the surface.
    UnresolvedChild,
    /// Child references loop back to a component.
    ChildCycle,
    /// An absolute data binding names nothing in the data model.
    UnresolvedBinding,
    /// A data path is not a JSON Pointer (RFC 6901, with A2UI's relative paths).
    InvalidPath,
    /// The render tool's arguments are not a JSON object of the expected shape.
    InvalidArguments,
    /// The surface is larger or deeper than the validator's limits allow.
    TooLarge,
    /// An operation out of order for its surface: created twice, or used after
    /// `deleteSurface`.
    SurfaceOrder,
}

impl Rule {
    /// The rule's code: `empty_components`, `missing_id`, `missing_component_type`,
    /// `duplicate_id`, `no_root`, `unknown_component`, `missing_required_prop`,
    /// `unresolved_child`, `child_cycle`, `unresolved_binding` (shared with the other SDKs),
    /// `invalid_path`, `invalid_arguments`, `too_large`, `surface_order`.
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::EmptyComponents => "empty_components",
            Rule::MissingId => "missing_id",
            Rule::MissingComponentType => "missing_component_type",
            Rule::DuplicateId => "duplicate_id",
            Rule::NoRoot => "no_root",
            Rule::UnknownComponent => "unknown_component",
            Rule::MissingRequiredProp => "missing_required_prop",
            Rule::UnresolvedChild => "unresolved_child",
            Rule::ChildCycle => "child_cycle",
            Rule::UnresolvedBinding => "unresolved_binding",
            Rule::InvalidPath => "invalid_path",
            Rule::InvalidArguments => "invalid_arguments",
            Rule::TooLarge => "too_large",
            Rule::SurfaceOrder => "surface_order",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One rule a surface breaks: the rule, where (`components[2].child`, a locator in the form
/// the other SDKs use), the component (when it has an id), and a message for a person or a
/// model. Text the surface carried (ids, paths, type names) is quoted through
/// `excerpt`, so a finding stays short whatever the surface holds.
///
/// It serializes as `{"code", "path", "message"}`, the shape of the errors in a
/// recovery-exhausted result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    rule: Rule,
    path: String,
    component: Option<ComponentId>,
    message: String,
}

impl Finding {
    pub(crate) fn new(rule: Rule, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            rule,
            path: path.into(),
            component: None,
            message: message.into(),
        }
    }

    pub(crate) fn on(mut self, component: Option<&str>) -> Self {
        self.component = component.map(|id| ComponentId::new(excerpt(id, EXCERPT_BYTES)));
        self
    }

    /// The rule broken.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// Where: `components`, `components[3].children[1]`, `components[id=card]`, ….
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The component the finding is about, when it has an id (quoted, so bounded).
    pub fn component_id(&self) -> Option<&ComponentId> {
        self.component.as_ref()
    }

    /// What is wrong, in a sentence.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Finding {
    /// `[code] path: message`, the line a retry prompt lists.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}: {}", self.rule, self.path, self.message)
    }
}

impl Serialize for Finding {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("code", self.rule.as_str())?;
        map.serialize_entry("path", &self.path)?;
        map.serialize_entry("message", &self.message)?;
        map.end()
    }
}

/// The error of [`ag_ui::a2ui`](super): JSON of the wrong shape, a surface that breaks rules,
/// or an emission the run refused.
///
/// ```
/// use ag_ui::a2ui::{A2uiErrorKind, Envelope, Rule};
///
/// let err = Envelope::from_json(r#"{"a2ui_operations": [{"version": "v0.8"}]}"#).unwrap_err();
/// assert_eq!(err.kind(), A2uiErrorKind::Decode);
/// assert!(err.message().contains("a2ui_operations[0]"), "{err}");
/// ```
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct A2uiError {
    kind: A2uiErrorKind,
    message: String,
    findings: Vec<Finding>,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl A2uiError {
    pub(crate) fn new(kind: A2uiErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            findings: Vec::new(),
            source: None,
        }
    }

    /// An [`Invalid`](A2uiErrorKind::Invalid) error listing `findings`; `truncated` when the
    /// validation stopped at its limit on findings.
    pub(crate) fn invalid(findings: Vec<Finding>, truncated: bool) -> Self {
        let mut message = match findings.first() {
            Some(first) if findings.len() == 1 && !truncated => {
                format!("the A2UI surface is invalid: {first}")
            }
            Some(first) => format!(
                "the A2UI surface breaks {} rules, first: {first}",
                findings.len()
            ),
            None => "the A2UI surface is invalid".to_owned(),
        };
        if truncated {
            message.push_str(" (the validation stopped at its limit; there are more)");
        }
        Self {
            kind: A2uiErrorKind::Invalid,
            message,
            findings,
            source: None,
        }
    }

    #[must_use]
    pub(crate) fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> A2uiErrorKind {
        self.kind
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// For [`Invalid`](A2uiErrorKind::Invalid), every rule broken (up to the validator's
    /// [`max_findings`](super::ValidateConfig::max_findings)), in the order found; empty
    /// otherwise.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The findings, taken.
    pub fn into_findings(self) -> Vec<Finding> {
        self.findings
    }
}

impl From<crate::server::Error> for A2uiError {
    fn from(error: crate::server::Error) -> Self {
        // The server's error is the source; the message does not repeat it.
        A2uiError::new(A2uiErrorKind::Emit, "the run refused an A2UI event").with_source(error)
    }
}

impl From<A2uiError> for crate::server::Error {
    /// An emission the run refused stays that error (so a consumer gone away still reads as
    /// cancelled); anything else becomes an agent error whose code is the kind's name.
    fn from(error: A2uiError) -> Self {
        if error.kind == A2uiErrorKind::Emit
            && let Some(source) = error.source
            && let Ok(inner) = source.downcast::<crate::server::Error>()
        {
            return *inner;
        }
        crate::server::Error::agent(error.message).with_code(error.kind.as_str())
    }
}
