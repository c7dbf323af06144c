//! One worker's greybox loop (HARVEY Alg. 1): pick a corpus entry with the power schedule,
//! run its energy's worth of mutants (each possibly followed by predicted inputs), keep
//! those with a new path id, stop at the first violation or when the budget is spent. With
//! demand-driven sequences some runs are aggressive (HARVEY §5): the entry's own sequence
//! with the storage its last function reads fuzzed directly, to learn whether that
//! function's coverage depends on state.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use alloy_primitives::Address;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::abi::{self, Dictionary};
use crate::config::{Config, Steering};
use crate::engine::corpus::{Corpus, LookaheadMark, Schedule};
use crate::engine::cost::{CostKey, CostKind, CostMap};
use crate::engine::dataflow::{Dependence, Slot};
use crate::engine::executor::{Executor, Found};
use crate::engine::input::{Change, Sequence};
use crate::engine::mutate::{Guide, Mutator};
use crate::engine::pools::Pools;
use crate::engine::predict::{self, Prediction};
use crate::engine::reach::{Reach, TargetIndex};
use crate::hash::{FastMap, FastSet};
use crate::lookahead::Lookahead;
use crate::outcome::{FunctionStats, LookaheadStats, PredictionStats, Progress, SequenceStats};

/// Sequences between two exchanges of new corpus entries with the other workers.
const EXCHANGE_EVERY: u64 = 512;

/// Failed prediction chains after which a metric is no longer predicted on: its branch
/// is out of the secant method's reach (a hash, a narrow input's overflow check), and the
/// runs are better spent fuzzing. The counts halve whenever the corpus gains an entry: a
/// new path can mean a new state before the branch, in which prediction may work (an
/// index check that fails against a short array succeeds once the array is long).
const GIVE_UP_AFTER: u32 = 64;

/// HARVEY's p_a: the probability that a mutant's run is replaced by an aggressive run of
/// its parent, while the parent's last function is not yet known to depend on state.
const AGGRESSIVE_PROBABILITY: f64 = 0.125;

/// The probability that a structure mutant on a known path is paired with a one-leaf
/// twin for input prediction. Path ids cover the last transaction, so a mutant that gives
/// it a new prefix (a new state) is usually not kept, yet may be the only context where
/// its metrics can be minimized (an index check passes only after an array grew).
const TWIN_PROBABILITY: f64 = 0.25;

/// How often progress is reported.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// A violation with the sequence that showed it (truncated after the violating
/// transaction) and when it was seen.
#[derive(Debug, Clone)]
pub(crate) struct Sighting {
    pub(crate) sequence: Sequence,
    pub(crate) found: Found,
    pub(crate) after: Duration,
    pub(crate) after_sequences: u64,
}

/// What the workers of one campaign share: the budget, the stop flag, the first violation,
/// new corpus entries, and counters for progress reports.
pub(crate) struct Shared<'a> {
    start: Instant,
    /// Worker threads; one worker has nobody to exchange entries with.
    workers: usize,
    max_sequences: Option<u64>,
    deadline: Option<Instant>,
    /// Sequences started, over all workers (the budget counter).
    pub(crate) sequences: AtomicU64,
    pub(crate) transactions: AtomicU64,
    /// Largest edge count and corpus size of any worker.
    pub(crate) edges: AtomicUsize,
    pub(crate) corpus: AtomicUsize,
    stop: AtomicBool,
    sighting: Mutex<Option<Sighting>>,
    /// Called by worker 0 about once per [`PROGRESS_EVERY`].
    progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
    last_progress: Mutex<Instant>,
    /// Every worker's new corpus entries, tagged with the worker's id.
    pool: Mutex<Vec<(usize, Sequence)>>,
    /// Per target: the first run of any worker that reached it.
    reaches: Mutex<Vec<Option<Reach>>>,
    /// Stop once every target was reached.
    stop_at_targets: bool,
}

