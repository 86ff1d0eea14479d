//! The validator: a surface's components checked against A2UI's rules and a [`Catalog`].
//!
//! The input is hostile (a model wrote it, or a peer): the sizes are bounded by
//! [`ValidateConfig`], nothing recurses on the input's depth (the property walk and the cycle
//! search keep their own stacks), and every finding quotes what it names through
//! `excerpt`.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::catalog::{Catalog, ComponentSpec, RefField};
use super::error::{A2uiError, Finding, Rule};
use super::ops::{Component, Envelope, Operation};
use super::pointer::{parse_pointer, resolve, write};
use crate::json::measure::MAX_DEPTH;
use crate::{EXCERPT_BYTES, EXCERPT_LIST_BYTES, excerpt};

/// The default cap on the components of one surface: 1,000.
pub const DEFAULT_MAX_COMPONENTS: usize = 1000;

/// The default cap on the findings one validation reports: 32 (a retry prompt lists them all).
pub const DEFAULT_MAX_FINDINGS: usize = 32;

/// What the validator checks and how much it takes on.
///
/// ```
/// use ag_ui::a2ui::ValidateConfig;
///
/// let config = ValidateConfig::default().with_check_bindings(false).with_max_findings(0);
/// assert!(!config.check_bindings);
/// assert_eq!(config.max_findings, 1); // at least one
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValidateConfig {
    /// Whether absolute data bindings (`{"path": "/…"}`) must name something in the data
    /// model (default `true`). Relative paths are read per item of a repeated template and are
    /// never resolved here; every path's syntax is checked either way.
    pub check_bindings: bool,
    /// The most components a surface may have (default [`DEFAULT_MAX_COMPONENTS`]); past it
    /// the surface is refused whole ([`Rule::TooLarge`]).
    pub max_components: usize,
    /// The most findings reported (default [`DEFAULT_MAX_FINDINGS`], at least 1); the
    /// validation stops at the limit and the error says so.
    pub max_findings: usize,
    /// The deepest nesting of a component's properties walked (default 100, what a client's
    /// reducer accepts; at least 1); deeper is [`Rule::TooLarge`].
    pub max_depth: usize,
}

impl Default for ValidateConfig {
    fn default() -> Self {
        Self {
            check_bindings: true,
            max_components: DEFAULT_MAX_COMPONENTS,
            max_findings: DEFAULT_MAX_FINDINGS,
            max_depth: MAX_DEPTH,
        }
    }
}

impl ValidateConfig {
    /// Sets [`check_bindings`](Self::check_bindings).
    #[must_use]
    pub fn with_check_bindings(mut self, check: bool) -> Self {
        self.check_bindings = check;
        self
    }

    /// Sets [`max_components`](Self::max_components) (at least 1).
    #[must_use]
    pub fn with_max_components(mut self, max: usize) -> Self {
        self.max_components = max.max(1);
        self
    }

    /// Sets [`max_findings`](Self::max_findings) (at least 1).
    #[must_use]
    pub fn with_max_findings(mut self, max: usize) -> Self {
        self.max_findings = max.max(1);
        self
    }

    /// Sets [`max_depth`](Self::max_depth) (at least 1).
    #[must_use]
    pub fn with_max_depth(mut self, max: usize) -> Self {
        self.max_depth = max.max(1);
        self
    }
}

