//! Writing surfaces in Rust: [`Surface`], the builder methods of [`Component`], and the typed
//! values a component holds ([`Dynamic`], [`Action`], [`FunctionCall`]).

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use super::catalog::Catalog;
use super::error::A2uiError;
use super::ops::{
    Component, ComponentId, CreateSurface, Envelope, Operation, SurfaceId, UpdateComponents,
    UpdateDataModel,
};
use super::validate::ValidateConfig;
use crate::Metadata;

/// A value a property takes: a literal, a binding to the data model (`{"path": …}`), or a
/// client-side function call — A2UI's `DynamicString`, `DynamicNumber`, `DynamicBoolean`,
/// `DynamicValue`.
///
/// ```
/// use ag_ui::a2ui::Dynamic;
/// use serde_json::json;
///
/// assert_eq!(serde_json::to_value(Dynamic::path("/user/name")).unwrap(), json!({"path": "/user/name"}));
/// assert_eq!(serde_json::to_value(Dynamic::from("Hello")).unwrap(), json!("Hello"));
/// assert_eq!(serde_json::to_value(Dynamic::from(4.5)).unwrap(), json!(4.5));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Dynamic {
    /// A literal: string, number, boolean or array.
    Literal(Value),
    /// A JSON Pointer into the data model: absolute (`/user/name`), or relative inside a
    /// repeated template (`name`, the current item's).
    Path(String),
    /// A function the client evaluates.
    Call(FunctionCall),
}

impl Dynamic {
    /// A binding to `path` in the data model.
    pub fn path(path: impl Into<String>) -> Self {
        Dynamic::Path(path.into())
    }

    /// A literal.
    pub fn literal(value: impl Into<Value>) -> Self {
        Dynamic::Literal(value.into())
    }
}

impl From<&str> for Dynamic {
    fn from(text: &str) -> Self {
        Dynamic::Literal(Value::from(text))
    }
}

impl From<String> for Dynamic {
    fn from(text: String) -> Self {
        Dynamic::Literal(Value::from(text))
    }
}

impl From<f64> for Dynamic {
    fn from(number: f64) -> Self {
        Dynamic::Literal(Value::from(number))
    }
}

impl From<i64> for Dynamic {
    fn from(number: i64) -> Self {
        Dynamic::Literal(Value::from(number))
    }
}

impl From<bool> for Dynamic {
    fn from(flag: bool) -> Self {
        Dynamic::Literal(Value::from(flag))
    }
}

impl From<FunctionCall> for Dynamic {
    fn from(call: FunctionCall) -> Self {
        Dynamic::Call(call)
    }
}

impl Serialize for Dynamic {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Dynamic::Literal(value) => value.serialize(serializer),
            Dynamic::Path(path) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("path", path)?;
                map.end()
            }
            Dynamic::Call(call) => call.serialize(serializer),
        }
    }
}

/// A function the client evaluates (`{"call": …, "args": {…}, "returnType": …}`), from the
/// catalog's function list (`formatCurrency`, `required`, `openUrl`, …).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct FunctionCall {
    /// The function's name.
    pub call: String,
    /// Its arguments.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub args: Map<String, Value>,
    /// The type it returns (`string`, `number`, `boolean`, `array`, `object`, `any`, `void`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub return_type: Option<String>,
}

impl FunctionCall {
    /// A call of `name` with no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            call: name.into(),
            args: Map::new(),
            return_type: None,
        }
    }

    /// Adds an argument.
    #[must_use]
    pub fn with_arg(mut self, name: impl Into<String>, value: impl Into<Dynamic>) -> Self {
        self.args.insert(name.into(), to_value(&value.into()));
        self
    }

    /// Sets the return type.
    #[must_use]
    pub fn with_return_type(mut self, return_type: impl Into<String>) -> Self {
        self.return_type = Some(return_type.into());
        self
    }
}

/// What a component does when used: send an event to the agent (it comes back in the next
/// run as a [`UserAction`](super::UserAction)), or call a client-side function.
///
/// ```
/// use ag_ui::a2ui::{Action, Dynamic};
/// use serde_json::json;
///
/// let book = Action::event("book_flight").with_context("flight", Dynamic::path("flightNumber"));
/// assert_eq!(
///     serde_json::to_value(&book).unwrap(),
///     json!({"event": {"name": "book_flight", "context": {"flight": {"path": "flightNumber"}}}})
/// );
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Action {
    /// An event for the agent: its name and a context whose bindings the client resolves
    /// when the user acts.
    Event {
        /// The action's name.
        name: String,
        /// Key-value pairs sent with it.
        context: Map<String, Value>,
    },
    /// A client-side function.
    Function(FunctionCall),
}

