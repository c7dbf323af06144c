//! Soundness of the lookahead analysis against concrete execution: for random inputs to
//! `contracts/lookahead/Loops.sol` and `contracts/targets/Escrow.sol` and random target
//! sets, whenever the analysis says no target is reachable after a prefix of one run's
//! path, no other run that shares that prefix reaches a target after it.

use std::sync::atomic::{AtomicUsize, Ordering};

use alloy_dyn_abi::DynSolValue;
use harvey::chain::{Chain, TxOptions};
use harvey::lookahead::Lookahead;
use harvey::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use crate::support::{chain, tx, uint};

/// The pcs of every `JUMPDEST` in `code` (basic-block starts), skipping PUSH data.
fn jumpdests(code: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    let mut pc = 0;
    while pc < code.len() {
        let op = code[pc];
        if op == 0x5b {
            found.push(pc);
        }
        pc += 1 + if (0x60..=0x7f).contains(&op) {
            (op - 0x5f) as usize
        } else {
            0
        };
    }
    found
}

/// One input: the mode set first, then `run(a, b, n, k)`.
type Input = (u64, u64, u64, u8, u8);

/// The path `run` took through Loops for each input, from the same deployed state.
fn paths(chain: &mut Chain, loops: Address, inputs: &[Input]) -> Vec<Vec<u32>> {
    let byte = |v: u8| DynSolValue::Uint(U256::from(v), 8);
    inputs
        .iter()
        .map(|&(mode, a, b, n, k)| {
            chain
                .try_call_with(
                    loops,
                    "setMode(uint256)",
                    &[uint(mode)],
                    TxOptions::default(),
                )
                .unwrap();
            let args = [uint(a), uint(b), byte(n), byte(k)];
            path_of(chain, loops, "run(uint256,uint256,uint8,uint8)", &args)
        })
        .collect()
}

/// The path one call of `signature` took (its pcs in `to`'s code), run in the journal on
/// top of the chain's committed state and then dropped.
fn path_of(chain: &mut Chain, to: Address, signature: &str, args: &[DynSolValue]) -> Vec<u32> {
    let tx = tx(chain, to, signature, args);
    chain.execute(&tx).unwrap();
    let path = chain.last_trace().path().to_vec();
    chain.reset();
    path
}

/// How often the property was exercised: bounded analyses, and runs checked against them.
#[derive(Default)]
struct Exercised {
    bounded: AtomicUsize,
    pairs: AtomicUsize,
}

impl Exercised {
    /// Asserts that many prefixes were bounded and shared by other runs.
    fn assert_meaningful(self) {
        let (pairs, bounded) = (self.pairs.into_inner(), self.bounded.into_inner());
        assert!(bounded > 100, "{bounded} bounded analyses");
        assert!(
            pairs > bounded,
            "{pairs} runs checked against {bounded} prefixes"
        );
    }
}

/// The property on one set of `runs` through `code` towards `targets`: whenever the
/// analysis bounds a run's prefix, no run sharing that prefix reaches a target after it.
fn check_prefixes(
    code: &[u8],
    targets: &[usize],
    runs: &[Vec<u32>],
    exercised: &Exercised,
) -> Result<(), TestCaseError> {
    let mut analysis = Lookahead::new(code, targets.iter().copied());
    for run in runs {
        let verdict = analysis.analyze(run);
        if !verdict.bounded {
            continue;
        }
        exercised.bounded.fetch_add(1, Ordering::Relaxed);
        let prefix = &run[..verdict.prefix_len];
        for other in runs.iter().filter(|o| o.starts_with(prefix)) {
            exercised.pairs.fetch_add(1, Ordering::Relaxed);
            let reached = other[prefix.len()..]
                .iter()
                .find(|pc| targets.contains(&(**pc as usize)));
            prop_assert!(
                reached.is_none(),
                "no target ahead after {} pcs ending at pc {}, yet a run sharing them reached target {:?}",
                prefix.len(),
                prefix[prefix.len() - 1],
                reached
            );
        }
    }
    Ok(())
}

/// The blocks of `blocks` that `chosen` switches on.
fn chosen_targets(blocks: &[usize], chosen: &[bool]) -> Vec<usize> {
    blocks
        .iter()
        .zip(chosen)
        .filter(|(_, on)| **on)
        .map(|(pc, _)| *pc)
        .collect()
}

