//! The analysis on small hand-assembled programs: straight-line jumps, input-dependent and
//! constant branches, prefix sensitivity at a merge point, internal calls from two places,
//! loops, external calls and jumps the analysis cannot follow; the blocks reachable from a
//! contract's entry on the same kinds of code.

use super::*;

/// `analyze` of `path` through `code` towards `targets`.
fn analysis(code: &[u8], targets: &[usize], path: &[u32]) -> Analysis {
    Lookahead::new(code, targets.iter().copied()).analyze(path)
}

#[test]
fn a_target_already_passed_leaves_nothing_ahead() {
    // 0: PUSH1 4; 2: JUMP; 3: INVALID; 4: JUMPDEST (target); 5: STOP
    let code = [0x60, 0x04, 0x56, 0xfe, 0x5b, 0x00];
    let a = analysis(&code, &[4], &[0, 2, 4, 5]);
    assert!(a.bounded);
    assert_eq!(a.split_points, [0, 4]);
    assert_eq!(a.prefix_len, 3, "up to and including the split point");
    assert_eq!(a.lid, lid(&[0, 2, 4]));
}

/// 0: PUSH1 0; 2: CALLDATALOAD; 3: PUSH1 8; 5: JUMPI; 6: STOP; 7: STOP;
/// 8: JUMPDEST (target); 9: STOP
const INPUT_BRANCH: [u8; 10] = [0x60, 0x00, 0x35, 0x60, 0x08, 0x57, 0x00, 0x00, 0x5b, 0x00];

#[test]
fn an_input_dependent_branch_keeps_the_target_ahead_until_it_is_decided() {
    let fell = analysis(&INPUT_BRANCH, &[8], &[0, 2, 3, 5, 6]);
    assert!(fell.bounded);
    assert_eq!(fell.split_points, [0, 6]);
    assert_eq!(fell.prefix_len, 5);
    let jumped = analysis(&INPUT_BRANCH, &[8], &[0, 2, 3, 5, 8, 9]);
    assert_eq!(jumped.split_points, [0, 8]);
    assert_ne!(fell.lid, jumped.lid);
}

#[test]
fn a_constant_condition_hides_the_target_from_the_start() {
    // 0: PUSH1 0; 2: PUSH1 7; 4: JUMPI; 5: STOP; 6: STOP; 7: JUMPDEST (target); 8: STOP
    let code = [0x60, 0x00, 0x60, 0x07, 0x57, 0x00, 0x00, 0x5b, 0x00];
    let a = analysis(&code, &[7], &[0, 2, 4, 5]);
    assert!(a.bounded);
    assert_eq!((a.prefix_len, a.split_points.as_slice()), (1, &[0u32][..]));
}

/// if (calldata) flag = 0 else flag = 1; if (flag) target.
/// 0: PUSH1 0; 2: CALLDATALOAD; 3: PUSH1 11; 5: JUMPI;
/// 6: PUSH1 1; 8: PUSH1 14; 10: JUMP;
/// 11: JUMPDEST; 12: PUSH1 0;
/// 14: JUMPDEST (merge); 15: PUSH1 19; 17: JUMPI; 18: STOP; 19: JUMPDEST (target); 20: STOP
const MERGE: [u8; 21] = [
    0x60, 0x00, 0x35, 0x60, 0x0b, 0x57, 0x60, 0x01, 0x60, 0x0e, 0x56, 0x5b, 0x60, 0x00, 0x5b, 0x60,
    0x13, 0x57, 0x00, 0x5b, 0x00,
];

#[test]
fn the_prefix_decides_what_a_merge_point_joins() {
    // Without a prefix the flag is unknown at the merge, so the target is ahead; after the
    // branch that sets it to zero it is not.
    let zero = analysis(&MERGE, &[19], &[0, 2, 3, 5, 11, 12, 14, 15, 17, 18]);
    assert!(zero.bounded);
    assert_eq!(zero.split_points, [0, 11]);
    assert_eq!(zero.prefix_len, 5);
    let one = analysis(&MERGE, &[19], &[0, 2, 3, 5, 6, 8, 10, 14, 15, 17, 19, 20]);
    assert!(one.bounded, "past the target");
    assert_eq!(one.split_points, [0, 6, 14, 19]);
    assert_eq!(one.prefix_len, 11);
}

