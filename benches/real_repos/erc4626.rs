//! harvey's mirror of lucas-manuel/invariant-examples' `test/WrappedTests.t.sol`
//! (`Basic4626InvariantBase`, run as `BoundedInvariants`), copied by `benches/real_repos.rs`
//! into the scratch copy's `tests/`. The repo's handlers use cheatcodes (`vm.prank`) harvey
//! does not have; here each sender is given assets and approves the vault in the setup, and
//! the fuzzer calls the vault directly (`deposit`, `transfer`). Not fuzzed: the asset, whose
//! public `mint`/`burn(owner, ..)` would let anyone burn the vault's assets (the repo
//! excludes it and donates through a bounded handler; selecting `mint`/`transfer` only needs
//! `chain.fuzz_only`). Basic4626Deposit emits no events, so the holders summed over are the
//! senders, and the sums are bounds rather than the suite's equalities with ghost variables.

mod common;

use harvey::prelude::*;

/// Assets each sender starts with (the bounded handler deposits at most 1e36 per call).
const ASSETS_PER_SENDER: u128 = 1_000_000_000_000_000_000_000_000_000_000_000_000;

fn setup(chain: &mut Chain) -> harvey::Result<()> {
    let asset = chain.deploy("MockERC20", ("Asset", "ASSET", 18u8))?;
    let token = chain.deploy("Basic4626Deposit", (asset, "Token", "TOKEN", 18u8))?;
    for sender in chain.senders().to_vec() {
        chain.try_call(
            asset,
            "mint(address,uint256)",
            (sender, U256::from(ASSETS_PER_SENDER)),
        )?;
        chain.try_call_as(
            sender,
            asset,
            "approve(address,uint256)",
            (token, U256::MAX),
        )?;
    }
    chain.commit();
    chain.fuzz(token);
    Ok(())
}

fn view(chain: &Chain, signature: &str) -> harvey::Result<U256> {
    chain.view(chain.get("Basic4626Deposit"), signature, ())
}

fn check(holds: bool, what: impl FnOnce() -> String) -> harvey::Result<()> {
    if holds {
        Ok(())
    } else {
        Err(harvey::Error::Call(what()))
    }
}

/// `assert_invariant_A`: totalAssets >= totalSupply.
fn invariant_a(chain: &Chain) -> harvey::Result<()> {
    let (assets, supply) = (view(chain, "totalAssets()")?, view(chain, "totalSupply()")?);
    check(assets >= supply, || {
        format!("totalAssets {assets} < totalSupply {supply}")
    })
}

/// `assert_invariant_B`: totalAssets == asset.balanceOf(token).
fn invariant_b(chain: &Chain) -> harvey::Result<()> {
    let token = chain.get("Basic4626Deposit");
    let held: U256 = chain.view(chain.get("MockERC20"), "balanceOf(address)", (token,))?;
    let assets = view(chain, "totalAssets()")?;
    check(assets == held, || {
        format!("totalAssets {assets} != asset balance {held}")
    })
}

/// `assert_invariant_C` (sum of LP balances == totalSupply), as a bound over the holders
/// harvey can name: the senders' shares add up to at most totalSupply.
fn invariant_c(chain: &Chain) -> harvey::Result<()> {
    let token = chain.get("Basic4626Deposit");
    let mut sum = U256::ZERO;
    for sender in chain.senders() {
        let shares: U256 = chain.view(token, "balanceOf(address)", (*sender,))?;
        sum = sum.checked_add(shares).ok_or_else(|| {
            harvey::Error::Invariant(format!("senders' shares overflow a uint256 at {sender}"))
        })?;
    }
    let supply = view(chain, "totalSupply()")?;
    check(sum <= supply, || {
        format!("senders hold {sum} shares > totalSupply {supply}")
    })
}

/// `assert_invariant_D_E_F`: each holder's shares are worth at least as many assets, and
/// the holders' assets add up to at most totalAssets (the suite's `totalAssets - sumAssets`
/// reverts otherwise).
fn invariant_d_e_f(chain: &Chain) -> harvey::Result<()> {
    let token = chain.get("Basic4626Deposit");
    let (assets, supply) = (view(chain, "totalAssets()")?, view(chain, "totalSupply()")?);
    if assets.is_zero() || supply.is_zero() {
        return Ok(());
    }
    let mut sum = U256::ZERO;
    for sender in chain.senders() {
        let shares: U256 = chain.view(token, "balanceOf(address)", (*sender,))?;
        let worth: U256 = chain.view(token, "convertToAssets(uint256)", (shares,))?;
        check(worth >= shares, || {
            format!("{sender}: {shares} shares worth {worth}")
        })?;
        sum += worth;
    }
    check(sum <= assets, || {
        format!("holders' assets {sum} > totalAssets {assets}")
    })
}

#[test]
fn basic4626_invariants() {
    common::run_seeds(|settings| {
        Campaign::new(&settings.root)
            .name("basic4626_invariants")
            .setup(setup)
            .invariant("A", invariant_a)
            .invariant("B", invariant_b)
            .invariant("C", invariant_c)
            .invariant("D_E_F", invariant_d_e_f)
    });
}
