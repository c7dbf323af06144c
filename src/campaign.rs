//! The `Campaign` builder: one invariant campaign from project root to [`Outcome`]. This is
//! what `#[harvey::invariant]` runs, and the API for driving campaigns without the macro.
//!
//! Order of work: compile, run setup, check the post-setup state, replay the regression
//! file (if any), fuzz, shrink each violation within its own budget (a share of the
//! campaign's), save them to the regression file. Failing fast (the default) the first
//! violation ends the campaign; with `fail_fast = false` every step runs and every distinct
//! violation is reported. The engine does each step
//! ([`crate::engine::Engine`]); this module composes them and does the I/O.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::chain::PanicSet;
use crate::chain::{Chain, Delays, Labels};
use crate::config::{Config, DetectorSet, Steering};
use crate::corpus_dir::CorpusDir;
use crate::engine::{Engine, Fuzz, Seeds, ShrinkBudget, Watch};
use crate::error::{Error, Result};
use crate::oracle::{IntoCheck, Invariant, Oracles};
use crate::outcome::{
    Failure, KeptCorpus, Outcome, Progress, Stats, TargetReach, TargetStats, Violation, Warps,
};
use crate::project::{self, Artifacts};
use crate::regression::RegressionFile;
use crate::report::{TestSite, sarif_results};
use crate::suite::Suite;
use crate::targets::{self, TargetSpec};
use crate::{lcov_file, sarif_file};

type SetupFn<'a> = Box<SetupFnRef<'a>>;
type SetupFnRef<'a> = dyn Fn(&mut Chain) -> Result<()> + Sync + 'a;
type ProgressFn<'a> = Box<dyn Fn(&Progress) + Sync + 'a>;

/// A fuzzing campaign on the Solidity project at a root directory.
///
/// ```no_run
/// use harvey::prelude::*;
/// use harvey::Campaign;
///
/// let outcome = Campaign::new(env!("CARGO_MANIFEST_DIR"))
///     .contract("Vault")
///     .invariant("solvent", |chain: &Chain| {
///         let vault = chain.get("Vault");
///         chain.balance(vault) >= chain.view::<U256>(vault, "totalDeposits()", ()).unwrap()
///     })
///     .seed(7)
///     .runs(5_000)
///     .run()?;
/// assert!(outcome.passed(), "{}", harvey::report::failures_report(&outcome.failures, None));
/// # Ok::<(), harvey::Error>(())
/// ```
pub struct Campaign<'a> {
    root: PathBuf,
    contracts: Vec<String>,
    setup: Option<SetupFn<'a>>,
    invariants: Vec<Invariant<'a>>,
    config: Config,
    regression_file: Option<(PathBuf, String)>,
    progress: Option<ProgressFn<'a>>,
    stop_at_targets: bool,
    name: Option<String>,
    /// The Solidity suite's test contract, when the campaign runs one.
    suite: Option<String>,
    /// Where the test running the campaign is (`file!()`, `line!()`).
    test_location: Option<(String, u32)>,
}

