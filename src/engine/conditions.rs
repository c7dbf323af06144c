//! Condition states (issue 43): path ids cover the last transaction's branch decisions, not
//! what its conditions compared. A `transferFrom` that checks `amount <= allowance` takes
//! the same path whether the allowance it read is zero and the amount zero, or both are
//! real; yet only the second is a step towards a bug that needs an allowance spent. Once
//! the first kind reached the path, a sequence that approved, minted and pulled for real
//! was dropped.
//!
//! This stage keeps it. For the last transaction of a run, each comparison that compared a
//! value the transaction loaded from storage (a condition on state) gets the relation of
//! its operands: both zero, one of them zero (which), equal, or apart. The path id together
//! with the set of (comparison site, relation) pairs is a key; a run whose key no run had
//! is kept although its path is known.
//!
//! Bounded: the relations are five, the comparison sites are the code's, only the first
//! comparisons of a transaction are scanned, and past [`MAX_KEYS`] keys seen nothing more is
//! kept for this alone. Unlike state novelty (which classes every word a transaction
//! writes), it looks only at state some condition read, on the path that read it, so a
//! token's balances under every key do not each become a state to keep.
//!
//! The corpus gives a run kept here at most the base energy a pick (`KeptFor::Condition`):
//! the keys are many and each rarely reached again, and under plain COE their energy
//! doubled until they took the schedule from the paths.

use std::hash::Hasher;

use alloy_primitives::Address;

use crate::engine::executor::{RunStart, Seen, Sink};
use crate::engine::input::Sequence;
use crate::engine::sequencing::dataflow::state_comparisons;
use crate::hash::{FastSet, KeyHasher};
use crate::observe::Comparison;

/// Salt of the corpus keys of runs kept for a condition state, apart from path ids and
/// state novelty's keys.
const CONDITION_SALT: u64 = 0xc0d1_7105_7a7e;

/// Keys remembered at most: past this many, a run is no longer kept for its condition
/// state (path ids still keep runs).
const MAX_KEYS: usize = 1 << 12;

/// How a comparison's two operands stood.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Relation {
    BothZero,
    LhsZero,
    RhsZero,
    /// Equal and not zero: a boundary (`amount == allowance`).
    Equal,
    Apart,
}

/// The relation of `comparison`'s operands.
fn relation(comparison: &Comparison) -> Relation {
    match (comparison.lhs.is_zero(), comparison.rhs.is_zero()) {
        (true, true) => Relation::BothZero,
        (true, false) => Relation::LhsZero,
        (false, true) => Relation::RhsZero,
        _ if comparison.lhs == comparison.rhs => Relation::Equal,
        _ => Relation::Apart,
    }
}

/// The condition states of one worker's regular runs.
#[derive(Debug, Default)]
pub(crate) struct ConditionStates {
    seen: FastSet<u64>,
    /// This run's key, when its last transaction compared state.
    key: Option<u64>,
    /// Whether no run before had the key.
    new: bool,
    /// A transaction's (code, comparison pc, relation) triples: a buffer reused.
    sites: Vec<(Address, u32, Relation)>,
    /// Runs kept for a condition state.
    pub(crate) kept: u64,
}

impl ConditionStates {
    /// The corpus key under which to keep the last run, when its last transaction's
    /// conditions compared state in a way no run on that path had.
    pub(crate) fn novel(&self) -> Option<u64> {
        self.key.filter(|_| self.new)
    }

    /// The corpus key of the last run's condition state when it was seen before: the
    /// schedule counts how often a kept one is reached again, as it counts path ids.
    pub(crate) fn reached_again(&self) -> Option<u64> {
        self.key.filter(|_| !self.new)
    }
}

impl Sink for ConditionStates {
    fn start(&mut self, _sequence: &Sequence, _start: RunStart) {
        self.key = None;
        self.new = false;
    }

    fn transaction(&mut self, seen: &Seen<'_>) {
        if !seen.last {
            return;
        }
        self.sites.clear();
        self.sites
            .extend(state_comparisons(seen.trace).map(|c| (c.code, c.cmp_pc, relation(c))));
        if self.sites.is_empty() {
            return;
        }
        // A loop compares at one site many times: each relation counts once, in any order.
        self.sites.sort_unstable();
        self.sites.dedup();
        let mut key = KeyHasher::default();
        key.write_u64(seen.path);
        for site in &self.sites {
            std::hash::Hash::hash(site, &mut key);
        }
        let key = key.finish() ^ CONDITION_SALT;
        self.key = Some(key);
        self.new = !self.seen.contains(&key) && self.seen.len() < MAX_KEYS;
        if self.new {
            self.seen.insert(key);
        }
    }
}

#[cfg(test)]
mod tests;
