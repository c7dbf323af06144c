//! harvey against forge 1.7.1 on public invariant and property suites run as they are
//! (issues 14 and 29): forge handler suites, a DeFi protocol whose setUp runs its deploy
//! script, Chimera suites, crytic/properties' ERC20 and ERC4626 harnesses, Echidna
//! exercises and Echidna's own tests with their yaml, each fetched at a pinned commit, unpatched and with planted bugs. harvey runs
//! the suite's own Solidity through `Campaign::forge_suite`; nothing of it is mirrored in
//! Rust. The suites, their settings and bugs are in `suites/table.rs`; `suites/README.md`
//! has them as a table (repository, commit, style, cheatcodes, bug, forge's results).
//!
//! Run with `cargo bench --bench suites` (`HARVEY_BENCH_SEEDS=n`, default 3;
//! `HARVEY_SUITES_TIME=s`, seconds per run, default 60; `HARVEY_SUITES_ONLY=a,b` to run only
//! the named suites; `HARVEY_SUITES_UNPATCHED_ONLY=1` to run only the unpatched code,
//! `HARVEY_SUITES_SKIP_FORGE=1` to run harvey alone, e.g. to see quickly which suites harvey
//! cannot run yet; `HARVEY_SUITES_NO_CONFIG=1` to run the Echidna suites without the config
//! their command line names, to see what it changes). The table is printed and written to `bench-suites.md` in the target directory. CI does
//! not run it.
//!
//! What it needs: node/npm (forge 1.7.1 from `@foundry-rs/forge-linux-amd64`, OpenZeppelin
//! and Chainlink packages by `npm pack`, forge-std 1.9.7 as bundled by
//! `@layerzerolabs/toolbox-foundry@0.1.13`, solcjs through the repo's shim) and git
//! directories of the suites and of their submodules' repositories under
//! `$HARVEY_REAL_REPOS_MIRRORS` (default `/work/.mirror`), one `<owner>+<name>/repo` each
//! (e.g. `git clone --bare https://github.com/<owner>/<name> <that path>`): the suites' own
//! and foundry-rs/forge-std, dapphub/ds-test, maple-labs/erc20, transmissions11/solmate,
//! Recon-Fuzz/chimera and Recon-Fuzz/setup-helpers.
//!
//! Per suite and case (the unpatched code, then each bug):
//! 1. The suite is materialised into a scratch directory under the target directory
//!    (`suites/materialise.rs`): `git archive` of the pinned commit, the submodules'
//!    libraries at their pinned commits or from npm, files it cannot build left out, its
//!    foundry.toml given the shim as `solc` and `offline = true` (its `[invariant]` settings
//!    kept), a challenge's fix applied, the bug planted by string replacement. weth's bugs
//!    have witnesses (direct calls on a fresh WETH9) that must show each bug on its copy and
//!    not on the unpatched one before anything is measured.
//! 2. forge (suites it can run): `forge build` once (untimed), then per seed `forge test --mc
//!    <contract> --mt <invariant> --fuzz-seed <seed> -j 1` under the suite's profile, with
//!    `cache/invariant` (and any corpus directory) deleted first (forge replays persisted
//!    failures), `FOUNDRY_INVARIANT_RUNS=1000000` and `FOUNDRY_INVARIANT_TIMEOUT` = the budget
//!    (so the budget, not the run count, ends a clean campaign) and
//!    `FOUNDRY_INVARIANT_SHRINK_RUN_LIMIT=0` (so its time is time to the violation, as
//!    harvey's `found_after` is). `<invariant>` is the one the bug breaks (forge fuzzes each
//!    invariant in its own campaign); the time is the suite time forge reports. Unpatched,
//!    all the suite's invariants run one after another, each with an equal share of the
//!    budget. A failure counts as the bug only if it is the expected one (the invariant, or
//!    the revert reason under `fail_on_revert`).
//! 3. harvey: `Campaign::new(project).forge_suite(contract)` (with `.suite_config(yaml)` where
//!    the suite's own command line names a config: Echidna's tests), seed, time budget, one worker,
//!    the suite's own depth and `fail_on_revert` (which `#[harvey::forge_suite]` would read
//!    from foundry.toml; the builder does not), in this bench's release build. On a bug
//!    `fail_fast` is off, so that a false alarm does not hide the bug: the time is the
//!    `found_after` of the first violation that is the expected one (the invariant; the
//!    revert's reason; for assertion mode, an assertion in the expected property function).
//!    Every other violation is listed in the table as what it is: on the unpatched code, a
//!    false alarm.
//!
//! calls/s: harvey's `Stats::transactions / Stats::elapsed`; forge's `calls` of the run
//! summary over its reported time. forge 1.7.1 counts only the calls of completed runs (a
//! campaign that fails in its first run says `calls: 0`), so rates are given for the
//! unpatched runs.