impl<'a> Campaign<'a> {
    /// A campaign on the project at `root` (where `foundry.toml` or `contracts/` is), with
    /// the default configuration and a seed from the clock.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let config = Config::default();
        Campaign {
            root: root.into(),
            contracts: Vec::new(),
            setup: None,
            invariants: Vec::new(),
            config,
            regression_file: None,
            progress: None,
            stop_at_targets: false,
            name: None,
            suite: None,
            test_location: None,
        }
    }

    /// Runs the Solidity invariant suite of test contract `name` (`Name` or `path:Name`) as
    /// it is: a forge test contract (its `setUp()`, the targets its forge-std
    /// `StdInvariant` declarations select, handlers using cheatcodes, every `invariant*`
    /// function checked after each call and `afterInvariant()` after each sequence), or an
    /// Echidna/Medusa property contract (its own functions fuzzed, `echidna_*`/`property_*`
    /// returning `false` or reverting is a violation). Takes the place of
    /// [`Campaign::contract`] and [`Campaign::setup`]; Rust invariants may be added. This
    /// builder does not read foundry.toml's `[invariant]` table (`#[harvey::forge_suite]`
    /// does): set the budget here.
    pub fn forge_suite(mut self, name: impl Into<String>) -> Self {
        self.suite = Some(name.into());
        self
    }

    /// Fuzzes contract `name`: without a setup function it is deployed with no constructor
    /// arguments; with one, the setup must have deployed it.
    pub fn contract(mut self, name: impl Into<String>) -> Self {
        self.contracts.push(name.into());
        self
    }

    /// A setup function: deploys and funds contracts, chooses which ones are fuzzed
    /// ([`Chain::fuzz`]; all deployed ones when none is chosen), which of their functions
    /// ([`Chain::fuzz_only`], [`Chain::fuzz_except`]), with what ([`Chain::bound`],
    /// [`Chain::set_address_args`]) and by whom ([`Chain::set_senders`]). Runs once per
    /// worker, and must be deterministic.
    pub fn setup(mut self, setup: impl Fn(&mut Chain) -> Result<()> + Sync + 'a) -> Self {
        self.setup = Some(Box::new(setup));
        self
    }

    /// An invariant checked after every transaction: returns `bool`, `Result<bool, E: Display>` or
    /// `Result<(), E: Display>`; a panic counts as a violation too.
    pub fn invariant<R: IntoCheck>(
        mut self,
        name: impl Into<String>,
        check: impl Fn(&Chain) -> R + Sync + 'a,
    ) -> Self {
        self.invariants.push(Invariant {
            name: name.into(),
            check: Box::new(move |chain| check(chain).into_check()),
        });
        self
    }

    /// All settings at once (seed, budget, depth, workers).
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// The seed of worker 0.
    pub fn seed(mut self, seed: u64) -> Self {
        self.config.seed = Some(seed);
        self
    }

    /// At most `runs` sequences (with [`Campaign::time`]: whichever ends first). Without
    /// either, a campaign runs [`harvey_settings::RUNS_WITHOUT_BUDGET`] sequences.
    pub fn runs(mut self, runs: u64) -> Self {
        self.config.runs = Some(runs);
        self
    }

    /// At most `time` of fuzzing (with [`Campaign::runs`]: whichever ends first; without
    /// it, no run limit).
    pub fn time(mut self, time: Duration) -> Self {
        self.config.time = Some(time);
        self
    }

    /// At most `calls` fuzzed transactions over all sequences (with [`Campaign::runs`] or
    /// [`Campaign::time`]: whichever ends first): the budget forge's `runs` × `depth`
    /// means. The last sequence started runs to its end.
    pub fn calls(mut self, calls: u64) -> Self {
        self.config.calls = Some(calls);
        self
    }

    /// The most seconds and blocks the block may advance before a fuzzed call (forge's
    /// `max_time_delay` and `max_block_delay`; `0` keeps it still). Without them, Rust
    /// invariants get harvey's environment fuzzing and Solidity suites forge's still block.
    pub fn max_delays(mut self, seconds: u32, blocks: u32) -> Self {
        self.config.max_time_delay = Some(seconds);
        self.config.max_block_delay = Some(blocks);
        self
    }

    /// At most `depth` transactions per sequence.
    pub fn depth(mut self, depth: u32) -> Self {
        self.config.depth = depth;
        self
    }

    /// Worker threads (1: deterministic).
    pub fn workers(mut self, workers: u32) -> Self {
        self.config.workers = workers;
        self
    }

    /// Input prediction on (the default) or off, to measure what it brings.
    pub fn prediction(mut self, on: bool) -> Self {
        self.config.prediction = on;
        self
    }

    /// Demand-driven sequence fuzzing on (the default) or off (HARVEY's configuration D:
    /// path ids over whole sequences, every sequence extended eagerly).
    pub fn demand_driven(mut self, on: bool) -> Self {
        self.config.demand_driven = on;
        self
    }

    /// Read-after-write ordering of sequences on (the default) or off.
    pub fn dataflow(mut self, on: bool) -> Self {
        self.config.dataflow = on;
        self
    }

    /// Chained predictions on (the default) or off: a satisfied prediction on a sequence's
    /// last transaction is followed by an appended call predicted on in the new state.
    pub fn chain_predictions(mut self, on: bool) -> Self {
        self.config.chain_predictions = on;
        self
    }

    /// Data decisions on (the default) or off: comparisons whose result goes into data count
    /// as branch decisions, with cost metrics.
    pub fn data_decisions(mut self, on: bool) -> Self {
        self.config.data_decisions = on;
        self
    }

    /// Address coupling on (the default) or off: mutations that make an address argument
    /// another transaction's sender, or a sender an address another transaction names.
    pub fn coupling(mut self, on: bool) -> Self {
        self.config.coupling = on;
        self
    }

    /// The vulnerability detectors that run beside the invariants (default: all, and none
    /// in a Solidity suite, as forge has none; see [`DetectorSet`]): `DetectorSet::none()`
    /// checks only invariants, Panics and the
    /// other oracles. Fuzzed senders are attackers unless setup trusts them
    /// ([`Chain::trust`](crate::chain::Chain::trust)).
    pub fn detectors(mut self, set: DetectorSet) -> Self {
        self.config.detectors = Some(set);
        self
    }

    /// Mask-guided mutation on or off (the default): mutations of a corpus entry change only
    /// the inputs whose probes kept its path (MuFuzz §IV-B).
    pub fn masks(mut self, on: bool) -> Self {
        self.config.masks = on;
        self
    }

    /// Targets: the lines a change touched (`"diff:origin/main"`) or explicit lines
    /// (`"src/Vault.sol:42"`); the outcome reports whether and when each was reached.
    /// Errors (a bad specification, git failing) surface from [`Campaign::run`].
    pub fn targets(mut self, spec: TargetSpec) -> Self {
        self.config.targets = Some(spec);
        self
    }

    /// With targets: steer towards them with the lookahead analysis (`true`, the default),
    /// only report them (`false`, ICSE'20's configuration A), or one of the paper's
    /// ablations ([`Steering::NoAnalysis`], [`Steering::StandardSchedule`]).
    pub fn lookahead(mut self, steering: impl Into<Steering>) -> Self {
        self.config.lookahead = steering.into();
        self
    }

    /// With targets: end the campaign as soon as every target was reached (not only when the
    /// budget is spent or a violation is found). For measuring time to target, or a quick
    /// "does fuzzing reach every changed line" check; default off, since changed code is
    /// worth the whole budget.
    pub fn stop_when_targets_reached(mut self, stop: bool) -> Self {
        self.stop_at_targets = stop;
        self
    }

    /// With targets: a campaign that ends without a violation but with a target never
    /// reached does not pass ([`Outcome::passed`], [`Outcome::missed_targets`]): the check a
    /// pull request wants. Default off.
    pub fn require_targets(mut self, require: bool) -> Self {
        self.config.require_targets = require;
        self
    }

    /// Stop at the first violation (`true`, the default), or keep fuzzing to the budget and
    /// report every distinct violation ([`Outcome::failures`]), each shrunk and saved:
    /// distinct by kind and place (an invariant by name, a Panic by code and source line).
    /// Replays every saved failure before fuzzing on.
    pub fn fail_fast(mut self, fail_fast: bool) -> Self {
        self.config.fail_fast = fail_fast;
        self
    }

    /// Whether a fuzzed transaction that reverts is a violation (forge's `fail_on_revert`;
    /// default `false`). A rejected `vm.assume` never is.
    pub fn fail_on_revert(mut self, fail: bool) -> Self {
        self.config.fail_on_revert = fail;
        self
    }

    /// Which Solidity Panic codes count as violations (default: a failed `assert` only,
    /// [`PanicSet::default`]; `"assert,overflow".parse()` or [`PanicSet::of`] for more).
    pub fn panics(mut self, panics: PanicSet) -> Self {
        self.config.panics = panics;
        self
    }

    /// Adds the campaign's line coverage of the Solidity sources to the lcov tracefile at
    /// `path` (relative to the project's root). See [`Config::lcov`].
    pub fn lcov(mut self, path: impl Into<PathBuf>) -> Self {
        self.config.lcov = Some(path.into());
        self
    }

    /// Adds the campaign's findings to the SARIF 2.1.0 file at `path` (relative to the
    /// project's root). See [`Config::sarif`].
    pub fn sarif(mut self, path: impl Into<PathBuf>) -> Self {
        self.config.sarif = Some(path.into());
        self
    }

    /// Where the test running this campaign is (`file!()`, `line!()`): where a SARIF result
    /// goes when its violation has no Solidity line (a Rust invariant's). The harvey
    /// attributes set it.
    #[doc(hidden)]
    pub fn test_location(mut self, file: impl Into<String>, line: u32) -> Self {
        self.test_location = Some((file.into(), line));
        self
    }

    /// Keeps the corpus in directory `dir` between runs (relative to the project's root):
    /// the sequences saved there for this campaign (by its [`Campaign::name`]) are run
    /// before fuzzing, and its corpus is saved back after. See [`Config::corpus`].
    pub fn corpus(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config.corpus = Some(dir.into());
        self
    }

    /// Replays the failures saved in `path` before fuzzing and saves new ones there, under
    /// test name `test`.
    pub fn regression_file(mut self, path: impl Into<PathBuf>, test: impl Into<String>) -> Self {
        self.regression_file = Some((path.into(), test.into()));
        self
    }

    /// Names the campaign in its summary's first line (`#[harvey::invariant]` passes the
    /// test's `cargo test` filter: tests running in parallel interleave their output).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Called about once a second while fuzzing.
    pub fn on_progress(mut self, progress: impl Fn(&Progress) + Sync + 'a) -> Self {
        self.progress = Some(Box::new(progress));
        self
    }

    /// What the shared files this campaign writes (SARIF, lcov, corpus) name its part by:
    /// its [`Campaign::name`], else its regression file's test name. A campaign writing one
    /// needs a name, so that campaigns sharing a file do not replace each other's parts.
    fn file_name(&self) -> Result<String> {
        let name = self
            .name
            .clone()
            .or(self.regression_file.as_ref().map(|(_, test)| test.clone()));
        let config = &self.config;
        let writes = [
            ("corpus", &config.corpus),
            ("sarif", &config.sarif),
            ("lcov", &config.lcov),
        ]
        .into_iter()
        .find_map(|(setting, path)| Some((setting, path.as_ref()?)));
        match (name, writes) {
            (Some(name), _) => Ok(name),
            (None, None) => Ok("campaign".to_string()),
            (None, Some((setting, path))) => Err(Error::Config(format!(
                "the campaign writes {setting} `{}`, which other campaigns can share: give it a \
                 name distinct from theirs with Campaign::name (the file keeps each \
                 campaign's part under its name)",
                path.display()
            ))),
        }
    }

    /// Runs the campaign. `Err` for setup problems (compile errors, a failing setup, a
    /// corrupt regression file, nothing to fuzz); a violation is an `Ok` outcome.
    pub fn run(mut self) -> Result<Outcome> {
        // The one seed of this run: the configured one, or drawn from the clock now.
        let seed = *self.config.seed.get_or_insert_with(clock_seed);
        if self.config.depth == 0 || self.config.workers == 0 {
            return Err(Error::Config("depth and workers must be at least 1".into()));
        }
        // What the files this campaign keeps name it by: the test's `cargo test` filter.
        let test_name = self.file_name()?;
        let artifacts = project::compiled(&self.root)?;
        let mut warnings = Vec::new();
        let suite = self
            .suite
            .as_deref()
            .map(|name| {
                if self.setup.is_some() || !self.contracts.is_empty() {
                    return Err(Error::Config(format!(
                        "suite `{name}` sets itself up: give no contracts or setup function with it"
                    )));
                }
                Suite::find(&artifacts, name, &mut warnings)
            })
            .transpose()?;
        // The delays the settings give, over a suite's (forge's default: none).
        let delays = Delays {
            seconds: self.config.max_time_delay,
            blocks: self.config.max_block_delay,
        };
        let with_delays = |mut chain: Chain| {
            chain.set_delays(delays);
            chain
        };
        let make_chain = || {
            match &suite {
                Some(suite) => suite.build_chain(None),
                None => build_chain(&artifacts, &self.contracts, self.setup.as_deref()),
            }
            .map(with_delays)
        };
        let mut invariants = self.invariants;
        let mut finals = Vec::new();
        if let Some(suite) = &suite {
            invariants.extend(suite.invariants());
            finals = suite.finals();
        }
        let counts_reverts = suite.as_ref().is_none_or(Suite::counts_reverts);
        // forge has no detectors: a suite fails only where forge would, unless asked.
        let detectors = self
            .config
            .detectors
            .clone()
            .unwrap_or_else(|| match &suite {
                Some(_) => DetectorSet::none(),
                None => DetectorSet::all(),
            });
        if self.config.fail_on_revert && !counts_reverts {
            warnings.push(
                "fail_on_revert does not apply to an Echidna/Medusa property contract: as \
                 those tools, harvey never counts its reverts (its `require`s reject inputs)"
                    .into(),
            );
        }
        let oracles = Oracles::new(invariants, self.config.panics.clone(), &artifacts)
            .with_finals(finals)
            .fail_on_revert(self.config.fail_on_revert && counts_reverts)
            .forge_assertions(suite.is_some())
            .with_detectors(detectors.clone());
        let first_chain = match &suite {
            Some(suite) => with_delays(suite.build_chain(Some(&mut warnings))?),
            None => make_chain()?,
        };
        // A suite's test contract is test code, often above the limit, as forge lets it be.
        if suite.is_none() && artifacts.chain_settings().code_size_limit.is_none() {
            warn_oversized(&first_chain, &mut warnings);
        }
        let mut engine = Engine::new(first_chain, &oracles, &self.config, &mut warnings)?;
        let settings = engine.settings_hash(&self.config.panics, &detectors);
        let labels = engine.chain().labels();
        let placed = match &self.config.targets {
            Some(spec) => {
                place_targets(spec, &self.root, &artifacts, engine.chain(), &mut warnings)?
            }
            None => PlacedTargets::default(),
        };
        let corpus = self
            .config
            .corpus
            .as_deref()
            .map(|dir| CorpusDir::new(&self.root.join(dir), &test_name));
        let (seeds, mut kept_corpus) = load_corpus(corpus.as_ref(), &engine, &mut warnings);
        // Compiling and setup are not the campaign's time: time-to-violation and execs/s
        // count from here.
        let start = Instant::now();
        let mut stats = Stats {
            name: self.name,
            seed,
            workers: self.config.workers,
            senders: engine.senders().to_vec(),
            labels: labels.clone(),
            ..Stats::default()
        };
        let mut regressions = self
            .regression_file
            .as_ref()
            .map(|(path, test)| RegressionFile::load(path, test))
            .transpose()?;

        let mut failures: Vec<Failure> = engine
            .check_initial_state()
            .into_iter()
            .map(|violation| initial_failure(violation, seed, start))
            .collect();
        // Failing fast, the first violation ends the campaign; otherwise every saved failure
        // is replayed and fuzzing goes on for new ones.
        let fail_fast = self.config.fail_fast;
        if failures.is_empty() || !fail_fast {
            if let Some(file) = &regressions {
                let replayed = replay(file, &mut engine, &settings, fail_fast, &mut stats);
                warnings.extend(replayed.warnings);
                add_distinct(&mut failures, replayed.failures);
            }
        }
        let mut sightings = Vec::new();
        if failures.is_empty() || !fail_fast {
            let reported: Vec<Violation> = failures.iter().map(|f| f.violation.clone()).collect();
            let plan = Fuzz {
                config: &self.config,
                make_chain: &make_chain,
                progress: self.progress.as_deref(),
                start,
                targets: &placed.watches,
                stop_at_targets: self.stop_at_targets,
                reported: &reported,
                seeds: &seeds,
                keep_corpus: corpus.is_some(),
                lines: self.config.lcov.is_some(),
                seed,
            };
            let fuzzed = engine.fuzz(&plan, &mut stats)?;
            stats.targets = target_stats(&placed.labels, fuzzed.reaches);
            sightings = fuzzed.sightings;
            stats.lines = fuzzed.lines;
            if let (Some(dir), Some(kept)) = (&corpus, &mut kept_corpus) {
                match dir.save(seed, &fuzzed.corpus) {
                    Ok(saved) => kept.saved = saved,
                    // The campaign's result stands; only the next run starts colder.
                    Err(e) => warnings.push(format!("the corpus was not saved: {e}")),
                }
            }
        } else {
            stats.targets = target_stats(&placed.labels, vec![None; placed.labels.len()]);
        }
        // Replays ran on the campaign's own engine. Shrinking runs there next and is
        // counted apart: its runs are not the campaign's sequences.
        engine.count_own_runs(&mut stats);
        stats.elapsed = start.elapsed();
        let budget = ShrinkBudget::for_campaign(self.config.run_bound(), self.config.time)
            .each_of(sightings.len());
        for sighting in sightings {
            failures.push(engine.shrink(sighting, budget, seed));
        }
        for failure in &mut failures {
            failure.labels = labels.clone();
            // The contracts the sequence created are named by their contract too.
            for call in failure.calls.iter().filter(|c| c.instance.is_some()) {
                failure.labels.insert(call.address, call.contract.clone());
            }
        }
        if let Some(file) = &mut regressions {
            save_failures(&mut failures, file, &settings)?;
        }
        stats.kept_corpus = kept_corpus;
        // A violation found means something was tested.
        let untested = suite
            .as_ref()
            .filter(|_| failures.is_empty())
            .and_then(|suite| suite.untested(&stats.functions));
        let outcome = Outcome {
            failures,
            stats,
            warnings,
            require_targets: self.config.require_targets,
            untested,
        };
        if let Some(file) = &self.config.sarif {
            let site = self
                .test_location
                .as_ref()
                .map(|(file, line)| TestSite { file, line: *line });
            let uri = |file: &str| {
                let path = repository_path(&self.root, file);
                if Path::new(&path).is_absolute() {
                    format!("file://{path}")
                } else {
                    path
                }
            };
            let (rules, results) = sarif_results(&outcome, &test_name, site, &uri);
            sarif_file::add(&self.root.join(file), &test_name, rules, results)?;
        }
        if let (Some(file), Some(lines)) = (&self.config.lcov, &outcome.stats.lines) {
            let source = |path: &Path| repository_path(&self.root, &path.to_string_lossy());
            lcov_file::add(&self.root.join(file), &test_name, lines, &source)?;
        }
        Ok(outcome)
    }
}

