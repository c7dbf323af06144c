//! One worker's greybox loop (HARVEY Alg. 1): pick a corpus entry with the power schedule,
//! run its energy's worth of mutants (each possibly followed by predicted inputs), keep
//! those with a new path id, report violations, stop when the budget is spent (or at the
//! first violation, failing fast).
//!
//! The loop owns the corpus, the dictionary and the RNG; each technique is a stage that owns
//! its state and statistics and learns from every regular run as a [`Sink`]: input
//! prediction ([`Predictor`], present when on), demand-driven sequencing ([`Sequencing`]:
//! dataflow, pools, aggressive runs) and targeting ([`Targeting`], present with targets).

use std::collections::HashSet;

use alloy_primitives::U256;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::abi::{self, Dictionary};
use crate::config::Steering;
use crate::engine::conditions::ConditionStates;
use crate::engine::corpus::{Corpus, KeptFor, Schedule};
use crate::engine::executor::{EdgeKey, Executor, Found, RunStart, Seen, Sink};
use crate::engine::guidance::InvariantGuidance;
use crate::engine::input::{Change, Sequence, TxInput};
use crate::engine::mask::Mask;
use crate::engine::mutate::Mutator;
use crate::engine::novelty::StateNovelty;
use crate::engine::plan::Fuzz;
use crate::engine::prediction::Predictor;
use crate::engine::prediction::cost::ParentCosts;
use crate::engine::prediction::secant::Prediction;
use crate::engine::revert_guidance::RevertGuidance;
use crate::engine::sequencing::Sequencing;
use crate::engine::sequencing::dataflow::Dependence;
use crate::engine::shared_by_workers::{Shared, Stop};
use crate::engine::targeting::Targeting;
use crate::hash::FastSet;
use crate::observe::Trace;
use crate::outcome::{
    BoundsHit, FunctionStats, LookaheadStats, MaskStats, PredictionStats, SequenceStats, TimeSplit,
};
use crate::targets::line_coverage::BlockCounts;

mod chained_runs;
mod joint_runs;
#[cfg(feature = "solver")]
mod solver_runs;

/// Sequences between two exchanges of new corpus entries with the other workers.
const EXCHANGE_EVERY: u64 = 512;

/// The probability that a structure mutant on a known path is paired with a one-leaf
/// twin for input prediction. Path ids cover the last transaction, so a mutant that gives
/// it a new prefix (a new state) is usually not kept, yet may be the only context where
/// its metrics can be minimized (an index check passes only after an array grew).
const TWIN_PROBABILITY: f64 = 0.25;

/// Comparison operands kept per run for the dictionary: enough for the magic values of a
/// few branches, bounded so a loop-heavy transaction cannot flood the dictionary.
const OPERANDS_PER_RUN: usize = 64;

/// Whether a run that went on was kept in the corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Novelty {
    /// A new path id: kept.
    Kept,
    /// A path id the corpus has.
    Known,
}

/// What a worker leaves behind.
pub(crate) struct WorkerReport {
    pub(crate) coverage: FastSet<EdgeKey>,
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
    pub(crate) time: TimeSplit,
    /// The corpus' sequences.
    pub(crate) corpus: Vec<Sequence>,
    /// The blocks its runs entered, and how often (with line coverage).
    pub(crate) blocks: BlockCounts,
    /// The memory bounds it hit.
    pub(crate) bounds: BoundsHit,
    /// What probing for mutation masks did.
    pub(crate) masks: MaskStats,
    /// Runs kept by invariant guidance.
    pub(crate) guided: u64,
    /// Runs kept for a new state.
    pub(crate) novel: u64,
    /// Runs kept for a call of an always-reverting function getting closer to succeeding.
    pub(crate) unreverting: u64,
    /// Runs kept for a condition state.
    pub(crate) conditioned: u64,
    /// Random walks run, and their transactions.
    pub(crate) walks: u64,
    pub(crate) walked: u64,
}

