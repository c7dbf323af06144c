//! The targeting stage (ICSE'20): which targets each regular run reached (the observer
//! reports the watched blocks a transaction entered), and, when steering, the lookahead
//! analysis of each new corpus entry (Alg. 1 line 11) whose lookahead id and split points
//! the corpus' power schedule turns into energy. Present only in targeted campaigns.

pub(super) mod reach;

use std::time::Instant;

use alloy_primitives::Address;

use crate::engine::corpus::{Corpus, LookaheadMark};
use crate::engine::executor::{CodePc, Executor, RunStart, Seen, Sink};
use crate::engine::input::Sequence;
use crate::engine::targeting::reach::{Hit, TargetIndex};
use crate::lookahead::Lookahead;
use crate::outcome::LookaheadStats;

/// One worker's targets and, when steering, its lookahead analyses.
pub(crate) struct Targeting {
    /// Which targets entered blocks reach.
    index: TargetIndex,
    /// The watched blocks the last regular run entered.
    hits: Vec<Hit>,
    /// The lookahead analysis of each fuzzed contract's code (empty: not steering).
    lookaheads: Vec<(Address, Lookahead)>,
    /// Whether to analyze (ICSE'20's B and D) or take every target as reachable (C).
    analyze: bool,
    stats: LookaheadStats,
}

impl Targeting {
    /// Targeting with `index`; steering with `lookaheads` (none: only watching), by the
    /// analysis or, without `analyze`, assuming every target reachable.
    pub(crate) fn new(
        index: TargetIndex,
        lookaheads: Vec<(Address, Lookahead)>,
        analyze: bool,
    ) -> Targeting {
        Targeting {
            index,
            hits: Vec::new(),
            lookaheads,
            analyze,
            stats: LookaheadStats::default(),
        }
    }

    /// Whether it steers (the lookahead analysis runs on new corpus entries).
    pub(crate) fn steers(&self) -> bool {
        !self.lookaheads.is_empty()
    }

    /// The targets the last regular run reached that this worker had not seen reached, each
    /// with the index of the first transaction that reached it.
    pub(crate) fn newly_reached(&mut self) -> Vec<(usize, usize)> {
        self.index.newly_reached(&self.hits)
    }

    /// ICSE'20 Alg. 1 line 11: the lookahead analysis of new corpus entry `index`, whose
    /// run was `sequence`, on the path of its last transaction (run again by `executor`).
    pub(crate) fn analyze(
        &mut self,
        executor: &mut Executor<'_>,
        corpus: &mut Corpus,
        index: usize,
        sequence: &Sequence,
    ) {
        let started = Instant::now();
        if let Some((address, path)) = executor.path_of_last(sequence) {
            if let Some((_, lookahead)) = self.lookaheads.iter_mut().find(|(a, _)| *a == address) {
                let analysis = if self.analyze {
                    lookahead.analyze(&path)
                } else {
                    lookahead.assume_reachable(&path)
                };
                self.stats.analyses += 1;
                self.stats.bounded += u64::from(analysis.bounded);
                // Prefixes are per code: the same pcs in two contracts are different ids.
                let lid = analysis.lid
                    ^ u64::from_be_bytes(address[12..20].try_into().unwrap_or_default());
                corpus.set_lookahead(
                    index,
                    LookaheadMark {
                        lid,
                        split_points: analysis
                            .split_points
                            .iter()
                            .map(|&pc| CodePc { code: address, pc })
                            .collect(),
                    },
                );
            }
        }
        self.stats.time += started.elapsed();
    }

    /// What the analysis did (its lookahead ids are counted by the corpus).
    pub(crate) fn stats(&self) -> LookaheadStats {
        self.stats
    }

    /// How often the analyses' remembered verdicts were full and forgotten.
    pub(crate) fn verdicts_forgotten(&self) -> u64 {
        self.lookaheads
            .iter()
            .map(|(_, lookahead)| lookahead.forgotten())
            .sum()
    }
}

impl Sink for Targeting {
    fn start(&mut self, _sequence: &Sequence, _start: RunStart) {
        self.hits.clear();
    }

    fn transaction(&mut self, seen: &Seen<'_>) {
        self.hits
            .extend(seen.trace.target_hits().iter().map(|&(code, pc)| Hit {
                tx: seen.index,
                block: CodePc { code, pc },
            }));
    }
}
