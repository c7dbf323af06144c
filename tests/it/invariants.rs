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
    if chain.balance(bank) != total {
        return Err(harvey::Error::Call(format!(
            "the bank holds {} wei but owes {total}",
            chain.balance(bank)
        )));
    }
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
