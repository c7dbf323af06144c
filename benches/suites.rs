//! harvey against forge 1.7.1 on a public forge invariant suite run as it is (issue 14):
//! horsefacts/weth-invariant-testing, a handler-based WETH9 suite (a `Handler` with ghost
//! variables, `vm.prank`/`deal`/`bound`, actor sets, `targetSelector`/`targetContract` in
//! `setUp`, five `invariant_*` functions with forge-std assertions), unpatched and with
//! planted bugs in WETH9. harvey runs the suite's own Solidity through
//! `Campaign::forge_suite`; nothing of it is mirrored in Rust.
//!
//! Run with `cargo bench --bench suites` (`HARVEY_BENCH_SEEDS=n`, default 5;
//! `HARVEY_SUITES_TIME=s`, seconds per run, default 60). The table is printed and written
//! to `target/bench-suites.md`. CI does not run it.
//!
//! What it needs: node/npm (forge 1.7.1 from `@foundry-rs/forge-linux-amd64`, forge-std
//! 1.9.7 as bundled by `@layerzerolabs/toolbox-foundry@0.1.13`, solcjs through the repo's
//! shim) and the suite's git directory at
//! `$HARVEY_REAL_REPOS_MIRRORS/horsefacts+weth-invariant-testing/repo` (default
//! `/work/.mirror`; e.g. `git clone --bare
//! https://github.com/horsefacts/weth-invariant-testing <that path>`), read at the commit
//! pinned in [`SUITE`].
//!
//! Per case (the unpatched code, then each bug in [`BUGS`]):
//! 1. The suite is materialised into a scratch directory under the target directory
//!    (`git archive`), the bug planted by string replacement in `src/WETH9.sol`, forge-std
//!    copied into `lib/forge-std` (the submodules are not in the archive) with a
//!    `remappings.txt`, `test/WETH9.symbolic.t.sol` (a halmos test needing
//!    `halmos-cheatcodes`, not part of the invariant suite) left out, and the project's
//!    foundry.toml given the shim as `solc` and `offline = true`; its `[invariant]` table
//!    (runs 2000, depth 25, fail_on_revert false, dictionary settings) is kept. Each bug's
//!    witness (direct calls on a fresh WETH9 on harvey's chain, [`Bug::witness`]) must show
//!    the bug on its copy and not on the unpatched one before anything is measured.
//! 2. forge: `forge build` once (untimed), then per seed `forge test --mt <invariant>
//!    --fuzz-seed <seed> -j 1` with `cache/invariant` deleted first (forge replays persisted
//!    failures), `FOUNDRY_INVARIANT_TIMEOUT` = the budget and
//!    `FOUNDRY_INVARIANT_SHRINK_RUN_LIMIT=0` (so its time is time to the violation, as
//!    harvey's `found_after` is). `<invariant>` is the one the bug breaks (forge fuzzes each
//!    invariant in its own campaign); the time is the suite time forge reports. Unpatched,
//!    all five invariants run one after another, each with a fifth of the budget.
//! 3. harvey: `Campaign::new(copy).forge_suite("WETH9Invariants")`, seed, time budget, one
//!    worker, depth 25 (the suite's `[invariant] depth`, which `#[harvey::forge_suite]`
//!    would read; the builder does not), in this bench's release build. Every invariant is
//!    checked after every call, so a bug counts as found by whichever invariant harvey
//!    reports first; the time is `Failure::found_after` (from the end of setUp; compiling
//!    is not timed).
//!
//! calls/s: harvey's `Stats::transactions / Stats::elapsed`; forge's `calls` of the run
//! summary over its reported time. forge 1.7.1 counts only the calls of completed runs (a
//! campaign that fails in its first run says `calls: 0`), so forge's rate is given where it
//! counted calls, i.e. on the unpatched suite.

#[allow(dead_code)]
#[path = "peer/forge.rs"]
mod forge;
#[path = "peer/install.rs"]
mod install;
#[path = "support/repo.rs"]
mod repo;
#[allow(dead_code)]
#[path = "support/timing.rs"]
mod timing;

use std::path::{Path, PathBuf};
use std::time::Duration;

use std::sync::Arc;

use alloy_dyn_abi::DynSolValue;
use harvey::chain::{Chain, Tx, TxOptions};
use harvey::prelude::*;
use harvey::project::Artifacts;
use harvey::{Campaign, Violation};

use forge::ForgeProject;
use timing::{bench_seeds, censored_median, hits, show};

