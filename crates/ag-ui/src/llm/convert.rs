//! AG-UI messages, tools, context and state ↔ Chat Completions messages.

use serde_json::{Value, json};

use super::wire::{
    ChatContent, ChatFunction, ChatFunctionCall, ChatMessage, ChatPart, ChatTool, ChatToolCall,
    FileRef, ImageUrl, InputAudio,
};
use super::{LlmError, LlmErrorKind};
use crate::server::bridge;
use crate::{
    AssistantMessage, Content, ContentPart, Context, DeveloperMessage, MediaPart, Message,
    MessageId, PartSource, ReasoningMessage, SystemMessage, TextPart, Tool, ToolCall, ToolMessage,
    UserMessage,
};

/// How AG-UI messages are written for the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChatOptions {
    /// Send reasoning messages back, as `reasoning_content` on the assistant message that
    /// follows them (what DeepSeek's thinking mode with tools expects). Off by default:
    /// several servers refuse the field, and OpenAI's reasoning is not returned this way.
    pub replay_reasoning: bool,
}

impl ChatOptions {
    /// Sets [`replay_reasoning`](Self::replay_reasoning).
    #[must_use]
    pub fn with_replay_reasoning(mut self, replay: bool) -> Self {
        self.replay_reasoning = replay;
        self
    }
}

fn unsupported(message: usize, part: usize, what: &str) -> LlmError {
    LlmError::new(
        LlmErrorKind::Unsupported,
        format!(
            "message {message}, content part {part}: {what} cannot be sent to a chat completions model"
        ),
    )
}

fn data_url(mime: &str, base64: &str) -> String {
    format!("data:{mime};base64,{base64}")
}

/// Splits a `data:{mime};base64,{value}` URL.
fn parse_data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (mime, value) = rest.split_once(";base64,")?;
    Some((mime, value))
}

fn filename(part: &MediaPart) -> Option<String> {
    part.metadata
        .as_ref()?
        .get("filename")?
        .as_str()
        .map(str::to_owned)
}

fn part_to_chat(part: &ContentPart, message: usize, index: usize) -> Result<ChatPart, LlmError> {
    Ok(match part {
        ContentPart::Text(text) => ChatPart::Text {
            text: text.text.clone(),
        },
        ContentPart::Image(media) => match &media.source {
            PartSource::Data { value, mime_type } => ChatPart::ImageUrl {
                image_url: ImageUrl {
                    url: data_url(mime_type, value),
                },
            },
            PartSource::Url { value, .. } => ChatPart::ImageUrl {
                image_url: ImageUrl { url: value.clone() },
            },
            _ => return Err(unsupported(message, index, "an image given as a file id")),
        },
        ContentPart::Document(media) => match &media.source {
            PartSource::Data { value, mime_type } => ChatPart::File {
                file: FileRef {
                    file_data: Some(data_url(mime_type, value)),
                    file_id: None,
                    filename: filename(media),
                },
            },
            PartSource::File { value, .. } => ChatPart::File {
                file: FileRef {
                    file_data: None,
                    file_id: Some(value.clone()),
                    filename: filename(media),
                },
            },
            _ => return Err(unsupported(message, index, "a document given as a URL")),
        },
        ContentPart::Audio(media) => match &media.source {
            PartSource::Data { value, mime_type } => {
                let format = match mime_type.as_str() {
                    "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
                    "audio/mpeg" | "audio/mp3" => "mp3",
                    _ => {
                        return Err(unsupported(
                            message,
                            index,
                            &format!("audio of type {mime_type} (only wav and mp3)"),
                        ));
                    }
                };
                ChatPart::InputAudio {
                    input_audio: InputAudio {
                        data: value.clone(),
                        format: format.to_owned(),
                    },
                }
            }
            _ => return Err(unsupported(message, index, "audio not given inline")),
        },
        ContentPart::Video(_) => return Err(unsupported(message, index, "video")),
    })
}

fn content_to_chat(content: &Content, message: usize) -> Result<ChatContent, LlmError> {
    Ok(match content {
        Content::Text(text) => ChatContent::Text(text.clone()),
        Content::Parts(parts) => ChatContent::Parts(
            parts
                .iter()
                .enumerate()
                .map(|(i, p)| part_to_chat(p, message, i))
                .collect::<Result<_, _>>()?,
        ),
    })
}