/// `file` (a source path as places name it, relative to the project's `root`) as SARIF
/// results and lcov records give it: relative to the working directory (`cargo test` runs
/// in the crate's directory, usually the repository's root), else absolute.
fn repository_path(root: &Path, file: &str) -> String {
    let path = root.join(file);
    let absolute = if path.is_absolute() {
        path
    } else {
        std::env::current_dir().map_or(path.clone(), |cwd| cwd.join(&path))
    };
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| absolute.strip_prefix(cwd).ok().map(Path::to_path_buf));
    match relative {
        Some(relative) => relative.to_string_lossy().replace('\\', "/"),
        None => absolute.display().to_string(),
    }
}

/// EIP-170's limit on runtime code, which mainnet enforces and forge's tests do not.
const EIP170_CODE_SIZE: usize = 24_576;

/// A warning per contract setup deployed whose runtime code is above [`EIP170_CODE_SIZE`]:
/// harvey runs it, as forge's tests do, but mainnet would refuse to deploy it.
fn warn_oversized(chain: &Chain, warnings: &mut Vec<String>) {
    for (name, address) in chain.deployed() {
        let size = chain.code(*address).len();
        if size > EIP170_CODE_SIZE {
            warnings.push(format!(
                "{name} has {size} bytes of runtime code, above EIP-170's {EIP170_CODE_SIZE}: \
                 mainnet would refuse to deploy it (tests run it, as forge's do; foundry.toml's \
                 `code_size_limit = {EIP170_CODE_SIZE}` makes its deployment fail)"
            ));
        }
    }
}

