//! Issue 15's hard multi-transaction bugs (`contracts/chains/`): chains of state-dependent
//! exact equalities and address arguments coupled to other transactions' senders; and
//! issue 30's loop-then-quadratic shape (`contracts/prediction/LoopSquare.sol`); and issue
//! 43's coupled shapes and always-reverting liquidation behind an invariant
//! (`contracts/coupled/`, `contracts/reverting/`: each raises a flag, and
//! the campaign's Rust invariant says the flag is down; issue 43 asks 5/5 at 60 s). Per
//! fixture and seed, one harvey campaign (one worker, default depth) with a wall-clock budget
//! (`HARVEY_CHAINS_BUDGET_SECS`, default 60), time from the end of setup to the first
//! sighting; seeds 1..=`HARVEY_BENCH_SEEDS` (default 5). Each row is run with the defaults
//! and again with each of the techniques issue 15 added switched the other way (the
//! ablations; mask-guided mutation is off by default, so its column turns it on), so the
//! table shows what each brings; `no-solver` and `one-dimensional` are issue 30's prediction
//! ablations (the solver-backed step off; joint prediction off too), which need z3 for the
//! defaults (`HARVEY_Z3`); `guidance` and `novelty` turn on issue 43's invariant guidance
//! and state novelty (both off by default), and `guidance+novelty` both;
//! `no-revert-guidance` turns off issue 43's revert guidance (on by default), whose fixture
//! is `contracts/reverting/Margin.sol`; `no-conditions` turns off its condition states (on
//! by default).
//! `HARVEY_CHAINS_ONLY=LinearChain,XorChain` narrows the fixtures,
//! `HARVEY_CHAINS_CONFIGS=defaults,no-chained` the configurations.
//!
//! Each fixture's bug is a failed `assert` or its invariant; the campaigns run with the
//! vulnerability detectors off (so "defaults" is the defaults but for them), and the bench
//! panics unless the violation found is that assert (its line) or that invariant, in a
//! call of the expected function (`support/expect.rs`). Each cell gives the median sequences to the violation beside the
//! time.
//!
//! Run with `cargo bench --bench chains`; the table at the end is markdown.

use std::time::Duration;

use harvey::{Campaign, DetectorSet};

// Shared with benches that use all of it.
#[allow(dead_code)]
#[path = "support/expect.rs"]
mod expect;
#[path = "support/root.rs"]
mod root;
// Shared with benches that use all of it.
#[allow(dead_code)]
#[path = "support/timing.rs"]
mod timing;
use expect::Expected;
use timing::{bench_seeds, censored_median, hits, show, solver_share};

/// One fixture: its contract, what its bug needs, the depth the campaign runs at (harvey's
/// default, 8, unless the bug needs more transactions), the bug, and for a bug behind an
/// invariant, the contract's `bool` view that says it happened.
struct Fixture {
    contract: &'static str,
    needs: &'static str,
    depth: u32,
    bug: Expected,
    flag: Option<&'static str>,
}