/// A public forge invariant suite at a pinned commit.
struct Suite {
    /// `<owner>+<name>` under the mirrors directory.
    mirror: &'static str,
    /// The pinned commit.
    commit: &'static str,
    /// The test contract `forge_suite` runs.
    test_contract: &'static str,
    /// Its invariants, all run on the unpatched code.
    invariants: &'static [&'static str],
    /// Files left out of the copy (they need what the bench does not install).
    exclude: &'static [&'static str],
    /// The file the bugs are planted in.
    target: &'static str,
    /// The suite's `[invariant] depth`, given to harvey.
    depth: u32,
}

const SUITE: Suite = Suite {
    mirror: "horsefacts+weth-invariant-testing",
    commit: "652820729e1e37e5517edcd3cba60875dd32fd46",
    test_contract: "WETH9Invariants",
    invariants: &[
        "invariant_conservationOfETH",
        "invariant_solvencyDeposits",
        "invariant_solvencyBalances",
        "invariant_depositorBalances",
        "invariant_callSummary",
    ],
    exclude: &["test/WETH9.symbolic.t.sol"],
    target: "src/WETH9.sol",
    depth: 25,
};

/// One planted bug: `from` replaced by `to` in the suite's target file.
struct Bug {
    /// Short name, also the copy's directory name.
    name: &'static str,
    from: &'static str,
    to: &'static str,
    /// The suite's invariant it breaks (checked with forge 1.7.1), the one forge fuzzes.
    breaks: &'static str,
    /// Direct calls on a fresh WETH9 from a funded sender, then whether the state is the
    /// bug's: true on the patched copy and false on the unpatched one (checked before
    /// measuring, so that each bug is known to be there and only there).
    witness: fn(&mut Witness) -> bool,
}

/// Bugs 1-4 are the repository's own `bugs/bug{1..4}.patch` as replacements; bug 5 is this
/// bench's.
const BUGS: [Bug; 5] = [
    Bug {
        name: "deposit-credits-1-wei",
        from: "balanceOf[msg.sender] += msg.value;",
        to: "balanceOf[msg.sender] += 1;",
        breaks: "invariant_solvencyBalances",
        witness: |w| {
            w.send("deposit()", &[], 2);
            w.balance_of(w.alice) != U256::from(2)
        },
    },
    Bug {
        name: "withdraw-pays-1-wei",
        from: "payable(msg.sender).transfer(wad);",
        to: "payable(msg.sender).transfer(1);",
        breaks: "invariant_conservationOfETH",
        witness: |w| {
            w.send("deposit()", &[], 2);
            w.send("withdraw(uint256)", &[uint(2)], 0);
            w.chain.balance(w.weth) != U256::ZERO
        },
    },
    Bug {
        name: "fallback-does-not-deposit",
        from: "    fallback() external payable {\n        deposit();\n    }",
        to: "    fallback() external payable {\n    }",
        breaks: "invariant_solvencyBalances",
        witness: |w| {
            w.send_plain(2);
            w.balance_of(w.alice) != U256::from(2)
        },
    },
    Bug {
        name: "transferFrom-unchecked-credits-1-wei",
        from: "        require(balanceOf[src] >= wad);\n\n        \
               if (src != msg.sender && allowance[src][msg.sender] != type(uint256).max) {\n            \
               require(allowance[src][msg.sender] >= wad);\n            \
               allowance[src][msg.sender] -= wad;\n        }\n\n        \
               balanceOf[src] -= wad;\n        balanceOf[dst] += wad;",
        to: "        balanceOf[src] -= wad;\n        balanceOf[dst] += 1;",
        breaks: "invariant_solvencyBalances",
        witness: |w| {
            w.send("deposit()", &[], 2);
            let to = DynSolValue::from(w.bob);
            w.send("transfer(address,uint256)", &[to, uint(2)], 0);
            w.balance_of(w.bob) != U256::from(2)
        },
    },
    Bug {
        name: "withdraw-keeps-balance",
        from: "        balanceOf[msg.sender] -= wad;\n        payable",
        to: "        payable",
        breaks: "invariant_solvencyBalances",
        witness: |w| {
            w.send("deposit()", &[], 2);
            w.send("withdraw(uint256)", &[uint(2)], 0);
            w.balance_of(w.alice) != U256::ZERO
        },
    },
];

/// A fresh WETH9 of one copy on harvey's chain, and two funded senders.
struct Witness {
    chain: Chain,
    weth: Address,
    alice: Address,
    bob: Address,
}