/// The sequences saved in `corpus` (if kept), rebuilt against the engine's fuzzed functions,
/// with what loading found; unreadable files are warnings.
fn load_corpus(
    corpus: Option<&CorpusDir>,
    engine: &Engine<'_>,
    warnings: &mut Vec<String>,
) -> (Seeds, Option<KeptCorpus>) {
    let Some(dir) = corpus else {
        return (Seeds::default(), None);
    };
    let loaded = dir.load();
    let (seeds, stale) = engine.seeds(&loaded.sequences);
    for file in &loaded.unreadable {
        warnings.push(format!("corpus file skipped: {file}"));
    }
    let kept = KeptCorpus {
        dir: dir.path().to_path_buf(),
        loaded: seeds.len(),
        stale,
        unreadable: loaded.unreadable.len(),
        saved: 0,
    };
    (seeds, Some(kept))
}

/// Adds each of `more` to `failures` unless it is the same bug as one there.
fn add_distinct(failures: &mut Vec<Failure>, more: Vec<Failure>) {
    for failure in more {
        if !failures
            .iter()
            .any(|known| known.violation.same_bug(&failure.violation))
        {
            failures.push(failure);
        }
    }
}

/// Points every failure at the regression file and saves the new ones there (not those
/// that came from the file, have no calls (the post-setup state itself), or are already
/// saved).
fn save_failures(
    failures: &mut [Failure],
    file: &mut RegressionFile,
    settings: &str,
) -> Result<()> {
    let mut new = false;
    for failure in failures {
        failure.regression_file = Some(file.path().to_path_buf());
        new |= !failure.from_regression
            && !failure.calls.is_empty()
            && file.record(
                failure.violation.to_string(),
                failure.seed,
                settings.to_string(),
                &failure.calls,
            );
    }
    if new { file.save() } else { Ok(()) }
}

