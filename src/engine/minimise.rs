//! Corpus minimisation, so that a corpus kept between runs does not grow without bound
//! (ClusterFuzzLite prunes its cached corpus the same way): every candidate sequence (those
//! loaded and those the workers kept) runs once from the post-setup state, every
//! transaction's branch edges are collected, and the fewest sequences that cover all of
//! them are kept — chosen greedily, the one adding the most uncovered edges first (ties:
//! the shorter, then the earlier), the classic approximation of the smallest set cover.
//! Bounded in time as shrinking is (`shrink::phase_time`: a tenth of the campaign's, 1 to
//! 10 s): candidates not run by then are kept as they are, so nothing is lost and the next
//! run minimises them.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

use crate::hash::FastSet;

use super::executor::{EdgeKey, Executor, Seen, Sink};
use super::input::Sequence;

/// The sequences kept, and the edges they cover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Minimised {
    /// Indices of the kept candidates: those chosen, in the order chosen, then those the
    /// time bound left unrun.
    pub(crate) kept: Vec<usize>,
    /// Distinct edges the candidates run covered, all of which the kept ones cover.
    pub(crate) edges: usize,
    /// Candidates the time bound left unrun (kept as they are).
    pub(crate) unrun: usize,
}

/// The edges every transaction of a run covered.
#[derive(Default)]
struct EdgeSink {
    edges: FastSet<EdgeKey>,
}

impl Sink for EdgeSink {
    fn transaction(&mut self, seen: &Seen<'_>) {
        self.edges
            .extend(seen.trace.edges().iter().map(|edge| EdgeKey {
                code: edge.code,
                pc: edge.pc,
                taken: edge.taken,
            }));
    }
}

/// Runs the candidates on `executor` (which must run every transaction: not failing fast)
/// until `deadline`, and keeps the fewest of those run that cover the edges all of them
/// cover, and every candidate not run.
pub(crate) fn minimise(
    executor: &mut Executor<'_>,
    candidates: &[Sequence],
    deadline: Instant,
) -> Minimised {
    let covered: Vec<FastSet<EdgeKey>> = candidates
        .iter()
        .map_while(|sequence| {
            (Instant::now() < deadline).then(|| {
                let mut sink = EdgeSink::default();
                executor.run(sequence, &mut sink);
                sink.edges
            })
        })
        .collect();
    let lengths: Vec<usize> = candidates.iter().map(|s| s.txs.len()).collect();
    cover_run(&covered, &lengths)
}

/// The cover of the candidates run (the first `covered.len()` of those `lengths` lists),
/// with every candidate not run kept.
fn cover_run<T: Eq + std::hash::Hash + Copy>(
    covered: &[FastSet<T>],
    lengths: &[usize],
) -> Minimised {
    let mut minimised = cover(covered, &lengths[..covered.len()]);
    minimised.kept.extend(covered.len()..lengths.len());
    minimised.unrun = lengths.len() - covered.len();
    minimised
}

/// A greedy set cover of the union of `sets` (`lengths[i]`: the size of candidate `i`, the
/// smaller preferred on ties). Lazy: a candidate's gain only shrinks as edges get covered,
/// so a stale gain at the top of the heap is recomputed and pushed back, and a fresh one is
/// the best there is.
fn cover<T: Eq + std::hash::Hash + Copy>(sets: &[FastSet<T>], lengths: &[usize]) -> Minimised {
    let universe: FastSet<T> = sets.iter().flatten().copied().collect();
    let mut heap: BinaryHeap<(usize, Reverse<usize>, Reverse<usize>)> = sets
        .iter()
        .enumerate()
        .filter(|(_, set)| !set.is_empty())
        .map(|(i, set)| (set.len(), Reverse(lengths[i]), Reverse(i)))
        .collect();
    let mut covered: FastSet<T> = FastSet::default();
    let mut kept = Vec::new();
    while covered.len() < universe.len() {
        let Some((gain, length, Reverse(i))) = heap.pop() else {
            break;
        };
        let fresh = sets[i].iter().filter(|e| !covered.contains(e)).count();
        if fresh == 0 {
            continue;
        }
        if fresh < gain {
            heap.push((fresh, length, Reverse(i)));
            continue;
        }
        covered.extend(sets[i].iter().copied());
        kept.push(i);
    }
    Minimised {
        kept,
        edges: universe.len(),
        unrun: 0,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn sets(of: &[&[u32]]) -> Vec<FastSet<u32>> {
        of.iter().map(|s| s.iter().copied().collect()).collect()
    }

    #[test]
    fn the_greedy_cover_drops_what_others_cover() {
        // 0 and 3 are subsumed by 1 and 2; 4 adds nothing.
        let sets = sets(&[&[1, 2], &[1, 2, 3, 4], &[5, 6, 3], &[6], &[]]);
        let chosen = cover(&sets, &[1, 1, 1, 1, 1]);
        assert_eq!(chosen.kept, [1, 2]);
        assert_eq!(chosen.edges, 6);
    }

    #[test]
    fn candidates_the_time_bound_left_unrun_are_kept_as_they_are() {
        let sets = sets(&[&[1, 2], &[1, 2, 3]]);
        let chosen = cover_run(&sets, &[1, 1, 4, 5]);
        assert_eq!(chosen.kept, [1, 2, 3]);
        assert_eq!((chosen.edges, chosen.unrun), (3, 2));
    }

    #[test]
    fn minimisation_gets_a_tenth_of_the_campaigns_time_within_bounds() {
        use crate::engine::shrink::phase_time;
        use std::time::Duration;
        let secs = Duration::from_secs;
        assert_eq!(phase_time(Some(secs(60))), secs(6));
        assert_eq!(phase_time(Some(secs(3))), secs(1));
        assert_eq!(phase_time(Some(secs(3600))), secs(10));
        assert_eq!(phase_time(None), secs(10));
    }

    #[test]
    fn ties_go_to_the_shorter_sequence() {
        let sets = sets(&[&[1, 2], &[1, 2]]);
        assert_eq!(cover(&sets, &[5, 2]).kept, [1]);
        assert_eq!(cover(&sets, &[2, 2]).kept, [0]);
    }

    proptest! {
        /// The kept sets cover every element, keep no set that adds nothing, and are never
        /// more than the candidates.
        #[test]
        fn the_cover_keeps_every_edge(
            raw in prop::collection::vec(prop::collection::vec(0u32..40, 0..8), 0..30)
        ) {
            let sets: Vec<FastSet<u32>> = raw.iter().map(|s| s.iter().copied().collect()).collect();
            let lengths: Vec<usize> = raw.iter().map(Vec::len).collect();
            let chosen = cover(&sets, &lengths);
            let all: FastSet<u32> = sets.iter().flatten().copied().collect();
            let kept: FastSet<u32> = chosen.kept.iter().flat_map(|&i| sets[i].iter().copied()).collect();
            prop_assert_eq!(&kept, &all);
            prop_assert_eq!(chosen.edges, all.len());
            prop_assert!(chosen.kept.len() <= sets.iter().filter(|s| !s.is_empty()).count());
            // Each kept set added something when it was chosen.
            let mut seen: FastSet<u32> = FastSet::default();
            for &i in &chosen.kept {
                prop_assert!(sets[i].iter().any(|e| !seen.contains(e)));
                seen.extend(sets[i].iter().copied());
            }
        }
    }
}
