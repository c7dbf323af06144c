//! The input-prediction stage (HARVEY §4): records the cost metrics of every regular run,
//! starts a prediction chain from a mutant that changed one numeric leaf (the secant method
//! of `secant`), follows each chain step by step, and gives up on metrics whose chains keep
//! failing. Present only when prediction is on.

pub(super) mod cost;
pub(super) mod joint;
pub(super) mod secant;
#[cfg(feature = "solver")]
pub(super) mod solver;

use std::hash::Hasher;
use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alloy_primitives::{Address, U256};
use rand::rngs::StdRng;

use crate::engine::executor::{EdgeKey, RunStart, Seen, Sink};
use crate::engine::input::{Change, Sequence};
use crate::engine::surface::Surface;
use crate::hash::{FastMap, FastSet, KeyHasher};
use crate::observe::Trace;
use crate::observe::symbolic::PathCondition;
use crate::oracle::arbitrary_slot;
use crate::outcome::PredictionStats;
use cost::{Cost, CostKey, CostKind, Occurrences, ParentCosts};
use joint::Relation;
use secant::Prediction;

/// How long harvey waits for z3's answers to one query of the solver-backed step before it
/// abandons the query, kills z3 and starts a fresh one for the next: twice z3's own time
/// limit (`-t`), which z3 keeps on most queries and ignores on some (nonlinear terms over
/// wrapping words). Never past the campaign's deadline.
pub(crate) const SOLVER_QUERY_WALL: Duration = Duration::from_secs(10);

/// The program the solver-backed step runs as z3, and where it copies every command it
/// sends (`HARVEY_Z3_LOG`), shared by the workers' z3s. Read only with the `solver` feature.
#[derive(Clone)]
#[cfg_attr(not(feature = "solver"), allow(dead_code))]
pub(crate) struct Z3Program {
    pub(crate) program: PathBuf,
    pub(crate) log: Option<Arc<Mutex<dyn std::io::Write + Send>>>,
}

/// Failed prediction chains after which a metric is no longer predicted on: its branch
/// is out of the secant method's reach (a hash, a narrow input's overflow check), and the
/// runs are better spent fuzzing. The counts halve whenever the corpus gains an entry: a
/// new path can mean a new state before the branch, in which prediction may work (an
/// index check that fails against a short array succeeds once the array is long); and
/// every [`DECAY_RUNS`] regular runs without one, so that a campaign whose corpus stopped
/// growing (the steps of a chain all take the same path) does not stop predicting.
const GIVE_UP_AFTER: u32 = 64;

/// Regular runs without a new corpus entry after which the failure counts halve.
const DECAY_RUNS: u64 = 16_384;

/// Solver-backed steps per metric site, at most: a path condition z3 could not satisfy, or
/// whose answer did not flip the branch, is rarely satisfied from the same site later.
#[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
const SOLVER_TRIES: u8 = 2;

/// Secant chains failed at a metric site after which the site has resisted prediction
/// long enough to ask the solver (without waiting for joint prediction, which only the
/// rare picks of a corpus entry start): a quadratic from a far start, a residue, a bitmask.
#[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
const STALLED_AFTER: u32 = 2;

/// The solver's budget, for the steps stalled chains ask for: [`STALL_STEPS_AT_START`]
/// units, and one more per [`RUNS_PER_STALL_STEP`] regular runs. A query z3 answers (or
/// refutes) in milliseconds costs a unit; one that spends z3's whole `rlimit` (about half a
/// second) costs [`GAVE_UP_COST`]. A run takes tens of microseconds, so z3 takes a few
/// percent of a campaign at most this way. Counted in runs and answers, not time, so that
/// a seed's campaign stays the same campaign.
#[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
const STALL_STEPS_AT_START: u64 = 8;
#[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
const RUNS_PER_STALL_STEP: u64 = 2_000;
#[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
const GAVE_UP_COST: u64 = 64;

/// What a solver-backed step got from z3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
pub(crate) enum Asked {
    /// Argument words, run: whether the run flipped the branch.
    Answered { flipped: bool },
    /// No words: unsatisfiable, not encodable, or (`gave_up`) z3 spent its budget.
    Unanswered { gave_up: bool },
    /// No answer by harvey's wall-clock bound: z3 was killed. Costs what spending the
    /// budget costs.
    Abandoned,
}

/// Metric sites whose misses are remembered; past it they are all forgotten (a long
/// campaign meets ever new sequences of functions).
const MISSED_SITES: usize = 65_536;

