//! Unit tests of the typed operations, the catalog reader and the validator, on JSON copied
//! from the A2UI v0.9 specification and the AG-UI Dojo's fixtures
//! (`tests/fixtures/a2ui/`, origins in its README).

use serde_json::{Value, json};

use super::*;

const SPEC_EXAMPLES: &[(&str, &str)] = &[
    (
        "01_flight-status",
        include_str!("../../tests/fixtures/a2ui/spec/01_flight-status.json"),
    ),
    (
        "09_login-form",
        include_str!("../../tests/fixtures/a2ui/spec/09_login-form.json"),
    ),
    (
        "13_coffee-order",
        include_str!("../../tests/fixtures/a2ui/spec/13_coffee-order.json"),
    ),
    (
        "18_track-list",
        include_str!("../../tests/fixtures/a2ui/spec/18_track-list.json"),
    ),
    (
        "24_recipe-card",
        include_str!("../../tests/fixtures/a2ui/spec/24_recipe-card.json"),
    ),
    (
        "30_live-invitation-builder",
        include_str!("../../tests/fixtures/a2ui/spec/30_live-invitation-builder.json"),
    ),
    (
        "31_incremental-dashboard",
        include_str!("../../tests/fixtures/a2ui/spec/31_incremental-dashboard.json"),
    ),
    (
        "32_advanced-form-validator",
        include_str!("../../tests/fixtures/a2ui/spec/32_advanced-form-validator.json"),
    ),
    (
        "33_financial-data-grid",
        include_str!("../../tests/fixtures/a2ui/spec/33_financial-data-grid.json"),
    ),
    (
        "34_child-list-template",
        include_str!("../../tests/fixtures/a2ui/spec/34_child-list-template.json"),
    ),
    (
        "35_markdown-text",
        include_str!("../../tests/fixtures/a2ui/spec/35_markdown-text.json"),
    ),
    (
        "36_modal",
        include_str!("../../tests/fixtures/a2ui/spec/36_modal.json"),
    ),
    (
        "minimal_7_incremental",
        include_str!("../../tests/fixtures/a2ui/spec/minimal_7_incremental.json"),
    ),
];

const CONTACT_FORM: &str =
    include_str!("../../tests/fixtures/a2ui/spec/contact_form_example.jsonl");

#[test]
fn every_spec_example_round_trips_through_the_typed_operations_unchanged() {
    let mut messages = 0;
    for (name, text) in SPEC_EXAMPLES {
        let example: Value = serde_json::from_str(text).unwrap();
        for message in example["messages"].as_array().unwrap() {
            let op: Operation = serde_json::from_value(message.clone())
                .unwrap_or_else(|e| panic!("{name}: {e}\n{message}"));
            assert_eq!(&serde_json::to_value(&op).unwrap(), message, "{name}");
            messages += 1;
        }
    }
    for line in CONTACT_FORM.lines().filter(|l| !l.trim().is_empty()) {
        let message: Value = serde_json::from_str(line).unwrap();
        let op: Operation = serde_json::from_value(message.clone()).unwrap();
        assert_eq!(serde_json::to_value(&op).unwrap(), message);
        messages += 1;
    }
    assert!(messages > 40, "{messages}");
}

#[test]
fn operations_refuse_what_the_schema_refuses() {
    let bad = [
        json!({"createSurface": {"surfaceId": "s", "catalogId": "c"}}),
        json!({"version": "v0.9"}),
        json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "c"}, "deleteSurface": {"surfaceId": "s"}}),
        json!({"version": "v0.9", "createSurface": {"surfaceId": "s"}}),
        json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "c", "attachDataModel": true}}),
        json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": []}}),
        json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [{"component": "Text"}]}}),
        json!({"version": 0.9, "deleteSurface": {"surfaceId": "s"}}),
        json!(["version", "v0.9"]),
    ];
    for value in bad {
        assert!(
            serde_json::from_value::<Operation>(value.clone()).is_err(),
            "{value}"
        );
    }
    // A theme and a component's properties are open.
    let ok = json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "c", "theme": {"primaryColor": "#00BFFF", "mine": [1]}}});
    let op: Operation = serde_json::from_value(ok.clone()).unwrap();
    assert_eq!(serde_json::to_value(&op).unwrap(), ok);
}

#[test]
fn update_data_model_keeps_null_apart_from_absent() {
    let set_null: Operation = serde_json::from_value(
        json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/a", "value": null}}),
    )
    .unwrap();
    let Operation::UpdateDataModel(op) = &set_null else {
        panic!()
    };
    assert_eq!(op.value, Some(Value::Null));
    let remove: Operation = serde_json::from_value(
        json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/a"}}),
    )
    .unwrap();
    let Operation::UpdateDataModel(op) = &remove else {
        panic!()
    };
    assert_eq!(op.value, None);
    assert_eq!(
        serde_json::to_value(&set_null).unwrap()["updateDataModel"],
        json!({"surfaceId": "s", "path": "/a", "value": null})
    );
}

#[test]
fn the_envelope_reader_names_where_it_failed() {
    let err = Envelope::from_json(
        r#"{"a2ui_operations": [{"version": "v0.9", "deleteSurface": {"surfaceId": "s"}}, {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [{"id": 5, "component": "Text"}]}}]}"#,
    )
    .unwrap_err();
    assert_eq!(err.kind(), A2uiErrorKind::Decode);
    assert!(err.message().contains("a2ui_operations[1]"), "{err}");
    assert!(Envelope::from_json(r#"{"a2ui_operations": []} trailing"#).is_err());
    assert!(Envelope::from_json(r#"{"a2ui_operations": [], "other": 1}"#).is_err());
    assert!(Envelope::from_json("").is_err());
}
