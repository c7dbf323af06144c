//! What `#[harvey::invariant]` expands to calls. Not a public API: names may change in any
//! release.

use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

mod inputs;

use crate::campaign::Campaign;
use crate::chain::Chain;
use crate::config::Config;
pub use crate::oracle::IntoCheck;
use crate::outcome::Progress;
use crate::output::regression;
use crate::project::{Environment, ProjectConfig};
use crate::report;
pub use inputs::Input;

/// Progress is shown only for campaigns running longer than this...
const QUIET_FOR: Duration = Duration::from_secs(3);
/// ...and then at most this often.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// An invariant by name, as the macro passes it: the function turned into a check.
pub type NamedCheck<'a> = (
    &'static str,
    &'a (dyn Fn(&Chain) -> Result<(), String> + Sync),
);

/// A property's case as the macro writes it: the property called with the generated
/// values decoded to its parameters' Rust types.
pub type Case = dyn Fn(&mut Chain, &[DynSolValue]) -> Result<(), String> + Sync;

/// What a Rust test checks.
pub enum Checks<'a> {
    /// `#[harvey::invariant]`, `#[harvey::invariants]`: the invariants, by name, all
    /// checked after every call of one campaign.
    Invariants(&'a [NamedCheck<'a>]),
    /// `#[harvey::property]`: the property's parameters (name and Solidity type, in order)
    /// and one case.
    Property {
        /// The parameters.
        params: &'a [(&'static str, String)],
        /// One case: the property called with generated values.
        case: &'a Case,
    },
}

/// One Rust test (`#[harvey::invariant]`, `#[harvey::invariants]`, `#[harvey::property]`),
/// as the macro describes it.
pub struct RustTest<'a> {
    /// The test function's name (the property's, for a property).
    pub name: &'static str,
    /// `module_path!()` at the test.
    pub module_path: &'static str,
    /// `CARGO_MANIFEST_DIR` of the crate holding the test: the project root.
    pub manifest_dir: &'static str,
    /// `file!()` and `line!()` at the test: where SARIF results without a Solidity line go.
    pub file: &'static str,
    /// See `file`.
    pub line: u32,
    /// The Solidity project's root relative to `manifest_dir` (empty: the same).
    pub root: &'static str,
    /// Contracts to deploy and fuzz when there is no setup.
    pub contracts: &'static [&'static str],
    /// The setup function, if any.
    pub setup: Option<fn(&mut Chain) -> crate::Result<()>>,
    /// What the test checks.
    pub checks: Checks<'a>,
    /// The attribute's settings as `(name, text)` pairs, each already checked at compile
    /// time by its row of [`harvey_settings::SETTINGS`].
    pub attributes: &'static [(&'static str, &'static str)],
}

/// Runs the campaign of one Rust test; prints the summary, then panics (failing the test)
/// with the report of every violation found (a property's failing inputs) or a setup error.
pub fn run_rust_test(test: RustTest<'_>) {
    let config = Config::from_attributes(test.attributes)
        .unwrap_or_else(|e| panic!("harvey: {}: {}", test.name, crate::Error::from(e)));
    let crate_dir = Path::new(test.manifest_dir);
    let mut campaign = Campaign::new(crate_dir.join(test.root)).config(config);
    match test.checks {
        Checks::Invariants(checks) => {
            for (name, check) in checks {
                campaign = campaign.invariant(*name, *check);
            }
        }
        Checks::Property { params, case } => {
            let params: Vec<(&str, &str)> = params
                .iter()
                .map(|(name, ty)| (*name, ty.as_str()))
                .collect();
            campaign = campaign.property(test.name, &params, case);
        }
    }
    for contract in test.contracts {
        campaign = campaign.contract(*contract);
    }
    if let Some(setup) = test.setup {
        campaign = campaign.setup(setup);
    }
    let campaign = campaign.test_location(test.file, test.line);
    if let Some(verdict) = run_test(campaign, crate_dir, test.module_path, test.name, None) {
        panic!("{verdict}");
    }
}

