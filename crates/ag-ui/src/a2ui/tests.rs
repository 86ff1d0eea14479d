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

const BASIC_CATALOG: &str = include_str!("../../tests/fixtures/a2ui/spec/basic_catalog.json");
const CONTACT_FORM: &str =
    include_str!("../../tests/fixtures/a2ui/spec/contact_form_example.jsonl");
const DOJO: &str = include_str!("../../tests/fixtures/a2ui/dojo_tool_arguments.json");

fn basic_catalog() -> Catalog {
    Catalog::from_json(&serde_json::from_str(BASIC_CATALOG).unwrap()).unwrap()
}

fn dojo(name: &str) -> Value {
    let all: Value = serde_json::from_str(DOJO).unwrap();
    all[name].clone()
}

fn rules(err: &A2uiError) -> Vec<Rule> {
    err.findings().iter().map(Finding::rule).collect()
}

fn check(components: &Value, data: Option<&Value>, catalog: Option<&Catalog>) -> Vec<Rule> {
    match validate_components(
        components.as_array().unwrap(),
        data,
        catalog,
        &ValidateConfig::default(),
    ) {
        Ok(()) => Vec::new(),
        Err(err) => {
            assert_eq!(err.kind(), A2uiErrorKind::Invalid);
            rules(&err)
        }
    }
}

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
fn every_spec_example_is_valid_against_the_basic_catalog() {
    let catalog = basic_catalog();
    for (name, text) in SPEC_EXAMPLES {
        if name.starts_with("minimal") {
            continue; // another catalog
        }
        let example: Value = serde_json::from_str(text).unwrap();
        let envelope: Envelope =
            serde_json::from_value(json!({"a2ui_operations": example["messages"]})).unwrap();
        if let Err(err) = envelope.validate(Some(&catalog), &ValidateConfig::default()) {
            panic!("{name}: {err}\n{:#?}", err.findings());
        }
    }
}

#[test]
fn the_basic_catalog_reads_required_properties_and_typed_references() {
    let catalog = basic_catalog();
    assert_eq!(
        catalog.id(),
        Some("https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json")
    );
    assert_eq!(catalog.len(), 18);
    let card = catalog.component("Card").unwrap();
    assert!(card.required().iter().any(|r| r == "child"));
    let modal = catalog.component("Modal").unwrap();
    assert_eq!(
        modal.refs(),
        [
            RefField::Field("trigger".into()),
            RefField::Field("content".into())
        ]
    );
    let tabs = catalog.component("Tabs").unwrap();
    assert_eq!(
        tabs.refs(),
        [RefField::Nested {
            array: "tabs".into(),
            field: "child".into()
        }]
    );
    assert!(
        catalog
            .component("Button")
            .unwrap()
            .required()
            .iter()
            .any(|r| r == "action")
    );
}

#[test]
fn a_dangling_reference_in_a_catalog_typed_field_is_found() {
    let catalog = basic_catalog();
    let components = json!([
        {"id": "root", "component": "Column", "children": ["tabs", "modal"]},
        {"id": "tabs", "component": "Tabs", "tabs": [{"title": "A", "child": "a"}, {"title": "B", "child": "nowhere"}]},
        {"id": "a", "component": "Text", "text": "A"},
        {"id": "modal", "component": "Modal", "trigger": "a", "content": "gone"}
    ]);
    let err = validate_components(
        components.as_array().unwrap(),
        None,
        Some(&catalog),
        &ValidateConfig::default(),
    )
    .unwrap_err();
    let paths: Vec<&str> = err.findings().iter().map(Finding::path).collect();
    assert_eq!(
        paths,
        ["components[1].tabs[1].child", "components[3].content"]
    );
    assert_eq!(rules(&err), [Rule::UnresolvedChild, Rule::UnresolvedChild]);
    assert_eq!(err.findings()[1].component_id().unwrap(), "modal");
    // Without the catalog, only `child` / `children` reference.
    assert!(check(&components, None, None).is_empty());
}

