//! The model-driven Dojo against the Dojo's own mock model: `@copilotkit/aimock` loaded with
//! the Dojo's fixtures (`interop/aimock`, started once for this binary), `ag-ui-dojo`'s model
//! backend pointed at it, every route driven through this crate's client (`client`: the
//! events, the final messages and state, and what the model received) and through the
//! CopilotKit app in Chromium (`pages`: what a person sees on each page).
//!
//! Needs `npm ci --prefix interop` (aimock) and, for `pages`, `npm ci --prefix
//! interop/copilotkit`, chromium and chromedriver (see `tests/copilotkit.rs`).

#[path = "../../../../crates/ag-ui/tests/support/aimock.rs"]
mod aimock;
#[path = "../../../../crates/ag-ui/tests/support/browser.rs"]
mod browser;
#[path = "../../../../crates/ag-ui/tests/support/copilotkit.rs"]
mod copilotkit;
#[path = "../../../../crates/ag-ui/tests/support/http.rs"]
#[allow(dead_code, unreachable_pub)]
mod http;

mod a2ui;
mod a2ui_pages;
mod client;
mod pages;

use ag_ui::server::downgrade::ClientVersion;
use ag_ui_dojo::model::ModelConfig;
use ag_ui_dojo::{Backend, Config, Pace, router};

/// The model-driven routes, asking the mock, at `pace`, for clients from `oldest_client` on;
/// their base URL.
async fn dojo(pace: Pace, oldest_client: Option<ClientVersion>) -> String {
    let model = ModelConfig::default()
        .with_base_url(aimock::aimock().url())
        .with_model(aimock::MODEL);
    let config = Config::default()
        .with_backend(Backend::Model(model))
        .with_pace(pace)
        .with_oldest_client(oldest_client);
    http::spawn_url(router(config)).await
}
