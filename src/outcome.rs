//! What a campaign returns: passed or violated, the shrunk failing call sequence, and the
//! statistics of the run. Plain data; `report` renders it. The structs and [`Violation`] are
//! `#[non_exhaustive]`: users read them and only harvey builds them, so fields (and kinds of
//! violation) can be added without breaking anyone. The crate root re-exports what a test
//! author reads ([`Outcome`], [`Failure`], [`Violation`], [`Place`], [`Call`], [`Stats`],
//! [`Progress`]); the statistics' parts and the research diagnostics are reached here.

use std::path::PathBuf;
use std::time::Duration;

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::{Address, U256};

use crate::chain::{Labels, PanicCode, Warp};
use crate::config::Detector;
use crate::config::Steering;

/// The result of a campaign. A violation is an outcome, not an error.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Outcome {
    /// The distinct violations found, each shrunk, in the order found: those of the
    /// post-setup state and those replayed from the regression file first. At most one
    /// unless the campaign ran with `fail_fast = false`.
    pub failures: Vec<Failure>,
    /// What the campaign did.
    pub stats: Stats,
    /// Things the user should know that did not stop the campaign: skipped functions,
    /// stale regression entries, contracts with nothing to call.
    pub warnings: Vec<String>,
    /// Whether every target had to be reached (`require_targets`): then a target never
    /// reached fails the campaign too.
    pub require_targets: bool,
    /// Why the campaign tested nothing, when it did: a Solidity suite in assertion mode
    /// none of whose functions ever ran to its end, so that no assertion was checked. Such
    /// a campaign has not passed.
    pub untested: Option<String>,
}

impl Outcome {
    /// Whether something was tested, no violation was found and, with `require_targets`,
    /// every target was reached.
    pub fn passed(&self) -> bool {
        self.failures.is_empty() && self.missed_targets().is_empty() && self.untested.is_none()
    }

    /// The first violation found, if any.
    pub fn failure(&self) -> Option<&Failure> {
        self.failures.first()
    }

    /// The targets that had to be reached (`require_targets`) but never were, as
    /// `file:line (Contract)`; empty without `require_targets`.
    pub fn missed_targets(&self) -> Vec<String> {
        if !self.require_targets {
            return Vec::new();
        }
        self.stats
            .targets
            .iter()
            .filter(|t| t.reached.is_none())
            .map(TargetStats::label)
            .collect()
    }
}

/// The instruction in deployed code that raised a violation, and its source line.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Place {
    /// The name of the contract whose code holds the instruction (the code's address when
    /// no compiled contract matches it).
    pub contract: String,
    /// The instruction's pc in that code.
    pub pc: u32,
    /// `file:line` of the user's statement, when the source map names one: for a Panic
    /// raised in one of solc's shared helpers, the statement that called the helper.
    pub line: Option<String>,
}

