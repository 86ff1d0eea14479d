//! `POST /shared_state`: a recipe shared between the page and the agent, written by the model
//! through `generate_recipe`, edited by the person in the page.
//!
//! The state is [`RecipeState`]. The model sees it with every request (the agent's context
//! message carries the run's state), so what the person changed in the page — an ingredient
//! added, a title typed — is what the model starts from. When the model calls
//! `generate_recipe` with a whole recipe, the agent puts it in the state and publishes what
//! changed (`STATE_DELTA`), and the page's recipe card follows.

use ag_ui::llm::{BackendTool, LlmAgent, ToolOutput};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ModelConfig;
pub use crate::scripted::shared_state::Ingredient;

/// The system prompt.
pub const SYSTEM_PROMPT: &str = "You are a cooking assistant sharing a recipe with the user, \
who can edit it too; the current recipe is in the application's state. When asked to create, \
change or improve the recipe, call generate_recipe with the whole recipe (title, skill level, \
cooking time, special preferences, every ingredient with an icon, name and amount, and the \
steps), keeping what the user added. When only asked about it, answer in words.";

/// A recipe, as the Dojo's page edits it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Recipe {
    /// Its name.
    #[serde(default)]
    pub title: String,
    /// "Beginner", "Intermediate" or "Advanced".
    #[serde(default)]
    pub skill_level: String,
    /// "5 min", "15 min", "30 min", "45 min" or "60+ min".
    #[serde(default)]
    pub cooking_time: String,
    /// Such as "Low Carb", "Spicy", "Vegetarian".
    #[serde(default)]
    pub special_preferences: Vec<String>,
    /// Every ingredient.
    #[serde(default)]
    pub ingredients: Vec<Ingredient>,
    /// The steps, in order.
    #[serde(default)]
    pub instructions: Vec<String>,
}

/// The shared state: the recipe, and whatever else the page keeps (carried unchanged, so a
/// delta never removes what the agent does not model).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RecipeState {
    /// The recipe, once there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipe: Option<Recipe>,
    /// The rest of the page's state.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// The arguments of `generate_recipe`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct GenerateRecipe {
    /// The whole recipe to show the user.
    pub recipe: Recipe,
}

/// What `generate_recipe` tells the model.
pub const RECIPE_WRITTEN: &str = "The recipe is updated and shown to the user.";

/// The `generate_recipe` tool: the recipe goes into the state.
pub fn generate_recipe() -> BackendTool<RecipeState> {
    BackendTool::new(
        "generate_recipe",
        "Create or update the shared recipe; the user sees it at once.",
        |args: GenerateRecipe, mut state: RecipeState| async move {
            state.recipe = Some(args.recipe);
            Ok(ToolOutput::text(RECIPE_WRITTEN).with_state(state))
        },
    )
}

/// The agent: the model, the prompt and `generate_recipe`; the state a [`RecipeState`].
pub fn agent(model: &ModelConfig) -> LlmAgent<RecipeState> {
    model.agent(SYSTEM_PROMPT).with_tool(generate_recipe())
}
