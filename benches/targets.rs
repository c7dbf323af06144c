//! Targeted fuzzing: median time to target for ICSE'20's configurations A–D, on targets
//! chosen the paper's way, with the lookahead analysis' share of the campaign.
//!
//! Choosing targets (ICSE'20 §5): the paper ran its untargeted fuzzer for an hour and picked
//! at random at most one newly reached location from each time bracket, latest first
//! (30–60 min, 15–30, …), so that every target is reachable and targets vary in
//! difficulty. Our contracts are small, so the same is done scaled down: one untargeted
//! campaign per contract (configuration A, seed 0, [`SELECT_BUDGET`], every source line
//! watched, Panics not counted so the campaign does not stop at a planted assertion), then
//! at most one random line from each bracket [S/2^(k+1), S/2^k) for k = 0..[`BRACKETS`],
//! latest first, up to [`PER_CONTRACT`] per contract. Lines reached in the first few
//! milliseconds are never chosen.
//!
//! Measuring: every target, configuration and seed 1..n gets a campaign of at most
//! [`BUDGET`] that ends once the target is reached (`stop_when_targets_reached`). The
//! configurations are interleaved per seed so that machine noise hits them alike.
//!
//! Every campaign counts no Panic and runs no vulnerability detector: a violation would end
//! it before its target (a miss that is not one), so the bench panics if one still does.
//!
//! Run with `cargo bench --bench targets` (`HARVEY_BENCH_SEEDS=n`, default 5).

#[path = "support/root.rs"]
mod root;
// Shared with benches that use all of it.
#[allow(dead_code)]
#[path = "support/timing.rs"]
mod timing;

use std::path::Path;
use std::time::Duration;

use harvey::prelude::*;
use harvey::targets::TargetSpec;
use harvey::{PanicSet, Steering};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use timing::{bench_seeds, censored_median, hits, median, ratio, show};

/// The contracts targets are chosen from: (name, source file). Every contract of the repo
/// that deploys without arguments and whose bugs are assertions (not counted here) or
/// need a Rust invariant (not given here); `BonusWallet`'s storage-write detector would
/// end its campaigns.
const CONTRACTS: [(&str, &str); 15] = [
    ("Loops", "contracts/lookahead/Loops.sol"),
    ("Escrow", "contracts/targets/Escrow.sol"),
    ("Baz", "contracts/prediction/Baz.sol"),
    ("Linear", "contracts/prediction/Linear.sol"),
    ("Quadratic", "contracts/prediction/Quadratic.sol"),
    ("Xor", "contracts/prediction/Xor.sol"),
    ("TwoStep", "contracts/bugs/TwoStep.sol"),
    ("Seats", "contracts/bugs/Seats.sol"),
    ("Rewards", "contracts/bugs/Rewards.sol"),
    ("Pipeline", "contracts/sequences/Pipeline.sol"),
    ("Crowdsale", "contracts/sequences/Crowdsale.sol"),
    ("Counter", "contracts/sequences/Counter.sol"),
    ("CommitReveal", "contracts/sequences/CommitReveal.sol"),
    ("Handshake", "contracts/sequences/Handshake.sol"),
    ("Guarded", "contracts/sequences/Guarded.sol"),
];

/// Budget of the untargeted campaign that dates every line.
const SELECT_BUDGET: Duration = Duration::from_secs(8);
/// Time brackets, halving from [`SELECT_BUDGET`]: the earliest is S/8192 ≈ 1 ms (our
/// contracts are small: most of their lines are reached within a millisecond).
const BRACKETS: u32 = 13;
/// Targets per contract, at most (the paper: four).
const PER_CONTRACT: usize = 3;
/// Budget of one time-to-target campaign; a target not reached counts as this.
const BUDGET: Duration = Duration::from_secs(10);

/// The configurations, in the paper's order.
const STEERINGS: [Steering; 4] = [
    Steering::Off,
    Steering::Lookahead,
    Steering::NoAnalysis,
    Steering::StandardSchedule,
];

fn main() {
    let Some(seeds) = bench_seeds(5) else {
        return;
    };
    let root = root::harvey_root();
    let targets = choose_targets(root);
    measure(root, &targets, seeds);
}

/// A target line and the contract whose campaign reaches it.
struct Chosen {
    contract: &'static str,
    location: String,
    /// When the untargeted selection campaign first reached it.
    selected_at: Duration,
}

/// The paper's target selection, scaled down (see the module docs).
fn choose_targets(root: &Path) -> Vec<Chosen> {
    println!(
        "choosing targets: one untargeted campaign per contract (seed 0, {}s), one random line",
        SELECT_BUDGET.as_secs()
    );
    println!(
        "per time bracket [S/2^(k+1), S/2^k), latest first, at most {PER_CONTRACT} per contract"
    );
    let mut rng = StdRng::seed_from_u64(0);
    let mut chosen = Vec::new();
    for (contract, file) in CONTRACTS {
        let reached = date_lines(root, contract, file);
        let mut picked = 0;
        for k in 0..BRACKETS {
            let (low, high) = (SELECT_BUDGET / 2u32.pow(k + 1), SELECT_BUDGET / 2u32.pow(k));
            let in_bracket: Vec<&(String, Duration)> = reached
                .iter()
                .filter(|(_, at)| *at >= low && *at < high)
                .collect();
            if in_bracket.is_empty() || picked == PER_CONTRACT {
                continue;
            }
            let (location, at) = in_bracket[rng.random_range(0..in_bracket.len())];
            chosen.push(Chosen {
                contract,
                location: location.clone(),
                selected_at: *at,
            });
            picked += 1;
        }
        let last = reached.iter().map(|(_, at)| *at).max();
        println!(
            "  {contract:<13} {:>3} lines reached, the last after {:>9}; chose {picked}",
            reached.len(),
            show(last)
        );
    }
    println!();
    chosen
}