/// What was violated.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Violation {
    /// A Rust invariant returned `false` or `Err`, or panicked.
    Invariant {
        /// The invariant's name.
        name: String,
        /// What it reported: `returned false`, the `Err`'s message, or the panic message.
        message: String,
    },
    /// A Rust property (`#[harvey::property]`) returned `false` or `Err`, or panicked, for
    /// the inputs of the failure's one call.
    Property {
        /// The property's name.
        name: String,
        /// What it reported: `returned false`, the `Err`'s message, or the panic message.
        message: String,
    },
    /// A transaction reverted with a Solidity Panic code the campaign treats as a bug
    /// (a failed `assert`, an overflow, ...: SWC-110).
    Panic {
        /// The Panic code.
        code: PanicCode,
        /// Where the innermost frame raised it.
        place: Place,
    },
    /// A transaction wrote a storage slot the fuzzer chose arbitrarily (SWC-124): the
    /// caller controls where the contract writes, and can overwrite any variable.
    ArbitraryStorageWrite {
        /// The account whose storage was written.
        contract: Address,
        /// The slot written.
        slot: U256,
        /// The SSTORE that wrote it.
        place: Place,
    },
    /// A transaction emitted an `AssertionFailed(..)` event (the convention of Echidna's
    /// and Medusa's assertion mode, and of libraries written for them) and did not revert.
    AssertionFailed {
        /// The event's arguments, rendered (`AssertionFailed("balance lost")` gives
        /// `balance lost`; several arguments are joined with `, `).
        message: String,
        /// The arguments that name the assertion (its strings; numbers vary with the
        /// inputs): with the place, what tells one assertion from another.
        label: String,
        /// The LOG instruction that emitted it.
        place: Place,
    },
    /// A fuzzed transaction reverted with a failed forge-std assertion (`assertion failed:
    /// ..`, which forge counts as a broken invariant), or reverted at all while reverts
    /// count as bugs (`fail_on_revert`, forge's `[invariant] fail_on_revert`).
    Reverted {
        /// The decoded revert reason (`Error(string)`'s message, a custom error, a Panic).
        reason: String,
        /// The REVERT of the innermost frame, where the revert began.
        place: Place,
    },
    /// A vulnerability detector's finding (the `detectors` setting): a transaction did
    /// what no correct contract lets an attacker do, whatever the invariants say.
    Vulnerability {
        /// The detector that found it.
        detector: Detector,
        /// The instruction that did it (the CALL that paid, the SELFDESTRUCT, the
        /// DELEGATECALL), or the contract (locked ether).
        place: Place,
        /// What happened, with the accounts and amounts involved.
        explanation: String,
    },
    /// A transaction called a forge cheatcode harvey does not implement. Not a bug in the
    /// contracts: harvey cannot run this code as forge would, so it says so instead of
    /// returning something forge would not.
    UnsupportedCheatcode {
        /// The cheatcode's signature as forge-std's `Vm` declares it.
        cheatcode: String,
        /// Where it was called: the calling contract, and the line of the call when the
        /// calling frame's revert shows it.
        place: Place,
    },
}

impl Violation {
    /// Whether `other` is the same bug: the same invariant, the same Panic code raised at the
    /// same place, the same write instruction, the same assertion event at the same place
    /// (messages and slots may differ as arguments change). A campaign reports each bug
    /// once, and shrinking keeps the bug it shrinks.
    pub fn same_bug(&self, other: &Violation) -> bool {
        self.identity() == other.identity()
    }

    /// The `file:line` where it happened, when the source map gave one (an invariant has
    /// none).
    pub fn source_line(&self) -> Option<&str> {
        match self {
            Violation::Invariant { .. } | Violation::Property { .. } => None,
            Violation::Panic { place, .. }
            | Violation::ArbitraryStorageWrite { place, .. }
            | Violation::AssertionFailed { place, .. }
            | Violation::Reverted { place, .. }
            | Violation::UnsupportedCheatcode { place, .. }
            | Violation::Vulnerability { place, .. } => place.line.as_deref(),
        }
    }

    /// What tells bugs apart ([`Violation::same_bug`]): the kind, and the invariant's name
    /// or the place (its source line when known, else contract and pc).
    pub(crate) fn identity(&self) -> String {
        match self {
            Violation::Invariant { name, .. } => format!("invariant {name}"),
            Violation::Property { name, .. } => format!("property {name}"),
            Violation::Panic { code, place } => format!("panic {:x} {}", code.code(), place.key()),
            Violation::ArbitraryStorageWrite { place, .. } => format!("write {}", place.key()),
            Violation::AssertionFailed { label, place, .. } => {
                format!("event {} {label}", place.key())
            }
            Violation::Reverted { place, .. } => format!("revert {}", place.key()),
            Violation::UnsupportedCheatcode { cheatcode, .. } => format!("cheatcode {cheatcode}"),
            Violation::Vulnerability {
                detector, place, ..
            } => format!("{detector} {}", place.key()),
        }
    }
}

impl Place {
    /// What identifies the place: the source line (one statement, wherever its code was
    /// compiled into), else the contract and pc.
    fn key(&self) -> String {
        match &self.line {
            Some(line) => line.clone(),
            None => format!("{}:{}", self.contract, self.pc),
        }
    }
}

