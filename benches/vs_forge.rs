//! harvey against forge 1.7.1's invariant fuzzer on the planted bugs: median
//! time-to-violation over several seeds with input prediction on and off (`contracts/bugs/`,
//! `contracts/prediction/`), and with demand-driven sequences and dataflow ordering each
//! switched off, with the corpus size at the end (`contracts/sequences/` and the bugs that
//! need several calls); then coverage on Baz. (The engine's throughput against bare revm is
//! `engine_speed`'s.)
//!
//! Each bug is timed as what it is: harvey runs with its vulnerability detectors off (forge
//! has none, and on `Rewards` the overflow detector fires a call before the Panic forge must
//! reach), and the bench panics unless harvey's violation is the planted one (its kind,
//! line and the last call's function, `support/expect.rs`) and forge's failure reason is the
//! bug's. harvey's clock starts after setup and forge's is its reported suite time, so each
//! table also gives the sequences and calls each tool ran up to the violation.
//!
//! Run with `cargo bench --bench vs_forge` (`HARVEY_BENCH_SEEDS=n` for n seeds, default 5).
//! forge is installed from npm on first use; both use the repo's solc shim.

// Shared with the maze bench, which uses other parts of it.
#[allow(dead_code)]
#[path = "peer/forge.rs"]
mod forge;
#[path = "peer/install.rs"]
mod install;

use std::path::Path;
use std::time::Duration;

use harvey::prelude::*;

#[path = "support/expect.rs"]
mod expect;
#[path = "support/root.rs"]
mod root;
// Shared with benches that use all of it.
#[allow(dead_code)]
#[path = "support/timing.rs"]
mod timing;
use timing::{bench_seeds, censored_median, hits, median, ratio, show};

use expect::Expected;
use forge::ForgeCase;

/// A planted bug: how forge is set up to find it, and the violation harvey must report.
struct Planted {
    forge: ForgeCase,
    bug: Expected,
}

/// The Rust invariants harvey checks for the bugs that are broken state.
const SEATS_INVARIANT: &str = "founder keeps the first seat";
const CROWDSALE_INVARIANT: &str = "only the owner withdraws";

/// The planted bugs: forge's Solidity invariant next to harvey's oracle for the same bug.
/// `BonusWallet`'s bug is an arbitrary storage write, which forge has no detector for; its
/// invariant catches the one write that matters (the owner's slot).
const CASES: [Planted; 7] = [
    Planted {
        forge: ForgeCase {
            contract: "TwoStep",
            dir: "bugs",
            invariant_body: "",
            fail_on_revert: false,
            reason: "panic: assertion failed (0x01)",
        },
        bug: Expected::assert("TwoStep.sol:24", "fire"),
    },
    Planted {
        forge: ForgeCase {
            contract: "Seats",
            dir: "bugs",
            invariant_body: "require(target.first() == target.founder() || target.first() == address(0), \"founder lost the first seat\");",
            fail_on_revert: false,
            reason: "founder lost the first seat",
        },
        bug: Expected::invariant(SEATS_INVARIANT, "promote"),
    },
    Planted {
        forge: ForgeCase {
            contract: "Rewards",
            dir: "bugs",
            invariant_body: "",
            fail_on_revert: true,
            reason: "panic: arithmetic underflow or overflow (0x11)",
        },
        bug: Expected::panic(PanicCode::ArithmeticOverflow, "Rewards.sol:13", "earn"),
    },
    Planted {
        forge: ForgeCase {
            contract: "Linear",
            dir: "prediction",
            invariant_body: "",
            fail_on_revert: false,
            reason: "panic: assertion failed (0x01)",
        },
        bug: Expected::assert("Linear.sol:12", "check"),
    },
    Planted {
        forge: ForgeCase {
            contract: "Quadratic",
            dir: "prediction",
            invariant_body: "",
            fail_on_revert: false,
            reason: "panic: assertion failed (0x01)",
        },
        bug: Expected::assert("Quadratic.sol:13", "check"),
    },
    Planted {
        forge: ForgeCase {
            contract: "Xor",
            dir: "prediction",
            invariant_body: "",
            fail_on_revert: false,
            reason: "panic: assertion failed (0x01)",
        },
        bug: Expected::assert("Xor.sol:12", "check"),
    },
    Planted {
        forge: ForgeCase {
            contract: "BonusWallet",
            dir: "prediction",
            invariant_body: "require(target.owner() == address(this), \"owner overwritten\");",
            fail_on_revert: false,
            reason: "owner overwritten",
        },
        bug: Expected::storage_write("BonusWallet.sol:29", "setCodeAt"),
    },
];

