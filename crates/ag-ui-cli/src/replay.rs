//! `ag-ui serve --replay FILE`: a recorded stream served as an agent, so a frontend can be
//! tested against a recording with no model and no cost.
//!
//! The recording is read once, in any format the CLI reads (JSON Lines, a JSON array, SSE). Each
//! request gets the recorded events, in order, optionally paced, with the run's ids rewritten to
//! the request's: every `threadId` becomes the request's thread, the first recorded run id the
//! request's run id and any later one `<run id>-2`, `-3`, … (a `parentRunId` follows the same
//! map), so the client sees a run that answers the request it sent. The events are shared
//! between requests; each request copies one event at a time as it streams.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use ag_ui::axum::{EventStream, RunHandler, StartError};
use ag_ui::{Event, RunAgentInput, RunId};

use crate::failure::Failure;
use crate::input::{self, InputError};

/// A recording served as an agent.
#[derive(Clone, Debug)]
pub(crate) struct Replayed {
    events: Arc<[Event]>,
    pace: Duration,
}

impl Replayed {
    /// Reads the recording at `path` (`-` for standard input).
    pub(crate) fn read(path: &str, pace: Duration) -> Result<Self, Failure> {
        let reader = input::open(Some(path)).map_err(Failure::Input)?;
        let mut events = Vec::new();
        input::for_each_event(reader, |positioned| {
            events.push(positioned.event);
            Ok::<(), InputError>(())
        })
        .map_err(Failure::Input)?;
        if events.is_empty() {
            return Err(Failure::NothingKnown);
        }
        Ok(Self::new(events, pace))
    }

    pub(crate) fn new(events: Vec<Event>, pace: Duration) -> Self {
        Self {
            events: events.into(),
            pace,
        }
    }

    /// How many events each run replays.
    pub(crate) fn len(&self) -> usize {
        self.events.len()
    }
}

/// Maps the recorded run ids to the request's, in order of appearance.
struct Ids {
    thread: ag_ui::ThreadId,
    run: RunId,
    runs: HashMap<String, RunId>,
}

impl Ids {
    fn run(&mut self, recorded: &RunId) -> RunId {
        let next = self.runs.len() + 1;
        self.runs
            .entry(recorded.as_str().to_owned())
            .or_insert_with(|| {
                if next == 1 {
                    self.run.clone()
                } else {
                    RunId::new(format!("{}-{next}", self.run))
                }
            })
            .clone()
    }

    fn rewrite(&mut self, mut event: Event) -> Event {
        match &mut event {
            Event::RunStarted(e) => {
                e.thread_id = self.thread.clone();
                e.run_id = self.run(&e.run_id);
                if let Some(parent) = &e.parent_run_id
                    && self.runs.contains_key(parent.as_str())
                {
                    e.parent_run_id = Some(self.run(parent));
                }
                if let Some(input) = &mut e.input {
                    input.thread_id = e.thread_id.clone();
                    input.run_id = e.run_id.clone();
                }
            }
            Event::RunFinished(e) => {
                e.thread_id = self.thread.clone();
                e.run_id = self.run(&e.run_id);
            }
            _ => {}
        }
        event
    }
}

impl RunHandler for Replayed {
    fn run(&self, input: RunAgentInput) -> Result<EventStream, StartError> {
        let ids = Ids {
            thread: input.thread_id,
            run: input.run_id,
            runs: HashMap::new(),
        };
        let state = (Arc::clone(&self.events), 0_usize, ids, self.pace);
        Ok(Box::pin(futures::stream::unfold(
            state,
            |(events, next, mut ids, pace)| async move {
                let event = events.get(next)?.clone();
                if next > 0 && !pace.is_zero() {
                    tokio::time::sleep(pace).await;
                }
                let event = ids.rewrite(event);
                Some((event, (events, next + 1, ids, pace)))
            },
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;

    #[tokio::test]
    async fn each_run_gets_the_requests_ids_and_later_runs_follow_them() {
        let parent: Event = ag_ui::RunStartedEvent::new("rec-thread", "rec-2")
            .with_parent_run_id("rec-1")
            .into();
        let replay = Replayed::new(
            vec![
                Event::run_started("rec-thread", "rec-1"),
                Event::text_message_start("m", ag_ui::TextMessageRole::Assistant),
                Event::text_message_end("m"),
                Event::run_finished("rec-thread", "rec-1"),
                parent,
                Event::run_finished("rec-thread", "rec-2"),
            ],
            Duration::ZERO,
        );
        for (thread, run) in [("t1", "r1"), ("t2", "r2")] {
            let events: Vec<Event> = replay
                .run(RunAgentInput::new(thread, run))
                .unwrap()
                .collect()
                .await;
            assert_eq!(events.len(), 6);
            let ids: Vec<_> = events
                .iter()
                .filter_map(|e| match e {
                    Event::RunStarted(e) => Some((
                        e.thread_id.to_string(),
                        e.run_id.to_string(),
                        e.parent_run_id.as_ref().map(|p| p.to_string()),
                    )),
                    Event::RunFinished(e) => {
                        Some((e.thread_id.to_string(), e.run_id.to_string(), None))
                    }
                    _ => None,
                })
                .collect();
            let second = format!("{run}-2");
            assert_eq!(
                ids,
                [
                    (thread.to_owned(), run.to_owned(), None),
                    (thread.to_owned(), run.to_owned(), None),
                    (thread.to_owned(), second.clone(), Some(run.to_owned())),
                    (thread.to_owned(), second, None),
                ]
            );
        }
    }

    #[tokio::test]
    async fn pacing_waits_between_events() {
        let replay = Replayed::new(
            vec![Event::run_started("t", "r"), Event::run_finished("t", "r")],
            Duration::from_millis(60),
        );
        let started = std::time::Instant::now();
        let events: Vec<Event> = replay
            .run(RunAgentInput::new("t", "r"))
            .unwrap()
            .collect()
            .await;
        assert_eq!(events.len(), 2);
        assert!(started.elapsed() >= Duration::from_millis(60));
    }
}