/// The Solidity type of a property parameter of Rust type `T` (`U256` is `uint256`,
/// `Vec<Address>` is `address[]`).
pub fn sol_type_of<T: Input>() -> String {
    T::sol_type()
}

/// `value`, generated for parameter `name` of Rust type `T`, as a `T`.
pub fn decode_arg<T: Input>(name: &str, value: &DynSolValue) -> Result<T, String> {
    T::from_value(value).ok_or_else(|| {
        format!(
            "harvey: parameter `{name}` ({}) could not take {value:?}",
            T::sol_type()
        )
    })
}

/// What a property returns when `harvey::assume!` rejects its case: a value that passes
/// (`true`, `Ok(())`), which the runner ignores, having seen the rejection.
pub trait Rejection {
    /// The passing value.
    fn rejection() -> Self;
}

impl Rejection for bool {
    fn rejection() -> bool {
        true
    }
}

impl<E> Rejection for Result<(), E> {
    fn rejection() -> Self {
        Ok(())
    }
}

impl<E> Rejection for Result<bool, E> {
    fn rejection() -> Self {
        Ok(true)
    }
}

/// Rejects the running property case (`harvey::assume!`): marks it on this thread and
/// returns a passing value for the property to return.
pub fn reject<R: Rejection>() -> R {
    crate::oracle::reject_case();
    R::rejection()
}

pub use alloy_dyn_abi::DynSolValue;

/// One `#[harvey::forge_suite]` test, as the macro describes it.
pub struct SuiteTest {
    /// The test function's name.
    pub name: &'static str,
    /// `module_path!()` at the test.
    pub module_path: &'static str,
    /// `CARGO_MANIFEST_DIR` of the crate holding the test.
    pub manifest_dir: &'static str,
    /// `file!()` and `line!()` at the test: where SARIF results without a Solidity line go.
    pub file: &'static str,
    /// See `file`.
    pub line: u32,
    /// The Solidity project's root relative to `manifest_dir` (empty: the same).
    pub root: &'static str,
    /// The suite's test contract, `Name` or `path:Name`.
    pub suite: &'static str,
    /// The Echidna yaml or medusa.json the attribute names, relative to the project's root
    /// (empty: the one the rule finds, if any).
    pub config: &'static str,
    /// The attribute's settings as `(name, text)` pairs, checked at compile time.
    pub attributes: &'static [(&'static str, &'static str)],
}