/// The bugs that need several transactions, for the sequence table. Crowdsale's bug is
/// broken state (a stranger withdrew), so both tools check it with an invariant; forge never
/// sends ether with its invariant calls, so it cannot invest.
const SEQUENCE_CASES: [Planted; 5] = [
    Planted {
        forge: ForgeCase {
            contract: "Pipeline",
            dir: "sequences",
            invariant_body: "",
            fail_on_revert: false,
            reason: "panic: assertion failed (0x01)",
        },
        bug: Expected::assert("Pipeline.sol:24", "check"),
    },
    Planted {
        forge: ForgeCase {
            contract: "Crowdsale",
            dir: "sequences",
            invariant_body: "require(target.withdrawnBy() == address(0) || target.withdrawnBy() == target.owner(), \"a stranger withdrew\");",
            fail_on_revert: false,
            reason: "a stranger withdrew",
        },
        bug: Expected::invariant(CROWDSALE_INVARIANT, "withdraw"),
    },
    Planted {
        forge: ForgeCase {
            contract: "Counter",
            dir: "sequences",
            invariant_body: "",
            fail_on_revert: false,
            reason: "panic: assertion failed (0x01)",
        },
        bug: Expected::assert("Counter.sol:11", "increment"),
    },
    Planted {
        forge: ForgeCase {
            contract: "CommitReveal",
            dir: "sequences",
            invariant_body: "",
            fail_on_revert: false,
            reason: "panic: assertion failed (0x01)",
        },
        bug: Expected::assert("CommitReveal.sol:20", "reveal"),
    },
    Planted {
        forge: ForgeCase {
            contract: "Handshake",
            dir: "sequences",
            invariant_body: "",
            fail_on_revert: false,
            reason: "panic: assertion failed (0x01)",
        },
        bug: Expected::assert("Handshake.sol:27", "settle"),
    },
];

/// Depth of every campaign in the sequence table, for both tools: Counter's bug needs 40
/// calls in a row.
const SEQUENCE_DEPTH: u32 = 64;

/// Wall-clock budget per campaign for each tool; a bug not found within it counts as not
/// found.
const BUDGET: Duration = Duration::from_secs(10);

