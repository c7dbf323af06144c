//! The engine's transactions per second on `Bank` (`contracts/bugs/Bank.sol`) against bare
//! revm running a mix of the same three functions on the same bytecode: what a campaign
//! costs per transaction beyond the EVM's own work (mutation, execution under the
//! observer, oracles and invariants after every transaction, the corpus, the stages).
//!
//! Each configuration runs a fixed number of sequences per seed; the table gives the median
//! tx/s over the seeds and the median over the seeds of its ratio to bare revm's, measured
//! right before and right after each campaign (their mean): this machine's speed drifts by
//! a third within minutes, so only rates taken side by side are compared; and
//! where the engine's time went (the campaign's own sampled split, `Stats::time`): executing
//! transactions (revm under harvey's inspector), the checks after them (oracles, detectors,
//! invariants), and the rest (mutation, coverage and the stages' bookkeeping, the corpus).
//! The first is also given per transaction, beside bare revm's.
//!
//! A second table runs bare revm's own three calls through `Chain::execute` under harvey's
//! observer (as the engine runs every transaction: data decisions recorded, and then also
//! the data flows the default detectors follow), so that the observer's cost on the same
//! transactions is apart from the campaign's mix of transactions, which differs from
//! bare revm's; and once more with the observer called around every instruction, as
//! revm's own inspected loop calls an inspector, against the chain's sparse loop, which
//! calls it only around the instructions it records.
//!
//! Run with `cargo bench --bench engine_speed`. Settings:
//! - `HARVEY_BENCH_SEEDS=n`: seeds 1..=n (default 3);
//! - `HARVEY_SPEED_RUNS=n`: sequences per campaign (default 20,000);
//! - `HARVEY_SPEED_ROWS=a,b`: only the configurations whose names contain one of these
//!   (e.g. `defaults` alone, under `perf record`).

use std::path::Path;
use std::time::Instant;

use alloy_sol_types::SolCall;
use harvey::chain::Tx;
use harvey::observe::FlowSet;
use harvey::prelude::*;
use revm::primitives::TxKind;
use revm::{ExecuteCommitEvm, ExecuteEvm};

#[path = "support/bare.rs"]
mod bare;
#[path = "support/root.rs"]
mod root;
// Shared with benches that use all of it.
#[allow(dead_code)]
#[path = "support/timing.rs"]
mod timing;
use bare::bare_evm;
use timing::{bench_seeds, median_rate, short_commit};

alloy_sol_types::sol! {
    function deposit();
    function withdraw(uint256 amount);
    function transfer(address to, uint256 amount);
}

/// One engine configuration the table measures.
struct Row {
    /// Its name in the table (and for `HARVEY_SPEED_ROWS`).
    name: &'static str,
    /// Whether input prediction runs.
    prediction: bool,
    /// Whether a Rust invariant (one view call and a balance read) runs after every
    /// transaction.
    invariant: bool,
    /// Whether the default vulnerability detectors run (else the Panic oracle alone).
    detectors: bool,
}

/// The configurations, cheapest first; `defaults` is what a Rust test gets.
const ROWS: [Row; 5] = [
    Row {
        name: "no prediction, Panic oracle only",
        prediction: false,
        invariant: false,
        detectors: false,
    },
    Row {
        name: "prediction, Panic oracle only",
        prediction: true,
        invariant: false,
        detectors: false,
    },
    Row {
        name: "prediction, Panic only + invariant",
        prediction: true,
        invariant: true,
        detectors: false,
    },
    Row {
        name: "defaults (prediction, detectors)",
        prediction: true,
        invariant: false,
        detectors: true,
    },
    Row {
        name: "defaults + invariant",
        prediction: true,
        invariant: true,
        detectors: true,
    },
];

