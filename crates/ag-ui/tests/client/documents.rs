//! Hostile state documents through the reducer, the pipeline and compaction: a state nested one
//! level per event (small events, a deep document), front removes on a long array, the copy
//! bomb. Each is refused with a typed error naming the event, the state unchanged, at the event
//! where its limit is reached (the work is bounded by what the limits count, asserted here, not
//! by a clock: times on a shared machine prove nothing); what the limits let through is safe to
//! clone, serialize, compare and drop on a small stack.

use ag_ui::client::Pipeline;
use ag_ui::client::{ApplyErrorKind, LimitKind, Limits, Reducer};
use ag_ui::client::{Compactor, compact};
use ag_ui::verify::Verifier;
use ag_ui::{Event, EventType};
use serde_json::{Value, json};

use crate::support::hostile::{depth, front_removes, long_array, nesting_deltas, nesting_seed};

/// Runs `f` on a thread with a stack of `kib` KiB: a document the limits let through must be
/// safe far below the 2 MiB of a test or tokio worker thread and the 8 MiB of a main thread.
fn on_small_stack<T: Send + 'static>(kib: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(kib * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .expect("no stack overflow, no panic")
}

#[test]
fn nesting_stops_at_the_depth_limit_with_the_state_unchanged() {
    let mut reducer = Reducer::new();
    reducer.apply(&nesting_seed()).unwrap();
    let max = Limits::new().max_depth;
    let mut refused = None;
    // The reproduction: 20,000 levels (each event nests one level deeper).
    for event in nesting_deltas(20_000) {
        let before = reducer.state().clone();
        match reducer.apply(&event) {
            Ok(applied) => assert!(applied.warning.is_none()),
            Err(err) => {
                assert_eq!(err.kind(), ApplyErrorKind::Limit);
                assert_eq!(err.event_type(), EventType::StateDelta);
                let limit = err.limit().unwrap();
                assert_eq!((limit.kind, limit.max), (LimitKind::StateDepth, max));
                assert_eq!(reducer.state(), &before, "a refused event changes nothing");
                refused.get_or_insert(err);
            }
        }
    }
    let first = refused.expect("the nesting is refused");
    // `{"a": {}}` is 2 levels deep and each event adds one: event N makes N + 2.
    assert_eq!(first.index(), (max - 1) as u64);
    assert!(
        first
            .to_string()
            .contains("max-state-depth exceeded: 101 levels deep, over the limit of 100"),
        "{first}"
    );
    assert_eq!(depth(reducer.state()), max);
}

#[test]
fn the_pipeline_refuses_the_nesting_as_an_apply_error() {
    let mut sse = Vec::new();
    let lines = std::iter::once(Event::run_started("t", "r"))
        .chain(std::iter::once(nesting_seed()))
        .chain(nesting_deltas(20_000));
    for event in lines {
        sse.extend_from_slice(b"data: ");
        sse.extend_from_slice(serde_json::to_string(&event).unwrap().as_bytes());
        sse.extend_from_slice(b"\n\n");
    }
    let mut pipeline = Pipeline::new(Reducer::new());
    let err = pipeline.push_bytes(&sse, &mut ()).unwrap_err();
    let Some(err) = err.apply() else {
        panic!("not an apply error: {err}");
    };
    assert_eq!(err.limit().unwrap().kind, LimitKind::StateDepth);
    assert_eq!(err.index(), 100);
    assert_eq!(depth(pipeline.reducer().state()), 100);
}

#[test]
fn a_state_at_the_depth_limit_is_safe_on_a_small_stack_and_one_over_is_refused() {
    let max = Limits::new().max_depth;
    let line = on_small_stack(256, move || {
        let mut reducer = Reducer::new();
        reducer.apply(&nesting_seed()).unwrap();
        for event in nesting_deltas(max - 2) {
            reducer.apply(&event).unwrap();
        }
        assert_eq!(depth(reducer.state()), max);
        let over = nesting_deltas(1).next().unwrap();
        assert!(reducer.clone().apply(&over).is_err());
        // A snapshot one level over is refused too (built here, not parsed: parsing stops at
        // 128 levels).
        let deeper = json!([reducer.state().clone()]);
        let err = reducer
            .clone()
            .apply(&Event::state_snapshot(deeper))
            .unwrap_err();
        assert_eq!(err.limit().unwrap().kind, LimitKind::StateDepth);

        // What is done with a state: clone, serialize, compare, diff, compact, drop.
        let state = reducer.state().clone();
        assert_eq!(&state, reducer.state());
        let line = serde_json::to_string(&Event::state_snapshot(state.clone())).unwrap();
        assert_eq!(json_patch::diff(&Value::Null, &state).0.len(), 1);
        let events: Vec<Event> = std::iter::once(nesting_seed())
            .chain(nesting_deltas(max - 2))
            .collect();
        assert_eq!(compact(&events).unwrap(), [Event::state_snapshot(state)]);
        drop(reducer);
        line
    });
    // Read back inside its event and verified: serde_json's parser (which stops at 128 levels
    // whatever the limit) takes about 2.5 KiB a level in a debug build.
    on_small_stack(512, move || {
        let read: Event = serde_json::from_str(&line).unwrap();
        let Event::StateSnapshot(snapshot) = &read else {
            panic!("{read:?}")
        };
        assert_eq!(depth(&snapshot.snapshot), max);
        let mut verifier = Verifier::new();
        verifier
            .check_json(b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}")
            .unwrap();
        verifier.check_json(line.as_bytes()).unwrap();
    });
}