#[test]
fn an_internal_function_returns_to_each_caller() {
    // 0: PUSH1 7; 2: PUSH1 13; 4: JUMP; 5: STOP; 6: STOP;
    // 7: JUMPDEST; 8: PUSH1 16; 10: PUSH1 13; 12: JUMP;
    // 13: JUMPDEST (helper); 14: JUMP (return); 15: STOP;
    // 16: JUMPDEST; 17: STOP; 18: JUMPDEST (target, dead); 19: STOP
    let code = [
        0x60, 0x07, 0x60, 0x0d, 0x56, 0x00, 0x00, 0x5b, 0x60, 0x10, 0x60, 0x0d, 0x56, 0x5b, 0x56,
        0x00, 0x5b, 0x00, 0x5b, 0x00,
    ];
    let a = analysis(
        &code,
        &[18],
        &[0, 2, 4, 13, 14, 7, 8, 10, 12, 13, 14, 16, 17],
    );
    assert!(a.bounded);
    assert_eq!(a.prefix_len, 1, "dead from the first instruction on");
}

#[test]
fn loops_with_unknown_bounds_reach_a_fixpoint() {
    // 0: PUSH1 0 (i); 2: JUMPDEST (loop); 3: DUP1; 4: PUSH1 0; 6: CALLDATALOAD;
    // 7: GT (n > i); 8: PUSH1 15; 10: JUMPI; 11: STOP; 12: JUMPDEST (target, dead);
    // 13: STOP; 14: STOP; 15: JUMPDEST (body); 16: PUSH1 1; 18: ADD; 19: PUSH1 2; 21: JUMP
    let code = [
        0x60, 0x00, 0x5b, 0x80, 0x60, 0x00, 0x35, 0x11, 0x60, 0x0f, 0x57, 0x00, 0x5b, 0x00, 0x00,
        0x5b, 0x60, 0x01, 0x01, 0x60, 0x02, 0x56,
    ];
    let a = analysis(&code, &[12], &[0, 2, 3, 4, 6, 7, 8, 10, 11]);
    assert!(a.bounded);
    assert_eq!(a.prefix_len, 1);
}

#[test]
fn calls_and_unknown_jumps_count_as_reaching_a_target() {
    // Seven PUSH1 0, CALL, STOP; then a dead target.
    let mut call = vec![];
    for _ in 0..7 {
        call.extend([0x60, 0x00]);
    }
    call.extend([0xf1, 0x00, 0x5b, 0x00]);
    let path: Vec<u32> = (0..7).map(|i| 2 * i).chain([14, 15]).collect();
    let a = analysis(&call, &[16], &path);
    assert_eq!(a.split_points, [0], "one block");
    assert!(!a.bounded, "the callee may call back into the target");
    assert_eq!(a.lid, lid(&path));
    // 0: PUSH1 0; 2: CALLDATALOAD; 3: JUMP; 4: JUMPDEST; 5: STOP; 6: JUMPDEST (target)
    let jump = [0x60, 0x00, 0x35, 0x56, 0x5b, 0x00, 0x5b, 0x00];
    let a = analysis(&jump, &[6], &[0, 2, 3, 4, 5]);
    assert_eq!(a.split_points, [0, 4]);
    assert!(
        a.bounded,
        "past the unknown jump, the run's destination is followed"
    );
    assert_eq!(a.prefix_len, 4);
}

#[test]
fn without_targets_every_path_is_bounded_at_its_first_instruction() {
    let a = analysis(&INPUT_BRANCH, &[], &[0, 2, 3, 5, 8, 9]);
    assert!(a.bounded);
    assert_eq!(a.prefix_len, 1);
}

