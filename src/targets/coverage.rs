//! Line coverage of the Solidity sources: how often fuzzing executed each line, from the
//! basic blocks its transactions entered (recorded by the observer at the first
//! instruction, every JUMPDEST and every JUMPI falling through) and the runtime source maps.
//! A block's instructions run together, so a line counts the entries of the most-entered
//! block holding one of its instructions.
//!
//! Blocks are counted per artifact, not per address: a contract created while fuzzing
//! lives only in the state of the sequence that created it (another sequence may put
//! another contract at its address), so its blocks are resolved to its artifact right after
//! each transaction, while it exists.

use std::collections::BTreeMap;
use std::sync::Arc;

use alloy_primitives::Address;

use crate::chain::Chain;
use crate::hash::FastMap;
use crate::outcome::LineCoverage;
use crate::project::ContractArtifact;
use crate::targets::{block_of, block_starts};

/// Entries of basic blocks, per artifact and block start pc.
#[derive(Debug, Clone, Default)]
pub(crate) struct BlockCounts {
    /// The artifacts counted, each once (by identity); `counts` keys index them.
    artifacts: Vec<Arc<ContractArtifact>>,
    counts: FastMap<(usize, u32), u64>,
}

impl BlockCounts {
    /// Counts the blocks one transaction entered (code address, start pc), resolving each
    /// address on `chain` in the state the transaction left.
    pub(crate) fn add(&mut self, chain: &Chain, blocks: &[(Address, u32)]) {
        // Blocks come in runs of one address (a call's code): resolve it once per run.
        let mut last: Option<(Address, Option<usize>)> = None;
        for &(address, pc) in blocks {
            let id = match last {
                Some((seen, id)) if seen == address => id,
                _ => {
                    let id = chain.artifact_at(address).map(|a| self.id_of(a));
                    last = Some((address, id));
                    id
                }
            };
            if let Some(id) = id {
                self.count(id, pc, 1);
            }
        }
    }

    /// Adds `other`'s counts (another worker's) to these.
    pub(crate) fn merge(&mut self, other: BlockCounts) {
        let ids: Vec<usize> = other.artifacts.iter().map(|a| self.id_of(a)).collect();
        for ((id, pc), n) in other.counts {
            self.count(ids[id], pc, n);
        }
    }

    fn count(&mut self, id: usize, pc: u32, n: u64) {
        let count = self.counts.entry((id, pc)).or_insert(0);
        *count = count.saturating_add(n);
    }

    fn id_of(&mut self, artifact: &Arc<ContractArtifact>) -> usize {
        match self.artifacts.iter().position(|a| Arc::ptr_eq(a, artifact)) {
            Some(id) => id,
            None => {
                self.artifacts.push(Arc::clone(artifact));
                self.artifacts.len() - 1
            }
        }
    }
}

/// The line coverage of `listed` (every line of theirs, executed or not: the contracts
/// setup deployed and those fuzzing may create) and of whatever else `blocks` counted.
pub(crate) fn line_coverage(blocks: &BlockCounts, listed: &[Arc<ContractArtifact>]) -> LineCoverage {
    let mut by_artifact: Vec<(Arc<ContractArtifact>, FastMap<usize, u64>)> = Vec::new();
    let mut slot = |artifact: &Arc<ContractArtifact>| match by_artifact
        .iter()
        .position(|(a, _)| Arc::ptr_eq(a, artifact))
    {
        Some(i) => i,
        None => {
            by_artifact.push((Arc::clone(artifact), FastMap::default()));
            by_artifact.len() - 1
        }
    };
    for artifact in listed {
        slot(artifact);
    }
    let slots: Vec<usize> = blocks.artifacts.iter().map(&mut slot).collect();
    for (&(id, pc), &n) in &blocks.counts {
        by_artifact[slots[id]].1.insert(pc as usize, n);
    }
    let mut coverage = LineCoverage::default();
    for (artifact, entries) in by_artifact {
        let starts = block_starts(&artifact.runtime_code);
        for (pc, location) in artifact.source_locations() {
            let entered = entries
                .get(&block_of(&starts, pc))
                .copied()
                .unwrap_or(0);
            let hits = coverage
                .files
                .entry(location.file.path.clone())
                .or_insert_with(BTreeMap::new)
                .entry(location.line)
                .or_insert(0);
            *hits = (*hits).max(entered);
        }
    }
    coverage
}

/// The artifacts of the contracts deployed on `chain`.
pub(crate) fn deployed_artifacts(chain: &Chain) -> Vec<Arc<ContractArtifact>> {
    chain
        .deployed()
        .iter()
        .filter_map(|(_, address)| chain.artifact_at(*address).cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn artifact(name: &str) -> Arc<ContractArtifact> {
        Arc::new(ContractArtifact::bare(name))
    }

    #[test]
    fn workers_counts_add_up_per_artifact_and_saturate() {
        let (a, b) = (artifact("A"), artifact("B"));
        let mut first = BlockCounts::default();
        let id = first.id_of(&a);
        first.count(id, 0, 3);
        // Another worker met B first: its ids differ.
        let mut second = BlockCounts::default();
        let id = second.id_of(&b);
        second.count(id, 5, 1);
        let id = second.id_of(&a);
        second.count(id, 0, u64::MAX - 1);
        second.count(id, 7, 2);
        first.merge(second);
        assert_eq!(first.artifacts.len(), 2);
        assert!(Arc::ptr_eq(&first.artifacts[1], &b));
        assert_eq!(first.counts[&(0, 0)], u64::MAX, "saturated, not wrapped");
        assert_eq!(first.counts[&(0, 7)], 2);
        assert_eq!(first.counts[&(1, 5)], 1);
        // An artifact without a source map has no lines to show.
        assert!(line_coverage(&first, &[a]).files.is_empty());
    }
}
