//! Soundness of the lookahead analysis against concrete execution: for random inputs to
//! `contracts/lookahead/Loops.sol` and `contracts/targets/Escrow.sol` and random target
//! sets, whenever the analysis says no target is reachable after a prefix of one run's
//! path, no other run that shares that prefix reaches a target after it; and every block
//! random calls to them (and to `contracts/report/Dead.sol`) enter is among the blocks the
//! analysis finds reachable from the contract's entry, which leave out Dead.sol's dead branch.

use std::sync::atomic::{AtomicUsize, Ordering};

use alloy_dyn_abi::DynSolValue;
use harvey::chain::{Chain, TxOptions};
use harvey::lookahead::{Lookahead, reachable_blocks};
use harvey::prelude::*;
use harvey::targets::{TargetSpec, resolve};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use crate::support::{artifacts, chain, repo, tx, uint};

const JUMPI: u8 = 0x57;
const JUMPDEST: u8 = 0x5b;

/// The pcs of every `JUMPDEST` in `code` (basic-block starts), skipping PUSH data.
fn jumpdests(code: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    let mut pc = 0;
    while pc < code.len() {
        let op = code[pc];
        if op == JUMPDEST {
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
            path_of(
                chain,
                loops,
                "run(uint256,uint256,uint8,uint8)",
                &args,
                false,
            )
        })
        .collect()
}

