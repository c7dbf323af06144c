//! `#[harvey::invariant]` as users write it: a setup function, a `Result` invariant, and a
//! failure replayed from a committed regression file (`harvey-regressions/`).

use harvey::prelude::*;

use crate::support::{few_visits, founder_keeps_the_first_seat};

fn bank_setup(chain: &mut Chain) -> harvey::Result<()> {
    let bank = chain.deploy("Bank", ())?;
    chain.fuzz(bank);
    Ok(())
}

#[harvey::invariant(setup = bank_setup, runs = 2_000, depth = 6, seed = 3)]
fn bank_accounts_add_up(chain: &Chain) -> harvey::Result<()> {
    let bank = chain.get("Bank");
    let total: U256 = chain.view(bank, "total()", ())?;
    harvey::ensure!(
        chain.balance(bank) == total,
        "the bank holds {} wei but owes {total}",
        chain.balance(bank)
    );
    Ok(())
}

/// The sequence in `harvey-regressions/invariants.seats_founder_keeps_the_first_seat.json`
/// (named by this test's module path and name) breaks this invariant, so the test fails
/// before any fuzzing (its run budget is a single sequence).
#[harvey::invariant(contract = "Seats", runs = 1, seed = 5)]
#[should_panic(expected = "replaying the regression file")]
fn seats_founder_keeps_the_first_seat(chain: &Chain) -> bool {
    founder_keeps_the_first_seat(chain).unwrap()
}

/// Targets named by line: `Guarded.lower`'s decrement is reachable, `probe`'s assertion is
/// not (`level` never leaves 0..9), so with `require_targets` the test fails and names it.
/// The expected message leaves out how many targets were missed: a user's `HARVEY_RUNS`
/// overrides the attribute's budget (`targets_reached` checks which one is missed, under a
/// budget no variable changes).
#[harvey::invariant(
    contract = "Guarded",
    runs = 3_000,
    seed = 2,
    targets = ["contracts/sequences/Guarded.sol:18", "contracts/sequences/Guarded.sol:24"],
    require_targets = true
)]
#[should_panic(expected = "targets were never reached (require_targets is on)")]
fn guarded_targets_are_required(_chain: &Chain) -> bool {
    true
}

/// `fail_fast = false` through the attribute: every bug of `Hive` is saved in
/// `harvey-regressions/invariants.hive_reports_every_bug.json`, and each run replays them all
/// (one, when a user's `HARVEY_FAIL_FAST=1` overrides the attribute) before fuzzing on.
#[harvey::invariant(
    contract = "Hive",
    fail_fast = false,
    runs = 1_000,
    seed = 11,
    panics = ["assert", "division-by-zero"]
)]
#[should_panic(expected = "replaying the regression file")]
fn hive_reports_every_bug(chain: &Chain) -> bool {
    few_visits(chain)
}

/// `Tally`'s total and the sum of its senders' credits (outside the module below: every
/// function of an invariants module is an invariant).
fn tally_totals(chain: &Chain) -> harvey::Result<(U256, U256)> {
    let tally = chain.get("Tally");
    let total: U256 = chain.view(tally, "totalCredit()", ())?;
    let mut credits = U256::ZERO;
    for sender in chain.senders() {
        credits += chain.view::<U256>(tally, "creditOf(address)", (*sender,))?;
    }
    Ok((total, credits))
}

/// `#[harvey::invariants]` on a module: one campaign checks both functions after every call,
/// so the second one's violation fails the test though the first holds; `root` points at a
/// Solidity project outside the crate's directory (whose `Tally` forgets a closing
/// withdrawal in its total).
#[harvey::invariants(
    root = "tests/fixtures/rust-root",
    contract = "Tally",
    runs = 3_000,
    seed = 1
)]
#[should_panic(expected = "total_is_the_sum_of_credits")]
mod tally {
    use super::tally_totals;
    use harvey::prelude::*;

    fn credits_fit_in_the_total(chain: &Chain) -> harvey::Result<bool> {
        let (total, credits) = tally_totals(chain)?;
        Ok(credits <= total)
    }

    fn total_is_the_sum_of_credits(chain: &Chain) -> harvey::Result<()> {
        let (total, credits) = tally_totals(chain)?;
        harvey::ensure!(
            credits == total,
            "the credits add up to {credits}, the total says {total}"
        );
        Ok(())
    }
}

/// Witness for `Tally`'s planted bug, by direct calls: a deposit, then a withdrawal of all
/// of it, leaves the total as it was.
#[test]
fn tally_closing_withdrawal_keeps_the_total() -> harvey::Result<()> {
    let root = crate::support::repo().join("tests/fixtures/rust-root");
    let mut chain = Chain::new(crate::support::compiled_at(&root)?);
    let tally = chain.deploy("Tally", ())?;
    chain.call(tally, "deposit(uint256)", (U256::from(5),))?;
    chain.call(tally, "withdraw(uint256)", (U256::from(5),))?;
    let (total, credits) = (
        chain.call_returning::<U256>(tally, "totalCredit()", ())?,
        chain.view::<U256>(tally, "creditOf(address)", (chain.deployer(),))?,
    );
    assert_eq!((total, credits), (U256::from(5), U256::ZERO));
    Ok(())
}