const FIXTURES: [Fixture; 13] = [
    Fixture {
        contract: "LinearChain",
        needs: "5 steps of x → 3x + 7",
        depth: 8,
        bug: Expected::assert("Recurrences.sol:18", "step"),
        flag: None,
    },
    Fixture {
        contract: "XorChain",
        needs: "3 steps of x → (x ^ 0x5eed) + n",
        depth: 8,
        bug: Expected::assert("Recurrences.sol:36", "step"),
        flag: None,
    },
    Fixture {
        contract: "FibonacciChain",
        needs: "8 steps of a + b, each after check(a + b): 16 calls",
        depth: 16,
        bug: Expected::assert("Recurrences.sol:59", "step"),
        flag: None,
    },
    Fixture {
        contract: "AllowanceToken",
        needs: "mint, approve, a whole allowance spent by the spender",
        depth: 8,
        bug: Expected::assert("Coupling.sol:29", "transferFrom"),
        flag: None,
    },
    Fixture {
        contract: "InstalmentToken",
        needs: "mint, approve, the spender pays a third sender the allowance in two or more parts",
        depth: 8,
        bug: Expected::assert("Coupling.sol:124", "transferFrom"),
        flag: None,
    },
    Fixture {
        contract: "Delegation",
        needs: "register, delegate, the delegate votes the whole weight",
        depth: 8,
        bug: Expected::assert("Coupling.sol:58", "voteFor"),
        flag: None,
    },
    Fixture {
        contract: "EscrowRelay",
        needs: "deposit, authorise, a relayer pays a third sender exactly the deposit",
        depth: 8,
        bug: Expected::assert("Coupling.sol:85", "relay"),
        flag: None,
    },
    Fixture {
        contract: "LoopsThenSquare",
        needs: "two loops two small inputs set, then x * x == 1234321 (uint256, checked)",
        depth: 8,
        bug: Expected::assert("LoopSquare.sol:22", "f"),
        flag: None,
    },
    Fixture {
        contract: "Ladder",
        needs: "4 steps, each adding a stored amount to a stored key",
        depth: 8,
        bug: Expected::assert("Recurrences.sol:92", "climb"),
        flag: None,
    },
    Fixture {
        contract: "PullToken",
        needs: "an owner approves, the spender pulls twice to a third address, the allowance kept",
        depth: 8,
        bug: Expected::invariant("PullToken", "transferFrom"),
        flag: Some("overdrawn()"),
    },
    Fixture {
        contract: "CappedStake",
        needs: "a per-staker cap bypassed by a second account moving its stake",
        depth: 8,
        bug: Expected::invariant("CappedStake", "move"),
        flag: Some("overCap()"),
    },
    Fixture {
        contract: "SharePool",
        needs: "a harvest, then a withdrawal below a share's worth that dilutes another holder",
        depth: 8,
        bug: Expected::invariant("SharePool", "withdraw"),
        flag: Some("diluted()"),
    },
    Fixture {
        contract: "MarginDesk",
        needs: "collateral, a loan at its limit, a price fall, then the liquidation that always reverted before",
        depth: 8,
        bug: Expected::invariant("MarginDesk", "liquidate"),
        flag: Some("unbalanced()"),
    },
];

/// A configuration measured: its name in the table and what it switches off.
#[derive(Clone, Copy)]
struct Configuration {
    name: &'static str,
    apply: fn(Campaign<'static>) -> Campaign<'static>,
}

const CONFIGURATIONS: [Configuration; 13] = [
    Configuration {
        name: "defaults",
        apply: |campaign| campaign,
    },
    Configuration {
        name: "no-solver",
        apply: |campaign| campaign.solver(false),
    },
    Configuration {
        name: "one-dimensional",
        apply: |campaign| campaign.joint_prediction(false).solver(false),
    },
    Configuration {
        name: "no-chained",
        apply: |campaign| campaign.chain_predictions(false),
    },
    Configuration {
        name: "no-data-decisions",
        apply: |campaign| campaign.data_decisions(false),
    },
    Configuration {
        name: "no-coupling",
        apply: |campaign| campaign.coupling(false),
    },
    Configuration {
        name: "masks",
        apply: |campaign| campaign.masks(true),
    },
    Configuration {
        name: "guidance",
        apply: |campaign| campaign.invariant_guidance(true),
    },
    Configuration {
        name: "novelty",
        apply: |campaign| campaign.state_novelty(true),
    },
    Configuration {
        name: "no-conditions",
        apply: |campaign| campaign.condition_states(false),
    },
    Configuration {
        name: "no-revert-guidance",
        apply: |campaign| campaign.revert_guidance(false),
    },
    Configuration {
        name: "guidance+novelty",
        apply: |campaign| campaign.invariant_guidance(true).state_novelty(true),
    },
    // Issue 15's four techniques off together; joint prediction and the solver (issue 30)
    // stay on, as in every row of this table.
    Configuration {
        name: "none-of-the-four",
        apply: |campaign| {
            campaign
                .chain_predictions(false)
                .data_decisions(false)
                .coupling(false)
                .masks(false)
        },
    },
];

/// The budget per campaign.
fn budget() -> Duration {
    let secs = std::env::var("HARVEY_CHAINS_BUDGET_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    Duration::from_secs(secs)
}

/// The names a comma-separated variable lists, or every name when it is unset.
fn selected<'n>(variable: &str, names: impl Iterator<Item = &'n str>) -> Vec<&'n str> {
    let chosen = std::env::var(variable).ok();
    names
        .filter(|name| {
            chosen
                .as_deref()
                .is_none_or(|list| list.split(',').any(|c| c.trim() == *name))
        })
        .collect()
}

