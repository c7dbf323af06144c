//! `Campaign::run`: compile, build the post-setup chain (setup, named contracts, or a
//! Solidity suite's), place targets, and compose the engine's steps (post-setup check,
//! regression replay, fuzzing, shrinking), then save failures, the corpus, SARIF, lcov and
//! the HTML report.

use std::collections::BTreeMap;

use alloy_dyn_abi::DynSolType;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::chain::{Chain, Delays, Labels};
use crate::config::DetectorSet;
use crate::engine::{Engine, Fuzz, SOLVER_QUERY_WALL, Seeds, ShrinkBudget, Watch, Z3Program};
use crate::oracle::{Oracles, Property};
use crate::outcome::{
    Failure, KeptCorpus, Outcome, Stats, TargetReach, TargetStats, Violation, Warps,
};
use crate::output::corpus_dir::CorpusDir;
use crate::output::regression::RegressionFile;
use crate::output::{lcov_file, report_dir, sarif_file};
use crate::project::{self, Artifacts, Environment};
use crate::report::{
    IndexRow, Page, SourceText, TestSite, index_page, index_row, sarif_results, test_page,
};
use crate::suite::{self, Suite};
use crate::targets::{self, TargetSpec};
use crate::{Error, Result};
use harvey_settings::SUITE_WALKS;

use super::{Campaign, PropertySpec, SetupFnRef};

impl Campaign<'_> {
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
            ("report", &config.report),
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
        if let (Some(function), None) = (&self.fuzz_test, &self.suite) {
            return Err(Error::Config(format!(
                "fuzz test `{function}` needs its test contract: name it with Campaign::forge_suite"
            )));
        }
        let suite = self
            .suite
            .as_deref()
            .map(|name| {
                if self.setup.is_some() || !self.contracts.is_empty() {
                    return Err(Error::Config(format!(
                        "suite `{name}` sets itself up: give no contracts or setup function with it"
                    )));
                }
                if let Some(function) = &self.fuzz_test {
                    return Suite::fuzz_test(&artifacts, name, function, &mut warnings);
                }
                let config = suite::chosen_config(&artifacts, name, self.suite_config.as_deref())?;
                Suite::find(&artifacts, name, config, &mut warnings)
            })
            .transpose()?;
        let property = self.property.take().map(property_of).transpose()?;
        // forge fuzzes an invariant suite, and Echidna and Medusa a harness, only by walks:
        // where the settings choose none, such a suite gets its share of them (forge's fuzz
        // tests, whose cases are one call, never walk; nor do a harness's stateless cases,
        // whose depth is 1).
        let walking_suite = (suite.as_ref()).is_some_and(|s| s.fuzz_test.is_none());
        (self.config.walks).get_or_insert(if walking_suite { SUITE_WALKS } else { 0 });
        if let Some(property) = &property {
            if suite.is_some() || !self.invariants.is_empty() {
                return Err(Error::Config(format!(
                    "property `{}` runs in a campaign of its own: give it no suite or invariants",
                    property.name
                )));
            }
            // A case is one run of the property: no sequences, no storage fuzzing, and no
            // solver or chains, which read one transaction's calldata; no detectors, whose
            // findings are a transaction's.
            self.config.depth = 1;
            self.config.demand_driven = false;
            self.config.solver = false;
            self.config.chain_predictions = false;
            self.config.detectors.get_or_insert_with(DetectorSet::none);
        } else if self.fuzz_test.is_some() {
            // A fuzz test's case is one call.
            self.config.depth = 1;
        } else {
            // forge counts rejects over a fuzz test's cases; an invariant run's limit is per
            // sequence, which no harvey sequence is long enough to reach.
            self.config.max_rejects = 0;
        }
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
        let counts_reverts = suite.as_ref().is_none_or(|suite| suite.counts_reverts());
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
            .own_reverts(suite.as_ref().and_then(|suite| suite.own_reverts()))
            .forge_assertions(
                suite
                    .as_ref()
                    .is_some_and(|suite| suite.counts_forge_assertions()),
            )
            .count_assertion_events(
                suite
                    .as_ref()
                    .is_none_or(|suite| suite.counts_assertion_events()),
            )
            .with_detectors(detectors.clone())
            .with_property(property);
        let first_chain = match &suite {
            Some(suite) => with_delays(suite.build_chain(Some(&mut warnings))?),
            None => make_chain()?,
        };
        // When no fuzzed call can change what a later one sees (a harness of stateless
        // functions), a sequence is worth its last call alone: every case is one call, and
        // the engine spends its runs as on a fuzz test's (joint prediction on every pick).
        let independent_calls = self.config.independent_calls
            && self.config.depth > 1
            && first_chain.fuzzed_calls_are_independent();
        if independent_calls {
            self.config.depth = 1;
        }
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
        let (seeds, corpus_files, mut kept_corpus) =
            load_corpus(corpus.as_ref(), &engine, &mut warnings);
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
            let z3 = z3_program(self.z3.take(), &mut warnings);
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
                lines: self.config.lcov.is_some() || self.config.report.is_some(),
                revert_causes: self.config.report.is_some(),
                seed,
                z3: &z3,
            };
            let fuzzed = engine.fuzz(&plan, &mut stats)?;
            stats.sequencing.independent_calls = independent_calls;
            warn_about_the_solver(&stats, &mut warnings);
            stats.targets = target_stats(&placed.labels, fuzzed.reaches);
            sightings = fuzzed.sightings;
            stats.lines = fuzzed.lines;
            if let (Some(dir), Some(kept)) = (&corpus, &mut kept_corpus) {
                kept.candidates = fuzzed.corpus.candidates;
                kept.edges = fuzzed.corpus.edges;
                kept.unminimised = fuzzed.corpus.unminimised;
                match dir.save(seed, &fuzzed.corpus.sequences, &corpus_files) {
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
        let untested = match stats.rejected_too_many {
            Some(allowed) => Some(format!(
                "`vm.assume` rejected too many inputs ({allowed} allowed, as forge's \
                 `max_test_rejects`): the inputs it accepts are too rare for fuzzing to draw; \
                 narrow them with `bound` instead, or raise `max_rejects`"
            )),
            None => suite
                .as_ref()
                .and_then(|suite| suite.untested(&stats.functions)),
        }
        .filter(|_| failures.is_empty());
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
        if let Some(dir) = &self.config.report {
            write_report(
                &self.root.join(dir),
                &test_name,
                &outcome,
                &artifacts,
                &self.config,
            )?;
        }
        Ok(outcome)
    }
}

