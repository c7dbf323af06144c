use super::*;
use crate::observe::{CmpOp, Comparison};

/// A check whose one comparison is `pulled > approved` (GT at pc 10, its JUMPI at 12).
fn check(pulled: u64, approved: u64) -> Trace {
    let mut trace = Trace::default();
    trace.push_comparison(Comparison {
        code: Address::repeat_byte(7),
        cmp_pc: 10,
        jumpi_pc: 12,
        op: CmpOp::Gt,
        lhs: U256::from(pulled),
        rhs: U256::from(approved),
        negations: 0,
        taken: pulled > approved,
    });
    trace
}

/// Runs a sequence through `guidance`: per transaction, its own path id and the
/// (pulled, approved) its check saw. Returns the run's corpus key, if kept.
fn run(guidance: &mut InvariantGuidance, transactions: &[(u64, (u64, u64))]) -> Option<u64> {
    guidance.start(&Sequence::default(), RunStart::default());
    let empty = Trace::default();
    for (index, &(path, (pulled, approved))) in transactions.iter().enumerate() {
        guidance.transaction(&Seen {
            last: index + 1 == transactions.len(),
            path,
            ..Seen::of(index, &empty)
        });
        guidance.checked(index, &check(pulled, approved));
    }
    guidance.closer()
}

#[test]
fn more_steps_closer_by_one_path_keep_a_run_once() {
    let mut guidance = InvariantGuidance::default();
    // approve(100); pull 30: one step closer by the pull's path (2).
    let one = run(&mut guidance, &[(1, (0, 100)), (2, (30, 100))]);
    assert!(one.is_some());
    // The same again: no more steps than before.
    assert_eq!(run(&mut guidance, &[(1, (0, 100)), (2, (40, 100))]), None);
    // Two pulls: two steps by path 2, kept under another key.
    let two = run(
        &mut guidance,
        &[(1, (0, 100)), (2, (30, 100)), (2, (60, 100))],
    );
    assert!(two.is_some() && two != one);
    // Two steps by another path (a pull to the spender itself) are new too.
    let other = run(
        &mut guidance,
        &[(1, (0, 100)), (3, (30, 100)), (3, (60, 100))],
    );
    assert!(other.is_some() && other != two);
}

#[test]
fn distances_that_grow_or_stay_are_no_steps() {
    let mut guidance = InvariantGuidance::default();
    // A larger approval moves `pulled > approved` away; the same check again does not move.
    let away = [(1, (0, 100)), (1, (0, 200)), (1, (0, 200))];
    assert_eq!(run(&mut guidance, &away), None);
    // A step is against the run's own last check, not another run's.
    assert_eq!(run(&mut guidance, &[(1, (0, 50))]), None);
}