/// The comparison operands of the last regular run (capped), which the dictionary takes
/// when the run is kept.
#[derive(Default)]
struct Operands(Vec<U256>);

impl Sink for Operands {
    fn start(&mut self, _sequence: &Sequence, _start: RunStart) {
        self.0.clear();
    }

    fn transaction(&mut self, seen: &Seen<'_>) {
        // A created contract's address, for address arguments (a router given the pool).
        for address in seen.created {
            if self.0.len() < OPERANDS_PER_RUN {
                self.0.push(U256::from_be_slice(address.as_slice()));
            }
        }
        self.compared(seen.trace);
    }

    fn checked(&mut self, _index: usize, trace: &Trace) {
        // What the invariants compare (an allowance, a total pulled) are amounts to try.
        self.compared(trace);
    }
}

impl Operands {
    /// Takes the operands of `trace`'s comparisons, within the cap.
    fn compared(&mut self, trace: &Trace) {
        for cmp in trace.comparisons() {
            if self.0.len() + 2 > OPERANDS_PER_RUN {
                break;
            }
            self.0.extend([cmp.lhs, cmp.rhs]);
        }
    }
}

/// Forwards to a stage when it is present.
impl<S: Sink> Sink for Option<S> {
    fn start(&mut self, sequence: &Sequence, start: RunStart) {
        if let Some(sink) = self {
            sink.start(sequence, start);
        }
    }

    fn transaction(&mut self, seen: &Seen<'_>) {
        if let Some(sink) = self {
            sink.transaction(seen);
        }
    }

    fn refused(&mut self, index: usize) {
        if let Some(sink) = self {
            sink.refused(index);
        }
    }

    fn checked(&mut self, index: usize, trace: &Trace) {
        if let Some(sink) = self {
            sink.checked(index, trace);
        }
    }
}

/// Feeds each of several sinks.
impl<const N: usize> Sink for [&mut dyn Sink; N] {
    fn start(&mut self, sequence: &Sequence, start: RunStart) {
        for sink in self {
            sink.start(sequence, start);
        }
    }

    fn transaction(&mut self, seen: &Seen<'_>) {
        for sink in self {
            sink.transaction(seen);
        }
    }

    fn refused(&mut self, index: usize) {
        for sink in self {
            sink.refused(index);
        }
    }

    fn checked(&mut self, index: usize, trace: &Trace) {
        for sink in self {
            sink.checked(index, trace);
        }
    }
}

/// Whether two calls are the same call: function, sender and inputs.
fn same_call(a: &TxInput, b: &TxInput) -> bool {
    a.function == b.function
        && a.sender == b.sender
        && a.args == b.args
        && a.value == b.value
        && a.instance == b.instance
}

