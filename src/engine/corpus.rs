//! The corpus: one sequence per path id of its last transaction, and the power schedule
//! that decides how many mutants each entry gets: AFLFast's cut-off exponential (COE) on
//! path ids, or in targeted campaigns ICSE'20's schedule on rare lookahead ids and split
//! points (or, for its configuration D, COE on lookahead ids).

use std::sync::Arc;

use crate::engine::executor::CodePc;
use crate::engine::input::Sequence;
use crate::engine::mask::Mask;
use crate::engine::prediction::cost::Cost;
use crate::hash::FastMap;

/// Energy of an entry picked for the first time (inputs generated from it).
const BASE_ENERGY: u64 = 4;
/// Cap on one pick's energy (AFLFast's M).
const MAX_ENERGY: u64 = 512;
/// Cap on one pick's energy in the lookahead schedule (ICSE'20's K).
const MAX_LOOKAHEAD_ENERGY: u64 = 1024;

/// Entries kept at most. Path ids are hashes of branch decisions, so code with loops keeps
/// yielding new ones (one per iteration count) for as long as a campaign runs; past this
/// many (tens of megabytes of sequences and cost metrics), each new entry replaces the entry
/// of one of the most exercised paths among a few sampled. Violations and first target
/// reaches keep their own sequences, so nothing reported depends on an entry staying.
pub(crate) const MAX_ENTRIES: usize = 20_000;

/// Condition-state entries get at most 1/`CONDITION_SHARE` of the energy the schedule
/// hands out. Their energy is bounded per pick, but a campaign that keeps thousands of them
/// (a suite handler comparing much state) still spent a round on them before the other
/// entries came again: revert guidance's prefixes on `DeskTest` went unextended.
const CONDITION_SHARE: u64 = 4;

/// Entries sampled when one has to go.
const EVICTION_SAMPLE: u64 = 8;

/// What the lookahead analysis said about an entry's run (targeted campaigns only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LookaheadMark {
    /// The lookahead id of the no-target-ahead prefix.
    pub(crate) lid: u64,
    /// The split points along that prefix.
    pub(crate) split_points: Vec<CodePc>,
}

/// A kept input.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) sequence: Sequence,
    /// Path id of the sequence's last transaction.
    pub(crate) path: u64,
    /// The cost metrics of its run (empty without input prediction), shared: every
    /// fuzzing of the entry compares its mutants' metrics with these
    /// ([`crate::engine::prediction::cost::ParentCosts::shared`]), and a long sequence's
    /// run has hundreds.
    pub(crate) costs: Arc<[Cost]>,
    /// How often the schedule picked this entry (AFLFast's s(i)).
    picks: u32,
    /// Its lookahead id and split points, once analysed.
    lookahead: Option<LookaheadMark>,
    /// Which of its inputs mutations may change (mask-guided mutation), once probed.
    pub(crate) mask: Option<Mask>,
    /// What it was kept for, which bounds its energy.
    kept_for: KeptFor,
}

/// Why an entry was kept, which decides how COE's energy is bounded for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeptFor {
    /// A new path id of its last transaction (or another key counted as one: invariant
    /// and revert guidance): COE as it is.
    Path,
    /// A state its run left that no run had (state novelty): COE, but never less than
    /// [`BASE_ENERGY`]. Many runs pass through a state on their way elsewhere (a maze's
    /// cell, every move out of it), so its count soon passes the mean, yet extending it is
    /// how the states beyond are reached.
    State,
    /// What its last transaction's conditions on storage compared (condition states):
    /// COE, but never more than [`BASE_ENERGY`]: its energy does not double. Such keys
    /// are many and each is rarely reached again, so under plain COE they all stay below
    /// the mean and their energy doubles with every pick: variants of known paths took the
    /// schedule from the paths (on two fixtures, 3–4 times the sequences to the bug).
    /// Bounded, they are a breadth of starting states, each extended a little every round,
    /// and together they get at most [`CONDITION_SHARE`] of the energy.
    Condition,
}

