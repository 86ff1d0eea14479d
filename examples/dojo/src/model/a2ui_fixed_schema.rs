//! `POST /a2ui_fixed_schema`: A2UI surfaces whose layout the agent's author wrote, filled with
//! the model's data.
//!
//! The model calls `search_flights` or `search_hotels` with the results (the flights or hotels
//! it found); the tool puts them into a fixed layout — a row of `FlightCard`s or `HotelCard`s,
//! one per item of the data model, each with a booking action — built with
//! [`Surface`], and returns it as `{"a2ui_operations": [...]}`, which
//! `@ag-ui/a2ui-middleware` (in CopilotKit's runtime) paints from the `TOOL_CALL_RESULT`, with
//! the page's catalog ([`CATALOG_ID`]). No sub-agent, nothing to recover: the layout is code.

use ag_ui::a2ui::{Action, Component, Dynamic, Surface};
use ag_ui::llm::{BackendTool, LlmAgent, ToolOutput};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::ModelConfig;

/// The catalog of the page's fixed-schema components (`Row`, `FlightCard`, `HotelCard`,
/// `StarRating`), as the Dojo names it.
pub const CATALOG_ID: &str = "https://a2ui.org/demos/dojo/fixed_catalog.json";
/// The surface of `search_flights`.
pub const FLIGHTS_SURFACE: &str = "flight-search-results";
/// The surface of `search_hotels`.
pub const HOTELS_SURFACE: &str = "hotel-search-results";

/// The system prompt.
pub const SYSTEM_PROMPT: &str = "You are a travel assistant. To show flights, call \
search_flights with the flights you found; to show hotels, call search_hotels with the hotels. \
The user sees them as cards, so afterwards do not repeat them in words: say in a short \
sentence that here they are, or ask which one to book.";

/// One flight, as `search_flights` takes it and the `FlightCard` shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Flight {
    /// An id of the result.
    pub id: String,
    /// The airline ("United Airlines").
    pub airline: String,
    /// The airline's logo, a URL (a favicon such as
    /// `https://www.google.com/s2/favicons?domain=united.com&sz=128`).
    pub airline_logo: String,
    /// "UA 123".
    pub flight_number: String,
    /// The departure airport's code.
    pub origin: String,
    /// The arrival airport's code.
    pub destination: String,
    /// "Tue, Apr 8".
    pub date: String,
    /// "8:00 AM".
    pub departure_time: String,
    /// "4:30 PM".
    pub arrival_time: String,
    /// "5h 30m".
    pub duration: String,
    /// "On Time" or "Delayed".
    pub status: String,
    /// "$289".
    pub price: String,
}

/// One hotel, as `search_hotels` takes it and the `HotelCard` shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hotel {
    /// An id of the result.
    pub id: String,
    /// "The Plaza".
    pub name: String,
    /// "Midtown Manhattan, NYC".
    pub location: String,
    /// From 0 to 5 ("4.5").
    pub rating: f64,
    /// A night's price ("$350").
    pub price: String,
}

/// The arguments of `search_flights`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct SearchFlights {
    /// The flights found.
    pub flights: Vec<Flight>,
}

/// The arguments of `search_hotels`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct SearchHotels {
    /// The hotels found, three or four.
    pub hotels: Vec<Hotel>,
}

/// The flights' surface: a row repeating a `FlightCard` over `/flights`.
pub fn flights_surface(flights: &[Flight]) -> Surface {
    let card = [
        "airline",
        "airlineLogo",
        "flightNumber",
        "origin",
        "destination",
        "date",
    ]
    .into_iter()
    .chain([
        "departureTime",
        "arrivalTime",
        "duration",
        "status",
        "price",
    ])
    .fold(
        Component::new("flight-card", "FlightCard"),
        |card, field| card.with_path(field, field),
    )
    .with_action(
        Action::event("book_flight")
            .with_context("flightNumber", Dynamic::path("flightNumber"))
            .with_context("price", Dynamic::path("price")),
    );
    Surface::new(FLIGHTS_SURFACE, CATALOG_ID)
        .with_component(row("flight-card", "/flights"))
        .with_component(card)
        .with_data(json!({ "flights": flights }))
}

/// The hotels' surface: a row repeating a `HotelCard` over `/hotels` (the card's
/// `pricePerNight` is the item's `price`).
pub fn hotels_surface(hotels: &[Hotel]) -> Surface {
    let card = Component::new("hotel-card", "HotelCard")
        .with_path("name", "name")
        .with_path("location", "location")
        .with_path("rating", "rating")
        .with_path("pricePerNight", "price")
        .with_action(
            Action::event("book_hotel")
                .with_context("hotelName", Dynamic::path("name"))
                .with_context("price", Dynamic::path("price")),
        );
    Surface::new(HOTELS_SURFACE, CATALOG_ID)
        .with_component(row("hotel-card", "/hotels"))
        .with_component(card)
        .with_data(json!({ "hotels": hotels }))
}

/// The root: a row repeating `card` once per item at `path`.
fn row(card: &str, path: &str) -> Component {
    Component::new("root", "Row")
        .with_template(card, path)
        .with("gap", Dynamic::literal(16))
}

/// The `search_flights` tool.
pub fn search_flights() -> BackendTool<()> {
    BackendTool::new(
        "search_flights",
        "Show flights to the user as cards. Give every field of each flight.",
        |args: SearchFlights, _: ()| async move {
            Ok(ToolOutput::text(
                flights_surface(&args.flights).tool_result(),
            ))
        },
    )
}

/// The `search_hotels` tool.
pub fn search_hotels() -> BackendTool<()> {
    BackendTool::new(
        "search_hotels",
        "Show hotels to the user as cards with their star rating. Give three or four.",
        |args: SearchHotels, _: ()| async move {
            Ok(ToolOutput::text(hotels_surface(&args.hotels).tool_result()))
        },
    )
}

/// The agent: the model, the prompt and the two search tools. No state.
pub fn agent(model: &ModelConfig) -> LlmAgent<()> {
    model
        .agent(SYSTEM_PROMPT)
        .with_tool(search_flights())
        .with_tool(search_hotels())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixed_layouts_are_valid_a2ui() {
        let flight: Flight = serde_json::from_value(json!({
            "id": "1", "airline": "Delta", "airlineLogo": "https://example.com/d.png",
            "flightNumber": "DL 456", "origin": "SFO", "destination": "JFK", "date": "Tue",
            "departureTime": "10:00 AM", "arrivalTime": "6:45 PM", "duration": "5h 45m",
            "status": "On Time", "price": "$315"}))
        .unwrap();
        flights_surface(&[flight]).validate(None).unwrap();
        let hotel = Hotel {
            id: "1".into(),
            name: "The Plaza".into(),
            location: "Midtown".into(),
            rating: 4.5,
            price: "$350".into(),
        };
        hotels_surface(&[hotel]).validate(None).unwrap();
    }
}
