//! Witnesses for the planted bugs of the forge- and Echidna-style suites in
//! `tests/fixtures/forge-suites` (see its `EXPECTED.md`): each bug is reached by direct calls
//! on the system under test, deployed on harvey's chain without the forge test contract (whose
//! cheatcodes the chain does not serve), and the correct twin or the calls next to each bug
//! behave, so a runner can only report those bugs.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use alloy_dyn_abi::DynSolValue;
use harvey::chain::{PanicCode, RevertReason, TxOutcome, TxStatus};
use harvey::prelude::*;
use harvey::project::{Artifacts, Environment, compiled_in};

use crate::support::{self, assert_assert, ether, returned_address, send, send_uint, shim, uint};

/// The fixture project (see its `EXPECTED.md`).
pub(crate) fn fixture() -> PathBuf {
    support::repo().join("tests/fixtures/forge-suites")
}

/// The environment the fixture is compiled in: the repo's shim as `HARVEY_SOLC` (its
/// foundry.toml pins no compiler, as in a stock Foundry repository) and nothing else from the
/// user's shell. Installs the fixture's npm dependency (forge-std) first, once per process.
/// Tests that run campaigns on the fixture compile it with this before anything else (the
/// per-process memo is keyed by root: the first compilation decides).
pub(crate) fn environment() -> &'static Environment {
    static ENVIRONMENT: OnceLock<Environment> = OnceLock::new();
    ENVIRONMENT.get_or_init(|| {
        support::npm_install(&fixture());
        Environment {
            harvey_solc: Some(shim().display().to_string()),
            ..support::environment()
        }
    })
}

/// The fixture's artifacts, compiled in [`environment`].
pub(crate) fn artifacts() -> Arc<Artifacts> {
    compiled_in(&fixture(), environment()).expect("the forge-suites fixture compiles")
}

/// A fresh chain over the fixture with `name` deployed by the deployer.
fn deployed(name: &str) -> (Chain, Address) {
    let mut chain = Chain::new(artifacts());
    let at = chain
        .deploy(name, ())
        .unwrap_or_else(|e| panic!("deploying {name}: {e}"));
    (chain, at)
}

fn shares(chain: &Chain, vault: Address, holder: Address) -> U256 {
    chain.view(vault, "balanceOf(address)", (holder,)).unwrap()
}

fn supply(chain: &Chain, vault: Address) -> U256 {
    chain.view(vault, "totalSupply()", ()).unwrap()
}

/// Deposits `amount` wei into `vault` from `holder`.
fn deposit(chain: &mut Chain, vault: Address, holder: Address, amount: U256) {
    assert!(send(chain, holder, vault, "deposit()", &[], amount).is_success());
}

/// A transfer to oneself mints the shares moved in `LeakyVault`, not in `Vault`: the holders'
/// shares stop summing to the supply (`invariant_sharesSumToSupply`).
#[test]
fn a_self_transfer_mints_shares_in_the_leaky_vault_only() {
    for (name, after) in [("LeakyVault", 2), ("Vault", 1)] {
        let (mut chain, vault) = deployed(name);
        let alice = chain.senders()[0];
        deposit(&mut chain, vault, alice, ether(1));
        let args = [DynSolValue::from(alice), DynSolValue::from(ether(1))];
        let moved = send(
            &mut chain,
            alice,
            vault,
            "transfer(address,uint256)",
            &args,
            U256::ZERO,
        );
        assert!(moved.is_success(), "{name}: {moved:?}");
        assert_eq!(shares(&chain, vault, alice), ether(after), "{name}");
        assert_eq!(supply(&chain, vault), ether(1), "{name}");
    }
}

