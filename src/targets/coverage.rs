//! Line coverage of the Solidity sources: which lines fuzzing executed, from the basic
//! blocks its transactions entered (recorded by the observer at every JUMPDEST, plus the
//! blocks a JUMPI fell through to) and the runtime source maps. A block's instructions run
//! together, so every line one of its instructions maps to counts as executed.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use alloy_primitives::Address;

use crate::chain::Chain;
use crate::outcome::LineCoverage;
use crate::project::ContractArtifact;
use crate::targets::{block_of, block_starts};

/// The line coverage of the contracts deployed on `chain` (setup's; those created while
/// fuzzing run the same code and count through the artifact they match only if deployed
/// too), given the entered blocks as (code address, block start pc).
pub(crate) fn line_coverage(chain: &Chain, entered: &HashSet<(Address, u32)>) -> LineCoverage {
    let mut by_artifact: HashMap<*const ContractArtifact, (Arc<ContractArtifact>, HashSet<usize>)> =
        HashMap::new();
    for (_, address) in chain.deployed() {
        if let Some(artifact) = chain.artifact_at(*address) {
            by_artifact
                .entry(Arc::as_ptr(artifact))
                .or_insert_with(|| (Arc::clone(artifact), HashSet::new()));
        }
    }
    for &(address, pc) in entered {
        if let Some(artifact) = chain.artifact_at(address) {
            by_artifact
                .entry(Arc::as_ptr(artifact))
                .or_insert_with(|| (Arc::clone(artifact), HashSet::new()))
                .1
                .insert(pc as usize);
        }
    }
    let mut coverage = LineCoverage::default();
    for (artifact, blocks) in by_artifact.into_values() {
        let starts = block_starts(&artifact.runtime_code);
        for (pc, location) in artifact.source_locations() {
            let block = block_of(&starts, pc);
            let hit = coverage
                .files
                .entry(location.file.path.clone())
                .or_insert_with(BTreeMap::new)
                .entry(location.line)
                .or_insert(false);
            *hit |= blocks.contains(&block);
        }
    }
    coverage
}
