//! A fuzzing run: one worker per thread (one on the calling thread, so a single-worker
//! campaign is deterministic), each with a chain of its own built by the campaign's setup,
//! sharing the budget and their findings; their statistics merged into the campaign's.

use std::collections::HashSet;

use alloy_primitives::Address;

use crate::abi::Dictionary;
use crate::config::Steering;
use crate::lookahead::Lookahead;
use crate::oracle::Oracles;
use crate::outcome::{
    BoundsHit, FunctionStats, LookaheadStats, PredictionStats, SequenceStats, StateDependent,
    Stats, TimeSplit,
};
use crate::targets::line_coverage::BlockCounts;
use crate::{Error, Result};

use super::executor::Executor;
use super::input::Sequence;
use super::plan::Fuzz;
use super::shared_by_workers::{Shared, Sighting};
use super::surface::{At, Surface};
use super::targeting::Targeting;
use super::targeting::reach::{self, Reach};
use super::worker::{Worker, WorkerReport};

/// Runs `plan.config.workers` workers on `surface` (the campaign chain's; every worker's
/// must match, since workers exchange sequences by function and sender index) from
/// `dictionary`, until the budget is spent or (failing fast) one finds a violation. Worker
/// `i` is seeded with `plan.seed + i`. Writes what they did into `stats`; returns the
/// distinct violations found, in order, the first reach of each target, and (when the plan
/// keeps it) every worker's corpus.
pub(super) fn run(
    plan: &Fuzz<'_>,
    oracles: &Oracles<'_>,
    surface: &Surface,
    dictionary: &Dictionary,
    stats: &mut Stats,
) -> Result<WorkersFound> {
    let workers = plan.config.workers.max(1) as usize;
    let shared = Shared::new(plan);
    let run_worker = |id| run_worker(id, plan, oracles, surface, dictionary, &shared);
    let mut reports: Vec<WorkerReport> = if workers == 1 {
        vec![run_worker(0)?]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|id| {
                    let run_worker = &run_worker;
                    scope.spawn(move || run_worker(id))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect::<Result<Vec<_>>>()
        })?
    };
    let mut blocks = BlockCounts::default();
    for report in &mut reports {
        blocks.merge(std::mem::take(&mut report.blocks));
    }
    let mut corpus: Vec<Sequence> = Vec::new();
    if plan.keep_corpus {
        for report in &reports {
            for sequence in &report.corpus {
                if !corpus.contains(sequence) {
                    corpus.push(sequence.clone());
                }
            }
        }
    }
    merge(reports, surface, stats);
    stats.bounds.exchange_dropped = shared.exchange_dropped();
    stats.lookahead.steering = plan.config.lookahead;
    stats.sequences = shared.sequences_run();
    stats.transactions = shared.transactions();
    (stats.rejected, stats.rejected_too_many) = shared.rejected();
    stats.timeline = shared.take_timeline();
    Ok(WorkersFound {
        sightings: shared.take_sightings(),
        reaches: shared.take_reaches(),
        corpus,
        blocks,
    })
}

/// What the workers found besides their statistics.
pub(super) struct WorkersFound {
    /// The distinct violations, in the order found.
    pub(super) sightings: Vec<Sighting>,
    /// Per target: the first run that reached it.
    pub(super) reaches: Vec<Option<Reach>>,
    /// Every worker's corpus, each sequence once (empty unless the plan keeps it).
    pub(super) corpus: Vec<Sequence>,
    /// The blocks the workers' runs entered, and how often (empty unless the plan wants
    /// line coverage).
    pub(super) blocks: BlockCounts,
}

