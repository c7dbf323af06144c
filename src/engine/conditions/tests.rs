use alloy_primitives::U256;

use super::*;
use crate::engine::executor::feed_run;
use crate::observe::{CmpOp, StorageAccess, StorageOp, Trace};

const TOKEN: Address = Address::repeat_byte(7);

/// A pull's check `amount <= allowance` (solc's `GT` on `amount > allowance`, negated),
/// at `pc`, after a load of `allowance`; `loaded` says whether the allowance came from
/// storage (else the comparison is on calldata alone).
fn pull(amount: u64, allowance: u64, pc: u32, loaded: bool) -> Trace {
    let mut trace = Trace::default();
    if loaded {
        trace.push_storage(StorageAccess {
            op: StorageOp::Load,
            address: TOKEN,
            code: TOKEN,
            pc: 10,
            slot: U256::from(99),
            value: U256::from(allowance),
            frame: 0,
        });
    }
    trace.push_comparison(Comparison {
        code: TOKEN,
        cmp_pc: pc,
        jumpi_pc: pc + 4,
        op: CmpOp::Gt,
        lhs: U256::from(amount),
        rhs: U256::from(allowance),
        negations: 1,
        taken: true,
    });
    trace
}

/// Runs one sequence whose transactions left `traces`, all on path `path`; the key it is
/// kept under, if any.
fn run(states: &mut ConditionStates, traces: &[Trace], path: u64) -> Option<u64> {
    feed_run(states, traces, path, false);
    states.novel()
}

#[test]
fn operands_stand_zero_equal_or_apart() {
    let of = |lhs: u64, rhs: u64| relation(&pull(lhs, rhs, 0, true).comparisons()[0]);
    assert_eq!(of(0, 0), Relation::BothZero);
    assert_eq!(of(0, 5), Relation::LhsZero);
    assert_eq!(of(5, 0), Relation::RhsZero);
    assert_eq!(of(5, 5), Relation::Equal);
    assert_eq!(of(4, 5), Relation::Apart);
}

#[test]
fn a_known_path_that_compares_state_otherwise_is_kept_once() {
    let mut states = ConditionStates::default();
    // The path's first run: zero pulled against a zero allowance.
    assert!(run(&mut states, &[pull(0, 0, 100, true)], 1).is_some());
    assert!(run(&mut states, &[pull(0, 0, 100, true)], 1).is_none());
    // The same path, a real allowance spent: a new condition state, kept once.
    let real = run(&mut states, &[pull(3, 5, 100, true)], 1);
    assert!(real.is_some());
    assert!(run(&mut states, &[pull(2, 9, 100, true)], 1).is_none());
    assert_eq!(states.reached_again(), real);
    // All of it exactly: a boundary.
    assert!(run(&mut states, &[pull(5, 5, 100, true)], 1).is_some());
    // Another path with the same relations is another key.
    assert!(run(&mut states, &[pull(3, 5, 100, true)], 2).is_some());
}

#[test]
fn only_the_last_transactions_conditions_on_storage_count() {
    let mut states = ConditionStates::default();
    // No load: a comparison of calldata alone is no condition on state.
    assert!(run(&mut states, &[pull(3, 5, 100, false)], 1).is_none());
    assert_eq!(states.reached_again(), None);
    // An earlier transaction's conditions are not the key's.
    let last = pull(0, 0, 100, true);
    let key = run(&mut states, &[pull(3, 5, 100, true), last.clone()], 1);
    assert_eq!(key, run(&mut ConditionStates::default(), &[last], 1));
}

#[test]
fn a_loop_comparing_at_one_site_counts_each_relation_once() {
    let mut states = ConditionStates::default();
    let mut twice = pull(3, 5, 100, true);
    twice.push_comparison(pull(4, 5, 100, true).comparisons()[0]);
    let once = run(&mut states, &[pull(3, 5, 100, true)], 1);
    assert!(once.is_some());
    assert!(run(&mut states, &[twice], 1).is_none());
}
