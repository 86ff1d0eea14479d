//! `POST /a2ui_dynamic_schema`: a surface the model designs from the page's catalog.
//!
//! The planning model calls `generate_a2ui` ([`GenerateA2ui`]); its sub-agent, given only
//! `render_a2ui`, designs the surface from the page's domain components (`HotelCard`,
//! `ProductCard`, `TeamMemberCard` in a `Row`, [`CATALOG_ID`]) as [`GUIDE`] tells it; the
//! call streams on the run (the middleware paints it as it arrives), is checked against the
//! catalog the page sent with the run, and is asked again with what was wrong when it is not
//! valid. The tool's result is the surface's operations; the planner then says a sentence.

use ag_ui::a2ui::{GenerateA2ui, GenerateConfig};
use ag_ui::llm::LlmAgent;

use super::ModelConfig;

/// The catalog of the page's domain components, as the Dojo names it.
pub const CATALOG_ID: &str = "https://a2ui.org/demos/dojo/dynamic_catalog.json";

/// The planner's system prompt, shared by the generated-surface routes.
pub const PLANNER_PROMPT: &str = "You are an assistant who shows information as rich user \
interfaces. When the user asks to see, compare or list things (hotels, products, people, …), \
call generate_a2ui to build the interface, then answer with one short sentence; do not repeat \
its content in words.";

/// How the sub-agent composes the page's components.
pub const GUIDE: &str = "## Composing these components
- The root is a `Row` whose `children` is a template repeating one card over the items of \
`/items` in `data`: `{\"componentId\": \"card\", \"path\": \"/items\"}`.
- The card is a `HotelCard` (name, location, rating, pricePerNight), a `ProductCard` (name, \
price, rating, description) or a `TeamMemberCard` (name, role, department, email), each \
property bound to the item (`{\"path\": \"name\"}`), with an `action` event naming what the \
user does (`book`, `select`, `contact`) and the item's name as its context.
- `data.items` holds one object per card, with the fields the card binds.";

/// The `generate_a2ui` tool of this route: the Dojo's dynamic catalog and [`GUIDE`].
pub fn generate(model: &ModelConfig) -> GenerateA2ui {
    GenerateA2ui::new(model.client(), model.model.as_str()).with_config(
        GenerateConfig::default()
            .with_catalog_id(CATALOG_ID)
            .with_guide(GUIDE),
    )
}

/// The agent: the model, the planner's prompt and `generate_a2ui`. No state.
pub fn agent(model: &ModelConfig) -> LlmAgent<()> {
    model
        .agent(PLANNER_PROMPT)
        .with_tool(generate(model).tool())
}