impl Witness {
    /// Deploys WETH9 from the copy's artifacts.
    fn new(artifacts: Arc<Artifacts>) -> Result<Witness, String> {
        let mut chain = Chain::new(artifacts);
        let weth = chain.deploy("WETH9", ()).map_err(|e| e.to_string())?;
        let (alice, bob) = (chain.senders()[0], chain.senders()[1]);
        Ok(Witness {
            chain,
            weth,
            alice,
            bob,
        })
    }

    /// alice calls `signature` on WETH9 with `value` wei; the call must succeed.
    fn send(&mut self, signature: &str, args: &[DynSolValue], value: u64) {
        let options = TxOptions {
            sender: Some(self.alice),
            value: U256::from(value),
        };
        let outcome = self
            .chain
            .call_with(self.weth, signature, args, options)
            .unwrap_or_else(|e| panic!("witness: {signature}: {e}"));
        assert!(outcome.is_success(), "witness: {signature}: {outcome:?}");
    }

    /// alice sends `value` wei to WETH9 with no calldata (its fallback).
    fn send_plain(&mut self, value: u64) {
        let tx = Tx {
            sender: self.alice,
            to: self.weth,
            value: U256::from(value),
            ..Tx::default()
        };
        let outcome = self
            .chain
            .execute(&tx)
            .unwrap_or_else(|e| panic!("witness: plain transfer: {e}"));
        assert!(outcome.is_success(), "witness: plain transfer: {outcome:?}");
        self.chain.commit();
    }

    /// WETH9's `balanceOf(holder)`.
    fn balance_of(&self, holder: Address) -> U256 {
        self.chain
            .view(self.weth, "balanceOf(address)", (holder,))
            .unwrap_or_else(|e| panic!("witness: balanceOf: {e}"))
    }
}

/// A `uint256` argument.
fn uint(value: u64) -> DynSolValue {
    DynSolValue::Uint(U256::from(value), 256)
}

/// Runs each bug's witness on the unpatched copy (`unpatched`) and on the bug's copy:
/// the bug's state must show on the latter only.
fn check_witness(bug: &Bug, unpatched: &Path, patched: &Path) -> Result<(), String> {
    for (dir, expected) in [(unpatched, false), (patched, true)] {
        let artifacts = harvey::project::compiled(dir).map_err(|e| e.to_string())?;
        let mut witness = Witness::new(artifacts)?;
        if (bug.witness)(&mut witness) != expected {
            return Err(format!(
                "{}: the witness {} the bug in {}",
                bug.name,
                if expected { "does not show" } else { "shows" },
                dir.display()
            ));
        }
    }
    Ok(())
}

/// forge-std 1.9.7, bundled by this npm package (npm's own `forge-std` is a broken 1.1.2).
const FORGE_STD_PACKAGE: &str = "@layerzerolabs/toolbox-foundry@0.1.13";

/// Where forge-std lies inside the installed package.
const FORGE_STD_IN_PACKAGE: &str = "node_modules/@layerzerolabs/toolbox-foundry/lib/forge-std";

/// Each run's budget: `HARVEY_SUITES_TIME` seconds, default 60.
fn budget() -> Duration {
    let secs = std::env::var("HARVEY_SUITES_TIME")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    Duration::from_secs(secs)
}

/// One run of one tool on one case.
struct Run {
    /// When the first violation was found, if one was.
    found: Option<Duration>,
    /// The invariant reported broken (harvey: the first violation's invariant).
    invariant: Option<String>,
    /// Calls per second, where the tool counted calls.
    rate: Option<f64>,
}

/// One row of the table.
struct Row {
    case: String,
    breaks: String,
    forge: Vec<Run>,
    harvey: Vec<Run>,
    /// Whether the runs spent their whole budget fuzzing (the unpatched code), so that
    /// their calls/s are the tools' speed rather than start-up and the first sequences.
    full_runs: bool,
}