impl<'a> Shared<'a> {
    /// Shared state for a campaign that started at `start`.
    pub(crate) fn new(
        start: Instant,
        workers: usize,
        max_sequences: Option<u64>,
        time: Option<Duration>,
        progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
        targets: usize,
        stop_at_targets: bool,
    ) -> Self {
        Shared {
            start,
            workers,
            max_sequences,
            deadline: time.map(|t| start + t),
            sequences: AtomicU64::new(0),
            transactions: AtomicU64::new(0),
            edges: AtomicUsize::new(0),
            corpus: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            sighting: Mutex::new(None),
            progress,
            last_progress: Mutex::new(start),
            pool: Mutex::new(Vec::new()),
            reaches: Mutex::new(vec![None; targets]),
            stop_at_targets,
        }
    }

    /// Records that `sequence` reached `target`, unless a run reached it before; stops
    /// the campaign when that was the last one and it should.
    fn reach(&self, target: usize, sequence: Sequence) {
        let mut reaches = self.reaches.lock().unwrap_or_else(|e| e.into_inner());
        if reaches[target].is_none() {
            reaches[target] = Some(Reach {
                sequence,
                after: self.start.elapsed(),
                after_sequences: self.sequences.load(Ordering::Relaxed),
            });
            if self.stop_at_targets && reaches.iter().all(Option::is_some) {
                self.stop.store(true, Ordering::Relaxed);
            }
        }
    }

