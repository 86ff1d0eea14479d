//! Messages, content parts and tool calls: the conversation as AG-UI carries it.
//!
//! A [`Message`] is discriminated by its `role`. Text-like roles carry a string; `user` and
//! `tool` messages may carry multimodal [`ContentPart`]s instead; `assistant` messages may carry
//! [`ToolCall`]s; `activity` messages carry a JSON object.
//!
//! ```
//! use ag_ui::{Message, Role};
//!
//! let m: Message = serde_json::from_str(r#"{"id":"u1","role":"user","content":"hi"}"#).unwrap();
//! assert_eq!(m.role(), Role::User);
//! assert_eq!(m.id().as_str(), "u1");
//! assert_eq!(m.text(), Some("hi"));
//! ```

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::decode::strip::{self, StripKind, Tail};

mod read;
use crate::serde_util::{from_buffered, tag_of, unknown_member, unknown_tag};
use crate::{MessageId, Metadata, SubagentRunId, ToolCallId};
pub(crate) use read::messages;

/// The seven message roles of AG-UI 1.0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    /// Instructions from the application developer.
    Developer,
    /// System instructions.
    System,
    /// The agent's own turn.
    Assistant,
    /// The person's turn.
    User,
    /// A tool's answer to a tool call.
    Tool,
    /// A client-side activity (plans, progress); never sent to an agent.
    Activity,
    /// Model reasoning shown to the user.
    Reasoning,
}

impl Role {
    /// Every role's wire string.
    pub const ALL: [&'static str; 7] = [
        "developer",
        "system",
        "assistant",
        "user",
        "tool",
        "activity",
        "reasoning",
    ];

    /// The wire string of this role.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Developer => "developer",
            Role::System => "system",
            Role::Assistant => "assistant",
            Role::User => "user",
            Role::Tool => "tool",
            Role::Activity => "activity",
            Role::Reasoning => "reasoning",
        }
    }
}

/// The roles a text message may take (`TEXT_MESSAGE_START.role`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextMessageRole {
    /// Developer instructions.
    Developer,
    /// System instructions.
    System,
    /// The agent; the default when a start event names no role.
    #[default]
    Assistant,
    /// The person.
    User,
}

impl TextMessageRole {
    /// The wire string of this role.
    pub fn as_str(self) -> &'static str {
        Role::from(self).as_str()
    }
}

impl From<TextMessageRole> for Role {
    fn from(role: TextMessageRole) -> Self {
        match role {
            TextMessageRole::Developer => Role::Developer,
            TextMessageRole::System => Role::System,
            TextMessageRole::Assistant => Role::Assistant,
            TextMessageRole::User => Role::User,
        }
    }
}

/// The body of a `user` or `tool` message, or of a `TOOL_CALL_RESULT`: plain text or an ordered
/// list of content parts.
///
/// ```
/// use ag_ui::Content;
///
/// let c: Content = serde_json::from_str(r#"[{"type":"text","text":"a"},{"type":"text","text":"b"}]"#).unwrap();
/// assert_eq!(c.flatten(), "a\nb");
/// assert_eq!(Content::from("plain").flatten(), "plain");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Multimodal parts, in order.
    Parts(Vec<ContentPart>),
}

impl Content {
    /// The text of this content, as a string-only peer (a model, a pre-1.0 client) reads it:
    /// the string itself, or the text of its text parts joined with `"\n"` (each part is a
    /// block of its own; other parts are left out, with no placeholder). This is the one rule
    /// the crate joins text parts by, in its model bridges
    /// (`server::bridge`) and its version downgrade alike.
    pub fn flatten(&self) -> String {
        match self {
            Content::Text(text) => text.clone(),
            Content::Parts(parts) => {
                let mut text = String::new();
                let mut first = true;
                for part in parts {
                    if let ContentPart::Text(t) = part {
                        if !first {
                            text.push('\n');
                        }
                        first = false;
                        text.push_str(&t.text);
                    }
                }
                text
            }
        }
    }

    /// Whether this is a list of parts that includes a non-text part.
    pub fn has_media(&self) -> bool {
        matches!(self, Content::Parts(parts) if parts.iter().any(|p| !matches!(p, ContentPart::Text(_))))
    }
}