/// Runs everything and prints the table.
fn main() {
    let Some(seeds) = bench_seeds(5) else {
        return;
    };
    let budget = budget();
    let forge = install::ensure_forge().unwrap_or_else(|e| panic!("{e}"));
    let forge_std = ensure_forge_std().unwrap_or_else(|e| panic!("{e}"));
    let cases: Vec<Option<&Bug>> = std::iter::once(None).chain(BUGS.iter().map(Some)).collect();
    let mut rows = Vec::new();
    for bug in cases {
        let name = bug.map_or("unpatched", |b| b.name);
        let dir = scratch().join(name);
        materialise(&dir, &forge_std, bug).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Some(bug) = bug {
            check_witness(bug, &scratch().join("unpatched"), &dir)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let project = ForgeProject::build(&forge, &dir).unwrap_or_else(|e| panic!("{e}"));
        let mut row = Row {
            case: name.to_string(),
            breaks: bug.map_or("none (all 5 must hold)".into(), |b| b.breaks.to_string()),
            forge: Vec::new(),
            harvey: Vec::new(),
            full_runs: bug.is_none(),
        };
        for seed in 1..=seeds {
            let run = run_forge(&project, bug, seed, budget).unwrap_or_else(|e| panic!("{e}"));
            eprintln!("{name} seed {seed} forge: {}", shown(&run));
            row.forge.push(run);
            let run = run_harvey(&dir, seed, budget);
            eprintln!("{name} seed {seed} harvey: {}", shown(&run));
            row.harvey.push(run);
        }
        rows.push(row);
    }
    let table = table(&rows, seeds, budget);
    println!("{table}");
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-suites.md");
    if let Err(e) = std::fs::write(&out, &table) {
        eprintln!("{}: {e}", out.display());
    }
}

/// This bench's scratch directory, beside the other benches'.
fn scratch() -> PathBuf {
    install::scratch().join("suites")
}

/// forge-std 1.9.7 from npm, installed into the scratch directory on first use.
fn ensure_forge_std() -> Result<PathBuf, String> {
    let prefix = scratch().join("deps");
    let forge_std = prefix.join(FORGE_STD_IN_PACKAGE);
    if forge_std.join("Test.sol").exists() {
        return Ok(forge_std);
    }
    std::fs::create_dir_all(&prefix).map_err(|e| format!("{}: {e}", prefix.display()))?;
    repo::run(
        std::process::Command::new("npm")
            .args([
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                "--prefix",
            ])
            .arg(&prefix)
            .arg(FORGE_STD_PACKAGE),
        &format!("npm install {FORGE_STD_PACKAGE} (is npm installed and the registry reachable?)"),
    )?;
    Ok(forge_std)
}

/// A fresh copy of the suite at `dir` with `bug` planted, laid out for forge and harvey.
fn materialise(dir: &Path, forge_std: &Path, bug: Option<&Bug>) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(dir);
    repo::materialise(SUITE.mirror, SUITE.commit, dir)?;
    for file in SUITE.exclude {
        std::fs::remove_file(dir.join(file)).map_err(|e| format!("{file}: {e}"))?;
    }
    // The submodule directories are empty in the archive; forge-std comes from npm.
    let lib = dir.join("lib/forge-std");
    let _ = std::fs::remove_dir_all(&lib);
    repo::run(
        std::process::Command::new("cp")
            .arg("-r")
            .arg(forge_std)
            .arg(&lib),
        "cp -r forge-std",
    )?;
    std::fs::write(dir.join("remappings.txt"), "forge-std/=lib/forge-std/\n")
        .map_err(|e| format!("remappings.txt: {e}"))?;
    let solc = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/solc-shim/solc");
    repo::replace_once(
        dir,
        "foundry.toml",
        "[profile.default]\n",
        &format!(
            "[profile.default]\nsolc = \"{}\"\noffline = true\n",
            solc.display()
        ),
    )?;
    match bug {
        Some(bug) => repo::replace_once(dir, SUITE.target, bug.from, bug.to),
        None => Ok(()),
    }
}

/// forge on `bug`'s broken invariant (all invariants, each with a share of the budget,
/// when unpatched).
fn run_forge(
    project: &ForgeProject,
    bug: Option<&Bug>,
    seed: u64,
    budget: Duration,
) -> Result<Run, String> {
    let (pattern, timeout) = match bug {
        Some(bug) => (bug.breaks.to_string(), budget),
        None => (
            "^invariant_".to_string(),
            budget / SUITE.invariants.len() as u32,
        ),
    };
    let mut command = forge::test_command(project, seed);
    command
        .args(["--mt", &pattern, "-j", "1"])
        .env(
            "FOUNDRY_INVARIANT_TIMEOUT",
            timeout.as_secs().max(1).to_string(),
        )
        .env("FOUNDRY_INVARIANT_SHRINK_RUN_LIMIT", "0");
    let run = forge::run_invariants(command)?;
    let failed = run.results.iter().find(|r| r.failed);
    let calls: u64 = run.results.iter().map(|r| r.calls).sum();
    let rate = run
        .reported
        .filter(|t| calls > 0 && !t.is_zero())
        .map(|t| calls as f64 / t.as_secs_f64());
    Ok(Run {
        found: failed.and(run.reported),
        invariant: failed.map(|r| r.name.clone()),
        rate,
    })
}

