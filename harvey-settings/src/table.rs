//! The table: every campaign setting, declared once. A row gives the [`Config`] field with
//! its type, default and doc, the attribute argument with the literal it takes, the
//! `HARVEY_*` variable, and the parser from text to the field's value. The `settings!`
//! macro below turns the rows into [`Config`] and [`SETTINGS`], so that neither can list a
//! setting the other lacks.

use std::time::Duration;

use crate::parse;
use crate::{DetectorSet, Invalid, PanicSet, Steering, TargetSpec};

/// One campaign setting: how the attribute and the environment spell it, and how its text
/// is read.
#[derive(Debug)]
pub struct Setting {
    /// The `#[harvey::invariant(...)]` argument: `runs`.
    pub name: &'static str,
    /// The environment variable that overrides it: `HARVEY_RUNS`.
    pub var: &'static str,
    /// The literal the attribute takes, and how it becomes the parser's text.
    pub literal: Literal,
    /// What the attribute expects, for a literal of the wrong kind: "`true` or `false`".
    pub expected: &'static str,
    /// The [`Config`] field's documentation, as one line.
    doc: &'static str,
    /// The row's parser, the value dropped: all the attribute macro needs.
    check: fn(&str) -> Result<(), Invalid>,
    /// The row's parser, the value stored in its [`Config`] field.
    apply: fn(&mut Config, &str) -> Result<(), Invalid>,
}

/// The kind of literal an attribute argument takes, and the text the macro makes of it for
/// the setting's parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Literal {
    /// An unsigned integer without a suffix (`runs = 2_000`): its decimal digits.
    Integer,
    /// `true` or `false`: that word.
    Bool,
    /// A string (`time = "30s"`): its value.
    Str,
    /// `true`/`false` as `on`/`off`, or a string (`lookahead = "no-analysis"`).
    BoolOrStr,
    /// A string, or a non-empty list of strings joined with commas (`targets`).
    StrOrList,
    /// A list of strings joined with commas (`none` for `[]`), or one of these words as a
    /// string (`panics = "all"`).
    ListOrWords(&'static [&'static str]),
}

impl Setting {
    /// The setting whose attribute argument is `name`.
    pub fn named(name: &str) -> Option<&'static Setting> {
        SETTINGS.iter().find(|s| s.name == name)
    }

    /// Reads `text` with the setting's parser, keeping only whether it is valid.
    pub fn check(&self, text: &str) -> Result<(), Invalid> {
        (self.check)(text)
    }

    /// Reads `text` with the setting's parser into its field of `config`.
    pub(crate) fn apply(&self, config: &mut Config, text: &str) -> Result<(), Invalid> {
        (self.apply)(config, text)
    }

    /// The [`Config`] field's documentation, as one line.
    pub fn doc(&self) -> &'static str {
        self.doc.trim()
    }
}

/// A setting's value as a report shows it: as the attribute would spell it.
trait Shown {
    fn shown(&self) -> String;
}

impl<T: Shown> Shown for Option<T> {
    fn shown(&self) -> String {
        self.as_ref()
            .map_or_else(|| "none".to_string(), Shown::shown)
    }
}

impl Shown for Duration {
    fn shown(&self) -> String {
        if self.subsec_millis() == 0 {
            format!("{}s", self.as_secs())
        } else {
            format!("{}ms", self.as_millis())
        }
    }
}

impl Shown for std::path::PathBuf {
    fn shown(&self) -> String {
        self.display().to_string()
    }
}

/// Types whose `Display` is already the attribute's spelling.
macro_rules! shown_as_displayed {
    ($($ty:ty),*) => {$(
        impl Shown for $ty {
            fn shown(&self) -> String {
                self.to_string()
            }
        }
    )*};
}

shown_as_displayed!(u64, u32, bool, TargetSpec, PanicSet, DetectorSet);

impl Shown for Steering {
    fn shown(&self) -> String {
        self.name().to_string()
    }
}

