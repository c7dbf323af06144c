//! The campaign engine: workers running the greybox loop over sequences of typed
//! transactions. It does no I/O and prints nothing; it returns what it found and what it did.
//!
//! [`Engine`] is the façade a campaign composes: it checks the post-setup state, replays
//! saved failures, fuzzes with the workers and shrinks what they found, and answers in
//! `outcome` types. Inside:
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
//! - `novelty`: sequences kept for the classes of the storage words they left;
//! - `reach`: which targets (changed lines) runs reached;
//! - `worker`: one worker's loop and what the workers share;
//! - `replay`: saved failures rebuilt against today's surface;
//! - `shrink`: the smallest sequence that still shows a violation.

mod conditions;
mod corpus;
mod executor;
mod fuzz;
mod guidance;
mod held;
#[cfg(test)]
mod hostile;
mod input;
mod mask;
mod minimise;
mod mutate;
mod novelty;
mod plan;
mod prediction;
mod replay;
mod revert_guidance;
mod sequencing;
mod shared_by_workers;
mod shrink;
mod surface;
mod targeting;
mod timeline;
mod worker;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::Result;
use crate::abi::Dictionary;
use crate::chain::{Chain, Warp};
use crate::config::PanicSet;
use crate::config::{Config, DetectorSet};
use crate::oracle::Oracles;
use crate::outcome::{Call, Failure, LineCoverage, Stats, TargetReach, Violation, Warps};
use crate::output::regression::{Entry, StoredCall};
use crate::targets::line_coverage::{deployed_artifacts, line_coverage};
use executor::{Executor, Found};
use input::Sequence;
use surface::{At, Surface};

pub(crate) use plan::{Fuzz, Seeds};
pub(crate) use prediction::{SOLVER_QUERY_WALL, Z3Program};
pub(crate) use shared_by_workers::Sighting;
pub(crate) use shrink::ShrinkBudget;
pub(crate) use targeting::reach::Watch;

/// The engine of one campaign, on the campaign's own chain in its post-setup state: the
/// post-setup check, replays and shrinking run here; fuzzing runs on workers with chains of
/// their own, built by the same setup.
pub(crate) struct Engine<'a> {
    executor: Executor<'a>,
    oracles: &'a Oracles<'a>,
    /// The initial dictionary: addresses and the fuzzed contracts' bytecode constants.
    dictionary: Dictionary,
}

/// A saved failure rebuilt against an engine's fuzzed functions ([`Engine::resolve`]).
pub(crate) struct Resolved {
    sequence: Sequence,
    /// The seed of the campaign that found it.
    seed: u64,
}

/// What a fuzzing run found besides its statistics.
pub(crate) struct Fuzzed {
    /// The distinct violations, in the order found, to shrink.
    pub(crate) sightings: Vec<Sighting>,
    /// Per target (as in [`Fuzz::targets`]): the first run that reached it.
    pub(crate) reaches: Vec<Option<TargetReach>>,
    /// The corpus to keep (with [`Fuzz::keep_corpus`]).
    pub(crate) corpus: KeptSequences,
    /// The lines fuzzing executed (with [`Fuzz::lines`]).
    pub(crate) lines: Option<LineCoverage>,
}

/// The corpus a campaign keeps: the fewest of the candidates (the sequences it loaded and
/// those the workers kept) that cover every branch edge they covered.
#[derive(Debug, Default)]
pub(crate) struct KeptSequences {
    /// The kept sequences, decoded.
    pub(crate) sequences: Vec<Vec<Call>>,
    /// The candidates they were chosen from.
    pub(crate) candidates: usize,
    /// The edges the candidates run, and so the kept sequences, cover.
    pub(crate) edges: usize,
    /// Candidates minimisation's time bound left unrun, kept as they are.
    pub(crate) unminimised: usize,
}

