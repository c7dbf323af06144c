//! One worker's greybox loop (HARVEY Alg. 1 without input prediction): pick a corpus entry
//! with the power schedule, run its energy's worth of mutants, keep those with a new path id
//! of their last transaction, stop at the first violation or when the budget is spent.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use alloy_primitives::Address;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::abi::Dictionary;
use crate::engine::corpus::Corpus;
use crate::engine::cost::{CostKey, CostKind, CostMap};
use crate::engine::executor::{Executor, Found};
use crate::engine::hash::{FastMap, FastSet};
use crate::engine::input::{Change, Sequence};
use crate::engine::mutate::Mutator;
use crate::engine::predict::{self, Prediction};
use crate::outcome::{FunctionStats, PredictionStats, Progress};

/// Sequences between two exchanges of new corpus entries with the other workers.
const EXCHANGE_EVERY: u64 = 512;

/// Failed prediction chains after which a metric is no longer predicted on: its branch
/// is out of the secant method's reach (a hash, a narrow input's overflow check), and the
/// runs are better spent fuzzing.
const GIVE_UP_AFTER: u32 = 64;

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
}

impl<'a> Shared<'a> {
    /// Shared state for a campaign that started at `start`.
    pub(crate) fn new(
        start: Instant,
        workers: usize,
        max_sequences: Option<u64>,
        time: Option<Duration>,
        progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
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
        }
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
}

impl<'a> Worker<'a> {
    /// Worker `id` with `executor`, seeded with `seed`; `predict` turns input prediction on.
    pub(crate) fn new(
        id: usize,
        seed: u64,
        executor: Executor<'a>,
        dict: Dictionary,
        depth: u32,
        predict: bool,
        shared: &'a Shared<'a>,
    ) -> Self {
        Worker {
            id,
            rng: StdRng::seed_from_u64(seed),
            executor,
            corpus: Corpus::default(),
            dict,
            depth: depth.max(1) as usize,
            shared,
            imported: 0,
            fresh: Vec::new(),
            predict,
            predictions: PredictionStats::default(),
            missed: FastMap::default(),
        }
    }

    /// Runs until the budget is spent or some worker finds a violation.
    pub(crate) fn run(mut self) -> WorkerReport {
        let surface = self.executor.surface().clone();
        let mutator = Mutator::new(&surface, self.depth);
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
                    let (mutant, change) = mutator.mutate(
                        &parent,
                        &self.corpus.get(donor_index).sequence,
                        &mut self.rng,
                        &self.dict,
                    );
                    (mutant, Some(change), None)
                }
            };
            let stop = self.execute(&input);
            // Count a predicted input even when it ends the campaign: it may be the one
            // that found the bug.
            let followed = chain.map(|prediction| self.follow(&prediction));
            if stop {
                return (true, spent + 1);
            }
            predicted = match (followed, change) {
                (Some(next), _) => next,
                (None, Some(change)) if self.predict && spent < energy => {
                    self.predict_from(&parent, &parent_costs, &input, &change)
                }
                _ => None,
            };
            spent += 1;
        }
        (false, spent)
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
            if self.execute(&Sequence { txs: vec![tx] }) {
                return true;
            }
        }
        // A corpus entry always exists now, unless the budget ran out first.
        self.corpus.is_empty()
    }

    /// Runs `sequence`; keeps it on a new path id. True when the campaign should stop
    /// (budget spent, or a violation, which is then reported).
    fn execute(&mut self, sequence: &Sequence) -> bool {
        if !self.shared.claim() {
            return true;
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
        if let Some(found) = run.violation {
            let mut sequence = sequence.clone();
            sequence.txs.truncate(found.tx + 1);
            self.shared.report(sequence, found);
            return true;
        }
        if self
            .corpus
            .observe(run.path, sequence, self.executor.costs())
        {
            for &operand in self.executor.operands() {
                self.dict.observe(operand);
            }
            self.fresh.push(sequence.clone());
            self.shared
                .corpus
                .fetch_max(self.corpus.len(), Ordering::Relaxed);
        }
        if run.new_edges > 0 {
            let edges = self.executor.coverage().len();
            self.shared.edges.fetch_max(edges, Ordering::Relaxed);
        }
        false
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
            if self.execute(&sequence) {
                return true;
            }
        }
        // Imported entries were pushed to `fresh` again; they are already in the pool.
        self.fresh.clear();
        false
    }

    fn report(self) -> WorkerReport {
        WorkerReport {
            coverage: self.executor.coverage().clone(),
            paths: self.corpus.entries().iter().map(|e| e.path).collect(),
            functions: self.executor.function_stats(),
            predictions: self.predictions,
        }
    }
}
