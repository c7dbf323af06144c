//! The campaign engine: workers running the greybox loop over sequences of typed
//! transactions. It does no I/O and prints nothing; it returns what it found and what it did.
//!
//! - `input`: sequences of transactions made of typed leaves, and what a mutation changed;
//! - `surface`: the fuzzed functions (ABI functions, `receive()`, `fallback()`) and senders,
//!   what setup declared about them (selections, address arguments, bounds), encoding and
//!   decoding of calls;
//! - `mutate`: new transactions and mutants;
//! - `executor`: running a sequence under the oracles, with coverage feedback;
//! - `corpus`: kept sequences by path id of the last transaction, and the power schedule;
//! - `cost`, `predict`: input prediction (HARVEY §4);
//! - `dataflow`: what each function reads and writes, which functions depend on state;
//! - `pools`: transactions and prefixes that reached new state (HARVEY §5);
//! - `reach`: which targets (changed lines) runs reached;
//! - `worker`: one worker's loop and what the workers share.

mod corpus;
pub(crate) mod cost;
mod dataflow;
pub(crate) mod executor;
pub(crate) mod input;
pub(crate) mod mutate;
mod pools;
mod predict;
pub(crate) mod reach;
pub(crate) mod surface;
mod worker;

use std::collections::HashSet;
use std::time::Instant;

use crate::abi::Dictionary;
use crate::chain::Chain;
use crate::config::Config;
use crate::error::Result;
use crate::oracle::Oracles;
use alloy_primitives::Address;

use crate::config::Steering;
use crate::lookahead::Lookahead;
use crate::outcome::{
    FunctionStats, LookaheadStats, PredictionStats, Progress, SequenceStats, StateDependent,
};
use executor::Executor;
use surface::Surface;
pub(crate) use worker::Sighting;
use worker::{Shared, Targeting, Worker, WorkerReport};

/// Everything a campaign's engine run needs.
pub(crate) struct EngineInput<'a> {
    pub(crate) config: &'a Config,
    pub(crate) oracles: &'a Oracles<'a>,
    /// Builds a chain in its post-setup state (once per worker).
    pub(crate) make_chain: &'a (dyn Fn() -> Result<Chain> + Sync),
    /// The initial dictionary: addresses and bytecode constants.
    pub(crate) dictionary: &'a Dictionary,
    /// The surface the campaign's own chain has after setup; every worker's must match,
    /// since workers exchange sequences by function and sender index.
    pub(crate) surface: &'a Surface,
    pub(crate) progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
    /// When the campaign started (time budget and time-to-violation count from here).
    pub(crate) start: Instant,
    /// The targets whose first reach to record (empty: an untargeted campaign).
    pub(crate) targets: &'a [reach::Watch],
    /// Stop once every target was reached.
    pub(crate) stop_at_targets: bool,
}

/// What the engine found and did.
pub(crate) struct EngineResult {
    pub(crate) sighting: Option<Sighting>,
    pub(crate) sequences: u64,
    pub(crate) transactions: u64,
    /// Distinct edges over all workers.
    pub(crate) edges: usize,
    /// Distinct path ids in the workers' corpora.
    pub(crate) corpus: usize,
    /// Per function, summed over workers.
    pub(crate) functions: Vec<FunctionStats>,
    pub(crate) predictions: PredictionStats,
    pub(crate) sequencing: SequenceStats,
    /// Per target (as in [`EngineInput::targets`]): the first run that reached it.
    pub(crate) reaches: Vec<Option<reach::Reach>>,
    pub(crate) lookahead: LookaheadStats,
}