fn part_from_chat(part: &ChatPart) -> ContentPart {
    let media = |source: PartSource, filename: Option<&String>| {
        let mut media = MediaPart::new(source);
        media.metadata = filename.map(|f| json!({ "filename": f }));
        media
    };
    match part {
        ChatPart::Text { text } => ContentPart::Text(TextPart::new(text.clone())),
        ChatPart::ImageUrl { image_url } => {
            let source = match parse_data_url(&image_url.url) {
                Some((mime, value)) => PartSource::Data {
                    value: value.to_owned(),
                    mime_type: mime.to_owned(),
                },
                None => PartSource::Url {
                    value: image_url.url.clone(),
                    mime_type: None,
                },
            };
            ContentPart::Image(media(source, None))
        }
        ChatPart::File { file } => {
            let source = match (
                file.file_data.as_deref().and_then(parse_data_url),
                &file.file_id,
            ) {
                (Some((mime, value)), _) => PartSource::Data {
                    value: value.to_owned(),
                    mime_type: mime.to_owned(),
                },
                (None, Some(id)) => PartSource::File {
                    value: id.clone(),
                    provider: None,
                    mime_type: None,
                },
                // Raw base64 without a data URL: the type is unknown.
                (None, None) => PartSource::Data {
                    value: file.file_data.clone().unwrap_or_default(),
                    mime_type: "application/octet-stream".to_owned(),
                },
            };
            ContentPart::Document(media(source, file.filename.as_ref()))
        }
        ChatPart::InputAudio { input_audio } => {
            let mime = match input_audio.format.as_str() {
                "mp3" => "audio/mpeg".to_owned(),
                "wav" => "audio/wav".to_owned(),
                other => format!("audio/{other}"),
            };
            ContentPart::Audio(media(
                PartSource::Data {
                    value: input_audio.data.clone(),
                    mime_type: mime,
                },
                None,
            ))
        }
    }
}

fn content_from_chat(content: &ChatContent) -> Content {
    match content {
        ChatContent::Text(text) => Content::Text(text.clone()),
        ChatContent::Parts(parts) => Content::Parts(parts.iter().map(part_from_chat).collect()),
    }
}

/// Writes AG-UI messages as chat messages, in order.
///
/// * `system`, `developer`: as they are (with their `name`).
/// * `user`: text, or parts — text; image as `image_url` (inline data as a `data:` URL);
///   document as `file` (inline data, or a provider file id; a `filename` in the part's
///   metadata is passed on); wav or mp3 audio as `input_audio`.
/// * `assistant`: its text and tool calls (ids, names and argument text as they are).
/// * `tool`: its content, answering its `toolCallId`; an `error` is put in front of the
///   content as `Error: …` ([`bridge::tool_message_text`]), since the chat format has no
///   field for it.
/// * `reasoning`: dropped, unless [`ChatOptions::replay_reasoning`]: then it becomes the
///   `reasoning_content` of the assistant message that follows (or of an assistant message of
///   its own when none follows).
/// * `activity`: dropped (client-side only).
///
/// `encryptedValue` and `metadata` are not sent.
///
/// # Errors
///
/// [`Unsupported`](LlmErrorKind::Unsupported), naming the message and part, for content the
/// chat format cannot carry: video, an image by file id, a document by URL, audio other than
/// inline wav or mp3.
///
/// ```
/// use ag_ui::llm::wire::{ChatContent, ChatMessage};
/// use ag_ui::llm::{ChatOptions, to_chat_messages};
/// use ag_ui::Message;
///
/// let chat = to_chat_messages(&[Message::user("u1", "Hi")], ChatOptions::default()).unwrap();
/// assert_eq!(chat, vec![ChatMessage::User { content: ChatContent::Text("Hi".into()), name: None }]);
/// ```
pub fn to_chat_messages(
    messages: &[Message],
    options: ChatOptions,
) -> Result<Vec<ChatMessage>, LlmError> {
    let mut out = Vec::with_capacity(messages.len());
    let mut reasoning: Option<String> = None;
    for (i, message) in messages.iter().enumerate() {
        if !matches!(message, Message::Assistant(_))
            && let Some(text) = reasoning.take()
        {
            out.push(ChatMessage::Assistant {
                content: None,
                tool_calls: Vec::new(),
                reasoning_content: Some(text),
                name: None,
            });
        }
        match message {
            Message::System(m) => out.push(ChatMessage::System {
                content: m.content.clone(),
                name: m.name.clone(),
            }),
            Message::Developer(m) => out.push(ChatMessage::Developer {
                content: m.content.clone(),
                name: m.name.clone(),
            }),
            Message::User(m) => out.push(ChatMessage::User {
                content: content_to_chat(&m.content, i)?,
                name: m.name.clone(),
            }),
            Message::Assistant(m) => out.push(ChatMessage::Assistant {
                content: m.content.clone(),
                tool_calls: m
                    .tool_calls
                    .iter()
                    .flatten()
                    .map(|c| ChatToolCall {
                        id: c.id.as_str().to_owned(),
                        kind: "function".to_owned(),
                        function: ChatFunctionCall {
                            name: c.function.name.clone(),
                            arguments: c.function.arguments.clone(),
                        },
                    })
                    .collect(),
                reasoning_content: reasoning.take(),
                name: m.name.clone(),
            }),
            Message::Tool(m) => {
                let content = match &m.error {
                    None => content_to_chat(&m.content, i)?,
                    Some(error) => ChatContent::Text(bridge::tool_message_text(error, &m.content)),
                };
                out.push(ChatMessage::Tool {
                    content,
                    tool_call_id: m.tool_call_id.as_str().to_owned(),
                });
            }
            Message::Reasoning(m) if options.replay_reasoning => {
                let joined = match reasoning.take() {
                    Some(before) => before + &m.content,
                    None => m.content.clone(),
                };
                reasoning = Some(joined);
            }
            _ => {}
        }
    }
    if let Some(text) = reasoning {
        out.push(ChatMessage::Assistant {
            content: None,
            tool_calls: Vec::new(),
            reasoning_content: Some(text),
            name: None,
        });
    }
    Ok(out)
}

