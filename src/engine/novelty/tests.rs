use super::*;
use crate::engine::executor::feed_run;
use crate::observe::{CallKind, CallRecord, StorageAccess};

const MAZE: Address = Address::repeat_byte(7);
const SENDER: Address = Address::repeat_byte(0x10);

/// A store of `value` at `slot` of the maze contract, by `pc`, in `frame`.
fn store(slot: U256, value: u64, pc: u32, frame: u32) -> StorageAccess {
    StorageAccess {
        op: StorageOp::Store,
        address: MAZE,
        code: MAZE,
        pc,
        slot,
        value: U256::from(value),
        frame,
    }
}

/// The transaction's own frame (index 0) and, when `inner` is given, a call from it that
/// succeeded or not (index 1).
fn frames(trace: &mut Trace, inner: Option<bool>) {
    let frame = |depth, parent, succeeded| CallRecord {
        kind: CallKind::Call,
        caller: SENDER,
        target: MAZE,
        code: MAZE,
        value: U256::ZERO,
        gas: 1_000_000,
        depth,
        site: None,
        parent,
        succeeded,
    };
    trace.push_call(frame(0, None, true));
    if let Some(succeeded) = inner {
        trace.push_call(frame(1, Some(0), succeeded));
    }
}

/// A maze move to (x, y): both slots written, as `(x, y) = (nx, ny)` does.
fn moved(x: u64, y: u64) -> Trace {
    let mut trace = Trace::default();
    frames(&mut trace, None);
    trace.push_storage(store(U256::ZERO, x, 100, 0));
    trace.push_storage(store(U256::from(1), y, 102, 0));
    trace
}

/// Runs one sequence of `traces` (each a transaction; `reverted` for all of them) and
/// returns its corpus key, if kept.
fn run(novelty: &mut StateNovelty, traces: &[Trace], reverted: bool) -> Option<u64> {
    feed_run(novelty, traces, 1, reverted);
    novelty.novel()
}

#[test]
fn words_are_classed_as_zero_small_numbers_senders_or_other() {
    let senders = [SENDER];
    let fixed = Location::Fixed(MAZE, U256::ZERO);
    let class = |value: U256| class_of(value, &fixed, &senders);
    assert_eq!(class(U256::ZERO), Class::Zero);
    assert_eq!(class(U256::from(1)), Class::Small(1));
    assert_eq!(class(U256::from(7)), Class::Small(7));
    assert_eq!(class(U256::from(SMALL)), Class::Small(SMALL as u8));
    assert_eq!(class(U256::from(SMALL + 1)), Class::Other);
    let sender = U256::from_be_slice(SENDER.as_slice());
    assert_eq!(class(sender), Class::Sender(0));
    assert_eq!(class(sender + U256::from(1)), Class::Other);
    assert_eq!(class(U256::MAX), Class::Other);
    // In a mapping's slot a small number is a flag or a small amount.
    let hashed = Location::Site(MAZE, MAZE, 200);
    let class = |value: u64| class_of(U256::from(value), &hashed, &senders);
    assert_eq!(class(1), Class::Small(1));
    assert_eq!([class(2), class(7), class(SMALL)], [Class::Small(2); 3]);
    assert_eq!(class(0), Class::Zero);
}

#[test]
fn a_new_cell_is_a_new_state_even_when_each_coordinate_was_seen() {
    let mut novelty = StateNovelty::new(vec![SENDER]);
    assert!(run(&mut novelty, &[moved(1, 0)], false).is_some());
    assert!(run(&mut novelty, &[moved(0, 1)], false).is_some());
    // x = 1 and y = 1 were each seen, (1, 1) was not.
    assert!(run(&mut novelty, &[moved(1, 1)], false).is_some());
    // Every cell of these three again, in any order: nothing new.
    assert_eq!(
        run(
            &mut novelty,
            &[moved(1, 1), moved(0, 1), moved(1, 0)],
            false
        ),
        None
    );
    // A sequence is new if any of its transactions leaves a new state.
    let key = run(
        &mut novelty,
        &[moved(1, 0), moved(2, 0), moved(1, 0)],
        false,
    );
    assert!(key.is_some());
    // Keys differ per state: the corpus keeps one run for each.
    let other = run(&mut novelty, &[moved(2, 1)], false);
    assert!(other.is_some() && other != key);
}

#[test]
fn writes_that_did_not_last_are_no_state() {
    let mut novelty = StateNovelty::new(vec![SENDER]);
    // The transaction reverted.
    assert_eq!(run(&mut novelty, &[moved(3, 3)], true), None);
    // An inner call that reverted wrote it.
    let mut undone = Trace::default();
    frames(&mut undone, Some(false));
    undone.push_storage(store(U256::from(5), 7, 110, 1));
    assert_eq!(run(&mut novelty, &[undone], false), None);
    // The same write in an inner call that succeeded.
    let mut done = Trace::default();
    frames(&mut done, Some(true));
    done.push_storage(store(U256::from(5), 7, 110, 1));
    assert!(run(&mut novelty, &[done], false).is_some());
}