impl Action {
    /// An event named `name`, with an empty context.
    pub fn event(name: impl Into<String>) -> Self {
        Action::Event {
            name: name.into(),
            context: Map::new(),
        }
    }

    /// Adds `key` to an event's context (a function call has no context: unchanged).
    #[must_use]
    pub fn with_context(mut self, key: impl Into<String>, value: impl Into<Dynamic>) -> Self {
        if let Action::Event { context, .. } = &mut self {
            context.insert(key.into(), to_value(&value.into()));
        }
        self
    }
}

impl Serialize for Action {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        match self {
            Action::Event { name, context } => {
                #[derive(Serialize)]
                struct Event<'a> {
                    name: &'a str,
                    #[serde(skip_serializing_if = "Map::is_empty")]
                    context: &'a Map<String, Value>,
                }
                map.serialize_entry("event", &Event { name, context })?;
            }
            Action::Function(call) => map.serialize_entry("functionCall", call)?,
        }
        map.end()
    }
}

fn to_value(value: &impl Serialize) -> Value {
    serde_json::to_value(value).expect("A2UI values serialize")
}

impl Component {
    /// A component of type `component` (a name of the surface's catalog) with id `id`.
    pub fn new(id: impl Into<ComponentId>, component: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            component: component.into(),
            properties: Metadata::new(),
        }
    }

    /// Sets property `name` to `value`: a literal, a [`Dynamic::path`], a function call.
    #[must_use]
    pub fn with(mut self, name: impl Into<String>, value: impl Into<Dynamic>) -> Self {
        self.properties.insert(name.into(), to_value(&value.into()));
        self
    }

    /// Binds property `name` to `path` in the data model: `{"path": path}`.
    #[must_use]
    pub fn with_path(self, name: impl Into<String>, path: impl Into<String>) -> Self {
        self.with(name, Dynamic::path(path))
    }

    /// Sets property `name` to any JSON (an object the catalog defines, for instance).
    #[must_use]
    pub fn with_json(mut self, name: impl Into<String>, value: Value) -> Self {
        self.properties.insert(name.into(), value);
        self
    }

    /// The one child (`child`), as a `Card` or a `Button` has.
    #[must_use]
    pub fn with_child(mut self, id: impl Into<ComponentId>) -> Self {
        self.properties
            .insert("child".to_owned(), Value::from(id.into().into_string()));
        self
    }

    /// A list of children (`children: [ids]`), as a `Row` or a `Column` has.
    #[must_use]
    pub fn with_children<I>(mut self, ids: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<ComponentId>,
    {
        let ids: Vec<Value> = ids
            .into_iter()
            .map(|id| Value::from(id.into().into_string()))
            .collect();
        self.properties
            .insert("children".to_owned(), Value::Array(ids));
        self
    }

    /// Children repeated from the data: `template` once per item of the array at `path`
    /// (`children: {"componentId": template, "path": path}`); inside the template, relative
    /// paths read the item.
    #[must_use]
    pub fn with_template(
        mut self,
        template: impl Into<ComponentId>,
        path: impl Into<String>,
    ) -> Self {
        let mut children = Map::new();
        children.insert(
            "componentId".to_owned(),
            Value::from(template.into().into_string()),
        );
        children.insert("path".to_owned(), Value::from(path.into()));
        self.properties
            .insert("children".to_owned(), Value::Object(children));
        self
    }

    /// Sets the `action`.
    #[must_use]
    pub fn with_action(mut self, action: Action) -> Self {
        self.properties
            .insert("action".to_owned(), to_value(&action));
        self
    }
}

