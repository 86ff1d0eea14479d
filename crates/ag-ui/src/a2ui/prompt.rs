//! What the generating sub-agent reads: its system prompt, the retry block, and the two tool
//! declarations (`generate_a2ui` for the planner, `render_a2ui` for the sub-agent).

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::catalog::Catalog;
use super::error::Finding;
use super::{GENERATE_TOOL_NAME, RENDER_TOOL_NAME, SCHEMA_CONTEXT_DESCRIPTION};
use crate::{Context, Tool};

/// The heading of the block a retry's prompt ends with. The AG-UI Dojo's mock model
/// recognises a retry by the words `Previous attempt was invalid` in the sub-agent's prompt,
/// as the other SDKs write them.
pub(crate) const RETRY_HEADING: &str = "## Previous attempt was invalid";

const RULES: &str = "\
You design one user interface in A2UI v0.9 and deliver it by calling `render_a2ui` once, with:
- `surfaceId`: a short lowercase id with hyphens, naming what the surface shows;
- `components`: the components, as a flat array;
- `data`: an object, the surface's data model (the values the components show and edit).

How components are written:
- Each component is an object with a unique `id` and a `component` naming its type; use only \
the types listed under Available Components. Its other properties sit on the same object.
- Exactly one component has the id `root`, a layout container (a row, a column, a card) where \
rendering starts.
- A component never contains another: it names its children by id. `child` holds one id; \
`children` holds a list of ids, or a template `{\"componentId\": \"card\", \"path\": \"/items\"}` \
that repeats the component `card` once per item of the array at `/items` in `data`.
- Every id referenced must be the id of a component in the array, and no component may be its \
own descendant.
- A property bound to the data model is written `{\"path\": \"/form/name\"}` (a JSON Pointer). \
Inside a repeated template, paths are relative to the item (`{\"path\": \"name\"}`, no leading \
slash); elsewhere they are absolute and must exist in `data`.
- Inputs bind their `value` to a path, so what the user types lands in the data model.
- A button has a `child` (its label, a text component) and an `action`: \
`{\"event\": {\"name\": \"book\", \"context\": {\"hotel\": {\"path\": \"name\"}}}}`; the \
context's paths are read when the user clicks.
- Use only real image URLs; do not invent them. Do not choose a catalog: the application has.";

/// The system prompt of one attempt: the rules, the application's context, the catalog, the
/// guide, the surface being edited, and (on a retry) the previous attempt's findings.
pub(crate) fn base_prompt(
    context: &[Context],
    catalog_text: Option<&str>,
    catalog: Option<&Catalog>,
    guide: Option<&str>,
    edit: Option<&str>,
) -> String {
    let mut prompt = String::from(RULES);
    for entry in context {
        if entry.description == SCHEMA_CONTEXT_DESCRIPTION {
            continue;
        }
        let _ = write!(prompt, "\n\n## {}\n{}", entry.description, entry.value);
    }
    match (catalog_text, catalog) {
        (Some(text), _) => {
            let _ = write!(prompt, "\n\n## Available Components\n{text}");
        }
        (None, Some(catalog)) => {
            prompt.push_str("\n\n## Available Components");
            let mut names: Vec<&str> = catalog.names().collect();
            names.sort_unstable();
            for name in names {
                let _ = write!(prompt, "\n- {name}");
                let required: Vec<&str> = catalog
                    .component(name)
                    .map(|spec| {
                        spec.required()
                            .iter()
                            .map(String::as_str)
                            .filter(|r| *r != "id" && *r != "component")
                            .collect()
                    })
                    .unwrap_or_default();
                if !required.is_empty() {
                    let _ = write!(prompt, " (requires {})", required.join(", "));
                }
            }
        }
        (None, None) => {}
    }
    if let Some(guide) = guide.filter(|g| !g.is_empty()) {
        prompt.push_str("\n\n");
        prompt.push_str(guide);
    }
    if let Some(edit) = edit {
        prompt.push_str("\n\n");
        prompt.push_str(edit);
    }
    prompt
}