/// One worker: its own chain (in the executor), RNG, corpus, dictionary and stages.
pub(crate) struct Worker<'a> {
    id: usize,
    rng: StdRng,
    executor: Executor<'a>,
    corpus: Corpus,
    dict: Dictionary,
    operands: Operands,
    depth: usize,
    dataflow: bool,
    /// Whether corpus entries get mutation masks (mask-guided mutation).
    masks: bool,
    /// What probing for masks did.
    masks_learned: MaskStats,
    /// Whether mutations couple address arguments and senders across transactions.
    coupling: bool,
    /// The path id of the last regular run.
    last_path: u64,
    /// Whether a satisfied prediction on a sequence's last transaction is followed by a
    /// call appended and predicted on (chains of state-dependent equalities).
    chain_predictions: bool,
    shared: &'a Shared<'a>,
    /// How far into the shared pool this worker has imported.
    imported: usize,
    /// New entries not yet published to the pool.
    fresh: Vec<Sequence>,
    /// Sequences that created a contract of a kind for the first time (through that
    /// transaction), each with a function of that kind to call next.
    to_seed: Vec<(Sequence, usize)>,
    /// Saved sequences to run first (this worker runs every `workers`-th, from its id).
    seeds: &'a [Sequence],
    /// Input prediction, when on.
    predictor: Option<Predictor>,
    /// z3, for the solver-backed step of prediction.
    #[cfg(feature = "solver")]
    z3: solver_runs::Z3,
    sequencing: Sequencing,
    /// Watching and steering towards targets, in a targeted campaign.
    targeting: Option<Targeting>,
    /// Keeping runs that bring the invariants closer to failing, when on.
    guidance: Option<InvariantGuidance>,
    /// Keeping runs that leave a new state, when on.
    novelty: Option<StateNovelty>,
    /// Keeping runs that bring calls of an always-reverting function closer to succeeding,
    /// when on.
    revert_guidance: Option<RevertGuidance>,
    /// Keeping runs whose last call's conditions compared state otherwise, when on.
    conditions: Option<ConditionStates>,
    /// The identities of the violations this worker reported: a violation found again
    /// (many inputs show a bug once found) costs no lock on what the workers share.
    reported: HashSet<String>,
    /// The share of transactions (percent) random walks take, 0 for none, and their length.
    walks: u64,
    walk_length: usize,
    /// Transactions this worker ran, how many of them in random walks, and the walks.
    ran: u64,
    walked: u64,
    walks_run: u64,
    /// Whether the sequence running is a random walk (never kept in the corpus).
    walking: bool,
}

impl<'a> Worker<'a> {
    /// Worker `id` with `executor`, with the depth, switches and seed (plus `id`) of the
    /// plan's config and its saved sequences to run first, and `targeting` in a targeted
    /// campaign.
    pub(crate) fn new(
        id: usize,
        executor: Executor<'a>,
        dict: Dictionary,
        plan: &'a Fuzz<'a>,
        targeting: Option<Targeting>,
        shared: &'a Shared<'a>,
    ) -> Self {
        let config = plan.config;
        let seed = plan.seed.wrapping_add(id as u64);
        let mut corpus = Corpus::default();
        if targeting.as_ref().is_some_and(Targeting::steers) {
            corpus.schedule(match config.lookahead {
                Steering::Off => Schedule::Paths,
                Steering::Lookahead | Steering::NoAnalysis => Schedule::RareLookahead,
                Steering::StandardSchedule => Schedule::LookaheadIds,
            });
        }
        let functions = executor.surface().functions.len();
        let invariants = executor.has_invariants();
        let senders = executor.surface().senders.clone();
        // A one-call case (a fuzz test's, a property's, independent calls' or a depth of 1)
        // starts from setup's state every time: neither walks nor states reached across
        // calls apply.
        let sequences = config.depth > 1;
        Worker {
            id,
            rng: StdRng::seed_from_u64(seed),
            executor,
            corpus,
            dict,
            operands: Operands::default(),
            depth: config.depth.max(1) as usize,
            dataflow: config.dataflow,
            chain_predictions: config.chain_predictions,
            masks: config.masks,
            masks_learned: MaskStats::default(),
            coupling: config.coupling,
            last_path: 0,
            shared,
            imported: 0,
            fresh: Vec::new(),
            to_seed: Vec::new(),
            predictor: config
                .prediction
                .then(|| Predictor::new(config.joint_prediction, config.solver)),
            #[cfg(feature = "solver")]
            z3: solver_runs::Z3::new(plan.z3.clone()),
            sequencing: Sequencing::new(functions, invariants, config.demand_driven),
            targeting,
            guidance: (config.invariant_guidance && invariants).then(InvariantGuidance::default),
            novelty: (config.state_novelty && sequences).then(|| StateNovelty::new(senders)),
            // A one-call case has no prefix to find.
            revert_guidance: (config.revert_guidance && sequences)
                .then(|| RevertGuidance::new(functions)),
            conditions: (config.condition_states && sequences).then(ConditionStates::default),
            reported: HashSet::new(),
            walks: if sequences {
                u64::from(config.walks.unwrap_or(0))
            } else {
                0
            },
            walk_length: config.walk_length.max(1) as usize,
            ran: 0,
            walked: 0,
            walks_run: 0,
            walking: false,
            seeds: &plan.seeds.sequences,
        }
    }