/// Where a metric is evaluated, whatever the occurrence and arguments, in a sequence of
/// which functions: the unit chains succeed or fail on. The functions before count because
/// they make the state: storage written past an array's end is out of reach after a
/// `push` and in reach after a `pop`, and give-ups learned in one must not hold in the
/// other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct MetricSite {
    code: Address,
    pc: u32,
    kind: CostKind,
    /// A hash of the functions the sequence calls up to the metric's transaction.
    calls: u64,
}

impl MetricSite {
    /// The site of `key` in `sequence` (a run of it evaluated `key`).
    fn of(key: &CostKey, sequence: &Sequence) -> MetricSite {
        MetricSite::at(key, &calls_up_to(sequence))
    }

    /// The site of `key` in a sequence whose [`calls_up_to`] are `calls`.
    fn at(key: &CostKey, calls: &[u64]) -> MetricSite {
        MetricSite {
            code: key.code,
            pc: key.pc,
            kind: key.kind,
            calls: calls.get(key.tx as usize).copied().unwrap_or_default(),
        }
    }
}

/// Per transaction of `sequence`: a hash of the functions called up to and including it,
/// computed once for all the metrics of a run.
fn calls_up_to(sequence: &Sequence) -> Vec<u64> {
    let mut calls = KeyHasher::default();
    sequence
        .txs
        .iter()
        .map(|tx| {
            calls.write_usize(tx.function);
            calls.finish()
        })
        .collect()
}

/// How a joint prediction ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Joint {
    /// Its branch flipped.
    Flipped,
    /// Its comparison moved with no input.
    Independent,
    /// No step flipped it.
    Missed,
    /// The campaign ended during it (a violation found failing fast, or the budget spent).
    Stopped,
}

/// Failed predictions per metric site, bounded: past [`MISSED_SITES`] sites every count is
/// forgotten.
#[derive(Debug, Default)]
struct Misses {
    counts: FastMap<MetricSite, u32>,
    /// Times the counts were full and forgotten.
    forgotten: u64,
}

impl Misses {
    /// Counts a failure against `site`.
    fn count(&mut self, site: MetricSite) {
        if self.counts.len() >= MISSED_SITES && !self.counts.contains_key(&site) {
            self.counts.clear();
            self.forgotten += 1;
        }
        let missed = self.counts.entry(site).or_insert(0);
        *missed = missed.saturating_add(1);
    }

    /// The failures counted against `key`'s site in a sequence whose [`calls_up_to`] are
    /// `calls`; `None` once it is given up.
    fn rank(&self, key: &CostKey, calls: &[u64]) -> Option<u32> {
        let missed = self
            .counts
            .get(&MetricSite::at(key, calls))
            .copied()
            .unwrap_or(0);
        (missed < GIVE_UP_AFTER).then_some(missed)
    }

    /// Halves every count.
    fn halve(&mut self) {
        for missed in self.counts.values_mut() {
            *missed /= 2;
        }
    }
}

/// One worker's input prediction.
pub(crate) struct Predictor {
    /// The cost metrics of the last regular run.
    costs: Vec<Cost>,
    /// Of the current run, the first transactions whose metrics were kept from the run
    /// before ([`RunStart::unchanged`]): not computed again.
    kept: usize,
    /// The executor's number of the last run fed, and how many of its transactions were
    /// fed (their metrics are in `costs`; a run may end early, at a violation).
    last_run: u64,
    fed: usize,
    occurrences: Occurrences,
    /// The slot of the storage-write metric, hashed once.
    arbitrary_slot: U256,
    /// Per metric site: prediction chains that ended without minimizing it.
    missed: Misses,
    /// Per metric site: joint predictions that did not flip it (counted apart: a secant
    /// chain failing on a coupled branch is what joint prediction is for).
    joint_missed: Misses,
    /// Regular runs since the failure counts last halved.
    runs_since_decay: u64,
    /// Whether joint prediction is on.
    joint: bool,
    /// The transactions whose relations the current run records, for joint prediction.
    relations_of: Option<RangeInclusive<usize>>,
    /// The relations it recorded.
    relations: Vec<Relation>,
    /// Metric sites, each with the comparison that decided it ([`Cost::compared_at`]),
    /// whose comparison moved with no input of their call: not joint targets (forgotten
    /// all at once past [`MISSED_SITES`]).
    independent: FastSet<(MetricSite, u32)>,
    relation_occurrences: Occurrences,
    /// The path condition of that transaction in the last run, when the observer followed
    /// it (for the solver-backed step).
    path_condition: PathCondition,
    /// Whether the solver-backed step is on.
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    solver: bool,
    /// Per metric site: the solver-backed steps tried (forgotten all at once past
    /// [`MISSED_SITES`]).
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    solver_tries: FastMap<MetricSite, u8>,
    /// The solver budget's units spent (see [`GAVE_UP_COST`]).
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    solver_spent: u64,
    /// Regular runs so far.
    runs: u64,
    stats: PredictionStats,
}

