//! The A2UI v0.9 server-to-client messages ([`Operation`]), their components, and the
//! [`Envelope`] a tool result carries them in.
//!
//! The shapes are those of the A2UI v0.9 JSON Schema (`server_to_client.json`): every message
//! is an object with `"version": "v0.9"` and exactly one of `createSurface`,
//! `updateComponents`, `updateDataModel`, `deleteSurface`, and neither the message nor its
//! payload admits members the schema does not list (`additionalProperties: false`), so reading
//! refuses them. A surface's `theme` is open (`additionalProperties: true`) and kept whole, as
//! are a component's properties, which its catalog defines.

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::error::{A2uiError, A2uiErrorKind};
use super::{OPERATIONS_KEY, VERSION};
use crate::ids::id_type;
use crate::{EXCERPT_BYTES, Metadata, excerpt};

id_type! {
    /// Identifies an A2UI surface (`surfaceId`).
    SurfaceId
}
id_type! {
    /// Identifies a component within its surface (`id`, and every child reference).
    ComponentId
}

/// `createSurface`: the client creates the surface and renders it with the catalog named.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct CreateSurface {
    /// The new surface.
    pub surface_id: SurfaceId,
    /// The catalog its components come from (for example
    /// [`BASIC_CATALOG_ID`](super::BASIC_CATALOG_ID)).
    pub catalog_id: String,
    /// Theme parameters, as the catalog's `theme` schema defines them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<Metadata>,
    /// Whether the client sends the surface's data model back with every message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_data_model: Option<bool>,
}

impl CreateSurface {
    /// `createSurface` for `surface_id` with the catalog `catalog_id`.
    pub fn new(surface_id: impl Into<SurfaceId>, catalog_id: impl Into<String>) -> Self {
        Self {
            surface_id: surface_id.into(),
            catalog_id: catalog_id.into(),
            theme: None,
            send_data_model: None,
        }
    }

    /// Sets the theme.
    #[must_use]
    pub fn with_theme(mut self, theme: Metadata) -> Self {
        self.theme = Some(theme);
        self
    }

    /// Sets `sendDataModel`.
    #[must_use]
    pub fn with_send_data_model(mut self, send: bool) -> Self {
        self.send_data_model = Some(send);
        self
    }
}

/// `updateComponents`: components added to the surface, or replacing those of the same id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct UpdateComponents {
    /// The surface.
    pub surface_id: SurfaceId,
    /// The components, flat: children are referenced by id. The schema asks for at least one.
    #[serde(deserialize_with = "non_empty")]
    pub components: Vec<Component>,
}

impl UpdateComponents {
    /// `updateComponents` for `surface_id`.
    pub fn new(surface_id: impl Into<SurfaceId>, components: Vec<Component>) -> Self {
        Self {
            surface_id: surface_id.into(),
            components,
        }
    }
}

/// `updateDataModel`: the value at `path` of the surface's data model replaced (or created);
/// without a value, the key at `path` removed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct UpdateDataModel {
    /// The surface.
    pub surface_id: SurfaceId,
    /// A JSON Pointer into the data model; absent or `/` is the whole model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The new value. `Some(Value::Null)` is a JSON `null` written there; `None` (the member
    /// absent) removes the key.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub value: Option<Value>,
}

impl UpdateDataModel {
    /// Writes `value` at `path` (`/` for the whole model).
    pub fn new(surface_id: impl Into<SurfaceId>, path: impl Into<String>, value: Value) -> Self {
        Self {
            surface_id: surface_id.into(),
            path: Some(path.into()),
            value: Some(value),
        }
    }

    /// Removes the key at `path`.
    pub fn remove(surface_id: impl Into<SurfaceId>, path: impl Into<String>) -> Self {
        Self {
            surface_id: surface_id.into(),
            path: Some(path.into()),
            value: None,
        }
    }
}

/// `deleteSurface`: the client removes the surface.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct DeleteSurface {
    /// The surface.
    pub surface_id: SurfaceId,
}

impl DeleteSurface {
    /// `deleteSurface` for `surface_id`.
    pub fn new(surface_id: impl Into<SurfaceId>) -> Self {
        Self {
            surface_id: surface_id.into(),
        }
    }
}