    /// Runs until the budget is spent or (failing fast) some worker finds a violation.
    pub(crate) fn run(mut self) -> WorkerReport {
        let surface = self.executor.surface().clone();
        let mutator = Mutator::new(
            &surface,
            self.depth,
            self.sequencing.demand_driven(),
            self.dataflow,
        )
        .coupling(self.coupling);
        let _ = self.fuzz(&mutator);
        self.report()
    }

    /// The loop, until it stops.
    fn fuzz(&mut self, mutator: &Mutator<'_>) -> Result<(), Stop> {
        #[cfg(feature = "solver")]
        if self.predictor.as_ref().is_some_and(Predictor::solver) {
            self.z3.launch();
        }
        self.seed_corpus(mutator)?;
        let mut since_exchange = 0;
        let surface = mutator.surface();
        let writers = surface.functions.iter().any(|f| !f.reads_only);
        while let Some((index, energy)) = self.corpus.pick() {
            // An entry ending in a view or pure call leaves the state as its prefix did:
            // its mutants only vary the check that call makes. Beside functions that change
            // state it gets a quarter of the energy.
            let reads_only = (self.corpus.get(index).sequence.txs.last())
                .is_some_and(|tx| surface.functions[tx.function].reads_only);
            let energy = if writers && reads_only {
                energy.div_ceil(4)
            } else {
                energy
            };
            since_exchange += self.fuzz_entry(index, energy, mutator)?;
            since_exchange += self.walks(mutator)?;
            self.seed_created(mutator)?;
            if since_exchange >= EXCHANGE_EVERY && self.shared.workers > 1 {
                since_exchange = 0;
                self.exchange()?;
            }
        }
        Ok(())
    }

    /// Random walks (the `walks` setting), while they took less than their share of this
    /// worker's transactions: sequences of `walk_length` fresh calls
    /// ([`Mutator::walk_tx`]), run and checked like any other but never kept in the corpus,
    /// forge's, Echidna's and Medusa's way of fuzzing. Many unrelated calls build state
    /// that sequences kept for a new path of their last call rarely reach: a market that
    /// borrows lent out, then a withdrawal. Returns the runs.
    fn walks(&mut self, mutator: &Mutator<'_>) -> Result<u64, Stop> {
        let mut runs = 0;
        while self.walks > 0 && self.walked * 100 < self.ran * self.walks {
            let guide = self.sequencing.guide();
            let txs: Vec<TxInput> = (0..self.walk_length)
                .map(|_| mutator.walk_tx(&mut self.rng, &self.dict, guide))
                .collect();
            self.walked += txs.len() as u64;
            self.walks_run += 1;
            self.walking = true;
            let ran = self.execute(&Sequence { txs });
            self.walking = false;
            ran?;
            runs += 1;
        }
        Ok(runs)
    }