/// A violation with the call sequence that shows it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Failure {
    /// What was violated.
    pub violation: Violation,
    /// The shrunk sequence, from the post-setup state; the violation shows after the last
    /// call (an empty sequence: the state right after setup already violates).
    pub calls: Vec<Call>,
    /// How the last call ended, rendered (`Panic(0x01): assert failed`, `success`).
    pub last_status: String,
    /// What property-library helpers logged during the last call, reverted frames
    /// included, rendered as the events they are (`AssertEqFail("Invalid: 5!=4, reason:
    /// …")`, `LogUint256("amount", 5)`): crytic/properties' failure and log events.
    pub messages: Vec<String>,
    /// The campaign's seed.
    pub seed: u64,
    /// Calls in the sequence as first found, before shrinking.
    pub found_len: usize,
    /// Wall-clock time from the end of setup to the first sighting (before shrinking).
    pub found_after: Duration,
    /// Sequences executed before the first sighting, over all workers.
    pub found_after_sequences: u64,
    /// Whether the failure came from replaying the regression file rather than fuzzing.
    pub from_regression: bool,
    /// The regression file the failure was saved to (or replayed from).
    pub regression_file: Option<PathBuf>,
    /// Names of the campaign's accounts, shown beside their addresses in the report.
    pub labels: Labels,
    /// What shrinking it spent; `None` when nothing was shrunk (replayed from the
    /// regression file, or shown by the post-setup state).
    pub shrink: Option<ShrinkStats>,
    /// Whether the calls wait between them (harvey's environment fuzzing moved the block),
    /// and whether the violation needs that.
    pub warps: Warps,
    /// For a failed Rust property: the calls its case made on the chain with the failing
    /// inputs (`call`, `try_call`, `view`), in order, each with how it ended.
    pub case_calls: Vec<CaseCall>,
}

/// A call a property case made on the chain, and how it ended.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseCall {
    /// The call, decoded by the ABI of the contract it went to (the raw calldata as a
    /// `bytes` argument of `fallback()` when no function of it matches).
    pub call: Call,
    /// How it ended, rendered (`success`, `reverted with Error("...")`).
    pub status: String,
}

/// Whether a failing sequence moves the block between its calls, and whether its violation
/// needs that: the report says so, since a contract may be right to refuse a call after
/// time passed (an oracle's staleness check, a deadline) where a test suite never meant
/// time to pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warps {
    /// No call waits: the block never moves.
    #[default]
    None,
    /// Some call waits, but the violation shows without any wait too.
    Incidental,
    /// Some call waits, and without every wait the violation does not show.
    Needed,
}

/// One call of a failing sequence, decoded.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Call {
    /// `msg.sender`.
    pub sender: Address,
    /// The called contract's name.
    pub contract: String,
    /// The called contract's address.
    pub address: Address,
    /// The function's signature, `withdraw(uint256)`.
    pub signature: String,
    /// The function's parameter names (empty strings for unnamed ones).
    pub params: Vec<String>,
    /// The arguments.
    pub args: Vec<DynSolValue>,
    /// `msg.value`, in wei.
    pub value: U256,
    /// Time passing before the call.
    pub warp: Warp,
    /// For a contract created during the sequence (not by setup): which of the contracts of
    /// its name created so far it is, counted back from the newest (0: the newest). What a
    /// replay uses, since such an address may differ after a code change.
    pub instance: Option<u8>,
}

impl Call {
    /// The function's name: the signature up to `(`.
    pub fn function_name(&self) -> &str {
        self.signature
            .split_once('(')
            .map_or(self.signature.as_str(), |(name, _)| name)
    }
}