impl Default for Content {
    fn default() -> Self {
        Content::Text(String::new())
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::Text(text.to_owned())
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::Text(text)
    }
}

impl From<Vec<ContentPart>> for Content {
    fn from(parts: Vec<ContentPart>) -> Self {
        Content::Parts(parts)
    }
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::String(text) => Ok(Content::Text(text)),
            Value::Array(items) => strip::within("content", || parts_from_values(items))
                .map(Content::Parts)
                .map_err(de::Error::custom),
            other => Err(de::Error::invalid_type(
                crate::serde_util::unexpected(&other),
                &"a string or an array of content parts",
            )),
        }
    }
}

const PART_TYPES: &[&str] = &["text", "image", "audio", "video", "document", "binary"];
const SOURCE_TYPES: &[&str] = &["data", "url", "file"];

/// Parses content parts, dropping the ones whose `type` or `source.type` is unknown.
fn parts_from_values(items: Vec<Value>) -> Result<Vec<ContentPart>, String> {
    let mut parts = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        let unknown = unknown_member(&item, "type", PART_TYPES).or_else(|| {
            item.get("source")
                .and_then(|s| unknown_member(s, "type", SOURCE_TYPES))
        });
        if let Some(name) = unknown {
            strip::record(StripKind::Part, Some(Tail::Index(index)), &name, 1);
            continue;
        }
        match upgrade_binary(item) {
            Ok(item) => parts.push(part_element(item, index)?),
            Err(dropped) => strip::record(StripKind::Part, Some(Tail::Index(index)), dropped, 1),
        }
    }
    Ok(parts)
}

/// A legacy `binary` part (AG-UI before 1.0: `{"type":"binary","mimeType","data"|"url"|"id",
/// "filename"}`) as the 1.0 part its MIME type names (`image/…`, `audio/…`, `video/…`, else
/// `document`) with a `data` or `url` source, its file name kept as metadata, as the reference
/// client upgrades every outgoing message; any other part as it is. A binary part with neither
/// `data` nor `url` (an `id` alone) has no 1.0 equivalent: `Err` with what it was.
fn upgrade_binary(item: Value) -> Result<Value, &'static str> {
    let Value::Object(mut part) = item else {
        return Ok(item);
    };
    let mime = match (part.get("type"), part.get("mimeType")) {
        (Some(Value::String(kind)), Some(Value::String(mime))) if kind == "binary" => mime.clone(),
        _ => return Ok(Value::Object(part)),
    };
    let kind = ["image", "audio", "video"]
        .into_iter()
        .find(|kind| mime.starts_with(kind) && mime[kind.len()..].starts_with('/'))
        .unwrap_or("document");
    let source = match (part.remove("data"), part.remove("url")) {
        (Some(Value::String(data)), _) => json_source("data", data, &mime),
        (_, Some(Value::String(url))) => json_source("url", url, &mime),
        _ => return Err("binary (an id alone)"),
    };
    let mut upgraded = serde_json::Map::new();
    upgraded.insert("type".into(), Value::from(kind));
    upgraded.insert("source".into(), source);
    if let Some(Value::String(name)) = part.remove("filename") {
        let mut metadata = serde_json::Map::new();
        metadata.insert("filename".into(), Value::String(name));
        upgraded.insert("metadata".into(), Value::Object(metadata));
    }
    Ok(Value::Object(upgraded))
}

fn json_source(kind: &str, value: String, mime: &str) -> Value {
    let mut source = serde_json::Map::new();
    source.insert("type".into(), Value::from(kind));
    source.insert("value".into(), Value::String(value));
    source.insert("mimeType".into(), Value::from(mime));
    Value::Object(source)
}