/// The block that asks for the surface to be edited in place.
pub(crate) fn edit_block(
    surface_id: &str,
    components: &[Value],
    data: Option<&Value>,
    changes: Option<&str>,
) -> String {
    let mut block = format!(
        "## Editing the surface `{surface_id}`\n\
         Render the whole surface again with the changes made: every component (keep the ids \
         of those that do not change) and the whole data model, not only what differs.\n\n\
         ### Its components now\n{}\n\n### Its data now\n{}",
        serde_json::to_string_pretty(components).unwrap_or_default(),
        data.map(|d| serde_json::to_string_pretty(d).unwrap_or_default())
            .unwrap_or_else(|| "{}".to_owned()),
    );
    if let Some(changes) = changes.filter(|c| !c.is_empty()) {
        let _ = write!(block, "\n\n### The changes asked for\n{changes}");
    }
    block
}

/// `prompt` with the findings of the previous attempt, one `- [code] path: message` line
/// each.
pub(crate) fn retry_prompt(prompt: &str, findings: &[Finding]) -> String {
    let mut out = format!(
        "{prompt}\n\n{RETRY_HEADING}\nThe surface you rendered last breaks these rules. Call \
         `render_a2ui` again with all of them fixed:"
    );
    for finding in findings {
        let _ = write!(out, "\n- {finding}");
    }
    out
}

/// The `render_a2ui` tool the generating sub-agent is made to call: `surfaceId`,
/// `components` (required) and `data`, the arguments `@ag-ui/a2ui-middleware` paints as they
/// stream. The catalog is not an argument: the application chooses it.
///
/// ```
/// let tool = ag_ui::a2ui::render_tool();
/// assert_eq!(tool.name, "render_a2ui");
/// assert_eq!(tool.parameters.unwrap()["required"], serde_json::json!(["surfaceId", "components"]));
/// ```
pub fn render_tool() -> Tool {
    Tool::new(
        RENDER_TOOL_NAME,
        "Renders one A2UI v0.9 surface from a flat list of components (the root's id is \
         `root`) and its data model.",
    )
    .with_parameters(json!({
        "type": "object",
        "properties": {
            "surfaceId": {
                "type": "string",
                "description": "The surface's id: short, lowercase, hyphenated."
            },
            "components": {
                "type": "array",
                "items": {"type": "object"},
                "description": "Every component of the surface, flat; children are referenced by id; one has the id `root`."
            },
            "data": {
                "type": "object",
                "description": "The surface's data model, which components bind to with {\"path\": ...}."
            }
        },
        "required": ["surfaceId", "components"]
    }))
}

/// The `generate_a2ui` tool a planning model calls to have a surface made: `intent`
/// (`create`, the default, or `update`), `target_surface_id` (the surface to update) and
/// `changes` (what to change). Its result is the surface's `{"a2ui_operations": [...]}`, or a
/// structured failure.
///
/// ```
/// let tool = ag_ui::a2ui::generate_tool();
/// assert_eq!(tool.name, "generate_a2ui");
/// assert!(tool.parameters.unwrap()["properties"]["intent"]["enum"].is_array());
/// ```
pub fn generate_tool() -> Tool {
    Tool::new(
        GENERATE_TOOL_NAME,
        "Shows the user a rich interface (cards, lists, comparisons, forms, dashboards) made \
         for this conversation by a UI designer model, or changes one shown before. Call it \
         when a visual answer beats text; the interface appears by itself, so do not repeat \
         its content afterwards.",
    )
    .with_parameters(json!({
        "type": "object",
        "properties": {
            "intent": {
                "type": "string",
                "enum": ["create", "update"],
                "description": "`create` (the default) for a new surface; `update` to change one rendered earlier in the conversation."
            },
            "target_surface_id": {
                "type": "string",
                "description": "With `update`: the id of the surface to change."
            },
            "changes": {
                "type": "string",
                "description": "With `update`: the changes to make, in words."
            }
        }
    }))
}