#[test]
fn front_removes_on_a_long_array_are_refused_in_bounded_time() {
    let mut reducer = Reducer::new();
    reducer.apply(&long_array(100_000)).unwrap();
    let before = reducer.state().clone();
    let err = reducer.apply(&front_removes(100_000)).unwrap_err();
    let limit = err.limit().unwrap();
    assert_eq!(
        (err.index(), limit.kind, limit.max),
        (1, LimitKind::ArrayShifts, Limits::new().max_array_shifts)
    );
    assert!(err.to_string().contains("array items shifted"), "{err}");
    assert_eq!(reducer.state(), &before);
    // Within the limit, they apply (and exactly as RFC 6902 says).
    reducer.apply(&front_removes(10)).unwrap();
    assert_eq!(reducer.state()["a"].as_array().unwrap().len(), 99_990);
    assert_eq!(reducer.state()["a"][0], json!(10));
}

#[test]
fn front_removes_one_per_event_are_refused_by_the_run_budget() {
    // 100,000 `remove /a/0` on a 100,000-item array, one per event: each event is far within
    // the per-event limit, the run's total (about 5·10⁹ shifts) is not.
    let mut reducer = Reducer::new();
    reducer.apply(&Event::run_started("t", "r")).unwrap();
    reducer.apply(&long_array(100_000)).unwrap();
    let one = front_removes(1);
    let err = (0..100_000)
        .find_map(|_| reducer.apply(&one).err())
        .expect("refused before the array is empty");
    let limit = err.limit().unwrap();
    let max = Limits::new().max_run_array_shifts;
    assert_eq!(
        (err.event_type(), limit.kind, limit.max),
        (EventType::StateDelta, LimitKind::RunArrayShifts, max)
    );
    assert!(limit.size > max, "{limit}");
    assert!(err.to_string().contains("max-run-array-shifts"), "{err}");
    // Refused at the event whose shifts pass the budget (each shifts what is left), the state
    // as the events before it left it.
    let applied = usize::try_from(err.index()).unwrap() - 2;
    let shifted: usize = (0..applied).map(|k| 100_000 - k).sum();
    assert!(
        shifted <= max && shifted + 100_000 - applied > max,
        "{applied}"
    );
    assert_eq!(
        reducer.state()["a"].as_array().unwrap().len(),
        100_000 - applied
    );
    // A new run starts a new count.
    reducer.apply(&Event::run_started("t", "r2")).unwrap();
    reducer.apply(&one).unwrap();
}

#[test]
fn many_small_array_edits_fit_the_run_budget() {
    // An ordinary long run: a rolling log of 1,000 lines (drop the oldest, append one) for
    // 30,000 events shifts 3·10⁷ items, within the default budget; front edits on a short list.
    let mut reducer = Reducer::new();
    reducer.apply(&Event::run_started("t", "r")).unwrap();
    reducer
        .apply(&Event::state_snapshot(
            json!({"log": vec!["line"; 1000], "top": [1, 2, 3]}),
        ))
        .unwrap();
    let delta =
        |ops: Value| Event::from_value(&json!({"type": "STATE_DELTA", "delta": ops})).unwrap();
    let roll = delta(json!([
        {"op": "remove", "path": "/log/0"},
        {"op": "add", "path": "/log/-", "value": "next"},
    ]));
    let rotate = delta(json!([
        {"op": "remove", "path": "/top/2"},
        {"op": "add", "path": "/top/0", "value": 0},
    ]));
    for _ in 0..30_000 {
        reducer.apply(&roll).unwrap();
        reducer.apply(&rotate).unwrap();
    }
    assert_eq!(reducer.state()["log"], json!(vec!["next"; 1000]));
    assert_eq!(reducer.state()["top"], json!([0, 0, 0]));
    // A run's count is the sum of its events': a budget of 1,000 refuses the fourth front
    // remove on a 300-item list.
    let limits = Limits::new().with_max_run_array_shifts(1000);
    let mut tight = Reducer::new().with_limits(limits);
    tight
        .apply(&Event::state_snapshot(
            json!({"a": (0..300).collect::<Vec<_>>()}),
        ))
        .unwrap();
    let err = (0..10)
        .find_map(|_| tight.apply(&front_removes(1)).err())
        .expect("refused");
    assert_eq!(
        (err.index(), err.limit().unwrap().kind),
        (4, LimitKind::RunArrayShifts)
    );
}