/// Prints the tables in turn: time to violation, sequences, coverage.
fn main() {
    let Some(seeds) = bench_seeds(5) else {
        return;
    };
    let root = root::harvey_root();
    let forge = install::ensure_forge().unwrap_or_else(|e| panic!("{e}"));
    println!(
        "time to violation, median of {seeds} seeds (a miss counts as slowest), budget {}s (harvey: fuzzing only, after",
        BUDGET.as_secs()
    );
    println!(
        "compile and setup, detectors off; forge: its reported suite time, no shrinking, no persisted failures)"
    );
    println!(
        "{:<12} {:>11} {:>11} {:>11} {:>8} {:>8} {:>15} {:>15}   found (on/off/forge)",
        "contract",
        "harvey",
        "no predict",
        "forge",
        "off/on",
        "forge/on",
        "seq. on/forge",
        "calls on/forge"
    );
    // harvey's depth in the first table: its default (forge gets the same).
    let depth = harvey::Config::default().depth;
    for case in &CASES {
        let project = forge::prepare(root, &forge, &case.forge, BUDGET, depth)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut on = Vec::new();
        let mut off = Vec::new();
        let mut peer = Vec::new();
        let no_prediction = Switches {
            prediction: false,
            ..Switches::ALL
        };
        for seed in 1..=seeds {
            on.push(harvey_run(case, seed, depth, Switches::ALL));
            off.push(harvey_run(case, seed, depth, no_prediction).found);
            peer.push(forge_run(case, &project, seed));
        }
        let found = format!(
            "{}/{}/{} of {seeds}",
            hits(&times(&on)),
            hits(&off),
            hits(&times(&peer))
        );
        let work = to_violation(&on, &peer);
        let (on, off, peer) = (
            censored_median(&times(&on)),
            censored_median(&off),
            censored_median(&times(&peer)),
        );
        println!(
            "{:<12} {:>11} {:>11} {:>11} {:>8} {:>8} {:>15} {:>15}   {found}",
            case.forge.contract,
            show(on),
            show(off),
            show(peer),
            ratio(off, on, BUDGET),
            ratio(peer, on, BUDGET),
            work.0,
            work.1
        );
    }
    println!(
        "(ratios above 1: harvey with prediction is faster; a tool that did not find the bug counts"
    );
    println!(
        "as the budget in the ratio. seq./calls: medians of the sequences and calls each tool ran up"
    );
    println!(
        "to the violation, as the times (harvey: `found_after_sequences` and the transactions of its"
    );
    println!(
        "fail-fast campaign; forge: the runs and calls of its summary, which count completed runs, plus"
    );
    println!(
        "the failing run and its calls); the clocks start at different points, these do not)\n"
    );
    sequences(root, &forge, seeds);
    coverage(root);
}

/// The sequence table: for each bug that needs several calls, harvey with everything on,
/// without demand-driven sequences, and without dataflow ordering, against forge; all at
/// depth [`SEQUENCE_DEPTH`]. The corpus size is taken when the campaign ends (at the
/// violation, or when the budget is spent).
fn sequences(root: &Path, forge: &Path, seeds: u64) {
    println!(
        "sequences: time to violation, median of {seeds} seeds (a miss counts as slowest), budget {}s, depth {SEQUENCE_DEPTH} for both tools",
        BUDGET.as_secs()
    );
    // One format for the header and the rows, so the columns line up; the ratio columns
    // fit a bug found in a tenth of a millisecond against one not found (100000.0x).
    macro_rules! row {
        ($($cell:expr),* $(,)?) => {
            println!(
                "{:<12} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>15} {:>15}   {:<25}   {}",
                $($cell),*
            )
        };
    }
    row!(
        "contract",
        "harvey",
        "dd off",
        "df off",
        "forge",
        "dd/on",
        "df/on",
        "forge/on",
        "seq. on/forge",
        "calls on/forge",
        "corpus (on/dd off/df off)",
        "found (on/dd off/df off/forge)"
    );
    let configurations = [
        Switches::ALL,
        Switches {
            demand_driven: false,
            ..Switches::ALL
        },
        Switches {
            dataflow: false,
            ..Switches::ALL
        },
    ];
    let bugs = CASES
        .iter()
        .filter(|c| ["TwoStep", "Seats", "Rewards"].contains(&c.forge.contract));
    for case in SEQUENCE_CASES.iter().chain(bugs) {
        let project = forge::prepare(root, forge, &case.forge, BUDGET, SEQUENCE_DEPTH)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut runs = [Vec::new(), Vec::new(), Vec::new()];
        let mut peer = Vec::new();
        for seed in 1..=seeds {
            for (i, switches) in configurations.iter().enumerate() {
                runs[i].push(harvey_run(case, seed, SEQUENCE_DEPTH, *switches));
            }
            peer.push(forge_run(case, &project, seed));
        }
        let times = runs.each_ref().map(|r| times(r));
        let mut corpora = runs
            .each_ref()
            .map(|r| r.iter().map(|r| r.corpus).collect::<Vec<_>>());
        let work = to_violation(&runs[0], &peer);
        let peer = self::times(&peer);
        let found = format!(
            "{}/{}/{}/{} of {seeds}",
            hits(&times[0]),
            hits(&times[1]),
            hits(&times[2]),
            hits(&peer)
        );
        let corpus = corpora
            .iter_mut()
            .map(|c| median(c).map_or_else(|| "-".into(), |n| n.to_string()))
            .collect::<Vec<_>>()
            .join("/");
        let [on, dd, df] = times.each_ref().map(|t| censored_median(t));
        let peer = censored_median(&peer);
        row!(
            case.forge.contract,
            show(on),
            show(dd),
            show(df),
            show(peer),
            ratio(dd, on, BUDGET),
            ratio(df, on, BUDGET),
            ratio(peer, on, BUDGET),
            work.0,
            work.1,
            corpus,
            found
        );
    }
    println!("(dd: demand-driven sequences, df: dataflow ordering; ratios above 1: harvey with");
    println!("everything on is faster; a tool that did not find the bug counts as the budget.");
    println!(
        "corpus: median distinct path ids kept when the campaign ended; with dd off a path id"
    );
    println!("covers the whole sequence rather than its last call, so that corpus grows faster.");
    println!("seq./calls: to the violation, as in the first table; harvey's detectors are off.");
    println!(
        "forge 1.7.1 never sends ether with an invariant call, so it cannot invest in Crowdsale)\n"
    );
}

