//! The runs of the solver-backed step (`engine::solver` asks z3): a branch joint
//! prediction missed, or on which secant chains keep failing, is followed symbolically in
//! one run of its sequence, its path condition goes to z3, and z3's argument words are run.

use std::time::Instant;

use super::{Mutator, Worker};
use crate::abi;
use crate::engine::cost::{CostKey, CostKind};
use crate::engine::input::Sequence;
use crate::engine::predict::{self, Domain, Leaf, Prediction};
use crate::engine::predictor::Asked;
use crate::engine::shared::Stop;
use crate::engine::solver::{self, Answer, Solver};

/// z3 for one worker, started when first needed.
#[derive(Default)]
pub(super) enum Z3 {
    #[default]
    NotStarted,
    /// Boxed: the process handle and its expression arena are large beside the others.
    Running(Box<Solver>),
    /// It could not be started, or stopped answering.
    Unavailable,
}

impl Z3 {
    /// The running z3, started now if need be.
    fn get(&mut self) -> Option<&mut Solver> {
        if matches!(self, Z3::NotStarted) {
            *self = Solver::start().map_or(Z3::Unavailable, |solver| Z3::Running(Box::new(solver)));
        }
        match self {
            Z3::Running(solver) => Some(solver),
            _ => None,
        }
    }
}

/// Solver-backed steps on the next open branch after a flip, at most (see
/// [`Worker::solve_on`]): the conjunctions of a maze's cell hold up to ten comparisons.
const DESCENT_STEPS: u32 = 10;

impl Worker<'_> {
    /// A solver-backed step after the secant chain `ended` failed, if chains have stalled
    /// at its metric's site (see `Predictor::stalled`). Returns the runs spent.
    pub(super) fn solve_stalled(
        &mut self,
        ended: &Prediction,
        mutator: &Mutator<'_>,
    ) -> Result<u64, Stop> {
        let stalled = self
            .predictor
            .as_ref()
            .is_some_and(|predictor| predictor.stalled(&ended.key, &ended.sequence));
        if !stalled {
            return Ok(0);
        }
        self.solve_on(&ended.sequence, &ended.key, mutator)
    }

    /// A solver-backed step on the branch of `key` in `sequence` (which prediction just
    /// missed), if one is wanted there. A flipped branch is followed by a step on the next
    /// branch of the same call its run left open (up to [`DESCENT_STEPS`]): a conjunction
    /// `a == f(b) && c == g(a, d) && d > k` opens one conjunct at a time, and each new path
    /// would otherwise wait for its entry to be picked and for prediction to stall on it
    /// again. The last flip starts chained predictions, as a flipped joint prediction does.
    /// Returns the runs spent.
    pub(super) fn solve_on(
        &mut self,
        sequence: &Sequence,
        key: &CostKey,
        mutator: &Mutator<'_>,
    ) -> Result<u64, Stop> {
        let mut runs = 0;
        let mut flipped: Option<Sequence> = None;
        let mut target = Some(*key);
        let mut descended = 0;
        while let Some(key) = target.take() {
            let from = flipped.as_ref().unwrap_or(sequence);
            let Some(proposal) = self.solve_once(from, &key, mutator, &mut runs)? else {
                break;
            };
            flipped = Some(proposal);
            if descended < DESCENT_STEPS {
                descended += 1;
                target = self
                    .predictor
                    .as_ref()
                    .and_then(|predictor| predictor.next_open(self.executor.coverage(), &key));
            }
        }
        if let Some(flipped) = flipped.filter(|_| self.chain_predictions) {
            runs += self.chain_steps(&flipped, mutator)?;
        }
        Ok(runs)
    }

    /// One solver-backed step on the branch of `key` in `sequence`, if one is wanted
    /// there: the sequence z3's answer made, when its run flipped the branch. Adds the runs
    /// it spent to `runs`.
    fn solve_once(
        &mut self,
        sequence: &Sequence,
        key: &CostKey,
        mutator: &Mutator<'_>,
        runs: &mut u64,
    ) -> Result<Option<Sequence>, Stop> {
        let Some(predictor) = &mut self.predictor else {
            return Ok(None);
        };
        if !predictor.solver_wanted(key, sequence) {
            return Ok(None);
        }
        if self.z3.get().is_none() {
            predictor.solver_unavailable();
            return Ok(None);
        }
        let tx = key.tx as usize;
        // One run with the call followed symbolically.
        predictor.record_relations(Some(tx..=tx));
        self.executor.record_path_conditions(true);
        let ran = self.execute(sequence);
        self.executor.record_path_conditions(false);
        *runs += 1;
        let Some(predictor) = &mut self.predictor else {
            return ran.map(|_| None);
        };
        predictor.record_relations(None);
        predictor.take_relations();
        let path = predictor.take_path_condition();
        ran?;
        let heads = sequence
            .txs
            .get(tx)
            .map(|t| abi::head_leaves(&t.args))
            .unwrap_or_default();
        let leaf = |i: u32| -> Option<(Leaf, Domain)> {
            let path = heads.get(i as usize)?.clone()?;
            let leaf = Leaf::Arg { tx, path };
            let (_, domain) = predict::number(sequence, &leaf)?;
            Some((leaf, domain))
        };
        let started = Instant::now();
        let answer = self.z3.get().map(|z3| {
            z3.solve(
                &path,
                (key.code, key.pc, key.nth),
                key.kind == CostKind::Jump,
                |i| leaf(i).map(|(_, domain)| domain),
            )
        });
        let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        let model = match answer {
            Some(Ok(Answer::Model(model))) => model,
            Some(Ok(other)) => {
                let gave_up = matches!(other, Answer::Unknown);
                self.solver_done(Asked::Unanswered { gave_up }, micros);
                return Ok(None);
            }
            Some(Err(_)) | None => {
                // z3 died or stopped answering: no more steps on this worker.
                self.z3 = Z3::Unavailable;
                if let Some(predictor) = &mut self.predictor {
                    predictor.solver_unavailable();
                }
                return Ok(None);
            }
        };
        let surface = mutator.surface();
        let mut proposal = sequence.clone();
        for (i, word) in model {
            let Some((leaf, domain)) = leaf(i) else {
                continue;
            };
            let number = solver::number_of(domain, word);
            // A parameter's declared range (forge-std's `bound`, a suite's plan) is never
            // left, whatever z3 says: such an answer is not run.
            let declared = predict::declared_range(surface, sequence, &leaf);
            if declared.is_some_and(|(lo, hi)| number < lo || number > hi) {
                self.solver_done(Asked::Answered { flipped: false }, micros);
                return Ok(None);
            }
            if let Some(next) = predict::with_number(&proposal, &leaf, number, domain) {
                proposal = next;
            }
        }
        let ran = self.execute(&proposal);
        *runs += 1;
        // A run that ended the campaign (the violation behind the branch, failing fast)
        // still evaluated the branch.
        let flipped = self
            .predictor
            .as_ref()
            .is_some_and(|predictor| predictor.minimized(key));
        self.solver_done(Asked::Answered { flipped }, micros);
        ran?;
        Ok(flipped.then_some(proposal))
    }

    fn solver_done(&mut self, asked: Asked, micros: u64) {
        if let Some(predictor) = &mut self.predictor {
            predictor.solver_done(asked, micros);
        }
    }
}