fn main() {
    let Some(seeds) = bench_seeds(3) else {
        return;
    };
    let root = root::harvey_root();
    let runs: u64 = std::env::var("HARVEY_SPEED_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let only: Vec<String> = std::env::var("HARVEY_SPEED_ROWS")
        .map(|s| s.split(',').map(str::trim).map(String::from).collect())
        .unwrap_or_default();
    let rows: Vec<&Row> = ROWS
        .iter()
        .filter(|row| only.is_empty() || only.iter().any(|o| row.name.contains(o.as_str())))
        .collect();
    println!(
        "engine throughput on Bank at {}, {runs} sequences per campaign, median of seeds 1..={seeds}, against bare revm",
        short_commit(root)
    );
    let mut bare = Vec::new();
    let mut engine: Vec<Vec<Paired>> = vec![Vec::new(); rows.len()];
    for seed in 1..=seeds {
        for (row, speeds) in rows.iter().zip(&mut engine) {
            let before = bare_revm_calls_per_sec(root);
            let speed = engine_speed(root, runs, seed, row);
            let after = bare_revm_calls_per_sec(root);
            bare.extend([before, after]);
            speeds.push(Paired {
                speed,
                bare: (before + after) / 2.0,
            });
        }
    }
    let bare = median_rate(bare);
    let bare_instructions = bare_instructions_per_call(root);
    println!(
        "  {:<36} {:>8} {:>11} {:>9} {:>8} {:>9} {:>7} {:>6} {:>9} {:>9}",
        "configuration",
        "tx/s",
        "engine/bare",
        "slowdown",
        "µs/tx",
        "EVM µs/tx",
        "checks",
        "rest",
        "instr/tx",
        "per instr"
    );
    println!(
        "  {:<36} {bare:>8.0} {:>11} {:>9} {:>8.2} {:>9.2} {:>7} {:>6} {bare_instructions:>9.0} {:>9}",
        "bare revm",
        "",
        "",
        1e6 / bare,
        1e6 / bare,
        "",
        "",
        "1.00"
    );
    for (row, pairs) in rows.iter().zip(&engine) {
        let median_of = |of: &dyn Fn(&Paired) -> f64| median_rate(pairs.iter().map(of));
        let rate = median_of(&|p| p.speed.tx_per_sec);
        let evm = median_of(&|p| p.speed.evm_share);
        let checks = median_of(&|p| p.speed.checks_share);
        let instructions = median_of(&|p| p.speed.instructions_per_tx);
        let against_bare = median_of(&|p| p.speed.tx_per_sec / p.bare);
        let per_instruction = median_of(&|p| {
            p.speed.tx_per_sec * p.speed.instructions_per_tx / (p.bare * bare_instructions)
        });
        println!(
            "  {:<36} {rate:>8.0} {against_bare:>11.2} {:>8.2}x {:>8.2} {:>9.2} {:>6.0}% {:>5.0}% {instructions:>9.0} {per_instruction:>9.2}",
            row.name,
            1.0 / against_bare,
            1e6 / rate,
            1e6 / rate * evm,
            checks * 100.0,
            (1.0 - evm - checks) * 100.0
        );
    }
    println!(
        "  (bare revm: the median of its runs; engine/bare, slowdown and per instr: medians over the"
    );
    println!(
        "  seeds of each campaign against the mean of the bare runs right before and after it;"
    );
    println!(
        "  µs/tx: the campaign's time per transaction; EVM µs/tx: the part of it spent executing,"
    );
    println!("  from the campaign's sampled time split; checks and rest: the other parts' shares;");
    println!(
        "  instr/tx: EVM instructions per transaction, every frame's; per instr: the engine's"
    );
    println!("  instructions per second against bare revm's, the ratio at the campaign's own mix)");
    observed_same_calls(root, bare);
}

/// The second table: bare revm's three calls through `Chain::execute` under the observer,
/// with the chain's own recording and with the default detectors' data flows followed,
/// per transaction against bare revm's `bare` calls per second.
fn observed_same_calls(root: &Path, bare: f64) {
    let every_flow = FlowSet {
        wraps: true,
        block: true,
        balance: true,
        origin: true,
    };
    println!("the same three calls under harvey's observer (Chain::execute, reset every 3 calls):");
    for (what, flows, every_instruction) in [
        ("observer (data decisions)", FlowSet::default(), false),
        ("observer + the detectors' flows", every_flow, false),
        (
            "observer, every instruction inspected",
            FlowSet::default(),
            true,
        ),
    ] {
        let rate = observed_calls_per_sec(root, flows, every_instruction);
        println!(
            "  {what:<36} {rate:>8.0} tx/s {:>8.2} µs/tx   {:.2}x bare revm's time",
            1e6 / rate,
            bare / rate
        );
    }
}

/// `Chain::execute` on [`bank_calls`] in turn (as bare revm runs them), following `flows`,
/// with the observer called around `every_instruction` (revm's own inspected loop) or only
/// around the instructions it records (the chain's default).
fn observed_calls_per_sec(root: &Path, flows: FlowSet, every_instruction: bool) -> f64 {
    let (mut chain, mix) = observed_bank(root);
    chain.follow_flows(flows);
    chain.inspect_every_instruction(every_instruction);
    calls_per_sec(|i| {
        let outcome = chain.execute(&mix[i % mix.len()]).expect("observed call");
        assert!(outcome.is_success());
        if i % mix.len() == mix.len() - 1 {
            chain.reset();
        }
    })
}

/// EVM instructions per call of [`bank_calls`] (every frame's, as the campaign counts
/// them): deterministic, so counted once, under the observer.
fn bare_instructions_per_call(root: &Path) -> f64 {
    let (mut chain, mix) = observed_bank(root);
    let instructions: u64 = mix
        .iter()
        .map(|call| {
            chain.execute(call).expect("observed call");
            chain.last_trace().steps()
        })
        .sum();
    instructions as f64 / mix.len() as f64
}

/// A chain with Bank deployed and seeded (committed), and [`bank_calls`] as its
/// transactions.
fn observed_bank(root: &Path) -> (Chain, [Tx; 3]) {
    let artifacts = harvey::project::compiled(root).unwrap_or_else(|e| panic!("{e}"));
    let mut chain = Chain::new(artifacts);
    let bank = chain.deploy("Bank", ()).unwrap_or_else(|e| panic!("{e}"));
    let sender = chain.senders()[0];
    let call = |calldata: Vec<u8>, value: U256| Tx {
        sender,
        to: bank,
        calldata: calldata.into(),
        value,
        ..Tx::default()
    };
    let seeded = chain
        .execute(&call(depositCall {}.abi_encode(), U256::from(SEED_DEPOSIT)))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(seeded.is_success());
    chain.commit();
    let mix = bank_calls().map(|(calldata, value)| call(calldata, value));
    (chain, mix)
}

/// One campaign's speed, with bare revm's measured beside it.
#[derive(Clone, Copy)]
struct Paired {
    /// The campaign's.
    speed: Speed,
    /// Bare revm's calls per second: the mean of its runs right before and right after.
    bare: f64,
}

/// One campaign's speed and where its time went.
#[derive(Clone, Copy)]
struct Speed {
    /// Transactions per second of fuzzing.
    tx_per_sec: f64,
    /// The share of the fuzzing time spent executing transactions.
    evm_share: f64,
    /// The share spent in the checks after them.
    checks_share: f64,
    /// EVM instructions per transaction (every frame's).
    instructions_per_tx: f64,
}

/// The engine's speed on Bank in configuration `row`.
fn engine_speed(root: &Path, runs: u64, seed: u64, row: &Row) -> Speed {
    let campaign = Campaign::new(root)
        .contract("Bank")
        .seed(seed)
        .runs(runs)
        .workers(1)
        .prediction(row.prediction);
    let campaign = if row.detectors {
        campaign
    } else {
        campaign.detectors(DetectorSet::none())
    };
    let campaign = if row.invariant {
        campaign.invariant("ether backs the total", |chain: &Chain| {
            let bank = chain.get("Bank");
            chain.balance(bank) == chain.view::<U256>(bank, "total()", ()).unwrap()
        })
    } else {
        campaign
    };
    let outcome = campaign.run().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        outcome.passed(),
        "Bank has no bug: the throughput campaign must spend its {runs} sequences, but it found {}",
        outcome
            .failure()
            .map_or("no violation".to_string(), |f| f.violation.to_string())
    );
    let stats = &outcome.stats;
    let fuzzing = stats.elapsed.as_secs_f64();
    Speed {
        tx_per_sec: stats.execs_per_sec(),
        evm_share: stats.time.transactions.as_secs_f64() / fuzzing,
        checks_share: stats.time.checks.as_secs_f64() / fuzzing,
        instructions_per_tx: stats.time.instructions as f64 / stats.transactions as f64,
    }
}