/// Checks a surface's components as a model or a peer wrote them (JSON, untrusted): the
/// structure (every component an object with a unique `id` and a `component` type, one
/// `root`, every child reference resolved, no reference cycle, every data path a JSON
/// Pointer, absolute bindings found in `data`) and, with a catalog, the types and their
/// required properties.
///
/// # Errors
///
/// [`Invalid`](super::A2uiErrorKind::Invalid) with every rule broken (up to
/// [`max_findings`](ValidateConfig::max_findings)), each naming its rule, component and place.
///
/// ```
/// use ag_ui::a2ui::{Catalog, ComponentSpec, Rule, ValidateConfig, validate_components};
/// use serde_json::json;
///
/// let catalog = Catalog::new("c")
///     .with_component("Row", ComponentSpec::new().with_required(["children"]))
///     .with_component("HotelCard", ComponentSpec::new().with_required(["name"]));
/// let components = [json!({"id": "root", "component": "Row", "children": {"componentId": "card", "path": "/items"}})];
/// let data = json!({"items": []});
/// let err = validate_components(&components, Some(&data), Some(&catalog), &ValidateConfig::default()).unwrap_err();
/// assert_eq!(err.findings()[0].rule(), Rule::UnresolvedChild);
/// assert_eq!(err.findings()[0].path(), "components[0].children");
/// assert_eq!(err.findings()[0].component_id().unwrap(), "root");
///
/// let card = json!({"id": "card", "component": "HotelCard", "name": {"path": "name"}});
/// let fixed = [components[0].clone(), card];
/// validate_components(&fixed, Some(&data), Some(&catalog), &ValidateConfig::default()).unwrap();
/// ```
pub fn validate_components(
    components: &[Value],
    data: Option<&Value>,
    catalog: Option<&Catalog>,
    config: &ValidateConfig,
) -> Result<(), A2uiError> {
    let mut findings = Findings::new(config.max_findings);
    let nodes: Vec<&Value> = components.iter().collect();
    let _ = check(
        &nodes,
        &|i| format!("components[{i}]"),
        "components",
        data,
        catalog,
        config,
        Scope::Whole,
        &mut findings,
    );
    findings.into_result()
}

impl Envelope {
    /// Checks the operations as a client would apply them: per surface, a `createSurface`
    /// at most once (again only after `deleteSurface`), nothing for a deleted surface, every
    /// `updateDataModel` path a JSON Pointer, and the components of each surface — those of
    /// all its `updateComponents`, a later one replacing an id — checked as
    /// [`validate_components`] does against the data model the envelope writes. A surface
    /// the envelope does not create may already hold components on the client: its root,
    /// child references and bindings are not required to resolve within the envelope.
    ///
    /// # Errors
    ///
    /// [`Invalid`](super::A2uiErrorKind::Invalid) with every rule broken.
    pub fn validate(
        &self,
        catalog: Option<&Catalog>,
        config: &ValidateConfig,
    ) -> Result<(), A2uiError> {
        let mut findings = Findings::new(config.max_findings);
        let _ = check_envelope(self, catalog, config, &mut findings);
        findings.into_result()
    }
}

/// The findings so far, bounded; `Err(Full)` once the limit is reached, so the walk stops.
pub(crate) struct Findings {
    list: Vec<Finding>,
    max: usize,
    truncated: bool,
}

/// The findings reached their limit.
pub(crate) struct Full;

impl Findings {
    pub(crate) fn new(max: usize) -> Self {
        Self {
            list: Vec::new(),
            max: max.max(1),
            truncated: false,
        }
    }

    fn push(&mut self, finding: Finding) -> Result<(), Full> {
        if self.list.len() >= self.max {
            self.truncated = true;
            return Err(Full);
        }
        self.list.push(finding);
        Ok(())
    }

    pub(crate) fn into_result(self) -> Result<(), A2uiError> {
        if self.list.is_empty() {
            Ok(())
        } else {
            Err(A2uiError::invalid(self.list, self.truncated))
        }
    }
}

/// One component as the validator reads it: a JSON value (untrusted) or a typed
/// [`Component`].
trait Node {
    /// The `id`, when it is a string.
    fn id(&self) -> Option<&str>;
    /// The `component`, when it is a string.
    fn kind(&self) -> Option<&str>;
    /// A property other than `id` and `component`.
    fn prop(&self, name: &str) -> Option<&Value>;
    /// Every property other than `id` and `component`.
    fn props(&self) -> Vec<&Value>;
}