#[allow(dead_code)]
#[path = "peer/forge.rs"]
mod forge;
#[path = "peer/install.rs"]
mod install;
#[path = "suites/materialise.rs"]
mod materialise;
#[path = "support/repo.rs"]
mod repo;
#[path = "support/root.rs"]
mod root;
#[path = "suites/table.rs"]
mod table;
#[allow(dead_code)]
#[path = "support/timing.rs"]
mod timing;
#[path = "suites/weth.rs"]
mod weth;

use std::path::Path;
use std::time::Duration;

use harvey::prelude::{PanicCode, U256};
use harvey::{Campaign, Failure, Violation};

use forge::ForgeProject;
use table::{Bug, Expect, Forge, SUITES, Suite};
use timing::{bench_seeds, censored_median, hits, show};

/// Each run's budget: `HARVEY_SUITES_TIME` seconds, default 60.
fn budget() -> Duration {
    let secs = std::env::var("HARVEY_SUITES_TIME")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    Duration::from_secs(secs)
}

/// The suites to run: `HARVEY_SUITES_ONLY` (comma-separated names), else all.
fn selected() -> Vec<&'static Suite> {
    let only = std::env::var("HARVEY_SUITES_ONLY").unwrap_or_default();
    let names: Vec<&str> = only
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    for name in &names {
        assert!(
            SUITES.iter().any(|s| s.name == *name),
            "HARVEY_SUITES_ONLY: no suite {name} (suites: {})",
            SUITES.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
        );
    }
    SUITES
        .iter()
        .filter(|s| names.is_empty() || names.contains(&s.name))
        .collect()
}

/// Whether the environment variable `name` is set to `1`.
fn flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v == "1")
}

/// One run of one tool on one case.
struct Run {
    /// When the expected violation (on the unpatched code: any violation) was found.
    found: Option<Duration>,
    /// What the tool reported: the violations, expected or not, or why it could not run.
    reported: Vec<String>,
    /// Calls per second, where the tool counted calls.
    rate: Option<f64>,
}

/// One row of the table.
struct Row {
    suite: &'static str,
    case: String,
    expected: String,
    /// `None`: forge cannot run the suite.
    forge: Option<Vec<Run>>,
    harvey: Vec<Run>,
    /// Whether the runs spent their whole budget fuzzing (the unpatched code), so that
    /// their calls/s are the tools' speed rather than start-up and the first sequences.
    full_runs: bool,
}

