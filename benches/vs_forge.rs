//! harvey against forge 1.7.1's invariant fuzzer on the planted bugs in `contracts/bugs/`:
//! median time-to-violation over several seeds for each, and harvey's engine throughput as
//! a ratio of raw revm calls per second on the same contract.
//!
//! Run with `cargo bench --bench vs_forge` (`HARVEY_BENCH_SEEDS=n` for n seeds, default 5).
//! forge is installed from npm on first use; both use the repo's solc shim.

#[path = "peer/forge.rs"]
mod forge;

use std::path::Path;
use std::time::{Duration, Instant};

use alloy_sol_types::SolCall;
use harvey::prelude::*;
use revm::context::{Context, TxEnv};
use revm::database::{CacheDB, EmptyDB};
use revm::primitives::TxKind;
use revm::state::AccountInfo;
use revm::{ExecuteCommitEvm, ExecuteEvm, MainBuilder, MainContext};

use forge::ForgeCase;

/// The planted bugs: forge's Solidity invariant next to harvey's oracle for the same bug.
const CASES: [ForgeCase; 3] = [
    ForgeCase {
        contract: "TwoStep",
        invariant_body: "",
        fail_on_revert: true,
    },
    ForgeCase {
        contract: "Seats",
        invariant_body: "require(target.first() == target.founder() || target.first() == address(0), \"founder lost the first seat\");",
        fail_on_revert: false,
    },
    ForgeCase {
        contract: "Rewards",
        invariant_body: "",
        fail_on_revert: true,
    },
];

/// Sequences harvey may run per campaign: far more than any case needs.
const HARVEY_RUNS: u64 = 1_000_000;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let seeds: u64 = std::env::var("HARVEY_BENCH_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let forge = forge::ensure_forge(root).unwrap_or_else(|e| panic!("{e}"));
    println!(
        "time to violation, median of {seeds} seeds (harvey: fuzzing only, after compile and setup;"
    );
    println!("forge: its reported suite time, no shrinking, failure persistence cleared)");
    println!(
        "{:<10} {:>12} {:>12} {:>8}   found (harvey/forge)",
        "contract", "harvey", "forge", "ratio"
    );
    for case in &CASES {
        let project = forge::prepare(root, &forge, case).unwrap_or_else(|e| panic!("{e}"));
        let mut harvey_times = Vec::new();
        let mut forge_times = Vec::new();
        let (mut harvey_found, mut forge_found) = (0, 0);
        for seed in 1..=seeds {
            if let Some(t) = harvey_time_to_violation(case.contract, seed) {
                harvey_found += 1;
                harvey_times.push(t);
            }
            let run = forge::time_to_violation(&project, seed).unwrap_or_else(|e| panic!("{e}"));
            if run.found {
                forge_found += 1;
                forge_times.push(run.reported.unwrap_or(run.wall));
            }
        }
        let (h, f) = (median(&mut harvey_times), median(&mut forge_times));
        let ratio = match (h, f) {
            (Some(h), Some(f)) => format!("{:.2}x", f.as_secs_f64() / h.as_secs_f64()),
            _ => "-".into(),
        };
        println!(
            "{:<10} {:>12} {:>12} {:>8}   {harvey_found}/{seeds} / {forge_found}/{seeds}",
            case.contract,
            show(h),
            show(f),
            ratio
        );
    }
    println!("(ratio = forge time / harvey time: above 1 means harvey is faster)\n");
    throughput(root);
}

/// harvey's time from the end of setup to the first sighting of the case's bug.
fn harvey_time_to_violation(contract: &str, seed: u64) -> Option<Duration> {
    let campaign = Campaign::new(env!("CARGO_MANIFEST_DIR"))
        .contract(contract)
        .seed(seed)
        .runs(HARVEY_RUNS);
    let campaign = if contract == "Seats" {
        campaign.invariant("founder keeps the first seat", |chain: &Chain| {
            let seats = chain.get("Seats");
            let first: Address = chain.view(seats, "first()", ()).unwrap();
            let founder: Address = chain.view(seats, "founder()", ()).unwrap();
            first == founder || first == Address::ZERO
        })
    } else {
        campaign
    };
    let outcome = campaign.run().unwrap_or_else(|e| panic!("{e}"));
    outcome.failure.map(|f| f.found_after)
}

alloy_sol_types::sol! {
    function deposit();
    function withdraw(uint256 amount);
    function transfer(address to, uint256 amount);
}