/// Runs the campaigns of one `#[harvey::forge_suite]` test, as `forge test` runs the test
/// contract (or its tool the harness): the invariants in one campaign, then each fuzz test
/// of a forge test contract in a campaign of its own; prints each summary, then panics with
/// the report of every one that failed. A forge test contract with `testFail*` functions
/// fails with forge 1.7.1's message for each, and runs nothing else (as forge).
///
/// The invariants' settings start from foundry.toml's `[invariant]` (`runs` × `depth` as a
/// `calls` budget, `depth`, `fail_on_revert`, `max_time_delay`, `max_block_delay`) and
/// `[fuzz] seed`, then the suite's inline `forge-config` comments — or, for a harness with an
/// Echidna or Medusa config, from that config (`testLimit`, `timeout`, sequence length,
/// delays, stop on failure, seed, test mode). A fuzz test's start from `[fuzz]` (`runs` as
/// its `calls` budget, `fail_on_revert`, `max_test_rejects`, `seed`) and its inline
/// `forge-config` comments. The attribute and then the `HARVEY_*` variables override them
/// (a budget in the attribute, `runs`, `time` or `calls`, replaces the file's).
pub fn run_suite(test: SuiteTest) {
    let root = Path::new(test.manifest_dir).join(test.root);
    let environment = Environment::from_process();
    let foundry = ProjectConfig::discover_in(&root, &environment)
        .unwrap_or_else(|e| could_not_run(test.name, e));
    // Compiled once per process: every campaign reuses it.
    let artifacts = crate::project::compiled(&root).unwrap_or_else(|e| could_not_run(test.name, e));
    let profile = environment.foundry_profile.as_deref().unwrap_or("default");
    let explicit = (!test.config.is_empty()).then(|| Path::new(test.config));
    let harness_config = crate::suite::chosen_config(&artifacts, test.suite, explicit)
        .unwrap_or_else(|e| could_not_run(test.name, e));
    let forge = match &harness_config {
        Some(_) => None,
        None => crate::suite::forge_tests(&artifacts, test.suite)
            .unwrap_or_else(|e| could_not_run(test.name, e)),
    };
    let crate_dir = Path::new(test.manifest_dir);
    let mut verdicts = Vec::new();
    if let Some(forge) = &forge {
        if !forge.test_fail.is_empty() {
            let lines: Vec<String> = (forge.test_fail.iter())
                .map(|signature| format!("  {signature}: {}", crate::suite::TEST_FAIL_REMOVED))
                .collect();
            panic!(
                "harvey: {}: {} failed as forge fails it, running nothing else of it:\n{}",
                test.name,
                test.suite,
                lines.join("\n")
            );
        }
    }
    if forge.as_ref().is_none_or(|forge| forge.invariants) {
        // The harness's Echidna/Medusa config; or foundry.toml, then the suite's inline
        // `forge-config` comments (as forge). forge's runs × depth is the calls budget.
        let configured = match &harness_config {
            Some(config) => config.settings(),
            None => crate::suite::forge_budget(
                foundry
                    .invariant
                    .as_pairs()
                    .into_iter()
                    .chain(crate::suite::inline_settings(
                        &artifacts, test.suite, profile,
                    ))
                    .collect(),
            ),
        };
        let mut campaign = Campaign::new(&root)
            .config(suite_config(&test, &configured))
            .forge_suite(test.suite)
            .test_location(test.file, test.line);
        if let Some(harness_config) = harness_config {
            campaign = campaign.suite_config(harness_config.file);
        }
        verdicts.extend(run_test(
            campaign,
            crate_dir,
            test.module_path,
            test.name,
            None,
        ));
    }
    for function in forge.iter().flat_map(|forge| &forge.fuzz_tests) {
        let configured = crate::suite::fuzz_budget(
            foundry
                .fuzz
                .as_pairs()
                .into_iter()
                .chain(crate::suite::inline_fuzz_settings(
                    &artifacts, test.suite, profile, function,
                ))
                .collect(),
        );
        let campaign = Campaign::new(&root)
            .config(suite_config(&test, &configured))
            .forge_suite(test.suite)
            .fuzz_test(function.as_str())
            .test_location(test.file, test.line);
        verdicts.extend(run_test(
            campaign,
            crate_dir,
            test.module_path,
            test.name,
            Some(function),
        ));
    }
    if !verdicts.is_empty() {
        panic!("{}", verdicts.join("\n"));
    }
}