/// A chain in its post-setup state: the setup function's, or `contracts` deployed with no
/// arguments. Contracts are fuzzed as setup chose, or all deployed ones.
fn build_chain(
    artifacts: &Arc<Artifacts>,
    contracts: &[String],
    setup: Option<&SetupFnRef<'_>>,
) -> Result<Chain> {
    let mut chain = Chain::new(Arc::clone(artifacts));
    if let Some(setup) = setup {
        setup(&mut chain)?;
        // With a setup, named contracts are the ones to fuzz (the setup deployed them).
        for name in contracts {
            let address = chain.try_get(name).ok_or_else(|| {
                let deployed: Vec<&str> =
                    chain.deployed().iter().map(|(n, _)| n.as_str()).collect();
                Error::Config(format!(
                    "`{name}` is named to be fuzzed but the setup did not deploy it (deployed: {})",
                    if deployed.is_empty() {
                        "nothing".to_string()
                    } else {
                        deployed.join(", ")
                    }
                ))
            })?;
            chain.fuzz(address);
        }
    } else {
        if contracts.is_empty() {
            return Err(Error::Config(
                "no contract to fuzz: name one (`contract = \"Name\"`) or give a setup function"
                    .into(),
            ));
        }
        for name in contracts {
            let address = chain.deploy_with(name, &[], Default::default())?;
            chain.fuzz(address);
        }
        // Nothing but these contracts exists: what they create is part of them (forge's
        // rule for a setUp that deploys contracts and names no targets).
        chain.fuzz_created(true);
    }
    chain.commit();
    Ok(chain)
}

