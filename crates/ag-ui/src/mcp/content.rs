//! MCP tool results as AG-UI content.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

use crate::{Content, ContentPart, MediaPart, PartSource};

/// An MCP result as AG-UI content: text alone when every block is text, else content parts.
pub(super) fn result_content(result: &CallToolResult) -> Content {
    if result.content.is_empty() {
        return Content::Text(
            result
                .structured_content
                .as_ref()
                .map(Value::to_string)
                .unwrap_or_default(),
        );
    }
    let text_only = result
        .content
        .iter()
        .all(|b| matches!(b, ContentBlock::Text(_)));
    if text_only {
        let texts: Vec<&str> = result
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect();
        return Content::Text(texts.join("\n"));
    }
    Content::Parts(
        result
            .content
            .iter()
            .map(|block| match block {
                ContentBlock::Text(t) => ContentPart::text(t.text.clone()),
                ContentBlock::Image(image) => {
                    ContentPart::Image(MediaPart::new(PartSource::Data {
                        value: image.data.clone(),
                        mime_type: image.mime_type.clone(),
                    }))
                }
                other => ContentPart::text(serde_json::to_string(other).unwrap_or_default()),
            })
            .collect(),
    )
}