/// Reads one content part, deserializing the struct of its type directly so that an error keeps
/// the path of the offending field.
fn part_element(item: Value, index: usize) -> Result<ContentPart, String> {
    const KINDS: &[&str] = &["text", "image", "audio", "video", "document"];
    let part = match tag_of(&item, "type", "ContentPart") {
        Ok("text") => from_buffered(item).map(ContentPart::Text),
        Ok("image") => from_buffered(item).map(ContentPart::Image),
        Ok("audio") => from_buffered(item).map(ContentPart::Audio),
        Ok("video") => from_buffered(item).map(ContentPart::Video),
        Ok("document") => from_buffered(item).map(ContentPart::Document),
        Ok(other) => Err(unknown_tag(other, KINDS)),
        Err(e) => Err(e),
    };
    part.map_err(|e| e.within(&format!("[{index}]")))
}

/// One part of multimodal content, discriminated by `type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum ContentPart {
    /// Text.
    Text(TextPart),
    /// An image.
    Image(MediaPart),
    /// Audio.
    Audio(MediaPart),
    /// Video.
    Video(MediaPart),
    /// A document (PDF and others).
    Document(MediaPart),
}

impl ContentPart {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        ContentPart::Text(TextPart::new(text))
    }
}

/// A text content part.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TextPart {
    /// The text.
    pub text: String,
    /// Reserved part id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Any JSON value describing the part (a search hit's source, say); never `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

read_fields! {
    TextPart, rest = crate::serde_util::fields::Ignore,
    required { text: String }
    optional { id: String, metadata: Value }
    lenient {}
    defaulted {}
}

impl TextPart {
    /// A text part with no id and no metadata.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            id: None,
            metadata: None,
        }
    }

    /// Sets the part's id.
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// Sets the part's metadata.
    #[must_use]
    pub fn with_metadata(mut self, metadata: Value) -> Self {
        self.metadata = Some(metadata);
        self
    }
}

/// An image, audio, video or document part.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct MediaPart {
    /// Where the bytes are.
    pub source: PartSource,
    /// Reserved part id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Any JSON value describing the part. A legacy `null` reads as absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

read_fields! {
    MediaPart, rest = crate::serde_util::fields::Ignore,
    required { source: PartSource }
    optional { id: String }
    lenient { metadata: Value }
    defaulted {}
}

impl MediaPart {
    /// A part with the given source and no id or metadata.
    pub fn new(source: PartSource) -> Self {
        Self {
            source,
            id: None,
            metadata: None,
        }
    }

    /// Sets the part's id.
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// Sets the part's metadata.
    #[must_use]
    pub fn with_metadata(mut self, metadata: Value) -> Self {
        self.metadata = Some(metadata);
        self
    }
}

/// Where a media part's bytes come from, discriminated by `type` (read in `read.rs`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum PartSource {
    /// Inline base64 data.
    Data {
        /// Base64 of the bytes.
        value: String,
        /// How to read the bytes.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A URL (not format-checked).
    Url {
        /// The URL.
        value: String,
        /// Media type, if known.
        #[serde(
            rename = "mimeType",
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "non_null"
        )]
        mime_type: Option<String>,
    },
    /// An opaque file handle issued by a provider.
    File {
        /// The handle.
        value: String,
        /// Lower-case vendor id (`openai`, `anthropic`, `google`).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "non_null"
        )]
        provider: Option<String>,
        /// Media type, if known.
        #[serde(
            rename = "mimeType",
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "non_null"
        )]
        mime_type: Option<String>,
    },
}

/// The only tool call type, `"function"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolCallType {
    /// A function call.
    #[default]
    Function,
}

/// The function a tool call invokes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct FunctionCall {
    /// The tool's name.
    pub name: String,
    /// The argument text as emitted (conventionally JSON, never validated).
    pub arguments: String,
}

read_fields! {
    FunctionCall, rest = crate::serde_util::fields::Ignore,
    required { name: String, arguments: String }
    optional {}
    lenient {}
    defaulted {}
}

impl FunctionCall {
    /// A call of the tool `name` with this argument text.
    pub fn new(name: impl Into<String>, arguments: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            arguments: arguments.into(),
        }
    }
}