/// Runs `config.workers` workers until the budget is spent or one finds a violation.
/// Worker `i` is seeded with `config.seed + i`; one worker runs on the calling thread, so a
/// single-worker campaign is deterministic.
pub(crate) fn run(input: &EngineInput<'_>) -> Result<EngineResult> {
    let workers = input.config.workers.max(1) as usize;
    let shared = Shared::new(
        input.start,
        workers,
        input.config.run_bound(),
        input.config.time,
        input.progress,
        input.targets.len(),
        input.stop_at_targets,
    );
    let reports: Vec<WorkerReport> = if workers == 1 {
        vec![run_worker(0, input, &shared)?]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|id| {
                    let shared = &shared;
                    scope.spawn(move || run_worker(id, input, shared))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect::<Result<Vec<_>>>()
        })?
    };
    let mut coverage = HashSet::new();
    let mut paths = HashSet::new();
    let mut functions: Vec<FunctionStats> = Vec::new();
    let mut predictions = PredictionStats::default();
    let mut sequencing = SequenceStats::default();
    let mut lookahead = LookaheadStats::default();
    let mut dependence = vec![None; input.surface.functions.len()];
    for report in reports {
        predictions.add(report.predictions);
        SequenceStats::add_lengths(&mut sequencing.runs_by_length, &report.lengths);
        SequenceStats::add_lengths(&mut sequencing.corpus_by_length, &report.corpus_lengths);
        sequencing.aggressive_runs += report.aggressive_runs;
        lookahead.add(report.lookahead);
        for (known, learned) in dependence.iter_mut().zip(report.dependence) {
            *known = known.or(learned);
        }
        coverage.extend(report.coverage);
        paths.extend(report.paths);
        if functions.is_empty() {
            functions = report.functions;
        } else {
            for (total, more) in functions.iter_mut().zip(report.functions) {
                total.calls += more.calls;
                total.reverts += more.reverts;
            }
        }
    }
    Ok(EngineResult {
        sighting: shared.take_sighting(),
        reaches: shared.take_reaches(),
        lookahead,
        sequences: shared.sequences_run(),
        transactions: shared
            .transactions
            .load(std::sync::atomic::Ordering::Relaxed),
        edges: coverage.len(),
        corpus: paths.len(),
        functions,
        predictions,
        sequencing: SequenceStats {
            state_dependent: input
                .surface
                .functions
                .iter()
                .zip(dependence)
                .filter_map(|(f, reason)| {
                    reason.map(|reason| StateDependent {
                        contract: f.contract.clone(),
                        signature: f.signature.clone(),
                        reason,
                    })
                })
                .collect(),
            ..sequencing
        },
    })
}

/// The lookahead analysis of every fuzzed contract's deployed code towards the targets in
/// it (none for a contract without targets: it may still call into one that has them).
fn lookaheads(executor: &Executor<'_>, targets: &[reach::Watch]) -> Vec<(Address, Lookahead)> {
    let mut addresses: Vec<Address> = executor
        .surface()
        .functions
        .iter()
        .map(|f| f.address)
        .collect();
    addresses.sort();
    addresses.dedup();
    addresses
        .into_iter()
        .map(|address| {
            let pcs = targets
                .iter()
                .filter(|w| w.address == address)
                .flat_map(|w| w.pcs.iter().copied());
            (address, Lookahead::new(&executor.code(address), pcs))
        })
        .collect()
}

/// Builds worker `id`'s chain and runs it.
fn run_worker<'a>(
    id: usize,
    input: &'a EngineInput<'a>,
    shared: &'a Shared<'a>,
) -> Result<WorkerReport> {
    let mut chain = (input.make_chain)()?;
    chain.watch_targets(input.targets.iter().map(|w| (w.address, w.pcs.clone())));
    let surface = Surface::from_chain(&chain, &mut Vec::new())?;
    if !surface.same_as(input.surface) {
        return Err(crate::error::Error::Config(
            "the setup function is not deterministic: another run of it deployed different \
             contracts, addresses or senders; it runs once per worker and must do the same \
             every time"
                .into(),
        ));
    }
    let executor = Executor::new(
        chain,
        surface,
        input.oracles,
        input.config.prediction,
        input.config.demand_driven,
    );
    let lookaheads = if input.config.lookahead != Steering::Off && !input.targets.is_empty() {
        lookaheads(&executor, input.targets)
    } else {
        Vec::new()
    };
    let seed = input.config.seed.wrapping_add(id as u64);
    let worker = Worker::new(
        id,
        seed,
        executor,
        input.dictionary.clone(),
        input.config,
        Targeting {
            index: reach::TargetIndex::new(input.targets),
            lookaheads,
            steering: input.config.lookahead,
        },
        shared,
    );
    Ok(worker.run())
}
