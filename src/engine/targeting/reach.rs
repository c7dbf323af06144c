//! Which targets a run reached: the observer reports the watched block starts each
//! transaction entered; a target (one changed source line of one contract) is reached when
//! any of its blocks is entered.

use std::time::Duration;

use alloy_primitives::Address;

use crate::engine::executor::CodePc;
use crate::engine::input::Sequence;
use crate::hash::FastMap;

/// A target as the engine watches it: block start pcs in the code at one address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Watch {
    pub(crate) address: Address,
    pub(crate) pcs: Vec<usize>,
}

/// The first run that reached a target.
#[derive(Debug, Clone)]
pub(crate) struct Reach {
    /// The sequence, up to the transaction that reached it.
    pub(crate) sequence: Sequence,
    pub(crate) after: Duration,
    pub(crate) after_sequences: u64,
}

/// A watched target block a transaction entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hit {
    /// The transaction's index in its sequence.
    pub(crate) tx: usize,
    /// The block's start.
    pub(crate) block: CodePc,
}

/// One worker's map from entered blocks to targets, and which it has seen reached.
#[derive(Debug, Clone, Default)]
pub(crate) struct TargetIndex {
    by_block: FastMap<CodePc, Vec<usize>>,
    reached: Vec<bool>,
}

impl TargetIndex {
    /// The index of `watches` (target `i` is `watches[i]`).
    pub(crate) fn new(watches: &[Watch]) -> TargetIndex {
        let mut by_block: FastMap<CodePc, Vec<usize>> = FastMap::default();
        for (target, watch) in watches.iter().enumerate() {
            for &pc in &watch.pcs {
                by_block
                    .entry(CodePc {
                        code: watch.address,
                        pc: pc as u32,
                    })
                    .or_default()
                    .push(target);
            }
        }
        TargetIndex {
            by_block,
            reached: vec![false; watches.len()],
        }
    }

    /// The targets `hits` reach that this index had not seen reached, each with the first
    /// transaction that reached it.
    pub(crate) fn newly_reached(&mut self, hits: &[Hit]) -> Vec<(usize, usize)> {
        let mut new = Vec::new();
        for hit in hits {
            for &target in self.by_block.get(&hit.block).into_iter().flatten() {
                if !self.reached[target] {
                    self.reached[target] = true;
                    new.push((target, hit.tx));
                }
            }
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_is_reached_once_by_any_of_its_blocks() {
        let a = Address::with_last_byte(1);
        let watches = [
            Watch {
                address: a,
                pcs: vec![10, 20],
            },
            Watch {
                address: a,
                pcs: vec![20],
            },
        ];
        let hit = |tx, code, pc| Hit {
            tx,
            block: CodePc { code, pc },
        };
        let mut index = TargetIndex::new(&watches);
        assert_eq!(index.newly_reached(&[hit(0, a, 5)]), []);
        assert_eq!(index.newly_reached(&[hit(1, a, 20)]), [(0, 1), (1, 1)]);
        assert_eq!(index.newly_reached(&[hit(0, a, 10)]), [], "already reached");
        let other = Address::with_last_byte(2);
        let mut fresh = TargetIndex::new(&watches);
        assert_eq!(
            fresh.newly_reached(&[hit(0, other, 10)]),
            [],
            "another contract"
        );
    }
}
