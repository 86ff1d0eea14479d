//! `RUN_FINISHED`: the run's outcome, pending interrupts and pending tool calls.

use super::*;

impl Reducer {
    pub(super) fn run_finished(&mut self, e: &RunFinishedEvent) {
        let outcome = match &e.outcome {
            Some(RunFinishedOutcome::Interrupt { interrupts }) => RunOutcome::Interrupt {
                interrupts: interrupts.clone(),
            },
            Some(RunFinishedOutcome::Cancelled) => RunOutcome::Cancelled,
            other => {
                let listed = match other {
                    Some(RunFinishedOutcome::Success {
                        pending_tool_call_ids: Some(ids),
                    }) if !ids.is_empty() => Some(ids.clone()),
                    _ => None,
                };
                let pending = listed.unwrap_or_else(|| {
                    self.run_tool_call_ids
                        .iter()
                        .filter(|id| !self.answered.contains(*id))
                        .cloned()
                        .collect()
                });
                if e.result.is_some() {
                    self.result.clone_from(&e.result);
                }
                RunOutcome::Success {
                    result: e.result.clone(),
                    pending_tool_call_ids: pending,
                }
            }
        };
        self.pending_interrupts = match &outcome {
            RunOutcome::Interrupt { interrupts } => interrupts.clone(),
            _ => Vec::new(),
        };
        self.outcome = Some(outcome);
    }
}