/// Bare revm on Bank: [`bank_calls`] in turn, never committed.
fn bare_revm_calls_per_sec(root: &Path) -> f64 {
    let artifacts = harvey::project::compiled(root).unwrap_or_else(|e| panic!("{e}"));
    let code = artifacts
        .get("Bank")
        .expect("Bank compiles")
        .creation_code
        .clone();
    let sender = harvey::chain::SENDERS[0];
    let mut evm = bare_evm(sender);
    let created = evm
        .transact_commit(tx(sender, TxKind::Create, code.to_vec(), U256::ZERO))
        .expect("Bank deploys");
    let bank = created.created_address().expect("Bank deploys");
    evm.transact_commit(tx(
        sender,
        TxKind::Call(bank),
        depositCall {}.abi_encode(),
        U256::from(SEED_DEPOSIT),
    ))
    .expect("deposit");
    let mix = bank_calls().map(|(calldata, value)| tx(sender, TxKind::Call(bank), calldata, value));
    calls_per_sec(|i| {
        let result = evm.transact(mix[i % mix.len()].clone()).expect("bare call");
        assert!(result.result.is_success());
    })
}

/// What the first caller deposits before the measured calls, so that `withdraw` and
/// `transfer` take their full paths.
const SEED_DEPOSIT: u64 = 1_000;

/// The three calls both baselines run in turn (calldata, value): a deposit, a transfer to
/// a fresh address and a withdrawal, each within the seeded balance.
fn bank_calls() -> [(Vec<u8>, U256); 3] {
    [
        (depositCall {}.abi_encode(), U256::from(7)),
        (
            transferCall {
                to: Address::with_last_byte(0x20),
                amount: U256::from(3),
            }
            .abi_encode(),
            U256::ZERO,
        ),
        (
            withdrawCall {
                amount: U256::from(5),
            }
            .abi_encode(),
            U256::ZERO,
        ),
    ]
}

/// Calls per second of `call(i)` over 300,000 calls, `i` counting from 0.
fn calls_per_sec(mut call: impl FnMut(usize)) -> f64 {
    let calls = 300_000;
    let start = Instant::now();
    for i in 0..calls {
        call(i);
    }
    calls as f64 / start.elapsed().as_secs_f64()
}

/// A bare transaction with `data` as calldata.
fn tx(caller: Address, kind: TxKind, data: Vec<u8>, value: U256) -> revm::context::TxEnv {
    bare::tx_env(caller, kind, data.into(), value)
}