#[test]
fn the_last_write_to_a_slot_is_the_state_it_leaves() {
    let mut novelty = StateNovelty::new(vec![SENDER]);
    let mut trace = Trace::default();
    frames(&mut trace, None);
    trace.push_storage(store(U256::from(2), 9, 120, 0));
    trace.push_storage(store(U256::from(2), 0, 120, 0));
    assert!(run(&mut novelty, &[trace], false).is_some());
    // 9 was overwritten within the transaction: storing 9 for good is new.
    let mut nine = Trace::default();
    frames(&mut nine, None);
    nine.push_storage(store(U256::from(2), 9, 120, 0));
    assert!(run(&mut novelty, &[nine], false).is_some());
}

#[test]
fn hashed_slots_are_classed_by_the_store_that_wrote_them() {
    let mut novelty = StateNovelty::new(vec![SENDER]);
    // balances[key] = 5 for one key, then for another: the second is no new state.
    let hashed = |key: u64, value: u64, pc: u32| {
        let mut trace = Trace::default();
        frames(&mut trace, None);
        trace.push_storage(store(U256::MAX - U256::from(key), value, pc, 0));
        trace
    };
    assert!(run(&mut novelty, &[hashed(1, 5, 200)], false).is_some());
    assert_eq!(run(&mut novelty, &[hashed(2, 5, 200)], false), None);
    // Another class there is (a flag), and so is another store writing the same class.
    assert!(run(&mut novelty, &[hashed(2, 1, 200)], false).is_some());
    assert!(run(&mut novelty, &[hashed(3, 1, 210)], false).is_some());
    // Small amounts are one class there.
    assert_eq!(run(&mut novelty, &[hashed(3, 6, 200)], false), None);
}

#[test]
fn write_sites_combine_by_which_were_written_not_by_their_classes() {
    let mut novelty = StateNovelty::new(vec![SENDER]);
    // A pull debits and credits (two sites), then also spends the allowance (a third).
    let pull = |values: &[(u64, u32)]| {
        let mut trace = Trace::default();
        frames(&mut trace, None);
        for (key, &(value, pc)) in values.iter().enumerate() {
            trace.push_storage(store(U256::MAX - U256::from(key), value, pc, 0));
        }
        trace
    };
    // Each site's classes are seen one site at a time first.
    for pc in [200, 210, 220] {
        for value in [0, 1, 5, 100] {
            run(&mut novelty, &[pull(&[(value, pc)])], false);
        }
    }
    assert!(
        run(
            &mut novelty,
            &[pull(&[(100, 200), (100, 210), (5, 220)])],
            false
        )
        .is_some()
    );
    // The same three sites with other classes: no new state.
    assert_eq!(
        run(
            &mut novelty,
            &[pull(&[(5, 200), (0, 210), (1, 220)])],
            false
        ),
        None
    );
    // Two of them without the third (a pull that left the allowance alone): a new one.
    assert!(run(&mut novelty, &[pull(&[(100, 200), (100, 210)])], false).is_some());
    assert_eq!(
        run(&mut novelty, &[pull(&[(0, 200), (5, 210)])], false),
        None
    );
}

#[test]
fn the_states_remembered_are_bounded() {
    let mut novelty = StateNovelty::new(vec![SENDER]);
    let mut kept = 0;
    // Each fixed slot takes up to 34 classes; 6,000 slots × 3 classes exceed the bound.
    for slot in 0..6_000u64 {
        for value in 0..3 {
            let mut trace = Trace::default();
            frames(&mut trace, None);
            trace.push_storage(store(U256::from(slot), value, 100, 0));
            kept += u64::from(run(&mut novelty, &[trace], false).is_some());
        }
    }
    assert_eq!(novelty.seen.len(), MAX_KEYS);
    assert_eq!(kept, MAX_KEYS as u64);
}

#[test]
fn fixed_slots_set_by_different_calls_make_one_state_per_run() {
    let mut novelty = StateNovelty::new(vec![SENDER]);
    // One call moves east, another north: each writes one coordinate.
    let set = |slot: u64, value: u64| {
        let mut trace = Trace::default();
        frames(&mut trace, None);
        trace.push_storage(store(U256::from(slot), value, 100 + slot as u32, 0));
        trace
    };
    assert!(run(&mut novelty, &[set(1, 1)], false).is_some());
    assert!(run(&mut novelty, &[set(0, 5)], false).is_some());
    // y = 1 and x = 5 were each seen, but not in one run: (5, 1) is new.
    assert!(run(&mut novelty, &[set(0, 5), set(1, 1)], false).is_some());
    // In the other order it is the same state.
    assert_eq!(run(&mut novelty, &[set(1, 1), set(0, 5)], false), None);
}

#[test]
fn the_schedule_hears_of_every_kept_state_reached_again() {
    let mut novelty = StateNovelty::new(vec![SENDER]);
    let first = run(&mut novelty, &[moved(1, 0)], false).unwrap();
    assert!(!novelty.reached_again().any(|key| key == first));
    assert_eq!(run(&mut novelty, &[moved(1, 0), moved(1, 0)], false), None);
    let again: Vec<u64> = novelty.reached_again().collect();
    assert!(again.contains(&first), "{again:?}");
    assert_eq!(
        again.len(),
        3,
        "x = 1, y = 0 and the cell, once each: {again:?}"
    );
}
