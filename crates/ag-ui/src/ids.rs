//! Identifier newtypes.
//!
//! The protocol treats every id as an opaque string: any string is allowed, the empty string
//! included, and ids are compared exactly. The newtypes exist so that a message id cannot be
//! passed where a tool call id is expected; on the wire each one is a plain JSON string.
//!
//! ```
//! use ag_ui::{MessageId, ToolCallId};
//!
//! let id = MessageId::new("msg-1");
//! assert_eq!(id.as_str(), "msg-1");
//! assert_eq!(id, "msg-1");
//! assert_eq!(serde_json::to_string(&id).unwrap(), r#""msg-1""#);
//!
//! let call: ToolCallId = "call-1".into();
//! assert_eq!(call.to_string(), "call-1");
//! ```

use std::borrow::Borrow;
use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// Wraps a string as this kind of id. Any string is a valid id.
            pub fn new(id: impl Into<String>) -> Self {
                Self(id.into())
            }

            /// The id as a string slice.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// Unwraps the id into its string.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self(id.to_owned())
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                Self(id)
            }
        }

        impl From<&String> for $name {
            fn from(id: &String) -> Self {
                Self(id.clone())
            }
        }

        impl From<&$name> for $name {
            fn from(id: &$name) -> Self {
                id.clone()
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> Self {
                id.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }
    };
}

id_type! {
    /// Identifies a message: text, reasoning, tool-result or activity.
    MessageId
}
id_type! {
    /// Identifies a tool call; a tool message answers it by this id.
    ToolCallId
}
id_type! {
    /// Identifies a conversation (a thread of runs).
    ThreadId
}
id_type! {
    /// Identifies one run of an agent.
    RunId
}
id_type! {
    /// Identifies one invocation of a subagent (not the subagent's name: two invocations of the
    /// same subagent have two ids).
    SubagentRunId
}
id_type! {
    /// Identifies an interrupt; a resume entry answers it by this id.
    InterruptId
}
