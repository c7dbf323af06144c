//! Shrinking a failing sequence while the same violation still shows: first remove
//! transactions (carrying their time warps forward), then simplify senders, values, warps and
//! arguments toward small values, and repeat until nothing changes or the budget is spent.

use std::time::{Duration, Instant};

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::U256;

use crate::abi;
use crate::chain::Warp;
use crate::engine::executor::{Executor, Found};
use crate::engine::input::{Sequence, TxInput};
use crate::engine::mutate::add_warps;

/// Runs a shrink may spend at most.
const MAX_RUNS: u64 = 20_000;
/// Wall-clock time a shrink may spend at most, so it never dominates a campaign.
const MAX_TIME: Duration = Duration::from_secs(10);

/// A shrinking session: the best failing sequence so far and the remaining budget.
struct Shrinker<'e, 'a> {
    executor: &'e mut Executor<'a>,
    best: Sequence,
    found: Found,
    runs: u64,
    deadline: Instant,
}

/// The smallest sequence found that still shows `found`'s violation (the same invariant or
/// Panic code), with the violation as it shows there. `sequence` ends with the violating
/// transaction.
pub(crate) fn shrink(
    executor: &mut Executor<'_>,
    sequence: Sequence,
    found: Found,
) -> (Sequence, Found) {
    let mut shrinker = Shrinker {
        executor,
        best: sequence,
        found,
        runs: 0,
        deadline: Instant::now() + MAX_TIME,
    };
    loop {
        let removed = shrinker.remove_transactions();
        let simplified = shrinker.simplify_transactions();
        if !(removed || simplified) || shrinker.exhausted() {
            break;
        }
    }
    (shrinker.best, shrinker.found)
}

impl Shrinker<'_, '_> {
    fn exhausted(&self) -> bool {
        self.runs >= MAX_RUNS || Instant::now() >= self.deadline
    }

    /// Runs `candidate`; keeps it (cut after its violating transaction) when it shows the
    /// same violation.
    fn attempt(&mut self, mut candidate: Sequence) -> bool {
        if self.exhausted() {
            return false;
        }
        self.runs += 1;
        let run = self.executor.run(&candidate);
        match run.violation {
            Some(found) if found.violation.same_kind(&self.found.violation) => {
                candidate.txs.truncate(found.tx + 1);
                self.best = candidate;
                self.found = found;
                true
            }
            _ => false,
        }
    }

    /// Removes transactions one at a time, front to back. True when any went.
    fn remove_transactions(&mut self) -> bool {
        let mut any = false;
        let mut index = 0;
        while index < self.best.txs.len() && !self.exhausted() {
            let mut candidate = self.best.clone();
            let removed = candidate.txs.remove(index);
            if let Some(next) = candidate.txs.get_mut(index) {
                next.warp = add_warps(removed.warp, next.warp);
            }
            if self.attempt(candidate) {
                any = true;
            } else {
                index += 1;
            }
        }
        any
    }

    /// Simplifies each transaction's sender, value, warp and arguments. True when anything
    /// changed.
    fn simplify_transactions(&mut self) -> bool {
        let mut any = false;
        for index in 0..self.best.txs.len() {
            if index >= self.best.txs.len() {
                break; // a simpler input violated earlier and cut the sequence
            }
            any |= self.simplify_how_sent(index);
            let args = self.best.txs.get(index).map_or(0, |tx| tx.args.len());
            for arg in 0..args {
                while let Some((f, current)) = self
                    .best
                    .txs
                    .get(index)
                    .and_then(|tx| Some((tx.function, tx.args.get(arg)?)))
                {
                    // Inside the parameter's bound; fallback calldata stays fallback's.
                    let candidates = self.executor.surface().simplifications(f, arg, current);
                    let improved = candidates.into_iter().any(|simpler| {
                        let mut candidate = self.best.clone();
                        candidate.txs[index].args[arg] = simpler;
                        self.attempt(candidate)
                    });
                    if !improved {
                        break;
                    }
                    any = true;
                }
            }
        }
        any
    }

    /// The first sender, no value, no warp, where the violation allows.
    fn simplify_how_sent(&mut self, index: usize) -> bool {
        let mut any = false;
        let tx = &self.best.txs[index];
        let (sender, value, warp) = (tx.sender, tx.value, tx.warp);
        for simpler in 0..sender {
            if self.with_tx(index, |tx| tx.sender = simpler) {
                any = true;
                break;
            }
        }
        if !value.is_zero() {
            let mut candidates = vec![U256::ZERO];
            candidates.extend(
                abi::simplifications(&DynSolValue::Uint(value, 256))
                    .into_iter()
                    .filter_map(|v| v.as_uint().map(|(u, _)| u)),
            );
            for simpler in candidates {
                if self.with_tx(index, |tx| tx.value = simpler) {
                    any = true;
                    break;
                }
            }
        }
        if warp != Warp::default() && self.with_tx(index, |tx| tx.warp = Warp::default()) {
            any = true;
        }
        any
    }

    /// Tries the best sequence with transaction `index` changed by `change`.
    fn with_tx(&mut self, index: usize, change: impl FnOnce(&mut TxInput)) -> bool {
        if index >= self.best.txs.len() {
            return false;
        }
        let mut candidate = self.best.clone();
        change(&mut candidate.txs[index]);
        self.attempt(candidate)
    }
}
