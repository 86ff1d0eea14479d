//! The dynamic-schema loop without I/O: [`Generation`] says what to ask the generating
//! sub-agent, checks each `render_a2ui` call it makes against the catalog, asks again with the
//! findings, and ends with the tool's result — the surface's operations, or the structured
//! `a2ui_recovery_exhausted` failure `@ag-ui/a2ui-middleware` shows.
//!
//! It makes no model call itself: the caller does, with whatever model framework it has
//! (`GenerateA2ui` does it for [`LlmAgent`](crate::llm::LlmAgent) with the `openai`
//! feature), so a rig agent's tool drives the same loop.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value, json};

use super::catalog::Catalog;
use super::error::{A2uiErrorKind, Finding, Rule};
use super::ops::{
    Component, CreateSurface, Envelope, Operation, UpdateComponents, UpdateDataModel,
};
use super::prompt::{base_prompt, edit_block, retry_prompt};
use super::validate::{ValidateConfig, validate_components};
use super::{
    BASIC_CATALOG_ID, DEFAULT_SURFACE_ID, OPERATIONS_KEY, RECOVERY_EXHAUSTED_CODE,
    SCHEMA_CONTEXT_DESCRIPTION,
};
use crate::{Context, EXCERPT_BYTES, excerpt};

/// The default number of attempts the sub-agent gets (the first and two retries): 3, as in
/// the other SDKs.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 3;

/// How a surface is generated.
///
/// ```
/// use ag_ui::a2ui::GenerateConfig;
///
/// let config = GenerateConfig::default()
///     .with_max_attempts(0)
///     .with_catalog_id("https://example.com/catalog.json");
/// assert_eq!(config.max_attempts, 1); // at least one
/// assert_eq!(config.surface_id, "dynamic-surface");
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct GenerateConfig {
    /// How many `render_a2ui` calls the sub-agent gets before the generation fails (default
    /// [`DEFAULT_MAX_ATTEMPTS`], at least 1).
    pub max_attempts: u32,
    /// The catalog new surfaces are created with. `None` (the default): the id of the
    /// catalog the page sent with the run, else [`BASIC_CATALOG_ID`]. The model never
    /// chooses it.
    pub catalog_id: Option<String>,
    /// The surface id used when the model gives none (default `dynamic-surface`).
    pub surface_id: String,
    /// Instructions appended to the sub-agent's prompt: how to compose this application's
    /// components (default none).
    pub guide: Option<String>,
    /// The catalog surfaces are checked against, and the sub-agent is told of. `None` (the
    /// default): the catalog the page sent with the run (its context entry), else only A2UI's
    /// structural rules.
    pub catalog: Option<Catalog>,
    /// What the validator checks and how much it takes on.
    pub validate: ValidateConfig,
    /// Whether the tool also shows the generation as an `a2ui-surface` activity (building,
    /// retrying, the surface, or the failure), for clients that render A2UI without
    /// `@ag-ui/a2ui-middleware` (default `false`: with the middleware in front, the surface
    /// would be painted twice).
    pub emit_activity: bool,
}

impl Default for GenerateConfig {
    fn default() -> Self {
        Self {
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            catalog_id: None,
            surface_id: DEFAULT_SURFACE_ID.to_owned(),
            guide: None,
            catalog: None,
            validate: ValidateConfig::default(),
            emit_activity: false,
        }
    }
}

impl GenerateConfig {
    /// Sets [`max_attempts`](Self::max_attempts) (at least 1).
    #[must_use]
    pub fn with_max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts.max(1);
        self
    }

    /// Sets [`catalog_id`](Self::catalog_id).
    #[must_use]
    pub fn with_catalog_id(mut self, id: impl Into<String>) -> Self {
        self.catalog_id = Some(id.into());
        self
    }

    /// Sets [`surface_id`](Self::surface_id).
    #[must_use]
    pub fn with_surface_id(mut self, id: impl Into<String>) -> Self {
        self.surface_id = id.into();
        self
    }

    /// Sets [`guide`](Self::guide).
    #[must_use]
    pub fn with_guide(mut self, guide: impl Into<String>) -> Self {
        self.guide = Some(guide.into());
        self
    }

    /// Sets [`catalog`](Self::catalog).
    #[must_use]
    pub fn with_catalog(mut self, catalog: Catalog) -> Self {
        self.catalog = Some(catalog);
        self
    }

    /// Sets [`validate`](Self::validate).
    #[must_use]
    pub fn with_validate(mut self, validate: ValidateConfig) -> Self {
        self.validate = validate;
        self
    }

    /// Sets [`emit_activity`](Self::emit_activity).
    #[must_use]
    pub fn with_emit_activity(mut self, emit: bool) -> Self {
        self.emit_activity = emit;
        self
    }
}

