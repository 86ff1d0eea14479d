//! The macros that generate the event structs and the [`Event`](super::Event)/[`EventType`](super::EventType) pair.

macro_rules! event_struct {
    (
        $(#[$doc:meta])*
        $name:ident {
            required { $( $(#[$rattr:meta])* $rfield:ident : $rty:ty $(as $rread:ty)? ),* $(,)? }
            fixed { $( $(#[$fattr:meta])* $ffield:ident : $fty:ty ),* $(,)? }
            optional { $( $(#[$oattr:meta])* $osetter:ident $ofield:ident : $oty:ty ),* $(,)? }
            lenient { $( $(#[$lattr:meta])* $lsetter:ident $lfield:ident : $lty:ty $(as $lread:ty)? ),* $(,)? }
        }
    ) => {
        $(#[$doc])*
        ///
        /// Reading it (`Deserialize`): required fields must be present, an optional field may not
        /// be `null` (a lenient one reads `null` as absent), and a member the struct does not
        /// describe is skipped.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(rename_all = "camelCase")]
        #[non_exhaustive]
        pub struct $name {
            $( $(#[$rattr])* pub $rfield: $rty, )*
            $( $(#[$fattr])* pub $ffield: $fty, )*
            $(
                $(#[$oattr])*
                #[serde(skip_serializing_if = "Option::is_none")]
                pub $ofield: Option<$oty>,
            )*
            $(
                $(#[$lattr])*
                #[serde(skip_serializing_if = "Option::is_none")]
                pub $lfield: Option<$lty>,
            )*
            /// When the event was created, in milliseconds since the Unix epoch by convention.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub timestamp: Option<i64>,
            /// The provider-native event this one was derived from. A legacy `null` reads as
            /// absent. Boxed: it is rare, and every event is moved through the pipeline.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub raw_event: Option<Box<Value>>,
            /// Open-by-key extra information; never `null` itself. Boxed, as `raw_event`.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub metadata: Option<Box<Metadata>>,
        }

        read_fields! {
            $name, rest = $crate::event::read::Common => (timestamp, raw_event, metadata),
            required {
                $( $rfield: $rty $(as $rread)?, )*
                $( $ffield: $fty, )*
            }
            optional {
                $( $ofield: $oty, )*
            }
            lenient {
                $( $lfield: $lty $(as $lread)?, )*
            }
            defaulted {}
        }

        impl $name {
            /// The event with its required fields set and every optional field absent.
            #[allow(clippy::new_without_default)]
            pub fn new($( $rfield: impl Into<$rty> ),*) -> Self {
                Self {
                    $( $rfield: $rfield.into(), )*
                    $( $ffield: <$fty>::default(), )*
                    $( $ofield: None, )*
                    $( $lfield: None, )*
                    timestamp: None,
                    raw_event: None,
                    metadata: None,
                }
            }

            $(
                #[doc = concat!("Sets `", stringify!($ofield), "`.")]
                #[must_use]
                pub fn $osetter(mut self, value: impl Into<$oty>) -> Self {
                    self.$ofield = Some(value.into());
                    self
                }
            )*
            $(
                #[doc = concat!("Sets `", stringify!($lfield), "`.")]
                #[must_use]
                pub fn $lsetter(mut self, value: impl Into<$lty>) -> Self {
                    self.$lfield = Some(value.into());
                    self
                }
            )*

            /// Sets the timestamp.
            #[must_use]
            pub fn with_timestamp(mut self, timestamp: i64) -> Self {
                self.timestamp = Some(timestamp);
                self
            }

            /// Sets the provider-native event this one was derived from.
            #[must_use]
            pub fn with_raw_event(mut self, raw_event: Value) -> Self {
                self.raw_event = Some(Box::new(raw_event));
                self
            }

            /// Sets the metadata.
            #[must_use]
            pub fn with_metadata(mut self, metadata: Metadata) -> Self {
                self.metadata = Some(Box::new(metadata));
                self
            }
        }
    };
}

/// The payload type of a variant of [`Event`]: the struct, or a box of it.
macro_rules! payload {
    (inline $ty:ident) => { $ty };
    (boxed $ty:ident) => { Box<$ty> };
}

/// Wraps an event struct as the payload of its variant.
macro_rules! wrap {
    (inline $e:expr) => {
        $e
    };
    (boxed $e:expr) => {
        Box::new($e)
    };
}

/// The attribution of a payload `$e`, by the `attributed` flag of its variant: a `true` flag
/// requires the struct to have an `Option<SubagentRunId>` field `subagent_run_id`, so the flag
/// cannot claim an attribution the struct does not carry.
macro_rules! attribution {
    (true, ref $e:ident) => {
        $e.subagent_run_id.as_ref()
    };
    (true, mut $e:ident) => {
        Some(&mut $e.subagent_run_id)
    };
    (false, $how:tt $e:ident) => {{
        let _ = $e;
        None
    }};
}

macro_rules! events {
    ($( $(#[$doc:meta])* $variant:ident($store:ident $ty:ident) = $wire:literal, attributed = $attr:tt; )*) => {
        /// One AG-UI event. Serializes as a JSON object whose `type` names the variant.
        ///
        /// Build events with the constructors ([`Event::text_message_start`], …) or from the
        /// per-event structs (`TextMessageStartEvent::new(..).into()`); read them with
        /// [`Event::from_json`] and friends, which report what was wrong as a
        /// [`DecodeError`](crate::DecodeError).
        ///
        /// The six large, rare events (`RUN_FINISHED`, `ACTIVITY_SNAPSHOT`, `RAW`, `CUSTOM`,
        /// `SUBAGENT_STARTED`, `SUBAGENT_FINISHED`) are boxed, so that an `Event` is 128 bytes
        /// and a stream of content events moves and reads as little memory as possible.
        /// Matching is unchanged (`Event::RunFinished(e) => e.outcome`); build them with
        /// `.into()` or the constructors.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(tag = "type")]
        #[non_exhaustive]
        pub enum Event {
            $( $(#[$doc])* #[serde(rename = $wire)] $variant(payload!($store $ty)), )*
        }

        /// The `type` of an event, without its payload.
        ///
        /// ```
        /// use ag_ui::EventType;
        ///
        /// let t: EventType = "TOOL_CALL_START".parse().unwrap();
        /// assert_eq!(t, EventType::ToolCallStart);
        /// assert_eq!(t.as_str(), "TOOL_CALL_START");
        /// assert!("THINKING_START".parse::<EventType>().is_err());
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum EventType {
            $( $(#[$doc])* $variant, )*
        }

        impl EventType {
            /// All 31 event types, in catalogue order.
            pub const ALL: &'static [EventType] = &[ $( EventType::$variant, )* ];

            /// The wire name (`"TEXT_MESSAGE_START"`, …).
            pub fn as_str(self) -> &'static str {
                match self {
                    $( EventType::$variant => $wire, )*
                }
            }

            /// Whether events of this type may carry the `subagentRunId` attribution.
            pub fn is_attributable(self) -> bool {
                match self {
                    $( EventType::$variant => $attr, )*
                }
            }
        }

        impl FromStr for EventType {
            type Err = UnknownEventType;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $( $wire => Ok(EventType::$variant), )*
                    _ => Err(UnknownEventType(s.to_owned())),
                }
            }
        }

        $(
            impl From<$ty> for Event {
                fn from(event: $ty) -> Self {
                    Event::$variant(wrap!($store event))
                }
            }
        )*

        impl Event {
            /// The event's type.
            pub fn event_type(&self) -> EventType {
                match self {
                    $( Event::$variant(_) => EventType::$variant, )*
                }
            }

            /// Deserializes the payload of an event of type `ty` (the `type` key is ignored); a
            /// member the struct does not declare is recorded when a collector is installed
            /// (`decode::strip`).
            ///
            /// One visitor reads the object of every event type, handing its members to the
            /// struct's reader (`read_members`): the reading of the object around them is in
            /// the code once, not once per event type (issue 40, the browser module).
            #[inline]
            pub(crate) fn deserialize_as<'de, D: Deserializer<'de>>(
                ty: EventType,
                d: D,
            ) -> Result<Event, D::Error> {
                struct Members(EventType);

                impl<'de> serde::de::Visitor<'de> for Members {
                    type Value = Event;

                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str(match self.0 {
                            $( EventType::$variant => <$ty>::EXPECTING, )*
                        })
                    }

                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        map: A,
                    ) -> Result<Event, A::Error> {
                        match self.0 {
                            $( EventType::$variant => <$ty>::read_members(map).map(Event::from), )*
                        }
                    }
                }

                d.deserialize_map(Members(ty))
            }

            /// The event's timestamp, if any.
            pub fn timestamp(&self) -> Option<i64> {
                match self {
                    $( Event::$variant(e) => e.timestamp, )*
                }
            }

            /// The provider-native event this one was derived from, if any.
            pub fn raw_event(&self) -> Option<&Value> {
                match self {
                    $( Event::$variant(e) => e.raw_event.as_deref(), )*
                }
            }

            /// The event's metadata, if any.
            pub fn metadata(&self) -> Option<&Metadata> {
                match self {
                    $( Event::$variant(e) => e.metadata.as_deref(), )*
                }
            }

            /// The attribution slot (`subagentRunId`) of the 24 attributable events; `None` for
            /// the run lifecycle events, `MESSAGES_SNAPSHOT` and the `SUBAGENT_*` events (whose
            /// `subagentRunId` is an identity, see [`Event::subagent_run_id`]).
            pub fn attribution_mut(&mut self) -> Option<&mut Option<SubagentRunId>> {
                match self {
                    $( Event::$variant(e) => attribution!($attr, mut e), )*
                }
            }

            /// The subagent invocation that produced this event (`None` means the parent agent,
            /// or an event that cannot be attributed). Not the identity of a `SUBAGENT_*` event.
            pub fn attribution(&self) -> Option<&SubagentRunId> {
                match self {
                    $( Event::$variant(e) => attribution!($attr, ref e), )*
                }
            }

            /// Mutable access to the timestamp.
            pub fn timestamp_mut(&mut self) -> &mut Option<i64> {
                match self {
                    $( Event::$variant(e) => &mut e.timestamp, )*
                }
            }

            /// Mutable access to the raw event.
            pub fn raw_event_mut(&mut self) -> &mut Option<Box<Value>> {
                match self {
                    $( Event::$variant(e) => &mut e.raw_event, )*
                }
            }

            /// Mutable access to the metadata.
            pub fn metadata_mut(&mut self) -> &mut Option<Box<Metadata>> {
                match self {
                    $( Event::$variant(e) => &mut e.metadata, )*
                }
            }
        }
    };
}
