//! The validator and the readers on hostile input: no panic, bounded findings, and the cycle
//! rule exact on generated trees.

use ag_ui::a2ui::{
    Catalog, ComponentSpec, Envelope, Rule, UserAction, ValidateConfig, validate_components,
};
use proptest::prelude::*;
use serde_json::{Value, json};

use super::support::strategies::json_value;

/// A component as a model might write it: ids, types and references from small pools (so they
/// collide), paths well and badly formed, and arbitrary JSON anywhere.
fn component() -> impl Strategy<Value = Value> {
    let id = prop_oneof![
        Just(json!("root")),
        (0..6u8).prop_map(|i| json!(format!("c{i}"))),
        json_value(),
    ];
    let kind = prop_oneof![
        Just(json!("Row")),
        Just(json!("Card")),
        Just(json!("Text")),
        Just(json!("Mystery")),
        json_value(),
    ];
    let reference = prop_oneof![
        (0..6u8).prop_map(|i| json!(format!("c{i}"))),
        Just(json!("root")),
        json_value(),
    ];
    let path = prop_oneof![
        Just("/items"),
        Just("/a~1b/0"),
        Just("name"),
        Just("/x~2"),
        Just("~"),
        Just("/items/01"),
        Just(""),
    ]
    .prop_map(|p| json!({"path": p}));
    (
        id,
        kind,
        proptest::option::of(reference.clone()),
        proptest::collection::vec(reference.clone(), 0..4),
        proptest::option::of((reference, path.clone())),
        proptest::option::of(path),
        proptest::option::of(json_value()),
    )
        .prop_map(|(id, kind, child, children, template, bound, extra)| {
            let mut c = json!({"id": id, "component": kind});
            if let Some(child) = child {
                c["child"] = child;
            }
            if !children.is_empty() {
                c["children"] = Value::Array(children);
            }
            if let Some((target, path)) = template {
                c["children"] = json!({"componentId": target, "path": path["path"]});
            }
            if let Some(bound) = bound {
                c["text"] = bound;
            }
            if let Some(extra) = extra {
                c["extra"] = extra;
            }
            c
        })
}

fn catalog() -> Catalog {
    Catalog::new("c")
        .with_component("Row", ComponentSpec::new().with_required(["children"]))
        .with_component("Card", ComponentSpec::new().with_required(["child"]))
        .with_component("Text", ComponentSpec::new().with_required(["text"]))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn the_validator_never_panics_and_its_findings_are_bounded_and_placed(
        components in proptest::collection::vec(component(), 0..12),
        data in proptest::option::of(json_value()),
        with_catalog in any::<bool>(),
        max in 1usize..8,
    ) {
        let catalog = catalog();
        let config = ValidateConfig::default().with_max_findings(max);
        let result = validate_components(
            &components,
            data.as_ref(),
            with_catalog.then_some(&catalog),
            &config,
        );
        if let Err(err) = result {
            prop_assert!(!err.findings().is_empty());
            prop_assert!(err.findings().len() <= max);
            for finding in err.findings() {
                prop_assert!(finding.path().starts_with("components"), "{}", finding.path());
                prop_assert!(finding.message().len() < 2000);
            }
        }
    }

    #[test]
    fn a_generated_tree_is_valid_and_one_edge_back_makes_exactly_its_cycle(
        parents in proptest::collection::vec(any::<prop::sample::Index>(), 1..40),
        back in any::<(prop::sample::Index, prop::sample::Index)>(),
    ) {
        // Component i > 0 is a child of some j < i: a tree rooted at 0.
        let n = parents.len() + 1;
        let name = |i: usize| if i == 0 { "root".to_owned() } else { format!("n{i}") };
        let mut children: Vec<Vec<String>> = vec![Vec::new(); n];
        for (i, parent) in parents.iter().enumerate() {
            children[parent.index(i + 1)].push(name(i + 1));
        }
        let build = |children: &[Vec<String>]| -> Vec<Value> {
            (0..n).map(|i| json!({"id": name(i), "component": "Column", "children": children[i]})).collect()
        };
        prop_assert!(validate_components(&build(&children), None, None, &ValidateConfig::default()).is_ok());

        // An edge from a node to one of its ancestors (itself included) closes one cycle.
        let from = back.0.index(n);
        let mut ancestors = vec![from];
        let mut at = from;
        while at != 0 {
            at = (0..n).find(|&p| children[p].contains(&name(at))).unwrap();
            ancestors.push(at);
        }
        let to = ancestors[back.1.index(ancestors.len())];
        children[from].push(name(to));
        let err = validate_components(&build(&children), None, None, &ValidateConfig::default()).unwrap_err();
        let cycles: Vec<_> = err.findings().iter().filter(|f| f.rule() == Rule::ChildCycle).collect();
        prop_assert_eq!(cycles.len(), 1);
        prop_assert_eq!(err.findings().len(), 1);
    }

    #[test]
    fn the_readers_never_panic_on_any_json(value in json_value(), text in ".{0,200}") {
        let _ = Catalog::from_json(&value);
        let _ = UserAction::from_value(&value);
        let _ = serde_json::from_value::<ag_ui::a2ui::Operation>(value.clone());
        let _ = Envelope::from_json(&value.to_string());
        let _ = Envelope::from_json(&text);
        let _ = Envelope::from_json(&json!({"a2ui_operations": [value]}).to_string());
    }
}
