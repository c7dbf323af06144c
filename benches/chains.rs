//! Issue 15's hard multi-transaction bugs (`contracts/chains/`): chains of state-dependent
//! exact equalities and address arguments coupled to other transactions' senders. Per
//! fixture and seed, one harvey campaign (one worker, default depth) with a wall-clock budget
//! (`HARVEY_CHAINS_BUDGET_SECS`, default 60), time from the end of setup to the first
//! sighting; seeds 1..=`HARVEY_BENCH_SEEDS` (default 5). Each row is run with the defaults
//! and again with each of the techniques issue 15 added switched the other way (the
//! ablations; mask-guided mutation is off by default, so its column turns it on), so the
//! table shows what each brings. `HARVEY_CHAINS_ONLY=LinearChain,XorChain` narrows the
//! fixtures, `HARVEY_CHAINS_CONFIGS=defaults,no-chained` the configurations.
//!
//! Run with `cargo bench --bench chains`; the table at the end is markdown.

use std::time::Duration;

use harvey::Campaign;

#[path = "support/root.rs"]
mod root;
// Shared with benches that use all of it.
#[allow(dead_code)]
#[path = "support/timing.rs"]
mod timing;
use timing::{bench_seeds, censored_median, hits, show};

/// The fixtures: contract name, what its bug needs, and the depth the campaign runs at
/// (harvey's default, 8, unless the bug needs more transactions).
const FIXTURES: [(&str, &str, u32); 7] = [
    ("LinearChain", "5 steps of x → 3x + 7", 8),
    ("XorChain", "3 steps of x → (x ^ 0x5eed) + n", 8),
    (
        "FibonacciChain",
        "8 steps of a + b, each after check(a + b): 16 calls",
        16,
    ),
    (
        "AllowanceToken",
        "mint, approve, a whole allowance spent by the spender",
        8,
    ),
    (
        "Delegation",
        "register, delegate, the delegate votes the whole weight",
        8,
    ),
    (
        "EscrowRelay",
        "deposit, authorise, a relayer pays a third sender exactly the deposit",
        8,
    ),
    (
        "Ladder",
        "4 steps, each adding a stored amount to a stored key",
        8,
    ),
];

/// A configuration measured: its name in the table and what it switches off.
#[derive(Clone, Copy)]
struct Configuration {
    name: &'static str,
    apply: fn(Campaign<'static>) -> Campaign<'static>,
}

const CONFIGURATIONS: [Configuration; 6] = [
    Configuration {
        name: "defaults",
        apply: |campaign| campaign,
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
        name: "none",
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

/// One campaign: the time to the first violation, if found, and the sequences it ran.
fn run(
    contract: &str,
    depth: u32,
    seed: u64,
    configuration: Configuration,
) -> (Option<Duration>, u64) {
    let campaign = Campaign::new(root::harvey_root())
        .name("chains")
        .contract(contract)
        .depth(depth)
        .seed(seed)
        .time(budget());
    let outcome = (configuration.apply)(campaign)
        .run()
        .unwrap_or_else(|e| panic!("{contract}: {e}"));
    (
        outcome.failure().map(|f| f.found_after),
        outcome.stats.sequences,
    )
}

fn main() {
    let Some(seeds) = bench_seeds(5) else {
        return;
    };
    let fixtures = selected("HARVEY_CHAINS_ONLY", FIXTURES.iter().map(|f| f.0));
    let configurations: Vec<Configuration> = selected(
        "HARVEY_CHAINS_CONFIGS",
        CONFIGURATIONS.iter().map(|c| c.name),
    )
    .into_iter()
    .filter_map(|name| CONFIGURATIONS.iter().find(|c| c.name == name).copied())
    .collect();
    let budget = budget();
    let mut table = Vec::new();
    for &(contract, needs, depth) in FIXTURES.iter().filter(|f| fixtures.contains(&f.0)) {
        let mut cells = Vec::new();
        for &configuration in &configurations {
            let mut times = Vec::new();
            for seed in 1..=seeds {
                let (found, sequences) = run(contract, depth, seed, configuration);
                eprintln!(
                    "{contract} [{}] seed {seed}: {} ({sequences} sequences)",
                    configuration.name,
                    show(found)
                );
                times.push(found);
            }
            cells.push(format!(
                "{} ({}/{seeds})",
                show(censored_median(&times)),
                hits(&times)
            ));
        }
        table.push(format!(
            "| `{contract}` ({needs}) | {} |",
            cells.join(" | ")
        ));
    }
    println!(
        "\nissue 15 fixtures: median time to the violation (seeds found of {seeds}), {}s budget, one worker",
        budget.as_secs()
    );
    let names: Vec<&str> = configurations.iter().map(|c| c.name).collect();
    println!("| contract (bug) | {} |", names.join(" | "));
    println!("|---|{}", "---:|".repeat(names.len()));
    for row in table {
        println!("{row}");
    }
}