/// What the planner asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Intent {
    /// A new surface.
    #[default]
    Create,
    /// A change to a surface rendered earlier in the conversation.
    Update,
}

/// The arguments of a `generate_a2ui` call, read leniently (the planner is a model): an
/// `intent` other than `"update"`, or an update naming no `target_surface_id`, is a create;
/// members of the wrong type are ignored.
///
/// ```
/// use ag_ui::a2ui::{GenerateArgs, Intent};
///
/// let args = GenerateArgs::parse(r#"{"intent": "update", "target_surface_id": "s", "changes": "red"}"#);
/// assert_eq!(args.intent, Intent::Update);
/// assert_eq!(GenerateArgs::parse("").intent, Intent::Create);
/// assert_eq!(GenerateArgs::parse("not json").intent, Intent::Create);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct GenerateArgs {
    /// Create or update.
    pub intent: Intent,
    /// The surface to update.
    pub target_surface_id: Option<String>,
    /// What to change, in words.
    pub changes: Option<String>,
}

impl GenerateArgs {
    /// Reads the call's argument text.
    pub fn parse(arguments: &str) -> Self {
        let value: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
        let text = |name: &str| {
            value
                .get(name)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let target_surface_id = text("target_surface_id");
        let intent = if value.get("intent").and_then(Value::as_str) == Some("update")
            && target_surface_id.is_some()
        {
            Intent::Update
        } else {
            Intent::Create
        };
        Self {
            intent,
            target_surface_id,
            changes: text("changes"),
        }
    }
}

/// One attempt's verdict. It serializes as `{"attempt", "ok", "errors"}`, the shape of the
/// attempts of a recovery-exhausted result.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Attempt {
    /// Its number, from 1.
    pub attempt: u32,
    /// Whether its surface was valid.
    pub ok: bool,
    /// What was wrong with it.
    pub errors: Vec<Finding>,
}

impl Serialize for Attempt {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("attempt", &self.attempt)?;
        map.serialize_entry("ok", &self.ok)?;
        map.serialize_entry("errors", &self.errors)?;
        map.end()
    }
}

/// How a generation ended.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct GenerationOutcome {
    /// Whether a valid surface was made.
    pub ok: bool,
    /// The tool's result: `{"a2ui_operations": [...]}` on success; otherwise a structured
    /// failure, `{"error", "code": "a2ui_recovery_exhausted", "attempts"}` when every attempt
    /// failed, or `{"error"}` when the request could not be served (an update of a surface
    /// the conversation never rendered).
    pub result: String,
    /// The surface's operations, on success.
    pub operations: Option<Vec<Operation>>,
    /// Every attempt, in order.
    pub attempts: Vec<Attempt>,
}

/// A surface rendered earlier, as the conversation's tool results left it.
#[derive(Clone, Debug, Default, PartialEq)]
struct Prior {
    components: Vec<Value>,
    data: Option<Value>,
    catalog_id: Option<String>,
}

