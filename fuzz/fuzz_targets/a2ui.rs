//! The A2UI readers and the validator on arbitrary JSON text (`ag_ui::a2ui`): nothing
//! panics; an envelope that reads writes back to the same envelope; the validator reports at
//! most its limit of findings, each placed under `components` or `a2ui_operations`; a
//! generation records any text as an attempt, and an accepted one is an envelope that reads.

#![no_main]

use ag_ui::a2ui::{
    Catalog, ComponentSpec, Envelope, GenerateArgs, GenerateConfig, Generation, UserAction,
    ValidateConfig, validate_components,
};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn catalog() -> Catalog {
    Catalog::new("fuzz")
        .with_component("Row", ComponentSpec::new().with_required(["children"]))
        .with_component("Card", ComponentSpec::new().with_required(["child"]))
        .with_component("Text", ComponentSpec::new().with_required(["text"]))
}

fn placed(result: Result<(), ag_ui::a2ui::A2uiError>, max: usize) {
    if let Err(err) = result {
        assert!(!err.findings().is_empty() && err.findings().len() <= max, "{err}");
        for finding in err.findings() {
            let path = finding.path();
            assert!(path.starts_with("components") || path.starts_with("a2ui_operations"), "{path}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let config = ValidateConfig::default().with_max_findings(8);
    let catalog = catalog();

    if let Ok(envelope) = Envelope::from_json(&text) {
        let again = Envelope::from_json(&envelope.to_json()).expect("what reads writes back");
        assert_eq!(again, envelope);
        placed(envelope.validate(None, &config), 8);
        placed(envelope.validate(Some(&catalog), &config), 8);
    }

    if let Ok(value) = serde_json::from_str::<Value>(&text) {
        let _ = UserAction::from_value(&value);
        if let Ok(theirs) = Catalog::from_json(&value) {
            if let Some(Value::Array(components)) = value.get("components") {
                placed(validate_components(components, None, Some(&theirs), &config), 8);
            }
        }
        if let Value::Array(components) = &value {
            placed(validate_components(components, None, Some(&catalog), &config), 8);
            placed(validate_components(components, Some(&value), None, &config), 8);
        }
    }

    let mut generation = Generation::new(&GenerateArgs::parse(&text), &[], [&*text], &GenerateConfig::default());
    if !generation.is_finished() {
        let ok = generation.record(Some(&text)).ok;
        let outcome = generation.finish();
        assert_eq!(outcome.ok, ok);
        if ok {
            Envelope::from_json(&outcome.result).expect("an accepted surface is an envelope");
        }
    }
});
