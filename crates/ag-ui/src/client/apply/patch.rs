//! The one place a JSON Patch is applied under the [`Limits`]: the reducer's state and activity
//! contents, and compaction's state windows.

use json_patch::{PatchError, PatchOperation};
use serde_json::{Map, Value};

use super::limits::{Bounds, measure, op_shifts, patch_bounds, patch_shifts};
use super::{LimitExceeded, LimitKind, Limits};

/// Which document a snapshot or patch is for: it names the limit exceeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Document {
    /// The state.
    State,
    /// An activity message's content.
    Activity,
}

impl Document {
    fn bytes(self) -> LimitKind {
        match self {
            Document::State => LimitKind::StateBytes,
            Document::Activity => LimitKind::ActivityBytes,
        }
    }

    fn depth(self) -> LimitKind {
        match self {
            Document::State => LimitKind::StateDepth,
            Document::Activity => LimitKind::ActivityDepth,
        }
    }
}

/// Checks a whole document (a snapshot's) against the size and depth limits; returns its bounds.
pub(crate) fn check_document(
    value: &Value,
    limits: &Limits,
    document: Document,
) -> Result<Bounds, LimitExceeded> {
    let bounds = measure(value, limits.max_document_bytes, limits.max_depth);
    check_bounds(bounds, limits, document)
}

/// [`check_document`] for an object held as a map (an activity's content).
pub(crate) fn check_object(
    object: &Map<String, Value>,
    limits: &Limits,
    document: Document,
) -> Result<Bounds, LimitExceeded> {
    let (max_bytes, max_depth) = (limits.max_document_bytes, limits.max_depth);
    let mut bounds = Bounds { bytes: 2, depth: 1 };
    for (key, value) in object {
        let inner = measure(
            value,
            max_bytes.saturating_sub(bounds.bytes),
            max_depth.saturating_sub(1),
        );
        bounds.bytes = bounds.bytes.saturating_add(key.len() + 4 + inner.bytes);
        bounds.depth = bounds.depth.max(inner.depth.saturating_add(1));
        if bounds.bytes > max_bytes || bounds.depth > max_depth {
            break;
        }
    }
    check_bounds(bounds, limits, document)
}

fn check_bounds(
    bounds: Bounds,
    limits: &Limits,
    document: Document,
) -> Result<Bounds, LimitExceeded> {
    LimitExceeded::check(document.bytes(), bounds.bytes, limits.max_document_bytes)?;
    LimitExceeded::check(document.depth(), bounds.depth, limits.max_depth)?;
    Ok(bounds)
}

/// What a patch within the limits did.
#[derive(Debug)]
pub(crate) enum Patched {
    /// Applied; the document's bounds now.
    Applied(Bounds),
    /// It failed as a whole and the document is unchanged; its bounds.
    Failed(Bounds, PatchError),
}