impl<'a> Engine<'a> {
    /// The engine over what `chain` (after setup) fuzzes, checked by `oracles`, with the
    /// switches of `config` (`demand_driven`: path ids cover the last transaction;
    /// `fail_fast`: a run ends at its first violation). Functions the fuzzer cannot call are
    /// skipped with a warning in `warnings`.
    pub(crate) fn new(
        chain: Chain,
        oracles: &'a Oracles<'a>,
        config: &Config,
        warnings: &mut Vec<String>,
    ) -> Result<Engine<'a>> {
        let surface = Surface::for_campaign(&chain, oracles, warnings)?;
        let dictionary = dictionary(&chain, &surface);
        let mut executor = Executor::new(
            chain,
            surface,
            oracles,
            config.demand_driven,
            config.fail_fast,
        );
        executor.skip_unchanged_invariants(config.skip_unchanged_invariants);
        Ok(Engine {
            executor,
            oracles,
            dictionary,
        })
    }

    /// The chain in its post-setup state.
    pub(crate) fn chain(&self) -> &Chain {
        self.executor.chain()
    }

    /// The senders the fuzzer calls from.
    pub(crate) fn senders(&self) -> &[alloy_primitives::Address] {
        &self.executor.surface().senders
    }

    /// A short hash of what shapes failures: Panic codes, detectors, senders, fuzzed
    /// functions. Saved with each regression entry, so a replay under other settings can
    /// say so.
    pub(crate) fn settings_hash(&self, panics: &PanicSet, detectors: &DetectorSet) -> String {
        let surface = self.executor.surface();
        let mut text = String::new();
        for code in panics.codes() {
            text.push_str(&format!("{code:x},"));
        }
        text.push_str(&format!("detectors={detectors};"));
        for sender in &surface.senders {
            text.push_str(&format!("{sender},"));
        }
        for f in &surface.functions {
            text.push_str(&format!("{}.{},", f.contract, f.signature));
        }
        let digest = alloy_primitives::keccak256(text.as_bytes());
        alloy_primitives::hex::encode(&digest[..8])
    }

    /// The violations of the post-setup state itself, before any transaction.
    pub(crate) fn check_initial_state(&mut self) -> Vec<Violation> {
        self.executor.check_initial_state()
    }

    /// Saved sequences rebuilt against this engine's fuzzed functions, and how many no
    /// longer fit (a function, sender or argument type that changed).
    pub(crate) fn seeds(&self, saved: &[Vec<StoredCall>]) -> (Seeds, usize) {
        let mut seeds = Seeds::default();
        let mut stale = 0;
        for calls in saved {
            match replay::resolve_calls(calls, self.executor.surface()) {
                Ok(sequence) if !sequence.txs.is_empty() => seeds.sequences.push(sequence),
                Ok(_) => {}
                Err(_) => stale += 1,
            }
        }
        (seeds, stale)
    }

    /// A saved failure rebuilt against this engine's fuzzed functions; `Err` says why the
    /// entry is stale.
    pub(crate) fn resolve(&self, entry: &Entry) -> std::result::Result<Resolved, String> {
        Ok(Resolved {
            sequence: replay::resolve(entry, self.executor.surface())?,
            seed: entry.seed,
        })
    }

    /// Replays a resolved saved failure: the violations it still shows (each with the
    /// sequence cut after its call; only the first when the engine fails fast).
    pub(crate) fn replay(&mut self, saved: Resolved) -> Vec<Failure> {
        let Resolved { sequence, seed } = saved;
        let run = self.executor.run(&sequence, &mut ());
        run.violations
            .into_iter()
            .map(|found| {
                let mut failure = self.failure(&sequence.through(found.tx), found, seed);
                failure.from_regression = true;
                failure
            })
            .collect()
    }

    /// Fuzzes with `plan.config.workers` workers until the budget is spent, a violation is
    /// found (failing fast) or (when asked) every target was reached; writes what they did
    /// into `stats`.
    pub(crate) fn fuzz(&mut self, plan: &Fuzz<'_>, stats: &mut Stats) -> Result<Fuzzed> {
        let fuzz::WorkersFound {
            sightings,
            reaches,
            corpus,
            blocks,
        } = fuzz::run(
            plan,
            self.oracles,
            self.executor.surface(),
            &self.dictionary,
            stats,
        )?;
        let corpus = if plan.keep_corpus {
            self.minimise(plan, corpus)?
        } else {
            KeptSequences::default()
        };
        let reaches = reaches
            .into_iter()
            .map(|reach| {
                reach.map(|reach| TargetReach {
                    after_sequences: reach.after_sequences,
                    after: reach.after,
                    calls: self.executor.calls(&reach.sequence),
                })
            })
            .collect();
        let lines = plan.lines.then(|| {
            let chain = self.executor.chain();
            let mut listed = deployed_artifacts(chain);
            listed.extend(
                self.executor
                    .surface()
                    .kinds
                    .iter()
                    .map(|kind| (Arc::clone(&kind.artifact), None)),
            );
            line_coverage(&blocks, &listed)
        });
        Ok(Fuzzed {
            sightings,
            reaches,
            corpus,
            lines,
        })
    }

    /// The fewest of the loaded sequences and the workers' `corpus` that cover every edge
    /// they cover, run on a chain of their own (these runs are not the campaign's).
    fn minimise(&self, plan: &Fuzz<'_>, corpus: Vec<Sequence>) -> Result<KeptSequences> {
        let mut candidates: Vec<Sequence> = plan.seeds.sequences.clone();
        for sequence in &mut candidates {
            // As the workers ran them: a saved corpus may come from a deeper campaign.
            sequence.txs.truncate(plan.config.depth as usize);
        }
        candidates.extend(corpus);
        let chain = (plan.make_chain)()?;
        let surface = Surface::for_campaign(&chain, self.oracles, &mut Vec::new())?;
        // Every transaction runs, violations or not: its edges count.
        let mut executor = Executor::new(chain, surface, self.oracles, true, false);
        // Edges as the workers count them.
        executor.record_data_decisions(plan.config.data_decisions);
        let deadline = Instant::now() + shrink::phase_time(plan.config.time);
        let minimised = minimise::minimise(&mut executor, &candidates, deadline);
        Ok(KeptSequences {
            sequences: minimised
                .kept
                .iter()
                .map(|&i| executor.calls(&candidates[i]))
                .filter(|calls| !calls.is_empty())
                .collect(),
            candidates: candidates.len(),
            edges: minimised.edges,
            unminimised: minimised.unrun,
        })
    }

    /// Shrinks `sighting` within `budget` into a failure of the campaign (with `seed`),
    /// with what shrinking spent.
    pub(crate) fn shrink(
        &mut self,
        sighting: Sighting,
        budget: ShrinkBudget,
        seed: u64,
    ) -> Failure {
        let found_len = sighting.sequence.txs.len();
        let (sequence, found, spent) = shrink::shrink(
            &mut self.executor,
            sighting.sequence,
            sighting.found,
            budget,
        );
        let mut failure = self.failure(&sequence, found, seed);
        failure.found_len = found_len;
        failure.found_after = sighting.after;
        failure.found_after_sequences = sighting.after_sequences;
        failure.shrink = Some(spent);
        failure
    }

    /// Adds the runs of this engine's own chain (replays, not shrinking) to `stats`, and
    /// its per-function counts when no fuzzing run gave them.
    pub(crate) fn count_own_runs(&self, stats: &mut Stats) {
        if stats.functions.is_empty() {
            stats.functions = self.executor.function_stats();
        }
        stats.sequences += self.executor.sequences();
        stats.transactions += self.executor.transactions();
    }

    /// The report form of a failing sequence.
    fn failure(&mut self, sequence: &Sequence, found: Found, seed: u64) -> Failure {
        let warps = self.warps_in(sequence, &found.violation);
        let case_calls = match found.violation {
            Violation::Property { .. } => self.executor.case_calls(sequence),
            _ => Vec::new(),
        };
        Failure {
            violation: found.violation,
            calls: self.executor.calls(sequence),
            last_status: found.status,
            messages: found.messages,
            seed,
            found_len: sequence.txs.len(),
            found_after: Duration::ZERO,
            found_after_sequences: 0,
            from_regression: false,
            regression_file: None,
            labels: Default::default(),
            shrink: None,
            warps,
            case_calls,
        }
    }

    /// Whether `sequence` waits between calls and whether `violation` needs it: the
    /// sequence run once more with no wait at all.
    fn warps_in(&mut self, sequence: &Sequence, violation: &Violation) -> Warps {
        if sequence.txs.iter().all(|tx| tx.warp == Warp::default()) {
            return Warps::None;
        }
        let mut still = sequence.clone();
        for tx in &mut still.txs {
            tx.warp = Warp::default();
        }
        let run = self.executor.run(&still, &mut ());
        if run
            .violations
            .iter()
            .any(|f| f.violation.same_bug(violation))
        {
            Warps::Incidental
        } else {
            Warps::Needed
        }
    }
}

/// Senders and deployed contracts as addresses (only the allowed ones, when setup restricted
/// address arguments), and the fuzzed contracts' bytecode constants.
fn dictionary(chain: &Chain, surface: &Surface) -> Dictionary {
    let mut dictionary = match &surface.addresses {
        Some(allowed) => Dictionary::closed(allowed.clone()),
        None => Dictionary::new(surface::senders_and_contracts(chain)),
    };
    let mut seen = Vec::new();
    for function in &surface.functions {
        let At::Deployed(address) = function.at else {
            continue;
        };
        if seen.contains(&address) {
            continue;
        }
        seen.push(address);
        if let Some(artifact) = chain.artifact_at(address) {
            dictionary.add_code_constants(&artifact.runtime_code);
        }
    }
    // The contracts fuzzed transactions may create compare against their constants too.
    for kind in &surface.kinds {
        dictionary.add_code_constants(&kind.artifact.runtime_code);
    }
    dictionary
}