/// Corpus entries in insertion order plus the hit count of every path id seen.
#[derive(Debug, Default)]
pub(crate) struct Corpus {
    entries: Vec<Entry>,
    /// Path id → index of the entry that first exercised it.
    by_path: FastMap<u64, usize>,
    /// Path id → number of executed inputs that exercised it (AFLFast's f(i)).
    hits: FastMap<u64, u64>,
    /// Sum of `hits`, kept so that the mean is O(1).
    total_hits: u64,
    /// Round-robin position of the next pick.
    cursor: usize,
    /// Fuzzed inputs per lookahead id and per split point (ICSE'20's fuzz(λ) and fuzz(p)),
    /// counted through the path ids of analysed entries.
    lid_hits: FastMap<u64, u64>,
    split_hits: FastMap<CodePc, u64>,
    /// How analysed entries get their energy.
    schedule: Schedule,
    /// Entries replaced since the corpus was full.
    evicted: u64,
    /// Energy handed out by [`Corpus::pick`], in all and to condition-state entries.
    given: u64,
    given_to_conditions: u64,
}

/// The power schedule for entries with a lookahead mark (unmarked entries always get COE on
/// their path id).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Schedule {
    /// COE on path ids: marks are ignored (untargeted, or ICSE'20's configuration A).
    #[default]
    Paths,
    /// ICSE'20 §4.2: energy for rare lookahead ids and rare split points (B and C).
    RareLookahead,
    /// COE counted per lookahead id instead of per path id (configuration D).
    LookaheadIds,
}

impl Corpus {
    /// Counts one executed input on `path`; keeps `sequence` (with the `costs` of its run)
    /// if the path is new. Returns whether it was kept.
    pub(crate) fn observe(&mut self, path: u64, sequence: &Sequence, costs: &[Cost]) -> bool {
        self.observe_as(path, sequence, costs, KeptFor::Path)
    }

    /// Counts one executed input under `key`, keeping `sequence` as kept for `kept_for`
    /// when the key is new, as [`Corpus::observe`] does for path ids. Keys other than path
    /// ids (states, condition states) are seen here only when new; [`Corpus::count`]
    /// counts their later hits.
    pub(crate) fn observe_as(
        &mut self,
        path: u64,
        sequence: &Sequence,
        costs: &[Cost],
        kept_for: KeptFor,
    ) -> bool {
        *self.hits.entry(path).or_insert(0) += 1;
        self.total_hits += 1;
        if let Some(&index) = self.by_path.get(&path) {
            // The same path has the same prefix: one more input exercised its lookahead id
            // and split points.
            if let Some(mark) = &self.entries[index].lookahead {
                *self.lid_hits.entry(mark.lid).or_insert(0) += 1;
                for split in &mark.split_points {
                    *self.split_hits.entry(*split).or_insert(0) += 1;
                }
            }
            return false;
        }
        if self.entries.len() >= MAX_ENTRIES {
            self.evict(path);
        }
        self.by_path.insert(path, self.entries.len());
        self.entries.push(Entry {
            sequence: sequence.clone(),
            path,
            costs: costs.into(),
            picks: 0,
            lookahead: None,
            mask: None,
            kept_for,
        });
        true
    }

    /// Counts one more executed input that reached the entry kept under `key`, if there is
    /// one: for keys other than path ids, which `observe` sees only when new.
    pub(crate) fn count(&mut self, key: u64) {
        if self.by_path.contains_key(&key) {
            *self.hits.entry(key).or_insert(0) += 1;
            self.total_hits += 1;
        }
    }

    /// Removes the entry of the most exercised path among [`EVICTION_SAMPLE`] entries
    /// chosen from `seed` (the new path id: deterministic, and as good as random).
    fn evict(&mut self, seed: u64) {
        let len = self.entries.len() as u64;
        let victim = (0..EVICTION_SAMPLE)
            .map(|i| {
                (seed
                    .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                    .rotate_left(8 * i as u32)
                    % len) as usize
            })
            .max_by_key(|&i| self.hits.get(&self.entries[i].path).copied().unwrap_or(0))
            .unwrap_or(0);
        let removed = self.entries.swap_remove(victim);
        self.by_path.remove(&removed.path);
        if let Some(hits) = self.hits.remove(&removed.path) {
            self.total_hits -= hits;
        }
        if let Some(moved) = self.entries.get(victim) {
            self.by_path.insert(moved.path, victim);
        }
        self.evicted += 1;
    }

    /// Entries replaced because the corpus was full.
    pub(crate) fn evicted(&self) -> u64 {
        self.evicted
    }

    /// Sets how analysed entries get their energy (a targeted campaign).
    pub(crate) fn schedule(&mut self, schedule: Schedule) {
        self.schedule = schedule;
    }