/// One campaign, detectors off: the time to the violation and the sequences up to it, if
/// found (panics if the violation is not the fixture's bug), and the sequences it ran.
fn run(
    fixture: &Fixture,
    seed: u64,
    configuration: Configuration,
) -> (Option<(Duration, u64)>, u64) {
    let contract = fixture.contract;
    let campaign = Campaign::new(root::harvey_root())
        .name("chains")
        .contract(contract)
        .depth(fixture.depth)
        .seed(seed)
        .time(budget())
        .detectors(DetectorSet::none());
    let campaign = match fixture.flag {
        Some(view) => campaign.invariant(contract, move |chain: &harvey::chain::Chain| {
            let raised: bool = chain.view(chain.get(contract), view, ())?;
            Ok::<bool, harvey::Error>(!raised)
        }),
        None => campaign,
    };
    let outcome = (configuration.apply)(campaign)
        .run()
        .unwrap_or_else(|e| panic!("{contract}: {e}"));
    let p = &outcome.stats.predictions;
    if p.solver_queries > 0 {
        eprintln!(
            "{contract} [{}] seed {seed}: {}",
            configuration.name,
            solver_share(p, outcome.stats.elapsed),
        );
    }
    let failure = outcome.failure();
    if let Some(failure) = failure {
        let what = format!("{contract} [{}] seed {seed}", configuration.name);
        fixture.bug.check(&what, failure);
    }
    (
        failure.map(|f| (f.found_after, f.found_after_sequences)),
        outcome.stats.sequences,
    )
}

fn main() {
    let Some(seeds) = bench_seeds(5) else {
        return;
    };
    let fixtures = selected("HARVEY_CHAINS_ONLY", FIXTURES.iter().map(|f| f.contract));
    let configurations: Vec<Configuration> = selected(
        "HARVEY_CHAINS_CONFIGS",
        CONFIGURATIONS.iter().map(|c| c.name),
    )
    .into_iter()
    .filter_map(|name| CONFIGURATIONS.iter().find(|c| c.name == name).copied())
    .collect();
    let budget = budget();
    let mut table = Vec::new();
    for fixture in FIXTURES.iter().filter(|f| fixtures.contains(&f.contract)) {
        let mut cells = Vec::new();
        for &configuration in &configurations {
            let mut times = Vec::new();
            let mut to_violation = Vec::new();
            for seed in 1..=seeds {
                let (found, sequences) = run(fixture, seed, configuration);
                eprintln!(
                    "{} [{}] seed {seed}: {} ({sequences} sequences)",
                    fixture.contract,
                    configuration.name,
                    show(found.map(|f| f.0))
                );
                times.push(found.map(|f| f.0));
                to_violation.push(found.map(|f| f.1));
            }
            let sequences =
                censored_median(&to_violation).map_or_else(|| "-".into(), |n| n.to_string());
            cells.push(format!(
                "{} ({}/{seeds}, {sequences} seq.)",
                show(censored_median(&times)),
                hits(&times)
            ));
        }
        table.push(format!(
            "| `{}` ({}) | {} |",
            fixture.contract,
            fixture.needs,
            cells.join(" | ")
        ));
    }
    println!(
        "\nissue 15, 30 and 43 fixtures: median time to the violation (seeds found of {seeds}, median sequences to it), {}s budget, one worker, detectors off",
        budget.as_secs()
    );
    let names: Vec<&str> = configurations.iter().map(|c| c.name).collect();
    println!("| contract (bug) | {} |", names.join(" | "));
    println!("|---|{}", "---:|".repeat(names.len()));
    for row in table {
        println!("{row}");
    }
}