/// A loyalty bonus leaves `LeakyVault`'s reward pool untouched: after a deposit, 30 days and a
/// withdrawal, the vault holds less ether than its supply plus its pool (`invariant_solvent`);
/// `Vault` takes the bonus out of the pool and stays solvent.
#[test]
fn a_loyalty_bonus_makes_the_leaky_vault_insolvent() {
    for (name, solvent) in [("LeakyVault", false), ("Vault", true)] {
        let (mut chain, vault) = deployed(name);
        let owner = chain.deployer();
        assert!(send(&mut chain, owner, vault, "fund()", &[], ether(10)).is_success());
        let alice = chain.senders()[0];
        deposit(&mut chain, vault, alice, ether(100));
        chain.skip(30 * 24 * 60 * 60);
        let withdrawn = send(
            &mut chain,
            alice,
            vault,
            "withdraw(uint256)",
            &[DynSolValue::from(ether(100))],
            U256::ZERO,
        );
        assert!(withdrawn.is_success(), "{name}: {withdrawn:?}");
        let held = chain.balance(vault);
        let pool: U256 = chain.view(vault, "rewardPool()", ()).unwrap();
        assert_eq!(held, ether(9), "{name}: the 1% bonus was paid");
        assert_eq!(
            held >= supply(&chain, vault) + pool,
            solvent,
            "{name}: pool {pool}"
        );
    }
}

/// Withdrawing a whole balance under 100 reverts with an underflow (the fee is taken on top):
/// the revert `BankTest`'s `fail_on_revert` reports. A smaller withdrawal succeeds.
#[test]
fn withdrawing_a_small_whole_balance_underflows_in_the_bank() {
    let (mut chain, bank) = deployed("Bank");
    let alice = chain.senders()[0];
    assert!(
        send(
            &mut chain,
            alice,
            bank,
            "deposit(uint256)",
            &[uint(50)],
            U256::ZERO
        )
        .is_success()
    );
    assert!(
        send(
            &mut chain,
            alice,
            bank,
            "withdraw(uint256)",
            &[uint(49)],
            U256::ZERO
        )
        .is_success()
    );
    assert!(
        send(
            &mut chain,
            alice,
            bank,
            "deposit(uint256)",
            &[uint(49)],
            U256::ZERO
        )
        .is_success()
    );
    assert_eq!(
        send(
            &mut chain,
            alice,
            bank,
            "withdraw(uint256)",
            &[uint(49)],
            U256::ZERO
        )
        .status,
        TxStatus::Revert(RevertReason::Panic(PanicCode::ArithmeticOverflow))
    );
}

/// The keeper adds seats when anyone asks: the Board suites' invariants fail if fuzzing reaches
/// it, so they hold only when the runner honours `targetArtifact` / `excludeContract` (and the
/// senders it is told to use or avoid).
#[test]
fn the_keeper_grows_the_board() {
    let mut chain = Chain::new(artifacts());
    let keeper = chain.deploy("Keeper", ()).unwrap();
    let board = chain.deploy("Board", (keeper, U256::from(3))).unwrap();
    let stranger = chain.senders()[1];
    let manage = [DynSolValue::from(board)];
    assert!(
        send(
            &mut chain,
            stranger,
            keeper,
            "manage(address)",
            &manage,
            U256::ZERO
        )
        .is_success()
    );
    assert!(send(&mut chain, stranger, keeper, "grow()", &[], U256::ZERO).is_success());
    let seats: U256 = chain.view(board, "seats()", ()).unwrap();
    assert_eq!(seats, U256::from(4));
}

fn call(chain: &mut Chain, at: Address, signature: &str, args: &[DynSolValue]) -> TxOutcome {
    let from = chain.senders()[0];
    send(chain, from, at, signature, args, U256::ZERO)
}

/// `add(51)` then `compound()` takes the capped pool to 102 (`echidna_under_cap` false);
/// `add(50)` then `compound()` stays at the cap.
#[test]
fn compounding_one_over_half_the_cap_breaks_the_echidna_property() {
    for (added, under_cap) in [(50, true), (51, false)] {
        let (mut chain, pool) = deployed("CappedPoolProperties");
        assert!(call(&mut chain, pool, "add(uint8)", &[uint(added)]).is_success());
        assert!(call(&mut chain, pool, "compound()", &[]).is_success());
        let points: U256 = chain.view(pool, "points()", ()).unwrap();
        assert_eq!(points, U256::from(2 * added));
        let holds: bool = chain.view(pool, "echidna_under_cap()", ()).unwrap();
        assert_eq!(holds, under_cap, "after add({added})");
        let counted: bool = chain.view(pool, "property_points_counted()", ()).unwrap();
        assert!(counted);
    }
}