/// The dynamic-schema loop, as a state machine: ask ([`prompt`](Self::prompt)), check
/// ([`record`](Self::record)), until a surface is valid or the attempts run out; then
/// [`finish`](Self::finish).
///
/// ```
/// use ag_ui::a2ui::{GenerateArgs, GenerateConfig, Generation};
///
/// let mut generation = Generation::new(&GenerateArgs::default(), &[], [], &GenerateConfig::default());
/// // The model answered without calling render_a2ui, then with a surface missing its child.
/// let prompt = generation.prompt().unwrap();
/// assert!(prompt.contains("render_a2ui"));
/// assert!(!generation.record(None).ok);
/// let retry = generation.prompt().unwrap();
/// assert!(retry.contains("Previous attempt was invalid"));
/// let bad = r#"{"surfaceId": "s", "components": [{"id": "root", "component": "Card", "child": "x"}]}"#;
/// assert!(!generation.record(Some(bad)).ok);
/// let good = r#"{"surfaceId": "s", "components": [{"id": "root", "component": "Text", "text": {"path": "/t"}}], "data": {"t": "Hi"}}"#;
/// assert!(generation.record(Some(good)).ok);
/// assert!(generation.prompt().is_none());
///
/// let outcome = generation.finish();
/// assert!(outcome.ok);
/// assert_eq!(outcome.attempts.len(), 3);
/// assert!(outcome.result.starts_with(r#"{"a2ui_operations":[{"version":"v0.9","createSurface":{"surfaceId":"s""#));
/// ```
#[derive(Clone, Debug)]
pub struct Generation {
    base_prompt: String,
    catalog: Option<Catalog>,
    catalog_id: String,
    default_surface_id: String,
    target: Option<String>,
    max_attempts: u32,
    validate: ValidateConfig,
    attempts: Vec<Attempt>,
    done: Option<GenerationOutcome>,
}