/// A failure of the post-setup state itself.
fn initial_failure(violation: crate::outcome::Violation, seed: u64, start: Instant) -> Failure {
    Failure {
        violation,
        calls: Vec::new(),
        last_status: "no call made".into(),
        messages: Vec::new(),
        seed,
        found_len: 0,
        found_after: start.elapsed(),
        found_after_sequences: 0,
        from_regression: false,
        regression_file: None,
        labels: Labels::default(),
        shrink: None,
        warps: Warps::None,
    }
}

/// What replaying a regression file gave.
struct Replayed {
    /// The saved failures that still fail, distinct, in file order.
    failures: Vec<Failure>,
    /// Stale entries, and entries saved under other settings.
    warnings: Vec<String>,
}

/// Replays the saved failures: failing fast, up to the first that still fails; otherwise
/// all of them.
fn replay(
    file: &RegressionFile,
    engine: &mut Engine<'_>,
    settings: &str,
    fail_fast: bool,
    stats: &mut Stats,
) -> Replayed {
    let mut replayed = Replayed {
        failures: Vec::new(),
        warnings: Vec::new(),
    };
    for (index, entry) in file.entries().iter().enumerate() {
        let saved = match engine.resolve(entry) {
            Ok(saved) => saved,
            Err(why) => {
                replayed.warnings.push(format!(
                    "{}: entry {} is stale and was not replayed: {why}",
                    file.path().display(),
                    index + 1
                ));
                continue;
            }
        };
        if entry.settings != settings {
            replayed.warnings.push(format!(
                "{}: entry {} was saved with other settings (Panic codes, detectors, senders or functions changed); replayed anyway",
                file.path().display(),
                index + 1
            ));
        }
        stats.replayed += 1;
        add_distinct(&mut replayed.failures, engine.replay(saved));
        if fail_fast && !replayed.failures.is_empty() {
            break;
        }
    }
    replayed
}