#[test]
fn shifts_are_counted_exactly_when_the_bound_is_loose() {
    // After `replace /a`, the array's length is only bounded by the document's size: the bound
    // (about 500 items here) is over the limit, the count (3) is not.
    let limits = Limits::new().with_max_array_shifts(10);
    let mut reducer = Reducer::new().with_limits(limits);
    reducer
        .apply(&Event::state_snapshot(
            json!({"a": [], "pad": "x".repeat(1000)}),
        ))
        .unwrap();
    let delta =
        |ops: Value| Event::from_value(&json!({"type": "STATE_DELTA", "delta": ops})).unwrap();
    reducer
        .apply(&delta(json!([
            {"op": "replace", "path": "/a", "value": [1, 2, 3]},
            {"op": "add", "path": "/a/0", "value": 0},
        ])))
        .unwrap();
    assert_eq!(reducer.state()["a"], json!([0, 1, 2, 3]));
    // Counted exactly, a failing operation still fails the patch as a whole.
    let applied = reducer
        .apply(&delta(json!([
            {"op": "replace", "path": "/a", "value": [1, 2, 3]},
            {"op": "remove", "path": "/a/0"},
            {"op": "remove", "path": "/missing"},
        ])))
        .unwrap();
    let warning = applied.warning.expect("the patch failed");
    assert!(
        warning.message.contains("operation '/2'"),
        "{}",
        warning.message
    );
    assert_eq!(reducer.state()["a"], json!([0, 1, 2, 3]));
    // And over the limit counted exactly, it is refused.
    let err = reducer
        .apply(&delta(json!([
            {"op": "replace", "path": "/a", "value": (0..20).collect::<Vec<_>>()},
            {"op": "remove", "path": "/a/0"},
        ])))
        .unwrap_err();
    assert_eq!(err.limit().unwrap().kind, LimitKind::ArrayShifts);
    assert_eq!(reducer.state()["a"], json!([0, 1, 2, 3]));
}

#[test]
fn compaction_folds_state_under_the_reducers_limits() {
    // The copy bomb: each copy of the whole state doubles it.
    let copies: Vec<Value> = (0..40)
        .map(|i| json!({"op": "copy", "from": "", "path": format!("/c{i}")}))
        .collect();
    let bomb = Event::from_value(&json!({"type": "STATE_DELTA", "delta": copies})).unwrap();
    let events = vec![
        Event::run_started("t", "r"),
        Event::state_snapshot(json!({"seed": "0123456789"})),
        bomb,
        Event::run_finished("t", "r"),
    ];
    let err = compact(&events).unwrap_err();
    assert_eq!(err.kind(), ApplyErrorKind::Limit);
    assert_eq!((err.index(), err.event_type()), (2, EventType::StateDelta));
    assert_eq!(err.limit().unwrap().kind, LimitKind::GrowthBytes);
    // The reducer refuses the same event the same way.
    let mut reducer = Reducer::new();
    let refused = events.iter().find_map(|e| reducer.apply(e).err()).unwrap();
    assert_eq!(refused, err);

    // The nesting, in a compactor with a small depth limit: refused at its event, and the
    // compactor goes on without it.
    let mut compactor = Compactor::new().with_limits(Limits::new().with_max_depth(5));
    compactor.push(nesting_seed()).unwrap();
    let mut results = nesting_deltas(5).map(|e| compactor.push(e).map_err(|e| e.index()));
    assert_eq!(
        results.by_ref().take(5).collect::<Vec<_>>(),
        [Ok(()), Ok(()), Ok(()), Err(4), Err(5)]
    );
    let out = compactor.finish();
    assert_eq!(out.len(), 1);
    let Event::StateSnapshot(snapshot) = &out[0] else {
        panic!("{out:?}")
    };
    assert_eq!(depth(&snapshot.snapshot), 5);

    // Front removes one per event: refused at the same event as the reducer refuses, by the
    // run's budget; a new run starts a new count.
    let limits = Limits::new().with_max_run_array_shifts(1000);
    let mut events = vec![
        Event::run_started("t", "r"),
        Event::state_snapshot(json!({"a": (0..300).collect::<Vec<_>>()})),
    ];
    events.extend((0..5).map(|_| front_removes(1)));
    let mut compactor = Compactor::new().with_limits(limits);
    let err = events
        .iter()
        .find_map(|e| compactor.push(e.clone()).err())
        .unwrap();
    let mut reducer = Reducer::new().with_limits(limits);
    let refused = events.iter().find_map(|e| reducer.apply(e).err()).unwrap();
    assert_eq!(refused, err);
    assert_eq!(
        (err.index(), err.limit().unwrap().kind),
        (5, LimitKind::RunArrayShifts)
    );
    compactor.push(Event::run_started("t", "r2")).unwrap();
    compactor.push(events[1].clone()).unwrap();
    for event in &events[2..5] {
        compactor.push(event.clone()).unwrap();
    }
}