    /// HARVEY's Alg. 1, lines 4–18, for one picked entry: `energy` mutants, each possibly
    /// followed by predicted inputs (run even when the energy is spent). Returns how many
    /// sequences ran.
    fn fuzz_entry(
        &mut self,
        index: usize,
        energy: u64,
        mutator: &Mutator<'_>,
    ) -> Result<u64, Stop> {
        let mut spent = 0;
        if self.masks && self.corpus.get(index).mask.is_none() {
            spent += self.learn_mask(index, energy, mutator)?;
        }
        let entry = self.corpus.get(index);
        let parent = entry.sequence.clone();
        let parent_costs = ParentCosts::shared(&entry.costs);
        let mask = entry.mask.clone();
        spent += self.joint_on_entry(index, mutator)?;
        let mut predicted: Option<Prediction> = None;
        while spent < energy || predicted.is_some() {
            let (input, change, prediction) = match predicted.take() {
                Some(prediction) => (prediction.sequence.clone(), None, Some(prediction)),
                None => {
                    let donor_index = self.rng.random_range(0..self.corpus.len());
                    let (mutant, change) = mutator.mutate(
                        &parent,
                        &self.corpus.get(donor_index).sequence,
                        mask.as_ref(),
                        &mut self.rng,
                        &self.dict,
                        self.sequencing.guide(),
                    );
                    (mutant, Some(change), None)
                }
            };
            let ran = self.execute(&input);
            // Count a predicted input even when it ends the campaign: it may be the one
            // that found the bug.
            let (followed, satisfied) = match (&prediction, &mut self.predictor) {
                (Some(prediction), Some(predictor)) => (
                    predictor.follow(prediction),
                    predictor.satisfied(prediction).then_some(prediction),
                ),
                _ => (None, None),
            };
            let novelty = ran?;
            // A chain that failed where chains keep failing: the solver may see what the
            // secant method could not.
            #[cfg(feature = "solver")]
            if let Some(ended) = prediction
                .as_ref()
                .filter(|_| followed.is_none() && satisfied.is_none())
            {
                spent += self.solve_stalled(ended, mutator)?;
            }
            if change.is_some() && self.sequencing.aggressive_due(&input, &mut self.rng) {
                // The same mutant again with fuzzed storage: does state change its path?
                // (Right after its regular run, whose comparisons say what storage to try.)
                spent += 1;
                self.aggressive(&input)?;
            }
            if let Some(satisfied) = satisfied.filter(|_| self.chain_predictions) {
                // The comparison of the last transaction now goes the way it had to: the
                // state it leads to may be the next step of a chain (each step's input a
                // function of the state the one before left), which needs a call after it,
                // predicted in that state. Path ids cover the last transaction only, so
                // the sequence would not be kept for reaching a later step on a known path.
                if satisfied.key.tx as usize + 1 == satisfied.sequence.txs.len() {
                    spent += self.chain_steps(&satisfied.sequence, mutator)?;
                }
            }
            let predicting = self.predictor.is_some() && spent < energy;
            predicted = match (followed, change) {
                (Some(next), _) => Some(next),
                (None, Some(Change::Structure))
                    if predicting
                        && novelty == Novelty::Known
                        && self.rng.random_bool(TWIN_PROBABILITY) =>
                {
                    // A structure mutant on a known path may still be a new context for
                    // the metrics of its last transaction: pair it with a one-leaf twin.
                    spent += 1;
                    let (twin, change) = mutator.mutate_input(&input, &mut self.rng, &self.dict);
                    let costs = self
                        .predictor
                        .as_ref()
                        .map(|p| ParentCosts::of(p.costs(), change.first_tx()));
                    self.execute(&twin)?;
                    self.predict(&input, &costs.unwrap_or_default(), &twin, &change)
                }
                (None, Some(change)) if predicting => {
                    self.predict(&parent, &parent_costs, &input, &change)
                }
                _ => None,
            };
            spent += 1;
        }
        Ok(spent)
    }

    /// MuFuzz's mutation mask for entry `index` (§IV-B), once the schedule gives it
    /// `energy` enough to pay for its probes twice over: each probe changes one input of
    /// one transaction, and an input whose probe left the entry's path is held. Returns the
    /// runs spent.
    fn learn_mask(
        &mut self,
        index: usize,
        energy: u64,
        mutator: &Mutator<'_>,
    ) -> Result<u64, Stop> {
        let entry = self.corpus.get(index);
        let probes = Mask::probes(&entry.sequence, self.executor.surface());
        if energy < 2 * probes.len() as u64 {
            return Ok(0);
        }
        let (sequence, path) = (entry.sequence.clone(), entry.path);
        let mut mask = Mask::default();
        let mut runs = 0;
        for (tx, input) in probes {
            let Some(probe) = mutator.probe(&sequence, tx, input, &mut self.rng, &self.dict) else {
                continue;
            };
            self.execute(&probe)?;
            runs += 1;
            if self.last_path != path {
                mask.hold(tx, input);
            }
        }
        self.masks_learned.entries += 1;
        self.masks_learned.probed += runs;
        self.masks_learned.held += mask.held() as u64;
        // Probes may have grown the corpus (and, when full, replaced entries): the entry is
        // found again by its path.
        self.corpus.set_mask(path, mask);
        Ok(runs)
    }