#[test]
fn the_dojo_surfaces_are_valid_and_the_recovery_fixture_first_attempt_is_not() {
    let catalog = Catalog::new("https://a2ui.org/demos/dojo/dynamic_catalog.json")
        .with_component("Row", ComponentSpec::new().with_required(["children"]))
        .with_component(
            "HotelCard",
            ComponentSpec::new().with_required(["name", "location", "rating", "pricePerNight"]),
        )
        .with_component(
            "ProductCard",
            ComponentSpec::new().with_required(["name", "price", "rating"]),
        )
        .with_component(
            "TeamMemberCard",
            ComponentSpec::new().with_required(["name", "role"]),
        );
    for name in [
        "render_a2ui_hotel-comparison",
        "render_a2ui_product-comparison",
        "render_a2ui_team-roster",
        "recovery_valid",
    ] {
        let args = dojo(name);
        assert_eq!(
            check(&args["components"], Some(&args["data"]), Some(&catalog)),
            [],
            "{name}"
        );
    }
    let invalid = dojo("recovery_invalid");
    let err = validate_components(
        invalid["components"].as_array().unwrap(),
        Some(&invalid["data"]),
        Some(&catalog),
        &ValidateConfig::default(),
    )
    .unwrap_err();
    assert_eq!(rules(&err), [Rule::UnresolvedChild]);
    assert_eq!(
        err.findings()[0].to_string(),
        "[unresolved_child] components[0].children: no component has the id `card`"
    );
}

#[test]
fn structural_rules_each_named_with_their_component() {
    // No id, no type, a duplicate, no root.
    let components = json!([
        {"component": "Text", "text": "a"},
        {"id": "x"},
        {"id": "x", "component": "Text", "text": "b"},
        7
    ]);
    assert_eq!(
        check(&components, None, None),
        [
            Rule::DuplicateId,
            Rule::MissingId,
            Rule::MissingComponentType,
            Rule::MissingId,
            Rule::MissingComponentType,
            Rule::NoRoot
        ]
    );
    assert_eq!(check(&json!([]), None, None), [Rule::EmptyComponents]);

    // Catalog: an unknown type and a missing required property.
    let catalog = Catalog::new("c").with_component(
        "Button",
        ComponentSpec::new().with_required(["component", "child", "action"]),
    );
    let components = json!([
        {"id": "root", "component": "Button", "child": "label"},
        {"id": "label", "component": "Label", "text": "Go"}
    ]);
    let err = validate_components(
        components.as_array().unwrap(),
        None,
        Some(&catalog),
        &ValidateConfig::default(),
    )
    .unwrap_err();
    assert_eq!(
        rules(&err),
        [Rule::MissingRequiredProp, Rule::UnknownComponent]
    );
    assert_eq!(err.findings()[0].path(), "components[0].action");
    assert_eq!(err.findings()[1].component_id().unwrap(), "label");
}

#[test]
fn cycles_are_reported_once_each_smallest_id_first() {
    let components = json!([
        {"id": "root", "component": "Column", "children": ["b", "self"]},
        {"id": "b", "component": "Column", "children": ["c"]},
        {"id": "c", "component": "Column", "children": ["root", "b"]},
        {"id": "self", "component": "Card", "child": "self"}
    ]);
    let err = validate_components(
        components.as_array().unwrap(),
        None,
        None,
        &ValidateConfig::default(),
    )
    .unwrap_err();
    let messages: Vec<String> = err.findings().iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            "[child_cycle] components[id=b]: the child references loop: b -> c -> root -> b",
            "[child_cycle] components[id=b]: the child references loop: b -> c -> b",
            "[child_cycle] components[id=self]: the child references loop: self -> self",
        ]
    );
}

