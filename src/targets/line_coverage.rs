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
//!
//! A never executed line is *unreachable* when the lookahead analysis
//! (`lookahead::reachable_blocks`, run on each deployment's code, immutables filled in) leaves
//! out every block holding it, in every contract it was compiled into: a report shows it
//! apart from code fuzzing merely missed. Contracts fuzzing creates are not analysed (their
//! code differs per creation), so their lines are never called unreachable.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use alloy_primitives::{Address, Bytes};

use crate::chain::Chain;
use crate::hash::{FastMap, FastSet};
use crate::lookahead::reachable_blocks;
use crate::outcome::LineCoverage;
use crate::project::ContractArtifact;
use crate::bytecode::block_starts;
use crate::targets::block_of;

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

/// A contract whose every line coverage lists: its artifact, and the runtime code it was
/// deployed with when setup deployed it (immutables filled in, for the static analysis that
/// marks lines no call can reach; `None` for a kind fuzzing may create, whose code differs
/// per creation).
pub(crate) type Listed = (Arc<ContractArtifact>, Option<Bytes>);

/// What one artifact's lines come to: the blocks' entries, and the blocks the static
/// analysis may reach (`None`: any; the analysis ran on none of its deployments, or could
/// not follow one).
struct ArtifactLines {
    artifact: Arc<ContractArtifact>,
    entries: FastMap<usize, u64>,
    reachable: Option<FastSet<usize>>,
    /// Whether a listed deployment (or kind) of it was seen: `reachable` is theirs.
    analysed: bool,
}

/// The line coverage of `listed` (every line of theirs, executed or not: the contracts
/// setup deployed and those fuzzing may create) and of whatever else `blocks` counted, with
/// the never executed lines that the lookahead analysis proves unreachable in every
/// deployment of every contract they were compiled into.
pub(crate) fn line_coverage(blocks: &BlockCounts, listed: &[Listed]) -> LineCoverage {
    let mut by_artifact: Vec<ArtifactLines> = Vec::new();
    let slot = |artifact: &Arc<ContractArtifact>, by_artifact: &mut Vec<ArtifactLines>| {
        match by_artifact
            .iter()
            .position(|a| Arc::ptr_eq(&a.artifact, artifact))
        {
            Some(i) => i,
            None => {
                by_artifact.push(ArtifactLines {
                    artifact: Arc::clone(artifact),
                    entries: FastMap::default(),
                    reachable: None,
                    analysed: false,
                });
                by_artifact.len() - 1
            }
        }
    };
    // Per artifact: the union of what its deployments may reach (deployments may differ in
    // their immutables), unless one is unknown.
    for (artifact, code) in listed {
        let i = slot(artifact, &mut by_artifact);
        let this: Option<FastSet<usize>> = code
            .as_ref()
            .and_then(|code| reachable_blocks(code))
            .map(|blocks| blocks.into_iter().collect());
        let lines = &mut by_artifact[i];
        lines.reachable = match (lines.analysed, lines.reachable.take(), this) {
            (false, _, this) => this,
            (true, Some(mut known), Some(more)) => {
                known.extend(more);
                Some(known)
            }
            (true, _, _) => None,
        };
        lines.analysed = true;
    }
    let slots: Vec<usize> = blocks
        .artifacts
        .iter()
        .map(|a| slot(a, &mut by_artifact))
        .collect();
    for (&(id, pc), &n) in &blocks.counts {
        by_artifact[slots[id]].entries.insert(pc as usize, n);
    }
    let mut coverage = LineCoverage::default();
    // Lines some deployment may run: not unreachable, whatever the other contracts say.
    let mut may_run: FastSet<(&std::path::Path, u32)> = FastSet::default();
    for lines in &by_artifact {
        let starts = block_starts(&lines.artifact.runtime_code);
        for (pc, location) in lines.artifact.source_locations() {
            let block = block_of(&starts, pc);
            let entered = lines.entries.get(&block).copied().unwrap_or(0);
            let path = &location.file.path;
            let hits = coverage
                .files
                .entry(path.clone())
                .or_insert_with(BTreeMap::new)
                .entry(location.line)
                .or_insert(0);
            *hits = (*hits).max(entered);
            let unreachable = lines
                .reachable
                .as_ref()
                .is_some_and(|reachable| !reachable.contains(&block));
            if !unreachable {
                may_run.insert((path.as_path(), location.line));
            }
        }
    }
    for (path, lines) in &coverage.files {
        let never: BTreeSet<u32> = lines
            .iter()
            .filter(|&(&line, &hits)| hits == 0 && !may_run.contains(&(path.as_path(), line)))
            .map(|(&line, _)| line)
            .collect();
        if !never.is_empty() {
            coverage.unreachable.insert(path.clone(), never);
        }
    }
    coverage
}

/// The contracts deployed on `chain`: their artifacts and deployed code.
pub(crate) fn deployed_artifacts(chain: &Chain) -> Vec<Listed> {
    chain
        .deployed()
        .iter()
        .filter_map(|(_, address)| {
            let artifact = chain.artifact_at(*address)?;
            Some((Arc::clone(artifact), Some(chain.code(*address))))
        })
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
        assert!(line_coverage(&first, &[(a, None)]).files.is_empty());
    }
}