impl Node for &Value {
    fn id(&self) -> Option<&str> {
        self.get("id").and_then(Value::as_str)
    }
    fn kind(&self) -> Option<&str> {
        self.get("component").and_then(Value::as_str)
    }
    fn prop(&self, name: &str) -> Option<&Value> {
        if name == "id" || name == "component" {
            return None;
        }
        self.get(name)
    }
    fn props(&self) -> Vec<&Value> {
        match self {
            Value::Object(map) => map
                .iter()
                .filter(|(k, _)| *k != "id" && *k != "component")
                .map(|(_, v)| v)
                .collect(),
            _ => Vec::new(),
        }
    }
}

impl Node for &Component {
    fn id(&self) -> Option<&str> {
        Some(self.id.as_str())
    }
    fn kind(&self) -> Option<&str> {
        Some(&self.component)
    }
    fn prop(&self, name: &str) -> Option<&Value> {
        if name == "id" || name == "component" {
            return None;
        }
        self.properties.get(name)
    }
    fn props(&self) -> Vec<&Value> {
        self.properties
            .iter()
            .filter(|(k, _)| *k != "id" && *k != "component")
            .map(|(_, v)| v)
            .collect()
    }
}

/// Whether the components are the surface's whole tree, or an update of a surface the
/// client already holds (so references may resolve to components not listed).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    Whole,
    Update,
}

fn quote(text: &str) -> std::borrow::Cow<'_, str> {
    excerpt(text, EXCERPT_BYTES)
}

/// A second component with the id `id`, found at `path`.
fn duplicate(path: String, id: &str) -> Finding {
    Finding::new(
        Rule::DuplicateId,
        path,
        format!("the id `{}` is used by more than one component", quote(id)),
    )
    .on(Some(id))
}

/// A reference found in a component: where (`child`, `children[2]`, `tabs[0].child`) and
/// the id, or `None` when the value there is not an id.
struct Edge {
    at: String,
    target: Option<String>,
}

fn push_refs(at: &str, value: &Value, list: bool, edges: &mut Vec<Edge>) {
    match value {
        Value::String(id) => edges.push(Edge {
            at: at.to_owned(),
            target: Some(id.clone()),
        }),
        Value::Object(map) => edges.push(Edge {
            at: at.to_owned(),
            target: map
                .get("componentId")
                .and_then(Value::as_str)
                .map(str::to_owned),
        }),
        Value::Array(items) if list => {
            for (k, item) in items.iter().enumerate() {
                push_refs(&format!("{at}[{k}]"), item, false, edges);
            }
        }
        _ => edges.push(Edge {
            at: at.to_owned(),
            target: None,
        }),
    }
}

/// Every reference `node` makes: `child`, `children`, and the catalog's reference fields.
fn edges_of(node: &impl Node, spec: Option<&ComponentSpec>) -> Vec<Edge> {
    let mut edges = Vec::new();
    if let Some(child) = node.prop("child") {
        push_refs("child", child, true, &mut edges);
    }
    if let Some(children) = node.prop("children") {
        push_refs("children", children, true, &mut edges);
    }
    for field in spec.map(ComponentSpec::refs).unwrap_or_default() {
        match field {
            RefField::Field(name) => {
                if let Some(value) = node.prop(name) {
                    push_refs(name, value, true, &mut edges);
                }
            }
            RefField::Nested { array, field } => {
                if let Some(Value::Array(items)) = node.prop(array) {
                    for (k, item) in items.iter().enumerate() {
                        if let Some(value) = item.get(field) {
                            push_refs(&format!("{array}[{k}].{field}"), value, true, &mut edges);
                        }
                    }
                }
            }
        }
    }
    edges
}

