//! The engine's transactions per second on the big-protocol fixture (`LendingSoundTest` in
//! `tests/fixtures/forge-suites`: six contracts, twelve invariants, a handler of ten
//! functions with `uint8` selectors and `vm.prank`; the sound variant, so that every
//! campaign spends its budget) against revm running the same kind of job by itself.
//!
//! A handler suite cannot run on bare revm: its handler calls `vm.prank` and `vm.warp`, its
//! invariants assert through `vm.assertEq` and its kin. The baseline is therefore revm with
//! an inspector that does nothing but those cheatcodes (`prank`, `warp`, `label`, `assume`
//! and the `uint256` assertions, each as forge defines it; any other cheatcode stops the
//! bench) and does nothing per instruction, though revm's inspected loop still calls it
//! around each one (about a tenth of a bare call's time, by the revm notes): the least a
//! tool must add to revm to run the suite at all. It has no keccak memo, as bare revm has
//! none; harvey's engine has one. It runs the suite as forge runs it, with nothing skipped and nothing
//! learned: `setUp()`, then sequences of [`SEQUENCE`] calls of the suite's target selectors
//! with arguments drawn uniformly over their types, and after every call every invariant
//! (forge checks them all after every call). A second bare row leaves the invariants out,
//! so that the calls' own cost is apart.
//!
//! The engine runs `Campaign::forge_suite("LendingSoundTest")` with its defaults (release
//! build, one worker) for a number of sequences per seed, and once more with every
//! invariant checked after every call, as the bare row and forge check them
//! (`skip_unchanged_invariants = false`). Its transactions are the handler
//! calls, as the bare rows' are; the invariant calls are counted in neither. The table gives
//! medians over the seeds, the engine's ratio to each bare row, the EVM instructions per
//! transaction on each side (the mixes differ: the engine's calls are its own choice) and
//! the engine's invariant checks run and skipped.
//!
//! Run with `cargo bench --bench protocol_speed`. Settings:
//! - `HARVEY_BENCH_SEEDS=n`: seeds 1..=n (default 3);
//! - `HARVEY_SPEED_RUNS=n`: the engine's sequences per campaign (default 3,000);
//! - `HARVEY_SPEED_CALLS=n`: the bare rows' calls per seed (default 20,000).

use std::path::Path;
use std::sync::LazyLock;
use std::time::Instant;

use alloy_json_abi::{Function, JsonAbi};
use alloy_primitives::{Address, Bytes, FixedBytes, U256, keccak256};
use alloy_sol_types::{SolCall, SolValue};
use harvey::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use revm::bytecode::Bytecode;
use revm::context::JournalTr;
use revm::database::{CacheDB, EmptyDB};
use revm::handler::{MainnetContext, MainnetEvm};
use revm::interpreter::interpreter::EthInterpreter;
use revm::interpreter::{
    CallInputs, CallOutcome, Gas, InstructionResult, Interpreter, InterpreterResult,
};
use revm::primitives::TxKind;
use revm::state::AccountInfo;
use revm::{Context, InspectCommitEvm, InspectEvm, Inspector, MainBuilder, MainContext};

// Shared with benches that use all of it.
#[allow(dead_code)]
#[path = "support/bare.rs"]
mod bare;
#[path = "support/forge_suites.rs"]
mod forge_suites;
#[path = "support/root.rs"]
mod root;
// Shared with benches that use all of it.
#[allow(dead_code)]
#[path = "support/timing.rs"]
mod timing;
use timing::{bench_seeds, median_rate, short_commit};

alloy_sol_types::sol! {
    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }
    function setUp();
    function targetSelectors() returns (FuzzSelector[] memory);
}

/// The suite measured: the fixture's big protocol with its planted bugs fixed.
const SUITE: &str = "LendingSoundTest";

/// Calls per sequence in the bare rows (Echidna's and Medusa's default length; forge's is
/// 500). Each sequence starts again from the state `setUp()` left.
const SEQUENCE: usize = 100;