/// What the solver-backed step runs as z3: `program`, else `HARVEY_Z3`, else `z3` on
/// `PATH`; with `HARVEY_Z3_LOG`, a log of the commands sent (a file that cannot be created
/// is a warning: the log is for debugging, the campaign does not need it).
fn z3_program(program: Option<PathBuf>, warnings: &mut Vec<String>) -> Z3Program {
    let environment = Environment::from_process();
    let log =
        environment
            .harvey_z3_log
            .as_deref()
            .and_then(|path| match std::fs::File::create(path) {
                Ok(file) => Some(Arc::new(Mutex::new(file)) as _),
                Err(e) => {
                    warnings.push(format!(
                    "HARVEY_Z3_LOG `{}` could not be created ({e}): z3's commands are not logged",
                    path.display()
                ));
                    None
                }
            });
    Z3Program {
        program: program.unwrap_or_else(|| environment.z3()),
        log,
    }
}

/// The warnings the solver-backed step's record calls for: why it stopped, and queries
/// abandoned on the wall clock (which make a seed's run depend on the machine's load).
fn warn_about_the_solver(stats: &Stats, warnings: &mut Vec<String>) {
    let predictions = &stats.predictions;
    if let Some(why) = &predictions.solver_failure {
        warnings.push(format!(
            "the solver-backed step stopped: {why}; the campaign went on without it (name a \
             working z3 with HARVEY_Z3 or put one on PATH, e.g. `apt-get install z3`; \
             `solver = false` turns the step off)"
        ));
    }
    let abandoned = predictions.solver_abandoned;
    if abandoned > 0 {
        warnings.push(format!(
            "{abandoned} solver {} abandoned after {} s without an answer (z3 killed and \
             started afresh); this run may not replay bit for bit",
            if abandoned == 1 { "query" } else { "queries" },
            SOLVER_QUERY_WALL.as_secs()
        ));
    }
}

/// Writes the campaign's page into the HTML report directory `dir` and its row into the
/// index: the sources line coverage names (the project's before its dependencies').
fn write_report(
    dir: &Path,
    test: &str,
    outcome: &Outcome,
    artifacts: &Artifacts,
    config: &crate::config::Config,
) -> Result<()> {
    let texts: BTreeMap<&Path, &str> = artifacts
        .contracts()
        .flat_map(|artifact| artifact.sources.iter())
        .map(|file| (file.path.as_path(), &*file.content))
        .collect();
    let mut sources: Vec<SourceText<'_>> = outcome
        .stats
        .lines
        .iter()
        .flat_map(|lines| lines.files.keys())
        .filter_map(|path| {
            let text = texts.get(path.as_path())?;
            Some(SourceText { path, text })
        })
        .collect();
    sources.sort_by_key(|source| (is_dependency(source.path), source.path));
    let page = Page {
        test,
        outcome,
        sources,
        settings: config.values(),
    };
    let href = report_dir::page_path(test);
    let rows = report_dir::Rows {
        test: &|row: &IndexRow| row.test.as_str(),
        index: &|rows: &[IndexRow]| index_page(rows),
    };
    report_dir::add(dir, test, &test_page(&page), index_row(&page, &href), &rows)
}

/// Whether `path` is a dependency's source (under `lib/` or `node_modules/`), not the
/// project's own.
fn is_dependency(path: &Path) -> bool {
    path.components().any(|c| {
        let part = c.as_os_str();
        part == "node_modules" || part == "lib"
    })
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
/// the files they came from, and what loading found; unreadable files are warnings.
fn load_corpus(
    corpus: Option<&CorpusDir>,
    engine: &Engine<'_>,
    warnings: &mut Vec<String>,
) -> (Seeds, Vec<PathBuf>, Option<KeptCorpus>) {
    let Some(dir) = corpus else {
        return (Seeds::default(), Vec::new(), None);
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
        ..KeptCorpus::default()
    };
    (seeds, loaded.files, Some(kept))
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
        case_calls: Vec::new(),
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

/// The property of `Campaign::property`'s parts, its parameter types parsed (an unknown
/// type is an error naming it).
fn property_of(
    PropertySpec {
        name,
        params,
        check,
    }: PropertySpec<'_>,
) -> Result<Property<'_>> {
    let params = params
        .into_iter()
        .map(|(param, ty)| match DynSolType::parse(&ty) {
            Ok(parsed) => Ok((param, parsed)),
            Err(e) => Err(Error::Config(format!(
                "property `{name}`: parameter `{param}` has type `{ty}`, which is not a Solidity type: {e}"
            ))),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Property {
        name,
        params,
        check,
    })
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