impl Generation {
    /// A generation for a `generate_a2ui` call with `args`, in a run whose context is
    /// `context` (where the page's catalog is) and whose conversation's tool results so far
    /// are `history`, oldest first (where an update finds the surface it changes).
    ///
    /// An update of a surface `history` never rendered is finished at once, with a
    /// `{"error"}` result.
    pub fn new<'a>(
        args: &GenerateArgs,
        context: &[Context],
        history: impl IntoIterator<Item = &'a str>,
        config: &GenerateConfig,
    ) -> Self {
        let catalog_text = context
            .iter()
            .rev()
            .find(|c| c.description == SCHEMA_CONTEXT_DESCRIPTION)
            .map(|c| c.value.as_str());
        let page_catalog = match Catalog::from_context(context) {
            Some(Ok(catalog)) => Some(catalog),
            Some(Err(error)) => {
                tracing::warn!(%error, "the page's A2UI catalog is unreadable; surfaces are checked without it");
                None
            }
            None => None,
        };
        let catalog_id = config
            .catalog_id
            .clone()
            .filter(|id| !id.is_empty())
            .or_else(|| {
                page_catalog
                    .as_ref()
                    .and_then(|c| c.id().map(str::to_owned))
            })
            .unwrap_or_else(|| BASIC_CATALOG_ID.to_owned());
        let catalog = config.catalog.clone().or(page_catalog);
        let mut generation = Self {
            base_prompt: String::new(),
            catalog,
            catalog_id,
            default_surface_id: if config.surface_id.is_empty() {
                DEFAULT_SURFACE_ID.to_owned()
            } else {
                config.surface_id.clone()
            },
            target: None,
            max_attempts: config.max_attempts.max(1),
            validate: config.validate.clone(),
            attempts: Vec::new(),
            done: None,
        };
        let mut edit = None;
        if args.intent == Intent::Update
            && let Some(target) = &args.target_surface_id
        {
            match find_prior(history, target) {
                Some(prior) => {
                    edit = Some(edit_block(
                        target,
                        &prior.components,
                        prior.data.as_ref(),
                        args.changes.as_deref(),
                    ));
                    if let Some(id) = prior.catalog_id {
                        generation.catalog_id = id;
                    }
                    generation.target = Some(target.clone());
                }
                None => {
                    generation.done = Some(GenerationOutcome {
                        ok: false,
                        result: json!({
                            "error": format!(
                                "no surface `{}` was rendered earlier in the conversation, so it cannot be updated",
                                excerpt(target, EXCERPT_BYTES)
                            )
                        })
                        .to_string(),
                        operations: None,
                        attempts: Vec::new(),
                    });
                }
            }
        }
        // The model is told the catalog it is checked against: the server's when there is
        // one, else the page's own text.
        let catalog_text = catalog_text.filter(|_| config.catalog.is_none());
        generation.base_prompt = base_prompt(
            context,
            catalog_text,
            generation.catalog.as_ref(),
            config.guide.as_deref(),
            edit.as_deref(),
        );
        generation
    }

    /// The system prompt of the next attempt (a retry's lists the previous attempt's
    /// findings); `None` once the generation is finished.
    pub fn prompt(&self) -> Option<String> {
        if self.done.is_some() {
            return None;
        }
        Some(match self.attempts.last() {
            Some(last) => retry_prompt(&self.base_prompt, &last.errors),
            None => self.base_prompt.clone(),
        })
    }

    /// The number of the next attempt, from 1.
    pub fn attempt(&self) -> u32 {
        u32::try_from(self.attempts.len()).unwrap_or(u32::MAX) + 1
    }

    /// How many attempts there are in all.
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The catalog surfaces are checked against, when there is one.
    pub fn catalog(&self) -> Option<&Catalog> {
        self.catalog.as_ref()
    }

    /// The catalog new surfaces are created with.
    pub fn catalog_id(&self) -> &str {
        &self.catalog_id
    }

    /// Whether the generation is finished.
    pub fn is_finished(&self) -> bool {
        self.done.is_some()
    }

    /// Checks what the sub-agent answered: the argument text of its `render_a2ui` call, or
    /// `None` when it made none. A valid surface finishes the generation; so does the last
    /// attempt.
    pub fn record(&mut self, arguments: Option<&str>) -> &Attempt {
        let verdict = match arguments {
            None => Err(vec![Finding::new(
                Rule::EmptyComponents,
                "components",
                "the model did not call render_a2ui",
            )]),
            Some(text) => self.check(text),
        };
        self.push(verdict)
    }

    /// Records an attempt whose call failed before it produced arguments (the provider
    /// broke off, timed out): `why` is said to the next attempt.
    pub fn record_failure(&mut self, why: &str) -> &Attempt {
        let finding = Finding::new(
            Rule::EmptyComponents,
            "components",
            format!(
                "the render_a2ui call failed: {}",
                excerpt(why, EXCERPT_BYTES)
            ),
        );
        self.push(Err(vec![finding]))
    }

    fn push(&mut self, verdict: Result<Vec<Operation>, Vec<Finding>>) -> &Attempt {
        let attempt = self.attempt();
        let (ok, errors, operations) = match verdict {
            Ok(ops) => (true, Vec::new(), Some(ops)),
            Err(findings) => (false, findings, None),
        };
        self.attempts.push(Attempt {
            attempt,
            ok,
            errors,
        });
        if let Some(operations) = operations {
            self.done = Some(GenerationOutcome {
                ok: true,
                result: Envelope::new(operations.clone()).to_json(),
                operations: Some(operations),
                attempts: self.attempts.clone(),
            });
        } else if attempt >= self.max_attempts && self.done.is_none() {
            self.done = Some(GenerationOutcome {
                ok: false,
                result: json!({
                    "error": format!(
                        "no valid A2UI surface after {} attempt{}",
                        self.max_attempts,
                        if self.max_attempts == 1 { "" } else { "s" }
                    ),
                    "code": RECOVERY_EXHAUSTED_CODE,
                    "attempts": self.attempts,
                })
                .to_string(),
                operations: None,
                attempts: self.attempts.clone(),
            });
        }
        self.attempts.last().expect("just pushed")
    }

    /// Validates `render_a2ui` arguments; the surface's operations when they are valid.
    fn check(&self, text: &str) -> Result<Vec<Operation>, Vec<Finding>> {
        let invalid =
            |message: String| vec![Finding::new(Rule::InvalidArguments, "arguments", message)];
        let Ok(Value::Object(args)) = serde_json::from_str::<Value>(text) else {
            return Err(invalid(
                "the render_a2ui arguments are not a JSON object".to_owned(),
            ));
        };
        let components: &[Value] = match args.get("components") {
            Some(Value::Array(components)) => components,
            None | Some(Value::Null) => &[],
            Some(_) => {
                return Err(invalid("`components` is not an array".to_owned()));
            }
        };
        let data = match args.get("data") {
            None | Some(Value::Null) => None,
            Some(Value::Object(data)) => Some(data),
            Some(_) => return Err(invalid("`data` is not an object".to_owned())),
        };
        let model = data.map(|d| Value::Object(d.clone()));
        if let Err(error) = validate_components(
            components,
            model.as_ref(),
            self.catalog.as_ref(),
            &self.validate,
        ) {
            debug_assert_eq!(error.kind(), A2uiErrorKind::Invalid);
            return Err(error.into_findings());
        }
        let typed: Vec<Component> = components
            .iter()
            .map(|c| serde_json::from_value(c.clone()))
            .collect::<Result<_, _>>()
            .map_err(|e| invalid(format!("a component does not read: {e}")))?;
        let surface_id = match &self.target {
            Some(target) => target.clone(),
            None => args
                .get("surfaceId")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .unwrap_or(&self.default_surface_id)
                .to_owned(),
        };
        let mut ops: Vec<Operation> = Vec::with_capacity(3);
        if self.target.is_none() {
            ops.push(CreateSurface::new(surface_id.clone(), self.catalog_id.clone()).into());
        }
        ops.push(UpdateComponents::new(surface_id.clone(), typed).into());
        if let Some(data) = data.filter(|d| !d.is_empty()) {
            ops.push(UpdateDataModel::new(surface_id, "/", Value::Object(data.clone())).into());
        }
        Ok(ops)
    }

    /// How it ended; a generation stopped before it finished (the caller gave up) ends as
    /// one whose attempts ran out.
    pub fn finish(mut self) -> GenerationOutcome {
        if let Some(done) = self.done.take() {
            return done;
        }
        GenerationOutcome {
            ok: false,
            result: json!({
                "error": format!(
                    "no valid A2UI surface after {} attempt{}",
                    self.attempts.len(),
                    if self.attempts.len() == 1 { "" } else { "s" }
                ),
                "code": RECOVERY_EXHAUSTED_CODE,
                "attempts": self.attempts,
            })
            .to_string(),
            operations: None,
            attempts: self.attempts,
        }
    }
}