/// Checks one surface's components; `locate(i)` is where component `i` is, `whole` where
/// the list is.
#[allow(clippy::too_many_arguments)]
fn check<N: Node>(
    nodes: &[N],
    locate: &dyn Fn(usize) -> String,
    whole: &str,
    data: Option<&Value>,
    catalog: Option<&Catalog>,
    config: &ValidateConfig,
    scope: Scope,
    findings: &mut Findings,
) -> Result<(), Full> {
    if nodes.is_empty() {
        return findings.push(Finding::new(
            Rule::EmptyComponents,
            whole,
            "there are no components to render",
        ));
    }
    if nodes.len() > config.max_components {
        return findings.push(Finding::new(
            Rule::TooLarge,
            whole,
            format!(
                "{} components, more than the limit of {}",
                nodes.len(),
                config.max_components
            ),
        ));
    }

    // Ids: the first component with an id owns it.
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(nodes.len());
    for (i, node) in nodes.iter().enumerate() {
        if let Some(id) = node.id().filter(|id| !id.is_empty()) {
            if index.contains_key(id) {
                findings.push(duplicate(format!("components[id={}]", quote(id)), id))?;
            } else {
                index.insert(id, i);
            }
        }
    }

    let empty = Value::Object(Map::new());
    let model = data.unwrap_or(&empty);
    let mut adjacency: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        let at = locate(i);
        let id = node.id().filter(|id| !id.is_empty());
        if id.is_none() {
            findings.push(Finding::new(
                Rule::MissingId,
                format!("{at}.id"),
                format!("component {i} has no string `id`"),
            ))?;
        }
        let kind = node.kind().filter(|k| !k.is_empty());
        if kind.is_none() {
            findings.push(
                Finding::new(
                    Rule::MissingComponentType,
                    format!("{at}.component"),
                    format!("component {i} has no string `component` naming its type"),
                )
                .on(id),
            )?;
        }
        let spec = match (catalog, kind) {
            (Some(catalog), Some(kind)) => match catalog.component(kind) {
                Some(spec) => Some(spec),
                None => {
                    findings.push(
                        Finding::new(
                            Rule::UnknownComponent,
                            format!("{at}.component"),
                            format!(
                                "the catalog has no component `{}`{}",
                                quote(kind),
                                catalog
                                    .id()
                                    .map(|c| format!(" (catalog `{}`)", quote(c)))
                                    .unwrap_or_default()
                            ),
                        )
                        .on(id),
                    )?;
                    None
                }
            },
            _ => None,
        };
        if let (Some(spec), Some(kind)) = (spec, kind) {
            for required in spec.required() {
                let present = match required.as_str() {
                    "id" => id.is_some(),
                    "component" => true,
                    name => node.prop(name).is_some(),
                };
                if !present {
                    findings.push(
                        Finding::new(
                            Rule::MissingRequiredProp,
                            format!("{at}.{}", quote(required)),
                            format!(
                                "`{}` requires the property `{}`",
                                quote(kind),
                                quote(required)
                            ),
                        )
                        .on(id),
                    )?;
                }
            }
        }
        for edge in edges_of(node, spec) {
            match edge.target.as_deref() {
                Some(target) => match index.get(target) {
                    Some(&j) => adjacency[i].push(j),
                    None if scope == Scope::Update => {}
                    None => findings.push(
                        Finding::new(
                            Rule::UnresolvedChild,
                            format!("{at}.{}", edge.at),
                            format!("no component has the id `{}`", quote(target)),
                        )
                        .on(id),
                    )?,
                },
                None => findings.push(
                    Finding::new(
                        Rule::UnresolvedChild,
                        format!("{at}.{}", edge.at),
                        "this is not a component id (a string, or a template's `componentId`)",
                    )
                    .on(id),
                )?,
            }
        }
        check_paths(node, &at, id, model, config, scope, findings)?;
    }

    find_cycles(nodes, &adjacency, findings)?;

    if scope == Scope::Whole && !index.contains_key("root") {
        findings.push(Finding::new(
            Rule::NoRoot,
            whole,
            "no component has the id `root`, where rendering starts",
        ))?;
    }
    Ok(())
}