fn main() {
    let Some(seeds) = bench_seeds(3) else { return };
    let count = |name: &str, default: u64| -> u64 {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let runs = count("HARVEY_SPEED_RUNS", 3_000);
    let calls = count("HARVEY_SPEED_CALLS", 20_000) as usize;
    let (fixture, artifacts) = forge_suites::compiled_fixture();
    let commit = short_commit(root::harvey_root());
    println!(
        "engine throughput on {SUITE} at {commit}: the engine {runs} sequences per campaign (defaults, one worker), \
         bare revm {calls} calls in sequences of {SEQUENCE}, medians of seeds 1..={seeds}"
    );
    let suite = BareSuite::new(&artifacts);
    let mut with_invariants = Vec::new();
    let mut calls_only = Vec::new();
    let mut engine = Vec::new();
    let mut unskipped = Vec::new();
    for seed in 1..=seeds {
        with_invariants.push(suite.run(seed, calls, true, false));
        calls_only.push(suite.run(seed, calls, false, false));
        engine.push(engine_speed(&fixture, runs, seed, true));
        unskipped.push(engine_speed(&fixture, runs, seed, false));
    }
    // Instructions are counted in a run of their own: counting is a hook per instruction,
    // which the timed runs do not pay.
    let bare_instructions = suite
        .run(1, calls.min(5_000), false, true)
        .instructions_per_call;
    let with_invariants = median_rate(with_invariants.iter().map(|r| r.calls_per_sec));
    let calls_only = median_rate(calls_only.iter().map(|r| r.calls_per_sec));
    println!(
        "  {:<58} {:>8} {:>14} {:>14} {:>9}",
        "configuration", "tx/s", "of bare (inv.)", "of bare (calls)", "instr/tx"
    );
    println!(
        "  {:<58} {with_invariants:>8.0} {:>14.2} {:>14} {bare_instructions:>9.0}",
        "bare revm + cheatcodes, every invariant after every call", 1.0, ""
    );
    println!(
        "  {:<58} {calls_only:>8.0} {:>14} {:>14.2} {bare_instructions:>9.0}",
        "bare revm + cheatcodes, calls only", "", 1.0
    );
    for (name, speeds) in [
        ("harvey, defaults", &engine),
        (
            "harvey, defaults, skip_unchanged_invariants = false",
            &unskipped,
        ),
    ] {
        let rate = median_rate(speeds.iter().map(|s| s.tx_per_sec));
        println!(
            "  {name:<58} {rate:>8.0} {:>14.2} {:>14.2} {:>9.0}",
            rate / with_invariants,
            rate / calls_only,
            median_rate(speeds.iter().map(|s| s.instructions_per_tx))
        );
    }
    println!(
        "  harvey, defaults: {:.0}% of fuzzing time in the checks, {:.0}% of its invariant checks skipped (median of seeds)",
        median_rate(engine.iter().map(|s| s.checks_share)) * 100.0,
        median_rate(engine.iter().map(|s| s.skipped_share)) * 100.0
    );
    println!(
        "  (tx/s: handler calls per second, the invariant calls after them included in the time and counted in neither;"
    );
    println!("  instr/tx: EVM instructions per handler call, every frame's, invariants left out)");
}

/// One engine campaign's speed.
struct Speed {
    /// Handler calls per second of fuzzing.
    tx_per_sec: f64,
    /// EVM instructions per handler call (every frame's).
    instructions_per_tx: f64,
    /// The share of the fuzzing time spent in the checks after the calls.
    checks_share: f64,
    /// The share of invariant checks skipped as unchanged.
    skipped_share: f64,
}

/// The engine with its defaults on the suite, `runs` sequences from `seed`, skipping the
/// invariants nothing a call wrote can have changed (the default) or not.
fn engine_speed(fixture: &Path, runs: u64, seed: u64, skip: bool) -> Speed {
    let outcome = Campaign::new(fixture)
        .forge_suite(SUITE)
        .seed(seed)
        .runs(runs)
        .workers(1)
        .skip_unchanged_invariants(skip)
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        outcome.passed(),
        "{SUITE} has no bug: the campaign must spend its {runs} sequences, but it found {}",
        outcome
            .failure()
            .map_or("no violation".to_string(), |f| f.violation.to_string())
    );
    let stats = &outcome.stats;
    let time = &stats.time;
    let checks = time.invariants_checked + time.invariants_skipped;
    Speed {
        tx_per_sec: stats.execs_per_sec(),
        instructions_per_tx: time.instructions as f64 / stats.transactions as f64,
        checks_share: time.checks.as_secs_f64() / stats.elapsed.as_secs_f64(),
        skipped_share: time.invariants_skipped as f64 / checks.max(1) as f64,
    }
}