/// A whole surface: its id, its catalog, its components and its data model. It becomes the
/// operations that create it ([`operations`](Self::operations)), the tool result the A2UI
/// middleware paints ([`tool_result`](Self::tool_result)), or an `a2ui-surface` activity
/// ([`SurfaceActivity::show`](super::SurfaceActivity::show)).
///
/// ```
/// use ag_ui::a2ui::{Action, Component, Dynamic, Surface};
/// use serde_json::json;
///
/// let surface = Surface::new("greeting", "https://example.com/catalog.json")
///     .with_component(Component::new("root", "Column").with_children(["title", "ok"]))
///     .with_component(Component::new("title", "Text").with_path("text", "/title"))
///     .with_component(
///         Component::new("ok", "Button")
///             .with_child("ok-label")
///             .with_action(Action::event("confirm").with_context("title", Dynamic::path("/title"))),
///     )
///     .with_component(Component::new("ok-label", "Text").with("text", "OK"))
///     .with_data(json!({"title": "Hello"}));
/// surface.validate(None).unwrap();
///
/// let result: serde_json::Value = serde_json::from_str(&surface.tool_result()).unwrap();
/// let ops = result["a2ui_operations"].as_array().unwrap();
/// assert_eq!(ops.len(), 3); // createSurface, updateComponents, updateDataModel
/// assert_eq!(ops[2]["updateDataModel"], json!({"surfaceId": "greeting", "path": "/", "value": {"title": "Hello"}}));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Surface {
    id: SurfaceId,
    catalog_id: String,
    theme: Option<Metadata>,
    components: Vec<Component>,
    data: Option<Value>,
}

impl Surface {
    /// An empty surface `id` whose components come from the catalog `catalog_id`.
    pub fn new(id: impl Into<SurfaceId>, catalog_id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            catalog_id: catalog_id.into(),
            theme: None,
            components: Vec::new(),
            data: None,
        }
    }

    /// Adds a component.
    #[must_use]
    pub fn with_component(mut self, component: Component) -> Self {
        self.components.push(component);
        self
    }

    /// Adds components.
    #[must_use]
    pub fn with_components(mut self, components: impl IntoIterator<Item = Component>) -> Self {
        self.components.extend(components);
        self
    }

    /// Sets the whole data model (written at `/`).
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// Sets the theme (`createSurface.theme`).
    #[must_use]
    pub fn with_theme(mut self, theme: Metadata) -> Self {
        self.theme = Some(theme);
        self
    }

    /// The surface's id.
    pub fn id(&self) -> &SurfaceId {
        &self.id
    }

    /// Its catalog.
    pub fn catalog_id(&self) -> &str {
        &self.catalog_id
    }

    /// Its components.
    pub fn components(&self) -> &[Component] {
        &self.components
    }

    /// Its data model.
    pub fn data(&self) -> Option<&Value> {
        self.data.as_ref()
    }

    /// The operations that create it: `createSurface`, `updateComponents` (when it has
    /// components), and `updateDataModel` at `/` (when it has data).
    pub fn operations(&self) -> Vec<Operation> {
        let mut create = CreateSurface::new(self.id.clone(), self.catalog_id.clone());
        create.theme = self.theme.clone();
        let mut ops = vec![create.into()];
        ops.extend(self.update_operations());
        ops
    }

    /// The operations that bring an existing surface to this one, without `createSurface`
    /// (which the client refuses for a surface it has): `updateComponents`, `updateDataModel`.
    pub fn update_operations(&self) -> Vec<Operation> {
        let mut ops = Vec::with_capacity(2);
        if !self.components.is_empty() {
            ops.push(UpdateComponents::new(self.id.clone(), self.components.clone()).into());
        }
        if let Some(data) = &self.data {
            ops.push(UpdateDataModel::new(self.id.clone(), "/", data.clone()).into());
        }
        ops
    }

    /// The envelope of [`operations`](Self::operations).
    pub fn envelope(&self) -> Envelope {
        Envelope::new(self.operations())
    }

    /// The text a backend tool returns so that `@ag-ui/a2ui-middleware` paints this surface:
    /// `{"a2ui_operations": [...]}`.
    pub fn tool_result(&self) -> String {
        self.envelope().to_json()
    }

    /// Checks the surface: the structure (ids, the root, child references, cycles, data
    /// paths, absolute bindings against its data model) and, with a catalog, component types
    /// and required properties.
    ///
    /// # Errors
    ///
    /// [`Invalid`](super::A2uiErrorKind::Invalid), with every rule broken.
    pub fn validate(&self, catalog: Option<&Catalog>) -> Result<(), A2uiError> {
        self.envelope()
            .validate(catalog, &ValidateConfig::default())
    }
}
