//! harvey's mirror of horsefacts/weth-invariant-testing's `test/WETH9.invariants.t.sol`,
//! copied by `benches/real_repos.rs` into the scratch copy's `tests/`. The repo's handler
//! uses cheatcodes (`vm.prank`, `deal`) harvey does not have; here the fuzzer calls WETH9
//! directly from harvey's three senders, and the handler's ghost variables are replaced by
//! the logs WETH9 emits: `Deposit`/`Withdrawal` amounts, `Deposit`/`Transfer` recipients as
//! the holders to sum over.

mod common;

use std::collections::BTreeSet;

use harvey::chain::INITIAL_BALANCE;
use harvey::prelude::*;

fn setup(chain: &mut Chain) -> harvey::Result<()> {
    let weth = chain.deploy("WETH9", ())?;
    chain.fuzz(weth);
    Ok(())
}

fn weth(chain: &Chain) -> Address {
    chain.get("WETH9")
}

/// The sum of `uint256` parameter `index` over WETH9's `event` logs.
fn sum_of(chain: &Chain, event: &str, index: usize) -> harvey::Result<U256> {
    let mut sum = U256::ZERO;
    for (emitter, params) in chain.events_of(event)? {
        if emitter == weth(chain)
            && let Some(DynSolValue::Uint(v, _)) = params.get(index)
        {
            sum += *v;
        }
    }
    Ok(sum)
}

/// Every account that can hold WETH: the senders and every `Deposit`/`Transfer` recipient.
fn holders(chain: &Chain) -> harvey::Result<BTreeSet<Address>> {
    let mut holders: BTreeSet<Address> = chain.senders().iter().copied().collect();
    for (event, index) in [
        ("Deposit(address,uint256)", 0),
        ("Transfer(address,address,uint256)", 1),
    ] {
        for (_, params) in chain.events_of(event)? {
            if let Some(DynSolValue::Address(a)) = params.get(index) {
                holders.insert(*a);
            }
        }
    }
    Ok(holders)
}

fn balance_of(chain: &Chain, account: Address) -> harvey::Result<U256> {
    chain.view(weth(chain), "balanceOf(address)", (account,))
}

fn check(holds: bool, what: impl FnOnce() -> String) -> harvey::Result<()> {
    if holds {
        Ok(())
    } else {
        Err(harvey::Error::Call(what()))
    }
}

/// `invariant_conservationOfETH`: the senders' ether plus WETH's `totalSupply()` is the
/// ether they started with (the repo's handler holds `ETH_SUPPLY`; here the senders do).
fn conservation_of_eth(chain: &Chain) -> harvey::Result<()> {
    let senders: U256 = chain.senders().iter().map(|s| chain.balance(*s)).sum();
    let supply: U256 = chain.view(weth(chain), "totalSupply()", ())?;
    let start = INITIAL_BALANCE * U256::from(chain.senders().len());
    check(senders + supply == start, || {
        format!("senders' ether {senders} + totalSupply {supply} != {start}")
    })
}

/// `invariant_solvencyDeposits`: WETH's ether is the sum of deposits less withdrawals.
fn solvency_deposits(chain: &Chain) -> harvey::Result<()> {
    let held = chain.balance(weth(chain));
    let deposits = sum_of(chain, "Deposit(address,uint256)", 1)?;
    let withdrawals = sum_of(chain, "Withdrawal(address,uint256)", 1)?;
    check(held + withdrawals == deposits, || {
        format!("WETH holds {held} wei, deposits {deposits} - withdrawals {withdrawals}")
    })
}

/// `invariant_solvencyBalances`: WETH's ether is the sum of all balances.
fn solvency_balances(chain: &Chain) -> harvey::Result<()> {
    let held = chain.balance(weth(chain));
    let mut sum = U256::ZERO;
    for holder in holders(chain)? {
        sum += balance_of(chain, holder)?;
    }
    check(held == sum, || {
        format!("WETH holds {held} wei, balances sum to {sum}")
    })
}

/// `invariant_depositorBalances`: no balance exceeds `totalSupply()`.
fn depositor_balances(chain: &Chain) -> harvey::Result<()> {
    let supply: U256 = chain.view(weth(chain), "totalSupply()", ())?;
    for holder in holders(chain)? {
        let balance = balance_of(chain, holder)?;
        check(balance <= supply, || {
            format!("{holder} holds {balance} > totalSupply {supply}")
        })?;
    }
    Ok(())
}

#[test]
fn weth9_invariants() {
    common::run_seeds(|settings| {
        Campaign::new(&settings.root)
            .name("weth9_invariants")
            .setup(setup)
            .invariant("conservationOfETH", conservation_of_eth)
            .invariant("solvencyDeposits", solvency_deposits)
            .invariant("solvencyBalances", solvency_balances)
            .invariant("depositorBalances", depositor_balances)
    });
}
