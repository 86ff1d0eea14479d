//! AG-UI messages → rig messages, and rig tool results → AG-UI content.

use std::collections::HashMap;

use ag_ui::server::{Error, bridge};
use ag_ui::{Content, ContentPart, MediaPart, Message, PartSource};
use rig_core::message::{
    AssistantContent, AssistantMessage, Audio, AudioMediaType, CallId, Document, DocumentMediaType,
    DocumentSourceKind, Image, ImageMediaType, Message as RigMessage, MimeType, Text, ToolCall,
    ToolFunction, ToolName, ToolResult, ToolResultContent, UserContent, Video, VideoMediaType,
};

/// A run's conversation as rig takes it: the history, then the prompt (the last message).
pub(crate) struct Conversation {
    pub(crate) history: Vec<RigMessage>,
    pub(crate) prompt: RigMessage,
}

/// The error of a conversation rig cannot be given; the run ends before the model is asked.
fn invalid(message: String) -> Error {
    Error::agent(message).with_code("rig_invalid_messages")
}

/// The AG-UI conversation as rig messages, in order, with `context` (the bridge core's
/// context and state message) as a system message before the history.
///
/// System and developer messages become system messages; user text and media parts become
/// rig's user content (inline data or a URL; a document may also be a provider's file id);
/// assistant messages keep their text and tool calls (each call's arguments read once, as
/// rig keeps them: a JSON object, or the text when they are not one); tool messages become
/// tool results of the call they answer (consecutive ones in one user message, as providers
/// want them), an `error` written in front of the content by
/// [`bridge::tool_message_text`]. Activity and reasoning messages are for the user, not the
/// model, and are left out; so is a message left with no content.
///
/// # Errors
///
/// No message to answer (`rig_no_messages`); a tool call without a name, or a tool message
/// answering a call no earlier assistant message made (`rig_invalid_messages`).
pub(crate) fn conversation(
    messages: &[Message],
    context: Option<String>,
) -> Result<Conversation, Error> {
    let mut out: Vec<RigMessage> = Vec::with_capacity(messages.len() + 1);
    // Each call's id → its tool's name, which a rig tool result carries.
    let mut names: HashMap<&str, ToolName> = HashMap::new();
    // Whether the last message pushed holds tool results only (the next one joins it).
    let mut results_open = false;
    for (index, message) in messages.iter().enumerate() {
        let mut results = false;
        match message {
            Message::System(m) => out.push(RigMessage::System {
                content: m.content.clone(),
            }),
            Message::Developer(m) => out.push(RigMessage::System {
                content: m.content.clone(),
            }),
            Message::User(m) => {
                let content = user_content(&m.content);
                if !content.is_empty() {
                    out.push(RigMessage::User { content });
                }
            }
            Message::Assistant(m) => {
                let mut content = Vec::new();
                if let Some(text) = m.content.as_ref().filter(|t| !t.is_empty()) {
                    content.push(AssistantContent::Text(Text::new(text.clone())));
                }
                for call in m.tool_calls.iter().flatten() {
                    let name = ToolName::new(call.function.name.clone()).map_err(|_| {
                        invalid(format!(
                            "message {index}: the tool call `{}` names no tool",
                            call.id.as_str()
                        ))
                    })?;
                    names.insert(call.id.as_str(), name.clone());
                    content.push(AssistantContent::ToolCall(ToolCall::from_wire(
                        call.id.as_str(),
                        ToolFunction::parse(name, &call.function.arguments),
                    )));
                }
                if !content.is_empty() {
                    out.push(RigMessage::Assistant(AssistantMessage::new(content)));
                }
            }
            Message::Tool(m) => {
                let id = m.tool_call_id.as_str();
                let Some(name) = names.get(id).cloned() else {
                    return Err(invalid(format!(
                        "message {index}: the tool message answers `{id}`, a call no earlier \
                         assistant message made"
                    )));
                };
                let content = match &m.error {
                    Some(error) => vec![ToolResultContent::text(bridge::tool_message_text(
                        error, &m.content,
                    ))],
                    None => result_content(&m.content),
                };
                let result = UserContent::ToolResult(ToolResult {
                    call: CallId::from_wire(id),
                    name,
                    content,
                    is_error: m.error.is_some(),
                });
                match out.last_mut() {
                    Some(RigMessage::User { content }) if results_open => content.push(result),
                    _ => out.push(RigMessage::User {
                        content: vec![result],
                    }),
                }
                results = true;
            }
            _ => {}
        }
        results_open = results;
    }
    let Some(prompt) = out.pop() else {
        return Err(
            Error::agent("the run has no message for the agent to answer")
                .with_code("rig_no_messages"),
        );
    };
    if let Some(context) = context {
        out.insert(0, RigMessage::System { content: context });
    }
    Ok(Conversation {
        history: out,
        prompt,
    })
}

