//! The `#[non_exhaustive]` wire types are built from outside the crate with `new` and `with_*`
//! and serialize as the protocol spells them.

use ag_ui::{Context, FunctionCall, ResumeStatus, TextPart, ToolCall};
use serde_json::json;

#[test]
fn non_exhaustive_wire_types_build_and_serialize() {
    let call = ToolCall::new("c1", "get_weather", r#"{"city":"Paris"}"#)
        .with_encrypted_value("opaque")
        .with_metadata(serde_json::from_value(json!({"k": 1})).unwrap());
    assert_eq!(
        call.function,
        FunctionCall::new("get_weather", r#"{"city":"Paris"}"#)
    );
    assert_eq!(
        serde_json::to_value(&call).unwrap(),
        json!({
            "id": "c1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
            "encryptedValue": "opaque",
            "metadata": {"k": 1}
        })
    );
    let part = TextPart::new("hi")
        .with_id("p1")
        .with_metadata(json!({"lang": "en"}));
    assert_eq!(
        serde_json::to_value(&part).unwrap(),
        json!({"text": "hi", "id": "p1", "metadata": {"lang": "en"}})
    );
    assert_eq!(
        serde_json::to_value(Context::new("city", "Paris")).unwrap(),
        json!({"description": "city", "value": "Paris"})
    );
    let status: ResumeStatus = serde_json::from_value(json!("cancelled")).unwrap();
    assert_eq!(status, ResumeStatus::Cancelled);
}