/// The suite set up on revm with the [`Cheats`] inspector: the state after `setUp()` and
/// the calls a job makes.
struct BareSuite {
    /// The state `setUp()` left.
    base: CacheDB<EmptyDB>,
    /// The block `setUp()` left (a `warp` in a sequence moves it).
    block: revm::context::BlockEnv,
    /// The test contract.
    test: Address,
    /// The handler functions the suite targets, with the contract they are called on.
    targets: Vec<(Address, Function)>,
    /// The invariant functions' selectors (forge's: public functions named `invariant*`).
    invariants: Vec<[u8; 4]>,
}

/// What one bare run measured.
struct BareRun {
    /// Handler calls per second, the invariants after them (when run) included in the time.
    calls_per_sec: f64,
    /// EVM instructions per handler call, when counted.
    instructions_per_call: f64,
}

/// The address the bare rows send every call from (forge's default sender's role).
const SENDER: Address = Address::new([0x10; 20]);

/// The address the test contract is deployed from.
const DEPLOYER: Address = Address::new([0xd3; 20]);

impl BareSuite {
    /// Deploys the suite's test contract, runs its `setUp()` and reads its targets.
    fn new(artifacts: &harvey::project::Artifacts) -> BareSuite {
        let test_artifact = artifacts.get(SUITE).unwrap_or_else(|e| panic!("{e}"));
        let mut evm = cheating_evm(CacheDB::default(), Cheats::default());
        let created = evm
            .inspect_tx_commit(bare::tx_env(
                DEPLOYER,
                TxKind::Create,
                test_artifact.creation_code.clone(),
                U256::ZERO,
            ))
            .expect("the test contract deploys");
        let test = created
            .created_address()
            .unwrap_or_else(|| panic!("the test contract's constructor failed: {created:?}"));
        let set_up = evm
            .inspect_tx_commit(call(DEPLOYER, test, setUpCall {}.abi_encode()))
            .expect("setUp runs");
        assert!(set_up.is_success(), "setUp failed: {set_up:?}");
        let answer = evm
            .inspect_tx(call(DEPLOYER, test, targetSelectorsCall {}.abi_encode()))
            .expect("targetSelectors runs");
        let output = answer.result.output().cloned().unwrap_or_default();
        let selectors = targetSelectorsCall::abi_decode_returns(&output)
            .expect("targetSelectors answers FuzzSelector[]");
        let targets = selectors
            .iter()
            .flat_map(|target| {
                let abi = abi_at(artifacts, &evm, target.addr);
                target.selectors.iter().map(move |selector| {
                    let function = abi
                        .functions()
                        .find(|f| f.selector() == *selector)
                        .unwrap_or_else(|| panic!("no function {selector} at {}", target.addr))
                        .clone();
                    (target.addr, function)
                })
            })
            .collect::<Vec<_>>();
        assert!(!targets.is_empty(), "{SUITE} targets no selector");
        let invariants = test_artifact
            .abi
            .functions()
            .filter(|f| f.name.starts_with("invariant"))
            .map(|f| f.selector().0)
            .collect::<Vec<_>>();
        let block = evm.ctx.block.clone();
        let base = evm.ctx.journaled_state.database.clone();
        BareSuite {
            base,
            block,
            test,
            targets,
            invariants,
        }
    }

    /// `calls` handler calls from `seed`, in sequences of [`SEQUENCE`] from the state after
    /// setUp, each followed by every invariant when `invariants` (every one must hold: the
    /// suite is sound); instructions counted when `count`.
    fn run(&self, seed: u64, calls: usize, invariants: bool, count: bool) -> BareRun {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut evm = cheating_evm(
            self.base.clone(),
            Cheats {
                count,
                ..Cheats::default()
            },
        );
        let invariant_calls: Vec<_> = self
            .invariants
            .iter()
            .map(|selector| call(SENDER, self.test, selector.to_vec()))
            .collect();
        let start = Instant::now();
        for i in 0..calls {
            if i % SEQUENCE == 0 {
                evm.ctx.journaled_state.database = self.base.clone();
                evm.ctx.block = self.block.clone();
            }
            // A prank its frame never used ends with that frame, as in forge: it must not
            // reach into the next transaction.
            evm.inspector.prank = None;
            let (to, function) = &self.targets[rng.random_range(0..self.targets.len())];
            let calldata = uniform_calldata(function, &mut rng);
            // A reverted call is part of the job, as in a campaign.
            evm.inspect_tx_commit(call(SENDER, *to, calldata))
                .expect("a handler call executes");
            if invariants {
                for invariant in &invariant_calls {
                    let held = evm
                        .inspect_tx(invariant.clone())
                        .expect("an invariant runs");
                    assert!(
                        held.result.is_success(),
                        "{SUITE} is sound, yet an invariant failed: {:?}",
                        held.result
                    );
                }
            }
        }
        let elapsed = start.elapsed().as_secs_f64();
        BareRun {
            calls_per_sec: calls as f64 / elapsed,
            instructions_per_call: evm.inspector.instructions as f64 / calls as f64,
        }
    }
}