/// Runs everything and prints the table.
fn main() {
    let Some(seeds) = bench_seeds(3) else {
        return;
    };
    let budget = budget();
    let forge = install::ensure_forge().unwrap_or_else(|e| panic!("{e}"));
    let (unpatched_only, skip_forge) = (
        flag("HARVEY_SUITES_UNPATCHED_ONLY"),
        flag("HARVEY_SUITES_SKIP_FORGE"),
    );
    let mut rows = Vec::new();
    for suite in selected() {
        let cases: Vec<Option<&Bug>> = std::iter::once(None)
            .chain(suite.bugs.iter().map(Some))
            .take(if unpatched_only { 1 } else { usize::MAX })
            .collect();
        for bug in cases {
            let case = bug.map_or("unpatched", |b| b.name);
            let label = format!("{}/{case}", suite.name);
            let dir = materialise::scratch().join(suite.name).join(case);
            let project = match materialise::materialise(suite, &dir, bug) {
                Ok(project) => project,
                Err(e) => {
                    eprintln!("{label}: could not materialise: {e}");
                    continue;
                }
            };
            if let Some(bug) = bug {
                let unpatched = materialise::scratch().join(suite.name).join("unpatched");
                let unpatched = unpatched.join(suite.root);
                weth::check_witness(bug, &unpatched, &project).unwrap_or_else(|e| panic!("{e}"));
            }
            let built = match &suite.forge {
                Forge::Invariants { .. } if skip_forge => None,
                Forge::Invariants { .. } => Some(ForgeProject::build(&forge, &project)),
                Forge::NotApplicable(why) => {
                    eprintln!("{label}: forge: n/a ({why})");
                    None
                }
            };
            let mut row = Row {
                suite: suite.name,
                case: case.to_string(),
                expected: bug.map_or("nothing".into(), |b| b.expect.describe()),
                forge: built.as_ref().map(|_| Vec::new()),
                harvey: Vec::new(),
                full_runs: bug.is_none(),
            };
            for seed in 1..=seeds {
                if let (Some(built), Some(runs)) = (&built, &mut row.forge) {
                    let run = match built {
                        Ok(project) => run_forge(suite, project, bug, seed, budget),
                        Err(e) => failed_run(format!("forge build: {}", first_line(e))),
                    };
                    eprintln!("{label} seed {seed} forge: {}", shown(&run));
                    runs.push(run);
                }
                let run = run_harvey(suite, &project, bug, seed, budget);
                eprintln!("{label} seed {seed} harvey: {}", shown(&run));
                row.harvey.push(run);
            }
            rows.push(row);
        }
    }
    let table = table(&rows, seeds, budget);
    println!("{table}");
    // Beside the other benches' results, in whatever target directory is in use.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root::harvey_root().join("target"));
    let out = target.join("bench-suites.md");
    if let Err(e) = std::fs::create_dir_all(&target).and_then(|()| std::fs::write(&out, &table)) {
        eprintln!("{}: {e}", out.display());
    }
}

/// A run that could not happen, with why.
fn failed_run(why: String) -> Run {
    Run {
        found: None,
        reported: vec![why],
        rate: None,
    }
}

/// forge on `bug`'s invariant (all invariants, each with a share of the budget, when
/// unpatched).
fn run_forge(
    suite: &Suite,
    project: &ForgeProject,
    bug: Option<&Bug>,
    seed: u64,
    budget: Duration,
) -> Run {
    let Forge::Invariants {
        profile,
        invariants,
        state,
    } = &suite.forge
    else {
        return failed_run("n/a".into());
    };
    let (pattern, timeout) = match bug.and_then(|b| b.forge_invariant) {
        // forge matches `--mt` against the signature, `invariant_C()`.
        Some(invariant) => (format!("^{invariant}\\("), budget),
        None => (
            "^invariant".to_string(),
            budget / invariants.len().max(1) as u32,
        ),
    };
    let mut command = forge::test_command(project, seed);
    for dir in *state {
        let _ = std::fs::remove_dir_all(project_dir(project).join(dir));
    }
    command
        .args(["--mc", &format!("^{}$", suite.test_contract)])
        .args(["--mt", &pattern, "-j", "1"])
        .env("FOUNDRY_INVARIANT_RUNS", "1000000")
        .env(
            "FOUNDRY_INVARIANT_TIMEOUT",
            timeout.as_secs().max(1).to_string(),
        )
        .env("FOUNDRY_INVARIANT_SHRINK_RUN_LIMIT", "0");
    if let Some(profile) = profile {
        command.env("FOUNDRY_PROFILE", profile);
    }
    let run = match forge::run_invariants(command) {
        Ok(run) => run,
        Err(e) => return failed_run(format!("forge: {}", first_line(&e))),
    };
    let failed: Vec<&forge::InvariantResult> = run.results.iter().filter(|r| r.failed).collect();
    let reported = failed
        .iter()
        .map(|r| format!("{}: {}", r.name, r.reason.as_deref().unwrap_or("failed")))
        .collect();
    let expected = failed.iter().any(|r| match bug.map(|b| &b.expect) {
        None => true,
        Some(Expect::Invariant(names)) => names.contains(&r.name.as_str()),
        Some(Expect::PanicIn { code, .. }) => r
            .reason
            .as_deref()
            .is_some_and(|reason| forge_panic(reason, *code)),
        Some(Expect::AssertionIn(_)) => false,
    });
    let calls: u64 = run.results.iter().map(|r| r.calls).sum();
    let rate = run
        .reported
        .filter(|t| calls > 0 && !t.is_zero())
        .map(|t| calls as f64 / t.as_secs_f64());
    Run {
        found: if expected { run.reported } else { None },
        reported,
        rate,
    }
}

/// The directory of a built forge project.
fn project_dir(project: &ForgeProject) -> &Path {
    project.dir()
}