impl Predictor {
    /// A predictor that has predicted nothing yet; `joint` turns joint prediction on,
    /// `solver` the solver-backed step.
    pub(crate) fn new(joint: bool, solver: bool) -> Predictor {
        Predictor {
            joint,
            path_condition: PathCondition::default(),
            solver: joint && solver,
            solver_tries: FastMap::default(),
            relations_of: None,
            relations: Vec::new(),
            independent: FastSet::default(),
            relation_occurrences: Occurrences::default(),
            costs: Vec::new(),
            kept: 0,
            last_run: 0,
            fed: 0,
            occurrences: Occurrences::default(),
            arbitrary_slot: arbitrary_slot(),
            missed: Misses::default(),
            joint_missed: Misses::default(),
            runs_since_decay: 0,
            solver_spent: 0,
            runs: 0,
            stats: PredictionStats::default(),
        }
    }

    /// Whether joint prediction is on.
    pub(crate) fn joint(&self) -> bool {
        self.joint
    }

    /// Whether the solver-backed step is on.
    #[cfg(feature = "solver")]
    pub(crate) fn solver(&self) -> bool {
        self.solver
    }

    /// The cost metrics of the last regular run.
    pub(crate) fn costs(&self) -> &[Cost] {
        &self.costs
    }

    /// After running `prediction`: counts it, and returns the chain's next step, if any.
    /// A chain that ends without minimizing its metric counts against the metric.
    pub(crate) fn follow(&mut self, prediction: &Prediction) -> Option<Prediction> {
        let cost = self.costs.iter().find(|c| c.key == prediction.key).copied();
        self.stats.count(prediction.step, cost.map(|c| c.value));
        let next = secant::next(prediction, cost.as_ref());
        let minimized = cost.is_some_and(|c| c.value.is_zero());
        if next.is_none() && !minimized {
            self.missed
                .count(MetricSite::of(&prediction.key, &prediction.sequence));
        }
        next
    }

