use super::*;
use crate::engine::input::TxInput;
use crate::observe::{CmpOp, RecentTransfers, Trace};

/// A call whose last comparison is `debt <= limit` (LT at pc 10 as `limit < debt`, its
/// JUMPI at `jumpi`): the call reverts while it is false, at a distance of
/// `limit - debt + 1` from flipping.
fn healthy(jumpi: u32, debt: u64, limit: u64) -> Trace {
    let mut trace = Trace::default();
    trace.push_comparison(Comparison {
        code: Address::repeat_byte(7),
        cmp_pc: 10,
        jumpi_pc: jumpi,
        op: CmpOp::Lt,
        lhs: U256::from(limit),
        rhs: U256::from(debt),
        negations: 0,
        taken: limit < debt,
    });
    trace
}

/// Function 0's call number `calls`, reverted or not, with `trace`.
fn call<'t>(calls: u64, reverted: bool, trace: &'t Trace) -> Seen<'t> {
    Seen {
        calls,
        reverted,
        ..Seen::of(0, trace)
    }
}

/// Runs one call through `guidance` as a run of its own; the run's corpus key, if kept.
fn run(guidance: &mut RevertGuidance, seen: &Seen<'_>) -> Option<u64> {
    guidance.start(&Sequence::default(), RunStart::default());
    guidance.transaction(seen);
    guidance.closer()
}

#[test]
fn a_function_that_always_reverted_keeps_runs_that_get_closer_by_a_bit() {
    let mut guidance = RevertGuidance::new(1);
    let first = healthy(12, 0, 1000);
    // Before its 1,000th call, a reverting function is not followed.
    assert_eq!(
        run(&mut guidance, &call(STUCK_AFTER - 1, true, &first)),
        None
    );
    // From then on, its first decision is news.
    let kept = run(&mut guidance, &call(STUCK_AFTER, true, &first));
    assert!(kept.is_some());
    // As far, or closer by less than a bit of the operands' length: nothing new (401 is
    // the first distance to 1,000 a bit shorter than 1,000 itself).
    assert_eq!(
        run(&mut guidance, &call(STUCK_AFTER + 1, true, &first)),
        None
    );
    assert_eq!(
        run(
            &mut guidance,
            &call(STUCK_AFTER + 2, true, &healthy(12, 100, 1000))
        ),
        None
    );
    // Within 401 of the limit: a bit closer, kept under another key.
    let closer = run(
        &mut guidance,
        &call(STUCK_AFTER + 3, true, &healthy(12, 600, 1000)),
    );
    assert!(closer.is_some() && closer != kept);
    // Failing at another comparison (a `require` further on) is news whatever its distance.
    let further = run(
        &mut guidance,
        &call(STUCK_AFTER + 4, true, &healthy(20, 0, 1000)),
    );
    assert!(further.is_some() && further != kept);
}

#[test]
fn a_function_that_succeeded_once_is_no_longer_followed() {
    let mut guidance = RevertGuidance::new(1);
    let trace = healthy(12, 0, 1000);
    assert_eq!(
        run(
            &mut guidance,
            &call(STUCK_AFTER + 200, false, &Trace::default())
        ),
        None
    );
    assert_eq!(
        run(&mut guidance, &call(STUCK_AFTER + 201, true, &trace)),
        None
    );
}

#[test]
fn a_run_in_which_the_function_later_succeeds_is_not_kept_for_its_revert() {
    let mut guidance = RevertGuidance::new(1);
    guidance.start(&Sequence::default(), RunStart::default());
    guidance.transaction(&call(STUCK_AFTER + 50, true, &healthy(12, 0, 1000)));
    guidance.transaction(&call(STUCK_AFTER + 51, false, &Trace::default()));
    // Kept for its success's path, if at all: the function needs no prefix any more.
    assert_eq!(guidance.closer(), None);
}

#[test]
fn a_reverting_call_without_comparisons_is_not_measured() {
    let mut guidance = RevertGuidance::new(1);
    // An unconditional revert (or one decided by no comparison) has no distance to shorten.
    assert_eq!(
        run(
            &mut guidance,
            &call(STUCK_AFTER + 300, true, &Trace::default())
        ),
        None
    );
}

/// A REVERT by `code` at call depth `depth`.
fn revert(code: Address, depth: u32) -> RevertSite {
    RevertSite {
        code,
        pc: 99,
        depth,
        panic: None,
        transfers: RecentTransfers::default(),
    }
}