/// The targets placed in deployed contracts.
#[derive(Default)]
struct PlacedTargets {
    /// What the engine watches.
    watches: Vec<Watch>,
    /// Per watch: its `file:line` and contract, for the summary.
    labels: Vec<(String, String)>,
}

/// Resolves `spec` and places each target in the deployed contracts whose code holds it.
fn place_targets(
    spec: &TargetSpec,
    root: &std::path::Path,
    artifacts: &Artifacts,
    chain: &Chain,
    warnings: &mut Vec<String>,
) -> Result<PlacedTargets> {
    let resolved = targets::resolve(spec, root, artifacts)?;
    warnings.extend(resolved.warnings);
    let mut watches = Vec::new();
    let mut labels = Vec::new();
    let mut elsewhere = Vec::new();
    for target in resolved.targets {
        let mut placed = false;
        for &(_, address) in chain.deployed() {
            let holds = chain.artifact_at(address).is_some_and(|artifact| {
                artifact.name == target.contract || artifact.qualified_name() == target.contract
            });
            if holds {
                placed = true;
                watches.push(Watch {
                    address,
                    pcs: target.pcs.clone(),
                });
                labels.push((target.to_string(), target.contract.clone()));
            }
        }
        if !placed {
            elsewhere.push(format!("{target} ({})", target.contract));
        }
    }
    if !elsewhere.is_empty() {
        warnings.push(format!(
            "{} target(s) lie in contracts this campaign does not deploy, so they cannot be reached: {}",
            elsewhere.len(),
            elsewhere.join(", ")
        ));
    }
    Ok(PlacedTargets { watches, labels })
}

/// The summary rows of the targets: `labels[i]` and how `reaches[i]` first reached it.
fn target_stats(
    labels: &[(String, String)],
    reaches: Vec<Option<TargetReach>>,
) -> Vec<TargetStats> {
    labels
        .iter()
        .zip(reaches)
        .map(|((location, contract), reached)| TargetStats {
            location: location.clone(),
            contract: contract.clone(),
            reached,
        })
        .collect()
}

/// A seed for a run that did not fix one; only the seed comes from the clock, everything
/// after it comes from the seeded RNG.
fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    // splitmix64 finaliser: spreads nearby clock values over the whole range.
    let mut z = nanos.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