    /// The first prediction from the mutant `input` (just run) of `parent` by `change`.
    fn predict(
        &mut self,
        parent: &Sequence,
        parent_costs: &ParentCosts,
        input: &Sequence,
        change: &Change,
    ) -> Option<Prediction> {
        self.predictor.as_ref()?.first(
            self.executor.surface(),
            self.executor.coverage(),
            parent,
            parent_costs,
            input,
            change,
            &mut self.rng,
        )
    }

    /// An aggressive run of `sequence` (a mutant whose regular run was just kept or
    /// discarded): the same transactions, with some of the slots the last function reads
    /// set before it, to fuzzed values or to what its comparisons compared them with. A
    /// path no regular run has taken (the regular run of the same inputs is in the corpus
    /// by now, if new) shows the function's coverage depends on state and marks it; the
    /// run itself is discarded, never kept or checked, since the state it fuzzed may be
    /// unreachable.
    fn aggressive(&mut self, sequence: &Sequence) -> Result<(), Stop> {
        self.shared.claim(self.id)?;
        let function = sequence.txs[sequence.txs.len() - 1].function;
        let slots = self.sequencing.aggressive_slots(function, &mut self.rng);
        let (rng, dict) = (&mut self.rng, &self.dict);
        let path = self
            .executor
            .run_aggressive(sequence, &slots, &mut |current| {
                abi::mutate_uint(current, 256, rng, dict)
            });
        self.shared.count_transactions(sequence.txs.len());
        if !self.corpus.contains(path) {
            self.sequencing.aggressive_found_new_path(function);
        }
        Ok(())
    }

    /// One single-transaction sequence per deployed contract's function, in surface order,
    /// so every function is in the corpus from the start (a created kind's can only follow
    /// the call that creates its contract).
    fn seed_corpus(&mut self, mutator: &Mutator<'_>) -> Result<(), Stop> {
        let seeds = self.seeds;
        for saved in seeds
            .iter()
            .skip(self.id)
            .step_by(self.shared.workers.max(1))
        {
            let mut sequence = saved.clone();
            // A saved corpus may come from a deeper campaign.
            sequence.txs.truncate(self.depth);
            self.execute(&sequence)?;
        }
        for function in 0..self.executor.surface().deployed {
            let tx = mutator.tx_for(function, &mut self.rng, &self.dict);
            self.execute(&Sequence { txs: vec![tx] })?;
        }
        // A corpus entry always exists now, unless the budget ran out first.
        if self.corpus.is_empty() {
            return Err(Stop);
        }
        self.seed_created(mutator)
    }

    /// Once a run first created a contract of a fuzzed kind, one sequence per function of
    /// that kind: the run through the creating transaction, then a call of the function,
    /// so that created contracts enter the corpus as setup's did in `seed_corpus`.
    fn seed_created(&mut self, mutator: &Mutator<'_>) -> Result<(), Stop> {
        while !self.to_seed.is_empty() {
            for (mut sequence, function) in std::mem::take(&mut self.to_seed) {
                if sequence.txs.len() < self.depth {
                    let tx = mutator.tx_for(function, &mut self.rng, &self.dict);
                    sequence.txs.push(tx);
                    self.execute(&sequence)?;
                }
            }
        }
        Ok(())
    }

