//! Revert guidance (issue 43, "handlers that always revert"): a function whose every call
//! reverts (a `liquidate` while no position is underwater, a `repay` with no debt) takes
//! the same revert path whatever came before, so path ids never keep the sequences that
//! bring it closer to succeeding, and its calls are spent for nothing. What it needs is a
//! prefix: the functions that write what its failing `require` reads, with the right
//! amounts.
//!
//! Once a function has reverted on its first [`STUCK_AFTER`] calls, every reverting call of
//! it is measured by the comparison that decided the revert (the last one the code where
//! the revert began made): where that comparison is (a `require` further into the function
//! is progress, as a search-based tester's approach level) and how near its branch is to
//! flipping ([`closeness`]: how many bits longer its operands are than HARVEY's cost
//! metric, §4.3). A run is kept, whatever its path id, when a call of such a function failed
//! at a comparison where none of its calls failed before, or nearer to flipping it than any
//! before: a loan nearer its limit, then a price that fell. What is kept is trimmed to a
//! prefix ([`RevertGuidance::trimmed`]). Mutation (which inserts writers of what a call
//! reads before it) and prediction take those runs the rest of the way. Once a call of the
//! function succeeds, it is no longer followed.
//!
//! Bounded: per function and deciding comparison, a run is kept at most once per bit of
//! closeness (257 times).

use std::collections::hash_map::Entry;
use std::hash::Hasher;

use alloy_primitives::{Address, U256};

use crate::chain::Warp;
use crate::engine::executor::{RunStart, Seen, Sink};
use crate::engine::input::Sequence;
use crate::engine::prediction::cost::branch_costs;
use crate::hash::{FastMap, KeyHasher};
use crate::observe::{CmpOp, Comparison, RevertSite, Trace};

/// Salt of the corpus keys of runs kept for a reverting call closer to succeeding, apart
/// from path ids and the other stages' keys.
const REVERT_SALT: u64 = 0x4e7e_47ed_c105;

/// Reverting calls after which a function that never succeeded is followed: ten times the
/// summary's "always reverts" count (`outcome::ALWAYS_REVERTS_AFTER`). A function whose
/// precondition is merely hard at first (a `transferFrom` before any approval and mint)
/// succeeds within a few hundred calls, and the runs kept for it until then crowd a young
/// corpus: at 100, `InstalmentToken` (seeds 1-5, 400,000 sequences) found its bug in 3
/// campaigns of 5 against 4 without revert guidance.
const STUCK_AFTER: u64 = 1_000;

/// Where a reverting call was decided: its function, and the code and JUMPI of the
/// comparison that decided it ([`deciding`]).
type Decision = (usize, Address, u32);

/// A reverting call measured in a run: its transaction's index, where it was decided, and
/// how near it was to flipping that decision ([`closeness`]).
#[derive(Debug, Clone, Copy)]
struct Measured {
    index: usize,
    decision: Decision,
    closeness: u32,
}

/// How reverting calls of functions that never succeeded approached succeeding, over one
/// worker's regular runs.
#[derive(Debug)]
pub(crate) struct RevertGuidance {
    /// Per function (surface order): whether a call of it ever succeeded.
    succeeded: Vec<bool>,
    /// Per decision: the greatest closeness to flipping it seen.
    closest: FastMap<Decision, u32>,
    /// This run: its reverting calls of functions that never succeeded.
    this_run: Vec<Measured>,
    /// This run: per transaction, whether it changed nothing (reverted, or could not run).
    changed_nothing: Vec<bool>,
    /// The index of the call that got closer in the last run taken in.
    closer_call: Option<usize>,
    /// Runs kept because a reverting call got closer.
    pub(crate) kept: u64,
}

impl RevertGuidance {
    /// Nothing seen yet for `functions` fuzzed functions.
    pub(crate) fn new(functions: usize) -> Self {
        RevertGuidance {
            succeeded: vec![false; functions],
            closest: FastMap::default(),
            this_run: Vec::new(),
            changed_nothing: Vec::new(),
            closer_call: None,
            kept: 0,
        }
    }

    /// Takes in the last run (call it once per regular run that may be kept): the corpus
    /// key under which to keep it, when one of its reverting calls of a function that
    /// never succeeded failed at a new comparison or closer to flipping one than any call
    /// before. Keys differ per decision and closeness, so each is kept once.
    pub(crate) fn closer(&mut self) -> Option<u64> {
        let mut key = None;
        self.closer_call = None;
        for measured in &self.this_run {
            let Measured {
                index,
                decision,
                closeness,
            } = *measured;
            // A function that succeeded later in this run needs no prefix any more.
            if self.succeeded[decision.0] {
                continue;
            }
            let news = match self.closest.entry(decision) {
                Entry::Vacant(first) => {
                    first.insert(closeness);
                    true
                }
                Entry::Occupied(mut best) if closeness > *best.get() => {
                    best.insert(closeness);
                    true
                }
                Entry::Occupied(_) => false,
            };
            if news && key.is_none() {
                key = Some(key_of(decision, closeness));
                self.closer_call = Some(index);
            }
        }
        key
    }

