//! [`Catalog`]: the components a client can render, what each requires, and which of its
//! properties reference other components — what the validator checks a surface against.

use std::collections::HashMap;

use serde_json::Value;

use super::SCHEMA_CONTEXT_DESCRIPTION;
use super::error::{A2uiError, A2uiErrorKind};
use crate::{Context, EXCERPT_BYTES, excerpt};

/// A property of a component that references other components, besides `child` and
/// `children` (which always do).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RefField {
    /// The property holds one id, a list of ids, or a template (`{"componentId", "path"}`):
    /// a `Modal`'s `trigger` and `content`.
    Field(String),
    /// Each item of the array property `array` holds the reference in `field`: a `Tabs`'
    /// `tabs[].child`.
    Nested {
        /// The array property.
        array: String,
        /// The member of each item that references.
        field: String,
    },
}

/// What a catalog says about one component type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ComponentSpec {
    required: Vec<String>,
    refs: Vec<RefField>,
}

impl ComponentSpec {
    /// A component type that requires nothing and references only through `child` and
    /// `children`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds required properties.
    #[must_use]
    pub fn with_required<I>(mut self, names: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.required.extend(names.into_iter().map(Into::into));
        self
    }

    /// Adds a property that references components.
    #[must_use]
    pub fn with_ref(mut self, field: RefField) -> Self {
        self.refs.push(field);
        self
    }

    /// The required properties (`id` and `component` included when the schema lists them).
    pub fn required(&self) -> &[String] {
        &self.required
    }

    /// The references besides `child` and `children`.
    pub fn refs(&self) -> &[RefField] {
        &self.refs
    }
}

/// The components a client renders: the catalog a page registers, sent with every run as a
/// context entry ([`from_context`](Self::from_context)), or one written in Rust.
///
/// It reads every form the ecosystem writes:
///
/// * the A2UI v0.9 catalog (`{"catalogId", "components": {"Name": schema}}`), where a schema
///   lists its `properties` and `required` at its top or in its `allOf` parts, and references
///   are typed `ComponentId` / `ChildList` (`$ref` to `common_types.json`);
/// * the inline catalog `@ag-ui/a2ui-middleware` and the other SDKs' toolkits take (a schema
///   with `required`; references marked `"format": "componentRef"` or `"componentRefList"`),
///   and what `@copilotkit/a2ui-renderer` sends (`allOf: [{$ref}, {properties, required}]`);
/// * the legacy list `[{"name", "props", "slots"}]`, alone or under `components`.
///
/// ```
/// use ag_ui::a2ui::{Catalog, RefField};
/// use serde_json::json;
///
/// let catalog = Catalog::from_json(&json!({
///     "catalogId": "https://example.com/catalog.json",
///     "components": {
///         "HotelCard": {"type": "object", "required": ["name", "rating"]},
///         "Modal": {"allOf": [
///             {"$ref": "common_types.json#/$defs/ComponentCommon"},
///             {"properties": {
///                 "trigger": {"$ref": "common_types.json#/$defs/ComponentId"},
///                 "content": {"$ref": "common_types.json#/$defs/ComponentId"}},
///              "required": ["component", "trigger", "content"]}
///         ]}
///     }
/// })).unwrap();
/// assert_eq!(catalog.id(), Some("https://example.com/catalog.json"));
/// assert_eq!(catalog.component("HotelCard").unwrap().required(), ["name", "rating"]);
/// assert_eq!(catalog.component("Modal").unwrap().refs()[0], RefField::Field("trigger".into()));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Catalog {
    id: Option<String>,
    components: HashMap<String, ComponentSpec>,
}