/// The workers' statistics, summed (per function and per length), unioned (edges, path
/// ids) or joined (state dependence), into `stats`.
fn merge(reports: Vec<WorkerReport>, surface: &Surface, stats: &mut Stats) {
    let mut coverage = HashSet::new();
    let mut paths = HashSet::new();
    let mut functions: Vec<FunctionStats> = Vec::new();
    let mut predictions = PredictionStats::default();
    let mut sequencing = SequenceStats::default();
    let mut lookahead = LookaheadStats::default();
    let mut dependence = vec![None; surface.functions.len()];
    let mut time = TimeSplit::default();
    let mut bounds = BoundsHit::default();
    for report in reports {
        time.add(report.time);
        bounds.add(report.bounds);
        predictions.add(report.predictions);
        SequenceStats::add_lengths(&mut sequencing.runs_by_length, &report.lengths);
        SequenceStats::add_lengths(&mut sequencing.corpus_by_length, &report.corpus_lengths);
        sequencing.aggressive_runs += report.aggressive_runs;
        sequencing.walks += report.walks;
        sequencing.walk_transactions += report.walked;
        sequencing.masks.add(report.masks);
        lookahead.add(report.lookahead);
        for (known, learned) in dependence.iter_mut().zip(report.dependence) {
            *known = known.or(learned);
        }
        coverage.extend(report.coverage);
        paths.extend(report.paths);
        stats.guided += report.guided;
        stats.novel += report.novel;
        stats.unreverting += report.unreverting;
        stats.conditioned += report.conditioned;
        if functions.is_empty() {
            functions = report.functions;
        } else {
            for (total, more) in functions.iter_mut().zip(report.functions) {
                total.calls += more.calls;
                total.reverts += more.reverts;
                total.revert_causes.merge(&more.revert_causes);
            }
        }
    }
    sequencing.state_dependent = surface
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
        .collect();
    stats.edges = coverage.len();
    stats.corpus = paths.len();
    stats.functions = functions;
    stats.predictions = predictions;
    stats.sequencing = sequencing;
    stats.lookahead = lookahead;
    stats.time = time;
    stats.bounds.add(bounds);
}

/// The lookahead analysis of every fuzzed contract's deployed code towards the targets in
/// it (none for a contract without targets: it may still call into one that has them).
fn lookaheads(executor: &Executor<'_>, targets: &[reach::Watch]) -> Vec<(Address, Lookahead)> {
    let mut addresses: Vec<Address> = executor
        .surface()
        .functions
        .iter()
        .filter_map(|f| match f.at {
            At::Deployed(address) => Some(address),
            // Created contracts have no fixed code to analyse; targets are placed in
            // setup's contracts.
            At::Created(_) => None,
        })
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
    plan: &'a Fuzz<'a>,
    oracles: &'a Oracles<'a>,
    surface: &Surface,
    dictionary: &Dictionary,
    shared: &'a Shared<'a>,
) -> Result<WorkerReport> {
    let mut chain = (plan.make_chain)()?;
    chain.watch_targets(plan.targets.iter().map(|w| (w.address, w.pcs.clone())));
    let own = Surface::for_campaign(&chain, oracles, &mut Vec::new())?;
    if !own.same_as(surface) {
        return Err(Error::Config(
            "the setup function is not deterministic: another run of it deployed different \
             contracts, addresses or senders; it runs once per worker and must do the same \
             every time"
                .into(),
        ));
    }
    let mut executor = Executor::new(
        chain,
        own,
        oracles,
        plan.config.demand_driven,
        plan.config.fail_fast,
    );
    executor.record_data_decisions(plan.config.data_decisions);
    executor.skip_unchanged_invariants(plan.config.skip_unchanged_invariants);
    executor.observe_checks(plan.config.invariant_guidance && executor.has_invariants());
    if plan.lines {
        executor.record_blocks();
    }
    if plan.revert_causes {
        executor.record_revert_causes();
    }
    // Targets are watched in every targeted campaign, and steered towards unless the
    // campaign only reports them (ICSE'20's configuration A).
    let targeting = (!plan.targets.is_empty()).then(|| {
        let lookaheads = if plan.config.lookahead == Steering::Off {
            Vec::new()
        } else {
            lookaheads(&executor, plan.targets)
        };
        Targeting::new(
            reach::TargetIndex::new(plan.targets),
            lookaheads,
            plan.config.lookahead.analyses(),
        )
    });
    let worker = Worker::new(id, executor, dictionary.clone(), plan, targeting, shared);
    Ok(worker.run())
}
