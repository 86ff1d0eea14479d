//! `MESSAGES_SNAPSHOT`, `ACTIVITY_SNAPSHOT` and `ACTIVITY_DELTA`: replacing messages and activities.

use super::*;

impl Reducer {
    pub(super) fn messages_snapshot(&mut self, e: &MessagesSnapshotEvent) -> Applied {
        let snapshot = &e.messages;
        // Last snapshot message per id wins for replacement (as a JS Map built from the list).
        let mut by_id: HashMap<&MessageId, &Message> = HashMap::with_capacity(snapshot.len());
        let mut has_activity = false;
        let mut has_reasoning = false;
        for message in snapshot {
            by_id.insert(message.id(), message);
            has_activity |= message.role() == Role::Activity;
            has_reasoning |= message.role() == Role::Reasoning;
        }
        let authority = activity_authority(e.metadata.as_deref());
        let keep_local = |message: &Message| match message {
            Message::Activity(a) => match &authority {
                Authority::Legacy => !has_activity,
                Authority::All => false,
                Authority::Types(types) => !types.iter().any(|t| *t == a.activity_type),
            },
            Message::Reasoning(_) => !has_reasoning,
            _ => false,
        };
        let old = std::mem::take(&mut self.messages).into_vec();
        let mut next = Vec::with_capacity(old.len().max(snapshot.len()));
        let mut present: HashSet<MessageId> = HashSet::with_capacity(old.len());
        for message in old {
            if let Some(replacement) = by_id.get(message.id()) {
                present.insert(message.id().clone());
                next.push((*replacement).clone());
            } else if keep_local(&message) {
                present.insert(message.id().clone());
                next.push(message);
            }
        }
        for message in snapshot {
            if !present.contains(message.id()) {
                next.push(message.clone());
            }
        }
        self.messages = Store::from_vec(next);
        self.reindex();
        self.partial_args.clear();
        self.activity_sizes.clear();
        Applied::messages(MessagesChange::Replaced)
    }

    pub(super) fn activity_snapshot(
        &mut self,
        e: &ActivitySnapshotEvent,
    ) -> Result<Applied, LimitExceeded> {
        let size = check_object(&e.content, &self.limits, Document::Activity)?;
        let replace = e.replace.unwrap_or(true);
        let fresh = || {
            let mut m = ActivityMessage::new(
                e.message_id.clone(),
                e.activity_type.clone(),
                e.content.clone(),
            );
            m.subagent_run_id = e.subagent_run_id.clone();
            m
        };
        let (key, change, created) = match self.ix.message(&e.message_id) {
            None => {
                let k = self.push(Message::Activity(fresh()));
                (
                    Some(k),
                    MessagesChange::Appended(self.messages.position(k)),
                    true,
                )
            }
            Some(k) => {
                let position = self.messages.position(k);
                match self.messages.by_key_mut(k) {
                    Message::Activity(existing) => {
                        if replace {
                            existing.activity_type.clone_from(&e.activity_type);
                            existing.content.clone_from(&e.content);
                            existing.subagent_run_id.clone_from(&e.subagent_run_id);
                        }
                        (Some(k), MessagesChange::Updated(position), false)
                    }
                    _ if replace => {
                        // The message changes role: the store keeps count of tool messages.
                        self.messages.replace(k, Message::Activity(fresh()));
                        (Some(k), MessagesChange::Updated(position), true)
                    }
                    _ => (None, MessagesChange::Updated(position), false),
                }
            }
        };
        let position = key.map(|k| self.messages.position(k));
        if let Some(k) = key {
            merge_metadata(
                self.messages.by_key_mut(k).metadata_mut(),
                e.metadata.as_deref(),
            );
            if created || replace {
                self.activity_sizes.insert(e.message_id.clone(), size);
            }
        }
        Ok(Applied {
            new_message: position.filter(|_| created),
            ..Applied::messages(change)
        })
    }

    pub(super) fn activity_delta(
        &mut self,
        e: &ActivityDeltaEvent,
    ) -> Result<Applied, LimitExceeded> {
        let Some(k) = self.ix.message(&e.message_id) else {
            return Ok(Applied::none());
        };
        let p = self.messages.position(k);
        let Message::Activity(activity) = self.messages.by_key_mut(k) else {
            return Ok(Applied {
                warning: Some(warn(
                    ApplyWarningKind::NotActivity,
                    format!(
                        "message {:?} is not an activity message",
                        e.message_id.as_str()
                    ),
                )),
                ..Applied::none()
            });
        };
        // Patched in place (the patch is undone as a whole if it fails); only a patch that
        // replaces the whole content, and so may make it a non-object, needs the old one kept.
        let mut content = Value::Object(std::mem::take(&mut activity.content));
        let estimate = self.activity_sizes.get(&e.message_id).copied();
        let kept = e
            .patch
            .iter()
            .any(|op| op.path().as_str().is_empty())
            .then(|| content.clone());
        let patched = match patch_bounded(
            &mut content,
            &e.patch,
            &self.limits,
            estimate,
            Document::Activity,
            &mut self.run_shifts,
        ) {
            Ok(patched) => patched,
            Err(limit) => {
                if let Value::Object(object) = content {
                    activity.content = object;
                }
                return Err(limit);
            }
        };
        let merged = merge_metadata(&mut activity.metadata, e.metadata.as_deref());
        let (size, failure) = match patched {
            Patched::Applied(bounds) => match content {
                Value::Object(object) => {
                    activity.content = object;
                    activity.activity_type.clone_from(&e.activity_type);
                    self.activity_sizes.insert(e.message_id.clone(), bounds);
                    return Ok(Applied::messages(MessagesChange::Updated(p)));
                }
                other => {
                    if let Some(Value::Object(object)) = kept {
                        activity.content = object;
                    }
                    // Measured again when next needed.
                    (
                        None,
                        format!("the patch would make the content {other}, not an object"),
                    )
                }
            },
            Patched::Failed(bounds, err) => {
                if let Value::Object(object) = content {
                    activity.content = object;
                }
                (Some(bounds), err.to_string())
            }
        };
        match size {
            Some(bounds) => self.activity_sizes.insert(e.message_id.clone(), bounds),
            None => self.activity_sizes.remove(&e.message_id),
        };
        Ok(Applied {
            warning: Some(warn(
                ApplyWarningKind::ActivityPatchFailed,
                format!(
                    "activity patch for {:?} failed, content unchanged: {}",
                    crate::excerpt(e.message_id.as_str(), crate::EXCERPT_BYTES),
                    crate::excerpt(&failure.to_string(), 4 * crate::EXCERPT_BYTES)
                ),
            )),
            ..Applied::updated_if(merged, p)
        })
    }
}