    /// Runs `sequence`, feeding every stage; keeps it on a new path id. A violation is
    /// reported to the other workers; it stops the campaign when that fails fast, and
    /// otherwise the run goes on like any other (a violating input may lead to the next
    /// bug).
    fn execute(&mut self, sequence: &Sequence) -> Result<Novelty, Stop> {
        self.shared.claim(self.id)?;
        // The stages that keep runs for the states they reach see no random walk, which is
        // never kept: the states it reached first would be seen and lost.
        let (novelty, conditions): (&mut dyn Sink, &mut dyn Sink) = if self.walking {
            (&mut (), &mut ())
        } else {
            (&mut self.novelty, &mut self.conditions)
        };
        let run = self.executor.run(
            sequence,
            &mut [
                &mut self.operands as &mut dyn Sink,
                &mut self.predictor,
                &mut self.sequencing,
                &mut self.targeting,
                &mut self.guidance,
                novelty,
                &mut self.revert_guidance,
                conditions,
            ],
        );
        self.last_path = run.path;
        self.ran += sequence.txs.len() as u64;
        let executed = match run.violations.first() {
            Some(found) if self.shared.fail_fast() => found.tx + 1,
            _ => sequence.txs.len(),
        };
        // Calls `vm.assume` rejected are not calls (forge draws another in their place).
        self.shared
            .count_transactions(executed.saturating_sub(run.rejected));
        self.shared.count_rejected(run.rejected);
        if let Some(targeting) = &mut self.targeting {
            for (target, tx) in targeting.newly_reached() {
                self.shared.reach(target, sequence.through(tx));
            }
        }
        if !run.violations.is_empty() {
            self.report_violations(sequence, run.violations);
            if self.shared.fail_fast() {
                return Err(Stop);
            }
        }
        let costs = self.predictor.as_ref().map_or(&[][..], Predictor::costs);
        // A walk is usually longer than the depth, and mutants of it could not be made.
        let mut kept = !self.walking && self.corpus.observe(run.path, sequence, costs);
        if let Some(guidance) = self.guidance.as_mut().filter(|_| !kept && !self.walking) {
            // Its last transaction's path is known, but the state it left is closer to
            // breaking an invariant than any before.
            if let Some(key) = guidance.closer() {
                kept = self.corpus.observe(key, sequence, costs);
                guidance.kept += u64::from(kept);
            }
        }
        if let Some(novelty) = self.novelty.as_mut().filter(|_| !kept && !self.walking) {
            // Its last transaction's path is known, but a transaction of it left the
            // contracts in a state no run had.
            if let Some(key) = novelty.novel() {
                kept = self.corpus.observe_as(key, sequence, costs, KeptFor::State);
                novelty.kept += u64::from(kept);
            }
        }
        if let Some(conditions) = self.conditions.as_mut().filter(|_| !kept && !self.walking) {
            // Its last transaction's path is known, but what its conditions compared in
            // storage stood otherwise.
            if let Some(key) = conditions.novel() {
                kept = self
                    .corpus
                    .observe_as(key, sequence, costs, KeptFor::Condition);
                conditions.kept += u64::from(kept);
            }
        }
        // What is kept, when not the whole run.
        let mut trimmed = None;
        if let Some(reverts) = self.revert_guidance.as_mut().filter(|_| !self.walking) {
            // A call of a function that always reverted got closer to succeeding: the
            // calls before it are on the way to a prefix it needs. (Taken in whether kept
            // or not, so that a run kept for its path also sets the bar.)
            if let Some(key) = reverts.closer().filter(|_| !kept) {
                let prefix = reverts.trimmed(sequence);
                // The costs are the last transaction's, which trimming may have cut.
                let costs = if prefix == *sequence { costs } else { &[] };
                kept = self.corpus.observe(key, &prefix, costs);
                reverts.kept += u64::from(kept);
                trimmed = Some(prefix).filter(|_| kept);
            }
        }
        let kept_sequence = trimmed.as_ref().unwrap_or(sequence);
        if let Some(novelty) = self.novelty.as_mut().filter(|_| !self.walking) {
            for key in novelty.reached_again() {
                self.corpus.count(key);
            }
        }
        if let Some(key) = (self.conditions.as_ref())
            .filter(|_| !self.walking)
            .and_then(ConditionStates::reached_again)
        {
            self.corpus.count(key);
        }
        if kept {
            for &operand in &self.operands.0 {
                self.dict.observe(operand);
            }
            if let Some(predictor) = &mut self.predictor {
                predictor.corpus_grew();
            }
            self.fresh.push(kept_sequence.clone());
            self.shared.count_corpus(self.corpus.len());
        }
        self.sequencing.learn(sequence, kept, run.new_edges > 0);
        for (function, tx) in self.sequencing.take_enabled() {
            self.to_seed.push((sequence.through(tx), function));
        }
        if run.new_edges > 0 {
            self.shared.count_edges(self.executor.coverage().len());
        }
        if kept {
            if let Some(targeting) = self.targeting.as_mut().filter(|t| t.steers()) {
                let index = self.corpus.len() - 1;
                targeting.analyze(&mut self.executor, &mut self.corpus, index, kept_sequence);
            }
        }
        Ok(if kept { Novelty::Kept } else { Novelty::Known })
    }