    /// What to keep of the last run, `sequence`, when [`RevertGuidance::closer`] gave a key:
    /// its transactions through the call that got closer, without those before it that
    /// changed nothing (the time they let pass moves onto the next one kept). A run that
    /// got a call closer is often as long as sequences may be, and its mutants could then
    /// put nothing between the setup and the call: a price move after the loan.
    pub(crate) fn trimmed(&self, sequence: &Sequence) -> Sequence {
        let Some(call) = self.closer_call else {
            return sequence.clone();
        };
        let mut txs = Vec::with_capacity(call + 1);
        let mut time = Warp::default();
        for (index, tx) in sequence.txs.iter().enumerate().take(call + 1) {
            if index < call && self.changed_nothing.get(index).copied().unwrap_or(false) {
                time.seconds = time.seconds.saturating_add(tx.warp.seconds);
                time.blocks = time.blocks.saturating_add(tx.warp.blocks);
                continue;
            }
            let mut tx = tx.clone();
            tx.warp.seconds = tx.warp.seconds.saturating_add(time.seconds);
            tx.warp.blocks = tx.warp.blocks.saturating_add(time.blocks);
            time = Warp::default();
            txs.push(tx);
        }
        Sequence { txs }
    }

    /// Notes whether transaction `index` of this run changed nothing.
    fn note(&mut self, index: usize, changed_nothing: bool) {
        if self.changed_nothing.len() <= index {
            self.changed_nothing.resize(index + 1, false);
        }
        self.changed_nothing[index] = changed_nothing;
    }
}

/// The comparison that decided a reverting call, and the one whose distance measures how
/// near its branch was to going the other way (the same one, mostly). The deciding one is
/// the last comparison made by the code where the revert began: a handler's revert that
/// bubbles up from the pool it called began in the pool, at the pool's `require`, and the
/// handler's own test of the call's success says nothing of how near it came. Its distance
/// is its own, unless it only tested a boolean (`require(!healthy(account))`: an `ISZERO` of
/// 0 or 1) that a data decision computed right before (`debt > limit`, returned), whose
/// operands say how far. `None` for a call that made no comparison there.
fn deciding(trace: &Trace) -> Option<(&Comparison, &Comparison)> {
    let comparisons = trace.comparisons();
    let origin = revert_origin(trace.reverts());
    let at = comparisons
        .iter()
        .rposition(|c| origin.is_none_or(|code| c.code == code))?;
    let last = &comparisons[at];
    let tests_a_boolean = last.op == CmpOp::IsZero && last.lhs <= U256::ONE;
    let measured = match at.checked_sub(1).map(|i| &comparisons[i]) {
        Some(computed)
            if tests_a_boolean
                && computed.cmp_pc == computed.jumpi_pc
                && computed.code == last.code =>
        {
            computed
        }
        _ => last,
    };
    Some((last, measured))
}

/// The code where the transaction's revert began: the deepest REVERT of the chain that
/// bubbled up to the transaction's own (each one frame shallower than the one before), or
/// `None` when no REVERT ran (a halt).
fn revert_origin(reverts: &[RevertSite]) -> Option<Address> {
    let mut at = reverts.len().checked_sub(1)?;
    while at > 0 && reverts[at - 1].depth == reverts[at].depth + 1 {
        at -= 1;
    }
    Some(reverts[at].code)
}

/// How near `comparison`'s branch was to going the other way: how many bits longer its
/// larger operand is than its distance to flipping (HARVEY's cost), so that a loan near its
/// limit and a limit near a loan count, in whatever units, and an empty account, one unit
/// away from insolvency but with nothing to make it so, counts nothing (its operands are 0).
fn closeness(comparison: &Comparison) -> u32 {
    let (jump, fall) = branch_costs(comparison);
    let distance = if comparison.taken { fall } else { jump };
    bit_length(comparison.lhs.max(comparison.rhs)).saturating_sub(bit_length(distance))
}

/// The number of bits `value` takes (0 for 0).
fn bit_length(value: U256) -> u32 {
    U256::BITS as u32 - value.leading_zeros() as u32
}

/// The corpus key of reaching `decision` at `closeness`.
fn key_of(decision: Decision, closeness: u32) -> u64 {
    let (function, code, pc) = decision;
    let mut key = KeyHasher::default();
    key.write_usize(function);
    key.write(code.as_slice());
    key.write_u32(pc);
    key.write_u32(closeness);
    key.finish() ^ REVERT_SALT
}

impl Sink for RevertGuidance {
    fn start(&mut self, _sequence: &Sequence, _start: RunStart) {
        self.this_run.clear();
        self.changed_nothing.clear();
    }

    fn refused(&mut self, index: usize) {
        self.note(index, true);
    }

    fn transaction(&mut self, seen: &Seen<'_>) {
        self.note(seen.index, seen.reverted);
        let function = seen.function;
        if !seen.reverted {
            self.succeeded[function] = true;
            return;
        }
        if self.succeeded[function] || seen.calls < STUCK_AFTER {
            return;
        }
        if let Some((decided, measured)) = deciding(seen.trace) {
            self.this_run.push(Measured {
                index: seen.index,
                decision: (function, decided.code, decided.jumpi_pc),
                closeness: closeness(measured),
            });
        }
    }
}

#[cfg(test)]
mod tests;