/// What a campaign did.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Stats {
    /// The campaign's name, first in the summary (the test's `cargo test` filter under
    /// `#[harvey::invariant]`; see [`Campaign::name`](crate::Campaign::name)).
    pub name: Option<String>,
    /// The seed of worker 0 (worker `i` uses `seed + i`).
    pub seed: u64,
    /// Worker threads.
    pub workers: u32,
    /// Sequences executed: fuzzing and regression replays (shrinking's runs are in each
    /// failure's [`Failure::shrink`]).
    pub sequences: u64,
    /// Transactions executed by those sequences.
    pub transactions: u64,
    /// Fuzzed calls `vm.assume` rejected, over all workers: not counted among the
    /// transactions (forge draws another input in their place).
    pub rejected: u64,
    /// The rejections allowed (the `max_rejects` setting), when the campaign stopped
    /// because more calls were rejected: forge's "`vm.assume` rejected too many inputs".
    pub rejected_too_many: Option<u32>,
    /// Wall-clock time from the end of setup (compiling and setup excluded) to the end of
    /// replays and fuzzing (shrinking's time is in each failure's [`Failure::shrink`]).
    pub elapsed: Duration,
    /// Distinct branch edges (JUMPI pc and direction per contract) covered.
    pub edges: usize,
    /// Corpus entries (distinct path ids of last transactions) at the end, over all workers.
    pub corpus: usize,
    /// Runs the workers kept for invariant guidance (the `invariant_guidance` setting): they
    /// brought an invariant's comparison closer to failing more often than any run before,
    /// whatever their path ids. Counted as kept, per worker: a run another worker imports
    /// and keeps counts again, and an entry later replaced stays counted.
    pub guided: u64,
    /// Runs the workers kept for a new state (the `state_novelty` setting): a transaction of
    /// theirs left a storage word of a class, or a combination of classes, no run had left,
    /// whatever their path ids. Counted per worker, as [`Stats::guided`].
    pub novel: u64,
    /// Runs the workers kept for a condition state (the `condition_states` setting): their
    /// last call's conditions on storage compared their operands otherwise (zero, equal,
    /// apart) than every run on its path had. Counted per worker, as [`Stats::guided`].
    pub conditioned: u64,
    /// Runs the workers kept for revert guidance (the `revert_guidance` setting): a call of
    /// theirs to a function that had always reverted failed at a `require` no call of it
    /// had reached, or nearer to passing one, whatever their path ids. Counted per worker,
    /// as [`Stats::guided`].
    pub unreverting: u64,
    /// Sequences replayed from the regression file.
    pub replayed: usize,
    /// Per fuzzed function: calls and reverts.
    pub functions: Vec<FunctionStats>,
    /// What input prediction did (all zero when it is off).
    pub predictions: PredictionStats,
    /// What sequence fuzzing did: lengths, aggressive runs, state-dependent functions.
    pub sequencing: SequenceStats,
    /// Every target (with `targets` configured): whether and when fuzzing reached it.
    pub targets: Vec<TargetStats>,
    /// What the lookahead analysis did (all zero without targets or with it off).
    pub lookahead: LookaheadStats,
    /// The senders of fuzzed transactions.
    pub senders: Vec<Address>,
    /// Names of the campaign's accounts, shown beside their addresses in the summary.
    pub labels: Labels,
    /// Where the fuzzing workers' time went.
    pub time: TimeSplit,
    /// The corpus kept between runs, with `corpus = "dir"`.
    pub kept_corpus: Option<KeptCorpus>,
    /// Which Solidity lines fuzzing executed, with `lcov = "file"`.
    pub lines: Option<LineCoverage>,
    /// The memory bounds a long campaign hit.
    pub bounds: BoundsHit,
    /// The campaign's progress over its time, for plots: sampled while fuzzing (ever less
    /// often as it runs long, so that at most [`Progress::TIMELINE_POINTS`] are kept), the
    /// last point at the end.
    pub timeline: Vec<Progress>,
}

/// The bounds that keep a long campaign's memory flat, and how often each was hit (all zero
/// in a campaign that never reached them): the summary says so when one was.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BoundsHit {
    /// Corpus entries replaced because a worker's corpus was full.
    pub corpus_evicted: u64,
    /// Times a worker's remembered write patterns (sequence pools) were full and forgotten.
    pub patterns_forgotten: u64,
    /// Times the lookahead analysis' remembered verdicts were full and forgotten.
    pub verdicts_forgotten: u64,
    /// Old corpus entries the workers' exchange dropped (with several workers).
    pub exchange_dropped: u64,
    /// Times input prediction's remembered failures (per metric site and functions
    /// called) were full and forgotten.
    pub misses_forgotten: u64,
}