#[test]
fn a_revert_bubbled_up_by_a_handler_is_decided_where_it_began() {
    // The pool's `require(debt <= limit)` reverts; the handler tests the call's success
    // (an `ISZERO` of 0, its own code) and bubbles the revert up.
    let (pool, handler) = (Address::repeat_byte(7), Address::repeat_byte(8));
    let mut trace = healthy(12, 600, 1000);
    trace.push_comparison(Comparison {
        code: handler,
        cmp_pc: 40,
        jumpi_pc: 44,
        op: CmpOp::IsZero,
        lhs: U256::ZERO,
        rhs: U256::ZERO,
        negations: 0,
        taken: true,
    });
    trace.push_revert(revert(pool, 2));
    trace.push_revert(revert(handler, 1));
    let (decided, measured) = deciding(&trace).unwrap();
    assert_eq!((decided.code, decided.jumpi_pc), (pool, 12));
    assert_eq!(closeness(measured), 1, "401 to flip, in 10 bits");
    // A revert of the handler's own (the pool's earlier revert was caught at depth 3, not
    // bubbled): decided by the handler's last comparison.
    let mut own = healthy(12, 600, 1000);
    own.push_comparison(Comparison {
        code: handler,
        cmp_pc: 50,
        jumpi_pc: 54,
        op: CmpOp::Lt,
        lhs: U256::from(5),
        rhs: U256::from(3),
        negations: 0,
        taken: false,
    });
    own.push_revert(revert(pool, 3));
    own.push_revert(revert(handler, 1));
    let (decided, _) = deciding(&own).unwrap();
    assert_eq!((decided.code, decided.jumpi_pc), (handler, 54));
}

#[test]
fn a_boolean_test_is_measured_by_the_data_decision_that_computed_it() {
    // `require(!healthy(account))`: `debt > limit` returned as data (a data decision, its
    // JUMPI pc its own), then an `ISZERO` of the returned 1.
    let code = Address::repeat_byte(7);
    let mut trace = Trace::default();
    trace.push_comparison(Comparison {
        code,
        cmp_pc: 30,
        jumpi_pc: 30,
        op: CmpOp::Gt,
        lhs: U256::from(700),
        rhs: U256::from(800),
        negations: 1,
        taken: true,
    });
    trace.push_comparison(Comparison {
        code,
        cmp_pc: 60,
        jumpi_pc: 64,
        op: CmpOp::IsZero,
        lhs: U256::ONE,
        rhs: U256::ZERO,
        negations: 0,
        taken: false,
    });
    trace.push_revert(revert(code, 1));
    let (decided, measured) = deciding(&trace).unwrap();
    assert_eq!(decided.jumpi_pc, 64, "the site is the boolean test's");
    assert_eq!(measured.cmp_pc, 30);
    assert_eq!(closeness(measured), 3, "101 to flip, in 10 bits");
}

#[test]
fn an_empty_account_is_not_close_to_insolvency() {
    // `debt > limit` with nothing lent or posted: one unit from flipping, but nothing can
    // make it flip, and a run reaching it is no nearer than the first.
    let mut guidance = RevertGuidance::new(1);
    let empty = healthy(12, 0, 0);
    assert_eq!(closeness(empty.comparisons().last().unwrap()), 0);
    assert!(run(&mut guidance, &call(STUCK_AFTER, true, &empty)).is_some());
    // A loan of 900 against a limit of 1,000 is nearer (101 to flip, in 10 bits).
    let loan = healthy(12, 900, 1000);
    assert!(run(&mut guidance, &call(STUCK_AFTER + 1, true, &loan)).is_some());
    assert_eq!(
        run(&mut guidance, &call(STUCK_AFTER + 2, true, &empty)),
        None
    );
}

#[test]
fn a_kept_run_is_trimmed_through_the_call_without_what_changed_nothing_before_it() {
    let mut guidance = RevertGuidance::new(2);
    let at = |function: usize, seconds: u64| {
        let mut tx = TxInput::of(function, Vec::new());
        tx.warp.seconds = seconds;
        tx
    };
    // A reverted call of function 1 after 5 s, a successful one after 2 s, the stuck call
    // of function 0, and a call after it.
    let sequence = Sequence {
        txs: vec![at(1, 5), at(1, 2), at(0, 0), at(1, 0)],
    };
    let empty = Trace::default();
    let stuck = healthy(12, 0, 1000);
    guidance.start(&sequence, RunStart::default());
    let other = |index: usize, reverted: bool| Seen {
        function: 1,
        reverted,
        ..Seen::of(index, &empty)
    };
    guidance.transaction(&other(0, true));
    guidance.transaction(&other(1, false));
    guidance.transaction(&Seen {
        index: 2,
        ..call(STUCK_AFTER, true, &stuck)
    });
    guidance.transaction(&other(3, false));
    assert!(guidance.closer().is_some());
    let kept = guidance.trimmed(&sequence);
    // The reverted call is gone and its 5 s move onto the next call; the call after the
    // stuck one is cut.
    assert_eq!(kept.txs.len(), 2, "{kept:?}");
    assert_eq!((kept.txs[0].function, kept.txs[0].warp.seconds), (1, 7));
    assert_eq!((kept.txs[1].function, kept.txs[1].warp.seconds), (0, 0));
}