/// The ABI of the contract deployed at `at` on `evm`, found by its runtime code.
fn abi_at(artifacts: &harvey::project::Artifacts, evm: &CheatingEvm, at: Address) -> JsonAbi {
    let code = evm
        .ctx
        .journaled_state
        .database
        .cache
        .accounts
        .get(&at)
        .and_then(|account| account.info.code.as_ref())
        .map(|code| code.original_bytes())
        .unwrap_or_else(|| panic!("no code at the target {at}"));
    artifacts
        .by_runtime_code(&code)
        .unwrap_or_else(|| panic!("no artifact has the code at {at}"))
        .abi
        .clone()
}

/// Calldata for `function` with every argument uniform over its type (the suite's handler
/// takes unsigned integers only; any other type stops the bench).
fn uniform_calldata(function: &Function, rng: &mut StdRng) -> Vec<u8> {
    let mut calldata = function.selector().to_vec();
    for input in &function.inputs {
        let bits: usize = input
            .ty
            .strip_prefix("uint")
            .and_then(|bits| bits.parse().ok())
            .unwrap_or_else(|| {
                panic!(
                    "{}: argument type {} not drawn here",
                    function.name, input.ty
                )
            });
        let word = U256::from_limbs(rng.random::<[u64; 4]>());
        let word = if bits == 256 {
            word
        } else {
            word & ((U256::ONE << bits) - U256::ONE)
        };
        calldata.extend_from_slice(&word.to_be_bytes::<32>());
    }
    calldata
}

/// A call of `to` with `data` from `caller`.
fn call(caller: Address, to: Address, data: Vec<u8>) -> revm::context::TxEnv {
    bare::tx_env(caller, TxKind::Call(to), data.into(), U256::ZERO)
}

/// revm with the [`Cheats`] inspector.
type CheatingEvm = MainnetEvm<MainnetContext<CacheDB<EmptyDB>>, Cheats>;

/// revm on `db` with `cheats` as its inspector, configured as forge runs a test (no
/// contract size limit, nonce checks off) and as harvey's chain does; the senders funded
/// and forge's cheatcode address given code, so that Solidity's check for code before a
/// call passes.
fn cheating_evm(mut db: CacheDB<EmptyDB>, cheats: Cheats) -> CheatingEvm {
    for account in [SENDER, DEPLOYER] {
        db.insert_account_info(account, AccountInfo::from_balance(U256::MAX >> 8));
    }
    let code = Bytecode::new_raw(Bytes::from_static(&[0]));
    db.insert_account_info(
        harvey::chain::CHEATCODE_ADDRESS,
        AccountInfo::from_bytecode(code),
    );
    Context::mainnet()
        .with_db(db)
        .modify_cfg_chained(|cfg| {
            cfg.disable_nonce_check = true;
            cfg.disable_base_fee = true;
            cfg.limit_contract_code_size = Some(usize::MAX);
        })
        .build_mainnet_with_inspector(cheats)
}

/// The cheatcodes the suite calls, and nothing else: nothing per instruction unless
/// instructions are counted.
#[derive(Default)]
struct Cheats {
    /// A `vm.prank` waiting for its call: the frame that set it, its journal depth and the
    /// sender the call is to have.
    prank: Option<(Address, usize, Address)>,
    /// Whether [`Cheats::instructions`] counts.
    count: bool,
    /// EVM instructions run, when counted.
    instructions: u64,
}

impl Inspector<MainnetContext<CacheDB<EmptyDB>>> for Cheats {
    fn step(
        &mut self,
        _interp: &mut Interpreter<EthInterpreter>,
        _context: &mut MainnetContext<CacheDB<EmptyDB>>,
    ) {
        if self.count {
            self.instructions += 1;
        }
    }