    /// The first prediction from the mutant `input` (just run) of `parent` by `change`.
    /// Prefers metrics whose chains have failed least often (some branches, like overflow
    /// checks on narrow inputs, cannot flip), then branch directions `coverage` lacks.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn first(
        &self,
        surface: &Surface,
        coverage: &FastSet<EdgeKey>,
        parent: &Sequence,
        parent_costs: &ParentCosts,
        input: &Sequence,
        change: &Change,
        rng: &mut StdRng,
    ) -> Option<Prediction> {
        let calls = calls_up_to(input);
        let preference = |key: &CostKey| match self.missed.rank(key, &calls) {
            Some(missed) => 2 * missed + u32::from(covered(coverage, key)),
            None => secant::NEVER,
        };
        secant::first(
            surface,
            parent,
            parent_costs,
            input,
            &self.costs,
            change,
            preference,
            rng,
        )
    }

    /// The branch metric of `sequence`'s last transaction (whose run evaluated `costs`)
    /// that joint prediction should try to flip, when it is on: a direction `coverage`
    /// lacks, among those failed least often, drawn uniformly; `None` when it would move
    /// fewer than two `leaves` (the secant method's one input suffices).
    pub(crate) fn joint_target(
        &self,
        coverage: &FastSet<EdgeKey>,
        sequence: &Sequence,
        costs: &[Cost],
        leaves: &[joint::Leaf],
        rng: &mut StdRng,
    ) -> Option<Cost> {
        let last = sequence.txs.len().checked_sub(1)?;
        if !self.joint || leaves.len() < 2 {
            return None;
        }
        let calls = calls_up_to(sequence);
        let ranked = || {
            costs.iter().filter_map(|c| {
                let site = MetricSite::at(&c.key, &calls);
                let open = c.key.tx as usize == last
                    && c.key.transaction_branch()
                    && !c.value.is_zero()
                    && !covered(coverage, &c.key)
                    && !self.independent.contains(&(site, c.compared_at));
                open.then(|| Some((*c, self.joint_missed.rank(&c.key, &calls)?)))
                    .flatten()
            })
        };
        secant::draw_lowest(ranked, rng)
    }

    /// Counts a joint prediction on `target` in `sequence` that ran `runs` sequences: a
    /// miss counts against the metric's site, as a failed chain does; a comparison that
    /// moved with no input is not a joint target again at that site when the same
    /// comparison decides it (in `approve; transferFrom` the end of a conjunction is
    /// decided by a check on addresses when the spender pays itself, and by the amount
    /// when it pays a third party).
    pub(crate) fn joint_done(
        &mut self,
        target: &Cost,
        sequence: &Sequence,
        result: Joint,
        runs: u64,
    ) {
        self.stats.joint += 1;
        self.stats.joint_flipped += u64::from(result == Joint::Flipped);
        self.stats.joint_runs += runs;
        let site = MetricSite::of(&target.key, sequence);
        match result {
            Joint::Independent => {
                if self.independent.len() >= MISSED_SITES {
                    self.independent.clear();
                }
                self.independent.insert((site, target.compared_at));
            }
            Joint::Missed => self.joint_missed.count(site),
            Joint::Flipped | Joint::Stopped => {}
        }
    }

    /// Records the relations of transactions `txs` in the runs that follow (joint
    /// prediction), or stops recording (`None`).
    pub(crate) fn record_relations(&mut self, txs: Option<RangeInclusive<usize>>) {
        self.relations_of = txs;
    }

    /// The path condition of the transaction whose relations the last run recorded (empty
    /// unless the observer followed it).
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    pub(crate) fn take_path_condition(&mut self) -> PathCondition {
        std::mem::take(&mut self.path_condition)
    }

    /// Whether a solver-backed step on `key` in `sequence` is wanted (the step is on and
    /// the site has not had its tries); counts it as tried.
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    pub(crate) fn solver_wanted(&mut self, key: &CostKey, sequence: &Sequence) -> bool {
        if !self.solver || !key.transaction_branch() {
            return false;
        }
        // Joint misses and descents ask without `stalled`, limited by the tries per site
        // alone, while queries come back in milliseconds. Once one was abandoned (seconds
        // of a z3 that ignores its limits), the budget binds every query.
        if self.stats.solver_abandoned > 0 && self.solver_spent >= self.solver_budget() {
            return false;
        }
        if self.solver_tries.len() >= MISSED_SITES {
            self.solver_tries.clear();
        }
        let tries = self
            .solver_tries
            .entry(MetricSite::of(key, sequence))
            .or_default();
        // Asked again and again (joint misses ask without `stalled`): a count that
        // wrapped would give the site its tries back.
        *tries = tries.saturating_add(1);
        *tries <= SOLVER_TRIES
    }

    /// Whether a secant chain on `key` in `sequence` that just ended without minimizing it
    /// has stalled there (its site failed [`STALLED_AFTER`] times) and should go to the
    /// solver: the step is on, the site has tries left and the budget is not spent.
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    pub(crate) fn stalled(&self, key: &CostKey, sequence: &Sequence) -> bool {
        if !self.solver || !key.transaction_branch() {
            return false;
        }
        let site = MetricSite::of(key, sequence);
        let stalled = self.missed.counts.get(&site).copied().unwrap_or(0) >= STALLED_AFTER;
        let tried = self.solver_tries.get(&site).copied().unwrap_or(0) >= SOLVER_TRIES;
        stalled && !tried && self.solver_spent < self.solver_budget()
    }

    /// The solver's budget so far, in units (see [`GAVE_UP_COST`]).
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    fn solver_budget(&self) -> u64 {
        STALL_STEPS_AT_START + self.runs / RUNS_PER_STALL_STEP
    }

    /// The first branch direction after metric `after` in the last regular run, of the
    /// same transaction, that the run did not take and `coverage` lacks: in a conjunction,
    /// the conjunct that a flip of the one before exposed.
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    pub(crate) fn next_open(
        &self,
        coverage: &FastSet<EdgeKey>,
        after: &CostKey,
    ) -> Option<CostKey> {
        let at = self.costs.iter().position(|c| c.key == *after)?;
        self.costs[at + 1..]
            .iter()
            .find(|c| {
                c.key.tx == after.tx
                    && c.key.transaction_branch()
                    && !c.value.is_zero()
                    && !covered(coverage, &c.key)
            })
            .map(|c| c.key)
    }

    /// Counts a solver-backed step (what z3 said, and the time it took) against the stats
    /// and the solver's budget.
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    pub(crate) fn solver_done(&mut self, asked: Asked, micros: u64) {
        self.stats.solver_queries += 1;
        self.stats.solver_micros += micros;
        self.solver_spent += match asked {
            Asked::Answered { flipped } => {
                self.stats.solver_models += 1;
                self.stats.solver_flipped += u64::from(flipped);
                1
            }
            Asked::Unanswered { gave_up: false } => 1,
            Asked::Unanswered { gave_up: true } => GAVE_UP_COST,
            Asked::Abandoned => {
                self.stats.solver_abandoned += 1;
                GAVE_UP_COST
            }
        };
    }

    /// z3 could not be started, or failed in a way a fresh one would too (`why`): no more
    /// solver-backed steps, and the campaign warns with `why`.
    #[cfg_attr(not(feature = "solver"), allow(dead_code))] // the solver-backed step's alone
    pub(crate) fn solver_unavailable(&mut self, why: String) {
        self.solver = false;
        self.stats.solver_failure = Some(why);
    }

    /// The relations the last run recorded.
    pub(crate) fn take_relations(&mut self) -> Vec<Relation> {
        std::mem::take(&mut self.relations)
    }

    /// Whether the last run (of `prediction`) drove the prediction's metric to zero: its
    /// comparison now goes the way the chain aimed at.
    pub(crate) fn satisfied(&self, prediction: &Prediction) -> bool {
        self.minimized(&prediction.key)
    }

    /// Whether the last run evaluated metric `key` at zero.
    pub(crate) fn minimized(&self, key: &CostKey) -> bool {
        self.costs
            .iter()
            .any(|c| c.key == *key && c.value.is_zero())
    }

    /// Counts a step chained predictions took.
    pub(crate) fn chained_step(&mut self) {
        self.stats.chained_steps += 1;
    }

    /// The corpus gained an entry: a new state may put given-up metrics back in reach.
    pub(crate) fn corpus_grew(&mut self) {
        self.runs_since_decay = 0;
        self.missed.halve();
        self.joint_missed.halve();
    }

    /// How often the remembered misses were full and forgotten.
    pub(crate) fn sites_forgotten(&self) -> u64 {
        self.missed.forgotten + self.joint_missed.forgotten
    }

    /// What it predicted and how well.
    pub(crate) fn stats(&self) -> PredictionStats {
        self.stats.clone()
    }
}