impl BoundsHit {
    /// Adds `other`'s counts.
    pub(crate) fn add(&mut self, other: BoundsHit) {
        self.corpus_evicted += other.corpus_evicted;
        self.patterns_forgotten += other.patterns_forgotten;
        self.verdicts_forgotten += other.verdicts_forgotten;
        self.exchange_dropped += other.exchange_dropped;
        self.misses_forgotten += other.misses_forgotten;
    }

    /// Whether any bound was hit.
    pub fn any(&self) -> bool {
        *self != BoundsHit::default()
    }
}

/// How often fuzzing executed each Solidity line: per source file (its path as compiled,
/// relative to the project's root), every line some runtime instruction maps to of a
/// contract setup deployed, of one fuzzed transactions may create (created or not) and of
/// any other contract they ran, with the times fuzzed transactions entered the most-entered
/// block holding it (0: never executed; counts saturate at `u64::MAX`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LineCoverage {
    /// Hit counts by file and line.
    pub files: std::collections::BTreeMap<PathBuf, std::collections::BTreeMap<u32, u64>>,
    /// The never executed lines of `files` that the static analysis proved no call can
    /// reach (every block holding them, in every contract they were compiled into), by file.
    pub unreachable: std::collections::BTreeMap<PathBuf, std::collections::BTreeSet<u32>>,
}

/// A corpus kept between runs (`corpus = "dir"`, `HARVEY_CORPUS`): what the campaign loaded
/// from its directory and saved back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct KeptCorpus {
    /// The test's directory in the corpus directory.
    pub dir: std::path::PathBuf,
    /// Saved sequences run before fuzzing.
    pub loaded: usize,
    /// Saved sequences dropped because they no longer fit (a function, sender or argument
    /// type changed).
    pub stale: usize,
    /// Files in the directory that are not corpus files (dropped, left in place).
    pub unreadable: usize,
    /// Sequences saved after fuzzing (0 when fuzzing did not run): the fewest of the
    /// candidates that cover every edge the candidates cover.
    pub saved: usize,
    /// The candidates the saved sequences were chosen from: those loaded (that still fit)
    /// and those the workers kept.
    pub candidates: usize,
    /// The branch edges the candidates, and so the saved sequences, cover.
    pub edges: usize,
    /// Candidates minimisation's time bound (a tenth of the campaign's time, 1 to 10 s)
    /// left unrun: saved as they are, for the next run to minimise.
    pub unminimised: usize,
}

/// Where fuzzing time went, summed over the workers: running transactions in the EVM, and
/// checking the invariants and oracles after them (a slow invariant shows here). The rest
/// is the fuzzer's own work (mutation, corpus, learning). Estimated from a sample of the
/// transactions (one in [`TimeSplit::SAMPLE`]): timing every one would cost more than a
/// small call itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TimeSplit {
    /// Executing fuzzed transactions.
    pub transactions: Duration,
    /// Checking invariants and oracles after them.
    pub checks: Duration,
    /// Invariant checks run after fuzzed transactions (all of them, not a sample).
    pub invariants_checked: u64,
    /// Invariant checks skipped because nothing the transaction wrote could change the
    /// answer (the `skip_unchanged_invariants` setting).
    pub invariants_skipped: u64,
    /// EVM instructions the fuzzed transactions executed (every frame's, all of them, not a
    /// sample): what a transaction costs the EVM, apart from what harvey adds around it.
    pub instructions: u64,
}

impl TimeSplit {
    /// One transaction in this many is timed.
    pub const SAMPLE: u64 = 8;

    /// Adds `other`'s times.
    pub(crate) fn add(&mut self, other: TimeSplit) {
        self.transactions += other.transactions;
        self.checks += other.checks;
        self.invariants_checked += other.invariants_checked;
        self.invariants_skipped += other.invariants_skipped;
        self.instructions += other.instructions;
    }
}

