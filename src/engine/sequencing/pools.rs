//! HARVEY §5's two pools: transactions, and sequences ending in them, that increased
//! coverage and changed storage in a way not seen before. New transactions inserted into a
//! sequence, and prefixes that replace a sequence's start, are drawn from here: they are
//! known to reach new state, which random transactions mostly do not.

use alloy_primitives::U256;
use rand::Rng;
use rand::rngs::StdRng;

use crate::engine::input::{Sequence, TxInput};
use crate::hash::FastSet;

/// Entries per pool; later offers replace the oldest (ring buffer), so the pools follow
/// the campaign's progress without growing without bound.
const POOL_SIZE: usize = 256;

/// Write patterns remembered at most: they only keep the pools from taking the same kind
/// of state change twice, and value classes make their number grow with a long campaign.
/// When full they are forgotten (a pattern may then be pooled again).
const PATTERNS_REMEMBERED: usize = 1 << 16;

/// A rough class of a written value: how patterns tell "set to zero", "set to a flag or
/// a count" and "set to an amount or an address" apart without distinguishing every value.
pub(crate) fn value_class(value: U256) -> u8 {
    if value.is_zero() {
        0
    } else if value == U256::from(1) {
        1
    } else if value.bit_len() <= 32 {
        2
    } else {
        3
    }
}

/// A ring buffer of at most [`POOL_SIZE`] entries.
#[derive(Debug, Clone)]
struct Ring<T> {
    items: Vec<T>,
    next: usize,
}

impl<T> Default for Ring<T> {
    fn default() -> Self {
        Ring {
            items: Vec::new(),
            next: 0,
        }
    }
}

impl<T> Ring<T> {
    fn push(&mut self, item: T) {
        if self.items.len() < POOL_SIZE {
            self.items.push(item);
        } else {
            self.items[self.next] = item;
            self.next = (self.next + 1) % POOL_SIZE;
        }
    }

    fn choose(&self, rng: &mut StdRng) -> Option<&T> {
        if self.items.is_empty() {
            return None;
        }
        Some(&self.items[rng.random_range(0..self.items.len())])
    }
}

/// The transaction pool and the sequence pool of one worker.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pools {
    txs: Ring<TxInput>,
    sequences: Ring<Vec<TxInput>>,
    /// Write patterns (function, slots written, value classes) already pooled.
    patterns: FastSet<u64>,
    /// How often `patterns` was full and forgotten.
    forgotten: u64,
}

impl Pools {
    /// Offers transaction `index` of `sequence`, which increased coverage and wrote storage
    /// with `pattern`: pooled, with the sequence up to it, if the pattern is new. Returns
    /// whether it was.
    pub(crate) fn offer(&mut self, sequence: &Sequence, index: usize, pattern: u64) -> bool {
        if self.patterns.contains(&pattern) {
            return false;
        }
        if self.patterns.len() >= PATTERNS_REMEMBERED {
            self.patterns.clear();
            self.forgotten += 1;
        }
        self.patterns.insert(pattern);
        self.txs.push(sequence.txs[index].clone());
        if index > 0 {
            self.sequences.push(sequence.txs[..=index].to_vec());
        }
        true
    }

    /// How often the remembered write patterns were full and forgotten.
    pub(crate) fn forgotten(&self) -> u64 {
        self.forgotten
    }

    /// A pooled transaction, preferably one calling `function` when given.
    pub(crate) fn tx(&self, function: Option<usize>, rng: &mut StdRng) -> Option<&TxInput> {
        if let Some(function) = function {
            let matching: Vec<&TxInput> = self
                .txs
                .items
                .iter()
                .filter(|tx| tx.function == function)
                .collect();
            if !matching.is_empty() {
                return Some(matching[rng.random_range(0..matching.len())]);
            }
        }
        self.txs.choose(rng)
    }

    /// A pooled sequence (at least two transactions long).
    pub(crate) fn sequence(&self, rng: &mut StdRng) -> Option<&[TxInput]> {
        self.sequences.choose(rng).map(Vec::as_slice)
    }

    /// Transactions pooled (at most [`POOL_SIZE`]).
    #[cfg(test)]
    fn txs(&self) -> usize {
        self.txs.items.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn tx(function: usize) -> TxInput {
        TxInput::of(function, Vec::new())
    }

    #[test]
    fn remembered_patterns_are_forgotten_when_full() {
        let mut pools = Pools::default();
        let seq = Sequence { txs: vec![tx(0)] };
        for pattern in 0..PATTERNS_REMEMBERED as u64 {
            assert!(pools.offer(&seq, 0, pattern));
        }
        assert_eq!(pools.forgotten(), 0);
        assert!(!pools.offer(&seq, 0, 7), "remembered");
        assert!(pools.offer(&seq, 0, u64::MAX));
        assert_eq!(pools.forgotten(), 1);
        assert!(pools.offer(&seq, 0, 7), "forgotten, so pooled again");
        assert!(pools.txs() <= POOL_SIZE);
    }

    #[test]
    fn only_new_write_patterns_are_pooled() {
        let mut pools = Pools::default();
        let seq = Sequence {
            txs: vec![tx(0), tx(1)],
        };
        assert!(pools.offer(&seq, 1, 7));
        assert!(!pools.offer(&seq, 0, 7), "same pattern again");
        assert!(pools.offer(&seq, 0, 8));
        assert_eq!(pools.txs(), 2);
        let mut rng = StdRng::seed_from_u64(1);
        assert_eq!(
            pools.sequence(&mut rng),
            Some(&seq.txs[..]),
            "only the 2-tx prefix"
        );
        assert_eq!(pools.tx(Some(1), &mut rng).map(|t| t.function), Some(1));
        assert!(
            pools.tx(Some(5), &mut rng).is_some(),
            "any when none matches"
        );
    }

    #[test]
    fn pools_keep_the_latest_entries() {
        let mut pools = Pools::default();
        let seq = Sequence { txs: vec![tx(3)] };
        for pattern in 0..(POOL_SIZE as u64 + 10) {
            pools.offer(&seq, 0, pattern);
        }
        assert_eq!(pools.txs(), POOL_SIZE);
    }

    #[test]
    fn value_classes() {
        assert_eq!(
            [0u64, 1, 2, 1 << 31, 1 << 40].map(|v| value_class(U256::from(v))),
            [0, 1, 2, 2, 3]
        );
    }
}