impl Sink for Predictor {
    fn start(&mut self, _sequence: &Sequence, start: RunStart) {
        // The metrics are in transaction order: those of the unchanged transactions (and of
        // the checks after them) come first.
        self.kept = if start.follows(self.last_run) {
            start.unchanged.min(self.fed)
        } else {
            0
        };
        self.last_run = start.run;
        self.fed = self.kept;
        let end = (self.costs).partition_point(|c| (c.key.tx as usize) < self.kept);
        self.costs.truncate(end);
        self.relations.clear();
        self.runs_since_decay += 1;
        self.runs += 1;
        if self.runs_since_decay >= DECAY_RUNS {
            self.corpus_grew();
        }
    }

    fn transaction(&mut self, seen: &Seen<'_>) {
        self.fed = seen.index + 1;
        if seen.index >= self.kept {
            cost::costs_of(
                seen.trace,
                seen.index as u32,
                self.arbitrary_slot,
                &mut self.occurrences,
                &mut self.costs,
            );
        } else {
            #[cfg(all(debug_assertions, feature = "internals"))]
            self.check_kept(seen);
        }
        if self
            .relations_of
            .as_ref()
            .is_some_and(|txs| txs.contains(&seen.index))
        {
            joint::record(
                seen.trace,
                seen.index as u32,
                &mut self.relation_occurrences,
                &mut self.relations,
            );
            self.path_condition.clone_from(seen.trace.path_condition());
        }
    }

    fn refused(&mut self, index: usize) {
        self.fed = index + 1;
    }

    fn checked(&mut self, index: usize, trace: &Trace) {
        if index >= self.kept {
            cost::checked_costs_of(trace, index as u32, &mut self.occurrences, &mut self.costs);
        }
    }
}