/// Releasing more than is held fails `release`'s `assert`; releasing what is held does not.
#[test]
fn releasing_more_than_held_fails_the_escrow_assert() {
    let (mut chain, escrow) = deployed("EscrowAssertions");
    assert!(call(&mut chain, escrow, "open(uint128)", &[uint(10)]).is_success());
    assert!(call(&mut chain, escrow, "release(uint128)", &[uint(4)]).is_success());
    assert_assert(&call(&mut chain, escrow, "release(uint128)", &[uint(7)]));
    assert!(call(&mut chain, escrow, "release(uint128)", &[uint(6)]).is_success());
}

/// `refund` keeps the escrow open, so a second refund pays out more than was deposited and
/// emits `AssertionFailed`; the first does not.
#[test]
fn a_second_refund_emits_assertion_failed() {
    let (mut chain, escrow) = deployed("EscrowAssertions");
    assert!(call(&mut chain, escrow, "open(uint128)", &[uint(10)]).is_success());
    assert!(call(&mut chain, escrow, "refund()", &[]).is_success());
    assert!(support::assertion_events(&chain).is_empty());
    assert!(call(&mut chain, escrow, "refund()", &[]).is_success());
    assert_eq!(
        support::assertion_events(&chain),
        ["paid out more than deposited"]
    );
}

/// A purse the registry opens checks each amount against its limit but not the total: two
/// spends within the limit overspend it (`RegistryTest.invariant_withinLimits`), reached only
/// through the purse the registry created.
#[test]
fn two_spends_within_the_limit_overspend_a_purse() {
    let (mut chain, registry) = deployed("Registry");
    let holder = chain.senders()[0];
    let opened = send_uint(&mut chain, holder, registry, "open(uint256)", 100);
    let purse = returned_address(&opened);
    assert!(!send_uint(&mut chain, holder, purse, "spend(uint256)", 101).is_success());
    for _ in 0..2 {
        assert!(send_uint(&mut chain, holder, purse, "spend(uint256)", 60).is_success());
    }
    let spent: U256 = chain.view(purse, "spent()", ()).unwrap();
    let limit: U256 = chain.view(purse, "limit()", ()).unwrap();
    assert!(spent > limit, "{spent} > {limit}");
}

/// The lender refuses to price anything once the feed's answer is three hours and a second
/// old (`StalePrice()`), and prices it until then: the revert a suite under `fail_on_revert`
/// sees only when time passes between calls.
#[test]
fn the_lender_refuses_a_stale_price_only_after_time_passes() {
    let mut chain = Chain::new(artifacts());
    let feed = chain
        .deploy(
            "PriceFeed",
            (alloy_primitives::I256::try_from(2_000i64).unwrap(),),
        )
        .unwrap();
    let lender = chain.deploy("OracleLender", (feed,)).unwrap();
    assert!(call(&mut chain, lender, "deposit(uint256)", &[uint(10)]).is_success());
    chain.skip(3 * 3_600);
    assert!(call(&mut chain, lender, "deposit(uint256)", &[uint(10)]).is_success());
    chain.skip(1);
    let stale = call(&mut chain, lender, "deposit(uint256)", &[uint(10)]);
    assert!(
        stale.status.to_string().contains("StalePrice"),
        "{}",
        stale.status
    );
}

/// The harness's own calls reach the allowance bug: approving the spender, then spending part
/// of the allowance leaves it unchanged, and the property emits `AssertEqFail` and fails its
/// `assert`. Setting an allowance alone keeps its property.
#[test]
fn spending_an_allowance_leaves_it_unchanged() {
    let (mut chain, harness) = deployed("AllowanceProperties");
    assert!(
        call(
            &mut chain,
            harness,
            "test_ERC20_setAllowance(uint256)",
            &[uint(100)]
        )
        .is_success()
    );
    assert_assert(&call(
        &mut chain,
        harness,
        "test_ERC20_spendAllowance(uint256)",
        &[uint(40)],
    ));
    // The unfunded twin rejects every amount at its precondition.
    let (mut chain, unfunded) = deployed("UnfundedProperties");
    for amount in [0, 1, 40] {
        let outcome = call(
            &mut chain,
            unfunded,
            "test_ERC20_spendAllowance(uint256)",
            &[uint(amount)],
        );
        assert!(!outcome.is_success());
    }
}