/// Every line of `file` with code that an untargeted campaign on `contract` reached, with
/// when it first did.
fn date_lines(root: &Path, contract: &str, file: &str) -> Vec<(String, Duration)> {
    let source = std::fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("{e}"));
    let every_line: Vec<String> = (1..=source.lines().count())
        .map(|line| format!("{file}:{line}"))
        .collect();
    let outcome = Campaign::new(root)
        .contract(contract)
        .seed(0)
        .time(SELECT_BUDGET)
        .panics(PanicSet::none())
        .detectors(DetectorSet::none())
        .targets(spec(&every_line.join(",")))
        .lookahead(Steering::Off)
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(failure) = outcome.failure() {
        panic!(
            "{contract}: the selection campaign must not stop at a violation, but it found {}",
            failure.violation
        );
    }
    outcome
        .stats
        .targets
        .into_iter()
        .filter_map(|t| t.reached.map(|r| (t.location, r.after)))
        .collect()
}

/// One target's time-to-target per configuration, and the analysis' shares.
#[derive(Default)]
struct Measured {
    /// Per configuration and seed: when the target was reached, if it was.
    times: [Vec<Option<Duration>>; 4],
    /// Per mille of the campaign spent in the lookahead analysis, per configuration.
    shares: [Vec<u64>; 4],
}

/// The time-to-target table for `targets` over seeds 1..=`seeds`.
fn measure(root: &Path, targets: &[Chosen], seeds: u64) {
    println!(
        "time to target, median of {seeds} seeds (a seed that missed counts as slowest), budget {}s",
        BUDGET.as_secs()
    );
    println!("(A: report only, B: lookahead,");
    println!(" C: B's schedule without the analysis, D: the analysis with the standard schedule)");
    println!(
        "{:<38} {:>8} {:>9} {:>9} {:>9} {:>9} {:>6} {:>6} {:>6} {:>7}   reached A/B/C/D",
        "target", "chosen", "A", "B", "C", "D", "A/B", "C/B", "D/B", "share B"
    );
    let mut wins = [0usize; 3];
    let mut all_shares = Vec::new();
    for target in targets {
        let mut measured = Measured::default();
        for seed in 1..=seeds {
            for (i, steering) in STEERINGS.into_iter().enumerate() {
                let (time, share) = time_to_target(root, target, steering, seed);
                measured.times[i].push(time);
                measured.shares[i].push(share);
            }
        }
        let reached: Vec<String> = measured.times.iter().map(|t| hits(t).to_string()).collect();
        let [a, b, c, d] = measured.times.each_ref().map(|t| censored_median(t));
        for (win, other) in wins.iter_mut().zip([a, c, d]) {
            *win += usize::from(b.unwrap_or(BUDGET) < other.unwrap_or(BUDGET));
        }
        let share = median(&mut measured.shares[1]).unwrap_or(0);
        all_shares.push(share);
        println!(
            "{:<38} {:>8} {:>9} {:>9} {:>9} {:>9} {:>6} {:>6} {:>6} {:>6.1}%   {}",
            format!("{} ({})", short(&target.location), target.contract),
            show(Some(target.selected_at)),
            show(a),
            show(b),
            show(c),
            show(d),
            ratio(a, b, BUDGET),
            ratio(c, b, BUDGET),
            ratio(d, b, BUDGET),
            share as f64 / 10.0,
            reached.join("/")
        );
    }
    println!(
        "B faster than A on {} of {n} targets, than C on {}, than D on {} (medians; ratios above",
        wins[0],
        wins[1],
        wins[2],
        n = targets.len()
    );
    println!(
        "1: B is faster; a target not reached counts as the budget). Median analysis share in B: {:.1}%",
        median(&mut all_shares).unwrap_or(0) as f64 / 10.0
    );
}

/// One campaign on `target` with `steering` and `seed`: when it reached the target, and the
/// analysis' share of the campaign in per mille.
fn time_to_target(
    root: &Path,
    target: &Chosen,
    steering: Steering,
    seed: u64,
) -> (Option<Duration>, u64) {
    let outcome = Campaign::new(root)
        .contract(target.contract)
        .seed(seed)
        .time(BUDGET)
        .panics(PanicSet::none())
        .detectors(DetectorSet::none())
        .targets(spec(&target.location))
        .lookahead(steering)
        .stop_when_targets_reached(true)
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(failure) = outcome.failure() {
        panic!(
            "{} ({}), {steering:?}, seed {seed}: the campaign stopped at {} before its target could count",
            target.location, target.contract, failure.violation
        );
    }
    let stats = &outcome.stats;
    let time = stats
        .targets
        .iter()
        .find_map(|t| t.reached.as_ref())
        .map(|r| r.after);
    let share = stats.lookahead.time.as_secs_f64() / stats.elapsed.as_secs_f64().max(1e-9);
    (time, (share * 1000.0) as u64)
}

fn spec(text: &str) -> TargetSpec {
    text.parse().unwrap_or_else(|e| panic!("{e}"))
}

/// `contracts/x/File.sol:12` → `File.sol:12`.
fn short(location: &str) -> &str {
    location.rsplit('/').next().unwrap_or(location)
}