/// A tool call held by an assistant message.
///
/// Built with [`ToolCall::new`] and the `with_*` setters: the protocol may add fields, so the
/// struct cannot be written as a literal outside this crate.
///
/// ```
/// use ag_ui::ToolCall;
///
/// let call = ToolCall::new("c1", "get_weather", r#"{"city":"Paris"}"#).with_encrypted_value("x");
/// assert_eq!(call.function.name, "get_weather");
/// ```
///
/// ```compile_fail,E0639
/// use ag_ui::{FunctionCall, ToolCall, ToolCallType};
///
/// let call = ToolCall {
///     id: "c1".into(),
///     call_type: ToolCallType::Function,
///     function: FunctionCall::new("f", "{}"),
///     encrypted_value: None,
///     metadata: None,
/// };
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolCall {
    /// The call's id.
    pub id: ToolCallId,
    /// Always [`ToolCallType::Function`].
    #[serde(rename = "type")]
    pub call_type: ToolCallType,
    /// Name and arguments.
    pub function: FunctionCall,
    /// Provider artefact for this call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    /// The call's own metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

read_fields! {
    ToolCall, rest = crate::serde_util::fields::Ignore,
    required { id: ToolCallId, call_type = "type": ToolCallType, function: FunctionCall }
    optional { encrypted_value: String, metadata: Metadata }
    lenient {}
    defaulted {}
}

impl ToolCall {
    /// A function call with the given arguments text.
    pub fn new(
        id: impl Into<ToolCallId>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            call_type: ToolCallType::Function,
            function: FunctionCall {
                name: name.into(),
                arguments: arguments.into(),
            },
            encrypted_value: None,
            metadata: None,
        }
    }

    /// Sets the provider artefact for this call.
    #[must_use]
    pub fn with_encrypted_value(mut self, value: impl Into<String>) -> Self {
        self.encrypted_value = Some(value.into());
        self
    }

    /// Sets the call's own metadata.
    #[must_use]
    pub fn with_metadata(mut self, metadata: Metadata) -> Self {
        self.metadata = Some(metadata);
        self
    }
}