/// Which of harvey's techniques a benchmark campaign uses.
#[derive(Debug, Clone, Copy)]
struct Switches {
    prediction: bool,
    demand_driven: bool,
    dataflow: bool,
}

impl Switches {
    /// Everything on: harvey's defaults.
    const ALL: Switches = Switches {
        prediction: true,
        demand_driven: true,
        dataflow: true,
    };
}

/// What one campaign (either tool's) on a planted bug gave.
struct Run {
    /// Time to the first sighting of the bug, if found in the budget (harvey: from the end
    /// of setup; forge: its reported suite time).
    found: Option<Duration>,
    /// Sequences run up to and including the violating one, if found.
    sequences: Option<u64>,
    /// Calls run up to the violation, if found.
    calls: Option<u64>,
    /// Corpus entries when the campaign ended (harvey's only).
    corpus: usize,
}

/// The times of `runs`.
fn times(runs: &[Run]) -> Vec<Option<Duration>> {
    runs.iter().map(|r| r.found).collect()
}

/// The cells `harvey/forge` of the median sequences and of the median calls to the
/// violation (a miss counting as the most).
fn to_violation(harvey: &[Run], forge: &[Run]) -> (String, String) {
    let cell = |count: fn(&Run) -> Option<u64>| {
        let median = |runs: &[Run]| {
            let counts: Vec<Option<u64>> = runs.iter().map(count).collect();
            censored_median(&counts).map_or_else(|| "-".to_string(), |n| n.to_string())
        };
        format!("{}/{}", median(harvey), median(forge))
    };
    (cell(|r| r.sequences), cell(|r| r.calls))
}