impl Catalog {
    /// An empty catalog named `id`.
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            id: Some(id.into()),
            components: HashMap::new(),
        }
    }

    /// Adds (or replaces) the component type `name`.
    #[must_use]
    pub fn with_component(mut self, name: impl Into<String>, spec: ComponentSpec) -> Self {
        self.components.insert(name.into(), spec);
        self
    }

    /// The catalog's id, when it has one.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// What the catalog says about component type `name`; `None` when it has no such type.
    pub fn component(&self, name: &str) -> Option<&ComponentSpec> {
        self.components.get(name)
    }

    /// The component types, in no particular order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.components.keys().map(String::as_str)
    }

    /// How many component types it has.
    pub fn len(&self) -> usize {
        self.components.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.components.is_empty()
    }

    /// Reads a catalog (see the forms above).
    ///
    /// # Errors
    ///
    /// [`Decode`](A2uiErrorKind::Decode) when `value` is neither a list of components nor an
    /// object with `components`, or a component is not an object or has no name.
    pub fn from_json(value: &Value) -> Result<Self, A2uiError> {
        let decode = |what: String| {
            A2uiError::new(
                A2uiErrorKind::Decode,
                format!("not an A2UI catalog: {what}"),
            )
        };
        let (id, components) = match value {
            Value::Array(list) => (None, Components::List(list)),
            Value::Object(map) => {
                let id = match map.get("catalogId") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(id)) => Some(id.clone()),
                    Some(_) => return Err(decode("`catalogId` is not a string".to_owned())),
                };
                match map.get("components") {
                    Some(Value::Object(named)) => (id, Components::Named(named)),
                    Some(Value::Array(list)) => (id, Components::List(list)),
                    Some(_) => {
                        return Err(decode(
                            "`components` is neither an object nor an array".to_owned(),
                        ));
                    }
                    None => return Err(decode("no `components`".to_owned())),
                }
            }
            _ => return Err(decode("neither an object nor an array".to_owned())),
        };
        let mut catalog = Catalog {
            id,
            components: HashMap::new(),
        };
        match components {
            Components::Named(named) => {
                for (name, schema) in named {
                    let Value::Object(_) = schema else {
                        return Err(decode(format!(
                            "the schema of `{}` is not an object",
                            excerpt(name, EXCERPT_BYTES)
                        )));
                    };
                    catalog.components.insert(name.clone(), spec_of(schema));
                }
            }
            Components::List(list) => {
                for (i, entry) in list.iter().enumerate() {
                    let Some(name) = entry.get("name").and_then(Value::as_str) else {
                        return Err(decode(format!("component {i} has no string `name`")));
                    };
                    // Legacy: `props` is the schema, `slots` the referencing properties.
                    let mut spec = spec_of(entry.get("props").unwrap_or(entry));
                    if let Some(Value::Array(slots)) = entry.get("slots") {
                        for slot in slots.iter().filter_map(Value::as_str) {
                            if !is_implicit(slot) {
                                spec.refs.push(RefField::Field(slot.to_owned()));
                            }
                        }
                    }
                    catalog.components.insert(name.to_owned(), spec);
                }
            }
        }
        Ok(catalog)
    }

    /// Reads the catalog a page sent with the run: the context entry whose description is
    /// [`SCHEMA_CONTEXT_DESCRIPTION`] (the last, if several), its value the catalog's JSON
    /// text. `None` when the run carries no such entry.
    ///
    /// # Errors
    ///
    /// [`Decode`](A2uiErrorKind::Decode) when the entry's value is not JSON or not a catalog.
    ///
    /// ```
    /// use ag_ui::Context;
    /// use ag_ui::a2ui::{Catalog, SCHEMA_CONTEXT_DESCRIPTION};
    ///
    /// let context = [Context::new(
    ///     SCHEMA_CONTEXT_DESCRIPTION,
    ///     r#"{"catalogId": "c", "components": {"Row": {"required": ["children"]}}}"#,
    /// )];
    /// let catalog = Catalog::from_context(&context).unwrap().unwrap();
    /// assert_eq!(catalog.id(), Some("c"));
    /// assert!(Catalog::from_context(&[]).is_none());
    /// ```
    pub fn from_context(context: &[Context]) -> Option<Result<Self, A2uiError>> {
        let entry = context
            .iter()
            .rev()
            .find(|c| c.description == SCHEMA_CONTEXT_DESCRIPTION)?;
        Some(
            serde_json::from_str::<Value>(&entry.value)
                .map_err(|e| {
                    A2uiError::new(
                        A2uiErrorKind::Decode,
                        "the A2UI catalog in the run's context is not JSON",
                    )
                    .with_source(e)
                })
                .and_then(|value| Catalog::from_json(&value)),
        )
    }
}

enum Components<'a> {
    Named(&'a serde_json::Map<String, Value>),
    List(&'a Vec<Value>),
}

fn is_implicit(name: &str) -> bool {
    name == "child" || name == "children"
}

/// Whether a property's schema types it as a component reference (one or a list).
fn is_ref(schema: &Value) -> bool {
    let format = schema.get("format").and_then(Value::as_str);
    if matches!(format, Some("componentRef" | "componentRefList")) {
        return true;
    }
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .is_some_and(|r| r.ends_with("/ComponentId") || r.ends_with("/ChildList"))
}

/// The required properties and references of a component schema, read from its top and its
/// `allOf` parts (one level: the forms in use put them there).
fn spec_of(schema: &Value) -> ComponentSpec {
    let mut spec = ComponentSpec::new();
    let parts = std::iter::once(schema).chain(
        schema
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten(),
    );
    for part in parts {
        if let Some(Value::Array(required)) = part.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !spec.required.iter().any(|r| r == name) {
                    spec.required.push(name.to_owned());
                }
            }
        }
        let Some(Value::Object(properties)) = part.get("properties") else {
            continue;
        };
        for (name, property) in properties {
            if is_implicit(name) {
                continue;
            }
            if is_ref(property) {
                spec.refs.push(RefField::Field(name.clone()));
            } else if property.get("type").and_then(Value::as_str) == Some("array")
                && let Some(Value::Object(items)) = property
                    .get("items")
                    .and_then(|items| items.get("properties"))
            {
                for (field, item) in items {
                    if is_ref(item) {
                        spec.refs.push(RefField::Nested {
                            array: name.clone(),
                            field: field.clone(),
                        });
                    }
                }
            }
        }
    }
    spec
}