    /// Records the lookahead analysis of entry `index`'s run (which counts as one input
    /// exercising its id and split points).
    pub(crate) fn set_lookahead(&mut self, index: usize, mark: LookaheadMark) {
        *self.lid_hits.entry(mark.lid).or_insert(0) += 1;
        for split in &mark.split_points {
            *self.split_hits.entry(*split).or_insert(0) += 1;
        }
        self.entries[index].lookahead = Some(mark);
    }

    /// Records the mutation mask of the entry on `path`, if it is still there.
    pub(crate) fn set_mask(&mut self, path: u64, mask: Mask) {
        if let Some(&index) = self.by_path.get(&path) {
            self.entries[index].mask = Some(mask);
        }
    }

    /// Distinct lookahead ids among the analysed entries.
    pub(crate) fn lookahead_ids(&self) -> usize {
        self.lid_hits.len()
    }

    /// Whether some entry's path id is `path`.
    pub(crate) fn contains(&self, path: u64) -> bool {
        self.by_path.contains_key(&path)
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing has been kept yet.
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry at `index`.
    pub(crate) fn get(&self, index: usize) -> &Entry {
        &self.entries[index]
    }

    /// Every entry, in insertion order.
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Picks the next entry round-robin, skipping those COE gives no energy and condition
    /// states past their share, and returns it with its energy. `None` only when the
    /// corpus is empty.
    pub(crate) fn pick(&mut self) -> Option<(usize, u64)> {
        if self.entries.is_empty() {
            return None;
        }
        // Condition states past their share wait for the other entries, unless a whole
        // round finds nothing else. Paths hit at most the mean number of times always
        // exist, so the second round finds one.
        for within_share in [true, false] {
            for _ in 0..self.entries.len() {
                let index = self.cursor % self.entries.len();
                self.cursor = self.cursor.wrapping_add(1);
                let condition = self.entries[index].kept_for == KeptFor::Condition;
                if within_share
                    && condition
                    && self.given_to_conditions * CONDITION_SHARE > self.given
                {
                    continue;
                }
                let energy = self.energy(index);
                if energy > 0 {
                    self.entries[index].picks += 1;
                    self.given += energy;
                    if condition {
                        self.given_to_conditions += energy;
                    }
                    return Some((index, energy));
                }
            }
        }
        None
    }

    /// The energy of entry `index`: by the schedule when the entry was analysed, else COE
    /// on its path id.
    fn energy(&self, index: usize) -> u64 {
        let entry = &self.entries[index];
        match (&entry.lookahead, self.schedule) {
            (Some(mark), Schedule::RareLookahead) => self.lookahead_energy(mark, entry.picks),
            (Some(mark), Schedule::LookaheadIds) => {
                let hits = self.lid_hits.get(&mark.lid).copied().unwrap_or(0);
                let total = self.lid_hits.values().sum();
                coe_energy(hits, self.lid_hits.len(), total, entry.picks)
            }
            _ => {
                let hits = self.hits.get(&entry.path).copied().unwrap_or(0);
                let energy = coe_energy(hits, self.hits.len(), self.total_hits, entry.picks);
                match entry.kept_for {
                    KeptFor::Path => energy,
                    KeptFor::State => energy.max(BASE_ENERGY),
                    KeptFor::Condition => energy.min(BASE_ENERGY),
                }
            }
        }
    }

    /// ICSE'20 §4.2: min(2^selected, K) when the entry's lookahead id or one of its split
    /// points is rare, else 1. A count is rare below the cut-off 2^i, where
    /// 2^(i-1) < (the smallest count) ≤ 2^i.
    fn lookahead_energy(&self, mark: &LookaheadMark, picks: u32) -> u64 {
        let cutoff = |min: Option<u64>| min.map_or(0, |m| m.next_power_of_two());
        let lid_cutoff = cutoff(self.lid_hits.values().copied().min());
        let split_cutoff = cutoff(self.split_hits.values().copied().min());
        let rare = self.lid_hits.get(&mark.lid).copied().unwrap_or(0) < lid_cutoff
            || mark
                .split_points
                .iter()
                .any(|split| self.split_hits.get(split).copied().unwrap_or(0) < split_cutoff);
        if rare {
            // selected(I) counts this selection too.
            1u64.checked_shl(picks.saturating_add(1).min(32))
                .unwrap_or(MAX_LOOKAHEAD_ENERGY)
                .min(MAX_LOOKAHEAD_ENERGY)
        } else {
            1
        }
    }
}

/// COE for an entry picked `picks` times whose id (path or lookahead id) was exercised
/// `hits` times, among `ids` ids exercised `total` times in all: no energy when it is hit
/// more often than the mean (over-explored); otherwise energy doubling with every pick,
/// capped.
fn coe_energy(hits: u64, ids: usize, total: u64, picks: u32) -> u64 {
    // f(i) > mean  ⇔  f(i) · |ids| > Σ f
    if u128::from(hits) * ids as u128 > u128::from(total) {
        return 0;
    }
    let doubled = BASE_ENERGY.checked_shl(picks.min(32)).unwrap_or(MAX_ENERGY);
    doubled.min(MAX_ENERGY)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The next `n` picks of `corpus`: (entry, energy) each.
    fn picks(corpus: &mut Corpus, n: usize) -> Vec<(usize, u64)> {
        (0..n).map(|_| corpus.pick().unwrap()).collect()
    }

    #[test]
    fn a_full_corpus_replaces_entries_and_stays_consistent() {
        let mut corpus = Corpus::default();
        let seq = Sequence::default();
        for path in 0..MAX_ENTRIES as u64 + 10 {
            assert!(corpus.observe(path, &seq, &[]));
        }
        assert_eq!(corpus.len(), MAX_ENTRIES);
        assert_eq!(corpus.evicted(), 10);
        for (index, entry) in corpus.entries().iter().enumerate() {
            assert_eq!(corpus.by_path.get(&entry.path), Some(&index));
        }
        assert_eq!(corpus.by_path.len(), MAX_ENTRIES);
        assert_eq!(corpus.total_hits, corpus.hits.values().sum::<u64>());
        // The newest entry always stays; an evicted path counts as new again.
        assert!(corpus.contains(MAX_ENTRIES as u64 + 9));
        let gone = (0..MAX_ENTRIES as u64)
            .find(|p| !corpus.contains(*p))
            .unwrap();
        assert!(corpus.observe(gone, &seq, &[]));
    }

    #[test]
    fn keeps_one_entry_per_path() {
        let mut corpus = Corpus::default();
        let seq = Sequence::default();
        assert!(corpus.observe(1, &seq, &[]));
        assert!(!corpus.observe(1, &seq, &[]));
        assert!(corpus.observe(2, &seq, &[]));
        assert_eq!(corpus.len(), 2);
    }

    #[test]
    fn energy_doubles_per_pick_until_the_cap() {
        let mut corpus = Corpus::default();
        corpus.observe(7, &Sequence::default(), &[]);
        let energies: Vec<u64> = (0..10).map(|_| corpus.pick().unwrap().1).collect();
        assert_eq!(energies, vec![4, 8, 16, 32, 64, 128, 256, 512, 512, 512]);
    }

    #[test]
    fn the_lookahead_schedule_favours_rare_ids_and_split_points() {
        let mut corpus = Corpus::default();
        corpus.schedule(Schedule::RareLookahead);
        let seq = Sequence::default();
        let a = alloy_primitives::Address::with_last_byte(1);
        let mark = |lid, splits: &[u32]| LookaheadMark {
            lid,
            split_points: splits.iter().map(|&pc| CodePc { code: a, pc }).collect(),
        };
        corpus.observe(1, &seq, &[]);
        corpus.set_lookahead(0, mark(100, &[0, 5]));
        corpus.observe(2, &seq, &[]);
        corpus.set_lookahead(1, mark(200, &[0, 9]));
        // Path 1 runs 6 more times: lid 100 has 7 inputs, lid 200 one; split 0 has 8,
        // split 5 has 7, split 9 one.
        for _ in 0..6 {
            corpus.observe(1, &seq, &[]);
        }
        assert_eq!((corpus.lid_hits[&100], corpus.lid_hits[&200]), (7, 1));
        let split = |pc| corpus.split_hits[&CodePc { code: a, pc }];
        assert_eq!((split(0), split(5), split(9)), (8, 7, 1));
        // With the smallest count 1 the cut-off is 1, so nothing is rare yet: energy 1.
        assert_eq!(corpus.pick(), Some((0, 1)));
        assert_eq!(corpus.pick(), Some((1, 1)));
        // Once entry 1's path has 2 more inputs (3 in all), the cut-off is 4: lid 200 (3)
        // and split 9 (3) are rare, lid 100 (7) is not, but split 5 (7) is not either.
        corpus.observe(2, &seq, &[]);
        corpus.observe(2, &seq, &[]);
        assert_eq!(corpus.pick(), Some((0, 1)), "nothing of entry 0 is rare");
        assert_eq!(
            corpus.pick(),
            Some((1, 4)),
            "2^(picks) with this the second pick"
        );
    }

    #[test]
    fn configuration_d_counts_coe_per_lookahead_id() {
        let mut corpus = Corpus::default();
        corpus.schedule(Schedule::LookaheadIds);
        let seq = Sequence::default();
        let mark = |lid| LookaheadMark {
            lid,
            split_points: Vec::new(),
        };
        // Paths 1 and 2 share lookahead id 100; path 3 has id 200 to itself.
        for (path, lid) in [(1, 100), (2, 100), (3, 200)] {
            corpus.observe(path, &seq, &[]);
            corpus.set_lookahead(corpus.len() - 1, mark(lid));
        }
        // Paths are hit evenly, but id 100 has 2 of the 3 inputs: above the mean (1.5).
        assert_eq!(picks(&mut corpus, 3), vec![(2, 4), (2, 8), (2, 16)]);
        // Under COE on path ids every entry would get energy.
        corpus.schedule(Schedule::Paths);
        assert_eq!(corpus.pick(), Some((0, 4)));
    }

    #[test]
    fn paths_hit_more_than_the_mean_get_no_energy() {
        let mut corpus = Corpus::default();
        let seq = Sequence::default();
        corpus.observe(1, &seq, &[]);
        corpus.observe(2, &seq, &[]);
        for _ in 0..10 {
            corpus.observe(1, &seq, &[]); // path 1 is now far above the mean
        }
        for _ in 0..4 {
            assert_eq!(corpus.pick().unwrap().0, 1, "only the rare path is picked");
        }
    }

    #[test]
    fn a_state_reached_more_than_the_mean_keeps_the_base_energy() {
        let mut corpus = Corpus::default();
        let seq = Sequence::default();
        corpus.observe(1, &seq, &[]);
        assert!(corpus.observe_as(2, &seq, &[], KeptFor::State));
        assert!(
            !corpus.observe_as(2, &seq, &[], KeptFor::State),
            "a state is kept once"
        );
        for _ in 0..10 {
            corpus.count(2); // state 2 is now far above the mean
        }
        // Path 1 doubles its energy with every pick; the state keeps the floor.
        assert_eq!(picks(&mut corpus, 4), vec![(0, 4), (1, 4), (0, 8), (1, 4)]);
    }

    #[test]
    fn a_condition_state_gets_at_most_the_base_energy() {
        let mut corpus = Corpus::default();
        let seq = Sequence::default();
        corpus.observe(1, &seq, &[]);
        assert!(corpus.observe_as(2, &seq, &[], KeptFor::Condition));
        // Both are below the mean: path 1 doubles its energy with every pick, the
        // condition state's stays at the base.
        assert_eq!(picks(&mut corpus, 4), vec![(0, 4), (1, 4), (0, 8), (1, 4)]);
        for _ in 0..10 {
            corpus.count(2); // condition state 2 is now far above the mean
        }
        assert_eq!(corpus.pick(), Some((0, 16)), "over the mean it gets none");
        assert_eq!(corpus.pick(), Some((0, 32)));
    }

    #[test]
    fn condition_states_past_their_share_wait_for_the_other_entries() {
        let mut corpus = Corpus::default();
        let seq = Sequence::default();
        corpus.observe(1, &seq, &[]);
        for key in 2..6 {
            corpus.observe_as(key, &seq, &[], KeptFor::Condition);
        }
        // Path 1 gets 4, a condition state 4: half of the 8 handed out, past their
        // quarter, so the others wait and the round goes back to the path (8 more: 4 of
        // 16), after which the first condition state is within the share again.
        assert_eq!(
            picks(&mut corpus, 5),
            vec![(0, 4), (1, 4), (0, 8), (1, 4), (0, 16)]
        );
        // With nothing else to pick, a condition state is picked past its share.
        let mut only = Corpus::default();
        only.observe_as(2, &seq, &[], KeptFor::Condition);
        only.observe_as(3, &seq, &[], KeptFor::Condition);
        assert_eq!(only.pick(), Some((0, 4)));
        assert_eq!(only.pick(), Some((1, 4)));
    }
}