/// The latest state of `surface_id` in the conversation's tool results (oldest first): the
/// newest result mentioning it decides (a `deleteSurface` there means it is gone); older ones
/// fill only what the newer left unsaid.
fn find_prior<'a>(history: impl IntoIterator<Item = &'a str>, surface_id: &str) -> Option<Prior> {
    let results: Vec<&str> = history
        .into_iter()
        .filter(|text| text.contains(OPERATIONS_KEY))
        .collect();
    let mut prior: Option<Prior> = None;
    for text in results.into_iter().rev() {
        let Ok(Value::Object(envelope)) = serde_json::from_str::<Value>(text) else {
            continue;
        };
        let Some(Value::Array(ops)) = envelope.get(OPERATIONS_KEY) else {
            continue;
        };
        let mut mentioned = false;
        let mut state = Prior::default();
        let mut deleted = false;
        for op in ops {
            let Value::Object(op) = op else { continue };
            let payload = |key: &str| -> Option<&Map<String, Value>> {
                op.get(key)
                    .and_then(Value::as_object)
                    .filter(|p| p.get("surfaceId").and_then(Value::as_str) == Some(surface_id))
            };
            if payload("deleteSurface").is_some() {
                mentioned = true;
                deleted = true;
                state = Prior::default();
            }
            if let Some(create) = payload("createSurface") {
                mentioned = true;
                deleted = false;
                state.catalog_id = create
                    .get("catalogId")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
            if let Some(update) = payload("updateComponents") {
                mentioned = true;
                deleted = false;
                if let Some(Value::Array(components)) = update.get("components") {
                    state.components = components.clone();
                }
            }
            if let Some(update) = payload("updateDataModel") {
                mentioned = true;
                deleted = false;
                state.data = update.get("value").cloned();
            }
        }
        if !mentioned {
            continue;
        }
        match &mut prior {
            None if deleted => return None,
            None => prior = Some(state),
            Some(_) if deleted => {}
            Some(newer) => {
                if newer.catalog_id.is_none() {
                    newer.catalog_id = state.catalog_id;
                }
                if newer.components.is_empty() {
                    newer.components = state.components;
                }
                if newer.data.is_none() {
                    newer.data = state.data;
                }
            }
        }
    }
    prior
}
