//! The corpus: one sequence per path id of its last transaction, and the AFLFast cut-off
//! exponential (COE) power schedule that decides how many mutants each entry gets.

use crate::engine::cost::Cost;
use crate::engine::hash::FastMap;
use crate::engine::input::Sequence;

/// Energy of an entry picked for the first time (inputs generated from it).
const BASE_ENERGY: u64 = 4;
/// Cap on one pick's energy (AFLFast's M).
const MAX_ENERGY: u64 = 512;

/// A kept input.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) sequence: Sequence,
    /// Path id of the sequence's last transaction.
    pub(crate) path: u64,
    /// The cost metrics of its run (empty without input prediction).
    pub(crate) costs: Vec<Cost>,
    /// How often the schedule picked this entry (AFLFast's s(i)).
    picks: u32,
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
}

impl Corpus {
    /// Counts one executed input on `path`; keeps `sequence` (with the `costs` of its run)
    /// if the path is new. Returns whether it was kept.
    pub(crate) fn observe(&mut self, path: u64, sequence: &Sequence, costs: &[Cost]) -> bool {
        *self.hits.entry(path).or_insert(0) += 1;
        self.total_hits += 1;
        if self.by_path.contains_key(&path) {
            return false;
        }
        self.by_path.insert(path, self.entries.len());
        self.entries.push(Entry {
            sequence: sequence.clone(),
            path,
            costs: costs.to_vec(),
            picks: 0,
        });
        true
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

    /// Picks the next entry round-robin, skipping those COE gives no energy, and returns it
    /// with its energy. `None` only when the corpus is empty.
    pub(crate) fn pick(&mut self) -> Option<(usize, u64)> {
        if self.entries.is_empty() {
            return None;
        }
        // Paths hit at most the mean number of times always exist, so one full round finds one.
        for _ in 0..self.entries.len() {
            let index = self.cursor % self.entries.len();
            self.cursor = self.cursor.wrapping_add(1);
            let energy = self.energy(index);
            if energy > 0 {
                self.entries[index].picks += 1;
                return Some((index, energy));
            }
        }
        None
    }

    /// COE: no energy for entries whose path is hit more often than the mean (they are
    /// over-explored); otherwise energy doubling with every pick, capped.
    fn energy(&self, index: usize) -> u64 {
        let entry = &self.entries[index];
        let hits = self.hits.get(&entry.path).copied().unwrap_or(0);
        // f(i) > mean  ⇔  f(i) · |paths| > Σ f
        if u128::from(hits) * self.hits.len() as u128 > u128::from(self.total_hits) {
            return 0;
        }
        let doubled = BASE_ENERGY
            .checked_shl(entry.picks.min(32))
            .unwrap_or(MAX_ENERGY);
        doubled.min(MAX_ENERGY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