#[test]
fn a_long_chain_and_a_deep_property_do_not_overflow_the_stack() {
    // 1000 components in a chain closing on itself: the search keeps its own stack.
    let n = 1000;
    let components: Vec<Value> = (0..n)
        .map(|i| {
            let id = if i == 0 {
                "root".to_owned()
            } else {
                format!("n{i}")
            };
            let next = if i + 1 == n {
                "root".to_owned()
            } else {
                format!("n{}", i + 1)
            };
            json!({"id": id, "component": "Card", "child": next})
        })
        .collect();
    let err = validate_components(&components, None, None, &ValidateConfig::default()).unwrap_err();
    assert_eq!(rules(&err), [Rule::ChildCycle]);
    assert!(err.findings()[0].message().len() < 2000);

    // One more component than allowed: refused whole, without looking further.
    let config = ValidateConfig::default().with_max_components(n - 1);
    let err = validate_components(&components, None, None, &config).unwrap_err();
    assert_eq!(rules(&err), [Rule::TooLarge]);

    // Properties nested past the depth limit.
    let mut deep = json!("leaf");
    for _ in 0..120 {
        deep = json!([deep]);
    }
    let components = [json!({"id": "root", "component": "Text", "text": deep})];
    let err = validate_components(&components, None, None, &ValidateConfig::default()).unwrap_err();
    assert_eq!(rules(&err), [Rule::TooLarge]);
}

#[test]
fn data_paths_are_json_pointers_and_absolute_bindings_must_resolve() {
    let components = json!([
        {"id": "root", "component": "Column", "children": {"componentId": "row", "path": "/items"}},
        {"id": "row", "component": "Text", "text": {"path": "name"},
         "action": {"event": {"name": "pick", "context": {"who": {"path": "/user/a~1b"}, "bad": {"path": "/x~2"}}}}}
    ]);
    let data = json!({"items": [{"name": "a"}], "user": {"a/b": 1}});
    let err = validate_components(
        components.as_array().unwrap(),
        Some(&data),
        None,
        &ValidateConfig::default(),
    )
    .unwrap_err();
    assert_eq!(rules(&err), [Rule::InvalidPath]);
    assert_eq!(err.findings()[0].component_id().unwrap(), "row");

    // Without the data model, the absolute bindings name nothing.
    let fixed = json!([
        components[0],
        {"id": "row", "component": "Text", "text": {"path": "/items/0/name"}}
    ]);
    assert_eq!(
        check(&fixed, None, None),
        [Rule::UnresolvedBinding, Rule::UnresolvedBinding]
    );
    assert_eq!(check(&fixed, Some(&data), None), []);
    // Array indexes as RFC 6901 writes them: no leading zero.
    let leading_zero =
        json!([{"id": "root", "component": "Text", "text": {"path": "/items/00/name"}}]);
    assert_eq!(
        check(&leading_zero, Some(&data), None),
        [Rule::UnresolvedBinding]
    );
    // The check can be turned off; the syntax is still checked.
    let config = ValidateConfig::default().with_check_bindings(false);
    assert!(validate_components(fixed.as_array().unwrap(), None, None, &config).is_ok());
}

#[test]
fn findings_stop_at_the_limit_and_the_error_says_so() {
    let components: Vec<Value> = (0..50)
        .map(
            |i| json!({"id": format!("c{i}"), "component": "Card", "child": format!("missing{i}")}),
        )
        .collect();
    let config = ValidateConfig::default().with_max_findings(5);
    let err = validate_components(&components, None, None, &config).unwrap_err();
    assert_eq!(err.findings().len(), 5);
    assert!(err.message().contains("there are more"), "{err}");
}

