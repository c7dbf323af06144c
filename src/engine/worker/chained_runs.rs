//! Chained predictions (issue 15): after a prediction makes a sequence's last call satisfy
//! its comparison, a depth-first search over steps, each a call appended of a function that
//! reads what the last call wrote and predicted on in the state the step left, so that
//! recurrences of exact steps (`stored == previous * 3 + 1`, step after step) are climbed
//! one satisfied comparison at a time.

use rand::Rng;

use super::{Mutator, Worker, same_call};
use crate::engine::input::Sequence;
use crate::engine::prediction::cost::ParentCosts;
use crate::engine::prediction::secant::Prediction;
use crate::engine::shared_by_workers::Stop;

/// Functions tried for each step of a chain, each with a call appended and predicted on
/// (see [`Worker::chain_steps`]): the step's own function and two others that read what it
/// wrote.
const EXTENSIONS_TRIED: usize = 3;

/// Predictions tried on the inputs of a chain step's last call before it is extended
/// (see [`Worker::chain_steps`]), at most one per argument.
const COMPLETION_TRIES: usize = 3;

/// Runs a chain of predicted steps may spend to start with and per step it takes, up to
/// this many per transaction of the campaign's depth: a step costs 3-6 runs per function
/// tried, and a dead end is abandoned at once.
const CHAIN_BUDGET: u64 = 24;

impl Worker<'_> {
    /// Chained predictions from `start`, whose last transaction a prediction just made
    /// satisfy its comparison: a depth-first search over steps. A step's last call is
    /// first completed: another of its inputs predicted on, a few times (a call may have to
    /// satisfy several comparisons, `k == key && amount == stored[k]`, and building on a
    /// half-satisfied call is building on a reset). Only a step that cannot be completed
    /// further is extended: a call appended of each function that reads what the last
    /// call wrote (itself included), predicted on in the state the step left. A prediction
    /// is followed until it satisfies its comparison; the sequence is then a step in turn.
    /// A step that repeats the call before it (same function and inputs) is a fixed point,
    /// not progress, and is not extended; nor is one whose last call wrote no storage (it
    /// reverted or returned early, `if (amount == 0) return;`): it left the state the step
    /// before left, whose extensions are being tried already. Returns the runs spent: [`CHAIN_BUDGET`], and as
    /// many again for every step taken, at most [`CHAIN_BUDGET`] per transaction of the
    /// depth.
    pub(super) fn chain_steps(
        &mut self,
        start: &Sequence,
        mutator: &Mutator<'_>,
    ) -> Result<u64, Stop> {
        // Pay as it goes: a start that takes no step costs one share, and each step taken
        // buys another, so that satisfied comparisons that start no chain (`amount == 0`
        // before an early return) cost little, on deep campaigns too.
        let cap = CHAIN_BUDGET * self.depth as u64;
        let mut budget = CHAIN_BUDGET;
        let mut runs = 0;
        let mut steps = vec![start.clone()];
        while let Some(step) = steps.pop() {
            if runs >= budget {
                break;
            }
            let inputs = step.txs[step.txs.len() - 1]
                .args
                .len()
                .min(COMPLETION_TRIES);
            let mut completed = None;
            for _ in 0..inputs {
                completed = self.satisfy_last(&step, mutator, &mut runs)?;
                if completed.is_some() {
                    break;
                }
            }
            let progress = self.sequencing.last_wrote();
            if let Some(next) = completed.filter(|next| *next != step && progress) {
                self.chained_step();
                budget = (budget + CHAIN_BUDGET).min(cap);
                steps.push(next);
                continue;
            }
            if step.txs.len() >= self.depth {
                continue;
            }
            for function in self.next_step_functions(&step, mutator) {
                let mut longer = step.clone();
                longer
                    .txs
                    .push(mutator.tx_for(function, &mut self.rng, &self.dict));
                let Some(next) = self.satisfy_last(&longer, mutator, &mut runs)? else {
                    continue;
                };
                if let [.., before, last] = &next.txs[..] {
                    if !same_call(before, last) && self.sequencing.last_wrote() {
                        self.chained_step();
                        budget = (budget + CHAIN_BUDGET).min(cap);
                        steps.push(next);
                    }
                }
            }
        }
        Ok(runs)
    }

    /// Counts a step of chained predictions.
    fn chained_step(&mut self) {
        if let Some(predictor) = &mut self.predictor {
            predictor.chained_step();
        }
    }

    /// A prediction on one input of `sequence`'s last call (see
    /// [`Worker::predict_on_last`]) followed until it satisfies its comparison: the
    /// sequence that did, if one did. Counts its runs.
    fn satisfy_last(
        &mut self,
        sequence: &Sequence,
        mutator: &Mutator<'_>,
        runs: &mut u64,
    ) -> Result<Option<Sequence>, Stop> {
        match self.predict_on_last(sequence, mutator, runs)? {
            Some(first) => self.follow_to_satisfied(first, runs),
            None => Ok(None),
        }
    }

    /// The functions a chain step after `step` may call: readers of what its last call's
    /// function writes that take arguments and may end a longer sequence, itself (if a
    /// reader) and at most [`EXTENSIONS_TRIED`] in all, the others drawn at random.
    fn next_step_functions(&mut self, step: &Sequence, mutator: &Mutator<'_>) -> Vec<usize> {
        let last = step.txs[step.txs.len() - 1].function;
        let guide = self.sequencing.guide();
        let functions = &self.executor.surface().functions;
        let mut readers: Vec<usize> = guide
            .dataflow
            .readers_of(last)
            .iter()
            .copied()
            .filter(|&f| !functions[f].types.is_empty() && mutator.may_extend(f, guide))
            .collect();
        let own = usize::from(readers.first() == Some(&last));
        for i in own..readers.len() {
            let j = self.rng.random_range(i..readers.len());
            readers.swap(i, j);
        }
        readers.truncate(EXTENSIONS_TRIED);
        readers
    }

    /// Runs `sequence`, then again with one input of its last call changed: the first
    /// prediction from the pair, if any. Counts its runs.
    fn predict_on_last(
        &mut self,
        sequence: &Sequence,
        mutator: &Mutator<'_>,
        runs: &mut u64,
    ) -> Result<Option<Prediction>, Stop> {
        self.execute(sequence)?;
        let at = sequence.txs.len() - 1;
        let costs = self
            .predictor
            .as_ref()
            .map(|p| ParentCosts::of(p.costs(), at))
            .unwrap_or_default();
        let (twin, change) = mutator.mutate_input_at(sequence, at, &mut self.rng, &self.dict);
        self.execute(&twin)?;
        *runs += 2;
        Ok(self.predict(sequence, &costs, &twin, &change))
    }

    /// Runs the prediction chain from `first` step by step; the sequence that satisfied its
    /// comparison, if one did. Counts its runs.
    fn follow_to_satisfied(
        &mut self,
        first: Prediction,
        runs: &mut u64,
    ) -> Result<Option<Sequence>, Stop> {
        let mut next = Some(first);
        while let Some(prediction) = next {
            self.execute(&prediction.sequence)?;
            *runs += 1;
            let Some(predictor) = self.predictor.as_mut() else {
                return Ok(None);
            };
            next = predictor.follow(&prediction);
            if predictor.satisfied(&prediction) {
                return Ok(Some(prediction.sequence));
            }
        }
        Ok(None)
    }
}