/// The property over 24 random cases, each 40 `inputs` (run through `record`, which gives
/// their paths through `code` from one state) and a random target set among `code`'s
/// blocks; then checks that the cases exercised it.
fn assert_sound<S: Strategy>(
    code: &[u8],
    inputs: S,
    record: impl Fn(&[S::Value]) -> Vec<Vec<u32>>,
) {
    let blocks = jumpdests(code);
    let case = (
        proptest::collection::vec(inputs, 40),
        proptest::collection::vec(any::<bool>(), blocks.len()),
    );
    let exercised = Exercised::default();
    let mut runner = TestRunner::new(Config {
        cases: 24,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&case, |(inputs, chosen)| {
            let targets = chosen_targets(&blocks, &chosen);
            check_prefixes(code, &targets, &record(&inputs), &exercised)
        })
        .unwrap();
    exercised.assert_meaningful();
}

#[test]
fn no_target_ahead_is_never_claimed_when_a_run_sharing_the_prefix_reaches_one() {
    let mut chain = chain();
    let loops = chain.deploy("Loops", ()).unwrap();
    chain.record_paths(true);
    let code = chain.artifact_at(loops).unwrap().runtime_code.to_vec();
    // The runner's closure is `Fn`; the chain is only borrowed inside one case at a time.
    let chain = std::cell::RefCell::new(chain);
    // Small values reach the loops and the modes; large ones the other branches.
    let value = prop_oneof![0u64..20, any::<u64>()];
    let input = (0u64..4, value.clone(), value, any::<u8>(), any::<u8>());
    assert_sound(&code, input, |inputs| {
        paths(&mut chain.borrow_mut(), loops, inputs)
    });
}

/// The same property on `contracts/targets/Escrow.sol` with a dispute open (storage read
/// from earlier transactions, loops over a storage array, a nonlinear check): random calls
/// of every function from that state.
#[test]
fn the_analysis_is_sound_on_the_escrow_too() {
    let mut chain = chain();
    let escrow = chain.deploy("Escrow", ()).unwrap();
    for (signature, arg) in [
        ("addMilestone(uint256)", 1),
        ("addMilestone(uint256)", 2),
        ("fund(uint256)", 3),
        ("dispute(uint256)", 3),
    ] {
        assert!(
            chain
                .try_call(escrow, signature, &[uint(arg)])
                .unwrap()
                .is_success()
        );
    }
    chain.record_paths(true);
    let code = chain.artifact_at(escrow).unwrap().runtime_code.to_vec();
    let chain = std::cell::RefCell::new(chain);
    const FUNCTIONS: [&str; 6] = [
        "addMilestone(uint256)",
        "fund(uint256)",
        "release(uint256)",
        "dispute(uint256)",
        "vote(bool,uint256)",
        "appeal(uint256)",
    ];
    let value = prop_oneof![0u64..16, Just(12u64), any::<u64>()];
    let input = (0..FUNCTIONS.len(), any::<bool>(), value);
    assert_sound(&code, input, |inputs| {
        let mut chain = chain.borrow_mut();
        inputs
            .iter()
            .map(|&(function, flag, value)| {
                let signature = FUNCTIONS[function];
                let args = match signature {
                    "vote(bool,uint256)" => vec![DynSolValue::Bool(flag), uint(value)],
                    _ => vec![uint(value)],
                };
                path_of(&mut chain, escrow, signature, &args)
            })
            .collect()
    });
}

#[test]
fn paths_are_recorded_for_the_transactions_own_frame_only_when_asked() {
    let mut chain = chain();
    let loops = chain.deploy("Loops", ()).unwrap();
    let tx = tx(
        &chain,
        loops,
        "setMode(uint256)",
        &[DynSolValue::Uint(U256::from(2), 256)],
    );
    chain.execute(&tx).unwrap();
    assert!(chain.last_trace().path().is_empty(), "off by default");
    chain.reset();
    chain.record_paths(true);
    chain.execute(&tx).unwrap();
    let path = chain.last_trace().path().to_vec();
    assert_eq!(path[0], 0, "starts at the first instruction");
    assert_eq!(
        path.len() as u64,
        chain.last_trace().steps(),
        "no calls: every step"
    );
}