    fn call(
        &mut self,
        context: &mut MainnetContext<CacheDB<EmptyDB>>,
        inputs: &mut CallInputs,
    ) -> Option<CallOutcome> {
        let depth = context.journaled_state.depth();
        if inputs.target_address == harvey::chain::CHEATCODE_ADDRESS {
            let data = inputs.input.bytes(context);
            let (result, output) = match self.cheat(context, inputs.caller, depth, &data) {
                Ok(()) => (InstructionResult::Return, Bytes::new()),
                Err(message) => (InstructionResult::Revert, revert_reason(&message)),
            };
            return Some(CallOutcome::new(
                InterpreterResult::new(result, output, Gas::new(inputs.gas_limit)),
                inputs.return_memory_offset.clone(),
            ));
        }
        if inputs.target_address != harvey::chain::CONSOLE_ADDRESS {
            if let Some((setter, at, sender)) = self.prank {
                if setter == inputs.caller && at == depth {
                    inputs.caller = sender;
                    self.prank = None;
                }
            }
        }
        None
    }
}

impl Cheats {
    /// Carries out the cheatcode `data` called by `caller` at journal depth `depth`;
    /// `Err` is a failed assertion's or assumption's message.
    fn cheat(
        &mut self,
        context: &mut MainnetContext<CacheDB<EmptyDB>>,
        caller: Address,
        depth: usize,
        data: &[u8],
    ) -> Result<(), String> {
        let selector: [u8; 4] = data[..4]
            .try_into()
            .expect("a cheatcode call has a selector");
        let args = &data[4..];
        let word = |i: usize| U256::from_be_slice(&args[32 * i..32 * (i + 1)]);
        let known = &*KNOWN;
        if selector == known.prank {
            self.prank = Some((caller, depth, Address::from_word(word(0).into())));
        } else if selector == known.warp {
            context.block.timestamp = word(0);
        } else if selector == known.assume {
            if word(0).is_zero() {
                return Err("vm.assume rejected the input".into());
            }
        } else if selector != known.label {
            let (name, holds) = known
                .comparisons
                .iter()
                .find(|(selectors, _, _)| selectors.contains(&selector))
                .map(|(_, name, holds)| (name, holds))
                .unwrap_or_else(|| {
                    panic!(
                        "{SUITE} called the cheatcode {}, which this bench's inspector does not do",
                        FixedBytes::from(selector)
                    )
                });
            let (left, right) = (word(0), word(1));
            if !holds(&left, &right) {
                return Err(format!("{name} failed: {left} against {right}"));
            }
        }
        Ok(())
    }
}

/// The selectors of the cheatcodes [`Cheats`] does, hashed once (not in the timed calls).
struct Known {
    prank: [u8; 4],
    warp: [u8; 4],
    label: [u8; 4],
    assume: [u8; 4],
    /// The `uint256` assertions (with and without a message), their names and what holds.
    comparisons: Vec<([[u8; 4]; 2], &'static str, Holds)>,
}

/// Whether an assertion holds of its two operands.
type Holds = fn(&U256, &U256) -> bool;

/// The selector of `signature`.
fn selector(signature: &str) -> [u8; 4] {
    keccak256(signature)[..4].try_into().expect("four bytes")
}

static KNOWN: LazyLock<Known> = LazyLock::new(|| {
    let comparisons: [(&'static str, Holds); 5] = [
        ("assertEq", |l, r| l == r),
        ("assertGe", |l, r| l >= r),
        ("assertLe", |l, r| l <= r),
        ("assertGt", |l, r| l > r),
        ("assertLt", |l, r| l < r),
    ];
    Known {
        prank: selector("prank(address)"),
        warp: selector("warp(uint256)"),
        label: selector("label(address,string)"),
        assume: selector("assume(bool)"),
        comparisons: comparisons
            .into_iter()
            .map(|(name, holds)| {
                let selectors = [
                    selector(&format!("{name}(uint256,uint256)")),
                    selector(&format!("{name}(uint256,uint256,string)")),
                ];
                (selectors, name, holds)
            })
            .collect(),
    }
});

/// `message` as Solidity's `Error(string)` revert data.
fn revert_reason(message: &str) -> Bytes {
    let mut data = keccak256("Error(string)")[..4].to_vec();
    data.extend_from_slice(&(message.to_string(),).abi_encode_params());
    data.into()
}