/// One A2UI v0.9 server-to-client message: `{"version": "v0.9", "<kind>": {…}}`.
///
/// ```
/// use ag_ui::a2ui::{CreateSurface, Operation};
/// use serde_json::json;
///
/// let op = Operation::from(CreateSurface::new("s1", "https://example.com/catalog.json"));
/// assert_eq!(
///     serde_json::to_value(&op).unwrap(),
///     json!({"version": "v0.9", "createSurface": {"surfaceId": "s1", "catalogId": "https://example.com/catalog.json"}})
/// );
/// // Members the schema does not list are refused, as is another version.
/// assert!(serde_json::from_value::<Operation>(json!({"version": "v0.9", "deleteSurface": {"surfaceId": "s1"}, "extra": 1})).is_err());
/// assert!(serde_json::from_value::<Operation>(json!({"version": "v0.8", "deleteSurface": {"surfaceId": "s1"}})).is_err());
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Operation {
    /// `createSurface`.
    CreateSurface(CreateSurface),
    /// `updateComponents`.
    UpdateComponents(UpdateComponents),
    /// `updateDataModel`.
    UpdateDataModel(UpdateDataModel),
    /// `deleteSurface`.
    DeleteSurface(DeleteSurface),
}

impl Operation {
    /// The surface the operation is for.
    pub fn surface_id(&self) -> &SurfaceId {
        match self {
            Operation::CreateSurface(op) => &op.surface_id,
            Operation::UpdateComponents(op) => &op.surface_id,
            Operation::UpdateDataModel(op) => &op.surface_id,
            Operation::DeleteSurface(op) => &op.surface_id,
        }
    }

    /// The member naming the operation: `createSurface`, `updateComponents`,
    /// `updateDataModel` or `deleteSurface`.
    pub fn kind(&self) -> &'static str {
        match self {
            Operation::CreateSurface(_) => "createSurface",
            Operation::UpdateComponents(_) => "updateComponents",
            Operation::UpdateDataModel(_) => "updateDataModel",
            Operation::DeleteSurface(_) => "deleteSurface",
        }
    }
}

impl From<CreateSurface> for Operation {
    fn from(op: CreateSurface) -> Self {
        Operation::CreateSurface(op)
    }
}

impl From<UpdateComponents> for Operation {
    fn from(op: UpdateComponents) -> Self {
        Operation::UpdateComponents(op)
    }
}

impl From<UpdateDataModel> for Operation {
    fn from(op: UpdateDataModel) -> Self {
        Operation::UpdateDataModel(op)
    }
}

impl From<DeleteSurface> for Operation {
    fn from(op: DeleteSurface) -> Self {
        Operation::DeleteSurface(op)
    }
}

impl Serialize for Operation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("version", VERSION)?;
        match self {
            Operation::CreateSurface(op) => map.serialize_entry("createSurface", op)?,
            Operation::UpdateComponents(op) => map.serialize_entry("updateComponents", op)?,
            Operation::UpdateDataModel(op) => map.serialize_entry("updateDataModel", op)?,
            Operation::DeleteSurface(op) => map.serialize_entry("deleteSurface", op)?,
        }
        map.end()
    }
}

const OPERATION_FIELDS: &[&str] = &[
    "version",
    "createSurface",
    "updateComponents",
    "updateDataModel",
    "deleteSurface",
];

struct OperationVisitor;

impl<'de> Visitor<'de> for OperationVisitor {
    type Value = Operation;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an A2UI v0.9 message: an object with `version` and one operation")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Operation, A::Error> {
        let mut version = false;
        let mut op: Option<Operation> = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let next = match key.as_ref() {
                "version" => {
                    if version {
                        return Err(de::Error::duplicate_field("version"));
                    }
                    let value: std::borrow::Cow<'de, str> = map.next_value()?;
                    if value != VERSION {
                        return Err(de::Error::custom(format_args!(
                            "unsupported A2UI version `{}`, expected `{VERSION}`",
                            excerpt(&value, EXCERPT_BYTES)
                        )));
                    }
                    version = true;
                    continue;
                }
                "createSurface" => Operation::CreateSurface(map.next_value()?),
                "updateComponents" => Operation::UpdateComponents(map.next_value()?),
                "updateDataModel" => Operation::UpdateDataModel(map.next_value()?),
                "deleteSurface" => Operation::DeleteSurface(map.next_value()?),
                other => {
                    return Err(de::Error::unknown_field(
                        &excerpt(other, EXCERPT_BYTES),
                        OPERATION_FIELDS,
                    ));
                }
            };
            if let Some(first) = &op {
                return Err(de::Error::custom(format_args!(
                    "a message carries one operation, this one has `{}` and `{}`",
                    first.kind(),
                    next.kind()
                )));
            }
            op = Some(next);
        }
        if !version {
            return Err(de::Error::missing_field("version"));
        }
        op.ok_or_else(|| {
            de::Error::custom(
                "no operation: expected one of `createSurface`, `updateComponents`, \
                 `updateDataModel`, `deleteSurface`",
            )
        })
    }
}