/// Applies `ops` to `doc` all or nothing, within the limits: a patch that would make the
/// document too large or too deep, or shift too many array items (in this event, or with the
/// `run_shifts` the run's earlier patches shifted), is refused before anything changes.
/// `estimate` is what is known of the document's bounds (`None`: it is measured). The items the
/// patch shifts (an upper bound when it failed) are added to `run_shifts`.
///
/// # Errors
/// The limit the patch would exceed; `doc` and `run_shifts` are unchanged.
pub(crate) fn patch_bounded(
    doc: &mut Value,
    ops: &[PatchOperation],
    limits: &Limits,
    estimate: Option<Bounds>,
    document: Document,
    run_shifts: &mut usize,
) -> Result<Patched, LimitExceeded> {
    let (before, after) = check_patch(limits, doc, ops, estimate, document)?;
    let max_shifts = limits.max_array_shifts;
    let max_run = limits.max_run_array_shifts;
    let already = *run_shifts;
    let run_left = max_run.saturating_sub(already);
    let check_shifts = |shifted: usize| {
        LimitExceeded::check(LimitKind::ArrayShifts, shifted, max_shifts)?;
        LimitExceeded::check(
            LimitKind::RunArrayShifts,
            already.saturating_add(shifted),
            max_run,
        )
    };
    let (bound, exact) = patch_shifts(doc, ops, after.bytes, max_shifts.min(run_left));
    if exact || bound <= max_shifts.min(run_left) {
        check_shifts(bound)?;
        *run_shifts = run_shifts.saturating_add(bound);
        return Ok(match patch_atomically(doc, ops) {
            Ok(()) => Patched::Applied(after),
            Err(err) => Patched::Failed(before, err),
        });
    }
    // The bound may be far off (an array an earlier operation replaced, items an earlier one
    // removed): the shifts are counted as they happen, on a copy.
    let mut copy = doc.clone();
    let mut shifted = 0usize;
    for (i, op) in ops.iter().enumerate() {
        shifted = shifted.saturating_add(op_shifts(&copy, op));
        check_shifts(shifted)?;
        if let Err(mut err) = json_patch::patch_unsafe(&mut copy, std::slice::from_ref(op)) {
            err.operation = i;
            *run_shifts = run_shifts.saturating_add(shifted);
            return Ok(Patched::Failed(before, err));
        }
    }
    *doc = copy;
    *run_shifts = run_shifts.saturating_add(shifted);
    Ok(Patched::Applied(after))
}

/// Checks a patch of `doc` against the size and depth limits before it is applied. `estimate`
/// is an upper bound of the document's size and depth if one is known; when it is stale enough
/// to refuse, the document is measured before refusing. Returns the bounds used and the bounds
/// after the patch.
fn check_patch(
    limits: &Limits,
    doc: &Value,
    ops: &[PatchOperation],
    estimate: Option<Bounds>,
    document: Document,
) -> Result<(Bounds, Bounds), LimitExceeded> {
    let (max_size, max_growth, max_depth) = (
        limits.max_document_bytes,
        limits.max_growth_bytes,
        limits.max_depth,
    );
    let (mut before, mut measured) = match estimate {
        Some(bounds) => (bounds, false),
        None => (measure(doc, max_size, max_depth), true),
    };
    loop {
        let budget = max_growth.min(max_size.saturating_sub(before.bytes));
        let (growth, depth) = patch_bounds(doc, ops, before, budget, max_depth, measured);
        if growth <= budget && depth <= max_depth {
            let after = Bounds {
                bytes: before.bytes + growth,
                depth,
            };
            return Ok((before, after));
        }
        if !measured {
            // The estimate only grows; what the document really holds may leave room.
            before = measure(doc, max_size, max_depth);
            measured = true;
            continue;
        }
        return Err(if growth > max_growth {
            LimitExceeded::new(LimitKind::GrowthBytes, growth, max_growth)
        } else if growth > budget {
            LimitExceeded::new(
                document.bytes(),
                before.bytes.saturating_add(growth),
                max_size,
            )
        } else {
            LimitExceeded::new(document.depth(), depth, max_depth)
        });
    }
}

/// Applies `ops` to `doc` all or nothing.
///
/// `json_patch::patch` undoes a failed patch in place, but its undo of a `move` can itself
/// fail, and then it panics (found by the `reducer` fuzz target: a `move` whose target path
/// does not exist, after a `copy`). A patch with a `move` is therefore applied to a copy that
/// replaces the document only when every operation succeeded; the others, by far the common
/// case, are patched in place without a copy.
fn patch_atomically(doc: &mut Value, ops: &[PatchOperation]) -> Result<(), PatchError> {
    if !ops.iter().any(|op| matches!(op, PatchOperation::Move(_))) {
        return json_patch::patch(doc, ops);
    }
    let mut copy = doc.clone();
    json_patch::patch_unsafe(&mut copy, ops)?;
    *doc = copy;
    Ok(())
}