/// Declares [`Config`] (fields, docs, [`Default`]) and [`SETTINGS`] from the same rows.
macro_rules! settings {
    ($(
        $(#[doc = $doc:literal])*
        $field:ident: $ty:ty = $default:expr;
        $name:literal as $literal:expr, expected $expected:literal;
        $var:literal;
        parse $parse:expr;
    )*) => {
        /// How long and how a campaign runs. Every field documents its default, its
        /// attribute argument and its `HARVEY_*` variable ([`SETTINGS`] has them all).
        ///
        /// `#[non_exhaustive]`: start from [`Config::default`] (or [`Config::from_env`])
        /// and set fields, so new settings do not break your code.
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[non_exhaustive]
        pub struct Config {
            $(
                $(#[doc = $doc])*
                #[doc = ""]
                #[doc = concat!("Attribute: `", $name, "`. Environment: `", $var, "`.")]
                pub $field: $ty,
            )*
        }

        impl Default for Config {
            /// Every default: what a campaign runs when nothing is set. Deterministic (no
            /// seed is drawn here; an unset seed is drawn when a campaign starts).
            fn default() -> Config {
                Config { $($field: $default,)* }
            }
        }

        impl Config {
            /// Every setting's attribute name and value as a report lists them (`none` for
            /// an unset option), with whether it is the default, in [`SETTINGS`]' order.
            pub fn values(&self) -> Vec<(&'static str, String, bool)> {
                let default = Config::default();
                vec![$(($name, self.$field.shown(), self.$field == default.$field),)*]
            }
        }

        /// Every setting, in the order the attribute's documentation lists them.
        pub const SETTINGS: &[Setting] = &[$(
            Setting {
                name: $name,
                var: $var,
                literal: $literal,
                expected: $expected,
                doc: concat!($($doc),*),
                check: |text| ($parse)(text).map(drop),
                apply: |config, text| {
                    config.$field = ($parse)(text)?;
                    Ok(())
                },
            },
        )*];
    };
}

settings! {
    /// Sequences to execute, at most (with `time`: whichever ends first). Default: none, and
    /// 10,000 when neither `time` nor `calls` is set ([`Config::run_bound`]). When the
    /// environment gives `HARVEY_RUNS`, `HARVEY_TIME` or `HARVEY_CALLS`, it replaces the
    /// attribute's whole budget.
    runs: Option<u64> = None;
    "runs" as Literal::Integer, expected "an unsigned integer without a suffix, e.g. 1000";
    "HARVEY_RUNS";
    parse |text| parse::count(text).map(Some);

    /// Wall-clock budget, at most (`"500ms"`, `"30s"`, `"5m"`, `"1h"`). Default: none.
    time: Option<Duration> = None;
    "time" as Literal::Str, expected "a duration string such as \"30s\"";
    "HARVEY_TIME";
    parse |text| parse::duration(text).map(Some);

    /// Fuzzed calls (transactions) to execute, at most, over all sequences (the last
    /// sequence started runs to its end): the budget
    /// forge's `runs` × `depth` means, which a Solidity suite's foundry.toml becomes (with
    /// `runs` or `time`: whichever ends first). Default none. When the environment gives
    /// `HARVEY_CALLS`, it replaces the attribute's whole budget.
    calls: Option<u64> = None;
    "calls" as Literal::Integer, expected "an unsigned integer without a suffix, e.g. 1000";
    "HARVEY_CALLS";
    parse |text| parse::count(text).map(Some);

    /// Maximum transactions per sequence. Default 8.
    depth: u32 = 8;
    "depth" as Literal::Integer, expected "an unsigned integer without a suffix, e.g. 1000";
    "HARVEY_DEPTH";
    parse parse::small_count;

    /// Random walks: the share of transactions, in percent, spent on sequences of
    /// `walk_length` fresh random calls whose integer arguments are mostly drawn uniformly
    /// over their type, run as forge, Echidna and Medusa run their invariant campaigns and
    /// never kept in the corpus. They build state that takes many unrelated calls (a market
    /// lent out by many borrows), which sequences of at most `depth` calls kept for new
    /// paths rarely reach. Default: none, which is 50 in forge invariant suites and
    /// Echidna/Medusa harnesses (those tools fuzz only so) and 0 (off) in Rust invariants.
    /// Never run where every case is one call (fuzz tests, properties, independent calls,
    /// `depth = 1`).
    walks: Option<u32> = None;
    "walks" as Literal::Integer, expected "a whole number from 0 to 100";
    "HARVEY_WALKS";
    parse |text| parse::percent(text).map(Some);

    /// Calls per random walk (see `walks`). Default 500, forge's invariant depth (Echidna's
    /// and Medusa's sequences are 100 calls; on the lending fixture 500 found what 100 did
    /// not).
    walk_length: u32 = 500;
    "walk_length" as Literal::Integer, expected "an unsigned integer without a suffix, e.g. 1000";
    "HARVEY_WALK_LENGTH";
    parse parse::small_count;

    /// Seed of worker 0's RNG (worker `i` uses `seed + i`), decimal or `0x`-hex. Default:
    /// none, and the campaign draws one from the clock when it starts, printed in every
    /// report so the run can be replayed.
    seed: Option<u64> = None;
    "seed" as Literal::Integer, expected "an unsigned integer without a suffix, e.g. 1000";
    "HARVEY_SEED";
    parse |text| parse::seed(text).map(Some);

    /// Worker threads. Default 1 (deterministic).
    workers: u32 = 1;
    "workers" as Literal::Integer, expected "an unsigned integer without a suffix, e.g. 1000";
    "HARVEY_WORKERS";
    parse parse::small_count;

    /// Input prediction (HARVEY §4: cost metrics and the secant method). Default on; off
    /// is for measuring what it brings. The variable takes `0`/`1`, `false`/`true`.
    prediction: bool = true;
    "prediction" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_PREDICTION";
    parse parse::switch;

    /// Demand-driven sequence fuzzing (HARVEY §5): path ids cover the last transaction,
    /// aggressive runs fuzz storage directly, and only functions whose coverage depends on
    /// state get longer sequences. Off is the paper's configuration D: path ids span the
    /// whole sequence and every sequence is extended eagerly. Default on.
    demand_driven: bool = true;
    "demand_driven" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_DEMAND_DRIVEN";
    parse parse::switch;

    /// Read-after-write ordering (MuFuzz, ConFuzzius): new transactions prefer functions
    /// that write what the next one reads, and self-dependent calls are repeated. Default
    /// on.
    dataflow: bool = true;
    "dataflow" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_DATAFLOW";
    parse parse::switch;

    /// Chained predictions: after a predicted input satisfies a comparison of a
    /// sequence's last transaction, a call is appended and predicted on in the state that
    /// step left, so chains of state-dependent equalities advance a step per prediction.
    /// Default on; off is for measuring what it brings.
    chain_predictions: bool = true;
    "chain_predictions" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_CHAIN_PREDICTIONS";
    parse parse::switch;

    /// Joint prediction: for a branch of a call's comparison that the secant
    /// method, moving one input, cannot flip without breaking a comparison the path already
    /// satisfies, every integer input of the call is moved by one, and the step that flips
    /// the branch while keeping the others is solved over the integers (Newton's method
    /// with finite differences). Needs `prediction`. Default on; off is for measuring what
    /// it brings.
    joint_prediction: bool = true;
    "joint_prediction" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_JOINT_PREDICTION";
    parse parse::switch;

    /// The solver-backed step: a branch joint prediction could not flip is
    /// handed to z3 with its call's path condition (the comparisons on the way to it, as
    /// functions of the call's argument words), and z3's answer is run. Needs the `solver`
    /// cargo feature (on by default) and the `z3` program (`HARVEY_Z3`, else `z3` on
    /// `PATH`); a z3 that is missing, exits, answers garbage or does not answer turns the
    /// step off with a warning, and the campaign goes on. harvey waits 10 s at most for a
    /// query (then kills z3 and starts another), never past `time`. Needs
    /// `joint_prediction`.
    solver: bool = true;
    "solver" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_SOLVER";
    parse parse::switch;

    /// Data decisions: a comparison whose result goes into data rather than a branch
    /// (`checked = sum == a + b;`, a returned boolean) counts as a branch decision for
    /// coverage and gets a cost metric for input prediction. Default on; off is for
    /// measuring what it brings.
    data_decisions: bool = true;
    "data_decisions" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_DATA_DECISIONS";
    parse parse::switch;

    /// Address and name coupling: a mutation that makes an address argument another
    /// transaction's sender, or a sender an address another transaction names
    /// (`approve(spender)` by one sender, then a call by that spender naming the approver);
    /// and one that copies the arguments another transaction passes under the same
    /// parameter names (`withdraw(actorIndex, marketIndex)` after `deposit(actorIndex,
    /// marketIndex)`). Default on; off is for measuring what it brings.
    coupling: bool = true;
    "coupling" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_COUPLING";
    parse parse::switch;

    /// Mask-guided mutation (MuFuzz §IV-B): once a corpus entry gets energy enough, each of
    /// its inputs is probed with one mutation, and mutations of the entry then change only
    /// inputs whose probe kept its path. Default off: on the repository's benchmarks it
    /// found no bug sooner and made some take twice the sequences (the probes cost runs,
    /// and held inputs are often the ones a new path needs changed); on is for trying it.
    masks: bool = false;
    "masks" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_MASKS";
    parse parse::switch;

    /// Independent calls: when no fuzzed call can change what a later one sees
    /// (the fuzzed contracts' code writes no storage and calls, creates and destroys nothing
    /// except through STATICCALL, and what it reaches reads no clock the delays move and no
    /// balance a call's ether moves), every sequence is one call, whatever `depth` says, and
    /// the engine spends its runs as on a fuzz test's. Default on; off is for measuring what
    /// it brings.
    independent_calls: bool = true;
    "independent_calls" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_INDEPENDENT_CALLS";
    parse parse::switch;

    /// Skip an invariant after a transaction that cannot have changed its answer: a suite's
    /// invariant function whose last check held and read only storage (recorded as it
    /// ran) none of which the transaction wrote, and no cheatcode, creation or
    /// self-destruct changed anything else it reads. Exact: a campaign finds the same
    /// violations at the same points either way, faster where invariants are many and
    /// handlers touch few contracts. Rust invariants, which may read the chain any way, are
    /// checked unless the state is one they held in before: every invariant, Rust ones too
    /// (an invariant is taken to be a function of the chain's state, as shrinking takes
    /// it), is skipped after a transaction that repeats the run before's, after the same
    /// transactions, where it held (prediction's steps change a sequence's last calls and
    /// run the rest again). Default on; off is for measuring what it brings.
    skip_unchanged_invariants: bool = true;
    "skip_unchanged_invariants" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_SKIP_UNCHANGED_INVARIANTS";
    parse parse::switch;

    /// Invariant guidance: observe the invariant checks after each transaction; a sequence
    /// whose transactions of one path brought one of their comparisons closer to failing
    /// more times than in any sequence before is kept, and input prediction aims at those
    /// comparisons too. It finds bugs that only an invariant's comparison sees (no branch
    /// of the contracts leads there), at the price of observing every check.
    invariant_guidance: bool = false;
    "invariant_guidance" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_INVARIANT_GUIDANCE";
    parse parse::switch;

    /// State novelty: a sequence whose transactions left a word in storage of a class no
    /// earlier run left there (zero, a small number up to 32, a sender, any other word; per
    /// fixed slot, or per write site for mapping slots), or a new combination of such
    /// words in one transaction (a maze's `x` and `y`), is kept even when its last call
    /// took a known path: it reached a state that code further on may need.
    state_novelty: bool = false;
    "state_novelty" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_STATE_NOVELTY";
    parse parse::switch;

    /// Condition states: a sequence whose last call took a known path, but whose conditions
    /// on storage compared their operands otherwise than every run on that path (one of
    /// them zero, both, equal, or apart: an `amount <= allowance` with a real allowance
    /// and amount, where earlier runs pulled nothing from nothing), is kept: it reached
    /// state that code on that path reads. Such a run is extended a little every round
    /// (its energy does not grow as a new path's does), and all of them together get at
    /// most a quarter of the fuzzing, so the many it keeps do not take the schedule from
    /// the paths.
    condition_states: bool = true;
    "condition_states" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_CONDITION_STATES";
    parse parse::switch;

    /// Revert guidance: once a function has reverted on each of its first 1,000 calls (a
    /// `liquidate` while no position is underwater), a sequence in which a call of it
    /// failed at a `require` no call of it reached before, or nearer to passing one than
    /// any call before, is kept even when its last call took a known path: the calls
    /// before it are a prefix on the way to its success.
    revert_guidance: bool = true;
    "revert_guidance" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_REVERT_GUIDANCE";
    parse parse::switch;

    /// Stop at the first violation (`true`, the default: the quick answer a local `cargo
    /// test` wants), or keep fuzzing to the budget and report every distinct violation, each
    /// shrunk and saved (`false`: for CI runs and long campaigns, as cargo's `--no-fail-fast`
    /// runs every test).
    fail_fast: bool = true;
    "fail_fast" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_FAIL_FAST";
    parse parse::switch;

    /// Whether a fuzzed transaction that reverts is itself a violation (forge's `[invariant]
    /// fail_on_revert`, which a forge suite's foundry.toml sets too): for handlers written to
    /// never revert. A rejected `vm.assume` is not a revert, and an Echidna/Medusa property
    /// contract's reverts never count. Default `false`: reverts are the normal way a
    /// contract refuses a call.
    fail_on_revert: bool = false;
    "fail_on_revert" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_FAIL_ON_REVERT";
    parse parse::switch;

    /// How many inputs `vm.assume` may reject in a forge fuzz test before it stops and fails
    /// with "`vm.assume` rejected too many inputs" (forge's `[fuzz] max_test_rejects`,
    /// 65,536 by default); `0` allows any number. A rejected call is not a case: it counts
    /// toward no budget, so a test whose every input is rejected would otherwise run until
    /// its time budget. Invariant campaigns do not read it (forge's `max_assume_rejects`
    /// limits one sequence, and no harvey sequence is that long).
    max_rejects: u32 = 65_536;
    "max_rejects" as Literal::Integer, expected "an unsigned integer without a suffix, e.g. 65536";
    "HARVEY_MAX_REJECTS";
    parse parse::whole;

    /// The most seconds block time may advance before a fuzzed call (forge's `[invariant]
    /// max_time_delay`); `0` keeps time still between calls. Default: none, which is
    /// harvey's environment fuzzing in Rust invariants (mostly no wait, else a second to a
    /// year) and forge's default in Solidity suites (time never advances between calls
    /// unless foundry.toml sets the key).
    max_time_delay: Option<u32> = None;
    "max_time_delay" as Literal::Integer, expected "an unsigned integer without a suffix, e.g. 3600";
    "HARVEY_MAX_TIME_DELAY";
    parse |text| parse::whole(text).map(Some);

    /// The most blocks the block number may advance before a fuzzed call (forge's
    /// `[invariant] max_block_delay`); `0` keeps it still. Default: none, which in Rust
    /// invariants advances the number with the time (a block per 12 seconds) and in Solidity
    /// suites is forge's default (never, unless foundry.toml sets the key).
    max_block_delay: Option<u32> = None;
    "max_block_delay" as Literal::Integer, expected "an unsigned integer without a suffix, e.g. 3600";
    "HARVEY_MAX_BLOCK_DELAY";
    parse |text| parse::whole(text).map(Some);

    /// What to target: the lines a change touched since a revision, working tree included
    /// (`diff:origin/main`), or explicit lines
    /// (`src/Vault.sol:42,src/Vault.sol:50`; the attribute also takes a list of lines). The
    /// summary reports for each target whether and when it was reached. Default none.
    targets: Option<TargetSpec> = None;
    "targets" as Literal::StrOrList,
        expected "targets as \"diff:origin/main\", \"src/Vault.sol:42\" or [\"src/Vault.sol:42\", \"src/Vault.sol:50\"]";
    "HARVEY_TARGETS";
    parse |text: &str| text.parse::<TargetSpec>().map(Some);

    /// Fail when a target was never reached (the check a pull request wants). Default off.
    require_targets: bool = false;
    "require_targets" as Literal::Bool, expected "`true` or `false`";
    "HARVEY_REQUIRE_TARGETS";
    parse parse::switch;

    /// With targets: how to steer towards them (ICSE'20's configurations A–D, see
    /// [`Steering`]): `on`/`off` (or `true`/`false`), `no-analysis`, `standard-schedule`, or
    /// the paper's letters `A`–`D`, the same words in the attribute (`true`/`false` bare,
    /// the others as strings: `lookahead = "no-analysis"`) and the environment. Default
    /// [`Steering::Lookahead`].
    lookahead: Steering = Steering::Lookahead;
    "lookahead" as Literal::BoolOrStr,
        expected "`true`, `false`, or a string: \"on\", \"off\", \"no-analysis\", \"standard-schedule\", \"A\"–\"D\"";
    "HARVEY_LOOKAHEAD";
    parse str::parse::<Steering>;

    /// Which Solidity Panic codes are violations: names such as `assert,overflow` (a list
    /// in the attribute), hex codes, `all` or `none` (`[]`). Default: a failed `assert`
    /// only (forge's `fail_on_assert`, Medusa's default), since checked arithmetic
    /// reverting is how Solidity 0.8 code rejects an overdraft.
    panics: PanicSet = PanicSet::default();
    "panics" as Literal::ListOrWords(&["all", "none"]),
        expected "a list of Panic code names, e.g. [\"assert\", \"overflow\"], or \"all\" / \"none\"";
    "HARVEY_PANICS";
    parse str::parse::<PanicSet>;

    /// The vulnerability detectors that run beside the invariants (see the book's
    /// *Vulnerability detectors* chapter): detector names (`["ether-leak", "selfdestruct"]`, comma
    /// separated in the variable), `all` or `none` (`[]`). Default: all of them in Rust
    /// invariants, none in Solidity suites (forge has none: a suite fails only where forge
    /// would). Fuzzed senders are attackers unless setup trusts them (`Chain::trust`).
    detectors: Option<DetectorSet> = None;
    "detectors" as Literal::ListOrWords(&["all", "none"]),
        expected "a list of detector names, e.g. [\"ether-leak\", \"selfdestruct\"], or \"all\" / \"none\"";
    "HARVEY_DETECTORS";
    parse |text: &str| text.parse::<DetectorSet>().map(Some);

    /// A directory that keeps the corpus between runs (relative paths from the project's
    /// root, the crate's for `#[harvey::invariant]`): the sequences saved there are run
    /// first, and the campaign's corpus is saved back after fuzzing, so a CI run starts
    /// where the last one stopped. Several directories (shards with other seeds) merge by
    /// copying their files into one. Default none.
    corpus: Option<std::path::PathBuf> = None;
    "corpus" as Literal::Str, expected "a directory path such as \"harvey-corpus\"";
    "HARVEY_CORPUS";
    parse |text| parse::path(text).map(Some);

    /// A SARIF 2.1.0 file to add the campaign's findings to (relative paths from the
    /// project's root): one result per violation at its Solidity line (else the test's),
    /// one per target line never reached. Tests running in parallel, in threads or
    /// processes, merge into one file; a test's results replace its earlier ones. For
    /// GitHub code scanning. Default none.
    sarif: Option<std::path::PathBuf> = None;
    "sarif" as Literal::Str, expected "a file path such as \"harvey.sarif\"";
    "HARVEY_SARIF";
    parse |text| parse::path(text).map(Some);

    /// An lcov tracefile to add the campaign's line coverage of the Solidity sources to
    /// (relative paths from the project's root): how often fuzzing executed each line of the
    /// contracts setup deployed and of those fuzzing created, for `genhtml` or a coverage
    /// service. Tests running in parallel merge into one file; a test's records replace its
    /// earlier ones. Default none.
    lcov: Option<std::path::PathBuf> = None;
    "lcov" as Literal::Str, expected "a file path such as \"lcov.info\"";
    "HARVEY_LCOV";
    parse |text| parse::path(text).map(Some);

    /// A directory to write an HTML report into (relative paths from the project's root):
    /// static pages that open from the file system, a page per test (the sources with each
    /// line's hit count, the targets reached or not, every violation with its shrunk call
    /// sequence and replay command, plots of coverage and violations over the campaign's
    /// time, why each function reverted, the settings and seed) and an index of the tests.
    /// Tests running in parallel, in threads or processes, add to one index; a test's page
    /// replaces its earlier one. Default none.
    report: Option<std::path::PathBuf> = None;
    "report" as Literal::Str, expected "a directory path such as \"harvey-report\"";
    "HARVEY_REPORT";
    parse |text| parse::path(text).map(Some);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per setting: texts the settings reference documents (as the attribute's literal
    /// becomes text, and as the variable is written), and garbage.
    const DOCUMENTED: &[(&str, &[&str], &[&str])] = &[
        (
            "runs",
            &["10000", "2_000", "1"],
            &["0", "lots", "-5", "1.5"],
        ),
        (
            "time",
            &["30s", "500ms", "5m", "1h"],
            &["30", "1d", "0s", "soon"],
        ),
        ("calls", &["4096", "1_000"], &["0", "many", "-1"]),
        ("depth", &["8", "1"], &["0", "deep", "5000000000"]),
        ("walks", &["0", "25", "100"], &["101", "-1", "half"]),
        ("walk_length", &["1", "500"], &["0", "long"]),
        (
            "seed",
            &["0", "7", "0x10"],
            &["x", "-1", "18446744073709551616"],
        ),
        ("workers", &["1", "4"], &["0", "many"]),
        ("prediction", &["false", "true", "0", "1"], &["maybe", "2"]),
        ("demand_driven", &["false", "on", "off"], &["maybe"]),
        ("dataflow", &["false", "no", "yes"], &["maybe"]),
        ("chain_predictions", &["false", "true"], &["maybe"]),
        ("joint_prediction", &["false", "true"], &["maybe"]),
        ("solver", &["false", "true"], &["maybe"]),
        ("data_decisions", &["false", "true"], &["maybe"]),
        ("coupling", &["false", "true"], &["maybe"]),
        ("masks", &["false", "true"], &["maybe"]),
        ("independent_calls", &["false", "true"], &["maybe"]),
        ("skip_unchanged_invariants", &["false", "true"], &["maybe"]),
        ("invariant_guidance", &["false", "true"], &["maybe"]),
        ("state_novelty", &["false", "true"], &["maybe"]),
        ("condition_states", &["false", "true"], &["maybe"]),
        ("revert_guidance", &["false", "true"], &["maybe"]),
        ("fail_fast", &["false", "true", "0"], &["sometimes"]),
        ("fail_on_revert", &["true", "false", "1"], &["often"]),
        (
            "max_rejects",
            &["0", "65536", "1_000"],
            &["-1", "many", "4294967296"],
        ),
        (
            "max_time_delay",
            &["0", "3600", "604_800"],
            &["-1", "1h", "4294967296"],
        ),
        (
            "max_block_delay",
            &["0", "60480"],
            &["-1", "lots", "4294967296"],
        ),
        (
            "targets",
            &[
                "diff:origin/main",
                "src/Vault.sol:42",
                "src/Vault.sol:42,src/Vault.sol:50",
            ],
            &["nonsense", "diff:", "src/Vault.sol:0"],
        ),
        ("require_targets", &["true", "false"], &["always"]),
        (
            "lookahead",
            &["on", "off", "no-analysis", "standard-schedule", "A", "D"],
            &["fast", "E"],
        ),
        (
            "panics",
            &["assert,overflow", "none", "all", "0x11", "assert"],
            &["overflw", "0xzz"],
        ),
        (
            "detectors",
            &["ether-leak,selfdestruct", "none", "all", "locked-ether"],
            &["leak", "reentrancy-ish"],
        ),
        ("corpus", &["harvey-corpus", "/tmp/corpus"], &["a\0b"]),
        ("sarif", &["harvey.sarif", "/tmp/out.sarif"], &["a\0b"]),
        ("lcov", &["lcov.info", "/tmp/lcov.info"], &["a\0b"]),
        ("report", &["harvey-report", "/tmp/report"], &["a\0b"]),
    ];

    #[test]
    fn values_are_shown_as_the_attribute_spells_them() {
        let config = Config {
            time: Some(Duration::from_secs(30)),
            report: Some("harvey-report".into()),
            ..Config::default()
        };
        let values = config.values();
        assert_eq!(values.len(), SETTINGS.len());
        let value = |name: &str| values.iter().find(|(n, _, _)| *n == name).cloned();
        assert_eq!(value("time"), Some(("time", "30s".into(), false)));
        assert_eq!(
            value("report"),
            Some(("report", "harvey-report".into(), false))
        );
        assert_eq!(value("runs"), Some(("runs", "none".into(), true)));
        assert_eq!(value("depth"), Some(("depth", "8".into(), true)));
        // What is shown reads back as the same value.
        for (name, text, _) in &values {
            if text != "none" {
                let mut again = Config::default();
                Setting::named(name)
                    .unwrap()
                    .apply(&mut again, text)
                    .unwrap();
                assert_eq!(
                    again.values().iter().find(|v| v.0 == *name).unwrap().1,
                    *text
                );
            }
        }
    }

    #[test]
    fn every_setting_is_documented_here_once() {
        let names: Vec<&str> = SETTINGS.iter().map(|s| s.name).collect();
        let tested: Vec<&str> = DOCUMENTED.iter().map(|(name, _, _)| *name).collect();
        assert_eq!(names, tested);
        for setting in SETTINGS {
            assert!(setting.var.starts_with("HARVEY_"), "{}", setting.var);
            assert_eq!(
                setting.var,
                format!("HARVEY_{}", setting.name.to_uppercase())
            );
            assert!(!setting.doc().is_empty() && !setting.doc().starts_with(' '));
            assert_eq!(
                Setting::named(setting.name).map(|s| s.var),
                Some(setting.var)
            );
        }
        assert!(Setting::named("colour").is_none());
    }

    #[test]
    fn parsers_accept_what_is_documented_and_name_the_setting_in_errors() {
        for &(name, good, bad) in DOCUMENTED {
            let setting = Setting::named(name).unwrap();
            for text in good {
                assert_eq!(setting.check(text), Ok(()), "{name} = {text}");
                let env = |var: &str| (var == setting.var).then(|| text.to_string());
                assert!(Config::resolve(&[(name, text)], env).is_ok(), "{name}");
            }
            for text in bad {
                let why = setting.check(text).unwrap_err();
                assert!(why.message().contains(text), "{name} = {text}: {why}");
                let env = |var: &str| (var == setting.var).then(|| text.to_string());
                let err = Config::resolve(&[], env).unwrap_err().to_string();
                assert!(
                    err.starts_with(&format!("{}={text}: ", setting.var)),
                    "{err}"
                );
                let err = Config::resolve(&[(name, text)], |_| None).unwrap_err();
                assert!(
                    err.to_string().contains(&format!("{name} = {text}")),
                    "{err}"
                );
            }
        }
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;
    use crate::{PANIC_NAMES, PanicNumber};

    proptest! {
        /// Whatever the text, a parser answers (never panics), and the macro's check agrees
        /// with what the runtime does with the same text from the attribute or the variable.
        #[test]
        fn check_and_resolve_agree_on_any_text(text in ".{0,24}", index in 0..SETTINGS.len()) {
            let setting = &SETTINGS[index];
            let checked = setting.check(&text).is_ok();
            let from_attribute = Config::resolve(&[(setting.name, &text)], |_| None);
            prop_assert_eq!(checked, from_attribute.is_ok());
            let from_env = Config::resolve(&[], |var| (var == setting.var).then(|| text.clone()));
            // A blank variable counts as unset.
            prop_assert_eq!(checked || text.trim().is_empty(), from_env.is_ok());
        }

        #[test]
        fn counts_read_back_with_or_without_separators(n in 1..=u64::MAX) {
            let digits = n.to_string();
            let grouped: String = digits
                .chars()
                .enumerate()
                .flat_map(|(i, c)| (i > 0 && (digits.len() - i) % 3 == 0).then_some('_').into_iter().chain([c]))
                .collect();
            let c = Config::resolve(&[("runs", &grouped)], |_| None).unwrap();
            prop_assert_eq!(c.runs, Some(n));
            let c = Config::resolve(&[], |var| (var == "HARVEY_SEED").then(|| format!("{n:#x}"))).unwrap();
            prop_assert_eq!(c.seed, Some(n));
        }

        /// A set's text (what the summary and the regression file's settings show) reads back
        /// as the same set.
        #[test]
        fn panic_sets_read_back_from_their_text(
            named in proptest::sample::subsequence(PANIC_NAMES.to_vec(), 0..=PANIC_NAMES.len()),
            numbers in proptest::collection::vec(any::<[u64; 4]>(), 0..3),
        ) {
            let set = PanicSet::of(
                named.iter().map(|&(code, _)| PanicNumber::from(code))
                    .chain(numbers.into_iter().map(PanicNumber::from_limbs)),
            );
            prop_assert_eq!(set.to_string().parse::<PanicSet>(), Ok(set));
        }

        #[test]
        fn target_lines_read_back_from_their_text(
            lines in proptest::collection::vec(("[a-z][a-z/]{0,8}\\.sol", 1..u32::MAX), 1..4),
        ) {
            let text: Vec<String> = lines.iter().map(|(file, line)| format!("{file}:{line}")).collect();
            let spec: TargetSpec = text.join(",").parse().unwrap();
            prop_assert_eq!(spec.to_string(), text.join(","));
        }
    }
}
