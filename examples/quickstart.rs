//! The chain API by itself: compile the repository's `contracts/` with a real solc, deploy
//! a vault on an in-memory revm chain, make calls from several senders, and print every
//! decoded outcome (success values, custom errors, Panics). `call` fails on a revert (what
//! setup code wants); `try_call` returns the outcome of a call allowed to revert.
//!
//! Run with `cargo run --example quickstart`.

use std::path::Path;

use alloy_dyn_abi::DynSolValue;
use harvey::chain::{SolDisplay, TxOptions};
use harvey::prelude::*;

fn main() -> harvey::Result<()> {
    let artifacts = harvey::project::compiled(Path::new(env!("CARGO_MANIFEST_DIR")))?;
    let names: Vec<_> = artifacts.contracts().map(|c| c.name.clone()).collect();
    println!("compiled {} contracts: {}", names.len(), names.join(", "));

    let mut chain = Chain::new(artifacts);
    let ether = U256::from(10u64).pow(U256::from(18u64));
    let vault = chain.deploy("Vault", (U256::from(100u64) * ether,))?;
    println!("deployed Vault at {vault}");

    let alice = chain.senders()[0];
    let bob = chain.senders()[1];
    let deposit = |value| TxOptions {
        sender: Some(alice),
        value,
    };
    // Must succeed: a revert here is an error with its decoded reason.
    let outcome = chain.call_with(vault, "deposit()", (), deposit(U256::from(3u64) * ether))?;
    println!("alice deposit(3 ether)   -> {}", outcome.status);

    // Bob has deposited nothing: this one may revert, so `try_call_as` returns how it ended.
    let amount = U256::from(5u64) * ether;
    let outcome = chain.try_call_as(bob, vault, "withdraw(uint256)", (amount,))?;
    println!("bob withdraw(5 ether)    -> {}", outcome.status);

    let over_cap = deposit(U256::from(1_000u64) * ether);
    let outcome = chain.try_call_with(vault, "deposit()", (), over_cap)?;
    println!("alice deposit(1000 ether)-> {}", outcome.status);

    let total: U256 = chain.view(vault, "totalDeposits()", ())?;
    let (total_again, owner): (U256, Address) = chain.view(vault, "stats()", ())?;
    println!("totalDeposits() = {total} wei; stats() = ({total_again}, {owner})");

    let outcomes = chain.deploy("Outcomes", ())?;
    for (signature, args) in [
        ("overflow(uint256)", vec![DynSolValue::Uint(U256::MAX, 256)]),
        (
            "divide(uint256,uint256)",
            vec![
                DynSolValue::Uint(U256::ONE, 256),
                DynSolValue::Uint(U256::ZERO, 256),
            ],
        ),
        (
            "assertFails(uint256)",
            vec![DynSolValue::Uint(U256::from(7u64), 256)],
        ),
    ] {
        let shown: Vec<String> = args.iter().map(|a| SolDisplay(a).to_string()).collect();
        let outcome = chain.try_call(outcomes, signature, &args)?;
        println!(
            "Outcomes.{signature} with ({}) -> {}",
            shown.join(", "),
            outcome.status
        );
    }
    Ok(())
}