#[test]
fn peer_text_is_quoted_bounded() {
    let long = "x".repeat(100_000);
    let components = [json!({"id": long, "component": long, "child": long})];
    let catalog = Catalog::new("c");
    let err = validate_components(
        &components,
        None,
        Some(&catalog),
        &ValidateConfig::default(),
    )
    .unwrap_err();
    for finding in err.findings() {
        assert!(finding.message().len() < 400, "{}", finding.message().len());
        assert!(finding.path().len() < 400);
        if let Some(id) = finding.component_id() {
            assert!(id.as_str().len() < 200);
        }
    }
    assert_eq!(
        rules(&err),
        [Rule::UnknownComponent, Rule::ChildCycle, Rule::NoRoot]
    );
    assert!(err.message().len() < 1000);
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
fn the_envelope_checks_order_and_validates_each_surface_against_its_data() {
    let surface = |id: &str| {
        Surface::new(id, "c")
            .with_component(Component::new("root", "Column").with_children(["t"]))
            .with_component(Component::new("t", "Text").with_path("text", "/title"))
            .with_data(json!({"title": "Hi"}))
    };
    let mut ops = surface("a").operations();
    ops.extend(surface("b").operations());
    Envelope::new(ops.clone())
        .validate(None, &ValidateConfig::default())
        .unwrap();

    // Created twice; data written after deletion; a relative data path.
    ops.push(CreateSurface::new("a", "c").into());
    ops.push(DeleteSurface::new("b").into());
    ops.push(UpdateDataModel::new("b", "/x", json!(1)).into());
    ops.push(UpdateDataModel::new("a", "x", json!(1)).into());
    let err = Envelope::new(ops)
        .validate(None, &ValidateConfig::default())
        .unwrap_err();
    assert_eq!(
        rules(&err),
        [Rule::SurfaceOrder, Rule::SurfaceOrder, Rule::InvalidPath]
    );
    assert_eq!(err.findings()[0].path(), "a2ui_operations[6].createSurface");

    // An update of a surface the client holds may reference what it already has.
    let update = Envelope::new(vec![
        UpdateComponents::new(
            "held",
            vec![Component::new("extra", "Text").with_path("text", "/not/here")],
        )
        .into(),
    ]);
    update.validate(None, &ValidateConfig::default()).unwrap();
    // Created here, the same components must stand on their own.
    let whole = Envelope::new(vec![
        CreateSurface::new("held", "c").into(),
        UpdateComponents::new(
            "held",
            vec![Component::new("root", "Card").with_child("elsewhere")],
        )
        .into(),
    ]);
    let err = whole
        .validate(None, &ValidateConfig::default())
        .unwrap_err();
    assert_eq!(rules(&err), [Rule::UnresolvedChild]);
    assert_eq!(
        err.findings()[0].path(),
        "a2ui_operations[1].updateComponents.components[0].child"
    );
}

#[test]
fn catalogs_in_every_form_the_ecosystem_writes() {
    // @copilotkit/a2ui-renderer's extractCatalogComponentSchemas.
    let renderer = json!({"catalogId": "https://a2ui.org/demos/dojo/dynamic_catalog.json", "components": {
        "Row": {"allOf": [{"$ref": "common_types.json#/$defs/ComponentCommon"},
                          {"properties": {"component": {"const": "Row"}, "gap": {"type": "number"}, "children": {}},
                           "required": ["component", "children"]}]},
        "HotelCard": {"allOf": [{"$ref": "common_types.json#/$defs/ComponentCommon"},
                                {"properties": {"component": {"const": "HotelCard"}, "name": {}},
                                 "required": ["component", "name", "action"]}]}
    }});
    let catalog = Catalog::from_json(&renderer).unwrap();
    assert_eq!(
        catalog.component("HotelCard").unwrap().required(),
        ["component", "name", "action"]
    );
    // The toolkits' inline catalog, with format markers.
    let inline = json!({"components": {"Shell": {"required": ["header"], "properties": {"header": {"format": "componentRef"}, "slots": {"format": "componentRefList"}}}}});
    let catalog = Catalog::from_json(&inline).unwrap();
    assert_eq!(catalog.id(), None);
    assert_eq!(catalog.component("Shell").unwrap().refs().len(), 2);
    // The legacy list.
    let legacy =
        json!([{"name": "TodoCard", "props": {"required": ["title"]}, "slots": ["footer"]}]);
    let catalog = Catalog::from_json(&legacy).unwrap();
    assert_eq!(
        catalog.component("TodoCard").unwrap().refs(),
        [RefField::Field("footer".into())]
    );
    // Not a catalog.
    for bad in [
        json!(1),
        json!({"catalogId": 3, "components": {}}),
        json!({"components": 3}),
        json!({}),
        json!([{"props": {}}]),
        json!({"components": {"X": 1}}),
    ] {
        assert_eq!(
            Catalog::from_json(&bad).unwrap_err().kind(),
            A2uiErrorKind::Decode
        );
    }
    let context = [crate::Context::new(SCHEMA_CONTEXT_DESCRIPTION, "{not json")];
    assert_eq!(
        Catalog::from_context(&context).unwrap().unwrap_err().kind(),
        A2uiErrorKind::Decode
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