/// The path one call of `signature` took (its pcs in `to`'s code), run in the journal on
/// top of the chain's committed state, which then keeps its changes when `commit` and drops
/// them otherwise.
fn path_of(
    chain: &mut Chain,
    to: Address,
    signature: &str,
    args: &[DynSolValue],
    commit: bool,
) -> Vec<u32> {
    let tx = tx(chain, to, signature, args);
    chain.execute(&tx).unwrap();
    let path = chain.last_trace().path().to_vec();
    if commit {
        chain.commit();
    } else {
        chain.reset();
    }
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

/// A chain recording paths with `name` deployed, and its runtime code as deployed.
fn deployed_recording(name: &str) -> (Chain, Address, Vec<u8>) {
    let mut chain = chain();
    let at = chain.deploy(name, ()).unwrap();
    chain.record_paths(true);
    let code = chain.code(at).to_vec();
    (chain, at, code)
}

/// Random inputs to Loops: small values reach the loops and the modes; large ones the
/// other branches.
fn loops_input() -> impl Strategy<Value = Input> {
    let value = prop_oneof![0u64..20, any::<u64>()];
    (0u64..4, value.clone(), value, any::<u8>(), any::<u8>())
}

#[test]
fn no_target_ahead_is_never_claimed_when_a_run_sharing_the_prefix_reaches_one() {
    let (chain, loops, code) = deployed_recording("Loops");
    // The runner's closure is `Fn`; the chain is only borrowed inside one case at a time.
    let chain = std::cell::RefCell::new(chain);
    assert_sound(&code, loops_input(), |inputs| {
        paths(&mut chain.borrow_mut(), loops, inputs)
    });
}

/// How far [`escrow`] takes a fresh Escrow: planned, funded, then disputed.
const ESCROW_SETUP: [(&str, u64); 4] = [
    ("addMilestone(uint256)", 1),
    ("addMilestone(uint256)", 2),
    ("fund(uint256)", 3),
    ("dispute(uint256)", 3),
];

/// A chain recording paths with Escrow deployed and the first `steps` of [`ESCROW_SETUP`]
/// made, and its runtime code.
fn escrow(steps: usize) -> (Chain, Address, Vec<u8>) {
    let (mut chain, escrow, code) = deployed_recording("Escrow");
    for &(signature, arg) in &ESCROW_SETUP[..steps] {
        assert!(
            chain
                .try_call(escrow, signature, &[uint(arg)])
                .unwrap()
                .is_success()
        );
    }
    (chain, escrow, code)
}

/// One call of an Escrow function: which, and its `bool` and `uint256` arguments.
type EscrowCall = (usize, bool, u64);

/// Every function of Escrow.
const ESCROW_FUNCTIONS: [&str; 6] = [
    "addMilestone(uint256)",
    "fund(uint256)",
    "release(uint256)",
    "dispute(uint256)",
    "vote(bool,uint256)",
    "appeal(uint256)",
];

/// Random calls of every function of Escrow.
fn escrow_call() -> impl Strategy<Value = EscrowCall> {
    let value = prop_oneof![0u64..16, Just(12u64), any::<u64>()];
    (0..ESCROW_FUNCTIONS.len(), any::<bool>(), value)
}

/// The paths `calls` took through Escrow at `escrow`, each from the state the previous left
/// when `commit`, else each from the chain's committed state.
fn escrow_paths(
    chain: &mut Chain,
    escrow: Address,
    calls: &[EscrowCall],
    commit: bool,
) -> Vec<Vec<u32>> {
    calls
        .iter()
        .map(|&(function, flag, value)| {
            let signature = ESCROW_FUNCTIONS[function];
            let args = match signature {
                "vote(bool,uint256)" => vec![DynSolValue::Bool(flag), uint(value)],
                _ => vec![uint(value)],
            };
            path_of(chain, escrow, signature, &args, commit)
        })
        .collect()
}

/// The same property on `contracts/targets/Escrow.sol` with a dispute open (storage read
/// from earlier transactions, loops over a storage array, a nonlinear check): random calls
/// of every function from that state.
#[test]
fn the_analysis_is_sound_on_the_escrow_too() {
    let (chain, escrow, code) = escrow(ESCROW_SETUP.len());
    let chain = std::cell::RefCell::new(chain);
    assert_sound(&code, escrow_call(), |calls| {
        escrow_paths(&mut chain.borrow_mut(), escrow, calls, false)
    });
}

/// The blocks `path` entered in `code`, as the analysis delimits them: its first pc, every
/// `JUMPDEST` it ran, and every pc it fell through to from a `JUMPI` (a run enters no other
/// block start: the other block ends jump to a `JUMPDEST` or halt).
fn entered_blocks<'a>(code: &'a [u8], path: &'a [u32]) -> impl Iterator<Item = usize> + 'a {
    // Past the end the EVM reads STOP.
    let op = |pc: u32| code.get(pc as usize).copied().unwrap_or(0);
    path.iter()
        .enumerate()
        .filter(move |&(i, &pc)| i == 0 || op(pc) == JUMPDEST || op(path[i - 1]) == JUMPI)
        .map(|(_, &pc)| pc as usize)
}

/// `reachable_blocks` of `code` against 24 random `cases`, each run through `record` (which
/// gives the paths of its calls through `code`): every block a run enters is among them;
/// then checks that the runs entered at least half of them.
fn assert_entered_blocks_reachable<S: Strategy>(
    code: &[u8],
    cases: S,
    record: impl Fn(&S::Value) -> Vec<Vec<u32>>,
) {
    let reachable = reachable_blocks(code).expect("the analysis follows the contract");
    let entered = std::cell::RefCell::new(std::collections::BTreeSet::new());
    let mut runner = TestRunner::new(Config {
        cases: 24,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&cases, |case| {
            for path in record(&case) {
                for block in entered_blocks(code, &path) {
                    prop_assert!(
                        reachable.binary_search(&block).is_ok(),
                        "a run entered block {block}, which the analysis finds unreachable"
                    );
                    entered.borrow_mut().insert(block);
                }
            }
            Ok(())
        })
        .unwrap();
    // Calls with well-formed arguments and no value leave out the blocks that reject
    // others, and some that need rare states: half is plenty to mean something.
    let entered = entered.into_inner().len();
    assert!(
        entered * 2 >= reachable.len(),
        "the runs entered {entered} of {} reachable blocks",
        reachable.len()
    );
}

#[test]
fn every_block_a_run_enters_in_loops_is_reachable_for_the_analysis() {
    let (chain, loops, code) = deployed_recording("Loops");
    let chain = std::cell::RefCell::new(chain);
    assert_entered_blocks_reachable(
        &code,
        proptest::collection::vec(loops_input(), 40),
        |inputs| paths(&mut chain.borrow_mut(), loops, inputs),
    );
}

/// Random calls to Escrow from a fresh deployment, a funded plan or a dispute, each call
/// from the state the previous one left.
#[test]
fn every_block_a_run_enters_in_the_escrow_is_reachable_for_the_analysis() {
    let (_, _, code) = escrow(0);
    let start = prop::sample::select(vec![0, 3, ESCROW_SETUP.len()]);
    let cases = (start, proptest::collection::vec(escrow_call(), 40));
    assert_entered_blocks_reachable(&code, cases, |(steps, calls)| {
        let (mut chain, escrow, _) = escrow(*steps);
        escrow_paths(&mut chain, escrow, calls, true)
    });
}

/// The line of `contracts/report/Dead.sol` that contains `needle`.
fn dead_sol_line(needle: &str) -> u32 {
    let text = std::fs::read_to_string(repo().join("contracts/report/Dead.sol")).unwrap();
    let index = text.lines().position(|line| line.contains(needle));
    index.unwrap_or_else(|| panic!("no line contains {needle:?}")) as u32 + 1
}

/// Random `set` and `halve` calls to DeadBranch, each from the state the previous one left:
/// none enters a block the analysis finds unreachable, the dead branch's included.
#[test]
fn every_block_a_run_enters_in_the_dead_branch_is_reachable_for_the_analysis() {
    let (chain, dead, code) = deployed_recording("DeadBranch");
    let chain = std::cell::RefCell::new(chain);
    let call = (any::<bool>(), prop_oneof![0u64..8, any::<u64>()]);
    assert_entered_blocks_reachable(&code, proptest::collection::vec(call, 20), |calls| {
        let mut chain = chain.borrow_mut();
        calls
            .iter()
            .map(|&(halve, v)| {
                if halve {
                    path_of(&mut chain, dead, "halve()", &[], true)
                } else {
                    path_of(&mut chain, dead, "set(uint256)", &[uint(v)], true)
                }
            })
            .collect()
    });
}

/// The line in `if (MODE == 2) { ... }` of Dead.sol, where `MODE` is the constant 1: its
/// code is compiled (the optimizer is off) and the analysis, folding the condition, finds
/// none of its blocks reachable, while the line after the branch is.
#[test]
fn the_dead_branch_of_dead_sol_is_unreachable_for_the_analysis() {
    let artifacts = artifacts();
    let file = "contracts/report/Dead.sol";
    let (dead, live) = (dead_sol_line("value = 0;"), dead_sol_line("value /= 2;"));
    let spec: TargetSpec = format!("{file}:{dead},{file}:{live}").parse().unwrap();
    let resolved = resolve(&spec, repo(), &artifacts).unwrap();
    let blocks = |line: u32| {
        let target = resolved
            .targets
            .iter()
            .find(|t| t.contract == "DeadBranch" && t.line == line);
        target
            .unwrap_or_else(|| panic!("line {line} has no code"))
            .pcs
            .clone()
    };
    // The artifact's code is the deployed one: DeadBranch has no immutables.
    let code = &artifacts.get("DeadBranch").unwrap().runtime_code;
    let reachable = reachable_blocks(code).expect("the analysis follows DeadBranch");
    let dead_blocks = blocks(dead);
    assert!(
        dead_blocks
            .iter()
            .all(|pc| reachable.binary_search(pc).is_err()),
        "the dead line's blocks {dead_blocks:?} among the reachable {reachable:?}"
    );
    let live_blocks = blocks(live);
    assert!(
        live_blocks
            .iter()
            .all(|pc| reachable.binary_search(pc).is_ok()),
        "the live line's blocks {live_blocks:?} not all among the reachable {reachable:?}"
    );
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