/// The loop of `loops_with_unknown_bounds_reach_a_fixpoint`, with the exit block (pc 11)
/// as the target.
fn loop_path(iterations: usize) -> Vec<u32> {
    let head = [2u32, 3, 4, 6, 7, 8, 10];
    let body = [15u32, 16, 18, 19, 21];
    let mut path = vec![0];
    for _ in 0..iterations {
        path.extend(head);
        path.extend(body);
    }
    path.extend(head);
    path.push(11);
    path
}

#[test]
fn only_split_points_within_the_prefix_bound_are_tried() {
    let code = [
        0x60, 0x00, 0x5b, 0x80, 0x60, 0x00, 0x35, 0x11, 0x60, 0x0f, 0x57, 0x00, 0x5b, 0x00, 0x00,
        0x5b, 0x60, 0x01, 0x01, 0x60, 0x02, 0x56,
    ];
    let short = analysis(&code, &[11], &loop_path(1));
    assert!(short.bounded, "past the target");
    assert_eq!(short.split_points, [0, 2, 15, 11]);
    let long_path = loop_path(1_000);
    assert!(long_path.len() > MAX_PREFIX);
    let long = analysis(&code, &[11], &long_path);
    assert!(
        !long.bounded,
        "the exit is entered too late to be a split point"
    );
    assert_eq!(long.split_points, [0, 2, 15]);
    assert_eq!(long.prefix_len, long_path.len());
}

#[test]
fn configuration_c_takes_the_whole_path_with_every_block_entry() {
    // The analysis bounds the prefix at the fall-through block; configuration C never does.
    let lookahead = Lookahead::new(&INPUT_BRANCH, [8]);
    let path = [0, 2, 3, 5, 6];
    let c = lookahead.assume_reachable(&path);
    assert!(!c.bounded);
    assert_eq!(c.split_points, [0, 6]);
    assert_eq!((c.prefix_len, c.lid), (path.len(), lid(&path)));
    let code = [
        0x60, 0x00, 0x5b, 0x80, 0x60, 0x00, 0x35, 0x11, 0x60, 0x0f, 0x57, 0x00, 0x5b, 0x00, 0x00,
        0x5b, 0x60, 0x01, 0x01, 0x60, 0x02, 0x56,
    ];
    let long = Lookahead::new(&code, [11]).assume_reachable(&loop_path(1_000));
    assert_eq!(
        long.split_points,
        [0, 2, 15],
        "first entries only, within the prefix bound"
    );
}

#[test]
fn a_branch_never_taken_leaves_its_block_unreachable() {
    // 0: PUSH1 0; 2: PUSH1 7; 4: JUMPI (never jumps); 5: STOP; 6: STOP; 7: JUMPDEST; 8: STOP
    let code = [0x60, 0x00, 0x60, 0x07, 0x57, 0x00, 0x00, 0x5b, 0x00];
    assert_eq!(
        reachable_blocks(&code),
        Some(vec![0, 5]),
        "neither the destination nor the block after a STOP"
    );
    // The same shape on CALLDATALOAD: both ways.
    assert_eq!(reachable_blocks(&INPUT_BRANCH), Some(vec![0, 6, 8]));
    assert_eq!(reachable_blocks(&[]), Some(vec![]), "no code, no blocks");
}

#[test]
fn the_whole_contract_walk_goes_past_calls_with_unknown_results() {
    // Seven PUSH1 0; 14: CALL; 15: PUSH1 20; 17: JUMPI on the call's success;
    // 18: STOP; 19: STOP; 20: JUMPDEST; 21: STOP
    let mut code = vec![];
    for _ in 0..7 {
        code.extend([0x60, 0x00]);
    }
    code.extend([0xf1, 0x60, 0x14, 0x57, 0x00, 0x00, 0x5b, 0x00]);
    assert_eq!(reachable_blocks(&code), Some(vec![0, 18, 20]));
}