/// Walks a component's properties (its own stack, bounded by `max_depth`): each object's
/// string `path` is a data path, checked for syntax and, when absolute, looked up.
fn check_paths(
    node: &impl Node,
    at: &str,
    id: Option<&str>,
    model: &Value,
    config: &ValidateConfig,
    scope: Scope,
    findings: &mut Findings,
) -> Result<(), Full> {
    let mut stack: Vec<(&Value, usize)> = node.props().into_iter().map(|v| (v, 1)).collect();
    while let Some((value, depth)) = stack.pop() {
        if depth > config.max_depth {
            return findings.push(
                Finding::new(
                    Rule::TooLarge,
                    at,
                    format!(
                        "the properties nest more than {} levels deep",
                        config.max_depth
                    ),
                )
                .on(id),
            );
        }
        match value {
            Value::Object(map) => {
                if let Some(Value::String(path)) = map.get("path") {
                    match parse_pointer(path) {
                        Err(why) => findings.push(
                            Finding::new(
                                Rule::InvalidPath,
                                at,
                                format!("`{}` is not a data path: {why}", quote(path)),
                            )
                            .on(id),
                        )?,
                        Ok(pointer) => {
                            if config.check_bindings
                                && scope == Scope::Whole
                                && pointer.absolute
                                && resolve(model, &pointer.segments).is_none()
                            {
                                findings.push(
                                    Finding::new(
                                        Rule::UnresolvedBinding,
                                        at,
                                        format!(
                                            "the binding `{}` names nothing in the data model",
                                            quote(path)
                                        ),
                                    )
                                    .on(id),
                                )?;
                            }
                        }
                    }
                }
                for (key, child) in map {
                    if key != "path" || !child.is_string() {
                        stack.push((child, depth + 1));
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
    Ok(())
}

/// Finds reference cycles with an iterative depth-first search, each reported once, rotated
/// so its smallest id leads.
fn find_cycles<N: Node>(
    nodes: &[N],
    adjacency: &[Vec<usize>],
    findings: &mut Findings,
) -> Result<(), Full> {
    const WHITE: u8 = 0;
    const GREY: u8 = 1;
    const BLACK: u8 = 2;
    let mut color = vec![WHITE; nodes.len()];
    // Where each grey node is on the path, for the cycle's slice in O(1).
    let mut position: Vec<usize> = vec![0; nodes.len()];
    let mut reported: HashSet<Vec<usize>> = HashSet::new();
    for start in 0..nodes.len() {
        if color[start] != WHITE {
            continue;
        }
        let mut frames: Vec<(usize, usize)> = vec![(start, 0)];
        let mut path: Vec<usize> = vec![start];
        color[start] = GREY;
        position[start] = 0;
        while let Some(frame) = frames.last_mut() {
            let (node, next) = *frame;
            let Some(&target) = adjacency[node].get(next) else {
                color[node] = BLACK;
                frames.pop();
                path.pop();
                continue;
            };
            frame.1 += 1;
            match color[target] {
                WHITE => {
                    color[target] = GREY;
                    position[target] = path.len();
                    path.push(target);
                    frames.push((target, 0));
                }
                GREY => {
                    let mut cycle = path[position[target]..].to_vec();
                    let id = |i: usize| nodes[i].id().unwrap_or_default();
                    let lead = (0..cycle.len())
                        .min_by(|&a, &b| id(cycle[a]).cmp(id(cycle[b])))
                        .unwrap_or(0);
                    cycle.rotate_left(lead);
                    if reported.insert(cycle.clone()) {
                        let first = id(cycle[0]);
                        let mut chain = String::new();
                        for &i in &cycle {
                            if chain.len() > EXCERPT_LIST_BYTES {
                                chain.push_str(" -> …");
                                break;
                            }
                            if !chain.is_empty() {
                                chain.push_str(" -> ");
                            }
                            chain.push_str(&quote(id(i)));
                        }
                        findings.push(
                            Finding::new(
                                Rule::ChildCycle,
                                format!("components[id={}]", quote(first)),
                                format!("the child references loop: {chain} -> {}", quote(first)),
                            )
                            .on(Some(first)),
                        )?;
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// The state of one surface while an envelope is checked.
#[derive(Default)]
struct SurfaceCheck<'a> {
    created: bool,
    deleted: bool,
    /// Its components, by id, in order; a later one replaces the earlier in place.
    components: Vec<&'a Component>,
    places: Vec<(usize, usize)>,
    by_id: HashMap<&'a str, usize>,
    model: Value,
}

fn check_envelope(
    envelope: &Envelope,
    catalog: Option<&Catalog>,
    config: &ValidateConfig,
    findings: &mut Findings,
) -> Result<(), Full> {
    let mut order: Vec<&str> = Vec::new();
    let mut surfaces: HashMap<&str, SurfaceCheck<'_>> = HashMap::new();
    for (k, op) in envelope.operations.iter().enumerate() {
        let id = op.surface_id().as_str();
        let surface = surfaces.entry(id).or_insert_with(|| {
            order.push(id);
            SurfaceCheck {
                model: Value::Object(Map::new()),
                ..SurfaceCheck::default()
            }
        });
        let at = format!("a2ui_operations[{k}].{}", op.kind());
        match op {
            Operation::CreateSurface(_) => {
                if surface.created && !surface.deleted {
                    findings.push(Finding::new(
                        Rule::SurfaceOrder,
                        at,
                        format!("the surface `{}` is created twice", quote(id)),
                    ))?;
                }
                surface.created = true;
                surface.deleted = false;
            }
            Operation::DeleteSurface(_) => surface.deleted = true,
            Operation::UpdateComponents(update) => {
                if surface.deleted {
                    findings.push(Finding::new(
                        Rule::SurfaceOrder,
                        at.clone(),
                        format!("the surface `{}` was deleted before", quote(id)),
                    ))?;
                }
                let mut seen: HashSet<&str> = HashSet::new();
                for (j, component) in update.components.iter().enumerate() {
                    let cid = component.id.as_str();
                    if !seen.insert(cid) {
                        findings.push(duplicate(format!("{at}.components[{j}].id"), cid))?;
                        continue;
                    }
                    match surface.by_id.get(cid) {
                        Some(&slot) => {
                            surface.components[slot] = component;
                            surface.places[slot] = (k, j);
                        }
                        None => {
                            surface.by_id.insert(cid, surface.components.len());
                            surface.components.push(component);
                            surface.places.push((k, j));
                        }
                    }
                }
            }
            Operation::UpdateDataModel(update) => {
                if surface.deleted {
                    findings.push(Finding::new(
                        Rule::SurfaceOrder,
                        at.clone(),
                        format!("the surface `{}` was deleted before", quote(id)),
                    ))?;
                }
                let path = update.path.as_deref().unwrap_or("/");
                match parse_pointer(path) {
                    Ok(pointer) if pointer.absolute || pointer.segments.is_empty() => {
                        write(&mut surface.model, &pointer.segments, update.value.clone());
                    }
                    Ok(_) => findings.push(Finding::new(
                        Rule::InvalidPath,
                        format!("{at}.path"),
                        format!(
                            "`{}` is relative; the data model is written at absolute paths",
                            quote(path)
                        ),
                    ))?,
                    Err(why) => findings.push(Finding::new(
                        Rule::InvalidPath,
                        format!("{at}.path"),
                        format!("`{}` is not a JSON Pointer: {why}", quote(path)),
                    ))?,
                }
            }
        }
    }
    for id in order {
        let surface = &surfaces[id];
        if surface.components.is_empty() {
            continue;
        }
        let places = &surface.places;
        let locate = |i: usize| {
            let (k, j) = places[i];
            format!("a2ui_operations[{k}].updateComponents.components[{j}]")
        };
        let scope = if surface.created {
            Scope::Whole
        } else {
            Scope::Update
        };
        check(
            &surface.components,
            &locate,
            "a2ui_operations",
            Some(&surface.model),
            catalog,
            config,
            scope,
            findings,
        )?;
    }
    Ok(())
}