/// A media part's source as rig reads it, and its media type when known.
fn source(source: &PartSource) -> Option<(DocumentSourceKind, Option<&str>)> {
    match source {
        PartSource::Data { value, mime_type } => Some((
            DocumentSourceKind::Base64(value.clone()),
            Some(mime_type.as_str()),
        )),
        PartSource::Url { value, mime_type } => {
            Some((DocumentSourceKind::Url(value.clone()), mime_type.as_deref()))
        }
        PartSource::File {
            value, mime_type, ..
        } => Some((
            DocumentSourceKind::FileId(value.clone()),
            mime_type.as_deref(),
        )),
        _ => None,
    }
}

fn media_type<M: MimeType>(mime: Option<&str>) -> Option<M> {
    mime.and_then(M::from_mime_type)
}

fn user_content(content: &Content) -> Vec<UserContent> {
    match content {
        Content::Text(text) => vec![UserContent::text(text.clone())],
        Content::Parts(parts) => parts.iter().filter_map(user_part).collect(),
    }
}

fn user_part(part: &ContentPart) -> Option<UserContent> {
    Some(match part {
        ContentPart::Text(t) => UserContent::text(t.text.clone()),
        ContentPart::Image(media) => {
            let (data, mime) = source(&media.source)?;
            UserContent::Image(Image {
                data,
                media_type: media_type::<ImageMediaType>(mime),
                ..Image::default()
            })
        }
        ContentPart::Document(media) => {
            let (data, mime) = source(&media.source)?;
            UserContent::Document(Document {
                data,
                media_type: media_type::<DocumentMediaType>(mime),
                additional_params: None,
            })
        }
        ContentPart::Audio(media) => {
            let (data, mime) = source(&media.source)?;
            UserContent::Audio(Audio {
                data,
                media_type: media_type::<AudioMediaType>(mime),
            })
        }
        ContentPart::Video(media) => {
            let (data, mime) = source(&media.source)?;
            UserContent::Video(Video {
                data,
                media_type: media_type::<VideoMediaType>(mime),
                additional_params: None,
            })
        }
        _ => return None,
    })
}

/// A tool message's content as a rig tool result: its text, or its text and image parts (a
/// tool result carries no other media).
fn result_content(content: &Content) -> Vec<ToolResultContent> {
    match content {
        Content::Text(text) => vec![ToolResultContent::text(text.clone())],
        Content::Parts(parts) => {
            let out: Vec<_> = parts
                .iter()
                .filter_map(|part| match part {
                    ContentPart::Text(t) => Some(ToolResultContent::text(t.text.clone())),
                    ContentPart::Image(media) => {
                        let (data, mime) = source(&media.source)?;
                        Some(ToolResultContent::Image(Image {
                            data,
                            media_type: media_type::<ImageMediaType>(mime),
                            ..Image::default()
                        }))
                    }
                    _ => None,
                })
                .collect();
            if out.is_empty() {
                vec![ToolResultContent::text(content.flatten())]
            } else {
                out
            }
        }
    }
}

/// A rig tool result's content for AG-UI: its text when it holds no image (text blocks joined
/// as [`Content::flatten`] joins parts, JSON blocks as their JSON text), else text and image
/// parts.
pub(crate) fn tool_result_content(content: Vec<ToolResultContent>) -> Content {
    let has_image = content
        .iter()
        .any(|c| matches!(c, ToolResultContent::Image(_)));
    let parts = content.into_iter().map(|c| match c {
        ToolResultContent::Text(t) => ContentPart::text(t.text),
        ToolResultContent::Json { value } => ContentPart::text(value.to_string()),
        ToolResultContent::Image(image) => image_part(image),
    });
    let mut parts: Vec<ContentPart> = parts.collect();
    if has_image {
        return Content::Parts(parts);
    }
    if parts.len() == 1
        && let Some(ContentPart::Text(t)) = parts.pop()
    {
        return Content::Text(t.text);
    }
    Content::Text(Content::Parts(parts).flatten())
}

fn image_part(image: Image) -> ContentPart {
    let mime = image.media_type.as_ref().map(MimeType::to_mime_type);
    let source = match image.data {
        DocumentSourceKind::Url(value) => PartSource::Url {
            value,
            mime_type: mime.map(str::to_owned),
        },
        DocumentSourceKind::Base64(value) => PartSource::Data {
            value,
            mime_type: mime.unwrap_or("image/png").to_owned(),
        },
        DocumentSourceKind::FileId(value) => PartSource::File {
            value,
            provider: None,
            mime_type: mime.map(str::to_owned),
        },
        other => return ContentPart::text(serde_json::to_string(&other).unwrap_or_default()),
    };
    ContentPart::Image(MediaPart::new(source))
}