    /// The first reach of every target.
    pub(crate) fn take_reaches(&self) -> Vec<Option<Reach>> {
        std::mem::take(&mut *self.reaches.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Claims the budget for one more sequence; false when it is spent or a worker found
    /// a violation.
    fn claim(&self) -> bool {
        if self.stop.load(Ordering::Relaxed) {
            return false;
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return false;
        }
        let started = self.sequences.fetch_add(1, Ordering::Relaxed);
        self.max_sequences.is_none_or(|max| started < max)
    }

    /// Records a violation (the first one wins) and stops every worker.
    fn report(&self, sequence: Sequence, found: Found) {
        let mut slot = self.sighting.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(Sighting {
                sequence,
                found,
                after: self.start.elapsed(),
                after_sequences: self.sequences.load(Ordering::Relaxed),
            });
        }
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Calls the progress callback if one is due.
    fn tick(&self) {
        let Some(progress) = self.progress else {
            return;
        };
        let now = Instant::now();
        let mut last = self.last_progress.lock().unwrap_or_else(|e| e.into_inner());
        if now.duration_since(*last) < PROGRESS_EVERY {
            return;
        }
        *last = now;
        progress(&Progress {
            elapsed: now.duration_since(self.start),
            sequences: self.sequences_run(),
            transactions: self.transactions.load(Ordering::Relaxed),
            edges: self.edges.load(Ordering::Relaxed),
            corpus: self.corpus.load(Ordering::Relaxed),
        });
    }

    /// The violation the workers found, if any.
    pub(crate) fn take_sighting(&self) -> Option<Sighting> {
        self.sighting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// Sequences actually run (claims past the budget are not runs).
    pub(crate) fn sequences_run(&self) -> u64 {
        let started = self.sequences.load(Ordering::Relaxed);
        self.max_sequences.map_or(started, |max| started.min(max))
    }
}

/// What a worker leaves behind.
pub(crate) struct WorkerReport {
    pub(crate) coverage: FastSet<(Address, u32, bool)>,
    pub(crate) paths: HashSet<u64>,
    pub(crate) functions: Vec<FunctionStats>,
    pub(crate) predictions: PredictionStats,
    /// Regular runs by sequence length.
    pub(crate) lengths: Vec<u64>,
    /// Corpus entries by sequence length.
    pub(crate) corpus_lengths: Vec<u64>,
    pub(crate) aggressive_runs: u64,
    /// Per function (surface order): whether and why its sequences may grow.
    pub(crate) dependence: Vec<Option<Dependence>>,
    pub(crate) lookahead: LookaheadStats,
}

/// What a worker needs to report targets and steer towards them.
pub(crate) struct Targeting {
    /// Which targets entered blocks reach.
    pub(crate) index: TargetIndex,
    /// The lookahead analysis of each fuzzed contract's code (empty: not steering).
    pub(crate) lookaheads: Vec<(Address, Lookahead)>,
    /// Which of ICSE'20's configurations steers (when `lookaheads` is not empty).
    pub(crate) steering: Steering,
}

/// One worker: its own chain (in the executor), RNG, corpus and dictionary.
pub(crate) struct Worker<'a> {
    id: usize,
    rng: StdRng,
    executor: Executor<'a>,
    corpus: Corpus,
    dict: Dictionary,
    depth: usize,
    shared: &'a Shared<'a>,
    /// How far into the shared pool this worker has imported.
    imported: usize,
    /// New entries not yet published to the pool.
    fresh: Vec<Sequence>,
    /// Whether mutants are followed by predicted inputs.
    predict: bool,
    predictions: PredictionStats,
    /// Per metric location: prediction chains that ended without minimizing it.
    missed: FastMap<(Address, u32, CostKind), u32>,
    /// Transactions and prefixes that reached new state (HARVEY §5's pools).
    pools: Pools,
    demand_driven: bool,
    dataflow: bool,
    /// Which targets this worker has seen reached.
    targets: TargetIndex,
    /// The lookahead analysis of each fuzzed contract's code (empty: not steering).
    lookaheads: Vec<(Address, Lookahead)>,
    /// Configuration C takes every target as reachable instead of analysing.
    analyse: bool,
    lookahead_stats: LookaheadStats,
}

impl<'a> Worker<'a> {
    /// Worker `id` with `executor`, seeded with `seed`, with the depth and switches of
    /// `config`.
    pub(crate) fn new(
        id: usize,
        seed: u64,
        executor: Executor<'a>,
        dict: Dictionary,
        config: &Config,
        targeting: Targeting,
        shared: &'a Shared<'a>,
    ) -> Self {
        let mut corpus = Corpus::default();
        if !targeting.lookaheads.is_empty() {
            corpus.schedule(match targeting.steering {
                Steering::Off => Schedule::Paths,
                Steering::Lookahead | Steering::NoAnalysis => Schedule::RareLookahead,
                Steering::StandardSchedule => Schedule::LookaheadIds,
            });
        }
        Worker {
            id,
            rng: StdRng::seed_from_u64(seed),
            executor,
            corpus,
            dict,
            depth: config.depth.max(1) as usize,
            shared,
            imported: 0,
            fresh: Vec::new(),
            predict: config.prediction,
            predictions: PredictionStats::default(),
            missed: FastMap::default(),
            pools: Pools::default(),
            demand_driven: config.demand_driven,
            dataflow: config.dataflow,
            targets: targeting.index,
            lookaheads: targeting.lookaheads,
            analyse: targeting.steering.analyses(),
            lookahead_stats: LookaheadStats::default(),
        }
    }

    /// Runs until the budget is spent or some worker finds a violation.
    pub(crate) fn run(mut self) -> WorkerReport {
        let surface = self.executor.surface().clone();
        let mutator = Mutator::new(&surface, self.depth, self.demand_driven, self.dataflow);
        if self.seed_corpus(&mutator) {
            return self.report();
        }
        let mut since_exchange = 0;
        while let Some((index, energy)) = self.corpus.pick() {
            let (stop, ran) = self.fuzz_entry(index, energy, &mutator);
            if stop {
                return self.report();
            }
            since_exchange += ran;
            if since_exchange >= EXCHANGE_EVERY && self.shared.workers > 1 {
                since_exchange = 0;
                if self.exchange() {
                    return self.report();
                }
            }
        }
        self.report()
    }

    /// HARVEY's Alg. 1, lines 4–18, for one picked entry: `energy` mutants, each possibly
    /// followed by predicted inputs (run even when the energy is spent). Returns whether
    /// the campaign should stop, and how many sequences ran.
    fn fuzz_entry(&mut self, index: usize, energy: u64, mutator: &Mutator<'_>) -> (bool, u64) {
        let parent = self.corpus.get(index).sequence.clone();
        let parent_costs: CostMap = self
            .corpus
            .get(index)
            .costs
            .iter()
            .map(|c| (c.key, *c))
            .collect();
        let mut predicted: Option<Prediction> = None;
        let mut spent = 0;
        while spent < energy || predicted.is_some() {
            let (input, change, chain) = match predicted.take() {
                Some(prediction) => (prediction.sequence.clone(), None, Some(prediction)),
                None => {
                    let donor_index = self.rng.random_range(0..self.corpus.len());
                    let guide = Guide {
                        dataflow: self.executor.dataflow(),
                        pools: &self.pools,
                    };
                    let (mutant, change) = mutator.mutate(
                        &parent,
                        &self.corpus.get(donor_index).sequence,
                        &mut self.rng,
                        &self.dict,
                        guide,
                    );
                    (mutant, Some(change), None)
                }
            };
            let ran = self.execute(&input);
            let stop = ran.is_none();
            // Count a predicted input even when it ends the campaign: it may be the one
            // that found the bug.
            let followed = chain.map(|prediction| self.follow(&prediction));
            if stop {
                return (true, spent + 1);
            }
            if change.is_some() && self.aggressive_due(&input) {
                // The same mutant again with fuzzed storage: does state change its path?
                spent += 1;
                if self.aggressive(&input) {
                    return (true, spent);
                }
            }
            predicted = match (followed, change) {
                (Some(next), _) => next,
                (None, Some(Change::Structure))
                    if self.predict
                        && spent < energy
                        && ran == Some(false)
                        && self.rng.random_bool(TWIN_PROBABILITY) =>
                {
                    // A structure mutant on a known path may still be a new context for
                    // the metrics of its last transaction: pair it with a one-leaf twin.
                    spent += 1;
                    let costs: CostMap =
                        self.executor.costs().iter().map(|c| (c.key, *c)).collect();
                    let (twin, change) = mutator.mutate_input(&input, &mut self.rng, &self.dict);
                    match self.execute(&twin) {
                        None => return (true, spent + 1),
                        Some(_) => self.predict_from(&input, &costs, &twin, &change),
                    }
                }
                (None, Some(change)) if self.predict && spent < energy => {
                    self.predict_from(&parent, &parent_costs, &input, &change)
                }
                _ => None,
            };
            spent += 1;
        }
        (false, spent)
    }

    /// Whether the mutant `input`, just run, should also get an aggressive run: with
    /// demand-driven fuzzing, with probability p_a, while its last function is not known
    /// to depend on state and has been seen to read storage (there is nothing to fuzz
    /// otherwise).
    fn aggressive_due(&mut self, input: &Sequence) -> bool {
        if !self.demand_driven {
            return false;
        }
        let Some(last) = input.txs.last() else {
            return false;
        };
        let dataflow = self.executor.dataflow();
        dataflow.dependence(last.function).is_none()
            && !dataflow.reads(last.function).is_empty()
            && self.rng.random_bool(AGGRESSIVE_PROBABILITY)
    }

    /// An aggressive run of `sequence` (a mutant whose regular run was just kept or
    /// discarded): the same transactions, with some of the slots the last function reads
    /// set to fuzzed values before it. A path no regular run has taken (the regular run of
    /// the same inputs is in the corpus by now, if new) shows the function's coverage
    /// depends on state and marks it; the run itself is discarded, never kept or checked,
    /// since the state it fuzzed may be unreachable. True when the budget is spent.
    fn aggressive(&mut self, sequence: &Sequence) -> bool {
        if !self.shared.claim() {
            return true;
        }
        if self.id == 0 {
            self.shared.tick();
        }
        let function = sequence.txs[sequence.txs.len() - 1].function;
        let reads = self.executor.dataflow().reads(function);
        let mut slots: Vec<Slot> = reads
            .iter()
            .filter(|_| self.rng.random_bool(0.5))
            .copied()
            .collect();
        if slots.is_empty() {
            slots.push(reads[self.rng.random_range(0..reads.len())]);
        }
        let (rng, dict) = (&mut self.rng, &self.dict);
        let path = self
            .executor
            .run_aggressive(sequence, &slots, &mut |current| {
                abi::mutate_uint(current, 256, rng, dict)
            });
        self.shared
            .transactions
            .fetch_add(sequence.txs.len() as u64, Ordering::Relaxed);
        if !self.corpus.contains(path) {
            self.executor
                .dataflow_mut()
                .mark(function, Dependence::Aggressive);
        }
        false
    }

    /// After running `prediction`: counts it, and returns the chain's next step, if any.
    /// A chain that ends without minimizing its metric counts against the metric.
    fn follow(&mut self, prediction: &Prediction) -> Option<Prediction> {
        let cost = self
            .executor
            .costs()
            .iter()
            .find(|c| c.key == prediction.key)
            .copied();
        self.predictions
            .count(prediction.step, cost.map(|c| c.value));
        let next = predict::next(prediction, cost.as_ref());
        let minimized = cost.is_some_and(|c| c.value.is_zero());
        if next.is_none() && !minimized {
            let key = prediction.key;
            let missed = self.missed.entry((key.code, key.pc, key.kind)).or_insert(0);
            *missed = missed.saturating_add(1);
        }
        next
    }

    /// The first prediction from the mutant `input` (just run) of `parent` by `change`.
    fn predict_from(
        &mut self,
        parent: &Sequence,
        parent_costs: &CostMap,
        input: &Sequence,
        change: &Change,
    ) -> Option<Prediction> {
        let coverage = self.executor.coverage();
        let misses = &self.missed;
        // Prefer metrics whose chains have failed least often (some branches, like overflow
        // checks on narrow inputs, cannot flip), then branch directions no run has taken.
        let preference = |key: &CostKey| {
            let covered = match key.kind {
                CostKind::Jump => coverage.contains(&(key.code, key.pc, true)),
                CostKind::Fall => coverage.contains(&(key.code, key.pc, false)),
                CostKind::Store => false,
            };
            let missed = misses
                .get(&(key.code, key.pc, key.kind))
                .copied()
                .unwrap_or(0);
            if missed >= GIVE_UP_AFTER {
                return predict::NEVER;
            }
            2 * missed + u32::from(covered)
        };
        predict::first(
            self.executor.surface(),
            parent,
            parent_costs,
            input,
            self.executor.costs(),
            change,
            preference,
            &mut self.rng,
        )
    }

    /// One single-transaction sequence per function, in surface order, so every function
    /// is in the corpus from the start. True when the campaign should stop.
    fn seed_corpus(&mut self, mutator: &Mutator<'_>) -> bool {
        for function in 0..self.executor.surface().functions.len() {
            let tx = mutator.tx_for(function, &mut self.rng, &self.dict);
            if self.execute(&Sequence { txs: vec![tx] }).is_none() {
                return true;
            }
        }
        // A corpus entry always exists now, unless the budget ran out first.
        self.corpus.is_empty()
    }

    /// Runs `sequence`; keeps it on a new path id. Whether it was kept, or `None` when the
    /// campaign should stop (budget spent, or a violation, which is then reported).
    fn execute(&mut self, sequence: &Sequence) -> Option<bool> {
        if !self.shared.claim() {
            return None;
        }
        if self.id == 0 {
            self.shared.tick();
        }
        let run = self.executor.run(sequence);
        let executed = run
            .violation
            .as_ref()
            .map_or(sequence.txs.len(), |f| f.tx + 1);
        self.shared
            .transactions
            .fetch_add(executed as u64, Ordering::Relaxed);
        for (target, tx) in self.targets.newly_reached(self.executor.hits()) {
            let mut reaching = sequence.clone();
            reaching.txs.truncate(tx + 1);
            self.shared.reach(target, reaching);
        }
        if let Some(found) = run.violation {
            let mut sequence = sequence.clone();
            sequence.txs.truncate(found.tx + 1);
            self.shared.report(sequence, found);
            return None;
        }
        let kept = self
            .corpus
            .observe(run.path, sequence, self.executor.costs());
        if kept {
            for &operand in self.executor.operands() {
                self.dict.observe(operand);
            }
            for missed in self.missed.values_mut() {
                *missed /= 2;
            }
            self.fresh.push(sequence.clone());
            self.shared
                .corpus
                .fetch_max(self.corpus.len(), Ordering::Relaxed);
        }
        if kept || run.new_edges > 0 {
            // Transactions that increased coverage and changed state in a new way.
            let last = sequence.txs.len() - 1;
            for (index, note) in self.executor.notes().iter().enumerate() {
                if let Some(pattern) = note.pattern {
                    if note.new_edges || (kept && index == last) {
                        self.pools.offer(sequence, index, pattern);
                    }
                }
            }
        }
        self.executor.dataflow_mut().refresh();
        if run.new_edges > 0 {
            let edges = self.executor.coverage().len();
            self.shared.edges.fetch_max(edges, Ordering::Relaxed);
        }
        if kept && !self.lookaheads.is_empty() {
            self.analyze(self.corpus.len() - 1, sequence);
        }
        Some(kept)
    }

    /// ICSE'20 Alg. 1 line 11: the lookahead analysis of new corpus entry `index`, whose
    /// run was `sequence`, on the path of its last transaction.
    fn analyze(&mut self, index: usize, sequence: &Sequence) {
        let started = Instant::now();
        if let Some((address, path)) = self.executor.path_of_last(sequence) {
            if let Some((_, lookahead)) = self.lookaheads.iter_mut().find(|(a, _)| *a == address) {
                let analysis = if self.analyse {
                    lookahead.analyze(&path)
                } else {
                    lookahead.assume_reachable(&path)
                };
                self.lookahead_stats.analyses += 1;
                self.lookahead_stats.bounded += u64::from(analysis.bounded);
                // Prefixes are per code: the same pcs in two contracts are different ids.
                let lid = analysis.lid
                    ^ u64::from_be_bytes(address[12..20].try_into().unwrap_or_default());
                self.corpus.set_lookahead(
                    index,
                    LookaheadMark {
                        lid,
                        split_points: analysis
                            .split_points
                            .iter()
                            .map(|&pc| (address, pc))
                            .collect(),
                    },
                );
            }
        }
        self.lookahead_stats.time += started.elapsed();
    }

    /// Publishes this worker's new entries and runs the other workers' (keeping those
    /// with a path id new to this worker). True when the campaign should stop.
    fn exchange(&mut self) -> bool {
        let incoming: Vec<Sequence> = {
            let mut pool = self.shared.pool.lock().unwrap_or_else(|e| e.into_inner());
            pool.extend(self.fresh.drain(..).map(|s| (self.id, s)));
            let incoming = pool[self.imported..]
                .iter()
                .filter(|(from, _)| *from != self.id)
                .map(|(_, s)| s.clone())
                .collect();
            self.imported = pool.len();
            incoming
        };
        for sequence in incoming {
            if self.execute(&sequence).is_none() {
                return true;
            }
        }
        // Imported entries were pushed to `fresh` again; they are already in the pool.
        self.fresh.clear();
        false
    }

    fn report(self) -> WorkerReport {
        let mut corpus_lengths = Vec::new();
        for entry in self.corpus.entries() {
            SequenceStats::count_length(&mut corpus_lengths, entry.sequence.txs.len());
        }
        let dataflow = self.executor.dataflow();
        WorkerReport {
            coverage: self.executor.coverage().clone(),
            paths: self.corpus.entries().iter().map(|e| e.path).collect(),
            functions: self.executor.function_stats(),
            predictions: self.predictions,
            lengths: self.executor.lengths().to_vec(),
            corpus_lengths,
            aggressive_runs: self.executor.aggressive_runs(),
            dependence: (0..self.executor.surface().functions.len())
                .map(|f| dataflow.dependence(f))
                .collect(),
            lookahead: LookaheadStats {
                ids: self.corpus.lookahead_ids(),
                ..self.lookahead_stats
            },
        }
    }
}