    /// Reports the violations `sequence` showed that this worker has not reported yet, each
    /// with the sequence cut after its transaction.
    fn report_violations(&mut self, sequence: &Sequence, violations: Vec<Found>) {
        for found in violations {
            let identity = found.violation.identity();
            if self.reported.insert(identity.clone()) {
                self.shared
                    .report(identity, sequence.through(found.tx), found);
            }
        }
    }

    /// Publishes this worker's new entries and runs the other workers' (keeping those
    /// with a path id new to this worker).
    fn exchange(&mut self) -> Result<(), Stop> {
        let incoming = self
            .shared
            .exchange(self.id, &mut self.fresh, &mut self.imported);
        for sequence in incoming {
            self.execute(&sequence)?;
        }
        // Imported entries were pushed to `fresh` again; they are already in the pool.
        self.fresh.clear();
        Ok(())
    }

    fn report(mut self) -> WorkerReport {
        let blocks = self.executor.take_blocks();
        let mut corpus_lengths = Vec::new();
        for entry in self.corpus.entries() {
            SequenceStats::count_length(&mut corpus_lengths, entry.sequence.txs.len());
        }
        WorkerReport {
            coverage: self.executor.coverage().clone(),
            paths: self.corpus.entries().iter().map(|e| e.path).collect(),
            functions: self.executor.function_stats(),
            predictions: self
                .predictor
                .as_ref()
                .map(Predictor::stats)
                .unwrap_or_default(),
            lengths: self.sequencing.lengths().to_vec(),
            corpus_lengths,
            aggressive_runs: self.sequencing.aggressive_runs(),
            masks: self.masks_learned,
            guided: self.guidance.as_ref().map_or(0, |g| g.kept),
            novel: self.novelty.as_ref().map_or(0, |n| n.kept),
            unreverting: self.revert_guidance.as_ref().map_or(0, |r| r.kept),
            conditioned: self.conditions.as_ref().map_or(0, |c| c.kept),
            walks: self.walks_run,
            walked: self.walked,
            dependence: self.sequencing.dependence().to_vec(),
            time: self.executor.time(),
            blocks,
            bounds: BoundsHit {
                corpus_evicted: self.corpus.evicted(),
                patterns_forgotten: self.sequencing.patterns_forgotten(),
                verdicts_forgotten: self
                    .targeting
                    .as_ref()
                    .map_or(0, Targeting::verdicts_forgotten),
                exchange_dropped: 0,
                misses_forgotten: self
                    .predictor
                    .as_ref()
                    .map_or(0, Predictor::sites_forgotten),
            },
            corpus: self
                .corpus
                .entries()
                .iter()
                .map(|entry| entry.sequence.clone())
                .collect(),
            lookahead: LookaheadStats {
                ids: self.corpus.lookahead_ids(),
                ..self
                    .targeting
                    .as_ref()
                    .map(Targeting::stats)
                    .unwrap_or_default()
            },
        }
    }
}
