//! AG-UI messages → rig messages.

use rig_core::OneOrMany;
use rig_core::message::{
    AssistantContent, DocumentSourceKind, Image, ImageMediaType, Message as RigMessage, MimeType,
    Text, ToolCall, ToolFunction, ToolResult, ToolResultContent, UserContent,
};
use serde_json::Value;

use crate::{Content, ContentPart, Context, Message, PartSource};

/// The AG-UI conversation as rig messages, in order.
///
/// User text and image parts (inline data or URL) become rig user content; other media parts
/// and text parts keep their text; assistant messages keep their text and tool calls (arguments
/// that are not JSON are passed as a JSON string); tool messages become rig tool results (the
/// error, when present, prefixed `Error:`); system and developer messages become rig system
/// messages. Activity and reasoning messages are for the user, not the model, and are skipped.
pub(crate) fn to_rig_messages(messages: &[Message]) -> Vec<RigMessage> {
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        match message {
            Message::System(m) => out.push(RigMessage::System {
                content: m.content.clone(),
            }),
            Message::Developer(m) => out.push(RigMessage::System {
                content: m.content.clone(),
            }),
            Message::User(m) => {
                let parts = user_parts(&m.content);
                if let Ok(content) = OneOrMany::many(parts) {
                    out.push(RigMessage::User { content });
                }
            }
            Message::Assistant(m) => {
                let mut content = Vec::new();
                if let Some(text) = m.content.as_ref().filter(|t| !t.is_empty()) {
                    content.push(AssistantContent::Text(Text::new(text.clone())));
                }
                for call in m.tool_calls.iter().flatten() {
                    let arguments = serde_json::from_str::<Value>(&call.function.arguments)
                        .unwrap_or_else(|_| Value::String(call.function.arguments.clone()));
                    content.push(AssistantContent::ToolCall(ToolCall::new(
                        call.id.as_str().to_owned(),
                        ToolFunction::new(call.function.name.clone(), arguments),
                    )));
                }
                if let Ok(content) = OneOrMany::many(content) {
                    out.push(RigMessage::Assistant { id: None, content });
                }
            }
            Message::Tool(m) => {
                let mut text = m.content.flatten();
                if let Some(error) = &m.error {
                    text = if text.is_empty() {
                        format!("Error: {error}")
                    } else {
                        format!("Error: {error}\n{text}")
                    };
                }
                let result = ToolResult {
                    id: m.tool_call_id.as_str().to_owned(),
                    call_id: None,
                    content: OneOrMany::one(ToolResultContent::Text(Text::new(text))),
                };
                out.push(RigMessage::User {
                    content: OneOrMany::one(UserContent::ToolResult(result)),
                });
            }
            _ => {}
        }
    }
    out
}

fn user_parts(content: &Content) -> Vec<UserContent> {
    match content {
        Content::Text(text) => vec![UserContent::Text(Text::new(text.clone()))],
        Content::Parts(parts) => parts
            .iter()
            .filter_map(|part| match part {
                ContentPart::Text(t) => Some(UserContent::Text(Text::new(t.text.clone()))),
                ContentPart::Image(media) => {
                    let data = match &media.source {
                        PartSource::Data { value, .. } => DocumentSourceKind::Base64(value.clone()),
                        PartSource::Url { value, .. } => DocumentSourceKind::Url(value.clone()),
                        _ => return None,
                    };
                    let media_type = match &media.source {
                        PartSource::Data { mime_type, .. } => Some(mime_type.as_str()),
                        PartSource::Url { mime_type, .. } => mime_type.as_deref(),
                        _ => None,
                    }
                    .and_then(ImageMediaType::from_mime_type);
                    Some(UserContent::Image(Image {
                        data,
                        media_type,
                        detail: None,
                        additional_params: None,
                    }))
                }
                _ => None,
            })
            .collect(),
    }
}

/// The run's context entries and state (as JSON text) as one system message, or `None` when
/// there are neither.
pub(crate) fn context_message(context: &[Context], state: Option<&str>) -> Option<RigMessage> {
    if context.is_empty() && state.is_none() {
        return None;
    }
    let mut text = String::from("Context from the application:");
    for entry in context {
        text.push_str("\n- ");
        text.push_str(&entry.description);
        text.push_str(": ");
        text.push_str(&entry.value);
    }
    if let Some(state) = state {
        text.push_str("\nThe application's current state: ");
        text.push_str(state);
    }
    Some(RigMessage::System { content: text })
}

/// A rig tool result's content for AG-UI: its text, or text and image parts.
pub(crate) fn tool_result_content(result: &ToolResult) -> Content {
    let only_text = result
        .content
        .iter()
        .all(|c| matches!(c, ToolResultContent::Text(_)));
    if only_text {
        let mut text = String::new();
        for c in result.content.iter() {
            if let ToolResultContent::Text(t) = c {
                text.push_str(&t.text);
            }
        }
        return Content::Text(text);
    }
    let parts = result
        .content
        .iter()
        .map(|c| match c {
            ToolResultContent::Text(t) => ContentPart::text(t.text.clone()),
            ToolResultContent::Image(image) => match &image.data {
                DocumentSourceKind::Url(url) => {
                    ContentPart::Image(crate::MediaPart::new(PartSource::Url {
                        value: url.clone(),
                        mime_type: image
                            .media_type
                            .as_ref()
                            .map(|m| m.to_mime_type().to_owned()),
                    }))
                }
                DocumentSourceKind::Base64(data) => {
                    ContentPart::Image(crate::MediaPart::new(PartSource::Data {
                        value: data.clone(),
                        mime_type: image
                            .media_type
                            .as_ref()
                            .map_or("image/png", |m| m.to_mime_type())
                            .to_owned(),
                    }))
                }
                other => ContentPart::text(serde_json::to_string(other).unwrap_or_default()),
            },
        })
        .collect();
    Content::Parts(parts)
}
