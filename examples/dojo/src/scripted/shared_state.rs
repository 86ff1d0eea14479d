//! `POST /shared_state`: a recipe as the state shared with the page.
//!
//! Ignores the input: one `STATE_SNAPSHOT` of [`Recipe::reference`], which replaces whatever
//! the page holds (an ingredient added there is overwritten, as with the reference). No text.
//! The page's own state is still read into the typed [`RecipeState`] first, so a state that
//! does not fit it is answered `400` (kind `invalid-state`) before the run starts.

use ag_ui::server::{Agent, Outcome, Result, RunContext};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One ingredient (also what the model-driven agent's `generate_recipe` takes).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Ingredient {
    /// An emoji for it.
    #[serde(default)]
    pub icon: String,
    /// What.
    #[serde(default)]
    pub name: String,
    /// How much.
    #[serde(default)]
    pub amount: String,
}

/// The recipe, its fields in the reference's order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recipe {
    /// "Beginner", "Intermediate" or "Advanced".
    #[serde(default)]
    pub skill_level: String,
    /// "Low Carb", "Spicy", …
    #[serde(default)]
    pub special_preferences: Vec<String>,
    /// "15 min", …
    #[serde(default)]
    pub cooking_time: String,
    /// What goes in.
    #[serde(default)]
    pub ingredients: Vec<Ingredient>,
    /// What to do, in order.
    #[serde(default)]
    pub instructions: Vec<String>,
}

impl Recipe {
    /// The reference's recipe: spicy chicken in lettuce wraps.
    pub fn reference() -> Self {
        let ingredient = |icon: &str, name: &str, amount: &str| Ingredient {
            icon: icon.to_owned(),
            name: name.to_owned(),
            amount: amount.to_owned(),
        };
        Recipe {
            skill_level: "Advanced".to_owned(),
            special_preferences: vec!["Low Carb".to_owned(), "Spicy".to_owned()],
            cooking_time: "15 min".to_owned(),
            ingredients: vec![
                ingredient("🍗", "chicken breast", "1"),
                ingredient("🌶️", "chili powder", "1 tsp"),
                ingredient("🧂", "Salt", "a pinch"),
                ingredient("🥬", "Lettuce leaves", "handful"),
            ],
            instructions: vec![
                "Season chicken with chili powder and salt.".to_owned(),
                "Sear until fully cooked.".to_owned(),
                "Slice and wrap in lettuce.".to_owned(),
            ],
        }
    }
}

/// The shared state of this route: `{"recipe": …}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecipeState {
    /// The recipe.
    #[serde(default)]
    pub recipe: Recipe,
}

/// The shared state agent.
#[derive(Clone, Copy, Debug, Default)]
pub struct SharedState;

impl Agent for SharedState {
    type State = RecipeState;

    async fn run(&self, ctx: &mut RunContext<RecipeState>) -> Result<Outcome> {
        ctx.state_mut().recipe = Recipe::reference();
        ctx.publish_state()?;
        Ok(Outcome::success())
    }
}