impl Predictor {
    /// In harvey's own tests: that the metrics kept for the unchanged transaction `seen`
    /// are the ones its trace gives again (the executor's promise that it ran as before).
    #[cfg(all(debug_assertions, feature = "internals"))]
    fn check_kept(&mut self, seen: &Seen<'_>) {
        let mut again = Vec::new();
        let tx = seen.index as u32;
        cost::costs_of(
            seen.trace,
            tx,
            self.arbitrary_slot,
            &mut self.occurrences,
            &mut again,
        );
        let kept = (self.costs.iter()).filter(|c| c.key.tx == tx && !c.key.checked);
        assert!(
            kept.eq(again.iter()),
            "the metrics kept for unchanged transaction {tx} differ from its trace's"
        );
    }
}

/// Whether `coverage` has the branch direction metric `key` measures the distance to.
fn covered(coverage: &FastSet<EdgeKey>, key: &CostKey) -> bool {
    let edge = |taken| EdgeKey {
        code: key.code,
        pc: key.pc,
        taken,
    };
    match key.kind {
        CostKind::Jump => coverage.contains(&edge(true)),
        CostKind::Fall => coverage.contains(&edge(false)),
        CostKind::Store => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::input::TxInput;
    use crate::observe::{CmpOp, Comparison};

    fn key(tx: u32) -> CostKey {
        CostKey {
            tx,
            code: Address::with_last_byte(1),
            pc: 7,
            kind: CostKind::Store,
            nth: 0,
            checked: false,
        }
    }

    fn calls(functions: &[usize]) -> Sequence {
        Sequence {
            txs: functions
                .iter()
                .map(|&f| TxInput::of(f, Vec::new()))
                .collect(),
        }
    }

    #[test]
    fn a_metric_site_is_told_apart_by_the_functions_called_up_to_it() {
        // `pop(); write(i)` and `push(x); write(i)`: the same SSTORE in other states.
        let after_pop = MetricSite::of(&key(1), &calls(&[0, 2]));
        let after_push = MetricSite::of(&key(1), &calls(&[1, 2]));
        assert_ne!(after_pop, after_push);
        // Arguments and what follows the metric's transaction do not matter.
        let mut other_args = calls(&[0, 2, 1]);
        other_args.txs[0].sender = 2;
        assert_eq!(after_pop, MetricSite::of(&key(1), &other_args));
    }

    #[test]
    fn a_branch_no_input_moved_is_no_joint_target_while_the_same_comparison_decides_it() {
        use rand::SeedableRng;
        let mut predictor = Predictor::new(true, false);
        let sequence = calls(&[0, 1]);
        let branch = |compared_at| Cost {
            key: CostKey {
                kind: CostKind::Jump,
                ..key(1)
            },
            value: U256::from(5),
            residual: None,
            xor: None,
            compared_at,
        };
        let leaves = [joint::Leaf::Value { tx: 0 }, joint::Leaf::Value { tx: 1 }];
        let coverage = FastSet::default();
        let mut rng = StdRng::seed_from_u64(1);
        let mut target = |predictor: &Predictor, cost: Cost, leaves: &[joint::Leaf]| {
            predictor.joint_target(&coverage, &sequence, &[cost], leaves, &mut rng)
        };
        assert_eq!(target(&predictor, branch(3), &leaves), Some(branch(3)));
        assert_eq!(
            target(&predictor, branch(3), &leaves[..1]),
            None,
            "one leaf"
        );
        predictor.joint_done(&branch(3), &sequence, Joint::Independent, 3);
        assert_eq!(target(&predictor, branch(3), &leaves), None);
        // The same JUMPI decided by another comparison (the conjunct before it held).
        assert_eq!(target(&predictor, branch(4), &leaves), Some(branch(4)));
    }

    fn branch(nth: u32, kind: CostKind, value: u64) -> Cost {
        Cost {
            key: CostKey {
                kind,
                nth,
                pc: 7 + nth,
                ..key(0)
            },
            value: U256::from(value),
            residual: None,
            xor: None,
            compared_at: 0,
        }
    }

    #[test]
    fn a_site_stalls_after_two_failed_chains_while_tries_and_the_run_budget_last() {
        let jump = CostKey {
            kind: CostKind::Jump,
            ..key(0)
        };
        let sequence = calls(&[0]);
        let site = MetricSite::of(&jump, &sequence);
        let mut off = Predictor::new(true, false);
        off.missed.count(site);
        off.missed.count(site);
        assert!(!off.stalled(&jump, &sequence), "the solver is off");
        let mut predictor = Predictor::new(true, true);
        predictor.missed.count(site);
        assert!(!predictor.stalled(&jump, &sequence), "one failure");
        predictor.missed.count(site);
        assert!(predictor.stalled(&jump, &sequence));
        assert!(!predictor.stalled(&key(0), &sequence), "no storage metric");
        // The site's tries spent: no more.
        for _ in 0..SOLVER_TRIES {
            assert!(predictor.solver_wanted(&jump, &sequence));
        }
        assert!(!predictor.stalled(&jump, &sequence));
        // However often it is asked again, the site's tries stay spent.
        for _ in 0..300 {
            assert!(!predictor.solver_wanted(&jump, &sequence));
        }
        // Every step draws on the budget: 8 units at the start, then one per 2,000 runs;
        // a query z3 gave up on costs 64.
        let stall = |predictor: &mut Predictor, f: usize| {
            let other = calls(&[f]);
            let site = MetricSite::of(&jump, &other);
            predictor.missed.count(site);
            predictor.missed.count(site);
            predictor.stalled(&jump, &other)
        };
        for f in 0..STALL_STEPS_AT_START as usize {
            assert!(stall(&mut predictor, 1), "step {f}");
            predictor.solver_done(Asked::Unanswered { gave_up: false }, 10);
        }
        assert!(!stall(&mut predictor, 2), "budget spent");
        for _ in 0..RUNS_PER_STALL_STEP {
            predictor.start(&sequence, RunStart::default());
        }
        assert!(stall(&mut predictor, 3));
        predictor.solver_done(Asked::Unanswered { gave_up: true }, 500_000);
        for _ in 0..(GAVE_UP_COST - 1) * RUNS_PER_STALL_STEP {
            predictor.start(&sequence, RunStart::default());
        }
        assert!(!stall(&mut predictor, 4), "one unit short");
        for _ in 0..RUNS_PER_STALL_STEP {
            predictor.start(&sequence, RunStart::default());
        }
        assert!(stall(&mut predictor, 5));
        predictor.solver_done(Asked::Answered { flipped: true }, 10);
        let stats = predictor.stats();
        assert_eq!(
            (
                stats.solver_queries,
                stats.solver_models,
                stats.solver_flipped
            ),
            (10, 1, 1)
        );
    }

    /// A joint miss asks for the solver without the budget; once a query was abandoned on
    /// the wall clock, the budget binds it too, until the runs pay the abandoned query off.
    #[test]
    fn an_abandoned_query_makes_the_budget_bind_every_query() {
        let jump = CostKey {
            kind: CostKind::Jump,
            ..key(0)
        };
        let mut predictor = Predictor::new(true, true);
        let site = |f: usize| calls(&[f]);
        for f in 0..(STALL_STEPS_AT_START as usize + 4) {
            assert!(
                predictor.solver_wanted(&jump, &site(f)),
                "budget not binding: {f}"
            );
            predictor.solver_done(Asked::Answered { flipped: false }, 10);
        }
        predictor.solver_done(Asked::Abandoned, 10_000_000);
        assert_eq!(predictor.stats().solver_abandoned, 1);
        assert!(!predictor.solver_wanted(&jump, &site(100)), "budget spent");
        let spent = STALL_STEPS_AT_START + 4 + GAVE_UP_COST;
        for _ in 0..(spent - STALL_STEPS_AT_START + 1) * RUNS_PER_STALL_STEP {
            predictor.start(&site(0), RunStart::default());
        }
        assert!(predictor.solver_wanted(&jump, &site(101)), "paid off");
    }

    #[test]
    fn the_next_open_branch_is_the_first_later_direction_not_taken_and_not_covered() {
        let mut predictor = Predictor::new(true, true);
        // A conjunction's first conjunct just flipped (its jump at zero); the second
        // conjunct (nth 1) falls through; a storage metric in between is no branch.
        predictor.costs = vec![
            branch(0, CostKind::Jump, 0),
            branch(0, CostKind::Fall, 3),
            Cost {
                key: CostKey { nth: 5, ..key(0) },
                ..branch(0, CostKind::Store, 9)
            },
            branch(1, CostKind::Jump, 4),
            branch(1, CostKind::Fall, 0),
            branch(2, CostKind::Jump, 2),
        ];
        let flipped = predictor.costs[0].key;
        // The flipped branch fell through before: that direction is covered.
        let mut coverage = FastSet::default();
        coverage.insert(EdgeKey {
            code: flipped.code,
            pc: flipped.pc,
            taken: false,
        });
        assert_eq!(
            predictor.next_open(&coverage, &flipped),
            Some(predictor.costs[3].key)
        );
        // Its jump covered by another run: the next one.
        let second = predictor.costs[3].key;
        coverage.insert(EdgeKey {
            code: second.code,
            pc: second.pc,
            taken: true,
        });
        assert_eq!(
            predictor.next_open(&coverage, &flipped),
            Some(predictor.costs[5].key)
        );
        assert_eq!(
            predictor.next_open(&coverage, &predictor.costs[5].key),
            None
        );
        let unknown = CostKey { nth: 9, ..flipped };
        assert_eq!(predictor.next_open(&FastSet::default(), &unknown), None);
    }

    #[test]
    fn failure_counts_halve_with_a_new_entry_or_after_a_long_stall_and_stay_bounded() {
        let mut predictor = Predictor::new(true, false);
        let site = MetricSite::of(&key(0), &calls(&[0]));
        for _ in 0..GIVE_UP_AFTER {
            predictor.missed.count(site);
        }
        predictor.corpus_grew();
        assert_eq!(predictor.missed.counts[&site], GIVE_UP_AFTER / 2);
        for _ in 1..DECAY_RUNS {
            predictor.start(&calls(&[0]), RunStart::default());
        }
        assert_eq!(predictor.missed.counts[&site], GIVE_UP_AFTER / 2, "not yet");
        predictor.start(&calls(&[0]), RunStart::default());
        assert_eq!(predictor.missed.counts[&site], GIVE_UP_AFTER / 4);
        // Past the cap a new site forgets every count; a known one does not.
        for f in 1..MISSED_SITES {
            predictor
                .missed
                .count(MetricSite::of(&key(0), &calls(&[f])));
        }
        predictor.missed.count(site);
        assert_eq!(predictor.sites_forgotten(), 0);
        predictor
            .missed
            .count(MetricSite::of(&key(0), &calls(&[MISSED_SITES])));
        assert_eq!(predictor.sites_forgotten(), 1);
        assert_eq!(predictor.missed.counts.len(), 1);
    }

    /// A run keeps the metrics of the transactions it repeats from the run the predictor
    /// was fed just before (computing them again would give the same), takes the others
    /// from its own traces, and keeps none after a run it was not fed or past where the
    /// last run it was fed stopped.
    #[test]
    fn a_run_keeps_the_metrics_of_the_transactions_it_repeats() {
        let trace = |lhs: u64| {
            let mut trace = Trace::default();
            trace.push_comparison(Comparison {
                code: Address::with_last_byte(1),
                cmp_pc: 3,
                jumpi_pc: 9,
                op: CmpOp::Eq,
                lhs: U256::from(lhs),
                rhs: U256::from(42),
                negations: 0,
                taken: false,
            });
            trace
        };
        let jump_costs = |predictor: &Predictor| -> Vec<(u32, u64)> {
            (predictor.costs().iter())
                .filter(|c| c.key.kind == CostKind::Jump)
                .map(|c| (c.key.tx, c.value.to::<u64>()))
                .collect()
        };
        let run = |predictor: &mut Predictor, start: RunStart, lhs: &[u64]| {
            predictor.start(&calls(&[0]), start);
            for (index, &lhs) in lhs.iter().enumerate() {
                predictor.transaction(&Seen::of(index, &trace(lhs)));
            }
        };
        let start = |run, unchanged| RunStart { run, unchanged };
        let mut predictor = Predictor::new(false, false);
        run(&mut predictor, start(1, 0), &[40, 30, 20]);
        assert_eq!(jump_costs(&predictor), [(0, 2), (1, 12), (2, 22)]);
        // Two transactions unchanged: only the third is fed, and its metric is new.
        predictor.start(&calls(&[0]), start(2, 2));
        predictor.transaction(&Seen::of(2, &trace(41)));
        assert_eq!(jump_costs(&predictor), [(0, 2), (1, 12), (2, 1)]);
        // The run before ended after its third transaction: nothing past it is kept.
        predictor.start(&calls(&[0]), start(3, 5));
        assert_eq!(jump_costs(&predictor), [(0, 2), (1, 12), (2, 1)]);
        // Run 5 follows run 4, which the predictor was not fed (a replay): nothing is kept.
        predictor.start(&calls(&[0]), start(5, 3));
        assert_eq!(jump_costs(&predictor), []);
    }
}
