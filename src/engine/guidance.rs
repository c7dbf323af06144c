//! Invariant guidance (issue 43): a bug that only an invariant's comparison sees (a spender
//! that pulled more than the owner approved) gives the transactions no branch to cover,
//! so path ids never keep the sequences that approach it. While the invariant checks are
//! observed, each comparison they make has a distance to flipping its branch (HARVEY's cost
//! metrics, §4.3). A run is kept, whatever its path id, when transactions of one path
//! brought some comparison of the checks closer to flipping more times than in any run
//! before: two pulls that each raise what was pulled toward what was approved, where one
//! pull kept nothing new. Mutation and prediction (fed the same comparisons as costs) take
//! those runs the rest of the way.
//!
//! Bounded: per comparison, direction and transaction path, a run is kept at most as many
//! times as sequences are long. (A run that brings a comparison closer than any run before,
//! by a power of two, was kept too in a first version; on `PullToken`, seeds 1-5, that
//! found the bug in 3 campaigns of 5 where the steps alone found it in 5, since a trivial
//! state, an approval of 0, is as close as a comparison gets.)

use std::hash::Hasher;

use alloy_primitives::{Address, U256};

use crate::engine::executor::{RunStart, Seen, Sink};
use crate::engine::input::Sequence;
use crate::engine::prediction::cost::{CostKind, Occurrences, branch_costs};
use crate::hash::{FastMap, KeyHasher};
use crate::observe::Trace;

/// Salt of the corpus keys of runs kept for getting closer, apart from path ids.
const CLOSER_SALT: u64 = 0x0c10_5e70_fa11;

/// A comparison of the checks (its code and JUMPI) and the direction of its branch the
/// distance is to.
type Site = (Address, u32, CostKind);

/// What made steps closer: a site, and the path id of the transactions that stepped.
type Stepper = (Site, u64);

/// How the comparisons of the invariant checks moved toward flipping, over one worker's
/// regular runs.
#[derive(Debug, Default)]
pub(crate) struct InvariantGuidance {
    /// The most steps closer per site and transaction path in one run.
    most_steps: FastMap<Stepper, u32>,
    /// This run: the distance of each evaluation (site and occurrence) at its last check.
    last: FastMap<(Site, u32), U256>,
    /// This run: steps closer per site and transaction path.
    steps: FastMap<Stepper, u32>,
    /// Occurrences per comparison in the check being read.
    seen: Occurrences,
    /// The path id of the last transaction alone.
    path: u64,
    /// The corpus key of this run, once it made more steps than any run before.
    closer: Option<u64>,
    /// Runs kept because they made more steps.
    pub(crate) kept: u64,
}

impl InvariantGuidance {
    /// The corpus key under which to keep the last run, when its transactions of some path
    /// brought a comparison of the checks closer more times than in any run before. Keys
    /// differ per site, path and count, so each is kept once.
    pub(crate) fn closer(&self) -> Option<u64> {
        self.closer
    }

    /// Counts a step closer at `site` by the last transaction; notes the run's key when no
    /// run made as many with transactions of its path.
    fn step(&mut self, site: Site) {
        let stepper = (site, self.path);
        let steps = self.steps.entry(stepper).or_insert(0);
        *steps += 1;
        let steps = *steps;
        let most = self.most_steps.entry(stepper).or_insert(0);
        if steps > *most {
            *most = steps;
            self.closer.get_or_insert_with(|| key(stepper, steps));
        }
    }
}

/// The corpus key of `steps` steps by `stepper`.
fn key(stepper: Stepper, steps: u32) -> u64 {
    let ((code, pc, kind), path) = stepper;
    let mut key = KeyHasher::default();
    key.write(code.as_slice());
    key.write_u32(pc);
    key.write_u8(kind as u8);
    key.write_u64(path);
    key.write_u32(steps);
    key.finish() ^ CLOSER_SALT
}

impl Sink for InvariantGuidance {
    fn start(&mut self, _sequence: &Sequence, _start: RunStart) {
        self.closer = None;
        self.last.clear();
        self.steps.clear();
    }

    fn transaction(&mut self, seen: &Seen<'_>) {
        self.path = seen.path;
    }

    fn checked(&mut self, _index: usize, trace: &Trace) {
        self.seen.clear();
        for cmp in trace.comparisons() {
            let nth = self.seen.next(cmp.code, cmp.jumpi_pc, false);
            let (jump, fall) = branch_costs(cmp);
            for (kind, distance) in [(CostKind::Jump, jump), (CostKind::Fall, fall)] {
                let site = (cmp.code, cmp.jumpi_pc, kind);
                let before = self.last.insert((site, nth), distance);
                if before.is_some_and(|before| distance < before) {
                    self.step(site);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