impl<'de> Deserialize<'de> for Operation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(OperationVisitor)
    }
}

/// A component of a surface: its id, its type (a name of the surface's catalog), and the
/// properties that type defines — literals, data bindings (`{"path": …}`), child references
/// (`child`, `children`), actions.
///
/// The properties are kept as JSON: a catalog, not this crate, says what they mean. The
/// builder methods write the common ones with types ([`with_child`](Self::with_child),
/// [`with_path`](Self::with_path), [`with_action`](Self::with_action), …); see the
/// [module guide](super) for a whole surface. An `id` or `component` key inside
/// [`properties`](Self::properties) is never written: the fields are.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct Component {
    /// The component's id, unique in its surface; the root's is `root`.
    pub id: ComponentId,
    /// Its type, a component name of the catalog (`Text`, `Row`, `HotelCard`, …).
    pub component: String,
    /// Every other member.
    #[serde(flatten)]
    pub properties: Metadata,
}

impl Serialize for Component {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let extra = self
            .properties
            .keys()
            .filter(|k| *k != "id" && *k != "component")
            .count();
        let mut map = serializer.serialize_map(Some(2 + extra))?;
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("component", &self.component)?;
        for (key, value) in &self.properties {
            if key != "id" && key != "component" {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

/// The object AG-UI tool results carry A2UI in: `{"a2ui_operations": [...]}`. A backend tool
/// returns it as its result text ([`to_json`](Self::to_json)); the A2UI middleware
/// (`@ag-ui/a2ui-middleware`) finds it in `TOOL_CALL_RESULT` and paints the surfaces.
///
/// ```
/// use ag_ui::a2ui::{DeleteSurface, Envelope};
///
/// let envelope = Envelope::new(vec![DeleteSurface::new("s1").into()]);
/// let text = envelope.to_json();
/// assert_eq!(text, r#"{"a2ui_operations":[{"version":"v0.9","deleteSurface":{"surfaceId":"s1"}}]}"#);
/// assert_eq!(Envelope::from_json(&text).unwrap(), envelope);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Envelope {
    /// The operations, applied in order.
    #[serde(rename = "a2ui_operations")]
    pub operations: Vec<Operation>,
}

impl Envelope {
    /// An envelope carrying `operations`.
    pub fn new(operations: Vec<Operation>) -> Self {
        Self { operations }
    }

    /// The envelope's JSON text, what a tool returns.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("operations serialize")
    }

    /// The envelope as a JSON value.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("operations serialize")
    }

    /// Reads an envelope from a tool result's text.
    ///
    /// # Errors
    ///
    /// [`Decode`](A2uiErrorKind::Decode) when the text is not JSON, not an object whose only
    /// member is `a2ui_operations`, or an operation breaks the A2UI v0.9 schema; the message
    /// names where (`a2ui_operations[2].updateComponents.components[0].id`).
    pub fn from_json(text: &str) -> Result<Self, A2uiError> {
        let decode = |path: String, inner: serde_json::Error| {
            A2uiError::new(
                A2uiErrorKind::Decode,
                format!(
                    "not an A2UI envelope (`{{\"{OPERATIONS_KEY}\": [...]}}`) at `{}`: {inner}",
                    excerpt(&path, EXCERPT_BYTES)
                ),
            )
            .with_source(inner)
        };
        let mut de = serde_json::Deserializer::from_str(text);
        let envelope = serde_path_to_error::deserialize::<_, Envelope>(&mut de).map_err(|e| {
            let path = e.path().to_string();
            decode(path, e.into_inner())
        })?;
        de.end().map_err(|e| decode(".".to_owned(), e))?;
        Ok(envelope)
    }
}

/// `Some(value)` for a member that is present, `null` included.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

fn non_empty<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Component>, D::Error> {
    let components = Vec::<Component>::deserialize(deserializer)?;
    if components.is_empty() {
        return Err(de::Error::invalid_length(0, &"at least one component"));
    }
    Ok(components)
}