/// A transfer to oneself credits the amount moved on top in `Treasury` (the system the
/// `DeployedTreasuryTest` deploy script deploys): the balances stop adding up to `total`
/// (`invariant_balancesAddUp`); a transfer to another holder keeps them adding up.
#[test]
fn a_self_transfer_credits_the_treasury() {
    for (to_self, adds_up) in [(true, false), (false, true)] {
        let (mut chain, treasury) = deployed("Treasury");
        let (alice, bob) = (chain.senders()[0], chain.senders()[1]);
        assert!(send_uint(&mut chain, alice, treasury, "deposit(uint256)", 10).is_success());
        let to = if to_self { alice } else { bob };
        let args = [DynSolValue::from(to), DynSolValue::from(U256::from(4))];
        let moved = send(
            &mut chain,
            alice,
            treasury,
            "transfer(address,uint256)",
            &args,
            U256::ZERO,
        );
        assert!(moved.is_success(), "{moved:?}");
        let held = |chain: &Chain, who: Address| -> U256 {
            chain.view(treasury, "balanceOf(address)", (who,)).unwrap()
        };
        let sum = held(&chain, alice) + held(&chain, bob);
        let total: U256 = chain.view(treasury, "total()", ()).unwrap();
        assert_eq!(
            sum == total,
            adds_up,
            "to self: {to_self}, {sum} vs {total}"
        );
    }
}

/// `Points.redeem` by a holder leaves the points in the supply (`PointsTest`'s
/// `invariant_redeemedLeaveTheSupply`); a transfer, and a redeem by an account holding
/// nothing, keep the sum.
#[test]
fn redeemed_points_stay_in_the_supply() {
    let mut chain = Chain::new(artifacts());
    let points = chain.deploy("Points", (U256::from(1_000),)).unwrap();
    let member = chain.senders()[0];
    let stranger = chain.senders()[1];
    let kept = |chain: &Chain| -> bool {
        let supply: U256 = chain.view(points, "totalSupply()", ()).unwrap();
        let redeemed: U256 = chain.view(points, "redeemed()", ()).unwrap();
        supply + redeemed == U256::from(1_000)
    };
    let deployer = chain.deployer();
    let to_member = [DynSolValue::from(member), uint(600)];
    let moved = send(
        &mut chain,
        deployer,
        points,
        "transfer(address,uint256)",
        &to_member,
        U256::ZERO,
    );
    assert!(moved.is_success(), "{moved:?}");
    assert!(kept(&chain));
    // Someone holding nothing redeems nothing (any amount above 0 reverts).
    assert!(send_uint(&mut chain, stranger, points, "redeem(uint256)", 0).is_success());
    assert!(!send_uint(&mut chain, stranger, points, "redeem(uint256)", 1).is_success());
    assert!(kept(&chain));
    assert!(send_uint(&mut chain, member, points, "redeem(uint256)", 1).is_success());
    assert!(!kept(&chain));
}

/// `LockProperties`' `echidna_revert_withdraw_while_locked` reverts until `open(0x5eed)`, and
/// returns after it; another code keeps the safe locked.
#[test]
fn the_safe_opens_with_its_constant_code() {
    let (mut chain, harness) = deployed("LockProperties");
    let sender = chain.senders()[0];
    let property = "echidna_revert_withdraw_while_locked()";
    assert!(!call(&mut chain, harness, property, &[]).is_success());
    assert!(send_uint(&mut chain, sender, harness, "open(uint256)", 0x5eee).is_success());
    assert!(!call(&mut chain, harness, property, &[]).is_success());
    assert!(send_uint(&mut chain, sender, harness, "open(uint256)", 0x5eed).is_success());
    assert!(call(&mut chain, harness, property, &[]).is_success());
}

