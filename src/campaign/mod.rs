//! The `Campaign` builder: one invariant campaign from project root to [`Outcome`]. This is
//! what `#[harvey::invariant]` runs, and the API for driving campaigns without the macro.
//!
//! Order of work: compile, run setup, check the post-setup state, replay the regression
//! file (if any), fuzz, shrink each violation within its own budget (a share of the
//! campaign's), save them to the regression file. Failing fast (the default) the first
//! violation ends the campaign; with `fail_fast = false` every step runs and every distinct
//! violation is reported. The engine does each step
//! ([`crate::engine::Engine`]); this module composes them and does the I/O.

use std::path::PathBuf;
use std::time::Duration;

use crate::Result;
use crate::chain::Chain;
use crate::config::PanicSet;
use crate::config::{Config, DetectorSet, Steering};
use crate::oracle::{CaseFn, IntoCheck, Invariant};
use crate::outcome::Progress;
use crate::targets::TargetSpec;

type SetupFn<'a> = Box<SetupFnRef<'a>>;
pub(crate) type SetupFnRef<'a> = dyn Fn(&mut Chain) -> Result<()> + Sync + 'a;
type ProgressFn<'a> = Box<dyn Fn(&Progress) + Sync + 'a>;

/// A property as [`Campaign::property`] takes it: its name, its parameters' names and
/// Solidity types (parsed when the campaign runs), and the case.
pub(crate) struct PropertySpec<'a> {
    pub(crate) name: String,
    pub(crate) params: Vec<(String, String)>,
    pub(crate) check: CaseFn<'a>,
}

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
    /// The Echidna or Medusa config the suite runs with, when named.
    suite_config: Option<PathBuf>,
    /// The forge fuzz test of the suite's test contract the campaign runs, when it runs one.
    fuzz_test: Option<String>,
    /// The Rust property the campaign runs, when it runs one.
    property: Option<PropertySpec<'a>>,
    /// Where the test running the campaign is (`file!()`, `line!()`).
    test_location: Option<(String, u32)>,
    /// The program to run as z3, over `HARVEY_Z3` and `z3` on `PATH`.
    z3: Option<PathBuf>,
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
            suite_config: None,
            fuzz_test: None,
            property: None,
            test_location: None,
            z3: None,
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
    ///
    /// A harness with an Echidna or Medusa config (named with [`Campaign::suite_config`],
    /// or found by the rule of the book's "Echidna and Medusa configs") is deployed, funded
    /// and fuzzed as its config says: senders, deployer, contract balance, `allContracts`,
    /// property prefixes, test mode, function filters, delays between calls. The config's
    /// budget and sequence length are settings, which `#[harvey::forge_suite]` applies and
    /// this builder does not.
    pub fn forge_suite(mut self, name: impl Into<String>) -> Self {
        self.suite = Some(name.into());
        self
    }

    /// Runs the forge fuzz test `function` (a `test*` function with parameters, by name or
    /// signature) of the test contract [`Campaign::forge_suite`] names, as `forge test`
    /// runs it, in place of the contract's invariants: `setUp()` once, then every case one
    /// call of the function from forge's sender on a fresh copy of that state, its
    /// arguments fuzzed (input prediction included; view and pure tests too). A case fails
    /// when the test contract reverts (a failed assertion, a `require` of the test), when
    /// it sets forge's failure flag, and with [`Campaign::fail_on_revert`] (forge's `[fuzz]`
    /// default, which `#[harvey::forge_suite]` applies) when anything it calls reverts; a
    /// `vm.assume` that rejects the input is no case. Sequences are one call deep whatever
    /// the depth setting; set the budget here (`calls`: cases, as forge's `runs`).
    pub fn fuzz_test(mut self, function: impl Into<String>) -> Self {
        self.fuzz_test = Some(function.into());
        self
    }

    /// The Echidna yaml or medusa.json (relative to the project's root) the suite of
    /// [`Campaign::forge_suite`] runs with, in place of the one the rule finds.
    pub fn suite_config(mut self, file: impl Into<PathBuf>) -> Self {
        self.suite_config = Some(file.into());
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
            through_probes: false,
        });
        self
    }

    /// Runs property `name` in place of fuzzed transactions: a function of typed inputs
    /// (`params`: each parameter's name and Solidity type, `("amount", "uint256")`) that
    /// must hold for all of them. Each case calls `check` with values of those types on the
    /// chain as setup left it (its calls are observed, coverage and input prediction
    /// included; nothing it does outlives the case, [`Chain::commit`] included), and fails
    /// when it returns `false` or `Err`, or panics; `harvey::assume!` in it rejects the
    /// case. What `#[harvey::property]` runs; its budget is cases (`runs` or `calls`).
    /// A campaign runs one property and no invariants.
    pub fn property<R: IntoCheck>(
        mut self,
        name: impl Into<String>,
        params: &[(&str, &str)],
        check: impl Fn(&mut Chain, &[alloy_dyn_abi::DynSolValue]) -> R + Sync + 'a,
    ) -> Self {
        let params = params
            .iter()
            .map(|(name, ty)| (name.to_string(), ty.to_string()))
            .collect();
        self.property = Some(PropertySpec {
            name: name.into(),
            params,
            check: Box::new(move |chain, args| check(chain, args).into_check()),
        });
        self
    }

    /// All settings at once (seed, budget, depth, workers).
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// The program the solver-backed step runs as z3 (default: `HARVEY_Z3`, else `z3` on
    /// `PATH`). A z3 that is missing, exits, answers garbage or does not answer turns the
    /// step off with a warning; the campaign goes on.
    pub fn z3(mut self, program: impl Into<PathBuf>) -> Self {
        self.z3 = Some(program.into());
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

    /// Joint prediction on (the default) or off: a branch whose comparison couples several
    /// integer inputs of a call with comparisons the path already satisfies is flipped by
    /// moving them together (see the `joint_prediction` setting).
    pub fn joint_prediction(mut self, on: bool) -> Self {
        self.config.joint_prediction = on;
        self
    }

    /// Turns the solver-backed step of prediction on (the default) or off: z3 on the path
    /// condition of a branch joint prediction could not flip (see the `solver` setting).
    pub fn solver(mut self, on: bool) -> Self {
        self.config.solver = on;
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

    /// Whether a campaign whose fuzzed calls cannot change what later ones see runs one call
    /// per sequence (default on; see the settings reference). Off is for measuring it.
    pub fn independent_calls(mut self, on: bool) -> Self {
        self.config.independent_calls = on;
        self
    }

    /// Whether a suite's invariant that nothing a transaction wrote can have changed is
    /// skipped after it (default on, exact; see the settings reference). Off is for
    /// measuring it.
    pub fn skip_unchanged_invariants(mut self, on: bool) -> Self {
        self.config.skip_unchanged_invariants = on;
        self
    }

    /// Spends `percent` of the transactions on random walks of [`Campaign::walk_length`]
    /// fresh calls, as forge, Echidna and Medusa fuzz (see the settings reference; by
    /// default [`harvey_settings::SUITE_WALKS`] in a forge invariant suite or an
    /// Echidna/Medusa harness, none elsewhere).
    pub fn walks(mut self, percent: u32) -> Self {
        self.config.walks = Some(percent.min(100));
        self
    }

    /// Calls per random walk (default 500, forge's depth; see [`Campaign::walks`]).
    pub fn walk_length(mut self, calls: u32) -> Self {
        self.config.walk_length = calls.max(1);
        self
    }

    /// Whether the invariant checks guide the fuzzer: sequences that bring an invariant's
    /// comparison closer to failing are kept, and prediction aims at those comparisons
    /// (see the settings reference).
    pub fn invariant_guidance(mut self, on: bool) -> Self {
        self.config.invariant_guidance = on;
        self
    }

    /// Whether sequences that leave storage in a state no run left before are kept, whatever
    /// their last call's path (see the settings reference).
    pub fn state_novelty(mut self, on: bool) -> Self {
        self.config.state_novelty = on;
        self
    }

    /// Whether sequences whose last call's conditions on storage compared their operands
    /// otherwise than every run on its path are kept (on by default; see the settings
    /// reference).
    pub fn condition_states(mut self, on: bool) -> Self {
        self.config.condition_states = on;
        self
    }

    /// Whether sequences that bring a call of an always-reverting function closer to
    /// succeeding are kept, whatever their last call's path (on by default; see the
    /// settings reference).
    pub fn revert_guidance(mut self, on: bool) -> Self {
        self.config.revert_guidance = on;
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
    /// reached does not pass ([`Outcome::passed`](crate::Outcome::passed), [`Outcome::missed_targets`](crate::Outcome::missed_targets)): the check a
    /// pull request wants. Default off.
    pub fn require_targets(mut self, require: bool) -> Self {
        self.config.require_targets = require;
        self
    }

    /// Stop at the first violation (`true`, the default), or keep fuzzing to the budget and
    /// report every distinct violation ([`Outcome::failures`](crate::Outcome::failures)), each shrunk and saved:
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

    /// How many inputs `vm.assume` may reject in a fuzz test ([`Campaign::fuzz_test`])
    /// before it stops and fails as "nothing was tested" (forge's `max_test_rejects`;
    /// default 65,536; `0`: any number). Invariant campaigns do not read it.
    pub fn max_rejects(mut self, rejects: u32) -> Self {
        self.config.max_rejects = rejects;
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

    /// Writes an HTML report of the campaign into the directory `dir` (relative to the
    /// project's root): its page, and its row in the index of the tests reported there.
    /// See [`Config::report`].
    pub fn report(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config.report = Some(dir.into());
        self
    }

    internal! {
        /// Where the test running this campaign is (`file!()`, `line!()`): where a SARIF
        /// result goes when its violation has no Solidity line (a Rust invariant's). The
        /// harvey attributes set it.
        fn test_location(mut self, file: impl Into<String>, line: u32) -> Self {
            self.test_location = Some((file.into(), line));
            self
        }
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
}

mod run;