/// One harvey campaign on `case` (with the invariant its bug needs, if any), its detectors
/// off; panics if what it found is not the planted bug.
fn harvey_run(case: &Planted, seed: u64, depth: u32, switches: Switches) -> Run {
    let contract = case.forge.contract;
    let campaign = Campaign::new(root::harvey_root())
        .contract(contract)
        .seed(seed)
        .time(BUDGET)
        .depth(depth)
        .detectors(DetectorSet::none())
        .prediction(switches.prediction)
        .demand_driven(switches.demand_driven)
        .dataflow(switches.dataflow);
    let campaign = match contract {
        "Seats" => campaign.invariant(SEATS_INVARIANT, |chain: &Chain| {
            let seats = chain.get("Seats");
            let first: Address = chain.view(seats, "first()", ()).unwrap();
            let founder: Address = chain.view(seats, "founder()", ()).unwrap();
            first == founder || first == Address::ZERO
        }),
        "Crowdsale" => campaign.invariant(CROWDSALE_INVARIANT, |chain: &Chain| {
            let sale = chain.get("Crowdsale");
            let by: Address = chain.view(sale, "withdrawnBy()", ()).unwrap();
            let owner: Address = chain.view(sale, "owner()", ()).unwrap();
            by == Address::ZERO || by == owner
        }),
        // Its bug is a checked-arithmetic Panic, which counts only when asked for (forge's
        // handler asserts on it too: `fail_on_revert`).
        "Rewards" => campaign.panics(harvey::PanicSet::of([
            PanicCode::Assert,
            PanicCode::ArithmeticOverflow,
        ])),
        _ => campaign,
    };
    let outcome = campaign.run().unwrap_or_else(|e| panic!("{e}"));
    let failure = outcome.failure();
    if let Some(failure) = failure {
        case.bug
            .check(&format!("{contract}, seed {seed}, {switches:?}"), failure);
    }
    Run {
        found: failure.map(|f| f.found_after),
        sequences: failure.map(|f| f.found_after_sequences),
        // Failing fast with one worker, the campaign's transactions are those up to the
        // violation.
        calls: failure.map(|_| outcome.stats.transactions),
        corpus: outcome.stats.corpus,
    }
}

/// forge's run on `case` with `seed`: its reported time to the violation, if it found one;
/// panics if forge's failure is not the planted bug (another reason).
fn forge_run(case: &Planted, project: &forge::ForgeProject, seed: u64) -> Run {
    let run = forge::time_to_violation(project, seed).unwrap_or_else(|e| panic!("{e}"));
    let failure = run.failure.as_ref();
    if let Some(failure) = failure {
        let reason = failure.reason.as_deref().unwrap_or("no reason");
        assert!(
            reason.contains(case.forge.reason),
            "{}, forge seed {seed}: the bench times forge's `{}`, but its invariant failed with `{reason}`",
            case.forge.contract,
            case.forge.reason
        );
    }
    Run {
        found: failure.map(|_| run.reported.unwrap_or(run.wall)),
        sequences: failure.map(|f| f.runs + 1),
        calls: failure.map(forge::InvariantResult::calls_to_failure),
        corpus: 0,
    }
}

/// Edges covered on `Baz` (HARVEY's running example, no bug) after a fixed number of
/// sequences, with and without prediction, and the prediction statistics.
fn coverage(root: &Path) {
    let runs = 5_000;
    println!("coverage of Baz after {runs} sequences (median edges over seeds 1-5):");
    for prediction in [true, false] {
        let mut edges = Vec::new();
        let mut stats = harvey::outcome::PredictionStats::default();
        for seed in 1..=5 {
            let outcome = Campaign::new(root)
                .contract("Baz")
                .seed(seed)
                .runs(runs)
                .prediction(prediction)
                .run()
                .unwrap_or_else(|e| panic!("{e}"));
            // A violation would end the campaign before its sequences are spent.
            assert!(
                outcome.failures.is_empty(),
                "Baz, seed {seed}: coverage after {runs} sequences, but the campaign stopped at {}",
                outcome.failures[0].violation
            );
            edges.push(outcome.stats.edges);
            stats = outcome.stats.predictions;
        }
        println!(
            "  prediction {:<5} {:>4} edges   (seed 5: {} predicted inputs, {} minimized, {}/{} chains in one step)",
            prediction,
            median(&mut edges).expect("five seeds"),
            stats.inputs,
            stats.minimized,
            stats.one_shot,
            stats.chains
        );
    }
    println!();
}