/// harvey's campaign on the suite in `dir`; a campaign that cannot run is reported as not
/// found, with its error on stderr (a finding: what harvey does not support yet).
fn run_harvey(dir: &Path, seed: u64, budget: Duration) -> Run {
    let result = Campaign::new(dir)
        .forge_suite(SUITE.test_contract)
        .seed(seed)
        .time(budget)
        .workers(1)
        .depth(SUITE.depth)
        .run();
    match result {
        Err(e) => {
            eprintln!("harvey could not run the suite in {}: {e}", dir.display());
            Run {
                found: None,
                invariant: Some("error".into()),
                rate: None,
            }
        }
        Ok(outcome) => {
            let stats = &outcome.stats;
            let rate = (!stats.elapsed.is_zero())
                .then(|| stats.transactions as f64 / stats.elapsed.as_secs_f64());
            let failure = outcome.failure();
            if let Some(failure) = failure {
                eprintln!("{}", harvey::report::failure_report(failure, None));
            }
            Run {
                found: failure.map(|f| f.found_after),
                invariant: failure.map(|f| violated(&f.violation)),
                rate,
            }
        }
    }
}

/// The invariant a violation broke, or the violation itself when it is not an invariant's.
fn violated(violation: &Violation) -> String {
    match violation {
        Violation::Invariant { name, .. } => name.clone(),
        other => format!("{other:?}")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// One run for stderr.
fn shown(run: &Run) -> String {
    format!(
        "found {} ({}), {}",
        show(run.found),
        run.invariant.as_deref().unwrap_or("-"),
        rate(std::slice::from_ref(run))
    )
}

/// The median calls/s of the runs that counted calls.
fn rate(runs: &[Run]) -> String {
    let mut rates: Vec<u64> = runs
        .iter()
        .filter_map(|r| r.rate)
        .map(|r| r as u64)
        .collect();
    match timing::median(&mut rates) {
        Some(rate) => format!("{rate} calls/s"),
        None => "-".into(),
    }
}

/// The markdown table.
fn table(rows: &[Row], seeds: u64, budget: Duration) -> String {
    let mut text = format!(
        "harvey vs forge 1.7.1 on horsefacts/weth-invariant-testing@{} \
         (`WETH9Invariants`, handler suite run as it is), {seeds} seeds, {}s budget per run, \
         one thread each:\n\n\
         | case | invariant broken | forge found | forge median time | forge calls/s \
         | harvey found | harvey median time | harvey invariant | harvey calls/s |\n\
         |---|---|---|---|---|---|---|---|---|\n",
        &SUITE.commit[..7],
        budget.as_secs()
    );
    for row in rows {
        let times = |runs: &[Run]| runs.iter().map(|r| r.found).collect::<Vec<_>>();
        let (forge, harvey) = (times(&row.forge), times(&row.harvey));
        let rate = |runs: &[Run]| {
            if row.full_runs {
                rate(runs)
            } else {
                "-".into()
            }
        };
        let mut invariants: Vec<&str> = row
            .harvey
            .iter()
            .filter_map(|r| r.invariant.as_deref())
            .collect();
        invariants.sort();
        invariants.dedup();
        text.push_str(&format!(
            "| {} | {} | {}/{seeds} | {} | {} | {}/{seeds} | {} | {} | {} |\n",
            row.case,
            row.breaks,
            hits(&forge),
            show(censored_median(&forge)),
            rate(&row.forge),
            hits(&harvey),
            show(censored_median(&harvey)),
            if invariants.is_empty() {
                "-".into()
            } else {
                invariants.join(", ")
            },
            rate(&row.harvey),
        ));
    }
    text.push_str(
        "\nforge runs only the invariant the bug breaks (unpatched: all five, a fifth of the \
         budget each); harvey checks all five after every call. forge's time is the suite \
         time it reports, harvey's is `found_after`; neither includes compiling or shrinking. \
         calls/s are given for the unpatched runs, which fuzz for the whole budget (forge \
         counts calls only of completed runs; a bug found within milliseconds says little \
         of either tool's speed).\n",
    );
    text
}