/// What shrinking a failing sequence spent, against its own budget (a share of the
/// campaign's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShrinkStats {
    /// Calls in the sequence as found.
    pub from: usize,
    /// Calls in the shrunk sequence.
    pub to: usize,
    /// Sequences run while shrinking.
    pub runs: u64,
    /// Transactions those runs executed.
    pub transactions: u64,
    /// Wall-clock time spent shrinking.
    pub time: Duration,
    /// The runs shrinking was allowed.
    pub budget_runs: u64,
    /// The time shrinking was allowed.
    pub budget_time: Duration,
    /// Whether the budget ran out before shrinking finished (the sequence may shrink
    /// further).
    pub exhausted: bool,
}

/// The lookahead analysis' record in a targeted campaign.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LookaheadStats {
    /// Which of ICSE'20's configurations steered.
    pub steering: Steering,
    /// New corpus entries analysed (in configuration C: given whole-path ids).
    pub analyses: u64,
    /// Analyses that found a split point with no target ahead (the rest use the whole
    /// path as their prefix).
    pub bounded: u64,
    /// Distinct lookahead ids (the largest worker's count).
    pub ids: usize,
    /// Time spent in the analysis, re-running the entry included (summed over workers).
    pub time: Duration,
}

impl LookaheadStats {
    /// Adds another worker's record.
    pub(crate) fn add(&mut self, other: LookaheadStats) {
        self.analyses += other.analyses;
        self.bounded += other.bounded;
        self.ids = self.ids.max(other.ids);
        self.time += other.time;
    }
}

/// One target: a changed (or named) source line in one contract's code.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TargetStats {
    /// `file:line`.
    pub location: String,
    /// The contract whose code holds the line's instructions.
    pub contract: String,
    /// The first fuzzing run that reached it; `None` if none did.
    pub reached: Option<TargetReach>,
}

impl TargetStats {
    /// How reports name the target: `file:line (Contract)`.
    pub fn label(&self) -> String {
        format!("{} ({})", self.location, self.contract)
    }
}

/// How a target was first reached.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TargetReach {
    /// Sequences run before, over all workers.
    pub after_sequences: u64,
    /// Time from the end of setup.
    pub after: Duration,
    /// The calls of that run, up to the one that reached the target (not shrunk).
    pub calls: Vec<Call>,
}

/// Demand-driven sequence fuzzing's record (HARVEY §5).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SequenceStats {
    /// Regular fuzzing runs by sequence length: `runs_by_length[n]` sequences of `n`
    /// transactions (aggressive runs, replays and shrinking not counted).
    pub runs_by_length: Vec<u64>,
    /// Corpus entries at the end by sequence length, indexed the same way (all workers).
    pub corpus_by_length: Vec<u64>,
    /// Runs that fuzzed storage directly before their last transaction.
    pub aggressive_runs: u64,
    /// Random walks run (the `walks` setting).
    pub walks: u64,
    /// Transactions random walks ran (a share of [`Stats::transactions`]).
    pub walk_transactions: u64,
    /// The functions whose sequences may be longer than one transaction, and why (with
    /// demand-driven fuzzing off every function's may, and this lists what was learned).
    pub state_dependent: Vec<StateDependent>,
    /// Mask-guided mutation's record.
    pub masks: MaskStats,
    /// Whether every sequence was one call because no fuzzed call can change what a later
    /// one sees (the code of the fuzzed contracts writes nothing; the depth setting is then
    /// moot): a harness of stateless functions.
    pub independent_calls: bool,
}

/// Mask-guided mutation's record (MuFuzz §IV-B): how many corpus entries were probed and
/// how many of their inputs the probes held.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MaskStats {
    /// Corpus entries that got a mask.
    pub entries: u64,
    /// Inputs probed (one run each).
    pub probed: u64,
    /// Probed inputs whose probe left the entry's path: mutations leave them alone.
    pub held: u64,
}

impl MaskStats {
    /// Adds another worker's counts.
    pub(crate) fn add(&mut self, other: MaskStats) {
        self.entries += other.entries;
        self.probed += other.probed;
        self.held += other.held;
    }
}

/// A function whose coverage depends on state, so sequences ending in it grow.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StateDependent {
    /// The contract's name.
    pub contract: String,
    /// The function's signature.
    pub signature: String,
    /// How that was learned.
    pub reason: Dependence,
}