/// `ClockProperties`: `stamp()` then `restamp()` in the same block keeps
/// `echidna_one_moment`; a second later it breaks.
#[test]
fn a_restamp_after_time_passed_breaks_the_moment() {
    for (later, holds) in [(0, true), (1, false)] {
        let (mut chain, harness) = deployed("ClockProperties");
        assert!(call(&mut chain, harness, "stamp()", &[]).is_success());
        let now = chain.block_timestamp();
        chain.warp_to(now + later);
        assert!(call(&mut chain, harness, "restamp()", &[]).is_success());
        let moment: bool = chain.view(harness, "echidna_one_moment()", ()).unwrap();
        assert_eq!(moment, holds, "{later} s later");
    }
}

/// `MintProperties.mint` checks no owner: an account that mints holds tokens, and
/// `echidna_only_the_owner_holds` called from it is false; called from an account that did
/// not mint, true.
#[test]
fn anyone_mints_in_the_mint_harness() {
    let (mut chain, harness) = deployed("MintProperties");
    let (minter, other) = (chain.senders()[0], chain.senders()[1]);
    assert!(send_uint(&mut chain, minter, harness, "mint(uint256)", 5).is_success());
    let holds = |chain: &mut Chain, from: Address| -> bool {
        let outcome = send(
            chain,
            from,
            harness,
            "echidna_only_the_owner_holds()",
            &[],
            U256::ZERO,
        );
        assert!(outcome.is_success(), "{outcome:?}");
        outcome.output.as_ref().last() == Some(&1)
    };
    assert!(!holds(&mut chain, minter));
    assert!(holds(&mut chain, other));
}

/// A seizure of an underwater account adds its ether to `LeveragedDesk`'s total a second
/// time (`DeskTest`'s `invariant_etherAddsUp`); a solvent account cannot be seized, and a
/// loan at its limit stays solvent until the price falls.
#[test]
fn seizing_an_underwater_account_counts_its_ether_twice() {
    let mut chain = Chain::new(artifacts());
    let [borrower, seizer, keeper] = [chain.senders()[0], chain.senders()[1], chain.senders()[2]];
    let desk = chain.deploy("LeveragedDesk", (keeper,)).unwrap();
    let total = |chain: &Chain| -> U256 { chain.view(desk, "totalEther()", ()).unwrap() };
    let held = |chain: &Chain, who: Address| -> U256 {
        chain.view(desk, "etherOf(address)", (who,)).unwrap()
    };
    let dollars = |n: u64| DynSolValue::from(U256::from(n) * ether(1));
    let seize = |chain: &mut Chain| {
        let args = [DynSolValue::from(borrower)];
        send(chain, seizer, desk, "seize(address)", &args, U256::ZERO).is_success()
    };
    let post = [DynSolValue::from(ether(1))];
    assert!(
        send(
            &mut chain,
            borrower,
            desk,
            "post(uint256)",
            &post,
            U256::ZERO
        )
        .is_success()
    );
    // 75% of $2,000: $1,500 and not a dollar more.
    let draw = |chain: &mut Chain, n: u64| {
        send(
            chain,
            borrower,
            desk,
            "draw(uint256)",
            &[dollars(n)],
            U256::ZERO,
        )
        .is_success()
    };
    assert!(!draw(&mut chain, 1_501));
    assert!(draw(&mut chain, 1_500));
    assert!(!seize(&mut chain), "a loan at its limit is solvent");
    let fall = [dollars(1_999)];
    assert!(
        !send(
            &mut chain,
            seizer,
            desk,
            "setPrice(uint256)",
            &fall,
            U256::ZERO
        )
        .is_success()
    );
    assert!(
        send(
            &mut chain,
            keeper,
            desk,
            "setPrice(uint256)",
            &fall,
            U256::ZERO
        )
        .is_success()
    );
    assert_eq!(total(&chain), held(&chain, borrower) + held(&chain, seizer));
    assert!(seize(&mut chain));
    assert_eq!(held(&chain, seizer), ether(1));
    assert_eq!(total(&chain), ether(2), "the seized ether counted again");
}