/// harvey's campaign on the suite in `project` (with the config its own command line names);
/// a campaign that cannot run is reported as not found, with its error (a finding: what
/// harvey does not support yet).
fn run_harvey(
    suite: &Suite,
    project: &Path,
    bug: Option<&Bug>,
    seed: u64,
    budget: Duration,
) -> Run {
    let mut campaign = Campaign::new(project).forge_suite(suite.test_contract);
    // `HARVEY_SUITES_NO_CONFIG=1`: what the suite's config changes.
    if let Some(config) = suite.config.filter(|_| !flag("HARVEY_SUITES_NO_CONFIG")) {
        campaign = campaign.suite_config(config);
    }
    let result = campaign
        .seed(seed)
        .time(budget)
        .workers(1)
        .depth(suite.depth)
        .fail_on_revert(suite.fail_on_revert)
        .fail_fast(bug.is_none())
        .run();
    let outcome = match result {
        Err(e) => {
            eprintln!(
                "harvey could not run {} in {}: {e}",
                suite.name,
                project.display()
            );
            return failed_run(format!("error: {}", first_line(&e.to_string())));
        }
        Ok(outcome) => outcome,
    };
    for warning in &outcome.warnings {
        eprintln!("harvey warning: {warning}");
    }
    for failure in &outcome.failures {
        eprintln!("{failure}");
    }
    let stats = &outcome.stats;
    let rate =
        (!stats.elapsed.is_zero()).then(|| stats.transactions as f64 / stats.elapsed.as_secs_f64());
    let found = outcome
        .failures
        .iter()
        .filter(|f| bug.is_none_or(|b| is_expected(&b.expect, f)))
        .map(|f| f.found_after)
        .min();
    Run {
        found,
        reported: outcome.failures.iter().map(described).collect(),
        rate,
    }
}

/// Whether forge's failure `reason` is Panic `code` (`panic: division or modulo by zero
/// (0x12)`).
fn forge_panic(reason: &str, code: u8) -> bool {
    reason.starts_with("panic: ") && reason.ends_with(&format!("(0x{code:02x})"))
}

/// Whether harvey's `failure` is the bug `expect` describes: the violation's kind, its
/// place and its reason.
fn is_expected(expect: &Expect, failure: &Failure) -> bool {
    match expect {
        Expect::Invariant(names) => {
            matches!(&failure.violation, Violation::Invariant { name, .. } if names.contains(&name.as_str()))
        }
        Expect::PanicIn { code, contract } => {
            let (raised, place) = match &failure.violation {
                Violation::Panic { code, place } => (code.code(), place),
                // A Panic outside the campaign's panic set fails the campaign as a revert.
                Violation::Reverted { reason, place } => {
                    let Some(code) = reason
                        .strip_prefix("reverted with Panic(0x")
                        .and_then(|rest| rest.split_once(')'))
                        .and_then(|(hex, _)| U256::from_str_radix(hex, 16).ok())
                    else {
                        return false;
                    };
                    (code, place)
                }
                _ => return false,
            };
            raised == U256::from(*code) && place.contract == *contract
        }
        Expect::AssertionIn(functions) => {
            let asserted = match &failure.violation {
                Violation::Panic { code, .. } => *code == PanicCode::Assert,
                Violation::AssertionFailed { .. } => true,
                // A failed forge-std assertion reverts (Echidna 2.3 counts it in assertion
                // mode); no other revert is an assertion.
                Violation::Reverted { reason, .. } => {
                    reason.starts_with("reverted with Error(\"assertion failed")
                }
                _ => false,
            };
            let last = failure
                .calls
                .last()
                .map(|c| c.signature.as_str())
                .unwrap_or("");
            asserted
                && functions.iter().any(|f| {
                    last.strip_prefix(f)
                        .is_some_and(|rest| rest.starts_with('('))
                })
        }
    }
}