/// Why a function's coverage counts as depending on state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dependence {
    /// An aggressive run, with the storage it reads fuzzed directly, took a path no regular
    /// run had taken.
    Aggressive,
    /// It changes state, and the campaign's Rust invariants read state after every
    /// transaction: an earlier transaction may set up what makes this one break them.
    Invariants,
    /// A function of a contract fuzzed transactions create: it can only be called after
    /// the transaction that creates one.
    Created,
}

impl SequenceStats {
    /// Counts one sequence of `length` transactions into `counts` (indexed by length).
    pub(crate) fn count_length(counts: &mut Vec<u64>, length: usize) {
        if counts.len() <= length {
            counts.resize(length + 1, 0);
        }
        counts[length] += 1;
    }

    /// Adds `other`'s counts by length into `totals`.
    pub(crate) fn add_lengths(totals: &mut Vec<u64>, other: &[u64]) {
        if totals.len() < other.len() {
            totals.resize(other.len(), 0);
        }
        for (total, more) in totals.iter_mut().zip(other) {
            *total += more;
        }
    }
}

/// Input prediction's record: how often a predicted input drove its cost metric to zero.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PredictionStats {
    /// Predicted inputs run (every secant step counts).
    pub inputs: u64,
    /// Predicted inputs whose chosen metric reached zero (the branch flipped, or the
    /// arbitrary slot was written).
    pub minimized: u64,
    /// Prediction chains started (first secant steps).
    pub chains: u64,
    /// Chains whose first step already minimized the metric (HARVEY reports ~99%).
    pub one_shot: u64,
    /// Steps chained predictions took: sequences whose last call a prediction satisfied
    /// after completing or extending the step before.
    pub chained_steps: u64,
    /// Joint predictions tried (several inputs of a call moved together).
    pub joint: u64,
    /// Joint predictions that flipped their branch.
    pub joint_flipped: u64,
    /// Sequences joint predictions ran (probes and proposals).
    pub joint_runs: u64,
    /// Path conditions handed to z3 (the solver-backed step).
    pub solver_queries: u64,
    /// Of those, the ones z3 answered with argument words.
    pub solver_models: u64,
    /// Answers whose run flipped the wanted branch.
    pub solver_flipped: u64,
    /// Time spent waiting for z3, in microseconds.
    pub solver_micros: u64,
    /// Queries z3 had not answered by harvey's wall-clock bound (z3 killed, a fresh one
    /// started): each makes the run depend on the machine's load.
    pub solver_abandoned: u64,
    /// Why the solver-backed step stopped (z3 missing, exited, answered garbage or
    /// nothing), when it did; the campaign went on without it.
    pub solver_failure: Option<String>,
}

impl PredictionStats {
    /// Counts a run of a predicted input at secant step `step` whose metric now costs
    /// `cost` (`None`: not evaluated).
    pub(crate) fn count(&mut self, step: u32, cost: Option<U256>) {
        self.inputs += 1;
        let minimized = cost.is_some_and(|c| c.is_zero());
        self.minimized += u64::from(minimized);
        if step == 1 {
            self.chains += 1;
            self.one_shot += u64::from(minimized);
        }
    }

    /// Adds another worker's counts.
    pub(crate) fn add(&mut self, other: PredictionStats) {
        self.inputs += other.inputs;
        self.minimized += other.minimized;
        self.chains += other.chains;
        self.one_shot += other.one_shot;
        self.chained_steps += other.chained_steps;
        self.joint += other.joint;
        self.joint_flipped += other.joint_flipped;
        self.joint_runs += other.joint_runs;
        self.solver_queries += other.solver_queries;
        self.solver_models += other.solver_models;
        self.solver_flipped += other.solver_flipped;
        self.solver_micros += other.solver_micros;
        self.solver_abandoned += other.solver_abandoned;
        if self.solver_failure.is_none() {
            self.solver_failure = other.solver_failure;
        }
    }
}

impl Stats {
    /// Transactions per second of wall-clock time.
    pub fn execs_per_sec(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            self.transactions as f64 / secs
        } else {
            0.0
        }
    }
}

