//! Code no compiler wrote, through everything harvey runs on the code it fuzzes: execution
//! under the observer (coverage, comparisons, storage accesses, calls, creations), the
//! dataflow learner, the matching of created contracts, and the lookahead analysis on the
//! paths the code really took. Random bytes biased towards the instructions that break
//! analyses (jumps into PUSH data, truncated PUSHes, huge memory offsets, calls to every
//! precompile, CREATE with garbage, SELFDESTRUCT, return data copies out of bounds), and
//! the classic bombs by hand: recursion to the call-depth limit, a return-data bomb. Nothing
//! may panic; every run ends (gas bounds the EVM; the analyses bound themselves).

use std::sync::Arc;

use alloy_primitives::{Address, Bytes, U256};
use proptest::prelude::*;

use crate::chain::{Chain, Tx};
use crate::engine::sequencing::dataflow::Dataflow;
use crate::lookahead::Lookahead;
use crate::project::Artifacts;

/// Where the hostile code lives.
const HOSTILE: Address = Address::repeat_byte(0xc0);

/// A chain with `code` at [`HOSTILE`] (and some ether there to send), recording paths.
fn chain_with(code: &[u8]) -> Chain {
    let artifacts = Arc::new(Artifacts::new("/nowhere".into(), Vec::new(), false));
    let mut chain = Chain::new(artifacts);
    chain.set_code(HOSTILE, Bytes::copy_from_slice(code));
    chain.set_balance(HOSTILE, U256::from(10u64.pow(18)));
    chain.commit();
    chain.record_paths(true);
    chain
}

/// Runs `calldata` against the hostile code and feeds every analysis what it did; returns
/// the calls and creations the observer recorded, `None` when the EVM did not run it (it
/// may refuse nothing here: no value is sent).
fn run_through_everything(code: &[u8], calldata: &[u8], targets: &[usize]) -> Option<usize> {
    let mut chain = chain_with(code);
    let tx = Tx {
        sender: chain.senders()[0],
        to: HOSTILE,
        calldata: Bytes::copy_from_slice(calldata),
        ..Tx::default()
    };
    let outcome = chain.execute(&tx).ok()?;
    let trace = chain.last_trace();
    let calls = trace.calls().len();
    let mut flow = Dataflow::new(1, true);
    flow.observe(0, trace, outcome.is_success(), false);
    flow.refresh();
    let path = trace.path().to_vec();
    let mut lookahead = Lookahead::new(code, targets.iter().copied());
    let analysed = lookahead.analyze(&path);
    assert!(analysed.prefix_len <= path.len());
    let _ = chain.take_created();
    chain.reset();
    Some(calls)
}

/// A byte of code, biased towards what breaks analyses and executions.
fn op() -> impl Strategy<Value = u8> {
    prop_oneof![
        // Control flow and PUSH data to jump into.
        3 => prop::sample::select(vec![0x56u8, 0x57, 0x5b, 0x60, 0x61, 0x7f, 0x5f, 0x00]),
        // Calls (to precompiles: PUSH1 1..0x11 before them), creations, self-destruct.
        2 => prop::sample::select(vec![0xf1u8, 0xfa, 0xf4, 0xf2, 0xf0, 0xf5, 0xff, 0x5a, 0x30]),
        // Memory and return data with whatever offsets are on the stack.
        2 => prop::sample::select(vec![0x52u8, 0x53, 0x51, 0x37, 0x39, 0x3e, 0x5e, 0xf3, 0xfd, 0x20]),
        // Comparisons, storage and logs (what the observer records).
        2 => prop::sample::select(vec![0x10u8, 0x11, 0x12, 0x13, 0x14, 0x15, 0x54, 0x55, 0x35, 0xa0, 0xa2]),
        // Small values: precompile addresses, sizes; and anything at all.
        2 => 0u8..0x12,
        3 => any::<u8>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(7),
        ..ProptestConfig::default()
    })]

    #[test]
    fn hostile_code_never_panics_anything(
        code in prop::collection::vec(op(), 0..300),
        calldata in prop::collection::vec(any::<u8>(), 0..80),
        targets in prop::collection::vec(0usize..320, 0..6),
    ) {
        prop_assert!(run_through_everything(&code, &calldata, &targets).is_some());
    }
}

