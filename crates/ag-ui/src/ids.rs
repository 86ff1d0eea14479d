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

use std::fmt;
use std::sync::Arc;

use serde::de::{self, Visitor};

/// Declares an id newtype (used here and by `a2ui`).
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        ///
        /// Shared, not copied: cloning an id (as every CONTENT event of a stream does) bumps a
        /// reference count instead of allocating.
        #[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(::std::sync::Arc<str>);

        impl $name {
            /// Wraps a string as this kind of id. Any string is a valid id.
            pub fn new(id: impl AsRef<str>) -> Self {
                Self(::std::sync::Arc::from(id.as_ref()))
            }

            /// The id as a string slice.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// Copies the id into a `String`.
            pub fn into_string(self) -> String {
                String::from(&*self.0)
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new("")
            }
        }

        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::fmt::Debug::fmt(&*self.0, f)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.0)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_str($crate::ids::IdVisitor).map(Self)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self::new(id)
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                Self(::std::sync::Arc::from(id))
            }
        }

        impl From<&String> for $name {
            fn from(id: &String) -> Self {
                Self::new(id)
            }
        }

        impl From<&$name> for $name {
            fn from(id: &$name) -> Self {
                id.clone()
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> Self {
                id.into_string()
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl ::std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                &*self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                &*self.0 == *other
            }
        }
    };
}

#[cfg_attr(not(feature = "a2ui"), allow(unused_imports))]
pub(crate) use id_type;

/// Reads an id from a JSON string with one allocation, borrowed or not.
pub(crate) struct IdVisitor;

impl Visitor<'_> for IdVisitor {
    type Value = Arc<str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Arc::from(v))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Arc::from(v))
    }
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