#[test]
fn the_whole_contract_walk_keeps_return_addresses_and_loops_apart() {
    // `an_internal_function_returns_to_each_caller`: the helper returns to both callers
    // only, so the block after them (18) stays unreachable.
    let calls = [
        0x60, 0x07, 0x60, 0x0d, 0x56, 0x00, 0x00, 0x5b, 0x60, 0x10, 0x60, 0x0d, 0x56, 0x5b, 0x56,
        0x00, 0x5b, 0x00, 0x5b, 0x00,
    ];
    assert_eq!(reachable_blocks(&calls), Some(vec![0, 7, 13, 16]));
    // `loops_with_unknown_bounds_reach_a_fixpoint`: the loop, its exit and its body, not
    // the JUMPDEST after the exit's STOP.
    let loops = [
        0x60, 0x00, 0x5b, 0x80, 0x60, 0x00, 0x35, 0x11, 0x60, 0x0f, 0x57, 0x00, 0x5b, 0x00, 0x00,
        0x5b, 0x60, 0x01, 0x01, 0x60, 0x02, 0x56,
    ];
    assert_eq!(reachable_blocks(&loops), Some(vec![0, 2, 11, 15]));
}

#[test]
fn code_the_analysis_cannot_follow_may_reach_any_block() {
    // 0: PUSH1 0; 2: CALLDATALOAD; 3: JUMP (unknown destination); 4: JUMPDEST; 5: STOP
    assert_eq!(reachable_blocks(&[0x60, 0x00, 0x35, 0x56, 0x5b, 0x00]), None);
    // A loop that pushes on every round: a new stack height, so a new state, each time,
    // until the bound on states per pc is spent.
    // 0: JUMPDEST; 1: PUSH1 0; 3: PUSH1 0; 5: CALLDATALOAD; 6: PUSH1 0; 8: JUMPI; 9: STOP
    let pushes = [0x5b, 0x60, 0x00, 0x60, 0x00, 0x35, 0x60, 0x00, 0x57, 0x00];
    assert_eq!(reachable_blocks(&pushes), None);
}

/// Hostile code: arbitrary bytes, biased towards the instructions that shape control flow
/// (jumps into PUSH data, truncated PUSHes at the end, JUMPs to computed targets), with
/// arbitrary targets and arbitrary "paths" (pcs that no run took in that order). The
/// analysis must neither panic nor run away: every call returns (and the reachable blocks,
/// when known, are block starts in ascending order).
mod hostile {
    use super::*;
    use proptest::prelude::*;

    /// A byte of code: often a jump, JUMPDEST, small PUSH or stack shuffle, else anything.
    fn op() -> impl Strategy<Value = u8> {
        prop_oneof![
            4 => prop::sample::select(vec![0x56u8, 0x57, 0x5b, 0x60, 0x61, 0x7f, 0x80, 0x90, 0x35, 0x00, 0xf3, 0xfd]),
            3 => any::<u8>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 300,
            failure_persistence: None,
            rng_seed: proptest::test_runner::RngSeed::Fixed(19),
            ..ProptestConfig::default()
        })]

        #[test]
        fn arbitrary_code_targets_and_paths_never_panic_or_hang(
            code in prop::collection::vec(op(), 0..600),
            targets in prop::collection::vec(0usize..700, 0..8),
            path in prop::collection::vec(0u32..700, 0..400),
        ) {
            let mut lookahead = Lookahead::new(&code, targets.iter().copied());
            let analysed = lookahead.analyze(&path);
            prop_assert!(analysed.prefix_len <= path.len());
            // Again from the cache of verdicts, and the imprecise configuration.
            lookahead.analyze(&path);
            let assumed = lookahead.assume_reachable(&path);
            prop_assert!(assumed.prefix_len <= path.len());
            if let Some(blocks) = reachable_blocks(&code) {
                prop_assert!(blocks.windows(2).all(|pair| pair[0] < pair[1]), "ascending");
                prop_assert!(blocks.iter().all(|&pc| lookahead.code.is_leader(pc)));
            }
        }
    }
}