/// Calls itself with all its gas until the call depth or the gas runs out:
/// `PUSH0 PUSH0 PUSH0 PUSH0 PUSH0 ADDRESS GAS CALL STOP`.
#[test]
fn recursion_to_the_call_depth_limit_ends() {
    let code = [0x5f, 0x5f, 0x5f, 0x5f, 0x5f, 0x30, 0x5a, 0xf1, 0x00];
    let calls = run_through_everything(&code, &[], &[0]).expect("it runs");
    // All 63/64 of the gas passes down each level: hundreds of frames deep before it runs
    // out (the observer records every one).
    assert!(calls > 300, "{calls} frames");
}

/// Returns (and reverts) with 4 GiB of return data, and copies return data far out of
/// bounds: out of gas, not out of memory.
#[test]
fn return_data_bombs_and_huge_memory_offsets_end() {
    // PUSH4 0xffffffff PUSH0 RETURN
    assert!(
        run_through_everything(&[0x63, 0xff, 0xff, 0xff, 0xff, 0x5f, 0xf3], &[], &[]).is_some()
    );
    // PUSH4 0xffffffff PUSH0 REVERT
    assert!(
        run_through_everything(&[0x63, 0xff, 0xff, 0xff, 0xff, 0x5f, 0xfd], &[], &[]).is_some()
    );
    // PUSH1 32 PUSH32 2^256-1 PUSH0 RETURNDATACOPY: out of bounds.
    let mut copy = vec![0x60, 0x20, 0x7f];
    copy.extend([0xff; 32]);
    copy.extend([0x5f, 0x3e]);
    assert!(run_through_everything(&copy, &[], &[]).is_some());
    // PUSH1 1 PUSH8 2^64-1 MSTORE8: a huge offset.
    let store = [
        0x60, 0x01, 0x67, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x53,
    ];
    assert!(run_through_everything(&store, &[], &[]).is_some());
}

/// Calls every precompile (0x01 to 0x11, and 0x100) with the calldata as garbage input.
#[test]
fn every_precompile_with_garbage_input_ends() {
    for precompile in (1u16..=0x11).chain([0x100]) {
        // CALLDATASIZE PUSH0 PUSH0 CALLDATACOPY; PUSH0 PUSH0 CALLDATASIZE PUSH0 PUSH0
        // PUSH2 <precompile> GAS CALL STOP
        let [high, low] = precompile.to_be_bytes();
        let code = [
            0x36, 0x5f, 0x5f, 0x37, 0x5f, 0x5f, 0x36, 0x5f, 0x5f, 0x61, high, low, 0x5a, 0xf1, 0x00,
        ];
        for garbage in [&[][..], &[0xff; 200][..], &[0x01; 7][..]] {
            assert!(
                run_through_everything(&code, garbage, &[]).is_some(),
                "{precompile:#x}"
            );
        }
    }
}

/// CREATE with garbage init code in memory, and init code that self-destructs or reverts.
#[test]
fn creations_of_garbage_and_of_self_destructing_code_end() {
    // PUSH32 <garbage> PUSH0 MSTORE; PUSH1 32 PUSH0 PUSH0 CREATE STOP
    let mut garbage = vec![0x7f];
    garbage.extend([0xfe, 0x5b, 0x56, 0x60, 0xff, 0x00, 0xf3, 0x57].repeat(4));
    garbage.extend([0x5f, 0x52, 0x60, 0x20, 0x5f, 0x5f, 0xf0, 0x00]);
    assert!(run_through_everything(&garbage, &[], &[]).is_some());
    // Init code `CALLER SELFDESTRUCT` (0x33 0xff) stored at memory 30..32, created.
    let selfdestructing = [
        0x61, 0x33, 0xff, 0x5f, 0x52, 0x60, 0x02, 0x60, 0x1e, 0x5f, 0xf0, 0x00,
    ];
    assert!(run_through_everything(&selfdestructing, &[], &[]).is_some());
}
