//! The runs of joint prediction (`engine::joint` is its search and arithmetic): when an
//! entry is picked, sometimes a branch of its last call is chosen and searched for with
//! every integer input of that call moving, and those of the calls before it that write
//! what it reads.

use std::ops::RangeInclusive;

use rand::Rng;

use super::{Mutator, Worker};
use crate::engine::input::Sequence;
use crate::engine::prediction::Joint;
use crate::engine::prediction::cost::CostKey;
use crate::engine::prediction::joint::{self, Leaf, Relation, Search};
use crate::engine::sequencing::dataflow::Dataflow;
use crate::engine::shared_by_workers::Stop;

/// The probability that picking a corpus entry starts with a joint prediction on its last
/// call (when joint prediction is on and the call has two integer inputs or more): it
/// costs a run per input and per kept direction, each Newton step.
const JOINT_PROBABILITY: f64 = 0.25;

impl Worker<'_> {
    /// Sometimes (see [`JOINT_PROBABILITY`]) a joint prediction on a branch of the last
    /// call of corpus entry `index`; a flipped branch of the last transaction starts
    /// chained predictions, as a satisfied secant chain does. Returns the runs spent.
    pub(super) fn joint_on_entry(
        &mut self,
        index: usize,
        mutator: &Mutator<'_>,
    ) -> Result<u64, Stop> {
        let Some(predictor) = &self.predictor else {
            return Ok(0);
        };
        // A one-call campaign (a fuzz test, a property) has no sequences to spend its runs
        // on: every pick tries. Measured on the four stateless shapes (`forge_fuzz.rs`,
        // seeds 1-5): found within forge's 256 cases on 16 of 20 runs, against 11 of 20
        // at the usual probability.
        let probability = if self.depth == 1 {
            1.0
        } else {
            JOINT_PROBABILITY
        };
        if !predictor.joint() || !self.rng.random_bool(probability) {
            return Ok(0);
        }
        let entry = self.corpus.get(index);
        let Some(last) = entry.sequence.txs.last() else {
            return Ok(0);
        };
        let dataflow = self.sequencing.guide().dataflow;
        let leaves = joint::leaves(
            mutator.surface(),
            &entry.sequence,
            entry.sequence.txs.len() - 1,
            feeds(dataflow, last.function),
        );
        let Some(target) = predictor.joint_target(
            self.executor.coverage(),
            &entry.sequence,
            &entry.costs,
            &leaves,
            &mut self.rng,
        ) else {
            return Ok(0);
        };
        let sequence = entry.sequence.clone();
        let mut runs = 0;
        let searched = self.predict_jointly(&sequence, &target.key, &leaves, mutator, &mut runs);
        let Some(predictor) = &mut self.predictor else {
            return Ok(runs);
        };
        // A run of the search may end the campaign (a violation, failing fast; the budget):
        // its runs still count.
        let Ok((flipped, independent)) = searched else {
            predictor.joint_done(&target, &sequence, Joint::Stopped, runs);
            return searched.map(|_| runs);
        };
        let result = match (&flipped, independent) {
            (Some(_), _) => Joint::Flipped,
            (None, true) => Joint::Independent,
            (None, false) => Joint::Missed,
        };
        predictor.joint_done(&target, &sequence, result, runs);
        // Where joint prediction missed, the solver may see what it could not.
        #[cfg(feature = "solver")]
        if result == Joint::Missed {
            runs += self.solve_on(&sequence, &target.key, mutator)?;
        }
        if let Some(flipped) = flipped.filter(|_| self.chain_predictions) {
            runs += self.chain_steps(&flipped, mutator)?;
        }
        Ok(runs)
    }

    /// Joint prediction of the branch of `key` in `sequence`, moving `leaves`: the
    /// sequence whose run flipped it, if one did, and whether its comparison moved with no
    /// input. Counts its runs.
    fn predict_jointly(
        &mut self,
        sequence: &Sequence,
        key: &CostKey,
        leaves: &[Leaf],
        mutator: &Mutator<'_>,
        runs: &mut u64,
    ) -> Result<(Option<Sequence>, bool), Stop> {
        let surface = mutator.surface();
        // The calls kept on their paths: from the first whose inputs move.
        let txs = leaves.iter().map(Leaf::tx).min().unwrap_or(0)..=key.tx as usize;
        let Some(bounds) = joint::offset_bounds(surface, sequence, leaves) else {
            return Ok((None, false));
        };
        let moved = |offset: &[_]| joint::moved(surface, sequence, leaves, offset);
        let found = joint::search(key, &bounds, |offset| match moved(offset) {
            Some(point) => self.observe(&point, txs.clone(), runs),
            None => Ok(Vec::new()),
        })?;
        Ok(match found {
            Search::Flipped(offset) => (moved(&offset), false),
            Search::Independent => (None, true),
            Search::Missed => (None, false),
        })
    }

    /// Runs `sequence` as a regular run, recording the relations of transactions `txs`.
    fn observe(
        &mut self,
        sequence: &Sequence,
        txs: RangeInclusive<usize>,
        runs: &mut u64,
    ) -> Result<Vec<Relation>, Stop> {
        if let Some(predictor) = &mut self.predictor {
            predictor.record_relations(Some(txs));
        }
        let ran = self.execute(sequence);
        *runs += 1;
        let Some(predictor) = &mut self.predictor else {
            return ran.map(|_| Vec::new());
        };
        predictor.record_relations(None);
        ran?;
        Ok(predictor.take_relations())
    }
}

/// Whether a call of a function writes storage a call of `reader` reads, as `dataflow`
/// has seen: the earlier calls whose inputs joint prediction moves with `reader`'s. Another
/// function's (the `approve` that stored an allowance): earlier calls of `reader` itself
/// are the steps its state was built by, which chained predictions take, and moving them
/// too lets a step spread over every instalment and undo one.
fn feeds(dataflow: &Dataflow, reader: usize) -> impl Fn(usize) -> bool + '_ {
    move |function| dataflow.writers_of(reader).contains(&function)
}