/// Engine transactions per second on `Bank` (mutation, execution under the observer,
/// invariant after every transaction, corpus) against bare revm running a mix of the same
/// three functions on the same bytecode, without inspector, each transaction from the same
/// state.
fn throughput(root: &Path) {
    let runs = 20_000;
    let bare = bare_revm_calls_per_sec(root);
    println!("engine throughput on Bank ({runs} sequences) against bare revm ({bare:.0} calls/s):");
    let plain = engine_tx_per_sec(root, runs, false);
    let checked = engine_tx_per_sec(root, runs, true);
    for (what, engine) in [
        ("Panic oracle only", plain),
        ("+ Rust invariant per tx", checked),
    ] {
        println!(
            "  {what:<24} {engine:>10.0} tx/s   engine/bare {:.2}   slowdown {:.2}x",
            engine / bare,
            bare / engine
        );
    }
}

/// The engine's transactions per second on Bank, with or without a Rust invariant (one
/// view call and a balance read after every transaction).
fn engine_tx_per_sec(root: &Path, runs: u64, invariant: bool) -> f64 {
    let campaign = Campaign::new(root).contract("Bank").seed(1).runs(runs);
    let campaign = if invariant {
        campaign.invariant("ether backs the total", |chain: &Chain| {
            let bank = chain.get("Bank");
            chain.balance(bank) == chain.view::<U256>(bank, "total()", ()).unwrap()
        })
    } else {
        campaign
    };
    let outcome = campaign.run().unwrap_or_else(|e| panic!("{e}"));
    assert!(outcome.passed());
    outcome.stats.execs_per_sec()
}

/// Bare revm on Bank: deposit / transfer / withdraw in turn, never committed.
fn bare_revm_calls_per_sec(root: &Path) -> f64 {
    let artifacts = harvey::project::compiled(root).unwrap_or_else(|e| panic!("{e}"));
    let code = artifacts
        .get("Bank")
        .expect("Bank compiles")
        .creation_code
        .clone();
    let sender = harvey::chain::SENDERS[0];
    let mut db = CacheDB::<EmptyDB>::default();
    db.insert_account_info(sender, AccountInfo::from_balance(U256::MAX >> 8));
    let mut evm = Context::mainnet()
        .with_db(db)
        .modify_cfg_chained(|cfg| cfg.disable_nonce_check = true)
        .build_mainnet();
    let created = evm
        .transact_commit(tx(sender, TxKind::Create, code.to_vec(), U256::ZERO))
        .expect("Bank deploys");
    let bank = created.created_address().expect("Bank deploys");
    // Seed a balance so withdraw and transfer take their full paths.
    evm.transact_commit(tx(
        sender,
        TxKind::Call(bank),
        depositCall {}.abi_encode(),
        U256::from(1_000),
    ))
    .expect("deposit");
    let mix = [
        tx(
            sender,
            TxKind::Call(bank),
            depositCall {}.abi_encode(),
            U256::from(7),
        ),
        tx(
            sender,
            TxKind::Call(bank),
            transferCall {
                to: Address::with_last_byte(0x20),
                amount: U256::from(3),
            }
            .abi_encode(),
            U256::ZERO,
        ),
        tx(
            sender,
            TxKind::Call(bank),
            withdrawCall {
                amount: U256::from(5),
            }
            .abi_encode(),
            U256::ZERO,
        ),
    ];
    let calls = 300_000;
    let start = Instant::now();
    for i in 0..calls {
        let result = evm.transact(mix[i % mix.len()].clone()).expect("bare call");
        assert!(result.result.is_success());
    }
    calls as f64 / start.elapsed().as_secs_f64()
}

fn tx(caller: Address, kind: TxKind, data: Vec<u8>, value: U256) -> TxEnv {
    TxEnv::builder()
        .caller(caller)
        .kind(kind)
        .data(data.into())
        .value(value)
        .gas_limit(harvey::chain::TX_GAS_LIMIT)
        .build()
        .expect("a valid transaction")
}

fn median(times: &mut [Duration]) -> Option<Duration> {
    if times.is_empty() {
        return None;
    }
    times.sort();
    Some(times[times.len() / 2])
}

fn show(time: Option<Duration>) -> String {
    match time {
        Some(t) if t < Duration::from_millis(1) => format!("{}µs", t.as_micros()),
        Some(t) if t < Duration::from_secs(1) => format!("{:.1}ms", t.as_secs_f64() * 1e3),
        Some(t) => format!("{:.2}s", t.as_secs_f64()),
        None => "not found".into(),
    }
}