/// Reads chat messages as AG-UI messages, ids from `next_id` (chat messages carry none; tool
/// calls keep theirs). The inverse of [`to_chat_messages`] with reasoning replayed: an
/// assistant message with `reasoning_content` becomes a reasoning message followed by the
/// assistant message (unless it held nothing else).
///
/// ```
/// use ag_ui::llm::{ChatOptions, from_chat_messages, to_chat_messages};
/// use ag_ui::{Message, MessageId};
///
/// let messages = vec![Message::system("m1", "Be brief."), Message::user("m2", "Hi")];
/// let chat = to_chat_messages(&messages, ChatOptions::default()).unwrap();
/// let mut n = 0;
/// let back = from_chat_messages(&chat, || { n += 1; MessageId::new(format!("m{n}")) });
/// assert_eq!(back, messages);
/// ```
pub fn from_chat_messages(
    messages: &[ChatMessage],
    mut next_id: impl FnMut() -> MessageId,
) -> Vec<Message> {
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        match message {
            ChatMessage::System { content, name } => {
                let mut m = SystemMessage::new(next_id(), content.clone());
                m.name = name.clone();
                out.push(Message::System(m));
            }
            ChatMessage::Developer { content, name } => {
                let mut m = DeveloperMessage::new(next_id(), content.clone());
                m.name = name.clone();
                out.push(Message::Developer(m));
            }
            ChatMessage::User { content, name } => {
                let mut m = UserMessage::new(next_id(), content_from_chat(content));
                m.name = name.clone();
                out.push(Message::User(m));
            }
            ChatMessage::Assistant {
                content,
                tool_calls,
                reasoning_content,
                name,
            } => {
                if let Some(reasoning) = reasoning_content {
                    out.push(Message::Reasoning(ReasoningMessage::new(
                        next_id(),
                        reasoning.clone(),
                    )));
                    if content.is_none() && tool_calls.is_empty() && name.is_none() {
                        continue;
                    }
                }
                let mut m = AssistantMessage::new(next_id());
                m.content = content.clone();
                m.name = name.clone();
                if !tool_calls.is_empty() {
                    m.tool_calls = Some(
                        tool_calls
                            .iter()
                            .map(|c| {
                                ToolCall::new(
                                    c.id.as_str(),
                                    c.function.name.as_str(),
                                    c.function.arguments.as_str(),
                                )
                            })
                            .collect(),
                    );
                }
                out.push(Message::Assistant(m));
            }
            ChatMessage::Tool {
                content,
                tool_call_id,
            } => out.push(Message::Tool(ToolMessage::new(
                next_id(),
                tool_call_id.as_str(),
                content_from_chat(content),
            ))),
        }
    }
    out
}

/// The system message that shows the model the run's context entries and state, or `None`
/// when there are none (state absent, `null` or `{}`): the bridge core's
/// [`context_text`](bridge::context_text), which documents the layout, as a chat message.
///
/// An [`LlmAgent`](super::LlmAgent) puts this message right after its own system prompt and
/// rewrites it each time it asks the model, so the model sees the state as the tools left it.
///
/// ```
/// use ag_ui::Context;
/// use ag_ui::llm::context_message;
/// use ag_ui::llm::wire::ChatMessage;
/// use serde_json::json;
///
/// let message = context_message(&[Context::new("user's city", "Oslo")], Some(&json!({"n": 1})));
/// let Some(ChatMessage::System { content, .. }) = message else { panic!() };
/// assert_eq!(
///     content,
///     "Context from the application:\n- user's city: Oslo\n\nThe application's current state (JSON):\n{\"n\":1}"
/// );
/// assert!(context_message(&[], Some(&json!({}))).is_none());
/// ```
pub fn context_message(context: &[Context], state: Option<&Value>) -> Option<ChatMessage> {
    bridge::context_text(context, state).map(|content| ChatMessage::System {
        content,
        name: None,
    })
}

/// Declares AG-UI tools (the frontend's `RunAgentInput.tools`, or backend tools) to the model.
///
/// ```
/// use ag_ui::Tool;
/// use ag_ui::llm::chat_tools;
/// use serde_json::json;
///
/// let tools = chat_tools(&[Tool::new("confirm", "Ask the user").with_parameters(json!({"type": "object"}))]);
/// assert_eq!(
///     serde_json::to_value(&tools).unwrap(),
///     json!([{"type": "function", "function": {"name": "confirm", "description": "Ask the user", "parameters": {"type": "object"}}}])
/// );
/// ```
pub fn chat_tools(tools: &[Tool]) -> Vec<ChatTool> {
    tools
        .iter()
        .map(|t| ChatTool {
            kind: "function".to_owned(),
            function: ChatFunction {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters: t.parameters.clone(),
            },
        })
        .collect()
}