/// A violation in a few words: the invariant's name, or the violation and the function of
/// the last call.
fn described(failure: &Failure) -> String {
    let last = failure
        .calls
        .last()
        .map(|c| c.signature.split('(').next().unwrap_or("").to_string())
        .unwrap_or_default();
    let what = match &failure.violation {
        Violation::Invariant { name, .. } => return name.clone(),
        Violation::Panic { code, .. } => format!("Panic {code:?}"),
        Violation::AssertionFailed { message, .. } => format!("AssertionFailed({message})"),
        Violation::Reverted { reason, .. } => format!("revert {reason}"),
        Violation::Vulnerability {
            detector, place, ..
        } => format!(
            "detector {detector:?} at {}",
            place.line.as_deref().unwrap_or(&place.contract)
        ),
        Violation::UnsupportedCheatcode { cheatcode, place } => format!(
            "unsupported cheatcode {cheatcode} at {}",
            place.line.as_deref().unwrap_or(&place.contract)
        ),
        other => format!("{other:?}"),
    };
    let what = first_line(&what);
    if last.is_empty() {
        what
    } else {
        format!("{what} in {last}")
    }
}

/// The first line of `text`, at most 160 characters, with `|` escaped for the table.
fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").replace('|', "\\|");
    match line.char_indices().nth(160) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// One run for stderr.
fn shown(run: &Run) -> String {
    format!(
        "found {} ({}), {}",
        show(run.found),
        if run.reported.is_empty() {
            "-".into()
        } else {
            run.reported.join("; ")
        },
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

/// The distinct things the runs reported, for the table.
fn reported(runs: &[Run]) -> String {
    let mut all: Vec<&str> = runs
        .iter()
        .flat_map(|r| r.reported.iter())
        .map(String::as_str)
        .collect();
    all.sort();
    all.dedup();
    if all.is_empty() {
        "-".into()
    } else {
        all.join("; ")
    }
}

/// The markdown table.
fn table(rows: &[Row], seeds: u64, budget: Duration) -> String {
    let mut text = String::from(
        "| suite | repository @ commit | test contract | style | harvey depth, fail_on_revert |\n\
         |---|---|---|---|---|\n",
    );
    let mut listed: Vec<&str> = rows.iter().map(|r| r.suite).collect();
    listed.dedup();
    for name in listed {
        let suite = SUITES
            .iter()
            .find(|s| s.name == name)
            .expect("a suite of the table");
        text.push_str(&format!(
            "| {} | {}@{} | `{}` | {} | {}, {} |\n",
            suite.name,
            suite.mirror.replace('+', "/"),
            &suite.commit[..7],
            suite.test_contract,
            suite.style,
            suite.depth,
            suite.fail_on_revert
        ));
    }
    text.push_str(&format!(
        "\nharvey vs forge 1.7.1 on public invariant/property suites run as they are, {seeds} \
         seeds, {}s budget per run, one thread each (suites: `benches/suites/README.md`):\n\n\
         | suite | case | expected | forge found | forge median time | forge reported \
         | forge calls/s | harvey found | harvey median time | harvey reported | harvey calls/s \
         | cheatcodes |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        budget.as_secs()
    ));
    for row in rows {
        let suite = SUITES
            .iter()
            .find(|s| s.name == row.suite)
            .expect("a suite of the table");
        let times = |runs: &[Run]| runs.iter().map(|r| r.found).collect::<Vec<_>>();
        let rate = |runs: &[Run]| {
            if row.full_runs {
                rate(runs)
            } else {
                "-".into()
            }
        };
        let forge = match (&row.forge, &suite.forge) {
            (Some(runs), _) => {
                let found = times(runs);
                format!(
                    "{}/{seeds} | {} | {} | {}",
                    hits(&found),
                    show(censored_median(&found)),
                    reported(runs),
                    rate(runs)
                )
            }
            (None, Forge::NotApplicable(why)) => format!("n/a | - | {why} | -"),
            (None, _) => "not run | - | - | -".into(),
        };
        let harvey = times(&row.harvey);
        text.push_str(&format!(
            "| {} | {} | {} | {forge} | {}/{seeds} | {} | {} | {} | {} |\n",
            row.suite,
            row.case,
            row.expected,
            hits(&harvey),
            show(censored_median(&harvey)),
            reported(&row.harvey),
            rate(&row.harvey),
            suite.cheatcodes,
        ));
    }
    text.push_str(
        "\n\"found\" on an unpatched row counts runs that reported anything (false alarms); on a \
         bug's row, runs that reported the expected violation. forge runs only the invariant the \
         bug breaks (unpatched: every invariant, an equal share of the budget each); harvey \
         checks every invariant after every call. forge's time is the suite time it reports, \
         harvey's is `found_after`; neither includes compiling or shrinking. calls/s are given \
         for the unpatched runs, which fuzz for the whole budget.\n",
    );
    text
}