/// Calls after which the summary flags a function that reverted every time as one that
/// "always reverts". Fewer mostly mean a campaign that stopped early on a violation: a
/// function that succeeds on 5% of its calls reverts on all of its first 4 calls 81% of
/// the time, but on all of its first 100 only 0.6% of the time.
pub const ALWAYS_REVERTS_AFTER: u64 = 100;

/// Calls and reverts of one fuzzed function.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FunctionStats {
    /// The contract's name.
    pub contract: String,
    /// Where setup deployed the contract; `None` for contracts fuzzed transactions created
    /// (each run creates its own).
    pub address: Option<Address>,
    /// The function's signature.
    pub signature: String,
    /// Times it was called.
    pub calls: u64,
    /// Times it reverted or halted (or could not be sent: value above the balance).
    pub reverts: u64,
    /// Why it reverted, by cause (Medusa's revert report); counted only for the HTML report
    /// (`report = "dir"`), empty otherwise.
    pub revert_causes: RevertCauses,
}

/// Why one function's calls reverted: each cause (a revert reason without its arguments'
/// values, a halt, a value the sender could not pay) with its count. The first
/// [`RevertCauses::KEPT`] distinct causes are listed; reverts of later ones are counted
/// apart, so that a function reverting with ever new messages cannot grow it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RevertCauses {
    /// Causes with their counts, in the order first seen.
    pub listed: Vec<(String, u64)>,
    /// Reverts whose cause came after [`RevertCauses::KEPT`] others.
    pub unlisted: u64,
}

impl RevertCauses {
    /// Distinct causes listed at most.
    pub const KEPT: usize = 8;

    /// Counts `n` reverts of `cause`.
    pub fn add(&mut self, cause: &str, n: u64) {
        if let Some((_, count)) = self.listed.iter_mut().find(|(c, _)| c == cause) {
            *count = count.saturating_add(n);
        } else if self.listed.len() < Self::KEPT {
            self.listed.push((cause.to_string(), n));
        } else {
            self.unlisted = self.unlisted.saturating_add(n);
        }
    }

    /// Adds `other`'s counts (another worker's) to these.
    pub fn merge(&mut self, other: &RevertCauses) {
        for (cause, n) in &other.listed {
            self.add(cause, *n);
        }
        self.unlisted = self.unlisted.saturating_add(other.unlisted);
    }

    /// The listed causes, most frequent first (ties in the order first seen).
    pub fn most_frequent(&self) -> Vec<(&str, u64)> {
        let mut top: Vec<(&str, u64)> = self.listed.iter().map(|(c, n)| (c.as_str(), *n)).collect();
        top.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
        top
    }
}

/// A campaign's progress, as reported while it runs (at most about once a second) and
/// sampled into [`Stats::timeline`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Progress {
    /// Time since the campaign started.
    pub elapsed: Duration,
    /// Sequences run so far, over all workers.
    pub sequences: u64,
    /// Transactions run so far.
    pub transactions: u64,
    /// Edges covered (the best worker's count).
    pub edges: usize,
    /// Corpus entries (the largest worker corpus).
    pub corpus: usize,
    /// Distinct violations found so far (with `fail_fast = false` the campaign goes on).
    pub violations: usize,
}

impl Progress {
    /// Points [`Stats::timeline`] keeps at most.
    pub const TIMELINE_POINTS: usize = 256;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revert_causes_are_bounded_and_merge_by_cause() {
        let mut first = RevertCauses::default();
        for i in 0..RevertCauses::KEPT {
            first.add(&format!("Error(\"{i}\")"), 1);
        }
        first.add("Error(\"0\")", 2);
        first.add("a new cause", 5);
        assert_eq!(first.listed.len(), RevertCauses::KEPT);
        assert_eq!(
            first.unlisted, 5,
            "a cause past the bound is counted, not listed"
        );
        let mut second = RevertCauses::default();
        second.add("Error(\"1\")", u64::MAX);
        second.add("Error(\"7\")", 4);
        first.merge(&second);
        let top = first.most_frequent();
        assert_eq!(top[0], ("Error(\"1\")", u64::MAX), "saturated, not wrapped");
        assert_eq!(top[1], ("Error(\"7\")", 5));
        assert_eq!(top[2], ("Error(\"0\")", 3));
    }
}