macro_rules! message_struct {
    (
        $(#[$doc:meta])* $name:ident {
            $( $(#[$fdoc:meta])* $field:ident : $ty:ty ),* $(,)?
        }
        optional {
            $( $(#[$odoc:meta])* $ofield:ident : $oty:ty ),* $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(rename_all = "camelCase")]
        #[non_exhaustive]
        pub struct $name {
            /// Unique id in the conversation.
            pub id: MessageId,
            $( $(#[$fdoc])* pub $field: $ty, )*
            $(
                $(#[$odoc])*
                #[serde(skip_serializing_if = "Option::is_none")]
                pub $ofield: Option<$oty>,
            )*
            /// Open-by-key extra information.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub metadata: Option<Metadata>,
            /// The subagent invocation that produced the message; absent for the parent agent.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub subagent_run_id: Option<SubagentRunId>,
        }

        read_fields! {
            $name, rest = $crate::serde_util::fields::Ignore,
            required { id: MessageId, $( $field: $ty, )* }
            optional {
                $( $ofield: $oty, )*
                metadata: Metadata,
                subagent_run_id: SubagentRunId,
            }
            lenient {}
            defaulted {}
        }

        impl $name {
            /// Sets the metadata.
            #[must_use]
            pub fn with_metadata(mut self, metadata: Metadata) -> Self {
                self.metadata = Some(metadata);
                self
            }

            /// Attributes the message to a subagent invocation.
            #[must_use]
            pub fn with_subagent_run_id(mut self, id: impl Into<SubagentRunId>) -> Self {
                self.subagent_run_id = Some(id.into());
                self
            }
        }
    };
}

message_struct! {
    /// Instructions from the application developer.
    DeveloperMessage {
        /// The text.
        content: String,
    }
    optional {
        /// Display name of the author.
        name: String,
        /// Provider artefact to return on later turns.
        encrypted_value: String,
    }
}

message_struct! {
    /// System instructions.
    SystemMessage {
        /// The text.
        content: String,
    }
    optional {
        /// Display name of the author.
        name: String,
        /// Provider artefact to return on later turns.
        encrypted_value: String,
    }
}

message_struct! {
    /// The agent's turn: text, tool calls, or both.
    AssistantMessage {}
    optional {
        /// The text (absent when the turn is only tool calls).
        content: String,
        /// Tool calls the agent made in this turn.
        tool_calls: Vec<ToolCall>,
        /// Display name of the author.
        name: String,
        /// Provider artefact to return on later turns.
        encrypted_value: String,
    }
}

message_struct! {
    /// The person's turn; text or multimodal parts.
    UserMessage {
        /// The body.
        content: Content,
    }
    optional {
        /// Display name of the author.
        name: String,
        /// Provider artefact to return on later turns.
        encrypted_value: String,
    }
}

message_struct! {
    /// A tool's answer to a tool call.
    ToolMessage {
        /// The tool's output.
        content: Content,
        /// The call answered.
        tool_call_id: ToolCallId,
    }
    optional {
        /// Why the tool failed, sent alongside whatever output it produced.
        error: String,
        /// Provider artefact to return on later turns.
        encrypted_value: String,
    }
}

message_struct! {
    /// A client-side activity (a plan, a progress panel). Never sent to the agent.
    ActivityMessage {
        /// Open discriminator chosen by the producer (`"PLAN"`, `"SEARCH"`, …).
        activity_type: String,
        /// The activity's payload, a JSON object.
        content: Metadata,
    }
    optional {}
}

message_struct! {
    /// Model reasoning shown to the user.
    ReasoningMessage {
        /// The reasoning text.
        content: String,
    }
    optional {
        /// Provider artefact to return on later turns.
        encrypted_value: String,
    }
}

impl DeveloperMessage {
    /// A developer message.
    pub fn new(id: impl Into<MessageId>, content: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            content: content.into(),
            name: None,
            encrypted_value: None,
            metadata: None,
            subagent_run_id: None,
        }
    }
}

impl SystemMessage {
    /// A system message.
    pub fn new(id: impl Into<MessageId>, content: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            content: content.into(),
            name: None,
            encrypted_value: None,
            metadata: None,
            subagent_run_id: None,
        }
    }
}

impl AssistantMessage {
    /// An assistant message with no content and no tool calls yet.
    pub fn new(id: impl Into<MessageId>) -> Self {
        Self {
            id: id.into(),
            content: None,
            tool_calls: None,
            name: None,
            encrypted_value: None,
            metadata: None,
            subagent_run_id: None,
        }
    }

    /// Sets the text.
    #[must_use]
    pub fn with_content(mut self, content: impl Into<String>) -> Self {
        self.content = Some(content.into());
        self
    }

    /// Sets the tool calls.
    #[must_use]
    pub fn with_tool_calls(mut self, calls: Vec<ToolCall>) -> Self {
        self.tool_calls = Some(calls);
        self
    }
}

impl UserMessage {
    /// A user message.
    pub fn new(id: impl Into<MessageId>, content: impl Into<Content>) -> Self {
        Self {
            id: id.into(),
            content: content.into(),
            name: None,
            encrypted_value: None,
            metadata: None,
            subagent_run_id: None,
        }
    }
}

impl ToolMessage {
    /// A tool message answering `tool_call_id`.
    pub fn new(
        id: impl Into<MessageId>,
        tool_call_id: impl Into<ToolCallId>,
        content: impl Into<Content>,
    ) -> Self {
        Self {
            id: id.into(),
            content: content.into(),
            tool_call_id: tool_call_id.into(),
            error: None,
            encrypted_value: None,
            metadata: None,
            subagent_run_id: None,
        }
    }
}

impl ActivityMessage {
    /// An activity message.
    pub fn new(
        id: impl Into<MessageId>,
        activity_type: impl Into<String>,
        content: Metadata,
    ) -> Self {
        Self {
            id: id.into(),
            activity_type: activity_type.into(),
            content,
            metadata: None,
            subagent_run_id: None,
        }
    }
}

impl ReasoningMessage {
    /// A reasoning message.
    pub fn new(id: impl Into<MessageId>, content: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            content: content.into(),
            encrypted_value: None,
            metadata: None,
            subagent_run_id: None,
        }
    }
}

/// A message of the conversation, discriminated by `role`.
///
/// Read as a JSON value first, then as the struct its `role` names (so a key given twice reads
/// as its last value, as `JSON.parse` reads it); an unknown role is an error (a list of
/// messages in an event drops such a message instead, with a warning).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Message {
    /// Developer instructions.
    Developer(DeveloperMessage),
    /// System instructions.
    System(SystemMessage),
    /// The agent's turn.
    Assistant(AssistantMessage),
    /// The person's turn.
    User(UserMessage),
    /// A tool result.
    Tool(ToolMessage),
    /// A client-side activity.
    Activity(ActivityMessage),
    /// Model reasoning.
    Reasoning(ReasoningMessage),
}

macro_rules! each_message {
    ($self:expr, $m:ident => $body:expr) => {
        match $self {
            Message::Developer($m) => $body,
            Message::System($m) => $body,
            Message::Assistant($m) => $body,
            Message::User($m) => $body,
            Message::Tool($m) => $body,
            Message::Activity($m) => $body,
            Message::Reasoning($m) => $body,
        }
    };
}

impl Message {
    /// A user message with text content.
    pub fn user(id: impl Into<MessageId>, content: impl Into<Content>) -> Self {
        Message::User(UserMessage::new(id, content))
    }

    /// An assistant message with text content.
    pub fn assistant(id: impl Into<MessageId>, content: impl Into<String>) -> Self {
        Message::Assistant(AssistantMessage::new(id).with_content(content))
    }

    /// A system message.
    pub fn system(id: impl Into<MessageId>, content: impl Into<String>) -> Self {
        Message::System(SystemMessage::new(id, content))
    }

    /// A developer message.
    pub fn developer(id: impl Into<MessageId>, content: impl Into<String>) -> Self {
        Message::Developer(DeveloperMessage::new(id, content))
    }

    /// A tool message answering `tool_call_id`.
    pub fn tool(
        id: impl Into<MessageId>,
        tool_call_id: impl Into<ToolCallId>,
        content: impl Into<Content>,
    ) -> Self {
        Message::Tool(ToolMessage::new(id, tool_call_id, content))
    }

    /// A reasoning message.
    pub fn reasoning(id: impl Into<MessageId>, content: impl Into<String>) -> Self {
        Message::Reasoning(ReasoningMessage::new(id, content))
    }

    /// The message's id.
    pub fn id(&self) -> &MessageId {
        each_message!(self, m => &m.id)
    }

    /// The message's role.
    pub fn role(&self) -> Role {
        match self {
            Message::Developer(_) => Role::Developer,
            Message::System(_) => Role::System,
            Message::Assistant(_) => Role::Assistant,
            Message::User(_) => Role::User,
            Message::Tool(_) => Role::Tool,
            Message::Activity(_) => Role::Activity,
            Message::Reasoning(_) => Role::Reasoning,
        }
    }

    /// The subagent invocation that produced the message, if any.
    pub fn subagent_run_id(&self) -> Option<&SubagentRunId> {
        each_message!(self, m => m.subagent_run_id.as_ref())
    }

    /// Mutable access to the attribution.
    pub fn subagent_run_id_mut(&mut self) -> &mut Option<SubagentRunId> {
        each_message!(self, m => &mut m.subagent_run_id)
    }

    /// The message's metadata, if any.
    pub fn metadata(&self) -> Option<&Metadata> {
        each_message!(self, m => m.metadata.as_ref())
    }

    /// Mutable access to the metadata.
    pub fn metadata_mut(&mut self) -> &mut Option<Metadata> {
        each_message!(self, m => &mut m.metadata)
    }

    /// The message's text when its content is a plain string (`None` for parts, for an
    /// assistant turn without text and for activities).
    pub fn text(&self) -> Option<&str> {
        match self {
            Message::Developer(m) => Some(&m.content),
            Message::System(m) => Some(&m.content),
            Message::Assistant(m) => m.content.as_deref(),
            Message::User(m) => match &m.content {
                Content::Text(t) => Some(t),
                Content::Parts(_) => None,
            },
            Message::Tool(m) => match &m.content {
                Content::Text(t) => Some(t),
                Content::Parts(_) => None,
            },
            Message::Activity(_) => None,
            Message::Reasoning(m) => Some(&m.content),
        }
    }
}