/// The settings of one campaign of suite test `test`: the `configured` pairs (from the
/// suite's files), the attribute's over them (a budget in the attribute replacing the
/// files' whole budget), then `HARVEY_*` variables.
fn suite_config(test: &SuiteTest, configured: &[(&'static str, String)]) -> Config {
    let budget = ["runs", "time", "calls"];
    let budget_given = test
        .attributes
        .iter()
        .any(|(name, _)| budget.contains(name));
    let pairs: Vec<(&str, &str)> = configured
        .iter()
        .filter(|(name, _)| !(budget_given && budget.contains(name)))
        .map(|(name, text)| (*name, text.as_str()))
        .chain(test.attributes.iter().copied())
        .collect();
    Config::from_attributes(&pairs)
        .unwrap_or_else(|e| panic!("harvey: {}: {}", test.name, crate::Error::from(e)))
}

/// Runs `campaign` as test `name` of module `module_path` of the crate at `crate_dir` (for
/// a suite's fuzz test, as its `part`): its regression file (under the crate, one per
/// part), progress lines and the summary; returns why it failed, if it did.
fn run_test(
    campaign: Campaign<'_>,
    crate_dir: &Path,
    module_path: &str,
    name: &str,
    part: Option<&str>,
) -> Option<String> {
    let file_stem = match part {
        Some(part) => format!("{name}.{part}"),
        None => name.to_string(),
    };
    let file = regression::path_for(crate_dir, module_path, &file_stem);
    let last_shown = std::sync::Mutex::new(Duration::ZERO);
    // The summary and progress lines name the test as `cargo test` lists it (tests running
    // in parallel interleave their output), with the fuzz test a campaign runs; the replay
    // command names the test alone.
    let filter = replay_filter(module_path, name);
    let label = match part {
        Some(part) => format!("{filter}::{part}"),
        None => filter.clone(),
    };
    let campaign = campaign
        .name(label.as_str())
        .regression_file(file, name)
        .on_progress(|p: &Progress| show_progress(&label, p, &last_shown));
    let mut outcome = campaign.run().unwrap_or_else(|e| could_not_run(&label, e));
    // Warnings and the summary in one write, named by the test like the summary's first
    // line, so that parallel tests' output cannot split them.
    let mut out = String::new();
    for warning in &outcome.warnings {
        out.push_str(&format!("harvey {label}: warning: {warning}\n"));
    }
    out.push_str(&report::summary(&outcome));
    print!("{out}");
    for failure in &mut outcome.failures {
        // Shown relative to the crate, as the user would type it.
        failure.regression_file = failure.regression_file.take().map(|path| {
            path.strip_prefix(crate_dir)
                .map_or(path.clone(), Path::to_path_buf)
        });
    }
    let verdict = report::verdict(&outcome, Some(&filter))?;
    Some(match part {
        Some(part) => {
            // forge's counterexample line, for users who know forge's report.
            let forge: Vec<String> = (outcome.failures.iter())
                .filter_map(|f| f.calls.last().map(report::counterexample))
                .collect();
            format!(
                "harvey: {filter}: fuzz test {part} failed:{verdict}{}",
                forge
                    .iter()
                    .map(|line| format!("\n{line}"))
                    .collect::<String>()
            )
        }
        None => verdict,
    })
}

/// Fails test `name` with the error that kept its campaign from running.
fn could_not_run(name: &str, error: crate::Error) -> ! {
    panic!("harvey: {name}: the campaign could not run:\n{error}")
}

/// Writes a progress line straight to stderr (past the test harness's capture, which would
/// hold it until the end) when the campaign is long enough for it to help.
fn show_progress(name: &str, progress: &Progress, last_shown: &std::sync::Mutex<Duration>) {
    let mut last = last_shown.lock().unwrap_or_else(|e| e.into_inner());
    if !progress_due(progress.elapsed, *last) {
        return;
    }
    *last = progress.elapsed;
    let line = report::progress_line(name, progress);
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Whether a progress line is due at `elapsed`, the last one having been shown at
/// `last_shown` (zero: none yet): never in the first [`QUIET_FOR`], then every
/// [`PROGRESS_EVERY`].
fn progress_due(elapsed: Duration, last_shown: Duration) -> bool {
    elapsed >= QUIET_FOR && (last_shown.is_zero() || elapsed >= last_shown + PROGRESS_EVERY)
}

/// The `cargo test` filter naming exactly this test: its path without the crate.
fn replay_filter(module_path: &str, name: &str) -> String {
    let mut parts: Vec<&str> = module_path.split("::").skip(1).collect();
    parts.push(name);
    parts.join("::")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_is_quiet_for_short_runs_then_rate_limited() {
        let secs = Duration::from_secs;
        assert!(!progress_due(secs(1), Duration::ZERO));
        assert!(progress_due(secs(3), Duration::ZERO));
        assert!(!progress_due(secs(7), secs(3)));
        assert!(progress_due(secs(8), secs(3)));
    }

    #[test]
    fn replay_filters_name_the_test_without_the_crate() {
        assert_eq!(replay_filter("campaign", "solvent"), "solvent");
        assert_eq!(
            replay_filter("my_crate::vault::tests", "solvent"),
            "vault::tests::solvent"
        );
    }
}
